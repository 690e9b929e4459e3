//! The flattened executor on smvm (the gate: the staged dsl smvm at most 2x the
//! hand-written rayon CSR loop): `programs::smvm` run by `exec::run_args` (checked and fused on
//! every call, as the harness's dsl variant ran it) and by a prepared program
//! (`exec::Prepared`: checked and fused once), against the rayon CSR loop, in one run, on the
//! harness's power-law matrix (10^6 rows, about 10^7 nonzeros).
//!
//! `cargo bench --bench exec_smvm`

use divan::{Bencher, black_box};
use flatland_cli::harness::baselines::smvm::smvm_rayon;
use flatland_cli::harness::dsl::{csr_rows, f64s, floats};
use flatland_cli::harness::inputs::power_law_matrix;
use flatland_cli::io::Csr;
use flatland_vectoriser::exec::{self, ExecOptions, Prepared};
use flatland_vectoriser::programs;

fn main() {
    divan::main();
}

const ROWS: usize = 1_000_000;
const NNZ: usize = 10_000_000;

fn matrix() -> Csr {
    power_law_matrix(ROWS, ROWS, NNZ, 1)
}

fn vector() -> Vec<f64> {
    (0..ROWS).map(|i| (i % 97) as f64 * 0.5).collect()
}

#[divan::bench(sample_count = 5)]
fn rayon_csr(b: Bencher) {
    let (m, v) = (matrix(), vector());
    b.bench_local(|| smvm_rayon(black_box(&m), black_box(&v)));
}

#[divan::bench(sample_count = 5)]
fn dsl_prepared(b: Bencher) {
    let (m, v) = (matrix(), vector());
    let (p, f) = programs::smvm();
    let prepared = Prepared::new(p.ir(), f.name(), &ExecOptions::default()).expect("checks");
    let (rows, x) = (csr_rows(&m), floats(&v));
    b.bench_local(|| {
        f64s(
            &prepared
                .run_args(vec![rows.clone(), x.clone()])
                .expect("runs"),
        )
    });
}

#[divan::bench(sample_count = 5)]
fn dsl_run_args(b: Bencher) {
    let (m, v) = (matrix(), vector());
    let (p, f) = programs::smvm();
    let (rows, x) = (csr_rows(&m), floats(&v));
    b.bench_local(|| {
        f64s(&exec::run_args(p.ir(), f.name(), vec![rows.clone(), x.clone()]).expect("runs"))
    });
}

/// The runtime primitive the direct path calls (`seg::fold_s_by` with a hand-written element
/// closure): the floor of the executor's fused smvm.
#[divan::bench(sample_count = 5)]
fn fold_s_by_raw(b: Bencher) {
    let (m, v) = (matrix(), vector());
    let lens: Vec<usize> = m.offsets().windows(2).map(|w| w[1] - w[0]).collect();
    let segd = flatland::segd::Segd::from_lengths(lens).expect("segd");
    b.bench_local(|| {
        let (cols, vals, v) = (black_box(m.indices()), black_box(m.values()), black_box(&v));
        flatland::runtime::seg::fold_s_by(&segd, |i| vals[i] * v[cols[i]], 0.0, |a, b| a + b)
    });
}
