//! Per-row sort with `#[vectorise]`: `rows.map(|r| r.sort())` sorts every row in parallel
//! (element-balanced tasks of whole rows, floats in `total_cmp` order: NaN last, `-0.0` before
//! `0.0`), checked against `sort_by(f64::total_cmp)` per row.
//!
//! `cargo run --example row_sort`
use flatland::prelude::*;

#[vectorise]
mod k {
    pub fn sort_rows(rows: &[Vec<f64>]) -> Vec<Vec<f64>> {
        rows.map(|r| r.sort())
    }

    pub fn ranks(rows: &[Vec<f64>]) -> Vec<Vec<i64>> {
        rows.map(|r| r.argsort())
    }
}

fn main() {
    let rows: Vec<Vec<f64>> = (0..2000)
        .map(|i| {
            (0..i % 21)
                .map(|j| match (i + j) % 50 {
                    0 => f64::NAN,
                    1 => -0.0,
                    v => f64::from((v * 7919) % 101) - 50.0,
                })
                .collect()
        })
        .collect();
    let sorted = k::sort_rows(&rows);
    for (r, s) in rows.iter().zip(&sorted) {
        let mut want = r.clone();
        want.sort_by(f64::total_cmp);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(s), bits(&want));
    }
    let ranks = k::ranks(&rows);
    assert_eq!(ranks, k::plan::ranks::reference(&rows).expect("evaluates"));
    println!("{}", k::plan::explain());
    println!(
        "row 7 {:?} sorted {:?} by {:?}",
        rows[7], sorted[7], ranks[7]
    );
}
