//! `pagerank`: ten iterations of PageRank on a power-law graph, pulling along in-edges.

use crate::harness::answer::Answer;
use crate::harness::inputs::{Graph, power_law_graph};
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use crate::kernels;
use flatland_runtime::elt::Nested;
use rayon::prelude::*;
use std::sync::Arc;

/// The damping factor.
const DAMPING: f64 = 0.85;

/// The iterations run.
pub const ITERATIONS: i64 = 10;

/// Each node's contribution: its rank over its out-degree (0 for a node without out-edges).
fn contribution(r: f64, d: f64) -> f64 {
    if d > 0.0 { r / d } else { 0.0 }
}

/// The sum of node `v`'s in-neighbours' contributions `c`, left to right.
fn pull(g: &Graph, c: &[f64], v: usize) -> f64 {
    g.sources[g.offsets[v]..g.offsets[v + 1]]
        .iter()
        .map(|&u| c[u])
        .sum()
}

/// The sequential loops.
///
/// ```
/// use flatland_cli::harness::{inputs::power_law_graph, workloads::pagerank::pagerank_seq};
/// let r = pagerank_seq(&power_law_graph(100, 1000, 1), 10);
/// assert_eq!(r.len(), 100);
/// ```
pub fn pagerank_seq(g: &Graph, iters: i64) -> Vec<f64> {
    let n = g.out_degree.len();
    let base = (1.0 - DAMPING) / n as f64;
    let deg: Vec<f64> = g.out_degree.iter().map(|&d| d as f64).collect();
    let mut r = vec![1.0 / n as f64; n];
    let mut c = vec![0.0; n];
    for _ in 0..iters {
        for ((c, &x), &d) in c.iter_mut().zip(&r).zip(&deg) {
            *c = contribution(x, d);
        }
        for (v, rv) in r.iter_mut().enumerate() {
            *rv = pull(g, &c, v) * DAMPING + base;
        }
    }
    r
}

/// Hand-written rayon: both steps of an iteration as parallel loops over the nodes.
///
/// ```
/// use flatland_cli::harness::{inputs::power_law_graph, workloads::pagerank::{pagerank_rayon, pagerank_seq}};
/// let g = power_law_graph(100, 1000, 1);
/// assert_eq!(pagerank_rayon(&g, 10), pagerank_seq(&g, 10));
/// ```
pub fn pagerank_rayon(g: &Graph, iters: i64) -> Vec<f64> {
    let n = g.out_degree.len();
    let base = (1.0 - DAMPING) / n as f64;
    let deg: Vec<f64> = g.out_degree.iter().map(|&d| d as f64).collect();
    let mut r = vec![1.0 / n as f64; n];
    let mut c = vec![0.0; n];
    for _ in 0..iters {
        c.par_iter_mut()
            .zip(&r)
            .zip(&deg)
            .for_each(|((c, &x), &d)| *c = contribution(x, d));
        r.par_iter_mut().enumerate().for_each(|(v, rv)| {
            *rv = pull(g, &c, v) * DAMPING + base;
        });
    }
    r
}

/// PageRank, ten iterations: the `#[vectorise]` kernel (a `for` loop whose body is a map and a
/// pull-direction smvm over `Nested` in-edges, run by the executor) against the sequential loops
/// and hand-written rayon. Input `power-law` ([`power_law_graph`]): the size is the number of
/// edges, with a tenth as many nodes. The sums of a node's in-edges are associated differently
/// (flatland's canonical association, left to right), so the answers agree within 10^-9 of
/// each rank.
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::PageRank};
/// let inst = PageRank.prepare(&Case::new("power-law", 20_000), &Extra::default());
/// let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
/// assert!(answers.iter().all(|a| a.mismatch(&answers[0]).is_none()));
/// ```
pub struct PageRank;

impl Workload for PageRank {
    fn name(&self) -> &'static str {
        "pagerank"
    }
    fn about(&self) -> &'static str {
        "10 PageRank iterations on a power-law graph (size = edges, nodes = edges / 10); vectorise = #[vectorise] for loop over a pull smvm (the strategy the run chooses); vs sequential loops, rayon"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        let sizes: &[usize] = match scale {
            Scale::Check => &[10, 20_000],
            Scale::Quick => &[10_000_000],
            Scale::Full => &[1_000_000, 10_000_000],
        };
        sizes.iter().map(|&n| Case::new("power-law", n)).collect()
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let nodes = (case.size / 10).max(1);
        let g = Arc::new(power_law_graph(nodes, case.size, 59 + case.size as u64));
        let sources: Vec<i64> = g.sources.iter().map(|&u| u as i64).collect();
        let ins =
            Arc::new(Nested::from_offsets(g.offsets.clone(), sources).expect("valid offsets"));
        let deg: Arc<Vec<f64>> = Arc::new(g.out_degree.iter().map(|&d| d as f64).collect());
        let want = pagerank_seq(&g, ITERATIONS);
        let bound: Arc<[f64]> = want.iter().map(|r| r.abs() * 1e-9).collect();
        let edges = g.sources.len() as u64;
        let (g1, g2) = (g.clone(), g);
        let (b1, b2, b3) = (bound.clone(), bound.clone(), bound);
        Instance {
            elements: edges * ITERATIONS as u64,
            bytes: (16 * edges + 24 * nodes as u64) * ITERATIONS as u64,
            variants: vec![
                Variant::new("vectorise", Role::Flatland, true, move || {
                    let r = kernels::pagerank(&ins, &deg, ITERATIONS);
                    Answer::Close(r, b1.clone())
                }),
                Variant::new("seq", Role::Baseline, false, move || {
                    Answer::Close(pagerank_seq(&g1, ITERATIONS), b2.clone())
                }),
                Variant::new("rayon", Role::Baseline, true, move || {
                    Answer::Close(pagerank_rayon(&g2, ITERATIONS), b3.clone())
                }),
            ],
        }
    }
}
