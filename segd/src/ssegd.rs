//! [`SSegd`]: scattered physical segments over several data blocks, and [`PSeg`], one physical
//! segment.

use std::borrow::Cow;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::segd::Segd;

/// One physical segment: `len` elements of data block `source`, starting at `start`. The gather
/// plan of [`crate::VSegd::demote`] is one `PSeg` per virtual segment.
///
/// ```
/// use flatland_segd::{PSeg, Segd, SSegd};
/// let s = SSegd::from_segd(&Segd::from_lengths(vec![2, 3]).unwrap());
/// assert_eq!(s.pseg(1), PSeg { source: 0, start: 2, len: 3 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PSeg {
    /// The data block holding the segment.
    pub source: usize,
    /// The index of the segment's first element inside the block.
    pub start: usize,
    /// The number of elements.
    pub len: usize,
}

/// A descriptor of *scattered* segments: physical segment `i` holds elements
/// `start(i) .. start(i) + length(i)` of data block `source(i)`, and block `b` has
/// `block_lens()[b]` elements. Segments may lie in any order, overlap, or leave gaps, so
/// appending and combining arrays renumbers blocks instead of copying elements.
///
/// [`SSegd::segd`] is the contiguous descriptor of the same lengths (starts = their scan): the
/// layout the segments would have if gathered into one array.
///
/// Promoting a [`Segd`] ([`SSegd::from_segd`]) stores no per-segment arrays: sources default to
/// block 0 and starts to those of the `Segd`. Clones are cheap (`Arc` inside). Equality compares
/// the described segments and blocks, not the storage.
///
/// ```
/// use flatland_segd::SSegd;
/// // Segment 0 is [3, 5) of block 1, segment 1 is [0, 2) of block 0.
/// let s = SSegd::try_new(vec![1, 0], vec![3, 0], vec![2, 2], vec![4, 5]).unwrap();
/// assert_eq!((s.len(), s.num_blocks(), s.source(0), s.start(0)), (2, 2, 1, 3));
/// assert_eq!(s.segd().start(1), 2);
/// ```
#[derive(Clone, Debug)]
pub struct SSegd {
    /// `None`: every segment is in block 0.
    sources: Option<Arc<[usize]>>,
    /// `None`: the starts are those of `segd`.
    starts: Option<Arc<[usize]>>,
    segd: Segd,
    block_lens: Arc<[usize]>,
}

/// Checks that every physical segment names an existing block and lies inside it.
fn check_physical(
    n: usize,
    source: impl Fn(usize) -> usize,
    start: impl Fn(usize) -> usize,
    length: impl Fn(usize) -> usize,
    block_lens: &[usize],
) -> Result<()> {
    for i in 0..n {
        let (src, st, len) = (source(i), start(i), length(i));
        let Some(&block_len) = block_lens.get(src) else {
            return Err(Error::SourceOutOfRange {
                segment: i,
                source: src,
                blocks: block_lens.len(),
            });
        };
        if st.checked_add(len).is_none_or(|end| end > block_len) {
            return Err(Error::SegmentOutOfBlock {
                segment: i,
                start: st,
                len,
                block: src,
                block_len,
            });
        }
    }
    Ok(())
}

impl SSegd {
    /// Builds a scattered descriptor, checking every invariant. Cost: O(segments + blocks).
    ///
    /// # Errors
    /// The first violated invariant: [`Error::FieldLength`] if `sources` or `starts` has a
    /// different length than `lengths`; then, segment by segment, [`Error::SourceOutOfRange`]
    /// or [`Error::SegmentOutOfBlock`]; [`Error::Overflow`] if the lengths sum past
    /// `usize::MAX`.
    ///
    /// ```
    /// use flatland_segd::{Error, SSegd};
    /// let e = SSegd::try_new(vec![0, 2], vec![0, 0], vec![1, 1], vec![3, 3]).unwrap_err();
    /// assert_eq!(e, Error::SourceOutOfRange { segment: 1, source: 2, blocks: 2 });
    /// ```
    pub fn try_new(
        sources: Vec<usize>,
        starts: Vec<usize>,
        lengths: Vec<usize>,
        block_lens: Vec<usize>,
    ) -> Result<SSegd> {
        SSegd::checked(Some(sources), starts, lengths, block_lens)
    }

