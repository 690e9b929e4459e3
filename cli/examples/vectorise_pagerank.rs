//! PageRank under `#[vectorise]`: a `for` loop over the iterations carrying the ranks, each
//! iteration a map (every node's rank over its out-degree) and a pull-direction smvm over the
//! in-edges held as `Nested` rows (each row summed in the canonical association).
//!
//! `cargo run -p flatland-cli --example vectorise_pagerank` (the kernel is `flatland_cli::kernels::pagerank`, which the benchmark harness runs too)
use flatland::prelude::*;
use flatland::runtime::assoc;
use flatland_cli::kernels;

/// The same iterations as plain Rust, each row summed with `assoc::fold` (the canonical
/// association `sum()` has under `#[vectorise]`).
fn pagerank_plain(ins: &[Vec<i64>], outdeg: &[f64], iters: i64) -> Vec<f64> {
    let n = outdeg.len() as f64;
    let base = (1.0 - 0.85) / n;
    let mut r = vec![1.0 / n; outdeg.len()];
    for _ in 0..iters {
        let c: Vec<f64> = r
            .iter()
            .zip(outdeg)
            .map(|(&x, &d)| if d > 0.0 { x / d } else { 0.0 })
            .collect();
        r = ins
            .iter()
            .map(|row| {
                let terms: Vec<f64> = row.iter().map(|&u| c[u as usize]).collect();
                assoc::fold(&terms, 0.0, |a, b| a + b) * 0.85 + base
            })
            .collect();
    }
    r
}

fn main() -> Result<()> {
    // A small graph with a power-law-ish in-degree: node v has in-edges from v % 7 + 1 sources.
    let n = 500usize;
    let ins: Vec<Vec<i64>> = (0..n)
        .map(|v| {
            let d = if v % 50 == 0 { 120 } else { v % 7 + 1 };
            (0..d).map(|j| ((v * 31 + j * 17) % n) as i64).collect()
        })
        .collect();
    let mut outdeg = vec![0.0; n];
    for row in &ins {
        for &u in row {
            outdeg[u as usize] += 1.0;
        }
    }
    let mut offsets = vec![0];
    for row in &ins {
        offsets.push(offsets.last().copied().unwrap_or(0) + row.len());
    }
    let nested = Nested::from_offsets(offsets, ins.concat())?;
    let r = kernels::try_pagerank(&nested, &outdeg, 10)?;
    assert_eq!(r, pagerank_plain(&ins, &outdeg, 10));
    assert_eq!(r, kernels::plan::pagerank::executor(&nested, &outdeg, 10)?);
    assert_eq!(r, kernels::plan::pagerank::reference(&nested, &outdeg, 10)?);
    let top = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    println!("largest rank {top:.6}, total {:.6}", r.iter().sum::<f64>());
    Ok(())
}
