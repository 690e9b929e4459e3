//! Nested arrays: a virtual segment descriptor over data blocks of the inner store.

use super::{Elt, Prim, Store, sealed::Sealed};
use crate::{Error, OffsetsError, Result, stats};
use flatland_segd::{PSeg, SSegd, Segd, VSegd};
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

impl<T: Elt> Sealed for Vec<T> {}
impl<T: Elt> Elt for Vec<T> {
    type Store = Nested<T>;
    type Row<'a> = super::RowView<'a, Vec<T>>;
    fn row(store: &Nested<T>, range: Range<usize>) -> Self::Row<'_> {
        super::RowView::new(store, range)
    }
}

/// An array of arrays of `T`: a [`VSegd`] plus the data blocks its physical segments live in.
///
/// Virtual segments may share one physical segment, so replication, packing, appending and
/// extracting only touch the descriptor; [`Nested::concat`] is the one
/// operation that copies elements. `Nested<T>` is also the store of the element type `Vec<T>`,
/// so arrays nest to any depth (`Nested<Vec<f64>>` is a three-level array whose data blocks are
/// `Nested<f64>` stores).
///
/// ```
/// use flatland_runtime::elt::Nested;
/// let xss = Nested::from(vec![vec![1.0f64, 2.0], vec![3.0]]);
/// let rep = xss.replicate(3).unwrap();          // no element copied
/// assert_eq!(rep.len(), 6);
/// assert_eq!(rep.segment(4), &[1.0, 2.0]);
/// assert_eq!(rep.fold(0.0, |a, b| a + b).unwrap(), vec![3.0, 3.0, 3.0, 3.0, 3.0, 3.0][..]);
/// ```
pub struct Nested<T: Elt> {
    vsegd: VSegd,
    blocks: Arc<[T::Store]>,
}

impl<T: Elt> Clone for Nested<T> {
    fn clone(&self) -> Self {
        Nested {
            vsegd: self.vsegd.clone(),
            blocks: Arc::clone(&self.blocks),
        }
    }
}

