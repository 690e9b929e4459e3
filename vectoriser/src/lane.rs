//! What the per-lane code of `#[vectorise]` calls: the IR's operations on one lane's values,
//! with the reference interpreter's semantics (the same results, bit for bit, and the same
//! errors, naming the operation and the lane).
//!
//! For every function of a `#[vectorise]` module the macro emits its plain sequential form
//! (`plan::lanes::l_f`, run on the arguments as written by `plan::f::per_lane`): ordinary Rust
//! over slices that rustc compiles and inlines, with no interpreter and no flattening. An array
//! value is a [`Cow`] of a slice (a parameter or a variable is read in place; a computed array
//! is owned), a nested array's elements are `Vec`s (an array-of-arrays parameter read only as a
//! map's array is any [`RowsOf`], so a `Nested` argument is read in place, [`Rows`]) and a
//! tuple is a Rust tuple. Every reduction and scan goes through the canonical association
//! ([`flatland_runtime::assoc`]), so the bits are those of [`crate::eval`] and of the executor.
//!
//! ```
//! use flatland_vectoriser::lane;
//! let xs = [3i64, 1, 2];
//! assert_eq!(lane::index(&xs, 1, 0).unwrap(), &1);
//! assert_eq!(lane::index(&xs, 3, 7).unwrap_err().to_string(), "index: lane 7: index 3 out of range for length 3");
//! ```

use crate::error::{Error, Result};
use crate::ir::{BinaryOp, Scalar, TernaryOp, UnaryOp};
use crate::limits::Depth;
use flatland_runtime::cost::ElemCost;
pub use flatland_runtime::fused::Progression;
use flatland_runtime::sched::{self, Op, audit::Timing};
use flatland_runtime::{Error as RtError, assoc, budget, fused, spare};
use rayon::prelude::*;
pub use std::borrow::Cow;
use std::cell::RefCell;

mod exact;
mod owning;
mod parts;
mod pieces;
mod planned;
mod prefetch;
mod stack;
mod taking;
mod weights;
pub use exact::exact_fold_in;
pub use owning::Owning;
pub use parts::Part;
pub use pieces::{KEPT_BLOCK, OWNED_PIECE, Pieces};
use planned::{planned, planned_seq_par};
pub use prefetch::{ELEMENTS_PER_ROW, LANES_AHEAD, gathers_pay, prefetch_row_gathers};
use stack::StackFloor;
pub use taking::TakenRows;
pub use weights::{RowWeights, Uniform, Weights};

/// The state of one run of per-lane code on one thread: the call depth against the recursion
/// limit ([`crate::limits`]) and the stack check of its recursive calls. A task of lanes on
/// the pool runs with a context of its own, at the caller's depth; a context stays on the
/// thread that made it (it is neither `Send` nor `Sync`).
///
/// ```compile_fail
/// fn sent<T: Send>(_: T) {}
/// sent(flatland_vectoriser::lane::Ctx::new());
/// ```
///
/// ```
/// let ctx = flatland_vectoriser::lane::Ctx::new();
/// let _level = ctx.enter("f").unwrap();
/// assert!(ctx.has_stack_room());
/// ```
#[derive(Debug)]
pub struct Ctx {
    depth: Depth,
    lanes: Lanes,
    /// The pool's threads, read once per run (every map of a recursion asks).
    threads: usize,
    /// Where this thread's stack runs short ([`Ctx::has_stack_room`]).
    stack: StackFloor,
    /// The floor belongs to the thread that made the context: a context is neither sent nor
    /// shared (a task of lanes makes its own, [`Ctx::at_level`]).
    _this_thread: std::marker::PhantomData<*const ()>,
}

impl Default for Ctx {
    fn default() -> Self {
        Ctx::new()
    }
}

/// The stack a recursive call of per-lane code leaves free before it runs
/// ([`Ctx::has_stack_room`]; else it runs on a new segment allocated on the heap,
/// [`Ctx::on_new_stack`]): room for the non-recursive calls under it, which do not check.
pub const CALL_RED_ZONE: usize = 256 * 1024;

/// How per-lane code runs the lanes of a `map`.
///
/// ```
/// use flatland_vectoriser::lane::{Lanes, with_lanes, lanes};
/// assert_eq!(lanes(), Lanes::Model);
/// with_lanes(Lanes::Sequential, || assert_eq!(lanes(), Lanes::Sequential));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lanes {
    /// In parallel on the pool when the map's work (its lanes and the elements of the arrays
    /// they read first) reaches [`PARALLEL_WORK`] and the pool has more than one thread, in
    /// tasks of balanced work; one after another otherwise (the default).
    Model,
    /// One after another on the calling thread.
    Sequential,
    /// In parallel whenever there are two lanes or more (a test override: the results and
    /// errors are the same under every choice).
    Parallel,
}

/// The work (lanes plus elements) from which [`Lanes::Model`] runs a map's lanes in parallel:
/// a fixed threshold until the cost model predicts per-lane steps.
pub const PARALLEL_WORK: usize = 1 << 14;

/// The length from which [`Lanes::Model`] splits one lane's bulk operation (a filter, a fold,
/// a fused map and fold: [`split_in`], [`fold_in`], [`fold_mapped_in`]) across the pool: a
/// heavy lane runs parallel inside, as the flattened form would run it.
pub const PARALLEL_ELEMENTS: usize = 1 << 15;

/// The work per unit of weight the scheduler plans a map's lanes with (a lane weighs one
/// plus the elements it reads first, [`Weights`]): a read and an operation. What a lane's code
/// costs beyond that, the scheduler learns from the map's runs, per map (the lanes' closure
/// type) and size.
const MAP_LANES: ElemCost = ElemCost::new(1.0, 1.0);

/// The work per element the scheduler plans a heavy lane's fold with: an operator and a read
/// (the runtime's `flat::reduce`; what the element's own computation costs beyond that, the
/// scheduler learns from the fold's runs).
const FOLD: ElemCost = ElemCost::new(1.0, 1.0);

/// The work per element of a heavy lane's filter on this thread: a test, an element read and
/// written ([`split`]: one pass).
const SPLIT_HERE: ElemCost = ElemCost::new(2.0, 2.0);

/// The work per element of a heavy lane's filter across the pool: a test, a class written and
/// read back, an element read twice and written (the runtime's `flat::split`).
const SPLIT: ElemCost = ElemCost::new(3.0, 4.0);

/// The work per element of a heavy lane's filter of a range: a test and a bit (the elements are
/// computed, not read), and the kept ones written.
const SELECT_IOTA: ElemCost = ElemCost::new(2.0, 1.0);

/// Whether a bulk operation of one lane over `n` elements runs split across the pool under
/// the choice `l`: forced [`Lanes::Parallel`] splits from two elements (so that tests reach
/// the split form on small inputs), [`Lanes::Model`] from [`PARALLEL_ELEMENTS`] on a pool of
/// more than one thread.
///
/// ```
/// use flatland_vectoriser::lane::{Lanes, splits};
/// assert!(!splits(Lanes::Sequential, 1 << 30));
/// assert!(splits(Lanes::Parallel, 2));
/// ```
#[inline]
pub fn splits(l: Lanes, n: usize) -> bool {
    match l {
        Lanes::Sequential => false,
        Lanes::Parallel => n >= 2,
        Lanes::Model => n >= PARALLEL_ELEMENTS && rayon::current_num_threads() > 1,
    }
}

/// The elements one call of [`select_iota_in`]'s test covers: the bits of a `u64`.
pub const WORD: usize = 64;

/// [`Ctx::tasks`] of a map whose work reaches [`PARALLEL_WORK`]: as the scheduler plans `op`
/// over `total` units of work, its tasks balanced over the lanes' weights.
#[inline(never)]
fn planned_lanes(
    n: usize,
    weight: &impl Weights,
    total: usize,
    op: Op,
) -> (Option<Vec<std::ops::Range<usize>>>, Timing) {
    let (s, clock) = sched::plan_op(op, total, MAP_LANES);
    if s.is_sequential() {
        return (None, clock);
    }
    (
        Some(weights::balanced(n, s.num_tasks(), total, weight)),
        clock,
    )
}

/// Writes `lane(ctx, start + k)` into `slot[k]` for every slot in order, or, at the first
/// failing lane, drops the values written before it and returns its error. The one place a
/// map's lanes are called, whether they run on this thread or in the pool's tasks: with a
/// single call site, rustc inlines the lane's code into this loop (a lane called from two
/// loops stays a call of its own, and on short lanes, such as the rows of a sparse matrix,
/// the call's prologue and spills were a quarter of the instructions of each row). Kept out
/// of line, so that its callers do not make two copies of it.
#[inline(never)]
fn write_lanes<T>(
    ctx: &Ctx,
    start: usize,
    slot: &mut [std::mem::MaybeUninit<T>],
    lane: &impl Fn(&Ctx, usize) -> Result<T>,
) -> Result<()> {
    for k in 0..slot.len() {
        match lane(ctx, start + k) {
            Ok(v) => {
                slot[k].write(v);
            }
            Err(e) => {
                for s in &mut slot[..k] {
                    // SAFETY: the slots before `k` were written above.
                    unsafe { s.assume_init_drop() };
                }
                return Err(e);
            }
        }
    }
    Ok(())
}

/// Writes the values of lanes `start..start + slot.len()` into `slot`: `lane(&cut(start,
/// slot.len()), k)` into slot `k` ([`Ctx::map_total_blocks`]). A lane that panics leaves the
/// values written before it to leak, never to be read.
#[inline]
fn write_block<T, S>(
    start: usize,
    slot: &mut [std::mem::MaybeUninit<T>],
    cut: &impl Fn(usize, usize) -> S,
    lane: &impl Fn(&S, usize) -> T,
) {
    let block = cut(start, slot.len());
    for (k, s) in slot.iter_mut().enumerate() {
        s.write(lane(&block, k));
    }
}

/// `xs` cut at the consecutive `ranges` that cover it ([`blocks`], [`Ctx::tasks`]), each
/// piece with its start.
///
/// # Panics
/// If the ranges do not cover `xs` exactly, in order.
fn block_slices<'a, T>(
    xs: &'a mut [T],
    ranges: &[std::ops::Range<usize>],
) -> Vec<(usize, &'a mut [T])> {
    let mut pieces = Vec::with_capacity(ranges.len());
    let mut rest = xs;
    let mut at = 0;
    for r in ranges {
        assert_eq!(r.start, at, "the ranges are consecutive");
        let (here, tail) = std::mem::take(&mut rest).split_at_mut(r.len());
        pieces.push((r.start, here));
        rest = tail;
        at = r.end;
    }
    assert!(rest.is_empty(), "the ranges cover the slice");
    pieces
}

thread_local! {
    static LANES: std::cell::Cell<Lanes> = const { std::cell::Cell::new(Lanes::Model) };
}

/// The choice runs started on this thread make ([`Lanes::Model`] unless inside
/// [`with_lanes`]).
pub fn lanes() -> Lanes {
    LANES.with(std::cell::Cell::get)
}

