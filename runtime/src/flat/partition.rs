//! k-way stable partition with classes of interest (the Futhark `partition`).

use super::Index;
use crate::cost::ElemCost;
use crate::sched::{self, try_build_vec_tasks};
use crate::{Error, Result, stats};

/// The most classes a partition supports (keys fit 4 bits with one slot left for dead classes).
///
/// ```
/// assert_eq!(flatland_runtime::flat::MAX_CLASSES, 15);
/// ```
pub const MAX_CLASSES: usize = 15;

/// The slot of keys whose class is not of interest.
pub(super) const DEAD: u8 = MAX_CLASSES as u8;

/// [`partition_by`]'s mark for a key outside `0..classes` (the only slot above [`DEAD`]).
const BAD: u8 = u8::MAX;

/// Keys [`partition_by`] computes, checks and counts at a time, in a buffer on the stack.
const KEY_BLOCK: usize = 1024;

/// Elements per slot: one per live class, then [`DEAD`].
pub(super) type Counts = [usize; MAX_CLASSES + 1];

/// A key read and lookup, an element read and a write per element, twice over.
const PARTITION: ElemCost = ElemCost::new(3.0, 4.0);
/// [`partition_by`]: a key computed, written and counted, then read again with its element
/// and the element written.
const PARTITION_BY: ElemCost = ElemCost::new(4.0, 4.0);

/// The result of a partition: the live classes' elements, class after class in ascending class
/// order, each class in input order (stable).
///
/// ```
/// use flatland_runtime::flat::partition;
/// let p = partition(&[10, 11, 12, 13, 14], &[1u8, 0, 1, 2, 0], 3, Some(&[0, 1])).unwrap();
/// assert_eq!(p.classes, vec![0, 1]);
/// assert_eq!(p.sizes, vec![2, 2]);
/// assert_eq!(p.offsets, vec![0, 2, 4]);
/// assert_eq!(p.data, vec![11, 14, 10, 12]);
/// assert_eq!(p.class(1), Some(&[10, 12][..]));
/// assert_eq!(p.class(2), None); // dead: neither counted nor written
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition<T> {
    /// The live classes (of interest), ascending.
    pub classes: Vec<usize>,
    /// The size of each live class (`sizes[i]` for `classes[i]`).
    pub sizes: Vec<usize>,
    /// Where each live class starts in `data`, plus the total at the end (`classes.len() + 1`).
    pub offsets: Vec<usize>,
    /// The live classes' elements.
    pub data: Vec<T>,
}

impl<T> Partition<T> {
    /// The elements of class `c`, or `None` if `c` is not a live class.
    ///
    /// ```
    /// let p = flatland_runtime::flat::partition(&[1, 2], &[1u8, 1], 2, None).unwrap();
    /// assert_eq!(p.class(0), Some(&[][..]));
    /// assert_eq!(p.class(1), Some(&[1, 2][..]));
    /// ```
    pub fn class(&self, c: usize) -> Option<&[T]> {
        let i = self.classes.iter().position(|&x| x == c)?;
        Some(&self.data[self.offsets[i]..self.offsets[i + 1]])
    }
}

/// Stable k-way partition of `xs` by `keys` (one key in `0..classes` per element, `classes <=`
/// [`MAX_CLASSES`]). With `interest = Some(cs)` only the classes in `cs` are live: elements of
/// the other classes are neither counted nor written. Errors: [`Error::TooManyClasses`],
/// [`Error::LengthMismatch`] (keys), [`Error::ClassOutOfRange`] naming the first bad lane,
/// [`Error::Invalid`] for a negative key or a class of interest out of range.
/// Counts `n` read (keys), the live elements copied and allocated.
///
/// # Errors
/// As listed above; the lowest bad lane is reported.
///
/// In parallel, tasks count their keys per class; the calling thread turns the counts into each
/// task's write position per class; tasks then copy their elements to those positions in order.
///
/// ```
/// use flatland_runtime::{flat::partition, Error};
/// let p = partition(&[5, 6, 7, 8], &[1usize, 0, 1, 0], 2, None).unwrap();
/// assert_eq!(p.data, vec![6, 8, 5, 7]);
/// assert!(matches!(partition(&[1], &[0u8], 16, None), Err(Error::TooManyClasses { classes: 16, .. })));
/// assert!(matches!(partition(&[1, 2], &[0u8, 3], 2, None), Err(Error::ClassOutOfRange { lane: 1, .. })));
/// ```
pub fn partition<T, K>(
    xs: &[T],
    keys: &[K],
    classes: usize,
    interest: Option<&[usize]>,
) -> Result<Partition<T>>
where
    T: Copy + Send + Sync,
    K: Index,
{
    let op = "partition";
    let (live, slot_of) = live_classes(op, classes, interest)?;
    let n = xs.len();
    if keys.len() != n {
        return Err(Error::LengthMismatch {
            op,
            expected: n,
            found: keys.len(),
        });
    }
    let (s, _timing) = sched::plan_op(sched::Op::new("flat::partition"), n, PARTITION);
    let slots = SlotTable::new(classes, &slot_of);
    let counts = count_keys(op, keys, classes, &slots, &s)?;
    // Pass 2, with the keys already checked.
    Ok(scatter(xs, keys, &s, &counts, live, |k: K| slots.of(k)))
}

