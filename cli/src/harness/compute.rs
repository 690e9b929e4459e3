//! The code each `flatland run` command computes with: flatland's `#[vectorise]` kernels
//! ([`crate::kernels`]), called as a user of the library calls them; for smvm,
//! [`crate::kernels::smvm_csr`] on the matrix's columns and values as two `Nested` arrays that
//! share one row descriptor (the CSR arrays moved, not copied).
//!
//! A kernel error on valid input would be a bug in flatland, so the unchecked forms panic,
//! naming the kernel; [`try_quickhull`] and [`try_quicksort`] return it, and refuse the NaN input
//! their kernels have no meaning for with a [`ComputeError`] naming the point or key.

use super::flattened;
use crate::io::Csr;
use crate::kernels;
use flatland::runtime::elt::Nested;
use std::collections::HashMap;

/// `y = A x`: [`crate::kernels::smvm_csr`] (a `#[vectorise]` segmented redomap) on `a`'s
/// columns and values as `Nested` arrays over one row descriptor. The matrix is consumed: its
/// row offsets are dropped once the descriptor is built and its arrays become the `Nested`
/// data (the column indices turned into `i64` in place), so a declared row costs no more than
/// [`crate::io::BYTES_PER_ROW`].
///
/// # Panics
/// If `x` is shorter than a column index of `a` (the kernel's index error, named).
///
/// ```
/// use flatland_cli::{harness::compute::smvm, io::Csr};
/// let a = Csr::from_triplets(2, 2, vec![(0, 1, 2.0), (1, 0, 1.0)]);
/// assert_eq!(smvm(a, &[3.0, 4.0]), vec![8.0, 3.0]);
/// ```
pub fn smvm(a: Csr, x: &[f64]) -> Vec<f64> {
    let rows = flattened::row_segd(&a);
    let (offsets, indices, values) = a.into_parts();
    drop(offsets);
    // Same size and alignment: collected in place, no second buffer.
    let cols: Vec<i64> = indices
        .into_iter()
        .map(|c| i64::try_from(c).expect("a column index fits in i64"))
        .collect();
    let invalid = "the row descriptor describes the CSR arrays";
    let cols = Nested::<i64>::from_segd(&rows, cols.into()).expect(invalid);
    let vals = Nested::<f64>::from_segd(&rows, values.into()).expect(invalid);
    drop(rows);
    kernels::try_smvm_csr(&cols, &vals, x).unwrap_or_else(|e| panic!("smvm: {e}"))
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
/// assert_eq!(smvm_ones(&small), smvm(small.clone(), &[1.0; 3]));
/// ```
pub fn smvm_ones(a: &Csr) -> Vec<f64> {
    flatland::runtime::seg::fold_s(&flattened::row_segd(a), a.values(), 0.0, |x, y| x + y)
        .expect("the row descriptor describes the values")
}

/// Why a checked computation ([`try_quickhull`], [`try_quicksort`]) refused its input or
/// failed.
///
/// ```
/// use flatland_cli::harness::compute::{ComputeError, try_quickhull};
/// let e = try_quickhull(&[(0.0, 0.0), (f64::NAN, 1.0)]).unwrap_err();
/// assert_eq!(e, ComputeError::NonFinitePoint { index: 1, point: (f64::NAN, 1.0) }.clone());
/// assert_eq!(e.to_string(), "point 1 (NaN, 1): the convex hull takes finite coordinates only");
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ComputeError {
    /// A point with a NaN or infinite coordinate: its index (from 0) and its coordinates.
    NonFinitePoint {
        /// The point's index in the input.
        index: usize,
        /// Its coordinates.
        point: (f64, f64),
    },
    /// A NaN sort key: its index (from 0).
    NanKey {
        /// The key's index in the input.
        index: usize,
    },
    /// The kernel's own error (a recursion past [`flatland_vectoriser::limits`], for one).
    Kernel {
        /// The kernel's name.
        kernel: &'static str,
        /// Its error.
        error: flatland_vectoriser::Error,
    },
}

/// Equal variants with equal fields, coordinates compared by their bits (so a NaN point equals
/// itself).
impl PartialEq for ComputeError {
    fn eq(&self, other: &ComputeError) -> bool {
        use ComputeError::{Kernel, NanKey, NonFinitePoint};
        let bits = |p: &(f64, f64)| (p.0.to_bits(), p.1.to_bits());
        match (self, other) {
            (NonFinitePoint { index: i, point: p }, NonFinitePoint { index: j, point: q }) => {
                i == j && bits(p) == bits(q)
            }
            (NanKey { index: i }, NanKey { index: j }) => i == j,
            (
                Kernel {
                    kernel: k,
                    error: e,
                },
                Kernel {
                    kernel: l,
                    error: f,
                },
            ) => k == l && e == f,
            _ => false,
        }
    }
}

impl std::fmt::Display for ComputeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ComputeError::NonFinitePoint { index, point } => write!(
                f,
                "point {index} ({}, {}): the convex hull takes finite coordinates only",
                point.0, point.1
            ),
            ComputeError::NanKey { index } => {
                write!(
                    f,
                    "key {index} is NaN: quicksort takes keys that are not NaN"
                )
            }
            ComputeError::Kernel { kernel, error } => write!(f, "{kernel}: {error}"),
        }
    }
}

