//! Expansions: one value per segment spread over the segment's elements (lifted `replicate`
//! and lifted `iota`), written segment by segment, large outputs split between tasks.

use super::fold::check_len;
use super::plan::{Bounds, plan, task_count};
use crate::sched::{self, Slots};
use crate::{Error, Result, stats};
use flatland_segd::Segd;
use std::convert::Infallible;
use std::ops::Range;

/// The `segd.elements()` values of the segments of `segd`, in order: `fill(s, within, slots)`
/// writes the values of the positions `within` (counted from the start of segment `s`) into
/// `slots`. Large outputs are split by elements between tasks at leaf boundaries (a segment
/// may span tasks, and then each task writes its piece of it).
pub(super) fn expand<T: Copy + Send>(
    segd: &Segd,
    fill: impl Fn(usize, Range<usize>, &mut Slots<'_, T>) + Sync,
) -> Vec<T> {
    let filled = try_expand::<T, Infallible>(segd, |s, within, slots| {
        fill(s, within, slots);
        Ok(())
    });
    match filled {
        Ok(v) => v,
        Err(never) => match never {},
    }
}

/// [`expand`] with a fallible `fill`: the error of the first failing piece in output order.
fn try_expand<T: Copy + Send, E: Send>(
    segd: &Segd,
    fill: impl Fn(usize, Range<usize>, &mut Slots<'_, T>) -> std::result::Result<(), E> + Sync,
) -> std::result::Result<Vec<T>, E> {
    let total = segd.elements();
    let (k, _timing) = task_count(total, sched::Op::of("seg::expand", &fill));
    let tasks = plan(segd, k);
    let b = Bounds::of(segd);
    let regions: Vec<(usize, usize)> = (tasks.iter().enumerate())
        .map(|(i, t)| (t.elems.len(), i))
        .collect();
    let (out, _) = sched::try_build_vec(total, &regions, tasks.len(), |ti, slots| {
        let t = &tasks[ti];
        for s in t.touched() {
            let piece = t.piece(&b, s);
            let from = piece.start - b.start(s);
            fill(s, from..from + piece.len(), &mut slots[0])?;
        }
        Ok(())
    })?;
    Ok(out)
}

fn check(op: &'static str, segd: &Segd, len: usize) -> Result<()> {
    if segd.len() == len {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            op,
            expected: segd.len(),
            found: len,
        })
    }
}

/// Lifted replication of scalars (`expand`): element `i` of `data` repeated `segd.length(i)`
/// times, so each element fills its segment. Copies O(segd.elements()); nested arrays use
/// [`crate::elt::Nested::replicate_s`] instead, which copies no element.
///
/// # Errors
/// [`Error::LengthMismatch`] when `segd.len() != data.len()`.
///
/// ```
/// use flatland_runtime::seg::replicate_s;
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![2, 0, 3]).unwrap();
/// assert_eq!(replicate_s(&segd, &[7, 8, 9]).unwrap(), vec![7, 7, 9, 9, 9]);
/// ```
pub fn replicate_s<T: Copy + Send + Sync>(segd: &Segd, data: &[T]) -> Result<Vec<T>> {
    check("replicate_s", segd, data.len())?;
    let total = segd.elements();
    crate::budget::check_elements::<T>("replicate_s output", total)?;
    stats::record_read(data.len() as u64);
    stats::record_copied(total as u64);
    stats::record_descriptor(data.len() as u64);
    stats::record_alloc::<T>(total);
    Ok(expand(segd, |s, within, slots| {
        slots.fill(std::iter::repeat_n(data[s], within.len()));
    }))
}

