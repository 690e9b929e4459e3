//! Flatland variants through the `#[vectorise]` attribute (crate `flatland-macros`): the
//! workloads' nested programs written as ordinary-looking Rust in a module the macro compiles to
//! the vectoriser's IR.
//!
//! [`smvm`] matches the macro's one directly compiled pattern (a segmented redomap over `Nested`
//! rows: one `seg::fold_s_by` with the product as an inlined Rust closure); [`quicksort`],
//! [`primes`] and [`hull`] run the macro's IR through the flattened executor (with fusion), each
//! call copying its slice arguments into the executor's columns, so they measure the same engine
//! as the dsl variants plus that conversion. Each panics on an executor error: the harness only
//! passes well-typed, in-range inputs, so an error is a bug to surface.

use crate::io::Csr;
use flatland_runtime::elt::Nested;

#[crate::vectorise(vectoriser = ::flatland_vectoriser, runtime = ::flatland_runtime)]
mod kernels {
    use flatland_runtime::elt::Nested;

    /// A CSR matrix held as two `Nested` arrays (columns, values) times the dense vector `v`.
    pub fn smvm_csr(cols: &Nested<i64>, vals: &Nested<f64>, v: &[f64]) -> Vec<f64> {
        cols.zip(vals)
            .map(|(cs, xs)| cs.zip(xs).map(|(c, x)| x * v[c]).sum())
    }

    /// Sorts `xs` (ascending): three filters around the middle element, the outer two parts
    /// sorted by one recursive call under `map`.
    pub fn quicksort(xs: &[i64]) -> Vec<i64> {
        if xs.len() <= 1 {
            xs.to_vec()
        } else {
            let pivot = xs[xs.len() / 2];
            let lo = xs.iter().filter(|&x| x < pivot).collect();
            let eq = xs.iter().filter(|&x| x == pivot).collect();
            let hi = xs.iter().filter(|&x| x > pivot).collect();
            let sorted = [lo, hi].map(|part| quicksort(part));
            [sorted[0], eq, sorted[1]].concat()
        }
    }

    /// The primes below `n` (NESL's sieve).
    pub fn primes(n: i64) -> Vec<i64> {
        if n <= 2 {
            Vec::<i64>::new()
        } else {
            let sqr_primes = primes((n as f64).sqrt() as i64 + 1);
            let composites = sqr_primes.map(|q| (2 * q..n).step_by(q)).concat();
            let flags = vec![true; n].scatter(composites, vec![false; composites.len()]);
            (0..n).filter(|i| i >= 2 && flags[i])
        }
    }

    /// Twice the signed area of the triangle `(p, a, b)`: positive when `p` is left of `a -> b`.
    fn cross(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
        (a.0 - p.0) * (b.1 - p.1) - (a.1 - p.1) * (b.0 - p.0)
    }

    /// The index of the first largest value of `(value, index)` pairs (-1 when empty).
    fn arg_max(pairs: &[(f64, i64)]) -> i64 {
        pairs
            .reduce((f64::NAN, -1), |a, b| {
                if a.1 < 0 || (b.1 >= 0 && b.0 > a.0) {
                    b
                } else {
                    a
                }
            })
            .1
    }

    /// The index of the first smallest value of `(value, index)` pairs (-1 when empty).
    fn arg_min(pairs: &[(f64, i64)]) -> i64 {
        pairs
            .reduce((f64::NAN, -1), |a, b| {
                if a.1 < 0 || (b.1 >= 0 && b.0 < a.0) {
                    b
                } else {
                    a
                }
            })
            .1
    }

    /// The hull points strictly left of `line`, from its start, in order.
    pub fn hsplit(pts: &[(f64, f64)], line: ((f64, f64), (f64, f64))) -> Vec<(f64, f64)> {
        let (p1, p2) = line;
        let packed = pts.map(|q| (q, cross(q, p1, p2))).filter(|qc| qc.1 > 0.0);
        if packed.len() < 2 {
            [vec![p1], packed.map(|qc| qc.0)].concat()
        } else {
            let pts_only = packed.map(|qc| qc.0);
            let far = arg_max(packed.zip(0..packed.len()).map(|(qc, i)| (qc.1, i)));
            let pm = packed[far].0;
            [(p1, pm), (pm, p2)].map(|l| hsplit(pts_only, l)).concat()
        }
    }

