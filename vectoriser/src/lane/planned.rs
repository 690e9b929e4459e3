//! The tasks of a heavy lane's bulk operation (a fold, a filter, a filter of a range) across
//! the pool: those the runtime's scheduler plans for its own bulk operations
//! ([`sched::plan_op`]: the machine profile's costs, corrected by what this operation's earlier
//! runs took, and whether the pool's workers are awake), run by [`sched::run_parts`], which
//! keeps the workers awake for the next operation and carries the caller's profile and work
//! counters into the tasks. A lane's sum of 10^5 integers cut into a fixed four tasks per
//! thread, the pool woken for each, took 38 us on two threads against 10 us on one.
//!
//! Under [`Lanes::Parallel`] (the tests' override) the operation is cut into about four tasks
//! per thread whatever its size, so that the split path runs on small inputs too.

use super::Lanes;
use flatland_runtime::assoc::LEAF;
use flatland_runtime::cost::ElemCost;
use flatland_runtime::sched::{self, Op, audit::Timing};
use std::ops::Range;

/// The consecutive element ranges, covering `0..n`, that a heavy lane's operation runs as
/// tasks, with the operation's clock (held until it returns: the scheduler learns its cost).
pub(super) struct Planned {
    /// The tasks' element ranges, in order: each a whole number of [`LEAF`] elements (the last
    /// one shorter), or of `align` under [`Lanes::Parallel`].
    pub(super) ranges: Vec<Range<usize>>,
    _clock: Timing,
}

/// Plans operation `op` over `n` elements of work `per_elem` under `l` (see the module docs).
/// Every range but the last is a whole number of `align` elements (`align` divides [`LEAF`]).
pub(super) fn planned(l: Lanes, op: Op, n: usize, per_elem: ElemCost, align: usize) -> Planned {
    planned_seq_par(l, op, n, (per_elem, per_elem), align)
}

/// [`planned`] for an operation whose split form does more work per element than its form on
/// this thread (`per_elem`: sequential, split), as [`sched::plan_op_seq_par`] plans it. One
/// range means the sequential form: the caller runs that, not the split form in one task.
pub(super) fn planned_seq_par(
    l: Lanes,
    op: Op,
    n: usize,
    per_elem: (ElemCost, ElemCost),
    align: usize,
) -> Planned {
    debug_assert_eq!(
        LEAF % align,
        0,
        "the plan's leaves are whole blocks of {align}"
    );
    if l == Lanes::Parallel {
        return Planned {
            ranges: blocks(n, align),
            _clock: Timing::off(),
        };
    }
    let (s, clock) = sched::plan_op_seq_par(op, n, per_elem.0, per_elem.1, 1);
    Planned {
        ranges: s.element_ranges().collect(),
        _clock: clock,
    }
}

/// About four blocks per thread of the pool, each a whole number of `align` elements (the last
/// one shorter).
fn blocks(n: usize, align: usize) -> Vec<Range<usize>> {
    let tasks = 4 * rayon::current_num_threads();
    let per = n.div_ceil(tasks).max(1).next_multiple_of(align);
    (0..n).step_by(per).map(|s| s..(s + per).min(n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_the_elements_in_whole_blocks() {
        for l in [Lanes::Model, Lanes::Parallel] {
            for n in [0, 1, 63, 64, 5000, 100_000, 1 << 20] {
                let p = planned(l, Op::new("lane::test"), n, ElemCost::new(1.0, 1.0), 64);
                let mut at = 0;
                for (i, r) in p.ranges.iter().enumerate() {
                    assert_eq!(r.start, at, "{l:?} {n}");
                    if i + 1 < p.ranges.len() {
                        assert_eq!(r.len() % 64, 0, "{l:?} {n}");
                    }
                    at = r.end;
                }
                assert_eq!(at, n, "{l:?} {n}");
            }
        }
    }
}
