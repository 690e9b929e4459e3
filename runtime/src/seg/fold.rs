//! Segmented reductions: `fold_s` over contiguous segments, `fold_vs` over virtual segments,
//! `count_s`.

use super::check_blocks;
use super::plan::{Task, plan, task_count};
use crate::assoc::{self, LEAF};
use crate::{Error, Result, sched, stats};
use flatland_segd::{Segd, VSegd};

/// Per-leaf results of the part of one segment that a task computed.
type Partial<A> = (usize, Vec<A>);

/// The driver of every segmented reduction: the result of segment `s` is
/// `combine_leaves(identity, leaves of seg(s) counted from its start, mapped by leaf, op)`.
///
/// Runs sequentially for small inputs; otherwise tasks split by elements at leaf boundaries
/// ([`super::plan`]), and segments that span tasks are fixed up by combining their per-leaf
/// results left to right, so results are the same bits for every pool size.
pub(crate) fn fold_segments<'a, T, A>(
    segd: &Segd,
    seg: impl Fn(usize) -> &'a [T] + Sync,
    identity: A,
    leaf: impl Fn(&[T]) -> A + Sync,
    op: impl Fn(A, A) -> A + Sync,
) -> Vec<A>
where
    T: Sync + 'a,
    A: Clone + Send + Sync,
{
    let whole = |xs: &[T]| assoc::combine_leaves(identity.clone(), xs.chunks(LEAF).map(&leaf), &op);
    let tasks = plan(segd, task_count(segd.elements()));
    if tasks.len() == 1 {
        return (0..segd.len()).map(|s| whole(seg(s))).collect();
    }
    let mut out = vec![identity.clone(); segd.len()];
    let mut slots: Vec<(&Task, &mut [A])> = Vec::with_capacity(tasks.len());
    let mut rest: &mut [A] = &mut out;
    for t in &tasks {
        let (mine, tail) = rest.split_at_mut(t.owned.len());
        slots.push((t, mine));
        rest = tail;
    }
    let partials: Vec<Vec<Partial<A>>> = sched::run_parts(slots, |_, (t, mine)| {
        let mut partial = Vec::new();
        for s in t.touched() {
            let start = segd.start(s);
            let xs = seg(s);
            let end = start + xs.len();
            if t.owned.contains(&s) && end <= t.elems.end {
                mine[s - t.owned.start] = whole(xs);
            } else {
                let lo = t.elems.start.max(start) - start;
                let hi = t.elems.end.min(end) - start;
                partial.push((s, xs[lo..hi].chunks(LEAF).map(&leaf).collect()));
            }
        }
        partial
    });
    fix_up(&mut out, partials.into_iter().flatten(), &identity, &op);
    out
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
    let seg = |s: usize| &data[segd.start(s)..segd.start(s) + segd.length(s)];
    let id = identity.clone();
    Ok(fold_segments(
        segd,
        seg,
        identity,
        |l| assoc::leaf_fold(l, id.clone(), &op),
        &op,
    ))
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
    let seg = |s: usize| &data[segd.start(s)..segd.start(s) + segd.length(s)];
    Ok(fold_segments(
        segd,
        seg,
        0usize,
        |l| l.iter().filter(|x| pred(x)).count(),
        |a, b| a + b,
    ))
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
    let seg = |k: usize| {
        let p = reachable[k];
        let start = ssegd.start(p);
        &blocks[ssegd.source(p)].as_ref()[start..start + ssegd.length(p)]
    };
    let id = identity.clone();
    let folded = fold_segments(
        &physical,
        seg,
        identity,
        |l| assoc::leaf_fold(l, id.clone(), &op),
        &op,
    );
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
