//! Whether the pool's workers are awake: a split is running, or the last one ended less than
//! [`WARM_NS`] ago.
//!
//! A rayon worker that finds no work keeps looking for a while, then sleeps until a new job
//! wakes it. Handing a task to a worker that is still looking costs a few microseconds
//! ([`Machine::task_ns`](crate::cost::Machine::task_ns)); waking a sleeping one costs far more
//! ([`Machine::wake_ns`](crate::cost::Machine::wake_ns): 40-200 µs on a 2-core virtual machine,
//! where the sleeping worker's virtual CPU is halted). So the planner asks how long the pool
//! has been idle. Every split of [`super::run_parts`] holds a [`Running`] guard; the guard
//! counts running splits and stamps the time the last one ended. Splits from anywhere in the
//! process count (all pools alike), and parallel work outside the runtime is not seen: such a
//! pool is taken for asleep, the cautious side.
//!
//! Planning only on the pool's state would keep a sleeping pool asleep: an operation too small
//! to pay a wake runs sequentially, so the next one finds the workers asleep too, and a chain
//! of mid-sized operations (a recursion's levels, a batch of calls) never splits. So when an
//! operation runs sequentially only because the workers sleep, [`wake`] posts a job that keeps
//! a worker awake while the caller works: it counts as a running split (so planners see the
//! pool awake) and spins until the next split starts, or until the caller's operation should
//! have ended and [`WARM_NS`] more have passed. An empty job was not enough: the woken worker
//! stamped the pool awake as soon as it ran, looked for work for a few microseconds and fell
//! asleep again before the caller's operation ended, so the next one found it asleep and ran
//! sequentially too: back-to-back segmented folds of 5 * 10^4 elements on a pool of 2 threads
//! (from one of its workers, in batches of 10 calls 500 µs apart) took 22.1 µs a call at the
//! median, sequential every time; kept awake, they split and take 13.7 µs.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// How long after its last split the pool counts as awake, in nanoseconds. rayon's idle workers
/// yield 32 rounds before they sleep; on the 2-core development VM a split after 14 µs of idle
/// still took its warm time, and after 30 µs it took its cold one (a 2-task sum of 10^5
/// elements: 17.6 µs warm, 31 µs cold, 22 µs sequential). 10 µs stays on the warm side.
pub const WARM_NS: u64 = 10_000;

/// Splits running now.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// When the last split ended, in nanoseconds since [`epoch`] plus one (0: never).
static LAST_END: AtomicU64 = AtomicU64::new(0);

/// The process's clock origin for [`LAST_END`].
fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn now_ns() -> u64 {
    u64::try_from(epoch().elapsed().as_nanos()).unwrap_or(u64::MAX - 1)
}

/// How long the pool has been idle, in nanoseconds: 0 while a split runs, `u64::MAX` before
/// the first split of the process.
pub(crate) fn idle_ns() -> u64 {
    if RUNNING.load(Ordering::Acquire) > 0 {
        return 0;
    }
    match LAST_END.load(Ordering::Acquire) {
        0 => u64::MAX,
        end => now_ns().saturating_sub(end - 1),
    }
}

/// Splits started (by [`Running::start`]; a keep-awake job of [`wake`] is not one).
static STARTED: AtomicUsize = AtomicUsize::new(0);

/// Held while a split runs: counted in [`RUNNING`], its end stamped in [`LAST_END`].
pub(crate) struct Running(());

impl Running {
    /// A split starts.
    pub(crate) fn start() -> Running {
        STARTED.fetch_add(1, Ordering::AcqRel);
        Running::awake()
    }

    /// A worker is kept awake ([`wake`]): the pool counts as awake, no split has started.
    fn awake() -> Running {
        RUNNING.fetch_add(1, Ordering::AcqRel);
        Running(())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Stamp before the count drops, so that a planner that sees no split running sees
        // this one's end.
        LAST_END.fetch_max(now_ns() + 1, Ordering::AcqRel);
        RUNNING.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Whether a keep-awake job posted by [`wake`] has not started yet.
static WAKING: AtomicBool = AtomicBool::new(false);

/// The longest a keep-awake job of [`wake`] spins, in nanoseconds, whatever the caller's
/// operation is predicted to take: the operations that run sequentially because the workers
/// sleep are those too short to pay a wake ([`Machine::wake_ns`](crate::cost::Machine::wake_ns),
/// at most a few hundred microseconds), so a longer spin would only burn the core.
pub(crate) const KEEP_AWAKE_MAX_NS: u64 = 1_000_000;

/// Wakes a worker of the current pool for the operation after the caller's, which is predicted
/// to take `busy_ns`: a job that counts as a running split while it spins, until a split starts
/// (the worker then takes its tasks) or `busy_ns` (at most [`KEEP_AWAKE_MAX_NS`]) and
/// [`WARM_NS`] more have passed since this call, unless a job is already on its way. While it
/// spins, the worker runs any job it finds in the pool.
pub(crate) fn wake(busy_ns: u64) {
    if WAKING.swap(true, Ordering::AcqRel) {
        return;
    }
    let started = STARTED.load(Ordering::Acquire);
    let until = now_ns()
        .saturating_add(busy_ns.min(KEEP_AWAKE_MAX_NS))
        .saturating_add(WARM_NS);
    rayon::spawn(move || {
        let mut awake = Some(Running::awake());
        WAKING.store(false, Ordering::Release);
        while STARTED.load(Ordering::Acquire) == started && now_ns() < until {
            // Parallel work that does not go through `run_parts` (rayon's own iterators, a
            // caller's join) starts no split: the worker looks for any job in the pool and,
            // finding one, runs it and stops keeping awake. The job runs unguarded (it may take
            // long, and not keep the other workers awake): the guard's drop stamps the pool
            // awake just before, as any split's end does.
            drop(awake.take());
            if rayon::yield_now() == Some(rayon::Yield::Executed) {
                return;
            }
            awake = Some(Running::awake());
            std::hint::spin_loop();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_running_split_keeps_the_pool_awake() {
        let guard = Running::start();
        assert_eq!(idle_ns(), 0);
        let nested = Running::start();
        drop(nested);
        assert_eq!(idle_ns(), 0, "the outer split still runs");
        drop(guard);
        // Some split of another test may run meanwhile: the idle time is only bounded.
        assert!(idle_ns() < 60_000_000_000);
    }

    #[test]
    fn a_wake_runs_on_the_pool_and_stamps_it_awake() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let before = LAST_END.load(Ordering::Acquire);
        pool.install(|| wake(0));
        let deadline = Instant::now() + std::time::Duration::from_secs(10);
        while LAST_END.load(Ordering::Acquire) == before && Instant::now() < deadline {
            std::thread::yield_now();
        }
        assert!(LAST_END.load(Ordering::Acquire) > before);
    }
}
