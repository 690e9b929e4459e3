//! `seg_sum` and `seg_scan`: segmented sum and inclusive scan over power-law segment lengths.

use super::sizes;
use crate::harness::answer::Answer;
use crate::harness::baselines::seg::{scan_rayon, scan_seq, sum_rayon, sum_seq};
use crate::harness::inputs::{dyadic_values, offsets, power_law_lengths};
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use flatland_runtime::seg;
use flatland_segd::Segd;
use std::sync::Arc;

const CHECK: &[usize] = &[0, 1, 100, 3 * 4096 + 7, 60_000];
const QUICK: &[usize] = &[100_000, 10_000_000];
const FULL: &[usize] = &[100_000, 1_000_000, 10_000_000, 100_000_000];

struct Input {
    values: Vec<f64>,
    offsets: Vec<usize>,
    segd: Segd,
}

fn input(n: usize, seed: u64) -> (Arc<Input>, u64) {
    let lengths = power_law_lengths(n, seed);
    let offsets = offsets(&lengths);
    let segd = Segd::from_lengths(lengths).expect("lengths add up without overflow");
    let segments = segd.len() as u64;
    (
        Arc::new(Input {
            values: dyadic_values(n, seed + 1),
            offsets,
            segd,
        }),
        segments,
    )
}

fn cases(scale: Scale) -> Vec<Case> {
    sizes(scale, CHECK, QUICK, FULL)
        .into_iter()
        .map(|n| Case::new("power-law", n))
        .collect()
}

/// Segmented sum: `flatland_runtime::seg::fold_s` (split by elements, so one huge segment is
/// shared between threads) against a sequential loop and rayon parallel over segments.
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::SegSum};
/// let inst = SegSum.prepare(&Case::new("power-law", 30_000), &Extra::default());
/// let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
/// assert!(answers.iter().all(|a| a == &answers[0]));
/// ```
pub struct SegSum;

impl Workload for SegSum {
    fn name(&self) -> &'static str {
        "seg_sum"
    }
    fn about(&self) -> &'static str {
        "sum of each segment, power-law lengths; flatland = runtime seg::fold_s vs sequential loop, rayon over segments"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        cases(scale)
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let (inp, segments) = input(case.size, 21 + case.size as u64);
        let (a, b, c) = (inp.clone(), inp.clone(), inp);
        Instance {
            elements: case.size as u64,
            bytes: 8 * case.size as u64 + 16 * segments,
            variants: vec![
                Variant::new("flatland", Role::Flatland, true, move || {
                    Answer::Floats(
                        seg::fold_s(&a.segd, &a.values, 0.0, |x, y| x + y)
                            .expect("segd covers the values"),
                    )
                }),
                Variant::new("seq", Role::Baseline, false, move || {
                    Answer::Floats(sum_seq(&b.values, &b.offsets))
                }),
                Variant::new("rayon", Role::Baseline, true, move || {
                    Answer::Floats(sum_rayon(&c.values, &c.offsets))
                }),
            ],
        }
    }
}

/// Segmented inclusive scan: `flatland_runtime::seg::scan_s` against a sequential loop and rayon
/// parallel over segments.
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::SegScan};
/// let inst = SegScan.prepare(&Case::new("power-law", 30_000), &Extra::default());
/// let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
/// assert!(answers.iter().all(|a| a == &answers[0]));
/// ```
pub struct SegScan;

impl Workload for SegScan {
    fn name(&self) -> &'static str {
        "seg_scan"
    }
    fn about(&self) -> &'static str {
        "inclusive scan inside each segment, power-law lengths; flatland = runtime seg::scan_s vs sequential loop, rayon over segments"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        cases(scale)
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let (inp, segments) = input(case.size, 23 + case.size as u64);
        let (a, b, c) = (inp.clone(), inp.clone(), inp);
        Instance {
            elements: case.size as u64,
            bytes: 16 * case.size as u64 + 8 * segments,
            variants: vec![
                Variant::new("flatland", Role::Flatland, true, move || {
                    Answer::Floats(
                        seg::scan_s(&a.segd, &a.values, 0.0, |x, y| x + y)
                            .expect("segd covers the values"),
                    )
                }),
                Variant::new("seq", Role::Baseline, false, move || {
                    Answer::Floats(scan_seq(&b.values, &b.offsets))
                }),
                Variant::new("rayon", Role::Baseline, true, move || {
                    Answer::Floats(scan_rayon(&c.values, &c.offsets))
                }),
            ],
        }
    }
}
