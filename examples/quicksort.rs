//! Quicksort: three-way filter around the middle element, the outer parts sorted in parallel by a
//! recursive call under map (lifted recursion), joined with append.
//!
//! `cargo run --example quicksort`
use flatland::vectoriser::programs::{Pivot, quicksort};

fn main() {
    let (p, qs) = quicksort(Pivot::Middle);
    println!("{}", p.ir());
    let xs: Vec<i64> = (0..40).map(|i| (i * 7919) % 23 - 11).collect();
    let sorted = p.exec1(&qs, xs.clone()).expect("quicksort runs");
    let mut want = xs;
    want.sort_unstable();
    assert_eq!(sorted, want);
    println!("{sorted:?}");
}
