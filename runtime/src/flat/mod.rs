//! Flat bulk primitives over slices: map, zip_with, redomap, reduce, scans, pack/filter, combine,
//! gather (bpermute), scatter, iota, replicate, k-way stable partition and split (each class in
//! an array of its own) and reduction by index
//! (`hist`, `count_by_index`).
//!
//! Every primitive asks the scheduler ([`crate::sched::plan`]) for a [`crate::sched::Schedule`]:
//! small inputs (a few leaves or less, on the default profiles) run sequentially on the calling
//! thread, large ones as tasks of whole leaves on rayon's current pool. Reductions and scans return
//! exactly the bits of the canonical association ([`crate::assoc`]) whatever the pool size or
//! machine profile. Masks are `bitvec` bit slices (`BitSlice<usize, Lsb0>`, the bitvec default).
//!
//! Each primitive records its work ([`crate::stats`]) on the calling thread from the sizes of its
//! inputs and outputs (logical counts, the same for every schedule; per-task scratch such as
//! leaf results or scatter's winner table is not counted); each function's doc says what it
//! counts. Bad input is a typed [`crate::Error`]; a panic in a user closure propagates to
//! the caller and leaves the pool usable.
//!
//! ```
//! use flatland_runtime::flat;
//! let xs: Vec<i64> = flat::iota(0, 1, 10);
//! let squares = flat::map(&xs, |x| x * x);
//! assert_eq!(flat::reduce(&squares, 0, |a, b| a + b), 285);
//! let evens = flat::filter(&xs, |x| x % 2 == 0);
//! assert_eq!(evens, vec![0, 2, 4, 6, 8]);
//! ```

mod elementwise;
pub(crate) mod hist;
mod index;
mod partition;
mod permute;
mod reduce;
mod select;
pub(crate) mod sort;
pub(crate) mod split;

pub use elementwise::{iota, map, redomap, replicate, zip_with};
pub use hist::{count_by_index, hist};
pub use index::{Index, Step};
pub use partition::{MAX_CLASSES, Partition, partition, partition_by};
pub use permute::{gather, gather as bpermute, scatter, scatter_value};
pub use reduce::{
    reduce, reduce_leaves, scan_exclusive, scan_exclusive_with_total, scan_inclusive,
};
pub use select::{combine, filter, mask, pack};
pub use sort::{argsort_f64, argsort_i64, sort_f64, sort_i64};
pub use split::{Split, split};
