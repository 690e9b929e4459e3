//! Segmented reductions: `fold_s` over contiguous segments, `fold_vs` over virtual segments,
//! `count_s`.

use super::check_blocks;
use super::plan::{Bounds, Task, plan, task_count};
use crate::assoc::{self, LEAF};
use crate::{Error, Result, sched, stats};
use flatland_segd::{Segd, VSegd};
use std::ops::Range;

/// Per-leaf results of the part of one segment that a task computed.
type Partial<A> = (usize, Vec<A>);

/// The leaves of `offsets` (a part of one segment starting at a leaf boundary), as offset ranges.
fn leaves(offsets: Range<usize>) -> impl Iterator<Item = Range<usize>> {
    offsets
        .clone()
        .step_by(LEAF)
        .map(move |lo| lo..(lo + LEAF).min(offsets.end))
}

/// The driver of every segmented reduction: the result of segment `s` is
/// `combine_leaves(identity, [leaf(s, start(s), l) for each leaf l of s, counted from its
/// start], op)`, where `leaf(s, start, offsets)` reduces the elements at `offsets` inside segment
/// `s`, which starts at element `start` of `segd`.
///
/// Runs sequentially for small inputs; otherwise tasks split by elements at leaf boundaries
/// ([`super::plan`]), and segments that span tasks are fixed up by combining their per-leaf
/// results left to right, so results are the same bits for every pool size.
pub(crate) fn fold_segments<A>(
    segd: &Segd,
    identity: A,
    leaf: impl Fn(usize, usize, Range<usize>) -> A + Sync,
    op: impl Fn(A, A) -> A + Sync,
) -> Vec<A>
where
    A: Clone + Send + Sync,
{
    let short = |s: usize, start: usize, n: usize| op(identity.clone(), leaf(s, start, 0..n));
    fold_segments_split(segd, identity.clone(), short, &leaf, &op)
}

/// [`fold_segments`] where each whole segment of `1..`[`assoc::SHORT`] elements is folded by
/// `short(s, start, len)`, which must equal `op(identity, leaf(s, start, 0..len))`: a small
/// closure that the compiler can inline into the loop over segments, where the general leaf is
/// too big to be.
pub(crate) fn fold_segments_split<A>(
    segd: &Segd,
    identity: A,
    short: impl Fn(usize, usize, usize) -> A + Sync,
    leaf: impl Fn(usize, usize, Range<usize>) -> A + Sync,
    op: impl Fn(A, A) -> A + Sync,
) -> Vec<A>
where
    A: Clone + Send + Sync,
{
    let b = Bounds::of(segd);
    // `combine_leaves(identity, leaves)`, with the short case (most segments) spelt out:
    // `short`, or `identity` for an empty segment; the same bits, less iterator work. Longer
    // segments are a call, so that this stays small enough to inline into the loop over
    // segments: on short rows a call per segment limited how many gathers the CPU kept in
    // flight (smvm on rows of about two entries ran 1.5x slower than a plain CSR loop, on
    // banded rows of nine 1.3x).
    let whole = |s: usize, start: usize, n: usize| {
        if n == 0 {
            identity.clone()
        } else if n < assoc::SHORT {
            short(s, start, n)
        } else {
            long(&identity, n, &|l| leaf(s, start, l), &op)
        }
    };
    // The results of whole segments `r` into `out`, in one tight loop over the descriptor's
    // slices. A loop here (not an iterator collected elsewhere) keeps `whole`'s one call site
    // in this function, so that it is inlined and a short segment costs no call.
    let run = |r: Range<usize>, out: &mut [A]| {
        let (starts, lens) = (b.starts(r.clone()), b.lens(r.clone()));
        for (i, ((o, &start), &n)) in out.iter_mut().zip(starts).zip(lens).enumerate() {
            *o = whole(r.start + i, start, n);
        }
    };
    // The per-leaf results of the part of segment `s` inside task `t`.
    let piece = |t: &Task, s: usize| -> Partial<A> {
        let (r, start) = (t.piece(&b, s), b.start(s));
        let ls = leaves(r.start - start..r.end - start).map(|l| leaf(s, start, l));
        (s, ls.collect())
    };
    let (k, _timing) = task_count(segd.elements(), sched::Op::of("seg::fold_s", &leaf));
    let tasks = plan(segd, k);
    if tasks.len() == 1 {
        let mut out = crate::spare::vec_filled(identity.clone(), segd.len());
        run(0..segd.len(), &mut out);
        return out;
    }
    // Each task's part of the output (the segments it owns) is filled by that task, then
    // written: no fill of the whole output on this thread first.
    let parts = tasks.iter().map(|t| (t, t.owned.len())).collect();
    let (mut out, partials) = sched::run_filled(&identity, parts, |_, t: &Task, mine| {
        // Touched segments: a head spanning in from an earlier task (partial), owned segments
        // that end inside the task (whole), and a last owned one that runs past it (partial).
        let mut whole_end = t.owned.end;
        while whole_end > t.owned.start && t.is_partial(&b, whole_end - 1) {
            whole_end -= 1;
        }
        let mut partial: Vec<Partial<A>> = (t.first..t.owned.start).map(|s| piece(t, s)).collect();
        run(
            t.owned.start..whole_end,
            &mut mine[..whole_end - t.owned.start],
        );
        partial.extend((whole_end..t.owned.end).map(|s| piece(t, s)));
        partial
    });
    fix_up(&mut out, partials.into_iter().flatten(), &identity, &op);
    out
}

