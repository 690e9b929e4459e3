//! The scheduler: how a bulk operation over `n` elements is split into tasks, and the machinery
//! that runs tasks on rayon's current pool.
//!
//! A [`Schedule`] is either sequential (one task, run on the calling thread) or `t` tasks, each a
//! contiguous range of whole leaves ([`crate::assoc::LEAF`] elements, the last leaf possibly shorter), so
//! that reductions and scans keep the canonical association whatever the split. [`plan`] asks the
//! cost model ([`crate::cost`]) for the cheapest split on the calling thread's machine profile and
//! pool; [`Schedule::explain`] says why. The runtime's operations plan with [`plan_op`], which
//! corrects the model by what earlier runs of the same operation took (the work per element
//! from sequential runs, the split form's whole time from split runs, [`learned`]) and lets
//! [`audit`] compare predictions with the clock.
//!
//! Tasks run on rayon's *current* pool: the global one, or a caller's pool inside
//! `ThreadPool::install`. A panic in a task propagates to the caller once the other tasks have
//! finished; the pool stays usable. Work counters ([`crate::stats`]) recorded inside tasks are
//! counted in the caller's scope.
//!
//! ```
//! use flatland_runtime::{cost::ElemCost, sched};
//! let small = sched::plan(1_000, ElemCost::new(1.0, 1.0));
//! assert!(small.is_sequential());
//! let xs: Vec<u64> = (0..100_000).collect();
//! let s = sched::Schedule::with_tasks(xs.len(), 4);
//! let sums = sched::run(&s, |_, r| xs[r].iter().sum::<u64>());
//! assert_eq!(sums.iter().sum::<u64>(), xs.iter().sum());
//! ```

pub mod audit;
mod chained;
pub mod learned;
mod leaves;
mod slots;
mod warmth;

pub(crate) use chained::Chain;
pub use chained::carries_recomputed;
pub(crate) use leaves::{SIDE, leaf_totals, scan_leaves};
pub use slots::{Slots, build_vec, build_vec_tasks, try_build_vec, try_build_vec_tasks};
pub(crate) use slots::{build_vec_claimed, run_filled};
pub use warmth::WARM_NS;

use crate::assoc::LEAF;
use crate::cost::{self, Cost, ElemCost, Graph, Machine};
use crate::stats;
use rayon::prelude::*;
use std::fmt::Write as _;
use std::ops::Range;

/// Why a schedule was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reason {
    /// At most one leaf: nothing to split.
    OneLeaf,
    /// One worker available: splitting only adds overhead.
    OneWorker,
    /// The cost model's cheapest prediction.
    Model,
    /// Requested by the caller.
    Forced,
}

/// How a bulk operation over `len()` elements is split: `num_tasks()` tasks of contiguous whole
/// leaves (one task = sequential, on the calling thread).
///
/// Leaves are divided as evenly as possible: task `i` gets leaves
/// `i * leaves / t .. (i + 1) * leaves / t`.
///
/// ```
/// use flatland_runtime::{assoc::LEAF, sched::Schedule};
/// let s = Schedule::with_tasks(10 * LEAF + 5, 3);
/// assert_eq!(s.num_tasks(), 3);
/// assert_eq!(s.leaves(), 11);
/// assert_eq!(s.leaf_range(0), 0..3);
/// assert_eq!(s.element_range(2), 7 * LEAF..10 * LEAF + 5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    n: usize,
    tasks: usize,
    workers: usize,
    threads: usize,
    machine: Machine,
    /// Work per element run sequentially and split into tasks.
    per_elem: (ElemCost, ElemCost),
    /// The least leaves a candidate task holds ([`plan_seq_par`]).
    leaves_per_task: usize,
    /// Whether the planning thread is outside the pool (not one of its workers): a split then
    /// waits [`Machine::inject_ns`] before any task starts.
    injected: bool,
    /// How long the pool had been idle when planned ([`warmth`]): from [`WARM_NS`] on, its
    /// workers sleep and a hand-off waits [`Machine::wake_ns`].
    idle_ns: u64,
    /// The correction of the work per element learned from earlier runs of the operation
    /// ([`learned`]; 1 without one).
    elem_scale: f64,
    /// Corrections of the whole predicted time, sequential and split, learned from earlier
    /// runs of the operation ([`learned`]; 1 without one).
    form_scale: (f64, f64),
    /// The prediction the model chose this schedule by, in nanoseconds (`None` where it did
    /// not choose): kept so that timing the run does not predict it again.
    chosen_ns: Option<f64>,
    reason: Reason,
}

/// Plans a bulk operation over `n` elements of per-element work `per_elem` on the calling
/// thread's machine profile ([`cost::current`]) and rayon's current pool
/// (`rayon::current_num_threads()`).
///
/// ```
/// use flatland_runtime::{cost::{ElemCost, Machine, with_machine}, sched};
/// // With free tasks and many cores, a large input is split.
/// let eager = Machine::new(0.5, 1.0, 0.0, 64);
/// let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let s = pool.install(|| with_machine(eager, || sched::plan(1 << 20, ElemCost::new(1.0, 1.0))));
/// assert!(s.num_tasks() >= 2);
/// ```
pub fn plan(n: usize, per_elem: ElemCost) -> Schedule {
    plan_seq_par(n, per_elem, per_elem, 1)
}

/// [`plan`] for an operation whose parallel form does more work per element than its sequential
/// one (a parallel scan folds each block's totals before it scans the block), and whose tasks need
/// at least `leaves_per_task` leaves to run at full speed (a scan's leaf walk runs that many
/// leaves side by side to hide the operator's latency).
///
/// ```
/// use flatland_runtime::{cost::{ElemCost, Machine, with_machine}, sched};
/// // Twice the work split over two workers gains nothing: sequential.
/// let m = Machine::new(0.5, 1.0, 0.0, 2);
/// let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let s = pool.install(|| with_machine(m, || {
///     sched::plan_seq_par(1 << 22, ElemCost::new(1.0, 2.0), ElemCost::new(2.0, 4.0), 1)
/// }));
/// assert!(s.is_sequential(), "{}", s.explain());
/// ```
pub fn plan_seq_par(n: usize, seq: ElemCost, par: ElemCost, leaves_per_task: usize) -> Schedule {
    if let Some(k) = forced_task_count() {
        return Schedule::with_tasks(n, k);
    }
    Schedule::plan_costs(
        &cost::current(),
        rayon::current_num_threads(),
        n,
        (seq, par),
        leaves_per_task,
    )
}

