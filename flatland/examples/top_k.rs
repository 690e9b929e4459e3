//! Per-row top-k with `#[vectorise]`: the indices of each row's `k` largest values, by
//! `argsort` of the negated row and `take(k)` (ties keep their order; a row shorter than `k`
//! gives all its indices), and the values gathered at them.
//!
//! `cargo run --example top_k`
use flatland::prelude::*;

#[vectorise]
mod k {
    pub fn top_k(rows: &[Vec<f64>], k: i64) -> Vec<Vec<i64>> {
        rows.map(|r| r.map(|x| -x).argsort().take(k))
    }

    pub fn top_k_values(rows: &[Vec<f64>], k: i64) -> Vec<Vec<f64>> {
        rows.map(|r| r.map(|x| -x).argsort().take(k).map(|i| r[i]))
    }
}

fn main() {
    let rows: Vec<Vec<f64>> = (0..500)
        .map(|i| {
            (0..i % 12)
                .map(|j| f64::from((i * 31 + j * 17) % 23))
                .collect()
        })
        .collect();
    let k = 3;
    let idx = k::top_k(&rows, k);
    let vals = k::top_k_values(&rows, k);
    assert_eq!(idx, k::plan::top_k::reference(&rows, k).expect("evaluates"));
    for ((r, i), v) in rows.iter().zip(&idx).zip(&vals) {
        let mut order: Vec<usize> = (0..r.len()).collect();
        order.sort_by(|&a, &b| r[b].total_cmp(&r[a]));
        let want: Vec<i64> = order.iter().take(3).map(|&j| j as i64).collect();
        assert_eq!(i, &want);
        assert_eq!(v, &want.iter().map(|&j| r[j as usize]).collect::<Vec<_>>());
    }
    println!("{}", k::plan::explain());
    println!(
        "row 11 {:?}: top {k} at {:?} = {:?}",
        rows[11], idx[11], vals[11]
    );
}
