//! Shared helpers for the `flat_*` integration tests: pools, machine profiles, inputs.

#![allow(dead_code, unreachable_pub)]

use flatland_runtime::assoc::LEAF;
use flatland_runtime::cost::{Machine, with_machine};
use quickcheck::{Arbitrary, Gen};
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::sync::OnceLock;

/// Pool sizes every determinism check runs under.
pub const POOL_SIZES: [usize; 4] = [1, 2, 3, 8];

/// The pools of [`POOL_SIZES`] threads, built once per test binary.
pub fn pools() -> &'static [ThreadPool] {
    static POOLS: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    POOLS.get_or_init(|| {
        POOL_SIZES
            .iter()
            .map(|&k| {
                ThreadPoolBuilder::new()
                    .num_threads(k)
                    .build()
                    .expect("pool")
            })
            .collect()
    })
}

/// Two machine profiles: the defaults (small inputs sequential) and an eager one with free tasks
/// and many cores (everything over one leaf split across every worker).
pub fn profiles() -> [Machine; 2] {
    [Machine::defaults(), Machine::new(0.5, 1.0, 0.0, 64)]
}

/// Runs `f` under every pool and profile and returns the results with a label for each.
pub fn everywhere<R: Send>(f: impl Fn() -> R + Sync) -> Vec<(String, R)> {
    let mut out = Vec::new();
    for (pool, k) in pools().iter().zip(POOL_SIZES) {
        for m in profiles() {
            let r = pool.install(|| with_machine(m, &f));
            out.push((format!("{k} threads, {:?} profile", m.origin), r));
        }
    }
    out
}

/// Where one quickcheck case runs: a pool and a profile, chosen by the generator.
#[derive(Clone, Copy, Debug)]
pub struct Env {
    pool: usize,
    profile: usize,
}

impl Arbitrary for Env {
    fn arbitrary(g: &mut Gen) -> Self {
        Env {
            pool: usize::arbitrary(g) % POOL_SIZES.len(),
            profile: usize::arbitrary(g) % 2,
        }
    }
}

impl Env {
    /// Runs `f` in this environment.
    pub fn run<R: Send>(self, f: impl FnOnce() -> R + Send) -> R {
        let m = profiles()[self.profile];
        pools()[self.pool].install(|| with_machine(m, f))
    }
}

/// A length: mostly around leaf and leaf-group boundaries, sometimes small and random.
pub fn length(g: &mut Gen) -> usize {
    let lens = [
        0,
        1,
        2,
        15,
        16,
        17,
        LEAF - 1,
        LEAF,
        LEAF + 1,
        2 * LEAF,
        3 * LEAF - 1,
        3 * LEAF + 7,
        5 * LEAF + 1,
        // Groups of eight leaves side by side (scans), whole and ragged.
        8 * LEAF,
        9 * LEAF - 3,
        17 * LEAF + 5,
    ];
    if bool::arbitrary(g) {
        *g.choose(&lens).expect("non-empty")
    } else {
        usize::arbitrary(g) % (4 * LEAF)
    }
}

/// A vector of `T` with a length from [`length`].
#[derive(Clone, Debug)]
pub struct Input<T>(pub Vec<T>);

impl<T: Arbitrary> Arbitrary for Input<T> {
    fn arbitrary(g: &mut Gen) -> Self {
        let n = length(g);
        Input((0..n).map(|_| T::arbitrary(g)).collect())
    }
}

/// An associative, non-commutative operation on `Copy` values: composition of affine maps
/// `x -> a x + b` over wrapping u64 (`(a1, b1)` then `(a2, b2)`).
pub fn compose(f: (u64, u64), g: (u64, u64)) -> (u64, u64) {
    (
        f.0.wrapping_mul(g.0),
        f.1.wrapping_mul(g.0).wrapping_add(g.1),
    )
}

/// The identity of [`compose`].
pub const ID: (u64, u64) = (1, 0);

/// Deterministic pseudo-random f64s with widely varying magnitudes (so association matters).
pub fn floats(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let m = (s >> 11) as f64 / (1u64 << 53) as f64;
            let e = (s % 40) as i32 - 20;
            (m - 0.5) * 2f64.powi(e)
        })
        .collect()
}
