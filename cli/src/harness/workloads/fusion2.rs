//! `fusion2`: the Futhark seed's "Fusion 2.0" program (a 4-way filter, two maps, a second filter,
//! three reductions) on `n` f64, through the vectoriser's executor with fusion on and off.

use super::{CHECK_FLAT, sizes};
use crate::harness::answer::Answer;
use crate::harness::baselines::fusion2::fusion2_seq;
use crate::harness::dsl::{Dsl, floats, fusion2_parts};
use crate::harness::inputs::Rng;
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use std::sync::Arc;

/// `n` inputs, a quarter in each class of the program's first filter, chosen so that every
/// reduction gives the same bits in any association: `k / 64` below 1 and in `[1, 10)` (so the
/// sum of `10 * a` is exact: multiples of `5 / 32` far below `2^53` of them), the powers of two
/// 16, 32 and 64 in `[10, 100]` (every partial product is exact or overflows to `inf`), and
/// `k / 64` in `(100, 200)` (min and sqrt are exact operations).
fn inputs(n: usize, seed: u64) -> Vec<f64> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|_| match r.below(4) {
            0 => r.below(64) as f64 / 64.0,
            1 => (64 + r.below(9 * 64)) as f64 / 64.0,
            2 => [16.0, 32.0, 64.0][r.below(3) as usize],
            _ => (100 * 64 + 1 + r.below(100 * 64 - 1)) as f64 / 64.0,
        })
        .collect()
}

/// The program's results as one answer, arrays compared bitwise.
#[allow(clippy::type_complexity)]
fn answer(
    ((s1, s2, s3), (x0, z2, y3)): ((f64, f64, f64), (Vec<f64>, Vec<f64>, Vec<f64>)),
) -> Answer {
    Answer::Parts(vec![
        Answer::Floats(vec![s1, s2, s3]),
        Answer::Floats(x0),
        Answer::Floats(z2),
        Answer::Floats(y3),
    ])
}

/// "Fusion 2.0" (`flatland_vectoriser::fuse::fusion2`): the vectoriser's flattened executor with
/// its fusion on (`dsl`) and off (`dsl-nofuse`), against one sequential loop.
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::Fusion2};
/// let inst = Fusion2.prepare(&Case::new("mixed", 20_000), &Extra::default());
/// let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
/// assert!(answers.iter().all(|a| a == &answers[0]));
/// ```
pub struct Fusion2;

impl Workload for Fusion2 {
    fn name(&self) -> &'static str {
        "fusion2"
    }
    fn about(&self) -> &'static str {
        "Futhark \"Fusion 2.0\" (4-way filter, maps, filter, 3 reductions) on n f64; dsl = fuse::fusion2 flattened with fusion, dsl-nofuse = fusion off; vs one sequential loop"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        sizes(
            scale,
            CHECK_FLAT,
            // 10^7 takes about 25 s with the threads sweep on two cores: full suite only.
            &[1_000_000],
            &[1_000_000, 10_000_000],
        )
        .into_iter()
        .map(|n| Case::new("mixed", n))
        .collect()
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let n = case.size;
        let xs = inputs(n, 71 + n as u64);
        let arg = floats(&xs);
        let xs = Arc::new(xs);
        let (fused, unfused) = (Dsl::fusion2(), Dsl::fusion2().fused(false));
        let arg2 = arg.clone();
        Instance {
            elements: n as u64,
            bytes: 16 * n as u64,
            variants: vec![
                Variant::new("dsl", Role::Flatland, true, move || {
                    answer(fusion2_parts(&fused.run(vec![arg.clone()])))
                }),
                Variant::new("dsl-nofuse", Role::Flatland, true, move || {
                    answer(fusion2_parts(&unfused.run(vec![arg2.clone()])))
                }),
                Variant::new("seq", Role::Baseline, false, move || {
                    answer(fusion2_seq(&xs))
                }),
            ],
        }
    }
}
