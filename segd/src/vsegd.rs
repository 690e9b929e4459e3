//! [`VSegd`]: virtual segments, many of which may share one physical segment, and the
//! descriptor operations that never touch elements.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::segd::Segd;
use crate::ssegd::{PSeg, SSegd};

/// A descriptor of *virtual* segments: virtual segment `i` is physical segment `vsegid(i)` of
/// an [`SSegd`], and many virtual segments may share one physical segment, so replication
/// copies no element (`vsegs` / `pstart` / `plen` of DPH).
///
/// The vsegids have three storage forms, all behind the same accessors: *manifest* (`0..p`,
/// not stored, [`VSegd::is_manifest`]), *cyclic* (`0..p` repeated, not stored; what
/// [`VSegd::replicate`] makes of a manifest descriptor) and explicit. The virtual element count
/// is kept as a `u64` (it may exceed `u32` and `usize`); every operation checks it for overflow.
///
/// Reachability (every physical segment named by some vsegid, every block holding some
/// reachable segment) is not kept after each operation: [`VSegd::pack`] and
/// [`VSegd::extract`] stay O(virtual segments). [`VSegd::is_culled`] reports it,
/// [`VSegd::cull`] restores it, and [`VSegd::cull_if_sparse`] does so only when
/// [`VSegd::should_cull`].
///
/// Clones are cheap (`Arc` inside); equality compares the vsegids and the physical segments.
///
/// ```
/// use flatland_segd::{Segd, VSegd};
/// // [[1, 2, 3], [1, 2, 3], [1, 2, 3]]: three virtual segments share one physical segment.
/// let v = VSegd::try_new(vec![0, 0, 0], (&Segd::from_lengths(vec![3]).unwrap()).into()).unwrap();
/// assert_eq!(v.lengths(), vec![3, 3, 3]);
/// assert_eq!((v.virtual_elements(), v.physical_elements()), (9, 3));
/// ```
#[derive(Clone, Debug)]
pub struct VSegd {
    ids: VSegIds,
    ssegd: SSegd,
    virtual_elements: u64,
}

#[derive(Clone, Debug)]
enum VSegIds {
    /// `0..p`.
    Manifest,
    /// `0..p` repeated `times` (at least 2) times.
    Cyclic {
        times: usize,
    },
    Explicit(Arc<[usize]>),
}

/// The result of [`VSegd::cull`]: the culled descriptor, and which old data block each new
/// block is, so the caller can drop unreachable blocks.
///
/// ```
/// use flatland_segd::{SSegd, VSegd};
/// let s = SSegd::new(vec![0, 1], vec![0, 0], vec![1, 1], vec![1, 1]);
/// let c = VSegd::new(vec![1, 1], s).cull();
/// assert_eq!(c.blocks, vec![1]);
/// assert_eq!(c.vsegd.ssegd().block_lens(), &[1]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Culled {
    /// The descriptor, with only reachable physical segments and blocks.
    pub vsegd: VSegd,
    /// New block `i` is old block `blocks[i]`.
    pub blocks: Vec<usize>,
}

fn overflow(
    op: &'static str,
    quantity: &'static str,
    limit: &'static str,
    position: Option<usize>,
) -> Error {
    Error::Overflow {
        op,
        quantity,
        limit,
        position,
    }
}

/// The sum of the lengths of the physical segments named by `ids`, checked against `u64`.
fn virtual_sum(op: &'static str, ssegd: &SSegd, ids: impl Iterator<Item = usize>) -> Result<u64> {
    let mut sum = 0u64;
    for (v, id) in ids.enumerate() {
        sum = sum.checked_add(ssegd.length(id) as u64).ok_or(overflow(
            op,
            "virtual element count",
            "u64",
            Some(v),
        ))?;
    }
    Ok(sum)
}

/// The vsegids form for `0..p` repeated `times` times.
fn cyclic(times: usize) -> VSegIds {
    match times {
        0 => VSegIds::Explicit(Arc::from([])),
        1 => VSegIds::Manifest,
        _ => VSegIds::Cyclic { times },
    }
}

impl VSegd {
    fn from_ids(ids: Vec<usize>, ssegd: SSegd, virtual_elements: u64) -> VSegd {
        let ids = if ids.len() == ssegd.len() && ids.iter().enumerate().all(|(i, &v)| i == v) {
            VSegIds::Manifest
        } else {
            VSegIds::Explicit(ids.into())
        };
        VSegd {
            ids,
            ssegd,
            virtual_elements,
        }
    }

