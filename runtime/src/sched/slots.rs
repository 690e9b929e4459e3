//! Building an output vector in parallel: each task fills its own disjoint regions of the
//! uninitialised buffer, and the vector is only assembled once every slot has been written.

use super::{Schedule, run_parts};
use std::mem::MaybeUninit;
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A region of an output vector under construction, filled front to back by one task.
///
/// Only [`Slots::push`], [`Slots::fill`] and [`Slots::copy_from`] write, each behind the slots
/// already written, so the first [`Slots::filled`] slots are always initialised. [`build_vec`]
/// checks that every region is full before it assembles the vector.
///
/// ```
/// use flatland_runtime::sched::{Schedule, build_vec_tasks};
/// let s = Schedule::with_tasks(3 * 4096, 3);
/// let v: Vec<usize> = build_vec_tasks(&s, |_, r, slots| slots.fill(r));
/// assert_eq!(v, (0..3 * 4096).collect::<Vec<_>>());
/// ```
pub struct Slots<'a, U> {
    buf: &'a mut [MaybeUninit<U>],
    filled: usize,
}

impl<U: Copy> Slots<'_, U> {
    /// The region's length.
    ///
    /// ```
    /// use flatland_runtime::sched::{Schedule, build_vec_tasks};
    /// let v: Vec<u8> = build_vec_tasks(&Schedule::sequential(3), |_, _, s| {
    ///     assert_eq!(s.len(), 3);
    ///     s.fill([1, 2, 3]);
    /// });
    /// # assert_eq!(v, [1, 2, 3]);
    /// ```
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether the region is empty.
    ///
    /// ```
    /// use flatland_runtime::sched::{Schedule, build_vec_tasks};
    /// let v: Vec<u8> = build_vec_tasks(&Schedule::sequential(0), |_, _, s| assert!(s.is_empty()));
    /// # assert!(v.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Slots written so far.
    ///
    /// ```
    /// use flatland_runtime::sched::{Schedule, build_vec_tasks};
    /// let v: Vec<u8> = build_vec_tasks(&Schedule::sequential(2), |_, _, s| {
    ///     s.push(7);
    ///     assert_eq!(s.filled(), 1);
    ///     s.push(8);
    /// });
    /// # assert_eq!(v, [7, 8]);
    /// ```
    pub fn filled(&self) -> usize {
        self.filled
    }

    /// Writes the next slot. Panics when the region is full (an internal bug).
    ///
    /// ```
    /// use flatland_runtime::sched::{Schedule, build_vec_tasks};
    /// let v: Vec<u8> = build_vec_tasks(&Schedule::sequential(1), |_, _, s| s.push(1));
    /// assert_eq!(v, [1]);
    /// ```
    #[inline]
    pub fn push(&mut self, v: U) {
        self.buf[self.filled].write(v);
        self.filled += 1;
    }

    /// Writes the next slots from `values`. Panics if `values` has more items than free slots
    /// (an internal bug).
    ///
    /// ```
    /// use flatland_runtime::sched::{Schedule, build_vec_tasks};
    /// let v: Vec<i32> = build_vec_tasks(&Schedule::sequential(4), |_, _, s| {
    ///     s.fill([1, 2]);
    ///     s.fill([3, 4]);
    /// });
    /// assert_eq!(v, [1, 2, 3, 4]);
    /// ```
    #[inline]
    pub fn fill(&mut self, values: impl IntoIterator<Item = U>) {
        let mut values = values.into_iter();
        let mut k = 0;
        for (slot, v) in self.buf[self.filled..].iter_mut().zip(&mut values) {
            slot.write(v);
            k += 1;
        }
        self.filled += k;
        assert!(
            values.next().is_none(),
            "Slots::fill: more values than slots"
        );
    }

    /// Copies `src` into the next slots and returns them, now initialised, for in-place updates.
    /// Panics if `src` is longer than the free slots (an internal bug).
    ///
    /// ```
    /// use flatland_runtime::sched::{Schedule, build_vec_tasks};
    /// let v: Vec<i32> = build_vec_tasks(&Schedule::sequential(3), |_, _, s| {
    ///     let out = s.copy_from(&[1, 2, 3]);
    ///     out[1] = 20;
    /// });
    /// assert_eq!(v, [1, 20, 3]);
    /// ```
    #[inline]
    pub fn copy_from(&mut self, src: &[U]) -> &mut [U] {
        let start = self.filled;
        let dst = &mut self.buf[start..start + src.len()];
        for (d, s) in dst.iter_mut().zip(src) {
            d.write(*s);
        }
        self.filled += src.len();
        let dst = &mut self.buf[start..start + src.len()];
        // SAFETY: every slot of `dst` was written just above, and `MaybeUninit<U>` has the layout
        // of `U`, so the region is a valid, exclusively borrowed `[U]`.
        unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<U>(), dst.len()) }
    }
}

