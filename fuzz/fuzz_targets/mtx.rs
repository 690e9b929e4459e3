//! libFuzzer entry point of the `mtx` target (its body: `fuzz/targets/mtx.rs`).
#![no_main]

#[path = "../targets/mod.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::mtx::run(data));
