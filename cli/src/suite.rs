//! The user-kernel suite: kernels of the kinds users write, with `#[vectorise]` (each
//! `plan::f::explain()` says `per-lane`, or `flatten (recursive)` for the recursive ones).
//! The suite was written, before the macro's hand-matched direct patterns were deleted, so
//! that none of its kernels matched one.
//!
//! They are written the way a Rust programmer writes them (iterator chains over the parameters,
//! closures, `if`, `while`, recursion), not shaped for the vectoriser. The benchmark harness runs
//! each beside the sequential loop and the rayon code a programmer would write
//! (`crate::harness::workloads::suite`), and `cli/tests/suite_kernels.rs` checks each against
//! its reference interpreter and its sequential baseline on edge inputs.
//!
//! | kernel | kind |
//! | --- | --- |
//! | [`row_means`] | per-row reduction with a branch (an empty row is 0) |
//! | [`row_variances`] | per-row reductions with a branch, the mean used under a nested `map` |
//! | [`row_prefix_sums`] | per-row inclusive scan |
//! | [`row_smooth`] | a 3-point stencil over each row (clamped at the ends) |
//! | [`row_argmax`] | per-row arg-max by a best-of `reduce` over `enumerate` |
//! | [`above_row_mean`] | variable-length expansion: each row filtered by its own mean, concatenated |
//! | [`bfs_step`] | variable-length expansion: the unvisited neighbours of a frontier, concatenated |
//! | [`pair_counts`] | all-pairs nested map over a free array: a count with `filter().len()` |
//! | [`pair_density`] | all-pairs nested map over a free array: a Gaussian kernel sum |
//! | [`nearest_centre`] | nearest-of-k assignment with a best-of `reduce` |
//! | [`quicksort_i64`] | integer divide and conquer: three filters, recursion under `map`, `concat` |
//! | [`merge_sort`] | float divide and conquer: halves sorted under `map`, merged by binary search under `map` |
//! | [`list_rank`] | pointer jumping (Wyllie's list ranking) by recursion over the whole array |
//!
//! ```
//! use flatland_cli::suite;
//! assert_eq!(suite::quicksort_i64(&[3, -1, 2, 3]), vec![-1, 2, 3, 3]);
//! assert_eq!(suite::list_rank(&[2, -1, 1]), vec![2, 0, 1]);
//! ```

pub use kernels::*;

#[flatland::vectorise]
mod kernels {
    use flatland::runtime::elt::Nested;

    /// The mean of each row, 0 for an empty row.
    ///
    /// ```
    /// use flatland::runtime::elt::Nested;
    /// let rows = Nested::from_offsets(vec![0, 2, 2], vec![1.0, 2.0]).unwrap();
    /// assert_eq!(flatland_cli::suite::row_means(&rows), vec![1.5, 0.0]);
    /// ```
    pub fn row_means(rows: &Nested<f64>) -> Vec<f64> {
        rows.iter()
            .map(|r| {
                if r.len() == 0 {
                    0.0
                } else {
                    r.iter().sum() / r.len() as f64
                }
            })
            .collect()
    }

    /// The sample variance of each row, 0 for a row of fewer than two values.
    ///
    /// ```
    /// use flatland::runtime::elt::Nested;
    /// let rows = Nested::from_offsets(vec![0, 3, 4], vec![1.0, 2.0, 3.0, 7.0]).unwrap();
    /// assert_eq!(flatland_cli::suite::row_variances(&rows), vec![1.0, 0.0]);
    /// ```
    pub fn row_variances(rows: &Nested<f64>) -> Vec<f64> {
        rows.iter()
            .map(|r| {
                let n = r.len();
                if n < 2 {
                    0.0
                } else {
                    let mean = r.iter().sum() / n as f64;
                    let squares = r.iter().map(|&x| (x - mean) * (x - mean)).sum();
                    squares / (n - 1) as f64
                }
            })
            .collect()
    }

    /// The running sums of each row.
    ///
    /// ```
    /// use flatland::runtime::elt::Nested;
    /// let rows = Nested::from_offsets(vec![0, 3, 3], vec![1.0, 2.0, 3.0]).unwrap();
    /// assert_eq!(flatland_cli::suite::row_prefix_sums(&rows), vec![vec![1.0, 3.0, 6.0], vec![]]);
    /// ```
    pub fn row_prefix_sums(rows: &Nested<f64>) -> Vec<Vec<f64>> {
        rows.iter()
            .map(|r| r.iter().scan(0.0, |a, b| a + b).collect())
            .collect()
    }

