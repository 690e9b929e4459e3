//! Seeded input generators. Every workload input is a pure function of its size and seed.
//!
//! Floating-point values are small multiples of 1/8 (dyadic), so every sum and prefix sum of up to
//! 2^40 of them is exact in `f64`: results of different associations (flatland's canonical one, a
//! sequential loop, rayon's) are then bitwise equal, and the harness can demand exact agreement.

use crate::io::Csr;

/// SplitMix64: a tiny, fast, well-mixed 64-bit generator (Steele, Lea, Flood 2014).
///
/// ```
/// use flatland_cli::harness::inputs::Rng;
/// let (mut a, mut b) = (Rng::new(7), Rng::new(7));
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert!(a.below(10) < 10);
/// ```
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    ///
    /// ```
    /// # use flatland_cli::harness::inputs::Rng;
    /// assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    /// ```
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    ///
    /// ```
    /// # use flatland_cli::harness::inputs::Rng;
    /// let _bits = Rng::new(0).next_u64();
    /// ```
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform `f64` in `[0, 1)` (53 random bits).
    ///
    /// ```
    /// # use flatland_cli::harness::inputs::Rng;
    /// let u = Rng::new(3).unit();
    /// assert!((0.0..1.0).contains(&u));
    /// ```
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniform integer in `0..n` (`n > 0`), by multiply-shift.
    ///
    /// ```
    /// # use flatland_cli::harness::inputs::Rng;
    /// let mut r = Rng::new(5);
    /// assert!((0..100).all(|_| r.below(3) < 3));
    /// ```
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// A dyadic value `k / 8` with `k` uniform in `-1024..1024` (see the module note on exactness).
    ///
    /// ```
    /// # use flatland_cli::harness::inputs::Rng;
    /// let v = Rng::new(9).dyadic();
    /// assert_eq!((v * 8.0).fract(), 0.0);
    /// assert!((-128.0..128.0).contains(&v));
    /// ```
    pub fn dyadic(&mut self) -> f64 {
        (self.below(2048) as f64 - 1024.0) / 8.0
    }
}

/// `n` dyadic values (see [`Rng::dyadic`]).
///
/// ```
/// use flatland_cli::harness::inputs::dyadic_values;
/// assert_eq!(dyadic_values(4, 1), dyadic_values(4, 1));
/// assert_eq!(dyadic_values(4, 1).len(), 4);
/// ```
pub fn dyadic_values(n: usize, seed: u64) -> Vec<f64> {
    let mut r = Rng::new(seed);
    (0..n).map(|_| r.dyadic()).collect()
}

/// Segment lengths adding up to exactly `elements`, drawn from a power law (Pareto, shape 1.3,
/// minimum 2: most segments short, a few very long), with about 5% empty segments mixed in.
///
/// ```
/// use flatland_cli::harness::inputs::power_law_lengths;
/// let ls = power_law_lengths(100_000, 3);
/// assert_eq!(ls.iter().sum::<usize>(), 100_000);
/// assert!(ls.contains(&0));
/// assert!(*ls.iter().max().unwrap() > 100);
/// ```
pub fn power_law_lengths(elements: usize, seed: u64) -> Vec<usize> {
    let mut r = Rng::new(seed);
    let mut out = Vec::new();
    let mut left = elements;
    while left > 0 {
        if r.below(20) == 0 {
            out.push(0);
            continue;
        }
        let u = 1.0 - r.unit(); // (0, 1]
        let len = (2.0 * u.powf(-1.0 / 1.3)).min(left as f64) as usize;
        let len = len.clamp(1, left);
        out.push(len);
        left -= len;
    }
    out
}

/// Exclusive prefix sums of `lengths` with the total appended (`lengths.len() + 1` offsets).
///
/// ```
/// use flatland_cli::harness::inputs::offsets;
/// assert_eq!(offsets(&[2, 0, 3]), vec![0, 2, 2, 5]);
/// ```
pub fn offsets(lengths: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(lengths.len() + 1);
    let mut acc = 0;
    out.push(0);
    for &l in lengths {
        acc += l;
        out.push(acc);
    }
    out
}

/// A random sparse matrix in CSR form: row `i` gets `lens[i]` column indices drawn uniformly
/// (duplicates merged, so rows may come out a little shorter; rows longer than a quarter of the
/// columns keep each column with probability `lens[i] / cols` instead) and dyadic values.
fn matrix_from_row_lengths(rows: usize, cols: usize, lens: &[usize], seed: u64) -> Csr {
    let mut r = Rng::new(seed);
    let mut offsets = Vec::with_capacity(rows + 1);
    let mut indices = Vec::with_capacity(lens.iter().sum());
    offsets.push(0);
    for &l in lens {
        let start = indices.len();
        if l.saturating_mul(4) > cols {
            // A dense row: keep each column with probability l / cols (distinct, about l).
            indices.extend((0..cols).filter(|_| r.below(cols as u64) < l as u64));
            offsets.push(indices.len());
            continue;
        }
        indices.extend((0..l).map(|_| r.below(cols as u64) as usize));
        indices[start..].sort_unstable();
        let mut w = start;
        for k in start..indices.len() {
            if k == start || indices[k] != indices[w - 1] {
                indices[w] = indices[k];
                w += 1;
            }
        }
        indices.truncate(w);
        offsets.push(indices.len());
    }
    let values = (0..indices.len()).map(|_| r.dyadic()).collect();
    Csr::from_parts(rows, cols, offsets, indices, values).expect("generated CSR is valid")
}

