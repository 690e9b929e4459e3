//! The partition table of a distributed nested array: which segments and element ranges each
//! rank holds. O(ranks) words, the same on every rank.

use crate::{Error, Result};
use flatland_runtime::assoc::LEAF;
use std::ops::Range;

/// Which segments and elements each rank holds.
///
/// The global nested array is cut at `ranks - 1` points in element order, so rank `r` holds the
/// elements `elements_of(r)` (consecutive ranks, consecutive ranges). A cut either falls on a
/// segment boundary or inside a segment at a multiple of [`LEAF`] elements from the segment's
/// start (a leaf boundary of the canonical association, [`flatland_runtime::assoc`]), so that a
/// segment spanning ranks is folded leaf by leaf with the bits of one process. Rank `r` holds a
/// piece of each segment in `segments_of(r)`; its first piece starts `head_offset(r)` elements
/// into its segment (0 unless the segment continues from rank `r - 1`), and its last piece may
/// continue on rank `r + 1` ([`Layout::continues_right`]). Every segment has one *home* rank,
/// the one holding its start ([`Layout::home`]): per-segment results (folds) live there.
///
/// ```
/// use flatland_mpi::Layout;
/// // Segments of 10, 0 and 9,000 elements on three ranks: the long one is cut at 4,096.
/// let l = Layout::balanced(&[10, 0, 9_000], 3);
/// l.validate().unwrap();
/// assert_eq!(l.elements(), 9_010);
/// assert_eq!(l.segments_of(1), 2..3);
/// assert_eq!(l.head_offset(1), 4_096);
/// assert_eq!(l.home(2), 0);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// `seg_lo[r]`: the first segment rank `r` holds a piece of; `seg_lo[ranks]` = segments.
    seg_lo: Vec<usize>,
    /// `elem_lo[r]`: rank `r`'s first global element; `elem_lo[ranks]` = elements.
    elem_lo: Vec<usize>,
    /// `head[r]`: where rank `r`'s first piece starts inside segment `seg_lo[r]`.
    head: Vec<usize>,
}

/// A cut of the global array: rank boundaries are cuts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Cut {
    /// The first segment after the cut (the one cut, for a cut inside a segment).
    pub(crate) seg: usize,
    /// The offset of the cut inside `seg` (0 for a cut on a segment boundary).
    pub(crate) head: usize,
    /// The global element at the cut.
    pub(crate) elem: usize,
}

/// The cut nearest to element `t` inside the segment `s` of `len` elements starting at global
/// element `start` (`start <= t < start + len`): a leaf boundary of `s`, or its end.
pub(crate) fn snap(t: usize, s: usize, start: usize, len: usize) -> Cut {
    let off = t - start;
    let down = off / LEAF * LEAF;
    let up = (down + LEAF).min(len);
    let c = if off - down <= up - off { down } else { up };
    if c == len {
        Cut {
            seg: s + 1,
            head: 0,
            elem: start + len,
        }
    } else {
        Cut {
            seg: s,
            head: c,
            elem: start + c,
        }
    }
}

/// The balanced target of cut `r` of `ranks` over `n` elements: `r * n / ranks`.
pub(crate) fn target(r: usize, n: usize, ranks: usize) -> usize {
    (r as u128 * n as u128 / ranks as u128) as usize
}

impl Layout {
    /// The layout of `ranks` ranks cut at `cuts` (`ranks - 1` of them, in rank order; a cut
    /// before its predecessor is moved onto it).
    pub(crate) fn from_cuts(cuts: &[Cut], segments: usize, elements: usize) -> Layout {
        let mut seg_lo = vec![0];
        let mut elem_lo = vec![0];
        let mut head = vec![0];
        let mut prev = Cut {
            seg: 0,
            head: 0,
            elem: 0,
        };
        for &c in cuts {
            let c = c.max(prev);
            seg_lo.push(c.seg);
            elem_lo.push(c.elem);
            head.push(c.head);
            prev = c;
        }
        seg_lo.push(segments);
        elem_lo.push(elements);
        Layout {
            seg_lo,
            elem_lo,
            head,
        }
    }