    /// Segments at any starts inside ONE data block of `block_len` elements: [`SSegd::try_new`]
    /// with every source 0, without storing the sources. Cost: O(segments).
    ///
    /// # Errors
    /// As [`SSegd::try_new`]: [`Error::FieldLength`] when `starts` and `lengths` differ in
    /// length, [`Error::SegmentOutOfBlock`] for the first segment past the block,
    /// [`Error::Overflow`] when the lengths overflow.
    ///
    /// ```
    /// use flatland_segd::{Error, SSegd};
    /// let s = SSegd::try_in_block(vec![3, 0], vec![2, 3], 5).unwrap();
    /// assert_eq!((s.source(1), s.start(0), s.num_blocks()), (0, 3, 1));
    /// assert_eq!(s, SSegd::new(vec![0, 0], vec![3, 0], vec![2, 3], vec![5]));
    /// assert!(matches!(
    ///     SSegd::try_in_block(vec![4], vec![2], 5),
    ///     Err(Error::SegmentOutOfBlock { segment: 0, .. })
    /// ));
    /// ```
    pub fn try_in_block(
        starts: Vec<usize>,
        lengths: Vec<usize>,
        block_len: usize,
    ) -> Result<SSegd> {
        SSegd::checked(None, starts, lengths, vec![block_len])
    }

    /// [`SSegd::try_new`]'s checks and construction; `None` sources are all 0 and not stored.
    fn checked(
        sources: Option<Vec<usize>>,
        starts: Vec<usize>,
        lengths: Vec<usize>,
        block_lens: Vec<usize>,
    ) -> Result<SSegd> {
        let n = lengths.len();
        let stored = sources.as_ref().map_or(n, Vec::len);
        for (field, found) in [("sources", stored), ("starts", starts.len())] {
            if found != n {
                return Err(Error::FieldLength {
                    field,
                    expected: n,
                    found,
                });
            }
        }
        check_physical(
            n,
            |i| sources.as_ref().map_or(0, |s| s[i]),
            |i| starts[i],
            |i| lengths[i],
            &block_lens,
        )?;
        let segd = Segd::scan_lengths("SSegd", lengths)?;
        Ok(SSegd {
            sources: sources.map(Into::into),
            starts: Some(starts.into()),
            segd,
            block_lens: block_lens.into(),
        })
    }

