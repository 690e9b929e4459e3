//! Segmented sum and inclusive scan over CSR-style offsets (`offsets.len() == segments + 1`).

use rayon::prelude::*;

/// Sum of each segment, by one sequential loop.
///
/// ```
/// use flatland_cli::harness::baselines::seg::sum_seq;
/// assert_eq!(sum_seq(&[1.0, 2.0, 4.0], &[0, 0, 3]), vec![0.0, 7.0]);
/// ```
pub fn sum_seq(values: &[f64], offsets: &[usize]) -> Vec<f64> {
    offsets
        .windows(2)
        .map(|w| values[w[0]..w[1]].iter().sum())
        .collect()
}

/// Sum of each segment, rayon parallel over segments (what a rayon user writes; a single huge
/// segment runs on one thread).
///
/// ```
/// use flatland_cli::harness::baselines::seg::sum_rayon;
/// assert_eq!(sum_rayon(&[1.0, 2.0, 4.0], &[0, 1, 3]), vec![1.0, 6.0]);
/// ```
pub fn sum_rayon(values: &[f64], offsets: &[usize]) -> Vec<f64> {
    offsets
        .par_windows(2)
        .map(|w| values[w[0]..w[1]].iter().sum())
        .collect()
}

/// Inclusive scan inside each segment, by one sequential loop.
///
/// ```
/// use flatland_cli::harness::baselines::seg::scan_seq;
/// assert_eq!(scan_seq(&[1.0, 2.0, 4.0], &[0, 1, 3]), vec![1.0, 2.0, 6.0]);
/// ```
pub fn scan_seq(values: &[f64], offsets: &[usize]) -> Vec<f64> {
    let mut out = vec![0.0; values.len()];
    for w in offsets.windows(2) {
        let mut acc = 0.0;
        for (o, &v) in out[w[0]..w[1]].iter_mut().zip(&values[w[0]..w[1]]) {
            acc += v;
            *o = acc;
        }
    }
    out
}

/// Inclusive scan inside each segment, rayon parallel over segments.
///
/// ```
/// use flatland_cli::harness::baselines::seg::scan_rayon;
/// assert_eq!(scan_rayon(&[1.0, 2.0, 4.0], &[0, 1, 3]), vec![1.0, 2.0, 6.0]);
/// ```
pub fn scan_rayon(values: &[f64], offsets: &[usize]) -> Vec<f64> {
    let mut out = vec![0.0; values.len()];
    let mut pieces = Vec::with_capacity(offsets.len().saturating_sub(1));
    let mut rest = out.as_mut_slice();
    for w in offsets.windows(2) {
        let (head, tail) = rest.split_at_mut(w[1] - w[0]);
        pieces.push((head, &values[w[0]..w[1]]));
        rest = tail;
    }
    pieces.into_par_iter().for_each(|(o, v)| {
        let mut acc = 0.0;
        for (o, &v) in o.iter_mut().zip(v) {
            acc += v;
            *o = acc;
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::inputs::{dyadic_values, offsets, power_law_lengths};

    #[test]
    fn rayon_matches_sequential() {
        let ls = power_law_lengths(20_000, 1);
        let off = offsets(&ls);
        let xs = dyadic_values(20_000, 2);
        assert_eq!(sum_seq(&xs, &off), sum_rayon(&xs, &off));
        assert_eq!(scan_seq(&xs, &off), scan_rayon(&xs, &off));
        let naive: Vec<f64> = ls
            .iter()
            .scan(0, |s, &l| {
                *s += l;
                Some(xs[*s - l..*s].iter().fold(0.0, |a, b| a + b))
            })
            .collect();
        assert_eq!(sum_seq(&xs, &off), naive);
        assert_eq!(sum_seq(&[], &[0]), Vec::<f64>::new());
    }
}
