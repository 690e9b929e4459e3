//! Reductions and scans in the canonical association.

use crate::assoc::{self, LEAF};
use crate::cost::ElemCost;
use crate::sched::{self, SIDE, leaf_totals, scan_leaves};
use crate::stats;
use std::ops::Range;

/// One op and one read per element.
const REDUCE: ElemCost = ElemCost::new(1.0, 1.0);
/// Sequentially one pass over memory (a read and a write per element, [`scan_leaves`]), with
/// two ops per element (the in-leaf prefix, then the carry) on the copy in cache.
const SCAN_SEQ: ElemCost = ElemCost::new(2.0, 2.0);
/// Split: blocks claimed in order with carries chained from block to block (`sched::Chain`):
/// each block's totals folded, then the sequential form; one read from memory (the second from
/// cache) and one write, three ops per element.
const SCAN_PAR: ElemCost = ElemCost::new(3.0, 2.0);
/// Elements per block of a split scan: the leaves walked side by side ([`SIDE`]), small enough to
/// stay in cache between the fold of their totals and their scan.
const SCAN_BLOCK: usize = SIDE * LEAF;
/// The fewest leaves per task the planner splits a scan into: its leaf walks run that many
/// dependency chains side by side, and six hide an f64 add's latency (measured with the earlier
/// two-pass scan, a 10^5-element scan on 2 threads: 4 tasks of 6 leaves took 53 us, 8 tasks of
/// 3 leaves 62 us, 16 tasks of 1-2 leaves 92 us). The split scan runs as many workers as the
/// plan's tasks, at most one per pool thread, over blocks of [`SCAN_BLOCK`].
const SCAN_TASK_LEAVES: usize = 6;

/// The reduction of `xs` with an associative `op` and its `identity`, bitwise equal to
/// [`assoc::fold`] for every pool size and machine profile: tasks fold their leaves with
/// [`assoc::leaf_fold`], and the leaf results are combined left to right on the calling thread.
/// Counts `n` read.
///
/// ```
/// use flatland_runtime::{assoc, flat::reduce};
/// let xs: Vec<f64> = (0..100_000).map(|i| 1.0 / (1.0 + i as f64)).collect();
/// let s = reduce(&xs, 0.0, |a, b| a + b);
/// assert_eq!(s.to_bits(), assoc::fold(&xs, 0.0, |a, b| a + b).to_bits());
/// // Strings: associative, not commutative.
/// let words = ["a", "b", "c"].map(String::from);
/// assert_eq!(reduce(&words, String::new(), |a, b| a + &b), "abc");
/// ```
pub fn reduce<T>(xs: &[T], identity: T, op: impl Fn(T, T) -> T + Sync) -> T
where
    T: Clone + Send + Sync,
{
    stats::record_read(xs.len() as u64);
    let id = identity.clone();
    let leaf = |r: Range<usize>| assoc::leaf_fold(&xs[r], id.clone(), &op);
    reduce_leaves(xs.len(), identity, leaf, &op)
}

/// The reduction of `n` elements whose leaves the caller folds: `combine_leaves(identity,
/// [leaf(r) for each leaf r of 0..n], op)`, the leaves being the consecutive ranges of
/// [`LEAF`] elements from 0 (the last one shorter). Tasks fold whole leaves and the leaf results
/// are combined left to right on the calling thread, so when `leaf(r)` is [`assoc::leaf_fold`]
/// of the elements at `r` the result is bitwise [`assoc::fold`] of all of them, for every pool
/// size. The flat form of [`crate::seg::fold_s_leaves`], for code that folds a leaf through
/// slices (the dot products `#[vectorise]` compiles). Counts nothing itself.
///
/// ```
/// use flatland_runtime::{assoc, flat::reduce_leaves};
/// let (xs, ys): (Vec<f64>, Vec<f64>) = (0..10_000).map(|i| (f64::from(i), 0.5)).unzip();
/// let dot = reduce_leaves(xs.len(), 0.0, |r| {
///     let (a, b) = (&xs[r.clone()], &ys[r]);
///     assoc::leaf_fold_by(a.len(), |i| a[i] * b[i], 0.0, |p, q| p + q)
/// }, |p, q| p + q);
/// let products: Vec<f64> = xs.iter().zip(&ys).map(|(a, b)| a * b).collect();
/// assert_eq!(dot.to_bits(), assoc::fold(&products, 0.0, |p, q| p + q).to_bits());
/// ```
pub fn reduce_leaves<A>(
    n: usize,
    identity: A,
    leaf: impl Fn(Range<usize>) -> A + Sync,
    op: impl Fn(A, A) -> A + Sync,
) -> A
where
    A: Clone + Send + Sync,
{
    let leaves = |r: Range<usize>| {
        let end = r.end;
        r.step_by(LEAF).map(move |lo| lo..(lo + LEAF).min(end))
    };
    let (s, _timing) = sched::plan_op(sched::Op::of("flat::reduce", &leaf), n, REDUCE);
    if s.is_sequential() {
        return assoc::combine_leaves(identity, leaves(0..n).map(&leaf), &op);
    }
    let results = sched::run(&s, |_, r| leaves(r).map(&leaf).collect::<Vec<A>>());
    assoc::combine_leaves(identity, results.into_iter().flatten(), &op)
}

