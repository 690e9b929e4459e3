//! The code each `flatland run` command computes with.
//!
//! Until the vectoriser's `#[vectorise]` path exists: [`smvm`] runs the hand-flattened program on
//! the runtime's primitives ([`flattened::smvm_fused`]: one segmented fold over the rows,
//! `seg::fold_s_by`, of the products `value * x[column]`); [`quickhull`] runs hand-written
//! rayon-`join` quickhull, [`quicksort`] rayon's parallel unstable sort and [`primes`] a sequential
//! segmented sieve (plain Rust). `flatland run --help` says the same.

use super::baselines::{quickhull::hull_par, sieve::count_and_sum};
use super::flattened;
use crate::io::Csr;
use rayon::slice::ParallelSliceMut;

/// `y = A x` ([`flattened::smvm_fused`] with the row descriptor built here).
///
/// ```
/// use flatland::{harness::compute::smvm, io::Csr};
/// let a = Csr::from_triplets(2, 2, vec![(0, 1, 2.0), (1, 0, 1.0)]);
/// assert_eq!(smvm(&a, &[3.0, 4.0]), vec![8.0, 3.0]);
/// ```
pub fn smvm(a: &Csr, x: &[f64]) -> Vec<f64> {
    flattened::smvm_fused(a, &flattened::row_segd(a), x)
}

/// The indices of the convex hull's vertices (rules in [`super::baselines::quickhull`]).
///
/// ```
/// use flatland::harness::compute::quickhull;
/// assert_eq!(quickhull(&[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (0.2, 0.2)]), vec![0, 1, 2]);
/// ```
pub fn quickhull(points: &[(f64, f64)]) -> Vec<usize> {
    hull_par(points)
}

/// Sorts ascending (all inputs are finite, so the order is total).
///
/// ```
/// use flatland::harness::compute::quicksort;
/// let mut xs = vec![3.0, -1.0, 2.5];
/// quicksort(&mut xs);
/// assert_eq!(xs, vec![-1.0, 2.5, 3.0]);
/// ```
pub fn quicksort(xs: &mut [f64]) {
    xs.par_sort_unstable_by(f64::total_cmp);
}

/// The number and the sum of the primes `p <= n`.
///
/// ```
/// use flatland::harness::compute::primes;
/// assert_eq!(primes(10), (4, 17));
/// ```
pub fn primes(n: u64) -> (u64, u128) {
    count_and_sum(n)
}
