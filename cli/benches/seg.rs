//! Segmented sum and scan over power-law row lengths (10^7 elements).
//!
//! `cargo bench --bench seg` compares, in one run:
//! - `fold_s` (canonical association, split by elements) vs a sequential loop over rows and vs
//!   rayon over rows (`par_iter` over row slices);
//! - `scan_s` vs a sequential per-row prefix sum;
//! - smvm-like short rows: `fold_s_by` with a gather (`vals[k] * v[cols[k]]`) over a power-law
//!   matrix of 10^6 rows and about 10^7 nonzeros (most rows hold one element), vs a sequential
//!   CSR loop and a rayon row loop, each also on a one-thread pool.
//!
//! On a machine loaded by other work, wall-clock ratios of parallel code are noise; run the built
//! binary at real-time priority for a clean comparison, e.g.
//! `cargo bench --bench seg --no-run && chrt -f 50 target/release/deps/seg-<hash> --bench`.

use divan::{Bencher, black_box};
use flatland_runtime::seg;
use flatland_segd::Segd;
use rayon::prelude::*;

fn main() {
    divan::main();
}

const ELEMENTS: usize = 10_000_000;

/// Power-law row lengths (Zipf, exponent 1.1): a few rows hold much of the data, many are tiny.
fn power_law() -> (Segd, Vec<f64>) {
    let rows = 200_000;
    let w: Vec<f64> = (1..=rows).map(|i| 1.0 / (i as f64).powf(1.1)).collect();
    let sum: f64 = w.iter().sum();
    let mut lengths: Vec<usize> = w
        .iter()
        .map(|x| (x / sum * ELEMENTS as f64) as usize)
        .collect();
    let short = ELEMENTS - lengths.iter().sum::<usize>();
    // Spread the rounding remainder as rows of length 1, shuffled in by position.
    for i in 0..short {
        lengths[(i * 7919) % rows] += 1;
    }
    let segd = Segd::from_lengths(lengths).unwrap();
    let data = (0..ELEMENTS)
        .map(|i| ((i * 2_654_435_761) % 1000) as f64 * 0.001)
        .collect();
    (segd, data)
}

fn rows<'a>(segd: &Segd, data: &'a [f64]) -> Vec<&'a [f64]> {
    segd.iter().map(|(s, l)| &data[s..s + l]).collect()
}

#[divan::bench]
fn sum_flatland_fold_s(b: Bencher) {
    let (segd, data) = power_law();
    b.bench_local(|| seg::fold_s(&segd, black_box(&data), 0.0, |a, b| a + b).unwrap());
}

/// `fold_s` on a one-thread pool: the per-core cost of the canonical association.
#[divan::bench]
fn sum_flatland_fold_s_one_thread(b: Bencher) {
    let (segd, data) = power_law();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    b.bench_local(|| {
        pool.install(|| seg::fold_s(&segd, black_box(&data), 0.0, |a, b| a + b).unwrap())
    });
}

#[divan::bench]
fn sum_sequential_loop(b: Bencher) {
    let (segd, data) = power_law();
    b.bench_local(|| {
        let data = black_box(&data);
        segd.iter()
            .map(|(s, l)| data[s..s + l].iter().sum::<f64>())
            .collect::<Vec<f64>>()
    });
}

#[divan::bench]
fn sum_rayon_over_rows(b: Bencher) {
    let (segd, data) = power_law();
    let rows = rows(&segd, &data);
    b.bench_local(|| {
        black_box(&rows)
            .par_iter()
            .map(|r| r.iter().sum::<f64>())
            .collect::<Vec<f64>>()
    });
}

#[divan::bench]
fn scan_flatland_scan_s(b: Bencher) {
    let (segd, data) = power_law();
    b.bench_local(|| seg::scan_s(&segd, black_box(&data), 0.0, |a, b| a + b).unwrap());
}

