//! `kmeans`: rounds of Lloyd's algorithm on points in the plane.

use crate::harness::answer::Answer;
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use crate::harness::workloads::suite_inputs::points;
use crate::kernels;
use rayon::prelude::*;
use std::sync::Arc;

/// The rounds run.
pub const ROUNDS: i64 = 10;

/// The centres.
pub const CENTRES: usize = 16;

/// The nearest of the centres `(cx, cy)` to `(x, y)`: the first of equal distances.
fn nearest(x: f64, y: f64, cx: &[f64], cy: &[f64]) -> usize {
    let mut best = 0;
    let mut best_d = f64::INFINITY;
    for (j, (&a, &b)) in cx.iter().zip(cy).enumerate() {
        let d = (x - a) * (x - a) + (y - b) * (y - b);
        if d < best_d {
            best_d = d;
            best = j;
        }
    }
    best
}

/// Sums of x, of y and counts by centre.
type Sums = (Vec<f64>, Vec<f64>, Vec<i64>);

/// A k-means implementation: the centres after some rounds from the points and the initial
/// centres.
type KMeansFn = fn(&[f64], &[f64], &[f64], &[f64], i64) -> (Vec<f64>, Vec<f64>);

/// Each centre moved to the mean of its points (`sums`), or kept without points.
fn moved((sx, sy, count): Sums, cx: &mut [f64], cy: &mut [f64]) {
    for j in 0..cx.len() {
        if count[j] > 0 {
            cx[j] = sx[j] / count[j] as f64;
            cy[j] = sy[j] / count[j] as f64;
        }
    }
}

/// Adds each point `(xs[i], ys[i])` to the sums of its nearest centre.
fn add_points(sums: &mut Sums, xs: &[f64], ys: &[f64], cx: &[f64], cy: &[f64]) {
    for (&x, &y) in xs.iter().zip(ys) {
        let j = nearest(x, y, cx, cy);
        sums.0[j] += x;
        sums.1[j] += y;
        sums.2[j] += 1;
    }
}

/// The sequential loops.
///
/// ```
/// use flatland_cli::harness::workloads::kmeans::kmeans_seq;
/// let (cx, cy) = kmeans_seq(&[0.0, 1.0, 10.0], &[0.0, 0.0, 0.0], &[0.0, 5.0], &[0.0, 0.0], 3);
/// assert_eq!((cx, cy), (vec![0.5, 10.0], vec![0.0, 0.0]));
/// ```
pub fn kmeans_seq(
    xs: &[f64],
    ys: &[f64],
    cx: &[f64],
    cy: &[f64],
    rounds: i64,
) -> (Vec<f64>, Vec<f64>) {
    let k = cx.len();
    let (mut cx, mut cy) = (cx.to_vec(), cy.to_vec());
    for _ in 0..rounds {
        let mut sums: Sums = (vec![0.0; k], vec![0.0; k], vec![0; k]);
        add_points(&mut sums, xs, ys, &cx, &cy);
        moved(sums, &mut cx, &mut cy);
    }
    (cx, cy)
}

