//! A histogram written as Rust programs write it, `let mut c = vec![0; bins]; for &k in keys {
//! c[k] += 1 }`, and weighted sums by key with `hist`, under `#[vectorise]`.
//!
//! The loop is lowered to a reduction by index (`hist`): the keys are cut into fixed blocks,
//! each block's partial histogram is folded left to right, and the partials are combined in
//! block order, so the bits are the same on any number of threads. A key outside `0..bins` is
//! skipped (where plain Rust would panic).
//!
//! `cargo run -p flatland --example histogram`
use flatland::prelude::*;
use flatland::runtime::assoc;

#[vectorise]
mod h {
    /// Counts by key.
    pub fn counts(keys: &[i64], bins: i64) -> Vec<i64> {
        let mut c = vec![0; bins];
        for &k in keys {
            c[k] += 1;
        }
        c
    }

    /// The sum of the weights of each key, and each key's largest weight.
    pub fn sums_and_max(keys: &[i64], ws: &[f64], bins: i64) -> (Vec<f64>, Vec<f64>) {
        let sums = hist(bins, 0.0, |a, b| a + b, keys, ws);
        let maxes = hist(bins, f64::NEG_INFINITY, |a, b| a.max(b), keys, ws);
        (sums, maxes)
    }
}

fn main() -> Result<()> {
    let bins = 16;
    let keys: Vec<i64> = (0..100_000)
        .map(|i: i64| (i * 7919 + i / 3) % bins)
        .collect();
    let ws: Vec<f64> = (0..100_000).map(|i| f64::from(i % 97) * 0.01).collect();

    let c = h::try_counts(&keys, bins)?;
    // The body as plain Rust gives the same counts.
    let mut plain = vec![0; bins as usize];
    for &k in &keys {
        plain[k as usize] += 1;
    }
    assert_eq!(c, plain);
    assert_eq!(c, h::plan::counts::reference(&keys, bins)?);

    let (sums, maxes) = h::try_sums_and_max(&keys, &ws, bins)?;
    // The sums follow the blocks of `runtime::assoc::hist` (100,000 keys are two blocks).
    let want = assoc::hist(bins as usize, 0.0, &keys, &ws, |a, b| a + b);
    assert_eq!(sums, want);
    assert_eq!(sums, h::plan::sums_and_max::executor(&keys, &ws, bins)?.0);
    let mut top = vec![f64::NEG_INFINITY; bins as usize];
    for (&k, &w) in keys.iter().zip(&ws) {
        top[k as usize] = top[k as usize].max(w);
    }
    assert_eq!(maxes, top);
    println!("counts {:?}\nsums {:?}", &c[..4], &sums[..4]);
    Ok(())
}
