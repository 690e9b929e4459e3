//! `partition`: 4-way stable partition of `n` f64 by value range.

use super::{CHECK_FLAT, sizes};
use crate::harness::answer::Answer;
use crate::harness::baselines::partition::stable_seq;
use crate::harness::dsl::{Dsl, floats, partition4_parts};
use crate::harness::inputs::dyadic_values;
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use std::sync::Arc;

/// The class of a generated value (`-128 <= x < 128`): its quarter of the range.
pub(super) fn class(x: f64) -> usize {
    ((x + 128.0) / 64.0) as usize
}

/// The four classes as class sizes and the concatenated data.
fn classes(parts: [Vec<f64>; 4]) -> Answer {
    let sizes = parts.iter().map(Vec::len).collect();
    Answer::Parts(vec![Answer::Indices(sizes), Answer::Floats(parts.concat())])
}

/// 4-way stable partition: `flatland_runtime::flat::partition_by`, and the dsl's multi-way
/// `filter` ([`crate::harness::dsl::Dsl::partition4`]) with the executor's fusion on and off, against a sequential
/// count-then-scatter stable partition.
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::Partition4};
/// let inst = Partition4.prepare(&Case::new("uniform", 20_000), &Extra::default());
/// let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
/// assert!(answers.iter().all(|a| a == &answers[0]));
/// ```
pub struct Partition4;

impl Workload for Partition4 {
    fn name(&self) -> &'static str {
        "partition"
    }
    fn about(&self) -> &'static str {
        "4-way stable partition of n f64 by value; flatland = runtime flat::partition_by; dsl = 4-predicate filter flattened, dsl-nofuse = fusion off; vs sequential stable partition"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        sizes(
            scale,
            CHECK_FLAT,
            &[100_000, 10_000_000],
            &[100_000, 1_000_000, 10_000_000],
        )
        .into_iter()
        .map(|n| Case::new("uniform", n))
        .collect()
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let xs = Arc::new(dyadic_values(case.size, 17 + case.size as u64));
        let (a, b) = (xs.clone(), xs.clone());
        let arg = floats(&xs);
        let (fused, unfused, arg2) = (
            Dsl::partition4(),
            Dsl::partition4().fused(false),
            arg.clone(),
        );
        Instance {
            elements: case.size as u64,
            bytes: 16 * case.size as u64,
            variants: vec![
                Variant::new("flatland", Role::Flatland, true, move || {
                    let p = flatland_runtime::flat::partition_by(&a, 4, None, class)
                        .expect("generated values have classes 0..4");
                    // Report all four class sizes (the primitive lists live classes only).
                    let mut sizes = vec![0; 4];
                    for (&c, &s) in p.classes.iter().zip(&p.sizes) {
                        sizes[c] = s;
                    }
                    Answer::Parts(vec![Answer::Indices(sizes), Answer::Floats(p.data)])
                }),
                Variant::new("dsl", Role::Flatland, true, move || {
                    classes(partition4_parts(&fused.run(vec![arg.clone()])))
                }),
                Variant::new("dsl-nofuse", Role::Flatland, true, move || {
                    classes(partition4_parts(&unfused.run(vec![arg2.clone()])))
                }),
                Variant::new("seq", Role::Baseline, false, move || {
                    let (sizes, data) = stable_seq(&b, 4, class);
                    Answer::Parts(vec![Answer::Indices(sizes), Answer::Floats(data)])
                }),
            ],
        }
    }
}
