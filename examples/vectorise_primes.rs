//! The primes below `n` as NESL's sieve, written with `#[vectorise]`: the primes below
//! `isqrt(n) + 1` (recursively), their multiples as strided ranges (one per prime, in parallel),
//! a `scatter` of `false` flags and a `filter`. Checked against the dsl program
//! (`programs::primes`), `primes_reference` and trial division.
//!
//! `cargo run --example vectorise_primes`
use flatland::vectorise;
use flatland::vectoriser::programs;

#[vectorise]
mod kernels {
    /// The primes below `n`.
    pub fn primes(n: i64) -> Vec<i64> {
        if n <= 2 {
            Vec::<i64>::new()
        } else {
            let sqr_primes = primes((n as f64).sqrt() as i64 + 1);
            let composites = sqr_primes.map(|q| (2 * q..n).step_by(q)).concat();
            let flags = vec![true; n].scatter(composites, vec![false; composites.len()]);
            (0..n).filter(|i| i >= 2 && flags[i])
        }
    }
}

fn primes_plain(n: i64) -> Vec<i64> {
    (2..n.max(2))
        .filter(|k| (2..*k).take_while(|d| d * d <= *k).all(|d| k % d != 0))
        .collect()
}

/// Every implementation for `n`; panics on a disagreement.
fn agree(n: i64) {
    let want = primes_plain(n);
    let (p, f) = programs::primes();
    assert_eq!(
        kernels::primes(n).expect("primes runs"),
        want,
        "macro, n = {n}"
    );
    assert_eq!(
        kernels::primes_reference(n).expect("primes evaluates"),
        want,
        "reference, n = {n}"
    );
    assert_eq!(p.exec1(&f, n).expect("dsl runs"), want, "dsl exec, n = {n}");
    assert_eq!(
        p.eval1(&f, n).expect("dsl evaluates"),
        want,
        "dsl eval, n = {n}"
    );
}

/// Degenerate and square-boundary `n`; panics on any disagreement.
pub(crate) fn check() {
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
}

fn main() {
    check();
    println!("{}", kernels::program());
    println!(
        "primes below 100: {:?}",
        kernels::primes(100).expect("primes runs")
    );
    println!("macro, reference, dsl and trial division agree");
}