/// A bulk operation as [`plan_op`] plans it: its name (the [`audit`]'s records) and the type
/// of the closure it runs (with the name and the size class, what its learned cost is kept
/// under, [`learned`]).
///
/// ```
/// use flatland_runtime::sched::Op;
/// let double = |x: f64| 2.0 * x;
/// assert_eq!(Op::of("flat::map", &double).name(), "flat::map");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Op {
    key: learned::Key,
}

impl Op {
    /// An operation that runs no closure of the caller's (or whose closures all cost alike).
    pub const fn new(name: &'static str) -> Op {
        Op {
            key: learned::Key {
                op: name,
                kind: "",
                size_class: 0,
                split: false,
            },
        }
    }

    /// An operation running `closure` (only its type is read).
    pub fn of<F: ?Sized>(name: &'static str, closure: &F) -> Op {
        Op {
            key: learned::Key {
                op: name,
                kind: std::any::type_name_of_val(closure),
                size_class: 0,
                split: false,
            },
        }
    }

    /// The operation's name.
    pub fn name(&self) -> &'static str {
        self.key.op
    }
}

/// [`plan`] for operation `op`, with its clock ([`audit::Timing`], to be held until the
/// operation returns): on the process-wide profile, the prediction is corrected by what
/// earlier runs of `op` took, per form ([`learned`]), and the clock adds this run to them; inside
/// [`audit::audited`] it records the prediction against the time.
///
/// ```
/// use flatland_runtime::{cost::ElemCost, sched::{Op, plan_op}};
/// let (s, _timing) = plan_op(Op::new("doc::op"), 1_000, ElemCost::new(1.0, 1.0));
/// assert!(s.is_sequential()); // one leaf
/// ```
pub fn plan_op(op: Op, n: usize, per_elem: ElemCost) -> (Schedule, audit::Timing) {
    plan_op_seq_par(op, n, per_elem, per_elem, 1)
}

/// [`plan_seq_par`] for operation `op`, with its clock (see [`plan_op`]).
pub fn plan_op_seq_par(
    op: Op,
    n: usize,
    seq: ElemCost,
    par: ElemCost,
    leaves_per_task: usize,
) -> (Schedule, audit::Timing) {
    if let Some(k) = forced_task_count() {
        return (Schedule::with_tasks(n, k), audit::Timing::off());
    }
    let learns = !cost::installed();
    let key = learned::Key {
        size_class: n.max(1).ilog2(),
        ..op.key
    };
    let scales = if learns {
        let [work, split] = learned::factors_of(&[key, key.split()]);
        // A split's correction stands for the sequential form too until that has its own.
        let seq = if work.is_none() { split } else { None };
        (
            work.unwrap_or(1.0),
            (seq.unwrap_or(1.0), split.unwrap_or(1.0)),
        )
    } else {
        UNCORRECTED
    };
    let s = Schedule::plan_after_idle(
        &cost::current(),
        rayon::current_num_threads(),
        n,
        (seq, par),
        leaves_per_task,
        warmth::idle_ns(),
        scales,
    );
    let timing = audit::start(key, &s, learns);
    (s, timing)
}

