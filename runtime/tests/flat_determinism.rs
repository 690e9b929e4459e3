//! Bitwise determinism across pools and machine profiles, panics in user closures, and work
//! counts.

mod flat_common;

use flat_common::{everywhere, floats, pools, profiles};
use flatland_runtime::assoc::{self, LEAF};
use flatland_runtime::cost::with_machine;
use flatland_runtime::{flat, sched};
use std::panic::{AssertUnwindSafe, catch_unwind};

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn float_sums_and_scans_are_bitwise_equal_everywhere() {
    let add = |a: f64, b: f64| a + b;
    for n in [
        0,
        1,
        LEAF - 1,
        LEAF + 1,
        7 * LEAF + 3,
        8 * LEAF,
        17 * LEAF + 1,
        100_003,
    ] {
        let xs = floats(n, n as u64 + 1);
        let sum = assoc::fold(&xs, 0.0, add).to_bits();
        let inc = bits(&assoc::scan_inclusive(&xs, 0.0, add));
        let exc = bits(&assoc::scan_exclusive(&xs, 0.0, add));
        let (_, red) = flat::redomap(&xs, |x| (x, x * 2.0), 0.0, add);
        let doubled: Vec<f64> = xs.iter().map(|x| x * 2.0).collect();
        assert_eq!(red.to_bits(), assoc::fold(&doubled, 0.0, add).to_bits());
        let results = everywhere(|| {
            (
                flat::reduce(&xs, 0.0, add).to_bits(),
                bits(&flat::scan_inclusive(&xs, 0.0, add)),
                bits(&flat::scan_exclusive(&xs, 0.0, add)),
                flat::redomap(&xs, |x| (x, x * 2.0), 0.0, add).1.to_bits(),
            )
        });
        for (label, (s, i, e, r)) in results {
            assert_eq!(s, sum, "sum, n = {n}, {label}");
            assert_eq!(i, inc, "inclusive scan, n = {n}, {label}");
            assert_eq!(e, exc, "exclusive scan, n = {n}, {label}");
            assert_eq!(r, red.to_bits(), "redomap, n = {n}, {label}");
        }
    }
}

#[test]
fn scans_keep_their_bits_for_every_task_count() {
    // Forced task counts cut the leaves into pieces of every width the leaf walks take side by
    // side (8, 4, 2, 1 whole leaves and a short tail), at every offset.
    let add = |a: f64, b: f64| a + b;
    let pool = &pools()[1];
    for n in [19 * LEAF + 77, 37 * LEAF] {
        let xs = floats(n, n as u64 + 7);
        let inc = bits(&assoc::scan_inclusive(&xs, 0.0, add));
        let exc = bits(&assoc::scan_exclusive(&xs, 0.0, add));
        for k in 1..=n.div_ceil(LEAF) {
            let (i, e) = pool.install(|| {
                sched::with_task_count(k, || {
                    (
                        bits(&flat::scan_inclusive(&xs, 0.0, add)),
                        bits(&flat::scan_exclusive(&xs, 0.0, add)),
                    )
                })
            });
            assert_eq!(i, inc, "inclusive scan, n = {n}, {k} tasks");
            assert_eq!(e, exc, "exclusive scan, n = {n}, {k} tasks");
        }
    }
}

#[test]
fn signed_zeros_keep_their_bits() {
    let add = |a: f64, b: f64| a + b;
    let mut xs = vec![-0.0; 3 * LEAF + 5];
    xs[LEAF + 1] = 1.0;
    xs[2 * LEAF] = -1.0;
    let inc = bits(&assoc::scan_inclusive(&xs, -0.0, add));
    let exc = bits(&assoc::scan_exclusive(&xs, -0.0, add));
    for (label, (i, e)) in everywhere(|| {
        (
            bits(&flat::scan_inclusive(&xs, -0.0, add)),
            bits(&flat::scan_exclusive(&xs, -0.0, add)),
        )
    }) {
        assert_eq!(i, inc, "{label}");
        assert_eq!(e, exc, "{label}");
    }
}

#[test]
fn the_association_matters_so_the_check_is_real() {
    // A plain left fold gives different bits than the canonical association on this input, so
    // equality with `assoc` above is not an accident of the data.
    let xs = floats(100_003, 100_004);
    let naive = xs.iter().fold(0.0, |a, b| a + b);
    assert_ne!(
        naive.to_bits(),
        assoc::fold(&xs, 0.0, |a, b| a + b).to_bits()
    );
}

