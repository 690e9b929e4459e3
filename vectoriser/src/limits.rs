//! Limits on running programs: the recursion depth.
//!
//! A function call nests one level deeper than its caller; the function a run starts with is at
//! depth 1. The reference interpreter ([`crate::eval`]), the flattened executor
//! ([`crate::exec`]) and the code `#[vectorise]` generates all count the same levels (a lifted
//! call at nesting depth `d` holds exactly the interpreter's calls at depth `d`; a lifted call
//! with no lanes is no call) and refuse a call that would go past the limit with the same
//! [`Error::RecursionLimit`]: the function called, the depth it would have had (`limit + 1`)
//! and the limit. The check is one counter per call level, not per element.
//!
//! The error is the same from the three as long as they meet it first (no lane fails before
//! it) and one function is called at the limit depth, as in every self-recursive program and in
//! mutual recursion that alternates by depth. When different functions are called at the limit
//! depth on different lanes, the interpreter names the first in lane order and lifted code the
//! first in branch order; and when another lane fails too, lifted code may meet the limit first
//! where the interpreter meets that lane's error first. (The executor does not rerun the
//! interpreter on a recursion past the limit, as it does on runtime errors: the interpreter
//! keeps every level's values, so that rerun could take far more memory than the run did.)
//!
//! Each run reads the limit once, when it starts: [`with_max_recursion_depth`]'s value on the
//! calling thread if one is set, otherwise the process-wide [`set_max_recursion_depth`] value
//! (default [`DEFAULT_MAX_RECURSION_DEPTH`]). Deep recursion runs on a stack grown on the heap
//! (`stacker`), so the limit, not the native stack, bounds it. A level costs memory even when
//! it holds no data: [`crate::programs::count_down`], one scalar a level, peaks at about 2 KiB
//! a level in the interpreter, 9 KiB in the executor and 3 KiB in `#[vectorise]` code (release
//! build, resident memory; 10^5 levels: 0.2, 0.9 and 0.3 GiB in 0.2, 1.0 and 0.4 s; 10^6
//! levels: 2.2, 9.3 and 2.8 GiB in 2.8, 19 and 3.9 s). The default of 10^5 fits a small
//! machine; 10^6 needs a large one.
//!
//! ```
//! use flatland_vectoriser::{Error, limits, programs};
//! let (p, count) = programs::count_down();
//! assert_eq!(p.eval(&count, 100).unwrap(), 100);
//! let e = limits::with_max_recursion_depth(50, || p.exec(&count, 100)).unwrap_err();
//! assert_eq!(e, Error::RecursionLimit { function: "count_down".into(), depth: 51, limit: 50 });
//! assert_eq!(
//!     e.to_string(),
//!     "recursion limit: a call of `count_down` at depth 51 goes past the limit of 50 levels \
//!      (flatland_vectoriser::limits::set_max_recursion_depth)"
//! );
//! ```

use crate::error::{Error, Result};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The recursion depth limit when none is set: 10^5 levels.
pub const DEFAULT_MAX_RECURSION_DEPTH: usize = 100_000;

static MAX_RECURSION_DEPTH: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_RECURSION_DEPTH);

thread_local! {
    static SCOPED: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Sets the process-wide recursion depth limit for the runs that start afterwards (on threads
/// with no [`with_max_recursion_depth`] in force). `usize::MAX` means no limit but memory.
///
/// ```
/// use flatland_vectoriser::limits;
/// limits::set_max_recursion_depth(1_000_000);
/// assert_eq!(limits::max_recursion_depth(), 1_000_000);
/// limits::set_max_recursion_depth(limits::DEFAULT_MAX_RECURSION_DEPTH);
/// ```
pub fn set_max_recursion_depth(levels: usize) {
    MAX_RECURSION_DEPTH.store(levels, Ordering::Relaxed);
}

/// The recursion depth limit a run started now on this thread gets.
///
/// ```
/// use flatland_vectoriser::limits;
/// assert_eq!(limits::with_max_recursion_depth(7, limits::max_recursion_depth), 7);
/// ```
pub fn max_recursion_depth() -> usize {
    SCOPED
        .with(Cell::get)
        .unwrap_or_else(|| MAX_RECURSION_DEPTH.load(Ordering::Relaxed))
}

/// Runs `f` with the recursion depth limit `levels` for the runs it starts on this thread (the
/// previous limit is restored afterwards, also when `f` panics).
///
/// ```
/// use flatland_vectoriser::{limits, programs};
/// let (p, count) = programs::count_down();
/// // count_down(n) is n + 1 calls deep.
/// assert!(limits::with_max_recursion_depth(10, || p.eval(&count, 9)).is_ok());
/// assert!(limits::with_max_recursion_depth(10, || p.eval(&count, 10)).is_err());
/// assert!(p.eval(&count, 10).is_ok()); // the default limit again
/// ```
pub fn with_max_recursion_depth<R>(levels: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<usize>);
    impl Drop for Restore {
        fn drop(&mut self) {
            SCOPED.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SCOPED.with(|s| s.replace(Some(levels))));
    f()
}

/// The call depth of one run: entered and left once per call level.
#[derive(Debug)]
pub(crate) struct Depth {
    depth: Cell<usize>,
    limit: usize,
}

impl Depth {
    /// A run's counter, at depth 0, with the limit in force now.
    pub(crate) fn new() -> Depth {
        Depth {
            depth: Cell::new(0),
            limit: max_recursion_depth(),
        }
    }

    /// A counter already at `depth` levels, against the limit of the run it continues.
    pub(crate) fn at(depth: usize, limit: usize) -> Depth {
        Depth {
            depth: Cell::new(depth),
            limit,
        }
    }

    /// The current depth and the limit.
    pub(crate) fn level(&self) -> (usize, usize) {
        (self.depth.get(), self.limit)
    }

    /// Enters a call of `function`, one level deeper; past the limit, the error instead (and
    /// the depth stays). Each `Ok` is matched by one [`Depth::leave`].
    #[inline]
    pub(crate) fn enter(&self, function: &str) -> Result<()> {
        let depth = self.depth.get() + 1;
        if depth > self.limit {
            return Err(self.past_limit(function, depth));
        }
        self.depth.set(depth);
        Ok(())
    }

    /// Leaves the call entered last.
    #[inline]
    pub(crate) fn leave(&self) {
        self.depth.set(self.depth.get() - 1);
    }

    #[cold]
    fn past_limit(&self, function: &str, depth: usize) -> Error {
        Error::RecursionLimit {
            function: function.to_string(),
            depth,
            limit: self.limit,
        }
    }

    /// Runs `f` one level deeper, as the call of `function`; past the limit, the error instead.
    pub(crate) fn call<R>(&self, function: &str, f: impl FnOnce() -> Result<R>) -> Result<R> {
        self.enter(function)?;
        let r = f();
        self.leave();
        r
    }
}
