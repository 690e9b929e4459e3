//! MoA benchmarks (`flatland_runtime::moa`).
//!
//! - f64 matrix product, `n x n` by `n x n`: `moa::matmul` (the MoA ONF loop order `i, k, j` with
//!   rows lifted into parallel blocks and columns into panels, canonical association over `k`)
//!   against a naive `i, j, k` loop (column access to `B`), a plain sequential `i, k, j` loop
//!   (the ONF without lifting), and `matrixmultiply::dgemm` (single-threaded, packed, SIMD).
//!   The naive loop is also run at 1024 with one sample (it takes seconds).
//! - A 5-operand elementwise expression `(a + b) * c - d / e` over 10^7 f64: eager (one array per
//!   operation), lazy (one fused pass through the expression machine) and a hand-written loop.
//!
//! Run: `cargo bench --bench moa`.

use divan::{Bencher, black_box};
use flatland::moa::{self, Array, ArrayExpr};

fn main() {
    divan::main();
}

fn matrix(n: usize, salt: usize) -> Array<f64> {
    let content: Vec<f64> = (0..n * n)
        .map(|x| ((x * 7919 + salt * 104_729) % 1013) as f64 / 101.0 - 5.0)
        .collect();
    Array::from_vec(vec![n, n], content).unwrap()
}

fn inputs(n: usize) -> (Array<f64>, Array<f64>) {
    (matrix(n, 1), matrix(n, 2))
}

#[divan::bench(args = [256, 512, 1024], sample_count = 5, sample_size = 1)]
fn matmul_moa_onf_lifted(bencher: Bencher, n: usize) {
    let (a, b) = inputs(n);
    bencher.bench(|| moa::matmul(black_box(&a), black_box(&b)).unwrap());
}

#[divan::bench(args = [256, 512, 1024], sample_count = 5, sample_size = 1)]
fn matmul_dgemm(bencher: Bencher, n: usize) {
    let (a, b) = inputs(n);
    bencher.bench(|| {
        let mut c = vec![0.0f64; n * n];
        let (x, y) = (black_box(a.as_slice()), black_box(b.as_slice()));
        // SAFETY: x, y and c are row-major n x n buffers (row stride n, column stride 1), c does
        // not alias x or y, and every pointer is valid for n * n elements.
        unsafe {
            matrixmultiply::dgemm(
                n,
                n,
                n,
                1.0,
                x.as_ptr(),
                n as isize,
                1,
                y.as_ptr(),
                n as isize,
                1,
                0.0,
                c.as_mut_ptr(),
                n as isize,
                1,
            );
        }
        c
    });
}

#[divan::bench(args = [256, 512, 1024], sample_count = 3, sample_size = 1)]
fn matmul_ikj_sequential(bencher: Bencher, n: usize) {
    let (a, b) = inputs(n);
    bencher.bench(|| {
        let (x, y) = (black_box(a.as_slice()), black_box(b.as_slice()));
        let mut c = vec![0.0f64; n * n];
        for i in 0..n {
            let row = &mut c[i * n..(i + 1) * n];
            for k in 0..n {
                let aik = x[i * n + k];
                for (o, &bkj) in row.iter_mut().zip(&y[k * n..(k + 1) * n]) {
                    *o += aik * bkj;
                }
            }
        }
        c
    });
}

#[divan::bench(args = [256, 512, 1024], sample_count = 1, sample_size = 1)]
fn matmul_naive_ijk(bencher: Bencher, n: usize) {
    let (a, b) = inputs(n);
    bencher.bench(|| {
        let (x, y) = (black_box(a.as_slice()), black_box(b.as_slice()));
        let mut c = vec![0.0f64; n * n];
        for i in 0..n {
            for j in 0..n {
                let mut s = 0.0;
                for k in 0..n {
                    s += x[i * n + k] * y[k * n + j];
                }
                c[i * n + j] = s;
            }
        }
        c
    });
}

const ELEMENTS: usize = 10_000_000;

fn vectors() -> Vec<Array<f64>> {
    (0..5)
        .map(|s| {
            Array::vector(
                (0..ELEMENTS)
                    .map(|x| ((x * 31 + s * 17) % 1009) as f64 / 7.0 + 1.0)
                    .collect(),
            )
        })
        .collect()
}

fn five(v: &[Array<f64>]) -> ArrayExpr<f64> {
    (&v[0] + &v[1]) * &v[2] - &v[3] / &v[4]
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn elementwise5_eager(bencher: Bencher) {
    let v = vectors();
    bencher.bench(|| five(black_box(&v)).materialize().unwrap());
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn elementwise5_lazy(bencher: Bencher) {
    let v = vectors();
    bencher.bench(|| moa::lazy(|| five(black_box(&v))).materialize().unwrap());
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn elementwise5_handwritten_loop(bencher: Bencher) {
    let v = vectors();
    bencher.bench(|| {
        let s: Vec<&[f64]> = black_box(&v).iter().map(Array::as_slice).collect();
        (0..ELEMENTS)
            .map(|i| (s[0][i] + s[1][i]) * s[2][i] - s[3][i] / s[4][i])
            .collect::<Vec<f64>>()
    });
}
