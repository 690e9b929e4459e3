//! The primes below `n`, NESL's sieve, written with `#[vectorise]`: the primes below `√n`
//! (recursively), the multiples of each as a strided range (one per prime, generated in
//! parallel), a `scatter` that clears their flags, and a `filter` of what stays flagged.
//!
//! `cargo run -p flatland --example primes`
use flatland::prelude::*;

#[vectorise]
mod sieve {
    /// The primes below `n`.
    pub fn primes(n: i64) -> Vec<i64> {
        if n <= 2 {
            Vec::<i64>::new()
        } else {
            let small = primes((n as f64).sqrt() as i64 + 1);
            let composites = small.map(|p| (2 * p..n).step_by(p)).concat();
            let flags = vec![true; n].scatter(composites, vec![false; composites.len()]);
            (0..n).filter(|i| i >= 2 && flags[i])
        }
    }
}

/// Trial division, for the check.
fn is_prime(k: i64) -> bool {
    k >= 2 && (2..=k.isqrt()).all(|d| k % d != 0)
}

fn main() -> Result<()> {
    let n = 1_000_000;
    let primes = sieve::try_primes(n)?;
    assert_eq!(primes.len(), 78_498);
    assert!(primes.iter().all(|&p| is_prime(p)));
    assert_eq!(
        sieve::try_primes(30)?,
        vec![2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
    );
    println!(
        "{} primes below {n}; the last is {}",
        primes.len(),
        primes[primes.len() - 1]
    );
    Ok(())
}
