//! `grain`: the cost model's grain checked against a sweep.
//!
//! Every case runs one runtime primitive as planned (the cost model picks sequential or a task
//! count) beside the same call forced to each task count of [`FORCED`]
//! ([`flatland_runtime::sched::with_task_count`]). The answers are the same bits; only the time
//! differs, so the table's speedup column, forced median over planned median, says how far the
//! planned grain is from the best one swept: at least 0.91 in every row of a case means the
//! planned grain is within 10% of the best.

use super::partition::class;
use super::sizes;
use crate::harness::answer::Answer;
use crate::harness::inputs::{dyadic_values, power_law_lengths};
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use flatland_runtime::sched::with_task_count;
use flatland_runtime::{flat, seg};
use flatland_segd::Segd;
use std::sync::Arc;

/// The forced task counts swept, with their variant names.
const FORCED: [(&str, usize); 6] = [
    ("tasks=1", 1),
    ("tasks=2", 2),
    ("tasks=4", 4),
    ("tasks=8", 8),
    ("tasks=16", 16),
    ("tasks=64", 64),
];

/// The primitives swept (the case's input name).
const PRIMITIVES: [&str; 4] = ["reduce", "scan", "partition4", "seg_fold"];

/// One primitive on its input, run under the caller's schedule.
type Run = Arc<dyn Fn() -> Answer + Send + Sync>;

/// `primitive` over `n` generated elements.
fn primitive(name: &str, n: usize) -> Run {
    let xs = dyadic_values(n, 29 + n as u64);
    match name {
        "reduce" => Arc::new(move || Answer::Floats(vec![flat::reduce(&xs, 0.0, |a, b| a + b)])),
        "scan" => Arc::new(move || Answer::Floats(flat::scan_inclusive(&xs, 0.0, |a, b| a + b))),
        "partition4" => Arc::new(move || {
            let p = flat::partition_by(&xs, 4, None, class)
                .expect("generated values have classes 0..4");
            Answer::Parts(vec![Answer::Indices(p.sizes), Answer::Floats(p.data)])
        }),
        "seg_fold" => {
            let segd = Segd::from_lengths(power_law_lengths(n, 31 + n as u64))
                .expect("lengths add up without overflow");
            Arc::new(move || {
                Answer::Floats(
                    seg::fold_s(&segd, &xs, 0.0, |a, b| a + b).expect("segd covers the values"),
                )
            })
        }
        other => unreachable!("grain: no primitive {other}"),
    }
}

/// The grain sweep: flat `reduce`, `scan_inclusive`, a 4-way `partition_by` and a segmented
/// `fold_s` over power-law segments, each as planned beside forced task counts.
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::Grain};
/// let inst = Grain.prepare(&Case::new("scan", 20_000), &Extra::default());
/// let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
/// assert!(answers.iter().all(|a| a == &answers[0]));
/// assert_eq!(inst.variants[0].name, "planned");
/// ```
pub struct Grain;

impl Workload for Grain {
    fn name(&self) -> &'static str {
        "grain"
    }
    fn about(&self) -> &'static str {
        "the cost model's grain against a sweep: flat reduce, scan_inclusive, 4-way partition_by and seg::fold_s as planned (flatland) vs forced to 1..64 tasks; speedup = forced / planned time, >= 0.91 everywhere: planned within 10% of the best"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        let ns = sizes(
            scale,
            &[0, 1, 3 * 4096 + 5, 50_000],
            &[10_000, 100_000, 1_000_000, 10_000_000],
            &[10_000, 100_000, 1_000_000, 10_000_000],
        );
        PRIMITIVES
            .iter()
            .flat_map(|p| ns.iter().map(move |&n| Case::new(p, n)))
            .collect()
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let run = primitive(&case.input, case.size);
        let planned = run.clone();
        let mut variants = vec![Variant::new("planned", Role::Flatland, true, move || {
            planned()
        })];
        variants.extend(FORCED.iter().map(|&(name, k)| {
            let run = run.clone();
            Variant::new(name, Role::Baseline, k > 1, move || {
                with_task_count(k, || run())
            })
        }));
        Instance {
            elements: case.size as u64,
            bytes: 8 * case.size as u64,
            variants,
        }
    }
}
