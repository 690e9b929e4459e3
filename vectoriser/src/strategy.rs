//! The execution strategy of a `#[vectorise]` function's call: which of its two compiled forms
//! `try_f` runs, decided at every call, counted, and forced by tests.
//!
//! | strategy | what runs |
//! | --- | --- |
//! | [`Strategy::PerLane`] | the function's per-lane form ([`crate::lane`], `plan::f::per_lane`): its IR as plain Rust that rustc compiled, each `map`'s lanes one after another or in parallel over element-balanced ranges of whole lanes, and the bulk operations of a heavy lane (a filter, fold or scan of a large array) split across the pool inside the lane |
//! | [`Strategy::Flatten`] | the flattening executor ([`crate::exec`], `plan::f::executor`): every construct lifted over segment descriptors, with the module's native kernels |
//!
//! Both give the reference interpreter's values and errors, bit for bit, on any number of
//! threads (the random corpus and the user-kernel suite check both forms against it).
//!
//! **The model's choice** ([`choose`]): per-lane wherever the function has a per-lane form.
//! The per-lane form does the work of the sequential program (no lane is packed, combined or
//! copied between steps) and uses the pool where the flattened form would: across the lanes
//! of a map, and inside a lane whose array is large enough to pay for a task. The flattening
//! executor runs the functions without a per-lane form (narrow or `Nested` boundary types
//! other than `i64`/`f64`); `plan::f::explain()` says which route a function takes and counts
//! the calls of each ([`Routes`]). [`with_strategy`] forces one (a test override; a forced
//! per-lane run of a function without that form runs the executor, and is counted as such).
//!
//! ```
//! use flatland_vectoriser::strategy::{Strategy, choose, with_strategy};
//! assert_eq!(choose(true), Strategy::PerLane);
//! assert_eq!(choose(false), Strategy::Flatten);
//! with_strategy(Strategy::Flatten, || assert_eq!(choose(true), Strategy::Flatten));
//! ```

use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// How a call of a `#[vectorise]` function runs (see the [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// The flattening executor: lifted bulk operations over segment descriptors.
    Flatten,
    /// The per-lane form: the function's sequential code, lanes and heavy bulk operations in
    /// parallel where their work pays.
    PerLane,
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Strategy::Flatten => "flatten",
            Strategy::PerLane => "per-lane",
        })
    }
}

thread_local! {
    static FORCED: Cell<Option<Strategy>> = const { Cell::new(None) };
}

/// The strategy forced on this thread by [`with_strategy`], if any.
pub fn forced() -> Option<Strategy> {
    FORCED.with(Cell::get)
}

/// Runs `f` with every `#[vectorise]` call it makes on this thread taking strategy `s` (a test
/// override: results and errors are the same under every strategy). Calls made on other
/// threads (a per-lane map's parallel lanes calling another function of the module run that
/// function's per-lane form directly) are not affected.
///
/// ```
/// use flatland_vectoriser::strategy::{Strategy, forced, with_strategy};
/// assert_eq!(forced(), None);
/// with_strategy(Strategy::PerLane, || assert_eq!(forced(), Some(Strategy::PerLane)));
/// assert_eq!(forced(), None);
/// ```
pub fn with_strategy<R>(s: Strategy, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Strategy>);
    impl Drop for Restore {
        fn drop(&mut self) {
            FORCED.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(FORCED.with(|c| c.replace(Some(s))));
    f()
}

/// The strategy of one call of a function that has a per-lane form (`has_per_lane`) or not:
/// the forced one ([`with_strategy`]) where the function has it, else the model's (per-lane
/// wherever the form exists; see the [module docs](self)).
pub fn choose(has_per_lane: bool) -> Strategy {
    match forced() {
        Some(Strategy::PerLane) | None if has_per_lane => Strategy::PerLane,
        _ => Strategy::Flatten,
    }
}

/// How many calls of one function took each strategy since the process started (two relaxed
/// atomic counters: cheap enough for every call).
///
/// ```
/// use flatland_vectoriser::strategy::{Routes, Strategy};
/// static ROUTES: Routes = Routes::new();
/// ROUTES.record(Strategy::PerLane);
/// assert_eq!(ROUTES.calls(Strategy::PerLane), 1);
/// assert_eq!(ROUTES.to_string(), "1 per-lane, 0 flatten");
/// ```
#[derive(Debug, Default)]
pub struct Routes {
    per_lane: AtomicU64,
    flatten: AtomicU64,
}

impl Routes {
    /// No calls yet.
    pub const fn new() -> Routes {
        Routes {
            per_lane: AtomicU64::new(0),
            flatten: AtomicU64::new(0),
        }
    }

    fn counter(&self, s: Strategy) -> &AtomicU64 {
        match s {
            Strategy::PerLane => &self.per_lane,
            Strategy::Flatten => &self.flatten,
        }
    }

    /// Counts one call that took `s`, and returns `s`.
    pub fn record(&self, s: Strategy) -> Strategy {
        self.counter(s).fetch_add(1, Ordering::Relaxed);
        s
    }

    /// The calls that took `s` so far.
    pub fn calls(&self, s: Strategy) -> u64 {
        self.counter(s).load(Ordering::Relaxed)
    }
}

impl fmt::Display for Routes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} per-lane, {} flatten",
            self.calls(Strategy::PerLane),
            self.calls(Strategy::Flatten)
        )
    }
}
