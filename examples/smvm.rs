//! Sparse matrix times dense vector through the staged dsl:
//! `rows.map(|row| row.map(|(i, x)| x * v[i]).sum())`, the vector free in the inner map (it is
//! replicated as virtual segments, never copied).
//!
//! `cargo run --example smvm`
use flatland::vectoriser::programs;

fn main() {
    let (p, smvm) = programs::smvm();
    println!("{}", p.ir());
    let rows: Vec<Vec<(i64, f64)>> = (0..8)
        .map(|r| {
            (0..r)
                .map(|j| (((r * 3 + j) % 10) as i64, j as f64 + 0.5))
                .collect()
        })
        .collect();
    let v: Vec<f64> = (0..10).map(|i| f64::from(i) * 0.25).collect();
    let out = p.exec2(&smvm, rows.clone(), v.clone()).expect("smvm runs");
    assert_eq!(out, p.eval2(&smvm, rows, v).expect("smvm evaluates"));
    println!("{out:?}");
}