    /// The balanced layout of segments of `lengths` over `ranks` ranks: cut `r` is the leaf
    /// boundary or segment boundary nearest to element `r * elements / ranks`. Without
    /// elements, the segments are shared out by count.
    ///
    /// ```
    /// use flatland_mpi::Layout;
    /// let l = Layout::balanced(&[3, 3, 3, 3], 2);
    /// assert_eq!((l.segments_of(0), l.segments_of(1)), (0..2, 2..4));
    /// let empty = Layout::balanced(&[0, 0, 0], 3);
    /// assert_eq!(empty.segments_of(2), 2..3);
    /// ```
    pub fn balanced(lengths: &[usize], ranks: usize) -> Layout {
        assert!(ranks > 0, "a layout needs at least one rank");
        let segments = lengths.len();
        let elements: usize = lengths.iter().sum();
        let cuts: Vec<Cut> = if elements == 0 {
            (1..ranks)
                .map(|r| Cut {
                    seg: target(r, segments, ranks),
                    head: 0,
                    elem: 0,
                })
                .collect()
        } else {
            let mut ends = Vec::with_capacity(segments);
            let mut acc = 0;
            for &l in lengths {
                acc += l;
                ends.push(acc);
            }
            (1..ranks)
                .map(|r| {
                    let t = target(r, elements, ranks);
                    // The segment holding element t: the first whose end is past it.
                    let s = ends.partition_point(|&e| e <= t);
                    snap(t, s, ends[s] - lengths[s], lengths[s])
                })
                .collect()
        };
        Layout::from_cuts(&cuts, segments, elements)
    }

    /// The layout of whole segments: rank `r` holds `segments[r]` segments of `elements[r]`
    /// elements in all.
    ///
    /// ```
    /// use flatland_mpi::Layout;
    /// let l = Layout::of_whole(&[2, 0, 1], &[5, 0, 7]);
    /// assert_eq!(l.segments_of(2), 2..3);
    /// assert_eq!(l.elements_of(2), 5..12);
    /// ```
    pub fn of_whole(segments: &[usize], elements: &[usize]) -> Layout {
        assert_eq!(segments.len(), elements.len(), "one count per rank");
        let prefix = |xs: &[usize]| {
            let mut v = vec![0];
            let mut acc = 0;
            for &x in xs {
                acc += x;
                v.push(acc);
            }
            v
        };
        Layout {
            seg_lo: prefix(segments),
            elem_lo: prefix(elements),
            head: vec![0; segments.len()],
        }
    }

    /// The number of ranks.
    pub fn ranks(&self) -> usize {
        self.head.len()
    }

    /// The number of segments of the global array.
    pub fn segments(&self) -> usize {
        self.seg_lo[self.ranks()]
    }

    /// The number of elements of the global array.
    pub fn elements(&self) -> usize {
        self.elem_lo[self.ranks()]
    }

    /// The global elements rank `r` holds.
    pub fn elements_of(&self, r: usize) -> Range<usize> {
        self.elem_lo[r]..self.elem_lo[r + 1]
    }

    /// The segments rank `r` holds a piece of (possibly an empty piece of a segment that spans
    /// it), in order: its local descriptor has one segment for each.
    pub fn segments_of(&self, r: usize) -> Range<usize> {
        let end = if r + 1 < self.ranks() {
            self.seg_lo[r + 1] + usize::from(self.head[r + 1] > 0)
        } else {
            self.segments()
        };
        self.seg_lo[r]..end
    }

    /// Where rank `r`'s first piece starts inside its segment (a multiple of [`LEAF`]; 0 when
    /// rank `r` starts on a segment boundary).
    pub fn head_offset(&self, r: usize) -> usize {
        self.head[r]
    }

    /// Whether rank `r`'s first piece continues a segment from rank `r - 1`.
    pub fn continues_left(&self, r: usize) -> bool {
        self.head[r] > 0
    }

    /// Whether rank `r`'s last piece continues on rank `r + 1`.
    pub fn continues_right(&self, r: usize) -> bool {
        r + 1 < self.ranks() && self.head[r + 1] > 0
    }

    /// Whether some segment spans ranks.
    pub fn has_split(&self) -> bool {
        self.head.iter().any(|&h| h > 0)
    }

    /// The segments whose home is rank `r` (those whose start it holds), consecutive: the
    /// per-segment results of rank `r`.
    pub fn owned(&self, r: usize) -> Range<usize> {
        self.owned_start(r)..self.owned_start(r + 1)
    }

    fn owned_start(&self, r: usize) -> usize {
        if r == self.ranks() {
            self.segments()
        } else {
            self.seg_lo[r] + usize::from(self.head[r] > 0)
        }
    }

