//! The expression machine against the same expression as a hand-fused Rust loop.
//!
//! `(x0 * x1 + x2) * x3 - x4` over 10^7 `f64` elements, each variant allocating its output:
//! - `vm_sequential` / `vm_parallel`: `flatland_runtime::expr::CompiledExpr::eval` with
//!   `Parallelism::Sequential` / `Parallelism::Auto` (rayon over blocks);
//! - `fused_sequential` / `fused_rayon`: one loop over zipped slices / rayon over chunks.
//!
//! `small_vm` / `small_fused`: the same on 4,096 elements (fixed costs); `compile`: building and
//! compiling the expression.
//!
//! Gate: the machine within 3x of the fused loop. Run with `cargo bench --bench expr`.

use flatland_runtime::expr::{ColumnExpr, ColumnRef, CompiledExpr, Parallelism, ScalarType};
use rayon::prelude::*;
use std::sync::LazyLock;

const N: usize = 10_000_000;

static INPUTS: LazyLock<Vec<Vec<f64>>> = LazyLock::new(|| {
    (0..5)
        .map(|k| {
            (0..N)
                .map(|i| ((i * (k + 3)) % 1009) as f64 * 0.25 + 1.0)
                .collect()
        })
        .collect()
});

fn program(par: Parallelism) -> CompiledExpr {
    let x = ColumnExpr::input;
    let e = (x(0) * x(1) + x(2)) * x(3) - x(4);
    CompiledExpr::compile(&e, &[ScalarType::F64; 5])
        .expect("well typed")
        .with_parallelism(par)
}

fn refs() -> Vec<ColumnRef<'static>> {
    INPUTS.iter().map(|c| ColumnRef::F64(c)).collect()
}

#[inline(always)]
fn fused(a: f64, b: f64, c: f64, d: f64, e: f64) -> f64 {
    (a * b + c) * d - e
}

fn fused_into(out: &mut [f64], lo: usize) {
    let x = &*INPUTS;
    let hi = lo + out.len();
    let (a, b, c, d, e) = (
        &x[0][lo..hi],
        &x[1][lo..hi],
        &x[2][lo..hi],
        &x[3][lo..hi],
        &x[4][lo..hi],
    );
    for i in 0..out.len() {
        out[i] = fused(a[i], b[i], c[i], d[i], e[i]);
    }
}

#[divan::bench(sample_count = 20, sample_size = 1)]
fn vm_sequential(bencher: divan::Bencher) {
    let p = program(Parallelism::Sequential);
    let inputs = refs();
    bencher.bench_local(|| p.eval(&inputs, N).expect("no error"));
}

#[divan::bench(sample_count = 20, sample_size = 1)]
fn vm_parallel(bencher: divan::Bencher) {
    let p = program(Parallelism::Auto);
    let inputs = refs();
    bencher.bench_local(|| p.eval(&inputs, N).expect("no error"));
}

#[divan::bench(sample_count = 20, sample_size = 1)]
fn fused_sequential(bencher: divan::Bencher) {
    LazyLock::force(&INPUTS);
    bencher.bench_local(|| {
        let mut out = vec![0.0f64; N];
        fused_into(&mut out, 0);
        out
    });
}

#[divan::bench(sample_count = 20, sample_size = 1)]
fn fused_rayon(bencher: divan::Bencher) {
    LazyLock::force(&INPUTS);
    bencher.bench_local(|| {
        let mut out = vec![0.0f64; N];
        out.par_chunks_mut(1 << 16)
            .enumerate()
            .for_each(|(t, chunk)| fused_into(chunk, t << 16));
        out
    });
}

/// Fixed costs: one leaf (4,096 elements), where the scheduler runs sequentially.
const SMALL: usize = 4096;

#[divan::bench]
fn small_vm(bencher: divan::Bencher) {
    let p = program(Parallelism::Auto);
    let inputs: Vec<ColumnRef<'static>> =
        INPUTS.iter().map(|c| ColumnRef::F64(&c[..SMALL])).collect();
    bencher.bench_local(|| p.eval(&inputs, SMALL).expect("no error"));
}

#[divan::bench]
fn small_fused(bencher: divan::Bencher) {
    LazyLock::force(&INPUTS);
    bencher.bench_local(|| {
        let mut out = vec![0.0f64; SMALL];
        fused_into(&mut out, 0);
        out
    });
}

/// Building and compiling the expression (what a lazy MoA materialisation pays once).
#[divan::bench]
fn compile(bencher: divan::Bencher) {
    bencher.bench_local(|| program(Parallelism::Auto));
}

fn main() {
    divan::main();
}