/// The slot of every class number: its live slot, [`DEAD`] for a class not of interest, and
/// [`BAD`] for any number from `classes` up (and for a negative key), looked up without a
/// bounds check or a branch.
pub(super) struct SlotTable([u8; MAX_CLASSES + 1]);

impl SlotTable {
    /// The table for `classes` classes whose slots are `slot_of` (from [`live_classes`]).
    pub(super) fn new(classes: usize, slot_of: &[u8; MAX_CLASSES]) -> SlotTable {
        let mut table = [BAD; MAX_CLASSES + 1];
        table[..classes].copy_from_slice(&slot_of[..classes]);
        SlotTable(table)
    }

    /// The slot of class number `c`.
    #[inline]
    pub(super) fn of_class(&self, c: usize) -> u8 {
        self.0[c.min(MAX_CLASSES)]
    }

    /// The slot of key `k`.
    #[inline]
    pub(super) fn of<K: Index>(&self, k: K) -> u8 {
        self.of_class(k.to_index().unwrap_or(MAX_CLASSES))
    }

    /// The number of live slots.
    pub(super) fn live(&self) -> usize {
        self.0.iter().filter(|&&slot| slot < DEAD).count()
    }
}

/// Per-task element counts of every live slot (`c[slot_of[class]]`; the classes not of
/// interest, slot [`DEAD`], are not counted): pass 1 of [`partition`] and
/// [`split`](super::split), which checks every key and reports the lowest bad lane. Keys are
/// looked up a block at a time into a buffer on the stack, checked, and counted slot by slot
/// without a counter store per element (as [`partition_by`]'s pass 1). Counts `n` read.
pub(super) fn count_keys<K: Index>(
    op: &'static str,
    keys: &[K],
    classes: usize,
    slots: &SlotTable,
    s: &sched::Schedule,
) -> Result<Vec<Counts>> {
    let live = slots.live();
    let counts = sched::run(s, |_, r| {
        let mut c = [0usize; MAX_CLASSES + 1];
        let mut block = [0u8; KEY_BLOCK];
        for (start, keys) in r.clone().step_by(KEY_BLOCK).zip(keys[r].chunks(KEY_BLOCK)) {
            let block = &mut block[..keys.len()];
            if let Some(i) = classify_block(keys, block, live, &mut c, |k| slots.of(k)) {
                return Err(bad_key(op, start + i, keys[i], classes));
            }
        }
        Ok(c)
    })
    .into_iter()
    .collect::<Result<Vec<_>>>()?;
    stats::record_read(keys.len() as u64);
    Ok(counts)
}

/// Pass 2 of a partition: the calling thread turns each task's counts per slot into its write
/// position per class (class after class, each class task after task); tasks then copy their
/// live elements to those positions in order, each output written once, through one cursor per
/// slot. `slot(keys[i])` is the slot of element `i` (`DEAD` for a dead class), and `counts[t]`
/// must be the number of elements of each slot in task `t`'s range of `s`: counted by pass 1
/// from the same keys, which nothing can change in between (a shared slice of a sealed integer
/// type, or the keys [`partition_by`] owns). Counts the live elements copied and allocated.
fn scatter<T: Copy + Send + Sync, K: Copy + Sync>(
    xs: &[T],
    keys: &[K],
    s: &sched::Schedule,
    counts: &[Counts],
    live: Vec<usize>,
    slot: impl Fn(K) -> u8 + Sync,
) -> Partition<T> {
    let sizes = slot_sizes(counts, live.len());
    let mut offsets = Vec::with_capacity(live.len() + 1);
    offsets.push(0);
    for size in &sizes {
        offsets.push(offsets.last().copied().unwrap_or(0) + size);
    }
    let total = offsets[live.len()];
    stats::record_copied(total as u64);
    stats::record_alloc::<T>(total);
    let starts = task_starts(counts, &offsets[..live.len()]);
    let mut data: Vec<T> = crate::spare::vec_with_capacity(total);
    let out = Output(data.as_mut_ptr());
    // SAFETY: the regions `starts[t][slot]..` + `counts[t][slot]` tile `0..total` (class after
    // class, task after task) inside `data`'s capacity, each region one task's.
    unsafe {
        write_slots(
            xs,
            keys,
            s,
            counts,
            |t| starts[t].map(|at| out.at(at)),
            slot,
        );
    }
    // SAFETY: every task has returned (a panic would have propagated before this line), and
    // together they wrote every slot of `0..total` once (see above); `T: Copy`, so the
    // elements need no drop if this never runs.
    unsafe { data.set_len(total) };
    Partition {
        classes: live,
        sizes,
        offsets,
        data,
    }
}

