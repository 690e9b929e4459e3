//! The cost model measured against the clock: inside [`audited`], every bulk operation whose
//! schedule the model chose on the calling thread ([`plan_op`](super::plan_op) deciding
//! between running sequentially and splitting) records what the model predicted for the
//! schedule it chose and how long the operation took ([`Record`]). [`Accuracy`] sums the
//! records up per operation: the median of `|predicted - measured| / measured`, and of
//! `predicted / measured` (below 1: the model thinks the operation cheaper than it is).
//!
//! The same clock teaches the model each operation's real cost ([`learned`]); outside
//! [`audited`] and on a profile installed with [`with_machine`](crate::cost::with_machine),
//! where nothing is learned, an operation reads one thread-local flag and takes no time
//! stamp. Schedules that were not a choice are not recorded: forced task counts
//! ([`with_task_count`](super::with_task_count), [`Schedule::with_tasks`]), inputs of one leaf,
//! pools of one worker. Operations planned on other threads (inside the tasks of a split, or
//! a per-lane map's parallel lanes) are not recorded either.
//!
//! ```
//! use flatland_runtime::{cost::{Machine, with_machine}, flat, sched::audit};
//! let xs: Vec<f64> = (0..1 << 20).map(f64::from).collect();
//! let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
//! let two_cores = Machine::new(0.5, 1.0, 2_000.0, 2);
//! let (sum, records) = pool.install(|| {
//!     with_machine(two_cores, || audit::audited(|| flat::reduce(&xs, 0.0, |a, b| a + b)))
//! });
//! assert_eq!(sum, xs.iter().sum::<f64>());
//! assert_eq!(records.len(), 1);
//! assert_eq!((records[0].op, records[0].elements), ("flat::reduce", 1 << 20));
//! assert!(records[0].predicted_ns > 0.0 && records[0].measured_ns > 0.0);
//! // Outside `audited`, nothing is kept.
//! assert!(audit::audited(|| ()).1.is_empty());
//! ```

use super::Schedule;
use super::learned::{self, Key};
use std::cell::RefCell;
use std::fmt;
use std::time::Instant;

/// One audited operation: the schedule the model chose, its prediction, and the time taken.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The operation (`"flat::reduce"`, `"seg::fold_s"`, ...).
    pub op: &'static str,
    /// Elements it planned over.
    pub elements: usize,
    /// Tasks of the chosen schedule (1: sequential).
    pub tasks: usize,
    /// The model's predicted time of the chosen schedule, in nanoseconds.
    pub predicted_ns: f64,
    /// The time the operation took, from its schedule's choice to its return, in nanoseconds.
    pub measured_ns: f64,
}

impl Record {
    /// `|predicted - measured| / measured` (0 when both are 0, infinite when only the
    /// measurement is).
    ///
    /// ```
    /// use flatland_runtime::sched::audit::Record;
    /// let r = Record { op: "x", elements: 1, tasks: 1, predicted_ns: 150.0, measured_ns: 100.0 };
    /// assert_eq!(r.error(), 0.5);
    /// ```
    pub fn error(&self) -> f64 {
        let d = (self.predicted_ns - self.measured_ns).abs();
        if d == 0.0 { 0.0 } else { d / self.measured_ns }
    }

    /// `predicted / measured`: above 1 where the model overestimates the operation.
    ///
    /// ```
    /// use flatland_runtime::sched::audit::Record;
    /// let r = Record { op: "x", elements: 1, tasks: 1, predicted_ns: 50.0, measured_ns: 100.0 };
    /// assert_eq!(r.ratio(), 0.5);
    /// ```
    pub fn ratio(&self) -> f64 {
        self.predicted_ns / self.measured_ns
    }
}

thread_local! {
    /// The records of the innermost [`audited`] on this thread, `None` outside one.
    static LOG: RefCell<Option<Vec<Record>>> = const { RefCell::new(None) };
}

/// Runs `f` and returns its result with the records of the operations it planned on this
/// thread (see the [module docs](self)). Nested calls each get their own operations; the outer
/// one resumes recording when the inner one returns (also on a panic).
///
/// ```
/// use flatland_runtime::sched::audit::audited;
/// let ((), records) = audited(|| ());
/// assert!(records.is_empty());
/// ```
pub fn audited<R>(f: impl FnOnce() -> R) -> (R, Vec<Record>) {
    struct Restore(Option<Vec<Record>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            LOG.with(|l| *l.borrow_mut() = self.0.take());
        }
    }
    let restore = Restore(LOG.with(|l| l.borrow_mut().replace(Vec::new())));
    let r = f();
    let records = LOG.with(|l| l.borrow_mut().replace(Vec::new()));
    drop(restore);
    (r, records.unwrap_or_default())
}

