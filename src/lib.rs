//! Flatland: nested data parallelism for Rust.
//!
//! Write programs over irregular nested arrays with ordinary nested `map`, `filter`, `reduce` and
//! recursion; Flatland flattens them into a few segmented bulk operations that run in parallel.

pub use flatland_macros::vectorise;
pub use flatland_runtime as runtime;
pub use flatland_runtime::moa;
pub use flatland_runtime::moa::lazy;
pub use flatland_segd as segd;
pub use flatland_vectoriser as vectoriser;

pub mod harness;
pub mod io;
pub mod kernels;
