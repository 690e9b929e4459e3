//! Flat sum and inclusive scan of `f64`.

use rayon::prelude::*;

/// The sum by a sequential loop.
///
/// ```
/// use flatland_cli::harness::baselines::flat::sum_seq;
/// assert_eq!(sum_seq(&[1.0, 2.5]), 3.5);
/// ```
pub fn sum_seq(xs: &[f64]) -> f64 {
    xs.iter().sum()
}

/// The sum by rayon (`par_iter().sum()`).
///
/// ```
/// use flatland_cli::harness::baselines::flat::sum_rayon;
/// assert_eq!(sum_rayon(&[1.0, 2.5]), 3.5);
/// ```
pub fn sum_rayon(xs: &[f64]) -> f64 {
    xs.par_iter().sum()
}

/// The inclusive scan by a sequential loop.
///
/// ```
/// use flatland_cli::harness::baselines::flat::scan_seq;
/// assert_eq!(scan_seq(&[1.0, 2.0, 3.0]), vec![1.0, 3.0, 6.0]);
/// ```
pub fn scan_seq(xs: &[f64]) -> Vec<f64> {
    let mut acc = 0.0;
    xs.iter()
        .map(|&x| {
            acc += x;
            acc
        })
        .collect()
}

/// The inclusive scan by a hand-written two-pass rayon scan: chunk totals in parallel, their
/// carries sequentially, then each chunk scanned from its carry in parallel.
///
/// ```
/// use flatland_cli::harness::baselines::flat::{scan_rayon, scan_seq};
/// let xs: Vec<f64> = (0..100_000).map(|i| f64::from(i % 7)).collect();
/// assert_eq!(scan_rayon(&xs), scan_seq(&xs));
/// ```
pub fn scan_rayon(xs: &[f64]) -> Vec<f64> {
    let chunk = xs
        .len()
        .div_ceil(4 * rayon::current_num_threads())
        .max(1 << 14);
    let totals: Vec<f64> = xs.par_chunks(chunk).map(|c| c.iter().sum()).collect();
    let mut carries = Vec::with_capacity(totals.len());
    let mut acc = 0.0;
    for t in totals {
        carries.push(acc);
        acc += t;
    }
    let mut out = vec![0.0; xs.len()];
    out.par_chunks_mut(chunk)
        .zip(xs.par_chunks(chunk))
        .zip(carries)
        .for_each(|((o, x), carry)| {
            let mut acc = carry;
            for (o, &x) in o.iter_mut().zip(x) {
                acc += x;
                *o = acc;
            }
        });
    out
}
