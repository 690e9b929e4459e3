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
cargo test --workspace --all-features "$@"
