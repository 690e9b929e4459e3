//! The `#[vectorise]` subset construct by construct: each kernel equals plain Rust and its
//! `NAME_reference`, and a segmented redomap's per-lane form equals the executor path (values
//! and errors).

use flatland::runtime::elt::Nested;
use flatland::vectorise;
use flatland::vectoriser::Error;

#[vectorise]
mod k {
    use flatland::runtime::elt::Nested;

    pub fn prefix_sums(xs: &[i64]) -> Vec<i64> {
        xs.scan(0, |a, b| a + b)
    }

    pub fn stats(xs: &Vec<f64>) -> (f64, f64, f64, f64) {
        (xs.sum(), xs.product(), xs.min(), xs.max())
    }

    pub fn window(xs: &[i64], s: i64, e: i64) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
        (xs[s..e].to_vec(), xs[s..].to_vec(), xs[..e].to_vec())
    }

    pub fn safe_ratio(xs: &[i64], d: i64) -> Vec<bool> {
        // `&&` short-circuits: no division by zero when `d == 0`.
        xs.iter().map(|&x| d != 0 && x / d > 1).collect()
    }

    pub fn casts(xs: &[i64]) -> Vec<(f64, i64)> {
        xs.map(|x| {
            let (h, t) = (x as f64 * 0.5, -x);
            (h.abs().sqrt(), t.max(0).min(100))
        })
    }

    pub fn rows_of(n: i64) -> Vec<Vec<i64>> {
        (0..n).map(|i| vec![i; i % 3])
    }

    pub fn all_positive(rows: Vec<Vec<i64>>) -> Vec<bool> {
        rows.map(|r| r.map(|x| x > 0).reduce(true, |a, b| a && b))
    }

    pub fn strided(n: i64, step: i64) -> Vec<i64> {
        (1..n).step_by(step)
    }

    /// A segmented redomap on `i64`, with `if`, a gather, a division and `max`.
    pub fn row_score(rows: &Nested<i64>, w: &[i64], d: i64) -> Vec<i64> {
        rows.map(|r| r.map(|x| if x < 0 { -x * w[0] } else { x / d }).max())
    }
}

fn plain_row_score(rows: &[Vec<i64>], w: &[i64], d: i64) -> Vec<i64> {
    rows.iter()
        .map(|r| {
            r.iter()
                .map(|&x| {
                    if x < 0 {
                        x.wrapping_neg().wrapping_mul(w[0])
                    } else {
                        x / d
                    }
                })
                .fold(i64::MIN, i64::max)
        })
        .collect()
}

#[test]
fn reductions_scans_and_slices() {
    let xs = vec![3, -1, 4, 1, -5, 9];
    assert_eq!(k::prefix_sums(&xs), vec![3, 2, 6, 7, 2, 11]);
    assert_eq!(k::prefix_sums(&[]), Vec::<i64>::new());
    let fs = vec![1.5, -2.0, 0.25];
    let want = (-0.25, -0.75, -2.0, 1.5);
    assert_eq!(k::stats(&fs), want);
    assert_eq!(k::plan::stats::reference(&fs).unwrap(), want);
    let empty = (0.0, 1.0, f64::INFINITY, f64::NEG_INFINITY);
    assert_eq!(k::stats(&vec![]), empty);
    assert_eq!(
        k::window(&xs, 1, 3),
        (vec![-1, 4], xs[1..].to_vec(), xs[..3].to_vec())
    );
    // An out-of-range slice is an error naming the operation, the same in both paths.
    let e = k::try_window(&xs, 4, 9).unwrap_err();
    assert_eq!(e, k::plan::window::reference(&xs, 4, 9).unwrap_err());
}

#[test]
fn short_circuit_casts_and_nesting() {
    assert_eq!(k::safe_ratio(&[4, 1], 0), vec![false, false]);
    assert_eq!(k::safe_ratio(&[4, 1], 2), vec![true, false]);
    let xs = vec![-4, 0, 9, 300];
    let want: Vec<(f64, i64)> = xs
        .iter()
        .map(|&x| ((x as f64 * 0.5).abs().sqrt(), (-x).clamp(0, 100)))
        .collect();
    assert_eq!(k::casts(&xs), want);
    let rows = k::rows_of(5);
    assert_eq!(rows, vec![vec![], vec![1], vec![2, 2], vec![], vec![4]]);
    assert_eq!(k::plan::rows_of::reference(5).unwrap(), rows);
    assert_eq!(
        k::all_positive(vec![vec![], vec![1, 2], vec![1, -2]]),
        vec![true, true, false]
    );
    assert_eq!(k::strided(10, 3), vec![1, 4, 7]);
    assert_eq!(k::strided(1, 3), Vec::<i64>::new());
    assert_eq!(
        k::strided(10, 3),
        k::plan::strided::reference(10, 3).unwrap()
    );
}

#[test]
fn direct_path_equals_executor() {
    let rows = vec![vec![], vec![-3, 8, 5], vec![7], vec![i64::MIN, -1]];
    let offsets: Vec<usize> = std::iter::once(0)
        .chain(rows.iter().scan(0, |s, r| {
            *s += r.len();
            Some(*s)
        }))
        .collect();
    let n = Nested::<i64>::from_offsets(offsets, rows.concat()).unwrap();
    for (w, d) in [(vec![2], 3), (vec![-1], -2), (vec![i64::MAX], 1)] {
        let want = plain_row_score(&rows, &w, d);
        assert_eq!(k::row_score(&n, &w, d), want);
        assert_eq!(k::plan::row_score::per_lane(&n, &w, d).unwrap(), want);
        assert_eq!(k::plan::row_score::executor(&n, &w, d).unwrap(), want);
        assert_eq!(k::plan::row_score::reference(&n, &w, d).unwrap(), want);
    }
    // Division by zero and a gather out of range: the executor's errors, from every path.
    for (w, d) in [(vec![2], 0), (vec![], 1)] {
        let e: Error = k::plan::row_score::executor(&n, &w, d).unwrap_err();
        assert_eq!(k::try_row_score(&n, &w, d).unwrap_err(), e);
        assert_eq!(k::plan::row_score::per_lane(&n, &w, d).unwrap_err(), e);
        assert_eq!(k::plan::row_score::reference(&n, &w, d).unwrap_err(), e);
    }
}
