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

/// Rows of one register tile of the result (the `i` axis lifted once more, for registers).
const MR: usize = 4;

/// Columns of one register tile: 4 with 16-byte vector registers (16 `f64` accumulators in 8
/// registers), 8 where AVX is available (32 accumulators in 8 registers).
const NR_SSE: usize = 4;
#[cfg(target_arch = "x86_64")]
const NR_AVX: usize = 8;

type Tile<T, const NR: usize> = [[T; NR]; MR];

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

/// `acc = x_k` for the tile's rows: `acc[r][j] = a_r[k] times strip[k * NR + j]`.
#[inline(always)]
fn tile_set<T: Copy, const NR: usize>(
    acc: &mut Tile<T, NR>,
    rows: &[&[T]; MR],
    strip: &[T],
    k: usize,
    times: &impl Fn(T, T) -> T,
) {
    let p: &[T; NR] = strip[k * NR..(k + 1) * NR]
        .try_into()
        .expect("a strip row has NR elements");
    for (acc_row, row) in acc.iter_mut().zip(rows) {
        let x = row[k];
        for (c, &y) in acc_row.iter_mut().zip(p) {
            *c = times(x, y);
        }
    }
}

/// `acc = acc plus x_k` for the tile's rows.
#[inline(always)]
fn tile_add<T: Copy, const NR: usize>(
    acc: &mut Tile<T, NR>,
    rows: &[&[T]; MR],
    strip: &[T],
    k: usize,
    plus: &impl Fn(T, T) -> T,
    times: &impl Fn(T, T) -> T,
) {
    let p: &[T; NR] = strip[k * NR..(k + 1) * NR]
        .try_into()
        .expect("a strip row has NR elements");
    for (acc_row, row) in acc.iter_mut().zip(rows) {
        let x = row[k];
        for (c, &y) in acc_row.iter_mut().zip(p) {
            *c = plus(*c, times(x, y));
        }
    }
}

/// `x = x plus y`, tile by tile.
#[inline(always)]
fn tile_combine<T: Copy, const NR: usize>(
    x: &mut Tile<T, NR>,
    y: &Tile<T, NR>,
    plus: &impl Fn(T, T) -> T,
) {
    for (xr, yr) in x.iter_mut().zip(y) {
        for (a, &b) in xr.iter_mut().zip(yr) {
            *a = plus(*a, b);
        }
    }
}

/// The `MR x NR` tile of `A plus.times B` at rows `i..i + MR` and the columns of one packed strip
/// of `B` (`strip[k * NR + j] = B[k, j0 + j]`), folded over `k` with the canonical association
/// (leaves, [`LANES`] lanes, lanes combined pairwise, leaves left to right; exactly
/// [`fold_rows_into`]'s association). Each lane runs `k` in order with the tile's accumulators in
/// registers; every access is contiguous (`A[i, k]` along a row, the strip sequentially). No
/// closures, so the whole kernel is compiled with its caller's target features.
#[inline(always)]
fn tile_fold<T: Copy, const NR: usize>(
    n: usize,
    a: &[T],
    i: usize,
    strip: &[T],
    identity: T,
    plus: &impl Fn(T, T) -> T,
    times: &impl Fn(T, T) -> T,
) -> Tile<T, NR> {
    let rows: [&[T]; MR] = [
        &a[i * n..(i + 1) * n],
        &a[(i + 1) * n..(i + 2) * n],
        &a[(i + 2) * n..(i + 3) * n],
        &a[(i + 3) * n..(i + 4) * n],
    ];
    let mut out = [[identity; NR]; MR];
    let mut lanes = [[[identity; NR]; MR]; LANES];
    let mut start = 0;
    while start < n {
        let len = LEAF.min(n - start);
        if len < SHORT {
            let mut acc = [[identity; NR]; MR];
            for k in start..start + len {
                tile_add(&mut acc, &rows, strip, k, plus, times);
            }
            lanes[0] = acc;
        } else {
            let lane = len / LANES;
            for (l, slot) in lanes.iter_mut().enumerate() {
                let first = start + l * lane;
                let end = if l == LANES - 1 {
                    start + len
                } else {
                    first + lane
                };
                // The lane's accumulators live in registers; the lane's result is stored once.
                let mut acc = [[identity; NR]; MR];
                tile_set(&mut acc, &rows, strip, first, times);
                for k in first + 1..end {
                    tile_add(&mut acc, &rows, strip, k, plus, times);
                }
                *slot = acc;
            }
            // ((l0 ⊕ l1) ⊕ (l2 ⊕ l3)) ⊕ ((l4 ⊕ l5) ⊕ (l6 ⊕ l7)), as assoc::leaf_fold.
            for (x, y) in [(0, 1), (2, 3), (0, 2), (4, 5), (6, 7), (4, 6), (0, 4)] {
                let (lo, hi) = lanes.split_at_mut(y);
                tile_combine(&mut lo[x], &hi[0], plus);
            }
        }
        tile_combine(&mut out, &lanes[0], plus);
        start += len;
    }
    out
}

