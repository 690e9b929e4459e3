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
//! **The run's choice** ([`Routes::choose`]): measured, per function and input size. Both
//! forms give the same bits, so the choice is free to follow their speed: for each function
//! ([`Routes`], one per function, kept by the generated code) and each size class (the
//! arguments' elements and rows, [`Size`], by powers of two), the first calls alternate the two
//! strategies ([`EXPLORE`] runs each) and time them; later calls of that class take the one
//! with the lower best time. A strategy measured after the other and more than
//! [`CLEARLY_SLOWER`] times slower than the other's best is not explored again (a user's
//! first calls of a kernel whose executor is seven times slower paid for it twice). Only the
//! later-measured one is dropped: the first call of a class may pay for cold pages and
//! caches, which makes it look slower than it is. Inputs below [`MEASURED_FROM`] take the
//! per-lane form unmeasured (at that size its parallel lanes do not start and the executor's setup dominates). The
//! flattening executor runs the functions without a per-lane form (narrow or `Nested` boundary
//! types other than `i64`/`f64`) and those reaching a recursion that may keep a dead array
//! alive across its recursive calls ([`Forms::Recursive`]: there per-lane recursion would not
//! release a level's arrays before its recursive calls). `plan::f::explain()` reports the
//! calls of each strategy and
//! the measured times ([`Routes`]' `Display`); [`with_strategy`] forces one (a test override;
//! a forced per-lane run of a function without that form runs the executor, and is counted as
//! such). An error ends a call unmeasured.
//!
//! ```
//! use flatland_vectoriser::strategy::{Forms, Routes, Strategy, with_strategy};
//! use std::time::Duration;
//! static ROUTES: Routes = Routes::new();
//! // Small inputs: per-lane, unmeasured; no per-lane form, or recursion: the executor.
//! assert_eq!(ROUTES.choose(Forms::Recursive, 10), Strategy::Flatten);
//! assert_eq!(ROUTES.choose(Forms::Both, 10), Strategy::PerLane);
//! assert_eq!(ROUTES.choose(Forms::ExecutorOnly, 1 << 20), Strategy::Flatten);
//! // A size class is explored, then the faster strategy taken.
//! for _ in 0..4 {
//!     let s = ROUTES.choose(Forms::Both, 1 << 20);
//!     let took = if s == Strategy::Flatten { 5 } else { 9 };
//!     ROUTES.measured(s, 1 << 20, Duration::from_millis(took));
//! }
//! assert_eq!(ROUTES.choose(Forms::Both, 1 << 20), Strategy::Flatten);
//! with_strategy(Strategy::PerLane, || assert_eq!(ROUTES.choose(Forms::Both, 1 << 20), Strategy::PerLane));
//! ```

use std::cell::Cell;
use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The size (in [`Size`] units) from which calls are measured and the faster strategy taken;
/// smaller calls take the per-lane form.
pub const MEASURED_FROM: usize = 1 << 12;

/// How many measured calls each strategy gets in a size class before the faster is taken.
pub const EXPLORE: u32 = 2;

/// How many times slower than the other strategy's best a strategy measured after it must be
/// for the run to stop exploring it early ([`Routes::choose`]).
pub const CLEARLY_SLOWER: f64 = 2.0;

/// Size classes: `floor(log2(size))`.
const CLASSES: usize = usize::BITS as usize;

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

/// Which forms a function has, for the run's choice ([`Routes::choose`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Forms {
    /// The flattening executor only (a function whose boundary types are converted).
    ExecutorOnly,
    /// Both forms; the run measures them and takes the faster.
    Both,
    /// Both forms, but the function reaches a recursion that may keep a dead array alive
    /// across its recursive calls: the executor runs it unless the per-lane form is forced.
    /// Such per-lane recursion (an array read in place at the call, a tuple of arrays, a call
    /// under a loop) keeps each level's array until its recursive calls return, so a recursion
    /// of depth `d` over arrays of `n` elements holds up to `d * n` elements (quadratic on a
    /// quicksort of sorted keys), where the executor's lifted recursion releases them level by
    /// level. A recursion that hands its arrays down (moved at their last read, or taken by
    /// the lanes of a `map` that recurses: quicksort over `[less, greater].map(..)`) or keeps
    /// only scalars alive across its calls (NESL's primes) has [`Forms::Both`].
    Recursive,
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

/// The calls of one function: how many took each strategy, and per size class the best time
/// per unit of size each strategy took ([`Routes::choose`] reads them).
///
/// ```
/// use flatland_vectoriser::strategy::{Forms, Routes, Strategy};
/// static ROUTES: Routes = Routes::new();
/// ROUTES.choose(Forms::Both, 3);
/// assert_eq!(ROUTES.calls(Strategy::PerLane), 1);
/// assert_eq!(ROUTES.to_string(), "1 per-lane, 0 flatten");
/// ```
#[derive(Debug)]
pub struct Routes {
    per_lane: AtomicU64,
    flatten: AtomicU64,
    classes: Mutex<[Class; CLASSES]>,
}

