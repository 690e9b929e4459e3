//! Flatland on MPI: nested arrays distributed across ranks by segments, whose segmented
//! primitives return the same bits as one process.
//!
//! A [`DistNested`] is cut into consecutive element ranges of about `elements / ranks` each; a
//! segment longer than that spans ranks, cut only on leaf boundaries of the canonical
//! association ([`flatland_runtime::assoc`]: 4,096 elements counted from the segment's start).
//! Each rank holds the descriptor of its own pieces and the O(ranks) [`Layout`]. Segmented
//! folds and scans are then a local `fold_s`/`scan_s` plus an exchange of the split pieces'
//! leaf results, combined left to right in rank order, so that a run on any number of ranks
//! returns exactly the bits of `flatland_runtime::seg` on one process. Filters and partitions
//! are local counts, a scan of the counts and an all-to-all; gathers and lifted indexing are
//! all-to-alls of requests and replies; [`DistCsr::smvm`] multiplies CSR rows held by
//! segment against a replicated dense vector.
//!
//! Every operation is collective. A rank that fails (bad input on one rank, an index out of
//! range) makes every rank return the same [`Error::OnRank`]: errors are agreed with an
//! all-reduce ([`Comm::agree`]) before any exchange that depends on them, so no rank hangs.
//!
//! Building needs an MPI implementation and libclang (rsmpi's bindings): on Debian,
//! `apt-get install openmpi-bin libopenmpi-dev libclang-dev`. Programs run under `mpirun`.
//!
//! ```
//! use flatland_mpi::{Comm, DistNested};
//! use flatland_segd::Segd;
//! let universe = mpi::initialize().unwrap();
//! let comm = Comm::new(universe.world());
//! let root = (comm.rank() == 0).then(|| {
//!     let xs: Vec<f64> = (0..20_000).map(|i| 1.0 / (1.0 + f64::from(i))).collect();
//!     (Segd::from_lengths(vec![3, 19_997]).unwrap(), xs)
//! });
//! let xs = DistNested::scatter(&comm, 0, root.as_ref().map(|(s, d)| (s, &d[..]))).unwrap();
//! // The same bits as flatland_runtime::seg::fold_s on one process, on any number of ranks.
//! let sums = xs.fold_s(0.0, |a, b| a + b).gather_all();
//! let (segd, data) = xs.gather_all();
//! let one = flatland_runtime::seg::fold_s(&segd, &data, 0.0, |a, b| a + b).unwrap();
//! assert_eq!(sums[1].to_bits(), one[1].to_bits());
//! ```

mod boundary;
mod comm;
mod dist_array;
mod dist_nested;
mod error;
mod filter;
mod fold;
mod gather;
mod mtx;
mod partition;
mod rebalance;
mod scan;
mod seg_select;
mod smvm;

pub use comm::{Comm, Elem};
pub use dist_array::DistArray;
pub use dist_nested::DistNested;
pub use error::{Error, Result};
pub use filter::DistPartition;
pub use partition::Layout;
pub use smvm::DistCsr;