    /// Like [`SSegd::try_new`], for input known to be valid. Cost: O(segments + blocks).
    ///
    /// # Panics
    /// With the message of the error [`SSegd::try_new`] would return.
    ///
    /// ```
    /// use flatland_segd::SSegd;
    /// let s = SSegd::new(vec![0, 0], vec![2, 0], vec![1, 2], vec![3]);
    /// assert_eq!(s.start(0), 2);
    /// ```
    pub fn new(
        sources: Vec<usize>,
        starts: Vec<usize>,
        lengths: Vec<usize>,
        block_lens: Vec<usize>,
    ) -> SSegd {
        SSegd::try_new(sources, starts, lengths, block_lens).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Builds a scattered descriptor without checking it. Cost: O(segments) (the scan of the
    /// lengths for [`SSegd::segd`]).
    ///
    /// # Safety
    /// The arguments must satisfy every invariant [`SSegd::try_new`] checks: `sources`,
    /// `starts` and `lengths` have equal length, every source is below `block_lens.len()`,
    /// `start + length <= block_lens[source]` for every segment, and the lengths sum to at most
    /// `usize::MAX`. Consumers index data blocks without bounds checks on the strength of these
    /// invariants, so violating them may cause out-of-bounds memory access.
    ///
    /// ```
    /// use flatland_segd::SSegd;
    /// // SAFETY: both segments lie inside their blocks.
    /// let s = unsafe { SSegd::new_unchecked(vec![1, 0], vec![0, 1], vec![2, 1], vec![2, 2]) };
    /// assert!(s.validate().is_ok());
    /// ```
    pub unsafe fn new_unchecked(
        sources: Vec<usize>,
        starts: Vec<usize>,
        lengths: Vec<usize>,
        block_lens: Vec<usize>,
    ) -> SSegd {
        let mut scan = Vec::with_capacity(lengths.len());
        let mut sum = 0usize;
        for &l in &lengths {
            scan.push(sum);
            sum = sum.wrapping_add(l);
        }
        // SAFETY: the caller guarantees the lengths sum without overflow, so `scan` is their
        // exclusive scan and `sum` their total.
        let segd = unsafe { Segd::new_unchecked(lengths, scan, sum) };
        SSegd {
            sources: Some(sources.into()),
            starts: Some(starts.into()),
            segd,
            block_lens: block_lens.into(),
        }
    }

    /// Promotes a contiguous descriptor: one data block of `segd.elements()` elements, every
    /// segment in it at its own start. Cost: O(1) (no per-segment array is built).
    ///
    /// ```
    /// use flatland_segd::{Segd, SSegd};
    /// let s = SSegd::from_segd(&Segd::regular(3, 2));
    /// assert_eq!((s.num_blocks(), s.block_lens(), s.start(2)), (1, &[6][..], 4));
    /// ```
    pub fn from_segd(segd: &Segd) -> SSegd {
        SSegd {
            sources: None,
            starts: None,
            segd: segd.clone(),
            block_lens: Arc::from([segd.elements()]),
        }
    }

    /// The contiguous descriptor of the segments when they are laid out contiguously: one data
    /// block holding exactly the segments, each at its own start (the exclusive scan of the
    /// lengths), so the block can be read as a flat array described by the returned [`Segd`].
    /// `None` otherwise. Cost: O(1) for a promoted descriptor ([`SSegd::from_segd`]), O(segments)
    /// when per-segment sources and starts are stored.
    ///
    /// ```
    /// use flatland_segd::{Segd, SSegd};
    /// let segd = Segd::from_lengths(vec![2, 0, 3]).unwrap();
    /// assert_eq!(SSegd::from_segd(&segd).as_contiguous().map(Segd::len), Some(3));
    /// // The same lengths in a different place are not contiguous.
    /// let moved = SSegd::new(vec![0, 0, 0], vec![1, 3, 3], vec![2, 0, 3], vec![6]);
    /// assert!(moved.as_contiguous().is_none());
    /// // Stored sources and starts that happen to be contiguous are recognised.
    /// let stored = SSegd::new(vec![0, 0, 0], vec![0, 2, 2], vec![2, 0, 3], vec![5]);
    /// assert!(stored.as_contiguous().is_some());
    /// ```
    #[inline]
    pub fn as_contiguous(&self) -> Option<&Segd> {
        if *self.block_lens != [self.segd.elements()] {
            return None;
        }
        let sources_ok = self
            .sources
            .as_ref()
            .is_none_or(|s| s.iter().all(|&b| b == 0));
        let starts_ok = match &self.starts {
            None => true,
            Some(st) => self
                .segd
                .iter()
                .zip(st.iter())
                .all(|((scan, _), &start)| scan == start),
        };
        (sources_ok && starts_ok).then_some(&self.segd)
    }

    /// Internal constructor from parts known to be valid.
    pub(crate) fn from_parts(
        sources: Vec<usize>,
        starts: Vec<usize>,
        segd: Segd,
        block_lens: Arc<[usize]>,
    ) -> SSegd {
        SSegd {
            sources: Some(sources.into()),
            starts: Some(starts.into()),
            segd,
            block_lens,
        }
    }

    /// The number of physical segments. Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::{Segd, SSegd};
    /// assert_eq!(SSegd::from_segd(&Segd::regular(4, 1)).len(), 4);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.segd.len()
    }

    /// Whether there are no physical segments. Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::{Segd, SSegd};
    /// assert!(SSegd::from_segd(&Segd::regular(0, 1)).is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The data block of segment `i`. Cost: O(1).
    ///
    /// # Panics
    /// If `i >= self.len()`.
    ///
    /// ```
    /// use flatland_segd::SSegd;
    /// assert_eq!(SSegd::new(vec![1], vec![0], vec![1], vec![0, 1]).source(0), 1);
    /// ```
    #[inline]
    pub fn source(&self, i: usize) -> usize {
        if let Some(s) = &self.sources {
            return s[i];
        }
        assert!(
            i < self.len(),
            "segment {i} out of range for {} segments",
            self.len()
        );
        0
    }

    /// The start of segment `i` inside its data block. Cost: O(1).
    ///
    /// # Panics
    /// If `i >= self.len()`.
    ///
    /// ```
    /// use flatland_segd::SSegd;
    /// assert_eq!(SSegd::new(vec![0], vec![2], vec![1], vec![3]).start(0), 2);
    /// ```
    #[inline]
    pub fn start(&self, i: usize) -> usize {
        match &self.starts {
            Some(s) => s[i],
            None => self.segd.start(i),
        }
    }

    /// The length of segment `i`. Cost: O(1).
    ///
    /// # Panics
    /// If `i >= self.len()`.
    ///
    /// ```
    /// use flatland_segd::SSegd;
    /// assert_eq!(SSegd::new(vec![0], vec![2], vec![1], vec![3]).length(0), 1);
    /// ```
    #[inline]
    pub fn length(&self, i: usize) -> usize {
        self.segd.length(i)
    }

    /// Segment `i` as a [`PSeg`]. Cost: O(1).
    ///
    /// # Panics
    /// If `i >= self.len()`.
    ///
    /// ```
    /// use flatland_segd::{PSeg, SSegd};
    /// let s = SSegd::new(vec![0], vec![2], vec![1], vec![3]);
    /// assert_eq!(s.pseg(0), PSeg { source: 0, start: 2, len: 1 });
    /// ```
    #[inline]
    pub fn pseg(&self, i: usize) -> PSeg {
        PSeg {
            source: self.source(i),
            start: self.start(i),
            len: self.length(i),
        }
    }

    /// Every segment as a [`PSeg`], in order. Cost: O(1) per item.
    ///
    /// ```
    /// use flatland_segd::{Segd, SSegd};
    /// let s = SSegd::from_segd(&Segd::regular(2, 3));
    /// assert_eq!(s.iter().map(|p| p.start).collect::<Vec<_>>(), vec![0, 3]);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = PSeg> + DoubleEndedIterator + '_ {
        (0..self.len()).map(move |i| self.pseg(i))
    }

