//! Dimension lifting (section 6.3 of the paper): an axis of `n` is reshaped into `p` blocks of
//! about `n / p`, the outer (block) axis runs in parallel and each block sequentially.

use std::ops::Range;

use rayon::prelude::*;

use super::array::{Array, shape_error};
use crate::{Error, Result};

/// A lifted axis: `0..n` cut into `p` contiguous blocks whose lengths differ by at most one (the
/// first `n mod p` blocks take one extra element: the remainder). With `p` dividing `n` it is the
/// reshape `<n>` to `<p, n/p>`; the lifted index of `i` is `<block, offset>`.
///
/// ```
/// use flatland_runtime::moa::Lift;
/// let l = Lift::new(10, 4).unwrap();
/// let blocks: Vec<_> = l.ranges().collect();
/// assert_eq!(blocks, vec![0..3, 3..6, 6..8, 8..10]);
/// assert_eq!(l.locate(7), (2, 1));
/// // Outer axis in parallel, inner sequential: sums of the blocks.
/// let sums = l.par_map(|r| r.sum::<usize>());
/// assert_eq!(sums, vec![3, 12, 13, 17]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lift {
    n: usize,
    p: usize,
}

impl Lift {
    /// Lifts an axis of `n` into `p >= 1` blocks (`p > n` leaves `p - n` empty blocks).
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`](crate::Error::Invalid) when `p` is 0.
    ///
    /// ```
    /// use flatland_runtime::moa::Lift;
    /// assert!(Lift::new(8, 0).is_err());
    /// assert_eq!(Lift::new(2, 3).unwrap().block(2), 2..2);
    /// ```
    pub fn new(n: usize, p: usize) -> Result<Lift> {
        if p == 0 {
            return Err(Error::Invalid {
                op: "Lift::new",
                detail: format!("cannot lift an axis of {n} into 0 blocks"),
            });
        }
        Ok(Lift { n, p })
    }

    /// Lifts an axis of `n` into blocks of about `grain` elements (at least one block).
    ///
    /// ```
    /// use flatland_runtime::moa::Lift;
    /// assert_eq!(Lift::with_grain(100, 30).blocks(), 4);
    /// assert_eq!(Lift::with_grain(0, 30).blocks(), 1);
    /// ```
    pub fn with_grain(n: usize, grain: usize) -> Lift {
        Lift {
            n,
            p: n.div_ceil(grain.max(1)).max(1),
        }
    }

    /// The length of the lifted axis.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::moa::Lift::new(10, 4).unwrap().len(), 10);
    /// ```
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the lifted axis is empty.
    ///
    /// ```
    /// assert!(flatland_runtime::moa::Lift::new(0, 4).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The number of blocks, `p`.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::moa::Lift::new(10, 4).unwrap().blocks(), 4);
    /// ```
    pub fn blocks(&self) -> usize {
        self.p
    }

    /// The elements of block `b` (`b < p`).
    ///
    /// ```
    /// assert_eq!(flatland_runtime::moa::Lift::new(10, 4).unwrap().block(1), 3..6);
    /// ```
    pub fn block(&self, b: usize) -> Range<usize> {
        assert!(b < self.p, "Lift::block: block {b} of {}", self.p);
        let (q, r) = (self.n / self.p, self.n % self.p);
        let start = b * q + b.min(r);
        start..start + q + usize::from(b < r)
    }

    /// The lifted index `(block, offset)` of element `i < n`.
    ///
    /// ```
    /// use flatland_runtime::moa::Lift;
    /// let l = Lift::new(10, 4).unwrap();
    /// assert!((0..10).all(|i| { let (b, o) = l.locate(i); l.block(b).start + o == i }));
    /// ```
    pub fn locate(&self, i: usize) -> (usize, usize) {
        assert!(i < self.n, "Lift::locate: element {i} of {}", self.n);
        let (q, r) = (self.n / self.p, self.n % self.p);
        // The first r blocks hold q + 1 elements (r > 0 implies p >= 2, so q + 1 cannot overflow).
        let big = if r == 0 { 0 } else { r * (q + 1) };
        let b = if i < big {
            i / (q + 1)
        } else {
            r + (i - big) / q
        };
        (b, i - self.block(b).start)
    }

