//! `tree_lookup`: DPH's treeLookup, every index looked up in a shared table.

use super::sizes;
use crate::harness::answer::Answer;
use crate::harness::baselines::tree_lookup::lookup_seq;
use crate::harness::dsl::{Dsl, i64s, ints};
use crate::harness::flattened;
use crate::harness::inputs::Rng;
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use std::sync::Arc;

/// Sizes up to this also run the dsl program (recursive halving, `log n` lifted levels).
/// (At 2^22 the executor takes about 3.5 s and 1 GB on two busy cores.)
const DSL_MAX: usize = 1 << 20;

/// treeLookup over `n` random indices into an `n`-entry table: flattened by hand with the table
/// replicated virtually and read by `seg::index_l` ([`flattened::tree_lookup`]), and the
/// vectoriser's dsl program (`programs::tree_lookup`: recursive halving, table free in the lifted
/// calls; up to 2^20), against the sequential loop. Sizes 2^16 .. 2^22 show how the work grows
/// (a copying replicate would make it quadratic).
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::TreeLookup};
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
        "treeLookup (table shared by all lanes); flatland = virtual replicate + runtime seg::index_l; \
         dsl = vectoriser programs::tree_lookup flattened (n <= 2^20); vs sequential loop"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        let full: Vec<usize> = std::iter::once(12).chain(16..=22).map(|k| 1 << k).collect();
        sizes(
            scale,
            &[0, 1, 2, 1000],
            &[1 << 12, 1 << 16, 1 << 19, 1 << 22],
            &full,
        )
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
        let dsl = (n <= DSL_MAX).then(|| (Dsl::tree_lookup(), ints(&table), ints(&idx64)));
        let idx = Arc::new(idx);
        let (t1, t2) = (table.clone(), table.clone());
        let (t3, t4, x3, x4) = (table.clone(), table, idx64.clone(), idx64.clone());
        let mut variants = vec![Variant::new("flatland", Role::Flatland, true, move || {
            Answer::Ints(flattened::tree_lookup(&t1, &idx64))
        })];
        if let Some((d, table_v, idx_v)) = dsl {
            variants.push(Variant::new("dsl", Role::Flatland, true, move || {
                Answer::Ints(i64s(&d.run(vec![table_v.clone(), idx_v.clone()])))
            }));
        }
        variants.push(Variant::new("vectorise", Role::Flatland, true, move || {
            Answer::Ints(crate::kernels::tree_lookup(&t3, &x3))
        }));
        variants.push(Variant::new("per_lane", Role::Flatland, true, move || {
            Answer::Ints(crate::kernels::plan::tree_lookup::per_lane(&t4, &x4).expect("in range"))
        }));
        variants.push(Variant::new("seq", Role::Baseline, false, move || {
            Answer::Ints(lookup_seq(&t2, &idx))
        }));
        Instance {
            elements: n as u64,
            bytes: 24 * n as u64,
            variants,
        }
    }
}