impl<T: Elt> fmt::Debug for Nested<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Elt> PartialEq for Nested<T> {
    /// Equal when the arrays hold equal elements (the descriptors may differ).
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<T: Elt> Nested<T> {
    /// Wraps a descriptor and its data blocks, checking that block `i` has the length the
    /// descriptor expects (`vsegd.ssegd().block_lens()[i]`).
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the first block whose length or count is wrong.
    ///
    /// ```
    /// use flatland_runtime::elt::{Buffer, Nested};
    /// use flatland_segd::{Segd, VSegd};
    /// let segd = Segd::from_lengths(vec![2, 1]).unwrap();
    /// let n = Nested::<i64>::from_parts(VSegd::from_segd(&segd), vec![Buffer::from(vec![1, 2, 3])]).unwrap();
    /// assert_eq!(n.segment(1), &[3]);
    /// assert!(Nested::<i64>::from_parts(VSegd::from_segd(&segd), vec![Buffer::from(vec![1])]).is_err());
    /// ```
    pub fn from_parts(vsegd: VSegd, blocks: Vec<T::Store>) -> Result<Self> {
        let lens = vsegd.ssegd().block_lens();
        if lens.len() != blocks.len() {
            return Err(Error::Invalid {
                op: "Nested::from_parts",
                detail: format!(
                    "descriptor names {} data blocks, {} given",
                    lens.len(),
                    blocks.len()
                ),
            });
        }
        for (i, (b, &l)) in blocks.iter().zip(lens).enumerate() {
            if b.len() != l {
                return Err(Error::Invalid {
                    op: "Nested::from_parts",
                    detail: format!(
                        "data block {i} has length {}, descriptor expects {l}",
                        b.len()
                    ),
                });
            }
        }
        Ok(Nested {
            vsegd,
            blocks: blocks.into(),
        })
    }

    /// Wraps parts already known to agree (internal: descriptor operations keep the blocks).
    pub(crate) fn from_parts_unchecked(vsegd: VSegd, blocks: Arc<[T::Store]>) -> Self {
        debug_assert_eq!(vsegd.ssegd().num_blocks(), blocks.len());
        Nested { vsegd, blocks }
    }

    /// Gives flat `values` the segment structure of a contiguous descriptor (`unconcat`): no copy.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `segd.elements() != values.len()`.
    ///
    /// ```
    /// use flatland_runtime::elt::{Buffer, Nested};
    /// use flatland_segd::Segd;
    /// let segd = Segd::from_lengths(vec![1, 0, 2]).unwrap();
    /// let n = Nested::<u32>::from_segd(&segd, Buffer::from(vec![7, 8, 9])).unwrap();
    /// assert_eq!(n.to_vec(), vec![vec![7], vec![], vec![8, 9]]);
    /// ```
    pub fn from_segd(segd: &Segd, values: T::Store) -> Result<Self> {
        if segd.elements() != values.len() {
            return Err(Error::LengthMismatch {
                op: "Nested::from_segd",
                expected: segd.elements(),
                found: values.len(),
            });
        }
        Ok(Nested {
            vsegd: VSegd::from_segd(segd),
            blocks: vec![values].into(),
        })
    }

    /// Adopts CSR-style buffers without copying the values: segment `i` is
    /// `values[offsets[i]..offsets[i + 1]]`. `offsets` has one more entry than there are segments,
    /// starts at 0, never decreases and ends at `values.len()`. Checked in one pass over
    /// `offsets`; the values are not read.
    ///
    /// # Errors
    /// [`Error::Offsets`] with an [`OffsetsError`] naming the first offset that breaks these
    /// rules and its position.
    ///
    /// ```
    /// use flatland_runtime::{Error, OffsetsError, elt::Nested};
    /// let n = Nested::<f64>::from_offsets(vec![0, 2, 2, 3], vec![1.0, 2.0, 3.0]).unwrap();
    /// assert_eq!(n.len(), 3);
    /// assert_eq!(n.get(2), Some(&[3.0][..]));
    /// let e = Nested::<f64>::from_offsets(vec![0, 2, 1], vec![1.0, 2.0]).unwrap_err();
    /// assert_eq!(e, Error::Offsets {
    ///     op: "Nested::from_offsets",
    ///     error: OffsetsError::Decreasing { position: 2, offset: 1, previous: 2 },
    /// });
    /// assert_eq!(e.to_string(), "Nested::from_offsets: offset 2 (1) is less than offset 1 (2)");
    /// ```
    pub fn from_offsets(offsets: Vec<usize>, values: impl Into<T::Store>) -> Result<Self> {
        let values = values.into();
        let lengths =
            OffsetsError::check(&offsets, values.len()).map_err(|error| Error::Offsets {
                op: "Nested::from_offsets",
                error,
            })?;
        stats::record_descriptor(offsets.len() as u64);
        let elements = values.len();
        let mut starts = offsets;
        starts.pop();
        let segd = Segd::try_new(lengths, starts, elements)?;
        Ok(Nested {
            vsegd: VSegd::from_segd(&segd),
            blocks: vec![values].into(),
        })
    }

    /// The virtual segment descriptor.
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::from(vec![vec![1i64], vec![2, 3]]);
    /// assert_eq!(n.vsegd().lengths(), vec![1, 2]);
    /// ```
    pub fn vsegd(&self) -> &VSegd {
        &self.vsegd
    }

    /// The descriptor and the data blocks, by value (for callers that keep dynamically typed
    /// columns; [`Nested::from_parts`] puts them back together).
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::from(vec![vec![1i64], vec![2, 3]]);
    /// let (vsegd, blocks) = n.into_parts();
    /// assert_eq!((vsegd.len(), blocks.len()), (2, 1));
    /// ```
    pub fn into_parts(self) -> (VSegd, Arc<[T::Store]>) {
        (self.vsegd, self.blocks)
    }

    /// The segments as one flat store and its contiguous descriptor, without a copy, when they
    /// are laid out that way (manifest, one block, each segment at its own start:
    /// [`VSegd::as_contiguous`]); `None` otherwise ([`Nested::concat`] then copies). Cost: O(1)
    /// for arrays built by [`Nested::from_offsets`] or [`Nested::from_segd`].
    ///
    /// ```
    /// use flatland_runtime::elt::Nested;
    /// let n: Nested<i64> = Nested::from_offsets(vec![0, 2, 3], vec![1, 2, 3]).unwrap();
    /// let (segd, flat) = n.as_flat().unwrap();
    /// assert_eq!((segd.len(), flat.as_slice()), (2, &[1, 2, 3][..]));
    /// assert!(n.replicate(2).unwrap().as_flat().is_none());
    /// ```
    pub fn as_flat(&self) -> Option<(&Segd, &T::Store)> {
        match &*self.blocks {
            [block] => self.vsegd.as_contiguous().map(|segd| (segd, block)),
            _ => None,
        }
    }

    /// The data blocks the descriptor's physical segments live in.
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::from(vec![vec![1i64], vec![2, 3]]);
    /// assert_eq!(n.blocks()[0].as_slice(), &[1, 2, 3]);
    /// ```
    pub fn blocks(&self) -> &[T::Store] {
        &self.blocks
    }

    /// Number of (virtual) segments.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::elt::Nested::<i64>::from(vec![vec![], vec![]]).len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.vsegd.len()
    }

