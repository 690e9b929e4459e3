//! Sorting flat arrays of numbers: values in total order and stable `argsort`.
//!
//! - The order of `f64` is [`f64::total_cmp`]: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf <
//!   +NaN`; `i64` has its usual order.
//! - [`sort_f64`] / [`sort_i64`] sort in place; in a total order equal elements are identical, so
//!   the result is unique (stable or not).
//! - [`argsort_f64`] / [`argsort_i64`] give the permutation that sorts the input stably (equal
//!   elements keep their input order): `out[k]` is the index of the `k`-th smallest element.
//!   They sort (key, index) pairs, whose order is total, so the result is unique too.
//!
//! Every result depends on the input only, never on the thread count: large inputs are sorted
//! by rayon's parallel sort on the current pool, small ones sequentially.
//!
//! ```
//! use flatland_runtime::flat;
//! let mut xs = [2.0, f64::NAN, -0.0, 0.0, -1.0];
//! flat::sort_f64(&mut xs);
//! assert_eq!(xs[..4], [-1.0, -0.0, 0.0, 2.0]);
//! assert!(xs[4].is_nan());
//! assert_eq!(flat::argsort_i64(&[3, 1, 3, 0]).unwrap(), vec![3, 1, 0, 2]);
//! ```

use crate::{Result, budget};
use rayon::slice::ParallelSliceMut;

/// Inputs shorter than this sort sequentially.
pub(crate) const PARALLEL_SORT: usize = 1 << 14;

/// The `i64` whose order is `f64::total_cmp`'s (a bijection: `from_key` in the tests recovers
/// the bits).
#[inline(always)]
pub(crate) fn key(x: f64) -> i64 {
    let b = x.to_bits() as i64;
    b ^ (((b >> 63) as u64) >> 1) as i64
}

/// The inverse of [`key`].
#[cfg(test)]
fn from_key(k: i64) -> f64 {
    f64::from_bits((k ^ (((k >> 63) as u64) >> 1) as i64) as u64)
}

/// Sorts `xs` in place by `f64::total_cmp`.
///
/// ```
/// let mut xs = [f64::INFINITY, -f64::NAN, 1.0];
/// flatland_runtime::flat::sort_f64(&mut xs);
/// assert!(xs[0].is_nan() && xs[1] == 1.0 && xs[2] == f64::INFINITY);
/// ```
pub fn sort_f64(xs: &mut [f64]) {
    if xs.len() < PARALLEL_SORT {
        xs.sort_unstable_by(f64::total_cmp);
    } else {
        xs.par_sort_unstable_by(f64::total_cmp);
    }
}

/// Sorts `xs` in place.
///
/// ```
/// let mut xs = [3, i64::MIN, 0];
/// flatland_runtime::flat::sort_i64(&mut xs);
/// assert_eq!(xs, [i64::MIN, 0, 3]);
/// ```
pub fn sort_i64(xs: &mut [i64]) {
    if xs.len() < PARALLEL_SORT {
        xs.sort_unstable();
    } else {
        xs.par_sort_unstable();
    }
}

/// Sorts `(key, index)` pairs in place (a total order: the stable order of the keys) and writes
/// their indices to `out`.
pub(crate) fn argsort_keys_into(pairs: &mut [(i64, u64)], out: &mut [i64]) {
    if pairs.len() < PARALLEL_SORT {
        pairs.sort_unstable();
    } else {
        pairs.par_sort_unstable();
    }
    for (o, &(_, i)) in out.iter_mut().zip(pairs.iter()) {
        *o = i as i64;
    }
}

fn argsort_by_key<T: Copy>(xs: &[T], key: impl Fn(T) -> i64) -> Result<Vec<i64>> {
    budget::check_elements::<(i64, u64)>("argsort", xs.len())?;
    let mut pairs: Vec<(i64, u64)> = xs
        .iter()
        .enumerate()
        .map(|(i, &x)| (key(x), i as u64))
        .collect();
    let mut out = vec![0i64; xs.len()];
    argsort_keys_into(&mut pairs, &mut out);
    Ok(out)
}