    /// Each row smoothed by the 3-point stencil `(left + 2 x + right) / 4`, an end's missing
    /// neighbour replaced by the end itself.
    ///
    /// ```
    /// use flatland::runtime::elt::Nested;
    /// let rows = Nested::from_offsets(vec![0, 3, 4], vec![4.0, 8.0, 0.0, 1.0]).unwrap();
    /// assert_eq!(flatland_cli::suite::row_smooth(&rows), vec![vec![5.0, 5.0, 2.0], vec![1.0]]);
    /// ```
    pub fn row_smooth(rows: &Nested<f64>) -> Vec<Vec<f64>> {
        rows.iter()
            .map(|r| {
                let n = r.len();
                (0..n)
                    .map(|i| {
                        let left = if i > 0 { r[i - 1] } else { r[i] };
                        let right = if i + 1 < n { r[i + 1] } else { r[i] };
                        (left + 2.0 * r[i] + right) / 4.0
                    })
                    .collect()
            })
            .collect()
    }

    /// The index of the first largest value of each row, -1 for an empty row.
    ///
    /// ```
    /// use flatland::runtime::elt::Nested;
    /// let rows = Nested::from_offsets(vec![0, 3, 3], vec![1.0, 5.0, 5.0]).unwrap();
    /// assert_eq!(flatland_cli::suite::row_argmax(&rows), vec![1, -1]);
    /// ```
    pub fn row_argmax(rows: &Nested<f64>) -> Vec<i64> {
        rows.iter()
            .map(|r| {
                r.iter()
                    .enumerate()
                    .reduce((-1, f64::NEG_INFINITY), |best, next| {
                        if best.0 < 0 || next.1 > best.1 {
                            next
                        } else {
                            best
                        }
                    })
                    .0
            })
            .collect()
    }

    /// The values above their row's mean, row after row.
    ///
    /// ```
    /// use flatland::runtime::elt::Nested;
    /// let rows = Nested::from_offsets(vec![0, 3, 3, 5], vec![1.0, 2.0, 6.0, 4.0, 5.0]).unwrap();
    /// assert_eq!(flatland_cli::suite::above_row_mean(&rows), vec![6.0, 5.0]);
    /// ```
    pub fn above_row_mean(rows: &Nested<f64>) -> Vec<f64> {
        rows.iter()
            .map(|r| {
                let mean = r.iter().sum() / r.len() as f64;
                r.iter().filter(|&x| x > mean).collect()
            })
            .concat()
    }

    /// One step of a breadth-first search: the unvisited neighbours of the frontier's nodes, in
    /// frontier order (a node reached twice appears twice).
    ///
    /// ```
    /// let adj = vec![vec![1, 2], vec![0, 2], vec![]];
    /// let visited = [true, false, false];
    /// assert_eq!(flatland_cli::suite::bfs_step(&[0, 1], &adj, &visited), vec![1, 2, 2]);
    /// ```
    pub fn bfs_step(frontier: &[i64], adj: &[Vec<i64>], visited: &[bool]) -> Vec<i64> {
        frontier
            .iter()
            .map(|&u| adj[u].iter().filter(|&v| !visited[v]).collect())
            .concat()
    }

    /// For each query, how many points lie within `radius` of it.
    ///
    /// ```
    /// let counts = flatland_cli::suite::pair_counts(&[0.5, 4.0], &[0.0, 1.0, 5.0], 1.0);
    /// assert_eq!(counts, vec![2, 1]);
    /// ```
    pub fn pair_counts(queries: &[f64], points: &[f64], radius: f64) -> Vec<i64> {
        queries
            .iter()
            .map(|&q| points.iter().filter(|&p| (p - q).abs() <= radius).len())
            .collect()
    }

    /// A kernel density estimate: for each query, the sum over all points of
    /// `exp(-((q - p) / bandwidth)^2)`.
    ///
    /// ```
    /// let d = flatland_cli::suite::pair_density(&[0.0], &[0.0, 0.0], 1.0);
    /// assert_eq!(d, vec![2.0]);
    /// ```
    pub fn pair_density(queries: &[f64], points: &[f64], bandwidth: f64) -> Vec<f64> {
        queries
            .iter()
            .map(|&q| {
                points
                    .iter()
                    .map(|&p| {
                        let z = (q - p) / bandwidth;
                        (-z * z).exp()
                    })
                    .sum()
            })
            .collect()
    }

