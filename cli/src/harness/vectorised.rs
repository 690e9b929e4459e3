//! Flatland variants through the `#[vectorise]` attribute (crate `flatland-macros`): the kernels
//! of [`crate::kernels`] (ordinary-looking Rust the macro compiles to the vectoriser's IR) as the
//! harness calls them.
//!
//! [`smvm`] matches the macro's one directly compiled pattern (a segmented redomap over `Nested`
//! rows: one `seg::fold_s_leaves_split` with the product as an inlined Rust closure); [`quicksort`],
//! [`primes`] and [`hull`] run on the flattening executor with the module's native kernels
//! (elementwise programs compiled by rustc at build time), each call copying its slice
//! arguments into the executor's columns, so they measure the same bulk work as the dsl
//! variants with compiled elementwise steps, plus that conversion. Each panics on an executor error: the harness only
//! passes well-typed, in-range inputs, so an error is a bug to surface.

use crate::io::Csr;
use flatland_runtime::elt::Nested;

/// A CSR matrix as the `(columns, values)` pair of `Nested` rows that [`smvm`] takes (built once
/// per input; the values are copied, the column indices converted to `i64`). The two share one
/// segment descriptor, as a CSR matrix's two arrays share one offsets array, so that the check
/// that they have the same rows costs O(1) instead of comparing every row length.
///
/// ```
/// use flatland_cli::{harness::vectorised::{nested_rows, smvm}, io::Csr};
/// let a = Csr::from_triplets(2, 2, vec![(0, 1, 2.0), (1, 0, 1.0)]);
/// let (cols, vals) = nested_rows(&a);
/// assert_eq!(smvm(&cols, &vals, &[3.0, 4.0]), vec![8.0, 3.0]);
/// ```
pub fn nested_rows(a: &Csr) -> (Nested<i64>, Nested<f64>) {
    let indices: Vec<i64> = a.indices().iter().map(|&c| c as i64).collect();
    let cols = Nested::from_offsets(a.offsets().to_vec(), indices).expect("CSR offsets are valid");
    let (segd, _) = cols.as_flat().expect("built flat");
    let vals = Nested::from_segd(segd, a.values().to_vec().into()).expect("one value per index");
    (cols, vals)
}

/// `y = A x` through `#[vectorise]` (`try_smvm_csr`: the strategy the run chooses, the per-lane
/// form or the flattening executor).
///
/// ```
/// use flatland_cli::{harness::vectorised::{nested_rows, smvm}, io::Csr};
/// let (cols, vals) = nested_rows(&Csr::from_triplets(1, 1, vec![]));
/// assert_eq!(smvm(&cols, &vals, &[1.0]), vec![0.0]);
/// ```
pub fn smvm(cols: &Nested<i64>, vals: &Nested<f64>, x: &[f64]) -> Vec<f64> {
    crate::kernels::smvm_csr(cols, vals, x)
}

/// Sorts `f64` keys (stable, by `<`; no NaN, see [`crate::kernels`]) through `#[vectorise]`
/// (the executor runs the macro's IR).
///
/// ```
/// assert_eq!(flatland_cli::harness::vectorised::quicksort(&[3.5, -1.0, 2.0]), vec![-1.0, 2.0, 3.5]);
/// ```
pub fn quicksort(xs: &[f64]) -> Vec<f64> {
    crate::kernels::quicksort_f64(xs)
}

/// [`quicksort`] by its per-lane form (the kernel's IR as sequential Rust, the recursion's two
/// parts in parallel where their work pays).
///
/// ```
/// assert_eq!(flatland_cli::harness::vectorised::quicksort_per_lane(&[3.5, -1.0, 2.0]), vec![-1.0, 2.0, 3.5]);
/// ```
pub fn quicksort_per_lane(xs: &[f64]) -> Vec<f64> {
    crate::kernels::plan::quicksort_f64::per_lane(xs).expect("quicksort_f64 per lane")
}

/// The primes below `n` through `#[vectorise]` (the executor runs the macro's IR).
///
/// ```
/// assert_eq!(flatland_cli::harness::vectorised::primes(12), vec![2, 3, 5, 7, 11]);
/// ```
pub fn primes(n: i64) -> Vec<i64> {
    crate::kernels::primes(n)
}

/// The convex hull (from the leftmost point, clockwise) through `#[vectorise]` (the executor
/// runs the macro's IR).
///
/// ```
/// let h = flatland_cli::harness::vectorised::hull(&[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (0.1, 0.1)]);
/// assert_eq!(h.len(), 3);
/// ```
pub fn hull(pts: &[(f64, f64)]) -> Vec<(f64, f64)> {
    crate::kernels::hull(pts)
}

/// [`hull`] by its per-lane form.
///
/// ```
/// let h = flatland_cli::harness::vectorised::hull_per_lane(&[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (0.1, 0.1)]);
/// assert_eq!(h.len(), 3);
/// ```
pub fn hull_per_lane(pts: &[(f64, f64)]) -> Vec<(f64, f64)> {
    crate::kernels::plan::hull::per_lane(pts).expect("hull per lane")
}