    /// The home rank of segment `s` (`s < segments()`): the rank holding its start.
    pub fn home(&self, s: usize) -> usize {
        let mut lo = 0;
        let mut hi = self.ranks();
        // The last rank whose owned range starts at or before s.
        while hi - lo > 1 {
            let mid = usize::midpoint(lo, hi);
            if self.owned_start(mid) <= s {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The rank holding global element `e` (`e < elements()`).
    pub fn rank_of_element(&self, e: usize) -> usize {
        self.elem_lo[1..].partition_point(|&x| x <= e)
    }

    /// Offsets of the per-segment results of each rank (`owned(r).start`, then the count).
    pub fn owned_offsets(&self) -> Vec<usize> {
        (0..=self.ranks()).map(|r| self.owned_start(r)).collect()
    }

    /// Checks the invariants: ranges in order, cuts inside segments on leaf boundaries.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the first broken invariant.
    pub fn validate(&self) -> Result<()> {
        let p = self.ranks();
        let bad = |d: String| Err(Error::invalid("layout", d));
        if p == 0 || self.seg_lo.len() != p + 1 || self.elem_lo.len() != p + 1 || self.head[0] != 0
        {
            return bad("malformed table".into());
        }
        for r in 0..p {
            if self.seg_lo[r] > self.seg_lo[r + 1] || self.elem_lo[r] > self.elem_lo[r + 1] {
                return bad(format!("rank {r}: ranges out of order"));
            }
            if self.head[r] % LEAF != 0 {
                return bad(format!(
                    "rank {r}: cut {} elements into a segment, not a leaf boundary",
                    self.head[r]
                ));
            }
            if self.head[r] > 0 && self.seg_lo[r] >= self.segments() {
                return bad(format!("rank {r}: cut inside a segment past the end"));
            }
        }
        Ok(())
    }

    /// The table as words, for a broadcast (`3 * ranks + 2` of them).
    pub(crate) fn to_words(&self) -> Vec<u64> {
        let w = |xs: &[usize]| xs.iter().map(|&x| x as u64).collect::<Vec<_>>();
        [w(&self.seg_lo), w(&self.elem_lo), w(&self.head)].concat()
    }

    /// The table [`Layout::to_words`] wrote, for `ranks` ranks.
    pub(crate) fn from_words(words: &[u64], ranks: usize) -> Layout {
        let v = |r: Range<usize>| words[r].iter().map(|&x| x as usize).collect::<Vec<_>>();
        Layout {
            seg_lo: v(0..ranks + 1),
            elem_lo: v(ranks + 1..2 * ranks + 2),
            head: v(2 * ranks + 2..3 * ranks + 2),
        }
    }

    /// The lengths of the pieces rank `r` holds of segments of `lengths` (the global lengths).
    pub(crate) fn pieces(&self, r: usize, lengths: &[usize], starts: &[usize]) -> Vec<usize> {
        let Range { start: lo, end: hi } = self.elements_of(r);
        self.segments_of(r)
            .map(|s| {
                let (a, b) = (starts[s], starts[s] + lengths[s]);
                b.min(hi).saturating_sub(a.max(lo))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_cover(lengths: &[usize], ranks: usize) {
        let l = Layout::balanced(lengths, ranks);
        l.validate().unwrap();
        let starts: Vec<usize> = lengths
            .iter()
            .scan(0, |a, &x| {
                let s = *a;
                *a += x;
                Some(s)
            })
            .collect();
        // Pieces add up to the segments; owned ranges partition the segments.
        let mut total = vec![0; lengths.len()];
        for r in 0..ranks {
            let ps = l.pieces(r, lengths, &starts);
            assert_eq!(ps.iter().sum::<usize>(), l.elements_of(r).len());
            for (s, p) in l.segments_of(r).zip(ps) {
                total[s] += p;
            }
            for s in l.owned(r) {
                assert_eq!(l.home(s), r);
            }
        }
        assert_eq!(total, lengths);
        assert_eq!(l.owned_offsets()[ranks], lengths.len());
    }

    #[test]
    fn balanced_layouts_cover_the_segments() {
        let big = 3 * LEAF + 17;
        for ranks in 1..6 {
            check_cover(&[], ranks);
            check_cover(&[0, 0], ranks);
            check_cover(&[5], ranks);
            check_cover(&[big], ranks);
            check_cover(&[1, big, 0, 2, big], ranks);
            check_cover(&[LEAF, LEAF, LEAF], ranks);
            check_cover(&[10 * LEAF + 1, 0], ranks);
        }
    }

    #[test]
    fn a_long_segment_is_cut_at_leaves() {
        let l = Layout::balanced(&[8 * LEAF], 4);
        assert_eq!(
            (0..4).map(|r| l.head_offset(r)).collect::<Vec<_>>(),
            [0, 2 * LEAF, 4 * LEAF, 6 * LEAF]
        );
        assert!(l.continues_right(0) && l.continues_left(3) && !l.continues_right(3));
        assert_eq!(l.owned(0), 0..1);
        assert_eq!(l.owned(2), 1..1);
        let w = l.to_words();
        assert_eq!(Layout::from_words(&w, 4), l);
        assert_eq!(l.rank_of_element(2 * LEAF), 1);
        assert_eq!(l.rank_of_element(2 * LEAF - 1), 0);
    }
}
