//! A heavy lane's scan (`lane::scan_in`, which per-lane code calls for a scan of values
//! without arrays) against its definition, the canonical inclusive scan
//! (`assoc::scan_inclusive`), bit for bit: floats whose sums round (so that any other
//! association shows), wrapping integers, a tuple's best-of operator; every choice of lanes,
//! on pools of 1, 2, 3 and 8 threads, at lengths around the association's leaves and past the
//! size from which a lane's scan splits.

use flatland_runtime::assoc::{self, LEAF};
use flatland_vectoriser::lane::{Lanes, PARALLEL_ELEMENTS, scan_in};
use quickcheck::{QuickCheck, TestResult};

const CHOICES: [Lanes; 3] = [Lanes::Sequential, Lanes::Parallel, Lanes::Model];

/// Lengths around the boundaries: empty, one, a leaf, several leaves, the split size.
fn lengths() -> Vec<usize> {
    vec![
        0,
        1,
        2,
        LEAF - 1,
        LEAF,
        LEAF + 1,
        5 * LEAF + 3,
        PARALLEL_ELEMENTS - 1,
        PARALLEL_ELEMENTS,
        3 * PARALLEL_ELEMENTS + 17,
    ]
}

/// Floats of varied magnitude and sign, from a seed (a multiplicative hash of the index).
fn floats(n: usize, seed: u64) -> Vec<f64> {
    (0..n as u64)
        .map(|i| {
            let h = (i ^ seed)
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .rotate_left(29);
            ((h % 2001) as f64 - 1000.0) / (1.0 + (h >> 40) as f64 % 97.0)
        })
        .collect()
}

fn on_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool")
        .install(f)
}

fn float_scans_agree(len: usize, seed: u64) -> bool {
    let xs = floats(len, seed);
    let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
    let want = bits(assoc::scan_inclusive(&xs, 0.0, |a, b| a + b));
    CHOICES
        .iter()
        .all(|&l| bits(scan_in(l, &xs, 0.0, |a, b| a + b)) == want)
}

#[test]
fn float_sums_give_the_canonical_bits_under_every_choice_and_pool() {
    for threads in [1, 2, 3, 8] {
        on_pool(threads, || {
            for len in lengths() {
                assert!(float_scans_agree(len, 7 + len as u64), "{len} on {threads}");
            }
        });
    }
}

#[test]
fn random_float_scans_give_the_canonical_bits() {
    fn prop(len: u16, big: bool, seed: u64) -> TestResult {
        let len = usize::from(len) + if big { PARALLEL_ELEMENTS } else { 0 };
        TestResult::from_bool(on_pool(2, || float_scans_agree(len, seed)))
    }
    QuickCheck::new()
        .tests(30)
        .quickcheck(prop as fn(u16, bool, u64) -> TestResult);
}

#[test]
fn integer_and_tuple_scans_give_the_canonical_values() {
    let n = 2 * PARALLEL_ELEMENTS + 5;
    let ints: Vec<i64> = (0..n as i64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15u64 as i64))
        .collect();
    let pairs: Vec<(f64, i64)> = floats(n, 3).into_iter().zip(0..).collect();
    let best = |a: (f64, i64), b: (f64, i64)| if b.0 > a.0 { b } else { a };
    let want_ints = assoc::scan_inclusive(&ints, 0, i64::wrapping_add);
    let want_pairs = assoc::scan_inclusive(&pairs, (f64::NEG_INFINITY, -1), best);
    on_pool(2, || {
        for l in CHOICES {
            assert_eq!(scan_in(l, &ints, 0, i64::wrapping_add), want_ints);
            assert_eq!(
                scan_in(l, &pairs, (f64::NEG_INFINITY, -1), best),
                want_pairs
            );
        }
    });
}