/// Whether this thread is inside [`audited`].
fn auditing() -> bool {
    LOG.with(|l| l.borrow().is_some())
}

/// The clock of one operation, started where its schedule is chosen
/// ([`plan_op`](super::plan_op)): when dropped (at the operation's end), where the schedule
/// was the model's choice, it adds the time to what the operation has learned ([`learned`])
/// and records it if this thread is inside [`audited`]. Hold it for the operation's whole
/// extent.
///
/// ```
/// use flatland_runtime::{cost::ElemCost, sched::{self, Op, audit}};
/// let ((), records) = audit::audited(|| {
///     // A forced count is not a choice.
///     sched::with_task_count(2, || {
///         let (_s, _timing) = sched::plan_op(Op::new("forced"), 1 << 20, ElemCost::new(1.0, 1.0));
///     });
/// });
/// assert!(records.is_empty());
/// ```
#[must_use = "the operation is timed until this is dropped"]
#[derive(Debug)]
pub struct Timing(Option<Open>);

#[derive(Debug)]
struct Open {
    key: Key,
    elements: usize,
    tasks: usize,
    predicted_ns: f64,
    /// The correction of its form the prediction was made with ([`learned`]).
    scale: f64,
    learns: bool,
    start: Instant,
}

impl Timing {
    /// A clock that records nothing: for an operation whose schedule was not the model's
    /// choice.
    ///
    /// ```
    /// let ((), records) = flatland_runtime::sched::audit::audited(|| {
    ///     let _timing = flatland_runtime::sched::audit::Timing::off();
    /// });
    /// assert!(records.is_empty());
    /// ```
    pub fn off() -> Timing {
        Timing(None)
    }
}

/// Starts the clock of operation `key` run on schedule `s` (see [`Timing`]), which adds its
/// time to what the operation's form (sequential or split) has learned where `learns`
/// ([`learned`]).
pub(super) fn start(key: Key, s: &Schedule, learns: bool) -> Timing {
    let key = if s.is_sequential() { key } else { key.split() };
    if !s.is_choice() || !(learns || auditing()) {
        return Timing(None);
    }
    Timing(Some(Open {
        key,
        elements: s.len(),
        tasks: s.num_tasks(),
        predicted_ns: s.predicted_ns(),
        scale: if s.is_sequential() {
            s.elem_scale * s.form_scale()
        } else {
            s.form_scale()
        },
        learns,
        start: Instant::now(),
    }))
}

impl Drop for Timing {
    fn drop(&mut self) {
        let Some(open) = self.0.take() else {
            return;
        };
        let measured_ns = open.start.elapsed().as_secs_f64() * 1e9;
        if open.learns {
            // The time against the prediction without the form's own correction.
            learned::learn(open.key, measured_ns * open.scale / open.predicted_ns);
        }
        LOG.with(|l| {
            if let Some(log) = l.borrow_mut().as_mut() {
                log.push(Record {
                    op: open.key.op,
                    elements: open.elements,
                    tasks: open.tasks,
                    predicted_ns: open.predicted_ns,
                    measured_ns,
                });
            }
        });
    }
}

/// The model's accuracy on a set of records of one operation (or of all of them).
#[derive(Clone, Debug, PartialEq)]
pub struct Accuracy {
    /// The operation, or `"all"`.
    pub op: &'static str,
    /// Records summed up.
    pub count: usize,
    /// The median of [`Record::error`].
    pub median_error: f64,
    /// The median of [`Record::ratio`].
    pub median_ratio: f64,
    /// Records whose schedule split the operation.
    pub split: usize,
}

impl Accuracy {
    /// The accuracy over `records` under the name `op`, or `None` for no records.
    ///
    /// ```
    /// use flatland_runtime::sched::audit::{Accuracy, Record};
    /// let r = |p, m| Record { op: "x", elements: 1, tasks: 1, predicted_ns: p, measured_ns: m };
    /// let a = Accuracy::of("x", &[r(1.0, 2.0), r(3.0, 2.0), r(8.0, 2.0)]).unwrap();
    /// assert_eq!((a.count, a.median_error, a.median_ratio), (3, 0.5, 1.5));
    /// assert!(Accuracy::of("x", &[]).is_none());
    /// ```
    pub fn of(op: &'static str, records: &[Record]) -> Option<Accuracy> {
        let median = |f: fn(&Record) -> f64| {
            let mut v: Vec<f64> = records.iter().map(f).collect();
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied()
        };
        Some(Accuracy {
            op,
            count: records.len(),
            median_error: median(Record::error)?,
            median_ratio: median(Record::ratio)?,
            split: records.iter().filter(|r| r.tasks > 1).count(),
        })
    }

