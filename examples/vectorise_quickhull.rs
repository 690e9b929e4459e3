//! Quickhull (NESL) written with `#[vectorise]`: lifted max-by-distance (a `reduce` with a
//! lambda), lifted `filter`, and lifted recursion on two lines under `map`. Checked bitwise
//! against the dsl program (`programs::quickhull`), `hull_reference` and plain Rust.
//!
//! `cargo run --example vectorise_quickhull`
use flatland::vectorise;
use flatland::vectoriser::programs::{self, Point};
use quickcheck::QuickCheck;

#[vectorise]
mod kernels {
    /// Twice the signed area of the triangle `(p, a, b)`: positive when `p` is left of `a -> b`.
    fn cross(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
        (a.0 - p.0) * (b.1 - p.1) - (a.1 - p.1) * (b.0 - p.0)
    }

    /// The index of the first largest value of `(value, index)` pairs (-1 when empty).
    fn arg_max(pairs: &[(f64, i64)]) -> i64 {
        pairs
            .reduce((f64::NAN, -1), |a, b| {
                if a.1 < 0 || (b.1 >= 0 && b.0 > a.0) {
                    b
                } else {
                    a
                }
            })
            .1
    }

    /// The index of the first smallest value of `(value, index)` pairs (-1 when empty).
    fn arg_min(pairs: &[(f64, i64)]) -> i64 {
        pairs
            .reduce((f64::NAN, -1), |a, b| {
                if a.1 < 0 || (b.1 >= 0 && b.0 < a.0) {
                    b
                } else {
                    a
                }
            })
            .1
    }

    /// The hull points strictly left of `line`, from its start, in order.
    pub fn hsplit(pts: &[(f64, f64)], line: ((f64, f64), (f64, f64))) -> Vec<(f64, f64)> {
        let (p1, p2) = line;
        let packed = pts.map(|q| (q, cross(q, p1, p2))).filter(|qc| qc.1 > 0.0);
        if packed.len() < 2 {
            [vec![p1], packed.map(|qc| qc.0)].concat()
        } else {
            let pts_only = packed.map(|qc| qc.0);
            let far = arg_max(packed.zip(0..packed.len()).map(|(qc, i)| (qc.1, i)));
            let pm = packed[far].0;
            [(p1, pm), (pm, p2)].map(|l| hsplit(pts_only, l)).concat()
        }
    }

    /// The convex hull, from the leftmost point, clockwise.
    pub fn hull(pts: &[(f64, f64)]) -> Vec<(f64, f64)> {
        if pts.len() < 2 {
            pts.to_vec()
        } else {
            let xs = pts.zip(0..pts.len()).map(|(q, i)| (q.0, i));
            let minx = pts[arg_min(xs)];
            let maxx = pts[arg_max(xs)];
            [hsplit(pts, (minx, maxx)), hsplit(pts, (maxx, minx))].concat()
        }
    }
}

fn bits(ps: &[Point]) -> Vec<(u64, u64)> {
    ps.iter().map(|p| (p.0.to_bits(), p.1.to_bits())).collect()
}

fn agree(pts: &[Point]) -> bool {
    let want = bits(&programs::quickhull_ref(pts));
    let (p, f) = programs::quickhull();
    let got = [
        kernels::hull(pts).expect("hull runs"),
        kernels::hull_reference(pts).expect("hull evaluates"),
        p.exec1(&f, pts.to_vec()).expect("dsl runs"),
        p.eval1(&f, pts.to_vec()).expect("dsl evaluates"),
    ];
    got.iter().all(|g| bits(g) == want)
}

fn prop(raw: Vec<(i8, i8)>) -> bool {
    let pts: Vec<Point> = raw
        .iter()
        .map(|&(x, y)| (f64::from(x) * 0.5, f64::from(y) * 0.25))
        .collect();
    agree(&pts)
}

/// Degenerate inputs (empty, one point, duplicates, collinear, a circle), then generated ones;
/// panics on any disagreement.
pub(crate) fn check() {
    let circle: Vec<Point> = (0..64).map(|k| (f64::from(k) * 0.1).sin_cos()).collect();
    let line: Vec<Point> = (0..10)
        .map(|k| (f64::from(k), 2.0 * f64::from(k)))
        .collect();
    for pts in [vec![], vec![(1.0, 2.0)], vec![(0.5, 0.5); 5], line, circle] {
        assert!(agree(&pts), "disagreement on {pts:?}");
    }
    QuickCheck::new()
        .tests(40)
        .quickcheck(prop as fn(Vec<(i8, i8)>) -> bool);
}

fn main() {
    check();
    let pts = vec![(0.0, 0.0), (1.0, 1.0), (2.0, 0.0), (1.0, -1.0), (1.0, 0.0)];
    println!("{}", kernels::program());
    println!("hull: {:?}", kernels::hull(&pts).expect("hull runs"));
    println!("macro, reference, dsl and plain Rust agree bitwise");
}
