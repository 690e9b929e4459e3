//! Helpers shared by the integration tests.

/// `n` pseudo-random integers in `0..below` from `seed` (a 64-bit LCG's high bits): the
/// tests' inputs, the same on every run.
pub(crate) fn ints(n: usize, seed: u64, below: u64) -> Vec<i64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((s >> 33) % below) as i64
        })
        .collect()
}
