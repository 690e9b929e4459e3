//! Reductions and scans in the canonical association.

use crate::assoc::{self, LEAF};
use crate::cost::ElemCost;
use crate::{sched, stats};
use std::ops::Range;

/// One op and one read per element.
const REDUCE: ElemCost = ElemCost::new(1.0, 1.0);
/// Sequentially one pass of a read and a write, but two dependent ops per element: the canonical
/// form `carry ⊕ (x0 ⊕ ... ⊕ xi)` extends the in-leaf prefix and then combines it with the carry
/// (measured on 2 cores: the split form ran 1.46x faster than this pass on 10^7 f64).
const SCAN_SEQ: ElemCost = ElemCost::new(2.0, 2.0);
/// Split, two passes: two ops (prefix, then carry), two reads and two writes per element.
const SCAN_PAR: ElemCost = ElemCost::new(2.0, 4.0);

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
    let s = sched::plan(n, REDUCE);
    if s.is_sequential() {
        return assoc::combine_leaves(identity, leaves(0..n).map(&leaf), &op);
    }
    let results = sched::run(&s, |_, r| leaves(r).map(&leaf).collect::<Vec<A>>());
    assoc::combine_leaves(identity, results.into_iter().flatten(), &op)
}

/// The inclusive scan of `xs` with an associative `op` and its `identity`, bitwise equal to
/// [`assoc::scan_inclusive`]. Counts `n` read, `n` written and allocated.
///
/// In parallel it makes three passes: tasks write each leaf's carry-free prefixes and return its
/// total; the calling thread chains the leaf carries left to right; tasks combine every prefix
/// with its leaf's carry (independent operations, no dependency chain).
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
    let s = sched::plan_seq_par(n, SCAN_SEQ, SCAN_PAR);
    if s.is_sequential() {
        // One pass, carrying from leaf to leaf as `assoc::scan_inclusive_into` does: leaf b with
        // carry c_b gets c_b ⊕ (x0 ⊕ ... ⊕ xi), the prefix folded left to right from x0.
        let Ok((out, total)) = sched::try_build_vec_tasks(&s, |_, r, out| {
            let mut carry = identity;
            for leaf in xs[r].chunks(LEAF) {
                let mut prefix = leaf[0];
                if exclusive {
                    out.push(carry);
                    out.fill(leaf[1..].iter().map(|&x| {
                        let o = op(carry, prefix);
                        prefix = op(prefix, x);
                        o
                    }));
                } else {
                    out.push(op(carry, prefix));
                    out.fill(leaf[1..].iter().map(|&x| {
                        prefix = op(prefix, x);
                        op(carry, prefix)
                    }));
                }
                carry = op(carry, prefix);
            }
            Ok::<_, std::convert::Infallible>(carry)
        });
        return (out, total[0]);
    }
    // Pass 1 (tasks): each leaf's carry-free prefix `x0 ⊕ ... ⊕ xi` (left to right, the prefix
    // `assoc::leaf_scan` combines with the carry), shifted by one for an exclusive scan, and the
    // leaf's total.
    let Ok((mut out, totals)) = sched::try_build_vec_tasks(&s, |_, r, out| {
        let totals = xs[r]
            .chunks(LEAF)
            .map(|leaf| {
                let o = out.copy_from(leaf);
                for i in 1..o.len() {
                    o[i] = op(o[i - 1], o[i]);
                }
                let total = o[o.len() - 1];
                if exclusive {
                    o.copy_within(..o.len() - 1, 1);
                }
                total
            })
            .collect::<Vec<T>>();
        Ok::<_, std::convert::Infallible>(totals)
    });
    // Pass 2 (calling thread): the carry of every leaf, c_0 = identity, c_{b+1} = c_b ⊕ total_b.
    let mut carry = identity;
    let carries: Vec<Vec<T>> = totals
        .iter()
        .map(|task| {
            task.iter()
                .map(|&total| {
                    let c = carry;
                    carry = op(carry, total);
                    c
                })
                .collect()
        })
        .collect();
    // Pass 3 (tasks): out = c_b ⊕ prefix, independent for every element.
    let mut parts = Vec::with_capacity(s.num_tasks());
    let mut rest = out.as_mut_slice();
    for (r, cs) in s.element_ranges().zip(carries) {
        let (mine, tail) = std::mem::take(&mut rest).split_at_mut(r.len());
        parts.push((mine, cs));
        rest = tail;
    }
    sched::run_parts(parts, |_, (o, cs)| {
        for (leaf, c) in o.chunks_mut(LEAF).zip(cs) {
            let from = if exclusive {
                leaf[0] = c;
                1
            } else {
                0
            };
            for x in &mut leaf[from..] {
                *x = op(c, *x);
            }
        }
    });
    (out, carry)
}
