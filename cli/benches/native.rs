//! Native kernels against the expression machine: the `#[vectorise]` kernels run by the
//! flattened executor (`NAME_executor`) with the macro's ahead-of-time compiled kernels on
//! (`native = true`) and off (`native = false`, every elementwise program interpreted by the
//! register machine), in one run. Both give the same bits; the ratio is what compiling the
//! elementwise bodies with rustc buys over interpreting them.
//!
//! `program_*` benches evaluate the largest program of `shade` alone over 10^6 lanes (native
//! kernel vs the machine): what the compiled loop is worth where nothing else runs.
//!
//! `cargo bench --bench native`

use divan::{Bencher, black_box};
use flatland::runtime::expr::{Column, ColumnRef, CompiledExpr, ScalarType, native};
use flatland::vectoriser::exec::{ExecOptions, Prepared};
use flatland_cli::harness::inputs::{Rng, dyadic_values};
use flatland_cli::kernels;

fn main() {
    divan::main();
}

#[flatland::vectorise]
mod k {
    /// A scalar-heavy map (a select, a shared subtree, ten operators per element).
    pub fn shade(xs: &[f64], ys: &[f64], k: f64) -> Vec<f64> {
        xs.zip(ys).map(|(x, y)| {
            let t = x * y + k;
            if t > 0.5 {
                (t - x) * (t + y)
            } else {
                (x - y).abs().sqrt() * k
            }
        })
    }

    /// A per-row redomap with a select in its body (the fused redomap kernel's block programs).
    pub fn rows(xs: &[Vec<f64>], w: f64) -> Vec<f64> {
        xs.map(|r| r.map(|x| if x < w { x * w } else { x - w }).sum())
    }
}

const NATIVE: [bool; 2] = [true, false];

#[divan::bench(args = NATIVE, sample_count = 9)]
fn shade_1e6(b: Bencher, on: bool) {
    let (xs, ys) = (dyadic_values(1_000_000, 1), dyadic_values(1_000_000, 2));
    native::set_enabled(on);
    b.bench_local(|| k::plan::shade::executor(black_box(&xs), black_box(&ys), 0.25).expect("runs"));
    native::set_enabled(true);
}

#[divan::bench(args = NATIVE, sample_count = 9)]
fn rows_1e6(b: Bencher, on: bool) {
    let mut rng = Rng::new(3);
    let rows: Vec<Vec<f64>> = (0..100_000)
        .map(|_| (0..rng.below(20)).map(|_| rng.dyadic()).collect())
        .collect();
    native::set_enabled(on);
    b.bench_local(|| k::plan::rows::executor(black_box(&rows), 0.5).expect("runs"));
    native::set_enabled(true);
}

#[divan::bench(args = NATIVE, sample_count = 5)]
fn quicksort_1e5(b: Bencher, on: bool) {
    let xs = dyadic_values(100_000, 4);
    native::set_enabled(on);
    b.bench_local(|| kernels::plan::quicksort_f64::executor(black_box(&xs)).expect("runs"));
    native::set_enabled(true);
}

#[divan::bench(args = NATIVE, sample_count = 5)]
fn primes_1e6(b: Bencher, on: bool) {
    native::set_enabled(on);
    b.bench_local(|| kernels::plan::primes::executor(black_box(1_000_000)).expect("runs"));
    native::set_enabled(true);
}

#[divan::bench(args = NATIVE, sample_count = 5)]
fn hull_1e5(b: Bencher, on: bool) {
    let mut rng = Rng::new(5);
    let pts: Vec<(f64, f64)> = (0..100_000).map(|_| (rng.unit(), rng.unit())).collect();
    native::set_enabled(on);
    b.bench_local(|| kernels::plan::hull::executor(black_box(&pts)).expect("runs"));
    native::set_enabled(true);
}

/// The program of `shade` with the most instructions (native once `k::plan::program()` registered
/// the module's kernels), and input columns of 10^6 lanes for it.
fn shade_program() -> (CompiledExpr, Vec<Column>) {
    let prepared =
        Prepared::new(k::plan::program(), "shade", &ExecOptions::default()).expect("checks");
    let p = prepared
        .expression_programs()
        .into_iter()
        .max_by_key(|p| p.instructions().len())
        .expect("programs");
    assert!(p.is_native());
    let n = 1_000_000;
    let cols = p
        .input_types()
        .iter()
        .enumerate()
        .map(|(k, t)| match t {
            ScalarType::F64 => Column::F64(dyadic_values(n, 10 + k as u64)),
            ScalarType::I64 => Column::I64((0..n as i64).collect()),
            ScalarType::Bool => Column::Bool((0..n).map(|i| i % 3 == 0).collect()),
        })
        .collect();
    (p, cols)
}

#[divan::bench(args = NATIVE, sample_count = 15)]
fn program_shade_1e6(b: Bencher, on: bool) {
    let (p, cols) = shade_program();
    let p = if on { p } else { p.interpreted() };
    let refs: Vec<ColumnRef<'_>> = cols.iter().map(ColumnRef::from).collect();
    b.bench_local(|| p.eval(black_box(&refs), 1_000_000).expect("runs"));
}
