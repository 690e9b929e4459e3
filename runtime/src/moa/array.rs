//! The MoA array: a shape and a row-major content list (the paper's operational definition 1).

use std::fmt;
use std::sync::Arc;

use crate::{Error, Result, stats};

/// A dense array in the sense of the Mathematics of Arrays: a shape (a possibly empty list of
/// non-negative extents) and a content list in row-major (lexicographic) order whose length is the
/// product of the shape.
///
/// A scalar has the empty shape `[]` and one element; it is *not* the same array as a one-element
/// vector `[1]` or `[1, 1]`. Any shape containing a 0 gives an empty array, and empty arrays of
/// different shapes are different (`[2, 0]` is not `[0]`).
///
/// The content is shared (`Arc<[T]>`): operations whose result is a contiguous part of their
/// argument (psi, take, drop, rav, reshape to a size not larger than the original) return views
/// that copy no element.
///
/// ```
/// use flatland_runtime::moa::Array;
/// let a = Array::from_vec(vec![2, 3], vec![1, 2, 3, 4, 5, 6]).unwrap();
/// assert_eq!(a.shape(), &[2, 3]);
/// assert_eq!(a.dim(), 2);
/// assert_eq!(a.size(), 6);
/// assert_eq!(a.psi(&[1]).unwrap().as_slice(), &[4, 5, 6]);
/// assert_ne!(Array::scalar(7), Array::from_vec(vec![1], vec![7]).unwrap());
/// ```
pub struct Array<T> {
    shape: Arc<[usize]>,
    data: Arc<[T]>,
    offset: usize,
    len: usize,
}

/// The product of a shape, or an error naming the operation when it overflows `usize`.
pub(crate) fn shape_size(op: &'static str, shape: &[usize]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |acc, &n| acc.checked_mul(n))
        .ok_or_else(|| Error::Shape {
            op,
            detail: format!("the size of shape {shape:?} overflows usize"),
        })
}

/// A shape error with a formatted detail.
pub(crate) fn shape_error(op: &'static str, detail: impl Into<String>) -> Error {
    Error::Shape {
        op,
        detail: detail.into(),
    }
}

impl<T> Array<T> {
    /// An array of the given shape from its row-major content; the content length must be the
    /// product of the shape.
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`](crate::Error::LengthMismatch) when the content length is not the size of the shape; [`Error::Shape`](crate::Error::Shape) when that size overflows.
    ///
    /// ```
    /// use flatland_runtime::moa::Array;
    /// assert!(Array::from_vec(vec![2, 2], vec![1, 2, 3, 4]).is_ok());
    /// assert!(Array::from_vec(vec![2, 2], vec![1, 2, 3]).is_err());
    /// let empty: Array<i64> = Array::from_vec(vec![2, 0], vec![]).unwrap();
    /// assert!(empty.is_empty());
    /// ```
    pub fn from_vec(shape: impl Into<Vec<usize>>, content: Vec<T>) -> Result<Self> {
        let shape = shape.into();
        let n = shape_size("Array::from_vec", &shape)?;
        if n != content.len() {
            return Err(Error::LengthMismatch {
                op: "Array::from_vec",
                expected: n,
                found: content.len(),
            });
        }
        Ok(Self::from_content(shape, content))
    }

    /// An array of the given shape over a shared content buffer, without copying it: the dense
    /// counterpart of a nested array's flat store.
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`](crate::Error::LengthMismatch) when the content length is not the size of the shape; [`Error::Shape`](crate::Error::Shape) when that size overflows.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use flatland_runtime::moa::Array;
    /// let store: Arc<[f64]> = Arc::from(vec![1.0, 2.0, 3.0, 4.0]);
    /// let a = Array::from_parts(vec![2, 2], store.clone()).unwrap();
    /// assert!(Arc::ptr_eq(&a.to_parts().1, &store));
    /// ```
    pub fn from_parts(shape: impl Into<Vec<usize>>, content: Arc<[T]>) -> Result<Self> {
        let shape = shape.into();
        let n = shape_size("Array::from_parts", &shape)?;
        if n != content.len() {
            return Err(Error::LengthMismatch {
                op: "Array::from_parts",
                expected: n,
                found: content.len(),
            });
        }
        Ok(Self {
            shape: shape.into(),
            data: content,
            offset: 0,
            len: n,
        })
    }

    /// The shape and the content as a shared buffer. The buffer is shared without copying when
    /// this array spans all of it; a view (from psi, take, drop, ...) copies its part.
    ///
    /// ```
    /// use flatland_runtime::moa::Array;
    /// let a = Array::from_vec(vec![3], vec![1, 2, 3]).unwrap();
    /// let (shape, content) = a.take(-2).unwrap().to_parts();
    /// assert_eq!((shape, &content[..]), (vec![2], &[2, 3][..]));
    /// ```
    pub fn to_parts(&self) -> (Vec<usize>, Arc<[T]>)
    where
        T: Clone,
    {
        let content = if self.offset == 0 && self.len == self.data.len() {
            self.data.clone()
        } else {
            stats::record_alloc::<T>(self.len);
            stats::record_copied(self.len as u64);
            Arc::from(self.as_slice())
        };
        (self.shape.to_vec(), content)
    }