    /// The blocks in order.
    ///
    /// ```
    /// let l = flatland_runtime::moa::Lift::new(4, 2).unwrap();
    /// assert_eq!(l.ranges().collect::<Vec<_>>(), vec![0..2, 2..4]);
    /// ```
    pub fn ranges(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        (0..self.p).map(|b| self.block(b))
    }

    /// Runs `f` on every block, blocks in parallel, and returns the results in block order.
    ///
    /// ```
    /// let l = flatland_runtime::moa::Lift::new(6, 3).unwrap();
    /// assert_eq!(l.par_map(|r| r.len()), vec![2, 2, 2]);
    /// ```
    pub fn par_map<R: Send>(&self, f: impl Fn(Range<usize>) -> R + Sync + Send) -> Vec<R> {
        (0..self.p)
            .into_par_iter()
            .map(|b| f(self.block(b)))
            .collect()
    }

    /// Splits `data` (`n` rows of `row_len` elements) into the blocks' rows and runs `f(rows,
    /// block_data)` on every block, blocks in parallel. `data.len()` must be `n * row_len`.
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`](crate::Error::LengthMismatch) when `data.len() != n * row_len`.
    ///
    /// ```
    /// let l = flatland_runtime::moa::Lift::new(3, 2).unwrap();
    /// let mut m = vec![0; 6];
    /// l.par_rows_mut(&mut m, 2, |rows, block| {
    ///     for (i, x) in block.iter_mut().enumerate() { *x = rows.start * 2 + i; }
    /// }).unwrap();
    /// assert_eq!(m, vec![0, 1, 2, 3, 4, 5]);
    /// ```
    pub fn par_rows_mut<T: Send>(
        &self,
        data: &mut [T],
        row_len: usize,
        f: impl Fn(Range<usize>, &mut [T]) + Sync + Send,
    ) -> Result<()> {
        let expected = self.n.checked_mul(row_len);
        if expected != Some(data.len()) {
            return Err(Error::LengthMismatch {
                op: "Lift::par_rows_mut",
                expected: expected.unwrap_or(usize::MAX),
                found: data.len(),
            });
        }
        let mut parts = Vec::with_capacity(self.p);
        let mut rest = data;
        for r in self.ranges() {
            let (head, tail) = rest.split_at_mut(r.len() * row_len);
            parts.push((r, head));
            rest = tail;
        }
        parts.into_par_iter().for_each(|(r, block)| f(r, block));
        Ok(())
    }
}

impl<T> Array<T> {
    /// Lifts `axis` of extent `n` into two axes `<p, n / p>` (a reshape: a view, no copy); `p`
    /// must divide `n` (use [`Lift`] for the blocks of an uneven split). The paper's example: an
    /// `8 x 16` array over 2 processors and vector registers of 8 becomes `2 x 4 x 2 x 8`.
    ///
    /// # Errors
    ///
    /// [`Error::Shape`](crate::Error::Shape) for an axis out of range or a `p` that does not divide its extent.
    ///
    /// ```
    /// use flatland_runtime::moa::iota;
    /// let a = iota(128).reshape(&[8, 16]).unwrap();
    /// let l = a.lift(0, 2).unwrap().lift(2, 2).unwrap();
    /// assert_eq!(l.shape(), &[2, 4, 2, 8]);
    /// assert_eq!(l.get(&[1, 2, 1, 3]).unwrap(), a.get(&[6, 11]).unwrap());
    /// assert!(a.lift(1, 3).is_err());
    /// ```
    pub fn lift(&self, axis: usize, p: usize) -> Result<Array<T>> {
        let d = self.dim();
        if axis >= d {
            return Err(shape_error(
                "lift",
                format!("axis {axis} of an array of dimensionality {d}"),
            ));
        }
        let n = self.shape()[axis];
        if p == 0 || n % p != 0 {
            return Err(shape_error(
                "lift",
                format!("{p} blocks do not divide axis {axis} of extent {n}"),
            ));
        }
        let mut shape = self.shape()[..axis].to_vec();
        shape.extend([p, n / p]);
        shape.extend_from_slice(&self.shape()[axis + 1..]);
        Ok(self.view(shape, 0, self.size()))
    }
}
