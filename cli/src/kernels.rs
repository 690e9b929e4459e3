//! Flatland's nested data-parallel kernels, written once with `#[vectorise]` and used by the
//! examples (`examples/vectorise_*.rs`), the benchmark harness ([`crate::harness::vectorised`])
//! and `flatland run`.
//!
//! Each function below is ordinary-looking Rust that the `#[vectorise]` attribute parses into the
//! vectoriser's IR at compile time (see `flatland_macros` for the subset and what it generates).
//! For every kernel `f` this module holds `f` (the strategy the run chooses: the kernel's
//! per-lane form or the flattening executor, `flatland_vectoriser::strategy`) and `try_f`;
//! [`plan`] holds the rest:
//! `plan::f::per_lane` (the per-lane form), `plan::f::executor` (always the flattening executor
//! with this module's native kernels),
//! `plan::f::reference` (the reference interpreter), `plan::program()` (the module's IR) and
//! `plan::kernels()` (its native kernel table). `f` has the signature written below and panics
//! on a runtime error; the others return a `flatland_vectoriser::Result`.
//!
//! Float semantics are the IR's: comparisons are IEEE (`-0.0 == 0.0`, every comparison with NaN
//! is false), `min`/`max` IEEE 754-2019 `minimum`/`maximum` (NaN wins). These kernels are user
//! code in that sense: what they do with NaN is what their comparisons say, listed here (and in
//! the table of `flatland::semantics`):
//!
//! - [`quicksort_f64`] is a stable sort by `<` (equal keys, `-0.0` and `0.0` included, keep their
//!   input order; `-inf` and `inf` are the smallest and largest keys) of NaN-free keys. A NaN
//!   key is in none of its three filters (`< pivot`, `== pivot`, `> pivot`), so it is **dropped**,
//!   and a NaN pivot is equal to nothing, so its whole part is dropped:
//!   `quicksort_f64(&[2.0, f64::NAN, 1.0])` is `vec![]` (the pivot is the middle element).
//! - [`hull`], [`hsplit`] and [`convex_hull`] keep a point when its cross product is `> 0.0`
//!   and pick the extremes by `<`/`>`: a NaN coordinate makes the cross product NaN, so such a
//!   point is never a vertex (dropped), and a NaN first point can be taken as an extreme.
//!
//! The checked entry points refuse NaN with an error naming it instead:
//! [`crate::harness::compute::try_quicksort`] (the key's index) and
//! [`crate::harness::compute::try_quickhull`] (the point's index and coordinates), and the
//! command line's readers take finite numbers only (`flatland run quicksort`/`quickhull` stop
//! at the first `NaN`/`inf` with its file and line: [`crate::io::parse_numbers`]).
//!
//! ```
//! use flatland_cli::kernels;
//! assert_eq!(kernels::quicksort_f64(&[2.5, -1.0, 0.5]), vec![-1.0, 0.5, 2.5]);
//! assert_eq!(kernels::primes(12), vec![2, 3, 5, 7, 11]);
//! assert_eq!(kernels::smvm(&[vec![(1, 2.0)], vec![]], &[1.0, 3.0]), vec![6.0, 0.0]);
//! let square = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (0.5, 0.5)];
//! assert_eq!(kernels::hull(&square).len(), 4);
//! // An index out of range: `try_smvm` returns the error (`smvm` would panic with it).
//! assert!(kernels::try_smvm(&[vec![(7, 1.0)]], &[1.0]).is_err());
//! ```

pub use vectorised::*;

#[flatland::vectorise]
mod vectorised {
    use flatland_runtime::elt::Nested;

    /// Sparse matrix times vector: rows of `(column, value)` pairs times the dense vector `v`.
    ///
    /// ```
    /// let rows = vec![vec![(0, 1.0), (2, 2.0)], vec![]];
    /// assert_eq!(flatland_cli::kernels::smvm(&rows, &[10.0, 20.0, 30.0]), vec![70.0, 0.0]);
    /// ```
    pub fn smvm(rows: &[Vec<(i64, f64)>], v: &[f64]) -> Vec<f64> {
        rows.iter()
            .map(|row| row.iter().map(|&(i, x)| x * v[i]).sum())
            .collect()
    }

    /// The same product on a CSR matrix held as two `Nested` arrays (columns, values): the
    /// macro's directly compiled pattern (one `seg::fold_s_leaves_split` over the rows).
    ///
    /// ```
    /// use flatland::runtime::elt::Nested;
    /// let cols = Nested::from_offsets(vec![0, 1, 1], vec![1i64]).unwrap();
    /// let vals = Nested::from_offsets(vec![0, 1, 1], vec![2.0]).unwrap();
    /// assert_eq!(flatland_cli::kernels::smvm_csr(&cols, &vals, &[1.0, 3.0]), vec![6.0, 0.0]);
    /// ```
    pub fn smvm_csr(cols: &Nested<i64>, vals: &Nested<f64>, v: &[f64]) -> Vec<f64> {
        cols.zip(vals)
            .map(|(cs, xs)| cs.zip(xs).map(|(c, x)| x * v[c]).sum())
    }

