//! A scatter fused with the arithmetic progressions that generate its indices: NESL's sieve
//! writes `false` at every multiple `2p, 3p, ..` of each prime `p` below `sqrt(n)`. Unfused, the
//! indices (about `n ln ln n` of them) are materialised before the scatter reads them back;
//! here each progression writes straight into the destination, in parallel, and no index array
//! exists.
//!
//! Every write of a segment stores the same value, so which of two writes to a position lands
//! last does not matter: the result is the unfused scatter's (last write wins) on any number of
//! threads, with no ordering between tasks. Tasks are balanced on *writes*, cutting a long
//! progression (the sieve's `p = 2`, half the positions) where a task's share ends. Concurrent
//! stores to one position are relaxed atomic stores of the element's own width ([`StoreCell`]),
//! plain stores on common hardware.
//!
//! Cost: O(progressions) to check and plan, one store per generated position (a progression of
//! step 0 is one store), one copy of the destination.

use crate::cost::ElemCost;
use crate::{Error, Result, sched, stats};
use flatland_segd::Segd;
use std::sync::atomic::{
    AtomicBool, AtomicI32, AtomicI64, AtomicU8, AtomicU32, AtomicU64, AtomicUsize,
    Ordering::Relaxed,
};

/// A generated position's work: an index computation and a store, often to a line not in cache.
const STRIDED_WRITE: ElemCost = ElemCost::new(1.0, 3.0);

/// The positions `start, start + step, .., start + (len - 1) * step` (wrapping `i64`
/// arithmetic, as the IR's `iota`).
///
/// ```
/// use flatland_runtime::fused::Progression;
/// let p = Progression { start: 4, step: 2, len: 3 };
/// assert_eq!((0..p.len).map(|j| p.at(j)).collect::<Vec<_>>(), vec![4, 6, 8]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progression {
    /// The first position.
    pub start: i64,
    /// The difference between neighbours (any sign, or 0).
    pub step: i64,
    /// How many positions.
    pub len: usize,
}

impl Progression {
    /// Position `j` (wrapping).
    ///
    /// ```
    /// let p = flatland_runtime::fused::Progression { start: i64::MAX, step: 1, len: 2 };
    /// assert_eq!(p.at(1), i64::MIN);
    /// ```
    pub fn at(&self, j: usize) -> i64 {
        self.start.wrapping_add((j as i64).wrapping_mul(self.step))
    }

    /// The stores this progression needs: one per position, one in all for step 0.
    fn stores(&self) -> usize {
        if self.step == 0 {
            self.len.min(1)
        } else {
            self.len
        }
    }

    /// The first position outside `0..m` (its number and value), if any: the positions are
    /// monotone in exact arithmetic, so the first and last decide, and the first one out is
    /// found by a division. Up to it the exact and the wrapping values agree.
    fn first_outside(&self, m: usize) -> Option<(usize, i64)> {
        if self.len == 0 {
            return None;
        }
        let (s, d, m) = (self.start as i128, self.step as i128, m as i128);
        if !(0..m).contains(&s) {
            return Some((0, self.start));
        }
        let last = d
            .checked_mul(self.len as i128 - 1)
            .and_then(|x| x.checked_add(s));
        if last.is_some_and(|l| (0..m).contains(&l)) {
            return None;
        }
        // `s` is inside and the progression leaves `0..m`: `d != 0`.
        let j = if d > 0 {
            (m - s + d - 1) / d
        } else {
            s / -d + 1
        };
        let j = j as usize;
        Some((j, self.at(j)))
    }

    /// `Ok` when every position is inside `0..m`; else the scatter's
    /// [`Error::IndexOutOfRange`] naming the progression as `lane`, its first position outside
    /// and `m`.
    fn check_inside(&self, lane: usize, m: usize) -> Result<()> {
        match self.first_outside(m) {
            None => Ok(()),
            Some((_, index)) => Err(Error::IndexOutOfRange {
                op: "scatter",
                lane,
                index,
                len: m,
            }),
        }
    }
}

