//! k-way stable split: [`partition`](super::partition) with each class in its own array, as
//! the packs of its classes would give them, from one count pass and one write pass.

use super::Index;
use super::partition::{
    Counts, MAX_CLASSES, Output, SlotTable, count_keys, live_classes, slot_sizes, task_starts,
    write_slots,
};
use crate::cost::ElemCost;
use crate::{Result, sched, stats};

/// A key read and lookup, an element read and a write per element, twice over (as a
/// partition's).
const SPLIT: ElemCost = ElemCost::new(3.0, 4.0);

/// The result of a split: the live classes and the elements of each, in input order.
///
/// ```
/// use flatland_runtime::flat::split;
/// let s = split(&[10, 11, 12, 13, 14], &[1u8, 0, 1, 2, 0], 3, Some(&[0, 1])).unwrap();
/// assert_eq!(s.classes, vec![0, 1]);
/// assert_eq!(s.parts, vec![vec![11, 14], vec![10, 12]]);
/// assert_eq!(s.class(1), Some(&[10, 12][..]));
/// assert_eq!(s.class(2), None); // dead: neither counted nor written
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Split<T> {
    /// The live classes (of interest), ascending.
    pub classes: Vec<usize>,
    /// The elements of each live class (`parts[i]` for `classes[i]`).
    pub parts: Vec<Vec<T>>,
}

impl<T> Split<T> {
    /// The elements of class `c`, or `None` if `c` is not a live class.
    ///
    /// ```
    /// let s = flatland_runtime::flat::split(&[1, 2], &[1u8, 1], 2, None).unwrap();
    /// assert_eq!(s.class(0), Some(&[][..]));
    /// ```
    pub fn class(&self, c: usize) -> Option<&[T]> {
        let i = self.classes.iter().position(|&x| x == c)?;
        Some(&self.parts[i])
    }
}

/// Stable k-way split of `xs` by `keys`: for every live class (all of `0..classes`, or those
/// in `interest`), its elements in input order, in an array of its own. The same elements as
/// one `pack` per class, and as [`partition`](super::partition)'s class regions, but each
/// class is an array of its own, which a consumer can take over without copying it again.
/// Elements of the other classes are neither counted nor written.
///
/// Cost: one pass over the keys (checked and counted per task), one pass writing every live
/// element once; in parallel, each task writes its elements of a class after the elements
/// of that class in the tasks before it. Counts `n` read (keys), the live elements copied and
/// allocated.
///
/// # Errors
/// As [`partition`](super::partition): [`Error::TooManyClasses`](crate::Error::TooManyClasses),
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch) (keys),
/// [`Error::ClassOutOfRange`](crate::Error::ClassOutOfRange) naming the lowest bad lane,
/// [`Error::Invalid`](crate::Error::Invalid) for a negative key or a class of interest out of
/// range.
///
/// ```
/// use flatland_runtime::{flat::split, Error};
/// let s = split(&[5, 6, 7, 8], &[1usize, 0, 1, 0], 2, None).unwrap();
/// assert_eq!(s.parts, vec![vec![6, 8], vec![5, 7]]);
/// assert!(matches!(split(&[1, 2], &[0u8, 3], 2, None), Err(Error::ClassOutOfRange { lane: 1, .. })));
/// ```
pub fn split<T, K>(
    xs: &[T],
    keys: &[K],
    classes: usize,
    interest: Option<&[usize]>,
) -> Result<Split<T>>
where
    T: Copy + Send + Sync,
    K: Index,
{
    split_named("split", xs, keys, classes, interest)
}

/// [`split`], its errors naming `op`.
pub(crate) fn split_named<T, K>(
    op: &'static str,
    xs: &[T],
    keys: &[K],
    classes: usize,
    interest: Option<&[usize]>,
) -> Result<Split<T>>
where
    T: Copy + Send + Sync,
    K: Index,
{
    let (live, slot_of) = live_classes(op, classes, interest)?;
    let n = xs.len();
    if keys.len() != n {
        return Err(crate::Error::LengthMismatch {
            op,
            expected: n,
            found: keys.len(),
        });
    }
    let (s, _timing) = sched::plan_op(sched::Op::new("flat::split"), n, SPLIT);
    let slots = SlotTable::new(classes, &slot_of);
    let counts: Vec<Counts> = count_keys(op, keys, classes, &slots, &s)?;
    let sizes = slot_sizes(&counts, live.len());
    let total: usize = sizes.iter().sum();
    stats::record_copied(total as u64);
    stats::record_alloc::<T>(total);
    let mut parts: Vec<Vec<T>> = sizes
        .iter()
        .map(|&size| crate::spare::vec_with_capacity(size))
        .collect();
    let bases: Vec<Output<T>> = parts.iter_mut().map(|p| Output(p.as_mut_ptr())).collect();
    let starts = task_starts(&counts, &vec![0; live.len()]);
    let cursors = |t: usize| {
        let mut at = [std::ptr::null_mut(); MAX_CLASSES + 1];
        for (slot, base) in bases.iter().enumerate() {
            at[slot] = base.at(starts[t][slot]);
        }
        at
    };
    // SAFETY: inside live slot `slot`'s array (capacity `sizes[slot]`, the sum of every task's
    // count of it), task `t` owns `starts[t][slot]..` + `counts[t][slot]`: the tasks' regions
    // follow each other from 0 and tile the array, so they are in bounds and disjoint. The
    // counts were taken by pass 1 from these keys over the same ranges.
    unsafe {
        write_slots(xs, keys, &s, &counts, cursors, |k: K| slots.of(k));
    }
    for (part, size) in parts.iter_mut().zip(sizes) {
        // SAFETY: every task has returned (a panic would have propagated before this line),
        // and together they wrote every element of `0..size` once (see above); `T: Copy`, so
        // the elements need no drop if this never runs.
        unsafe { part.set_len(size) };
    }
    Ok(Split {
        classes: live,
        parts,
    })
}
