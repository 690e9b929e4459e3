//! Segmented sum and scan over power-law row lengths (10^7 elements).
//!
//! `cargo bench --bench seg` compares, in one run:
//! - `fold_s` (canonical association, split by elements) vs a sequential loop over rows and vs
//!   rayon over rows (`par_iter` over row slices);
//! - `scan_s` vs a sequential per-row prefix sum.
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
