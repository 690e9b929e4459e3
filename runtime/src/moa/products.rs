//! The outer product and the generalised inner product (section 3.4), the latter computed in
//! the MoA operational normal form: loop order `i, k, j` so every access is contiguous, rows
//! lifted into blocks that run in parallel, columns lifted into panels reused across a block.

use std::ops::{Add, Mul};

use rayon::prelude::*;

use super::array::{Array, shape_error};
use super::buffer;
use super::lift::Lift;
use super::reduce::{SHORT, fold_rows_into};
use crate::assoc::{LANES, LEAF};
use crate::{Result, stats};

/// Columns of the right operand folded together (one panel of `B` is reused by a row block).
const PANEL: usize = 64;

/// Rows and columns of one register tile of the result (the `i` and `j` axes lifted once more,
/// for registers: 16 accumulators).
const MR: usize = 4;
const NR: usize = 4;

type Tile<T> = [[T; NR]; MR];

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
        let content = buffer::collect(a.len() * b.len(), |w| {
            for x in a {
                for y in b {
                    w.push(f(x, y));
                }
            }
        });
        stats::record_read((a.len() + b.len()) as u64);
        stats::record_written(content.len() as u64);
        Array::from_arc(shape, content)
    }
}

impl<T: Copy + Send + Sync> Array<T> {
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
        let mut out = buffer::filled(rows * cols, &identity);
        onf_product(
            rows,
            n,
            cols,
            self.as_slice(),
            other.as_slice(),
            &identity,
            &plus,
            &times,
            std::sync::Arc::get_mut(&mut out).expect("a fresh buffer is unique"),
        );
        stats::record_read((rows * n + n * cols) as u64);
        stats::record_written((rows * cols) as u64);
        Ok(Array::from_arc(shape, out))
    }
}

/// The `MR x NR` tile of `A plus.times B` at rows `i..i + MR` and the columns of one packed strip
/// of `B` (`strip[k * NR + j] = B[k, j0 + j]`), folded over `k` with the canonical association
/// (leaves, [`LANES`] lanes, lanes combined pairwise, leaves left to right; exactly
/// [`fold_rows_into`]'s association). Each lane runs `k` in order with the tile's accumulators in
/// registers; every access is contiguous (`A[i, k]` along a row, the strip sequentially).
#[inline(always)]
fn tile_fold<T: Copy>(
    n: usize,
    a: &[T],
    i: usize,
    strip: &[T],
    identity: T,
    plus: &impl Fn(T, T) -> T,
    times: &impl Fn(T, T) -> T,
) -> Tile<T> {
    let rows: [&[T]; MR] = std::array::from_fn(|r| &a[(i + r) * n..(i + r + 1) * n]);
    let panel = |k: usize| -> [T; NR] { std::array::from_fn(|j| strip[k * NR + j]) };
    let product = |k: usize| -> Tile<T> {
        let p = panel(k);
        std::array::from_fn(|r| std::array::from_fn(|j| times(rows[r][k], p[j])))
    };
    let accumulate = |acc: &mut Tile<T>, k: usize| {
        let p = panel(k);
        for (row, acc_row) in rows.iter().zip(acc.iter_mut()) {
            let x = row[k];
            for (c, &y) in acc_row.iter_mut().zip(&p) {
                *c = plus(*c, times(x, y));
            }
        }
    };
    let add = |x: Tile<T>, y: Tile<T>| -> Tile<T> {
        std::array::from_fn(|r| std::array::from_fn(|j| plus(x[r][j], y[r][j])))
    };
    let mut out = [[identity; NR]; MR];
    let mut start = 0;
    while start < n {
        let len = LEAF.min(n - start);
        let leaf = if len < SHORT {
            let mut acc = [[identity; NR]; MR];
            for k in start..start + len {
                accumulate(&mut acc, k);
            }
            acc
        } else {
            let lane = len / LANES;
            let [l0, l1, l2, l3, l4, l5, l6, l7]: [Tile<T>; LANES] = std::array::from_fn(|l| {
                let first = start + l * lane;
                let end = if l == LANES - 1 {
                    start + len
                } else {
                    first + lane
                };
                let mut acc = product(first);
                for k in first + 1..end {
                    accumulate(&mut acc, k);
                }
                acc
            });
            add(add(add(l0, l1), add(l2, l3)), add(add(l4, l5), add(l6, l7)))
        };
        out = add(out, leaf);
        start += len;
    }
    out
}

