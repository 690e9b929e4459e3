//! `quicksort`: sorting i64 keys.

use super::sizes;
use crate::harness::answer::Answer;
use crate::harness::dsl::{Dsl, i64s, ints};
use crate::harness::inputs::Rng;
use crate::harness::vectorised;
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use rayon::slice::ParallelSliceMut;
use std::sync::Arc;

/// Quicksort: the vectoriser's dsl program (`programs::quicksort`, middle pivot, three-way filter,
/// the two outer parts sorted by a recursive call under `map`, flattened by the executor) against
/// `slice::sort_unstable` and rayon's `par_sort_unstable`. Keys are `i64` (the dsl program's
/// element type), drawn from `0..n/2`, so equal keys occur. Sizes stop at 10^6: the executor needs
/// about 0.7 GB there (Value trees and lifted recursion), so 10^7 would not fit beside other work.
///
/// ```
/// use flatland::harness::{workload::{Case, Extra, Workload}, workloads::Quicksort};
/// let inst = Quicksort.prepare(&Case::new("random", 5_000), &Extra::default());
/// let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
/// assert!(answers.iter().all(|a| a == &answers[0]));
/// ```
pub struct Quicksort;

/// Largest n also run through `#[vectorise]` (its IR runs about twice as long as the dsl's).
const VECTORISE_MAX: usize = 100_000;

impl Workload for Quicksort {
    fn name(&self) -> &'static str {
        "quicksort"
    }
    fn about(&self) -> &'static str {
        "sort n i64; flatland = dsl programs::quicksort flattened by the vectoriser's executor; vectorise = the same algorithm under #[vectorise] (executor, n <= 10^5); vs sort_unstable, rayon par_sort_unstable"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        sizes(
            scale,
            &[0, 1, 2, 1000, 20_000],
            &[100_000, 300_000],
            &[100_000, 1_000_000],
        )
        .into_iter()
        .map(|n| Case::new("random", n))
        .collect()
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let n = case.size;
        let mut r = Rng::new(51 + n as u64);
        let xs: Arc<Vec<i64>> = Arc::new(
            (0..n)
                .map(|_| r.below((n as u64 / 2).max(1)) as i64)
                .collect(),
        );
        let (dsl, xs_v) = (Dsl::quicksort(), ints(&xs));
        let (a, b, c) = (xs.clone(), xs.clone(), xs);
        let vectorise = (n <= VECTORISE_MAX).then(|| {
            Variant::new("vectorise", Role::Flatland, true, move || {
                Answer::Ints(vectorised::quicksort(&c))
            })
        });
        let mut variants = vec![Variant::new("dsl", Role::Flatland, true, move || {
            Answer::Ints(i64s(&dsl.run(vec![xs_v.clone()])))
        })];
        variants.extend(vectorise);
        variants.extend([
            Variant::new("seq", Role::Baseline, false, move || {
                let mut v = a.to_vec();
                v.sort_unstable();
                Answer::Ints(v)
            }),
            Variant::new("rayon", Role::Baseline, true, move || {
                let mut v = b.to_vec();
                v.par_sort_unstable();
                Answer::Ints(v)
            }),
        ]);
        Instance {
            elements: n as u64,
            bytes: 16 * n as u64,
            variants,
        }
    }
}
