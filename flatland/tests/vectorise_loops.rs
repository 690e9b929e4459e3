//! Sequential loops with carried state under `#[vectorise]`: `for i in 0..n`, `for x in xs`,
//! `for &x in xs`, `while`, nested loops, `if` statements in loop bodies, loops under `map`
//! with a different trip count per lane, and the histogram idiom `c[k] += 1` in a `for` loop.
//! The generated code, the executor and the reference interpreter agree bitwise, and
//! the kernels' bodies compiled as plain Rust give the same results.

use flatland::vectorise;

#[vectorise]
mod l {
    /// A sum by a `for` over the elements.
    pub fn total(xs: &[i64]) -> i64 {
        let mut s = 0;
        for &x in xs {
            s += x;
        }
        s
    }

    /// Two state variables, a range loop and an `if` statement.
    pub fn stats(xs: &[f64], n: i64) -> (f64, i64) {
        let mut acc = 0.0;
        let mut big = 0;
        for i in 0..n {
            let x = xs[i % xs.len()];
            acc = acc * 0.5 + x;
            if x > 1.0 {
                big += 1;
            }
        }
        (acc, big)
    }

    /// A `while` loop per lane: each lane stops at its own iteration.
    pub fn doublings(xs: &[i64], limit: i64) -> Vec<i64> {
        xs.map(|x| {
            let mut v = x;
            let mut steps = 0;
            while v < limit {
                v = v * 2 + 1;
                steps += 1;
            }
            steps
        })
    }

    /// A loop per row, nested in a loop over rounds.
    pub fn rounds(rows: Vec<Vec<i64>>, k: i64) -> Vec<i64> {
        rows.map(|r| {
            let mut s = 0;
            for round in 0..k {
                for x in r.iter() {
                    s = s + x * round;
                }
            }
            s
        })
    }

    /// The histogram idiom: counts by key, lowered to `hist`.
    pub fn counts(keys: &[i64], bins: i64) -> Vec<i64> {
        let mut c = vec![0; bins];
        for &k in keys {
            c[k] += 1;
        }
        c
    }

    /// Weighted sums by key, one histogram per row.
    pub fn weighted(rows: Vec<Vec<i64>>, ws: &[f64]) -> Vec<Vec<f64>> {
        rows.map(|r| {
            let mut h = vec![0.0; 4];
            for &k in r {
                h[k % 4] += ws[k];
            }
            h
        })
    }
}

#[vectorise]
mod idioms {
    /// `fold` with a built-in operator from its identity: a reduction.
    pub fn row_max(rows: Vec<Vec<f64>>) -> Vec<f64> {
        rows.map(|r| r.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b)))
    }

    /// `fold` with any closure: a loop over the elements, Rust's order.
    pub fn horner(cs: &[f64], x: f64) -> f64 {
        cs.iter().fold(0.0, |acc, &c| acc * x + c)
    }

    /// `is_empty()` and `f64::EPSILON`.
    pub fn firsts(rows: Vec<Vec<f64>>, x: f64) -> Vec<bool> {
        rows.map(|r| {
            if r.is_empty() {
                false
            } else {
                (r[0] - x).abs() < f64::EPSILON
            }
        })
    }
}

/// The kernels' bodies as plain Rust (what the `#[vectorise]` bodies mean).
mod plain {
    pub(crate) fn total(xs: &[i64]) -> i64 {
        let mut s = 0;
        for &x in xs {
            s += x;
        }
        s
    }

    pub(crate) fn stats(xs: &[f64], n: i64) -> (f64, i64) {
        let mut acc = 0.0;
        let mut big = 0;
        for i in 0..n {
            let x = xs[(i % xs.len() as i64) as usize];
            acc = acc * 0.5 + x;
            if x > 1.0 {
                big += 1;
            }
        }
        (acc, big)
    }

    pub(crate) fn doublings(xs: &[i64], limit: i64) -> Vec<i64> {
        xs.iter()
            .map(|&x| {
                let mut v = x;
                let mut steps = 0;
                while v < limit {
                    v = v * 2 + 1;
                    steps += 1;
                }
                steps
            })
            .collect()
    }

    pub(crate) fn rounds(rows: Vec<Vec<i64>>, k: i64) -> Vec<i64> {
        rows.iter()
            .map(|r| {
                let mut s = 0;
                for round in 0..k {
                    for x in r {
                        s += x * round;
                    }
                }
                s
            })
            .collect()
    }

    pub(crate) fn counts(keys: &[i64], bins: i64) -> Vec<i64> {
        let mut c = vec![0; bins as usize];
        for &k in keys {
            c[k as usize] += 1;
        }
        c
    }
}