    /// The running sums of `xs` (an inclusive scan with the canonical association): per-lane
    /// code scans a heavy array with the runtime's blocked scan, across the pool.
    ///
    /// ```
    /// assert_eq!(flatland_cli::kernels::prefix_sums(&[1.0, 2.0, 3.5]), vec![1.0, 3.0, 6.5]);
    /// ```
    pub fn prefix_sums(xs: &[f64]) -> Vec<f64> {
        xs.iter().scan(0.0, |a, b| a + b).collect()
    }

    /// Sorts `xs` ascending (stable): three filters around the middle element, the outer two
    /// parts sorted by one recursive call under `map`. The filters compare by IEEE `<`, `==`,
    /// `>`, so a NaN key is dropped and a NaN pivot drops its whole part (module docs; the
    /// checked form is `harness::compute::try_quicksort`).
    ///
    /// ```
    /// let xs = [0.5, -0.0, 3.0, 0.0, -2.0];
    /// let sorted = flatland_cli::kernels::quicksort_f64(&xs);
    /// assert_eq!(sorted, vec![-2.0, -0.0, 0.0, 0.5, 3.0]);
    /// assert!(sorted[1].is_sign_negative()); // equal keys keep their input order
    /// // NaN: user semantics of the IEEE filters.
    /// assert!(flatland_cli::kernels::quicksort_f64(&[2.0, f64::NAN, 1.0]).is_empty());
    /// assert_eq!(flatland_cli::kernels::quicksort_f64(&[f64::NAN, 2.0, 1.0]), vec![1.0, 2.0]);
    /// ```
    pub fn quicksort_f64(xs: &[f64]) -> Vec<f64> {
        if xs.len() <= 1 {
            xs.to_vec()
        } else {
            let pivot = xs[xs.len() / 2];
            let lo = xs.iter().filter(|&x| x < pivot).collect();
            let eq = xs.iter().filter(|&x| x == pivot).collect();
            let hi = xs.iter().filter(|&x| x > pivot).collect();
            let sorted = [lo, hi].map(|part| quicksort_f64(part));
            [sorted[0], eq, sorted[1]].concat()
        }
    }

    /// The primes below `n` (NESL's sieve): the primes below `isqrt(n) + 1` (recursively), their
    /// multiples as strided ranges (one per prime, in parallel), a `scatter` of `false` flags and
    /// a `filter`.
    ///
    /// ```
    /// assert_eq!(flatland_cli::kernels::primes(20), vec![2, 3, 5, 7, 11, 13, 17, 19]);
    /// ```
    pub fn primes(n: i64) -> Vec<i64> {
        if n <= 2 {
            Vec::<i64>::new()
        } else {
            let sqr_primes = primes((n as f64).sqrt() as i64 + 1);
            let composites = sqr_primes.map(|q| (2 * q..n).step_by(q)).concat();
            let flags = vec![true; n].scatter(composites, vec![false; composites.len()]);
            (0..n).filter(|i| i >= 2 && flags[i])
        }
    }

    /// The primes in `lo..hi` (`1 <= lo`), given in `base` every prime `p` with `p * p < hi`
    /// (more primes do no harm): the sieve of [`primes`] on one window, so that a long range can
    /// be sieved window by window in bounded memory.
    ///
    /// ```
    /// let base = flatland_cli::kernels::primes(6); // 2, 3, 5: enough below 36
    /// assert_eq!(flatland_cli::kernels::primes_between(20, 36, &base), vec![23, 29, 31]);
    /// ```
    pub fn primes_between(lo: i64, hi: i64, base: &[i64]) -> Vec<i64> {
        let composites = base
            .map(|q| ((q * q).max((lo + q - 1) / q * q) - lo..hi - lo).step_by(q))
            .concat();
        let flags = vec![true; hi - lo].scatter(composites, vec![false; composites.len()]);
        (lo..hi).filter(|i| i >= 2 && flags[i - lo])
    }

