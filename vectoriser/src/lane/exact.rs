//! Folds under operators that are associative *exactly* on their values: wrapping integer
//! `+` and `*`, integer `min` and `max`, boolean `and` and `or`. Every association of such
//! an operator gives the same value, so the canonical association ([`assoc::fold`]) has
//! nothing to keep: a lane folds the quarters of its slice side by side, in runs that rustc
//! vectorises (integer `+`, `min` and `max` take several elements per instruction), and the
//! tasks of a heavy lane split anywhere. The canonical fold runs eight chains side by side to
//! hide a float operator's latency; on integers those eight strided chains were 1.7x slower
//! (a sum of 10^5 `i64`, one thread: 11.4 us, one plain loop 8.9 us, four streams 6.6 us).
//!
//! Floats never take this path: `+` and `*` round, and `min` and `max` of several NaNs keep
//! one NaN's payload by position.

use super::{FOLD, Lanes, fold_in, planned, splits};
use flatland_runtime::assoc;
use flatland_runtime::sched::{self, Op};

/// The fold of `xs` from `z` under `op`, an operator associative exactly on `T` (see the
/// module docs; the caller vouches for it) whose identity is `identity`: the value of
/// [`fold_in`], computed by a plain loop on this thread, or by tasks across the pool where
/// [`splits`] says it pays under `l`, their totals combined in order.
///
/// A `z` other than `identity` folds canonically ([`fold_in`]): the canonical association
/// folds `z` into every leaf, so only the identity leaves the association free.
///
/// ```
/// use flatland_vectoriser::lane::{Lanes, exact_fold_in, fold_in};
/// let xs: Vec<i64> = (0..100_000).map(|i| i * 7919 % 1001 - 500).collect();
/// let add = |a: i64, b: i64| a.wrapping_add(b);
/// for l in [Lanes::Sequential, Lanes::Parallel, Lanes::Model] {
///     assert_eq!(exact_fold_in(l, &xs, 0, 0, add), fold_in(l, &xs, 0, add));
///     assert_eq!(exact_fold_in(l, &xs, 5, 0, add), fold_in(l, &xs, 5, add));
///     assert_eq!(exact_fold_in(l, &xs, i64::MAX, i64::MAX, i64::min), -500);
/// }
/// ```
#[inline]
pub fn exact_fold_in<T: Copy + PartialEq + Send + Sync>(
    l: Lanes,
    xs: &[T],
    z: T,
    identity: T,
    op: impl Fn(T, T) -> T + Sync,
) -> T {
    if z != identity {
        return fold_in(l, xs, z, op);
    }
    if !splits(l, xs.len()) {
        return streams_fold(xs, identity, &op);
    }
    exact_fold_across(l, xs, identity, op)
}

/// The streams [`streams_fold`] reads side by side.
const STREAMS: usize = 4;

/// The elements [`streams_fold`] folds from one stream before it turns to the next: a run
/// long enough for a vectorised loop, short enough that the four streams stay in step.
const RUN: usize = 64;

/// `xs` folded under `op` (associative exactly) from its `identity`, which each quarter
/// starts from: its four quarters read side by side, a vectorised run of [`RUN`] elements from
/// each in turn, then the remainders. Four streams of memory at once read an array larger
/// than the caches faster than one: a sum of 10^7 `i64` on one thread took 3.1 ms so, 4.3 ms
/// as one loop.
fn streams_fold<T: Copy>(xs: &[T], identity: T, op: &impl Fn(T, T) -> T) -> T {
    let plain = |acc: T, run: &[T]| run.iter().fold(acc, |a, &b| op(a, b));
    let quarter = xs.len() / STREAMS / RUN * RUN;
    if quarter == 0 {
        return plain(identity, xs);
    }
    let (quarters, rest) = xs.split_at(STREAMS * quarter);
    let mut acc = [identity; STREAMS];
    for at in (0..quarter).step_by(RUN) {
        for (k, a) in acc.iter_mut().enumerate() {
            *a = plain(*a, &quarters[k * quarter + at..][..RUN]);
        }
    }
    plain(acc.into_iter().fold(identity, op), rest)
}

/// [`exact_fold_in`] across the pool, in the tasks the scheduler plans for a fold, each
/// task's total folded from the `identity`.
#[inline(never)]
fn exact_fold_across<T: Copy + Send + Sync>(
    l: Lanes,
    xs: &[T],
    identity: T,
    op: impl Fn(T, T) -> T + Sync,
) -> T {
    let tasks = planned(
        l,
        Op::of("lane::exact_fold", &op),
        xs.len(),
        FOLD,
        assoc::LEAF,
    );
    let totals: Vec<T> = sched::run_parts(tasks.ranges, |_, r| streams_fold(&xs[r], identity, &op));
    totals.into_iter().fold(identity, op)
}
