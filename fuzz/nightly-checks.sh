#!/usr/bin/env bash
# Checks that need the nightly toolchain, run by .ci/run when one is installed (a skip line
# otherwise):
# - AddressSanitizer on the tests of the runtime's modules with `unsafe` code (spare blocks,
#   the scheduler's output slots, buffers, MoA buffers and products, hints).
#   (Miri is not installed on this machine image and cannot be fetched, so no Miri run.)
# - With FLATLAND_FUZZ_ASAN=1 and cargo-fuzz installed: every fuzz target built with ASan and
#   run over its corpus (minutes: the build instruments the whole workspace, and eval_exec runs
#   a few inputs a second under ASan). CI replays the same corpora on stable in every run
#   (cli/tests/fuzz_corpus.rs), so this one is opt-in.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "nightly-checks: SKIPPED: no nightly toolchain (AddressSanitizer and cargo fuzz need one)"
  exit 0
fi
host=$(rustc -vV | sed -n 's/^host: //p')
echo "nightly-checks: AddressSanitizer on the runtime's unsafe modules ($host)"
# Unoptimised (the workspace builds these crates at opt-level 1 for the tests' speed): these
# tests run in seconds either way, and the build took 130 s of CI's time optimised, 47 s not.
RUSTFLAGS="-Zsanitizer=address" RUSTDOCFLAGS="-Zsanitizer=address" \
  CARGO_TARGET_DIR=target/asan cargo +nightly test -q -p flatland-runtime \
  --config 'profile.dev.package.flatland-runtime.opt-level=0' \
  --config 'profile.dev.package.flatland-segd.opt-level=0' \
  --target "$host" --lib --test spare -- spare slots buffer moa hint sched

if [ "${FLATLAND_FUZZ_ASAN:-0}" != 1 ]; then
  echo "nightly-checks: SKIPPED the corpora under ASan (set FLATLAND_FUZZ_ASAN=1; replayed on stable by the tests)"
elif command -v cargo-fuzz >/dev/null 2>&1; then
  for t in $(cargo +nightly fuzz list); do
    echo "nightly-checks: fuzz target $t over its corpus"
    # Under ASan eval_exec's resident memory climbs by about 5 MB an input, while the same
    # inputs replayed without ASan stay at 14 MB in all (live heap at the climb: 40 MB): no RSS
    # limit here, a malloc limit instead.
    cargo +nightly fuzz run -O "$t" "fuzz/corpus/$t" -- -runs=0 -rss_limit_mb=0 -malloc_limit_mb=1024
  done
else
  echo "nightly-checks: SKIPPED the corpora under ASan: cargo-fuzz is not installed (cargo install cargo-fuzz)"
fi
