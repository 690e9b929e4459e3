//! The work of a per-lane `map`'s lanes ([`super::Ctx::map`] and its kin), from which the
//! choice of parallel lanes and the balance of their tasks come: lane `i` costs one plus its
//! weight, the number of elements it reads first.
//!
//! A closure gives the weights one lane at a time, so the total and the tasks' bounds take a
//! walk over every lane, on the calling thread, before any task starts: on a map of 10^6 short
//! rows that walk (twice) was about a fifth of the map's time on two threads. [`RowWeights`]
//! (the rows of a flat `Nested`, whose descriptor holds every row's start) and [`Uniform`]
//! (every lane the same) know the sum of the weights of any first lanes without a walk: the
//! total is O(1) and each task's bound a binary search, with the same tasks as the walk.

use super::RowsOf;
use std::marker::PhantomData;
use std::ops::Range;

/// The weights of a map's lanes.
///
/// ```
/// use flatland_vectoriser::lane::{Uniform, Weights};
/// let by_closure = |i: usize| i % 3;
/// assert_eq!((by_closure.weight(4), by_closure.prefix(4)), (1, None));
/// assert_eq!((Uniform(2).weight(9), Uniform(2).prefix(4)), (2, Some(8)));
/// ```
pub trait Weights: Sync {
    /// The weight of lane `lane`.
    fn weight(&self, lane: usize) -> usize;
    /// The sum of the weights of lanes `0..lanes` (saturating), where it is known without a
    /// walk over them.
    fn prefix(&self, lanes: usize) -> Option<usize> {
        let _ = lanes;
        None
    }
}

impl<F: Fn(usize) -> usize + Sync> Weights for F {
    #[inline]
    fn weight(&self, lane: usize) -> usize {
        self(lane)
    }
}

/// Every lane weighs the same (lanes of scalars reading the same free arrays whole).
#[derive(Clone, Copy, Debug)]
pub struct Uniform(pub usize);

impl Weights for Uniform {
    #[inline]
    fn weight(&self, _: usize) -> usize {
        self.0
    }
    fn prefix(&self, lanes: usize) -> Option<usize> {
        Some(self.0.saturating_mul(lanes))
    }
}

/// Lane `i` weighs the length of row `i` of `rows` plus `shared` (the free arrays every lane
/// reads whole); the sums come from [`RowsOf::elements_before`] where the rows know it.
///
/// ```
/// use flatland_runtime::elt::Nested;
/// use flatland_vectoriser::lane::{RowWeights, Rows, Weights};
/// let n: Nested<i64> = Nested::from_offsets(vec![0, 2, 2, 5], vec![1, 2, 3, 4, 5]).unwrap();
/// let rows = Rows::new(&n);
/// let w = RowWeights::new(&rows, 1);
/// assert_eq!((w.weight(2), w.prefix(3)), (4, Some(8)));
/// ```
#[derive(Debug)]
pub struct RowWeights<'r, T, R> {
    rows: &'r R,
    shared: usize,
    elements: PhantomData<fn() -> T>,
}

impl<'r, T: Clone, R: RowsOf<T>> RowWeights<'r, T, R> {
    /// The weights of lanes over `rows`, each also reading `shared` elements.
    pub fn new(rows: &'r R, shared: usize) -> RowWeights<'r, T, R> {
        RowWeights {
            rows,
            shared,
            elements: PhantomData,
        }
    }
}

impl<T: Clone, R: RowsOf<T>> Weights for RowWeights<'_, T, R> {
    #[inline]
    fn weight(&self, lane: usize) -> usize {
        self.rows.row(lane).len() + self.shared
    }
    fn prefix(&self, lanes: usize) -> Option<usize> {
        let elements = self.rows.elements_before(lanes)?;
        Some(elements.saturating_add(self.shared.saturating_mul(lanes)))
    }
}

