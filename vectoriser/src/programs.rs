//! The vectoriser's reference programs, built with the [`crate::dsl`]: each function
//! returns the program and a handle on its entry point. Tests compare them with plain Rust;
//! the workspace's `examples/` run them.
//!
//! ```
//! use flatland_vectoriser::programs;
//! let (p, qs) = programs::quicksort(programs::Pivot::Middle);
//! assert_eq!(p.eval(&qs, vec![3, 1, 2, 3]).unwrap(), vec![1, 2, 3, 3]);
//! ```

// The handles' types spell out the programs' signatures; naming each would hide them.
#![allow(clippy::type_complexity)]

use crate::dsl::{
    Arr, Ex, Func, Predicate, ProgramBuilder, array, if_, iota, iota_step, let_, pair, replicate,
};

/// A 2-D point.
pub type Point = (f64, f64);

/// `dot(a, b) = sum(map(*, a, b))`.
///
/// ```
/// let (p, f) = flatland_vectoriser::programs::dot();
/// assert_eq!(p.eval(&f, (vec![1.0, 2.0], vec![3.0, 4.0])).unwrap(), 11.0);
/// ```
pub fn dot() -> (ProgramBuilder, Func<(Arr<f64>, Arr<f64>), f64>) {
    let mut p = ProgramBuilder::new();
    let f = p.function(
        "dot",
        ["a", "b"],
        |_, (a, b): (Ex<Arr<f64>>, Ex<Arr<f64>>)| a.zip_map(&b, |x, y| x * y).sum(),
    );
    (p, f)
}

/// `sum_squares(xs) = sum(map(x * x, xs))`.
///
/// ```
/// let (p, f) = flatland_vectoriser::programs::sum_squares();
/// assert_eq!(p.eval(&f, vec![1.0, 2.0]).unwrap(), 5.0);
/// ```
pub fn sum_squares() -> (ProgramBuilder, Func<(Arr<f64>,), f64>) {
    let mut p = ProgramBuilder::new();
    let f = p.function("sum_squares", ["xs"], |_, xs: Ex<Arr<f64>>| {
        xs.map(|x| x.clone() * x).sum()
    });
    (p, f)
}

/// Sparse matrix times dense vector: `rows.map(|row| row.map(|(i, x)| x * v[i]).sum())`, the
/// vector `v` free in the inner map.
///
/// ```
/// let (p, f) = flatland_vectoriser::programs::smvm();
/// assert_eq!(p.eval(&f, (vec![vec![(1, 2.0)], vec![]], vec![1.0, 5.0])).unwrap(), vec![10.0, 0.0]);
/// ```
pub fn smvm() -> (
    ProgramBuilder,
    Func<(Arr<Arr<(i64, f64)>>, Arr<f64>), Arr<f64>>,
) {
    let mut p = ProgramBuilder::new();
    let f = p.function(
        "smvm",
        ["rows", "v"],
        |_, (rows, v): (Ex<Arr<Arr<(i64, f64)>>>, Ex<Arr<f64>>)| {
            rows.map(move |row| row.map(|e| e.get1() * v.at(e.get0())).sum())
        },
    );
    (p, f)
}

/// The primes below `n`, as NESL's sieve: the primes below `isqrt(n) + 1` (recursively), their
/// multiples from `2p` with stride `p` (strided `iota`, one per prime, in parallel), `scatter`
/// of `false` flags over them, and a `filter` of the indices still flagged.
///
/// ```
/// let (p, f) = flatland_vectoriser::programs::primes();
/// assert_eq!(p.eval(&f, 20).unwrap(), vec![2, 3, 5, 7, 11, 13, 17, 19]);
/// ```
pub fn primes() -> (ProgramBuilder, Func<(i64,), Arr<i64>>) {
    let mut p = ProgramBuilder::new();
    let f = p.function("primes", ["n"], |primes, n: Ex<i64>| {
        let empty = array::<i64>(vec![]);
        let body = {
            let n = n.clone();
            let_(n.to_f64().sqrt().to_i64() + 1, move |r| {
                let_(primes.call(r), move |sqr_primes| {
                    let n1 = n.clone();
                    let composites = sqr_primes.map(move |q| {
                        let count = if_(
                            (q.clone() * 2).lt(n1.clone()),
                            (n1.clone() - 1 - q.clone() * 2) / q.clone() + 1,
                            0,
                        );
                        iota_step(count, q.clone() * 2, q)
                    });
                    let n2 = n.clone();
                    let_(composites.concat(), move |flat| {
                        let flags = replicate(n2.clone(), true)
                            .scatter(&flat, &replicate(flat.len(), false));
                        let_(flags, move |flags| {
                            iota(n2).filter(move |i| i.ge(2).and(flags.at(i)))
                        })
                    })
                })
            })
        };
        if_(n.le(2), empty, body)
    });
    (p, f)
}