/// Runs `f` with the runs it starts on this thread choosing `l` for every map.
pub fn with_lanes<R>(l: Lanes, f: impl FnOnce() -> R) -> R {
    struct Restore(Lanes);
    impl Drop for Restore {
        fn drop(&mut self) {
            LANES.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(LANES.with(|c| c.replace(l)));
    f()
}

impl Ctx {
    /// A run at depth 0, with the recursion limit and the choice of [`lanes`] in force now.
    pub fn new() -> Ctx {
        Ctx::at_level(Depth::new().level(), lanes(), rayon::current_num_threads())
    }

    /// A context on the calling thread at depth `level.0` of the limit `level.1`: a task of a
    /// run's lanes on the pool gets the run's choice of lanes and its caller's depth (each
    /// task counts from it); a new run starts at 0.
    fn at_level(level: (usize, usize), lanes: Lanes, threads: usize) -> Ctx {
        Ctx {
            depth: Depth::at(level.0, level.1),
            lanes,
            threads,
            stack: StackFloor::here(),
            _this_thread: std::marker::PhantomData,
        }
    }

    /// The values of `lane(ctx, i)` for `i` in `0..n`, in order, or the error of the lowest
    /// failing lane (as a sequential run gives). `weight` gives the number of elements each
    /// lane reads first (0 for a scalar; [`Weights`]: a closure of the lane, or the rows of a
    /// `Nested` and lanes alike, whose sums need no walk), from which the choice of [`Lanes`]
    /// and the tasks' balance come.
    ///
    /// # Errors
    /// The error of the lowest failing lane.
    ///
    /// ```
    /// use flatland_vectoriser::lane::{Ctx, Lanes, with_lanes};
    /// let squares = |l| with_lanes(l, || Ctx::new().map(1000, |_: usize| 0, |_, i| Ok(i * i)).unwrap());
    /// assert_eq!(squares(Lanes::Parallel), squares(Lanes::Sequential));
    /// ```
    #[inline]
    pub fn map<T: Send>(
        &self,
        n: usize,
        weight: impl Weights,
        lane: impl Fn(&Ctx, usize) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        let (tasks, _clock) = self.tasks(n, &weight, &lane);
        let Some(tasks) = tasks else {
            return self.map_here(n, &lane);
        };
        budget::check_elements::<T>("map", n)?;
        self.map_in_tasks(n, tasks, &lane)
    }

    /// [`Ctx::map`] of a lane that cannot fail: the values of `lane(i)` for `i` in `0..n`, in
    /// order, on this thread or by tasks of lanes as [`Ctx::map`] runs them, written by the
    /// same loop (`write_lanes`; the `Ok` each value is wrapped in there folds away once the
    /// lane is inlined into it).
    ///
    /// ```
    /// use flatland_vectoriser::lane::{Ctx, Lanes, with_lanes};
    /// let squares = |l| with_lanes(l, || Ctx::new().map_total(1000, |_: usize| 0, |i| i * i));
    /// assert_eq!(squares(Lanes::Parallel), squares(Lanes::Sequential));
    /// assert_eq!(squares(Lanes::Model)[999], 999 * 999);
    /// ```
    #[inline]
    pub fn map_total<T: Send>(
        &self,
        n: usize,
        weight: impl Weights,
        lane: impl Fn(usize) -> T + Sync,
    ) -> Vec<T> {
        let lane = |_: &Ctx, i| Ok(lane(i));
        let (tasks, _clock) = self.tasks(n, &weight, &lane);
        let values = match tasks {
            None => self.map_here(n, &lane),
            Some(tasks) => self.map_in_tasks(n, tasks, &lane),
        };
        let Ok(values) = values else {
            unreachable!("the lanes cannot fail")
        };
        values
    }

    /// [`Ctx::map_total`] over a block of lanes at a time: `cut(start, len)` is called once
    /// per run of lanes `start..start + len` (the whole map on this thread, or a task of lanes
    /// on the pool), and `lane(&cut, k)` gives the value of lane `start + k` for `k` in
    /// `0..len`. A map over slices cuts them to the block, so that its lanes index slices
    /// exactly `len` long by `k`: rustc drops the bounds checks and vectorises the loop that
    /// writes the values.
    ///
    /// ```
    /// use flatland_vectoriser::lane::{Ctx, Lanes, with_lanes};
    /// let (xs, ys) = (vec![1.5; 1000], vec![2.0; 1000]);
    /// let sums = |l| with_lanes(l, || {
    ///     Ctx::new().map_total_blocks(
    ///         1000,
    ///         |_: usize| 0,
    ///         |start: usize, len: usize| (&xs[start..][..len], &ys[start..][..len]),
    ///         |&(xs, ys): &(&[f64], &[f64]), k: usize| xs[k] + ys[k],
    ///     )
    /// });
    /// assert_eq!(sums(Lanes::Parallel), sums(Lanes::Sequential));
    /// assert_eq!(sums(Lanes::Model)[999], 3.5);
    /// ```
    #[inline]
    pub fn map_total_blocks<T: Send, S>(
        &self,
        n: usize,
        weight: impl Weights,
        cut: impl Fn(usize, usize) -> S + Sync,
        lane: impl Fn(&S, usize) -> T + Sync,
    ) -> Vec<T> {
        let mut out: Vec<T> = spare::vec_with_capacity(n);
        let slots = &mut out.spare_capacity_mut()[..n];
        let (tasks, _clock) = self.tasks(n, &weight, &lane);
        match tasks {
            None => write_block(0, slots, &cut, &lane),
            Some(tasks) => {
                sched::run_parts(block_slices(slots, &tasks), |_, (start, slot)| {
                    write_block(start, slot, &cut, &lane);
                });
            }
        }
        // SAFETY: `write_block` wrote every slot of each piece, and the pieces cover the `n`
        // slots (`block_slices` checks it); a lane that panics unwinds past this line.
        unsafe { out.set_len(n) };
        out
    }

    /// Runs the tasks of a [`Ctx::map`] on the pool (`sched::run_parts`, as the runtime runs
    /// its own tasks: the workers kept awake for the next operation, the caller's profile and
    /// work counters carried into the tasks, where a heavy lane plans its bulk operations),
    /// each writing its lanes' values straight
    /// into its slots of the result, as rayon's `collect` does: no buffer per task and no
    /// concatenation after them (on pointer jumping over 10^5 nodes, that copy and the
    /// buffers were a tenth of the time). On an error, the values written so far are
    /// dropped and the error of the lowest failing lane returned (each task stops at its
    /// first failure, and the tasks are in lane order); the caller checks the budget for the
    /// output first where it may refuse it. Kept out of line, so that a map on this thread
    /// does not carry the pool's machinery. [`Ctx::map_total`] runs its tasks here too.
    #[inline(never)]
    fn map_in_tasks<T: Send>(
        &self,
        n: usize,
        tasks: Vec<std::ops::Range<usize>>,
        lane: &(impl Fn(&Ctx, usize) -> Result<T> + Sync),
    ) -> Result<Vec<T>> {
        let mut out: Vec<T> = spare::vec_with_capacity(n);
        let (level, choice, threads) = (self.depth.level(), self.lanes, self.threads);
        let slots = block_slices(&mut out.spare_capacity_mut()[..n], &tasks);
        let outcomes: Vec<Result<()>> = sched::run_parts(slots, |_, (start, slot)| {
            let ctx = Ctx::at_level(level, choice, threads);
            write_lanes(&ctx, start, slot, lane)
        });
        if outcomes.iter().any(Result::is_err) {
            for (r, o) in tasks.iter().zip(&outcomes) {
                if o.is_ok() {
                    for s in &mut out.spare_capacity_mut()[r.clone()] {
                        // SAFETY: a task that returned `Ok` wrote every slot of its range.
                        unsafe { s.assume_init_drop() };
                    }
                }
            }
            return Err(outcomes
                .into_iter()
                .find_map(Result::err)
                .unwrap_or_else(|| unreachable!("an outcome is an error")));
        }
        // SAFETY: the tasks' ranges cover `0..n` in order (`block_slices` checks it), and
        // every task returned `Ok`, having written every slot of its range.
        unsafe { out.set_len(n) };
        Ok(out)
    }

    /// [`Ctx::map`]'s lanes run on this thread, written straight into the result.
    #[inline]
    fn map_here<T>(&self, n: usize, lane: &impl Fn(&Ctx, usize) -> Result<T>) -> Result<Vec<T>> {
        let mut out = spare::vec_with_capacity(n);
        write_lanes(self, 0, &mut out.spare_capacity_mut()[..n], lane)?;
        // SAFETY: `write_lanes` returned `Ok`, having written every one of the `n` slots.
        unsafe { out.set_len(n) };
        Ok(out)
    }

    /// The choice of [`Lanes`] this run makes: the bulk operations of a lane ([`split_in`],
    /// [`fold_in`], [`fold_mapped_in`]) take it as their first argument.
    #[inline]
    pub fn lanes(&self) -> Lanes {
        self.lanes
    }

    /// The concatenation of what `lane(ctx, i, out)` appends to `out` for `i` in `0..n`, in
    /// order (a `concat` of a `map` written straight into its destination: one buffer per
    /// task of lanes, not one array per lane, and a lane's own large array moved into the
    /// result, [`Pieces`]), or the error of the lowest failing lane. The lanes run as
    /// [`Ctx::map`] runs them.
    ///
    /// # Errors
    /// The error of the lowest failing lane.
    ///
    /// ```
    /// use flatland_vectoriser::lane::{Ctx, Lanes, Pieces, with_lanes};
    /// let runs = |l| with_lanes(l, || Ctx::new().flat_map(500, |i: usize| i % 3, |_, i, out: &mut Pieces<usize>| {
    ///     out.extend(0..i % 3);
    ///     Ok(())
    /// }).unwrap());
    /// assert_eq!(runs(Lanes::Parallel), runs(Lanes::Sequential));
    /// assert_eq!(runs(Lanes::Sequential)[..4], [0, 0, 1, 0]);
    /// ```
    #[inline]
    pub fn flat_map<T: Send>(
        &self,
        n: usize,
        weight: impl Weights,
        lane: impl Fn(&Ctx, usize, &mut Pieces<T>) -> Result<()> + Sync,
    ) -> Result<Vec<T>> {
        let mut out = Pieces::new();
        self.flat_map_into(n, weight, lane, &mut out)?;
        out.into_vec()
    }

    /// [`Ctx::flat_map`] appending to `out` (the destination of a caller that is itself a
    /// lane of a `concat` of a `map`, a recursion's result included: the arrays of every
    /// level written once, into the outermost destination), or the error of the lowest
    /// failing lane. What the lanes appended before an error is left in `out`.
    ///
    /// # Errors
    /// The error of the lowest failing lane.
    ///
    /// ```
    /// use flatland_vectoriser::lane::{Ctx, Lanes, Pieces, with_lanes};
    /// let runs = |l| with_lanes(l, || {
    ///     let mut out = Pieces::new();
    ///     out.push(9);
    ///     Ctx::new().flat_map_into(500, |i: usize| i % 3, |_, i, out: &mut Pieces<usize>| {
    ///         out.extend(0..i % 3);
    ///         Ok(())
    ///     }, &mut out).unwrap();
    ///     out.into_vec().unwrap()
    /// });
    /// assert_eq!(runs(Lanes::Parallel), runs(Lanes::Sequential));
    /// assert_eq!(runs(Lanes::Sequential)[..5], [9, 0, 0, 1, 0]);
    /// ```
    #[inline]
    pub fn flat_map_into<T: Send>(
        &self,
        n: usize,
        weight: impl Weights,
        lane: impl Fn(&Ctx, usize, &mut Pieces<T>) -> Result<()> + Sync,
        out: &mut Pieces<T>,
    ) -> Result<()> {
        self.in_tasks_into(
            n,
            &weight,
            |ctx, lanes, out| {
                for i in lanes {
                    lane(ctx, i, out)?;
                }
                Ok(())
            },
            out,
        )
    }

    /// [`Ctx::map`] appending the lanes' values to `out` (a map that is a lane's part of a
    /// `concat`: no array of its own), or the error of the lowest failing lane.
    ///
    /// # Errors
    /// The error of the lowest failing lane.
    ///
    /// ```
    /// use flatland_vectoriser::lane::{Ctx, Pieces};
    /// let mut out = Pieces::new();
    /// Ctx::new().map_into(3, |_: usize| 0, |_, i| Ok(10 * i), &mut out).unwrap();
    /// assert_eq!(out.into_vec().unwrap(), vec![0, 10, 20]);
    /// ```
    #[inline]
    pub fn map_into<T: Send>(
        &self,
        n: usize,
        weight: impl Weights,
        lane: impl Fn(&Ctx, usize) -> Result<T> + Sync,
        out: &mut Pieces<T>,
    ) -> Result<()> {
        let (tasks, _clock) = self.tasks(n, &weight, &lane);
        let Some(tasks) = tasks else {
            out.reserve(n);
            for i in 0..n {
                out.push(lane(self, i)?);
            }
            return Ok(());
        };
        budget::check_elements::<T>("map", n)?;
        out.extend_owned(self.map_in_tasks(n, tasks, &lane)?);
        Ok(())
    }

    /// Appends what `fill(ctx, lanes, out)` appends for the ranges of lanes covering `0..n`,
    /// in order, to `out`: one range on this thread, appending to `out` itself, or tasks of
    /// balanced ranges on the pool ([`Ctx::tasks`]), each appending to pieces of its own,
    /// moved into `out` after the last task (the result's one concatenation,
    /// [`Pieces::into_vec`], copies each element once).
    #[inline]
    fn in_tasks_into<T: Send>(
        &self,
        n: usize,
        weight: &impl Weights,
        fill: impl Fn(&Ctx, std::ops::Range<usize>, &mut Pieces<T>) -> Result<()> + Sync,
        out: &mut Pieces<T>,
    ) -> Result<()> {
        let (tasks, _clock) = self.tasks(n, weight, &fill);
        let Some(tasks) = tasks else {
            return fill(self, 0..n, out);
        };
        self.run_tasks(tasks, fill, out)
    }

    /// Runs `fill(ctx, task, pieces)` for each task on the pool (`sched::run_parts`, as
    /// [`Ctx::map_in_tasks`] does), each with a context at this
    /// level and pieces of its own, and moves the pieces into `out` in task order; the error
    /// of the lowest failing task. Kept out of line, as [`Ctx::map_in_tasks`] is: the maps
    /// that call it are inlined into every call of a recursion, which runs here only when it
    /// splits.
    #[inline(never)]
    fn run_tasks<I: Send, T: Send>(
        &self,
        tasks: Vec<I>,
        fill: impl Fn(&Ctx, I, &mut Pieces<T>) -> Result<()> + Sync,
        out: &mut Pieces<T>,
    ) -> Result<()> {
        // The depth counter is not shared: each task counts from the caller's level.
        let (level, choice, threads) = (self.depth.level(), self.lanes, self.threads);
        let parts: Vec<Result<Vec<Vec<T>>>> = sched::run_parts(tasks, |_, task| {
            let ctx = Ctx::at_level(level, choice, threads);
            let mut pieces = Pieces::new();
            fill(&ctx, task, &mut pieces)?;
            Ok(pieces.into_parts())
        });
        let parts: Vec<Vec<Vec<T>>> = parts.into_iter().collect::<Result<_>>()?;
        out.append_parts(parts.into_iter().flatten().collect());
        Ok(())
    }

    /// [`Ctx::flat_map_into`] of lanes that take their arrays by value: lane `i` gets the
    /// `i`-th array of `arrays` (a recursion's parts, handed down and freed there; see
    /// [`Owning`]) and appends to `out`. Each lane weighs its array's length plus `shared`
    /// (the free arrays it reads whole).
    ///
    /// # Errors
    /// The error of the lowest failing lane.
    ///
    /// ```
    /// use flatland_vectoriser::lane::{Ctx, Lanes, Owning, Pieces, with_lanes};
    /// let xs: Vec<i64> = (0..100).collect();
    /// let runs = |l| with_lanes(l, || {
    ///     let halves = Owning::new([xs[..50].to_vec(), xs[50..].to_vec()]);
    ///     let mut out = Pieces::new();
    ///     Ctx::new().flat_map_owning_into(halves, 0, |_, i, half, out| {
    ///         out.extend(half.iter().map(|x| x * (i as i64 + 1)));
    ///         Ok(())
    ///     }, &mut out).unwrap();
    ///     out.into_vec().unwrap()
    /// });
    /// assert_eq!(runs(Lanes::Parallel), runs(Lanes::Sequential));
    /// assert_eq!(runs(Lanes::Sequential)[..3], [0, 1, 2]);
    /// assert_eq!(runs(Lanes::Sequential)[50], 100);
    /// ```
    #[inline]
    pub fn flat_map_owning_into<'a, E: Clone + Send + Sync, T: Send>(
        &self,
        arrays: Owning<'a, E>,
        shared: usize,
        lane: impl Fn(&Ctx, usize, Cow<'a, [E]>, &mut Pieces<T>) -> Result<()> + Sync,
        out: &mut Pieces<T>,
    ) -> Result<()> {
        let weight = |i: usize| arrays.len_at(i).saturating_add(shared);
        let (tasks, _clock) = self.tasks(arrays.len(), &weight, &lane);
        let Some(tasks) = tasks else {
            return arrays.try_for_each(|i, a| lane(self, i, a, out));
        };
        self.owning_in_tasks(arrays, tasks, lane, out)
    }

    /// [`Ctx::flat_map_owning_into`]'s lanes run by `tasks` (ranges of lanes covering them, in
    /// order) on the pool.
    fn owning_in_tasks<'a, E: Clone + Send + Sync, T: Send>(
        &self,
        arrays: Owning<'a, E>,
        tasks: Vec<std::ops::Range<usize>>,
        lane: impl Fn(&Ctx, usize, Cow<'a, [E]>, &mut Pieces<T>) -> Result<()> + Sync,
        out: &mut Pieces<T>,
    ) -> Result<()> {
        // Each task's arrays split off before the tasks start.
        let mut all = arrays.into_vec().into_iter();
        let tasks: Vec<(usize, Vec<Cow<'a, [E]>>)> = tasks
            .iter()
            .map(|r| (r.start, all.by_ref().take(r.len()).collect()))
            .collect();
        self.run_tasks(
            tasks,
            |ctx, (start, arrays), out| {
                for (k, a) in arrays.into_iter().enumerate() {
                    lane(ctx, start + k, a, out)?;
                }
                Ok(())
            },
            out,
        )
    }

    /// [`Ctx::map_into`] of lanes that take their arrays by value
    /// ([`Ctx::flat_map_owning_into`]): lane `i`'s value, computed from the `i`-th array,
    /// pushed to `out`.
    ///
    /// # Errors
    /// The error of the lowest failing lane.
    ///
    /// ```
    /// use flatland_vectoriser::lane::{Ctx, Owning, Pieces};
    /// let mut out = Pieces::new();
    /// let parts = Owning::new([vec![1, 2], vec![3]]);
    /// Ctx::new().map_owning_into(parts, 0, |_, _, p| Ok(p.len()), &mut out).unwrap();
    /// assert_eq!(out.into_vec().unwrap(), vec![2, 1]);
    /// ```
    #[inline]
    pub fn map_owning_into<'a, E: Clone + Send + Sync, T: Send>(
        &self,
        arrays: Owning<'a, E>,
        shared: usize,
        lane: impl Fn(&Ctx, usize, Cow<'a, [E]>) -> Result<T> + Sync,
        out: &mut Pieces<T>,
    ) -> Result<()> {
        self.flat_map_owning_into(
            arrays,
            shared,
            |ctx, i, a, out| {
                out.push(lane(ctx, i, a)?);
                Ok(())
            },
            out,
        )
    }

    /// The tasks of whole lanes a map of `n` lanes with these weights runs in parallel, or
    /// `None` where it runs them one after another on this thread, with the clock of the
    /// map's run (held by the caller until the lanes return: the scheduler learns from it).
    /// Below [`PARALLEL_WORK`] a map runs here without asking; above, the runtime's scheduler
    /// decides as for its own bulk operations ([`sched::plan_op`]: the machine profile's
    /// costs, corrected by what this map's earlier runs of the size took, and whether the
    /// pool's workers are awake) and its task count is balanced over the lanes' weights. A
    /// fixed 32 tasks per thread at every size made a map over 10^4 rows of ten take 72 us on
    /// two threads against 37 us on one. Inlined, so that the lanes of a recursion's short
    /// calls (a leaf's one lane, two halves below the parallel work) decide without a call;
    /// the plan and the split are out of line.
    #[inline]
    fn tasks<F: ?Sized>(
        &self,
        n: usize,
        weight: &impl Weights,
        lane: &F,
    ) -> (Option<Vec<std::ops::Range<usize>>>, Timing) {
        if n < 2 || self.lanes == Lanes::Sequential {
            return (None, Timing::off());
        }
        let threads = self.threads;
        if threads == 1 && self.lanes != Lanes::Parallel {
            return (None, Timing::off());
        }
        let total = weights::total(n, weight);
        if self.lanes == Lanes::Parallel {
            let tasks = weights::balanced(n, 32 * threads, total, weight);
            return (Some(tasks), Timing::off());
        }
        if total < PARALLEL_WORK {
            return (None, Timing::off());
        }
        planned_lanes(n, weight, total, Op::of("lane::map", lane))
    }

    /// Enters a call of `function`, one level deeper, until the [`Level`] is dropped: past the
    /// recursion limit, the interpreter's [`Error::RecursionLimit`] instead. Every function of
    /// per-lane code enters its level first thing; a recursive one checks its stack before
    /// ([`Ctx::has_stack_room`]).
    ///
    /// # Errors
    /// The recursion limit.
    ///
    /// ```
    /// use flatland_vectoriser::{lane::Ctx, limits};
    /// limits::with_max_recursion_depth(1, || {
    ///     let ctx = Ctx::new();
    ///     let f = ctx.enter("f").unwrap();
    ///     let e = ctx.enter("g").unwrap_err();
    ///     assert!(e.to_string().starts_with("recursion limit: a call of `g` at depth 2"));
    ///     drop(f);
    ///     assert!(ctx.enter("g").is_ok());
    /// });
    /// ```
    #[inline]
    pub fn enter(&self, function: &str) -> Result<Level<'_>> {
        self.depth.enter(function)?;
        Ok(Level(self))
    }

    /// Whether a recursive call can run on this stack: [`CALL_RED_ZONE`] bytes are left for
    /// it and the non-recursive calls under it, which do not check. One comparison, with an
    /// address read once per stack segment.
    ///
    /// ```
    /// assert!(flatland_vectoriser::lane::Ctx::new().has_stack_room());
    /// ```
    #[inline]
    pub fn has_stack_room(&self) -> bool {
        self.stack.has_room()
    }

    /// Runs `f`, a recursive call for which [`Ctx::has_stack_room`] said no, on a new stack
    /// segment allocated on the heap (as the interpreter's deep recursion does).
    ///
    /// ```
    /// let ctx = flatland_vectoriser::lane::Ctx::new();
    /// assert_eq!(ctx.on_new_stack(|| 7), 7);
    /// ```
    pub fn on_new_stack<R>(&self, f: impl FnOnce() -> R) -> R {
        self.stack.grow(f)
    }
}

/// A call level of per-lane code, entered by [`Ctx::enter`]: dropping it leaves the level
/// (also when the call returns an error or unwinds).
#[derive(Debug)]
#[must_use = "the level is left when this is dropped"]
pub struct Level<'c>(&'c Ctx);

impl Drop for Level<'_> {
    #[inline]
    fn drop(&mut self) {
        self.0.depth.leave();
    }
}