/// A lifted binary operation against a replicated scalar, without the replication: element
/// `j` of segment `s` becomes `f(data[j], per_segment[s])`. This is `zip_with(f, data,
/// replicate_s(segd, per_segment))` with the repetition kept virtual (a filter's predicate
/// `x < pivot` under `map` compares every element with its lane's pivot). One pass over
/// `data`, split between tasks like [`iota_s`].
///
/// Counts `data.len() + per_segment.len()` read, `segd.elements()` written and allocated.
///
/// # Errors
/// [`Error::LengthMismatch`] when `per_segment` does not have one value per segment of `segd`
/// or `data` not one value per element.
///
/// ```
/// use flatland_runtime::seg::zip_replicated_s;
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![3, 0, 2]).unwrap();
/// let below = zip_replicated_s(&segd, &[1, 5, 2, 7, 9], &[3, 0, 8], |x, p| x < p).unwrap();
/// assert_eq!(below, vec![true, false, true, true, false]);
/// ```
pub fn zip_replicated_s<T, P, U>(
    segd: &Segd,
    data: &[T],
    per_segment: &[P],
    f: impl Fn(T, P) -> U + Sync,
) -> Result<Vec<U>>
where
    T: Copy + Sync,
    P: Copy + Sync,
    U: Copy + Send,
{
    check("zip_replicated_s", segd, per_segment.len())?;
    check_len("zip_replicated_s", segd, data.len())?;
    let total = segd.elements();
    crate::budget::check_elements::<U>("zip_replicated_s output", total)?;
    stats::record_read((data.len() + per_segment.len()) as u64);
    stats::record_written(total as u64);
    stats::record_descriptor(segd.len() as u64);
    stats::record_alloc::<U>(total);
    // Segment starts from the descriptor's slices: a call into the descriptor per segment
    // would cost more than the elements deep in a recursion, where most hold one or two.
    let b = Bounds::of(segd);
    Ok(expand(segd, |s, within, slots| {
        let (start, p) = (b.start(s), per_segment[s]);
        let xs = &data[start + within.start..start + within.end];
        slots.fill(xs.iter().map(|&x| f(x, p)));
    }))
}

/// Lifted `iota`: segment `i` holds `starts[i] + k * steps[i]` for `k` in
/// `0..segd.length(i)`, with wrapping `i64` arithmetic (the vectoriser's). One pass over the
/// output.
///
/// # Errors
/// [`Error::LengthMismatch`] when `starts` or `steps` does not have one value per segment.
///
/// ```
/// use flatland_runtime::seg::iota_s;
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![3, 0, 2]).unwrap();
/// assert_eq!(iota_s(&segd, &[10, 5, -1], &[2, 9, -3]).unwrap(), vec![10, 12, 14, -1, -4]);
/// ```
pub fn iota_s(segd: &Segd, starts: &[i64], steps: &[i64]) -> Result<Vec<i64>> {
    check("iota_s", segd, starts.len())?;
    check("iota_s", segd, steps.len())?;
    let total = segd.elements();
    crate::budget::check_elements::<i64>("iota_s output", total)?;
    stats::record_read(2 * segd.len() as u64);
    stats::record_written(total as u64);
    stats::record_descriptor(segd.len() as u64);
    stats::record_alloc::<i64>(total);
    Ok(expand(segd, |s, within, slots| {
        let (start, step) = (starts[s], steps[s]);
        // Positions fit in i64: an output never holds more than isize::MAX elements.
        slots.fill(within.map(|k| start.wrapping_add((k as i64).wrapping_mul(step))));
    }))
}

/// Lifted positions: element `k` of segment `j` of `idx` (described by `segd`) becomes
/// `dest.start(j) + idx[k]`, its position in the flat array of `dest`'s segments, after checking
/// that it indexes segment `j` of `dest`. A scatter or gather into every segment of a nested
/// array then runs on the flat array. One pass, split between tasks like [`iota_s`].
///
/// # Errors
/// [`Error::LengthMismatch`] when `idx` does not have `segd.elements()` values or `dest` does
/// not have one segment per segment of `segd`; [`Error::IndexOutOfRange`] naming the segment
/// (as its `lane`), the index and the segment's length for the first index in order outside
/// its segment of `dest`.
///
/// ```
/// use flatland_runtime::seg::positions_l;
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![2, 1]).unwrap();
/// let dest = Segd::from_lengths(vec![3, 4]).unwrap();
/// assert_eq!(positions_l(&segd, &[2, 0, 3], &dest).unwrap(), vec![2, 0, 6]);
/// assert!(positions_l(&segd, &[2, 0, 4], &dest).is_err());
/// ```
pub fn positions_l(segd: &Segd, idx: &[i64], dest: &Segd) -> Result<Vec<usize>> {
    if idx.len() != segd.elements() {
        return Err(Error::LengthMismatch {
            op: "positions_l",
            expected: segd.elements(),
            found: idx.len(),
        });
    }
    check("positions_l", segd, dest.len())?;
    let total = segd.elements();
    stats::record_read(total as u64);
    stats::record_written(total as u64);
    stats::record_descriptor(2 * segd.len() as u64);
    stats::record_alloc::<usize>(total);
    try_expand(segd, |s, within, slots| {
        let (base, len) = (dest.start(s), dest.length(s));
        let at = segd.start(s);
        for &x in &idx[at + within.start..at + within.end] {
            match usize::try_from(x) {
                Ok(k) if k < len => slots.push(base + k),
                _ => {
                    return Err(Error::IndexOutOfRange {
                        op: "positions_l",
                        lane: s,
                        index: x,
                        len,
                    });
                }
            }
        }
        Ok(())
    })
}