    /// Whether there are no segments.
    ///
    /// ```
    /// assert!(flatland_runtime::elt::Nested::<i64>::from(vec![]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.vsegd.is_empty()
    }

    /// The length of every segment.
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::from(vec![vec![true], vec![], vec![false, true]]);
    /// assert_eq!(n.lengths(), vec![1, 0, 2]);
    /// ```
    pub fn lengths(&self) -> Vec<usize> {
        self.vsegd.lengths()
    }

    /// Segment `i`, borrowed from its data block (no copy), or `None` when out of range: a
    /// `&[T]` for the primitive numbers, a [`RowView`](super::RowView) for `bool`, tuples and
    /// inner arrays ([`Elt::Row`]).
    ///
    /// ```
    /// use flatland_runtime::elt::Nested;
    /// let xs = Nested::<f64>::from_offsets(vec![0, 2, 3], vec![1.0, 2.0, 3.0]).unwrap();
    /// assert_eq!(xs.get(0), Some(&[1.0, 2.0][..]));
    /// assert_eq!(xs.get(2), None);
    /// let pairs = Nested::from(vec![vec![(1i64, 2.0f64)]]);
    /// assert_eq!(pairs.get(0).unwrap().get(0), Some((1, 2.0)));
    /// ```
    pub fn get(&self, i: usize) -> Option<T::Row<'_>> {
        if i >= self.len() {
            return None;
        }
        let p = self.vsegd.physical(i);
        Some(T::row(&self.blocks[p.source], p.start..p.start + p.len))
    }

    /// The segments in order, each borrowed as [`Nested::get`] gives it (no copies).
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::from(vec![vec![1i64], vec![2, 3]]);
    /// let sums: Vec<i64> = n.iter().map(|row| row.iter().sum()).collect();
    /// assert_eq!(sums, vec![1, 5]);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = T::Row<'_>> + DoubleEndedIterator + '_ {
        (0..self.len()).map(|i| self.get(i).expect("index below len"))
    }

    /// Segment `i` as a vector (a copy), or `None` when out of range.
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::from(vec![vec![(1i64, 2.0f64)]]);
    /// assert_eq!(n.get_vec(0), Some(vec![(1, 2.0)]));
    /// assert_eq!(n.get_vec(1), None);
    /// ```
    pub fn get_vec(&self, i: usize) -> Option<Vec<T>> {
        if i >= self.len() {
            return None;
        }
        let p = self.vsegd.physical(i);
        let b = &self.blocks[p.source];
        Some(
            (p.start..p.start + p.len)
                .map(|k| b.get(k).expect("segment inside its block"))
                .collect(),
        )
    }

    /// Converts to nested vectors (copies every virtual element).
    ///
    /// ```
    /// use flatland_runtime::elt::Nested;
    /// let v = vec![vec![1i32, 2], vec![], vec![3]];
    /// assert_eq!(Nested::from(v.clone()).to_vec(), v);
    /// ```
    pub fn to_vec(&self) -> Vec<Vec<T>> {
        (0..self.len())
            .map(|i| self.get_vec(i).expect("index below len"))
            .collect()
    }

    fn with_vsegd(&self, vsegd: VSegd) -> Self {
        Nested::from_parts_unchecked(vsegd, Arc::clone(&self.blocks))
    }

    /// The whole array repeated `n` times; only the descriptor grows (O(n * len) descriptor
    /// entries, zero element copies).
    ///
    /// # Errors
    /// [`Error::Segd`] when the result would be too large to describe;
    /// [`Error::MemoryBudget`] when its descriptor would not fit in the memory budget.
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::from(vec![vec![1i64], vec![2]]);
    /// assert_eq!(n.replicate(2).unwrap().to_vec(), vec![vec![1], vec![2], vec![1], vec![2]]);
    /// ```
    pub fn replicate(&self, n: usize) -> Result<Self> {
        crate::budget::check_elements::<usize>(
            "replicated descriptor",
            n.saturating_mul(self.len()),
        )?;
        Ok(self.with_vsegd(self.vsegd.replicate(n)?))
    }

    /// Segment `i` repeated `counts[i]` times (lifted replication, `expand`); descriptor only.
    ///
    /// # Errors
    /// [`Error::Segd`] when `counts` has the wrong length.
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::from(vec![vec![1i64], vec![2, 3]]);
    /// assert_eq!(n.replicate_s(&[0, 2]).unwrap().to_vec(), vec![vec![2, 3], vec![2, 3]]);
    /// ```
    pub fn replicate_s(&self, counts: &[usize]) -> Result<Self> {
        let entries = counts.iter().fold(0usize, |a, &c| a.saturating_add(c));
        crate::budget::check_elements::<usize>("replicated descriptor", entries)?;
        Ok(self.with_vsegd(self.vsegd.replicate_s(counts)?))
    }

    /// The segments whose mask bit is set; descriptor only (O(segments)).
    ///
    /// # Errors
    /// [`Error::Segd`] when the mask has the wrong length.
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::from(vec![vec![1i64], vec![2], vec![3]]);
    /// assert_eq!(n.pack([true, false, true]).unwrap().to_vec(), vec![vec![1], vec![3]]);
    /// ```
    pub fn pack(&self, mask: impl IntoIterator<Item = bool>) -> Result<Self> {
        Ok(self.with_vsegd(self.vsegd.pack(mask)?))
    }

    /// The segments of `self` followed by those of `other`; descriptor only (the data blocks of
    /// both are kept, `other`'s renumbered after `self`'s).
    ///
    /// # Errors
    /// [`Error::Segd`] when a count of the result overflows.
    ///
    /// ```
    /// use flatland_runtime::elt::Nested;
    /// let a = Nested::from(vec![vec![1i64]]);
    /// let b = Nested::from(vec![vec![2i64, 3]]);
    /// assert_eq!(a.append(&b).unwrap().to_vec(), vec![vec![1], vec![2, 3]]);
    /// ```
    pub fn append(&self, other: &Self) -> Result<Self> {
        let vsegd = self.vsegd.append(&other.vsegd)?;
        Ok(Nested::from_parts_unchecked(
            vsegd,
            self.blocks
                .iter()
                .chain(other.blocks.iter())
                .cloned()
                .collect(),
        ))
    }

    /// Interleaves two arrays: `false` in `selector` takes the next segment of `self`, `true` the
    /// next of `other`; descriptor only.
    ///
    /// # Errors
    /// [`Error::Segd`] when the selector does not match the two lengths.
    ///
    /// ```
    /// use flatland_runtime::elt::Nested;
    /// let a = Nested::from(vec![vec![1i64], vec![3]]);
    /// let b = Nested::from(vec![vec![2i64]]);
    /// assert_eq!(a.combine(&b, [false, true, false]).unwrap().to_vec(), vec![vec![1], vec![2], vec![3]]);
    /// ```
    pub fn combine(&self, other: &Self, selector: impl IntoIterator<Item = bool>) -> Result<Self> {
        let vsegd = self.vsegd.combine(&other.vsegd, selector)?;
        Ok(Nested::from_parts_unchecked(
            vsegd,
            self.blocks
                .iter()
                .chain(other.blocks.iter())
                .cloned()
                .collect(),
        ))
    }

    /// The segments in `range`; descriptor only.
    ///
    /// # Errors
    /// [`Error::Segd`] when the range is outside the array.
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::from(vec![vec![1i64], vec![2], vec![3]]);
    /// assert_eq!(n.extract(1..3).unwrap().to_vec(), vec![vec![2], vec![3]]);
    /// ```
    pub fn extract(&self, range: Range<usize>) -> Result<Self> {
        Ok(self.with_vsegd(self.vsegd.extract(range)?))
    }

    /// Drops unreachable physical segments and data blocks from the descriptor (O(virtual +
    /// physical segments), no element copied); the blocks still reachable are kept as they are.
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::from(vec![vec![1i64], vec![2]]);
    /// let a = n.append(&n).unwrap().extract(2..3).unwrap().cull();
    /// assert_eq!(a.to_vec(), vec![vec![1]]);
    /// assert!(a.vsegd().is_culled());
    /// ```
    pub fn cull(&self) -> Self {
        let culled = self.vsegd.cull();
        let blocks: Arc<[T::Store]> = culled
            .blocks
            .iter()
            .map(|&b| self.blocks[b].clone())
            .collect();
        Nested::from_parts_unchecked(culled.vsegd, blocks)
    }

    /// Culls when less than half of the physical elements are reachable, else returns a clone.
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::from(vec![vec![1i64; 10], vec![2]]);
    /// let small = n.extract(1..2).unwrap().cull_if_sparse();
    /// assert_eq!(small.vsegd().physical_elements(), 1);
    /// ```
    pub fn cull_if_sparse(&self) -> Self {
        match self.vsegd.cull_if_sparse() {
            Some(culled) => {
                let blocks: Arc<[T::Store]> = culled
                    .blocks
                    .iter()
                    .map(|&b| self.blocks[b].clone())
                    .collect();
                Nested::from_parts_unchecked(culled.vsegd, blocks)
            }
            None => self.clone(),
        }
    }

    /// Concatenates the segments (demotion): the contiguous descriptor of the result and its
    /// flat elements. The one copying step: O(virtual elements); for a store of inner arrays
    /// it copies only their descriptor entries.
    ///
    /// # Errors
    /// [`Error::Segd`] when the virtual element count does not fit in `usize`.
    ///
    /// ```
    /// use flatland_runtime::elt::{Nested, Store};
    /// let n = Nested::from(vec![vec![1i64, 2], vec![3]]).replicate(2).unwrap();
    /// let (segd, flat) = n.concat().unwrap();
    /// assert_eq!(segd.lengths().as_ref(), &[2, 1, 2, 1]);
    /// assert_eq!(flat.to_vec(), vec![1, 2, 3, 1, 2, 3]);
    /// ```
    pub fn concat(&self) -> Result<(Segd, T::Store)> {
        let (segd, plan) = self.vsegd.demote()?;
        stats::record_descriptor(plan.len() as u64);
        crate::budget::check_elements::<T>("concat output", segd.elements())?;
        Ok((segd, T::Store::gather_ranges(&self.blocks, &plan)))
    }

    /// Lifted append: segment `i` of the result is segment `i` of `self` followed by segment `i`
    /// of `other`. Copies O(virtual elements) (descriptor entries only for inner arrays).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when the two arrays have different numbers of segments.
    ///
    /// ```
    /// use flatland_runtime::elt::Nested;
    /// let a = Nested::from(vec![vec![1i64], vec![]]);
    /// let b = Nested::from(vec![vec![2i64], vec![3]]);
    /// assert_eq!(a.append_s(&b).unwrap().to_vec(), vec![vec![1, 2], vec![3]]);
    /// ```
    pub fn append_s(&self, other: &Self) -> Result<Self> {
        let (segd, plan) = crate::seg::append_plan(&self.vsegd, &other.vsegd)?;
        let blocks: Vec<T::Store> = self
            .blocks
            .iter()
            .chain(other.blocks.iter())
            .cloned()
            .collect();
        let store = T::Store::gather_ranges(&blocks, &plan);
        Nested::from_segd(&segd, store)
    }

    /// Lifted indexing: lane `j` reads element `idx[j]` of segment `segs[j]`, from the one
    /// physical copy (O(lanes) work however often segments were replicated).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `segs` and `idx` differ in length;
    /// [`Error::IndexOutOfRange`] naming the lane of a bad segment or element index.
    ///
    /// ```
    /// use flatland_runtime::elt::{Nested, Store};
    /// let v = Nested::from(vec![vec![10i64, 20, 30]]).replicate(1000).unwrap();
    /// assert_eq!(v.index_l(&[5, 999], &[2, 0]).unwrap().to_vec(), vec![30, 10]);
    /// assert!(v.index_l(&[0], &[3]).is_err());
    /// ```
    pub fn index_l(&self, segs: &[usize], idx: &[i64]) -> Result<T::Store> {
        let ranges: Vec<PSeg> = crate::seg::locate_lanes(&self.vsegd, segs, idx)?
            .into_iter()
            .map(|(source, start)| PSeg {
                source,
                start,
                len: 1,
            })
            .collect();
        Ok(T::Store::gather_ranges(&self.blocks, &ranges))
    }
}