    /// A new array owning the content of a vector of a known-valid shape (internal constructor;
    /// records the allocation; the vector's elements are moved into a shared buffer).
    pub(crate) fn from_content(shape: Vec<usize>, content: Vec<T>) -> Self {
        debug_assert_eq!(shape.iter().product::<usize>(), content.len());
        stats::record_alloc::<T>(content.len());
        let len = content.len();
        Self {
            shape: shape.into(),
            data: content.into(),
            offset: 0,
            len,
        }
    }

    /// A new array over a freshly computed shared buffer of a known-valid shape (internal
    /// constructor; records the allocation).
    pub(crate) fn from_arc(shape: Vec<usize>, data: Arc<[T]>) -> Self {
        debug_assert_eq!(shape.iter().product::<usize>(), data.len());
        stats::record_alloc::<T>(data.len());
        let len = data.len();
        Self {
            shape: shape.into(),
            data,
            offset: 0,
            len,
        }
    }

    /// The shared buffer and this array's offset into it (internal: the bridge to nested arrays).
    pub(crate) fn shared(&self) -> (Arc<[T]>, usize) {
        (self.data.clone(), self.offset)
    }

    /// An array of `shape` over `data[offset..offset + size]` without copying (internal; the
    /// caller guarantees the range lies inside `data`).
    pub(crate) fn window(shape: Vec<usize>, data: Arc<[T]>, offset: usize) -> Self {
        let len = shape.iter().product::<usize>();
        debug_assert!(offset + len <= data.len());
        Self {
            shape: shape.into(),
            data,
            offset,
            len,
        }
    }

    /// A view of `len` elements of this array's buffer starting `start` elements into this
    /// array, with a new shape (internal; shape and range are the caller's invariant).
    pub(crate) fn view(&self, shape: Vec<usize>, start: usize, len: usize) -> Self {
        debug_assert_eq!(shape.iter().product::<usize>(), len);
        debug_assert!(start + len <= self.len || len == 0);
        let offset = if len == 0 {
            self.offset
        } else {
            self.offset + start
        };
        Self {
            shape: shape.into(),
            data: self.data.clone(),
            offset,
            len,
        }
    }

    /// The scalar (shape `[]`) holding `x`.
    ///
    /// ```
    /// use flatland_runtime::moa::Array;
    /// let s = Array::scalar(3.5);
    /// assert_eq!((s.dim(), s.size(), s.shape()), (0, 1, &[][..]));
    /// ```
    pub fn scalar(x: T) -> Self {
        Self::from_content(Vec::new(), vec![x])
    }

    /// The vector (shape `[n]`) holding `xs`.
    ///
    /// ```
    /// use flatland_runtime::moa::Array;
    /// assert_eq!(Array::vector(vec![1, 2, 3]).shape(), &[3]);
    /// ```
    pub fn vector(xs: Vec<T>) -> Self {
        Self::from_content(vec![xs.len()], xs)
    }

    /// The array of the given shape with every element `x` (`shape` reshape the scalar `x`).
    ///
    /// # Errors
    ///
    /// [`Error::Shape`](crate::Error::Shape) when the size of the shape overflows.
    ///
    /// ```
    /// use flatland_runtime::moa::Array;
    /// let z = Array::filled(vec![2, 3], 0i64).unwrap();
    /// assert_eq!(z.as_slice(), &[0; 6]);
    /// ```
    pub fn filled(shape: impl Into<Vec<usize>>, x: T) -> Result<Self>
    where
        T: Clone,
    {
        let shape = shape.into();
        let n = shape_size("Array::filled", &shape)?;
        Ok(Self::from_arc(shape, super::buffer::filled(n, &x)))
    }

    /// The shape, `ρ`, as a slice.
    ///
    /// ```
    /// use flatland_runtime::moa::Array;
    /// assert_eq!(Array::scalar(1).shape(), &[] as &[usize]);
    /// ```
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// `ρ ξ`: the shape as a vector (a one-dimensional array), as Definition 4 gives it.
    ///
    /// ```
    /// use flatland_runtime::moa::Array;
    /// let a = Array::filled(vec![2, 2], 'x').unwrap();
    /// assert_eq!(a.rho(), Array::vector(vec![2, 2]));
    /// assert_eq!(Array::scalar(1).rho().shape(), &[0]);
    /// ```
    pub fn rho(&self) -> Array<usize> {
        Array::vector(self.shape.to_vec())
    }

