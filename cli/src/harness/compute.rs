//! The code each `flatland run` command computes with: flatland's `#[vectorise]` kernels
//! ([`crate::kernels`]) for quickhull, quicksort and primes, and for smvm the hand-flattened
//! program on the runtime's primitives ([`flattened::smvm_fused`]: one segmented fold over the
//! rows, `seg::fold_s_by`, of the products `value * x[column]`, the loop the macro's direct path
//! emits for [`crate::kernels::smvm_csr`], without converting the CSR arrays to `Nested`).
//!
//! A kernel error on valid input would be a bug in flatland, so it panics, naming the kernel.

use super::flattened;
use crate::io::Csr;
use crate::kernels;
use std::collections::HashMap;

/// `y = A x` ([`flattened::smvm_fused`] with the row descriptor built here).
///
/// ```
/// use flatland_cli::{harness::compute::smvm, io::Csr};
/// let a = Csr::from_triplets(2, 2, vec![(0, 1, 2.0), (1, 0, 1.0)]);
/// assert_eq!(smvm(&a, &[3.0, 4.0]), vec![8.0, 3.0]);
/// ```
pub fn smvm(a: &Csr, x: &[f64]) -> Vec<f64> {
    flattened::smvm_fused(a, &flattened::row_segd(a), x)
}

/// The indices of the convex hull's vertices, counter-clockwise from the point with the smallest
/// x (smallest y on ties); points on a hull edge are not vertices; among duplicate points (`-0.0`
/// equal to `0.0`) the lowest index stands for them. The hull is [`kernels::convex_hull`]
/// (quickhull, flattened by the executor); its vertex coordinates are mapped back to indices by
/// one pass over the points.
///
/// ```
/// use flatland_cli::harness::compute::quickhull;
/// assert_eq!(quickhull(&[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (0.2, 0.2)]), vec![0, 1, 2]);
/// assert_eq!(quickhull(&[(1.0, 1.0), (0.0, 0.0), (0.0, 0.0)]), vec![1, 0]);
/// assert!(quickhull(&[]).is_empty());
/// ```
pub fn quickhull(points: &[(f64, f64)]) -> Vec<usize> {
    let mut vertices =
        kernels::convex_hull(points).unwrap_or_else(|e| panic!("kernels::convex_hull: {e}"));
    if vertices.len() > 1 {
        vertices[1..].reverse(); // clockwise to counter-clockwise, same first vertex
    }
    let key = |p: (f64, f64)| ((p.0 + 0.0).to_bits(), (p.1 + 0.0).to_bits()); // -0.0 as 0.0
    let mut slot: HashMap<(u64, u64), usize> = vertices
        .iter()
        .enumerate()
        .map(|(k, &p)| (key(p), k))
        .collect();
    assert_eq!(slot.len(), vertices.len(), "hull vertices are distinct");
    let mut out = vec![0; vertices.len()];
    for (i, &p) in points.iter().enumerate() {
        if slot.is_empty() {
            break;
        }
        if let Some(k) = slot.remove(&key(p)) {
            out[k] = i;
        }
    }
    assert!(slot.is_empty(), "every hull vertex is an input point");
    out
}

/// Sorts finite numbers ascending with [`kernels::quicksort_f64`] (stable: `-0.0` and `0.0` are
/// equal and keep their input order). The keys must not be NaN (see [`crate::kernels`]).
///
/// ```
/// use flatland_cli::harness::compute::quicksort;
/// assert_eq!(quicksort(&[3.0, -1.0, 2.5]), vec![-1.0, 2.5, 3.0]);
/// ```
pub fn quicksort(xs: &[f64]) -> Vec<f64> {
    debug_assert!(xs.iter().all(|x| !x.is_nan()), "quicksort: NaN key");
    kernels::quicksort_f64(xs).unwrap_or_else(|e| panic!("kernels::quicksort_f64: {e}"))
}

/// Numbers sieved at once by [`primes`] (bounds its memory).
const WINDOW: u64 = 1 << 22;

/// The largest bound [`primes`] takes (its kernels compute in `i64`).
pub const PRIMES_MAX: u64 = 1 << 53;

/// The number and the sum of the primes `p <= n` (`n <= PRIMES_MAX`): the primes up to
/// `isqrt(n)` by [`kernels::primes`], then [`kernels::primes_between`] on windows of 2^22
/// numbers, counted and summed as they come.
///
/// ```
/// use flatland_cli::harness::compute::primes;
/// assert_eq!(primes(10), (4, 17));
/// assert_eq!(primes(1), (0, 0));
/// ```
pub fn primes(n: u64) -> (u64, u128) {
    assert!(n <= PRIMES_MAX, "primes: n = {n} is above {PRIMES_MAX}");
    let base =
        kernels::primes(n.isqrt() as i64 + 1).unwrap_or_else(|e| panic!("kernels::primes: {e}"));
    let (mut count, mut sum) = (0u64, 0u128);
    let mut lo = 2;
    while lo <= n {
        let hi = n.min(lo + WINDOW - 1) + 1;
        let ps = kernels::primes_between(lo as i64, hi as i64, &base)
            .unwrap_or_else(|e| panic!("kernels::primes_between: {e}"));
        count += ps.len() as u64;
        sum += ps.iter().map(|&p| p as u128).sum::<u128>();
        lo = hi;
    }
    (count, sum)
}
