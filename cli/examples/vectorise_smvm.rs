//! Sparse matrix times vector written with `#[vectorise]` ([`flatland_cli::kernels::smvm`] and
//! [`flatland_cli::kernels::smvm_csr`] in `src/kernels.rs`), checked bitwise against the dsl
//! program (`programs::smvm`, flattened and evaluated), the macro's `smvm_reference` and a
//! plain-Rust loop, on generated inputs including empty matrices, empty rows and empty vectors.
//!
//! `cargo run --example vectorise_smvm`
use flatland::runtime::assoc;
use flatland::runtime::elt::Nested;
use flatland::vectoriser::programs;
use flatland_cli::kernels;
use quickcheck::{QuickCheck, TestResult};

/// Plain Rust, summing each row with the canonical association (so the bits agree).
fn smvm_plain(rows: &[Vec<(i64, f64)>], v: &[f64]) -> Vec<f64> {
    rows.iter()
        .map(|r| {
            let prods: Vec<f64> = r.iter().map(|&(i, x)| x * v[i as usize]).collect();
            assoc::fold(&prods, 0.0, |a, b| a + b)
        })
        .collect()
}

fn bits(xs: &[f64]) -> Vec<u64> {
    xs.iter().map(|x| x.to_bits()).collect()
}

/// Every implementation on one input; panics on a disagreement.
fn agree(rows: &[Vec<(i64, f64)>], v: &[f64]) {
    let want = bits(&smvm_plain(rows, v));
    let (p, f) = programs::smvm();
    let got = [
        ("macro", kernels::smvm(rows, v)),
        (
            "reference",
            kernels::plan::smvm::reference(rows, v).expect("smvm evaluates"),
        ),
        (
            "dsl exec",
            p.exec(&f, (rows.to_vec(), v.to_vec())).expect("dsl runs"),
        ),
        (
            "dsl eval",
            p.eval(&f, (rows.to_vec(), v.to_vec()))
                .expect("dsl evaluates"),
        ),
    ];
    for (what, g) in got {
        assert_eq!(bits(&g), want, "{what} differs on rows {rows:?}, v {v:?}");
    }
    let offsets: Vec<usize> = std::iter::once(0)
        .chain(rows.iter().scan(0, |s, r| {
            *s += r.len();
            Some(*s)
        }))
        .collect();
    let cols = Nested::<i64>::from_offsets(
        offsets.clone(),
        rows.iter().flatten().map(|e| e.0).collect::<Vec<_>>(),
    )
    .expect("offsets");
    let vals = Nested::<f64>::from_offsets(
        offsets,
        rows.iter().flatten().map(|e| e.1).collect::<Vec<_>>(),
    )
    .expect("offsets");
    let csr = kernels::smvm_csr(&cols, &vals, v);
    assert_eq!(bits(&csr), want, "csr differs on rows {rows:?}");
    let csr_exec = kernels::plan::smvm_csr::executor(&cols, &vals, v).expect("csr smvm executes");
    assert_eq!(
        bits(&csr_exec),
        want,
        "csr executor differs on rows {rows:?}"
    );
    let csr_ref = kernels::plan::smvm_csr::reference(&cols, &vals, v).expect("csr smvm evaluates");
    assert_eq!(
        bits(&csr_ref),
        want,
        "csr reference differs on rows {rows:?}"
    );
    // Shared rows (virtual segments, not contiguous): read through the descriptor.
    let (cols2, vals2) = (
        cols.replicate(2).expect("rep"),
        vals.replicate(2).expect("rep"),
    );
    let twice: Vec<u64> = want.iter().chain(&want).copied().collect();
    assert_eq!(bits(&kernels::smvm_csr(&cols2, &vals2, v)), twice);
}

fn prop(shape: Vec<Vec<(u8, i16)>>, vlen: u8) -> TestResult {
    let n = usize::from(vlen);
    if n == 0 && shape.iter().any(|r| !r.is_empty()) {
        return TestResult::discard();
    }
    let rows: Vec<Vec<(i64, f64)>> = shape
        .iter()
        .map(|r| {
            r.iter()
                .map(|&(i, x)| ((usize::from(i) % n.max(1)) as i64, f64::from(x) * 0.37))
                .collect()
        })
        .collect();
    let v: Vec<f64> = (0..n).map(|i| i as f64 * 1.25 - 3.1).collect();
    agree(&rows, &v);
    TestResult::passed()
}

/// Degenerate inputs, then generated ones; panics on any disagreement.
pub(crate) fn check() {
    agree(&[], &[]);
    agree(&[vec![], vec![]], &[]);
    agree(&[vec![(0, 1.5)]], &[2.0]);
    // One long row (more than one canonical leaf) among empty ones.
    let long: Vec<(i64, f64)> = (0..10_000).map(|k| (k % 7, (k as f64).sin())).collect();
    agree(
        &[vec![], long, vec![]],
        &[1.0, -2.0, 0.5, 3.0, 1e-3, 7.0, -0.0],
    );
    QuickCheck::new()
        .tests(40)
        .quickcheck(prop as fn(Vec<Vec<(u8, i16)>>, u8) -> TestResult);
    // A runtime error comes back as the same error in every path, and rows of different
    // lengths are an error, not a panic.
    let err = kernels::try_smvm(&[vec![(3, 1.0)]], &[1.0]).unwrap_err();
    assert_eq!(
        err,
        kernels::plan::smvm::reference(&[vec![(3, 1.0)]], &[1.0]).unwrap_err()
    );
    let cols = Nested::<i64>::from_offsets(vec![0, 1], vec![3]).expect("offsets");
    let vals = Nested::<f64>::from_offsets(vec![0, 1], vec![1.0]).expect("offsets");
    assert_eq!(
        kernels::try_smvm_csr(&cols, &vals, &[1.0]).unwrap_err(),
        err
    );
    let short = Nested::<f64>::from_offsets(vec![0, 0], Vec::<f64>::new()).expect("offsets");
    assert!(kernels::try_smvm_csr(&cols, &short, &[1.0]).is_err());
}

fn main() {
    check();
    let rows = vec![vec![(0, 1.0), (2, 2.0)], vec![], vec![(1, -1.0)]];
    let v = [10.0, 20.0, 30.0];
    println!("{}", kernels::plan::program());
    println!("smvm = {:?}", kernels::smvm(&rows, &v));
    println!("macro, reference, dsl and plain Rust agree bitwise");
}
