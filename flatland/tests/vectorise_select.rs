//! The selection methods of `#[vectorise]` (`any`, `all`, `count`, `first`, `last`, `argmin`,
//! `argmax`, `rev`, `enumerate`, `take`, `skip`, zips of three and four arrays), flat and per
//! row: the generated code, the executor and the reference interpreter agree, and each equals
//! what the Rust iterator method (or its documented form) gives, empty arrays included.

use flatland::prelude::*;

#[vectorise]
mod s {
    pub fn any_neg(rows: &[Vec<i64>]) -> Vec<bool> {
        rows.map(|r| r.any(|x| x < 0))
    }

    pub fn all_pos(rows: &[Vec<f64>]) -> Vec<bool> {
        rows.map(|r| r.all(|x| x > 0.0))
    }

    pub fn count_even(rows: &[Vec<i64>]) -> Vec<(i64, i64)> {
        rows.map(|r| (r.filter(|x| x % 2 == 0).count(), r.count()))
    }

    pub fn ends(xs: &[i64]) -> (i64, i64) {
        (xs.first(), xs.last())
    }

    pub fn arg_best(rows: &[Vec<f64>]) -> Vec<(i64, i64)> {
        rows.map(|r| (r.argmin(), r.argmax()))
    }

    pub fn arg_best_i(xs: &[i64]) -> (i64, i64) {
        (xs.argmin(), xs.argmax())
    }

    pub fn reversed(rows: &[Vec<i64>]) -> Vec<Vec<i64>> {
        rows.map(|r| r.rev())
    }

    pub fn numbered(xs: &[f64]) -> Vec<(i64, f64)> {
        xs.enumerate()
    }

    pub fn window(rows: &[Vec<i64>], n: i64) -> Vec<(Vec<i64>, Vec<i64>)> {
        rows.map(|r| (r.take(n), r.skip(n)))
    }

    pub fn zip3(a: &[i64], b: &[i64], c: &[f64]) -> Vec<f64> {
        a.zip(b).zip(c).map(|((x, y), z)| (x * y) as f64 + z)
    }

    pub fn zip4(a: &[i64], b: &[i64], c: &[i64], d: &[i64]) -> Vec<i64> {
        a.zip(b).zip(c).zip(d).map(|(((w, x), y), z)| w * x + y * z)
    }

    pub fn zip3_sum(a: &[i64], b: &[i64], c: &[i64]) -> i64 {
        a.zip(b).zip(c).map(|((x, y), z)| x + y * z).sum()
    }

    pub fn all_below(xs: &[i64], k: i64) -> bool {
        xs.all(|x| x < k)
    }

    pub fn any_equal(xs: &[i64], k: i64) -> bool {
        xs.any(|x| x == k)
    }

    pub fn all_divide(xs: &[i64]) -> bool {
        xs.all(|x| 10 / x > 0)
    }
}

/// The Rust meaning of `argmin`/`argmax` (first on ties, the first NaN if any, -1 when empty).
fn arg_best(xs: &[f64], max: bool) -> i64 {
    if let Some(i) = xs.iter().position(|x| x.is_nan()) {
        return i as i64;
    }
    let mut best: Option<usize> = None;
    for (i, &x) in xs.iter().enumerate() {
        let better = match best {
            None => true,
            Some(b) if max => x > xs[b],
            Some(b) => x < xs[b],
        };
        if better {
            best = Some(i);
        }
    }
    best.map_or(-1, |b| b as i64)
}

#[test]
fn any_all_count_per_row() {
    let rows = vec![vec![], vec![1, -2, 3], vec![4, 6], vec![-1]];
    let want: Vec<bool> = rows.iter().map(|r| r.iter().any(|&x| x < 0)).collect();
    assert_eq!(s::any_neg(&rows), want);
    assert_eq!(s::plan::any_neg::executor(&rows).unwrap(), want);
    assert_eq!(s::plan::any_neg::reference(&rows).unwrap(), want);
    let f = vec![vec![], vec![1.0, f64::NAN], vec![0.5, 2.0], vec![-0.0]];
    let want: Vec<bool> = f.iter().map(|r| r.iter().all(|&x| x > 0.0)).collect();
    assert_eq!(s::all_pos(&f), want);
    assert_eq!(s::plan::all_pos::executor(&f).unwrap(), want);
    let want: Vec<(i64, i64)> = rows
        .iter()
        .map(|r| {
            (
                r.iter().filter(|&&x| x % 2 == 0).count() as i64,
                r.len() as i64,
            )
        })
        .collect();
    assert_eq!(s::count_even(&rows), want);
    assert_eq!(s::plan::count_even::executor(&rows).unwrap(), want);
    assert_eq!(s::plan::count_even::reference(&rows).unwrap(), want);
}