    /// Builds a virtual descriptor, checking every invariant; vsegids equal to `0..p` are
    /// recognised as manifest and not stored. Cost: O(virtual segments).
    ///
    /// # Errors
    /// [`Error::VSegIdOutOfRange`] at the first vsegid that names no physical segment;
    /// [`Error::Overflow`] if the virtual element count exceeds `u64::MAX`.
    ///
    /// ```
    /// use flatland_segd::{Error, Segd, SSegd, VSegd};
    /// let s = SSegd::from_segd(&Segd::from_lengths(vec![2, 1]).unwrap());
    /// assert!(VSegd::try_new(vec![0, 0, 1, 1, 1], s.clone()).is_ok());
    /// assert_eq!(
    ///     VSegd::try_new(vec![0, 2], s).unwrap_err(),
    ///     Error::VSegIdOutOfRange { vsegment: 1, vsegid: 2, physical: 2 }
    /// );
    /// ```
    pub fn try_new(vsegids: Vec<usize>, ssegd: SSegd) -> Result<VSegd> {
        let p = ssegd.len();
        if let Some((v, &id)) = vsegids.iter().enumerate().find(|&(_, &id)| id >= p) {
            return Err(Error::VSegIdOutOfRange {
                vsegment: v,
                vsegid: id,
                physical: p,
            });
        }
        let total = virtual_sum("VSegd", &ssegd, vsegids.iter().copied())?;
        Ok(VSegd::from_ids(vsegids, ssegd, total))
    }

