//! The outer product and the generalised inner product (section 3.4), the latter computed in
//! the MoA operational normal form: loop order `i, k, j` so every access is contiguous, rows
//! lifted into blocks that run in parallel, columns lifted into panels reused across a block.

use std::ops::{Add, Mul};

use super::array::{Array, shape_error};
use super::lift::Lift;
use super::reduce::fold_rows_into;
use crate::{Result, stats};

/// Columns of the right operand folded together (one panel of `B` is reused by a row block).
const PANEL: usize = 128;

/// Multiply-adds below which the product runs on the calling thread.
const PAR_WORK: usize = 1 << 16;

impl<T> Array<T> {
    /// The outer product `ξ •op ξ'`: shape `ρ ξ ++ ρ ξ'`, element `<i ++ j>` is
    /// `f(i Ψ ξ, j Ψ ξ')` for full indices `i`, `j`.
    ///
    /// ```
    /// use flatland_runtime::moa::iota;
    /// let t = iota(3).outer(&iota(2), |a, b| a * 10 + b);
    /// assert_eq!((t.shape(), t.as_slice()), (&[3, 2][..], &[0, 1, 10, 11, 20, 21][..]));
    /// ```
    pub fn outer<U, V>(&self, other: &Array<U>, f: impl Fn(&T, &U) -> V) -> Array<V> {
        let (a, b) = (self.as_slice(), other.as_slice());
        let mut shape = self.shape().to_vec();
        shape.extend_from_slice(other.shape());
        let content: Vec<V> = a
            .iter()
            .flat_map(|x| b.iter().map(|y| f(x, y)).collect::<Vec<_>>())
            .collect();
        stats::record_read((a.len() + b.len()) as u64);
        stats::record_written(content.len() as u64);
        Array::from_content(shape, content)
    }
}

impl<T: Clone + Send + Sync> Array<T> {
    /// The generalised inner product `ξ plus.times ξ'`: for `ρ ξ = s ++ <n>` and `ρ ξ' = <n> ++ t`,
    /// the result has shape `s ++ t` and `<i ++ j> Ψ result = red_plus over k of
    /// ((<i ++ k> Ψ ξ) times (<k ++ j> Ψ ξ'))`. `plus` must be associative with identity
    /// `identity`; each reduction over `k` uses the canonical association (the bits of
    /// `assoc::fold`), and `n = 0` gives an array of the identity.
    ///
    /// Computed in the ONF loop order `i, k, j` (every access contiguous), the `i` axis lifted into
    /// blocks that run in parallel.
    ///
    /// # Errors
    ///
    /// [`Error::Shape`](crate::Error::Shape) for a scalar operand or inner extents that differ.
    ///
    /// ```
    /// use flatland_runtime::moa::Array;
    /// // max-plus: longest two-step paths.
    /// let w = Array::from_vec(vec![2, 2], vec![0, 3, 1, 0]).unwrap();
    /// let p = w.inner(&w, i64::MIN, |a, b| a.max(b), |a, b| a + b).unwrap();
    /// assert_eq!(p.as_slice(), &[4, 3, 1, 4]);
    /// // and-or: reachability in two steps.
    /// let g = Array::from_vec(vec![2, 2], vec![false, true, true, false]).unwrap();
    /// let r = g.inner(&g, false, |a, b| a || b, |a, b| a && b).unwrap();
    /// assert_eq!(r.as_slice(), &[true, false, false, true]);
    /// ```
    pub fn inner(
        &self,
        other: &Array<T>,
        identity: T,
        plus: impl Fn(T, T) -> T + Sync,
        times: impl Fn(T, T) -> T + Sync,
    ) -> Result<Array<T>> {
        let (Some((&n, s)), Some((&n2, t))) =
            (self.shape().split_last(), other.shape().split_first())
        else {
            return Err(shape_error(
                "inner",
                format!(
                    "needs arrays of dimensionality >= 1, got shapes {:?} and {:?}",
                    self.shape(),
                    other.shape()
                ),
            ));
        };
        if n != n2 {
            return Err(shape_error(
                "inner",
                format!(
                    "inner extents differ: {:?} and {:?}",
                    self.shape(),
                    other.shape()
                ),
            ));
        }
        let rows: usize = s.iter().product();
        let cols: usize = t.iter().product();
        let mut shape = s.to_vec();
        shape.extend_from_slice(t);
        let mut out = vec![identity.clone(); rows * cols];
        onf_product(
            rows,
            n,
            cols,
            self.as_slice(),
            other.as_slice(),
            &identity,
            &plus,
            &times,
            &mut out,
        );
        stats::record_read((rows * n + n * cols) as u64);
        stats::record_written((rows * cols) as u64);
        Ok(Array::from_content(shape, out))
    }
}

