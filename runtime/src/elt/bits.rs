//! Shared bit vectors: the store of `bool`.

use super::{Elt, Store, sealed::Sealed};
use crate::stats;
use bitvec::prelude::{BitSlice, BitVec, Lsb0};
use flatland_segd::PSeg;
use std::fmt;
use std::sync::Arc;

impl Sealed for bool {}
impl Elt for bool {
    type Store = Bits;
    type Row<'a> = super::RowView<'a, bool>;
    fn row(store: &Bits, range: std::ops::Range<usize>) -> Self::Row<'_> {
        super::RowView::new(store, range)
    }
}

/// A shared, immutable bit vector: the store of `bool` (one bit per element).
///
/// ```
/// use flatland_runtime::elt::{Bits, Store};
/// let b = Bits::from_vec(vec![true, false, true]);
/// assert_eq!(b.as_bitslice().count_ones(), 2);
/// assert_eq!(b.get(1), Some(false));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Bits(Arc<Counted>);

/// An adopted bit vector, counted as live memory of the runtime ([`crate::budget`]).
struct Counted(
    BitVec<usize, Lsb0>,
    #[allow(dead_code)] crate::budget::Charge,
);

impl PartialEq for Counted {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for Counted {}

impl std::ops::Deref for Counted {
    type Target = BitVec<usize, Lsb0>;
    fn deref(&self) -> &BitVec<usize, Lsb0> {
        &self.0
    }
}

impl Bits {
    /// The bits.
    ///
    /// ```
    /// use flatland_runtime::elt::Bits;
    /// use bitvec::prelude::*;
    /// let b = Bits::from(bitvec![usize, Lsb0; 1, 1, 0]);
    /// assert_eq!(b.as_bitslice().len(), 3);
    /// ```
    pub fn as_bitslice(&self) -> &BitSlice<usize, Lsb0> {
        &self.0
    }
}

impl From<BitVec<usize, Lsb0>> for Bits {
    /// Adopts the bit vector (no copy).
    fn from(b: BitVec<usize, Lsb0>) -> Self {
        let bytes = b.capacity().div_ceil(8);
        Bits(Arc::new(Counted(b, crate::budget::Charge::new(bytes))))
    }
}

impl fmt::Debug for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter().map(|b| *b)).finish()
    }
}

impl Sealed for Bits {}

impl Store for Bits {
    type Elem = bool;

    fn len(&self) -> usize {
        self.0.len()
    }

    fn get(&self, i: usize) -> Option<bool> {
        self.0.get(i).map(|b| *b)
    }

    fn from_vec(v: Vec<bool>) -> Self {
        Bits::from(v.into_iter().collect::<BitVec<usize, Lsb0>>())
    }

    fn gather_ranges(blocks: &[Self], ranges: &[PSeg]) -> Self {
        let total = super::ranges_total(ranges);
        stats::record_copied(total as u64);
        stats::record_descriptor(ranges.len() as u64);
        stats::record_bytes(total.div_ceil(8) as u64);
        let mut out = BitVec::with_capacity(total);
        for r in ranges {
            out.extend_from_bitslice(&blocks[r.source].0[r.start..r.start + r.len]);
        }
        Bits::from(out)
    }

    fn replicate_each(&self, counts: &[usize]) -> Self {
        assert_eq!(
            counts.len(),
            self.len(),
            "replicate_each: one count per element"
        );
        let total: usize = counts.iter().sum();
        stats::record_read(counts.len() as u64);
        stats::record_copied(total as u64);
        stats::record_bytes(total.div_ceil(8) as u64);
        let mut out = BitVec::with_capacity(total);
        for (b, &c) in self.0.iter().zip(counts) {
            out.resize(out.len() + c, *b);
        }
        Bits::from(out)
    }
}