/// `C = A plus.times B` for row-major `A: rows x n`, `B: n x cols`, into `out: rows x cols`.
///
/// The MoA ONF `i, k, j` with dimension lifting: `i` is lifted into row blocks that run in
/// parallel, `j` into panels of [`PANEL`] columns (a panel of `B` stays in cache while a row block
/// sweeps it) and both again into `MR x NR` register tiles; `k` is lifted into the canonical
/// association's leaves and lanes. Rows and columns left over from whole tiles are folded row by
/// row ([`fold_rows_into`], same association).
#[allow(clippy::too_many_arguments)]
fn onf_product<T: Copy + Send + Sync>(
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
        rows.div_ceil(MR).min(4 * rayon::current_num_threads())
    };
    // Row blocks of whole tiles where possible.
    let lift = Lift::new(rows.div_ceil(MR), blocks).expect("at least one block");
    // B packed into strips of NR columns, each strip k-major (`strip[k * NR + j]`), so the tile
    // kernel reads it sequentially instead of striding over rows of B (a power-of-two stride would
    // also collide in the caches and the TLB). One copy of B, shared by all row blocks.
    let col_tiles = if rows >= MR { cols / NR } else { 0 };
    let tiled_cols = col_tiles * NR;
    let mut packed = Vec::with_capacity(col_tiles * n * NR);
    for t in 0..col_tiles {
        for k in 0..n {
            packed.extend_from_slice(&b[k * cols + t * NR..k * cols + (t + 1) * NR]);
        }
    }
    stats::record_alloc::<T>(packed.len());
    stats::record_copied(packed.len() as u64);
    let packed = &packed;
    let row_block = |tiles: std::ops::Range<usize>, block: &mut [T]| {
        let first_row = tiles.start * MR;
        let block_rows = block.len() / cols;
        let tiled_rows = (block_rows / MR) * MR;
        let mut scratch = Vec::new();
        for c0 in (0..cols).step_by(PANEL) {
            let c1 = (c0 + PANEL).min(cols);
            let t_end = c1.min(tiled_cols).max(c0);
            for t in (0..tiled_rows).step_by(MR) {
                for j0 in (c0..t_end).step_by(NR) {
                    let strip = &packed[(j0 / NR) * n * NR..(j0 / NR + 1) * n * NR];
                    let tile = tile_fold(n, a, first_row + t, strip, *identity, plus, times);
                    for (r, tile_row) in tile.iter().enumerate() {
                        block[(t + r) * cols + j0..(t + r) * cols + j0 + NR]
                            .copy_from_slice(tile_row);
                    }
                }
            }
            for r in 0..block_rows {
                let (lo, hi) = if r < tiled_rows {
                    (t_end, c1)
                } else {
                    (c0, c1)
                };
                if lo == hi {
                    continue;
                }
                let i = first_row + r;
                let a_row = &a[i * n..(i + 1) * n];
                let b_part = |k: usize| &b[k * cols + lo..k * cols + hi];
                // x_k = a[i, k] times B[k, lo..hi], folded over k as it is produced.
                let set = |k: usize, buf: &mut [T]| {
                    for (d, &y) in buf.iter_mut().zip(b_part(k)) {
                        *d = times(a_row[k], y);
                    }
                };
                let add = |k: usize, buf: &mut [T]| {
                    for (d, &y) in buf.iter_mut().zip(b_part(k)) {
                        *d = plus(*d, times(a_row[k], y));
                    }
                };
                fold_rows_into(
                    n,
                    &mut block[r * cols + lo..r * cols + hi],
                    identity,
                    plus,
                    &set,
                    &add,
                    &mut scratch,
                );
            }
        }
    };
    // Blocks are counted in tiles of MR rows; the last block may end on a partial tile.
    let mut parts: Vec<(std::ops::Range<usize>, &mut [T])> = Vec::with_capacity(blocks);
    let mut rest = out;
    for tiles in lift.ranges() {
        let row_end = (tiles.end * MR).min(rows);
        let row_start = (tiles.start * MR).min(rows);
        let (head, tail) = rest.split_at_mut((row_end - row_start) * cols);
        parts.push((tiles, head));
        rest = tail;
    }
    parts
        .into_par_iter()
        .for_each(|(tiles, block)| row_block(tiles, block));
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
    T: Copy + Default + Add<Output = T> + Mul<Output = T> + Send + Sync,
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