/// The work of `n` lanes: one per lane plus its weight (saturating).
#[inline]
pub(super) fn total(n: usize, w: &impl Weights) -> usize {
    match w.prefix(n) {
        Some(p) => n.saturating_add(p),
        None => (0..n).fold(n, |t, i| t.saturating_add(w.weight(i))),
    }
}

/// At most `k` ranges of whole lanes covering `0..n`, each of about the same work (one per
/// lane plus its weight; `total` is the sum of those, [`total`]). Task `c` ends before the
/// first lane whose running work passes `c / k` of the total: found by a binary search where
/// the weights have prefix sums, else in one walk over them (the same ranges either way).
#[inline(never)]
pub(super) fn balanced(n: usize, k: usize, total: usize, w: &impl Weights) -> Vec<Range<usize>> {
    let k = k.clamp(1, n.max(1));
    let share = |c: usize| (total as u128 * c as u128 / k as u128) as usize;
    let mut out = Vec::with_capacity(k);
    let mut start = 0;
    let mut cut = |i: usize, out: &mut Vec<Range<usize>>| {
        if i > start {
            out.push(start..i);
            start = i;
        }
    };
    if w.prefix(n).is_some() {
        // The running work through lane `i`, nondecreasing in `i`.
        let through = |i: usize| {
            let p = w.prefix(i + 1).unwrap_or(usize::MAX);
            (i + 1).saturating_add(p)
        };
        let mut from = 0;
        for c in 1..k {
            let s = share(c);
            let (mut lo, mut hi) = (from, n);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if through(mid) > s {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            if lo < n {
                cut(lo, &mut out);
            }
            from = lo;
        }
    } else {
        let (mut acc, mut c) = (0usize, 1);
        for i in 0..n {
            acc = acc.saturating_add(1 + w.weight(i));
            while c < k && acc > share(c) {
                cut(i, &mut out);
                c += 1;
            }
        }
    }
    if n > start {
        out.push(start..n);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    /// The weights of `lengths` as a closure and with prefix sums.
    struct Prefixed(Vec<usize>);
    impl Weights for Prefixed {
        fn weight(&self, lane: usize) -> usize {
            self.0[lane]
        }
        fn prefix(&self, lanes: usize) -> Option<usize> {
            Some(self.0[..lanes].iter().sum())
        }
    }

    quickcheck! {
        fn the_search_gives_the_walks_tasks(lengths: Vec<u16>, k: u8) -> bool {
            let w: Vec<usize> = lengths.iter().map(|&l| usize::from(l)).collect();
            let n = w.len();
            let walk = |i: usize| w[i];
            let prefixed = Prefixed(w.clone());
            let t = total(n, &walk);
            let k = usize::from(k);
            t == total(n, &prefixed)
                && balanced(n, k, t, &walk) == balanced(n, k, t, &prefixed)
        }

        fn tasks_cover_the_lanes_in_order(lengths: Vec<u16>, k: u8) -> bool {
            let w = Prefixed(lengths.iter().map(|&l| usize::from(l)).collect());
            let n = w.0.len();
            let tasks = balanced(n, usize::from(k), total(n, &w), &w);
            let mut next = 0;
            for r in &tasks {
                if r.start != next || r.is_empty() {
                    return false;
                }
                next = r.end;
            }
            next == n && tasks.len() <= usize::from(k).clamp(1, n.max(1))
        }
    }

    #[test]
    fn one_heavy_lane_starts_a_task() {
        let mut w = vec![1; 1000];
        w[500] = 1_000_000;
        let prefixed = Prefixed(w.clone());
        let tasks = balanced(1000, 8, total(1000, &prefixed), &prefixed);
        assert_eq!(tasks, vec![0..500, 500..1000]);
        let walk = |i: usize| w[i];
        assert_eq!(tasks, balanced(1000, 8, total(1000, &walk), &walk));
    }

    #[test]
    fn uniform_lanes_split_evenly() {
        let tasks = balanced(100, 4, total(100, &Uniform(3)), &Uniform(3));
        assert_eq!(tasks, vec![0..25, 25..50, 50..75, 75..100]);
    }
}
