//! Work counters: how many elements an operation read, wrote and copied, how many descriptor
//! entries it touched and how many bytes it allocated.
//!
//! The complexity claims that the runtime's operations document (descriptor-only replication,
//! single-pass fused loops; `docs/ARCHITECTURE.md`, "Contracts") are asserted through these
//! counters, never by timing. Counters are collected per measured scope: [`measure`] runs a closure and returns what
//! it did together with its result. Scopes nest (an outer scope sees everything an inner one sees)
//! and are private to the measuring thread, so tests running in parallel do not see each other's
//! work.
//!
//! Primitives record their work on the thread that *called* them, from the sizes of their inputs
//! and outputs, before they fan out to the pool; work that a task does on another thread is
//! recorded in the caller's scope by carrying the [`Scope`] handle into the task
//! ([`current`] + [`Scope::enter`]), so counts do not depend on where rayon runs a task.
//!
//! Everything here compiles to nothing unless the crate's `stats` feature is on; then
//! [`measure`] returns all-zero [`Work`] and [`ENABLED`] is `false`.
//!
//! ```
//! use flatland_runtime::stats;
//! let (sum, work) = stats::measure(|| {
//!     stats::record_read(3);
//!     1 + 2 + 3
//! });
//! assert_eq!(sum, 6);
//! if stats::ENABLED {
//!     assert_eq!(work.elements_read, 3);
//! }
//! ```

/// Whether the counters are compiled in (the `stats` feature).
pub const ENABLED: bool = cfg!(feature = "stats");

/// The work done inside one measured scope.
///
/// ```
/// let w = flatland_runtime::stats::Work::default();
/// assert_eq!(w.elements_read + w.elements_written, 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Work {
    /// Elements read from element stores.
    pub elements_read: u64,
    /// Elements written to freshly computed outputs.
    pub elements_written: u64,
    /// Elements copied unchanged from one store to another (materialisation, concat, gathers).
    pub elements_copied: u64,
    /// Descriptor entries (segment lengths, starts, sources, vsegids) read or written.
    pub descriptor_entries: u64,
    /// Bytes allocated for element stores and descriptors.
    pub bytes_allocated: u64,
    /// Lanes of expression programs evaluated by the register machine (interpreted).
    pub lanes_interpreted: u64,
    /// Lanes of expression programs evaluated by native kernels ([`crate::expr::native`]).
    pub lanes_native: u64,
    /// Program nodes a walking executor dispatched (the vectoriser's flattened executor counts
    /// one per IR node per bulk step it runs): the interpretive overhead, which must not grow
    /// with the number of elements.
    pub nodes_walked: u64,
    /// Bytes of outputs built in kept spare blocks ([`crate::spare`]) instead of fresh memory.
    pub bytes_reused: u64,
    /// Programs checked, fused and analysed for running (the vectoriser's `exec::Prepared`):
    /// a program prepared once and run many times counts one.
    pub programs_prepared: u64,
    /// Elements converted between a narrow Rust type (`u32`, `i32`, `usize`, `f32`) and the
    /// IR's `i64`/`f64` at a function's boundary (arguments on entry, results on exit).
    pub elements_converted: u64,
}

#[cfg(feature = "stats")]
mod imp {
    use super::Work;
    use std::cell::RefCell;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

    #[derive(Default, Debug)]
    pub(super) struct Counters {
        read: AtomicU64,
        written: AtomicU64,
        copied: AtomicU64,
        descriptor: AtomicU64,
        bytes: AtomicU64,
        interpreted: AtomicU64,
        native: AtomicU64,
        walked: AtomicU64,
        reused: AtomicU64,
        prepared: AtomicU64,
        converted: AtomicU64,
    }

    impl Counters {
        pub(super) fn snapshot(&self) -> Work {
            Work {
                elements_read: self.read.load(Relaxed),
                elements_written: self.written.load(Relaxed),
                elements_copied: self.copied.load(Relaxed),
                descriptor_entries: self.descriptor.load(Relaxed),
                bytes_allocated: self.bytes.load(Relaxed),
                lanes_interpreted: self.interpreted.load(Relaxed),
                lanes_native: self.native.load(Relaxed),
                nodes_walked: self.walked.load(Relaxed),
                bytes_reused: self.reused.load(Relaxed),
                programs_prepared: self.prepared.load(Relaxed),
                elements_converted: self.converted.load(Relaxed),
            }
        }
    }

