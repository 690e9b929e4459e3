//! Work complexity of flattened programs, asserted through the runtime's work counters.
#![cfg(feature = "stats")]

use flatland_runtime::stats;
use flatland_vectoriser::dsl::Ty;
use flatland_vectoriser::{exec, programs};

type Rows = Vec<Vec<(i64, f64)>>;

fn smvm_work(rows: usize, nnz: usize, vlen: usize) -> stats::Work {
    let (p, f) = programs::smvm();
    let matrix: Rows = (0..rows)
        .map(|r| {
            (0..nnz / rows)
                .map(|j| (((r * 7 + j * 13) % vlen) as i64, j as f64))
                .collect()
        })
        .collect();
    let v: Vec<f64> = (0..vlen).map(|i| i as f64).collect();
    let args = vec![
        <flatland_vectoriser::dsl::Arr<flatland_vectoriser::dsl::Arr<(i64, f64)>>>::to_value(
            matrix,
        ),
        <flatland_vectoriser::dsl::Arr<f64>>::to_value(v),
    ];
    let (r, work) = stats::measure(|| exec::run(p.ir(), f.name(), args));
    r.unwrap();
    work
}

#[test]
fn smvm_never_copies_the_free_vector() {
    let vlen = 20_000;
    let few = smvm_work(10, 2_000, vlen);
    let many = smvm_work(1_000, 2_000, vlen);
    println!("smvm work, 10 rows: {few:?}\n1000 rows: {many:?}");
    // A copied vector would cost rows * vlen = 2e7 element copies.
    assert!(many.elements_copied < vlen as u64, "{many:?}");
    // Extra rows cost O(rows), nothing proportional to the vector.
    assert!(
        many.elements_copied <= few.elements_copied + 20 * 990,
        "{few:?} vs {many:?}"
    );
}

fn tree_lookup_touched(k: u32) -> u64 {
    let (p, f) = programs::tree_lookup();
    let n = 1usize << k;
    let table: Vec<i64> = (0..n as i64).map(|i| i * 3).collect();
    let xs: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % n as i64).collect();
    let want: Vec<i64> = xs.iter().map(|&i| table[i as usize]).collect();
    let args = vec![
        <flatland_vectoriser::dsl::Arr<i64>>::to_value(table),
        <flatland_vectoriser::dsl::Arr<i64>>::to_value(xs),
    ];
    let (r, work) = stats::measure(|| exec::run(p.ir(), f.name(), args));
    assert_eq!(
        <flatland_vectoriser::dsl::Arr<i64>>::from_value(r.unwrap()).unwrap(),
        want
    );
    println!("treeLookup n = 2^{k}: {work:?}");
    // Elements touched: read by the lookups, plus any copied (a replicated or re-blocked table
    // would show up here).
    work.elements_read + work.elements_copied
}

#[test]
fn tree_lookup_is_n_log_n() {
    let small = tree_lookup_touched(10);
    let large = tree_lookup_touched(14);
    let ratio = large as f64 / small as f64;
    // n log n grows 16 * 14 / 10 = 22.4x from 2^10 to 2^14; n^2 would grow 256x.
    assert!(
        ratio < 40.0,
        "elements touched grew {ratio:.1}x ({small} -> {large})"
    );
    assert!(small > 0);
}