/// A scalar that tasks may store into one shared array at once: its atomic cell of the same
/// width ([`StoreCell::Cell`]), into which it is stored with a relaxed store.
///
/// ```
/// use flatland_runtime::fused::StoreCell;
/// let c = 1.5f64.into_cell();
/// f64::store(&c, 2.5);
/// assert_eq!(f64::from_cell(c), 2.5);
/// ```
pub trait StoreCell: Copy + Send + Sync {
    /// The atomic cell holding one value.
    type Cell: Send + Sync;
    /// A cell holding `self`.
    fn into_cell(self) -> Self::Cell;
    /// Stores `v` into `cell` (relaxed).
    fn store(cell: &Self::Cell, v: Self);
    /// The value a cell holds.
    fn from_cell(cell: Self::Cell) -> Self;
}

macro_rules! store_cell {
    ($($t:ty => $cell:ty),* $(,)?) => {$(
        impl StoreCell for $t {
            type Cell = $cell;
            fn into_cell(self) -> $cell {
                <$cell>::new(self)
            }
            #[inline(always)]
            fn store(cell: &$cell, v: $t) {
                cell.store(v, Relaxed);
            }
            fn from_cell(cell: $cell) -> $t {
                cell.into_inner()
            }
        }
    )*};
}

store_cell!(
    bool => AtomicBool,
    u8 => AtomicU8,
    i32 => AtomicI32,
    u32 => AtomicU32,
    i64 => AtomicI64,
    u64 => AtomicU64,
    usize => AtomicUsize,
);

impl StoreCell for f64 {
    type Cell = AtomicU64;
    fn into_cell(self) -> AtomicU64 {
        AtomicU64::new(self.to_bits())
    }
    #[inline(always)]
    fn store(cell: &AtomicU64, v: f64) {
        cell.store(v.to_bits(), Relaxed);
    }
    fn from_cell(cell: AtomicU64) -> f64 {
        f64::from_bits(cell.into_inner())
    }
}

/// A copy of `base` with `value` written at every position of every progression: the
/// unfused `scatter(base, concat(progressions), replicate(_, value))` without the index array.
/// Counts the positions written, the progressions read, `len(base)` copied and allocated.
///
/// # Errors
/// [`Error::IndexOutOfRange`] naming the lowest progression (as `lane`) with a position outside
/// `base`, and its first such position.
///
/// ```
/// use flatland_runtime::fused::{Progression, scatter_progressions};
/// // The sieve below 20: the multiples of 2 and 3 from twice the prime.
/// let progs = [Progression { start: 4, step: 2, len: 8 }, Progression { start: 6, step: 3, len: 5 }];
/// let flags = scatter_progressions(&[true; 20], &progs, false).unwrap();
/// let primes: Vec<usize> = (2..20).filter(|&i| flags[i]).collect();
/// assert_eq!(primes, vec![2, 3, 5, 7, 11, 13, 17, 19]);
/// assert!(scatter_progressions(&[0; 4], &[Progression { start: 1, step: 2, len: 3 }], 7).is_err());
/// ```
pub fn scatter_progressions<T: StoreCell>(
    base: &[T],
    progs: &[Progression],
    value: T,
) -> Result<Vec<T>> {
    let dest = Segd::from_lengths(vec![base.len()])?;
    let lanes = Segd::from_lengths(vec![progs.len()])?;
    scatter_progressions_s(base, &dest, &lanes, progs, &[value])
}