#[test]
fn eager_profile_really_runs_in_parallel() {
    let pool = &pools()[1]; // two threads
    let seen = std::sync::Mutex::new(std::collections::HashSet::new());
    let xs = vec![1u8; 64 * LEAF];
    // Each element waits (up to a deadline) until a second thread has joined in, so a machine
    // busy with other tests cannot finish the map on one thread before the other one wakes.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    pool.install(|| {
        with_machine(profiles()[1], || {
            flat::map(&xs, |x| {
                seen.lock().unwrap().insert(std::thread::current().id());
                while seen.lock().unwrap().len() < 2 && std::time::Instant::now() < deadline {
                    std::thread::yield_now();
                }
                x
            })
        })
    });
    // Both pool threads or the pool thread and the caller's help: at least two threads.
    assert!(seen.lock().unwrap().len() >= 2);
}

#[test]
fn a_stalled_scan_worker_does_not_hold_up_the_others() {
    // The worker of the block holding `stall_at` sleeps on its first visit there; the worker
    // of the next block stops waiting for its carry, computes it from the input, and goes on.
    // The bits are the canonical ones all the same.
    use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
    let xs: Vec<u64> = (0..64 * LEAF as u64).map(|i| i * 7 + 1).collect();
    let stall_at = xs[9 * LEAF + 1];
    let stalled = AtomicBool::new(false);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let before = sched::carries_recomputed();
    let sums = pool.install(|| {
        sched::with_task_count(2, || {
            flat::scan_inclusive(&xs, 0u64, |a, b| {
                if b == stall_at && !stalled.swap(true, SeqCst) {
                    std::thread::sleep(std::time::Duration::from_millis(300));
                }
                a.wrapping_add(b)
            })
        })
    });
    assert_eq!(sums, assoc::scan_inclusive(&xs, 0, u64::wrapping_add));
    assert!(stalled.load(SeqCst));
    assert!(sched::carries_recomputed() > before);
}

fn panics<R>(f: impl FnOnce() -> R) -> bool {
    catch_unwind(AssertUnwindSafe(f)).is_err()
}

#[test]
fn panics_in_user_closures_propagate_and_pools_survive() {
    let xs: Vec<u64> = (0..40 * LEAF as u64).collect();
    let bad = 33 * LEAF as u64 + 5;
    for (pool, m) in pools().iter().flat_map(|p| profiles().map(|m| (p, m))) {
        pool.install(|| {
            with_machine(m, || {
                assert!(panics(|| flat::map(&xs, |x| {
                    assert!(x != bad, "map closure");
                    x
                })));
                assert!(panics(|| flat::reduce(&xs, 0, |a, b| {
                    assert!(b != bad, "reduce closure");
                    a + b
                })));
                // A scan's later workers do not wait forever for the carry of a block whose
                // worker panicked.
                assert!(panics(|| flat::scan_inclusive(&xs, 0, |a, b| {
                    assert!(b != bad, "scan closure");
                    a + b
                })));
                assert!(panics(|| flat::partition_by(&xs, 2, None, |x| {
                    assert!(x != bad, "partition closure");
                    (x % 2) as usize
                })));
                assert!(panics(|| flat::filter(&xs, |x| {
                    assert!(x != 3, "filter closure");
                    true
                })));
                // The pool still works.
                assert_eq!(flat::reduce(&xs, 0, |a, b| a + b), xs.iter().sum::<u64>());
                assert_eq!(flat::map(&xs, |x| x + 1)[5], 6);
                assert_eq!(flat::scan_inclusive(&xs, 0, |a, b| a + b)[3], 6);
            });
        });
    }
}

#[cfg(feature = "stats")]
mod counts {
    use super::*;
    use bitvec::prelude::*;
    use flatland_runtime::stats::{self, Work};

    /// Measures `f` under pools of 1, 2, 3 and 8 threads and both profiles, and checks the counts
    /// never change. The pools are private to the call: a thread measuring inside a pool that
    /// other tests use at the same time could steal their jobs while it waits, and count them.
    fn work<R: Send>(f: impl Fn() -> R + Sync) -> Work {
        let mut all = Vec::new();
        for k in flat_common::POOL_SIZES {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(k)
                .build()
                .unwrap();
            for m in profiles() {
                all.push((
                    format!("{k} threads, {:?}", m.origin),
                    pool.install(|| with_machine(m, || stats::measure(&f).1)),
                ));
            }
        }
        let first = all[0].1;
        for (label, w) in &all {
            assert_eq!(*w, first, "{label}");
        }
        first
    }