/// Builds a vector of `len` elements whose regions are filled by tasks in parallel.
///
/// `regions` lists `(length, task)` pairs in output order; their lengths must sum to `len` and
/// every task must be below `tasks`. Task `t` is called once as `f(t, slots)` with the [`Slots`]
/// of its regions in output order, and must fill all of them; a region left short is an internal
/// bug and panics. Tasks run in parallel on rayon's current pool when `tasks > 1`. A panic in `f`
/// propagates; the partial buffer is freed (elements are `Copy`, so nothing else leaks).
///
/// ```
/// use flatland_runtime::sched::build_vec;
/// // Task 0 writes the first and last region, task 1 the middle one.
/// let v: Vec<char> = build_vec(5, &[(2, 0), (1, 1), (2, 0)], 2, |t, slots| {
///     for s in slots {
///         while s.filled() < s.len() {
///             s.push(if t == 0 { 'a' } else { 'b' });
///         }
///     }
/// });
/// assert_eq!(v, ['a', 'a', 'b', 'a', 'a']);
/// ```
pub fn build_vec<U: Copy + Send>(
    len: usize,
    regions: &[(usize, usize)],
    tasks: usize,
    f: impl Fn(usize, &mut [Slots<'_, U>]) + Sync,
) -> Vec<U> {
    let Ok((v, _)) = try_build_vec(len, regions, tasks, |t, s| {
        f(t, s);
        Ok::<(), std::convert::Infallible>(())
    });
    v
}

/// [`build_vec`] for fallible tasks that also return a value: `f(t, slots)` returns
/// `Ok(r)` after filling all its slots, or `Err(e)` (its slots may then be left unfilled).
/// Returns the vector and the tasks' values in task order.
///
/// # Errors
/// The error of the lowest failing task.
///
/// ```
/// use flatland_runtime::sched::try_build_vec;
/// let r: Result<(Vec<u8>, Vec<usize>), String> =
///     try_build_vec(4, &[(2, 0), (2, 1)], 2, |t, s| { s[0].fill([t as u8; 2]); Ok(t * 10) });
/// assert_eq!(r, Ok((vec![0, 0, 1, 1], vec![0, 10])));
/// let e: Result<(Vec<u8>, Vec<()>), String> =
///     try_build_vec(4, &[(2, 0), (2, 1)], 2, |t, _| Err(format!("task {t}")));
/// assert_eq!(e.unwrap_err(), "task 0");
/// ```
pub fn try_build_vec<U: Copy + Send, R: Send, E: Send>(
    len: usize,
    regions: &[(usize, usize)],
    tasks: usize,
    f: impl Fn(usize, &mut [Slots<'_, U>]) -> Result<R, E> + Sync,
) -> Result<(Vec<U>, Vec<R>), E> {
    // A spare block of about this size, when the runtime kept one, has its pages mapped already.
    let mut out: Vec<U> = crate::spare::vec_with_capacity(len);
    let results = {
        let mut rest = &mut out.spare_capacity_mut()[..len];
        let mut per_task: Vec<Vec<Slots<'_, U>>> = (0..tasks.max(1)).map(|_| Vec::new()).collect();
        for &(l, t) in regions {
            let (buf, tail) = std::mem::take(&mut rest).split_at_mut(l);
            per_task[t].push(Slots { buf, filled: 0 });
            rest = tail;
        }
        assert!(
            rest.is_empty(),
            "build_vec: regions cover less than the output"
        );
        let results = run_parts(per_task, |t, mut slots| {
            let r = f(t, &mut slots)?;
            assert!(
                slots.iter().all(|s| s.filled == s.buf.len()),
                "build_vec: task {t} left a region unwritten"
            );
            Ok(r)
        });
        results.into_iter().collect::<Result<Vec<R>, E>>()?
    };
    // SAFETY: the regions tile `0..len` of the spare capacity and every task returned `Ok`, after
    // which its regions were checked to be completely filled (the first `filled` slots of a
    // region are initialised).
    unsafe { out.set_len(len) };
    Ok((out, results))
}

/// [`build_vec`] with one region per task of `s`: task `i` fills the output positions
/// `s.element_range(i)`, and is called as `f(i, s.element_range(i), slots)`.
///
/// ```
/// use flatland_runtime::sched::{Schedule, build_vec_tasks};
/// let xs: Vec<i64> = (0..20_000).collect();
/// let s = Schedule::with_tasks(xs.len(), 3);
/// let doubled: Vec<i64> = build_vec_tasks(&s, |_, r, out| out.fill(xs[r].iter().map(|x| 2 * x)));
/// assert_eq!(doubled[19_999], 39_998);
/// ```
pub fn build_vec_tasks<U: Copy + Send>(
    s: &Schedule,
    f: impl Fn(usize, Range<usize>, &mut Slots<'_, U>) + Sync,
) -> Vec<U> {
    let Ok((v, _)) = try_build_vec_tasks(s, |t, r, out| {
        f(t, r, out);
        Ok::<(), std::convert::Infallible>(())
    });
    v
}

/// [`try_build_vec`] with one region per task of `s` (see [`build_vec_tasks`]).
///
/// # Errors
/// The error of the lowest failing task.
///
/// ```
/// use flatland_runtime::sched::{Schedule, try_build_vec_tasks};
/// let s = Schedule::with_tasks(10_000, 2);
/// let (v, lens): (Vec<u8>, Vec<usize>) =
///     try_build_vec_tasks(&s, |_, r, out| { out.fill(r.clone().map(|i| i as u8)); Ok::<_, ()>(r.len()) }).unwrap();
/// assert_eq!((v.len(), lens.iter().sum::<usize>()), (10_000, 10_000));
/// ```
pub fn try_build_vec_tasks<U: Copy + Send, R: Send, E: Send>(
    s: &Schedule,
    f: impl Fn(usize, Range<usize>, &mut Slots<'_, U>) -> Result<R, E> + Sync,
) -> Result<(Vec<U>, Vec<R>), E> {
    let regions: Vec<(usize, usize)> = s.element_ranges().map(|r| r.len()).zip(0..).collect();
    try_build_vec(s.len(), &regions, s.num_tasks(), |t, slots| {
        f(t, s.element_range(t), &mut slots[0])
    })
}

/// Builds a vector of `len` elements cut into blocks of `block` elements (the last possibly
/// shorter) that `workers` tasks claim one at a time, in block order, from a shared counter:
/// `f(b, range, slots)` fills block `b` (output positions `range`). Claiming in order means a
/// block's predecessors have all been claimed by running tasks before it, which a scan that
/// chains carries from block to block relies on; a task that finds no block left returns, so
/// fewer threads than `workers` simply take more blocks each. A panic in `f` propagates after
/// the other tasks finish; the partial buffer is freed.
pub(crate) fn build_vec_claimed<U: Copy + Send>(
    len: usize,
    block: usize,
    workers: usize,
    f: impl Fn(usize, Range<usize>, &mut Slots<'_, U>) + Sync,
) -> Vec<U> {
    assert!(block > 0, "build_vec_claimed: empty blocks");
    let mut out: Vec<U> = crate::spare::vec_with_capacity(len);
    {
        let regions: Vec<Mutex<Option<Slots<'_, U>>>> = out.spare_capacity_mut()[..len]
            .chunks_mut(block)
            .map(|buf| Mutex::new(Some(Slots { buf, filled: 0 })))
            .collect();
        let next = AtomicUsize::new(0);
        run_parts(vec![(); workers.max(1)], |_, ()| {
            loop {
                let b = next.fetch_add(1, Ordering::Relaxed);
                let Some(region) = regions.get(b) else {
                    return;
                };
                let mut slots = region
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .take()
                    .expect("each block is claimed once");
                let start = b * block;
                f(b, start..start + slots.buf.len(), &mut slots);
                assert!(
                    slots.filled == slots.buf.len(),
                    "build_vec_claimed: block {b} left unwritten"
                );
            }
        });
    }
    // SAFETY: the blocks tile `0..len` of the spare capacity; the counter handed every block
    // index below their number to exactly one task, which filled the block completely (checked
    // above) or panicked, and a panic propagates out of `run_parts` before this line.
    unsafe { out.set_len(len) };
    out
}

/// Builds a vector of clones of `value` cut into regions, one per part (`(part, length)`, in
/// order), and runs `f(i, part, region)` on the pool with each region filled with `value` by
/// the task that then updates it: the fill runs in parallel, each task over its own region
/// (still a pass of its own before `f` writes the region), where a vector filled before the
/// split was one pass over memory on the calling thread alone. For outputs
/// whose every slot a task overwrites but whose type is only `Clone` (so they cannot be built
/// from uninitialised slots as [`build_vec`] does). A panic in `f` propagates after the other
/// tasks finish; the clones already made are then leaked, never dropped twice.
pub(crate) fn run_filled<T: Clone + Send + Sync, P: Send, R: Send>(
    value: &T,
    parts: Vec<(P, usize)>,
    f: impl Fn(usize, P, &mut [T]) -> R + Sync,
) -> (Vec<T>, Vec<R>) {
    let len: usize = parts.iter().map(|(_, l)| l).sum();
    let mut out: Vec<T> = crate::spare::vec_with_capacity(len);
    let results = {
        let mut rest = &mut out.spare_capacity_mut()[..len];
        let mut work = Vec::with_capacity(parts.len());
        for (part, l) in parts {
            let (region, tail) = std::mem::take(&mut rest).split_at_mut(l);
            work.push((part, region));
            rest = tail;
        }
        run_parts(work, |i, (part, region)| {
            for slot in region.iter_mut() {
                slot.write(value.clone());
            }
            // SAFETY: every slot of `region` was written just above, and `MaybeUninit<T>` has
            // the layout of `T`, so the region is a valid, exclusively borrowed `[T]`.
            let region = unsafe { &mut *(std::ptr::from_mut(region) as *mut [T]) };
            f(i, part, region)
        })
    };
    // SAFETY: the regions tile `0..len` of the spare capacity, and every task filled its region
    // before running `f`; `run_parts` returned, so every task finished (a panic would have
    // propagated before this line, leaving the length 0).
    unsafe { out.set_len(len) };
    (out, results)
}