/// `value` stored at every position of every progression of `out`, in place, on the calling
/// thread: the sequential form of [`scatter_progressions`] for code that already owns its
/// destination (the per-lane code `#[vectorise]` emits, one window of a sieve per lane). Every
/// progression is checked before anything is written, and each is then written as a strided walk
/// over the slice (one store per position, no bounds check per store). Counts the positions
/// written and the progressions read.
///
/// # Errors
/// [`Error::IndexOutOfRange`] naming the lowest progression (as `lane`) with a position outside
/// `out`, its first such position and `out`'s length; `out` is then unchanged.
///
/// ```
/// use flatland_runtime::fused::{Progression, scatter_progressions_into};
/// let mut flags = [true; 20];
/// let progs = [Progression { start: 4, step: 2, len: 8 }, Progression { start: 18, step: -3, len: 5 }];
/// scatter_progressions_into(&mut flags, &progs, false).unwrap();
/// let primes: Vec<usize> = (2..20).filter(|&i| flags[i]).collect();
/// assert_eq!(primes, vec![2, 3, 5, 7, 11, 13, 17, 19]);
/// let err = scatter_progressions_into(&mut flags, &[Progression { start: 19, step: 1, len: 2 }], true);
/// assert!(err.is_err() && !flags[4]);
/// ```
pub fn scatter_progressions_into<T: Copy>(
    out: &mut [T],
    progs: &[Progression],
    value: T,
) -> Result<()> {
    let m = out.len();
    let mut stores = 0u64;
    for (k, p) in progs.iter().enumerate() {
        p.check_inside(k, m)?;
        stores += p.stores() as u64;
    }
    for p in progs.iter().filter(|p| p.len > 0) {
        // Inside `out` (checked above), so the positions are exact: the lowest of them and the
        // distance between neighbours walk the same set upwards, whatever the step's sign.
        let lowest = if p.step < 0 { p.at(p.len - 1) } else { p.start };
        let stride = usize::try_from(p.step.unsigned_abs()).map_or(usize::MAX, |d| d.max(1));
        out[lowest as usize..]
            .iter_mut()
            .step_by(stride)
            .take(p.stores())
            .for_each(|x| *x = value);
    }
    stats::record_read(3 * progs.len() as u64);
    stats::record_written(stores);
    Ok(())
}