    thread_local! {
        /// The scopes open on this thread, innermost last.
        pub(super) static STACK: RefCell<Vec<Arc<Counters>>> = const { RefCell::new(Vec::new()) };
    }

    pub(super) fn add(f: impl Fn(&Counters) -> &AtomicU64, n: u64) {
        if n == 0 {
            return;
        }
        STACK.with(|s| {
            for c in s.borrow().iter() {
                f(c).fetch_add(n, Relaxed);
            }
        });
    }

    pub(super) fn read(c: &Counters) -> &AtomicU64 {
        &c.read
    }
    pub(super) fn written(c: &Counters) -> &AtomicU64 {
        &c.written
    }
    pub(super) fn copied(c: &Counters) -> &AtomicU64 {
        &c.copied
    }
    pub(super) fn descriptor(c: &Counters) -> &AtomicU64 {
        &c.descriptor
    }
    pub(super) fn bytes(c: &Counters) -> &AtomicU64 {
        &c.bytes
    }
    pub(super) fn interpreted(c: &Counters) -> &AtomicU64 {
        &c.interpreted
    }
    pub(super) fn native(c: &Counters) -> &AtomicU64 {
        &c.native
    }
    pub(super) fn walked(c: &Counters) -> &AtomicU64 {
        &c.walked
    }
    pub(super) fn reused(c: &Counters) -> &AtomicU64 {
        &c.reused
    }
    pub(super) fn prepared(c: &Counters) -> &AtomicU64 {
        &c.prepared
    }
    pub(super) fn converted(c: &Counters) -> &AtomicU64 {
        &c.converted
    }
}

/// A handle on the scopes open on the calling thread, to carry into tasks on other threads.
///
/// ```
/// use flatland_runtime::stats;
/// let ((), work) = stats::measure(|| {
///     let scope = stats::current();
///     std::thread::scope(|s| {
///         s.spawn(|| scope.enter(|| stats::record_written(5)));
///     });
/// });
/// if stats::ENABLED {
///     assert_eq!(work.elements_written, 5);
/// }
/// ```
#[derive(Clone, Debug, Default)]
pub struct Scope {
    #[cfg(feature = "stats")]
    stack: Vec<std::sync::Arc<imp::Counters>>,
}

impl Scope {
    /// Runs `f` with exactly this handle's scopes open on the current thread, restoring the
    /// thread's own scopes afterwards (also on panic).
    ///
    /// The thread's scopes are *replaced*, not extended: a pool thread that is itself waiting
    /// inside a measured task may steal an unrelated job, and that job must count only into the
    /// scopes it carries.
    pub fn enter<R>(&self, f: impl FnOnce() -> R) -> R {
        #[cfg(feature = "stats")]
        {
            let saved =
                imp::STACK.with(|s| std::mem::replace(&mut *s.borrow_mut(), self.stack.clone()));
            let _guard = RestoreGuard(Some(saved));
            f()
        }
        #[cfg(not(feature = "stats"))]
        f()
    }
}

#[cfg(feature = "stats")]
struct RestoreGuard(Option<Vec<std::sync::Arc<imp::Counters>>>);

#[cfg(feature = "stats")]
impl Drop for RestoreGuard {
    fn drop(&mut self) {
        if let Some(saved) = self.0.take() {
            imp::STACK.with(|s| *s.borrow_mut() = saved);
        }
    }
}

#[cfg(feature = "stats")]
struct PopGuard(usize);

#[cfg(feature = "stats")]
impl Drop for PopGuard {
    fn drop(&mut self) {
        imp::STACK.with(|s| {
            let mut s = s.borrow_mut();
            let keep = s.len() - self.0;
            s.truncate(keep);
        });
    }
}

/// The scopes open on the calling thread, for [`Scope::enter`] on another thread.
pub fn current() -> Scope {
    #[cfg(feature = "stats")]
    {
        Scope {
            stack: imp::STACK.with(|s| s.borrow().clone()),
        }
    }
    #[cfg(not(feature = "stats"))]
    Scope::default()
}

