//! `quicksort`: sorting f64 keys.

use crate::harness::answer::Answer;
use crate::harness::dsl::{Dsl, f64s, floats};
use crate::harness::inputs::Rng;
use crate::harness::vectorised;
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use rayon::slice::ParallelSliceMut;
use std::sync::Arc;

/// Quicksort of `n` f64 keys: the harness's dsl program ([`crate::harness::dsl::quicksort_f64`]:
/// middle pivot, three filters, the two outer parts sorted by a recursive call under `map`,
/// flattened by the vectoriser's executor) and the same algorithm under `#[vectorise]`
/// ([`crate::kernels::quicksort_f64`]) against `slice::sort_unstable_by(f64::total_cmp)` and
/// rayon's `par_sort_unstable_by(f64::total_cmp)`.
///
/// Keys are half-integers `k / 2 - n / 8` with `k` uniform in `0..n/2` (seeded), so many keys
/// repeat, and they are never NaN or `-0.0`. On such keys the flatland kernels' IEEE order (`<`,
/// `==`) is `total_cmp`'s, so every answer must be equal element for element. NaN is outside the
/// workload: the kernels would lose NaN keys (see [`crate::kernels`]), where the baselines sort
/// them to the ends.
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::Quicksort};
/// let inst = Quicksort.prepare(&Case::new("random", 5_000), &Extra::default());
/// let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
/// assert!(answers.iter().all(|a| a == &answers[0]));
/// ```
pub struct Quicksort;

/// Largest n also run through the dsl: the flattened quicksort takes about 5 s at 10^6 and grows
/// faster than n log n, so at 10^7 (full suite) only `vectorise` runs (the same bulk steps), once,
/// its warm-up run timed; at 10^6 the flatland variants run 1 (`--quick`) or 3 timed
/// repetitions, and the thread sweep uses 10^5 (`--quick`) or 10^6.
const DSL_MAX: usize = 1_000_000;

/// The keys of a case of size `n`.
fn keys(n: usize) -> Vec<f64> {
    let mut r = Rng::new(51 + n as u64);
    let m = (n as u64 / 2).max(1);
    (0..n)
        .map(|_| r.below(m) as f64 * 0.5 - (m / 4) as f64)
        .collect()
}

impl Workload for Quicksort {
    fn name(&self) -> &'static str {
        "quicksort"
    }
    fn about(&self) -> &'static str {
        "sort n f64 (no NaN); dsl = harness::dsl::quicksort_f64 flattened by the vectoriser's executor (n <= 10^6); vectorise = kernels::quicksort_f64 under #[vectorise] (the strategy the run chooses: per-lane where the function has that form); vs sort_unstable_by(total_cmp), rayon par_sort_unstable_by"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        let case = |n| Case::new("random", n);
        match scale {
            Scale::Check => [0, 1, 2, 3, 1000, 20_000].map(case).to_vec(),
            Scale::Quick => vec![case(100_000), case(1_000_000).with_reps(1)],
            Scale::Full => vec![
                case(100_000),
                case(1_000_000).with_reps(3),
                case(10_000_000).with_reps(0),
            ],
        }
    }
    fn sweep_case(&self, scale: Scale, _: &Extra) -> Option<Case> {
        match scale {
            Scale::Check => None,
            Scale::Quick => Some(Case::new("random", 100_000)),
            Scale::Full => Some(Case::new("random", 1_000_000).with_reps(1)),
        }
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let n = case.size;
        let xs = Arc::new(keys(n));
        let (a, b, c, d) = (xs.clone(), xs.clone(), xs.clone(), xs.clone());
        let mut variants = Vec::new();
        if n <= DSL_MAX {
            let (dsl, xs_v) = (Dsl::quicksort(), floats(&xs));
            variants.push(Variant::new("dsl", Role::Flatland, true, move || {
                Answer::Floats(f64s(&dsl.run(vec![xs_v.clone()])))
            }));
        }
        variants.extend([
            Variant::new("vectorise", Role::Flatland, true, move || {
                Answer::Floats(vectorised::quicksort(&c))
            }),
            Variant::new("per_lane", Role::Flatland, true, move || {
                Answer::Floats(vectorised::quicksort_per_lane(&d))
            }),
            Variant::new("seq", Role::Baseline, false, move || {
                let mut v = a.to_vec();
                v.sort_unstable_by(f64::total_cmp);
                Answer::Floats(v)
            }),
            Variant::new("rayon", Role::Baseline, true, move || {
                let mut v = b.to_vec();
                v.par_sort_unstable_by(f64::total_cmp);
                Answer::Floats(v)
            }),
        ]);
        Instance {
            elements: n as u64,
            bytes: 16 * n as u64,
            variants,
        }
    }
}