#[divan::bench]
fn scan_sequential_loop(b: Bencher) {
    let (segd, data) = power_law();
    b.bench_local(|| {
        let data = black_box(&data);
        let mut out = vec![0.0; data.len()];
        for (s, l) in segd.iter() {
            let mut acc = 0.0;
            for (o, x) in out[s..s + l].iter_mut().zip(&data[s..s + l]) {
                acc += x;
                *o = acc;
            }
        }
        out
    });
}

const ROWS: usize = 1_000_000;
const NNZ: usize = 10_000_000;

/// A CSR matrix (`offsets`, `cols`, `vals`) with Zipf (exponent 1.1) row lengths placed at
/// scattered rows, and a dense vector.
struct Csr {
    segd: Segd,
    offsets: Vec<usize>,
    cols: Vec<usize>,
    vals: Vec<f64>,
    v: Vec<f64>,
}

fn csr() -> Csr {
    let w: Vec<f64> = (1..=ROWS).map(|i| 1.0 / (i as f64).powf(1.1)).collect();
    let sum: f64 = w.iter().sum();
    let mut lens = vec![0usize; ROWS];
    for (i, x) in w.iter().enumerate() {
        lens[(i * 7919) % ROWS] = (x / sum * (NNZ - ROWS) as f64) as usize + 1;
    }
    let mut offsets = vec![0];
    for l in &lens {
        offsets.push(offsets.last().unwrap() + l);
    }
    let nnz = *offsets.last().unwrap();
    Csr {
        segd: Segd::from_lengths(lens).unwrap(),
        offsets,
        cols: (0..nnz).map(|k| (k * 2_654_435_761) % ROWS).collect(),
        vals: (0..nnz).map(|k| (k % 1000) as f64 * 0.001).collect(),
        v: (0..ROWS).map(|i| (i % 97) as f64 * 0.5).collect(),
    }
}

fn smvm_fold_s_by(m: &Csr) -> Vec<f64> {
    let (cols, vals, v) = (black_box(&m.cols), black_box(&m.vals), black_box(&m.v));
    seg::fold_s_by(&m.segd, |k| vals[k] * v[cols[k]], 0.0, |a, b| a + b)
}

fn smvm_sequential(m: &Csr) -> Vec<f64> {
    let (cols, vals, v) = (black_box(&m.cols), black_box(&m.vals), black_box(&m.v));
    m.offsets
        .windows(2)
        .map(|w| (w[0]..w[1]).map(|k| vals[k] * v[cols[k]]).sum::<f64>())
        .collect()
}

fn smvm_rayon(m: &Csr) -> Vec<f64> {
    let (cols, vals, v) = (black_box(&m.cols), black_box(&m.vals), black_box(&m.v));
    m.offsets
        .par_windows(2)
        .map(|w| (w[0]..w[1]).map(|k| vals[k] * v[cols[k]]).sum::<f64>())
        .collect()
}

fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
}

#[divan::bench(sample_count = 20)]
fn smvm_flatland_fold_s_by(b: Bencher) {
    let m = csr();
    b.bench_local(|| smvm_fold_s_by(&m));
}

#[divan::bench(sample_count = 20)]
fn smvm_rayon_rows(b: Bencher) {
    let m = csr();
    b.bench_local(|| smvm_rayon(&m));
}

#[divan::bench(sample_count = 20)]
fn smvm_sequential_csr(b: Bencher) {
    let m = csr();
    b.bench_local(|| smvm_sequential(&m));
}

#[divan::bench(sample_count = 20)]
fn smvm_flatland_fold_s_by_one_thread(b: Bencher) {
    let m = csr();
    let pool = one_thread();
    b.bench_local(|| pool.install(|| smvm_fold_s_by(&m)));
}

#[divan::bench(sample_count = 20)]
fn smvm_rayon_rows_one_thread(b: Bencher) {
    let m = csr();
    let pool = one_thread();
    b.bench_local(|| pool.install(|| smvm_rayon(&m)));
}
