//! The code each `flatland run` command computes with.
//!
//! Until the vectoriser's dsl and `#[vectorise]` paths exist: [`smvm`] runs the runtime's
//! primitives as the flattened program would (`flat::gather` of `x` by column index, `flat::zip_with`
//! multiplication, `seg::fold_s` over the rows); [`quickhull`] runs hand-written rayon-`join`
//! quickhull, [`quicksort`] rayon's parallel unstable sort and [`primes`] a sequential segmented
//! sieve (plain Rust). `flatland run --help` says the same.

use super::baselines::{quickhull::hull_par, sieve::count_and_sum};
use crate::io::Csr;
use flatland_runtime::{flat, seg};
use flatland_segd::Segd;
use rayon::slice::ParallelSliceMut;

/// The row descriptor of a CSR matrix (one segment per row over its stored entries).
///
/// ```
/// use flatland::{harness::compute::row_segd, io::Csr};
/// let s = row_segd(&Csr::from_triplets(3, 2, vec![(0, 0, 1.0), (2, 1, 1.0), (2, 0, 1.0)]));
/// assert_eq!(s.lengths().as_ref(), &[1, 0, 2]);
/// ```
pub fn row_segd(a: &Csr) -> Segd {
    let off = a.offsets();
    let lengths = off.windows(2).map(|w| w[1] - w[0]).collect();
    Segd::try_new(lengths, off[..a.rows()].to_vec(), a.nnz())
        .expect("CSR offsets describe contiguous rows")
}

/// `y = A x` by flatland's runtime primitives, unfused: gather `x` by column index, multiply by
/// the values, fold each row segment (`rows` is [`row_segd`] of `a`). Row sums use the canonical
/// association, so their bits do not depend on the thread count.
///
/// ```
/// use flatland::{harness::compute::{row_segd, smvm_flat}, io::Csr};
/// let a = Csr::from_triplets(2, 2, vec![(0, 1, 2.0), (1, 0, 1.0)]);
/// assert_eq!(smvm_flat(&a, &row_segd(&a), &[3.0, 4.0]), vec![8.0, 3.0]);
/// ```
pub fn smvm_flat(a: &Csr, rows: &Segd, x: &[f64]) -> Vec<f64> {
    assert_eq!(x.len(), a.cols(), "smvm: vector length");
    let xs = flat::gather(x, a.indices()).expect("CSR column indices are below cols");
    let products = flat::zip_with(a.values(), &xs, |v, x| v * x).expect("one product per entry");
    drop(xs);
    seg::fold_s(rows, &products, 0.0, |p, q| p + q).expect("row descriptor covers the entries")
}

/// `y = A x` ([`smvm_flat`] with the row descriptor built here).
///
/// ```
/// use flatland::{harness::compute::smvm, io::Csr};
/// let a = Csr::from_triplets(2, 2, vec![(0, 1, 2.0), (1, 0, 1.0)]);
/// assert_eq!(smvm(&a, &[3.0, 4.0]), vec![8.0, 3.0]);
/// ```
pub fn smvm(a: &Csr, x: &[f64]) -> Vec<f64> {
    smvm_flat(a, &row_segd(a), x)
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