    /// The sources, borrowed when stored, built (O(segments)) when implicit.
    ///
    /// ```
    /// use flatland_segd::{Segd, SSegd};
    /// assert_eq!(&*SSegd::from_segd(&Segd::regular(2, 1)).sources(), &[0, 0]);
    /// ```
    pub fn sources(&self) -> Cow<'_, [usize]> {
        match &self.sources {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(vec![0; self.len()]),
        }
    }

    /// The starts inside the blocks, borrowed when stored, otherwise those of
    /// [`SSegd::segd`].
    ///
    /// ```
    /// use flatland_segd::{Segd, SSegd};
    /// assert_eq!(&*SSegd::from_segd(&Segd::regular(2, 4)).starts(), &[0, 4]);
    /// ```
    pub fn starts(&self) -> Cow<'_, [usize]> {
        match &self.starts {
            Some(s) => Cow::Borrowed(s),
            None => self.segd.starts(),
        }
    }

    /// The contiguous descriptor of the segment lengths (starts = their exclusive scan); its
    /// element count is the number of physical elements. Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::SSegd;
    /// let s = SSegd::new(vec![0, 0], vec![3, 0], vec![2, 3], vec![5]);
    /// assert_eq!(s.segd().starts().into_owned(), vec![0, 2]);
    /// assert_eq!(s.segd().elements(), 5);
    /// ```
    #[inline]
    pub fn segd(&self) -> &Segd {
        &self.segd
    }

    /// The length of every data block. Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::SSegd;
    /// assert_eq!(SSegd::new(vec![1], vec![0], vec![1], vec![0, 1]).block_lens(), &[0, 1]);
    /// ```
    #[inline]
    pub fn block_lens(&self) -> &[usize] {
        &self.block_lens
    }

    /// The number of data blocks. Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::SSegd;
    /// assert_eq!(SSegd::new(vec![], vec![], vec![], vec![1, 2, 3]).num_blocks(), 3);
    /// ```
    #[inline]
    pub fn num_blocks(&self) -> usize {
        self.block_lens.len()
    }

    /// The segments of `self` followed by those of `other`, whose blocks are renumbered after
    /// `self`'s (other's block `b` becomes `self.num_blocks() + b`). No element is copied.
    /// Cost: O(segments + blocks) of both; to append many, use [`SSegd::concat`], which is
    /// linear in the total where repeated `append` is quadratic.
    ///
    /// # Errors
    /// [`Error::Overflow`] if the total physical length exceeds `usize::MAX`.
    ///
    /// ```
    /// use flatland_segd::{Segd, SSegd};
    /// let a = SSegd::from_segd(&Segd::from_lengths(vec![2]).unwrap());
    /// let b = SSegd::from_segd(&Segd::from_lengths(vec![1, 1]).unwrap());
    /// let c = a.append(&b).unwrap();
    /// assert_eq!(&*c.sources(), &[0, 1, 1]);
    /// assert_eq!(&*c.starts(), &[0, 0, 1]);
    /// assert_eq!(c.block_lens(), &[2, 2]);
    /// ```
    pub fn append(&self, other: &SSegd) -> Result<SSegd> {
        SSegd::concat_in("append", [self, other])
    }

    /// The segments of every part in order, each part's blocks renumbered after those of the
    /// parts before it (`append` of them all, left to right). No element is copied. Cost:
    /// O(total segments + total blocks). No parts give the descriptor with no segments and no
    /// blocks.
    ///
    /// # Errors
    /// [`Error::Overflow`] if the total physical length exceeds `usize::MAX`.
    ///
    /// ```
    /// use flatland_segd::{Segd, SSegd};
    /// let a = SSegd::from_segd(&Segd::from_lengths(vec![2]).unwrap());
    /// let c = SSegd::concat([&a, &a, &a]).unwrap();
    /// assert_eq!(&*c.sources(), &[0, 1, 2]);
    /// assert_eq!(c, a.append(&a).unwrap().append(&a).unwrap());
    /// assert_eq!(SSegd::concat([]).unwrap().num_blocks(), 0);
    /// ```
    pub fn concat<'a>(parts: impl IntoIterator<Item = &'a SSegd>) -> Result<SSegd> {
        SSegd::concat_in("concat", parts)
    }

    /// [`SSegd::concat`], reporting overflow as an error of `op`.
    pub(crate) fn concat_in<'a>(
        op: &'static str,
        parts: impl IntoIterator<Item = &'a SSegd>,
    ) -> Result<SSegd> {
        let (mut sources, mut starts, mut lengths, mut block_lens) =
            (vec![], vec![], vec![], vec![]);
        for part in parts {
            let base = block_lens.len();
            sources.extend(part.iter().map(|p| p.source + base));
            starts.extend(part.starts().iter().copied());
            lengths.extend(part.segd.iter().map(|(_, l)| l));
            block_lens.extend_from_slice(&part.block_lens);
        }
        let segd = Segd::scan_lengths(op, lengths)?;
        Ok(SSegd::from_parts(sources, starts, segd, block_lens.into()))
    }

    /// The physical segments `indices` (in that order) with their blocks renumbered by
    /// `block_map` (old block `b` becomes `block_map[b]`) over blocks of lengths `block_lens`.
    /// The caller guarantees the result is valid. Cost: O(indices).
    pub(crate) fn select(
        &self,
        indices: impl Iterator<Item = usize> + Clone,
        block_map: Option<&[usize]>,
        block_lens: Arc<[usize]>,
    ) -> SSegd {
        let src = |i: usize| block_map.map_or(self.source(i), |m| m[self.source(i)]);
        let sources = indices.clone().map(src).collect();
        let starts = indices.clone().map(|i| self.start(i)).collect();
        let lengths = indices.map(|i| self.length(i)).collect();
        let segd = Segd::from_lengths(lengths)
            .expect("a subset of the physical segments cannot overflow a sum that did not");
        SSegd::from_parts(sources, starts, segd, block_lens)
    }

    /// Which blocks hold at least one of the segments `keep` selects (all when `None`). Cost:
    /// O(segments + blocks); O(blocks) when all are selected and all lie in block 0 (a promoted
    /// `Segd`).
    pub(crate) fn used_blocks(&self, keep: Option<&[bool]>) -> Vec<bool> {
        let mut used = vec![false; self.num_blocks()];
        if self.sources.is_none() && keep.is_none() {
            if !self.is_empty() {
                used[0] = true;
            }
            return used;
        }
        for i in (0..self.len()).filter(|&i| keep.is_none_or(|k| k[i])) {
            used[self.source(i)] = true;
        }
        used
    }

    /// Checks every invariant [`SSegd::try_new`] checks on this descriptor (useful after
    /// [`SSegd::new_unchecked`]). Cost: O(segments + blocks); O(1) for a promoted regular
    /// [`Segd`].
    ///
    /// # Errors
    /// The first violated invariant, as [`SSegd::try_new`] reports it.
    ///
    /// ```
    /// use flatland_segd::{Error, SSegd};
    /// // SAFETY: not used for indexing; validate() must reject the segment past its block.
    /// let s = unsafe { SSegd::new_unchecked(vec![0], vec![2], vec![2], vec![3]) };
    /// assert_eq!(
    ///     s.validate(),
    ///     Err(Error::SegmentOutOfBlock { segment: 0, start: 2, len: 2, block: 0, block_len: 3 })
    /// );
    /// ```
    pub fn validate(&self) -> Result<()> {
        let n = self.segd.len();
        // A promoted Segd: its segments tile block 0, which is long enough. O(1) for regular.
        if self.sources.is_none()
            && self.starts.is_none()
            && self
                .block_lens
                .first()
                .is_some_and(|&b| b >= self.segd.elements())
            && self.block_lens.len() == 1
        {
            return self.segd.validate();
        }
        for (field, stored) in [("sources", &self.sources), ("starts", &self.starts)] {
            if let Some(s) = stored
                && s.len() != n
            {
                return Err(Error::FieldLength {
                    field,
                    expected: n,
                    found: s.len(),
                });
            }
        }
        check_physical(
            n,
            |i| self.source(i),
            |i| self.start(i),
            |i| self.length(i),
            &self.block_lens,
        )?;
        self.segd.validate()
    }

    /// The number of `usize` entries stored in per-segment and per-block arrays, a structural
    /// measure of descriptor size. Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::{Segd, SSegd};
    /// assert_eq!(SSegd::from_segd(&Segd::regular(1000, 2)).stored_entries(), 1);
    /// ```
    pub fn stored_entries(&self) -> usize {
        self.sources.as_ref().map_or(0, |s| s.len())
            + self.starts.as_ref().map_or(0, |s| s.len())
            + self.segd.stored_entries()
            + self.block_lens.len()
    }
}

impl PartialEq for SSegd {
    /// Equal when they describe the same segments over blocks of the same lengths. Cost:
    /// O(segments + blocks).
    fn eq(&self, other: &SSegd) -> bool {
        self.block_lens == other.block_lens
            && self.len() == other.len()
            && self.iter().eq(other.iter())
    }
}

impl Eq for SSegd {}

impl From<&Segd> for SSegd {
    /// Same as [`SSegd::from_segd`].
    fn from(segd: &Segd) -> SSegd {
        SSegd::from_segd(segd)
    }
}
