//! Reduction by index (a histogram): `bins` bins, each the fold of the values whose index
//! names it, with the canonical block association of [`crate::assoc::hist`].

use crate::assoc::{combine_hist, hist_block};
use crate::cost::ElemCost;
use crate::{Error, Result, budget, sched, stats};

/// An index and a value read and a random read-modify-write per pair.
pub(crate) const HIST: ElemCost = ElemCost::new(2.0, 4.0);

/// `bins` bins, bin `k` the fold with `op` of the `values[j]` whose `indices[j] == k`, from
/// `identity`; indices outside `0..bins` are skipped (documented semantics, not an error). The
/// bits are those of [`crate::assoc::hist`] whatever the pool size: blocks of
/// [`crate::assoc::hist_block`]`(bins)` pairs get their partial histograms in parallel, and the
/// partials are combined in block order, in parallel over the bins. `op` must be associative.
/// Counts `2 * len(indices)` read and `bins` written and allocated.
///
/// # Errors
/// [`Error::LengthMismatch`] when `values` and `indices` differ in length;
/// [`Error::MemoryBudget`] when the bins (and the partial histograms) do not fit the budget.
///
/// ```
/// use flatland_runtime::flat::hist;
/// let counts = hist(4, 0i64, &[1, 3, 1, -1, 9], &[1; 5], |a, b| a + b).unwrap();
/// assert_eq!(counts, vec![0, 2, 0, 1]);
/// let maxes = hist(2, f64::NEG_INFINITY, &[0, 0], &[1.5, 2.5], f64::max).unwrap();
/// assert_eq!(maxes, vec![2.5, f64::NEG_INFINITY]);
/// ```
pub fn hist<T: Copy + Send + Sync>(
    bins: usize,
    identity: T,
    indices: &[i64],
    values: &[T],
    op: impl Fn(T, T) -> T + Sync,
) -> Result<Vec<T>> {
    let n = indices.len();
    if values.len() != n {
        return Err(Error::LengthMismatch {
            op: "hist",
            expected: n,
            found: values.len(),
        });
    }
    hist_by(bins, identity, indices, |j| values[j], op)
}

/// [`hist`] with the value of pair `j` computed by `value(j)` (no array of values).
fn hist_by<T: Copy + Send + Sync>(
    bins: usize,
    identity: T,
    indices: &[i64],
    value: impl Fn(usize) -> T + Sync,
    op: impl Fn(T, T) -> T + Sync,
) -> Result<Vec<T>> {
    let n = indices.len();
    budget::check_elements::<T>("hist", bins)?;
    stats::record_read(2 * n as u64);
    stats::record_written(bins as u64);
    stats::record_alloc::<T>(bins);
    let block = hist_block(bins);
    let blocks = n.div_ceil(block);
    let (s, _timing) = sched::plan_op(sched::Op::of("flat::hist", &value), n, HIST);
    if blocks <= 1 || s.is_sequential() {
        return Ok(sequential(bins, identity, indices, &value, block, &op));
    }
    // The partials of all blocks at once: at most `n / 16 + bins` elements (`hist_block`).
    budget::check_elements::<T>("hist (partial histograms)", blocks.saturating_mul(bins))?;
    let ranges: Vec<usize> = (0..blocks).collect();
    let partials = sched::run_parts(ranges, |_, b| {
        let r = b * block..((b + 1) * block).min(n);
        let mut p = vec![identity; bins];
        block_into(&mut p, &indices[r.clone()], |j| value(r.start + j), &op);
        p
    });
    let per_bin = sched::plan(bins, ElemCost::new(blocks as f64, blocks as f64));
    Ok(sched::build_vec_tasks(&per_bin, |_, r, out| {
        out.fill(r.map(|k| {
            partials[1..]
                .iter()
                .fold(partials[0][k], |acc, p| op(acc, p[k]))
        }));
    }))
}

/// [`hist_block_into`] with the value of pair `j` of the block computed by `value(j)`.
#[inline]
fn block_into<T: Copy>(
    p: &mut [T],
    indices: &[i64],
    value: impl Fn(usize) -> T,
    op: impl Fn(T, T) -> T,
) {
    for (j, &k) in indices.iter().enumerate() {
        if let Some(slot) = crate::assoc::bin_mut(p, k) {
            *slot = op(*slot, value(j));
        }
    }
}

