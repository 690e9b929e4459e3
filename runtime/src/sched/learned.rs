//! Per-operation corrections of the cost model, learned from the clock.
//!
//! The model's work per element of an operation ([`ElemCost`](crate::cost::ElemCost): simple
//! operations and transfers) cannot know what the caller's closure costs (a fold whose
//! elements are gathers from a large array waits on memory at every element, a plain sum does
//! not) nor where the data sits. `flatland bench --audit` measured the calibrated model at a
//! median of a third of the real time, and a segmented fold at an eighth: such an operation
//! ran sequentially where splitting it was cheaper. So each operation planned with
//! [`plan_op`](super::plan_op) on the process-wide profile times itself, and the ratio of its
//! time to the model's ([`Key`]: per operation, closure type and size class, by powers of two)
//! corrects the next plans of the same operation in the same size class: the median of the
//! last [`SAMPLES`] ratios, once there are [`MIN_SAMPLES`] of them, within
//! `1 / LIMIT ..= LIMIT`. Each thread learns apart, from the runs it times (a pool's worker
//! from the operations of the tasks it ran), so that planning takes no lock another core
//! holds. There are two corrections per class:
//!
//! - sequential runs correct the work per element, for both forms;
//! - split runs correct the split form's whole predicted time (the key's `split`), which also
//!   holds the waits for workers (an asleep pool may still be spinning, or the calling thread
//!   may finish the tasks before a woken worker steals one) and the memory bandwidth that two
//!   cores share. Taken for element work, these would make splitting look cheaper still:
//!   learning one factor from both forms made a 10^5-element scan split and run 1.6-2.1x
//!   slower.
//!
//! Until the sequential form has its own ratios, the split form's correction stands for it
//! too. Correcting the split form alone sent 10^7-element folds, which the model thinks
//! cheaper than they are, back to running sequentially (1.8-2.1x slower): the split's
//! correction said they cost more, the sequential form had never run to say so.
//!
//! Only schedules that were the model's choice are timed (not forced counts, single leaves or
//! single workers), and only on the process-wide profile: a profile installed with
//! [`with_machine`](crate::cost::with_machine) (tests) is taken as it is. The tasks of a split
//! ([`run_parts`](super::run_parts)) plan on their caller's profile: the process-wide one, with
//! these corrections, unless the caller installed one. (Installed in every task, a copy of the
//! process-wide profile left a recursion's maps below its first split uncorrected.)
//! The results never depend on it: every schedule gives the same bits.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, LazyLock, Mutex, PoisonError, Weak};

/// The ratios kept per operation: the median of the last ones corrects the model.
pub const SAMPLES: usize = 8;

/// The ratios an operation needs before its correction applies.
pub const MIN_SAMPLES: usize = 3;

/// The largest correction either way. A map of a recursion weighs each lane by its array's
/// length, while each element costs the calls of the recursion below it: treeLookup's maps
/// took about a thousand times the model's element, and clamped at 64 their predictions stayed
/// at a sixteenth of their times (`flatland bench --quick --audit`: `lane::map` 92% median
/// error, 4% at this limit). A median of at least [`MIN_SAMPLES`] ratios already keeps one
/// outlier out.
pub const LIMIT: f64 = 4096.0;

/// An operation whose cost is learned: its name and the type of the closure it runs (two
/// folds with different closures cost differently per element). Compared by address: a name
/// or type seen at two addresses learns twice, which costs nothing but samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// The operation (`"seg::fold_s"`).
    pub op: &'static str,
    /// `std::any::type_name` of its closure, or `""`.
    pub kind: &'static str,
    /// `floor(log2(elements))` of the run: small runs pay fixed costs (allocation, first
    /// touches) that a ratio learned on them would charge to every element of a large run.
    pub size_class: u32,
    /// Whether this is the split form's correction (of its whole time), else the work per
    /// element's (from sequential runs).
    pub split: bool,
}

impl Key {
    /// The split form's key of this operation.
    pub(crate) fn split(self) -> Key {
        Key {
            split: true,
            ..self
        }
    }
}

/// A [`Key`] by the addresses of its strings (and the type name's length), and its size class.
type Id = (usize, usize, usize, u32, bool);