/// The elements of each of the first `live` slots, over all tasks.
pub(super) fn slot_sizes(counts: &[Counts], live: usize) -> Vec<usize> {
    (0..live)
        .map(|slot| counts.iter().map(|c| c[slot]).sum())
        .collect()
}

/// Where each task writes its first element of each live slot: slot after slot from `first`
/// (where each slot's first element goes), task after task inside a slot.
pub(super) fn task_starts(counts: &[Counts], first: &[usize]) -> Vec<Counts> {
    let mut next = first.to_vec();
    counts
        .iter()
        .map(|c| {
            let mut at = [0; MAX_CLASSES + 1];
            for (slot, n) in next.iter_mut().enumerate() {
                at[slot] = *n;
                *n += c[slot];
            }
            at
        })
        .collect()
}

/// The partition's output buffer, shared by the scatter's tasks, which write disjoint slots of
/// it (see [`scatter`]).
pub(super) struct Output<T>(pub(super) *mut T);

// SAFETY: the tasks holding an `Output` write disjoint slots of one buffer that outlives them;
// `T: Send` moves those elements between threads.
unsafe impl<T: Send> Sync for Output<T> {}

impl<T> Output<T> {
    /// A pointer to slot `i` (not dereferenced here).
    pub(super) fn at(&self, i: usize) -> *mut T {
        self.0.wrapping_add(i)
    }
}

/// Task `t`'s elements of each live slot, in input order, written from `cursors(t)[slot]`
/// on: the scatter pass of [`partition`] and [`split`](super::split). Slot [`DEAD`] is skipped.
///
/// # Safety
/// `counts[t][slot]` must be the number of elements of `slot` (by `slot(keys[i])`) in task
/// `t`'s range of `s`, and for every task and live slot, `cursors(t)[slot]` must point to
/// `counts[t][slot]` writable elements, disjoint from every other task's and slot's.
pub(super) unsafe fn write_slots<T: Copy + Send + Sync, K: Copy + Sync>(
    xs: &[T],
    keys: &[K],
    s: &sched::Schedule,
    counts: &[Counts],
    cursors: impl Fn(usize) -> [*mut T; MAX_CLASSES + 1] + Sync,
    slot: impl Fn(K) -> u8 + Sync,
) {
    debug_assert_eq!(counts.len(), s.num_tasks());
    sched::run(s, |t, r| {
        let mut cursors = cursors(t);
        for (&x, &k) in xs[r.clone()].iter().zip(&keys[r]) {
            let slot = slot(k);
            if slot != DEAD {
                let cursor = &mut cursors[slot as usize];
                // SAFETY: task `t` finds exactly `counts[t][slot]` elements of `slot` (the
                // contract), and its cursor for `slot` points to that many writable elements
                // that no other task or slot writes. So every write is in bounds and no
                // element is written twice.
                unsafe {
                    cursor.write(x);
                    *cursor = cursor.add(1);
                }
            }
        }
    });
}

