//! Quicksort written with `#[vectorise]` (three filters around the middle element, the two outer
//! parts sorted in parallel by a recursive call under `map`), checked against the dsl program
//! (`programs::quicksort(Pivot::Middle)`), `quicksort_reference` and `sort_unstable`.
//!
//! `cargo run --example vectorise_quicksort`
use flatland::vectorise;
use flatland::vectoriser::programs::{self, Pivot};
use quickcheck::QuickCheck;

#[vectorise]
mod kernels {
    /// Sorts `xs` (ascending).
    pub fn quicksort(xs: &[i64]) -> Vec<i64> {
        if xs.len() <= 1 {
            xs.to_vec()
        } else {
            let pivot = xs[xs.len() / 2];
            let lo = xs.iter().filter(|&x| x < pivot).collect();
            let eq = xs.iter().filter(|&x| x == pivot).collect();
            let hi = xs.iter().filter(|&x| x > pivot).collect();
            let sorted = [lo, hi].map(|part| quicksort(part));
            [sorted[0], eq, sorted[1]].concat()
        }
    }
}

fn agree(xs: &[i64]) -> bool {
    let mut want = xs.to_vec();
    want.sort_unstable();
    let (p, f) = programs::quicksort(Pivot::Middle);
    let got = [
        kernels::quicksort(xs).expect("quicksort runs"),
        kernels::quicksort_reference(xs).expect("quicksort evaluates"),
        p.exec1(&f, xs.to_vec()).expect("dsl runs"),
        p.eval1(&f, xs.to_vec()).expect("dsl evaluates"),
    ];
    got.iter().all(|g| *g == want)
}

fn prop(xs: Vec<i64>) -> bool {
    agree(&xs)
}

/// Degenerate inputs, then generated ones; panics on any disagreement.
pub(crate) fn check() {
    for xs in [
        vec![],
        vec![7],
        vec![2, 2, 2, 2],
        vec![i64::MIN, i64::MAX, 0, -1],
    ] {
        assert!(agree(&xs), "disagreement on {xs:?}");
    }
    let sorted: Vec<i64> = (0..300).collect();
    let reversed: Vec<i64> = (0..300).rev().collect();
    assert!(
        agree(&sorted) && agree(&reversed),
        "disagreement on sorted input"
    );
    QuickCheck::new()
        .tests(60)
        .quickcheck(prop as fn(Vec<i64>) -> bool);
}

fn main() {
    check();
    let xs = vec![5, -1, 9, 3, 3, 0, 12, -7];
    println!("{}", kernels::program());
    println!(
        "{xs:?} sorted: {:?}",
        kernels::quicksort(&xs).expect("quicksort runs")
    );
    println!("macro, reference, dsl and sort_unstable agree");
}