impl Key {
    fn id(self) -> Id {
        (
            self.op.as_ptr() as usize,
            self.kind.as_ptr() as usize,
            self.kind.len(),
            self.size_class,
            self.split,
        )
    }
}

/// The last ratios of one operation, in a ring.
#[derive(Clone, Copy, Debug, Default)]
struct Ratios {
    ring: [f64; SAMPLES],
    len: usize,
    next: usize,
}

impl Ratios {
    fn push(&mut self, r: f64) {
        self.ring[self.next] = r;
        self.next = (self.next + 1) % SAMPLES;
        self.len = (self.len + 1).min(SAMPLES);
    }

    fn median(&self) -> Option<f64> {
        if self.len < MIN_SAMPLES {
            return None;
        }
        let mut v = self.ring;
        let v = &mut v[..self.len];
        v.sort_by(f64::total_cmp);
        Some(v[self.len / 2])
    }
}

/// What one thread has learned.
type Table = HashMap<Id, (Key, Ratios), BuildHasherDefault<IdHasher>>;

/// The hash of an [`Id`] (addresses and small numbers, none from input): a rotate, xor and
/// multiply per field. The default SipHash was two fifths of a plan's own time in the
/// executor's quickhull.
#[derive(Default)]
struct IdHasher(u64);

impl IdHasher {
    fn add(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(u64::from(b));
        }
    }
    fn write_u8(&mut self, x: u8) {
        self.add(u64::from(x));
    }
    fn write_u32(&mut self, x: u32) {
        self.add(u64::from(x));
    }
    fn write_usize(&mut self, x: usize) {
        self.add(x as u64);
    }
}

/// Every live thread's table ([`learned`] and [`forget`] go through them all).
static TABLES: LazyLock<Mutex<Vec<Weak<Mutex<Table>>>>> = LazyLock::new(|| Mutex::new(Vec::new()));

thread_local! {
    /// This thread's table: each thread learns from the runs it times and plans with what it
    /// learned. With one table for the process, behind one lock, the executor's quickhull of
    /// 10^5 points on two threads took 1.17-1.27x its time before tasks learned (every planned
    /// operation in a task read the table, every timed one wrote it, and the lock's line went
    /// back and forth between the cores); with a table per thread, 1.03-1.10x. This lock is
    /// another thread's to take only in [`learned`] and [`forget`].
    static MINE: Arc<Mutex<Table>> = {
        let mine = Arc::new(Mutex::new(Table::default()));
        let mut all = TABLES.lock().unwrap_or_else(PoisonError::into_inner);
        all.retain(|t| t.strong_count() > 0);
        all.push(Arc::downgrade(&mine));
        mine
    };
}

/// Runs `f` on this thread's table.
fn with_mine<R>(f: impl FnOnce(&mut Table) -> R) -> R {
    MINE.with(|t| f(&mut t.lock().unwrap_or_else(PoisonError::into_inner)))
}

/// Runs `f` on every live thread's table.
fn each_table(mut f: impl FnMut(&mut Table)) {
    let all: Vec<Arc<Mutex<Table>>> = TABLES
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .filter_map(Weak::upgrade)
        .collect();
    for t in all {
        f(&mut t.lock().unwrap_or_else(PoisonError::into_inner));
    }
}

/// The correction of operation `key`'s work per element: 1 until it has [`MIN_SAMPLES`]
/// ratios.
///
/// ```
/// use flatland_runtime::sched::learned::{Key, MIN_SAMPLES, factor, learn};
/// let key = Key { op: "doc::factor", kind: "", size_class: 0, split: false };
/// assert_eq!(factor(key), 1.0);
/// for r in [2.0, 8.0, 4.0] {
///     learn(key, r);
/// }
/// assert_eq!((MIN_SAMPLES, factor(key)), (3, 4.0));
/// ```
pub fn factor(key: Key) -> f64 {
    factor_of(key).unwrap_or(1.0)
}

/// The correction of `key`, if it has [`MIN_SAMPLES`] ratios.
fn factor_of(key: Key) -> Option<f64> {
    factors_of(&[key])[0]
}

/// The corrections of `keys` (each if it has [`MIN_SAMPLES`] ratios), under one lock: a plan
/// reads both forms' of its operation.
pub(crate) fn factors_of<const N: usize>(keys: &[Key; N]) -> [Option<f64>; N] {
    with_mine(|table| keys.map(|k| table.get(&k.id()).and_then(|(_, r)| r.median())))
}