impl Default for Routes {
    fn default() -> Self {
        Routes::new()
    }
}

/// The measurements of one size class.
#[derive(Clone, Copy, Debug, Default)]
struct Class {
    per_lane: Sample,
    flatten: Sample,
    /// The strategy of the class's first measured call.
    first: Option<Strategy>,
}

/// The measured calls of one strategy in one size class.
#[derive(Clone, Copy, Debug, Default)]
struct Sample {
    runs: u32,
    /// The best time per unit of size, in nanoseconds.
    best: f64,
}

impl Sample {
    fn add(&mut self, ns_per_unit: f64) {
        self.best = if self.runs == 0 {
            ns_per_unit
        } else {
            self.best.min(ns_per_unit)
        };
        self.runs += 1;
    }
}

impl Class {
    fn sample(&mut self, s: Strategy) -> &mut Sample {
        match s {
            Strategy::PerLane => &mut self.per_lane,
            Strategy::Flatten => &mut self.flatten,
        }
    }

    /// Whether the class still explores: a strategy has fewer than [`EXPLORE`] runs, unless
    /// the one measured second is already more than [`CLEARLY_SLOWER`] times the other's best.
    fn exploring(&self) -> bool {
        let (p, f) = (self.per_lane, self.flatten);
        if p.runs >= EXPLORE && f.runs >= EXPLORE {
            return false;
        }
        if p.runs == 0 || f.runs == 0 {
            return true;
        }
        let second_clearly_slower = match self.first {
            Some(Strategy::PerLane) => f.best > CLEARLY_SLOWER * p.best,
            Some(Strategy::Flatten) => p.best > CLEARLY_SLOWER * f.best,
            None => false,
        };
        !second_clearly_slower
    }
}

/// The size class of `size`.
fn class_of(size: usize) -> usize {
    size.max(1).ilog2() as usize
}

impl Routes {
    /// No calls yet.
    pub const fn new() -> Routes {
        const NONE: Class = Class {
            per_lane: Sample { runs: 0, best: 0.0 },
            flatten: Sample { runs: 0, best: 0.0 },
            first: None,
        };
        Routes {
            per_lane: AtomicU64::new(0),
            flatten: AtomicU64::new(0),
            classes: Mutex::new([NONE; CLASSES]),
        }
    }

    fn counter(&self, s: Strategy) -> &AtomicU64 {
        match s {
            Strategy::PerLane => &self.per_lane,
            Strategy::Flatten => &self.flatten,
        }
    }

    fn classes(&self) -> std::sync::MutexGuard<'_, [Class; CLASSES]> {
        self.classes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The strategy of a call of size `size` of a function with the given `forms`, counted:
    /// the forced one ([`with_strategy`]) where the function has it; else the executor
    /// without a per-lane form or for a recursive function, the per-lane form below
    /// [`MEASURED_FROM`], the less explored strategy while the size class is explored, and
    /// then the one with the lower best time (see the [module docs](self)).
    pub fn choose(&self, forms: Forms, size: usize) -> Strategy {
        let s = match forced() {
            _ if forms == Forms::ExecutorOnly => Strategy::Flatten,
            Some(s) => s,
            None if forms == Forms::Recursive => Strategy::Flatten,
            None if size < MEASURED_FROM => Strategy::PerLane,
            None => {
                let c = self.classes()[class_of(size)];
                let per_lane = if c.exploring() {
                    // The less explored first, per-lane on a tie.
                    c.per_lane.runs <= c.flatten.runs
                } else {
                    c.per_lane.best <= c.flatten.best
                };
                if per_lane {
                    Strategy::PerLane
                } else {
                    Strategy::Flatten
                }
            }
        };
        self.counter(s).fetch_add(1, Ordering::Relaxed);
        s
    }

    /// Records that a call of size `size` took `time` under `s` (a call below
    /// [`MEASURED_FROM`], or under a forced strategy, is not kept).
    pub fn measured(&self, s: Strategy, size: usize, time: Duration) {
        if size < MEASURED_FROM || forced().is_some() {
            return;
        }
        let ns = time.as_secs_f64() * 1e9 / size as f64;
        let class = &mut self.classes()[class_of(size)];
        class.first.get_or_insert(s);
        class.sample(s).add(ns);
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
        )?;
        for (k, c) in self.classes().iter().enumerate() {
            let show = |x: &Sample| {
                if x.runs == 0 {
                    "-".to_string()
                } else {
                    format!("{:.2} ns", x.best)
                }
            };
            if c.per_lane.runs + c.flatten.runs > 0 {
                write!(
                    f,
                    "; size 2^{k}: per-lane {}, flatten {} per unit",
                    show(&c.per_lane),
                    show(&c.flatten)
                )?;
            }
        }
        Ok(())
    }
}