fn invalid(op: &'static str, lane: usize, detail: String) -> Error {
    Error::Runtime(RtError::Invalid {
        op,
        detail: format!("lane {lane}: {detail}"),
    })
}

/// Element `i` of `xs`, or the interpreter's `index` error.
///
/// # Errors
/// `i` outside `0..xs.len()`.
///
/// ```
/// assert!(flatland_vectoriser::lane::index(&[1.0f64], -1, 0).is_err());
/// ```
#[inline]
pub fn index<T>(xs: &[T], i: i64, lane: usize) -> Result<&T> {
    // A negative `i` wraps to an index far above any length: one comparison checks both ends.
    #[allow(clippy::cast_sign_loss)]
    match xs.get(i as usize) {
        Some(x) => Ok(x),
        None => Err(RtError::IndexOutOfRange {
            op: "index",
            lane,
            index: i,
            len: xs.len(),
        }
        .into()),
    }
}

/// A length argument of `op` (`iota`, `replicate`), checked against the memory budget for
/// elements of `T` from [`COUNTED`] bytes (below, like every small allocation of per-lane
/// code, it is not: reading the budget's state was a twentieth of a per-row arg-max, whose
/// `enumerate()` is a range per row).
///
/// # Errors
/// A negative length, or one the budget refuses.
///
/// ```
/// use flatland_vectoriser::lane::count;
/// assert_eq!(count::<i64>("iota", 3, 0).unwrap(), 3);
/// assert_eq!(count::<i64>("iota", -1, 2).unwrap_err().to_string(), "iota: lane 2: negative length -1");
/// assert!(count::<i64>("iota", i64::MAX, 0).is_err());
/// ```
#[inline]
pub fn count<T>(op: &'static str, n: i64, lane: usize) -> Result<usize> {
    let n = usize::try_from(n).map_err(|_| invalid(op, lane, format!("negative length {n}")))?;
    if n.saturating_mul(size_of::<T>()) >= COUNTED {
        budget::check_elements::<T>(op, n)?;
    }
    Ok(n)
}

/// The size in bytes from which [`count`] checks a length against the memory budget.
pub const COUNTED: usize = 64 * 1024;

/// `iota(n, start, step)` for a checked length ([`count`]), wrapping as `i64` does.
///
/// ```
/// assert_eq!(flatland_vectoriser::lane::iota(3, 5, -2), vec![5, 3, 1]);
/// ```
#[inline]
pub fn iota(n: usize, start: i64, step: i64) -> Vec<i64> {
    (0..n as i64)
        .map(|k| start.wrapping_add(k.wrapping_mul(step)))
        .collect()
}

/// `slice(xs, start, len)`, or the interpreter's `slice` error.
///
/// # Errors
/// A negative start or length, or a range past the end.
///
/// ```
/// use flatland_vectoriser::lane::slice;
/// assert_eq!(slice(&[1, 2, 3], 1, 2, 0).unwrap(), &[2, 3]);
/// assert!(slice(&[1, 2, 3], 2, 2, 0).is_err());
/// ```
#[inline]
pub fn slice<T>(xs: &[T], start: i64, len: i64, lane: usize) -> Result<&[T]> {
    match (
        usize::try_from(start),
        usize::try_from(len),
        start.checked_add(len),
    ) {
        (Ok(s), Ok(l), Some(_)) if s + l <= xs.len() => Ok(&xs[s..s + l]),
        _ => Err(invalid(
            "slice",
            lane,
            format!(
                "start {start} and length {len} out of range for length {}",
                xs.len()
            ),
        )),
    }
}

/// Checks that the arrays of `op` (a `map` of several arrays, `scatter`, `hist`) have the
/// length of the first: the interpreter's error names the first that differs.
///
/// # Errors
/// A length that differs from `lens[0]`.
///
/// ```
/// use flatland_vectoriser::lane::same_lengths;
/// assert!(same_lengths("map", &[2, 2]).is_ok());
/// assert_eq!(same_lengths("map", &[2, 3]).unwrap_err().to_string(), flatland_runtime::Error::LengthMismatch { op: "map", expected: 2, found: 3 }.to_string());
/// ```
#[inline]
pub fn same_lengths(op: &'static str, lens: &[usize]) -> Result<()> {
    // Inlined into every lane that zips arrays (an `enumerate()`): one comparison per array,
    // the error built out of line.
    if lens.iter().all(|&m| m == lens[0]) {
        Ok(())
    } else {
        Err(length_mismatch(op, lens))
    }
}

/// The error of [`same_lengths`]: the first length that differs from `lens[0]`.
#[cold]
#[inline(never)]
fn length_mismatch(op: &'static str, lens: &[usize]) -> Error {
    let found = lens
        .iter()
        .copied()
        .find(|&m| m != lens[0])
        .unwrap_or(lens[0]);
    RtError::LengthMismatch {
        op,
        expected: lens[0],
        found,
    }
    .into()
}

/// The elements of the arrays of `xs`, in order (one level of nesting removed).
///
/// ```
/// assert_eq!(flatland_vectoriser::lane::concat(&[vec![1], vec![], vec![2, 3]]), vec![1, 2, 3]);
/// ```
#[inline]
pub fn concat<T: Clone, P: AsRef<[T]>>(xs: &[P]) -> Vec<T> {
    let mut out = spare::vec_with_capacity(xs.iter().map(|x| x.as_ref().len()).sum());
    for x in xs {
        out.extend_from_slice(x.as_ref());
    }
    out
}

/// The elements of a literal's parts, in order, as [`concat()`]; an owned first part of at
/// least [`GROWN_IN_PLACE`] bytes is the output, grown in place (its buffer reallocated, which
/// for a large block the allocator may extend without a copy) instead of copied into a new one.
/// Quicksort's `[sorted[0], equal, sorted[1]].concat()` then holds the output and the parts
/// after the first, not every part beside the output. (A short first part is copied: for a
/// few elements a reallocation costs more than the copy it saves.)
///
/// ```
/// use flatland_vectoriser::lane::{Cow, concat_reusing_first};
/// let first: Cow<[i64]> = Cow::Owned((0..10_000).collect());
/// let all = concat_reusing_first([first, Cow::Borrowed(&[3][..]), Cow::Owned(vec![4])]);
/// assert_eq!((all.len(), &all[9_999..]), (10_002, &[9_999, 3, 4][..]));
/// let short = concat_reusing_first([Cow::Borrowed(&[5][..]), Cow::Owned(vec![6])]);
/// assert_eq!(short, vec![5, 6]);
/// ```
#[inline]
pub fn concat_reusing_first<T: Clone, const N: usize>(mut parts: [Cow<'_, [T]>; N]) -> Vec<T> {
    let Some((first, rest)) = parts.split_first_mut() else {
        return Vec::new();
    };
    let more: usize = rest.iter().map(|p| p.len()).sum();
    let mut out = match first {
        Cow::Owned(v) if std::mem::size_of_val(&v[..]) >= GROWN_IN_PLACE => {
            let mut v = std::mem::take(v);
            v.reserve_exact(more);
            v
        }
        _ => {
            let mut out = spare::vec_with_capacity(first.len() + more);
            out.extend_from_slice(first);
            out
        }
    };
    for p in rest {
        out.extend_from_slice(p);
    }
    out
}

/// The size in bytes from which [`concat_reusing_first`] grows an owned first part in place.
pub const GROWN_IN_PLACE: usize = 32 * 1024;

/// The classes of a filter: element `i` of `xs` goes to class `class(i)` (below `K`), each
/// class in order; a class not `wanted` is left empty (not built). Classes are counted first,
/// so each is allocated once at its length.
///
/// # Errors
/// The first error of `class`, in index order.
///
/// ```
/// let [even, odd] = flatland_vectoriser::lane::split(&[1, 2, 3, 4], [true, true], |i| Ok(i % 2)).unwrap();
/// assert_eq!((even, odd), (vec![1, 3], vec![2, 4]));
/// let [_, odd] = flatland_vectoriser::lane::split(&[1, 2, 3], [false, true], |i| Ok(i % 2)).unwrap();
/// assert_eq!(odd, vec![2]);
/// ```
#[inline]
pub fn split<T: Clone, const K: usize>(
    xs: &[T],
    wanted: [bool; K],
    mut class: impl FnMut(usize) -> Result<usize>,
) -> Result<[Vec<T>; K]> {
    /// Arrays up to this long keep their classes on the stack (most lanes' rows are short).
    const ON_STACK: usize = 64;
    if wanted.iter().filter(|w| **w).count() == 1
        && let Some(only) = wanted.iter().position(|w| *w)
    {
        // One class wanted (a filter's kept elements): one pass, no classes kept.
        let mut out: [Vec<T>; K] = std::array::from_fn(|_| Vec::new());
        if !std::mem::needs_drop::<T>() {
            out[only] = kept_without_branches(xs, only, &mut class)?;
            return Ok(out);
        }
        // A short array takes the counted path below, whose classes stay on the stack: its
        // output is allocated once at its length instead of grown by doubling (four or five
        // reallocations for each filter of a few dozen elements in a recursion).
        if xs.len() > ON_STACK {
            let kept = &mut out[only];
            for (i, x) in xs.iter().enumerate() {
                if class(i)? == only {
                    kept.push(x.clone());
                }
            }
            return Ok(out);
        }
    }
    let n = xs.len();
    let mut stack = [0u32; ON_STACK];
    let mut heap = Vec::new();
    let classes: &mut [u32] = if n <= ON_STACK {
        &mut stack[..n]
    } else {
        heap.resize(n, 0);
        &mut heap
    };
    let mut counts = [0usize; K];
    for (i, c) in classes.iter_mut().enumerate() {
        let k = class(i)?;
        counts[k] += 1;
        // K classes fit in u32: a filter has one predicate per class but the last.
        *c = k as u32;
    }
    let mut out: [Vec<T>; K] = std::array::from_fn(|k| {
        if wanted[k] {
            spare::vec_with_capacity(counts[k])
        } else {
            Vec::new()
        }
    });
    for (x, &k) in xs.iter().zip(classes.iter()) {
        if wanted[k as usize] {
            out[k as usize].push(x.clone());
        }
    }
    Ok(out)
}

/// The elements of `xs` of class `only`, in order, for elements without drop glue, each
/// output allocated at its length (a recursion holds its filters' outputs across its calls):
/// up to [`SHORT_KEPT`] elements written to a buffer on the stack first, longer arrays block
/// by block into the output's spare room, which is given back at the end.
///
/// # Errors
/// The first error of `class`, in index order.
#[inline]
fn kept_without_branches<T: Clone>(
    xs: &[T],
    only: usize,
    class: &mut impl FnMut(usize) -> Result<usize>,
) -> Result<Vec<T>> {
    /// Elements whose room is reserved at a time.
    const BLOCK: usize = 1024;
    debug_assert!(!std::mem::needs_drop::<T>());
    if xs.len() <= SHORT_KEPT {
        let mut buf: [std::mem::MaybeUninit<T>; SHORT_KEPT] =
            [const { std::mem::MaybeUninit::uninit() }; SHORT_KEPT];
        let n = write_kept(xs, 0, only, class, &mut buf[..xs.len()])?;
        // SAFETY: `write_kept` initialised the first `n` slots of `buf`.
        let kept = unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<T>(), n) };
        return Ok(kept.to_vec());
    }
    // A large input's output takes room for every element at once, as the runtime's outputs
    // take theirs (fresh ones on huge pages, where growing by doubling faulted each new
    // block in 4 KiB at a time); the room not kept is given back below.
    let mut out: Vec<T> = if std::mem::size_of_val(xs) >= spare::MIN_BYTES {
        spare::vec_with_capacity(xs.len())
    } else {
        Vec::new()
    };
    for (b, block) in xs.chunks(BLOCK).enumerate() {
        out.reserve(block.len());
        let n = write_kept(
            block,
            b * BLOCK,
            only,
            class,
            &mut out.spare_capacity_mut()[..block.len()],
        )?;
        // SAFETY: `write_kept` initialised the first `n` slots of the spare capacity, which
        // the reservation above made room for.
        unsafe { out.set_len(out.len() + n) };
    }
    out.shrink_to_fit();
    Ok(out)
}

