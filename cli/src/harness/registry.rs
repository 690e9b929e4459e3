//! The registered workloads.
//!
//! A workload is registered only when its flatland side runs real flatland code; baselines for
//! workloads whose flatland side does not exist yet live in [`super::baselines`] and are not
//! reported on their own.

use super::workload::Workload;
use super::workloads::suite;
use super::workloads::{
    Bfs, FlatSort, Fusion2, Grain, Histogram, KMeans, PageRank, Partition4, Primes, Quickhull,
    Quicksort, RowSoftmax, RowSort, Scan, SegScan, SegSum, Smvm, Sum, TreeLookup,
};

/// Every registered workload, in table order.
///
/// ```
/// let names: Vec<&str> = flatland_cli::harness::registry::all().iter().map(|w| w.name()).collect();
/// let mut sorted = names.clone();
/// sorted.dedup();
/// assert_eq!(names, sorted);
/// ```
pub fn all() -> Vec<&'static dyn Workload> {
    let mut all: Vec<&'static dyn Workload> = vec![
        &Sum,
        &Scan,
        &SegSum,
        &SegScan,
        &Partition4,
        &Fusion2,
        &Smvm,
        &Quickhull,
        &Quicksort,
        &Primes,
        &TreeLookup,
        &RowSort,
        &FlatSort,
        &RowSoftmax,
        &Histogram,
        &PageRank,
        &KMeans,
        &Bfs,
        &Grain,
    ];
    // The user-kernel suite (`crate::suite`): one workload per kernel.
    all.extend(suite::KERNELS.iter().map(|k| k as &dyn Workload));
    all
}