impl<T: Prim> Nested<T> {
    /// Segment `i` as a slice of its data block (no copy).
    ///
    /// # Panics
    /// If `i >= self.len()`, as slice indexing does.
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::from(vec![vec![1i64, 2], vec![3]]);
    /// assert_eq!(n.segment(1), &[3]);
    /// ```
    pub fn segment(&self, i: usize) -> &[T] {
        assert!(
            i < self.len(),
            "segment {i} out of range for {} segments",
            self.len()
        );
        let p = self.vsegd.physical(i);
        &self.blocks[p.source].as_slice()[p.start..p.start + p.len]
    }

    /// Folds every segment with the canonical association ([`crate::seg::fold_vs`]): each
    /// reachable physical segment is folded once, then results are gathered per segment.
    ///
    /// # Errors
    /// Only if the descriptor and blocks disagree (never for a well-formed `Nested`).
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::from(vec![vec![1i64, 2], vec![], vec![3]]);
    /// assert_eq!(n.fold(0, |a, b| a + b).unwrap(), vec![3, 0, 3]);
    /// ```
    pub fn fold(&self, identity: T, op: impl Fn(T, T) -> T + Sync) -> Result<Vec<T>> {
        crate::seg::fold_vs(&self.vsegd, &self.blocks, identity, op)
    }
}

