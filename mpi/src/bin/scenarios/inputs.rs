//! Seeded inputs, the same on every rank.

use flatland_runtime::assoc::LEAF;

/// SplitMix64: a small seeded generator, so that every rank builds the same inputs.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A float of varied sign and magnitude, so that the association shows in the bits.
    pub(crate) fn float(&mut self) -> f64 {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        let scale = [1e-3, 0.1, 1.0, 7.0, 1e3][self.below(5)];
        (u - 0.5) * scale
    }
}

/// Named descriptor families: empty, empty segments, one segment spanning all ranks, more
/// ranks than segments, segments of whole leaves, and random descriptors.
pub(crate) fn families() -> Vec<(String, Vec<usize>)> {
    let mut v: Vec<(String, Vec<usize>)> = vec![
        ("no segments".into(), vec![]),
        ("empty segments".into(), vec![0; 5]),
        ("some empty".into(), vec![0, 5, 0, 0, 3, 0]),
        ("one spanning".into(), vec![7 * LEAF + 123]),
        (
            "spanning with neighbours".into(),
            vec![2, 0, 9 * LEAF + 5, 0, 1],
        ),
        ("one short".into(), vec![7]),
        ("two short".into(), vec![2, 9]),
        ("whole leaves".into(), vec![2 * LEAF, LEAF, 0, 3 * LEAF]),
        // On many ranks, several cuts snap to the same leaf boundary: empty middle pieces.
        ("short spanning".into(), vec![2 * LEAF + 10]),
    ];
    for seed in 0..24u64 {
        let mut g = Rng::new(seed);
        let n = g.below(40);
        let lengths = (0..n)
            .map(|_| match g.below(10) {
                0 => 0,
                1 => g.below(4 * LEAF),
                2 if seed % 3 == 0 => 4 * LEAF + g.below(3 * LEAF),
                _ => g.below(20),
            })
            .collect();
        v.push((format!("random seed {seed}"), lengths));
    }
    v
}

/// Data for `n` elements.
pub(crate) fn floats(seed: u64, n: usize) -> Vec<f64> {
    let mut g = Rng::new(seed.wrapping_mul(31).wrapping_add(7));
    (0..n).map(|_| g.float()).collect()
}