/// `count_down(n) = if n <= 0 then 0 else count_down(n - 1) + 1`: recursion `n + 1` calls deep
/// (`count_down(0)` included) with one scalar per level, the cheapest deep recursion (what the
/// [`crate::limits`] tests and measurements run).
///
/// ```
/// let (p, f) = flatland_vectoriser::programs::count_down();
/// assert_eq!(p.eval(&f, 1_000).unwrap(), 1_000);
/// assert_eq!(p.exec(&f, 1_000).unwrap(), 1_000);
/// ```
pub fn count_down() -> (ProgramBuilder, Func<(i64,), i64>) {
    let mut p = ProgramBuilder::new();
    let f = p.function("count_down", ["n"], |me, n: Ex<i64>| {
        if_(n.le(0), Ex::from(0i64), me.call(n - 1) + 1)
    });
    (p, f)
}

/// How [`quicksort`] picks its pivot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pivot {
    /// The middle element (`xs[len / 2]`).
    Middle,
    /// The first element: on sorted input every level peels one element, so recursion is as
    /// deep as the input is long.
    First,
}

/// Quicksort: a three-way `filter` around the pivot, the two outer parts sorted in parallel by a
/// recursive call under `map`, and the parts joined with `append`.
///
/// ```
/// use flatland_vectoriser::programs::{quicksort, Pivot};
/// let (p, f) = quicksort(Pivot::First);
/// assert_eq!(p.eval(&f, vec![5, -1, 5, 0]).unwrap(), vec![-1, 0, 5, 5]);
/// ```
pub fn quicksort(pivot: Pivot) -> (ProgramBuilder, Func<(Arr<i64>,), Arr<i64>>) {
    let mut p = ProgramBuilder::new();
    let f = p.function("quicksort", ["xs"], |qs, xs: Ex<Arr<i64>>| {
        let at = match pivot {
            Pivot::Middle => xs.len() / 2,
            Pivot::First => Ex::from(0i64),
        };
        let sorted = let_(xs.at(at), |piv| {
            let (p0, p1) = (piv.clone(), piv);
            let preds: Vec<Predicate<i64>> =
                vec![Box::new(move |x| x.lt(p0)), Box::new(move |x| x.equals(p1))];
            xs.filter_with(preds, |parts| {
                let outer = array(vec![parts[0].clone(), parts[2].clone()]);
                let_(outer.map(|v| qs.call(v)), |s| {
                    s.at(0).append(&parts[1]).append(&s.at(1))
                })
            })
        });
        if_(xs.len().le(1), xs.clone(), sorted)
    });
    (p, f)
}

fn cross(p: &Ex<Point>, a: &Ex<Point>, b: &Ex<Point>) -> Ex<f64> {
    (a.get0() - p.get0()) * (b.get1() - p.get1()) - (a.get1() - p.get1()) * (b.get0() - p.get0())
}

/// Plain-Rust form of the cross product [`quickhull`] uses (same operation order, same bits).
///
/// ```
/// assert_eq!(flatland_vectoriser::programs::cross_ref((0.0, 1.0), (0.0, 0.0), (1.0, 0.0)), 1.0);
/// ```
pub fn cross_ref(p: Point, a: Point, b: Point) -> f64 {
    (a.0 - p.0) * (b.1 - p.1) - (a.1 - p.1) * (b.0 - p.0)
}

/// The points of `pts` strictly left of `p1 -> p2`, split recursively at the farthest one.
fn hsplit_ref(pts: &[Point], p1: Point, p2: Point) -> Vec<Point> {
    let packed: Vec<(Point, f64)> = pts
        .iter()
        .map(|&q| (q, cross_ref(q, p1, p2)))
        .filter(|(_, c)| *c > 0.0)
        .collect();
    if packed.len() < 2 {
        let mut out = vec![p1];
        out.extend(packed.iter().map(|(q, _)| *q));
        return out;
    }
    let mut best = 0;
    for (i, (_, c)) in packed.iter().enumerate() {
        if *c > packed[best].1 {
            best = i;
        }
    }
    let pm = packed[best].0;
    let rest: Vec<Point> = packed.iter().map(|(q, _)| *q).collect();
    let mut out = hsplit_ref(&rest, p1, pm);
    out.extend(hsplit_ref(&rest, pm, p2));
    out
}

