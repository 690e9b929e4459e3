//! Structural operators: take and drop (Definitions 11 and 13), rav (Definition 18), reshape
//! (Definition 21) and transpose by a permutation of the axes.

use super::array::{Array, shape_error, shape_size};
use super::buffer;
use crate::{Result, stats};

/// Checks `|s| <= n` for take and drop and splits the shape into its first extent and the size
/// of one sub-array along the first axis.
fn first_axis<T>(op: &'static str, a: &Array<T>, s: i64) -> Result<(usize, usize, usize)> {
    let Some((&n, rest)) = a.shape().split_first() else {
        return Err(shape_error(
            op,
            "needs an array of dimensionality >= 1, got a scalar",
        ));
    };
    let k = s.unsigned_abs();
    if k > n as u64 {
        return Err(shape_error(
            op,
            format!("|{s}| exceeds the first extent {n}"),
        ));
    }
    Ok((n, k as usize, rest.iter().product()))
}

impl<T> Array<T> {
    /// `s ↑ ξ` (Definition 11): the first `s` sub-arrays along the first axis, or the last `-s`
    /// when `s` is negative. Needs dimensionality >= 1 and `|s| <= (ρ ξ)[0]`. A view.
    ///
    /// # Errors
    ///
    /// [`Error::Shape`](crate::Error::Shape) for a scalar argument or `|s|` above the first extent.
    ///
    /// ```
    /// use flatland_runtime::moa::iota;
    /// let xi = iota(60).reshape(&[3, 4, 5]).unwrap();
    /// let t = xi.take(2).unwrap();
    /// assert_eq!(t.shape(), &[2, 4, 5]);
    /// assert_eq!(t.as_slice(), &xi.as_slice()[..40]);
    /// assert_eq!(xi.take(-2).unwrap().as_slice(), &xi.as_slice()[20..]);
    /// assert_eq!(xi.take(0).unwrap().shape(), &[0, 4, 5]);
    /// assert!(xi.take(4).is_err());
    /// ```
    pub fn take(&self, s: i64) -> Result<Array<T>> {
        let (n, k, m) = first_axis("take", self, s)?;
        let mut shape = self.shape().to_vec();
        shape[0] = k;
        let start = if s >= 0 { 0 } else { (n - k) * m };
        Ok(self.view(shape, start, k * m))
    }

    /// `s ↓ ξ` (Definition 13): all but the first `s` sub-arrays along the first axis, or all but
    /// the last `-s` when `s` is negative. Needs dimensionality >= 1 and `|s| <= (ρ ξ)[0]`. A view.
    ///
    /// # Errors
    ///
    /// [`Error::Shape`](crate::Error::Shape) for a scalar argument or `|s|` above the first extent.
    ///
    /// ```
    /// use flatland_runtime::moa::iota;
    /// let xi = iota(60).reshape(&[3, 4, 5]).unwrap();
    /// assert_eq!(xi.drop(1).unwrap().as_slice(), &xi.as_slice()[20..]);
    /// assert_eq!(xi.drop(-1).unwrap().as_slice(), &xi.as_slice()[..40]);
    /// assert_eq!(xi.drop(3).unwrap().shape(), &[0, 4, 5]);
    /// assert!(xi.drop(-4).is_err());
    /// ```
    pub fn drop(&self, s: i64) -> Result<Array<T>> {
        let (n, k, m) = first_axis("drop", self, s)?;
        let mut shape = self.shape().to_vec();
        shape[0] = n - k;
        let start = if s >= 0 { k * m } else { 0 };
        Ok(self.view(shape, start, (n - k) * m))
    }

    /// `rav ξ` (Definition 18): the content as a vector of length `τ ξ`. `rav` of a scalar is a
    /// one-element vector, `rav` of any empty array is `<>`. A view.
    ///
    /// ```
    /// use flatland_runtime::moa::{Array, iota};
    /// assert_eq!(Array::scalar(5).rav().shape(), &[1]);
    /// assert_eq!(iota(6).reshape(&[2, 3]).unwrap().rav(), iota(6));
    /// ```
    pub fn rav(&self) -> Array<T> {
        self.view(vec![self.size()], 0, self.size())
    }

