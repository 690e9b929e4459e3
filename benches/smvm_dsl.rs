//! Sparse matrix times vector through the staged dsl, flattened (unfused: issue 5 adds fusion),
//! against a hand-written rayon CSR loop, on a power-law matrix of 10^6 rows and about 10^7
//! nonzeros.
//!
//! `cargo bench --bench smvm_dsl`

use divan::{Bencher, black_box};
use flatland_vectoriser::exec::{self, Arg};
use flatland_vectoriser::programs;
use rayon::prelude::*;

fn main() {
    divan::main();
}

const ROWS: usize = 1_000_000;
const NNZ: usize = 10_000_000;
const COLS: usize = 1_000_000;

/// CSR offsets, column indices and values; row lengths follow a Zipf law (exponent 1.1) placed
/// at scattered rows.
fn matrix() -> (Vec<usize>, Vec<i64>, Vec<f64>) {
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
    let cols = (0..nnz)
        .map(|k| ((k * 2_654_435_761) % COLS) as i64)
        .collect();
    let vals = (0..nnz).map(|k| (k % 1000) as f64 * 0.001).collect();
    (offsets, cols, vals)
}

fn vector() -> Vec<f64> {
    (0..COLS).map(|i| (i % 97) as f64 * 0.5).collect()
}

#[divan::bench(sample_count = 5)]
fn smvm_dsl_flattened(b: Bencher) {
    let (offsets, cols, vals) = matrix();
    let lens: Vec<usize> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
    let entries = Arg::tuple(vec![Arg::i64s(cols), Arg::f64s(vals)]).unwrap();
    let rows = Arg::arrays(vec![ROWS], Arg::arrays(lens, entries).unwrap()).unwrap();
    let v = Arg::arrays(vec![COLS], Arg::f64s(vector())).unwrap();
    let (p, f) = programs::smvm();
    b.bench_local(|| {
        exec::run_args(p.ir(), f.name(), black_box(vec![rows.clone(), v.clone()])).unwrap()
    });
}

#[divan::bench(sample_count = 5)]
fn smvm_rayon_csr(b: Bencher) {
    let (offsets, cols, vals) = matrix();
    let v = vector();
    b.bench_local(|| {
        let (cols, vals, v) = (black_box(&cols), black_box(&vals), black_box(&v));
        offsets
            .par_windows(2)
            .map(|w| {
                (w[0]..w[1])
                    .map(|k| vals[k] * v[cols[k] as usize])
                    .sum::<f64>()
            })
            .collect::<Vec<f64>>()
    });
}
