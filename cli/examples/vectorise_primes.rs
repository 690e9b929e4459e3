//! The primes below `n` as NESL's sieve, written with `#[vectorise]` ([`flatland_cli::kernels::primes`]
//! in `src/kernels.rs`): the primes below
//! `isqrt(n) + 1` (recursively), their multiples as strided ranges (one per prime, in parallel),
//! a `scatter` of `false` flags and a `filter`. Checked against the dsl program
//! (`programs::primes`), `primes_reference` and trial division; `primes_between` (the same
//! sieve on one window, as `flatland run primes` uses it) against trial division, and
//! `primes_windowed` (that sieve on every window under one `map`) under both strategies.
//!
//! `cargo run --example vectorise_primes`
use flatland::vectoriser::lane::{Lanes, with_lanes};
use flatland::vectoriser::programs;
use flatland::vectoriser::strategy::{Strategy, with_strategy};
use flatland_cli::kernels;

fn primes_plain(n: i64) -> Vec<i64> {
    (2..n.max(2))
        .filter(|k| (2..*k).take_while(|d| d * d <= *k).all(|d| k % d != 0))
        .collect()
}

/// Every implementation for `n`; panics on a disagreement.
fn agree(n: i64) {
    let want = primes_plain(n);
    let (p, f) = programs::primes();
    assert_eq!(kernels::primes(n), want, "macro, n = {n}");
    for s in [Strategy::PerLane, Strategy::Flatten] {
        let got = with_strategy(s, || kernels::try_primes(n)).expect("primes runs");
        assert_eq!(got, want, "macro, {s}, n = {n}");
    }
    assert_eq!(
        kernels::plan::primes::reference(n).expect("primes evaluates"),
        want,
        "reference, n = {n}"
    );
    assert_eq!(p.exec(&f, n).expect("dsl runs"), want, "dsl exec, n = {n}");
    assert_eq!(
        p.eval(&f, n).expect("dsl evaluates"),
        want,
        "dsl eval, n = {n}"
    );
}

/// `primes_between` on the window `lo..hi`, given the primes up to `isqrt(hi)`; panics on a
/// disagreement.
fn agree_between(lo: i64, hi: i64) {
    let want: Vec<i64> = primes_plain(hi).into_iter().filter(|&p| p >= lo).collect();
    let base = kernels::primes((hi as f64).sqrt() as i64 + 1);
    assert_eq!(
        kernels::primes_between(lo, hi, &base),
        want,
        "macro, {lo}..{hi}"
    );
    assert_eq!(
        kernels::plan::primes_between::reference(lo, hi, &base).expect("primes_between evaluates"),
        want,
        "reference, {lo}..{hi}"
    );
}

/// `primes_windowed(n, window)` under each strategy (the per-lane form's map of windows also
/// forced in parallel), against trial division; panics on a disagreement.
fn agree_windowed(n: i64, window: i64) {
    let want = primes_plain(n);
    let name = format!("primes_windowed({n}, {window})");
    assert_eq!(kernels::primes_windowed(n, window), want, "{name}");
    assert_eq!(
        kernels::plan::primes_windowed::reference(n, window).expect("evaluates"),
        want,
        "reference, {name}"
    );
    for s in [Strategy::PerLane, Strategy::Flatten] {
        let got = with_strategy(s, || kernels::try_primes_windowed(n, window)).expect("runs");
        assert_eq!(got, want, "{s}, {name}");
    }
    let parallel = with_lanes(Lanes::Parallel, || {
        with_strategy(Strategy::PerLane, || {
            kernels::try_primes_windowed(n, window)
        })
    });
    assert_eq!(parallel.expect("runs"), want, "parallel lanes, {name}");
}

/// Degenerate and square-boundary `n`, windows starting below 2, at a prime, at a square and
/// far out; panics on any disagreement.
pub(crate) fn check() {
    for (lo, hi) in [
        (1, 2),
        (1, 3),
        (1, 100),
        (2, 3),
        (7, 50),
        (49, 50),
        (48, 122),
        (1000, 1024),
        (4000, 4099),
        (999_000, 1_000_100),
    ] {
        agree_between(lo, hi);
    }
    for n in [
        i64::MIN,
        -5,
        0,
        1,
        2,
        3,
        4,
        5,
        8,
        9,
        10,
        24,
        25,
        26,
        48,
        49,
        50,
        121,
        1000,
        1024,
        4099,
    ] {
        agree(n);
    }
    for (n, window) in [
        (i64::MIN, 3),
        (0, 1),
        (3, 1),
        (20, 4),
        (100, 7),
        (1000, 1000),
        (1000, 1 << 16),
        (10_007, 64),
        (100_000, 4096),
    ] {
        agree_windowed(n, window);
    }
    // A window of 0 divides by zero, the same error under every strategy.
    let errors: Vec<String> = [Strategy::PerLane, Strategy::Flatten]
        .map(|s| {
            with_strategy(s, || kernels::try_primes_windowed(100, 0))
                .expect_err("a window of 0")
                .to_string()
        })
        .into();
    let reference = kernels::plan::primes_windowed::reference(100, 0).expect_err("a window of 0");
    assert!(
        errors.iter().all(|e| *e == reference.to_string()),
        "{errors:?}"
    );
    assert!(errors[0].contains("division by zero"), "{}", errors[0]);
}

fn main() {
    check();
    println!("{}", kernels::plan::program());
    println!("primes below 100: {:?}", kernels::primes(100));
    println!("macro, reference, dsl and trial division agree");
}