/// A `rows x cols` matrix with about `nnz` entries whose row lengths follow a power law
/// ([`power_law_lengths`]).
///
/// ```
/// use flatland_cli::harness::inputs::power_law_matrix;
/// let a = power_law_matrix(1000, 1000, 10_000, 1);
/// assert_eq!(a.rows(), 1000);
/// assert!(a.nnz() > 5_000 && a.nnz() <= 10_000);
/// ```
pub fn power_law_matrix(rows: usize, cols: usize, nnz: usize, seed: u64) -> Csr {
    let mut lens = power_law_lengths(nnz, seed);
    lens.resize(rows.max(lens.len()), 0);
    // Fold surplus segments into the rows we have, keeping the total.
    let extra: usize = lens[rows..].iter().sum();
    lens.truncate(rows);
    let mut r = Rng::new(seed ^ 0xA5A5);
    for _ in 0..extra {
        lens[r.below(rows.max(1) as u64) as usize] += 1;
    }
    let mut shuffled = lens;
    for i in (1..shuffled.len()).rev() {
        shuffled.swap(i, r.below(i as u64 + 1) as usize);
    }
    matrix_from_row_lengths(rows, cols, &shuffled, seed.wrapping_add(1))
}

/// A matrix where one row (the middle one) holds about 80% of the `nnz` entries and the others
/// share the rest evenly.
///
/// ```
/// use flatland_cli::harness::inputs::skewed_matrix;
/// let a = skewed_matrix(100, 10_000, 1_000, 2);
/// let big = a.row(50).0.len();
/// assert!(big * 10 > a.nnz() * 7, "{big} of {}", a.nnz());
/// ```
pub fn skewed_matrix(rows: usize, cols: usize, nnz: usize, seed: u64) -> Csr {
    let heavy = nnz * 4 / 5;
    let rest = (nnz - heavy) / rows.saturating_sub(1).max(1);
    let lens: Vec<usize> = (0..rows)
        .map(|i| if i == rows / 2 { heavy } else { rest })
        .collect();
    matrix_from_row_lengths(rows, cols, &lens, seed)
}

/// A square banded matrix: row `i` holds columns `i - half ..= i + half` (clipped).
///
/// ```
/// use flatland_cli::harness::inputs::banded_matrix;
/// let a = banded_matrix(10, 1, 3);
/// assert_eq!(a.row(0).0, &[0, 1]);
/// assert_eq!(a.row(5).0, &[4, 5, 6]);
/// ```
pub fn banded_matrix(n: usize, half: usize, seed: u64) -> Csr {
    let mut r = Rng::new(seed);
    let mut offsets = vec![0];
    let mut indices = Vec::new();
    for i in 0..n {
        indices.extend(i.saturating_sub(half)..(i + half + 1).min(n));
        offsets.push(indices.len());
    }
    let values = (0..indices.len()).map(|_| r.dyadic()).collect();
    Csr::from_parts(n, n, offsets, indices, values).expect("banded CSR is valid")
}

/// A directed graph held by its in-edges (the pull direction of PageRank): node `v`'s sources
/// are `sources[offsets[v]..offsets[v + 1]]` (sorted, distinct), and `out_degree[u]` counts the
/// edges leaving `u`.
#[derive(Clone, Debug)]
pub struct Graph {
    /// `nodes + 1` offsets into `sources`.
    pub offsets: Vec<usize>,
    /// The source of every edge, grouped by target.
    pub sources: Vec<usize>,
    /// The number of edges leaving each node.
    pub out_degree: Vec<usize>,
}

/// A seeded graph of `nodes` nodes and about `edges` edges whose in-degrees follow a power law
/// ([`power_law_lengths`]: most nodes have a few in-edges, a few have very many, about 5% none)
/// and whose sources are uniform (duplicate edges merged, so a little under `edges`).
///
/// ```
/// use flatland_cli::harness::inputs::power_law_graph;
/// let g = power_law_graph(1000, 10_000, 7);
/// assert_eq!(g.offsets.len(), 1001);
/// assert_eq!(g.out_degree.iter().sum::<usize>(), g.sources.len());
/// assert!(g.sources.len() > 5_000 && g.sources.len() <= 10_000);
/// ```
pub fn power_law_graph(nodes: usize, edges: usize, seed: u64) -> Graph {
    let a = power_law_matrix(nodes, nodes, edges, seed);
    let mut out_degree = vec![0; nodes];
    for &u in a.indices() {
        out_degree[u] += 1;
    }
    Graph {
        offsets: a.offsets().to_vec(),
        sources: a.indices().to_vec(),
        out_degree,
    }
}
