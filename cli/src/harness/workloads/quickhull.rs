//! `quickhull`: the convex hull of random points in a disc and on a circle.

use super::sizes;
use crate::harness::answer::Answer;
use crate::harness::baselines::quickhull::{hull_par, hull_seq};
use crate::harness::dsl::{Dsl, point_list, points};
use crate::harness::inputs::Rng;
use crate::harness::vectorised;
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use std::f64::consts::TAU;
use std::sync::Arc;

/// The hull's vertices as coordinates `x0, y0, x1, y1, ...`.
fn coords(hull: impl IntoIterator<Item = (f64, f64)>) -> Answer {
    Answer::Floats(hull.into_iter().flat_map(|(x, y)| [x, y]).collect())
}

/// The dsl program lists the hull clockwise from the leftmost point (upper chain first); the
/// harness compares counter-clockwise from the leftmost point, as `flatland run quickhull` prints.
fn counter_clockwise(mut cw: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    if cw.len() > 1 {
        cw[1..].reverse();
    }
    cw
}

/// Quickhull on `n` random points in the unit disc or on the unit circle (every point a vertex):
/// the vectoriser's dsl program (`programs::quickhull`: lifted max-by-distance, lifted filter,
/// lifted recursion, flattened by the executor) against sequential quickhull and rayon-`join`
/// quickhull. Random coordinates have no ties, so the vertex lists must agree exactly.
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::Quickhull};
/// for input in ["disc", "circle"] {
///     let inst = Quickhull.prepare(&Case::new(input, 2_000), &Extra::default());
///     let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
///     assert!(answers.iter().all(|a| a == &answers[0]), "{input}");
/// }
/// ```
pub struct Quickhull;

impl Workload for Quickhull {
    fn name(&self) -> &'static str {
        "quickhull"
    }
    fn about(&self) -> &'static str {
        "convex hull; flatland = dsl programs::quickhull flattened by the vectoriser's executor; vectorise = the same under #[vectorise] (the strategy the run chooses: per-lane where the function has that form); vs sequential, rayon-join quickhull"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        let ns = sizes(scale, &[0, 1, 2, 3, 500], &[100_000], &[100_000, 1_000_000]);
        let mut out: Vec<Case> = ns.iter().map(|&n| Case::new("disc", n)).collect();
        let circle = match scale {
            Scale::Check => vec![3, 500],
            Scale::Quick => vec![100_000],
            Scale::Full => vec![100_000, 1_000_000],
        };
        out.extend(circle.into_iter().map(|n| Case::new("circle", n)));
        out
    }
    /// The largest disc: the circle, every point a vertex, runs the flattened variants about six
    /// times longer, which the sweep would repeat at every thread count.
    fn sweep_case(&self, scale: Scale, extra: &Extra) -> Option<Case> {
        self.cases(scale, extra)
            .into_iter()
            .filter(|c| c.input == "disc")
            .max_by_key(|c| c.size)
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let n = case.size;
        let mut r = Rng::new(61 + n as u64);
        let pts: Vec<(f64, f64)> = (0..n)
            .map(|_| {
                let t = TAU * r.unit();
                let rad = if case.input == "circle" {
                    1.0
                } else {
                    r.unit().sqrt()
                };
                (rad * t.cos(), rad * t.sin())
            })
            .collect();
        let pts_v = points(&pts);
        let pts = Arc::new(pts);
        let (a, b, c, d) = (pts.clone(), pts.clone(), pts.clone(), pts);
        let dsl = Dsl::quickhull();
        Instance {
            elements: n as u64,
            bytes: 16 * n as u64,
            variants: vec![
                Variant::new("dsl", Role::Flatland, true, move || {
                    coords(counter_clockwise(point_list(&dsl.run(vec![pts_v.clone()]))))
                }),
                Variant::new("vectorise", Role::Flatland, true, move || {
                    coords(counter_clockwise(vectorised::hull(&c)))
                }),
                Variant::new("per_lane", Role::Flatland, true, move || {
                    coords(counter_clockwise(vectorised::hull_per_lane(&d)))
                }),
                Variant::new("seq", Role::Baseline, false, move || {
                    coords(hull_seq(&a).into_iter().map(|i| a[i]))
                }),
                Variant::new("rayon", Role::Baseline, true, move || {
                    coords(hull_par(&b).into_iter().map(|i| b[i]))
                }),
            ],
        }
    }
}