impl std::error::Error for ComputeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ComputeError::Kernel { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// The indices of the convex hull's vertices, counter-clockwise from the point with the smallest
/// x (smallest y on ties); points on a hull edge are not vertices; among duplicate points (`-0.0`
/// equal to `0.0`) the lowest index stands for them. The hull is [`kernels::convex_hull`]
/// (quickhull, flattened by the executor); its vertex coordinates are mapped back to indices by
/// one pass over the points.
///
/// The kernel has no meaning for NaN coordinates (it would leave such a point out), so the first
/// point with a NaN or infinite coordinate is refused, by its index, before the kernel runs.
///
/// # Errors
/// [`ComputeError::NonFinitePoint`] for the first non-finite point;
/// [`ComputeError::Kernel`] when the kernel fails (its recursion past the depth limit).
///
/// ```
/// use flatland_cli::harness::compute::try_quickhull;
/// assert_eq!(try_quickhull(&[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]).unwrap(), vec![0, 1, 2]);
/// let e = try_quickhull(&[(0.0, 0.0), (1.0, f64::INFINITY)]).unwrap_err();
/// assert_eq!(e.to_string(), "point 1 (1, inf): the convex hull takes finite coordinates only");
/// ```
pub fn try_quickhull(points: &[(f64, f64)]) -> Result<Vec<usize>, ComputeError> {
    if let Some(index) = points
        .iter()
        .position(|p| !p.0.is_finite() || !p.1.is_finite())
    {
        return Err(ComputeError::NonFinitePoint {
            index,
            point: points[index],
        });
    }
    let mut vertices = kernels::try_convex_hull(points).map_err(|error| ComputeError::Kernel {
        kernel: "kernels::convex_hull",
        error,
    })?;
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
    Ok(out)
}

/// [`try_quickhull`] for input known to be finite (`flatland run quickhull` reads finite
/// numbers only, [`crate::io::parse_points`]).
///
/// # Panics
/// On what [`try_quickhull`] returns as an error (a non-finite point, naming it; a kernel
/// error), never leaving a point out silently.
///
/// ```
/// use flatland_cli::harness::compute::quickhull;
/// assert_eq!(quickhull(&[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (0.2, 0.2)]), vec![0, 1, 2]);
/// assert_eq!(quickhull(&[(1.0, 1.0), (0.0, 0.0), (0.0, 0.0)]), vec![1, 0]);
/// assert!(quickhull(&[]).is_empty());
/// ```
pub fn quickhull(points: &[(f64, f64)]) -> Vec<usize> {
    try_quickhull(points).unwrap_or_else(|e| panic!("quickhull: {e}"))
}

/// Sorts keys ascending with [`kernels::quicksort_f64`] (stable: `-0.0` and `0.0` are equal
/// and keep their input order; `-inf` and `inf` sort as the smallest and largest). The kernel
/// filters by IEEE comparisons, under which a NaN key is in no part (it would be lost, and a NaN
/// pivot loses its whole part: see [`crate::kernels`]), so the first NaN key is refused, by its
/// index, before the kernel runs.
///
/// # Errors
/// [`ComputeError::NanKey`] for the first NaN key; [`ComputeError::Kernel`] when the kernel
/// fails (its recursion past the depth limit).
///
/// ```
/// use flatland_cli::harness::compute::{ComputeError, try_quicksort};
/// assert_eq!(try_quicksort(&[3.0, f64::NEG_INFINITY, 2.5]).unwrap(), vec![f64::NEG_INFINITY, 2.5, 3.0]);
/// assert_eq!(try_quicksort(&[2.0, f64::NAN, 1.0]).unwrap_err(), ComputeError::NanKey { index: 1 });
/// ```
pub fn try_quicksort(xs: &[f64]) -> Result<Vec<f64>, ComputeError> {
    if let Some(index) = xs.iter().position(|x| x.is_nan()) {
        return Err(ComputeError::NanKey { index });
    }
    kernels::try_quicksort_f64(xs).map_err(|error| ComputeError::Kernel {
        kernel: "kernels::quicksort_f64",
        error,
    })
}

/// [`try_quicksort`] for keys known not to be NaN (`flatland run quicksort` reads finite
/// numbers only, [`crate::io::parse_numbers`]).
///
/// # Panics
/// On what [`try_quicksort`] returns as an error (a NaN key, naming it; a kernel error), never
/// dropping a key silently.
///
/// ```
/// use flatland_cli::harness::compute::quicksort;
/// assert_eq!(quicksort(&[3.0, -1.0, 2.5]), vec![-1.0, 2.5, 3.0]);
/// ```
pub fn quicksort(xs: &[f64]) -> Vec<f64> {
    try_quicksort(xs).unwrap_or_else(|e| panic!("quicksort: {e}"))
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
        let base = kernels::primes(n.isqrt() as i64 + 1);
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
        let ps = kernels::primes_between(self.lo as i64, hi as i64, &self.base);
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
