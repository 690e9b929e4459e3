//! `lane::exact_fold_in` against its definition, the canonical fold (`assoc::fold`): the
//! operators associative exactly on their values (wrapping `i64` `+` and `*`, `min`, `max`,
//! `bool` `and` and `or`) give its value in any association, from the identity or from any
//! other start, on this thread and across pools of 1, 2, 3 and 8 threads, at lengths around
//! the association's and the streamed loop's boundaries, with values at the ends of `i64`.

use flatland_runtime::assoc::{self, LEAF};
use flatland_vectoriser::lane::{Lanes, exact_fold_in};
use quickcheck::{QuickCheck, TestResult};

/// Empty, short, around the four streams of 64-element runs (256), the eight lanes, one
/// leaf, several leaves, the pool's split.
const LENGTHS: [usize; 14] = [
    0,
    1,
    15,
    16,
    255,
    256,
    257,
    1000,
    LEAF - 1,
    LEAF,
    LEAF + 1,
    3 * LEAF + 5,
    40_000,
    70_001,
];

const CHOICES: [Lanes; 3] = [Lanes::Sequential, Lanes::Parallel, Lanes::Model];

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

/// `len` integers from `seed`, a few of them at the ends of `i64` so that sums and products
/// wrap.
fn integers(len: usize, seed: u64) -> Vec<i64> {
    (0..len as u64)
        .map(|i| {
            let h = (i ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            match h % 97 {
                0 => i64::MAX,
                1 => i64::MIN,
                2 => -1,
                _ => (h >> 40) as i64 - (1 << 23),
            }
        })
        .collect()
}

/// Every integer operator with its identity, and `exact_fold_in` agreeing with `assoc::fold`
/// from the identity and from `start`.
fn integers_agree(l: Lanes, xs: &[i64], start: i64) -> bool {
    type Op = fn(i64, i64) -> i64;
    let ops: [(Op, i64); 4] = [
        (i64::wrapping_add, 0),
        (i64::wrapping_mul, 1),
        (i64::min, i64::MAX),
        (i64::max, i64::MIN),
    ];
    ops.iter().all(|&(op, id)| {
        exact_fold_in(l, xs, id, id, op) == assoc::fold(xs, id, op)
            && exact_fold_in(l, xs, start, id, op) == assoc::fold(xs, start, op)
    })
}

#[test]
fn integer_folds_equal_the_canonical_fold_on_every_pool() {
    for threads in [1, 2, 3, 8] {
        pool(threads).install(|| {
            for (k, &len) in LENGTHS.iter().enumerate() {
                let xs = integers(len, k as u64);
                for l in CHOICES {
                    assert!(
                        integers_agree(l, &xs, 7),
                        "{len} integers, {l:?}, {threads} threads"
                    );
                }
            }
        });
    }
}

#[test]
fn boolean_folds_equal_the_canonical_fold() {
    for &len in &LENGTHS {
        for flip in [None, Some(0), Some(len / 2), Some(len.saturating_sub(1))] {
            let all_true: Vec<bool> = (0..len).map(|i| Some(i) != flip).collect();
            let all_false: Vec<bool> = all_true.iter().map(|b| !b).collect();
            let and = |a: bool, b: bool| a && b;
            let or = |a: bool, b: bool| a || b;
            for l in CHOICES {
                for xs in [&all_true, &all_false] {
                    assert_eq!(
                        exact_fold_in(l, xs, true, true, and),
                        assoc::fold(xs, true, and)
                    );
                    assert_eq!(
                        exact_fold_in(l, xs, false, false, or),
                        assoc::fold(xs, false, or)
                    );
                }
            }
        }
    }
}

#[test]
fn random_integer_folds_equal_the_canonical_fold() {
    fn prop(xs: Vec<i64>, which: usize, start: i64) -> TestResult {
        // Lengthen the short vectors quickcheck draws past the streams and a leaf.
        let len = LENGTHS[which % LENGTHS.len()];
        let long: Vec<i64> = xs.iter().copied().cycle().take(len).collect();
        let xs = if xs.is_empty() { xs } else { long };
        TestResult::from_bool(CHOICES.iter().all(|&l| integers_agree(l, &xs, start)))
    }
    QuickCheck::new()
        .tests(200)
        .quickcheck(prop as fn(Vec<i64>, usize, i64) -> TestResult);
}
