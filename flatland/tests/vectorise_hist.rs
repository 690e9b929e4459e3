//! Reductions by index under `#[vectorise]`: `hist` and `count_by_index`, flat and one
//! histogram per lane, built-in and closure operators; the generated code, the
//! executor and the reference interpreter agree bitwise, on empty and degenerate inputs too,
//! and give the same errors.

use flatland::vectorise;

#[vectorise]
mod h {
    /// Counts of keys into `bins` bins (keys outside `0..bins` skipped).
    pub fn counts(keys: &[i64], bins: i64) -> Vec<i64> {
        count_by_index(bins, keys)
    }

    /// Sums of weights by key.
    pub fn sums(keys: &[i64], ws: &[f64], bins: i64) -> Vec<f64> {
        hist(bins, 0.0, |a, b| a + b, keys, ws)
    }

    /// The largest weight by key, from a closure the built-in `max` does not match.
    pub fn largest(keys: &[i64], ws: &[f64]) -> Vec<f64> {
        hist(
            4,
            f64::NEG_INFINITY,
            |a, b| if a > b { a } else { b },
            keys,
            ws,
        )
    }

    /// One histogram per row, each row with its own number of bins.
    pub fn per_row(rows: Vec<Vec<i64>>) -> Vec<Vec<i64>> {
        rows.map(|r| hist(r.len(), 0, |a, b| a + b, r.map(|k| k - 1), r))
    }

    /// `std`'s `f64::min` by key, which ignores a NaN: a closure, not the built-in (IEEE
    /// `minimum`) operator.
    pub fn min_skipping_nan(keys: &[i64], ws: &[f64]) -> Vec<f64> {
        hist(2, f64::INFINITY, |a, b| a.min(b), keys, ws)
    }

    /// The same in a `fold` from the built-in `minimum`'s identity: Rust's left-to-right loop.
    pub fn fold_min_skipping_nan(ws: &[f64]) -> f64 {
        ws.fold(f64::INFINITY, |a, b| a.min(b))
    }

    /// Minimum per bin under a map, the identity varying per lane.
    pub fn mins(rows: Vec<Vec<i64>>, cap: i64) -> Vec<Vec<i64>> {
        rows.map(|r| hist(3, cap + r.len(), |a, b| a.min(b), r.map(|k| k % 3), r))
    }
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn key_sets() -> Vec<Vec<i64>> {
    vec![
        vec![],
        vec![0],
        vec![-1, 7, 3],
        vec![2, 2, 2, 2],
        (0..300).map(|i| (i * 37) % 11 - 2).collect(),
        (0..70_000).map(|i| (i * 7919) % 9 - 1).collect(),
    ]
}

#[test]
fn flat_histograms_agree() {
    for ks in key_sets() {
        let ws: Vec<f64> = ks
            .iter()
            .enumerate()
            .map(|(i, &k)| k as f64 * 0.1 + i as f64 * 1e-3)
            .collect();
        for bins in [0, 1, 4, 9] {
            let c = h::counts(&ks, bins);
            assert_eq!(c, h::plan::counts::executor(&ks, bins).unwrap());
            assert_eq!(c, h::plan::counts::reference(&ks, bins).unwrap());
            let want: Vec<i64> = (0..bins)
                .map(|b| ks.iter().filter(|&&k| k == b).count() as i64)
                .collect();
            assert_eq!(c, want);
            let s = h::sums(&ks, &ws, bins);
            assert_eq!(
                bits(&s),
                bits(&h::plan::sums::executor(&ks, &ws, bins).unwrap())
            );
            assert_eq!(
                bits(&s),
                bits(&h::plan::sums::reference(&ks, &ws, bins).unwrap())
            );
        }
        let l = h::largest(&ks, &ws);
        assert_eq!(
            bits(&l),
            bits(&h::plan::largest::executor(&ks, &ws).unwrap())
        );
        assert_eq!(
            bits(&l),
            bits(&h::plan::largest::reference(&ks, &ws).unwrap())
        );
    }
}

#[test]
fn one_histogram_per_lane_agrees() {
    let rows: Vec<Vec<i64>> = vec![
        vec![],
        vec![1, 2, 2],
        vec![0],
        vec![],
        vec![3, 1, 1, 4, 9, -5],
    ];
    let got = h::per_row(rows.clone());
    assert_eq!(got, h::plan::per_row::executor(rows.clone()).unwrap());
    assert_eq!(got, h::plan::per_row::reference(rows.clone()).unwrap());
    assert_eq!(got[1], vec![1, 4, 0]);
    for cap in [-3, 0, 100] {
        let got = h::mins(rows.clone(), cap);
        assert_eq!(got, h::plan::mins::executor(rows.clone(), cap).unwrap());
        assert_eq!(got, h::plan::mins::reference(rows.clone(), cap).unwrap());
    }
    assert!(h::per_row(Vec::new()).is_empty());
}

/// Found by the random corpus (`cli/tests/vectorise_random_corpus.rs`): `|a, b| a.min(b)` on
/// `f64` in `hist` and `fold` was taken for the built-in `minimum`, so a NaN won its bin.
#[test]
fn nan_skipping_min_is_stds() {
    let ws = [f64::NAN, 1.0, 2.0];
    assert_eq!(
        bits(&h::try_min_skipping_nan(&[0, 0, 1], &ws).unwrap()),
        bits(&[1.0, 2.0])
    );
    let plain = ws.iter().fold(f64::INFINITY, |a, &b| a.min(b));
    assert_eq!(
        h::try_fold_min_skipping_nan(&ws).unwrap().to_bits(),
        plain.to_bits()
    );
}

#[test]
fn errors_agree() {
    let e = h::try_counts(&[1, 2], -1).unwrap_err();
    assert_eq!(e, h::plan::counts::executor(&[1, 2], -1).unwrap_err());
    assert_eq!(e, h::plan::counts::reference(&[1, 2], -1).unwrap_err());
    assert_eq!(e.to_string(), "hist: lane 0: negative number of bins -1");
    let e = h::try_sums(&[1, 2], &[1.0], 3).unwrap_err();
    assert_eq!(e, h::plan::sums::executor(&[1, 2], &[1.0], 3).unwrap_err());
    assert_eq!(e, h::plan::sums::reference(&[1, 2], &[1.0], 3).unwrap_err());
}

#[test]
fn the_histograms_run_per_lane() {
    let explained = h::plan::explain();
    for (f, line) in [
        ("counts", h::plan::counts::explain()),
        ("sums", h::plan::sums::explain()),
        ("largest", h::plan::largest::explain()),
        ("per_row", h::plan::per_row::explain()),
        ("mins", h::plan::mins::explain()),
    ] {
        assert!(line.starts_with(&format!("{f}: per-lane")), "{line}");
        // The route, not the call counts (other tests call these functions meanwhile).
        let route = |l: &str| {
            l.split("; calls so far")
                .next()
                .unwrap_or_default()
                .to_string()
        };
        assert!(
            explained.lines().any(|l| route(l) == route(&line)),
            "{explained}"
        );
    }
}