/// `combine_leaves(identity, [leaf(l) for each leaf l of 0..n])`, with the one-leaf case
/// spelt out (`identity ⊕ leaf`, the same bits), out of line (see `fold_segments_split`).
#[inline(never)]
fn long<A: Clone>(
    identity: &A,
    n: usize,
    leaf: &impl Fn(Range<usize>) -> A,
    op: &impl Fn(A, A) -> A,
) -> A {
    if n <= LEAF {
        op(identity.clone(), leaf(0..n))
    } else {
        assoc::combine_leaves(identity.clone(), leaves(0..n).map(leaf), op)
    }
}

/// Combines the per-leaf results of segments that spanned tasks, strictly left to right.
fn fix_up<A: Clone>(
    out: &mut [A],
    partials: impl Iterator<Item = Partial<A>>,
    identity: &A,
    op: impl Fn(A, A) -> A,
) {
    let mut current: Option<(usize, A)> = None;
    for (s, leaves) in partials {
        let acc = match current.take() {
            Some((cs, acc)) if cs == s => acc,
            Some((cs, acc)) => {
                out[cs] = acc;
                identity.clone()
            }
            None => identity.clone(),
        };
        current = Some((s, assoc::combine_leaves(acc, leaves, &op)));
    }
    if let Some((cs, acc)) = current {
        out[cs] = acc;
    }
}

/// Folds every segment of `data` (described by `segd`) with the canonical association: each
/// result is bitwise equal to [`assoc::fold`] of that segment, for any pool size.
///
/// # Errors
/// [`Error::LengthMismatch`] when `segd.elements() != data.len()`.
///
/// ```
/// use flatland_runtime::seg::fold_s;
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![2, 0, 3]).unwrap();
/// assert_eq!(fold_s(&segd, &[1, 2, 3, 4, 5], 0, |a, b| a + b).unwrap(), vec![3, 0, 12]);
/// ```
pub fn fold_s<T>(
    segd: &Segd,
    data: &[T],
    identity: T,
    op: impl Fn(T, T) -> T + Sync,
) -> Result<Vec<T>>
where
    T: Clone + Send + Sync,
{
    check_len("fold_s", segd, data.len())?;
    stats::record_read(data.len() as u64);
    stats::record_descriptor(segd.len() as u64);
    stats::record_written(segd.len() as u64);
    stats::record_alloc::<T>(segd.len());
    let id = identity.clone();
    let leaf = |_, base: usize, r: Range<usize>| {
        assoc::leaf_fold(&data[base + r.start..base + r.end], id.clone(), &op)
    };
    Ok(fold_segments(segd, identity, leaf, &op))
}

