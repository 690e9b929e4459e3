//! `lane::Ctx::map` and `Ctx::map_into` (the lanes' values written by the tasks straight into
//! their slots of one vector) against the plain sequential map, under every choice of parallel
//! lanes: empty maps, one lane, many lanes, values with drop glue, and the error of the lowest
//! failing lane, with every value written before the error dropped (none leaked, none dropped
//! twice: a live count of the values must return to zero). `Ctx::map_total_blocks` (lanes over
//! slices cut to their block) against the plain map, its blocks tiling the lanes in order.

use flatland_vectoriser::lane::{Ctx, Lanes, Pieces, with_lanes};
use flatland_vectoriser::{Error, Result};
use quickcheck::{QuickCheck, TestResult};
use std::sync::atomic::{AtomicIsize, Ordering};

/// Values alive now, across the tests of this file (each test waits for its own to be 0).
static LIVE: AtomicIsize = AtomicIsize::new(0);

/// A value with drop glue that counts itself alive.
#[derive(Debug, PartialEq)]
struct Counted(Vec<usize>);

impl Counted {
    fn new(i: usize) -> Counted {
        LIVE.fetch_add(1, Ordering::SeqCst);
        Counted(vec![i; i % 3])
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

fn failure(i: usize) -> Error {
    Error::Input {
        detail: format!("lane {i} fails"),
    }
}

fn lane(i: usize, bad: &[usize]) -> Result<Counted> {
    if bad.contains(&i) {
        Err(failure(i))
    } else {
        Ok(Counted::new(i))
    }
}

/// The map of `n` lanes failing at the lanes `bad`, each lane weighing `weight` elements.
fn run(l: Lanes, n: usize, weight: usize, bad: &[usize]) -> Result<Vec<Counted>> {
    with_lanes(l, || {
        Ctx::new().map(n, move |_: usize| weight, |_, i| lane(i, bad))
    })
}

/// A pool of `threads` threads of its own.
fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

fn check(n: usize, weight: usize, bad: &[usize]) {
    let expected: Result<Vec<Counted>> = (0..n).map(|i| lane(i, bad)).collect();
    let expected = expected.map_err(|e| e.to_string());
    for l in [Lanes::Sequential, Lanes::Parallel, Lanes::Model] {
        for threads in [1, 2, 3, 8] {
            let got = pool(threads)
                .install(|| run(l, n, weight, bad))
                .map_err(|e| e.to_string());
            assert_eq!(
                got, expected,
                "{l:?} on {threads} threads, {n} lanes, bad {bad:?}"
            );
        }
    }
}

#[test]
fn maps_of_every_size_equal_the_sequential_map_and_leak_nothing() {
    for n in [0, 1, 2, 3, 63, 64, 65, 1000, 20_000] {
        check(n, 1, &[]);
        check(n, 0, &[]);
    }
    check(100_000, 0, &[]);
    assert_live_values_return_to_zero();
}

#[test]
fn an_error_is_the_lowest_failing_lanes_and_what_was_written_is_dropped() {
    check(1, 0, &[0]);
    check(2, 5, &[1]);
    check(1000, 20, &[999]);
    check(1000, 20, &[500, 3]);
    check(20_000, 1, &[0, 19_999]);
    check(20_000, 1, &[12_345]);
    assert_live_values_return_to_zero();
}

#[test]
fn random_maps_and_failures_equal_the_sequential_map() {
    fn prop(n: u16, weight: u8, bad: Vec<u16>) -> TestResult {
        let n = usize::from(n) % 5000;
        let bad: Vec<usize> = bad.iter().map(|&b| usize::from(b) % (n + 1)).collect();
        check(n, usize::from(weight), &bad);
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(40)
        .quickcheck(prop as fn(u16, u8, Vec<u16>) -> TestResult);
    assert_live_values_return_to_zero();
}

#[test]
fn block_maps_over_cut_slices_equal_the_plain_map() {
    for n in [0usize, 1, 2, 63, 1000, 70_000] {
        let xs: Vec<u64> = (0..n as u64).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
        let ys: Vec<u64> = (0..n as u64).map(|i| i ^ 0x5555).collect();
        let want: Vec<u64> = xs
            .iter()
            .zip(&ys)
            .map(|(x, y)| x.wrapping_add(*y) >> 1)
            .collect();
        for l in [Lanes::Sequential, Lanes::Parallel, Lanes::Model] {
            for threads in [1, 2, 3, 8] {
                let blocks = std::sync::Mutex::new(Vec::new());
                let got = pool(threads).install(|| {
                    with_lanes(l, || {
                        Ctx::new().map_total_blocks(
                            n,
                            |_: usize| 1,
                            |start: usize, len: usize| {
                                blocks.lock().unwrap().push(start..start + len);
                                (&xs[start..][..len], &ys[start..][..len])
                            },
                            |&(xs, ys): &(&[u64], &[u64]), k: usize| xs[k].wrapping_add(ys[k]) >> 1,
                        )
                    })
                });
                assert_eq!(got, want, "{l:?} on {threads} threads, {n} lanes");
                let mut blocks = blocks.into_inner().unwrap();
                blocks.sort_by_key(|b| b.start);
                let mut at = 0;
                for b in &blocks {
                    assert_eq!(b.start, at, "{l:?}, {threads} threads: blocks {blocks:?}");
                    at = b.end;
                }
                assert_eq!(at, n, "{l:?}, {threads} threads: blocks {blocks:?}");
                if l == Lanes::Parallel && threads > 1 && n >= 2 {
                    assert!(blocks.len() > 1, "split into tasks: {blocks:?}");
                }
            }
        }
    }
}

#[test]
fn map_into_appends_after_what_the_buffer_holds() {
    for l in [Lanes::Sequential, Lanes::Parallel, Lanes::Model] {
        let got = with_lanes(l, || {
            let mut out = Pieces::new();
            out.push(7usize);
            Ctx::new()
                .map_into(30_000, |_: usize| 1, |_, i| Ok(i * 2), &mut out)
                .unwrap();
            out.into_vec().unwrap()
        });
        let expected: Vec<usize> = std::iter::once(7)
            .chain((0..30_000).map(|i| i * 2))
            .collect();
        assert_eq!(got, expected, "{l:?}");
    }
}

/// The tests of this file run side by side: wait for the others' values to go.
fn assert_live_values_return_to_zero() {
    for _ in 0..1000 {
        if LIVE.load(Ordering::SeqCst) == 0 {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("{} values never dropped", LIVE.load(Ordering::SeqCst));
}