/// Runs `f` and returns its result with the work recorded while it ran (on this thread, and on
/// threads that entered this scope through [`current`]). A panic in `f` closes the scope and
/// propagates.
///
/// ```
/// use flatland_runtime::stats;
/// let (_, outer) = stats::measure(|| {
///     stats::record_copied(2);
///     let (_, inner) = stats::measure(|| stats::record_copied(1));
///     if stats::ENABLED { assert_eq!(inner.elements_copied, 1); }
/// });
/// if stats::ENABLED { assert_eq!(outer.elements_copied, 3); }
/// ```
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Work) {
    #[cfg(feature = "stats")]
    {
        let counters = std::sync::Arc::new(imp::Counters::default());
        imp::STACK.with(|s| s.borrow_mut().push(counters.clone()));
        let guard = PopGuard(1);
        let r = f();
        drop(guard);
        (r, counters.snapshot())
    }
    #[cfg(not(feature = "stats"))]
    (f(), Work::default())
}

macro_rules! recorder {
    ($(#[$doc:meta])* $name:ident, $field:ident) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(n: u64) {
            #[cfg(feature = "stats")]
            imp::add(imp::$field, n);
            #[cfg(not(feature = "stats"))]
            let _ = n;
        }
    };
}

recorder!(
    /// Records `n` elements read. `stats::record_read(10);`
    record_read, read
);
recorder!(
    /// Records `n` elements written. `stats::record_written(10);`
    record_written, written
);
recorder!(
    /// Records `n` elements copied unchanged. `stats::record_copied(10);`
    record_copied, copied
);
recorder!(
    /// Records `n` descriptor entries touched. `stats::record_descriptor(10);`
    record_descriptor, descriptor
);
recorder!(
    /// Records `n` bytes allocated. `stats::record_bytes(80);`
    record_bytes, bytes
);
recorder!(
    /// Records `n` lanes run by the expression machine. `stats::record_lanes_interpreted(8);`
    record_lanes_interpreted, interpreted
);
recorder!(
    /// Records `n` lanes run by native kernels. `stats::record_lanes_native(8);`
    record_lanes_native, native
);
recorder!(
    /// Records `n` program nodes dispatched by a walking executor. `stats::record_nodes_walked(1);`
    record_nodes_walked, walked
);

recorder!(
    /// Records `n` bytes of output built in a kept spare block. `stats::record_bytes_reused(4096);`
    record_bytes_reused, reused
);
recorder!(
    /// Records `n` programs prepared to run. `stats::record_programs_prepared(1);`
    record_programs_prepared, prepared
);
recorder!(
    /// Records `n` elements converted at a function's boundary. `stats::record_converted(8);`
    record_converted, converted
);

/// Records an allocation of `n` elements of `T` (`n * size_of::<T>()` bytes).
///
/// ```
/// flatland_runtime::stats::record_alloc::<f64>(4);
/// ```
#[inline]
pub fn record_alloc<T>(n: usize) {
    record_bytes((n * std::mem::size_of::<T>()) as u64);
}

#[cfg(all(test, feature = "stats"))]
mod tests {
    use super::*;

    #[test]
    fn scopes_are_per_thread_and_nest() {
        let ((), w) = measure(|| {
            record_read(1);
            std::thread::spawn(|| record_read(100)).join().unwrap();
        });
        assert_eq!(w.elements_read, 1);
    }

    #[test]
    fn scope_closes_on_panic() {
        let r = std::panic::catch_unwind(|| measure(|| panic!("boom")));
        assert!(r.is_err());
        let ((), w) = measure(|| record_written(2));
        assert_eq!(w.elements_written, 2);
        imp::STACK.with(|s| assert!(s.borrow().is_empty()));
    }

    #[test]
    fn enter_replaces_the_threads_scopes() {
        let outer = current();
        let ((), mine) = measure(|| {
            // A job carrying no scope must not count into the scope open on this thread.
            Scope::default().enter(|| record_read(7));
            outer.enter(|| record_read(1));
            record_read(2);
        });
        assert_eq!(mine.elements_read, 2);
    }

    #[test]
    fn carried_into_rayon_tasks() {
        let ((), w) = measure(|| {
            let scope = current();
            rayon::scope(|s| {
                for _ in 0..8 {
                    let scope = scope.clone();
                    s.spawn(move |_| scope.enter(|| record_copied(1)));
                }
            });
        });
        assert_eq!(w.elements_copied, 8);
    }
}