/// The operands of one product, shared by the row-block tasks.
struct Onf<'a, T, P, M> {
    n: usize,
    cols: usize,
    a: &'a [T],
    b: &'a [T],
    /// `B`'s first `tiled_cols` columns in strips of the tile width, each strip k-major.
    packed: Vec<T>,
    tiled_cols: usize,
    identity: T,
    plus: &'a P,
    times: &'a M,
}

/// `C = A plus.times B` for row-major `A: rows x n`, `B: n x cols`, into `out: rows x cols`.
///
/// The MoA ONF `i, k, j` with dimension lifting: `i` is lifted into row blocks that run in
/// parallel, `j` into panels of [`PANEL`] columns (a panel of `B` stays in cache while a row block
/// sweeps it) and both again into `MR x NR` register tiles; `k` is lifted into the canonical
/// association's leaves and lanes. Rows and columns left over from whole tiles are folded row by
/// row ([`fold_rows_into`], same association). On x86-64 CPUs with AVX the row blocks run a copy
/// of the same code compiled for AVX with wider tiles: the same IEEE operations in the same order
/// (no fused multiply-add), so the same bits.
#[allow(clippy::too_many_arguments)]
fn onf_product<T: Copy + Send + Sync, P: Fn(T, T) -> T + Sync, M: Fn(T, T) -> T + Sync>(
    rows: usize,
    n: usize,
    cols: usize,
    a: &[T],
    b: &[T],
    identity: &T,
    plus: &P,
    times: &M,
    out: &mut [T],
) {
    onf_product_on(true, rows, n, cols, a, b, identity, plus, times, out);
}

/// [`onf_product`], with the AVX row blocks when `allow_avx` and the CPU supports AVX, else the
/// portable ones (the tests run both).
#[allow(clippy::too_many_arguments)]
fn onf_product_on<T: Copy + Send + Sync, P: Fn(T, T) -> T + Sync, M: Fn(T, T) -> T + Sync>(
    allow_avx: bool,
    rows: usize,
    n: usize,
    cols: usize,
    a: &[T],
    b: &[T],
    identity: &T,
    plus: &P,
    times: &M,
    out: &mut [T],
) {
    #[cfg(target_arch = "x86_64")]
    let avx = allow_avx && std::arch::is_x86_feature_detected!("avx");
    #[cfg(not(target_arch = "x86_64"))]
    let avx = {
        let _ = allow_avx;
        false
    };
    if rows == 0 || cols == 0 {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    let nr = if avx { NR_AVX } else { NR_SSE };
    #[cfg(not(target_arch = "x86_64"))]
    let nr = NR_SSE;
    // B packed into strips of nr columns, each strip k-major (`strip[k * nr + j]`), so the tile
    // kernel reads it sequentially instead of striding over rows of B (a power-of-two stride would
    // also collide in the caches and the TLB). One copy of B, shared by all row blocks.
    let col_tiles = if rows >= MR { cols / nr } else { 0 };
    let mut packed = Vec::with_capacity(col_tiles * n * nr);
    for t in 0..col_tiles {
        for k in 0..n {
            packed.extend_from_slice(&b[k * cols + t * nr..k * cols + (t + 1) * nr]);
        }
    }
    stats::record_alloc::<T>(packed.len());
    stats::record_copied(packed.len() as u64);
    let onf = Onf {
        n,
        cols,
        a,
        b,
        packed,
        tiled_cols: col_tiles * nr,
        identity: *identity,
        plus,
        times,
    };
    let work = rows.saturating_mul(n).saturating_mul(cols);
    let blocks = if work < PAR_WORK {
        1
    } else {
        rows.div_ceil(MR).min(4 * rayon::current_num_threads())
    };
    // Row blocks of whole tiles where possible; the last block may end on a partial tile.
    let lift = Lift::new(rows.div_ceil(MR), blocks).expect("at least one block");
    let mut parts: Vec<(usize, &mut [T])> = Vec::with_capacity(blocks);
    let mut rest = out;
    for tiles in lift.ranges() {
        let row_start = (tiles.start * MR).min(rows);
        let row_end = (tiles.end * MR).min(rows);
        let (head, tail) = rest.split_at_mut((row_end - row_start) * cols);
        parts.push((row_start, head));
        rest = tail;
    }
    parts.into_par_iter().for_each(|(first_row, block)| {
        #[cfg(target_arch = "x86_64")]
        if avx {
            // SAFETY: `avx` is true only if the CPU supports AVX (detected above).
            unsafe { row_block_avx(&onf, first_row, block) };
            return;
        }
        let _ = avx;
        row_block::<T, P, M, NR_SSE>(&onf, first_row, block);
    });
}

/// [`row_block`] compiled for AVX, with tiles of [`NR_AVX`] columns.
///
/// # Safety
/// The CPU must support AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn row_block_avx<T: Copy, P: Fn(T, T) -> T, M: Fn(T, T) -> T>(
    onf: &Onf<'_, T, P, M>,
    first_row: usize,
    block: &mut [T],
) {
    row_block::<T, P, M, NR_AVX>(onf, first_row, block);
}