#[test]
fn first_last_and_their_empty_form() {
    assert_eq!(s::ends(&[4, 5, 6]), (4, 6));
    assert_eq!(s::plan::ends::executor(&[7]).unwrap(), (7, 7));
    for r in [
        s::try_ends(&[]),
        s::plan::ends::executor(&[]),
        s::plan::ends::reference(&[]),
    ] {
        let e = r.unwrap_err().to_string();
        assert!(e.contains("index"), "{e}");
    }
}

#[test]
fn argmin_argmax_first_on_ties_nan_first_empty_minus_one() {
    let rows = vec![
        vec![],
        vec![3.0, 1.0, 1.0, 5.0, 5.0],
        vec![2.0, f64::NAN, 0.0, f64::NAN],
        vec![0.0, -0.0],
        vec![f64::INFINITY, f64::NEG_INFINITY],
        vec![f64::NEG_INFINITY],
    ];
    let want: Vec<(i64, i64)> = rows
        .iter()
        .map(|r| (arg_best(r, false), arg_best(r, true)))
        .collect();
    assert_eq!(s::arg_best(&rows), want);
    assert_eq!(s::plan::arg_best::executor(&rows).unwrap(), want);
    assert_eq!(s::plan::arg_best::reference(&rows).unwrap(), want);
    // Long rows cross the reduction's leaves: still the first index.
    let long: Vec<f64> = (0..20_000).map(|i| f64::from(i % 7)).collect();
    assert_eq!(s::arg_best(&[long]), vec![(0, 6)]);
    let xs = [5, i64::MIN, 9, i64::MIN, 9];
    assert_eq!(s::arg_best_i(&xs), (1, 2));
    assert_eq!(s::plan::arg_best_i::executor(&[]).unwrap(), (-1, -1));
    assert_eq!(s::plan::arg_best_i::reference(&[i64::MAX]).unwrap(), (0, 0));
}

#[test]
fn rev_enumerate_take_skip() {
    let rows = vec![vec![], vec![1], vec![1, 2, 3, 4]];
    let want: Vec<Vec<i64>> = rows
        .iter()
        .map(|r| r.iter().rev().copied().collect())
        .collect();
    assert_eq!(s::reversed(&rows), want);
    assert_eq!(s::plan::reversed::executor(&rows).unwrap(), want);
    let xs = [0.5, -1.0];
    assert_eq!(s::numbered(&xs), vec![(0, 0.5), (1, -1.0)]);
    assert_eq!(
        s::plan::numbered::reference(&xs).unwrap(),
        vec![(0, 0.5), (1, -1.0)]
    );
    for n in [-1, 0, 2, 10] {
        let k = n.clamp(0, 10) as usize;
        let want: Vec<(Vec<i64>, Vec<i64>)> = rows
            .iter()
            .map(|r| {
                (
                    r.iter().take(k).copied().collect(),
                    r.iter().skip(k).copied().collect(),
                )
            })
            .collect();
        assert_eq!(s::window(&rows, n), want, "n = {n}");
        assert_eq!(s::plan::window::executor(&rows, n).unwrap(), want);
        assert_eq!(s::plan::window::reference(&rows, n).unwrap(), want);
    }
}

#[test]
fn zips_of_three_and_four_arrays() {
    let (a, b, c) = ([1, 2, 3], [4, 5, 6], [0.5, 0.25, 0.0]);
    let want: Vec<f64> = a
        .iter()
        .zip(&b)
        .zip(&c)
        .map(|((x, y), z)| (x * y) as f64 + z)
        .collect();
    assert_eq!(s::zip3(&a, &b, &c), want);
    assert_eq!(s::plan::zip3::executor(&a, &b, &c).unwrap(), want);
    let d = [7, 8, 9];
    let want: Vec<i64> = a
        .iter()
        .zip(&b)
        .zip(&a)
        .zip(&d)
        .map(|(((w, x), y), z)| w * x + y * z)
        .collect();
    assert_eq!(s::zip4(&a, &b, &a, &d), want);
    assert_eq!(s::plan::zip4::reference(&a, &b, &a, &d).unwrap(), want);
    assert_eq!(s::zip3_sum(&a, &b, &d), 1 + 4 * 7 + 2 + 5 * 8 + 3 + 6 * 9);
    assert!(s::try_zip3(&a, &b, &[1.0]).is_err());
}

#[vectorise]
mod sorting {
    pub fn sort_rows(rows: &[Vec<f64>]) -> Vec<Vec<f64>> {
        rows.map(|r| r.sort())
    }

    pub fn argsort_rows(rows: &[Vec<f64>]) -> Vec<Vec<i64>> {
        rows.map(|r| r.argsort())
    }

    pub fn sort_flat(xs: &[i64]) -> Vec<i64> {
        xs.sort()
    }

    pub fn by_key(xs: &[(i64, f64)]) -> Vec<(i64, f64)> {
        xs.sort_by_key(|p| p.1)
    }