    /// One [`Accuracy`] per operation of `records`, by name, then `"all"` of them.
    ///
    /// ```
    /// use flatland_runtime::sched::audit::{Accuracy, Record};
    /// let r = |op, p| Record { op, elements: 1, tasks: 1, predicted_ns: p, measured_ns: 1.0 };
    /// let rows = Accuracy::per_op(&[r("b", 2.0), r("a", 1.0), r("b", 4.0)]);
    /// let names: Vec<&str> = rows.iter().map(|a| a.op).collect();
    /// assert_eq!(names, ["a", "b", "all"]);
    /// assert_eq!(rows[1].median_error, 3.0);
    /// ```
    pub fn per_op(records: &[Record]) -> Vec<Accuracy> {
        let mut ops: Vec<&'static str> = records.iter().map(|r| r.op).collect();
        ops.sort_unstable();
        ops.dedup();
        let mut rows: Vec<Accuracy> = ops
            .into_iter()
            .filter_map(|op| {
                let mine: Vec<Record> = records.iter().filter(|r| r.op == op).cloned().collect();
                Accuracy::of(op, &mine)
            })
            .collect();
        rows.extend(Accuracy::of("all", records));
        rows
    }
}

impl fmt::Display for Accuracy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} operations ({} split), median |predicted - measured| / measured {:.0}%, \
             median predicted / measured {:.2}",
            self.op,
            self.count,
            self.split,
            self.median_error * 100.0,
            self.median_ratio
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{Accuracy, audited};
    use crate::cost::{ElemCost, Machine, with_machine};
    use crate::{flat, sched, seg};
    use flatland_segd::Segd;

    /// Runs `f` on a pool of two threads with a two-core profile, so that a large enough
    /// operation's schedule is the model's choice.
    fn on_two<R: Send>(f: impl FnOnce() -> R + Send) -> R {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        pool.install(|| with_machine(Machine::new(0.5, 1.0, 2_000.0, 2), f))
    }

    #[test]
    fn each_chosen_schedule_is_recorded_once_under_its_operation() {
        let xs: Vec<f64> = (0..1 << 18).map(f64::from).collect();
        let segd = Segd::from_lengths(vec![1 << 17, 0, 1 << 17]).unwrap();
        let ((), records) = on_two(|| {
            audited(|| {
                flat::reduce(&xs, 0.0, |a, b| a + b);
                seg::fold_s(&segd, &xs, 0.0, |a, b| a + b).unwrap();
                // Forced and one-leaf schedules are no choice.
                sched::with_task_count(2, || flat::reduce(&xs, 0.0, |a, b| a + b));
                flat::reduce(&xs[..100], 0.0, |a, b| a + b);
            })
        });
        let ops: Vec<&str> = records.iter().map(|r| r.op).collect();
        assert_eq!(ops, ["flat::reduce", "seg::fold_s"]);
        assert!(records.iter().all(|r| r.elements == 1 << 18));
        assert!(
            records
                .iter()
                .all(|r| r.measured_ns > 0.0 && r.predicted_ns > 0.0)
        );
        let expected = sched::Schedule::plan_with(
            &Machine::new(0.5, 1.0, 2_000.0, 2),
            2,
            1 << 18,
            ElemCost::new(1.0, 1.0),
        );
        assert_eq!(records[0].tasks, expected.num_tasks());
    }

    #[test]
    fn nested_audits_keep_their_own_records_and_a_panic_restores_the_outer() {
        let xs: Vec<f64> = (0..1 << 18).map(f64::from).collect();
        let sum = || flat::reduce(&xs, 0.0, |a, b| a + b);
        let ((inner, caught), outer) = on_two(|| {
            audited(|| {
                sum();
                let inner = audited(sum).1;
                let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    audited(|| {
                        sum();
                        panic!("inside an audit");
                    })
                }));
                sum();
                (inner, caught.is_err())
            })
        });
        assert!(caught);
        assert_eq!((inner.len(), outer.len()), (1, 2));
        // Outside any audit nothing is kept, and a new audit starts empty.
        on_two(sum);
        assert!(audited(|| ()).1.is_empty());
    }

    #[test]
    fn accuracy_takes_medians_of_errors_and_ratios() {
        let r = |op, p| super::Record {
            op,
            elements: 1,
            tasks: 2,
            predicted_ns: p,
            measured_ns: 100.0,
        };
        let rows = Accuracy::per_op(&[r("a", 50.0), r("a", 400.0), r("a", 100.0), r("b", 90.0)]);
        assert_eq!(rows.len(), 3);
        assert_eq!((rows[0].op, rows[0].count, rows[0].split), ("a", 3, 3));
        assert_eq!((rows[0].median_error, rows[0].median_ratio), (0.5, 1.0));
        assert_eq!(rows[2].op, "all");
        assert!(
            rows[2]
                .to_string()
                .starts_with("all: 4 operations (4 split), median")
        );
    }
}
