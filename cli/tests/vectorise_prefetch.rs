//! Per-lane code asks for the gathers of a map over rows lanes ahead where they go to memory
//! (`lane::gathers_pay`, `lane::prefetch_row_gathers`): smvm's per-lane form over a vector
//! beyond the caches takes that path, and its answers and errors are the reference
//! interpreter's, bit for bit.

use flatland::runtime::elt::Nested;
use flatland::vectoriser::lane::{Lanes, Rows, gathers_pay, with_lanes};
use flatland_cli::harness::inputs::Rng;
use flatland_cli::kernels::plan::smvm_csr;

/// 3,000 rows of 0-3 random columns of a vector of 2^22 `f64` (32 MiB), with dyadic values.
fn input() -> (Nested<i64>, Nested<f64>, Vec<f64>) {
    let n = 1usize << 22;
    let mut r = Rng::new(7);
    let (mut cols, mut vals) = (Vec::new(), Vec::new());
    for _ in 0..3000 {
        let len = r.below(4) as usize;
        cols.push(
            (0..len)
                .map(|_| r.below(n as u64) as i64)
                .collect::<Vec<i64>>(),
        );
        vals.push((0..len).map(|_| r.dyadic()).collect::<Vec<f64>>());
    }
    let v = (0..n).map(|i| (i % 97) as f64 * 0.5 - 3.0).collect();
    (Nested::from(cols), Nested::from(vals), v)
}

#[test]
fn smvm_per_lane_prefetching_its_gathers_is_the_reference() {
    let (cols, vals, v) = input();
    assert!(
        gathers_pay(&v, &Rows::new(&cols)),
        "the path under test is taken"
    );
    let want = smvm_csr::reference(&cols, &vals, &v).unwrap();
    for lanes in [Lanes::Sequential, Lanes::Parallel, Lanes::Model] {
        let got = with_lanes(lanes, || smvm_csr::per_lane(&cols, &vals, &v)).unwrap();
        let bits = |y: &[f64]| y.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got), bits(&want), "{lanes:?}");
    }
}

#[test]
fn a_column_out_of_range_is_the_references_error_when_prefetching() {
    let (cols, vals, v) = input();
    let mut rows: Vec<Vec<i64>> = (0..cols.len()).map(|i| cols.segment(i).to_vec()).collect();
    let bad = rows.iter().position(|r| !r.is_empty()).unwrap() + 1500;
    let row = rows[bad..].iter_mut().find(|r| !r.is_empty()).unwrap();
    row[0] = v.len() as i64; // read lanes ahead of its own lane: prefetched, never read
    let cols = Nested::from(rows);
    let want = smvm_csr::reference(&cols, &vals, &v).unwrap_err();
    for lanes in [Lanes::Sequential, Lanes::Parallel, Lanes::Model] {
        let got = with_lanes(lanes, || smvm_csr::per_lane(&cols, &vals, &v)).unwrap_err();
        assert_eq!(got.to_string(), want.to_string(), "{lanes:?}");
    }
}
