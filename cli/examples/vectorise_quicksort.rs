//! Quicksort written with `#[vectorise]` ([`flatland_cli::kernels::quicksort_f64`], in
//! `src/kernels.rs`: three filters around the middle element, the two outer parts sorted in
//! parallel by a recursive call under `map`), checked bitwise against the dsl program
//! (`flatland_cli::harness::dsl::quicksort_f64`), the macro's `quicksort_f64_reference` and Rust's
//! stable `sort_by`.
//!
//! `cargo run --example vectorise_quicksort`
use flatland_cli::harness::dsl;
use flatland_cli::kernels;
use quickcheck::QuickCheck;

fn bits(xs: &[f64]) -> Vec<u64> {
    xs.iter().map(|x| x.to_bits()).collect()
}

/// Every implementation on NaN-free `xs`, against Rust's stable sort (the kernels compare with
/// IEEE `<`/`==`: `-0.0` and `0.0` are equal keys and keep their input order).
fn agree(xs: &[f64]) -> bool {
    let mut want = xs.to_vec();
    want.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    agree_on(xs, &want)
}

/// Every implementation on `xs` gives `want`, bitwise.
fn agree_on(xs: &[f64], want: &[f64]) -> bool {
    let (p, f) = dsl::quicksort_f64();
    let got = [
        kernels::quicksort_f64(xs),
        kernels::plan::quicksort_f64::executor(xs).expect("quicksort executes"),
        kernels::plan::quicksort_f64::reference(xs).expect("quicksort evaluates"),
        p.exec(&f, xs.to_vec()).expect("dsl runs"),
        p.eval(&f, xs.to_vec()).expect("dsl evaluates"),
    ];
    got.iter().all(|g| bits(g) == bits(want))
}

fn prop(raw: Vec<i16>) -> bool {
    let xs: Vec<f64> = raw.iter().map(|&k| f64::from(k) * 0.25).collect();
    agree(&xs)
}

/// Degenerate inputs (empty, one, all equal, signed zeros, infinities), NaN (outside the
/// kernel's domain: a NaN key is in none of the three filters, so it is lost, and a NaN pivot
/// loses its whole part; every implementation does the same), sorted and reversed input, then
/// generated ones; panics on any disagreement.
pub(crate) fn check() {
    let nan = f64::NAN;
    assert!(agree_on(&[3.0, nan, -1.0, nan, 2.0], &[-1.0, 2.0, 3.0]));
    assert!(agree_on(&[1.0, nan, 2.0], &[]));
    assert!(agree_on(&[nan; 3], &[]));
    for xs in [
        vec![],
        vec![7.0],
        vec![2.0; 4],
        vec![0.0, -0.0, 1.0, -0.0, 0.0, -1.0],
        vec![f64::INFINITY, f64::MIN, 0.5, f64::NEG_INFINITY, f64::MAX],
    ] {
        assert!(agree(&xs), "disagreement on {xs:?}");
    }
    let sorted: Vec<f64> = (0..300).map(f64::from).collect();
    let reversed: Vec<f64> = sorted.iter().rev().copied().collect();
    assert!(
        agree(&sorted) && agree(&reversed),
        "disagreement on sorted input"
    );
    QuickCheck::new()
        .tests(60)
        .quickcheck(prop as fn(Vec<i16>) -> bool);
}

fn main() {
    check();
    let xs = vec![5.0, -1.5, 9.0, 3.0, 3.0, 0.0, 12.25, -7.0];
    println!("{}", kernels::plan::program());
    println!("{xs:?} sorted: {:?}", kernels::quicksort_f64(&xs));
    println!("macro, executor, reference, dsl and Rust's stable sort agree bitwise");
}