thread_local! {
    /// The task count forced on the calling thread by [`with_task_count`].
    static FORCED_TASKS: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with every bulk operation it plans on the calling thread cut into `k` tasks
/// whatever the cost model says (restored afterwards, also on panic): flat operations into
/// `k` tasks of whole leaves ([`Schedule::with_tasks`]: at most one per leaf), segmented ones
/// into at most `k` tasks by elements. For grain sweeps (`flatland bench --only grain`, which
/// times every primitive under each forced count beside the planned one) and for tests that
/// exercise the parallel path on small inputs. Results are the same bits for every `k`: only
/// the time changes.
///
/// ```
/// use flatland_runtime::{cost::ElemCost, flat, sched};
/// let xs: Vec<f64> = (0..100_000).map(f64::from).collect();
/// let s = sched::with_task_count(3, || sched::plan(xs.len(), ElemCost::new(1.0, 1.0)));
/// assert_eq!(s.num_tasks(), 3);
/// let split = sched::with_task_count(8, || flat::reduce(&xs, 0.0, |a, b| a + b));
/// assert_eq!(split.to_bits(), flat::reduce(&xs, 0.0, |a, b| a + b).to_bits());
/// ```
pub fn with_task_count<R>(k: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<usize>);
    impl Drop for Restore {
        fn drop(&mut self) {
            FORCED_TASKS.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(FORCED_TASKS.with(|c| c.replace(Some(k.max(1)))));
    f()
}

/// The task count [`with_task_count`] forces on the calling thread, if any.
pub(crate) fn forced_task_count() -> Option<usize> {
    FORCED_TASKS.with(std::cell::Cell::get)
}

impl Schedule {
    /// Plans with an explicit machine profile and pool size (`threads`); see [`plan`].
    ///
    /// Workers are `min(threads, machine.cores)`. Candidates are sequential and `w`, `2w`, ...,
    /// `32w` tasks (at most one per leaf, at most 256 unless `w` is more), predicted as
    /// [`Schedule::graph`] says. Sequential wins unless a split is predicted strictly cheaper;
    /// then the most tasks predicted within 5% of the cheapest split (and no slower than
    /// sequential) win: spare tasks let idle workers steal from a descheduled one on a busy
    /// machine.
    ///
    /// ```
    /// use flatland_runtime::{cost::{ElemCost, Machine}, sched::Schedule};
    /// let slow_tasks = Machine::new(0.5, 1.0, 1e9, 8);
    /// assert!(Schedule::plan_with(&slow_tasks, 8, 1 << 20, ElemCost::new(1.0, 1.0)).is_sequential());
    /// let free_tasks = Machine::new(0.5, 1.0, 0.0, 8);
    /// assert_eq!(Schedule::plan_with(&free_tasks, 8, 1 << 20, ElemCost::new(1.0, 1.0)).num_tasks(), 32);
    /// ```
    pub fn plan_with(machine: &Machine, threads: usize, n: usize, per_elem: ElemCost) -> Schedule {
        Schedule::plan_costs(machine, threads, n, (per_elem, per_elem), 1)
    }

    /// [`Schedule::plan_with`] with distinct sequential and parallel work per element and a
    /// least number of leaves per task (see [`plan_seq_par`]).
    ///
    /// ```
    /// use flatland_runtime::{cost::{ElemCost, Machine}, sched::Schedule};
    /// let m = Machine::new(0.5, 1.0, 0.0, 4);
    /// let costs = (ElemCost::new(1.0, 2.0), ElemCost::new(2.0, 4.0));
    /// assert!(!Schedule::plan_costs(&m, 4, 1 << 22, costs, 1).is_sequential());
    /// // Tasks of at least 4 leaves: 24 leaves give at most 6 tasks.
    /// let s = Schedule::plan_costs(&m, 4, 24 * 4096, costs, 4);
    /// assert!(s.num_tasks() <= 6, "{}", s.explain());
    /// ```
    pub fn plan_costs(
        machine: &Machine,
        threads: usize,
        n: usize,
        per_elem: (ElemCost, ElemCost),
        leaves_per_task: usize,
    ) -> Schedule {
        let idle = warmth::idle_ns();
        Schedule::plan_after_idle(
            machine,
            threads,
            n,
            per_elem,
            leaves_per_task,
            idle,
            UNCORRECTED,
        )
    }

    /// [`Schedule::plan_costs`] with the pool idle `idle` nanoseconds ([`warmth`]), the work
    /// per element corrected by `elem_scale` and the sequential and split forms' whole times by
    /// `form_scale` ([`learned`]).
    fn plan_after_idle(
        machine: &Machine,
        threads: usize,
        n: usize,
        per_elem: (ElemCost, ElemCost),
        leaves_per_task: usize,
        idle: u64,
        (elem_scale, form_scale): (f64, (f64, f64)),
    ) -> Schedule {
        let threads = threads.max(1);
        let workers = threads.min(machine.cores).max(1);
        // Candidates hold at least `leaves_per_task` leaves each.
        let leaves = n.div_ceil(LEAF) / leaves_per_task.max(1);
        let build = |t, reason| Schedule {
            leaves_per_task: leaves_per_task.max(1),
            elem_scale,
            form_scale,
            ..Schedule::build(n, t, *machine, threads, per_elem, idle, reason)
        };
        let seq = |reason| build(1, reason);
        if leaves <= 1 {
            return seq(Reason::OneLeaf);
        }
        if workers == 1 {
            return seq(Reason::OneWorker);
        }
        let split = |t| build(t, Reason::Model);
        let seq_cost = seq(Reason::Model).predict().as_ns();
        let predicted: Vec<(usize, f64)> = candidates(workers, leaves)
            .map(|t| (t, split(t).predict().as_ns()))
            .collect();
        let best = predicted.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        if best >= seq_cost {
            let plan = Schedule {
                chosen_ns: Some(seq_cost),
                ..seq(Reason::Model)
            };
            if plan.asleep() && plan.splits_awake() {
                // Kept awake while this operation runs, for the next one.
                warmth::wake(seq_cost as u64);
            }
            return plan;
        }
        // The most tasks within SLACK of the cheapest: on a busy machine a worker may be
        // descheduled, and spare tasks let the others steal its share.
        // Never a split predicted slower than running sequentially.
        let limit = (best * (1.0 + SLACK)).min(seq_cost);
        let &(t, ns) = (predicted.iter().rev().find(|p| p.1 <= limit))
            .expect("the cheapest candidate is within the limit");
        Schedule {
            chosen_ns: Some(ns),
            ..split(t)
        }
    }

    /// [`Schedule::predict`] in nanoseconds, as the planner computed it when it chose this
    /// schedule.
    pub(crate) fn predicted_ns(&self) -> f64 {
        self.chosen_ns.unwrap_or_else(|| self.predict().as_ns())
    }

    /// One task on the calling thread.
    ///
    /// ```
    /// let s = flatland_runtime::sched::Schedule::sequential(10_000);
    /// assert!(s.is_sequential() && s.len() == 10_000);
    /// ```
    pub fn sequential(n: usize) -> Schedule {
        Schedule::build(
            n,
            1,
            cost::current(),
            1,
            (ElemCost::new(1.0, 1.0), ElemCost::new(1.0, 1.0)),
            warmth::idle_ns(),
            Reason::Forced,
        )
    }

    /// `tasks` tasks (clamped to `1..=leaves`), whatever the cost model says. For tests and for
    /// callers that know better.
    ///
    /// ```
    /// use flatland_runtime::sched::Schedule;
    /// assert_eq!(Schedule::with_tasks(5, 4).num_tasks(), 1); // one leaf
    /// assert_eq!(Schedule::with_tasks(100_000, 4).num_tasks(), 4);
    /// ```
    pub fn with_tasks(n: usize, tasks: usize) -> Schedule {
        let t = tasks.clamp(1, n.div_ceil(LEAF).max(1));
        let threads = rayon::current_num_threads();
        Schedule::build(
            n,
            t,
            cost::current(),
            threads,
            (ElemCost::new(1.0, 1.0), ElemCost::new(1.0, 1.0)),
            warmth::idle_ns(),
            Reason::Forced,
        )
    }

    fn build(
        n: usize,
        tasks: usize,
        machine: Machine,
        threads: usize,
        per_elem: (ElemCost, ElemCost),
        idle_ns: u64,
        reason: Reason,
    ) -> Schedule {
        Schedule {
            n,
            tasks,
            workers: threads.min(machine.cores).max(1),
            threads,
            machine,
            per_elem,
            leaves_per_task: 1,
            injected: rayon::current_thread_index().is_none(),
            idle_ns,
            elem_scale: 1.0,
            form_scale: (1.0, 1.0),
            chosen_ns: None,
            reason,
        }
    }

    /// Whether some split would beat this sequential schedule with the workers awake.
    fn splits_awake(&self) -> bool {
        let awake = |t| Schedule {
            tasks: t,
            idle_ns: 0,
            ..*self
        };
        let seq = awake(1).predict();
        candidates(self.workers, self.leaves() / self.leaves_per_task)
            .any(|t| awake(t).predict() < seq)
    }

    /// Whether the cost model chose this schedule among sequential and split ones (not a forced
    /// count, a single leaf or a single worker): what [`audit`] records.
    ///
    /// ```
    /// use flatland_runtime::sched::Schedule;
    /// assert!(!Schedule::with_tasks(1 << 20, 2).is_choice());
    /// ```
    pub fn is_choice(&self) -> bool {
        self.reason == Reason::Model
    }

    /// Whether the pool's workers were asleep when this was planned (idle [`WARM_NS`] or more).
    fn asleep(&self) -> bool {
        self.idle_ns >= WARM_NS
    }

    /// When the calling thread's first task starts, and when each other worker's does: the
    /// injection of an operation called from outside the pool, then a hand-off more; with the
    /// workers asleep, the injection wakes one ([`Machine::wake_ns`] more) and each hand-off
    /// waits for a wake.
    fn starts(&self) -> (f64, f64) {
        let m = &self.machine;
        let (wake, hand_off) = if self.asleep() {
            (m.wake_ns, m.wake_ns.max(m.task_ns))
        } else {
            (0.0, m.task_ns)
        };
        let inject = if self.injected {
            m.inject_ns + wake
        } else {
            0.0
        };
        (inject, inject + hand_off)
    }

    /// Predicted nanoseconds per element of this schedule's form, its data in cache as far as
    /// it fits ([`Machine::elem_ns_over`]).
    fn elem_ns(&self) -> f64 {
        self.elem_scale * self.machine.elem_ns_over(self.elem(), self.data_bytes())
    }

    /// The bytes the operation reads and writes: what its sequential form moves, elements of
    /// [`ELEMENT_BYTES`] (a split form's extra passes read the same data again).
    fn data_bytes(&self) -> f64 {
        self.n as f64 * self.per_elem.0.transfers * ELEMENT_BYTES as f64
    }

    /// Elements scheduled.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::sched::Schedule::sequential(7).len(), 7);
    /// ```
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether there are no elements.
    ///
    /// ```
    /// assert!(flatland_runtime::sched::Schedule::sequential(0).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Leaves (`ceil(len / LEAF)`).
    ///
    /// ```
    /// assert_eq!(flatland_runtime::sched::Schedule::sequential(4097).leaves(), 2);
    /// ```
    pub fn leaves(&self) -> usize {
        self.n.div_ceil(LEAF)
    }

    /// Tasks (at least 1).
    ///
    /// ```
    /// assert_eq!(flatland_runtime::sched::Schedule::sequential(0).num_tasks(), 1);
    /// ```
    pub fn num_tasks(&self) -> usize {
        self.tasks
    }

    /// Whether the operation runs as one task on the calling thread.
    ///
    /// ```
    /// assert!(flatland_runtime::sched::Schedule::sequential(1 << 20).is_sequential());
    /// ```
    pub fn is_sequential(&self) -> bool {
        self.tasks == 1
    }

    /// The leaves of task `i`.
    ///
    /// ```
    /// let s = flatland_runtime::sched::Schedule::with_tasks(8 * 4096, 3);
    /// assert_eq!([s.leaf_range(0), s.leaf_range(1), s.leaf_range(2)], [0..2, 2..5, 5..8]);
    /// ```
    pub fn leaf_range(&self, i: usize) -> Range<usize> {
        assert!(i < self.tasks, "task {i} of {}", self.tasks);
        let leaves = self.leaves();
        i * leaves / self.tasks..(i + 1) * leaves / self.tasks
    }

    /// The elements of task `i` (whole leaves; the last task ends at `len()`).
    ///
    /// ```
    /// let s = flatland_runtime::sched::Schedule::with_tasks(2 * 4096 + 1, 2);
    /// assert_eq!(s.element_range(1), 4096..2 * 4096 + 1);
    /// ```
    pub fn element_range(&self, i: usize) -> Range<usize> {
        let l = self.leaf_range(i);
        (l.start * LEAF).min(self.n)..(l.end * LEAF).min(self.n)
    }

    /// The element ranges of all tasks, in order; they tile `0..len()`.
    ///
    /// ```
    /// let s = flatland_runtime::sched::Schedule::with_tasks(3 * 4096, 3);
    /// assert_eq!(s.element_ranges().map(|r| r.len()).sum::<usize>(), 3 * 4096);
    /// ```
    pub fn element_ranges(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        (0..self.tasks).map(|i| self.element_range(i))
    }

    /// The predicted time of this schedule: `graph().cost()`, computed without building the graph.
    ///
    /// ```
    /// let s = flatland_runtime::sched::Schedule::with_tasks(1 << 20, 4);
    /// assert_eq!(s.predict(), s.graph().cost());
    /// ```
    pub fn predict(&self) -> Cost {
        let elem = self.elem_ns();
        if self.tasks == 1 {
            return Cost::ns(self.form_scale.0 * self.n as f64 * elem);
        }
        Cost::ns(self.form_scale.1 * self.greedy(elem, |_, _, _| ()))
    }

    /// The correction of this schedule's whole predicted time, learned ([`learned`]).
    pub(crate) fn form_scale(&self) -> f64 {
        if self.tasks == 1 {
            self.form_scale.0
        } else {
            self.form_scale.1
        }
    }

    /// The execution graph the prediction is made on: one step for a sequential schedule; else
    /// the workers in parallel, each its hand-off latency (none for the calling thread) then the
    /// tasks it takes, each task its overhead then its elements.
    ///
    /// Tasks are taken in order, each by the worker that is free first (ties to the lowest): the
    /// calling thread from the start, every other worker once [`Machine::task_ns`] has passed
    /// (waking it and handing it work); planned on a thread outside the pool, all of them
    /// [`Machine::inject_ns`] later (the operation is injected into the pool, the first worker
    /// that takes it playing the calling thread). Every task costs [`SPAWN_OPS`] simple ops
    /// besides its elements.
    /// This is the work-stealing pool's greedy behaviour: more tasks than workers cost little
    /// each, and let the calling thread run a larger share while the others wake.
    ///
    /// ```
    /// use flatland_runtime::cost::Graph;
    /// let s = flatland_runtime::sched::Schedule::sequential(100);
    /// assert!(matches!(s.graph(), Graph::Step(_)));
    /// ```
    pub fn graph(&self) -> Graph {
        let elem = self.elem_ns();
        if self.tasks == 1 {
            return Graph::Step(Cost::ns(self.n as f64 * elem));
        }
        let task = |i: usize| {
            Graph::Seq(vec![
                Graph::Step(Cost::ns(self.spawn_ns())),
                Graph::Step(Cost::ns(self.element_range(i).len() as f64 * elem)),
            ])
        };
        Graph::Par(
            self.assign(elem)
                .into_iter()
                .map(|(start, tasks)| {
                    let mut steps = vec![Graph::Step(Cost::ns(start))];
                    steps.extend(tasks.into_iter().map(|(i, _)| task(i)));
                    Graph::Seq(steps)
                })
                .collect(),
        )
    }

    /// The greedy assignment of [`Schedule::graph`]: per worker, its start and its tasks with
    /// their predicted times (the spawn plus the elements at `elem` ns each).
    fn assign(&self, elem: f64) -> Vec<(f64, Vec<(usize, f64)>)> {
        let workers = self.workers.min(self.tasks);
        let (first, others) = self.starts();
        let mut plan: Vec<(f64, Vec<(usize, f64)>)> = (0..workers)
            .map(|j| (if j == 0 { first } else { others }, Vec::new()))
            .collect();
        self.greedy(elem, |j, i, ns| plan[j].1.push((i, ns)));
        plan
    }

    /// Runs the greedy assignment, telling `take(worker, task, ns)` each choice, and returns
    /// when the last worker finishes. Planning calls this for every candidate of every bulk
    /// operation, so it divides nowhere per task (task lengths come from a running remainder of
    /// [`Schedule::leaf_range`]'s `i * leaves / t` bounds) and finds the first free worker (the
    /// lowest on a tie) by a scan of a stack array for up to [`FEW_WORKERS`] workers, else from
    /// a heap.
    fn greedy(&self, elem: f64, mut take: impl FnMut(usize, usize, f64)) -> f64 {
        let workers = self.workers.min(self.tasks);
        let (leaves, t) = (self.leaves(), self.tasks);
        let (q, r) = (leaves / t, leaves % t);
        let (mut start, mut carry) = (0, 0);
        let spawn = self.spawn_ns();
        let mut next_task = move || {
            // Leaves end at (i + 1) * leaves / t = (i + 1) * q + (i + 1) * r / t.
            carry += r;
            let end = start + q + usize::from(carry >= t);
            if carry >= t {
                carry -= t;
            }
            let len = (end * LEAF).min(self.n) - start * LEAF;
            start = end;
            spawn + len as f64 * elem
        };
        let (first, others) = self.starts();
        if workers <= FEW_WORKERS {
            let mut free = [others; FEW_WORKERS];
            free[0] = first;
            let free = &mut free[..workers];
            for i in 0..t {
                let ns = next_task();
                let mut j = 0;
                for (k, &f) in free.iter().enumerate().skip(1) {
                    if f < free[j] {
                        j = k;
                    }
                }
                take(j, i, ns);
                free[j] += ns;
            }
            return free.iter().copied().fold(0.0, f64::max);
        }
        // Free times as ordered bits (non-negative floats order as their bits), then the worker.
        let mut free: std::collections::BinaryHeap<std::cmp::Reverse<(u64, usize)>> = (0..workers)
            .map(|j| std::cmp::Reverse((if j == 0 { first } else { others }.to_bits(), j)))
            .collect();
        for i in 0..t {
            let ns = next_task();
            let std::cmp::Reverse((at, j)) = free.pop().expect("at least one worker");
            take(j, i, ns);
            free.push(std::cmp::Reverse(((f64::from_bits(at) + ns).to_bits(), j)));
        }
        free.into_iter()
            .map(|std::cmp::Reverse((at, _))| f64::from_bits(at))
            .fold(0.0, f64::max)
    }

    /// What one task costs besides its elements: [`SPAWN_OPS`] simple ops.
    fn spawn_ns(&self) -> f64 {
        SPAWN_OPS * self.machine.op_ns
    }

    /// The work per element of this schedule's form (sequential or split).
    fn elem(&self) -> ElemCost {
        if self.tasks == 1 {
            self.per_elem.0
        } else {
            self.per_elem.1
        }
    }

    /// Says what was chosen and why, with the predicted times of the alternatives.
    ///
    /// ```
    /// use flatland_runtime::{cost::{ElemCost, Machine}, sched::Schedule};
    /// let m = Machine::new(0.5, 1.0, 10_000.0, 2);
    /// let s = Schedule::plan_with(&m, 2, 1 << 22, ElemCost::new(1.0, 1.0));
    /// let why = s.explain();
    /// assert!(why.contains("sequential") && why.contains("chose 64 tasks"), "{why}");
    /// ```
    pub fn explain(&self) -> String {
        let per = |e: ElemCost| {
            format!(
                "{} ({} ops, {} transfers)",
                Cost::ns(self.machine.elem_ns_over(e, self.data_bytes())),
                e.ops,
                e.transfers
            )
        };
        let (seq, par) = self.per_elem;
        let work = if seq == par {
            format!("{} per element", per(seq))
        } else {
            format!("{} per element sequentially, {} split", per(seq), per(par))
        };
        let mut s = format!(
            "{} elements in {} leaves of {LEAF}; {work} on the {}",
            self.n,
            self.leaves(),
            self.machine
        );
        if self.elem_scale != 1.0 {
            let _ = write!(
                s,
                "; work per element x {:.2}, learned from earlier runs",
                self.elem_scale
            );
        }
        if self.form_scale != (1.0, 1.0) {
            let _ = write!(
                s,
                "; predicted times x {:.2} sequential and x {:.2} split, learned from earlier runs",
                self.form_scale.0, self.form_scale.1
            );
        }
        let _ = write!(
            s,
            "; pool of {} threads, {} workers{}, {}: ",
            self.threads,
            self.workers,
            if self.injected {
                ", called from outside the pool"
            } else {
                ""
            },
            match self.idle_ns {
                0 => "a split running (workers awake)".to_owned(),
                u64::MAX => "no split yet (workers asleep)".to_owned(),
                idle if self.asleep() => format!("idle {} (workers asleep)", Cost::ns(idle as f64)),
                idle => format!("idle {} (workers awake)", Cost::ns(idle as f64)),
            }
        );
        match self.reason {
            Reason::OneLeaf if self.leaves_per_task > 1 => {
                let _ = write!(
                    s,
                    "fewer than two tasks of {} leaves, nothing to split: sequential",
                    self.leaves_per_task
                );
            }
            Reason::OneLeaf => s.push_str("one leaf at most, nothing to split: sequential"),
            Reason::OneWorker => s.push_str("one worker, splitting only adds overhead: sequential"),
            Reason::Forced => {
                let _ = write!(
                    s,
                    "{} tasks requested by the caller (predicted {})",
                    self.tasks,
                    self.predict()
                );
            }
            Reason::Model => {
                if self.leaves_per_task > 1 {
                    let _ = write!(s, "tasks of at least {} leaves; ", self.leaves_per_task);
                }
                let seq = Schedule { tasks: 1, ..*self };
                let _ = write!(s, "predicted sequential {}", seq.predict());
                for t in candidates(self.workers, self.leaves() / self.leaves_per_task) {
                    let _ = write!(
                        s,
                        ", {t} tasks {}",
                        Schedule { tasks: t, ..*self }.predict()
                    );
                }
                if self.tasks == 1 && self.asleep() && self.splits_awake() {
                    s.push_str(
                        "; chose sequential (no split is cheaper with the workers asleep, so one \
                         is woken and kept awake for the next operation)",
                    );
                } else if self.tasks == 1 {
                    s.push_str("; chose sequential (no split is cheaper)");
                } else {
                    let _ = write!(
                        s,
                        "; chose {} tasks (the most within {:.0}% of the cheapest split, so that idle \
                         workers can steal from a slow one)",
                        self.tasks,
                        SLACK * 100.0
                    );
                }
            }
        }
        s
    }
}

/// Bytes per element the cost model assumes ([`Schedule::data_bytes`]): `i64`s and `f64`s,
/// the runtime's usual elements.
const ELEMENT_BYTES: usize = 8;

/// No learned correction: the work per element, and the sequential and split forms' whole
/// times, as the model predicts them ([`learned`]).
const UNCORRECTED: (f64, (f64, f64)) = (1.0, (1.0, 1.0));

/// How much slower than the cheapest split a split with more tasks may be predicted to be.
const SLACK: f64 = 0.05;

/// Workers whose free times the planner scans on the stack (more go in a heap).
const FEW_WORKERS: usize = 8;

/// What each task costs besides its elements once its worker runs, in simple ops of the profile
/// ([`Machine::op_ns`]): the pool's job push and steal, the task's set-up, the cache lines at its
/// edges. Chosen from the grain sweep (`flatland bench --only grain`, 2 threads): 4000 ops is
/// 0.9-1.6 µs on this machine's calibrated profiles, and puts the planned grain of reduce, scan
/// and the segmented fold within the sweep's best from 10^4 to 10^7 elements.
pub const SPAWN_OPS: f64 = 4000.0;

/// The most tasks a plan considers. Spare tasks pay on a busy machine with few cores; many
/// cores need few per core, and each candidate's prediction walks its tasks.
const MAX_TASKS: usize = 256;

/// Task counts the planner considers besides sequential: `w`, `2w`, ..., `32w`, at most `leaves`
/// and at most [`MAX_TASKS`] (but at least `w`).
fn candidates(workers: usize, leaves: usize) -> impl Iterator<Item = usize> {
    let mut last = 1;
    [1, 2, 4, 8, 16, 32].into_iter().filter_map(move |k| {
        let t = (workers * k).min(MAX_TASKS.max(workers)).min(leaves);
        (t > last).then(|| {
            last = t;
            t
        })
    })
}

/// Runs `f(task, elements)` for every task of `s` and returns the results in task order.
///
/// A sequential schedule runs `f(0, 0..len)` on the calling thread; otherwise the tasks run on
/// rayon's current pool. A panic in any task propagates.
///
/// ```
/// use flatland_runtime::sched::{Schedule, run};
/// let s = Schedule::with_tasks(3 * 4096, 3);
/// assert_eq!(run(&s, |i, r| (i, r.len())), vec![(0, 4096), (1, 4096), (2, 4096)]);
/// ```
pub fn run<R: Send>(s: &Schedule, f: impl Fn(usize, Range<usize>) -> R + Sync) -> Vec<R> {
    if s.is_sequential() {
        return vec![f(0, 0..s.len())];
    }
    run_parts(s.element_ranges().collect(), &f)
}

/// Runs `f(i, part)` for every part, in parallel on rayon's current pool when there are two or
/// more, and returns the results in order. Parts are anything `Send`: element ranges, segment
/// chunks (`Segd::split_on_elements`), disjoint output slices, [`Slots`].
///
/// A panic in `f` propagates to the caller after the other parts finish; the pool stays usable.
/// Work recorded with [`crate::stats`] inside `f` is counted in the caller's scope, and bulk
/// operations called inside `f` plan with the caller's machine profile ([`cost::current`]:
/// one the caller installed with [`cost::with_machine`], or the process-wide one, whose learned
/// corrections they use and add to).
///
/// ```
/// use flatland_runtime::sched::run_parts;
/// let mut out = vec![0u32; 6];
/// let parts: Vec<&mut [u32]> = out.chunks_mut(2).collect();
/// let lens = run_parts(parts, |i, p| { p.fill(i as u32); p.len() });
/// assert_eq!(lens, vec![2, 2, 2]);
/// assert_eq!(out, vec![0, 0, 1, 1, 2, 2]);
/// ```
pub fn run_parts<P: Send, R: Send>(parts: Vec<P>, f: impl Fn(usize, P) -> R + Sync) -> Vec<R> {
    if parts.len() <= 1 {
        return parts
            .into_iter()
            .enumerate()
            .map(|(i, p)| f(i, p))
            .collect();
    }
    let scope = stats::current();
    // A profile installed by the caller is installed in the tasks too. Without one, the tasks
    // plan on the process-wide profile as the caller does, and so keep learning its
    // corrections and planning with them (`learned`): installing a copy of it made every
    // operation inside a task plan uncorrected, and a recursion's maps below its first split
    // predicted 0.1% of their time.
    let installed = cost::installed().then(cost::current);
    let _running = warmth::Running::start();
    parts
        .into_par_iter()
        .enumerate()
        .with_max_len(1)
        .map(|(i, p)| match installed {
            Some(machine) => cost::with_machine(machine, || scope.enter(|| f(i, p))),
            None => scope.enter(|| f(i, p)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_filled_hands_each_task_its_filled_region() {
        // A value that counts its clones and drops, with no heap of its own to leak.
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        static CLONES: AtomicUsize = AtomicUsize::new(0);
        static DROPS: AtomicUsize = AtomicUsize::new(0);
        struct Counted;
        impl Clone for Counted {
            fn clone(&self) -> Self {
                CLONES.fetch_add(1, SeqCst);
                Counted
            }
        }
        impl Drop for Counted {
            fn drop(&mut self) {
                DROPS.fetch_add(1, SeqCst);
            }
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let parts = vec![("a", 3), ("b", 0), ("c", 2)];
        let (v, r) = pool.install(|| {
            run_filled(&vec![0u8], parts, |i, p, region: &mut [Vec<u8>]| {
                if let Some(first) = region.first_mut() {
                    first.push(i as u8);
                }
                (p, region.len())
            })
        });
        let want: Vec<Vec<u8>> = vec![vec![0, 0], vec![0], vec![0], vec![0, 2], vec![0]];
        assert_eq!(v, want);
        assert_eq!(r, vec![("a", 3), ("b", 0), ("c", 2)]);
        // A task's panic propagates; the clones made are leaked, never dropped twice.
        let value = Counted;
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                run_filled(&value, vec![((), 4), ((), 4)], |i, (), _| {
                    assert!(i != 1, "task 1 fails");
                })
            })
        }));
        assert!(panicked.is_err());
        assert_eq!(CLONES.load(SeqCst), 8);
        assert_eq!(DROPS.load(SeqCst), 0);
    }

    #[test]
    fn tasks_tile_the_input_with_whole_leaves() {
        for n in [0, 1, LEAF - 1, LEAF, LEAF + 1, 7 * LEAF + 3, 100 * LEAF] {
            for t in 1..=9 {
                let s = Schedule::with_tasks(n, t);
                let mut next = 0;
                for r in s.element_ranges() {
                    assert_eq!(r.start, next);
                    assert!(r.start % LEAF == 0);
                    assert!(r.end % LEAF == 0 || r.end == n);
                    next = r.end;
                }
                assert_eq!(next, n, "n = {n}, t = {t}");
                assert!(s.num_tasks() <= s.leaves().max(1));
            }
        }
    }

    #[test]
    fn prediction_matches_graph() {
        // The prediction's task lengths (a running remainder) are the graph's element ranges.
        let m = Machine::new(0.4, 0.7, 3_000.0, 3);
        for n in [LEAF + 1, 10 * LEAF, 37 * LEAF + 5, 1 << 22] {
            for t in 1..48 {
                let s = Schedule {
                    tasks: t.min(n.div_ceil(LEAF)),
                    ..Schedule::plan_with(&m, 3, n, ElemCost::new(1.0, 2.0))
                };
                let (a, b) = (s.predict().as_ns(), s.graph().cost().as_ns());
                assert!((a - b).abs() <= 1e-9 * a.max(1.0), "{a} vs {b}");
            }
        }
    }

    #[test]
    fn an_operation_called_from_outside_the_pool_waits_for_the_injection() {
        // 2^17 elements at 1.5 ns: 197 µs sequentially, about half split on a worker, but
        // another 500 µs before any task starts when injected.
        let m = Machine::new(0.5, 1.0, 2_000.0, 2).with_inject_ns(500_000.0);
        let cost = ElemCost::new(1.0, 1.0);
        let n = 1 << 17;
        let outside = Schedule::plan_with(&m, 2, n, cost);
        assert!(outside.is_sequential(), "{}", outside.explain());
        assert!(outside.explain().contains("outside the pool"));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let inside = pool.install(|| Schedule::plan_with(&m, 2, n, cost));
        assert!(!inside.is_sequential(), "{}", inside.explain());
        let split = |s: &Schedule| Schedule { tasks: 4, ..*s }.predict().as_ns();
        assert!((split(&outside) - split(&inside) - 500_000.0).abs() < 1e-6);
    }

    #[test]
    fn a_sleeping_pool_waits_for_a_wake() {
        // 2^17 elements at 1.5 ns: 197 µs sequentially, about half split with the second
        // worker awake (2 µs hand-off), but 300 µs before it starts when it sleeps.
        let m = Machine::new(0.5, 1.0, 2_000.0, 2).with_wake_ns(300_000.0);
        let cost = ElemCost::new(1.0, 1.0);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let plan = |m: &Machine, idle| {
            pool.install(|| {
                Schedule::plan_after_idle(m, 2, 1 << 17, (cost, cost), 1, idle, UNCORRECTED)
            })
        };
        let (awake, asleep) = (plan(&m, 0), plan(&m, WARM_NS));
        assert!(!awake.is_sequential(), "{}", awake.explain());
        assert!(
            awake.explain().contains("workers awake"),
            "{}",
            awake.explain()
        );
        assert!(asleep.is_sequential(), "{}", asleep.explain());
        assert!(
            asleep.explain().contains("workers asleep"),
            "{}",
            asleep.explain()
        );
        // The second worker starts a wake instead of a hand-off later; the first at once.
        let two = |s: &Schedule| Schedule { tasks: 2, ..*s };
        assert_eq!(two(&awake).starts(), (0.0, 2_000.0));
        assert_eq!(two(&asleep).starts(), (0.0, 300_000.0));
        // Injected from outside the pool, the injection also waits for a wake.
        let injected = Schedule {
            injected: true,
            ..two(&asleep)
        };
        assert_eq!(injected.starts(), (300_000.0, 600_000.0));
        // A profile without a wake cost plans alike either way.
        let plain = Machine::new(0.5, 1.0, 2_000.0, 2);
        assert_eq!(
            plan(&plain, 0).num_tasks(),
            plan(&plain, u64::MAX).num_tasks()
        );
        // Inside a running split the pool is awake.
        let inner = pool
            .install(|| run_parts(vec![0, 1], |_, _| Schedule::plan_with(&m, 2, 1 << 17, cost)));
        assert!(inner.iter().all(|s| s.idle_ns == 0 && !s.is_sequential()));
    }

    #[test]
    fn data_in_cache_costs_its_operations_only() {
        // 10^4 sums (80 KB) in a 1 MiB cache: 0.5 ns each, 5 µs, less than the 6 µs hand-off:
        // sequential; without the cache, 1.5 ns each, and a split pays.
        let cost = ElemCost::new(1.0, 1.0);
        let cached = Machine::new(0.5, 1.0, 4_000.0, 2).with_cache_bytes(1 << 20);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let plan = |m: &Machine, n| {
            pool.install(|| Schedule::plan_after_idle(m, 2, n, (cost, cost), 1, 0, UNCORRECTED))
        };
        let s = plan(&cached, 10_000);
        assert!(s.is_sequential(), "{}", s.explain());
        assert_eq!(s.predict(), Cost::ns(5_000.0));
        let s = plan(
            &Machine {
                cache_bytes: 0,
                ..cached
            },
            10_000,
        );
        assert!(!s.is_sequential(), "{}", s.explain());
        // 10^7 sums (80 MB) stream: all but 1 MiB of them pay the transfer.
        let s = plan(&cached, 10_000_000);
        let seq = Schedule { tasks: 1, ..s }.predict().as_ns();
        let streamed = 1e7 * 0.5 + (8e7 - f64::from(1 << 20)) / 8.0;
        assert!((seq - streamed).abs() < 1.0, "{seq} {streamed}");
    }

    #[test]
    fn prediction_is_the_greedy_schedule_on_any_worker_count() {
        // A plain greedy over element_range, against the planner's walk (a scan of up to
        // FEW_WORKERS workers, a heap beyond).
        for cores in [2, 3, FEW_WORKERS, FEW_WORKERS + 1, 40] {
            let m = Machine::new(0.4, 0.7, 3_000.0, cores);
            for (n, t) in [
                (37 * LEAF + 5, 37),
                (1 << 22, 5),
                (1 << 22, 300),
                (100 * LEAF, 64),
            ] {
                let s = Schedule {
                    tasks: t,
                    ..Schedule::plan_with(&m, cores, n, ElemCost::new(1.0, 2.0))
                };
                let elem = m.elem_ns(s.elem());
                let mut free: Vec<f64> = (0..cores.min(t))
                    .map(|j| if j == 0 { 0.0 } else { m.task_ns })
                    .collect();
                for i in 0..t {
                    let j = (0..free.len())
                        .min_by(|&a, &b| free[a].total_cmp(&free[b]))
                        .unwrap();
                    free[j] += s.spawn_ns() + s.element_range(i).len() as f64 * elem;
                }
                let want = free.iter().copied().fold(0.0, f64::max);
                let got = s.predict().as_ns();
                assert!(
                    (got - want).abs() <= 1e-9 * want,
                    "{cores} cores, {t} tasks: {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn small_inputs_stay_sequential_on_default_profiles() {
        // The defaults keep a few leaves sequential; any profile keeps one leaf sequential.
        for (m, upto) in [
            (Machine::defaults(), 3 * LEAF),
            (Machine::new(0.3, 0.5, 0.0, 64), LEAF),
        ] {
            for threads in [1, 2, 8] {
                for n in [0, 1, 1_000, LEAF, upto] {
                    let s = Schedule::plan_with(&m, threads, n, ElemCost::new(1.0, 1.0));
                    assert!(s.is_sequential(), "{}", s.explain());
                }
            }
        }
        assert!(plan(1_000, ElemCost::new(1.0, 1.0)).is_sequential());
    }

    #[test]
    fn large_inputs_split_across_workers() {
        let m = Machine::new(0.5, 1.0, 10_000.0, 2);
        let s = Schedule::plan_with(&m, 2, 10_000_000, ElemCost::new(1.0, 1.0));
        assert_eq!(s.num_tasks(), 64, "{}", s.explain());
        // Eight pool threads on two cores still give two workers.
        let s8 = Schedule::plan_with(&m, 8, 10_000_000, ElemCost::new(1.0, 1.0));
        let same = Schedule {
            threads: 8,
            idle_ns: s8.idle_ns,
            ..s
        };
        assert_eq!(s8, same, "{}", s8.explain());
        // A slow hand-off (1 ms before the second worker starts): the calling thread runs more
        // of the work meanwhile when there are more tasks, so two tasks are the dearest split.
        let m = Machine::new(0.5, 1.0, 1e6, 2);
        let s = Schedule::plan_with(&m, 2, 10_000_000, ElemCost::new(1.0, 1.0));
        let two = Schedule { tasks: 2, ..s };
        assert!(s.predict() < two.predict(), "{}", s.explain());
        // The second worker's half starts after the hand-off.
        let second_half = two.element_range(1).len() as f64 * 1.5;
        assert!(
            two.predict().as_ns() >= 1e6 + second_half,
            "{}",
            two.explain()
        );
        let one = Schedule::plan_with(&m, 1, 10_000_000, ElemCost::new(1.0, 1.0));
        assert!(one.is_sequential() && one.explain().contains("one worker"));
    }

    #[test]
    fn many_small_tasks_cost_their_spawns() {
        // Free hand-offs: the per-task cost alone keeps the count down on a small input.
        let m = Machine::new(0.5, 1.0, 0.0, 2);
        let small = Schedule::plan_with(&m, 2, 40 * LEAF, ElemCost::new(1.0, 1.0));
        let most = Schedule { tasks: 40, ..small };
        assert!(small.predict() < most.predict(), "{}", small.explain());
        let per_worker = (40 * LEAF) as f64 * 1.5 / 2.0;
        assert!((most.predict().as_ns() - (per_worker + 20.0 * SPAWN_OPS * 0.5)).abs() < 1.0);
    }

    #[test]
    fn candidates_are_increasing_and_bounded() {
        assert_eq!(
            candidates(2, 1000).collect::<Vec<_>>(),
            vec![2, 4, 8, 16, 32, 64]
        );
        assert_eq!(
            candidates(2, 100).collect::<Vec<_>>(),
            vec![2, 4, 8, 16, 32, 64]
        );
        assert_eq!(candidates(4, 6).collect::<Vec<_>>(), vec![4, 6]);
        assert_eq!(candidates(3, 2).collect::<Vec<_>>(), vec![2]);
    }

    #[test]
    fn run_parts_propagates_panics_and_pool_survives() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| run_parts((0..8).collect(), |_, x: i32| assert!(x != 5, "task five")))
        }));
        assert!(r.is_err());
        let ok = pool.install(|| run_parts((0..8).collect(), |i, x: i32| i as i32 + x));
        assert_eq!(ok, vec![0, 2, 4, 6, 8, 10, 12, 14]);
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use quickcheck::quickcheck;

    quickcheck! {
        fn plans_tile_with_whole_leaves(n: u32, op: u16, transfer: u16, task: u32, cores: u8, threads: u8) -> bool {
            let n = n as usize % (200 * LEAF);
            let m = Machine::new(f64::from(op) / 100.0, f64::from(transfer) / 100.0, f64::from(task), cores.into());
            let s = Schedule::plan_with(&m, threads.into(), n, ElemCost::new(1.0, 2.0));
            let mut next = 0;
            let tiled = s.element_ranges().all(|r| {
                let ok = r.start == next && r.start % LEAF == 0 && (r.end % LEAF == 0 || r.end == n) && !r.is_empty() || n == 0;
                next = r.end;
                ok
            });
            tiled
                && next == n
                && s.num_tasks() <= s.leaves().max(1)
                && (n > LEAF || s.is_sequential())
                && s.num_tasks() <= 32 * usize::from(threads).clamp(1, m.cores)
                && s.predict() <= Schedule { tasks: 1, ..s }.predict()
                // The prediction kept from planning is the schedule's own.
                && s.predicted_ns().to_bits() == s.predict().as_ns().to_bits()
        }
    }
}