/// The canonical association run on the calling thread with two histograms of scratch: each
/// block's partial is combined into the result as soon as it is complete.
fn sequential<T: Copy>(
    bins: usize,
    identity: T,
    indices: &[i64],
    value: impl Fn(usize) -> T,
    block: usize,
    op: impl Fn(T, T) -> T,
) -> Vec<T> {
    let mut out = vec![identity; bins];
    let mut p = Vec::new();
    for (b, ks) in indices.chunks(block).enumerate() {
        let at = |j: usize| value(b * block + j);
        if b == 0 {
            block_into(&mut out, ks, at, &op);
            continue;
        }
        p.clear();
        p.resize(bins, identity);
        block_into(&mut p, ks, at, &op);
        combine_hist(&mut out, p.iter().copied(), &op);
    }
    out
}

/// `bins` bins, bin `k` the number of `indices` equal to `k` (others skipped): [`hist`] with
/// `+` on ones.
///
/// # Errors
/// [`Error::MemoryBudget`] when the bins do not fit the budget.
///
/// ```
/// use flatland_runtime::flat::count_by_index;
/// assert_eq!(count_by_index(3, &[2, 2, 0, 5, -2]).unwrap(), vec![1, 0, 2]);
/// ```
pub fn count_by_index(bins: usize, indices: &[i64]) -> Result<Vec<i64>> {
    hist_by(bins, 0, indices, |_| 1i64, i64::wrapping_add)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::assoc;
    use quickcheck::{QuickCheck, TestResult};

    /// A pool of `threads` threads (the segmented tests use it too).
    pub(crate) fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    /// The naive reference: every value folded into its bin in input order.
    fn naive(bins: usize, z: f64, ks: &[i64], vs: &[f64]) -> Vec<f64> {
        let mut out = vec![z; bins];
        for (&k, &v) in ks.iter().zip(vs) {
            if (0..bins as i64).contains(&k) {
                out[k as usize] += v;
            }
        }
        out
    }

    #[test]
    fn equals_the_canonical_association_for_every_pool() {
        fn prop(bins: u8, pairs: Vec<(i8, i32)>, threads: u8) -> TestResult {
            let bins = usize::from(bins % 40);
            let ks: Vec<i64> = pairs.iter().map(|p| i64::from(p.0)).collect();
            let vs: Vec<f64> = pairs.iter().map(|p| f64::from(p.1) * 0.1).collect();
            let want = assoc::hist(bins, 0.0, &ks, &vs, |a, b| a + b);
            let got = pool(usize::from(threads % 4) + 1)
                .install(|| hist(bins, 0.0, &ks, &vs, |a, b| a + b))
                .unwrap();
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            // Within one block the canonical association is the naive left fold.
            TestResult::from_bool(
                bits(&want) == bits(&got) && bits(&want) == bits(&naive(bins, 0.0, &ks, &vs)),
            )
        }
        QuickCheck::new()
            .tests(80)
            .quickcheck(prop as fn(u8, Vec<(i8, i32)>, u8) -> TestResult);
    }

    #[test]
    fn many_blocks_give_the_same_bits_on_every_pool() {
        let n = 5 * assoc::HIST_BLOCK + 17;
        let ks: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 300 - 20).collect();
        let vs: Vec<f64> = (0..n).map(|i| (i % 1000) as f64 * 0.001).collect();
        let want = assoc::hist(256, 0.0, &ks, &vs, |a, b| a + b);
        for threads in [1, 2, 3] {
            let got = pool(threads)
                .install(|| hist(256, 0.0, &ks, &vs, |a, b| a + b))
                .unwrap();
            assert!(
                want.iter()
                    .zip(&got)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
            );
        }
        let counts = count_by_index(256, &ks).unwrap();
        let total: i64 = counts.iter().sum();
        assert_eq!(
            total,
            ks.iter().filter(|k| (0..256).contains(*k)).count() as i64
        );
    }

    #[test]
    fn empty_input_and_no_bins() {
        assert_eq!(hist(3, 7i64, &[], &[], |a, b| a + b).unwrap(), vec![7; 3]);
        assert!(
            hist(0, 0i64, &[0, 1], &[1, 2], |a, b| a + b)
                .unwrap()
                .is_empty()
        );
        let e = hist(2, 0i64, &[0], &[], |a, b| a + b).unwrap_err();
        assert!(matches!(e, Error::LengthMismatch { op: "hist", .. }));
    }

    #[test]
    fn bins_are_checked_against_the_budget() {
        let e = hist(usize::MAX / 2, 0i64, &[], &[], |a, b| a + b).unwrap_err();
        assert!(matches!(e, Error::MemoryBudget { .. }), "{e}");
    }
}
