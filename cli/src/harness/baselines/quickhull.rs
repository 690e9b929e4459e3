//! Quickhull: the convex hull of a planar point set, as indices into the input.
//!
//! Output rules (those of `flatland run quickhull`): the hull's vertices counter-clockwise,
//! starting from the point with the smallest x (smallest y on ties); points lying on a hull edge
//! are not vertices; among duplicate points the lowest index is reported. Orientation tests use
//! plain `f64` arithmetic, which is exact for integer coordinates below 2^26 in magnitude.

use rayon::join;

/// Twice the signed area of triangle `o a b`: positive when `b` lies left of the ray `o -> a`.
#[inline]
fn cross(o: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
}

/// The two extreme points: lexicographically smallest `(x, y)` and largest, lowest index on ties.
fn extremes(pts: &[(f64, f64)]) -> Option<(usize, usize)> {
    let key = |i: usize| pts[i];
    let lt = |a: (f64, f64), b: (f64, f64)| a.0 < b.0 || (a.0 == b.0 && a.1 < b.1);
    let mut lo = 0;
    let mut hi = 0;
    for i in 1..pts.len() {
        if lt(key(i), key(lo)) {
            lo = i;
        }
        if lt(key(hi), key(i)) {
            hi = i;
        }
    }
    (!pts.is_empty()).then_some((lo, hi))
}

/// Indices of the points strictly right of the ray `a -> b` (outside when `a -> b` is a
/// counter-clockwise hull edge).
fn right_of(pts: &[(f64, f64)], idx: &[usize], a: usize, b: usize) -> Vec<usize> {
    idx.iter()
        .copied()
        .filter(|&i| cross(pts[a], pts[b], pts[i]) < 0.0)
        .collect()
}

/// The point of `set` farthest right of `a -> b`; lowest index on ties.
fn farthest(pts: &[(f64, f64)], set: &[usize], a: usize, b: usize) -> usize {
    let mut best = set[0];
    let mut best_d = -cross(pts[a], pts[b], pts[best]);
    for &i in &set[1..] {
        let d = -cross(pts[a], pts[b], pts[i]);
        if d > best_d || (d == best_d && i < best) {
            best = i;
            best_d = d;
        }
    }
    best
}

/// Appends the hull vertices strictly between `a` and `b` (counter-clockwise) to `out`, for the
/// points `set` right of `a -> b`; an explicit work list, so no input overflows the stack.
fn chain_seq(pts: &[(f64, f64)], a: usize, b: usize, set: Vec<usize>, out: &mut Vec<usize>) {
    enum Job {
        Chain(usize, usize, Vec<usize>),
        Emit(usize),
    }
    let mut stack = vec![Job::Chain(a, b, set)];
    while let Some(job) = stack.pop() {
        match job {
            Job::Emit(i) => out.push(i),
            Job::Chain(_, _, set) if set.is_empty() => {}
            Job::Chain(a, b, set) => {
                let c = farthest(pts, &set, a, b);
                let left = right_of(pts, &set, a, c);
                let right = right_of(pts, &set, c, b);
                stack.push(Job::Chain(c, b, right));
                stack.push(Job::Emit(c));
                stack.push(Job::Chain(a, c, left));
            }
        }
    }
}

fn chain_par(pts: &[(f64, f64)], a: usize, b: usize, set: Vec<usize>, depth: u32) -> Vec<usize> {
    const GRAIN: usize = 8192;
    if set.len() < GRAIN || depth == 0 {
        let mut out = Vec::new();
        chain_seq(pts, a, b, set, &mut out);
        return out;
    }
    let c = farthest(pts, &set, a, b);
    let (left, right) = join(|| right_of(pts, &set, a, c), || right_of(pts, &set, c, b));
    drop(set);
    let (mut l, r) = join(
        || chain_par(pts, a, c, left, depth - 1),
        || chain_par(pts, c, b, right, depth - 1),
    );
    l.push(c);
    l.extend(r);
    l
}