    /// `ρ' ρ̂ ξ` (Definition 21): an array of shape `new_shape` whose content is the content of
    /// `ξ` cut short or repeated cyclically (`κ'[i] = κ[i mod τ ξ]`). Reshaping by `<>` gives the
    /// scalar holding the first element. Views when the new size is at most the old one.
    ///
    /// Errors: filling a non-empty shape from an empty array (the paper requires `ξ ≠ Θ`).
    /// Reshaping to a shape of size 0 needs no element and is allowed for any array.
    ///
    /// # Errors
    ///
    /// [`Error::Shape`](crate::Error::Shape) when a non-empty shape would be filled from an empty array, or the new size overflows.
    ///
    /// ```
    /// use flatland_runtime::moa::{Array, iota};
    /// let v = iota(3);
    /// assert_eq!(v.reshape(&[2, 4]).unwrap().as_slice(), &[0, 1, 2, 0, 1, 2, 0, 1]);
    /// assert_eq!(v.reshape(&[]).unwrap(), Array::scalar(0));
    /// assert_eq!(v.reshape(&[2, 0]).unwrap().shape(), &[2, 0]);
    /// assert!(iota(0).reshape(&[2]).is_err());
    /// ```
    pub fn reshape(&self, new_shape: &[usize]) -> Result<Array<T>>
    where
        T: Clone,
    {
        let target = shape_size("reshape", new_shape)?;
        let n = self.size();
        if target == 0 || target <= n {
            return Ok(self.view(new_shape.to_vec(), 0, target));
        }
        if n == 0 {
            return Err(shape_error(
                "reshape",
                format!(
                    "cannot fill shape {new_shape:?} from the empty array of shape {:?}",
                    self.shape()
                ),
            ));
        }
        let src = self.as_slice();
        let content = buffer::collect(target, |w| {
            for start in (0..target).step_by(n) {
                w.extend_from_slice(&src[..(target - start).min(n)]);
            }
        });
        stats::record_copied(target as u64);
        Ok(Array::from_arc(new_shape.to_vec(), content))
    }

    /// Transposes by a permutation of the axes: axis `i` of the result is axis `perm[i]` of `self`,
    /// so `ρ(result)[i] = ρ(self)[perm[i]]` and `result[j] = self[k]` with `k[perm[i]] = j[i]`.
    /// `perm` must be a permutation of `0..dim`. Copies (unless `perm` is the identity).
    ///
    /// # Errors
    ///
    /// [`Error::Shape`](crate::Error::Shape) when `perm` is not a permutation of the axes.
    ///
    /// ```
    /// use flatland_runtime::moa::iota;
    /// let a = iota(6).reshape(&[2, 3]).unwrap();
    /// let t = a.transpose(&[1, 0]).unwrap();
    /// assert_eq!((t.shape(), t.as_slice()), (&[3, 2][..], &[0, 3, 1, 4, 2, 5][..]));
    /// assert!(a.transpose(&[0, 0]).is_err());
    /// ```
    pub fn transpose(&self, perm: &[usize]) -> Result<Array<T>>
    where
        T: Clone,
    {
        let d = self.dim();
        let mut seen = vec![false; d];
        if perm.len() != d
            || !perm
                .iter()
                .all(|&p| p < d && !std::mem::replace(&mut seen[p], true))
        {
            return Err(shape_error(
                "transpose",
                format!("{perm:?} is not a permutation of 0..{d}"),
            ));
        }
        if perm.iter().enumerate().all(|(i, &p)| i == p) {
            return Ok(self.clone());
        }
        let shape = self.shape();
        let mut strides = vec![1usize; d];
        for axis in (0..d.saturating_sub(1)).rev() {
            strides[axis] = strides[axis + 1] * shape[axis + 1];
        }
        let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
        let out_strides: Vec<usize> = perm.iter().map(|&p| strides[p]).collect();
        let n = self.size();
        let src = self.as_slice();
        let content = buffer::collect(n, |w| {
            if n == 0 {
                return;
            }
            let (last_extent, last_stride) = (out_shape[d - 1], out_strides[d - 1]);
            let mut index = vec![0usize; d - 1];
            let mut base = 0usize;
            loop {
                for j in 0..last_extent {
                    w.push(src[base + j * last_stride].clone());
                }
                // Odometer over the outer axes of the result.
                let mut axis = d - 1;
                loop {
                    if axis == 0 {
                        return;
                    }
                    axis -= 1;
                    index[axis] += 1;
                    base += out_strides[axis];
                    if index[axis] < out_shape[axis] {
                        break;
                    }
                    base -= out_strides[axis] * out_shape[axis];
                    index[axis] = 0;
                }
            }
        });
        stats::record_copied(n as u64);
        Ok(Array::from_arc(out_shape, content))
    }
}