/// Segmented reduction of computed elements (a fused map or gather into a segmented fold):
/// element `i` of the flat array described by `segd` is `f(i)`, and segment `s`'s result is
/// bitwise equal to [`assoc::fold`] of its elements `f(start(s)) .. f(end(s) - 1)`, as if they
/// had been materialised ([`assoc::leaf_fold_by`]). `f` runs once per element, and no value
/// is buffered.
///
/// ```
/// use flatland_runtime::seg::fold_s_by;
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![2, 3]).unwrap();
/// let xs = [1.0, 2.0, 3.0, 4.0, 5.0];
/// // Sum of squares per segment, without an array of squares.
/// assert_eq!(fold_s_by(&segd, |i| xs[i] * xs[i], 0.0, |a, b| a + b), vec![5.0, 50.0]);
/// ```
pub fn fold_s_by<A>(
    segd: &Segd,
    f: impl Fn(usize) -> A + Sync,
    identity: A,
    op: impl Fn(A, A) -> A + Sync,
) -> Vec<A>
where
    A: Clone + Send + Sync,
{
    let id = identity.clone();
    let leaf = |r: Range<usize>| {
        let first = r.start;
        assoc::leaf_fold_by(r.len(), |i| f(first + i), id.clone(), &op)
    };
    fold_s_leaves(segd, identity, leaf, &op)
}

/// The segmented reduction with the leaf folds supplied by the caller: segment `s`'s result is
/// `assoc::combine_leaves(identity, [leaf(r) for each leaf r of s], op)`, where the leaves of a
/// segment are its consecutive element ranges of [`assoc::LEAF`] elements counted from its start
/// (the last one shorter), given as positions in the flat array described by `segd`. Empty
/// segments give `identity` without a call.
///
/// This is [`fold_s_by`] for callers that fold a leaf faster than element by element through an
/// index, typically by slicing their arrays once per leaf so that the compiler drops the bounds
/// checks (the code `#[vectorise]` emits). For the canonical bits, `leaf(r)` must equal
/// [`assoc::leaf_fold`] of the elements at `r` starting from `identity` (as
/// [`assoc::leaf_fold_by`] computes). Tasks split by elements at leaf boundaries, as in every
/// segmented fold, so a segment holding most of the elements is shared between threads.
///
/// ```
/// use flatland_runtime::{assoc, seg::{fold_s_by, fold_s_leaves}};
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![2, 0, 5_000]).unwrap();
/// let xs: Vec<f64> = (0..5_002).map(|i| f64::from(i) * 0.25).collect();
/// let add = |a: f64, b: f64| a + b;
/// let by_leaf = fold_s_leaves(&segd, 0.0, |r| assoc::leaf_fold(&xs[r], 0.0, add), add);
/// assert_eq!(by_leaf, fold_s_by(&segd, |i| xs[i], 0.0, add));
/// ```
pub fn fold_s_leaves<A>(
    segd: &Segd,
    identity: A,
    leaf: impl Fn(Range<usize>) -> A + Sync,
    op: impl Fn(A, A) -> A + Sync,
) -> Vec<A>
where
    A: Clone + Send + Sync,
{
    let short = |r: Range<usize>| op(identity.clone(), leaf(r));
    fold_s_leaves_split(segd, identity.clone(), short, &leaf, &op)
}

/// [`fold_s_leaves`] with a second closure for the whole segments of `1..`[`assoc::SHORT`]
/// elements: `short(r)` must equal `op(identity, leaf(r))`, the segment's result. Kept small,
/// it is inlined into the loop over segments, so that a short row costs no call: the loops
/// `#[vectorise]` emits pass their short-row chain here (smvm on banded rows of nine entries
/// spent a fifth of its time calling the general leaf once per row). Where `op(identity, x)`
/// is `x` for every leaf result `x` (an integer sum from 0, a float sum from +0.0, whose chain
/// never ends in -0.0), `short` may skip that step.
///
/// ```
/// use flatland_runtime::{assoc, seg::{fold_s_leaves, fold_s_leaves_split}};
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![3, 0, 5_000]).unwrap();
/// let xs: Vec<f64> = (0..5_003).map(|i| f64::from(i) * 0.25).collect();
/// let add = |a: f64, b: f64| a + b;
/// let leaf = |r: std::ops::Range<usize>| assoc::leaf_fold(&xs[r], 0.0, add);
/// let short = |r: std::ops::Range<usize>| xs[r].iter().fold(0.0, |a, &x| a + x);
/// let split = fold_s_leaves_split(&segd, 0.0, short, leaf, add);
/// assert_eq!(split, fold_s_leaves(&segd, 0.0, leaf, add));
/// ```
pub fn fold_s_leaves_split<A>(
    segd: &Segd,
    identity: A,
    short: impl Fn(Range<usize>) -> A + Sync,
    leaf: impl Fn(Range<usize>) -> A + Sync,
    op: impl Fn(A, A) -> A + Sync,
) -> Vec<A>
where
    A: Clone + Send + Sync,
{
    stats::record_written(segd.len() as u64);
    stats::record_descriptor(segd.len() as u64);
    stats::record_alloc::<A>(segd.len());
    let short = |_, start: usize, n: usize| short(start..start + n);
    let leaf = |_, base: usize, r: Range<usize>| leaf(base + r.start..base + r.end);
    fold_segments_split(segd, identity, short, leaf, op)
}