/// [`scatter_progressions`] segment by segment: `base` holds the destination segments `dest`,
/// the progressions of segment `i` are segment `i` of `lanes` (positions counted from the
/// segment's start, checked against its length) and all write `values[i]`. Segments never
/// share a position, so the result does not depend on the order of writes.
///
/// # Errors
/// [`Error::LengthMismatch`] when the descriptors do not fit `base`, `progs` and `values`;
/// [`Error::IndexOutOfRange`] naming the lowest progression (as `lane`) with a position outside
/// its segment, that position, and the segment's length.
///
/// ```
/// use flatland_runtime::fused::{Progression, scatter_progressions_s};
/// use flatland_segd::Segd;
/// let dest = Segd::from_lengths(vec![4, 3]).unwrap();
/// let lanes = Segd::from_lengths(vec![1, 1]).unwrap();
/// let progs = [Progression { start: 0, step: 2, len: 2 }, Progression { start: 2, step: -1, len: 2 }];
/// let out = scatter_progressions_s(&[0; 7], &dest, &lanes, &progs, &[7, 9]).unwrap();
/// assert_eq!(out, vec![7, 0, 7, 0, 0, 9, 9]);
/// ```
pub fn scatter_progressions_s<T: StoreCell>(
    base: &[T],
    dest: &Segd,
    lanes: &Segd,
    progs: &[Progression],
    values: &[T],
) -> Result<Vec<T>> {
    let mismatch = |expected, found| Error::LengthMismatch {
        op: "scatter",
        expected,
        found,
    };
    if dest.elements() != base.len() {
        return Err(mismatch(dest.elements(), base.len()));
    }
    if lanes.elements() != progs.len() {
        return Err(mismatch(lanes.elements(), progs.len()));
    }
    for found in [lanes.len(), values.len()] {
        if found != dest.len() {
            return Err(mismatch(dest.len(), found));
        }
    }
    // Each progression's first position in `base` and value, and the stores before it.
    let mut firsts = Vec::with_capacity(progs.len());
    let mut before = Vec::with_capacity(progs.len() + 1);
    before.push(0usize);
    let mut stores = 0usize;
    for (seg, &value) in values.iter().enumerate() {
        let (off, m) = (dest.start(seg), dest.length(seg));
        let range = lanes.start(seg)..lanes.start(seg) + lanes.length(seg);
        for (k, p) in range.clone().zip(&progs[range]) {
            p.check_inside(k, m)?;
            // Inside the segment, so `off + start` is a position of `base`.
            firsts.push(((off as i64).wrapping_add(p.start), value));
            stores = stores
                .checked_add(p.stores())
                .ok_or_else(|| Error::Invalid {
                    op: "scatter",
                    detail: "more positions than a usize counts".into(),
                })?;
            before.push(stores);
        }
    }
    stats::record_read(3 * progs.len() as u64);
    stats::record_written(stores as u64);
    stats::record_copied(base.len() as u64);
    stats::record_alloc::<T>(base.len());
    let cells: Vec<T::Cell> = base.iter().map(|&x| x.into_cell()).collect();
    let (s, _timing) = sched::plan_op(
        sched::Op::new("fused::scatter_progressions_s"),
        stores,
        STRIDED_WRITE,
    );
    sched::run(&s, |_, r| {
        // The progression holding store `r.start`, then each one the task's range reaches.
        let mut k = before.partition_point(|&b| b <= r.start) - 1;
        let mut at = r.start;
        while at < r.end {
            let (p, (first, v)) = (&progs[k], firsts[k]);
            let (lo, hi) = (at - before[k], (r.end.min(before[k + 1])) - before[k]);
            // Positions inside the segment (checked above); the step past the last one wraps.
            let mut pos = first + lo as i64 * p.step;
            for _ in lo..hi {
                T::store(&cells[pos as usize], v);
                pos = pos.wrapping_add(p.step);
            }
            at = before[k + 1];
            k += 1;
        }
    });
    Ok(cells.into_iter().map(T::from_cell).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::{TestResult, quickcheck};

    /// The unfused scatter: every position materialised, written in order.
    fn naive(
        base: &[i64],
        dest: &Segd,
        lanes: &Segd,
        progs: &[Progression],
        values: &[i64],
    ) -> Option<Vec<i64>> {
        let mut out = base.to_vec();
        for (seg, &value) in values.iter().enumerate() {
            let (off, m) = (dest.start(seg), dest.length(seg) as i64);
            let first = lanes.start(seg);
            for p in &progs[first..first + lanes.length(seg)] {
                for j in 0..p.len {
                    let at = p.at(j);
                    if !(0..m).contains(&at) {
                        return None;
                    }
                    out[off + at as usize] = value;
                }
            }
        }
        Some(out)
    }

    fn check(dest_lens: Vec<u8>, raw: Vec<(i8, i8, u8, u8)>, threads: usize) -> TestResult {
        if dest_lens.is_empty() {
            return TestResult::discard();
        }
        let dest =
            Segd::from_lengths(dest_lens.iter().map(|&l| l as usize % 40).collect()).unwrap();
        // Progressions dealt to segments by their fourth field.
        let mut per_seg = vec![Vec::new(); dest.len()];
        for &(start, step, len, seg) in &raw {
            let p = Progression {
                start: start as i64,
                step: step as i64 % 7,
                len: len as usize % 12,
            };
            per_seg[seg as usize % dest.len()].push(p);
        }
        let lanes = Segd::from_lengths(per_seg.iter().map(Vec::len).collect()).unwrap();
        let progs: Vec<Progression> = per_seg.concat();
        let values: Vec<i64> = (0..dest.len() as i64).map(|s| 100 + s).collect();
        let base: Vec<i64> = (0..dest.elements() as i64).collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let got = pool.install(|| scatter_progressions_s(&base, &dest, &lanes, &progs, &values));
        match naive(&base, &dest, &lanes, &progs, &values) {
            Some(want) => TestResult::from_bool(got == Ok(want)),
            None => TestResult::from_bool(matches!(got, Err(Error::IndexOutOfRange { .. }))),
        }
    }

    quickcheck! {
        fn segmented_equals_the_unfused_scatter(dest: Vec<u8>, raw: Vec<(i8, i8, u8, u8)>) -> TestResult {
            check(dest, raw, 1)
        }
        fn in_place_equals_the_unfused_scatter(len: u8, raw: Vec<(i8, i8, u8)>) -> bool {
            let progs: Vec<Progression> = raw
                .iter()
                .map(|&(start, step, len)| Progression { start: start as i64, step: step as i64 % 7, len: len as usize % 12 })
                .collect();
            let base: Vec<i64> = (0..i64::from(len % 40)).collect();
            let dest = Segd::from_lengths(vec![base.len()]).unwrap();
            let lanes = Segd::from_lengths(vec![progs.len()]).unwrap();
            let mut out = base.clone();
            let got = scatter_progressions_into(&mut out, &progs, 100);
            match naive(&base, &dest, &lanes, &progs, &[100]) {
                Some(want) => got.is_ok() && out == want,
                // The same error as the parallel form's, and nothing written.
                None => got == scatter_progressions(&base, &progs, 100).map(|_| ()) && out == base,
            }
        }
        fn the_same_on_three_and_eight_threads(dest: Vec<u8>, raw: Vec<(i8, i8, u8, u8)>) -> TestResult {
            let three = check(dest.clone(), raw.clone(), 3);
            if three.is_failure() {
                return three;
            }
            check(dest, raw, 8)
        }
    }

    #[test]
    fn one_huge_progression_is_split_across_tasks() {
        let n = 1 << 22;
        let progs = [
            Progression {
                start: 0,
                step: 1,
                len: n,
            },
            Progression {
                start: 1,
                step: 2,
                len: n / 2,
            },
        ];
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let out = pool
            .install(|| scatter_progressions(&vec![0u8; n], &progs, 1))
            .unwrap();
        assert!(out.iter().all(|&x| x == 1));
    }

    #[test]
    fn the_first_position_outside_is_named() {
        let p = |start, step, len| Progression { start, step, len };
        let e = scatter_progressions(&[0; 10], &[p(0, 1, 3), p(3, 3, 5)], 1).unwrap_err();
        assert_eq!(
            e,
            Error::IndexOutOfRange {
                op: "scatter",
                lane: 1,
                index: 12,
                len: 10
            }
        );
        let e = scatter_progressions(&[0; 10], &[p(9, -4, 4)], 1).unwrap_err();
        assert_eq!(
            e,
            Error::IndexOutOfRange {
                op: "scatter",
                lane: 0,
                index: -3,
                len: 10
            }
        );
        // Wrapping: the exact positions leave i64, the first one out is reported wrapped.
        let e = scatter_progressions(&[0; 10], &[p(1, i64::MAX, 3)], 1).unwrap_err();
        assert_eq!(
            e,
            Error::IndexOutOfRange {
                op: "scatter",
                lane: 0,
                index: i64::MIN,
                len: 10
            }
        );
        // Step 0 writes one position, however long; empty progressions write nothing.
        let out = scatter_progressions(&[0; 3], &[p(2, 0, usize::MAX), p(99, 5, 0)], 1).unwrap();
        assert_eq!(out, vec![0, 0, 1]);
        let mut out = [0; 3];
        scatter_progressions_into(&mut out, &[p(2, 0, usize::MAX), p(99, 5, 0)], 1).unwrap();
        assert_eq!(out, [0, 0, 1]);
        // A step too long for a usize stride still writes its first position.
        let mut out = [0; 3];
        scatter_progressions_into(&mut out, &[p(1, i64::MIN, 1)], 1).unwrap();
        assert_eq!(out, [0, 1, 0]);
        assert!(scatter_progressions::<u8>(&[], &[], 1).unwrap().is_empty());
    }

    #[test]
    fn floats_keep_their_bits() {
        let out = scatter_progressions(
            &[0.0f64; 4],
            &[Progression {
                start: 3,
                step: -2,
                len: 2,
            }],
            -0.0,
        )
        .unwrap();
        assert_eq!(
            out.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            [0.0f64, -0.0, 0.0, -0.0].map(f64::to_bits)
        );
    }
}
