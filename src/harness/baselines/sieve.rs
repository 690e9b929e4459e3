//! Primes by the sieve of Eratosthenes.

/// All primes `p <= n`, ascending, by the classic sequential sieve (one byte per number).
///
/// ```
/// use flatland::harness::baselines::sieve::primes_seq;
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

/// The number and the sum of the primes `p <= n`, by a segmented sieve over odd numbers: memory
/// stays `O(sqrt n)` (plus a 256 KiB window) for any `n`.
///
/// ```
/// use flatland::harness::baselines::sieve::count_and_sum;
/// assert_eq!(count_and_sum(100), (25, 1060));
/// assert_eq!(count_and_sum(2), (1, 2));
/// assert_eq!(count_and_sum(0), (0, 0));
/// ```
pub fn count_and_sum(n: u64) -> (u64, u128) {
    const WINDOW: u64 = 1 << 18;
    if n < 2 {
        return (0, 0);
    }
    let root = n.isqrt();
    let small: Vec<u64> = primes_seq(root).into_iter().skip(1).collect(); // odd primes <= sqrt n
    let (mut count, mut sum) = (1u64, 2u128);
    // Window over odd numbers lo, lo + 2, ...: index k stands for lo + 2k.
    let mut lo = 3u64;
    let mut composite = vec![false; WINDOW as usize];
    while lo <= n {
        let len = WINDOW.min((n - lo) / 2 + 1);
        let win = &mut composite[..len as usize];
        win.fill(false);
        let hi = lo + 2 * (len - 1);
        for &p in &small {
            if p * p > hi {
                break;
            }
            // First odd multiple of p that is >= max(p*p, lo).
            let mut m = (p * p).max(lo.div_ceil(p) * p);
            if m % 2 == 0 {
                m += p;
            }
            let mut k = (m - lo) / 2;
            while k < len {
                win[k as usize] = true;
                k += p;
            }
        }
        for (k, &c) in win.iter().enumerate() {
            if !c {
                count += 1;
                sum += u128::from(lo + 2 * k as u64);
            }
        }
        lo = hi + 2;
    }
    (count, sum)
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
            assert_eq!(
                count_and_sum(n),
                (want.len() as u64, want.iter().map(|&p| u128::from(p)).sum())
            );
        }
    }

    #[test]
    fn segmented_spans_windows() {
        let n = 3_000_017; // several windows, n itself prime
        let ps = primes_seq(n);
        assert_eq!(
            count_and_sum(n),
            (ps.len() as u64, ps.iter().map(|&p| u128::from(p)).sum())
        );
        assert_eq!(count_and_sum(10_000_000).0, 664_579);
    }
}