impl<T: Elt> From<Vec<Vec<T>>> for Nested<T> {
    /// Flattens the rows into one data block.
    fn from(rows: Vec<Vec<T>>) -> Self {
        let lengths: Vec<usize> = rows.iter().map(Vec::len).collect();
        let values: Vec<T> = rows.into_iter().flatten().collect();
        let segd = Segd::from_lengths(lengths).expect("lengths of materialised rows fit in usize");
        Nested {
            vsegd: VSegd::from_segd(&segd),
            blocks: vec![T::Store::from_vec(values)].into(),
        }
    }
}

impl<T: Elt> Sealed for Nested<T> {}

impl<T: Elt> Store for Nested<T> {
    type Elem = Vec<T>;

    fn len(&self) -> usize {
        self.vsegd.len()
    }

    fn get(&self, i: usize) -> Option<Vec<T>> {
        Nested::get_vec(self, i)
    }

    fn from_vec(v: Vec<Vec<T>>) -> Self {
        Nested::from(v)
    }

    fn gather_ranges(blocks: &[Self], ranges: &[PSeg]) -> Self {
        // The result's physical segments are those of all blocks (renumbered); only the virtual
        // segment ids of the selected ranges are written: no inner element is copied.
        let mut bases = Vec::with_capacity(blocks.len());
        let mut physical = 0;
        let mut inner: Vec<T::Store> = Vec::new();
        for b in blocks {
            bases.push(physical);
            physical += b.vsegd.ssegd().len();
            inner.extend(b.blocks.iter().cloned());
        }
        let ssegd = SSegd::concat(blocks.iter().map(|b| b.vsegd.ssegd()))
            .expect("blocks in memory have a total length that fits in usize");
        let total = super::ranges_total(ranges);
        let mut vsegids = Vec::with_capacity(total);
        for r in ranges {
            let b = &blocks[r.source];
            vsegids.extend((r.start..r.start + r.len).map(|k| bases[r.source] + b.vsegd.vsegid(k)));
        }
        stats::record_descriptor((total + ranges.len()) as u64);
        stats::record_alloc::<usize>(total);
        let vsegd = VSegd::try_new(vsegids, ssegd)
            .expect("gathered vsegids index the appended physical segments");
        Nested::from_parts_unchecked(vsegd, inner.into()).cull_if_sparse()
    }

    fn replicate_each(&self, counts: &[usize]) -> Self {
        assert_eq!(
            counts.len(),
            self.len(),
            "replicate_each: one count per element"
        );
        self.replicate_s(counts).expect("counts checked")
    }
}
