//! `Ψ`, MoA indexing (Definitions 16 and 17), with index vectors shorter than the
//! dimensionality and arrays of index vectors.

use super::array::{Array, checked_offset, shape_error, shape_size};
use super::buffer;
use crate::Result;

impl<T> Array<T> {
    /// `i Ψ ξ` (Definition 17): the sub-array addressed by the index vector `i`, which may be
    /// shorter than the shape. `<> Ψ ξ = ξ`; `<i> Ψ ξ` is the `i`-th sub-array along the first axis;
    /// `(u ++ v) Ψ ξ = v Ψ (u Ψ ξ)`. The result is a view: no element is copied.
    ///
    /// Errors: an index longer than the dimensionality, or a component out of range. Indexing an
    /// empty array returns it unchanged, as the paper's rule `i Ψ Θ_ρ = Θ_ρ` says.
    ///
    /// # Errors
    ///
    /// [`Error::Shape`](crate::Error::Shape) for an index longer than the dimensionality, [`Error::IndexOutOfRange`](crate::Error::IndexOutOfRange) (the lane is the axis) for a component out of range.
    ///
    /// ```
    /// use flatland_runtime::moa::iota;
    /// // The paper's example: <1, 0> Ψ of a [5, 5, 2] array is [x10, x11].
    /// let xi = iota(50).reshape(&[5, 5, 2]).unwrap();
    /// let r = xi.psi(&[1, 0]).unwrap();
    /// assert_eq!((r.shape(), r.as_slice()), (&[2][..], &[10, 11][..]));
    /// assert!(xi.psi(&[5]).is_err());
    /// assert!(xi.psi(&[0, 0, 0, 0]).is_err());
    /// ```
    pub fn psi(&self, index: &[usize]) -> Result<Array<T>> {
        if index.len() > self.dim() {
            return Err(shape_error(
                "psi",
                format!(
                    "index of length {} for an array of dimensionality {}",
                    index.len(),
                    self.dim()
                ),
            ));
        }
        if self.is_empty() {
            return Ok(self.clone());
        }
        let (prefix, rest) = self.shape().split_at(index.len());
        let offset = checked_offset("psi", index, prefix)?;
        let cell: usize = rest.iter().product();
        Ok(self.view(rest.to_vec(), offset * cell, cell))
    }

    /// Ψ with an array of index vectors (Mullin's extension of Definition 17): `idx` has shape
    /// `s ++ <k>`; the result has shape `s ++ ρ(i Ψ ξ)` and holds `i Ψ ξ` for every index vector
    /// `i` of `idx` (its last axis). With `idx = ι (ρ ξ)` this gives back `ξ` (Theorem 1).
    ///
    /// # Errors
    ///
    /// [`Error::Shape`](crate::Error::Shape) when `idx` is a scalar or its index vectors are longer than the dimensionality, [`Error::IndexOutOfRange`](crate::Error::IndexOutOfRange) for a component out of range.
    ///
    /// ```
    /// use flatland_runtime::moa::{Array, iota, iota_shape};
    /// let a = iota(12).reshape(&[3, 4]).unwrap();
    /// let all = iota_shape(a.shape()).unwrap();
    /// assert_eq!(a.psi_array(&all).unwrap(), a);
    /// let rows = Array::from_vec(vec![2, 1], vec![2, 0]).unwrap();
    /// assert_eq!(a.psi_array(&rows).unwrap().as_slice(), &[8, 9, 10, 11, 0, 1, 2, 3]);
    /// ```
    pub fn psi_array(&self, idx: &Array<usize>) -> Result<Array<T>>
    where
        T: Clone,
    {
        let Some((&k, outer)) = idx.shape().split_last() else {
            return Err(shape_error(
                "psi",
                "an array of index vectors needs dimensionality >= 1",
            ));
        };
        if k > self.dim() {
            return Err(shape_error(
                "psi",
                format!(
                    "index vectors of length {k} for an array of dimensionality {}",
                    self.dim()
                ),
            ));
        }
        let cell_shape: Vec<usize> = if self.is_empty() {
            self.shape().to_vec()
        } else {
            self.shape()[k..].to_vec()
        };
        let mut shape = outer.to_vec();
        shape.extend_from_slice(&cell_shape);
        let count: usize = outer.iter().product();
        let cell: usize = cell_shape.iter().product();
        let mut subs = Vec::new();
        if cell > 0 {
            for i in 0..count {
                subs.push(self.psi(&idx.as_slice()[i * k..(i + 1) * k])?);
            }
        }
        let total = shape_size("psi", &shape)?;
        let content = buffer::collect(total, |w| {
            for sub in &subs {
                w.extend_from_slice(sub.as_slice());
            }
        });
        crate::stats::record_copied(content.len() as u64);
        Ok(Array::from_arc(shape, content))
    }
}
