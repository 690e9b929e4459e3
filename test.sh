#!/usr/bin/env bash
# Runs every test of the workspace. Installs what the tests need and a fresh machine lacks first:
# Open MPI and libclang (for the `flatland-mpi` crate's bindings), with apt, once.
set -euo pipefail
cd "$(dirname "$0")"

missing=()
command -v mpicc >/dev/null 2>&1 || missing+=(openmpi-bin libopenmpi-dev)
command -v mpirun >/dev/null 2>&1 || missing+=(openmpi-bin)
# The names bindgen loads (libclang-cpp.so, which LLVM's other packages bring, is not one of them).
libclang_found=false
for dir in /usr/lib/llvm-*/lib /usr/lib/*; do
  compgen -G "$dir/libclang.so*" >/dev/null || compgen -G "$dir/libclang-[0-9]*.so*" >/dev/null \
    && libclang_found=true
done
$libclang_found || missing+=(libclang-dev)
if [ ${#missing[@]} -gt 0 ]; then
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  echo "test.sh: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

if [ "${1:-}" = "--install-only" ]; then
  exit 0
fi
# The macro crate's compile-fail tests (trybuild) build their cases as a project of their own,
# which takes none of this workspace's profiles: in cargo's default dev profile, with full debug
# information, they left 3 GB in target/tests/trybuild. They need none (the workspace's own test
# builds carry none either, see [profile.test] in Cargo.toml).
export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-false}"
cargo test --workspace --all-features "$@"
