//! How a segmented operation is cut into tasks: by elements, at leaf boundaries.
//!
//! The elements are split into chunks of about equal size ([`Segd::split_on_elements`]), so one
//! huge segment among many tiny ones (power-law row lengths) is shared between tasks. Each cut is
//! then moved back to a leaf boundary of the segment it falls in (leaves are counted from each
//! segment's start, [`crate::assoc::LEAF`]), so every task computes whole leaves and the
//! canonical association is kept: a segment that spans tasks gets its per-leaf results from
//! several tasks, combined left to right afterwards.

use crate::assoc::LEAF;
use crate::cost::ElemCost;
use crate::sched;
use flatland_segd::Segd;
use std::borrow::Cow;
use std::ops::Range;

/// One task of a segmented operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Task {
    /// Elements processed (a leaf-aligned cut at each end).
    pub(crate) elems: Range<usize>,
    /// Segments whose results this task writes (those that start in `elems`, and empty ones
    /// before the next task's first segment).
    pub(crate) owned: Range<usize>,
    /// First segment touched: `owned.start - 1` when the task starts inside a segment that an
    /// earlier task owns, else `owned.start`.
    pub(crate) first: usize,
}

impl Task {
    /// Segments touched: the head segment (if partial), then the owned ones.
    pub(crate) fn touched(&self) -> Range<usize> {
        self.first..self.owned.end.max(self.first)
    }

    /// Whether touched segment `s` is only partly inside this task (it spans tasks).
    #[inline]
    pub(crate) fn is_partial(&self, b: &Bounds<'_>, s: usize) -> bool {
        !(self.owned.contains(&s) && b.end(s) <= self.elems.end)
    }

    /// The part of segment `s` inside this task, as element positions.
    #[inline]
    pub(crate) fn piece(&self, b: &Bounds<'_>, s: usize) -> Range<usize> {
        self.elems.start.max(b.start(s))..self.elems.end.min(b.end(s))
    }
}

/// Segment starts and lengths as slices, for the hot loops (one lookup each, no call into the
/// descriptor crate per segment).
pub(crate) struct Bounds<'a> {
    starts: Cow<'a, [usize]>,
    lens: Cow<'a, [usize]>,
}

impl<'a> Bounds<'a> {
    pub(crate) fn of(segd: &'a Segd) -> Bounds<'a> {
        Bounds {
            starts: segd.starts(),
            lens: segd.lengths(),
        }
    }

    #[inline]
    pub(crate) fn start(&self, s: usize) -> usize {
        self.starts[s]
    }

    #[inline]
    pub(crate) fn end(&self, s: usize) -> usize {
        self.starts[s] + self.lens[s]
    }

    #[inline]
    pub(crate) fn len(&self, s: usize) -> usize {
        self.lens[s]
    }

    /// The starts of segments `r`, for loops over many segments.
    #[inline]
    pub(crate) fn starts(&self, r: Range<usize>) -> &[usize] {
        &self.starts[r]
    }

    /// The lengths of segments `r`, for loops over many segments.
    #[inline]
    pub(crate) fn lens(&self, r: Range<usize>) -> &[usize] {
        &self.lens[r]
    }
}

/// How many tasks to use for `elements` elements on the current pool (1 = sequential): the
/// cost model's choice for a one-operation, one-transfer-per-element pass ([`sched::plan`]), or
/// the count [`sched::with_task_count`] forces (not clamped to leaves: a segmented operation
/// also cuts at segment starts); with the clock of operation `op` ([`sched::plan_op`]), to be
/// held until it returns.
pub(crate) fn task_count(elements: usize, op: sched::Op) -> (usize, sched::audit::Timing) {
    if let Some(k) = sched::forced_task_count() {
        return (k, sched::audit::Timing::off());
    }
    let (s, timing) = sched::plan_op(op, elements, ElemCost::new(1.0, 1.0));
    (s.num_tasks(), timing)
}

/// Cuts `segd` into at most `k` tasks by elements, at leaf boundaries. Tasks cover the elements
/// and the segments in order, without overlap (owned ranges partition `0..segd.len()`).
pub(crate) fn plan(segd: &Segd, k: usize) -> Vec<Task> {
    let n = segd.elements();
    if k <= 1 || n == 0 {
        return vec![Task {
            elems: 0..n,
            owned: 0..segd.len(),
            first: 0,
        }];
    }
    // Cut points: (element position, first owned segment, segment of the partial head).
    let mut cuts: Vec<(usize, usize, usize)> = vec![(0, 0, 0)];
    for c in segd.split_on_elements(k).iter().skip(1) {
        let (seg, off) = (c.first_segment, c.first_offset);
        if seg >= segd.len() {
            continue; // an empty chunk at the very end
        }
        debug_assert_eq!(
            segd.start(seg) + off,
            c.start_element,
            "split_on_elements chunk start"
        );
        let aligned = off - off % LEAF;
        let cut = if aligned == 0 {
            (segd.start(seg), seg, seg)
        } else {
            (segd.start(seg) + aligned, seg + 1, seg)
        };
        let last = *cuts.last().expect("non-empty");
        // Keep cuts monotone and drop empty tasks.
        if cut.0 > last.0 && cut.1 >= last.1 {
            cuts.push(cut);
        }
    }
    let mut tasks = Vec::with_capacity(cuts.len());
    for (j, &(e, owned_start, head)) in cuts.iter().enumerate() {
        let (end, owned_end) = cuts
            .get(j + 1)
            .map_or((n, segd.len()), |&(e2, o2, _)| (e2, o2));
        let first = if e > segd.start(head) {
            head
        } else {
            owned_start
        };
        tasks.push(Task {
            elems: e..end,
            owned: owned_start..owned_end,
            first,
        });
    }
    tasks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(lengths: Vec<usize>, k: usize) {
        let segd = Segd::from_lengths(lengths.clone()).unwrap();
        let tasks = plan(&segd, k);
        assert_eq!(tasks.first().unwrap().elems.start, 0);
        assert_eq!(tasks.last().unwrap().elems.end, segd.elements());
        assert_eq!(tasks.first().unwrap().owned.start, 0);
        assert_eq!(tasks.last().unwrap().owned.end, segd.len());
        for w in tasks.windows(2) {
            assert_eq!(w[0].elems.end, w[1].elems.start);
            assert_eq!(w[0].owned.end, w[1].owned.start);
        }
        for t in &tasks {
            // Every cut is at a leaf boundary of its segment.
            if t.elems.start > 0 && t.first < segd.len() {
                let off = t.elems.start - segd.start(t.first);
                assert_eq!(off % LEAF, 0, "{t:?}");
            }
            // Owned segments start inside the task (or are empty at its end).
            for s in t.owned.clone() {
                assert!(
                    segd.start(s) >= t.elems.start && segd.start(s) <= t.elems.end,
                    "{t:?} seg {s}"
                );
            }
        }
    }

    #[test]
    fn plans_cover_and_align() {
        check(vec![], 4);
        check(vec![0, 0, 0], 4);
        check(vec![100_000], 8);
        check(vec![1; 50_000], 8);
        check(vec![3 * LEAF + 5, 0, 0, 7, 10 * LEAF, 1, 0], 5);
        let power: Vec<usize> = (1..2000).map(|i| 200_000 / (i * i)).collect();
        for k in 1..12 {
            check(power.clone(), k);
        }
    }
}
