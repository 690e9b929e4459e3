//! Segmented scans (rayon and DPH have none): inclusive and exclusive, per segment, with the
//! canonical association of [`crate::assoc::scan_inclusive`].

use super::fold::check_len;
use super::plan::{Bounds, Task, plan, task_count};
use crate::assoc::{self, LEAF};
use crate::sched::{self, SIDE, leaf_totals, scan_leaves};
use crate::{Result, stats};
use flatland_segd::Segd;
use std::ops::Range;

#[derive(Clone, Copy)]
enum Kind {
    Inclusive,
    Exclusive,
}

/// Scans `xs` (a leaf-aligned piece of one segment) leaf by leaf from `carry`, into `out`.
/// Leaf carries evolve as in [`assoc::scan_inclusive_into`]; returns the carry after the piece.
/// A piece of one leaf (most segments) is scanned in one pass; a longer one group by group,
/// [`SIDE`] leaves side by side ([`scan_leaves`]).
fn scan_piece<T: Clone>(
    kind: Kind,
    xs: &[T],
    mut carry: T,
    out: &mut [T],
    op: &impl Fn(T, T) -> T,
) -> T {
    if xs.len() > LEAF {
        for (src, o) in xs.chunks(SIDE * LEAF).zip(out.chunks_mut(SIDE * LEAF)) {
            o.clone_from_slice(src);
            carry = scan_leaves(o, carry, matches!(kind, Kind::Exclusive), op);
        }
        return carry;
    }
    match kind {
        Kind::Inclusive => assoc::scan_inclusive_into(xs, carry, out, op),
        Kind::Exclusive => {
            // out[0] = carry; out[i] = carry ⊕ prefix(i - 1): the inclusive result one place
            // earlier, computed the same way (so the bits match `assoc::scan_exclusive`).
            let mut it = xs.iter();
            let Some(first) = it.next() else {
                return carry;
            };
            out[0] = carry.clone();
            let mut prefix = first.clone();
            for (x, slot) in it.zip(&mut out[1..]) {
                *slot = op(carry.clone(), prefix.clone());
                prefix = op(prefix, x.clone());
            }
            op(carry, prefix)
        }
    }
}

fn scan_driver<T>(
    kind: Kind,
    op_name: &'static str,
    segd: &Segd,
    data: &[T],
    identity: T,
    op: impl Fn(T, T) -> T + Sync,
) -> Result<Vec<T>>
where
    T: Clone + Send + Sync,
{
    check_len(op_name, segd, data.len())?;
    stats::record_read(data.len() as u64);
    stats::record_written(data.len() as u64);
    stats::record_descriptor(segd.len() as u64);
    stats::record_alloc::<T>(data.len());
    let (k, _timing) = task_count(segd.elements(), sched::Op::of("seg::scan_s", &op));
    let tasks = plan(segd, k);
    if tasks.len() == 1 {
        let mut out = crate::spare::vec_filled(identity.clone(), data.len());
        for (start, len) in segd.iter() {
            scan_piece(
                kind,
                &data[start..start + len],
                identity.clone(),
                &mut out[start..start + len],
                &op,
            );
        }
        return Ok(out);
    }
    let b = Bounds::of(segd);
    // Pass 1: scan the segments a task holds whole; total the leaves of the partial pieces.
    // Each task's part of the output is filled by that task, then written: no fill of the
    // whole output on this thread first.
    let parts = tasks.iter().map(|t| (t, t.elems.len())).collect();
    let (mut out, partials) = sched::run_filled(&identity, parts, |_, t: &Task, mine| {
        let mut partial = Vec::new();
        for s in t.touched() {
            let Range { start: lo, end: hi } = t.piece(&b, s);
            if t.is_partial(&b, s) {
                partial.push((s, leaf_totals(&data[lo..hi], &op)));
            } else {
                let o = &mut mine[lo - t.elems.start..hi - t.elems.start];
                scan_piece(kind, &data[lo..hi], identity.clone(), o, &op);
            }
        }
        partial
    });
    let mut slots: Vec<(&Task, &mut [T])> = Vec::with_capacity(tasks.len());
    let mut rest: &mut [T] = &mut out;
    for t in &tasks {
        let (mine, tail) = rest.split_at_mut(t.elems.len());
        slots.push((t, mine));
        rest = tail;
    }
    // Carries at the start of each partial piece, left to right through each spanning segment.
    let mut carries: Vec<Vec<T>> = Vec::with_capacity(partials.len());
    let mut current: Option<(usize, T)> = None;
    for task_partials in &partials {
        let mut mine = Vec::with_capacity(task_partials.len());
        for (s, totals) in task_partials {
            let carry = match current.take() {
                Some((cs, c)) if cs == *s => c,
                _ => identity.clone(),
            };
            mine.push(carry.clone());
            current = Some((*s, totals.iter().cloned().fold(carry, &op)));
        }
        carries.push(mine);
    }
    // Pass 2: scan the partial pieces from their carries.
    let parts: Vec<_> = slots.into_iter().zip(carries).collect();
    sched::run_parts(parts, |_, ((t, mine), task_carries)| {
        let partial_segs = t.touched().filter(|&s| t.is_partial(&b, s));
        for (s, carry) in partial_segs.zip(task_carries) {
            let Range { start: lo, end: hi } = t.piece(&b, s);
            scan_piece(
                kind,
                &data[lo..hi],
                carry,
                &mut mine[lo - t.elems.start..hi - t.elems.start],
                &op,
            );
        }
    });
    Ok(out)
}

/// Segmented inclusive scan: within each segment, `out[i] = x_start ⊕ ... ⊕ x_i`. Each segment's
/// result is bitwise equal to [`assoc::scan_inclusive`] of that segment, for any pool size.
///
/// # Errors
/// [`crate::Error::LengthMismatch`] when `segd.elements() != data.len()`.
///
/// ```
/// use flatland_runtime::seg::scan_s;
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![3, 0, 2]).unwrap();
/// assert_eq!(scan_s(&segd, &[1, 2, 3, 4, 5], 0, |a, b| a + b).unwrap(), vec![1, 3, 6, 4, 9]);
/// ```
pub fn scan_s<T>(
    segd: &Segd,
    data: &[T],
    identity: T,
    op: impl Fn(T, T) -> T + Sync,
) -> Result<Vec<T>>
where
    T: Clone + Send + Sync,
{
    scan_driver(Kind::Inclusive, "scan_s", segd, data, identity, op)
}

/// Segmented exclusive scan: within each segment, `out[start] = identity` and
/// `out[i] = x_start ⊕ ... ⊕ x_{i-1}`; bitwise equal to [`assoc::scan_exclusive`] per segment.
///
/// # Errors
/// [`crate::Error::LengthMismatch`] when `segd.elements() != data.len()`.
///
/// ```
/// use flatland_runtime::seg::scan_s_exclusive;
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![3, 2]).unwrap();
/// assert_eq!(scan_s_exclusive(&segd, &[1, 2, 3, 4, 5], 0, |a, b| a + b).unwrap(), vec![0, 1, 3, 0, 4]);
/// ```
pub fn scan_s_exclusive<T>(
    segd: &Segd,
    data: &[T],
    identity: T,
    op: impl Fn(T, T) -> T + Sync,
) -> Result<Vec<T>>
where
    T: Clone + Send + Sync,
{
    scan_driver(
        Kind::Exclusive,
        "scan_s_exclusive",
        segd,
        data,
        identity,
        op,
    )
}
