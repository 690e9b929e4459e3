//! The per-lane folds of a computed sequence (`lane::fold_mapped`, `try_fold_mapped`,
//! `fold_mapped_in`, and `fold_total_in` and `fold_cheap_total_in` of values that cannot fail) against their definition: the interpreter's map (the lowest failing
//! index's error) followed by the canonical fold of the collected values, bit for bit. The
//! folds carry a fault flag rather than an error per element and find the error again when the
//! flag is raised, so failures are placed where the canonical association visits them out of
//! index order: in different lanes of one leaf, in several leaves, at both ends.

use flatland_runtime::Error as RtError;
use flatland_runtime::assoc::{self, LEAF};
use flatland_vectoriser::lane::{
    Lanes, fold_cheap_total_in, fold_mapped, fold_mapped_in, fold_total_in, try_fold_mapped,
};
use flatland_vectoriser::{Error, Result};
use quickcheck::{QuickCheck, TestResult};

/// Lengths around the association's boundaries: empty, the short chain, the eight lanes, one
/// leaf, several leaves.
const LENGTHS: [usize; 12] = [
    0,
    1,
    15,
    16,
    17,
    100,
    LEAF - 1,
    LEAF,
    LEAF + 1,
    3 * LEAF + 5,
    40_000,
    70_001,
];

/// The value at `i`, or an error naming `i` where `bad` says so.
fn element(i: usize, bad: &[usize]) -> Result<f64> {
    if bad.contains(&i) {
        Err(Error::Runtime(RtError::IndexOutOfRange {
            op: "index",
            lane: i,
            index: -1,
            len: 0,
        }))
    } else {
        Ok(1.0 / (1.0 + i as f64))
    }
}

/// The definition: the map first (its lowest failing index), then the canonical fold.
fn reference(len: usize, bad: &[usize]) -> Result<f64> {
    let xs = (0..len)
        .map(|i| element(i, bad))
        .collect::<Result<Vec<f64>>>()?;
    Ok(assoc::fold(&xs, 0.0, |a, b| a + b))
}

fn same(a: &Result<f64>, b: &Result<f64>) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => x.to_bits() == y.to_bits(),
        (Err(x), Err(y)) => x.to_string() == y.to_string(),
        _ => false,
    }
}

/// Up to four failing indices of a sequence of `len`, drawn from `picks` (spread over the
/// whole length: quickcheck's numbers are small).
fn failures(len: usize, picks: &[usize]) -> Vec<usize> {
    if len == 0 {
        return Vec::new();
    }
    picks
        .iter()
        .take(4)
        .map(|&p| p.wrapping_mul(2_654_435_761) % len)
        .collect()
}

fn agrees(which: usize, picks: Vec<usize>) -> TestResult {
    let len = LENGTHS[which % LENGTHS.len()];
    let bad = failures(len, &picks);
    let want = reference(len, &bad);
    let get = |i: usize| element(i, &bad);
    let got = [
        fold_mapped(len, get, 0.0, |a, b| a + b),
        try_fold_mapped(len, get, 0.0, |a, b| Ok(a + b)),
        fold_mapped_in(Lanes::Sequential, len, get, 0.0, |a, b| a + b),
        fold_mapped_in(Lanes::Parallel, len, get, 0.0, |a, b| a + b),
    ];
    for (k, g) in got.iter().enumerate() {
        if !same(g, &want) {
            return TestResult::error(format!(
                "fold {k}, len {len}, failing {bad:?}: {g:?}, want {want:?}"
            ));
        }
    }
    TestResult::passed()
}

#[test]
fn folds_of_values_that_cannot_fail_give_the_definitions_bits() {
    for len in LENGTHS {
        let want = reference(len, &[]).expect("no failures");
        let get = |i: usize| 1.0 / (1.0 + i as f64);
        for l in [Lanes::Sequential, Lanes::Parallel, Lanes::Model] {
            let got = fold_total_in(l, len, get, 0.0, |a, b| a + b);
            assert_eq!(got.to_bits(), want.to_bits(), "len {len} under {l:?}");
            let cheap = fold_cheap_total_in(l, len, get, 0.0, |a, b| a + b);
            assert_eq!(
                cheap.to_bits(),
                want.to_bits(),
                "cheap, len {len} under {l:?}"
            );
        }
    }
}

#[test]
fn computed_folds_give_the_definitions_bits_and_lowest_error() {
    QuickCheck::new()
        .tests(300)
        .quickcheck(agrees as fn(usize, Vec<usize>) -> TestResult);
}

#[test]
fn a_failure_in_a_later_lane_does_not_hide_a_lower_one() {
    // The eight lanes of a leaf are visited side by side, so the fold meets index 3 * len / 8
    // (lane 3's first element) before index len / 8 + 1 (lane 1's second).
    let len = 800;
    let bad = [3 * len / 8, len / 8 + 1];
    let e = fold_mapped(len, |i| element(i, &bad), 0.0, |a, b| a + b).unwrap_err();
    assert_eq!(e.to_string(), reference(len, &bad).unwrap_err().to_string());
    assert!(
        e.to_string().contains(&format!("lane {}", len / 8 + 1)),
        "{e}"
    );
}

#[test]
fn an_operator_error_comes_after_the_elements() {
    // The map runs before the reduction: an element's error wins over the operator's.
    let bad = [50];
    let e = try_fold_mapped(
        100,
        |i| element(i, &bad),
        0.0,
        |_, _| {
            Err(Error::Input {
                detail: "operator".into(),
            })
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("lane 50"), "{e}");
    let e = try_fold_mapped(
        100,
        |i| element(i, &[]),
        0.0,
        |_, _| {
            Err(Error::Input {
                detail: "operator".into(),
            })
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("operator"), "{e}");
}

#[test]
fn a_short_chain_folds_a_start_that_is_not_neutral_as_fold_by_does() {
    // A non-commutative operator and a start that is not its identity show where the start
    // goes (in front of the chain and once more in front of the segment).
    let cat = |a: String, b: String| a + &b;
    for len in [0, 1, 2, 15, 16, 17, 40] {
        let get = |i: usize| format!("{i},");
        let want = assoc::fold_by(len, get, String::from("z;"), cat);
        for l in [Lanes::Sequential, Lanes::Parallel, Lanes::Model] {
            assert_eq!(
                fold_cheap_total_in(l, len, get, String::from("z;"), cat),
                want,
                "{len}"
            );
        }
    }
}
