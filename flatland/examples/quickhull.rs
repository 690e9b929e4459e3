//! The convex hull by quickhull, written with `#[vectorise]`: split the points by the line
//! through the leftmost and rightmost points, then, on each side, keep the points left of the
//! line, find the farthest and recurse on the two new lines, both under one `map`.
//!
//! The recursion runs lifted: each level handles every open hull edge at once with segmented
//! filters and arg-max reductions, however unbalanced the edges are.
//!
//! `cargo run -p flatland --example quickhull`
use flatland::prelude::*;

#[vectorise]
mod hull {
    /// Twice the signed area of the triangle `(p, a, b)`: positive when `p` is left of `a -> b`.
    fn cross(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
        (a.0 - p.0) * (b.1 - p.1) - (a.1 - p.1) * (b.0 - p.0)
    }

    /// The index of the first largest of `(value, index)` pairs (-1 when empty).
    fn farthest(pairs: &[(f64, i64)]) -> i64 {
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

    /// The hull vertices strictly left of `line`, from its start, in order.
    fn left_of(pts: &[(f64, f64)], line: ((f64, f64), (f64, f64))) -> Vec<(f64, f64)> {
        let (a, b) = line;
        let left = pts.map(|q| (q, cross(q, a, b))).filter(|qc| qc.1 > 0.0);
        if left.len() == 0 {
            vec![a]
        } else {
            let far = left[farthest(left.zip(0..left.len()).map(|(qc, i)| (qc.1, i)))].0;
            let rest = left.map(|qc| qc.0);
            [(a, far), (far, b)].map(|l| left_of(rest, l)).concat()
        }
    }

    /// The hull's vertices clockwise from the point of smallest x (points that share the
    /// extreme x: the first of them in input order).
    pub fn convex_hull(pts: &[(f64, f64)]) -> Vec<(f64, f64)> {
        if pts.len() < 2 {
            pts.to_vec()
        } else {
            let xs = pts.zip(0..pts.len()).map(|(q, i)| (q.0, i));
            let neg = pts.zip(0..pts.len()).map(|(q, i)| (-q.0, i));
            let right = pts[farthest(xs)];
            let left = pts[farthest(neg)];
            [left_of(pts, (left, right)), left_of(pts, (right, left))].concat()
        }
    }
}

fn main() -> Result<()> {
    // The corners of a diamond and the grid points strictly inside it.
    let mut pts = vec![(-10.0, 0.0), (10.0, 0.0), (0.0, -10.0), (0.0, 10.0)];
    for i in -9..=9 {
        for j in -9..=9 {
            let (x, y) = (f64::from(i), f64::from(j));
            if x.abs() + y.abs() < 10.0 {
                pts.push((x, y));
            }
        }
    }
    let h = hull::try_convex_hull(&pts)?;
    assert_eq!(
        h,
        vec![(-10.0, 0.0), (0.0, 10.0), (10.0, 0.0), (0.0, -10.0)]
    );
    assert_eq!(h, hull::plan::convex_hull::reference(&pts)?);
    println!("hull of {} points: {h:?}", pts.len());
    Ok(())
}
