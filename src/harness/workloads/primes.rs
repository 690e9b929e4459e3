//! `primes`: the primes up to n, by NESL's sieve.

use super::sizes;
use crate::harness::answer::Answer;
use crate::harness::baselines::sieve::primes_seq;
use crate::harness::flattened;
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};

fn indices(ps: Vec<u64>) -> Answer {
    Answer::Indices(ps.into_iter().map(|p| p as usize).collect())
}

/// The primes `p <= n`: NESL's recursive sieve flattened onto runtime primitives
/// ([`flattened::primes`]) against the sequential sieve of Eratosthenes.
///
/// ```
/// use flatland::harness::{workload::{Case, Extra, Workload}, workloads::Primes};
/// let inst = Primes.prepare(&Case::new("n", 10_000), &Extra::default());
/// let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
/// assert!(answers.iter().all(|a| a == &answers[0]));
/// ```
pub struct Primes;

impl Workload for Primes {
    fn name(&self) -> &'static str {
        "primes"
    }
    fn about(&self) -> &'static str {
        "primes <= n; flatland = NESL sieve hand-flattened (replicate_s, scan_s, zip_with, scatter, filter) vs sequential sieve"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        sizes(
            scale,
            &[0, 1, 2, 3, 100, 65_537],
            &[1_000_000, 10_000_000],
            &[1_000_000, 10_000_000, 100_000_000],
        )
        .into_iter()
        .map(|n| Case::new("n", n))
        .collect()
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let n = case.size as u64;
        Instance {
            elements: n,
            bytes: 0,
            variants: vec![
                Variant::new("flatland", Role::Flatland, true, move || {
                    indices(flattened::primes(n))
                }),
                Variant::new("seq", Role::Baseline, false, move || indices(primes_seq(n))),
            ],
        }
    }
}
