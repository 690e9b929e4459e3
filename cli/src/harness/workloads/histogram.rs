//! `histogram`: counts of `n` keys into `bins` bins (a reduction by index).

use crate::harness::answer::Answer;
use crate::harness::inputs::Rng;
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use rayon::prelude::*;
use std::sync::Arc;

#[flatland::vectorise]
mod kernel {
    /// The histogram as users write it: counts by key in a `for` loop (lowered to `hist`).
    pub fn counts(keys: &[i64], bins: i64) -> Vec<i64> {
        let mut c = vec![0; bins];
        for &k in keys {
            c[k] += 1;
        }
        c
    }
}

/// The sequential loop (every key is in range).
///
/// ```
/// use flatland_cli::harness::workloads::histogram::counts_seq;
/// assert_eq!(counts_seq(&[1, 1, 0], 3), vec![1, 2, 0]);
/// ```
pub fn counts_seq(keys: &[i64], bins: usize) -> Vec<i64> {
    let mut c = vec![0i64; bins];
    for &k in keys {
        c[k as usize] += 1;
    }
    c
}

/// Hand-written rayon: a histogram per chunk of 2^16 keys, added up bin by bin.
///
/// ```
/// use flatland_cli::harness::workloads::histogram::counts_rayon;
/// assert_eq!(counts_rayon(&[1, 1, 0], 3), vec![1, 2, 0]);
/// ```
pub fn counts_rayon(keys: &[i64], bins: usize) -> Vec<i64> {
    keys.par_chunks(1 << 16)
        .fold(
            || vec![0i64; bins],
            |mut c, ks| {
                for &k in ks {
                    c[k as usize] += 1;
                }
                c
            },
        )
        .reduce(
            || vec![0i64; bins],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        )
}

/// A histogram of uniform random keys: the runtime's `flat::count_by_index` (blocks of the
/// canonical association in parallel) and the `#[vectorise]` loop `for &k in keys { c[k] += 1 }`
/// (lowered to `hist`, run by the executor; each call copies the keys into the executor's columns)
/// against the sequential loop and a hand-written rayon fold of per-chunk histograms. The case's
/// input names the bins (`bins-256`, `bins-100000`); its size is the number of keys.
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::Histogram};
/// for input in ["bins-256", "bins-100000"] {
///     let inst = Histogram.prepare(&Case::new(input, 70_000), &Extra::default());
///     let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
///     assert!(answers.iter().all(|a| a == &answers[0]), "{input}");
/// }
/// ```
pub struct Histogram;

impl Workload for Histogram {
    fn name(&self) -> &'static str {
        "histogram"
    }
    fn about(&self) -> &'static str {
        "counts of n uniform keys into 256 or 10^5 bins; flatland = runtime flat::count_by_index; vectorise = #[vectorise] `for &k in keys { c[k] += 1 }` (hist; the strategy the run chooses); vs sequential loop, rayon per-chunk histograms"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        let sizes: &[usize] = match scale {
            Scale::Check => &[0, 1, 70_000],
            Scale::Quick => &[10_000_000],
            Scale::Full => &[1_000_000, 10_000_000],
        };
        ["bins-256", "bins-100000"]
            .iter()
            .flat_map(|b| sizes.iter().map(move |&n| Case::new(b, n)))
            .collect()
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let bins: usize = case
            .input
            .strip_prefix("bins-")
            .and_then(|b| b.parse().ok())
            .expect("a histogram case names its bins");
        let mut r = Rng::new(41 + case.size as u64 + bins as u64);
        let keys: Arc<Vec<i64>> = Arc::new(
            (0..case.size)
                .map(|_| r.below(bins as u64) as i64)
                .collect(),
        );
        let (k1, k2, k3, k4) = (keys.clone(), keys.clone(), keys.clone(), keys);
        Instance {
            elements: case.size as u64,
            bytes: 8 * case.size as u64 + 8 * bins as u64,
            variants: vec![
                Variant::new("flatland", Role::Flatland, true, move || {
                    Answer::Ints(
                        flatland_runtime::flat::count_by_index(bins, &k1)
                            .expect("the bins fit the budget"),
                    )
                }),
                Variant::new("vectorise", Role::Flatland, true, move || {
                    Answer::Ints(kernel::counts(&k2, bins as i64))
                }),
                Variant::new("seq", Role::Baseline, false, move || {
                    Answer::Ints(counts_seq(&k3, bins))
                }),
                Variant::new("rayon", Role::Baseline, true, move || {
                    Answer::Ints(counts_rayon(&k4, bins))
                }),
            ],
        }
    }
}