/// The arrays up to this long whose kept elements [`kept_without_branches`] gathers on the
/// stack before allocating their output.
const SHORT_KEPT: usize = 64;

/// Writes the elements of `block` (element `first + j` of the filtered array at `j`) of class
/// `only`, in order, to the first slots of `slots` (at least as many as `block`'s elements)
/// and returns how many: each element is written to the next free slot and the slot kept
/// only where the element is of the class, so no branch follows the data (a filter whose
/// predicate splits random data, quicksort's `x < pivot`, mispredicted about half of its
/// branches). Slot `k` is written when `k` slots are kept, and kept only after that write,
/// so the returned count's slots are initialised; a slot written and not kept is written
/// again or left over (`T` has no drop glue: nothing is leaked).
///
/// # Errors
/// The first error of `class`, in index order.
#[inline]
fn write_kept<T: Clone>(
    block: &[T],
    first: usize,
    only: usize,
    class: &mut impl FnMut(usize) -> Result<usize>,
    slots: &mut [std::mem::MaybeUninit<T>],
) -> Result<usize> {
    let slots = &mut slots[..block.len()];
    let mut n = 0;
    for (j, x) in block.iter().enumerate() {
        let keep = class(first + j)? == only;
        // `n <= j`: in bounds.
        slots[n].write(x.clone());
        n += usize::from(keep);
    }
    Ok(n)
}

/// [`split`] across the pool where [`splits`] says it pays under `l`: the blocks' elements
/// classified in parallel (a byte per element) and counted, then each wanted class written
/// once, straight into its output allocated at its length, the blocks in parallel (ParlayLib's
/// `pack`: no block's part is built and then copied beside the output). The same classes, and
/// the same first error in index order, as [`split`].
///
/// # Errors
/// The first error of `class`, in index order.
///
/// ```
/// use flatland_vectoriser::lane::{Lanes, split, split_in};
/// let xs: Vec<i64> = (0..1000).collect();
/// let class = |i: usize| Ok(usize::from(xs[i] % 3 == 0));
/// assert_eq!(split_in(Lanes::Parallel, &xs, [true, true], class).unwrap(), split(&xs, [true, true], class).unwrap());
/// ```
#[inline]
pub fn split_in<T: Clone + Send + Sync, const K: usize>(
    l: Lanes,
    xs: &[T],
    wanted: [bool; K],
    class: impl Fn(usize) -> Result<usize> + Sync,
) -> Result<[Vec<T>; K]> {
    if K == 2 {
        // Two classes are a bit per element (a filter's kept and dropped ones), more a byte.
        let word = |first: usize, xs: &[T]| {
            let mut bits = 0u64;
            for j in 0..xs.len() {
                // Class 0 or 1 (below K = 2, the caller's contract).
                bits |= u64::from(class(first + j)? == 1) << j;
            }
            Ok(bits)
        };
        let mut two = split_two_in(l, xs, [wanted[0], wanted[1]], &class, word)?.into_iter();
        return Ok(std::array::from_fn(|_| two.next().unwrap_or_default()));
    }
    if !splits(l, xs.len()) || K > usize::from(u8::MAX) + 1 {
        return split(xs, wanted, class);
    }
    let op = Op::of("lane::split", &class);
    let tasks = planned_seq_par(l, op, xs.len(), (SPLIT_HERE, SPLIT), 1);
    if tasks.ranges.len() < 2 {
        return split(xs, wanted, class);
    }
    budget::check_elements::<u8>("filter classes", xs.len())?;
    let regions: Vec<(usize, usize)> = tasks
        .ranges
        .iter()
        .map(ExactSizeIterator::len)
        .zip(0..)
        .collect();
    let (classes, counts) = sched::try_build_vec(xs.len(), &regions, regions.len(), |t, slots| {
        let mut counts = [0usize; K];
        for i in tasks.ranges[t].clone() {
            let k = class(i)?;
            // A class below K (the caller's contract), so below 256 here.
            counts[k] += 1;
            slots[0].push(k as u8);
        }
        Ok::<[usize; K], Error>(counts)
    })?;
    let mut out: [Vec<T>; K] = std::array::from_fn(|_| Vec::new());
    for (k, o) in out.iter_mut().enumerate().filter(|(k, _)| wanted[*k]) {
        let total = counts.iter().map(|c| c[k]).sum();
        budget::check_elements::<T>("filter", total)?;
        let pieces = tasks
            .ranges
            .iter()
            .zip(&counts)
            .map(|(r, c)| (c[k], r.clone()))
            .collect();
        *o = write_pieces(total, pieces, |r, slots| {
            kept_of_class(&xs[r.clone()], &classes[r], k, slots)
        });
    }
    Ok(out)
}

/// [`split_in`] of two classes (a filter's kept and dropped elements), whose caller also gives
/// `word(lo, &xs[lo..hi])`: bit `j` set where element `lo + j` is of class 1, for at most
/// [`WORD`] elements from a multiple of it (bits past the slice are dropped). Where [`splits`]
/// says the split may pay, the elements are tested a word at a time by `word`, which the
/// caller compiles with the test inlined over the slice and what it reads bound once per word
/// (a closure called per element reloads its captures at every element, and indexes the
/// array with a bounds check), across the pool in the tasks planned, or as one task where the
/// plan keeps a large array on this thread; otherwise one pass by `class` (as [`split`]). The
/// same classes, and the same first error in index order, either way.
///
/// # Errors
/// The first error of `class` (or `word`), in index order.
///
/// ```
/// use flatland_vectoriser::lane::{Lanes, split, split_two_in};
/// let xs: Vec<i64> = (0..1000).collect();
/// let class = |i: usize| Ok(usize::from(xs[i] % 3 == 0));
/// let word = |_: usize, xs: &[i64]| {
///     Ok(xs.iter().enumerate().map(|(j, x)| u64::from(x % 3 == 0) << j).sum())
/// };
/// let two = split_two_in(Lanes::Parallel, &xs, [true, true], class, word).unwrap();
/// assert_eq!(two, split(&xs, [true, true], class).unwrap());
/// ```
#[inline]
pub fn split_two_in<T: Clone + Send + Sync>(
    l: Lanes,
    xs: &[T],
    wanted: [bool; 2],
    class: impl Fn(usize) -> Result<usize>,
    word: impl Fn(usize, &[T]) -> Result<u64> + Sync,
) -> Result<[Vec<T>; 2]> {
    if !splits(l, xs.len()) {
        return split(xs, wanted, class);
    }
    let op = Op::of("lane::split", &word);
    let tasks = planned_seq_par(l, op, xs.len(), (SPLIT_HERE, SPLIT), WORD);
    if tasks.ranges.len() < 2 && std::mem::size_of_val(xs) < spare::MIN_BYTES {
        return split(xs, wanted, class);
    }
    // A large array the plan keeps on this thread takes the words too, as one task: its
    // outputs are allocated at their lengths, where `split`'s one pass takes room for every element and
    // gives back what it did not keep (a filter of 10^5 floats, a hundredth of a millisecond
    // each time: the room given back went to the system, and the next call faulted it in).
    split_two_across(&tasks.ranges, xs, wanted, &word)
}

/// [`split_in`] of two classes across the pool, in the tasks `ranges` (whole words of [`WORD`]
/// elements but the last): each task tests its elements into a bit per element (set for
/// class 1) and counts them, then each wanted class is written once, each task's elements of
/// it after those of the tasks before (a filter's mask and pack, ParlayLib's `pack`).
fn split_two_across<T: Clone + Send + Sync>(
    ranges: &[std::ops::Range<usize>],
    xs: &[T],
    wanted: [bool; 2],
    word: &(impl Fn(usize, &[T]) -> Result<u64> + Sync),
) -> Result<[Vec<T>; 2]> {
    let words = xs.len().div_ceil(WORD);
    budget::check_elements::<u64>("filter classes", words)?;
    let regions: Vec<(usize, usize)> = ranges
        .iter()
        .map(|r| r.len().div_ceil(WORD))
        .zip(0..)
        .collect();
    let (bits, ones) = sched::try_build_vec(words, &regions, regions.len(), |t, slots| {
        let r = ranges[t].clone();
        let mut ones = 0;
        for lo in r.clone().step_by(WORD) {
            let hi = (lo + WORD).min(r.end);
            // Bits past the word's elements are dropped.
            let bits = word(lo, &xs[lo..hi])? & (u64::MAX >> (WORD - (hi - lo)));
            ones += bits.count_ones() as usize;
            slots[0].push(bits);
        }
        Ok::<usize, Error>(ones)
    })?;
    let mut out: [Vec<T>; 2] = [Vec::new(), Vec::new()];
    for (k, o) in out.iter_mut().enumerate().filter(|(k, _)| wanted[*k]) {
        let of_k =
            |r: &std::ops::Range<usize>, ones: usize| if k == 1 { ones } else { r.len() - ones };
        let counts: Vec<usize> = ranges.iter().zip(&ones).map(|(r, &c)| of_k(r, c)).collect();
        let total = counts.iter().sum();
        budget::check_elements::<T>("filter", total)?;
        let pieces = counts.into_iter().zip(ranges.iter().cloned()).collect();
        *o = write_pieces(total, pieces, |r, slots| {
            kept_of_bits(&xs[r.clone()], &bits[r.start / WORD..], k == 1, slots)
        });
    }
    Ok(out)
}

/// The set bits from which [`kept_of_bits`] writes every element of a word, keeping the slots
/// of the set ones, rather than one element per set bit.
const DENSE_WORD: u32 = 40;

/// Writes the elements of `xs` whose bit in `bits` (bit `j % 64` of word `j / 64` for element
/// `j`) is `set`, in order, to the first slots of `slots` (exactly as many as there are), and
/// returns how many it wrote: a word of kept elements copied whole, a word mostly kept
/// element by element without a branch on the bit (elements without drop glue), the others
/// one per set bit (`trailing_zeros`), as the runtime's `flat::pack` writes them (no work for
/// the elements dropped: on half kept, 64 elements written per word took a tenth more time).
#[inline]
fn kept_of_bits<T: Clone>(
    xs: &[T],
    bits: &[u64],
    set: bool,
    slots: &mut [std::mem::MaybeUninit<T>],
) -> usize {
    let mut n = 0;
    for (chunk, &word) in xs.chunks(WORD).zip(bits) {
        // The bits past a short last chunk are not its elements'.
        let mut word = (if set { word } else { !word }) & (u64::MAX >> (WORD - chunk.len()));
        if word == u64::MAX {
            for (slot, x) in slots[n..n + WORD].iter_mut().zip(chunk) {
                slot.write(x.clone());
            }
            n += WORD;
            continue;
        }
        if word.count_ones() >= DENSE_WORD && !std::mem::needs_drop::<T>() {
            // Most of the word kept: each element written to the next slot, the slot kept
            // where its bit is set (no chain of `trailing_zeros` through the word).
            let end = n + word.count_ones() as usize;
            for (j, x) in chunk.iter().enumerate() {
                // The slots end with the last kept element: past it nothing is written.
                if let Some(slot) = slots[..end].get_mut(n) {
                    slot.write(x.clone());
                }
                n += ((word >> j) & 1) as usize;
            }
            continue;
        }
        while word != 0 {
            slots[n].write(chunk[word.trailing_zeros() as usize].clone());
            n += 1;
            word &= word - 1;
        }
    }
    n
}

