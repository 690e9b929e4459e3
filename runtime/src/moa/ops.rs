//! Scalar extension (Definition 22): unary and binary scalar operations applied pointwise.

use super::array::{Array, shape_error};
use super::buffer;
use crate::{Result, stats};

impl<T> Array<T> {
    /// `uop(ξ)`: applies `f` to every element; the shape is unchanged (empty stays empty).
    ///
    /// ```
    /// use flatland_runtime::moa::iota;
    /// let sq = iota(4).map(|x| x * x);
    /// assert_eq!(sq.as_slice(), &[0, 1, 4, 9]);
    /// ```
    pub fn map<U: Send>(&self, f: impl Fn(&T) -> U + Sync) -> Array<U>
    where
        T: Sync,
    {
        let src = self.as_slice();
        stats::record_read(src.len() as u64);
        stats::record_written(src.len() as u64);
        Array::from_arc(
            self.shape().to_vec(),
            buffer::tabulate(src.len(), |i| f(&src[i])),
        )
    }

    /// `ξ op ξ'`: applies `f` pointwise to two arrays of equal shape, or extends a scalar (shape
    /// `[]`) operand to the other's shape. A one-element array that is not a scalar is not
    /// extended: shapes `[1]` and `[3]` do not match.
    ///
    /// # Errors
    ///
    /// [`Error::Shape`](crate::Error::Shape) when the shapes differ and neither operand is a scalar.
    ///
    /// ```
    /// use flatland_runtime::moa::{Array, iota};
    /// let v = iota(3);
    /// assert_eq!(v.zip_with(&v, |a, b| a + b).unwrap().as_slice(), &[0, 2, 4]);
    /// assert_eq!(v.zip_with(&Array::scalar(10), |a, b| a + b).unwrap().as_slice(), &[10, 11, 12]);
    /// assert!(v.zip_with(&Array::vector(vec![10]), |a, b| a + b).is_err());
    /// ```
    pub fn zip_with<U: Sync, V: Send>(
        &self,
        other: &Array<U>,
        f: impl Fn(&T, &U) -> V + Sync,
    ) -> Result<Array<V>>
    where
        T: Sync,
    {
        let (a, b) = (self.as_slice(), other.as_slice());
        let (shape, content): (&[usize], _) = if self.shape() == other.shape() {
            stats::record_read(2 * a.len() as u64);
            (self.shape(), buffer::tabulate(a.len(), |i| f(&a[i], &b[i])))
        } else if other.is_scalar() {
            stats::record_read(a.len() as u64 + 1);
            (self.shape(), buffer::tabulate(a.len(), |i| f(&a[i], &b[0])))
        } else if self.is_scalar() {
            stats::record_read(b.len() as u64 + 1);
            (
                other.shape(),
                buffer::tabulate(b.len(), |i| f(&a[0], &b[i])),
            )
        } else {
            return Err(shape_error(
                "zip_with",
                format!(
                    "shapes {:?} and {:?} differ and neither is a scalar",
                    self.shape(),
                    other.shape()
                ),
            ));
        };
        stats::record_written(content.len() as u64);
        Ok(Array::from_arc(shape.to_vec(), content))
    }
}
