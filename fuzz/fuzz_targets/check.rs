//! libFuzzer entry point of the `check` target (its body: `fuzz/targets/check.rs`).
#![no_main]

#[path = "../targets/mod.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::check::run(data));
