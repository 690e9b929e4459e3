//! Fusion: staged smvm, fused (single-pass segmented redomap with the gather `v[i]`
//! inside) against the unfused flattened steps and a hand-written rayon CSR loop on a power-law
//! matrix of 10^6 rows and about 10^7 nonzeros; the Fusion 2.0 program on 10^7 `f64`, fused
//! (the mega step: one pass over the input, taken by the cost model on the machine's profile)
//! against unfused, and fused with the mega step declined (a profile where operators are dear),
//! in one run. The goal: fused at least 1.3x faster than unfused.
//!
//! `cargo bench --bench fusion`

use divan::{Bencher, black_box};
use flatland_cli::harness::baselines::smvm::smvm_rayon;
use flatland_cli::harness::dsl::{Dsl, csr_rows, floats};
use flatland_cli::harness::inputs::power_law_matrix;
use flatland_cli::io::Csr;
use flatland_runtime::cost::{Machine, with_machine};
use flatland_vectoriser::exec::{self, Arg, ExecOptions};
use flatland_vectoriser::fuse;

fn main() {
    divan::main();
}

const ROWS: usize = 1_000_000;
const NNZ: usize = 10_000_000;
const N: usize = 10_000_000;

/// The harness's power-law matrix (the `smvm` workload of `flatland bench`) and a dense vector.
fn inputs() -> (Csr, Vec<f64>) {
    let m = power_law_matrix(ROWS, ROWS, NNZ, 1);
    (m, (0..ROWS).map(|i| (i % 97) as f64 * 0.5).collect())
}

fn smvm(b: Bencher, fuse: bool) {
    let (m, v) = inputs();
    let (rows, v) = (csr_rows(&m), floats(&v));
    let dsl = Dsl::smvm().fused(fuse);
    b.bench_local(|| dsl.run(black_box(vec![rows.clone(), v.clone()])));
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
    let (m, v) = inputs();
    b.bench_local(|| smvm_rayon(black_box(&m), black_box(&v)));
}

fn fusion2(b: Bencher, fuse: bool, machine: Option<Machine>) {
    let data: Vec<f64> = (0..N)
        .map(|i| ((i * 2_654_435_761) % 200_000) as f64 / 1000.0)
        .collect();
    let a = Arg::arrays(vec![N], Arg::f64s(data)).unwrap();
    let p = fuse::fusion2();
    let opts = ExecOptions { fuse };
    let run = || exec::run_args_with(&p, "fusion2", black_box(vec![a.clone()]), &opts).unwrap();
    match machine {
        Some(m) => b.bench_local(|| with_machine(m, run)),
        None => b.bench_local(run),
    }
}

#[divan::bench(sample_count = 5)]
fn fusion2_fused(b: Bencher) {
    fusion2(b, true, None);
}

#[divan::bench(sample_count = 5)]
fn fusion2_unfused(b: Bencher) {
    fusion2(b, false, None);
}

/// Fused, on a profile (50 ns per operator, free memory) where the cost model declines the mega
/// step: the filters run, then the per-class steps (fused where they can be). The profile also
/// steers the runtime's schedules, so this row is indicative only.
#[divan::bench(sample_count = 5)]
fn fusion2_fused_without_mega(b: Bencher) {
    fusion2(b, true, Some(Machine::new(50.0, 0.0, 20_000.0, 2)));
}
