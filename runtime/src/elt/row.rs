//! Borrowed segments of a [`Nested`](super::Nested) array: `&[T]` where the store is a plain
//! buffer, a [`RowView`] where it is not (bits, struct of arrays, deeper nesting).

use super::{Elt, Store};
use std::fmt;
use std::ops::Range;

/// One segment of a nested array whose elements are not stored as a plain slice (`bool`,
/// tuples, inner arrays): a borrowed window `start..start + len` of the data block, read element
/// by element. Segments of primitive numbers are plain `&[T]` instead
/// ([`Elt::Row`](super::Elt::Row)).
///
/// ```
/// use flatland_runtime::elt::Nested;
/// let pairs = Nested::from(vec![vec![(1i64, 0.5f64), (2, 1.5)], vec![]]);
/// let row = pairs.get(0).unwrap();
/// assert_eq!((row.len(), row.get(1)), (2, Some((2, 1.5))));
/// assert_eq!(row.iter().map(|(i, _)| i).sum::<i64>(), 3);
/// assert_eq!(row, vec![(1, 0.5), (2, 1.5)]);
/// ```
pub struct RowView<'a, T: Elt> {
    store: &'a T::Store,
    range: Range<usize>,
}

impl<'a, T: Elt> RowView<'a, T> {
    /// The elements `range` of `store`.
    ///
    /// # Panics
    /// If `range` does not lie inside the store (the nested array's invariants guarantee it).
    pub(crate) fn new(store: &'a T::Store, range: Range<usize>) -> Self {
        assert!(
            range.start <= range.end && range.end <= store.len(),
            "segment {range:?} outside its data block of length {}",
            store.len()
        );
        RowView { store, range }
    }

    /// Number of elements.
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::from(vec![vec![true, false]]);
    /// assert_eq!(n.get(0).unwrap().len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.range.len()
    }

    /// Whether the segment is empty.
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::<bool>::from(vec![vec![]]);
    /// assert!(n.get(0).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.range.is_empty()
    }

    /// Element `k` of the segment (a copy), or `None` past its end.
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::from(vec![vec![true, false]]);
    /// assert_eq!(n.get(0).unwrap().get(1), Some(false));
    /// assert_eq!(n.get(0).unwrap().get(2), None);
    /// ```
    pub fn get(&self, k: usize) -> Option<T> {
        if k < self.len() {
            self.store.get(self.range.start + k)
        } else {
            None
        }
    }

    /// The elements in order (copies).
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::from(vec![vec![true, false, true]]);
    /// assert_eq!(n.get(0).unwrap().iter().filter(|&b| b).count(), 2);
    /// ```
    pub fn iter(&self) -> RowIter<'a, T> {
        RowIter {
            store: self.store,
            range: self.range.clone(),
        }
    }

    /// The elements as a vector (copies).
    ///
    /// ```
    /// let n = flatland_runtime::elt::Nested::from(vec![vec![vec![1i64], vec![]]]);
    /// assert_eq!(n.get(0).unwrap().to_vec(), vec![vec![1], vec![]]);
    /// ```
    pub fn to_vec(&self) -> Vec<T> {
        self.iter().collect()
    }
}

impl<T: Elt> Clone for RowView<'_, T> {
    fn clone(&self) -> Self {
        RowView {
            store: self.store,
            range: self.range.clone(),
        }
    }
}

impl<T: Elt> fmt::Debug for RowView<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Elt> PartialEq for RowView<'_, T> {
    /// Equal when the elements are (wherever they are stored).
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<T: Elt> PartialEq<Vec<T>> for RowView<'_, T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter().cloned())
    }
}

impl<T: Elt> PartialEq<[T]> for RowView<'_, T> {
    fn eq(&self, other: &[T]) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter().cloned())
    }
}

impl<'a, T: Elt> IntoIterator for RowView<'a, T> {
    type Item = T;
    type IntoIter = RowIter<'a, T>;

    fn into_iter(self) -> RowIter<'a, T> {
        RowIter {
            store: self.store,
            range: self.range,
        }
    }
}

impl<'a, T: Elt> IntoIterator for &RowView<'a, T> {
    type Item = T;
    type IntoIter = RowIter<'a, T>;

    fn into_iter(self) -> RowIter<'a, T> {
        self.iter()
    }
}

/// The elements of a [`RowView`], in order (copies).
///
/// ```
/// let n = flatland_runtime::elt::Nested::from(vec![vec![true, false, true]]);
/// let row = n.get(0).unwrap();
/// assert_eq!(row.iter().rev().collect::<Vec<_>>(), vec![true, false, true]);
/// assert_eq!(row.into_iter().len(), 3);
/// ```
pub struct RowIter<'a, T: Elt> {
    store: &'a T::Store,
    range: Range<usize>,
}

impl<T: Elt> RowIter<'_, T> {
    fn at(&self, k: usize) -> T {
        self.store.get(k).expect("segment inside its data block")
    }
}

impl<T: Elt> Iterator for RowIter<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        self.range.next().map(|k| self.at(k))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }
}

impl<T: Elt> DoubleEndedIterator for RowIter<'_, T> {
    fn next_back(&mut self) -> Option<T> {
        self.range.next_back().map(|k| self.at(k))
    }
}

impl<T: Elt> ExactSizeIterator for RowIter<'_, T> {}
