//! Index generation (`ι`, Definitions 14 and 15) and index conversion (`γ`, Definitions 19
//! and 20).

use super::array::{Array, shape_error, shape_size};
use crate::{Error, Result};

/// `ι n` for a scalar `n`: the vector `<0, 1, ..., n-1>` (`ι 0` is the empty vector `<>`).
///
/// ```
/// use flatland_runtime::moa::iota;
/// assert_eq!(iota(3).as_slice(), &[0, 1, 2]);
/// assert_eq!(iota(0).shape(), &[0]);
/// ```
pub fn iota(n: usize) -> Array<usize> {
    Array::vector((0..n).collect())
}

/// `ι v` for a shape vector `v` (Definition 15): the array of shape `v ++ <τ v>` whose content
/// lists every valid index of an array of shape `v` in lexicographic order.
///
/// The paper's limit cases hold: if `v` contains a 0 the result is the empty vector `<>` (shape
/// `[0]`), and `ι <>` is `<>` too: the one (empty) index of a scalar.
///
/// # Errors
///
/// [`Error::Shape`](crate::Error::Shape) when the result's size overflows.
///
/// ```
/// use flatland_runtime::moa::iota_shape;
/// let i = iota_shape(&[3, 4]).unwrap();
/// assert_eq!(i.shape(), &[3, 4, 2]);
/// assert_eq!(&i.as_slice()[..6], &[0, 0, 0, 1, 0, 2]);
/// assert_eq!(iota_shape(&[2, 0, 3]).unwrap().shape(), &[0]);
/// assert_eq!(iota_shape(&[]).unwrap().shape(), &[0]);
/// ```
pub fn iota_shape(v: &[usize]) -> Result<Array<usize>> {
    let n = shape_size("iota", v)?;
    if n == 0 || v.is_empty() {
        return Ok(Array::vector(Vec::new()));
    }
    let d = v.len();
    let total = n
        .checked_mul(d)
        .ok_or_else(|| shape_error("iota", format!("iota {v:?} overflows usize")))?;
    let mut content = Vec::with_capacity(total);
    let mut index = vec![0usize; d];
    for _ in 0..n {
        content.extend_from_slice(&index);
        for axis in (0..d).rev() {
            index[axis] += 1;
            if index[axis] < v[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
    let mut shape = v.to_vec();
    shape.push(d);
    Array::from_vec(shape, content)
}

/// `ι ξ` for a scalar or vector array (both forms of Definition 15); any other dimensionality is
/// an error.
///
/// # Errors
///
/// [`Error::Shape`](crate::Error::Shape) for an argument that is neither a scalar nor a vector, or a result too large.
///
/// ```
/// use flatland_runtime::moa::{Array, iota_of};
/// assert_eq!(iota_of(&Array::scalar(2)).unwrap().as_slice(), &[0, 1]);
/// assert_eq!(iota_of(&Array::vector(vec![2, 2])).unwrap().shape(), &[2, 2, 2]);
/// assert!(iota_of(&Array::filled(vec![1, 1], 1).unwrap()).is_err());
/// ```
pub fn iota_of(a: &Array<usize>) -> Result<Array<usize>> {
    match a.dim() {
        0 => Ok(iota(a.as_slice()[0])),
        1 => iota_shape(a.as_slice()),
        d => Err(shape_error(
            "iota",
            format!("needs a scalar or a vector, got dimensionality {d}"),
        )),
    }
}

fn same_length(op: &'static str, i: &[usize], j: &[usize]) -> Result<()> {
    if i.len() == j.len() {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            op,
            expected: j.len(),
            found: i.len(),
        })
    }
}

fn overflow(op: &'static str) -> Error {
    Error::Invalid {
        op,
        detail: "offset overflows usize".into(),
    }
}

/// `γ_row(i; s)` (Definition 19): the position of index `i` in the row-major content of an array
/// of shape `s`, `γ(<>, <>) = 0` and `γ(i, s) = last(i) + last(s) × γ(drop_last(i), drop_last(s))`.
/// The two vectors must have equal lengths; the components of `i` are not bounds-checked (the
/// definition does not require it).
///
/// # Errors
///
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch) for vectors of different lengths, [`Error::Invalid`](crate::Error::Invalid) when the offset overflows.
///
/// ```
/// use flatland_runtime::moa::gamma_row;
/// assert_eq!(gamma_row(&[1, 2, 3], &[5, 10, 20]).unwrap(), 1 * 10 * 20 + 2 * 20 + 3);
/// assert_eq!(gamma_row(&[], &[]).unwrap(), 0);
/// assert!(gamma_row(&[1], &[2, 2]).is_err());
/// ```
pub fn gamma_row(i: &[usize], s: &[usize]) -> Result<usize> {
    same_length("gamma_row", i, s)?;
    i.iter().zip(s).try_fold(0usize, |acc, (&a, &b)| {
        acc.checked_mul(b)
            .and_then(|x| x.checked_add(a))
            .ok_or_else(|| overflow("gamma_row"))
    })
}

/// `γ_col(i; s)` (Definition 20): the position of index `i` in the column-major content of an
/// array of shape `s`, `γ_col(i, s) = first(i) + first(s) × γ_col(1 ↓ i, 1 ↓ s)`.
///
/// # Errors
///
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch) for vectors of different lengths, [`Error::Invalid`](crate::Error::Invalid) when the offset overflows.
///
/// ```
/// use flatland_runtime::moa::{gamma_col, gamma_row};
/// // In a 2 x 3 matrix, element <1, 2> is at 5 in row-major order and at 1 + 2 * 2 in column-major.
/// assert_eq!(gamma_row(&[1, 2], &[2, 3]).unwrap(), 5);
/// assert_eq!(gamma_col(&[1, 2], &[2, 3]).unwrap(), 5);
/// assert_eq!(gamma_col(&[1, 0], &[2, 3]).unwrap(), 1);
/// assert_eq!(gamma_row(&[1, 0], &[2, 3]).unwrap(), 3);
/// ```
pub fn gamma_col(i: &[usize], s: &[usize]) -> Result<usize> {
    same_length("gamma_col", i, s)?;
    i.iter().zip(s).rev().try_fold(0usize, |acc, (&a, &b)| {
        acc.checked_mul(b)
            .and_then(|x| x.checked_add(a))
            .ok_or_else(|| overflow("gamma_col"))
    })
}

/// The inverse of `γ_row`: the index of the element at row-major position `offset` in an array
/// of shape `s` (`offset` must be below `τ s`).
///
/// # Errors
///
/// [`Error::IndexOutOfRange`](crate::Error::IndexOutOfRange) when `offset >= τ s`.
///
/// ```
/// use flatland_runtime::moa::{gamma_row, gamma_row_inverse};
/// let s = [3, 4, 5];
/// let i = gamma_row_inverse(37, &s).unwrap();
/// assert_eq!(gamma_row(&i, &s).unwrap(), 37);
/// assert!(gamma_row_inverse(60, &s).is_err());
/// ```
pub fn gamma_row_inverse(offset: usize, s: &[usize]) -> Result<Vec<usize>> {
    let n = shape_size("gamma_row_inverse", s)?;
    if offset >= n {
        return Err(Error::IndexOutOfRange {
            op: "gamma_row_inverse",
            lane: 0,
            index: offset as i64,
            len: n,
        });
    }
    let mut rest = offset;
    let mut index = vec![0; s.len()];
    for (slot, &extent) in index.iter_mut().zip(s).rev() {
        *slot = rest % extent;
        rest /= extent;
    }
    Ok(index)
}
