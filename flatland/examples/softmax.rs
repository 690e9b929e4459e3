//! Per-row softmax with `#[vectorise]`: every row's maximum, `exp(x - max)`, and the division by
//! the row's sum, all rows at once (flattened), checked against the reference interpreter and a
//! plain Rust loop.
//!
//! `cargo run --example softmax`
use flatland::prelude::*;

#[vectorise]
mod k {
    pub fn softmax(rows: &[Vec<f64>]) -> Vec<Vec<f64>> {
        rows.map(|r| {
            let m = r.max();
            let e = r.map(|x| (x - m).exp());
            let s = e.sum();
            e.map(|x| x / s)
        })
    }
}

fn main() {
    let rows: Vec<Vec<f64>> = (0..1000)
        .map(|i| (0..i % 17).map(|j| f64::from(j * i % 13) - 6.0).collect())
        .collect();
    let got = k::softmax(&rows);
    assert_eq!(got, k::plan::softmax::reference(&rows).expect("evaluates"));
    for (r, s) in rows.iter().zip(&got) {
        let m = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = r.iter().map(|x| (x - m).exp()).collect();
        let total: f64 = e.iter().sum();
        for (a, b) in s.iter().zip(&e) {
            assert!((a - b / total).abs() < 1e-15);
        }
    }
    println!("{}", k::plan::explain());
    println!("softmax of row 5: {:?}", got[5]);
}