/// Writes the elements of `xs` whose class (`classes`, one per element) is `k`, in order, to
/// the first slots of `slots` (exactly as many as there are), and returns how many it wrote.
/// Elements without drop glue are written to the next slot whatever their class, the slot
/// kept only for class `k`, so that no branch follows the data (see [`write_kept`]).
#[inline]
fn kept_of_class<T: Clone>(
    xs: &[T],
    classes: &[u8],
    k: usize,
    slots: &mut [std::mem::MaybeUninit<T>],
) -> usize {
    let mut n = 0;
    if std::mem::needs_drop::<T>() {
        for (x, &c) in xs.iter().zip(classes) {
            if usize::from(c) == k {
                slots[n].write(x.clone());
                n += 1;
            }
        }
        return n;
    }
    for (x, &c) in xs.iter().zip(classes) {
        // The slots end with the last kept element: past it nothing is written.
        if let Some(slot) = slots.get_mut(n) {
            slot.write(x.clone());
        }
        n += usize::from(usize::from(c) == k);
    }
    n
}

/// The elements of `xs` of class `only` (below `K`), in order: [`split_in`]'s class `only`,
/// with the same first error in index order. `class(i, x)` classifies element `i`, `x`.
/// An owned `xs` is filtered in place, as `Vec::retain` does: its kept elements moved to its
/// front and the rest dropped, so the filter allocates nothing and never holds its input
/// beside its output (the last of quicksort's filters of a lane's part). Where [`splits`]
/// says it pays, its blocks are filtered in place in parallel, then their kept elements moved
/// down in order.
///
/// # Errors
/// The first error of `class`, in index order.
///
/// ```
/// use flatland_vectoriser::lane::{Cow, Lanes, filter_class_in};
/// let class = |_: usize, x: &i64| Ok(usize::from(*x % 3 != 0));
/// let owned: Cow<[i64]> = Cow::Owned((0..10).collect());
/// assert_eq!(filter_class_in::<_, 2>(Lanes::Sequential, owned, 0, class).unwrap(), vec![0, 3, 6, 9]);
/// let held: Vec<i64> = (0..10).collect();
/// let borrowed = filter_class_in::<_, 2>(Lanes::Parallel, Cow::Borrowed(&held[..]), 1, class);
/// assert_eq!(borrowed.unwrap(), vec![1, 2, 4, 5, 7, 8]);
/// ```
#[inline]
pub fn filter_class_in<T: Clone + Send + Sync, const K: usize>(
    l: Lanes,
    xs: Cow<'_, [T]>,
    only: usize,
    class: impl Fn(usize, &T) -> Result<usize> + Sync,
) -> Result<Vec<T>> {
    match xs {
        Cow::Owned(v) if !splits(l, v.len()) => kept_in_place(v, only, class),
        Cow::Owned(v) => kept_in_place_in_blocks(l, v, only, class),
        xs @ Cow::Borrowed(_) => {
            let wanted: [bool; K] = std::array::from_fn(|c| c == only);
            let mut classes = split_in(l, &xs, wanted, |i| class(i, &xs[i]))?;
            Ok(std::mem::take(&mut classes[only]))
        }
    }
}

/// [`filter_class_in`] of two classes, whose caller also gives `word` as [`split_two_in`]
/// takes it: a borrowed `xs` is tested a word at a time across the pool.
///
/// # Errors
/// The first error of `class` (or `word`), in index order.
///
/// ```
/// use flatland_vectoriser::lane::{Cow, Lanes, filter_two_in};
/// let class = |_: usize, x: &i64| Ok(usize::from(*x % 3 != 0));
/// let word = |_: usize, xs: &[i64]| {
///     Ok(xs.iter().enumerate().map(|(j, x)| u64::from(x % 3 != 0) << j).sum())
/// };
/// let held: Vec<i64> = (0..10).collect();
/// let borrowed = filter_two_in(Lanes::Parallel, Cow::Borrowed(&held[..]), 1, class, word);
/// assert_eq!(borrowed.unwrap(), vec![1, 2, 4, 5, 7, 8]);
/// let owned: Cow<[i64]> = Cow::Owned(held.clone());
/// assert_eq!(filter_two_in(Lanes::Sequential, owned, 0, class, word).unwrap(), vec![0, 3, 6, 9]);
/// ```
#[inline]
pub fn filter_two_in<T: Clone + Send + Sync>(
    l: Lanes,
    xs: Cow<'_, [T]>,
    only: usize,
    class: impl Fn(usize, &T) -> Result<usize> + Sync,
    word: impl Fn(usize, &[T]) -> Result<u64> + Sync,
) -> Result<Vec<T>> {
    match xs {
        Cow::Borrowed(xs) => {
            let wanted = [only == 0, only == 1];
            let mut two = split_two_in(l, xs, wanted, |i| class(i, &xs[i]), word)?;
            Ok(std::mem::take(&mut two[only]))
        }
        owned @ Cow::Owned(_) => filter_class_in::<T, 2>(l, owned, only, class),
    }
}

/// The elements of `v` of class `only`, in order, in `v`'s own buffer ([`kept_to_front`]: no
/// branch on the class, which a comparison against a pivot would mispredict half the time).
#[inline]
fn kept_in_place<T: Clone>(
    mut v: Vec<T>,
    only: usize,
    class: impl Fn(usize, &T) -> Result<usize>,
) -> Result<Vec<T>> {
    let n = kept_to_front(&mut v, 0, only, &class)?;
    Ok(truncated(v, n))
}

/// [`kept_in_place`] across the pool, in the tasks planned under `l`: each block of `v` moves
/// its kept elements to its own front in parallel, then the blocks' kept elements are moved
/// down to follow each other, in order (a pass over the kept elements only). Planned as one
/// task, it is [`kept_in_place`] (no second pass).
fn kept_in_place_in_blocks<T: Clone + Send>(
    l: Lanes,
    mut v: Vec<T>,
    only: usize,
    class: impl Fn(usize, &T) -> Result<usize> + Sync,
) -> Result<Vec<T>> {
    // The plan is held (its clock running) until the blocks are moved together: taking its
    // ranges out of a temporary stopped the clock before the filter ran, and the audit
    // recorded 100 ns for a filter of 10^5 elements.
    let plan = planned(
        l,
        Op::of("lane::filter_in_place", &class),
        v.len(),
        SPLIT,
        1,
    );
    let ranges = &plan.ranges;
    if ranges.len() < 2 {
        return kept_in_place(v, only, class);
    }
    let kept: Vec<Result<usize>> =
        sched::run_parts(block_slices(&mut v, ranges), |_, (start, block)| {
            kept_to_front(block, start, only, &class)
        });
    let mut n = 0;
    for (r, k) in ranges.iter().zip(kept) {
        let k = k?;
        // `n <= r.start`: slots `n..r.start` hold elements of no interest (copied over where
        // they have no drop glue, as in `kept_to_front`).
        for j in 0..k {
            if std::mem::needs_drop::<T>() {
                v.swap(n + j, r.start + j);
            } else {
                v[n + j] = v[r.start + j].clone();
            }
        }
        n += k;
    }
    Ok(truncated(v, n))
}

/// Moves the elements of `block` (element `first + j` of the filtered array at `j`) of class
/// `only` to its front, in order, and returns how many: each element is moved to the next
/// free front slot (copied, or swapped where it has drop glue) and that slot kept only for
/// its class.
fn kept_to_front<T: Clone>(
    block: &mut [T],
    first: usize,
    only: usize,
    class: &impl Fn(usize, &T) -> Result<usize>,
) -> Result<usize> {
    let mut n = 0;
    if std::mem::needs_drop::<T>() {
        for i in 0..block.len() {
            let keep = class(first + i, &block[i])? == only;
            // `n <= i`: slots `..n` hold the kept elements so far, `n..i` the others.
            block.swap(n, i);
            n += usize::from(keep);
        }
    } else {
        // Without drop glue an element is copied down, not swapped: only the front slots are
        // written, so a filter that keeps few elements writes few cache lines.
        for i in 0..block.len() {
            let keep = class(first + i, &block[i])? == only;
            block[n] = block[i].clone();
            n += usize::from(keep);
        }
    }
    Ok(n)
}

/// `v` cut to its first `n` elements, its buffer shrunk where much longer.
#[inline]
fn truncated<T>(mut v: Vec<T>, n: usize) -> Vec<T> {
    /// Unused bytes a filtered buffer may keep: a page, not worth a reallocation.
    const SLACK: usize = 4096;
    v.truncate(n);
    if (v.capacity() - n).saturating_mul(std::mem::size_of::<T>()) > SLACK {
        v.shrink_to_fit();
    }
    v
}

/// The elements of the range `iota` that `kept` keeps, in order, without materialising the
/// range (a filter of `(lo..hi)`), split across the pool where [`splits`] says it pays under
/// `l`. `kept(lo..hi)` tests the elements `lo..hi` (at most [`WORD`] of them, `lo` a multiple
/// of it) and gives bit `j` set where element `lo + j` is kept: one call per word, whose loop
/// the caller compiles with its test inlined and the arrays it reads bound once (a closure
/// called per element reloads them through its captures at every element, and returns a
/// `Result` each time).
///
/// # Errors
/// The first error of `kept`, in index order.
///
/// ```
/// use flatland_vectoriser::lane::{Iota, Lanes, select_iota_in};
/// let odd = select_iota_in(Lanes::Parallel, Iota::new(10, 0, 1), |r| {
///     Ok(r.clone().map(|i| u64::from(i % 2 == 1) << (i - r.start)).sum())
/// })
/// .unwrap();
/// assert_eq!(odd, vec![1, 3, 5, 7, 9]);
/// ```
pub fn select_iota_in(
    l: Lanes,
    iota: Iota,
    kept: impl Fn(std::ops::Range<usize>) -> Result<u64> + Sync,
) -> Result<Vec<i64>> {
    // The kept elements of each word are written by a loop over its set bits, not a branch
    // per element (which mispredicts on data like the sieve's, primes among numbers). Bits
    // past the word's elements are dropped.
    let run = |r: std::ops::Range<usize>| -> Result<Vec<i64>> {
        let mut out = Vec::new();
        let mut buf = [0i64; WORD];
        for lo in r.clone().step_by(WORD) {
            let hi = (lo + WORD).min(r.end);
            let mut bits = kept(lo..hi)? & (u64::MAX >> (WORD - (hi - lo)));
            let mut n = 0;
            while bits != 0 {
                buf[n % WORD] = iota.at(lo + bits.trailing_zeros() as usize);
                n += 1;
                bits &= bits - 1;
            }
            out.extend_from_slice(&buf[..n]);
        }
        Ok(out)
    };
    if !splits(l, iota.len()) {
        return run(0..iota.len());
    }
    let tasks = planned(
        l,
        Op::of("lane::select_iota", &kept),
        iota.len(),
        SELECT_IOTA,
        WORD,
    );
    let parts: Vec<Result<Vec<i64>>> = sched::run_parts(tasks.ranges, |_, r| run(r));
    concat_parts(parts.into_iter().collect::<Result<Vec<_>>>()?)
}

/// The parts concatenated in order into one buffer, their elements moved (not cloned), the
/// parts of a large result copied in parallel.
///
/// # Errors
/// A total length the memory budget refuses.
///
/// ```
/// let all = flatland_vectoriser::lane::concat_parts(vec![vec![1], vec![], vec![2, 3]]).unwrap();
/// assert_eq!(all, vec![1, 2, 3]);
/// ```
pub fn concat_parts<T: Send>(parts: Vec<Vec<T>>) -> Result<Vec<T>> {
    let total: usize = parts.iter().map(Vec::len).sum();
    if parts.iter().filter(|p| !p.is_empty()).count() <= 1 {
        return Ok(parts
            .into_iter()
            .find(|p| !p.is_empty())
            .unwrap_or_default());
    }
    budget::check_elements::<T>("concat", total)?;
    let pieces = parts.into_iter().map(|p| (p.len(), p)).collect();
    Ok(write_pieces(total, pieces, |part, slot| {
        slot.iter_mut().zip(part).map(|(s, x)| s.write(x)).count()
    }))
}

/// A vector of `total` elements written in parallel, piece by piece: each piece `(len, p)`
/// covers the next `len` slots, which `write(p, slots)` initialises, returning how many it
/// wrote (checked to be all of them before the vector takes its length).
fn write_pieces<T: Send, P: Send>(
    total: usize,
    pieces: Vec<(usize, P)>,
    write: impl Fn(P, &mut [std::mem::MaybeUninit<T>]) -> usize + Sync,
) -> Vec<T> {
    let mut out: Vec<T> = spare::vec_with_capacity(total);
    {
        let mut rest = &mut out.spare_capacity_mut()[..total];
        let mut slots = Vec::with_capacity(pieces.len());
        for (len, p) in pieces {
            let (here, tail) = rest.split_at_mut(len);
            slots.push((here, p));
            rest = tail;
        }
        assert!(rest.is_empty(), "the pieces cover the output");
        sched::run_parts(slots, |_, (slot, p)| {
            let len = slot.len();
            assert_eq!(write(p, slot), len, "a piece initialises all its slots");
        });
    }
    // SAFETY: the slots above cover `out`'s first `total` elements exactly once (split from
    // its spare capacity in order, the assertion checking that nothing is left), and each was
    // initialised by its piece (checked by the count `write` returns: its slots are written
    // in order through `MaybeUninit::write`, one per counted element); a panic above would
    // have left the length at 0, leaking the written elements but reading none uninitialised.
    unsafe { out.set_len(total) };
    out
}

/// Appends the array value `x` to `out`: a borrowed one copied, an owned one moved
/// ([`Pieces::extend_owned`]).
///
/// ```
/// use flatland_vectoriser::lane::{Cow, Pieces, concat_parts, extend};
/// let mut out = Pieces::new();
/// out.push(1);
/// extend(&mut out, Cow::Borrowed(&[2, 3][..]));
/// extend(&mut out, Cow::<[i64]>::Owned(vec![4]));
/// assert_eq!(concat_parts(out.into_parts()).unwrap(), vec![1, 2, 3, 4]);
/// ```
#[inline]
pub fn extend<T: Clone>(out: &mut Pieces<T>, x: Cow<'_, [T]>) {
    match x {
        Cow::Borrowed(s) => out.extend_from_slice(s),
        Cow::Owned(v) => out.extend_owned(v),
    }
}

