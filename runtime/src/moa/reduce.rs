//! Reduction (Definition 23) over the first axis, any axis through a transpose, computed with
//! the canonical association of [`crate::assoc`] for every column.

use std::sync::Arc;

use rayon::prelude::*;

use super::PAR_ELEMENTS;
use super::array::{Array, shape_error};
use super::buffer;
use crate::assoc::{self, LANES, LEAF};
use crate::{Result, stats};

/// Leaves shorter than this are folded in one left-to-right chain by [`assoc::leaf_fold`]
/// (mirrored here; the tests check the bits against `assoc::fold`).
pub(crate) const SHORT: usize = 2 * LANES;

/// Columns folded side by side by one task.
const COLUMNS: usize = 512;

/// `row[j] = op(row[j], other[j])` for every column.
fn combine_into<T: Clone>(row: &mut [T], other: &[T], op: &impl Fn(T, T) -> T) {
    for (r, o) in row.iter_mut().zip(other) {
        *r = op(r.clone(), o.clone());
    }
}

/// Combines lane `j` into lane `i` of `lanes` (rows of width `w`).
fn combine_lanes<T: Clone>(lanes: &mut [T], w: usize, i: usize, j: usize, op: &impl Fn(T, T) -> T) {
    let (lo, hi) = lanes.split_at_mut(j * w);
    combine_into(&mut lo[i * w..(i + 1) * w], &hi[..w], op);
}

/// Folds the rows `x_0, ..., x_{n-1}` (each as wide as `out`) column by column with the canonical
/// association, so `out[c]` gets exactly the bits of `assoc::fold(&[x_0[c], ..., x_{n-1}[c]], ..)`.
///
/// The rows are never materialised: `set(k, buf)` writes row `k` into `buf` and `add(k, buf)`
/// combines it in (`buf[c] = op(buf[c], x_k[c])`), so a product row (`a[i,k] × B[k,..]`) is
/// folded as it is computed. This is the reduction axis lifted into leaves and [`LANES`]
/// contiguous lanes: the dimension lifting of the canonical association. `scratch` is reused
/// between calls.
pub(crate) fn fold_rows_into<T: Clone>(
    n: usize,
    out: &mut [T],
    identity: &T,
    op: &impl Fn(T, T) -> T,
    set: &impl Fn(usize, &mut [T]),
    add: &impl Fn(usize, &mut [T]),
    scratch: &mut Vec<T>,
) {
    let w = out.len();
    out.fill(identity.clone());
    if w == 0 {
        return;
    }
    scratch.clear();
    scratch.resize(LANES * w, identity.clone());
    let mut start = 0;
    while start < n {
        let len = LEAF.min(n - start);
        if len < SHORT {
            let leaf = &mut scratch[..w];
            leaf.fill(identity.clone());
            for k in start..start + len {
                add(k, leaf);
            }
        } else {
            let lane = len / LANES;
            for j in 0..LANES {
                let buf = &mut scratch[j * w..(j + 1) * w];
                let first = start + j * lane;
                let end = if j == LANES - 1 {
                    start + len
                } else {
                    first + lane
                };
                set(first, buf);
                for k in first + 1..end {
                    add(k, buf);
                }
            }
            // ((l0 ⊕ l1) ⊕ (l2 ⊕ l3)) ⊕ ((l4 ⊕ l5) ⊕ (l6 ⊕ l7)), as assoc::leaf_fold.
            for (i, j) in [(0, 1), (2, 3), (0, 2), (4, 5), (6, 7), (4, 6), (0, 4)] {
                combine_lanes(scratch, w, i, j, op);
            }
        }
        combine_into(out, &scratch[..w], op);
        start += len;
    }
}