/// One row block of the product: the rows `first_row..` that `block` holds, panel by panel,
/// whole `MR x NR` tiles by [`tile_fold`], the rest row by row.
#[inline(always)]
fn row_block<T: Copy, P: Fn(T, T) -> T, M: Fn(T, T) -> T, const NR: usize>(
    onf: &Onf<'_, T, P, M>,
    first_row: usize,
    block: &mut [T],
) {
    let Onf { n, cols, a, b, .. } = *onf;
    let (identity, plus, times) = (onf.identity, onf.plus, onf.times);
    let block_rows = block.len() / cols;
    let tiled_rows = (block_rows / MR) * MR;
    let mut scratch = Vec::new();
    for c0 in (0..cols).step_by(PANEL) {
        let c1 = (c0 + PANEL).min(cols);
        let t_end = c1.min(onf.tiled_cols).max(c0);
        for t in (0..tiled_rows).step_by(MR) {
            for j0 in (c0..t_end).step_by(NR) {
                let strip = &onf.packed[(j0 / NR) * n * NR..(j0 / NR + 1) * n * NR];
                let tile = tile_fold::<T, NR>(n, a, first_row + t, strip, identity, plus, times);
                for (r, tile_row) in tile.iter().enumerate() {
                    block[(t + r) * cols + j0..(t + r) * cols + j0 + NR].copy_from_slice(tile_row);
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
                &identity,
                plus,
                &set,
                &add,
                &mut scratch,
            );
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assoc;

    /// The portable and the AVX row blocks give the bits of the canonical fold.
    #[test]
    fn both_kernels_give_the_canonical_bits() {
        for (m, n, p) in [(9, 40, 21), (12, 4100, 17), (67, 33, 70)] {
            let a: Vec<f64> = (0..m * n)
                .map(|x| ((x * 7919) % 1000) as f64 / 7.0 - 50.0)
                .collect();
            let b: Vec<f64> = (0..n * p)
                .map(|x| ((x * 104_729) % 977) as f64 / 3.0 - 100.0)
                .collect();
            let mut expected = Vec::new();
            for i in 0..m {
                for j in 0..p {
                    let products: Vec<f64> = (0..n).map(|k| a[i * n + k] * b[k * p + j]).collect();
                    expected.push(assoc::fold(&products, 0.0, |x, y| x + y).to_bits());
                }
            }
            for avx in [false, true] {
                let mut out = vec![0.0; m * p];
                onf_product_on(
                    avx,
                    m,
                    n,
                    p,
                    &a,
                    &b,
                    &0.0,
                    &|x, y| x + y,
                    &|x, y| x * y,
                    &mut out,
                );
                let bits: Vec<u64> = out.iter().map(|x| x.to_bits()).collect();
                assert_eq!(bits, expected, "avx={avx} {m}x{n}x{p}");
            }
        }
    }
}