/// The size of a call's arguments, for its size class ([`Routes::choose`]): the elements of
/// slices and `Vec`s (an array of rows counts its rows), the rows of a `Nested`, nothing for
/// a scalar.
///
/// ```
/// use flatland_vectoriser::strategy::Size;
/// assert_eq!(Size::size(&(&[1.0f64, 2.0][..], 7i64)), 2);
/// ```
pub trait Size {
    /// The size.
    fn size(&self) -> usize;
}

macro_rules! scalar_size {
    ($($t:ty),*) => {$(
        impl Size for $t {
            fn size(&self) -> usize {
                0
            }
        }
    )*};
}
scalar_size!(i64, f64, bool, u32, i32, usize, f32);

impl<T> Size for [T] {
    fn size(&self) -> usize {
        self.len()
    }
}

impl<T> Size for Vec<T> {
    fn size(&self) -> usize {
        self.len()
    }
}

impl<T: flatland_runtime::elt::Elt> Size for flatland_runtime::elt::Nested<T> {
    fn size(&self) -> usize {
        self.len()
    }
}

impl<T: Size + ?Sized> Size for &T {
    fn size(&self) -> usize {
        (**self).size()
    }
}

macro_rules! tuple_size {
    ($($t:ident $i:tt),*) => {
        impl<$($t: Size),*> Size for ($($t,)*) {
            fn size(&self) -> usize {
                0 $(+ self.$i.size())*
            }
        }
    };
}
tuple_size!(A 0, B 1);
tuple_size!(A 0, B 1, C 2);
tuple_size!(A 0, B 1, C 2, D 3);

#[cfg(test)]
mod tests {
    use super::Strategy::{Flatten, PerLane};
    use super::{EXPLORE, Forms, MEASURED_FROM, Routes, Strategy};
    use std::time::Duration;

    const SIZE: usize = MEASURED_FROM * 4;

    /// Calls `routes` `calls` times at `SIZE`, each strategy taking the time `took` gives it
    /// (milliseconds, by call number), and returns the strategies in call order.
    fn run(routes: &Routes, calls: usize, took: impl Fn(Strategy, usize) -> u64) -> Vec<Strategy> {
        (0..calls)
            .map(|k| {
                let s = routes.choose(Forms::Both, SIZE);
                routes.measured(s, SIZE, Duration::from_millis(took(s, k)));
                s
            })
            .collect()
    }

    #[test]
    fn a_strategy_measured_second_and_clearly_slower_is_not_explored_again() {
        let routes = Routes::new();
        let order = run(&routes, 6, |s, _| if s == Flatten { 70 } else { 10 });
        assert_eq!(
            order,
            [PerLane, Flatten, PerLane, PerLane, PerLane, PerLane]
        );
        assert_eq!(routes.calls(Flatten), 1);
    }

    #[test]
    fn a_first_call_that_looks_clearly_slower_is_explored_again() {
        // The first call paid for cold pages: per-lane looks 30x slower once, then is faster.
        let routes = Routes::new();
        let order = run(&routes, 6, |s, k| match (s, k) {
            (PerLane, 0) => 300,
            (PerLane, _) => 10,
            (Flatten, _) => 20,
        });
        assert_eq!(
            order,
            [PerLane, Flatten, PerLane, Flatten, PerLane, PerLane]
        );
    }

    #[test]
    fn strategies_within_the_bound_are_each_explored_fully() {
        let routes = Routes::new();
        let order = run(&routes, 6, |s, _| if s == Flatten { 15 } else { 10 });
        let explored = |s| order[..4].iter().filter(|&&x| x == s).count();
        assert_eq!(explored(PerLane), EXPLORE as usize);
        assert_eq!(explored(Flatten), EXPLORE as usize);
        assert_eq!(order[4..], [PerLane, PerLane]);
    }

    #[test]
    fn a_flatten_strategy_measured_first_may_drop_a_clearly_slower_per_lane_form() {
        // The class remembers which strategy was measured first, whichever it was: here the
        // executor, so the per-lane form measured after it and 5x slower is dropped.
        let routes = Routes::new();
        routes.measured(Flatten, SIZE, Duration::from_millis(10));
        routes.measured(PerLane, SIZE, Duration::from_millis(50));
        assert_eq!(run(&routes, 3, |_, _| 10), [Flatten, Flatten, Flatten]);
    }
}
