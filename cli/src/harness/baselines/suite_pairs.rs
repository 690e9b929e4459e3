//! Baselines of the suite's expansion and all-pairs kernels ([`crate::suite`]): a BFS step,
//! counts and kernel sums over all pairs of queries and points, nearest-centre assignment. Each
//! is the loop a programmer writes, sequentially and with rayon over the outer elements
//! (`par_iter`, no tuning), the body shared.
//!
//! ```
//! use flatland_cli::harness::baselines::suite_pairs::{bfs_step_seq, bfs_step_rayon};
//! let adj = vec![vec![1, 2], vec![0], vec![]];
//! let visited = [true, false, false];
//! assert_eq!(bfs_step_seq(&[0, 1], &adj, &visited), vec![1, 2]);
//! assert_eq!(bfs_step_rayon(&[0, 1], &adj, &visited), vec![1, 2]);
//! ```

use rayon::prelude::*;

/// The unvisited neighbours of `u`.
fn unvisited<'a>(
    adj: &'a [Vec<i64>],
    visited: &'a [bool],
    u: i64,
) -> impl Iterator<Item = i64> + 'a {
    adj[u as usize]
        .iter()
        .copied()
        .filter(move |&v| !visited[v as usize])
}

/// The unvisited neighbours of the frontier's nodes, in frontier order (sequential).
pub fn bfs_step_seq(frontier: &[i64], adj: &[Vec<i64>], visited: &[bool]) -> Vec<i64> {
    frontier
        .iter()
        .flat_map(|&u| unvisited(adj, visited, u))
        .collect()
}

/// [`bfs_step_seq`] with rayon over the frontier.
pub fn bfs_step_rayon(frontier: &[i64], adj: &[Vec<i64>], visited: &[bool]) -> Vec<i64> {
    frontier
        .par_iter()
        .flat_map_iter(|&u| unvisited(adj, visited, u))
        .collect()
}

/// How many of `points` lie within `radius` of `q`.
fn count_near(points: &[f64], q: f64, radius: f64) -> i64 {
    points.iter().filter(|&&p| (p - q).abs() <= radius).count() as i64
}

/// For each query, the points within `radius` (sequential).
///
/// ```
/// use flatland_cli::harness::baselines::suite_pairs::{pair_counts_seq, pair_counts_rayon};
/// assert_eq!(pair_counts_seq(&[0.0], &[0.5, 2.0], 1.0), vec![1]);
/// assert_eq!(pair_counts_rayon(&[0.0], &[0.5, 2.0], 1.0), vec![1]);
/// ```
pub fn pair_counts_seq(queries: &[f64], points: &[f64], radius: f64) -> Vec<i64> {
    queries
        .iter()
        .map(|&q| count_near(points, q, radius))
        .collect()
}

/// [`pair_counts_seq`] with rayon over the queries.
pub fn pair_counts_rayon(queries: &[f64], points: &[f64], radius: f64) -> Vec<i64> {
    queries
        .par_iter()
        .map(|&q| count_near(points, q, radius))
        .collect()
}

/// The Gaussian kernel sum of `points` at `q`.
fn density(points: &[f64], q: f64, bandwidth: f64) -> f64 {
    points
        .iter()
        .map(|&p| {
            let z = (q - p) / bandwidth;
            (-z * z).exp()
        })
        .sum()
}

/// For each query, the sum over all points of `exp(-((q - p) / bandwidth)^2)` (sequential).
///
/// ```
/// use flatland_cli::harness::baselines::suite_pairs::{pair_density_seq, pair_density_rayon};
/// assert_eq!(pair_density_seq(&[1.0], &[1.0], 2.0), vec![1.0]);
/// assert_eq!(pair_density_rayon(&[1.0], &[1.0], 2.0), vec![1.0]);
/// ```
pub fn pair_density_seq(queries: &[f64], points: &[f64], bandwidth: f64) -> Vec<f64> {
    queries
        .iter()
        .map(|&q| density(points, q, bandwidth))
        .collect()
}

/// [`pair_density_seq`] with rayon over the queries.
pub fn pair_density_rayon(queries: &[f64], points: &[f64], bandwidth: f64) -> Vec<f64> {
    queries
        .par_iter()
        .map(|&q| density(points, q, bandwidth))
        .collect()
}

/// The index of the centre nearest `p` (the first on ties; -1 without centres).
fn nearest(centres: &[(f64, f64)], p: (f64, f64)) -> i64 {
    let mut best = -1i64;
    let mut best_d = f64::INFINITY;
    for (j, c) in centres.iter().enumerate() {
        let dx = p.0 - c.0;
        let dy = p.1 - c.1;
        let d = dx * dx + dy * dy;
        if best < 0 || d < best_d {
            best = j as i64;
            best_d = d;
        }
    }
    best
}

/// The nearest centre of each point (sequential).
///
/// ```
/// use flatland_cli::harness::baselines::suite_pairs::{nearest_centre_seq, nearest_centre_rayon};
/// let centres = [(0.0, 0.0), (4.0, 0.0)];
/// assert_eq!(nearest_centre_seq(&[(3.0, 0.0)], &centres), vec![1]);
/// assert_eq!(nearest_centre_rayon(&[(3.0, 0.0)], &centres), vec![1]);
/// ```
pub fn nearest_centre_seq(points: &[(f64, f64)], centres: &[(f64, f64)]) -> Vec<i64> {
    points.iter().map(|&p| nearest(centres, p)).collect()
}

/// [`nearest_centre_seq`] with rayon over the points.
pub fn nearest_centre_rayon(points: &[(f64, f64)], centres: &[(f64, f64)]) -> Vec<i64> {
    points.par_iter().map(|&p| nearest(centres, p)).collect()
}