/// The inclusive scan of `xs` with an associative `op` and its `identity`, bitwise equal to
/// [`assoc::scan_inclusive`]. Counts `n` read, `n` written and allocated.
///
/// It makes one pass over memory, sequentially or in parallel: in parallel, workers claim blocks
/// of leaves in order, fold a block's leaf totals (reading it into cache), chain them onto the
/// carry the worker of the block before passed on, pass the carry out on, then scan the block
/// from cache. A worker never blocks: one whose predecessor has not passed its carry on after a
/// short spin computes it from the input ([`crate::sched::carries_recomputed`] counts those
/// blocks).
///
/// ```
/// use flatland_runtime::flat::scan_inclusive;
/// assert_eq!(scan_inclusive(&[1, 2, 3, 4], 0, |a, b| a + b), vec![1, 3, 6, 10]);
/// ```
pub fn scan_inclusive<T>(xs: &[T], identity: T, op: impl Fn(T, T) -> T + Sync) -> Vec<T>
where
    T: Copy + Send + Sync,
{
    scan(xs, identity, op, false).0
}

/// The exclusive scan of `xs` (`out[0] = identity`, `out[i] = inclusive[i - 1]`), bitwise equal
/// to [`assoc::scan_exclusive`]. Counts `n` read, `n` written and allocated.
///
/// ```
/// use flatland_runtime::flat::scan_exclusive;
/// assert_eq!(scan_exclusive(&[1, 2, 3, 4], 0, |a, b| a + b), vec![0, 1, 3, 6]);
/// ```
pub fn scan_exclusive<T>(xs: &[T], identity: T, op: impl Fn(T, T) -> T + Sync) -> Vec<T>
where
    T: Copy + Send + Sync,
{
    scan(xs, identity, op, true).0
}

/// [`scan_exclusive`] and the total (the inclusive scan's last element, `identity` when empty):
/// offsets from lengths in one call.
///
/// ```
/// use flatland_runtime::flat::scan_exclusive_with_total;
/// let (offsets, total) = scan_exclusive_with_total(&[3usize, 0, 2], 0, |a, b| a + b);
/// assert_eq!((offsets, total), (vec![0, 3, 3], 5));
/// ```
pub fn scan_exclusive_with_total<T>(
    xs: &[T],
    identity: T,
    op: impl Fn(T, T) -> T + Sync,
) -> (Vec<T>, T)
where
    T: Copy + Send + Sync,
{
    scan(xs, identity, op, true)
}

fn scan<T>(xs: &[T], identity: T, op: impl Fn(T, T) -> T + Sync, exclusive: bool) -> (Vec<T>, T)
where
    T: Copy + Send + Sync,
{
    let n = xs.len();
    stats::record_read(n as u64);
    stats::record_written(n as u64);
    stats::record_alloc::<T>(n);
    let (s, _timing) = sched::plan_op_seq_par(
        sched::Op::of("flat::scan", &op),
        n,
        SCAN_SEQ,
        SCAN_PAR,
        SCAN_TASK_LEAVES,
    );
    if s.is_sequential() {
        let Ok((out, ends)) = sched::try_build_vec_tasks(&s, |_, r, out| {
            let mut carry = identity;
            for src in xs[r].chunks(SCAN_BLOCK) {
                carry = scan_leaves(out.copy_from(src), carry, exclusive, &op);
            }
            Ok::<_, std::convert::Infallible>(carry)
        });
        return (out, ends[0]);
    }
    // One pass over memory on every worker: blocks claimed in order; each block's leaf totals
    // are folded (reading the block into cache) and chained onto the carry its predecessor's
    // worker passed on; the carry out is passed on before any output is written (a first touch
    // of the output may wait on the kernel), and the block is scanned from the copy in cache.
    let workers = s.num_tasks().min(rayon::current_num_threads());
    let chain = sched::Chain::new(xs, SCAN_BLOCK, identity, &op);
    let out = sched::build_vec_claimed(n, SCAN_BLOCK, workers, |b, r, out| {
        let src = &xs[r];
        let totals = leaf_totals(src, &op);
        let carry = chain.carry_into(b);
        chain.publish(b, totals.into_iter().fold(carry, &op));
        scan_leaves(out.copy_from(src), carry, exclusive, &op);
    });
    (out, chain.total())
}