fn hull_with(
    pts: &[(f64, f64)],
    chain: impl Fn(usize, usize, Vec<usize>) -> Vec<usize> + Sync,
    split: impl Fn(&[usize], usize, usize) -> (Vec<usize>, Vec<usize>),
) -> Vec<usize> {
    let Some((lo, hi)) = extremes(pts) else {
        return Vec::new();
    };
    if pts[lo] == pts[hi] {
        return vec![lo];
    }
    let all: Vec<usize> = (0..pts.len()).collect();
    let (below, above) = split(&all, lo, hi);
    drop(all);
    let mut out = vec![lo];
    out.extend(chain(lo, hi, below));
    out.push(hi);
    out.extend(chain(hi, lo, above));
    out
}

/// The convex hull by sequential quickhull.
///
/// ```
/// use flatland_cli::harness::baselines::quickhull::hull_seq;
/// let pts = [(0.0, 0.0), (2.0, 0.0), (1.0, 0.0), (2.0, 2.0), (1.0, 1.0), (0.0, 2.0), (0.0, 0.0)];
/// assert_eq!(hull_seq(&pts), vec![0, 1, 3, 5]);
/// ```
pub fn hull_seq(pts: &[(f64, f64)]) -> Vec<usize> {
    hull_with(
        pts,
        |a, b, set| {
            let mut out = Vec::new();
            chain_seq(pts, a, b, set, &mut out);
            out
        },
        |all, lo, hi| (right_of(pts, all, lo, hi), right_of(pts, all, hi, lo)),
    )
}

/// The convex hull by quickhull with `rayon::join` on both halves (sequential below 8,192 points
/// or 48 levels deep).
///
/// ```
/// use flatland_cli::harness::baselines::quickhull::{hull_par, hull_seq};
/// let pts: Vec<(f64, f64)> = (0..100).map(|i| (f64::from(i % 10), f64::from(i / 10))).collect();
/// assert_eq!(hull_par(&pts), vec![0, 9, 99, 90]);
/// assert_eq!(hull_par(&pts), hull_seq(&pts));
/// ```
pub fn hull_par(pts: &[(f64, f64)]) -> Vec<usize> {
    hull_with(
        pts,
        |a, b, set| chain_par(pts, a, b, set, 48),
        |all, lo, hi| join(|| right_of(pts, all, lo, hi), || right_of(pts, all, hi, lo)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::inputs::Rng;

    /// Andrew's monotone chain with strict turns: an independent reference.
    fn monotone(pts: &[(f64, f64)]) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..pts.len()).collect();
        idx.sort_by(|&a, &b| pts[a].partial_cmp(&pts[b]).unwrap().then(a.cmp(&b)));
        idx.dedup_by(|b, a| pts[*a] == pts[*b]);
        if idx.len() < 3 {
            return idx;
        }
        let mut h: Vec<usize> = Vec::new();
        for pass in 0..2 {
            let start = h.len();
            let it: Box<dyn Iterator<Item = &usize>> = if pass == 0 {
                Box::new(idx.iter())
            } else {
                Box::new(idx.iter().rev())
            };
            for &i in it {
                while h.len() >= start + 2
                    && cross(pts[h[h.len() - 2]], pts[h[h.len() - 1]], pts[i]) <= 0.0
                {
                    h.pop();
                }
                h.push(i);
            }
            h.pop();
        }
        h
    }

    #[test]
    fn random_integer_points_agree() {
        let mut r = Rng::new(11);
        for n in [0, 1, 2, 3, 5, 20, 300, 20_000] {
            let pts: Vec<(f64, f64)> = (0..n)
                .map(|_| (r.below(50) as f64, r.below(50) as f64))
                .collect();
            let want = monotone(&pts);
            assert_eq!(hull_seq(&pts), want, "n = {n}");
            assert_eq!(hull_par(&pts), want, "n = {n}");
        }
    }

    #[test]
    fn degenerate_inputs() {
        assert_eq!(hull_seq(&[(1.0, 1.0), (1.0, 1.0)]), vec![0]);
        assert_eq!(
            hull_seq(&[(0.0, 0.0), (1.0, 1.0), (2.0, 2.0), (3.0, 3.0)]),
            vec![0, 3]
        );
        assert_eq!(
            hull_seq(&[(2.0, 0.0), (0.0, 0.0), (0.0, 0.0), (1.0, 5.0), (2.0, 0.0)]),
            vec![1, 0, 3]
        );
    }
}