/// A copy of `xs`, in a vector whose pages a large copy gets as the runtime's outputs get
/// theirs ([`spare::vec_from_slice`]: a kept block, or huge pages where `to_vec` would fault
/// them in 4 KiB at a time).
///
/// ```
/// assert_eq!(flatland_vectoriser::lane::copied(&[1, 2]), vec![1, 2]);
/// ```
#[inline]
pub fn copied<T: Clone>(xs: &[T]) -> Vec<T> {
    spare::vec_from_slice(xs)
}

/// `n` clones of `x` (`replicate`), allocated as [`copied`] allocates ([`spare::vec_filled`]).
///
/// ```
/// assert_eq!(flatland_vectoriser::lane::filled(7, 3), vec![7, 7, 7]);
/// ```
#[inline]
pub fn filled<T: Clone>(x: T, n: usize) -> Vec<T> {
    spare::vec_filled(x, n)
}

/// `x` as an owned vector: moved when it is owned, else [`copied`].
///
/// ```
/// use flatland_vectoriser::lane::{Cow, owned};
/// assert_eq!(owned(Cow::Borrowed(&[1, 2][..])), vec![1, 2]);
/// assert_eq!(owned(Cow::<[i64]>::Owned(vec![3])), vec![3]);
/// ```
#[inline]
pub fn owned<T: Clone>(x: Cow<'_, [T]>) -> Vec<T> {
    match x {
        Cow::Borrowed(s) => copied(s),
        Cow::Owned(v) => v,
    }
}

/// The canonical fold of `xs` ([`assoc::fold`], the same bits), its leaves folded across the
/// pool where [`splits`] says it pays under `l`.
///
/// ```
/// use flatland_vectoriser::lane::{Lanes, fold_in};
/// let xs: Vec<f64> = (0..20_000).map(|i| 1.0 / (1.0 + f64::from(i))).collect();
/// let s = fold_in(Lanes::Parallel, &xs, 0.0, |a, b| a + b);
/// assert_eq!(s.to_bits(), flatland_runtime::assoc::fold(&xs, 0.0, |a, b| a + b).to_bits());
/// ```
#[inline]
pub fn fold_in<T: Clone + Send + Sync>(
    l: Lanes,
    xs: &[T],
    z: T,
    op: impl Fn(T, T) -> T + Sync,
) -> T {
    if !splits(l, xs.len()) {
        return assoc::fold(xs, z, op);
    }
    // Whole leaves: the leaves (and the identity folded into each) of the sequential fold.
    let tasks = planned(l, Op::of("lane::fold", &op), xs.len(), FOLD, assoc::LEAF);
    let leaves: Vec<Vec<T>> = sched::run_parts(tasks.ranges, |_, r| {
        xs[r]
            .chunks(assoc::LEAF)
            .map(|leaf| assoc::leaf_fold(leaf, z.clone(), &op))
            .collect()
    });
    assoc::combine_leaves(z, leaves.into_iter().flatten(), &op)
}

/// The canonical inclusive scan of `xs` ([`assoc::scan_inclusive`], the same bits), by the
/// runtime's blocked scan ([`flatland_runtime::flat::scan_inclusive`]: one pass over memory,
/// across the pool as its cost model plans) where [`splits`] says a lane's scan is heavy under
/// `l`; on this thread otherwise.
///
/// ```
/// use flatland_vectoriser::lane::{Lanes, scan_in};
/// let xs: Vec<f64> = (0..50_000).map(|i| 1.0 / (1.0 + f64::from(i))).collect();
/// let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
/// let want = bits(flatland_runtime::assoc::scan_inclusive(&xs, 0.0, |a, b| a + b));
/// for l in [Lanes::Sequential, Lanes::Parallel, Lanes::Model] {
///     assert_eq!(bits(scan_in(l, &xs, 0.0, |a, b| a + b)), want);
/// }
/// ```
#[inline]
pub fn scan_in<T: Copy + Send + Sync>(
    l: Lanes,
    xs: &[T],
    z: T,
    op: impl Fn(T, T) -> T + Sync,
) -> Vec<T> {
    if !splits(l, xs.len()) {
        return assoc::scan_inclusive(xs, z, op);
    }
    flatland_runtime::flat::scan_inclusive(xs, z, op)
}

/// [`fold_mapped`] with its leaves folded across the pool where [`splits`] says it pays under
/// `l`: the same bits, and the error of the lowest failing index.
///
/// # Errors
/// The error of the lowest failing index.
///
/// ```
/// use flatland_vectoriser::lane::{Lanes, fold_mapped, fold_mapped_in};
/// let xs: Vec<f64> = (0..20_000).map(f64::from).collect();
/// let get = |i: usize| Ok(xs[i] * 0.5);
/// let a = fold_mapped_in(Lanes::Parallel, xs.len(), get, 0.0, |a, b| a + b).unwrap();
/// assert_eq!(a.to_bits(), fold_mapped(xs.len(), get, 0.0, |a, b| a + b).unwrap().to_bits());
/// ```
#[inline]
pub fn fold_mapped_in<T: Clone + Send + Sync>(
    l: Lanes,
    len: usize,
    get: impl Fn(usize) -> Result<T> + Sync,
    z: T,
    op: impl Fn(T, T) -> T + Sync,
) -> Result<T> {
    if !splits(l, len) {
        return fold_mapped(len, get, z, op);
    }
    fold_mapped_across(l, len, get, z, op)
}

/// [`fold_mapped_in`] across the pool. Out of line, and taking its arguments by value: the
/// caller then builds them in memory only when it splits. Inlined, their stores came before
/// the test, on every short row of a per-lane map; and once a map's lanes are inlined into
/// its loop ([`write_lanes`]), this path's code in the loop made nearest_centre's per-lane
/// form 1.5x slower.
#[inline(never)]
fn fold_mapped_across<T: Clone + Send + Sync>(
    l: Lanes,
    len: usize,
    get: impl Fn(usize) -> Result<T> + Sync,
    z: T,
    op: impl Fn(T, T) -> T + Sync,
) -> Result<T> {
    fold_leaves_across(l, len, &z, &op, &|start, n| {
        fold_mapped_leaf(n, |i| get(start + i), &z, &op)
    })
}

/// [`fold_total_in`] under a built-in operator (a few instructions, such as `f64` `+`): a short
/// segment (under [`assoc::SHORT`] values, most rows of a `Nested`) is folded by one chain,
/// `z ⊕ (z ⊕ x0 ⊕ x1 ⊕ ...)` (`assoc::fold_by`'s bits), inlined into the caller's loop over
/// rows. A call of `fold_by` per row was two fifths of the instructions of
/// `rows.map(|r| r.map(|x| x * w).sum())` over rows of ten (155 instructions a row, 96
/// inlined; callgrind). A lambda's chain stays behind the call ([`fold_total_in`]): inlined
/// into a nearest-of-16 search's loop over points, whose folds are never short, it made that
/// loop 1.05x slower.
///
/// ```
/// use flatland_vectoriser::lane::{Lanes, fold_cheap_total_in};
/// use flatland_runtime::assoc::fold_by;
/// let xs: Vec<f64> = (0..20_000).map(f64::from).collect();
/// for len in [0, 1, 15, 16, 20_000] {
///     let get = |i: usize| xs[i] * 0.5;
///     let a = fold_cheap_total_in(Lanes::Model, len, get, 0.0, |a, b| a + b);
///     assert_eq!(a.to_bits(), fold_by(len, get, 0.0, |a, b| a + b).to_bits());
/// }
/// ```
#[inline]
pub fn fold_cheap_total_in<T: Clone + Send + Sync>(
    l: Lanes,
    len: usize,
    get: impl Fn(usize) -> T + Sync,
    z: T,
    op: impl Fn(T, T) -> T + Sync,
) -> T {
    if len < assoc::SHORT {
        let chain = (0..len).fold(z.clone(), |acc, i| op(acc, get(i)));
        return if len == 0 { z } else { op(z, chain) };
    }
    fold_total_in(l, len, get, z, op)
}

/// [`fold_mapped_in`] of values that cannot fail: `get` gives each value itself, not a
/// `Result` (a fold whose map cannot fail, such as a nearest-of-k search, keeps its values in
/// registers instead of passing results through memory). The bits of [`assoc::fold_by`].
///
/// ```
/// use flatland_vectoriser::lane::{Lanes, fold_total_in};
/// use flatland_runtime::assoc::fold_by;
/// let xs: Vec<f64> = (0..20_000).map(f64::from).collect();
/// let get = |i: usize| xs[i] * 0.5;
/// for l in [Lanes::Sequential, Lanes::Parallel] {
///     let a = fold_total_in(l, xs.len(), get, 0.0, |a, b| a + b);
///     assert_eq!(a.to_bits(), fold_by(xs.len(), get, 0.0, |a, b| a + b).to_bits());
/// }
/// ```
#[inline]
pub fn fold_total_in<T: Clone + Send + Sync>(
    l: Lanes,
    len: usize,
    get: impl Fn(usize) -> T + Sync,
    z: T,
    op: impl Fn(T, T) -> T + Sync,
) -> T {
    if !splits(l, len) {
        return assoc::fold_by(len, get, z, op);
    }
    fold_total_across(l, len, get, z, op)
}

/// [`fold_total_in`] across the pool, out of line as [`fold_mapped_across`] is.
#[inline(never)]
fn fold_total_across<T: Clone + Send + Sync>(
    l: Lanes,
    len: usize,
    get: impl Fn(usize) -> T + Sync,
    z: T,
    op: impl Fn(T, T) -> T + Sync,
) -> T {
    let Ok(folded) =
        fold_leaves_across::<T, std::convert::Infallible>(l, len, &z, &op, &|start, n| {
            Ok(assoc::leaf_fold_by(n, |i| get(start + i), z.clone(), &op))
        });
    folded
}

/// The fold with `and` (`or == false`) or `or` (`or == true`) of the booleans `get(0), ...,
/// get(len - 1)` from `z`, stopping at the first value that decides it (`false` for `and`,
/// `true` for `or`), as `Iterator::all` and `any` do: booleans fold to the same value in any
/// association, and `get` cannot fail, so the values it is not asked for change nothing (the
/// value of [`fold_total_in`] with the operator). Split across the pool where [`splits`] says it
/// pays under `l`, the tasks stopping once any of them has decided it.
///
/// ```
/// use flatland_vectoriser::lane::{Lanes, decided_fold_total_in};
/// let xs: Vec<i64> = (0..100_000).collect();
/// for l in [Lanes::Sequential, Lanes::Parallel] {
///     assert!(decided_fold_total_in(l, xs.len(), |i| xs[i] >= 0, true, false));
///     assert!(!decided_fold_total_in(l, xs.len(), |i| xs[i] != 99_999, true, false));
///     assert!(decided_fold_total_in(l, xs.len(), |i| xs[i] == 7, false, true));
///     assert!(!decided_fold_total_in(l, 0, |_| true, false, true));
/// }
/// ```
#[inline]
pub fn decided_fold_total_in(
    l: Lanes,
    len: usize,
    get: impl Fn(usize) -> bool + Sync + Send,
    z: bool,
    or: bool,
) -> bool {
    if !splits(l, len) {
        return decided_fold(len, get, z, or);
    }
    // `z` is the fold's first operand: it may decide it alone.
    if z == or {
        return z;
    }
    let found = (0..len)
        .into_par_iter()
        .with_min_len(assoc::LEAF)
        .any(|i| get(i) == or);
    found == or
}

/// [`decided_fold_total_in`] on this thread, for a `get` that cannot go to the pool (it
/// reads the lane's context).
///
/// ```
/// use flatland_vectoriser::lane::decided_fold;
/// assert!(!decided_fold(10, |i| i < 7, true, false));
/// assert!(decided_fold(10, |i| i == 7, false, true));
/// assert!(decided_fold(0, |_| false, true, false));
/// ```
#[inline]
pub fn decided_fold(len: usize, get: impl Fn(usize) -> bool, z: bool, or: bool) -> bool {
    // `z` is the fold's first operand: it may decide it alone.
    if z == or {
        return z;
    }
    (0..len).any(|i| get(i) == or) == or
}

/// The canonical fold of `len` values from their leaves (`leaf(start, n)` folds the leaf of
/// `n` values from `start`), the leaves folded across the pool in the tasks planned under `l`
/// and combined in order from `z`: the bits of the sequential fold, and the error of the
/// lowest failing leaf.
fn fold_leaves_across<T: Clone + Send + Sync, E: Send>(
    l: Lanes,
    len: usize,
    z: &T,
    op: &(impl Fn(T, T) -> T + Sync),
    leaf: &(impl Fn(usize, usize) -> std::result::Result<T, E> + Sync),
) -> std::result::Result<T, E> {
    let tasks = planned(l, Op::of("lane::fold_mapped", leaf), len, FOLD, assoc::LEAF);
    let leaves: Vec<std::result::Result<Vec<T>, E>> = sched::run_parts(tasks.ranges, |_, r| {
        let end = r.end;
        r.step_by(assoc::LEAF)
            .map(|start| leaf(start, assoc::LEAF.min(end - start)))
            .collect()
    });
    let leaves = leaves
        .into_iter()
        .collect::<std::result::Result<Vec<_>, E>>()?;
    Ok(assoc::combine_leaves(
        z.clone(),
        leaves.into_iter().flatten(),
        op,
    ))
}

/// One leaf of [`fold_mapped_in`]: the leaf's canonical fold, or the error of its lowest
/// failing index.
fn fold_mapped_leaf<T: Clone>(
    n: usize,
    get: impl Fn(usize) -> Result<T>,
    z: &T,
    op: impl Fn(T, T) -> T,
) -> Result<T> {
    assoc::try_leaf_fold_by(n, |i| get(i).map_err(discard), z.clone(), op)
        .map_err(|()| first_error(n, &get))
}

