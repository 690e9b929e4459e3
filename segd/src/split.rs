//! Splitting a [`Segd`] into chunks of nearly equal element counts, as DPH's
//! `splitSegdOnElemsD`: a segment may span several chunks.

use crate::segd::Segd;

/// One chunk of [`Segd::split_on_elements`]: the elements
/// `start_element .. start_element + elements` of the data array, and the segments they touch.
///
/// The chunk touches segments `first_segment .. first_segment + segments`; its first element is
/// at offset `first_offset` inside `first_segment` (non-zero only when that segment began in an
/// earlier chunk).
///
/// ```
/// use flatland_segd::{Chunk, Segd};
/// let c = Segd::from_lengths(vec![5]).unwrap().split_on_elements(2);
/// assert_eq!(
///     c[1],
///     Chunk { first_segment: 0, first_offset: 3, segments: 1, start_element: 3, elements: 2 }
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Chunk {
    /// The first segment the chunk touches (for a chunk touching none, the segment after those
    /// of the chunks before it).
    pub first_segment: usize,
    /// The offset of the chunk's first element inside `first_segment`.
    pub first_offset: usize,
    /// How many segments the chunk touches (0 only when it holds no elements and owns no empty
    /// segment).
    pub segments: usize,
    /// The index of the chunk's first element in the data array.
    pub start_element: usize,
    /// The number of elements in the chunk.
    pub elements: usize,
}

/// The first index in `0..n` where the monotone predicate becomes true (`n` if never).
fn partition_point(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

impl Segd {
    /// Splits the elements into `k` chunks of nearly equal size (the first `elements % k` chunks
    /// hold one element more), recording for each chunk the segments it touches; a segment may
    /// span chunks. `k = 0` is treated as `k = 1`: there is always at least one chunk.
    ///
    /// Empty segments hold no elements, so they are assigned by position: an empty segment at
    /// data position `p` belongs to the chunk whose element range contains `p`, or, when `p` is
    /// the end of the data (trailing empty segments, or every segment when there are no
    /// elements), to the last chunk. Every segment therefore lies in at least one chunk, the
    /// chunks' segment ranges follow each other in order, and consecutive ranges overlap only in
    /// a non-empty segment that spans a chunk boundary.
    ///
    /// Cost: O(k log segments) (two binary searches per chunk) in both forms; nothing is
    /// materialised, so a regular descriptor builds no per-segment array.
    ///
    /// ```
    /// use flatland_segd::{Chunk, Segd};
    /// let s = Segd::from_lengths(vec![1, 6, 0, 1]).unwrap();
    /// let c = s.split_on_elements(2);
    /// assert_eq!(c[0], Chunk { first_segment: 0, first_offset: 0, segments: 2, start_element: 0, elements: 4 });
    /// // Segment 1 spans the boundary; the empty segment 2 sits at position 7, inside chunk 1.
    /// assert_eq!(c[1], Chunk { first_segment: 1, first_offset: 3, segments: 3, start_element: 4, elements: 4 });
    /// ```
    pub fn split_on_elements(&self, k: usize) -> Vec<Chunk> {
        let k = k.max(1);
        let n = self.len();
        let total = self.elements();
        let (base, extra) = (total / k, total % k);
        let end = |s: usize| self.start(s) + self.length(s);
        (0..k)
            .map(|c| {
                let a = c * base + c.min(extra);
                let size = base + usize::from(c < extra);
                let b = a + size;
                // First segment ending after `a`, or starting at or after it (empty ones at `a`).
                let first = partition_point(n, |s| end(s) > a || self.start(s) >= a);
                let stop = if c + 1 == k {
                    n
                } else {
                    partition_point(n, |s| self.start(s) >= b)
                };
                let first_offset = if first < n {
                    a.saturating_sub(self.start(first))
                } else {
                    0
                };
                Chunk {
                    first_segment: first,
                    first_offset,
                    segments: stop.saturating_sub(first),
                    start_element: a,
                    elements: size,
                }
            })
            .collect()
    }
}
