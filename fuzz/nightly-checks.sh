#!/usr/bin/env bash
# Checks that need the nightly toolchain, run by .ci/run when one is installed (a skip line
# otherwise):
# - AddressSanitizer on the tests of the runtime's modules with `unsafe` code (spare blocks,
#   the scheduler's output slots, buffers, MoA buffers and products, hints).
#   (Miri is not installed on this machine image and cannot be fetched, so no Miri run.)
# - With cargo-fuzz installed: every fuzz target built with ASan and run over its corpus.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "nightly-checks: SKIPPED: no nightly toolchain (AddressSanitizer and cargo fuzz need one)"
  exit 0
fi
host=$(rustc -vV | sed -n 's/^host: //p')
echo "nightly-checks: AddressSanitizer on the runtime's unsafe modules ($host)"
RUSTFLAGS="-Zsanitizer=address" RUSTDOCFLAGS="-Zsanitizer=address" \
  CARGO_TARGET_DIR=target/asan cargo +nightly test -q -p flatland-runtime \
  --target "$host" --lib --test spare -- spare slots buffer moa hint sched

if command -v cargo-fuzz >/dev/null 2>&1; then
  for t in $(cargo +nightly fuzz list); do
    echo "nightly-checks: fuzz target $t over its corpus"
    cargo +nightly fuzz run -O "$t" "fuzz/corpus/$t" -- -runs=0 -rss_limit_mb=2048
  done
else
  echo "nightly-checks: SKIPPED fuzz corpus replay under ASan: cargo-fuzz is not installed (cargo install cargo-fuzz)"
fi