/// Hand-written rayon: per chunk of 2^14 points, the assignments folded into sums by centre,
/// the chunks' sums added up.
///
/// ```
/// use flatland_cli::harness::workloads::kmeans::{kmeans_rayon, kmeans_seq};
/// let xs: Vec<f64> = (0..100).map(|i| f64::from(i % 17)).collect();
/// let ys: Vec<f64> = (0..100).map(|i| f64::from(i % 5)).collect();
/// let c = [0.0, 8.0, 16.0];
/// assert_eq!(kmeans_rayon(&xs, &ys, &c, &c, 4), kmeans_seq(&xs, &ys, &c, &c, 4));
/// ```
pub fn kmeans_rayon(
    xs: &[f64],
    ys: &[f64],
    cx: &[f64],
    cy: &[f64],
    rounds: i64,
) -> (Vec<f64>, Vec<f64>) {
    const CHUNK: usize = 1 << 14;
    let k = cx.len();
    let (mut cx, mut cy) = (cx.to_vec(), cy.to_vec());
    let zero = || -> Sums { (vec![0.0; k], vec![0.0; k], vec![0; k]) };
    for _ in 0..rounds {
        let sums = xs
            .par_chunks(CHUNK)
            .zip(ys.par_chunks(CHUNK))
            .fold(zero, |mut s, (xs, ys)| {
                add_points(&mut s, xs, ys, &cx, &cy);
                s
            })
            .reduce(zero, |mut a, b| {
                for j in 0..k {
                    a.0[j] += b.0[j];
                    a.1[j] += b.1[j];
                    a.2[j] += b.2[j];
                }
                a
            });
        moved(sums, &mut cx, &mut cy);
    }
    (cx, cy)
}

/// k-means, ten rounds of 16 centres: the `#[vectorise]` kernel (a `for` loop over the rounds,
/// the nearest centre by a loop per point, the new centres from `hist` and `count_by_index`)
/// against the sequential loops and hand-written rayon. Input `points` (the suite's points, with
/// coordinates `k / 8` in `[-128, 128)`): the size is the number of points, the first 16 the
/// initial centres. The coordinates' sums are exact in any order, so the answers agree bit for
/// bit.
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::KMeans};
/// for n in [0, 5, 20_000] {
///     let inst = KMeans.prepare(&Case::new("points", n), &Extra::default());
///     let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
///     assert!(answers.iter().all(|a| a.mismatch(&answers[0]).is_none()), "{n}");
/// }
/// ```
pub struct KMeans;

impl Workload for KMeans {
    fn name(&self) -> &'static str {
        "kmeans"
    }
    fn about(&self) -> &'static str {
        "10 rounds of k-means (16 centres) on points in the plane; vectorise = #[vectorise] for loop: nearest centre by a loop per point, centres from hist and count_by_index (the strategy the run chooses); vs sequential loops, rayon chunked sums"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        let sizes: &[usize] = match scale {
            Scale::Check => &[0, 5, 70_000],
            Scale::Quick => &[1_000_000],
            Scale::Full => &[100_000, 1_000_000, 10_000_000],
        };
        sizes.iter().map(|&n| Case::new("points", n)).collect()
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let pts = points(case.size, 67 + case.size as u64);
        let xs: Arc<Vec<f64>> = Arc::new(pts.iter().map(|p| p.0).collect());
        let ys: Arc<Vec<f64>> = Arc::new(pts.iter().map(|p| p.1).collect());
        // The first points as the initial centres (fixed ones where there are fewer points).
        let start = |i: usize, c: fn(&(f64, f64)) -> f64| pts.get(i).map_or(i as f64, c);
        let cx: Arc<Vec<f64>> = Arc::new((0..CENTRES).map(|i| start(i, |p| p.0)).collect());
        let cy: Arc<Vec<f64>> = Arc::new((0..CENTRES).map(|i| start(i, |p| p.1)).collect());
        let both = |(mut x, y): (Vec<f64>, Vec<f64>)| {
            x.extend(y);
            Answer::Floats(x)
        };
        let run = |f: KMeansFn| {
            let (xs, ys, cx, cy) = (xs.clone(), ys.clone(), cx.clone(), cy.clone());
            move || both(f(&xs, &ys, &cx, &cy, ROUNDS))
        };
        let n = case.size as u64;
        Instance {
            elements: n * CENTRES as u64 * ROUNDS as u64,
            bytes: 16 * n * ROUNDS as u64,
            variants: vec![
                Variant::new("vectorise", Role::Flatland, true, run(kernels::kmeans)),
                Variant::new("seq", Role::Baseline, false, run(kmeans_seq)),
                Variant::new("rayon", Role::Baseline, true, run(kmeans_rayon)),
            ],
        }
    }
}