/// What one operation has learned ([`learned`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Learned {
    /// The operation and its closure type.
    pub key: Key,
    /// The correction its plans take (`None` before [`MIN_SAMPLES`] ratios).
    pub factor: Option<f64>,
    /// The ratios kept (at most [`SAMPLES`]).
    pub samples: usize,
}

/// Every operation's learned correction, by name and closure type: what the model learned in
/// this process (for reports and tests), an entry for each live thread that learned it.
///
/// ```
/// use flatland_runtime::sched::learned::{Key, learn, learned};
/// let key = Key { op: "doc::learned", kind: "", size_class: 0, split: false };
/// learn(key, 2.0);
/// let mine = learned().into_iter().find(|l| l.key.op == "doc::learned").unwrap();
/// assert_eq!((mine.factor, mine.samples), (None, 1));
/// ```
pub fn learned() -> Vec<Learned> {
    let mut all: Vec<Learned> = Vec::new();
    each_table(|table| {
        all.extend(table.values().map(|(key, r)| Learned {
            key: *key,
            factor: r.median(),
            samples: r.len,
        }));
    });
    all.sort_by(|a, b| {
        (a.key.op, a.key.kind, a.key.size_class).cmp(&(b.key.op, b.key.kind, b.key.size_class))
    });
    all
}

/// Records that operation `key` took `ratio` times the model's uncorrected prediction
/// (clamped to `1 / LIMIT ..= LIMIT`; not a finite positive number: ignored), for this
/// thread's next plans.
///
/// ```
/// use flatland_runtime::sched::learned::{Key, LIMIT, factor, learn};
/// let key = Key { op: "doc::learn", kind: "", size_class: 0, split: false };
/// for r in [1e9, 1e9, f64::NAN, 1e9] {
///     learn(key, r);
/// }
/// assert_eq!(factor(key), LIMIT);
/// ```
pub fn learn(key: Key, ratio: f64) {
    if !(ratio.is_finite() && ratio > 0.0) {
        return;
    }
    with_mine(|table| {
        table
            .entry(key.id())
            .or_insert_with(|| (key, Ratios::default()))
            .1
            .push(ratio.clamp(1.0 / LIMIT, LIMIT));
    });
}

/// Forgets every operation's ratios, on every thread.
///
/// ```standalone_crate
/// use flatland_runtime::sched::learned::{Key, forget, learned, learn};
/// learn(Key { op: "doc::forget", kind: "", size_class: 0, split: false }, 2.0);
/// forget();
/// assert!(learned().iter().all(|l| l.key.op != "doc::forget"));
/// ```
pub fn forget() {
    each_table(Table::clear);
}

#[cfg(test)]
mod tests {
    use super::{Key, LIMIT, MIN_SAMPLES, Ratios, SAMPLES, factor, learn};

    #[test]
    fn the_median_of_the_last_ratios_applies_from_min_samples() {
        let mut r = Ratios::default();
        assert_eq!(r.median(), None);
        for x in [5.0, 1.0] {
            r.push(x);
        }
        assert_eq!(MIN_SAMPLES, 3);
        assert_eq!(r.median(), None);
        r.push(3.0);
        assert_eq!(r.median(), Some(3.0));
        // Only the last SAMPLES count.
        for _ in 0..SAMPLES {
            r.push(2.0);
        }
        assert_eq!(r.median(), Some(2.0));
    }

    #[test]
    fn operations_learn_apart_and_ratios_are_clamped() {
        let (a, b) = (
            Key {
                op: "test::learned a",
                kind: "",
                size_class: 0,
                split: false,
            },
            Key {
                op: "test::learned b",
                kind: "",
                size_class: 0,
                split: false,
            },
        );
        for _ in 0..MIN_SAMPLES {
            learn(a, 1e9);
            learn(b, 0.5);
            learn(b, f64::NAN);
        }
        assert_eq!(factor(a), LIMIT);
        assert_eq!(factor(b), 0.5);
        assert_eq!(
            factor(Key {
                op: "test::learned c",
                kind: "",
                size_class: 0,
                split: false,
            }),
            1.0
        );
    }
}