/// The canonical reduction by index ([`assoc::hist`], the same bits) of the pairs
/// `(key(&keys[j]), value(&values[j]))` (an index and a value each; the two arrays are equally
/// long), computed as they are folded in, element by element of the two slices (no index to
/// check per pair): indices outside `0..bins` skipped, each block of [`assoc::hist_block`] pairs folded into a
/// partial histogram from `z`, the partials combined bin by bin in block order. The blocks run
/// across the pool where [`splits`] says it pays under `l` (their partials kept, at most one
/// element per 16 pairs, and combined in order on this thread).
///
/// ```
/// use flatland_vectoriser::lane::{Lanes, hist_by_in};
/// let keys: Vec<i64> = (0..200_000).map(|i| (i * 7) % 300 - 20).collect();
/// let want = flatland_runtime::assoc::hist(256, 0.5, &keys, &vec![0.25; keys.len()], |a, b| a + b);
/// for l in [Lanes::Sequential, Lanes::Parallel] {
///     let got = hist_by_in(l, 256, 0.5, &keys, &keys, |&k| k, |_| 0.25, |a, b| a + b);
///     assert_eq!(got, want);
/// }
/// ```
#[allow(clippy::too_many_arguments)] // the two arrays and what each element gives
pub fn hist_by_in<A: Sync, B: Sync, T: Clone + Send + Sync>(
    l: Lanes,
    bins: usize,
    z: T,
    keys: &[A],
    values: &[B],
    key: impl Fn(&A) -> i64 + Sync,
    value: impl Fn(&B) -> T + Sync,
    op: impl Fn(T, T) -> T + Sync,
) -> Vec<T> {
    let n = keys.len().min(values.len());
    let block = assoc::hist_block(bins);
    let partial = |start: usize| {
        let mut p = vec![z.clone(); bins];
        let end = (start + block).min(n);
        for (a, b) in keys[start..end].iter().zip(&values[start..end]) {
            if let Some(slot) = assoc::bin_mut(&mut p, key(a)) {
                *slot = op(slot.clone(), value(b));
            }
        }
        p
    };
    if n == 0 {
        return vec![z; bins];
    }
    let starts = (0..n).step_by(block);
    let mut partials: Box<dyn Iterator<Item = Vec<T>>> = if splits(l, n) && n > block {
        let all: Vec<Vec<T>> = starts
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(partial)
            .collect();
        Box::new(all.into_iter())
    } else {
        Box::new(starts.map(partial))
    };
    let mut out = partials.next().unwrap_or_else(|| vec![z.clone(); bins]);
    for p in partials {
        assoc::combine_hist(&mut out, p, &op);
    }
    out
}

/// `dest` (moved when owned, copied when borrowed) with `dest[indices[j]] = values[j]` in
/// increasing `j`.
///
/// # Errors
/// Arrays of different lengths, or an index outside `dest`.
///
/// ```
/// use flatland_vectoriser::lane::{Cow, scatter};
/// assert_eq!(scatter(Cow::Borrowed(&[0, 0, 0][..]), &[2, 0], &[5, 6], 0).unwrap(), vec![6, 0, 5]);
/// ```
#[inline]
pub fn scatter<T: Clone>(
    dest: Cow<'_, [T]>,
    indices: &[i64],
    values: &[T],
    lane: usize,
) -> Result<Vec<T>> {
    same_lengths("scatter", &[indices.len(), values.len()])?;
    // A computed destination is written in place; a borrowed one is copied first.
    let mut out = owned(dest);
    let len = out.len();
    for (&k, x) in indices.iter().zip(values) {
        let slot = usize::try_from(k).ok().and_then(|k| out.get_mut(k)).ok_or(
            RtError::IndexOutOfRange {
                op: "scatter",
                lane,
                index: k,
                len,
            },
        )?;
        *slot = x.clone();
    }
    Ok(out)
}

/// The progression `iota(len, start, step)` of a fused scatter ([`scatter_progressions`]), its
/// length checked as the unfused `iota` checks it ([`count`]): the same error, in the same lane.
///
/// # Errors
/// A negative length, or one the budget refuses.
///
/// ```
/// use flatland_vectoriser::lane::progression;
/// assert_eq!(progression(3, 4, 2, 0).unwrap().len, 3);
/// assert!(progression(-1, 4, 2, 0).is_err());
/// ```
#[inline]
pub fn progression(len: i64, start: i64, step: i64, lane: usize) -> Result<Progression> {
    let len = count::<i64>("iota", len, lane)?;
    Ok(Progression { start, step, len })
}

/// `scatter(dest, concat(progressions as iotas), replicate(_, value))` without the array of
/// indices (the fusion `scatter-progressions`): `value` stored at every position of every
/// progression, into the destination in place when it is computed, on the calling thread
/// ([`fused::scatter_progressions_into`]).
///
/// # Errors
/// The unfused scatter's: the first position outside the destination, in the order of the
/// concatenated indices, named with `lane`; nothing is written then.
///
/// ```
/// use flatland_vectoriser::lane::{Cow, Progression, scatter_progressions};
/// let p = Progression { start: 4, step: 2, len: 3 };
/// let out = scatter_progressions(Cow::Owned(vec![0; 9]), &[p], 1, 0).unwrap();
/// assert_eq!(out, vec![0, 0, 0, 0, 1, 0, 1, 0, 1]);
/// assert!(scatter_progressions(Cow::Owned(vec![0; 8]), &[p], 1, 0).is_err());
/// ```
pub fn scatter_progressions<T: Copy>(
    dest: Cow<'_, [T]>,
    progs: &[Progression],
    value: T,
    lane: usize,
) -> Result<Vec<T>> {
    let mut out = owned(dest);
    fused::scatter_progressions_into(&mut out, progs, value).map_err(|e| match e {
        // The runtime names the progression; the unfused scatter names the lane it runs in.
        RtError::IndexOutOfRange { op, index, len, .. } => RtError::IndexOutOfRange {
            op,
            lane,
            index,
            len,
        },
        other => other,
    })?;
    Ok(out)
}

/// The elements that `sort`/`argsort` orders: `i64`'s order, or `f64::total_cmp`'s.
pub trait SortKey: Copy + Send + Sync {
    /// The order.
    fn order(a: &Self, b: &Self) -> std::cmp::Ordering;
    /// The runtime's sort of a whole array (parallel on the pool when large).
    fn sort_flat(xs: &mut [Self]);
    /// The runtime's stable sorting permutation of a whole array.
    ///
    /// # Errors
    /// Its scratch refused by the memory budget.
    fn argsort_flat(xs: &[Self]) -> flatland_runtime::Result<Vec<i64>>;
}

impl SortKey for i64 {
    fn order(a: &Self, b: &Self) -> std::cmp::Ordering {
        a.cmp(b)
    }
    fn sort_flat(xs: &mut [Self]) {
        flatland_runtime::flat::sort_i64(xs);
    }
    fn argsort_flat(xs: &[Self]) -> flatland_runtime::Result<Vec<i64>> {
        flatland_runtime::flat::argsort_i64(xs)
    }
}

impl SortKey for f64 {
    fn order(a: &Self, b: &Self) -> std::cmp::Ordering {
        a.total_cmp(b)
    }
    fn sort_flat(xs: &mut [Self]) {
        flatland_runtime::flat::sort_f64(xs);
    }
    fn argsort_flat(xs: &[Self]) -> flatland_runtime::Result<Vec<i64>> {
        flatland_runtime::flat::argsort_f64(xs)
    }
}

/// `sort(xs)`: the elements in ascending order, sorted across the pool by the runtime's sort
/// where [`splits`] says it pays under `l` (in a total order equal elements are identical, so
/// an unstable sort gives the one result).
///
/// ```
/// use flatland_vectoriser::lane::{Lanes, sort_in};
/// let bits = |v: Vec<f64>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
/// for l in [Lanes::Sequential, Lanes::Parallel] {
///     assert_eq!(bits(sort_in(l, &[3.0, -0.0, 0.0, f64::NAN])),
///                bits(vec![-0.0, 0.0, 3.0, f64::NAN]));
/// }
/// ```
pub fn sort_in<T: SortKey>(l: Lanes, xs: &[T]) -> Vec<T> {
    let mut out = spare::vec_from_slice(xs);
    if splits(l, out.len()) {
        T::sort_flat(&mut out);
    } else {
        out.sort_unstable_by(T::order);
    }
    out
}

/// `argsort(xs)`: the stable sorting permutation, computed across the pool by the runtime
/// where [`splits`] says it pays under `l`.
///
/// # Errors
/// The runtime's scratch refused by the memory budget.
///
/// ```
/// use flatland_vectoriser::lane::{Lanes, argsort_in};
/// for l in [Lanes::Sequential, Lanes::Parallel] {
///     assert_eq!(argsort_in(l, &[2i64, 1, 2, 0]).unwrap(), vec![3, 1, 0, 2]);
/// }
/// ```
pub fn argsort_in<T: SortKey>(l: Lanes, xs: &[T]) -> Result<Vec<i64>> {
    if splits(l, xs.len()) {
        return Ok(T::argsort_flat(xs)?);
    }
    let mut idx: Vec<usize> = (0..xs.len()).collect();
    idx.sort_by(|&i, &j| T::order(&xs[i], &xs[j]));
    Ok(idx.into_iter().map(|i| i as i64).collect())
}

/// The class of a `partition` key for element `lane`.
///
/// # Errors
/// A negative key or one at or past `classes`.
///
/// ```
/// assert_eq!(flatland_vectoriser::lane::class(1, 3, 0).unwrap(), 1);
/// assert!(flatland_vectoriser::lane::class(3, 3, 0).is_err());
/// ```
#[inline]
pub fn class(key: i64, classes: usize, lane: usize) -> Result<usize> {
    match usize::try_from(key) {
        Ok(c) if c < classes => Ok(c),
        Ok(c) => Err(RtError::ClassOutOfRange {
            op: "partition",
            lane,
            class: c,
            classes,
        }
        .into()),
        Err(_) => Err(invalid("partition", lane, format!("negative key {key}"))),
    }
}

/// The number of bins of a `hist`, checked against the memory budget for bins of `T`.
///
/// # Errors
/// A negative number, or one the budget refuses.
///
/// ```
/// assert!(flatland_vectoriser::lane::bins::<f64>(-1, 0).is_err());
/// ```
#[inline]
pub fn bins<T>(bins: i64, lane: usize) -> Result<usize> {
    let n = usize::try_from(bins)
        .map_err(|_| invalid("hist", lane, format!("negative number of bins {bins}")))?;
    budget::check_elements::<T>("hist", n)?;
    Ok(n)
}

/// The canonical fold of `xs` with an operator that may fail: the interpreter's rule, the first
/// failing application (in the order the canonical fold applies the operator) is the error.
///
/// # Errors
/// The first error of `op`.
///
/// ```
/// use flatland_vectoriser::lane::try_fold;
/// assert_eq!(try_fold(&[1i64, 2, 3], 0, |a, b| Ok(a + b)).unwrap(), 6);
/// ```
#[inline]
pub fn try_fold<T: Clone>(xs: &[T], z: T, op: impl Fn(T, T) -> Result<T>) -> Result<T> {
    let fail = RefCell::new(None);
    let r = assoc::fold(xs, z, recording(&op, &fail));
    fail.into_inner().map_or(Ok(r), Err)
}

/// The canonical fold of the values `get(0), ..., get(len - 1)` without materialising them
/// (a `map` feeding a reduction): the bits of [`assoc::fold`] of the collected values. A
/// failing `get` is the error, the lowest index's, as the interpreter's map before its
/// reduction gives.
///
/// # Errors
/// The error of the lowest failing index.
///
/// ```
/// use flatland_vectoriser::lane::fold_mapped;
/// let xs = [0.1f64, 0.2, 0.3];
/// let fused = fold_mapped(3, |i| Ok(xs[i] * 2.0), 0.0, |a, b| a + b).unwrap();
/// let mapped: Vec<f64> = xs.iter().map(|x| x * 2.0).collect();
/// assert_eq!(fused.to_bits(), flatland_runtime::assoc::fold(&mapped, 0.0, |a, b| a + b).to_bits());
/// ```
#[inline]
pub fn fold_mapped<T: Clone>(
    len: usize,
    get: impl Fn(usize) -> Result<T>,
    z: T,
    op: impl Fn(T, T) -> T,
) -> Result<T> {
    if len < assoc::SHORT {
        // A short segment (most rows): `z ⊕ (z ⊕ x0 ⊕ x1 ⊕ ...)`, `assoc::fold_by`'s bits, in
        // one chain inlined into the caller's loop over rows, stopping at the first (lowest)
        // failing index. Through `fold_by` (a call per row, the fault flag a store the loop
        // reloads every slice after) PageRank's per-lane rows ran about 2.4x a plain loop.
        if len == 0 {
            return Ok(z);
        }
        let mut acc = z.clone();
        for i in 0..len {
            acc = op(acc, get(i)?);
        }
        return Ok(op(z, acc));
    }
    fold_mapped_long(len, get, z, op)
}

/// [`fold_mapped`] of a segment of [`assoc::SHORT`] elements or more, out of line.
#[inline(never)]
fn fold_mapped_long<T: Clone>(
    len: usize,
    get: impl Fn(usize) -> Result<T>,
    z: T,
    op: impl Fn(T, T) -> T,
) -> Result<T> {
    assoc::try_fold_by(len, |i| get(i).map_err(discard), z, op).map_err(|()| first_error(len, &get))
}

/// [`fold_mapped`] with an operator that may fail ([`try_fold`]'s rule); a failing `get` comes
/// first, as the map runs before the reduction.
///
/// # Errors
/// The error of the lowest failing index, else the first error of `op`.
///
/// ```
/// use flatland_vectoriser::lane::try_fold_mapped;
/// assert_eq!(try_fold_mapped(4, |i| Ok(i as i64), 0, |a, b| Ok(a.max(b))).unwrap(), 3);
/// ```
#[inline]
pub fn try_fold_mapped<T: Clone>(
    len: usize,
    get: impl Fn(usize) -> Result<T>,
    z: T,
    op: impl Fn(T, T) -> Result<T>,
) -> Result<T> {
    let fail = RefCell::new(None);
    let r = assoc::try_fold_by(len, |i| get(i).map_err(discard), z, recording(&op, &fail))
        .map_err(|()| first_error(len, &get))?;
    fail.into_inner().map_or(Ok(r), Err)
}

/// Drops an error out of line: the folds that stop at a failing element ([`fold_mapped`])
/// keep only the test in their loops. With the error's drop glue inline, the element's
/// code grew past what rustc inlines into the fold's eight lanes, and a call per element
/// made a gathered fold of rows of 20 values 1.3x slower.
#[cold]
#[inline(never)]
fn discard(e: Error) {
    drop(e);
}

/// The error of the lowest failing index of `get` over `0..len` (what the interpreter's map
/// reports), found by calling `get` again in index order: `get` is a pure function of its
/// index, so this is the lowest index's error, whichever failure the fold met first (a fold
/// stops at the first failure it meets, in the order of its association, not of the indices).
///
/// # Panics
/// If no index fails this time: `get` was not a function of its index (a bug in the caller).
#[cold]
fn first_error<T>(len: usize, get: impl Fn(usize) -> Result<T>) -> Error {
    match (0..len).try_for_each(|i| get(i).map(drop)) {
        Err(e) => e,
        Ok(()) => panic!("an element of a fold failed once and not when recomputed"),
    }
}

