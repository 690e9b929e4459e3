//! The registered workloads: each runs real flatland code beside its baselines.

use super::workload::Scale;

pub mod bfs;
mod fusion2;
mod grain;
pub mod histogram;
pub mod kmeans;
pub mod pagerank;
mod partition;
mod primes;
mod quickhull;
mod quicksort;
mod scan;
mod segmented;
mod smvm;
mod sort;
pub mod suite;
pub mod suite_inputs;
mod sum;
mod tree_lookup;

pub use bfs::Bfs;
pub use fusion2::Fusion2;
pub use grain::Grain;
pub use histogram::Histogram;
pub use kmeans::KMeans;
pub use pagerank::PageRank;
pub use partition::Partition4;
pub use primes::Primes;
pub use quickhull::Quickhull;
pub use quicksort::Quicksort;
pub use scan::Scan;
pub use segmented::{SegScan, SegSum};
pub use smvm::Smvm;
pub use sort::{FlatSort, RowSoftmax, RowSort};
pub use sum::Sum;
pub use tree_lookup::TreeLookup;

/// The sizes for `scale`.
fn sizes(scale: Scale, check: &[usize], quick: &[usize], full: &[usize]) -> Vec<usize> {
    match scale {
        Scale::Check => check,
        Scale::Quick => quick,
        Scale::Full => full,
    }
    .to_vec()
}

/// Sizes that exercise the edges at check scale: empty, one, below a leaf, several leaves with a
/// ragged end.
const CHECK_FLAT: &[usize] = &[0, 1, 1000, 3 * 4096 + 5, 50_000];
