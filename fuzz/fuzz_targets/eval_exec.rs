//! libFuzzer entry point of the `eval_exec` target (its body: `fuzz/targets/eval_exec.rs`).
#![no_main]

#[path = "../targets/mod.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::eval_exec::run(data));