    pub fn top_k(rows: &[Vec<f64>], k: i64) -> Vec<Vec<i64>> {
        rows.map(|r| r.map(|x| -x).argsort().take(k))
    }
}

fn total_sorted(r: &[f64]) -> Vec<u64> {
    let mut v = r.to_vec();
    v.sort_by(f64::total_cmp);
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn sort_argsort_and_sort_by_key_per_row() {
    let rows = vec![
        vec![],
        vec![
            3.0,
            -0.0,
            0.0,
            f64::NAN,
            -f64::NAN,
            f64::NEG_INFINITY,
            1.0,
            1.0,
        ],
        vec![2.5],
        (0..5000)
            .map(|i| f64::from((i * 37) % 101) - 50.0)
            .collect(),
    ];
    for got in [
        sorting::sort_rows(&rows),
        sorting::plan::sort_rows::executor(&rows).unwrap(),
        sorting::plan::sort_rows::reference(&rows).unwrap(),
    ] {
        for (r, g) in rows.iter().zip(&got) {
            assert_eq!(
                g.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                total_sorted(r)
            );
        }
    }
    let want: Vec<Vec<i64>> = rows
        .iter()
        .map(|r| {
            let mut p: Vec<usize> = (0..r.len()).collect();
            p.sort_by(|&a, &b| r[a].total_cmp(&r[b]));
            p.into_iter().map(|i| i as i64).collect()
        })
        .collect();
    assert_eq!(sorting::argsort_rows(&rows), want);
    assert_eq!(sorting::plan::argsort_rows::executor(&rows).unwrap(), want);
    assert_eq!(sorting::plan::argsort_rows::reference(&rows).unwrap(), want);
    let xs = [3, i64::MIN, 0, 3, -1];
    let mut s = xs.to_vec();
    s.sort_unstable();
    assert_eq!(sorting::sort_flat(&xs), s);
    assert_eq!(sorting::plan::sort_flat::reference(&xs).unwrap(), s);
    let ps = [(0, 2.0), (1, -1.0), (2, 2.0), (3, f64::NAN), (4, -1.0)];
    let want = [(1, -1.0), (4, -1.0), (0, 2.0), (2, 2.0)];
    for got in [
        sorting::try_by_key(&ps),
        sorting::plan::by_key::executor(&ps),
    ] {
        let got = got.unwrap();
        assert_eq!(got[..4], want[..]);
        assert!(got[4].0 == 3 && got[4].1.is_nan());
    }
    let rows = vec![vec![1.0, 5.0, 3.0, 5.0], vec![], vec![2.0]];
    let want = vec![vec![1, 3], vec![], vec![0]];
    assert_eq!(sorting::top_k(&rows, 2), want);
    assert_eq!(sorting::plan::top_k::reference(&rows, 2).unwrap(), want);
}

/// `all` and `any` of a whole array stop at the first value that decides them in the per-lane
/// form (on one thread or split across the pool): the same answer as the reference
/// interpreter wherever the deciding value is, or none is; a predicate that may fail is not
/// stopped early, so its error is the reference's even after a deciding value.
#[test]
fn flat_all_and_any_stop_early_with_the_reference_answer() {
    use flatland::vectoriser::lane::{Lanes, with_lanes};
    let n = 100_000i64;
    let xs: Vec<i64> = (0..n).collect();
    let mut zero_late = vec![1i64; 70_000];
    zero_late[3] = 20;
    zero_late[69_999] = 0;
    for threads in [1, 2, 3, 8] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        for l in [Lanes::Sequential, Lanes::Parallel, Lanes::Model] {
            pool.install(|| {
                with_lanes(l, || {
                    for k in [-1, 0, 1, 4095, 4096, n / 2, n - 1, n, n + 1] {
                        let here = format!("{l:?}, {threads} threads, k = {k}");
                        let all = s::plan::all_below::per_lane(&xs, k).unwrap();
                        assert_eq!(
                            all,
                            s::plan::all_below::reference(&xs, k).unwrap(),
                            "{here}"
                        );
                        assert_eq!(all, xs.iter().all(|&x| x < k), "{here}");
                        let any = s::plan::any_equal::per_lane(&xs, k).unwrap();
                        assert_eq!(
                            any,
                            s::plan::any_equal::reference(&xs, k).unwrap(),
                            "{here}"
                        );
                        assert_eq!(any, xs.contains(&k), "{here}");
                    }
                    assert!(s::plan::all_below::per_lane(&[], 0).unwrap());
                    assert!(!s::plan::any_equal::per_lane(&[], 0).unwrap());
                    let e = s::plan::all_divide::per_lane(&zero_late).unwrap_err();
                    let want = s::plan::all_divide::reference(&zero_late).unwrap_err();
                    assert_eq!(e.to_string(), want.to_string());
                });
            });
        }
    }
}
