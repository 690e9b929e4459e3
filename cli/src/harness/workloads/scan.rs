//! `scan`: the inclusive prefix sum of `n` f64.

use super::{CHECK_FLAT, sizes};
use crate::harness::answer::Answer;
use crate::harness::baselines::flat::{scan_rayon, scan_seq};
use crate::harness::inputs::dyadic_values;
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use std::sync::Arc;

/// Flat inclusive scan: `flatland_runtime::flat::scan_inclusive`, and the same scan written with
/// `#[vectorise]` ([`crate::kernels::prefix_sums`], the strategy the run chooses), against a
/// sequential loop and a hand-written two-pass rayon scan.
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::Scan};
/// let inst = Scan.prepare(&Case::new("uniform", 20_000), &Extra::default());
/// let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
/// assert!(answers.iter().all(|a| a == &answers[0]));
/// ```
pub struct Scan;

impl Workload for Scan {
    fn name(&self) -> &'static str {
        "scan"
    }
    fn about(&self) -> &'static str {
        "inclusive prefix sum of n f64; flatland = runtime flat::scan_inclusive; vectorise = #[vectorise] kernels::prefix_sums (the strategy the run chooses); vs sequential loop, rayon two-pass scan"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        sizes(
            scale,
            CHECK_FLAT,
            &[100_000, 10_000_000],
            &[100_000, 1_000_000, 10_000_000, 100_000_000],
        )
        .into_iter()
        .map(|n| Case::new("uniform", n))
        .collect()
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let xs = Arc::new(dyadic_values(case.size, 13 + case.size as u64));
        let (a, b, c, d) = (xs.clone(), xs.clone(), xs.clone(), xs);
        Instance {
            elements: case.size as u64,
            bytes: 16 * case.size as u64,
            variants: vec![
                Variant::new("flatland", Role::Flatland, true, move || {
                    Answer::Floats(flatland_runtime::flat::scan_inclusive(&a, 0.0, |x, y| {
                        x + y
                    }))
                }),
                Variant::new("vectorise", Role::Flatland, true, move || {
                    Answer::Floats(crate::kernels::prefix_sums(&d))
                }),
                Variant::new("seq", Role::Baseline, false, move || {
                    Answer::Floats(scan_seq(&b))
                }),
                Variant::new("rayon", Role::Baseline, true, move || {
                    Answer::Floats(scan_rayon(&c))
                }),
            ],
        }
    }
}
