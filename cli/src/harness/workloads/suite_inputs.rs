//! The seeded inputs of the user-kernel suite ([`super::suite`]): each a pure function of its
//! size and seed.
//!
//! Row values and points are dyadic ([`crate::harness::inputs::Rng::dyadic`]), so every sum
//! of them, in any association, is exact: the kernels whose only floating-point difference from
//! a sequential loop is the association of a sum give the same bits.

use crate::harness::inputs::{Rng, offsets};
use flatland::runtime::elt::Nested;

/// Rows of dyadic values as a CSR array and as the same rows in a `Nested` (its own copy).
pub struct RowsInput {
    /// Every row's values, one row after another.
    pub values: Vec<f64>,
    /// Row `i` is `values[offsets[i]..offsets[i + 1]]`.
    pub offsets: Vec<usize>,
    /// The same rows for a `#[vectorise]` kernel.
    pub nested: Nested<f64>,
}

impl RowsInput {
    /// Rows of the given lengths, dyadic values drawn from `seed`.
    ///
    /// ```
    /// use flatland_cli::harness::workloads::suite_inputs::RowsInput;
    /// let r = RowsInput::from_lengths(&[2, 0, 1], 3);
    /// assert_eq!(r.offsets, vec![0, 2, 2, 3]);
    /// assert_eq!(r.nested.len(), 3);
    /// ```
    pub fn from_lengths(lengths: &[usize], seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let offsets = offsets(lengths);
        let total = offsets.last().copied().unwrap_or(0);
        let values: Vec<f64> = (0..total).map(|_| rng.dyadic()).collect();
        let nested = Nested::from_offsets(offsets.clone(), values.clone())
            .expect("offsets are the prefix sums of the lengths");
        Self {
            values,
            offsets,
            nested,
        }
    }

    /// `rows` rows of 0 to 19 values each (uniform), as the suite in `README.md` describes.
    ///
    /// ```
    /// use flatland_cli::harness::workloads::suite_inputs::RowsInput;
    /// let r = RowsInput::rows_0_19(1000, 7);
    /// assert_eq!(r.nested.len(), 1000);
    /// assert!(r.nested.lengths().iter().all(|&l| l < 20));
    /// ```
    pub fn rows_0_19(rows: usize, seed: u64) -> Self {
        let mut rng = Rng::new(seed ^ 0x5eed);
        let lengths: Vec<usize> = (0..rows).map(|_| rng.below(20) as usize).collect();
        Self::from_lengths(&lengths, seed)
    }

    /// The rows as the baselines read them.
    ///
    /// ```
    /// use flatland_cli::harness::workloads::suite_inputs::RowsInput;
    /// assert_eq!(RowsInput::from_lengths(&[1], 1).rows().offsets, &[0, 1]);
    /// ```
    pub fn rows(&self) -> crate::harness::baselines::suite_rows::Rows<'_> {
        crate::harness::baselines::suite_rows::Rows {
            values: &self.values,
            offsets: &self.offsets,
        }
    }
}

/// A graph as adjacency lists, a frontier and the visited flags of a BFS step.
pub struct BfsInput {
    /// The neighbours of each node.
    pub adj: Vec<Vec<i64>>,
    /// The nodes whose neighbours are expanded.
    pub frontier: Vec<i64>,
    /// Whether each node was visited.
    pub visited: Vec<bool>,
}

/// `nodes` nodes of 0 to 15 uniform random neighbours each; every 4th node in the frontier,
/// every 3rd visited (the suite's BFS step).
///
/// ```
/// let g = flatland_cli::harness::workloads::suite_inputs::bfs_input(100, 1);
/// assert_eq!(g.frontier.len(), 25);
/// assert!(g.adj.iter().flatten().all(|&v| (0..100).contains(&v)));
/// ```
pub fn bfs_input(nodes: usize, seed: u64) -> BfsInput {
    let mut rng = Rng::new(seed);
    let adj = (0..nodes)
        .map(|_| {
            let degree = rng.below(16);
            (0..degree)
                .map(|_| rng.below(nodes as u64) as i64)
                .collect()
        })
        .collect();
    BfsInput {
        adj,
        frontier: (0..nodes as i64).step_by(4).collect(),
        visited: (0..nodes).map(|i| i % 3 == 0).collect(),
    }
}

/// `n` dyadic values in `[-128, 128)`.
///
/// ```
/// assert_eq!(flatland_cli::harness::workloads::suite_inputs::dyadics(3, 1).len(), 3);
/// ```
pub fn dyadics(n: usize, seed: u64) -> Vec<f64> {
    crate::harness::inputs::dyadic_values(n, seed)
}

/// `n` points with dyadic coordinates in `[-128, 128)`.
///
/// ```
/// let pts = flatland_cli::harness::workloads::suite_inputs::points(4, 2);
/// assert_eq!(pts.len(), 4);
/// ```
pub fn points(n: usize, seed: u64) -> Vec<(f64, f64)> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| (rng.dyadic(), rng.dyadic())).collect()
}

/// `n` uniform random `i64` keys (the full range).
///
/// ```
/// assert_eq!(flatland_cli::harness::workloads::suite_inputs::i64_keys(5, 1).len(), 5);
/// ```
pub fn i64_keys(n: usize, seed: u64) -> Vec<i64> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.next_u64() as i64).collect()
}

/// `n` uniform `f64` keys in `[-1, 1)` (never NaN or `-0.0`).
///
/// ```
/// let k = flatland_cli::harness::workloads::suite_inputs::f64_keys(100, 1);
/// assert!(k.iter().all(|x| (-1.0..1.0).contains(x) && !(*x == 0.0 && x.is_sign_negative())));
/// ```
pub fn f64_keys(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| 2.0 * rng.unit() - 1.0).collect()
}

/// One linked list through `n` nodes in a random order: `next[i]` is the node after `i`, -1 at
/// the tail.
///
/// ```
/// let next = flatland_cli::harness::workloads::suite_inputs::random_list(5, 3);
/// assert_eq!(next.iter().filter(|&&s| s < 0).count(), 1);
/// ```
pub fn random_list(n: usize, seed: u64) -> Vec<i64> {
    let mut rng = Rng::new(seed);
    let mut order: Vec<i64> = (0..n as i64).collect();
    for i in (1..n).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    let mut next = vec![-1; n];
    for w in order.windows(2) {
        next[w[0] as usize] = w[1];
    }
    next
}