#[test]
fn idioms_agree_with_rust() {
    let rows = vec![vec![], vec![1.5, -2.0, 7.25], vec![-3.0], vec![0.5, 0.5]];
    let got = idioms::row_max(rows.clone());
    assert_eq!(got, idioms::plan::row_max::reference(rows.clone()).unwrap());
    let want: Vec<f64> = rows
        .iter()
        .map(|r| r.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b)))
        .collect();
    assert_eq!(got, want);
    let cs = [1.0, -0.5, 0.25, 3.0];
    for x in [0.0, 1.5, -2.0] {
        let got = idioms::horner(&cs, x);
        assert_eq!(
            got.to_bits(),
            idioms::plan::horner::executor(&cs, x).unwrap().to_bits()
        );
        let want = cs.iter().fold(0.0, |acc, &c| acc * x + c);
        assert_eq!(got.to_bits(), want.to_bits());
    }
    let got = idioms::firsts(rows.clone(), 1.5);
    assert_eq!(got, vec![false, true, false, false]);
    assert_eq!(got, idioms::plan::firsts::executor(rows, 1.5).unwrap());
}

fn rows() -> Vec<Vec<i64>> {
    vec![
        vec![],
        vec![3, 1, 2],
        vec![0],
        vec![],
        (0..50).map(|i| (i * 7) % 13).collect(),
    ]
}

#[test]
fn loops_agree_with_the_executor_the_interpreter_and_rust() {
    for xs in [vec![], vec![5], vec![1, -2, 3, 9]] {
        let got = l::total(&xs);
        assert_eq!(got, l::plan::total::executor(&xs).unwrap());
        assert_eq!(got, l::plan::total::reference(&xs).unwrap());
        assert_eq!(got, plain::total(&xs));
    }
    let fs = [0.5, 2.0, -1.25, 3.5];
    for n in [-3, 0, 1, 7, 40] {
        let got = l::stats(&fs, n);
        assert_eq!(got, l::plan::stats::executor(&fs, n).unwrap());
        assert_eq!(got, l::plan::stats::reference(&fs, n).unwrap());
        let want = plain::stats(&fs, n);
        assert_eq!((got.0.to_bits(), got.1), (want.0.to_bits(), want.1));
    }
    assert!(
        l::try_stats(&[], 1).is_err(),
        "a remainder by zero is an error"
    );
    let xs = [0, 1, 7, 100, 1000];
    for limit in [-10, 0, 50, 5000] {
        let got = l::doublings(&xs, limit);
        assert_eq!(got, l::plan::doublings::executor(&xs, limit).unwrap());
        assert_eq!(got, l::plan::doublings::reference(&xs, limit).unwrap());
        assert_eq!(got, plain::doublings(&xs, limit));
    }
    for k in [0, 1, 3] {
        let got = l::rounds(rows(), k);
        assert_eq!(got, l::plan::rounds::executor(rows(), k).unwrap());
        assert_eq!(got, l::plan::rounds::reference(rows(), k).unwrap());
        assert_eq!(got, plain::rounds(rows(), k));
    }
}

#[test]
fn the_histogram_idiom_agrees() {
    let keys: Vec<i64> = (0..1000).map(|i| (i * 31) % 17).collect();
    let got = l::counts(&keys, 17);
    assert_eq!(got, l::plan::counts::executor(&keys, 17).unwrap());
    assert_eq!(got, l::plan::counts::reference(&keys, 17).unwrap());
    assert_eq!(got, plain::counts(&keys, 17));
    // Keys outside the bins are skipped (documented; plain Rust would panic).
    assert_eq!(l::counts(&[0, 5, -1, 1], 2), vec![1, 1]);
    let ws: Vec<f64> = (0..13).map(|i| f64::from(i) * 0.1).collect();
    let got = l::weighted(rows(), &ws);
    let bits = |v: &[Vec<f64>]| -> Vec<Vec<u64>> {
        v.iter()
            .map(|r| r.iter().map(|x| x.to_bits()).collect())
            .collect()
    };
    assert_eq!(
        bits(&got),
        bits(&l::plan::weighted::executor(rows(), &ws).unwrap())
    );
    assert_eq!(
        bits(&got),
        bits(&l::plan::weighted::reference(rows(), &ws).unwrap())
    );
}

#[test]
fn the_loops_run_per_lane() {
    let explained = l::plan::explain();
    for line in explained.lines() {
        assert!(line.contains(": per-lane:"), "{explained}");
    }
}