    /// The index of the nearest centre of each point (the first on ties; -1 without centres).
    ///
    /// ```
    /// let centres = [(0.0, 0.0), (10.0, 0.0)];
    /// let nearest = flatland_cli::suite::nearest_centre(&[(1.0, 1.0), (9.0, -1.0)], &centres);
    /// assert_eq!(nearest, vec![0, 1]);
    /// ```
    pub fn nearest_centre(points: &[(f64, f64)], centres: &[(f64, f64)]) -> Vec<i64> {
        points
            .iter()
            .map(|&p| {
                centres
                    .iter()
                    .enumerate()
                    .map(|(j, c)| {
                        let dx = p.0 - c.0;
                        let dy = p.1 - c.1;
                        (j, dx * dx + dy * dy)
                    })
                    .reduce((-1, f64::INFINITY), |best, next| {
                        if best.0 < 0 || next.1 < best.1 {
                            next
                        } else {
                            best
                        }
                    })
                    .0
            })
            .collect()
    }

    /// Sorts integers: three filters around the middle element, the outer two parts sorted by
    /// one recursive call under `map`.
    ///
    /// ```
    /// assert_eq!(flatland_cli::suite::quicksort_i64(&[5, 1, 4, 1]), vec![1, 1, 4, 5]);
    /// ```
    pub fn quicksort_i64(xs: &[i64]) -> Vec<i64> {
        if xs.len() <= 1 {
            xs.to_vec()
        } else {
            let pivot = xs[xs.len() / 2];
            let less = xs.iter().filter(|&x| x < pivot).collect();
            let equal = xs.iter().filter(|&x| x == pivot).collect();
            let greater = xs.iter().filter(|&x| x > pivot).collect();
            let sorted = [less, greater].map(|part| quicksort_i64(part));
            [sorted[0], equal, sorted[1]].concat()
        }
    }

    /// How many values of the sorted `xs` are below `x` (`strict`) or at most `x`: a binary
    /// search.
    fn rank_in(xs: &[f64], x: f64, strict: bool) -> i64 {
        let mut lo = 0;
        let mut hi = xs.len();
        while lo < hi {
            let mid = (lo + hi) / 2;
            if xs[mid] < x || (!strict && xs[mid] == x) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Merges two sorted arrays (stable: `a`'s values before equal values of `b`), each value
    /// placed at its index plus its rank in the other array.
    fn merge(a: &[f64], b: &[f64]) -> Vec<f64> {
        let at = a
            .iter()
            .enumerate()
            .map(|(i, &x)| i + rank_in(b, x, true))
            .collect();
        let bt = b
            .iter()
            .enumerate()
            .map(|(j, &y)| j + rank_in(a, y, false))
            .collect();
        vec![0.0; a.len() + b.len()].scatter(at, a).scatter(bt, b)
    }

    /// Sorts floats by `<` (stable; no NaN): the two halves sorted by recursive calls under
    /// `map`, then merged by binary search.
    ///
    /// ```
    /// assert_eq!(flatland_cli::suite::merge_sort(&[2.5, -1.0, 2.5, 0.0]), vec![-1.0, 0.0, 2.5, 2.5]);
    /// ```
    pub fn merge_sort(xs: &[f64]) -> Vec<f64> {
        if xs.len() <= 1 {
            xs.to_vec()
        } else {
            let half = xs.len() / 2;
            let sorted = [xs[..half].to_vec(), xs[half..].to_vec()].map(|part| merge_sort(part));
            merge(sorted[0], sorted[1])
        }
    }

    /// One round of pointer jumping: each node adds its successor's rank and skips to the
    /// successor's successor, until every node points past the tail.
    fn jump(next: &[i64], rank: &[i64]) -> Vec<i64> {
        if next.iter().all(|&n| n < 0) {
            rank.to_vec()
        } else {
            let ranks = next
                .iter()
                .zip(rank.iter())
                .map(|(&n, &r)| if n < 0 { r } else { r + rank[n] })
                .collect();
            let nexts = next
                .iter()
                .map(|&n| if n < 0 { n } else { next[n] })
                .collect();
            jump(nexts, ranks)
        }
    }

    /// List ranking: each node's distance to the tail of the linked list `next` (`next[i]` is
    /// the node after `i`, negative at the tail), by pointer jumping.
    ///
    /// ```
    /// assert_eq!(flatland_cli::suite::list_rank(&[1, 2, -1]), vec![2, 1, 0]);
    /// ```
    pub fn list_rank(next: &[i64]) -> Vec<i64> {
        let rank = next.iter().map(|&n| if n < 0 { 0 } else { 1 }).collect();
        jump(next, rank)
    }
}
