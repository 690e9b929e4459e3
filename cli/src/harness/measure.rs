//! Timing statistics and peak-memory measurement.
//!
//! Peak memory is measured by an allocation counter: [`CountingAlloc`] wraps the system allocator
//! and, inside [`peak_during`], keeps the bytes allocated since the window opened and their
//! high-water mark. The `flatland` binary installs it as its global allocator; where it is not
//! installed (library tests), memory is not reported. A run's peak is that high-water mark: the
//! extra memory the variant needed, its output included.
//!
//! Outside a window the counter does nothing but read one flag: counting every allocation on a
//! shared atomic made allocation-heavy parallel code (the per-lane form of the suite's quicksort,
//! two threads) about three times slower than the same code without it, so the runner measures
//! memory in the warm-up run and times the repetitions with the counter off
//! ([`super::runner`]).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};
use std::time::Duration;

/// Bytes allocated minus bytes freed since the window opened (negative when it frees what was
/// allocated before).
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);
static COUNTING: AtomicBool = AtomicBool::new(false);
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// The system allocator with a count of live bytes and their peak.
///
/// ```no_run
/// #[global_allocator]
/// static ALLOC: flatland_cli::harness::measure::CountingAlloc = flatland_cli::harness::measure::CountingAlloc;
/// ```
pub struct CountingAlloc;

impl CountingAlloc {
    fn add(size: usize) {
        if !INSTALLED.load(Ordering::Relaxed) {
            INSTALLED.store(true, Ordering::Relaxed);
        }
        if COUNTING.load(Ordering::Relaxed) {
            let size = isize::try_from(size).unwrap_or(isize::MAX);
            let live = LIVE.fetch_add(size, Ordering::Relaxed).saturating_add(size);
            if live > PEAK.load(Ordering::Relaxed) {
                PEAK.fetch_max(live, Ordering::Relaxed);
            }
        }
    }

    fn sub(size: usize) {
        if COUNTING.load(Ordering::Relaxed) {
            LIVE.fetch_sub(
                isize::try_from(size).unwrap_or(isize::MAX),
                Ordering::Relaxed,
            );
        }
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so `System`'s
// guarantees carry over; the counters are plain atomics and never affect the memory returned.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which we pass on unchanged.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            Self::add(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            Self::add(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was returned by `System` through this allocator with this `layout`.
        unsafe { System.dealloc(ptr, layout) };
        Self::sub(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr`/`layout` come from this allocator (caller's contract), passed on unchanged.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            Self::sub(layout.size());
            Self::add(new_size);
        }
        p
    }
}

/// Runs `f` and returns its result with the extra peak heap bytes it used, or `None` for the
/// bytes when [`CountingAlloc`] is not the global allocator. Windows do not nest (the runner
/// opens one at a time); allocations on other threads during the window count too.
///
/// ```
/// use flatland_cli::harness::measure::peak_during;
/// let (v, _peak) = peak_during(|| vec![0u8; 1 << 20]);
/// assert_eq!(v.len(), 1 << 20);
/// ```
pub fn peak_during<R>(f: impl FnOnce() -> R) -> (R, Option<usize>) {
    LIVE.store(0, Ordering::Relaxed);
    PEAK.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    let r = f();
    COUNTING.store(false, Ordering::Relaxed);
    let peak = usize::try_from(PEAK.load(Ordering::Relaxed)).unwrap_or(0);
    (r, INSTALLED.load(Ordering::Relaxed).then_some(peak))
}

/// Summary of repeated timings.
///
/// ```
/// use flatland_cli::harness::measure::Timing;
/// use std::time::Duration;
/// let t = Timing::from_samples(vec![Duration::from_millis(3), Duration::from_millis(1), Duration::from_millis(2)]);
/// assert_eq!(t.median, Duration::from_millis(2));
/// assert_eq!((t.min, t.max), (Duration::from_millis(1), Duration::from_millis(3)));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    /// Median of the samples (mean of the middle two for an even count).
    pub median: Duration,
    /// Fastest sample.
    pub min: Duration,
    /// Slowest sample.
    pub max: Duration,
    /// All samples in the order they were taken.
    pub samples: Vec<Duration>,
}

impl Timing {
    /// Summarises samples; panics on an empty list (the runner always takes at least one).
    ///
    /// ```
    /// use flatland_cli::harness::measure::Timing;
    /// use std::time::Duration;
    /// let t = Timing::from_samples(vec![Duration::from_millis(1), Duration::from_millis(3)]);
    /// assert_eq!(t.median, Duration::from_millis(2));
    /// ```
    pub fn from_samples(samples: Vec<Duration>) -> Self {
        assert!(!samples.is_empty(), "Timing needs at least one sample");
        let mut s = samples.clone();
        s.sort();
        let n = s.len();
        let median = if n % 2 == 1 {
            s[n / 2]
        } else {
            (s[n / 2 - 1] + s[n / 2]) / 2
        };
        Self {
            median,
            min: s[0],
            max: s[n - 1],
            samples,
        }
    }
}
