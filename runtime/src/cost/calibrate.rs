//! A short measurement of this machine (well under a second): the cost of a simple op on data in
//! cache, the extra cost of streaming data from memory, the overhead of a parallel task with the
//! pool's workers awake and asleep, and (from the OS) the size of one core's cache.

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
    pub(super) wake_ns: f64,
    pub(super) inject_ns: f64,
    pub(super) cache_bytes: usize,
    pub(super) cores: usize,
}

/// The idle time before each fork-join that measures [`Measured::wake_ns`]: far longer than
/// rayon's workers look for work before they sleep ([`crate::sched::WARM_NS`]).
const ASLEEP: std::time::Duration = std::time::Duration::from_millis(1);

/// One core's cache when the OS does not say (a common L2 size).
const CACHE_BYTES: usize = 1 << 20;

/// Measures the machine; see [`Machine::calibrate`](super::Machine::calibrate).
pub(super) fn measure() -> Measured {
    let op_ns = op_ns();
    let transfer_ns = (stream_ns() - op_ns).max(0.0);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    // Inside the pool: the scope's body runs on one of its workers (injected there once, if
    // the calibrating thread is not one).
    let task_ns = rayon::scope(|_| fork_join_ns(cores, 101, || ()));
    // The same after the workers have fallen asleep.
    let wake_ns = rayon::scope(|_| fork_join_ns(cores, 21, || std::thread::sleep(ASLEEP)));
    // From a thread outside the pool, every fork-join is injected.
    let outside = std::thread::scope(|s| {
        s.spawn(|| fork_join_ns(cores, 101, || ()))
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    });
    Measured {
        op_ns,
        transfer_ns,
        task_ns,
        wake_ns: wake_ns.max(task_ns),
        inject_ns: (outside - task_ns).max(0.0),
        cache_bytes: core_cache_bytes().unwrap_or(CACHE_BYTES),
        cores,
    }
}

/// The size of the first CPU's level-2 cache as Linux reports it
/// (`/sys/devices/system/cpu/cpu0/cache/index*/`, the data or unified cache of level 2), `None`
/// elsewhere or when it cannot be read.
fn core_cache_bytes() -> Option<usize> {
    let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
    std::fs::read_dir(dir).ok()?.flatten().find_map(|entry| {
        let read = |name: &str| std::fs::read_to_string(entry.path().join(name)).ok();
        let level = read("level")?;
        let kind = read("type")?;
        if level.trim() != "2" || kind.trim() == "Instruction" {
            return None;
        }
        parse_cache_size(&read("size")?)
    })
}

/// `"1024K"`, `"2M"` or `"512"` (bytes) as bytes.
fn parse_cache_size(text: &str) -> Option<usize> {
    let text = text.trim();
    let (digits, unit) = match text.as_bytes().last()? {
        b'K' => (&text[..text.len() - 1], 1 << 10),
        b'M' => (&text[..text.len() - 1], 1 << 20),
        b'G' => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    digits.parse::<usize>().ok()?.checked_mul(unit)
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
/// thread (median of `samples`, each after `before()`): `cores` tasks of one leaf sum each,
/// against one such sum run alone.
/// Each worker then runs one task, so the excess is what the prediction charges a hand-off
/// ([`super::Machine::task_ns`], measured on a worker): handing the task to another thread,
/// waking that thread and joining; from a thread outside the pool it also holds the
/// injection ([`super::Machine::inject_ns`]). (Empty tasks would measure only the spawn, since
/// the spawning thread runs them all itself before any other worker wakes.)
fn fork_join_ns(cores: usize, samples: usize, before: impl Fn()) -> f64 {
    let tasks = cores.max(2);
    let xs: Vec<f64> = (0..SMALL).map(|i| i as f64).collect();
    let work = || black_box(assoc::leaf_fold(black_box(&xs), 0.0, |a, b| a + b));
    let alone = best_of(5, || {
        let t = Instant::now();
        work();
        t.elapsed().as_nanos() as f64
    });
    let mut samples: Vec<f64> = (0..samples)
        .map(|_| {
            before();
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

#[cfg(test)]
mod tests {
    use super::parse_cache_size;

    #[test]
    fn cache_sizes_parse_with_their_units() {
        assert_eq!(parse_cache_size("1024K\n"), Some(1 << 20));
        assert_eq!(parse_cache_size("2M"), Some(2 << 20));
        assert_eq!(parse_cache_size("512"), Some(512));
        for bad in ["", "K", "-1K", "1.5M", "99999999999999999999G"] {
            assert_eq!(parse_cache_size(bad), None, "{bad:?}");
        }
    }
}
