//! Baselines of the suite's divide-and-conquer and pointer-jumping kernels ([`crate::suite`]):
//! the sorts a programmer calls (`sort_unstable`, the stable `sort_by`, and rayon's parallel
//! forms), the functional quicksort the suite's kernel is written as, in plain sequential Rust
//! (the reference for its work), and list ranking, sequentially by walking the list and with
//! rayon by pointer jumping over the whole array (Wyllie's algorithm, `par_iter` per round).
//!
//! ```
//! use flatland_cli::harness::baselines::suite_divide::{list_rank_seq, list_rank_rayon};
//! let next = [2, -1, 1];
//! assert_eq!(list_rank_seq(&next), vec![2, 0, 1]);
//! assert_eq!(list_rank_rayon(&next), vec![2, 0, 1]);
//! ```

use rayon::prelude::*;

/// Sorted integers (`sort_unstable`).
///
/// ```
/// assert_eq!(flatland_cli::harness::baselines::suite_divide::sort_i64_seq(&[2, 1]), vec![1, 2]);
/// ```
pub fn sort_i64_seq(xs: &[i64]) -> Vec<i64> {
    let mut v = xs.to_vec();
    v.sort_unstable();
    v
}

/// Sorted integers by the functional quicksort the suite's `quicksort_i64` is written as, in
/// plain sequential Rust: three `filter().collect()` around the middle element, the outer parts
/// sorted by recursion, and the parts concatenated. The work of the per-lane form is compared
/// with it (instructions, `valgrind --tool=callgrind`), not with `sort_unstable`.
///
/// ```
/// use flatland_cli::harness::baselines::suite_divide::quicksort_functional_i64;
/// assert_eq!(quicksort_functional_i64(&[3, 1, 3, -2]), vec![-2, 1, 3, 3]);
/// assert!(quicksort_functional_i64(&[]).is_empty());
/// ```
pub fn quicksort_functional_i64(xs: &[i64]) -> Vec<i64> {
    if xs.len() <= 1 {
        return xs.to_vec();
    }
    let pivot = xs[xs.len() / 2];
    let less: Vec<i64> = xs.iter().copied().filter(|&x| x < pivot).collect();
    let equal: Vec<i64> = xs.iter().copied().filter(|&x| x == pivot).collect();
    let greater: Vec<i64> = xs.iter().copied().filter(|&x| x > pivot).collect();
    let sorted = [less, greater].map(|part| quicksort_functional_i64(&part));
    [sorted[0].as_slice(), &equal, &sorted[1]].concat()
}

/// Sorted integers (rayon's `par_sort_unstable`).
///
/// ```
/// assert_eq!(flatland_cli::harness::baselines::suite_divide::sort_i64_rayon(&[2, 1]), vec![1, 2]);
/// ```
pub fn sort_i64_rayon(xs: &[i64]) -> Vec<i64> {
    let mut v = xs.to_vec();
    v.par_sort_unstable();
    v
}

/// Sorted floats, stable (`sort_by(f64::total_cmp)`, the standard library's merge sort).
///
/// ```
/// assert_eq!(flatland_cli::harness::baselines::suite_divide::sort_f64_seq(&[2.0, 1.0]), vec![1.0, 2.0]);
/// ```
pub fn sort_f64_seq(xs: &[f64]) -> Vec<f64> {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

/// Sorted floats, stable (rayon's parallel merge sort, `par_sort_by(f64::total_cmp)`).
///
/// ```
/// assert_eq!(flatland_cli::harness::baselines::suite_divide::sort_f64_rayon(&[2.0, 1.0]), vec![1.0, 2.0]);
/// ```
pub fn sort_f64_rayon(xs: &[f64]) -> Vec<f64> {
    let mut v = xs.to_vec();
    v.par_sort_by(f64::total_cmp);
    v
}

/// Each node's distance to the tail of its list in `next` (`next[i]` the node after `i`,
/// negative at a tail; several lists may share the array), by walking each list from its head
/// (a node no other node points to). Nodes on a cycle keep rank 0.
pub fn list_rank_seq(next: &[i64]) -> Vec<i64> {
    let n = next.len();
    let mut has_pred = vec![false; n];
    for &s in next {
        if s >= 0 {
            has_pred[s as usize] = true;
        }
    }
    let mut rank = vec![0i64; n];
    let mut order = Vec::new();
    for head in (0..n).filter(|&i| !has_pred[i]) {
        order.clear();
        let mut u = head as i64;
        while u >= 0 {
            order.push(u as usize);
            u = next[u as usize];
        }
        let len = order.len() as i64;
        for (k, &v) in order.iter().enumerate() {
            rank[v] = len - 1 - k as i64;
        }
    }
    rank
}

/// [`list_rank_seq`] by pointer jumping, each round in parallel over the nodes with rayon:
/// every node adds its successor's rank and skips to the successor's successor, until every
/// node points past the tail.
pub fn list_rank_rayon(next: &[i64]) -> Vec<i64> {
    let mut next = next.to_vec();
    let mut rank: Vec<i64> = next.par_iter().map(|&s| i64::from(s >= 0)).collect();
    while next.par_iter().any(|&s| s >= 0) {
        let (r, s): (Vec<i64>, Vec<i64>) = next
            .par_iter()
            .zip(rank.par_iter())
            .map(|(&s, &r)| {
                if s < 0 {
                    (r, s)
                } else {
                    (r + rank[s as usize], next[s as usize])
                }
            })
            .unzip();
        rank = r;
        next = s;
    }
    rank
}