/// [`partition`] with the key of each element computed by `key` (called once per element, in
/// the counting pass, which keeps each element's slot as a byte for the scatter; once more for
/// the first key out of range, to report it). Counts, besides
/// [`partition`]'s, `n` read and written and `n` bytes allocated for the keys.
///
/// # Errors
/// As [`partition`]; a key `>= classes` is [`Error::ClassOutOfRange`] naming its lane.
///
/// ```
/// use flatland_runtime::flat::partition_by;
/// let xs: Vec<i64> = (0..10).collect();
/// let p = partition_by(&xs, 4, Some(&[0, 3]), |x| (x % 4) as usize).unwrap();
/// assert_eq!(p.class(0), Some(&[0, 4, 8][..]));
/// assert_eq!(p.class(3), Some(&[3, 7][..]));
/// assert_eq!(p.data.len(), 5);
/// ```
pub fn partition_by<T>(
    xs: &[T],
    classes: usize,
    interest: Option<&[usize]>,
    key: impl Fn(T) -> usize + Sync,
) -> Result<Partition<T>>
where
    T: Copy + Send + Sync,
{
    let op = "partition_by";
    let (live, slot_of) = live_classes(op, classes, interest)?;
    let n = xs.len();
    stats::record_read(n as u64);
    stats::record_written(n as u64);
    stats::record_alloc::<u8>(n);
    let (s, _timing) = sched::plan_op(sched::Op::of("flat::partition_by", &key), n, PARTITION_BY);
    // The slot of every key, any key from MAX_CLASSES up (and any class beyond `classes`) BAD.
    let slots = SlotTable::new(classes, &slot_of);
    // Pass 1: each task computes its keys a block at a time, checks them, keeps their slots for
    // pass 2 and counts them per slot. Branch-free: no store of a counter per element, whose
    // chain through memory (the same slot again and again) bounded the loop before.
    let (slots, counts) = try_build_vec_tasks(&s, |_, r, out| {
        let mut c = [0usize; MAX_CLASSES + 1];
        let mut block = [0u8; KEY_BLOCK];
        for (start, xs) in r.clone().step_by(KEY_BLOCK).zip(xs[r].chunks(KEY_BLOCK)) {
            let block = &mut block[..xs.len()];
            let live = live.len();
            if let Some(i) = classify_block(xs, block, live, &mut c, |x| slots.of_class(key(x))) {
                // Say what the first bad key was.
                return Err(Error::ClassOutOfRange {
                    op,
                    lane: start + i,
                    class: key(xs[i]),
                    classes,
                });
            }
            out.copy_from(block);
        }
        Ok(c)
    })?;
    stats::record_read(n as u64);
    let p = scatter(xs, &slots, &s, &counts, live, |slot: u8| slot);
    // The slots are this call's own: their pages serve the next output of about their size.
    crate::spare::give_back(slots);
    Ok(p)
}

/// Writes the slot of each of `items` into `block` (as long as `items`) and, when none is
/// [`BAD`], adds them to `counts` ([`count_slots`]); else returns the position of the first
/// bad one, counting nothing. The lookups fill a buffer in cache without a branch, and only a
/// [`BAD`] slot has the high bits set, so one OR over the block finds out whether any is bad.
fn classify_block<X: Copy>(
    items: &[X],
    block: &mut [u8],
    live: usize,
    counts: &mut Counts,
    slot: impl Fn(X) -> u8,
) -> Option<usize> {
    for (b, &x) in block.iter_mut().zip(items) {
        *b = slot(x);
    }
    if block.iter().fold(0, |a, &b| a | b) == BAD {
        return block.iter().position(|&b| b == BAD);
    }
    count_slots(block, live, counts);
    None
}

/// Adds to `counts[s]` the bytes of `block` equal to `s`, for every slot `s < live`: one
/// compare-and-add pass per slot over bytes in cache, which the compiler vectorises (a counter
/// per element through memory would wait on the last store whenever a slot repeats).
fn count_slots(block: &[u8], live: usize, counts: &mut [usize; MAX_CLASSES + 1]) {
    for (slot, count) in counts.iter_mut().enumerate().take(live) {
        // Chunks of at most 255 bytes keep each sum in a byte lane.
        for chunk in block.chunks(255) {
            let same: u8 = chunk.iter().map(|&b| u8::from(b == slot as u8)).sum();
            *count += usize::from(same);
        }
    }
}

/// The error for a key outside `0..classes` at `lane` (off the hot path).
#[cold]
fn bad_key<K: Index>(op: &'static str, lane: usize, k: K, classes: usize) -> Error {
    match k.to_index() {
        Some(class) => Error::ClassOutOfRange {
            op,
            lane,
            class,
            classes,
        },
        None => Error::Invalid {
            op,
            detail: format!("lane {lane}: negative class {}", k.to_i64()),
        },
    }
}

/// The live classes (ascending, deduplicated) and the slot of every class (`DEAD` if not live).
pub(super) fn live_classes(
    op: &'static str,
    classes: usize,
    interest: Option<&[usize]>,
) -> Result<(Vec<usize>, [u8; MAX_CLASSES])> {
    if classes > MAX_CLASSES {
        return Err(Error::TooManyClasses {
            op,
            classes,
            max: MAX_CLASSES,
        });
    }
    let mut live: Vec<usize> = match interest {
        None => (0..classes).collect(),
        Some(cs) => {
            if let Some(&c) = cs.iter().find(|&&c| c >= classes) {
                return Err(Error::Invalid {
                    op,
                    detail: format!("class of interest {c} out of range 0..{classes}"),
                });
            }
            cs.to_vec()
        }
    };
    live.sort_unstable();
    live.dedup();
    let mut slot_of = [DEAD; MAX_CLASSES];
    for (slot, &c) in live.iter().enumerate() {
        slot_of[c] = slot as u8;
    }
    Ok((live, slot_of))
}
