//! Live memory of lifted recursion grows linearly with its depth: quicksort on sorted
//! input with a first-element pivot recurses as deep as the input is long, and each level's
//! bindings are released after their last use (`flatland-vectoriser`'s liveness analysis), so
//! the peak of live heap bytes grows with `n`, not `n^2`.
//!
//! This file holds one test only: the counting allocator sees every thread of the process.

use flatland_cli::harness::measure::{CountingAlloc, peak_during};
use flatland_vectoriser::programs::{self, Pivot};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Extra peak heap bytes of sorting `0..n` with the flattened quicksort.
fn peak(n: i64) -> usize {
    let (p, qs) = programs::quicksort(Pivot::First);
    let xs: Vec<i64> = (0..n).collect();
    let (out, bytes) = peak_during(|| p.exec(&qs, xs.clone()).unwrap());
    assert_eq!(out, xs);
    bytes.expect("the counting allocator is installed")
}

#[test]
fn sorted_quicksort_peak_memory_is_linear_in_depth() {
    let sizes = [500i64, 1_000, 2_000];
    let peaks: Vec<usize> = sizes.iter().map(|&n| peak(n)).collect();
    eprintln!("n = {sizes:?}: peak bytes {peaks:?}");
    // Quadrupling the depth: about 4 times the bytes when linear, 16 when quadratic.
    let ratio = peaks[2] as f64 / peaks[0] as f64;
    assert!(
        ratio < 5.0,
        "peak bytes {peaks:?} for n = {sizes:?}: ratio {ratio:.1}"
    );
}