/// Counts, per segment, the elements satisfying `pred`.
///
/// # Errors
/// [`Error::LengthMismatch`] when `segd.elements() != data.len()`.
///
/// ```
/// use flatland_runtime::seg::count_s;
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![3, 2]).unwrap();
/// assert_eq!(count_s(&segd, &[1, 5, 7, 2, 9], |&x| x > 4).unwrap(), vec![2, 1]);
/// ```
pub fn count_s<T: Sync>(
    segd: &Segd,
    data: &[T],
    pred: impl Fn(&T) -> bool + Sync,
) -> Result<Vec<usize>> {
    check_len("count_s", segd, data.len())?;
    stats::record_read(data.len() as u64);
    stats::record_descriptor(segd.len() as u64);
    stats::record_written(segd.len() as u64);
    stats::record_alloc::<usize>(segd.len());
    let leaf = |_, base: usize, r: Range<usize>| {
        data[base + r.start..base + r.end]
            .iter()
            .filter(|x| pred(x))
            .count()
    };
    Ok(fold_segments(segd, 0usize, leaf, |a, b| a + b))
}

/// Folds every virtual segment: each *reachable* physical segment is folded once (canonical
/// association, as [`fold_s`]), then the results are gathered by vsegid. Work is
/// O(reachable physical elements + virtual segments), however often segments are shared.
///
/// `blocks[i]` is data block `i` of `vsegd.ssegd()`.
///
/// # Errors
/// [`Error::Invalid`] when the blocks do not match the descriptor's block count or lengths.
///
/// ```
/// use flatland_runtime::seg::fold_vs;
/// use flatland_segd::{Segd, VSegd};
/// let v = VSegd::from_segd(&Segd::from_lengths(vec![3]).unwrap()).replicate(4).unwrap();
/// assert_eq!(fold_vs(&v, &[vec![1.0, 2.0, 3.0]], 0.0, |a, b| a + b).unwrap(), vec![6.0; 4]);
/// ```
pub fn fold_vs<T, B>(
    vsegd: &VSegd,
    blocks: &[B],
    identity: T,
    op: impl Fn(T, T) -> T + Sync,
) -> Result<Vec<T>>
where
    T: Clone + Send + Sync,
    B: AsRef<[T]> + Sync,
{
    let ssegd = vsegd.ssegd();
    check_blocks("fold_vs", vsegd, blocks)?;
    // Mark the reachable physical segments and number them.
    let mut slot = vec![usize::MAX; ssegd.len()];
    let mut reachable = Vec::new();
    for i in 0..vsegd.len() {
        let p = vsegd.vsegid(i);
        if slot[p] == usize::MAX {
            slot[p] = reachable.len();
            reachable.push(p);
        }
    }
    let lengths: Vec<usize> = reachable.iter().map(|&p| ssegd.length(p)).collect();
    let physical = Segd::from_lengths(lengths)?;
    stats::record_read(physical.elements() as u64);
    stats::record_descriptor((vsegd.len() + ssegd.len()) as u64);
    stats::record_written(vsegd.len() as u64);
    stats::record_alloc::<T>(vsegd.len() + reachable.len());
    let id = identity.clone();
    let leaf = |k: usize, _, r: Range<usize>| {
        let p = reachable[k];
        let start = ssegd.start(p);
        assoc::leaf_fold(
            &blocks[ssegd.source(p)].as_ref()[start + r.start..start + r.end],
            id.clone(),
            &op,
        )
    };
    let folded = fold_segments(&physical, identity, leaf, &op);
    Ok((0..vsegd.len())
        .map(|i| folded[slot[vsegd.vsegid(i)]].clone())
        .collect())
}

pub(crate) fn check_len(op: &'static str, segd: &Segd, found: usize) -> Result<()> {
    if segd.elements() == found {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            op,
            expected: segd.elements(),
            found,
        })
    }
}