impl<T: Clone + Send + Sync> Array<T> {
    /// `red_⊕ ξ` (Definition 23): reduces along the first axis with the associative `op` and its
    /// identity; the result has shape `1 ↓ ρ ξ` (Proposition 3). Reducing an empty array gives
    /// `(1 ↓ ρ) ρ̂ identity`: `Θ_[0,4,5]` reduces to a `[4, 5]` array of the identity. Scalars
    /// cannot be reduced.
    ///
    /// Every column is folded with the canonical association (`assoc::fold`), so float results are
    /// the same bits for every thread count.
    ///
    /// # Errors
    ///
    /// [`Error::Shape`](crate::Error::Shape) for a scalar argument.
    ///
    /// ```
    /// use flatland_runtime::moa::{Array, iota};
    /// let a = iota(6).reshape(&[2, 3]).unwrap();
    /// assert_eq!(a.reduce(0, |x, y| x + y).unwrap().as_slice(), &[3, 5, 7]);
    /// let empty = Array::<i64>::from_vec(vec![0, 4, 5], vec![]).unwrap();
    /// let r = empty.reduce(1, |x, y| x * y).unwrap();
    /// assert_eq!((r.shape(), r.as_slice()), (&[4, 5][..], &[1; 20][..]));
    /// assert!(Array::scalar(1).reduce(0, |x, y| x + y).is_err());
    /// ```
    pub fn reduce(&self, identity: T, op: impl Fn(T, T) -> T + Sync) -> Result<Array<T>> {
        let Some((&n, rest)) = self.shape().split_first() else {
            return Err(shape_error(
                "reduce",
                "needs an array of dimensionality >= 1, got a scalar",
            ));
        };
        let m: usize = rest.iter().product();
        let src = self.as_slice();
        stats::record_read(src.len() as u64);
        stats::record_written(m as u64);
        let content = if m == 1 {
            let leaves: Vec<T> = if n >= PAR_ELEMENTS {
                src.par_chunks(LEAF)
                    .map(|l| assoc::leaf_fold(l, identity.clone(), &op))
                    .collect()
            } else {
                src.chunks(LEAF)
                    .map(|l| assoc::leaf_fold(l, identity.clone(), &op))
                    .collect()
            };
            Arc::from([assoc::combine_leaves(identity, leaves, &op)])
        } else {
            let mut out = buffer::filled(m, &identity);
            let slots = Arc::get_mut(&mut out).expect("a fresh buffer is unique");
            let fold_block = |(b, block): (usize, &mut [T])| {
                let c0 = b * COLUMNS;
                let w = block.len();
                let set = |k: usize, buf: &mut [T]| {
                    buf.clone_from_slice(&src[k * m + c0..k * m + c0 + w]);
                };
                let add = |k: usize, buf: &mut [T]| {
                    combine_into(buf, &src[k * m + c0..k * m + c0 + w], &op);
                };
                fold_rows_into(n, block, &identity, &op, &set, &add, &mut Vec::new());
            };
            if n * m >= PAR_ELEMENTS {
                slots
                    .par_chunks_mut(COLUMNS)
                    .enumerate()
                    .for_each(fold_block);
            } else {
                slots.chunks_mut(COLUMNS).enumerate().for_each(fold_block);
            }
            out
        };
        Ok(Array::from_arc(rest.to_vec(), content))
    }

    /// Reduces along `axis` (Example 1 of the paper: transpose the axis to the front, then
    /// [`reduce`](Self::reduce)); the remaining axes keep their order.
    ///
    /// # Errors
    ///
    /// [`Error::Shape`](crate::Error::Shape) for an axis out of range (a scalar has none).
    ///
    /// ```
    /// use flatland_runtime::moa::iota;
    /// let a = iota(6).reshape(&[2, 3]).unwrap();
    /// assert_eq!(a.reduce_axis(1, 0, |x, y| x + y).unwrap().as_slice(), &[3, 12]);
    /// assert!(a.reduce_axis(2, 0, |x, y| x + y).is_err());
    /// ```
    pub fn reduce_axis(
        &self,
        axis: usize,
        identity: T,
        op: impl Fn(T, T) -> T + Sync,
    ) -> Result<Array<T>> {
        let d = self.dim();
        if axis >= d {
            return Err(shape_error(
                "reduce_axis",
                format!("axis {axis} of an array of dimensionality {d}"),
            ));
        }
        let perm: Vec<usize> = std::iter::once(axis)
            .chain((0..d).filter(|&x| x != axis))
            .collect();
        self.transpose(&perm)?.reduce(identity, op)
    }
}