/// Quickhull in plain Rust, the reference the flattened [`quickhull`] is tested against: the hull
/// vertices in the order the nested program produces them (the leftmost point, the upper chain,
/// the rightmost point, the lower chain), with ties broken by the first index as there.
///
/// ```
/// use flatland_vectoriser::programs::quickhull_ref;
/// let sq = [(0.0, 0.0), (1.0, 1.0), (0.5, 0.5), (1.0, 0.0), (0.0, 1.0)];
/// assert_eq!(quickhull_ref(&sq).len(), 4);
/// ```
pub fn quickhull_ref(pts: &[Point]) -> Vec<Point> {
    if pts.len() < 2 {
        return pts.to_vec();
    }
    let (mut lo, mut hi) = (0, 0);
    for (i, q) in pts.iter().enumerate() {
        if q.0 < pts[lo].0 {
            lo = i;
        }
        if q.0 > pts[hi].0 {
            hi = i;
        }
    }
    let mut out = hsplit_ref(pts, pts[lo], pts[hi]);
    out.extend(hsplit_ref(pts, pts[hi], pts[lo]));
    out
}

/// Index of the first maximum of `(value, index)` pairs: associative, ties to the left.
fn argbest(pairs: &Ex<Arr<(f64, i64)>>, better_right: fn(Ex<f64>, Ex<f64>) -> Ex<bool>) -> Ex<i64> {
    pairs
        .reduce_with(pair(Ex::from(f64::NAN), Ex::from(-1i64)), move |a, b| {
            let take_b = a
                .get1()
                .lt(0)
                .or(b.get1().ge(0).and(better_right(a.get0(), b.get0())));
            if_(take_b, b, a)
        })
        .get1()
}

/// Quickhull (NESL): `hsplit(points, (p1, p2))` keeps the points strictly left of the line, and if
/// two or more remain recurses, in parallel under `map`, on the two lines through the farthest
/// one (lifted max-by-distance, lifted filter, lifted recursion). `hull` returns the hull's
/// points in order, starting from the leftmost point.
///
/// ```
/// let (p, hull) = flatland_vectoriser::programs::quickhull();
/// let pts = vec![(0.0, 0.0), (1.0, 1.0), (2.0, 0.0), (1.0, -1.0), (1.0, 0.0)];
/// assert_eq!(p.eval(&hull, pts).unwrap(), vec![(0.0, 0.0), (1.0, 1.0), (2.0, 0.0), (1.0, -1.0)]);
/// ```
pub fn quickhull() -> (ProgramBuilder, Func<(Arr<Point>,), Arr<Point>>) {
    let mut p = ProgramBuilder::new();
    let hsplit = p.function(
        "hsplit",
        ["pts", "line"],
        |hsplit, (pts, line): (Ex<Arr<Point>>, Ex<(Point, Point)>)| {
            let (p1, p2) = (line.get0(), line.get1());
            let (q1, q2) = (p1.clone(), p2.clone());
            let_(
                pts.map(move |q| pair(q.clone(), cross(&q, &q1, &q2))),
                move |with_cross| {
                    let packed = with_cross.filter(|qc| qc.get1().gt(0.0));
                    let_(packed, move |packed| {
                        let few = array(vec![p1.clone()]).append(&packed.map(|qc| qc.get0()));
                        let pts_only = packed.map(|qc| qc.get0());
                        let idx = iota(packed.len());
                        let pairs = packed.zip_map(&idx, |qc, i| pair(qc.get1(), i));
                        let far = let_(
                            packed.at(argbest(&pairs, |a, b| b.gt(a))).get0(),
                            move |pm| {
                                let lines = array(vec![pair(p1.clone(), pm.clone()), pair(pm, p2)]);
                                let_(pts_only, move |pts_only| {
                                    lines.map(move |l| hsplit.call((pts_only, l))).concat()
                                })
                            },
                        );
                        if_(packed.len().lt(2), few, far)
                    })
                },
            )
        },
    );
    let hull = p.function("hull", ["pts"], move |_, pts: Ex<Arr<Point>>| {
        let idx = iota(pts.len());
        let xs = pts.zip_map(&idx, |q, i| pair(q.get0(), i));
        let small = pts.len().lt(2);
        let all = pts.clone();
        let_(xs, move |xs| {
            let lo = argbest(&xs, |a, b| b.lt(a));
            let hi = argbest(&xs, |a, b| b.gt(a));
            let body = let_(pts.at(lo), move |minx| {
                let_(pts.at(hi), move |maxx| {
                    let upper = hsplit.call((pts.clone(), pair(minx.clone(), maxx.clone())));
                    upper.append(&hsplit.call((pts.clone(), pair(maxx, minx))))
                })
            });
            if_(small, all, body)
        })
    });
    (p, hull)
}

