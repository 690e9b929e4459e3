//! libFuzzer entry point of the `descriptors` target (its body: `fuzz/targets/descriptors.rs`).
#![no_main]

#[path = "../targets/mod.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::descriptors::run(data));
