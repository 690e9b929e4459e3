//! Primes by the sieve of Eratosthenes.

/// All primes `p <= n`, ascending, by the classic sequential sieve (one byte per number).
///
/// ```
/// use flatland_cli::harness::baselines::sieve::primes_seq;
/// assert_eq!(primes_seq(20), vec![2, 3, 5, 7, 11, 13, 17, 19]);
/// assert_eq!(primes_seq(1), Vec::<u64>::new());
/// ```
pub fn primes_seq(n: u64) -> Vec<u64> {
    let n = usize::try_from(n).expect("sieve bound fits in memory");
    if n < 2 {
        return Vec::new();
    }
    let mut composite = vec![false; n + 1];
    let mut p = 2;
    while p * p <= n {
        if !composite[p] {
            for m in (p * p..=n).step_by(p) {
                composite[m] = true;
            }
        }
        p += 1;
    }
    (2..=n)
        .filter(|&i| !composite[i])
        .map(|i| i as u64)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trial_division(n: u64) -> bool {
        n >= 2 && (2..=n.isqrt()).all(|d| n % d != 0)
    }

    #[test]
    fn against_trial_division() {
        for n in [0, 1, 2, 3, 4, 9, 25, 97, 1000, 1 << 12] {
            let want: Vec<u64> = (0..=n).filter(|&i| trial_division(i)).collect();
            assert_eq!(primes_seq(n), want, "n = {n}");
        }
        assert_eq!(primes_seq(10_000_000).len(), 664_579);
    }
}
