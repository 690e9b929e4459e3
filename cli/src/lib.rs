//! The `flatland` command's library: the benchmark harness ([`harness`]), the file readers
//! ([`io`]) and the kernels it runs ([`kernels`], an example of a `#[vectorise]` module).
//!
//! This crate is for the command line (`cargo run --release -- bench --quick` at the repository
//! root); a program that uses Flatland depends on the `flatland` library crate instead, which
//! carries none of the dependencies below (clap, indicatif, plotters, serde, sprs).

pub mod bytes;
#[cfg(feature = "mpi")]
pub mod distributed;
pub mod harness;
pub mod io;
pub mod kernels;
pub mod suite;