    /// `δ ξ`, the dimensionality: the length of the shape (0 for a scalar).
    ///
    /// ```
    /// use flatland_runtime::moa::Array;
    /// assert_eq!(Array::filled(vec![5, 5, 2], 0).unwrap().dim(), 3);
    /// ```
    pub fn dim(&self) -> usize {
        self.shape.len()
    }

    /// `τ ξ`, the total size: the product of the shape (1 for a scalar, 0 for an empty array).
    ///
    /// ```
    /// use flatland_runtime::moa::Array;
    /// assert_eq!(Array::filled(vec![3, 4], 0).unwrap().size(), 12);
    /// assert_eq!(Array::scalar(0).size(), 1);
    /// ```
    pub fn size(&self) -> usize {
        self.len
    }

    /// Whether the array is empty (`Θ`): some extent of its shape is 0. A scalar is not empty.
    ///
    /// ```
    /// use flatland_runtime::moa::Array;
    /// assert!(Array::<i64>::from_vec(vec![0], vec![]).unwrap().is_empty());
    /// assert!(!Array::scalar(0).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the array is a scalar (shape `[]`).
    ///
    /// ```
    /// use flatland_runtime::moa::Array;
    /// assert!(Array::scalar(1).is_scalar());
    /// assert!(!Array::vector(vec![1]).is_scalar());
    /// ```
    pub fn is_scalar(&self) -> bool {
        self.shape.is_empty()
    }

    /// The content in row-major order (`ξ.κ`).
    ///
    /// ```
    /// use flatland_runtime::moa::Array;
    /// assert_eq!(Array::vector(vec![1, 2]).as_slice(), &[1, 2]);
    /// ```
    pub fn as_slice(&self) -> &[T] {
        &self.data[self.offset..self.offset + self.len]
    }

    /// Flat indexing by a full index (Definition 2): the element at `index`, which must have one
    /// component per dimension, each in range.
    ///
    /// # Errors
    ///
    /// [`Error::Shape`](crate::Error::Shape) for an index of the wrong length, [`Error::IndexOutOfRange`](crate::Error::IndexOutOfRange) (naming the axis as the lane) for a component out of range.
    ///
    /// ```
    /// use flatland_runtime::moa::iota;
    /// // The paper's example after Definition 2: ξ[1, 2, 2] = κ[22] for shape [2, 3, 4].
    /// let a = iota(24).reshape(&[2, 3, 4]).unwrap();
    /// assert_eq!(*a.get(&[1, 2, 2]).unwrap(), 22);
    /// assert!(a.get(&[2, 0, 0]).is_err());
    /// assert!(a.get(&[1, 2]).is_err());
    /// ```
    pub fn get(&self, index: &[usize]) -> Result<&T> {
        if index.len() != self.dim() {
            return Err(shape_error(
                "Array::get",
                format!(
                    "index of length {} for an array of dimensionality {}",
                    index.len(),
                    self.dim()
                ),
            ));
        }
        let offset = checked_offset("Array::get", index, &self.shape)?;
        Ok(&self.as_slice()[offset])
    }

    /// The content as a new vector.
    ///
    /// ```
    /// use flatland_runtime::moa::Array;
    /// assert_eq!(Array::scalar(4).to_vec(), vec![4]);
    /// ```
    pub fn to_vec(&self) -> Vec<T>
    where
        T: Clone,
    {
        self.as_slice().to_vec()
    }
}

/// The row-major offset of an index whose components are checked against `shape` (the index may
/// be shorter than the shape: the offset of the first element of the addressed sub-array, in
/// units of that sub-array's size).
pub(crate) fn checked_offset(op: &'static str, index: &[usize], shape: &[usize]) -> Result<usize> {
    let mut offset = 0usize;
    for (lane, (&i, &n)) in index.iter().zip(shape).enumerate() {
        if i >= n {
            return Err(Error::IndexOutOfRange {
                op,
                lane,
                index: i as i64,
                len: n,
            });
        }
        // Cannot overflow: the result is below the product of a valid shape prefix.
        offset = offset * n + i;
    }
    Ok(offset)
}

impl<T> Clone for Array<T> {
    /// Shares the content (no element is copied).
    fn clone(&self) -> Self {
        Self {
            shape: self.shape.clone(),
            data: self.data.clone(),
            offset: self.offset,
            len: self.len,
        }
    }
}

impl<T: PartialEq> PartialEq for Array<T> {
    fn eq(&self, other: &Self) -> bool {
        self.shape == other.shape && self.as_slice() == other.as_slice()
    }
}

impl<T: Eq> Eq for Array<T> {}

// The buffer, offset and length are the representation of the content, shown as one slice.
#[allow(clippy::missing_fields_in_debug)]
impl<T: fmt::Debug> fmt::Debug for Array<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Array")
            .field("shape", &&*self.shape)
            .field("content", &self.as_slice())
            .finish()
    }
}