    /// The primes below `n`, sieved window by window as a user blocks a sieve to keep it in
    /// cache: the primes below `isqrt(n) + 1` by [`primes`], then [`primes_between`] on the
    /// windows `2 + w * window .. 2 + (w + 1) * window` (the last one cut at `n`) under one
    /// `map`, their primes concatenated. `window` must be positive (a division by zero
    /// otherwise).
    ///
    /// ```
    /// assert_eq!(flatland_cli::kernels::primes_windowed(20, 4), vec![2, 3, 5, 7, 11, 13, 17, 19]);
    /// assert_eq!(flatland_cli::kernels::primes_windowed(20, 1 << 16), flatland_cli::kernels::primes(20));
    /// ```
    pub fn primes_windowed(n: i64, window: i64) -> Vec<i64> {
        let base = primes((n as f64).sqrt() as i64 + 1);
        let span = n.max(2) - 2;
        let windows = span / window + (span % window > 0) as i64;
        (0..windows)
            .map(|w| primes_between(2 + w * window, (2 + (w + 1) * window).min(n), base))
            .concat()
    }

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
    ///
    /// ```
    /// let pts = [(0.0, 0.0), (1.0, 1.0), (2.0, 0.0), (1.0, -1.0)];
    /// let upper = flatland_cli::kernels::hsplit(&pts, ((0.0, 0.0), (2.0, 0.0)));
    /// assert_eq!(upper, vec![(0.0, 0.0), (1.0, 1.0)]);
    /// ```
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

    /// The convex hull, from the leftmost point, clockwise (NESL quickhull: its ends are the
    /// first smallest and first largest x, so when every x is equal both are one point).
    ///
    /// ```
    /// let pts = [(0.0, 0.0), (1.0, 1.0), (2.0, 0.0), (1.0, -1.0), (1.0, 0.0)];
    /// let h = flatland_cli::kernels::hull(&pts);
    /// assert_eq!(h, vec![(0.0, 0.0), (1.0, 1.0), (2.0, 0.0), (1.0, -1.0)]);
    /// ```
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

    /// The index of the first lexicographically smallest point (by x, then y; -1 when empty).
    fn lex_min(pts: &[(f64, f64)]) -> i64 {
        pts.zip(0..pts.len())
            .map(|(q, i)| (q, i))
            .reduce(((f64::NAN, f64::NAN), -1), |a, b| {
                if a.1 < 0 || (b.1 >= 0 && (b.0.0 < a.0.0 || (b.0.0 == a.0.0 && b.0.1 < a.0.1))) {
                    b
                } else {
                    a
                }
            })
            .1
    }

    /// The index of the first lexicographically largest point (by x, then y; -1 when empty).
    fn lex_max(pts: &[(f64, f64)]) -> i64 {
        pts.zip(0..pts.len())
            .map(|(q, i)| (q, i))
            .reduce(((f64::NAN, f64::NAN), -1), |a, b| {
                if a.1 < 0 || (b.1 >= 0 && (b.0.0 > a.0.0 || (b.0.0 == a.0.0 && b.0.1 > a.0.1))) {
                    b
                } else {
                    a
                }
            })
            .1
    }

    /// The convex hull's vertices clockwise from the lexicographically smallest point (smallest
    /// x, smallest y on ties): quickhull as [`hull`], split at the lexicographic extremes, so
    /// that points sharing one x give their two ends and points all equal give one vertex.
    /// Points on a hull edge are not vertices; duplicates appear once. A point with a NaN
    /// coordinate is never a vertex (its cross products are NaN, and `NaN > 0.0` is false):
    /// `harness::compute::try_quickhull` refuses it by its index instead.
    ///
    /// ```
    /// let vertical = [(1.0, 3.0), (1.0, 0.0), (1.0, 2.0)];
    /// assert_eq!(flatland_cli::kernels::convex_hull(&vertical), vec![(1.0, 0.0), (1.0, 3.0)]);
    /// assert_eq!(flatland_cli::kernels::convex_hull(&[(2.0, 2.0); 3]), vec![(2.0, 2.0)]);
    /// ```
    pub fn convex_hull(pts: &[(f64, f64)]) -> Vec<(f64, f64)> {
        if pts.len() < 2 {
            pts.to_vec()
        } else {
            let lo = pts[lex_min(pts)];
            let hi = pts[lex_max(pts)];
            if lo.0 == hi.0 && lo.1 == hi.1 {
                vec![lo]
            } else {
                [hsplit(pts, (lo, hi)), hsplit(pts, (hi, lo))].concat()
            }
        }
    }

    /// DPH's treeLookup: every index of `xs` looked up in `table`, by halving `xs` and
    /// recursing on both halves under `map` (`table` is free in the lifted calls: every lane
    /// reads the one table, which is never copied).
    ///
    /// ```
    /// let found = flatland_cli::kernels::tree_lookup(&[10, 20, 30], &[2, 0, 1, 2]);
    /// assert_eq!(found, vec![30, 10, 20, 30]);
    /// assert!(flatland_cli::kernels::try_tree_lookup(&[10], &[1]).is_err());
    /// ```
    pub fn tree_lookup(table: &[i64], xs: &[i64]) -> Vec<i64> {
        if xs.len() <= 1 {
            xs.iter().map(|&i| table[i]).collect()
        } else {
            let half = xs.len() / 2;
            [xs[..half].to_vec(), xs[half..].to_vec()]
                .map(|part| tree_lookup(table, part))
                .concat()
        }
    }

