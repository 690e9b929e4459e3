//! `sum`: the sum of `n` f64.

use super::{CHECK_FLAT, sizes};
use crate::harness::answer::Answer;
use crate::harness::baselines::flat::{sum_rayon, sum_seq};
use crate::harness::inputs::dyadic_values;
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use std::sync::Arc;

/// Flat sum: `flatland_runtime::flat::reduce` against a sequential loop and `par_iter().sum()`.
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::Sum};
/// let inst = Sum.prepare(&Case::new("uniform", 10_000), &Extra::default());
/// let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
/// assert!(answers.iter().all(|a| a == &answers[0]));
/// ```
pub struct Sum;

impl Workload for Sum {
    fn name(&self) -> &'static str {
        "sum"
    }
    fn about(&self) -> &'static str {
        "sum of n f64; flatland = runtime flat::reduce (canonical association) vs sequential loop, rayon par_iter().sum()"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        sizes(
            scale,
            CHECK_FLAT,
            &[1_000, 100_000, 10_000_000],
            &[1_000, 100_000, 1_000_000, 10_000_000, 100_000_000],
        )
        .into_iter()
        .map(|n| Case::new("uniform", n))
        .collect()
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let xs = Arc::new(dyadic_values(case.size, 11 + case.size as u64));
        let (a, b, c) = (xs.clone(), xs.clone(), xs);
        Instance {
            elements: case.size as u64,
            bytes: 8 * case.size as u64,
            variants: vec![
                Variant::new("flatland", Role::Flatland, true, move || {
                    Answer::Floats(vec![flatland_runtime::flat::reduce(&a, 0.0, |x, y| x + y)])
                }),
                Variant::new("seq", Role::Baseline, false, move || {
                    Answer::Floats(vec![sum_seq(&b)])
                }),
                Variant::new("rayon", Role::Baseline, true, move || {
                    Answer::Floats(vec![sum_rayon(&c)])
                }),
            ],
        }
    }
}
