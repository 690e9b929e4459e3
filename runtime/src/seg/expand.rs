//! Expansions: one value per segment spread over the segment's elements (lifted `replicate`
//! and lifted `iota`), written segment by segment, large outputs split between tasks.

use super::plan::{Bounds, plan, task_count};
use crate::sched::{self, Slots};
use crate::{Error, Result, stats};
use flatland_segd::Segd;
use std::ops::Range;

/// The `segd.elements()` values of the segments of `segd`, in order: `fill(s, within, slots)`
/// writes the values of the positions `within` (counted from the start of segment `s`) into
/// `slots`. Large outputs are split by elements between tasks at leaf boundaries (a segment
/// may span tasks, and then each task writes its piece of it).
pub(super) fn expand<T: Copy + Send>(
    segd: &Segd,
    fill: impl Fn(usize, Range<usize>, &mut Slots<'_, T>) + Sync,
) -> Vec<T> {
    let total = segd.elements();
    let tasks = plan(segd, task_count(total));
    let b = Bounds::of(segd);
    let regions: Vec<(usize, usize)> = (tasks.iter().enumerate())
        .map(|(i, t)| (t.elems.len(), i))
        .collect();
    sched::build_vec(total, &regions, tasks.len(), |ti, slots| {
        let t = &tasks[ti];
        for s in t.touched() {
            let piece = t.piece(&b, s);
            let from = piece.start - b.start(s);
            fill(s, from..from + piece.len(), &mut slots[0]);
        }
    })
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
    stats::record_read(data.len() as u64);
    stats::record_copied(total as u64);
    stats::record_descriptor(data.len() as u64);
    stats::record_alloc::<T>(total);
    Ok(expand(segd, |s, within, slots| {
        slots.fill(std::iter::repeat_n(data[s], within.len()));
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
