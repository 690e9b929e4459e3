//! `bfs`: breadth-first search to completion, level by level.

use crate::harness::answer::Answer;
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use crate::harness::workloads::suite_inputs::bfs_input;
use crate::kernels;
use rayon::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

/// The sequential search: a queue of the frontier, each node's distance set when it is first
/// reached.
///
/// ```
/// use flatland_cli::harness::workloads::bfs::bfs_seq;
/// let adj = vec![vec![1], vec![2], vec![], vec![0]];
/// assert_eq!(bfs_seq(&adj, 0), vec![0, 1, 2, -1]);
/// ```
pub fn bfs_seq(adj: &[Vec<i64>], src: i64) -> Vec<i64> {
    let mut dist = vec![-1; adj.len()];
    dist[src as usize] = 0;
    let mut frontier = vec![src];
    let mut level = 0;
    while !frontier.is_empty() {
        level += 1;
        let mut next = Vec::new();
        for &v in &frontier {
            for &u in &adj[v as usize] {
                if dist[u as usize] == -1 {
                    dist[u as usize] = level;
                    next.push(u);
                }
            }
        }
        frontier = next;
    }
    dist
}

/// Hand-written rayon: each level's frontier expanded in parallel, a node claimed by the first
/// compare-and-swap of its distance from -1.
///
/// ```
/// use flatland_cli::harness::workloads::bfs::{bfs_rayon, bfs_seq};
/// let adj: Vec<Vec<i64>> = (0..50).map(|v| vec![(v * 7 + 1) % 50, (v + 3) % 50]).collect();
/// assert_eq!(bfs_rayon(&adj, 0), bfs_seq(&adj, 0));
/// ```
pub fn bfs_rayon(adj: &[Vec<i64>], src: i64) -> Vec<i64> {
    let dist: Vec<AtomicI64> = (0..adj.len()).map(|_| AtomicI64::new(-1)).collect();
    dist[src as usize].store(0, Ordering::Relaxed);
    let mut frontier = vec![src];
    let mut level = 0;
    while !frontier.is_empty() {
        level += 1;
        frontier = frontier
            .par_iter()
            .flat_map_iter(|&v| {
                adj[v as usize].iter().copied().filter(|&u| {
                    dist[u as usize]
                        .compare_exchange(-1, level, Ordering::Relaxed, Ordering::Relaxed)
                        .is_ok()
                })
            })
            .collect();
    }
    dist.into_iter().map(AtomicI64::into_inner).collect()
}

/// Breadth-first search to completion from node 0: the `#[vectorise]` kernel (a `while` loop over
/// the levels, each a gather of the frontier's neighbour lists, a filter of the unvisited and a
/// scatter of their level) against a sequential queue and hand-written rayon with
/// compare-and-swap claims. Input `random` (the suite's BFS graph: nodes of 0 to 15 uniform
/// random neighbours, held as `Vec<Vec<i64>>`): the size is the number of nodes.
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::Bfs};
/// for n in [1, 2_000] {
///     let inst = Bfs.prepare(&Case::new("random", n), &Extra::default());
///     let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
///     assert!(answers.iter().all(|a| a.mismatch(&answers[0]).is_none()), "{n}");
/// }
/// ```
pub struct Bfs;

impl Workload for Bfs {
    fn name(&self) -> &'static str {
        "bfs"
    }
    fn about(&self) -> &'static str {
        "breadth-first search to completion from node 0, nodes of 0-15 random neighbours (size = nodes); vectorise = #[vectorise] while loop over levels (the strategy the run chooses); vs sequential queue, rayon with compare-and-swap claims"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        let sizes: &[usize] = match scale {
            Scale::Check => &[1, 2, 5_000],
            Scale::Quick => &[1_000_000],
            Scale::Full => &[100_000, 1_000_000, 4_000_000],
        };
        sizes.iter().map(|&n| Case::new("random", n)).collect()
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let adj: Arc<Vec<Vec<i64>>> = Arc::new(bfs_input(case.size, 71 + case.size as u64).adj);
        let edges: u64 = adj.iter().map(|a| a.len() as u64).sum();
        let run = |f: fn(&[Vec<i64>], i64) -> Vec<i64>| {
            let adj = adj.clone();
            move || Answer::Ints(f(&adj, 0))
        };
        Instance {
            elements: edges,
            bytes: 8 * edges + 8 * case.size as u64,
            variants: vec![
                Variant::new("vectorise", Role::Flatland, true, run(kernels::bfs)),
                Variant::new("seq", Role::Baseline, false, run(bfs_seq)),
                Variant::new("rayon", Role::Baseline, true, run(bfs_rayon)),
            ],
        }
    }
}