/// `treeLookup` from the DPH virtual-segments paper: look up every index of `xs` in the shared
/// `table` by halving `xs` (`slice`) and recursing on both halves in parallel under `map`, with
/// `table` free in the lifted calls. Replicating `table` naively makes this O(n²); with virtual
/// segments it is O(n log n).
///
/// ```
/// let (p, f) = flatland_vectoriser::programs::tree_lookup();
/// assert_eq!(p.eval(&f, (vec![10, 20, 30], vec![2, 0, 1, 2])).unwrap(), vec![30, 10, 20, 30]);
/// ```
pub fn tree_lookup() -> (ProgramBuilder, Func<(Arr<i64>, Arr<i64>), Arr<i64>>) {
    let mut p = ProgramBuilder::new();
    let f = p.function(
        "tree_lookup",
        ["table", "xs"],
        |tl, (table, xs): (Ex<Arr<i64>>, Ex<Arr<i64>>)| {
            let t1 = table.clone();
            let base = xs.map(move |i| t1.at(i));
            let split = let_(xs.len() / 2, |half| {
                let halves = array(vec![
                    xs.slice(0, half.clone()),
                    xs.slice(half.clone(), xs.len() - half),
                ]);
                halves.map(move |s| tl.call((table, s))).concat()
            });
            if_(xs.len().le(1), base, split)
        },
    );
    (p, f)
}

/// `indices`: the direct form of `treeLookup`, `xs.map(|i| table[i])` (a lifted index into a
/// free array).
///
/// ```
/// let (p, f) = flatland_vectoriser::programs::indices();
/// assert_eq!(p.eval(&f, (vec![10, 20], vec![1, 1, 0])).unwrap(), vec![20, 20, 10]);
/// ```
pub fn indices() -> (ProgramBuilder, Func<(Arr<i64>, Arr<i64>), Arr<i64>>) {
    let mut p = ProgramBuilder::new();
    let f = p.function(
        "indices",
        ["table", "xs"],
        |_, (table, xs): (Ex<Arr<i64>>, Ex<Arr<i64>>)| xs.map(move |i| table.at(i)),
    );
    (p, f)
}

/// A multi-way filter in Futhark's style: `filter(a % 4 == 0, a % 4 == 1, a % 4 == 2, A)` gives four
/// classes; the program returns the first and the last (`{x0, x3}`).
///
/// ```
/// let (p, f) = flatland_vectoriser::programs::futhark_filter();
/// assert_eq!(p.eval(&f, (0..8).collect()).unwrap(), (vec![0, 4], vec![3, 7]));
/// ```
pub fn futhark_filter() -> (ProgramBuilder, Func<(Arr<i64>,), (Arr<i64>, Arr<i64>)>) {
    let mut p = ProgramBuilder::new();
    let f = p.function("futhark_filter", ["a"], |_, a: Ex<Arr<i64>>| {
        let preds: Vec<Predicate<i64>> = (0..3i64)
            .map(|k| -> Predicate<i64> { Box::new(move |x: Ex<i64>| (x % 4).equals(k)) })
            .collect();
        a.filter_with(preds, |parts| pair(parts[0].clone(), parts[3].clone()))
    });
    (p, f)
}

/// A triply nested map with free variables at every level: for `xsss` and weights `ws`,
/// `out[i][j][k] = x * s + a * b + ws[|x| % len(ws)]` where `s = sum(ws)` (free at depth 3,
/// bound at depth 0), `a = length(xss)` (bound at depth 1), `b = sum(xs)` (bound at depth 2),
/// and the last term is 0 when `ws` is empty.
///
/// ```
/// let (p, f) = flatland_vectoriser::programs::nested3();
/// assert_eq!(p.eval(&f, (vec![vec![vec![1, 2]]], vec![10])).unwrap(), vec![vec![vec![23, 33]]]);
/// ```
pub fn nested3() -> (
    ProgramBuilder,
    Func<(Arr<Arr<Arr<i64>>>, Arr<i64>), Arr<Arr<Arr<i64>>>>,
) {
    let mut p = ProgramBuilder::new();
    let f = p.function(
        "nested3",
        ["xsss", "ws"],
        |_, (xsss, ws): (Ex<Arr<Arr<Arr<i64>>>>, Ex<Arr<i64>>)| {
            let_(ws.sum(), move |s| {
                xsss.map(move |xss| {
                    let_(xss.len(), move |a| {
                        xss.map(move |xs| {
                            let_(xs.sum(), move |b| {
                                xs.map(move |x| {
                                    let w = if_(ws.len().equals(0), 0, ws.at(x.abs() % ws.len()));
                                    x * s + a * b + w
                                })
                            })
                        })
                    })
                })
            })
        },
    );
    (p, f)
}