    /// Like [`VSegd::try_new`], for input known to be valid. Cost: O(virtual segments).
    ///
    /// # Panics
    /// With the message of the error [`VSegd::try_new`] would return.
    ///
    /// ```
    /// use flatland_segd::{Segd, SSegd, VSegd};
    /// let v = VSegd::new(vec![1, 0], SSegd::from_segd(&Segd::regular(2, 3)));
    /// assert_eq!(v.vsegid(0), 1);
    /// ```
    pub fn new(vsegids: Vec<usize>, ssegd: SSegd) -> VSegd {
        VSegd::try_new(vsegids, ssegd).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Builds a virtual descriptor without checking it. Cost: O(virtual segments) (the virtual
    /// element count is summed once and kept).
    ///
    /// # Safety
    /// Every vsegid must be below `ssegd.len()`, and the lengths of the named physical segments
    /// must sum to at most `u64::MAX`. Consumers index physical segments without bounds checks
    /// on the strength of these invariants, so violating them may cause out-of-bounds memory
    /// access.
    ///
    /// ```
    /// use flatland_segd::{Segd, SSegd, VSegd};
    /// let s = SSegd::from_segd(&Segd::regular(2, 3));
    /// // SAFETY: both vsegids name one of the 2 physical segments.
    /// let v = unsafe { VSegd::new_unchecked(vec![1, 1], s) };
    /// assert!(v.validate().is_ok());
    /// ```
    pub unsafe fn new_unchecked(vsegids: Vec<usize>, ssegd: SSegd) -> VSegd {
        let p = ssegd.len();
        // Out-of-range ids (a broken contract) count as length 0 here; validate() reports them.
        let total = vsegids.iter().fold(0u64, |acc, &id| {
            acc.wrapping_add(if id < p { ssegd.length(id) as u64 } else { 0 })
        });
        VSegd::from_ids(vsegids, ssegd, total)
    }

    /// The manifest descriptor over `ssegd`: virtual segment `i` is physical segment `i`; no
    /// vsegid is stored. Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::{SSegd, VSegd};
    /// let v = VSegd::manifest(SSegd::new(vec![0], vec![1], vec![2], vec![3]));
    /// assert!(v.is_manifest());
    /// assert_eq!(v.vsegid(0), 0);
    /// ```
    pub fn manifest(ssegd: SSegd) -> VSegd {
        let virtual_elements = ssegd.segd().elements() as u64;
        VSegd {
            ids: VSegIds::Manifest,
            ssegd,
            virtual_elements,
        }
    }

    /// Promotes a contiguous descriptor: one data block, manifest vsegids. Cost: O(1), nothing
    /// materialised (a regular `Segd` stays regular inside).
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::regular(1_000_000, 4));
    /// assert_eq!((v.len(), v.virtual_elements()), (1_000_000, 4_000_000));
    /// assert_eq!(v.stored_entries(), 1);
    /// ```
    pub fn from_segd(segd: &Segd) -> VSegd {
        VSegd::manifest(SSegd::from_segd(segd))
    }

    /// The number of virtual segments. Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// assert_eq!(VSegd::from_segd(&Segd::regular(3, 1)).replicate(2).unwrap().len(), 6);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        match &self.ids {
            VSegIds::Manifest => self.ssegd.len(),
            // Fits: checked when the cyclic form was made.
            VSegIds::Cyclic { times } => self.ssegd.len() * times,
            VSegIds::Explicit(ids) => ids.len(),
        }
    }

    /// Whether there are no virtual segments. Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// assert!(VSegd::from_segd(&Segd::regular(3, 1)).replicate(0).unwrap().is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the vsegids are `0..p` (each physical segment once, in order). Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::regular(3, 1));
    /// assert!(v.is_manifest());
    /// assert!(!v.replicate(2).unwrap().is_manifest());
    /// ```
    #[inline]
    pub fn is_manifest(&self) -> bool {
        matches!(self.ids, VSegIds::Manifest)
    }

    /// The contiguous descriptor of the virtual segments when they are manifest and laid out
    /// contiguously in one block ([`SSegd::as_contiguous`]): the block is then the flat array of
    /// the virtual segments, with no copy. `None` otherwise. Cost: O(1) for a promoted
    /// descriptor ([`VSegd::from_segd`]).
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::from_lengths(vec![1, 2]).unwrap());
    /// assert_eq!(v.as_contiguous().map(Segd::elements), Some(3));
    /// assert!(v.replicate(2).unwrap().as_contiguous().is_none());
    /// ```
    #[inline]
    pub fn as_contiguous(&self) -> Option<&Segd> {
        if self.is_manifest() {
            self.ssegd().as_contiguous()
        } else {
            None
        }
    }

    /// The physical segment of virtual segment `i`. Cost: O(1).
    ///
    /// # Panics
    /// If `i >= self.len()`.
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::regular(3, 1)).replicate(2).unwrap();
    /// assert_eq!(v.vsegid(4), 1);
    /// ```
    #[inline]
    pub fn vsegid(&self, i: usize) -> usize {
        if let VSegIds::Explicit(ids) = &self.ids {
            return ids[i];
        }
        let n = self.len();
        assert!(i < n, "virtual segment {i} out of range for {n} segments");
        // Manifest: i < p, so i % p = i; cyclic: p > 0 since i < p * times.
        i % self.ssegd.len()
    }

    /// All vsegids, borrowed when stored, built (O(virtual segments)) for the manifest and
    /// cyclic forms.
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::regular(2, 1)).replicate(2).unwrap();
    /// assert_eq!(&*v.vsegids(), &[0, 1, 0, 1]);
    /// ```
    pub fn vsegids(&self) -> Cow<'_, [usize]> {
        match &self.ids {
            VSegIds::Explicit(ids) => Cow::Borrowed(ids),
            _ => Cow::Owned(self.ids().collect()),
        }
    }

    /// The vsegids in order, without materialising them.
    fn ids(&self) -> impl ExactSizeIterator<Item = usize> + Clone + '_ {
        (0..self.len()).map(move |i| self.vsegid(i))
    }

    /// The physical segments. Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// assert_eq!(VSegd::from_segd(&Segd::regular(2, 1)).ssegd().len(), 2);
    /// ```
    #[inline]
    pub fn ssegd(&self) -> &SSegd {
        &self.ssegd
    }

    /// The physical segment holding virtual segment `i`. Cost: O(1).
    ///
    /// # Panics
    /// If `i >= self.len()`.
    ///
    /// ```
    /// use flatland_segd::{PSeg, Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::from_lengths(vec![2, 3]).unwrap());
    /// assert_eq!(v.physical(1), PSeg { source: 0, start: 2, len: 3 });
    /// ```
    #[inline]
    pub fn physical(&self, i: usize) -> PSeg {
        self.ssegd.pseg(self.vsegid(i))
    }

    /// The physical segment of every virtual segment, in order. Cost: O(1) per item.
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::from_lengths(vec![2]).unwrap()).replicate(3).unwrap();
    /// assert!(v.iter().all(|p| p.start == 0 && p.len == 2));
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = PSeg> + '_ {
        self.ids().map(|id| self.ssegd.pseg(id))
    }

    /// The length of virtual segment `i`. Cost: O(1).
    ///
    /// # Panics
    /// If `i >= self.len()`.
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// assert_eq!(VSegd::from_segd(&Segd::from_lengths(vec![2, 5]).unwrap()).length(1), 5);
    /// ```
    #[inline]
    pub fn length(&self, i: usize) -> usize {
        self.ssegd.length(self.vsegid(i))
    }

    /// Whether `self` and `other` have as many virtual segments, of the same lengths (the check
    /// before zipping two nested arrays). Cost: O(1) for manifest descriptors that share their
    /// lengths (clones of one descriptor), one slice comparison for other manifest ones,
    /// O(virtual segments) otherwise.
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let a = VSegd::from_segd(&Segd::from_lengths(vec![2, 0, 3]).unwrap());
    /// let b = VSegd::from_segd(&Segd::from_lengths(vec![2, 0, 3]).unwrap());
    /// assert!(a.same_lengths(&b));
    /// let one = VSegd::from_segd(&Segd::from_lengths(vec![2]).unwrap());
    /// assert!(one.replicate(2).unwrap().same_lengths(&VSegd::from_segd(&Segd::regular(2, 2))));
    /// assert!(!a.same_lengths(&one));
    /// ```
    pub fn same_lengths(&self, other: &VSegd) -> bool {
        if self.len() != other.len() {
            return false;
        }
        if self.is_manifest() && other.is_manifest() {
            // Manifest: virtual segment i is physical segment i.
            return self.ssegd.segd() == other.ssegd.segd();
        }
        (self.ids().zip(other.ids())).all(|(a, b)| self.ssegd.length(a) == other.ssegd.length(b))
    }

    /// The length of every virtual segment. Cost: O(virtual segments).
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::from_lengths(vec![2, 1]).unwrap());
    /// assert_eq!(v.replicate_s(&[2, 3]).unwrap().lengths(), vec![2, 2, 1, 1, 1]);
    /// ```
    pub fn lengths(&self) -> Vec<usize> {
        self.ids().map(|id| self.ssegd.length(id)).collect()
    }

    /// The number of virtual elements (the sum of the virtual lengths), as a `u64`: it may
    /// exceed `u32::MAX` and `usize::MAX`. Cost: O(1) (kept, never materialised).
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::regular(1, 1 << 20)).replicate(1 << 20).unwrap();
    /// assert_eq!(v.virtual_elements(), 1 << 40);
    /// ```
    pub fn virtual_elements(&self) -> u64 {
        self.virtual_elements
    }

    /// The number of virtual elements as a `usize`, `None` when it does not fit. Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::regular(2, 3));
    /// assert_eq!(v.virtual_elements_usize(), Some(6));
    /// ```
    pub fn virtual_elements_usize(&self) -> Option<usize> {
        usize::try_from(self.virtual_elements).ok()
    }

    /// The number of physical elements: the sum of the lengths of all physical segments,
    /// reachable or not. Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::regular(2, 3)).replicate(5).unwrap();
    /// assert_eq!(v.physical_elements(), 6);
    /// ```
    #[inline]
    pub fn physical_elements(&self) -> usize {
        self.ssegd.segd().elements()
    }

    /// The whole array `n` times: `[a, b]` becomes `[a, b, a, b, ...]`. No element is copied.
    /// Cost: O(1) for a manifest or cyclic descriptor (the result is cyclic, nothing stored),
    /// O(n * virtual segments) for explicit vsegids.
    ///
    /// # Errors
    /// [`Error::Overflow`] if the virtual segment count exceeds `usize::MAX` or the virtual
    /// element count `u64::MAX`.
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::from_lengths(vec![2, 1]).unwrap()).replicate(2).unwrap();
    /// assert_eq!(&*v.vsegids(), &[0, 1, 0, 1]);
    /// assert_eq!(v.virtual_elements(), 6);
    /// ```
    pub fn replicate(&self, n: usize) -> Result<VSegd> {
        let op = "replicate";
        self.len()
            .checked_mul(n)
            .ok_or(overflow(op, "virtual segment count", "usize", None))?;
        let virtual_elements = self.virtual_elements.checked_mul(n as u64).ok_or(overflow(
            op,
            "virtual element count",
            "u64",
            None,
        ))?;
        let ids = match &self.ids {
            // Nothing to repeat (and no O(n) walk over an empty list).
            VSegIds::Explicit(ids) if ids.is_empty() => self.ids.clone(),
            VSegIds::Manifest => cyclic(n),
            VSegIds::Cyclic { times } => cyclic(times.checked_mul(n).ok_or(overflow(
                op,
                "repetition count",
                "usize",
                None,
            ))?),
            VSegIds::Explicit(ids) => VSegIds::Explicit(
                std::iter::repeat_n(ids.iter().copied(), n)
                    .flatten()
                    .collect(),
            ),
        };
        Ok(VSegd {
            ids,
            ssegd: self.ssegd.clone(),
            virtual_elements,
        })
    }

    /// Lifted replication (DPH's `expand`): virtual segment `i` repeated `counts[i]` times, in
    /// order. No element is copied. Cost: O(virtual segments + sum of counts), i.e. O(virtual
    /// segments of the result); O(virtual segments) over a single physical segment, whose
    /// result is stored as that segment repeated (no vsegid array).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] if `counts` does not have one entry per virtual segment;
    /// [`Error::Overflow`] if the result's virtual segment count exceeds `usize::MAX` or its
    /// virtual element count `u64::MAX`.
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::from_lengths(vec![2, 1]).unwrap());
    /// let r = v.replicate_s(&[2, 3]).unwrap();
    /// assert_eq!(&*r.vsegids(), &[0, 0, 1, 1, 1]);
    /// assert_eq!(r.ssegd().len(), 2);
    /// ```
    pub fn replicate_s(&self, counts: &[usize]) -> Result<VSegd> {
        let op = "replicate_s";
        if counts.len() != self.len() {
            return Err(Error::LengthMismatch {
                op,
                what: "counts",
                expected: self.len(),
                found: counts.len(),
            });
        }
        let mut total = 0usize;
        let mut virtual_elements = 0u64;
        for (i, (id, &c)) in self.ids().zip(counts).enumerate() {
            total = total.checked_add(c).ok_or(overflow(
                op,
                "virtual segment count",
                "usize",
                Some(i),
            ))?;
            virtual_elements = (self.ssegd.length(id) as u64)
                .checked_mul(c as u64)
                .and_then(|e| virtual_elements.checked_add(e))
                .ok_or(overflow(op, "virtual element count", "u64", Some(i)))?;
        }
        // Every virtual segment is the one physical segment (a free array replicated into a
        // nested context, again): the result is that segment `total` times, O(1) to store.
        if self.ssegd.len() == 1 {
            return Ok(VSegd {
                ids: cyclic(total),
                ssegd: self.ssegd.clone(),
                virtual_elements,
            });
        }
        let mut ids = Vec::with_capacity(total);
        for (id, &c) in self.ids().zip(counts) {
            ids.extend(std::iter::repeat_n(id, c));
        }
        Ok(VSegd::from_ids(ids, self.ssegd.clone(), virtual_elements))
    }

    /// The virtual segments whose mask entry is `true`, in order. Physical segments are kept as
    /// they are (they may become unreachable; see [`VSegd::cull`]). Cost: O(virtual segments).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] if the mask does not have one entry per virtual segment.
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::from_lengths(vec![1, 2, 3]).unwrap());
    /// let p = v.pack([true, false, true]).unwrap();
    /// assert_eq!(p.lengths(), vec![1, 3]);
    /// assert!(!p.is_culled());
    /// ```
    pub fn pack(&self, mask: impl IntoIterator<Item = bool>) -> Result<VSegd> {
        let n = self.len();
        let mut mask = mask.into_iter();
        let mut ids = Vec::new();
        let mut virtual_elements = 0u64;
        for (i, id) in self.ids().enumerate() {
            let Some(keep) = mask.next() else {
                return Err(Error::LengthMismatch {
                    op: "pack",
                    what: "mask",
                    expected: n,
                    found: i,
                });
            };
            if keep {
                ids.push(id);
                // Cannot overflow: a sub-sum of the kept total.
                virtual_elements += self.ssegd.length(id) as u64;
            }
        }
        let rest = mask.count();
        if rest > 0 {
            return Err(Error::LengthMismatch {
                op: "pack",
                what: "mask",
                expected: n,
                found: n + rest,
            });
        }
        if ids.len() == n {
            return Ok(self.clone());
        }
        Ok(VSegd::from_ids(ids, self.ssegd.clone(), virtual_elements))
    }

    /// The virtual segments of `self` followed by those of `other`; `other`'s physical segments
    /// follow `self`'s and its blocks are renumbered after `self`'s (other's block `b` becomes
    /// `self.ssegd().num_blocks() + b`). No element is copied. Cost: O(virtual + physical
    /// segments + blocks) of both; two manifest descriptors give a manifest one. To append
    /// many, use [`VSegd::concat`].
    ///
    /// # Errors
    /// [`Error::Overflow`] if a count of the result overflows.
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let a = VSegd::from_segd(&Segd::from_lengths(vec![2]).unwrap()).replicate(2).unwrap();
    /// let b = VSegd::from_segd(&Segd::from_lengths(vec![5]).unwrap());
    /// let c = a.append(&b).unwrap();
    /// assert_eq!(&*c.vsegids(), &[0, 0, 1]);
    /// assert_eq!(c.ssegd().block_lens(), &[2, 5]);
    /// ```
    pub fn append(&self, other: &VSegd) -> Result<VSegd> {
        VSegd::concat_in("append", [self, other])
    }

    /// The virtual segments of every part in order (`append` of them all, left to right): each
    /// part's physical segments follow those of the parts before it and its blocks are
    /// renumbered after theirs. No element is copied. Cost: O(total virtual segments, physical
    /// segments and blocks), where repeated `append` is quadratic; all-manifest parts give a
    /// manifest result. No parts give the empty descriptor with no blocks.
    ///
    /// # Errors
    /// [`Error::Overflow`] if a count of the result overflows.
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let a = VSegd::from_segd(&Segd::from_lengths(vec![2]).unwrap());
    /// let r = a.replicate(2).unwrap();
    /// let c = VSegd::concat([&a, &r, &a]).unwrap();
    /// assert_eq!(&*c.vsegids(), &[0, 1, 1, 2]);
    /// assert_eq!(c.ssegd().block_lens(), &[2, 2, 2]);
    /// assert_eq!(c, a.append(&r).unwrap().append(&a).unwrap());
    /// assert!(VSegd::concat([]).unwrap().is_empty());
    /// ```
    pub fn concat<'a>(parts: impl IntoIterator<Item = &'a VSegd>) -> Result<VSegd> {
        VSegd::concat_in("concat", parts)
    }

    fn concat_in<'a>(
        op: &'static str,
        parts: impl IntoIterator<Item = &'a VSegd>,
    ) -> Result<VSegd> {
        let parts: Vec<&VSegd> = parts.into_iter().collect();
        let ssegd = SSegd::concat_in(op, parts.iter().map(|p| &p.ssegd))?;
        let (mut virtual_elements, mut count) = (0u64, 0usize);
        for p in &parts {
            virtual_elements = virtual_elements
                .checked_add(p.virtual_elements)
                .ok_or(overflow(op, "virtual element count", "u64", None))?;
            count = count.checked_add(p.len()).ok_or(overflow(
                op,
                "virtual segment count",
                "usize",
                None,
            ))?;
        }
        if parts.iter().all(|p| p.is_manifest()) {
            return Ok(VSegd {
                ids: VSegIds::Manifest,
                ssegd,
                virtual_elements,
            });
        }
        let mut ids = Vec::with_capacity(count);
        let mut base = 0;
        for p in &parts {
            ids.extend(p.ids().map(|id| id + base));
            base += p.ssegd.len();
        }
        Ok(VSegd::from_ids(ids, ssegd, virtual_elements))
    }

    /// Interleaves the virtual segments of `self` and `other` by `selector`: `false` takes the
    /// next segment of `self`, `true` the next of `other`. Physical segments and blocks are
    /// those of [`VSegd::append`]. No element is copied. Cost: O(virtual + physical segments +
    /// blocks) of both.
    ///
    /// # Errors
    /// [`Error::SelectorCount`] if the selector takes more or fewer segments from a side than it
    /// has; [`Error::Overflow`] if a count of the result overflows.
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let a = VSegd::from_segd(&Segd::from_lengths(vec![1, 2]).unwrap());
    /// let b = VSegd::from_segd(&Segd::from_lengths(vec![7]).unwrap());
    /// let c = a.combine(&b, [false, true, false]).unwrap();
    /// assert_eq!(c.lengths(), vec![1, 7, 2]);
    /// assert!(a.combine(&b, [true, true]).is_err());
    /// ```
    pub fn combine(
        &self,
        other: &VSegd,
        selector: impl IntoIterator<Item = bool>,
    ) -> Result<VSegd> {
        let p = self.ssegd.len();
        let (mut mine, mut theirs) = (self.ids(), other.ids());
        let (n, m) = (self.len(), other.len());
        let mut ids = Vec::with_capacity(n.saturating_add(m));
        let (mut taken_self, mut taken_other) = (0usize, 0usize);
        for pick in selector {
            if pick {
                taken_other += 1;
                let id = theirs.next().ok_or(Error::SelectorCount {
                    side: "other",
                    expected: m,
                    found: taken_other,
                })?;
                ids.push(id + p);
            } else {
                taken_self += 1;
                let id = mine.next().ok_or(Error::SelectorCount {
                    side: "self",
                    expected: n,
                    found: taken_self,
                })?;
                ids.push(id);
            }
        }
        if taken_self != n {
            return Err(Error::SelectorCount {
                side: "self",
                expected: n,
                found: taken_self,
            });
        }
        if taken_other != m {
            return Err(Error::SelectorCount {
                side: "other",
                expected: m,
                found: taken_other,
            });
        }
        let ssegd = self.ssegd.append(&other.ssegd)?;
        let virtual_elements = self
            .virtual_elements
            .checked_add(other.virtual_elements)
            .ok_or(overflow("combine", "virtual element count", "u64", None))?;
        Ok(VSegd::from_ids(ids, ssegd, virtual_elements))
    }

    /// The virtual segments `range`. A manifest descriptor keeps only the physical segments of
    /// the range and stays manifest; otherwise the physical segments are kept as they are (they
    /// may become unreachable; see [`VSegd::cull`]). Cost: O(range length).
    ///
    /// # Errors
    /// [`Error::RangeOutOfBounds`] if the range is reversed or ends past `self.len()`.
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::from_lengths(vec![1, 2, 3]).unwrap());
    /// let e = v.extract(1..3).unwrap();
    /// assert_eq!(e.lengths(), vec![2, 3]);
    /// assert!(e.is_manifest());
    /// assert!(v.extract(2..4).is_err());
    /// ```
    pub fn extract(&self, range: Range<usize>) -> Result<VSegd> {
        let n = self.len();
        if range.start > range.end || range.end > n {
            return Err(Error::RangeOutOfBounds {
                op: "extract",
                start: range.start,
                end: range.end,
                len: n,
            });
        }
        // Cannot overflow: a sub-sum of the total.
        let virtual_elements = range.clone().map(|i| self.length(i) as u64).sum();
        if self.is_manifest() {
            let ssegd = self
                .ssegd
                .select(range, None, self.ssegd.block_lens().into());
            return Ok(VSegd {
                ids: VSegIds::Manifest,
                ssegd,
                virtual_elements,
            });
        }
        let ids = range.map(|i| self.vsegid(i)).collect();
        Ok(VSegd::from_ids(ids, self.ssegd.clone(), virtual_elements))
    }

    /// Which physical segments are reachable from the vsegids (`None`: all of them).
    fn reachable(&self) -> Option<Vec<bool>> {
        match &self.ids {
            VSegIds::Manifest | VSegIds::Cyclic { .. } => None,
            VSegIds::Explicit(ids) => {
                let mut seen = vec![false; self.ssegd.len()];
                for &id in ids.iter() {
                    seen[id] = true;
                }
                Some(seen)
            }
        }
    }

    /// Whether every physical segment is named by some vsegid and every data block holds some
    /// such segment. Cost: O(virtual + physical segments + blocks); O(physical segments +
    /// blocks) for manifest and cyclic vsegids, O(blocks) when these lie over a promoted
    /// [`Segd`].
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::from_lengths(vec![1, 2]).unwrap());
    /// assert!(v.is_culled());
    /// assert!(!v.pack([false, true]).unwrap().is_culled());
    /// // An empty array still has its (empty) data block, which nothing reaches.
    /// assert!(!VSegd::from_segd(&Segd::regular(0, 0)).is_culled());
    /// ```
    pub fn is_culled(&self) -> bool {
        let reach = self.reachable();
        if reach.as_ref().is_some_and(|r| r.contains(&false)) {
            return false;
        }
        !self.ssegd.used_blocks(None).contains(&false)
    }

    /// The sum of the lengths of the reachable physical segments (each counted once). Cost:
    /// O(virtual + physical segments); O(1) for manifest and cyclic vsegids.
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::from_lengths(vec![1, 2, 3]).unwrap()).pack([true, false, true]).unwrap();
    /// assert_eq!((v.reachable_elements(), v.physical_elements()), (4, 6));
    /// ```
    pub fn reachable_elements(&self) -> usize {
        match self.reachable() {
            None => self.physical_elements(),
            Some(seen) => (0..self.ssegd.len())
                .filter(|&i| seen[i])
                .map(|i| self.ssegd.length(i))
                .sum(),
        }
    }

    /// Whether fewer than half of the physical elements (the elements of physical segments) are
    /// reachable, so that dead data would dominate a consumer that walks the physical segments.
    /// Cost: O(virtual + physical segments); O(1) for manifest and cyclic vsegids.
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::from_lengths(vec![1, 2, 3]).unwrap());
    /// assert!(!v.pack([false, true, true]).unwrap().should_cull());
    /// assert!(!v.pack([true, true, false]).unwrap().should_cull()); // exactly half
    /// assert!(v.pack([true, false, false]).unwrap().should_cull());
    /// ```
    pub fn should_cull(&self) -> bool {
        let reachable = self.reachable_elements();
        // reachable <= physical, so this is 2 * reachable < physical without overflow.
        reachable < self.physical_elements() - reachable
    }

    /// Restores reachability: drops the physical segments no vsegid names and the data blocks no
    /// remaining segment lies in, renumbering both in order. The nested array is unchanged and
    /// no element is copied. Cost: O(virtual + physical segments + blocks); O(blocks) for
    /// manifest or cyclic vsegids over a promoted [`Segd`].
    ///
    /// ```
    /// use flatland_segd::{SSegd, VSegd};
    /// // Blocks 0 and 2 hold segments 0 and 1; only segment 1 is used, twice.
    /// let s = SSegd::new(vec![0, 2], vec![0, 1], vec![2, 2], vec![2, 0, 3]);
    /// let c = VSegd::new(vec![1, 1], s).cull();
    /// assert!(c.vsegd.is_culled());
    /// assert_eq!(c.blocks, vec![2]);
    /// assert_eq!(&*c.vsegd.vsegids(), &[0, 0]);
    /// assert_eq!(c.vsegd.physical(0).start, 1);
    /// ```
    pub fn cull(&self) -> Culled {
        let p = self.ssegd.len();
        // Which physical segments stay, when some is dropped.
        let reach = self.reachable().filter(|r| r.contains(&false));
        let used = self.ssegd.used_blocks(reach.as_deref());
        // Old block -> new block, for the blocks that stay.
        let mut block_map = vec![usize::MAX; used.len()];
        let mut blocks = Vec::new();
        for b in (0..used.len()).filter(|&b| used[b]) {
            block_map[b] = blocks.len();
            blocks.push(b);
        }
        if reach.is_none() && blocks.len() == used.len() {
            return Culled {
                vsegd: self.clone(),
                blocks,
            };
        }
        let block_lens: Arc<[usize]> = blocks.iter().map(|&b| self.ssegd.block_lens()[b]).collect();
        let keeps = |i: usize| reach.as_ref().is_none_or(|r| r[i]);
        let ssegd = self
            .ssegd
            .select((0..p).filter(|&i| keeps(i)), Some(&block_map), block_lens);
        let vsegd = match reach {
            None => VSegd {
                ids: self.ids.clone(),
                ssegd,
                virtual_elements: self.virtual_elements,
            },
            Some(seen) => {
                // Old physical segment -> new one.
                let mut seg_map = vec![usize::MAX; p];
                for (new, old) in (0..p).filter(|&i| seen[i]).enumerate() {
                    seg_map[old] = new;
                }
                let ids = self.ids().map(|id| seg_map[id]).collect();
                VSegd::from_ids(ids, ssegd, self.virtual_elements)
            }
        };
        Culled { vsegd, blocks }
    }

    /// [`VSegd::cull`] if [`VSegd::should_cull`], else `None`: the policy for consumers that
    /// walk the physical segments anyway (folds, `concat`), whose own cost pays for the check.
    /// Cost: O(virtual + physical segments + blocks).
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::from_lengths(vec![1, 2, 3]).unwrap());
    /// assert!(v.cull_if_sparse().is_none());
    /// let c = v.pack([true, false, false]).unwrap().cull_if_sparse().unwrap();
    /// assert_eq!(c.vsegd.physical_elements(), 1);
    /// ```
    pub fn cull_if_sparse(&self) -> Option<Culled> {
        self.should_cull().then(|| self.cull())
    }

    /// Demotes to a contiguous descriptor of the virtual lengths plus the gather plan, one
    /// [`PSeg`] per virtual segment, that a runtime copies (`concat`) to materialise the
    /// contiguous data. Cost: O(virtual segments).
    ///
    /// # Errors
    /// [`Error::Overflow`] if the virtual element count exceeds `usize::MAX` (possible only
    /// where `usize` is narrower than 64 bits).
    ///
    /// ```
    /// use flatland_segd::{PSeg, Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::from_lengths(vec![2, 1]).unwrap()).replicate_s(&[1, 2]).unwrap();
    /// let (segd, plan) = v.demote().unwrap();
    /// assert_eq!(&*segd.lengths(), &[2, 1, 1]);
    /// assert_eq!(plan[2], PSeg { source: 0, start: 2, len: 1 });
    /// ```
    pub fn demote(&self) -> Result<(Segd, Vec<PSeg>)> {
        let segd = Segd::from_lengths(self.lengths())
            .map_err(|_| overflow("demote", "virtual element count", "usize", None))?;
        Ok((segd, self.iter().collect()))
    }

    /// Checks every invariant [`VSegd::try_new`] checks, and those of the physical descriptor.
    /// Cost: O(virtual + physical segments + blocks); O(physical segments + blocks) for
    /// manifest and cyclic vsegids.
    ///
    /// # Errors
    /// The first violated invariant: the physical descriptor's ([`SSegd::validate`]), then
    /// [`Error::VSegIdOutOfRange`] or [`Error::Overflow`].
    ///
    /// ```
    /// use flatland_segd::{Error, Segd, SSegd, VSegd};
    /// // SAFETY: not used for indexing; validate() must reject the vsegid.
    /// let v = unsafe { VSegd::new_unchecked(vec![0, 3], SSegd::from_segd(&Segd::regular(2, 1))) };
    /// assert_eq!(v.validate(), Err(Error::VSegIdOutOfRange { vsegment: 1, vsegid: 3, physical: 2 }));
    /// ```
    pub fn validate(&self) -> Result<()> {
        self.ssegd.validate()?;
        let p = self.ssegd.len();
        match &self.ids {
            VSegIds::Manifest => {}
            VSegIds::Cyclic { times } => {
                p.checked_mul(*times).ok_or(overflow(
                    "VSegd",
                    "virtual segment count",
                    "usize",
                    None,
                ))?;
            }
            VSegIds::Explicit(ids) => {
                if let Some((v, &id)) = ids.iter().enumerate().find(|&(_, &id)| id >= p) {
                    return Err(Error::VSegIdOutOfRange {
                        vsegment: v,
                        vsegid: id,
                        physical: p,
                    });
                }
            }
        }
        let total = self.recount()?;
        debug_assert_eq!(
            total, self.virtual_elements,
            "kept virtual element count is stale"
        );
        Ok(())
    }

    /// The virtual element count recomputed from the vsegids, checked against `u64`. Cost:
    /// O(virtual segments) for explicit vsegids, O(1) otherwise.
    fn recount(&self) -> Result<u64> {
        let physical = self.physical_elements() as u64;
        match &self.ids {
            VSegIds::Manifest => Ok(physical),
            VSegIds::Cyclic { times } => physical.checked_mul(*times as u64).ok_or(overflow(
                "VSegd",
                "virtual element count",
                "u64",
                None,
            )),
            VSegIds::Explicit(ids) => virtual_sum("VSegd", &self.ssegd, ids.iter().copied()),
        }
    }

    /// The number of `usize` entries stored in per-segment and per-block arrays (vsegids plus
    /// the physical descriptor's), a structural measure of descriptor size: manifest and cyclic
    /// vsegids store none. Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::{Segd, VSegd};
    /// let v = VSegd::from_segd(&Segd::from_lengths(vec![3, 1]).unwrap());
    /// assert_eq!(v.stored_entries(), 5); // 2 lengths, 2 starts, 1 block length
    /// assert_eq!(v.replicate_s(&[4, 0]).unwrap().stored_entries(), 9); // + 4 vsegids
    /// ```
    pub fn stored_entries(&self) -> usize {
        let ids = match &self.ids {
            VSegIds::Explicit(ids) => ids.len(),
            _ => 0,
        };
        ids + self.ssegd.stored_entries()
    }
}

impl PartialEq for VSegd {
    /// Equal when the vsegids and the physical descriptors are equal, whatever the storage
    /// forms. Cost: O(virtual + physical segments + blocks).
    fn eq(&self, other: &VSegd) -> bool {
        self.len() == other.len() && self.ssegd == other.ssegd && self.ids().eq(other.ids())
    }
}

impl Eq for VSegd {}

impl From<SSegd> for VSegd {
    /// Same as [`VSegd::manifest`].
    fn from(ssegd: SSegd) -> VSegd {
        VSegd::manifest(ssegd)
    }
}

impl From<&Segd> for VSegd {
    /// Same as [`VSegd::from_segd`].
    fn from(segd: &Segd) -> VSegd {
        VSegd::from_segd(segd)
    }
}