/// The elements of `iota(len, start, step)` without materialising them: what a map over a
/// range (an `enumerate`) reads.
#[derive(Clone, Copy, Debug)]
pub struct Iota {
    len: usize,
    start: i64,
    step: i64,
}

impl Iota {
    /// The range of `len` values from `start` by `step` (wrapping, as `iota`).
    #[inline]
    pub fn new(len: usize, start: i64, step: i64) -> Iota {
        Iota { len, start, step }
    }

    /// Its length.
    #[allow(clippy::len_without_is_empty)]
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Its element `k` (the element of [`iota`] at `k`).
    ///
    /// ```
    /// use flatland_vectoriser::lane::{Iota, iota};
    /// assert_eq!(Iota::new(5, 3, -2).at(4), iota(5, 3, -2)[4]);
    /// ```
    #[inline]
    pub fn at(&self, k: usize) -> i64 {
        self.start.wrapping_add((k as i64).wrapping_mul(self.step))
    }
}

/// The canonical inclusive scan with an operator that may fail ([`try_fold`]'s rule).
///
/// # Errors
/// The first error of `op`.
///
/// ```
/// use flatland_vectoriser::lane::try_scan;
/// assert_eq!(try_scan(&[1i64, 2, 3], 0, |a, b| Ok(a + b)).unwrap(), vec![1, 3, 6]);
/// ```
#[inline]
pub fn try_scan<T: Clone>(xs: &[T], z: T, op: impl Fn(T, T) -> Result<T>) -> Result<Vec<T>> {
    let fail = RefCell::new(None);
    let r = assoc::scan_inclusive(xs, z, recording(&op, &fail));
    fail.into_inner().map_or(Ok(r), Err)
}

/// The canonical reduction by index with an operator that may fail ([`try_fold`]'s rule);
/// `indices` and `values` have one length (checked by the caller, [`same_lengths`]).
///
/// # Errors
/// The first error of `op`.
///
/// ```
/// use flatland_vectoriser::lane::try_hist;
/// assert_eq!(try_hist(2, 0i64, &[1, 1, 5], &[3, 4, 9], |a, b| Ok(a + b)).unwrap(), vec![0, 7]);
/// ```
pub fn try_hist<T: Clone>(
    bins: usize,
    z: T,
    indices: &[i64],
    values: &[T],
    op: impl Fn(T, T) -> Result<T>,
) -> Result<Vec<T>> {
    let fail = RefCell::new(None);
    let r = assoc::hist(bins, z, indices, values, recording(&op, &fail));
    fail.into_inner().map_or(Ok(r), Err)
}

/// An infallible operator for the canonical loops that applies `op` until it first fails,
/// keeps that error in `fail` and then returns its left operand, as the interpreter does.
fn recording<'a, T: Clone>(
    op: &'a impl Fn(T, T) -> Result<T>,
    fail: &'a RefCell<Option<Error>>,
) -> impl Fn(T, T) -> T + 'a {
    move |a: T, b: T| {
        if fail.borrow().is_some() {
            return a;
        }
        match op(a.clone(), b) {
            Ok(v) => v,
            Err(e) => {
                *fail.borrow_mut() = Some(e);
                a
            }
        }
    }
}

/// A scalar binary operator through the runtime's one definition, for the operators that may
/// fail (integer division, remainder and powers) and the rare ones.
///
/// # Errors
/// The operator's error (division by zero, a negative exponent), naming the lane.
///
/// ```
/// use flatland_vectoriser::{ir::{BinaryOp, Scalar}, lane};
/// assert_eq!(lane::binary(BinaryOp::Div, Scalar::I64(7), Scalar::I64(2), 0).unwrap(), Scalar::I64(3));
/// assert_eq!(lane::binary(BinaryOp::Div, Scalar::I64(7), Scalar::I64(0), 4).unwrap_err().to_string(), "div: lane 4: division by zero");
/// ```
#[inline]
pub fn binary(op: BinaryOp, a: Scalar, b: Scalar, lane: usize) -> Result<Scalar> {
    Ok(op.eval(a, b, lane)?)
}

/// A scalar ternary operator through the runtime's one definition ([`binary`]'s counterpart).
///
/// # Errors
/// The operator's error (`clamp`'s bounds out of order), naming the lane.
///
/// ```
/// use flatland_vectoriser::{ir::{Scalar, TernaryOp}, lane};
/// let clamp = |x, lo, hi| lane::ternary(TernaryOp::Clamp, Scalar::I64(x), Scalar::I64(lo), Scalar::I64(hi), 2);
/// assert_eq!(clamp(7, 0, 5).unwrap(), Scalar::I64(5));
/// assert!(clamp(7, 5, 0).unwrap_err().to_string().starts_with("clamp: lane 2: "));
/// ```
#[inline]
pub fn ternary(op: TernaryOp, a: Scalar, b: Scalar, c: Scalar, lane: usize) -> Result<Scalar> {
    Ok(op.eval(a, b, c, lane)?)
}

/// A scalar unary operator through the runtime's one definition ([`binary`]'s counterpart).
///
/// # Errors
/// The operator's error.
///
/// ```
/// use flatland_vectoriser::{ir::{Scalar, UnaryOp}, lane};
/// assert_eq!(lane::unary(UnaryOp::Neg, Scalar::I64(2)).unwrap(), Scalar::I64(-2));
/// ```
#[inline]
pub fn unary(op: UnaryOp, a: Scalar) -> Result<Scalar> {
    Ok(op.eval(a)?)
}

/// The `i64` of a scalar the program's types say is one.
///
/// ```
/// assert_eq!(flatland_vectoriser::lane::as_i64(flatland_vectoriser::ir::Scalar::I64(3)), 3);
/// ```
#[inline]
pub fn as_i64(s: Scalar) -> i64 {
    match s {
        Scalar::I64(x) => x,
        other => unreachable!("checked program: i64 expected, found {other:?}"),
    }
}

/// The `f64` of a scalar the program's types say is one.
///
/// ```
/// assert_eq!(flatland_vectoriser::lane::as_f64(flatland_vectoriser::ir::Scalar::F64(0.5)), 0.5);
/// ```
#[inline]
pub fn as_f64(s: Scalar) -> f64 {
    match s {
        Scalar::F64(x) => x,
        other => unreachable!("checked program: f64 expected, found {other:?}"),
    }
}

/// The `bool` of a scalar the program's types say is one.
///
/// ```
/// assert!(flatland_vectoriser::lane::as_bool(flatland_vectoriser::ir::Scalar::Bool(true)));
/// ```
#[inline]
pub fn as_bool(s: Scalar) -> bool {
    match s {
        Scalar::Bool(x) => x,
        other => unreachable!("checked program: bool expected, found {other:?}"),
    }
}

/// A function's argument as per-lane code reads it: slices and `Vec`s as a [`Cow`] of a slice
/// (borrowed in place, or taken over without a copy), scalars as they are, tuples field by
/// field. Implemented for the types `#[vectorise]` passes unconverted.
///
/// ```
/// use flatland_vectoriser::lane::{Cow, IntoLane};
/// let xs = vec![1.0f64, 2.0];
/// let v: Cow<[f64]> = (&xs[..]).into_lane();
/// assert!(matches!(v, Cow::Borrowed(_)));
/// ```
pub trait IntoLane<'a> {
    /// The per-lane form.
    type Lane;
    /// Converts without copying element data.
    fn into_lane(self) -> Self::Lane;
}

macro_rules! scalar_lane {
    ($($t:ty),*) => {$(
        impl IntoLane<'_> for $t {
            type Lane = $t;
            #[inline]
            fn into_lane(self) -> $t {
                self
            }
        }
    )*};
}
scalar_lane!(i64, f64, bool);

impl<'a, T: Clone> IntoLane<'a> for &'a [T] {
    type Lane = Cow<'a, [T]>;
    #[inline]
    fn into_lane(self) -> Self::Lane {
        Cow::Borrowed(self)
    }
}

impl<'a, T: Clone> IntoLane<'a> for &'a Vec<T> {
    type Lane = Cow<'a, [T]>;
    #[inline]
    fn into_lane(self) -> Self::Lane {
        Cow::Borrowed(self.as_slice())
    }
}

impl<'a, T: Clone + 'a> IntoLane<'a> for Vec<T> {
    type Lane = Cow<'a, [T]>;
    #[inline]
    fn into_lane(self) -> Self::Lane {
        Cow::Owned(self)
    }
}

macro_rules! tuple_lane {
    ($($t:ident $i:tt),*) => {
        impl<'a, $($t: IntoLane<'a>),*> IntoLane<'a> for ($($t,)*) {
            type Lane = ($($t::Lane,)*);
            #[inline]
            fn into_lane(self) -> Self::Lane {
                ($(self.$i.into_lane(),)*)
            }
        }
    };
}
tuple_lane!(A 0, B 1);
tuple_lane!(A 0, B 1, C 2);
tuple_lane!(A 0, B 1, C 2, D 3);

/// An array of rows of `T` as per-lane code reads it: the length and each row in place.
/// Parameters that per-lane code reads only as the array of a map (or for its length) take any
/// `RowsOf`, so a `Nested` argument is read where it lies ([`Rows`]); elsewhere they are turned
/// into the general form first ([`RowsOf::into_cow`]).
pub trait RowsOf<T: Clone>: Sync {
    /// The number of rows.
    fn count(&self) -> usize;
    /// Row `i` (`i < count()`).
    fn row(&self, i: usize) -> &[T];
    /// The rows in the general form of an array of arrays (a copy of borrowed rows).
    fn into_cow<'b>(self) -> Cow<'b, [Vec<T>]>
    where
        Self: 'b;
    /// The number of elements in rows `0..i` (`i <= count()`), where the rows know it
    /// without a walk over them (a flat `Nested`'s descriptor holds every row's start).
    fn elements_before(&self, i: usize) -> Option<usize> {
        let _ = i;
        None
    }
}

impl<T: Clone + Sync> RowsOf<T> for Cow<'_, [Vec<T>]> {
    #[inline]
    fn count(&self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn row(&self, i: usize) -> &[T] {
        &self[i]
    }
    fn into_cow<'b>(self) -> Cow<'b, [Vec<T>]>
    where
        Self: 'b,
    {
        self
    }
}

/// The rows of a `Nested` argument, read in place.
///
/// ```
/// use flatland_vectoriser::lane::{Rows, RowsOf};
/// let n = flatland_runtime::elt::Nested::from(vec![vec![1i64], vec![], vec![2, 3]]);
/// let rows = Rows::new(&n);
/// assert_eq!((rows.count(), rows.row(2)), (3, &[2, 3][..]));
/// assert_eq!(rows.into_cow().as_ref(), &[vec![1], vec![], vec![2, 3]]);
/// // Virtual segments (a replicated array) are read through the descriptor.
/// let twice = n.replicate(2).unwrap();
/// let rows = Rows::new(&twice);
/// assert_eq!((rows.count(), rows.row(5)), (6, &[2, 3][..]));
/// ```
#[derive(Clone, Debug)]
pub struct Rows<'a, T: flatland_runtime::elt::Prim> {
    nested: &'a flatland_runtime::elt::Nested<T>,
    /// A flat `Nested` (one block, no virtual segments) as slices: a row is then two loads
    /// from one array away, not a walk of the virtual descriptor.
    flat: Option<Flat<'a, T>>,
    /// The number of rows, read once: `Nested::len` matches on the virtual descriptor's
    /// forms, and a map that prefetches rows ahead asks for it once per lane.
    count: usize,
}

/// The row starts and values of a flat `Nested`: a row ends where the next one starts (its
/// descriptor's starts are the exclusive scan of its lengths), so its lengths are not read.
/// Per-lane maps walk the rows in order, and the next start is in the cache line just read:
/// one stream of bounds per `Nested` instead of two. Over a sparse matrix's `cols.zip(vals)`
/// (two `Nested`s, rows of nine) the four streams of bounds made the per-lane product 1.12x
/// slower than the same loop reading two.
#[derive(Clone, Debug)]
struct Flat<'a, T> {
    starts: Cow<'a, [usize]>,
    values: &'a [T],
    /// The number of elements of all the rows.
    elements: usize,
}

impl<T> Flat<'_, T> {
    /// Where row `i` starts, or the end of the elements for `i` past the last row: the end of
    /// row `i - 1` (contiguous rows).
    #[inline(always)]
    fn start_or_end(&self, i: usize) -> usize {
        self.starts.get(i).copied().unwrap_or(self.elements)
    }
}

impl<'a, T: flatland_runtime::elt::Prim> Rows<'a, T> {
    /// The rows of `nested`.
    pub fn new(nested: &'a flatland_runtime::elt::Nested<T>) -> Rows<'a, T> {
        let flat = nested.as_flat().map(|(segd, values)| {
            let flat = Flat {
                starts: segd.starts(),
                values: values.as_slice(),
                elements: segd.elements(),
            };
            // What `row` reads without checks rests on this, and on the descriptor's own
            // invariant (below).
            assert!(
                flat.elements <= flat.values.len(),
                "a flat `Nested` has its elements in its block"
            );
            flat
        });
        Rows {
            nested,
            flat,
            count: nested.len(),
        }
    }
}

impl<T: flatland_runtime::elt::Prim> RowsOf<T> for Rows<'_, T> {
    #[inline]
    fn count(&self) -> usize {
        self.count
    }
    // Always: the per-lane loops call it once per row, and in a large caller (one codegen
    // unit) rustc's inliner otherwise leaves it a call (+21% instructions on row_means).
    #[inline(always)]
    fn row(&self, i: usize) -> &[T] {
        match &self.flat {
            Some(f) => {
                let start = f.starts[i];
                let end = f.start_or_end(i + 1);
                // SAFETY: a `Segd`'s starts are the exclusive scan of its lengths, which sum
                // to `elements` (its invariant: every safe constructor checks it, and
                // `Segd::new_unchecked` is `unsafe` on it), so `start <= end <= elements`,
                // and `new` asserted that `elements` is within `values`. One check per row
                // instead of four: on rows of two elements these were an eighth of a sparse
                // matrix-vector product's instructions.
                unsafe {
                    debug_assert!(start <= end && end <= f.elements);
                    f.values.get_unchecked(start..end)
                }
            }
            None => self.nested.segment(i),
        }
    }
    fn elements_before(&self, i: usize) -> Option<usize> {
        // Contiguous rows: row `i` starts after the elements of the rows before it.
        Some(self.flat.as_ref()?.start_or_end(i))
    }
    fn into_cow<'b>(self) -> Cow<'b, [Vec<T>]>
    where
        Self: 'b,
    {
        Cow::Owned(self.nested.to_vec())
    }
}