    /// `iters` iterations of PageRank with damping 0.85 over the in-edges `ins` (node `v`'s row
    /// holds its sources) and the out-degrees: each node's rank is the damped sum of its
    /// in-neighbours' ranks over their out-degrees (a node without out-edges gives nothing), a
    /// `for` loop carrying the ranks over a pull-direction smvm.
    ///
    /// ```
    /// use flatland_runtime::elt::Nested;
    /// // 0 -> 1, 0 -> 2, 1 -> 2, 2 -> 0, held by in-edges.
    /// let ins = Nested::from_offsets(vec![0, 1, 2, 4], vec![2, 0, 0, 1]).unwrap();
    /// let r = flatland_cli::kernels::pagerank(&ins, &[2.0, 1.0, 1.0], 20);
    /// assert!(r[2] > r[1] && (r.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    /// ```
    pub fn pagerank(ins: &Nested<i64>, outdeg: &[f64], iters: i64) -> Vec<f64> {
        let n = outdeg.len() as f64;
        let base = (1.0 - 0.85) / n;
        let mut r = vec![1.0 / n; outdeg.len()];
        for _ in 0..iters {
            let c = r
                .zip(outdeg)
                .map(|(x, d)| if d > 0.0 { x / d } else { 0.0 });
            r = ins.map(|row| row.map(|u| c[u]).sum() * 0.85 + base);
        }
        r
    }

    /// The centres after `rounds` rounds of Lloyd's algorithm from `(cx, cy)`: each point goes
    /// to its nearest centre (a loop over the centres, the first of equal distances), each
    /// centre moves to the mean of its points (sums and counts by centre: `hist` and
    /// `count_by_index`); a centre without points stays where it is.
    ///
    /// ```
    /// let (xs, ys) = ([0.0, 1.0, 10.0], [0.0, 0.0, 0.0]);
    /// let (cx, cy) = flatland_cli::kernels::kmeans(&xs, &ys, &[0.0, 5.0], &[0.0, 0.0], 3);
    /// assert_eq!((cx, cy), (vec![0.5, 10.0], vec![0.0, 0.0]));
    /// ```
    pub fn kmeans(
        xs: &[f64],
        ys: &[f64],
        cx: &[f64],
        cy: &[f64],
        rounds: i64,
    ) -> (Vec<f64>, Vec<f64>) {
        let k = cx.len();
        let mut cx = cx.to_vec();
        let mut cy = cy.to_vec();
        for _ in 0..rounds {
            let near = xs.zip(ys).map(|(x, y)| {
                let mut best = 0;
                let mut best_d = f64::INFINITY;
                for j in 0..k {
                    let d = (x - cx[j]) * (x - cx[j]) + (y - cy[j]) * (y - cy[j]);
                    if d < best_d {
                        best_d = d;
                        best = j;
                    }
                }
                best
            });
            let sx = hist(k, 0.0, |a, b| a + b, near, xs);
            let sy = hist(k, 0.0, |a, b| a + b, near, ys);
            let count = count_by_index(k, near);
            let old_x = cx;
            let old_y = cy;
            cx = (0..k).map(|j| {
                if count[j] > 0 {
                    sx[j] / count[j] as f64
                } else {
                    old_x[j]
                }
            });
            cy = (0..k).map(|j| {
                if count[j] > 0 {
                    sy[j] / count[j] as f64
                } else {
                    old_y[j]
                }
            });
        }
        (cx, cy)
    }

    /// The distance of every node from `src` (-1 where it cannot be reached), on a graph given
    /// by each node's neighbours: a `while` loop runs while the frontier is not empty, each
    /// iteration expanding the whole frontier at once (its neighbours gathered, the unvisited
    /// ones kept, their level scattered into the distances).
    ///
    /// ```
    /// let adj = vec![vec![1], vec![2], vec![], vec![0]];
    /// assert_eq!(flatland_cli::kernels::bfs(&adj, 0), vec![0, 1, 2, -1]);
    /// ```
    pub fn bfs(adj: &[Vec<i64>], src: i64) -> Vec<i64> {
        let n = adj.len();
        let mut dist = vec![-1; n].scatter(vec![src], vec![0]);
        let mut frontier = vec![src];
        let mut level = 0;
        while !frontier.is_empty() {
            let reached = frontier.map(|v| adj[v]).concat();
            let fresh = reached.filter(|u| dist[u] == -1);
            level += 1;
            dist = dist.scatter(fresh, vec![level; fresh.len()]);
            // Each newly reached node once: the nodes whose distance is this level.
            frontier = (0..n).filter(|u| dist[u] == level);
        }
        dist
    }
}
