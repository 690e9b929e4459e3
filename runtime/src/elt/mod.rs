//! Element types and their flat stores.
//!
//! Every element type of a Flatland array implements the sealed [`Elt`] trait, which names the
//! flat *store* that holds a whole array of such elements (`docs/ARCHITECTURE.md`, "One value,
//! three representations"):
//!
//! | element type | store |
//! | --- | --- |
//! | `i64`, `i32`, `u64`, `u32`, `u8`, `usize`, `f64`, `f32` | [`Buffer<T>`]: a shared buffer (`Arc<[T]>` or an adopted `Vec<T>`) |
//! | `bool` | [`Bits`]: a shared bit vector |
//! | `(A, B)`, `(A, B, C)`, `(A, B, C, D)` | [`Soa`]: one store per field (struct of arrays) |
//! | `Vec<T>` (an inner array) | [`Nested<T>`]: a `VSegd` over data blocks of `T`'s store |
//!
//! A segment of a [`Nested`] array is borrowed, never copied: `&[T]` for the primitive numbers,
//! a [`RowView`] (read element by element) for the others ([`Elt::Row`]).
//!
//! Stores are cheap to clone (reference counted) and immutable. The [`Store`] trait gives the
//! operations the segmented primitives need from any store; the ones that must copy element data
//! say so, and on a [`Nested`] store they copy only descriptor entries.
//!
//! ```
//! use flatland_runtime::elt::{Elt, Nested, Store};
//! let xss = Nested::from(vec![vec![1i64, 2], vec![], vec![3]]);
//! assert_eq!(xss.segment(0), &[1, 2]);
//! // An array of inner arrays is itself a store, so arrays nest to any depth:
//! let store = <Vec<i64> as Elt>::Store::from_vec(vec![vec![1, 2], vec![3]]);
//! assert_eq!(Store::get(&store, 1), Some(vec![3]));
//! ```

mod bits;
pub(crate) mod buffer;
mod nested;
mod row;
mod tuple;

pub use bits::Bits;
pub use buffer::{Buffer, Prim};
pub use nested::Nested;
pub use row::{RowIter, RowView};
pub use tuple::{Fields, Soa};

use flatland_segd::PSeg;
use std::fmt;
use std::ops::Range;

pub(crate) mod sealed {
    /// Seals [`super::Elt`] and [`super::Store`]: only the runtime defines element types.
    pub trait Sealed {}
}

/// An element type of a Flatland array; names its flat store.
///
/// Sealed: implemented for the primitive numbers, `bool`, tuples of up to 4 element types and
/// `Vec<T>` (an inner array, stored as [`Nested<T>`]).
///
/// ```
/// use flatland_runtime::elt::{Elt, Store};
/// fn store_of<T: Elt>(v: Vec<T>) -> T::Store { T::Store::from_vec(v) }
/// assert_eq!(store_of(vec![true, false]).len(), 2);
/// assert_eq!(store_of(vec![(1i64, 2.0f64)]).get(0), Some((1, 2.0)));
/// ```
pub trait Elt: Clone + Send + Sync + fmt::Debug + PartialEq + sealed::Sealed + 'static {
    /// The flat store holding an array of this element type.
    type Store: Store<Elem = Self>;

    /// A borrowed segment of an array of this element type, as [`Nested::get`] and
    /// [`Nested::iter`] give it: `&[T]` for the primitive numbers (their store is a plain
    /// buffer), a [`RowView`] for `bool`, tuples and inner arrays.
    ///
    /// ```
    /// use flatland_runtime::elt::Nested;
    /// let xs = Nested::from(vec![vec![1.0f64, 2.0]]);
    /// let row: &[f64] = xs.get(0).unwrap();
    /// assert_eq!(row, &[1.0, 2.0]);
    /// ```
    type Row<'a>: Clone + fmt::Debug + PartialEq + PartialEq<Vec<Self>>;

    /// The elements `range` of `store`, borrowed.
    ///
    /// # Panics
    /// If `range` does not lie inside `store`.
    ///
    /// ```
    /// use flatland_runtime::elt::{Buffer, Elt};
    /// let b = Buffer::from(vec![1i64, 2, 3]);
    /// assert_eq!(<i64 as Elt>::row(&b, 1..3), &[2, 3]);
    /// ```
    fn row(store: &Self::Store, range: Range<usize>) -> Self::Row<'_>;
}

/// A flat store of elements: immutable, cheap to clone, shareable between threads.
///
/// ```
/// use flatland_runtime::elt::{Buffer, Store};
/// let b = Buffer::from_vec(vec![1.5f64, 2.5]);
/// assert_eq!(b.len(), 2);
/// assert_eq!(b.to_vec(), vec![1.5, 2.5]);
/// ```
pub trait Store: Clone + Send + Sync + fmt::Debug + sealed::Sealed + 'static {
    /// The element type.
    type Elem: Elt<Store = Self>;

    /// Number of elements.
    fn len(&self) -> usize;

    /// Whether the store holds no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element at `i` (a copy), or `None` when out of range.
    fn get(&self, i: usize) -> Option<Self::Elem>;

    /// Builds a store from elements (moves a plain buffer without copying it).
    fn from_vec(v: Vec<Self::Elem>) -> Self;

    /// Copies all elements out.
    fn to_vec(&self) -> Vec<Self::Elem> {
        (0..self.len())
            .map(|i| self.get(i).expect("index below len"))
            .collect()
    }

    /// The concatenation of `ranges` (each `source` indexes `blocks`), in order: the one copying
    /// step behind `concat`, `extracts`, lifted `append` and lifted indexing.
    ///
    /// Plain buffers copy the elements (recorded as `elements_copied`); a [`Nested`] store copies
    /// only descriptor entries (its inner elements stay where they are).
    ///
    /// # Panics
    /// If a range lies outside its block or names a missing block (callers validate first).
    fn gather_ranges(blocks: &[Self], ranges: &[PSeg]) -> Self;

    /// Element `i` repeated `counts[i]` times, in order (`counts.len()` must equal `len()`).
    /// Copies elements for plain buffers; a [`Nested`] store only repeats descriptor entries.
    ///
    /// # Panics
    /// If `counts.len() != self.len()` (callers validate first).
    fn replicate_each(&self, counts: &[usize]) -> Self;
}

/// Validates `ranges` against the lengths of `blocks`, naming the first bad range.
pub(crate) fn check_ranges(
    op: &'static str,
    block_lens: &[usize],
    ranges: &[PSeg],
) -> crate::Result<()> {
    for (i, r) in ranges.iter().enumerate() {
        let Some(&blen) = block_lens.get(r.source) else {
            return Err(crate::Error::Invalid {
                op,
                detail: format!(
                    "range {i}: data block {} does not exist ({} blocks)",
                    r.source,
                    block_lens.len()
                ),
            });
        };
        if r.start.checked_add(r.len).is_none_or(|end| end > blen) {
            return Err(crate::Error::Invalid {
                op,
                detail: format!(
                    "range {i}: start {} + length {} exceeds data block {} of length {blen}",
                    r.start, r.len, r.source
                ),
            });
        }
    }
    Ok(())
}

/// Total elements of `ranges`.
pub(crate) fn ranges_total(ranges: &[PSeg]) -> usize {
    ranges.iter().map(|r| r.len).sum()
}

#[cfg(test)]
mod tests;
