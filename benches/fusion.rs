//! Fusion (issue 5): staged smvm, fused (single-pass segmented redomap with the gather `v[i]`
//! inside) against the unfused flattened steps and a hand-written rayon CSR loop on a power-law
//! matrix of 10^6 rows and about 10^7 nonzeros; the Fusion 2.0 program on 10^7 `f64`, fused
//! against unfused.
//!
//! `cargo bench --bench fusion`

use divan::{Bencher, black_box};
use flatland_vectoriser::exec::{self, Arg, ExecOptions};
use flatland_vectoriser::{fuse, programs};
use rayon::prelude::*;

fn main() {
    divan::main();
}

const ROWS: usize = 1_000_000;
const NNZ: usize = 10_000_000;
const COLS: usize = 1_000_000;
const N: usize = 10_000_000;

/// CSR offsets, column indices and values; row lengths follow a Zipf law (exponent 1.1) placed
/// at scattered rows (the matrix of `benches/smvm_dsl.rs`).
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

fn smvm(b: Bencher, fuse: bool) {
    let (offsets, cols, vals) = matrix();
    let lens: Vec<usize> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
    let entries = Arg::tuple(vec![Arg::i64s(cols), Arg::f64s(vals)]).unwrap();
    let rows = Arg::arrays(vec![ROWS], Arg::arrays(lens, entries).unwrap()).unwrap();
    let v = Arg::arrays(vec![COLS], Arg::f64s(vector())).unwrap();
    let (p, f) = programs::smvm();
    let opts = ExecOptions { fuse };
    b.bench_local(|| {
        exec::run_args_with(
            p.ir(),
            f.name(),
            black_box(vec![rows.clone(), v.clone()]),
            &opts,
        )
        .unwrap()
    });
}

#[divan::bench(sample_count = 5)]
fn smvm_dsl_fused(b: Bencher) {
    smvm(b, true);
}

#[divan::bench(sample_count = 3)]
fn smvm_dsl_unfused(b: Bencher) {
    smvm(b, false);
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

fn fusion2(b: Bencher, fuse: bool) {
    let data: Vec<f64> = (0..N)
        .map(|i| ((i * 2_654_435_761) % 200_000) as f64 / 1000.0)
        .collect();
    let a = Arg::arrays(vec![N], Arg::f64s(data)).unwrap();
    let p = fuse::fusion2();
    let opts = ExecOptions { fuse };
    b.bench_local(|| {
        exec::run_args_with(&p, "fusion2", black_box(vec![a.clone()]), &opts).unwrap()
    });
}

#[divan::bench(sample_count = 3)]
fn fusion2_fused(b: Bencher) {
    fusion2(b, true);
}

#[divan::bench(sample_count = 3)]
fn fusion2_unfused(b: Bencher) {
    fusion2(b, false);
}
