//! Live memory of recursion in a `#[vectorise]` function (`try_f`, as a user calls it) grows
//! linearly with its depth (`lifted_memory.rs` checks the executor on dsl programs): per-lane,
//! each array moves into its last reader and the lanes of the recursive map take their parts;
//! flattened, each binding is released after its last use and the values kept across a
//! recursive call are compacted, also when they are components of a tuple. Quicksort on sorted input with a
//! first-element pivot recurses as deep as the input is long.
//!
//! A concatenation at the last read of an array of arrays takes its rows and grows the first
//! into the output (`joined`).
//!
//! This file holds one test only: the counting allocator sees every thread of the process.

use flatland::vectorise;
use flatland_cli::harness::measure::{CountingAlloc, peak_during};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[vectorise]
mod kernels {
    /// Sorts by three filters around the first element (as deep as `xs` is long on sorted
    /// input).
    pub fn quicksort_first(xs: &[i64]) -> Vec<i64> {
        if xs.len() <= 1 {
            xs.to_vec()
        } else {
            let pivot = xs[0];
            let lo = xs.iter().filter(|&x| x < pivot).collect();
            let eq = xs.iter().filter(|&x| x == pivot).collect();
            let hi = xs.iter().filter(|&x| x > pivot).collect();
            let sorted = [lo, hi].map(|part| quicksort_first(part));
            [sorted[0], eq, sorted[1]].concat()
        }
    }

    /// The same sort with its three parts in one tuple: the parts read before the recursive
    /// call (`parts.0`, `parts.2`) are emptied then, the one read after it is kept.
    pub fn quicksort_tuple(xs: &[i64]) -> Vec<i64> {
        if xs.len() <= 1 {
            xs.to_vec()
        } else {
            let pivot = xs[0];
            let parts = (
                xs.filter(|x| x < pivot),
                xs.filter(|x| x == pivot),
                xs.filter(|x| x > pivot),
            );
            let sorted = [parts.0, parts.2].map(|part| quicksort_tuple(part));
            [sorted[0], parts.1, sorted[1]].concat()
        }
    }

    /// Two computed arrays joined at the last read of their array: per-lane, the first is
    /// grown into the output and the second taken, so the output is not built beside both.
    pub fn joined(xs: &[i64]) -> Vec<i64> {
        let parts = [xs.map(|x| x + 1), xs.map(|x| x - 1)];
        [parts[0], parts[1]].concat()
    }
}

/// Extra peak heap bytes of sorting `0..n` with `run`.
fn peak(n: i64, run: fn(&[i64]) -> flatland::vectoriser::Result<Vec<i64>>) -> usize {
    let xs: Vec<i64> = (0..n).collect();
    let (out, bytes) = peak_during(|| run(&xs).unwrap());
    assert_eq!(out, xs);
    bytes.expect("the counting allocator is installed")
}

#[test]
fn quicksort_peak_memory_is_linear_in_depth() {
    // The map over the parts hands each lane its part (moved at its last read), so the
    // per-lane recursion holds only live values: it is measured like any function (and runs
    // per-lane at these sizes). The tuple's parts are read in place, so that one runs flattened.
    let first = kernels::plan::quicksort_first::explain();
    assert!(first.contains(": per-lane: "), "{first}");
    let tuple = kernels::plan::quicksort_tuple::explain();
    assert!(tuple.contains(": flatten (recursive): "), "{tuple}");
    let sizes = [500i64, 1_000, 2_000];
    for (name, run) in [
        (
            "quicksort_first",
            kernels::try_quicksort_first as fn(&[i64]) -> _,
        ),
        ("quicksort_tuple", kernels::try_quicksort_tuple),
    ] {
        let bytes: Vec<usize> = sizes.iter().map(|&n| peak(n, run)).collect();
        eprintln!("{name}: n = {sizes:?}: peak bytes {bytes:?}");
        // Quadrupling the depth: about 4 times the bytes when linear, 16 when quadratic.
        let ratio = bytes[2] as f64 / bytes[0] as f64;
        assert!(
            ratio < 5.0,
            "{name}: peak bytes {bytes:?}: ratio {ratio:.1}"
        );
    }
    // The parts (2n elements), then the first grown to the output's 2n beside the second's n:
    // 3n, where copying both into a new output holds 4n.
    let n = 100_000;
    let xs: Vec<i64> = (0..n).collect();
    let (out, bytes) = peak_during(|| kernels::plan::joined::per_lane(&xs).unwrap());
    assert_eq!(out.len(), 2 * xs.len());
    let bytes = bytes.expect("the counting allocator is installed");
    let elements = bytes as f64 / std::mem::size_of::<i64>() as f64;
    eprintln!("joined: n = {n}: peak {elements} elements");
    assert!(
        elements < 3.5 * n as f64,
        "joined: peak {elements} elements for n = {n}"
    );
}
