//! Per-row standardise-and-clip with `#[vectorise]`: each value scaled about its row's mean with
//! one rounding (`mul_add`) and clamped to `[0, 1]` (`clamp`, which stops with an error naming
//! the lane where Rust's `clamp` would panic), checked against the same Rust per row.
//!
//! `cargo run --example clip`
use flatland::prelude::*;

#[vectorise]
mod k {
    pub fn clip(rows: &[Vec<f64>], scale: f64, lo: f64, hi: f64) -> Vec<Vec<f64>> {
        rows.map(|r| {
            let m = if r.is_empty() {
                0.0
            } else {
                r.sum() / r.len() as f64
            };
            r.map(|x| (x - m).mul_add(scale, 0.5).clamp(lo, hi))
        })
    }
}

fn main() {
    let rows: Vec<Vec<f64>> = (0..1000)
        .map(|i| {
            (0..i % 23)
                .map(|j| f64::from((j * 7 + i) % 19) - 9.0)
                .collect()
        })
        .collect();
    let got = k::clip(&rows, 0.1, 0.0, 1.0);
    for (r, out) in rows.iter().zip(&got) {
        let m = if r.is_empty() {
            0.0
        } else {
            flatland::runtime::assoc::fold(r, 0.0, |a, b| a + b) / r.len() as f64
        };
        let want: Vec<f64> = r
            .iter()
            .map(|&x| (x - m).mul_add(0.1, 0.5).clamp(0.0, 1.0))
            .collect();
        assert_eq!(out, &want);
    }
    assert_eq!(
        got,
        k::plan::clip::reference(&rows, 0.1, 0.0, 1.0).expect("evaluates")
    );
    // Bounds out of order: an error, where Rust's `clamp` panics.
    let e = k::try_clip(&rows, 0.1, 1.0, 0.0).unwrap_err();
    assert!(e.to_string().starts_with("clamp: lane "), "{e}");
    println!("{}", k::plan::explain());
    println!("row 7 clipped: {:?}", got[7]);
    println!("bounds out of order: {e}");
}
