//! Flatland: nested data parallelism for Rust.
//!
//! Write programs over irregular nested arrays with ordinary nested `map`, `filter`, `reduce` and
//! recursion; Flatland flattens them into a few segmented bulk operations that run in parallel
//! on rayon's pool, with the same bits for any number of threads.
//!
//! ```
//! use flatland::prelude::*;
//!
//! #[vectorise]
//! mod kernels {
//!     use flatland::prelude::Nested;
//!
//!     /// The mean of each row (0 for an empty row).
//!     pub fn row_means(rows: &Nested<f64>) -> Vec<f64> {
//!         rows.map(|r| if r.len() == 0 { 0.0 } else { r.sum() / r.len() as f64 })
//!     }
//! }
//!
//! let rows = Nested::from_offsets(vec![0, 3, 3, 4], vec![1.0, 2.0, 6.0, 5.0])?;
//! assert_eq!(kernels::row_means(&rows), vec![3.0, 0.0, 5.0]); // the signature as written
//! assert_eq!(kernels::try_row_means(&rows)?, vec![3.0, 0.0, 5.0]); // or the error returned
//! assert_eq!(rows.get(0), Some(&[1.0, 2.0, 6.0][..])); // rows are borrowed, not copied
//! # Ok::<(), flatland::Error>(())
//! ```
//!
//! The crates behind the facade, from the bottom up:
//!
//! | module | crate | what it holds |
//! | --- | --- | --- |
//! | [`segd`] | `flatland-segd` | segment descriptors (`Segd`, `SSegd`, `VSegd`) |
//! | [`runtime`] | `flatland-runtime` | element stores ([`Nested`](prelude::Nested)), the canonical association, scheduler, cost model, [`flat`](runtime::flat) and [`seg`](runtime::seg) primitives, expression VM, [`moa`] arrays, work counters |
//! | [`vectoriser`] | `flatland-vectoriser` | the IR, checker, reference interpreter, fusion, flattening executor and the run-time [`dsl`](vectoriser::dsl) |
//! | [`vectorise`] | `flatland-macros` | the `#[vectorise]` attribute: the vectoriser at build time |
//!
//! What NaN does in every operation that orders floats, and what is dropped on purpose, is one
//! table: [`semantics`].
//!
//! The `stats` feature turns on the runtime's work counters ([`runtime::stats`]). The command
//! line, the benchmark harness and the file readers are the `flatland-cli` crate, which a
//! library user does not need.

pub use flatland_macros::vectorise;
pub use flatland_runtime as runtime;
pub use flatland_runtime::moa;
pub use flatland_runtime::moa::lazy;
pub use flatland_segd as segd;
pub use flatland_vectoriser as vectoriser;
pub use flatland_vectoriser::{Error, Result};

/// Nested arrays distributed over MPI ranks, with segmented primitives that return the bits of
/// one process (the `flatland-mpi` crate, feature `mpi`).
#[cfg(feature = "mpi")]
pub use flatland_mpi as mpi;

pub mod semantics;

/// What most programs need: `use flatland::prelude::*;`.
///
/// - [`vectorise`]: the attribute that flattens a module of functions;
/// - [`Nested`](prelude::Nested) (an array of arrays; rows borrowed as `&[T]` or
///   [`RowView`](prelude::RowView)) and [`Segd`](prelude::Segd) (a segment descriptor);
/// - [`flat`](prelude::flat) and [`seg`](prelude::seg): the flat and segmented bulk operations
///   a program calls directly (`seg::fold_s`, `seg::scan_s`, `flat::partition_by`, ...);
/// - [`Error`] and [`Result`]: what a `#[vectorise]` function
///   returns; runtime errors convert into it with `?`.
///
/// ```
/// use flatland::prelude::*;
/// let segd = Segd::from_lengths(vec![2, 0, 1])?;
/// let sums = seg::fold_s(&segd, &[1.5, 2.5, 4.0], 0.0, |a, b| a + b)?;
/// assert_eq!(sums, vec![4.0, 0.0, 4.0]);
/// assert_eq!(flat::scan_inclusive(&[1, 2, 3], 0, |a, b| a + b), vec![1, 3, 6]);
/// # Ok::<(), Error>(())
/// ```
pub mod prelude {
    pub use crate::{Error, Result};
    pub use flatland_macros::vectorise;
    pub use flatland_runtime::elt::{Nested, RowView};
    pub use flatland_runtime::{flat, seg};
    pub use flatland_segd::Segd;
}

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
