//! `tree_lookup`: DPH's treeLookup, every index looked up in a shared table.

use super::sizes;
use crate::harness::answer::Answer;
use crate::harness::baselines::tree_lookup::lookup_seq;
use crate::harness::flattened;
use crate::harness::inputs::Rng;
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use std::sync::Arc;

/// treeLookup over `n` random indices into an `n`-entry table: flattened with the table
/// replicated virtually and read by `seg::index_l` ([`flattened::tree_lookup`]) against the
/// sequential loop. Sizes 2^16 .. 2^22 show that the work grows linearly (a copying replicate
/// would grow quadratically).
///
/// ```
/// use flatland::harness::{workload::{Case, Extra, Workload}, workloads::TreeLookup};
/// let inst = TreeLookup.prepare(&Case::new("random", 1 << 12), &Extra::default());
/// let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
/// assert!(answers.iter().all(|a| a == &answers[0]));
/// ```
pub struct TreeLookup;

impl Workload for TreeLookup {
    fn name(&self) -> &'static str {
        "tree_lookup"
    }
    fn about(&self) -> &'static str {
        "treeLookup (table shared by all lanes); flatland = virtual replicate + runtime seg::index_l vs sequential loop"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        let full: Vec<usize> = (16..=22).map(|k| 1 << k).collect();
        sizes(scale, &[0, 1, 2, 1000], &[1 << 16, 1 << 19, 1 << 22], &full)
            .into_iter()
            .map(|n| Case::new("random", n))
            .collect()
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let n = case.size;
        let mut r = Rng::new(41 + n as u64);
        let table: Arc<Vec<i64>> = Arc::new((0..n).map(|_| r.next_u64() as i64).collect());
        let idx: Vec<usize> = (0..n).map(|_| r.below(n as u64) as usize).collect();
        let idx64: Arc<Vec<i64>> = Arc::new(idx.iter().map(|&i| i as i64).collect());
        let idx = Arc::new(idx);
        let (t1, t2) = (table.clone(), table);
        Instance {
            elements: n as u64,
            bytes: 24 * n as u64,
            variants: vec![
                Variant::new("flatland", Role::Flatland, true, move || {
                    Answer::Ints(flattened::tree_lookup(&t1, &idx64))
                }),
                Variant::new("seq", Role::Baseline, false, move || {
                    Answer::Ints(lookup_seq(&t2, &idx))
                }),
            ],
        }
    }
}