/// `C = A plus.times B` for row-major `A: rows x n`, `B: n x cols`, into `out: rows x cols`.
#[allow(clippy::too_many_arguments)]
fn onf_product<T: Clone + Send + Sync>(
    rows: usize,
    n: usize,
    cols: usize,
    a: &[T],
    b: &[T],
    identity: &T,
    plus: &(impl Fn(T, T) -> T + Sync),
    times: &(impl Fn(T, T) -> T + Sync),
    out: &mut [T],
) {
    if rows == 0 || cols == 0 {
        return;
    }
    let work = rows.saturating_mul(n).saturating_mul(cols);
    let blocks = if work < PAR_WORK {
        1
    } else {
        rows.min(4 * rayon::current_num_threads())
    };
    let lift = Lift::new(rows, blocks).expect("at least one block");
    let row_block = |range: std::ops::Range<usize>, block: &mut [T]| {
        let mut scratch = Vec::new();
        for c0 in (0..cols).step_by(PANEL) {
            let w = PANEL.min(cols - c0);
            for i in range.clone() {
                let a_row = &a[i * n..(i + 1) * n];
                let b_panel = |k: usize| &b[k * cols + c0..k * cols + c0 + w];
                // x_k = a[i, k] times B[k, c0..c0 + w], folded over k as it is produced.
                let set = |k: usize, buf: &mut [T]| {
                    let x = &a_row[k];
                    for (d, y) in buf.iter_mut().zip(b_panel(k)) {
                        *d = times(x.clone(), y.clone());
                    }
                };
                let add = |k: usize, buf: &mut [T]| {
                    let x = &a_row[k];
                    for (d, y) in buf.iter_mut().zip(b_panel(k)) {
                        *d = plus(d.clone(), times(x.clone(), y.clone()));
                    }
                };
                let o =
                    &mut block[(i - range.start) * cols + c0..(i - range.start) * cols + c0 + w];
                fold_rows_into(n, o, identity, plus, &set, &add, &mut scratch);
            }
        }
    };
    lift.par_rows_mut(out, cols, row_block)
        .expect("out has rows * cols elements");
}

/// Matrix product of two matrices (`m x n` by `n x p`) over `+` and `×` with `T::default()` as
/// zero: the inner product `+.×` in the ONF loop order with dimension lifting. Errors unless
/// both arguments are matrices with matching inner extents.
///
/// # Errors
///
/// [`Error::Shape`](crate::Error::Shape) unless both arguments are matrices with matching inner extents.
///
/// ```
/// use flatland_runtime::moa::{iota, matmul};
/// let a = iota(12).map(|&x| x as i64).reshape(&[3, 4]).unwrap();
/// let b = iota(12).map(|&x| x as i64 + 12).reshape(&[4, 3]).unwrap();
/// let c = matmul(&a, &b).unwrap();
/// assert_eq!(c.as_slice(), &[114, 120, 126, 378, 400, 422, 642, 680, 718]);
/// ```
pub fn matmul<T>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>>
where
    T: Clone + Default + Add<Output = T> + Mul<Output = T> + Send + Sync,
{
    if a.dim() != 2 || b.dim() != 2 {
        return Err(shape_error(
            "matmul",
            format!(
                "needs two matrices, got shapes {:?} and {:?}",
                a.shape(),
                b.shape()
            ),
        ));
    }
    a.inner(b, T::default(), |x, y| x + y, |x, y| x * y)
}
