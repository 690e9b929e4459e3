//! The fuzz targets' bodies, one module each, shared by the libFuzzer entry points
//! (`fuzz/fuzz_targets/*.rs`, run with `cargo +nightly fuzz run NAME`) and by the corpus replay
//! test of the workspace (`cli/tests/fuzz_corpus.rs`), which runs every file of
//! `fuzz/corpus/NAME/` through `NAME::run` on the stable toolchain.
//!
//! A body returns normally on any input; a panic is a finding (a crash, a disagreement, an
//! invariant broken). Every body sets the memory budget first ([`BUDGET`]), so declared sizes
//! are refused instead of taking the machine.

#![allow(dead_code, unreachable_pub)]

pub mod bytes;
pub mod check;
pub mod descriptors;
pub mod eval_exec;
pub mod mtx;
pub mod numbers;

/// The memory budget of a fuzzed process (the fuzzer's own `-rss_limit_mb` is above it).
pub const BUDGET: usize = 256 << 20;

/// Sets the budget (cheap; every body calls it).
pub fn budget() {
    flatland::runtime::budget::set_limit(Some(BUDGET));
}

/// A target's body.
pub type Body = fn(&[u8]);

/// Every target: its name (the corpus folder) and its body.
pub const TARGETS: &[(&str, Body)] = &[
    ("mtx", mtx::run),
    ("numbers", numbers::run),
    ("descriptors", descriptors::run),
    ("check", check::run),
    ("eval_exec", eval_exec::run),
];
