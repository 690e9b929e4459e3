//! libFuzzer entry point of the `numbers` target (its body: `fuzz/targets/numbers.rs`).
#![no_main]

#[path = "../targets/mod.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::numbers::run(data));