    /// The convex hull, from the leftmost point, clockwise (NESL quickhull).
    pub fn hull(pts: &[(f64, f64)]) -> Vec<(f64, f64)> {
        if pts.len() < 2 {
            pts.to_vec()
        } else {
            let xs = pts.zip(0..pts.len()).map(|(q, i)| (q.0, i));
            let minx = pts[arg_min(xs)];
            let maxx = pts[arg_max(xs)];
            [hsplit(pts, (minx, maxx)), hsplit(pts, (maxx, minx))].concat()
        }
    }
}

/// A CSR matrix as the `(columns, values)` pair of `Nested` rows that [`smvm`] takes (built once
/// per input; the values are copied, the column indices converted to `i64`).
///
/// ```
/// use flatland::{harness::vectorised::{nested_rows, smvm}, io::Csr};
/// let a = Csr::from_triplets(2, 2, vec![(0, 1, 2.0), (1, 0, 1.0)]);
/// let (cols, vals) = nested_rows(&a);
/// assert_eq!(smvm(&cols, &vals, &[3.0, 4.0]), vec![8.0, 3.0]);
/// ```
pub fn nested_rows(a: &Csr) -> (Nested<i64>, Nested<f64>) {
    let offsets = a.offsets().to_vec();
    let cols: Vec<i64> = a.indices().iter().map(|&c| c as i64).collect();
    (
        Nested::from_offsets(offsets.clone(), cols).expect("CSR offsets are valid"),
        Nested::from_offsets(offsets, a.values().to_vec()).expect("CSR offsets are valid"),
    )
}

/// `y = A x` through `#[vectorise]`'s direct path (one `seg::fold_s_by` over the rows).
///
/// ```
/// use flatland::{harness::vectorised::{nested_rows, smvm}, io::Csr};
/// let (cols, vals) = nested_rows(&Csr::from_triplets(1, 1, vec![]));
/// assert_eq!(smvm(&cols, &vals, &[1.0]), vec![0.0]);
/// ```
pub fn smvm(cols: &Nested<i64>, vals: &Nested<f64>, x: &[f64]) -> Vec<f64> {
    kernels::smvm_csr(cols, vals, x).unwrap_or_else(|e| panic!("#[vectorise] smvm: {e}"))
}

/// Sorts through `#[vectorise]` (the executor runs the macro's IR).
///
/// ```
/// assert_eq!(flatland::harness::vectorised::quicksort(&[3, -1, 2]), vec![-1, 2, 3]);
/// ```
pub fn quicksort(xs: &[i64]) -> Vec<i64> {
    kernels::quicksort(xs).unwrap_or_else(|e| panic!("#[vectorise] quicksort: {e}"))
}

/// The primes below `n` through `#[vectorise]` (the executor runs the macro's IR).
///
/// ```
/// assert_eq!(flatland::harness::vectorised::primes(12), vec![2, 3, 5, 7, 11]);
/// ```
pub fn primes(n: i64) -> Vec<i64> {
    kernels::primes(n).unwrap_or_else(|e| panic!("#[vectorise] primes: {e}"))
}

/// The convex hull (from the leftmost point, clockwise) through `#[vectorise]` (the executor
/// runs the macro's IR).
///
/// ```
/// let h = flatland::harness::vectorised::hull(&[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (0.1, 0.1)]);
/// assert_eq!(h.len(), 3);
/// ```
pub fn hull(pts: &[(f64, f64)]) -> Vec<(f64, f64)> {
    kernels::hull(pts).unwrap_or_else(|e| panic!("#[vectorise] hull: {e}"))
}
