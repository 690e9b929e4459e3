//! `primes`: the primes up to n, by NESL's sieve.

use super::sizes;
use crate::harness::answer::Answer;
use crate::harness::baselines::sieve::primes_seq;
use crate::harness::dsl::{Dsl, i64s, scalar};
use crate::harness::flattened;
use crate::harness::vectorised;
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use crate::kernels;

fn indices(ps: impl IntoIterator<Item = u64>) -> Answer {
    Answer::Indices(ps.into_iter().map(|p| p as usize).collect())
}

/// Numbers sieved by one `primes_between` call of the `blocked` variant
/// ([`kernels::primes_windowed`]): its flags and composites (about 2.5 indices a number) stay
/// in a core's cache.
const WINDOW: i64 = 1 << 16;

/// The primes `p <= n`: NESL's recursive sieve flattened by hand onto runtime primitives
/// ([`flattened::primes`]) and the vectoriser's dsl program (`programs::primes`, flattened by its
/// executor, up to n = 10^7), and the blocked sieve a user writes for large n
/// ([`kernels::primes_windowed`] on windows of 2^16 numbers, `blocked`), against the
/// sequential sieve of Eratosthenes.
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::Primes};
/// let inst = Primes.prepare(&Case::new("n", 10_000), &Extra::default());
/// let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
/// assert!(answers.iter().all(|a| a == &answers[0]));
/// ```
pub struct Primes;

/// Largest n also run through the dsl and the macro (about 0.3 s a run at 10^7 on two cores;
/// 10^8 would hold several gigabytes of composites).
const DSL_MAX: u64 = 10_000_000;

impl Workload for Primes {
    fn name(&self) -> &'static str {
        "primes"
    }
    fn about(&self) -> &'static str {
        "primes <= n; flatland = NESL sieve hand-flattened (iota_s, scatter_value, filter); \
         blocked = #[vectorise] primes_windowed: primes_between on windows of 2^16 under a map; \
         dsl = vectoriser programs::primes flattened, vectorise = the sieve under #[vectorise] (the strategy the run chooses: per-lane where the function has that form) (both n <= 10^7); vs sequential sieve"
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
    /// The largest n up to 10^7: at 10^8 the flattened sieve takes about 20 s a run.
    fn sweep_case(&self, scale: Scale, extra: &Extra) -> Option<Case> {
        self.cases(scale, extra)
            .into_iter()
            .filter(|c| c.size <= 10_000_000)
            .max_by_key(|c| c.size)
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let n = case.size as u64;
        let mut variants = vec![Variant::new("flatland", Role::Flatland, true, move || {
            indices(flattened::primes(n))
        })];
        variants.push(Variant::new("blocked", Role::Flatland, true, move || {
            let below = i64::try_from(n).map_or(i64::MAX, |n| n.saturating_add(1));
            indices(
                kernels::primes_windowed(below, WINDOW)
                    .into_iter()
                    .map(|p| p as u64),
            )
        }));
        if n <= DSL_MAX {
            let dsl = Dsl::primes();
            // The program gives the primes below its argument.
            variants.push(Variant::new("dsl", Role::Flatland, true, move || {
                indices(
                    i64s(&dsl.run(vec![scalar(n as i64 + 1)]))
                        .into_iter()
                        .map(|p| p as u64),
                )
            }));
            variants.push(Variant::new("vectorise", Role::Flatland, true, move || {
                indices(
                    vectorised::primes(n as i64 + 1)
                        .into_iter()
                        .map(|p| p as u64),
                )
            }));
        }
        variants.push(Variant::new("seq", Role::Baseline, false, move || {
            indices(primes_seq(n))
        }));
        Instance {
            elements: n,
            bytes: 0,
            variants,
        }
    }
}
