//! Sparse matrix times vector written with `#[vectorise]`: the strategy the run chooses
//! (`smvm_csr`: its per-lane form, a loop over rows whose body rustc compiled, or the executor,
//! whichever measured faster) and its executor path (`smvm_csr_executor`) against a hand-written rayon CSR loop and a sequential
//! CSR loop, in one run, on a power-law matrix (10^6 rows, about 10^7 nonzeros), with 1-thread
//! pools, and on a skewed matrix where one row holds 80% of the nonzeros; plus the bare
//! `seg::fold_s_by` with an index closure, for comparison.
//!
//! `cargo bench --bench vectorise_smvm`

use divan::{Bencher, black_box};
use flatland::vectorise;
use flatland_cli::harness::baselines::smvm::{smvm_rayon as rayon_csr, smvm_seq as sequential_csr};
use flatland_cli::harness::inputs::{power_law_matrix, skewed_matrix};
use flatland_cli::harness::vectorised::nested_rows as nested;
use flatland_cli::io::Csr;

fn main() {
    divan::main();
}

#[vectorise]
mod kernels {
    use flatland::runtime::elt::Nested;

    /// CSR smvm over the columns and values of each row.
    pub fn smvm_csr(cols: &Nested<i64>, vals: &Nested<f64>, v: &[f64]) -> Vec<f64> {
        cols.zip(vals)
            .map(|(cs, xs)| cs.zip(xs).map(|(c, x)| x * v[c]).sum())
    }
}

const ROWS: usize = 1_000_000;
const NNZ: usize = 10_000_000;

/// The harness's power-law matrix (the `smvm` workload of `flatland bench`).
fn power_law() -> Csr {
    power_law_matrix(ROWS, ROWS, NNZ, 1)
}

/// One row (in the middle) holds 80% of the nonzeros, the others share the rest. A row holds at
/// most one entry per column, so the matrix has `NNZ` columns (10^6 columns would cap the heavy
/// row at a third of the nonzeros).
fn skewed() -> Csr {
    skewed_matrix(ROWS, NNZ, NNZ, 2)
}

fn vector(len: usize) -> Vec<f64> {
    (0..len).map(|i| (i % 97) as f64 * 0.5).collect()
}

fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool")
}

#[divan::bench(sample_count = 5)]
fn power_law_macro(b: Bencher) {
    let m = power_law();
    let (c, x) = nested(&m);
    let v = vector(m.cols());
    b.bench_local(|| kernels::smvm_csr(black_box(&c), black_box(&x), black_box(&v)));
}

#[divan::bench(sample_count = 3)]
fn power_law_macro_executor(b: Bencher) {
    let m = power_law();
    let (c, x) = nested(&m);
    let v = vector(m.cols());
    b.bench_local(|| {
        kernels::plan::smvm_csr::executor(black_box(&c), black_box(&x), black_box(&v))
            .expect("runs")
    });
}

#[divan::bench(sample_count = 5)]
fn power_law_rayon_csr(b: Bencher) {
    let m = power_law();
    let v = vector(m.cols());
    b.bench_local(|| rayon_csr(black_box(&m), black_box(&v)));
}

#[divan::bench(sample_count = 5)]
fn power_law_sequential_csr(b: Bencher) {
    let m = power_law();
    let v = vector(m.cols());
    b.bench_local(|| sequential_csr(black_box(&m), black_box(&v)));
}

#[divan::bench(sample_count = 5)]
fn power_law_macro_1thread(b: Bencher) {
    let m = power_law();
    let (c, x) = nested(&m);
    let v = vector(m.cols());
    let pool = one_thread();
    b.bench_local(|| {
        pool.install(|| kernels::try_smvm_csr(black_box(&c), black_box(&x), black_box(&v)))
            .expect("runs")
    });
}

#[divan::bench(sample_count = 5)]
fn skewed_macro(b: Bencher) {
    let m = skewed();
    let (c, x) = nested(&m);
    let v = vector(m.cols());
    b.bench_local(|| kernels::smvm_csr(black_box(&c), black_box(&x), black_box(&v)));
}

#[divan::bench(sample_count = 5)]
fn skewed_rayon_csr(b: Bencher) {
    let m = skewed();
    let v = vector(m.cols());
    b.bench_local(|| rayon_csr(black_box(&m), black_box(&v)));
}

/// The runtime primitive with an index closure (`seg::fold_s_by`, the elements read through
/// bounds-checked indexing, no prefetch): what the compiled row loops improve on.
#[divan::bench(sample_count = 5)]
fn power_law_fold_s_by_raw(b: Bencher) {
    let m = power_law();
    let v = vector(m.cols());
    let lens: Vec<usize> = m.offsets().windows(2).map(|w| w[1] - w[0]).collect();
    let segd = flatland::segd::Segd::from_lengths(lens).expect("segd");
    b.bench_local(|| {
        let (cols, vals, v) = (black_box(m.indices()), black_box(m.values()), black_box(&v));
        flatland::runtime::seg::fold_s_by(&segd, |i| vals[i] * v[cols[i]], 0.0, |a, b| a + b)
    });
}

/// [`power_law_fold_s_by_raw`] on a 1-thread pool: the floor of the 1-thread gate.
#[divan::bench(sample_count = 5)]
fn power_law_fold_s_by_raw_1thread(b: Bencher) {
    let m = power_law();
    let v = vector(m.cols());
    let lens: Vec<usize> = m.offsets().windows(2).map(|w| w[1] - w[0]).collect();
    let segd = flatland::segd::Segd::from_lengths(lens).expect("segd");
    let pool = one_thread();
    b.bench_local(|| {
        let (cols, vals, v) = (black_box(m.indices()), black_box(m.values()), black_box(&v));
        pool.install(|| {
            flatland::runtime::seg::fold_s_by(&segd, |i| vals[i] * v[cols[i]], 0.0, |a, b| a + b)
        })
    });
}
