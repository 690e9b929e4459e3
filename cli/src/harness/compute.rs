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

/// `A x` for `x` all ones (the row sums), without the vector: memory in proportion to the
/// entries, however many columns the matrix declares. The same bits as [`smvm`] with a vector
/// of ones (`v * 1.0 == v`, and the same association).
///
/// ```
/// use flatland_cli::{harness::compute::{smvm, smvm_ones}, io::Csr};
/// let a = Csr::from_triplets(2, 1_000_000_000, vec![(0, 999_999_999, 0.1), (0, 0, 0.2)]);
/// assert_eq!(smvm_ones(&a), vec![0.1 + 0.2, 0.0]);
/// let small = Csr::from_triplets(2, 3, vec![(0, 2, 0.1), (0, 0, 0.2), (1, 1, -1.5)]);
/// assert_eq!(smvm_ones(&small), smvm(&small, &[1.0; 3]));
/// ```
pub fn smvm_ones(a: &Csr) -> Vec<f64> {
    flatland::runtime::seg::fold_s(&flattened::row_segd(a), a.values(), 0.0, |x, y| x + y)
        .expect("the row descriptor describes the values")
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
/// numbers, counted and summed as they come ([`PrimeSieve`] one window at a time).
///
/// ```
/// use flatland_cli::harness::compute::primes;
/// assert_eq!(primes(10), (4, 17));
/// assert_eq!(primes(1), (0, 0));
/// ```
pub fn primes(n: u64) -> (u64, u128) {
    let mut sieve = PrimeSieve::new(n);
    while sieve.step() {}
    sieve.result()
}

/// The windowed sieve behind [`primes`], one window per [`PrimeSieve::step`], so that a caller
/// can time the first window, predict the rest and show progress. Each step reports to the
/// runtime's progress hook ([`flatland::runtime::progress`]).
///
/// ```
/// use flatland_cli::harness::compute::PrimeSieve;
/// let mut s = PrimeSieve::new(10_000_000);
/// assert_eq!(s.windows(), (0, 3));
/// assert!(s.step());
/// assert_eq!(s.windows(), (1, 3));
/// while s.step() {}
/// assert_eq!(s.result().0, 664_579);
/// ```
#[derive(Debug)]
pub struct PrimeSieve {
    n: u64,
    base: Vec<i64>,
    lo: u64,
    done: u64,
    count: u64,
    sum: u128,
}

impl PrimeSieve {
    /// The sieve of `2..=n`, before its first window (the base primes up to `isqrt(n)` are
    /// computed here).
    ///
    /// # Panics
    /// If `n > PRIMES_MAX`.
    pub fn new(n: u64) -> Self {
        assert!(n <= PRIMES_MAX, "primes: n = {n} is above {PRIMES_MAX}");
        let base = kernels::primes(n.isqrt() as i64 + 1)
            .unwrap_or_else(|e| panic!("kernels::primes: {e}"));
        PrimeSieve {
            n,
            base,
            lo: 2,
            done: 0,
            count: 0,
            sum: 0,
        }
    }

    /// Windows done and windows in all.
    pub fn windows(&self) -> (u64, u64) {
        (self.done, self.n.saturating_sub(1).div_ceil(WINDOW))
    }

    /// Sieves the next window; `false` when there was none left.
    pub fn step(&mut self) -> bool {
        if self.lo > self.n {
            return false;
        }
        let hi = self.n.min(self.lo + WINDOW - 1) + 1;
        let ps = kernels::primes_between(self.lo as i64, hi as i64, &self.base)
            .unwrap_or_else(|e| panic!("kernels::primes_between: {e}"));
        self.count += ps.len() as u64;
        self.sum += ps.iter().map(|&p| p as u128).sum::<u128>();
        self.lo = hi;
        self.done += 1;
        let (done, total) = self.windows();
        flatland::runtime::progress::report("sieve windows", done, total);
        true
    }

    /// The number and the sum of the primes in the windows done.
    pub fn result(&self) -> (u64, u128) {
        (self.count, self.sum)
    }
}