/// The stable sorting permutation of `xs` by `f64::total_cmp`.
///
/// # Errors
/// [`crate::Error::MemoryBudget`] if the work space does not fit the budget.
///
/// ```
/// let p = flatland_runtime::flat::argsort_f64(&[0.0, -0.0, f64::NAN, -1.0]).unwrap();
/// assert_eq!(p, vec![3, 1, 0, 2]);
/// ```
pub fn argsort_f64(xs: &[f64]) -> Result<Vec<i64>> {
    argsort_by_key(xs, key)
}

/// The stable sorting permutation of `xs`.
///
/// # Errors
/// [`crate::Error::MemoryBudget`] if the work space does not fit the budget.
///
/// ```
/// assert_eq!(flatland_runtime::flat::argsort_i64(&[2, 2, 1]).unwrap(), vec![2, 0, 1]);
/// ```
pub fn argsort_i64(xs: &[i64]) -> Result<Vec<i64>> {
    argsort_by_key(xs, |x| x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    /// The naive reference: a stable sort of the indices by the comparison.
    fn naive_argsort(xs: &[f64]) -> Vec<i64> {
        let mut idx: Vec<usize> = (0..xs.len()).collect();
        idx.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
        idx.into_iter().map(|i| i as i64).collect()
    }

    fn special() -> Vec<f64> {
        vec![
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            5e-324,
            -5e-324,
            1.0,
            1.0,
            f64::MAX,
            f64::MIN,
        ]
    }

    #[test]
    fn the_key_is_total_cmp_and_invertible() {
        let xs = special();
        for &a in &xs {
            assert_eq!(from_key(key(a)).to_bits(), a.to_bits());
            for &b in &xs {
                assert_eq!(key(a).cmp(&key(b)), a.total_cmp(&b), "{a} {b}");
            }
        }
    }

    #[test]
    fn large_inputs_sort_in_parallel_as_the_reference() {
        let n = 3 * PARALLEL_SORT + 7;
        let xs: Vec<f64> = (0..n)
            .map(|i| ((i * 7919) % 1013) as f64 - 500.0 + if i % 97 == 0 { f64::NAN } else { 0.0 })
            .collect();
        let mut a = xs.clone();
        sort_f64(&mut a);
        let mut b = xs.clone();
        b.sort_by(f64::total_cmp);
        assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let p = pool.install(|| argsort_f64(&xs).unwrap());
            assert_eq!(p, naive_argsort(&xs), "{threads} threads");
        }
    }

    quickcheck! {
        fn sort_is_the_reference(xs: Vec<f64>) -> bool {
            let mut xs = xs;
            xs.extend(special());
            let mut a = xs.clone();
            sort_f64(&mut a);
            let mut b = xs;
            b.sort_by(f64::total_cmp);
            a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits())
        }

        fn argsort_is_stable_and_sorts(xs: Vec<f64>, is: Vec<i64>) -> bool {
            let p = argsort_f64(&xs).unwrap();
            let q = argsort_i64(&is).unwrap();
            let mut is_idx: Vec<usize> = (0..is.len()).collect();
            is_idx.sort_by_key(|&i| is[i]);
            p == naive_argsort(&xs) && q == is_idx.into_iter().map(|i| i as i64).collect::<Vec<_>>()
        }

        fn sort_i64_is_the_reference(xs: Vec<i64>) -> bool {
            let mut a = xs.clone();
            sort_i64(&mut a);
            let mut b = xs;
            b.sort_unstable();
            a == b
        }
    }

    #[test]
    fn empty_inputs() {
        sort_f64(&mut []);
        assert!(argsort_f64(&[]).unwrap().is_empty());
        assert!(argsort_i64(&[]).unwrap().is_empty());
    }
}
