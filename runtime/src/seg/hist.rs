//! Segmented reduction by index: one histogram per segment, each with the canonical block
//! association of [`crate::assoc::hist`] counted from its segment's start.

use crate::assoc::{hist_block, hist_block_into};
use crate::flat::hist as flat_hist;
use crate::{Error, Result, budget, sched, stats};
use flatland_segd::Segd;

/// One histogram per segment of `segd`: segment `s` of `indices` and `values` (both laid out
/// by `segd`) reduced into `bins[s]` bins from `identities[s]` with `op`; indices outside
/// `0..bins[s]` are skipped. The result holds the histograms one after another (row `s` starts
/// at `bins[0] + ... + bins[s - 1]`), each bitwise [`crate::assoc::hist`] of its segment for
/// every pool size: segments of more than one block run [`crate::flat::hist`] (parallel inside),
/// the others are grouped into tasks of similar work. Counts `2 * len(indices)` read and
/// `sum(bins)` written and allocated.
///
/// # Errors
/// [`Error::LengthMismatch`] when `bins` or `identities` do not have one entry per segment or
/// `indices`/`values` do not hold `segd`'s elements; [`Error::MemoryBudget`] when the bins do
/// not fit the budget.
///
/// ```
/// use flatland_runtime::seg::hist_s;
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![3, 0, 2]).unwrap();
/// let h = hist_s(&segd, &[2, 1, 3], &[0, 5, 0], &[0, 1, 1, 2, 2], &[1, 1, 1, 1, 1], |a, b| a + b).unwrap();
/// assert_eq!(h, vec![1, 2, 5, 0, 0, 2]);
/// ```
pub fn hist_s<T: Copy + Send + Sync>(
    segd: &Segd,
    bins: &[usize],
    identities: &[T],
    indices: &[i64],
    values: &[T],
    op: impl Fn(T, T) -> T + Sync,
) -> Result<Vec<T>> {
    let mismatch = |expected: usize, found: usize| Error::LengthMismatch {
        op: "hist_s",
        expected,
        found,
    };
    let segs = segd.len();
    if bins.len() != segs {
        return Err(mismatch(segs, bins.len()));
    }
    if identities.len() != segs {
        return Err(mismatch(segs, identities.len()));
    }
    if indices.len() != segd.elements() {
        return Err(mismatch(segd.elements(), indices.len()));
    }
    if values.len() != segd.elements() {
        return Err(mismatch(segd.elements(), values.len()));
    }
    // A sum that overflows saturates, and the budget refuses it.
    let total = bins.iter().fold(0usize, |a, &b| a.saturating_add(b));
    budget::check_elements::<T>("hist_s", total)?;
    stats::record_read(2 * indices.len() as u64);
    stats::record_written(total as u64);
    stats::record_alloc::<T>(total);
    let mut out: Vec<T> = Vec::with_capacity(total);
    for (&b, &z) in bins.iter().zip(identities) {
        out.resize(out.len() + b, z);
    }
    // Each segment's row of the output, with its pairs.
    let mut rows: Vec<(usize, &mut [T])> = Vec::with_capacity(segs);
    let mut rest = &mut out[..];
    for (s, &b) in bins.iter().enumerate() {
        let (row, tail) = rest.split_at_mut(b);
        rows.push((s, row));
        rest = tail;
    }
    let pairs = |s: usize| {
        let (st, len) = (segd.start(s), segd.length(s));
        (&indices[st..st + len], &values[st..st + len])
    };
    let (big, small): (Vec<_>, Vec<_>) = rows
        .into_iter()
        .partition(|(s, row)| segd.length(*s) > hist_block(row.len()));
    for (s, row) in big {
        let (ks, vs) = pairs(s);
        row.copy_from_slice(&flat_hist::hist(row.len(), identities[s], ks, vs, &op)?);
    }
    // The rows of segments of at most one block are filled in place: their row already holds
    // the identity, and one block's fold is the whole association.
    let work: usize = small
        .iter()
        .map(|(s, row)| segd.length(*s) + row.len())
        .sum();
    let (plan, _timing) = sched::plan_op(sched::Op::new("seg::hist_s"), work, flat_hist::HIST);
    let fill = |group: Vec<(usize, &mut [T])>| {
        for (s, row) in group {
            let (ks, vs) = pairs(s);
            hist_block_into(row, ks, vs, &op);
        }
    };
    if plan.is_sequential() {
        fill(small);
    } else {
        let per_task = work.div_ceil(plan.num_tasks() * 4).max(1);
        let mut groups: Vec<Vec<(usize, &mut [T])>> = vec![Vec::new()];
        let mut acc = 0;
        for (s, row) in small {
            acc += segd.length(s) + row.len();
            if let Some(g) = groups.last_mut() {
                g.push((s, row));
            }
            if acc >= per_task {
                groups.push(Vec::new());
                acc = 0;
            }
        }
        sched::run_parts(groups, |_, g| fill(g));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assoc;
    use crate::flat::hist::tests::pool;
    use quickcheck::{QuickCheck, TestResult};

    /// The reference: each segment's canonical histogram, one after another.
    fn reference(segd: &Segd, bins: &[usize], zs: &[f64], ks: &[i64], vs: &[f64]) -> Vec<f64> {
        let mut out = Vec::new();
        for (s, (st, len)) in segd.iter().enumerate() {
            out.extend(assoc::hist(
                bins[s],
                zs[s],
                &ks[st..st + len],
                &vs[st..st + len],
                |a, b| a + b,
            ));
        }
        out
    }

    /// Segments drawn by quickcheck: (bins, identity, (index, value) pairs).
    type Segs = Vec<(u8, u8, Vec<(i8, i16)>)>;

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn equals_each_segments_canonical_histogram() {
        fn prop(segs: Segs, threads: u8) -> TestResult {
            let lens: Vec<usize> = segs.iter().map(|s| s.2.len()).collect();
            let segd = Segd::from_lengths(lens).unwrap();
            let bins: Vec<usize> = segs.iter().map(|s| usize::from(s.0 % 12)).collect();
            let zs: Vec<f64> = segs.iter().map(|s| f64::from(s.1)).collect();
            let ks: Vec<i64> = segs
                .iter()
                .flat_map(|s| s.2.iter().map(|p| i64::from(p.0 % 14)))
                .collect();
            let vs: Vec<f64> = segs
                .iter()
                .flat_map(|s| s.2.iter().map(|p| f64::from(p.1) * 0.1))
                .collect();
            let got = pool(usize::from(threads % 4) + 1)
                .install(|| hist_s(&segd, &bins, &zs, &ks, &vs, |a, b| a + b))
                .unwrap();
            TestResult::from_bool(bits(&got) == bits(&reference(&segd, &bins, &zs, &ks, &vs)))
        }
        QuickCheck::new()
            .tests(80)
            .quickcheck(prop as fn(Segs, u8) -> TestResult);
    }

    #[test]
    fn one_huge_segment_among_empty_ones() {
        let n = 3 * assoc::HIST_BLOCK + 5;
        let segd = Segd::from_lengths(vec![0, n, 0, 3]).unwrap();
        let ks: Vec<i64> = (0..n as i64 + 3).map(|i| (i * 31) % 70 - 3).collect();
        let vs: Vec<f64> = (0..n + 3).map(|i| (i % 97) as f64 * 0.01).collect();
        let (bins, zs) = ([4, 64, 0, 2], [0.5, 0.0, 1.0, -0.0]);
        let want = reference(&segd, &bins, &zs, &ks, &vs);
        for threads in [1, 2, 3] {
            let got = pool(threads)
                .install(|| hist_s(&segd, &bins, &zs, &ks, &vs, |a, b| a + b))
                .unwrap();
            assert_eq!(bits(&got), bits(&want), "{threads} threads");
        }
    }

    #[test]
    fn no_segments_and_bad_lengths() {
        let empty = Segd::from_lengths(vec![]).unwrap();
        assert!(
            hist_s(&empty, &[], &[], &[], &[] as &[i64], |a, b| a + b)
                .unwrap()
                .is_empty()
        );
        let segd = Segd::from_lengths(vec![1]).unwrap();
        let e = hist_s(&segd, &[1, 2], &[0], &[0], &[1i64], |a, b| a + b).unwrap_err();
        assert!(matches!(e, Error::LengthMismatch { op: "hist_s", .. }));
        let e = hist_s(&segd, &[usize::MAX / 4], &[0], &[0], &[1i64], |a, b| a + b).unwrap_err();
        assert!(matches!(e, Error::MemoryBudget { .. }), "{e}");
    }
}
