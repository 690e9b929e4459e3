//! A short measurement of this machine (well under a second): the cost of a simple op on data in
//! cache, the extra cost of streaming data from memory, and the overhead of a parallel task.

use crate::assoc;
use std::hint::black_box;
use std::time::Instant;

/// Elements in the in-cache buffer (one leaf: 32 KiB of f64).
const SMALL: usize = assoc::LEAF;
/// Elements in the streamed buffer (32 MiB of f64, larger than common last-level caches).
const LARGE: usize = 1 << 22;

/// What [`measure`] finds: the arguments of [`Machine::new`](super::Machine::new).
pub(super) struct Measured {
    pub(super) op_ns: f64,
    pub(super) transfer_ns: f64,
    pub(super) task_ns: f64,
    pub(super) inject_ns: f64,
    pub(super) cores: usize,
}

/// Measures the machine; see [`Machine::calibrate`](super::Machine::calibrate).
pub(super) fn measure() -> Measured {
    let op_ns = op_ns();
    let transfer_ns = (stream_ns() - op_ns).max(0.0);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    // Inside the pool: the scope's body runs on one of its workers (injected there once, if
    // the calibrating thread is not one).
    let task_ns = rayon::scope(|_| fork_join_ns(cores));
    // From a thread outside the pool, every fork-join is injected.
    let outside = std::thread::scope(|s| {
        s.spawn(|| fork_join_ns(cores))
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    });
    Measured {
        op_ns,
        transfer_ns,
        task_ns,
        inject_ns: (outside - task_ns).max(0.0),
        cores,
    }
}

/// Nanoseconds per element of the canonical leaf sum over a buffer in cache (best of 5 batches).
fn op_ns() -> f64 {
    let xs: Vec<f64> = (0..SMALL).map(|i| i as f64).collect();
    let reps = 100;
    best_of(5, || {
        let t = Instant::now();
        for _ in 0..reps {
            black_box(assoc::leaf_fold(black_box(&xs), 0.0, |a, b| a + b));
        }
        t.elapsed().as_nanos() as f64 / (reps * SMALL) as f64
    })
}

/// Nanoseconds per element of the same sum streamed from memory (best of 3 passes).
fn stream_ns() -> f64 {
    let xs: Vec<f64> = (0..LARGE).map(|i| i as f64).collect();
    best_of(3, || {
        let t = Instant::now();
        black_box(assoc::fold(black_box(&xs), 0.0, |a, b| a + b));
        t.elapsed().as_nanos() as f64 / LARGE as f64
    })
}

/// Nanoseconds of overhead per task of a fork-join on rayon's pool, called from the calling
/// thread (median of 101): `cores` tasks of one leaf sum each, against one such sum run alone.
/// Each worker then runs one task, so the excess is what the prediction charges a hand-off
/// ([`super::Machine::task_ns`], measured on a worker): handing the task to another thread,
/// waking that thread and joining; from a thread outside the pool it also holds the
/// injection ([`super::Machine::inject_ns`]). (Empty tasks would measure only the spawn, since
/// the spawning thread runs them all itself before any other worker wakes.)
fn fork_join_ns(cores: usize) -> f64 {
    let tasks = cores.max(2);
    let xs: Vec<f64> = (0..SMALL).map(|i| i as f64).collect();
    let work = || black_box(assoc::leaf_fold(black_box(&xs), 0.0, |a, b| a + b));
    let alone = best_of(5, || {
        let t = Instant::now();
        work();
        t.elapsed().as_nanos() as f64
    });
    let mut samples: Vec<f64> = (0..101)
        .map(|_| {
            let t = Instant::now();
            rayon::scope(|s| {
                for _ in 0..tasks {
                    s.spawn(|_| {
                        work();
                    });
                }
            });
            // Tasks beyond the cores run in turn on the workers.
            let rounds = tasks.div_ceil(cores.max(1)) as f64;
            (t.elapsed().as_nanos() as f64 - rounds * alone).max(0.0) / rounds
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn best_of(k: usize, mut f: impl FnMut() -> f64) -> f64 {
    (0..k).map(|_| f()).fold(f64::INFINITY, f64::min)
}