    #[test]
    fn elementwise_counts() {
        let n = 9 * LEAF + 1;
        let xs: Vec<u64> = (0..n as u64).collect();
        let w = work(|| flat::map(&xs, |x| x * 2));
        assert_eq!(
            (w.elements_read, w.elements_written, w.elements_copied),
            (n as u64, n as u64, 0)
        );
        assert_eq!(w.bytes_allocated, 8 * n as u64);
        let w = work(|| flat::zip_with(&xs, &xs, |a, b| a + b).unwrap());
        assert_eq!(
            (w.elements_read, w.elements_written),
            (2 * n as u64, n as u64)
        );
        let w = work(|| flat::reduce(&xs, 0, |a, b| a + b));
        assert_eq!(
            w,
            Work {
                elements_read: n as u64,
                ..Work::default()
            }
        );
        let w = work(|| flat::scan_inclusive(&xs, 0, |a, b| a + b));
        assert_eq!((w.elements_read, w.elements_written), (n as u64, n as u64));
        let w = work(|| flat::iota(0u32, 1, n));
        assert_eq!(
            (w.elements_read, w.elements_written, w.bytes_allocated),
            (0, n as u64, 4 * n as u64)
        );
        let w = work(|| flat::redomap(&xs, |x| (x, x), 0, |a, b| a + b));
        assert_eq!((w.elements_read, w.elements_written), (n as u64, n as u64));
    }

    #[test]
    fn selection_and_permutation_counts() {
        let n = 6 * LEAF + 3;
        let xs: Vec<u32> = (0..n as u32).collect();
        let mask: BitVec = (0..n).map(|i| i % 3 == 0).collect();
        let kept = n.div_ceil(3) as u64;
        let w = work(|| flat::pack(&xs, &mask).unwrap());
        assert_eq!(
            (w.elements_read, w.elements_copied, w.bytes_allocated),
            (n as u64, kept, 4 * kept)
        );
        let idx: Vec<usize> = (0..100).map(|i| i * 7).collect();
        let w = work(|| flat::gather(&xs, &idx).unwrap());
        assert_eq!((w.elements_read, w.elements_copied), (100, 100));
        let w = work(|| flat::scatter(&xs, &idx, &xs[..100]).unwrap());
        assert_eq!((w.elements_read, w.elements_copied), (100, n as u64));
        // Dead classes are not copied.
        let keys: Vec<u8> = (0..n).map(|i| (i % 4) as u8).collect();
        let w = work(|| flat::partition(&xs, &keys, 4, Some(&[1])).unwrap());
        let live = ((n + 2) / 4) as u64;
        assert_eq!(
            (w.elements_read, w.elements_copied, w.bytes_allocated),
            (n as u64, live, 4 * live)
        );
        // partition_by also computes and stores the keys.
        let w = work(|| flat::partition_by(&xs, 4, Some(&[1]), |x| (x % 4) as usize).unwrap());
        assert_eq!(
            (w.elements_read, w.elements_written, w.elements_copied),
            (2 * n as u64, n as u64, live)
        );
        let w =
            work(|| flat::combine(&mask, &xs[..n - kept as usize], &xs[..kept as usize]).unwrap());
        assert_eq!((w.elements_read, w.elements_copied), (n as u64, n as u64));
        // filter = mask (n read, n written) + pack (n read, kept copied).
        let w = work(|| flat::filter(&xs, |x| x % 3 == 0));
        assert_eq!(
            (w.elements_read, w.elements_written, w.elements_copied),
            (2 * n as u64, n as u64, kept)
        );
        let w = work(|| flat::replicate(1u16, n));
        assert_eq!(
            (w.elements_written, w.bytes_allocated),
            (n as u64, 2 * n as u64)
        );
    }
}

#[test]
fn explicit_profile_reaches_nested_operations_in_tasks() {
    let eager = profiles()[1];
    let outer: Vec<u64> = (0..8 * LEAF as u64).collect();
    let seen = pools()[2].install(|| {
        with_machine(eager, || {
            flat::map(&outer, |_| {
                u8::from(flatland_runtime::cost::current() == eager)
            })
        })
    });
    assert!(seen.iter().all(|&b| b == 1));
}
