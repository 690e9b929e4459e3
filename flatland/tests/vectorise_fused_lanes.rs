//! Per-lane code computes the elements of a map that cannot fail in the lanes that read them,
//! instead of materialising the map first (`Emitter::lane_array` in
//! `vectoriser/macros/src/lane.rs`): the pairs of an `enumerate()` under a reduction or a map,
//! maps of maps, and a zip of a map with an array. A map that can fail (an index, a division)
//! is still materialised first, so that its error is the one the interpreter reports. Each
//! kernel must give the reference interpreter's value, or its error, under its per-lane form,
//! its executor and the run's choice.

mod common;
use common::ints;
use flatland::vectorise;

#[vectorise]
mod k {
    /// The nearest centre of each point by a best-of reduce over `enumerate()`.
    pub fn nearest(points: &[(f64, f64)], centres: &[(f64, f64)]) -> Vec<i64> {
        points
            .iter()
            .map(|&p| {
                centres
                    .iter()
                    .enumerate()
                    .map(|(j, c)| {
                        let dx = p.0 - c.0;
                        (j, dx * dx + (p.1 - c.1) * (p.1 - c.1))
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

    /// A map over `enumerate()` whose body filters a free array.
    pub fn ranked(xs: &[i64], ys: &[i64]) -> Vec<i64> {
        xs.iter()
            .enumerate()
            .map(|(i, &x)| i + ys.filter(|y| y < x).len())
            .collect()
    }

    /// A map of a map, zipped with the array, summed.
    pub fn chained(xs: &[i64]) -> i64 {
        xs.map(|x| x * 2)
            .map(|y| y + 1)
            .zip(xs)
            .map(|(a, b)| a - b)
            .sum()
    }

    /// Two maps under `let`s of one name, zipped: each map reads its own `s`, and the lanes
    /// read the outer one.
    pub fn shadowed(xs: &[i64]) -> Vec<i64> {
        let s = 100;
        let a = {
            let s = 2;
            xs.map(|x| x * s)
        };
        let pairs = a.zip({
            let s = 3;
            xs.map(|x| x + s)
        });
        pairs.map(|(p, q)| p - q + s)
    }

    /// Two maps under `let`s of one name whose lambdas read it, zipped (the lanes do not).
    pub fn shadowed_in_lambdas(xs: &[i64]) -> i64 {
        {
            let s = 2;
            xs.map(|x| x * s)
        }
        .zip({
            let s = 3;
            xs.map(|x| x + s)
        })
        .map(|(p, q)| p - q)
        .sum()
    }

    /// Two `enumerate()`s zipped (their pairs' derived names alike), read in place.
    pub fn two_enumerates(xs: &[i64], ys: &[i64]) -> Vec<i64> {
        xs.iter()
            .enumerate()
            .zip(ys.iter().enumerate())
            .map(|((i, &x), (j, &y))| i * x - j * y)
            .collect()
    }

    /// An inner map that can fail (an index): materialised first, its error reported.
    pub fn gathered(xs: &[i64], ys: &[i64]) -> Vec<i64> {
        xs.map(|i| ys[i])
            .iter()
            .enumerate()
            .map(|(j, &v)| j * v)
            .collect()
    }

    /// An inner map that can fail (a division by zero).
    pub fn divided(xs: &[i64]) -> i64 {
        xs.map(|x| 100 / x).zip(xs).map(|(q, x)| q + x).sum()
    }

    /// The outer lambda fails (an index) over the pairs of an `enumerate()` read in place.
    pub fn outer_fails(xs: &[i64], ys: &[i64]) -> Vec<i64> {
        xs.iter().enumerate().map(|(i, &x)| ys[x] + i).collect()
    }
}

/// `f`'s run's choice, per-lane form and executor agree with the reference interpreter,
/// errors included.
macro_rules! agree {
    ($f:ident / $try_f:ident, $($arg:expr),*) => {{
        let want = k::plan::$f::reference($($arg),*).map_err(|e| e.to_string());
        let name = stringify!($f);
        assert_eq!(k::$try_f($($arg),*).map_err(|e| e.to_string()), want, "{name}");
        assert_eq!(k::plan::$f::per_lane($($arg),*).map_err(|e| e.to_string()), want, "{name} per-lane");
        assert_eq!(k::plan::$f::executor($($arg),*).map_err(|e| e.to_string()), want, "{name} executor");
        want
    }};
}

#[test]
fn fused_maps_give_the_interpreters_values_and_errors() {
    for n in [0, 1, 7, 300] {
        let xs = ints(n, 3, 50);
        let ys = ints(50, 5, 1000);
        let points: Vec<(f64, f64)> = xs
            .iter()
            .map(|&x| (x as f64 * 0.5, 7.0 - x as f64))
            .collect();
        let centres: Vec<(f64, f64)> = ys[..16]
            .iter()
            .map(|&y| (y as f64 * 0.01, y as f64 * -0.02))
            .collect();
        assert!(agree!(nearest / try_nearest, &points, &centres).is_ok());
        assert!(agree!(nearest / try_nearest, &points, &[]).is_ok());
        assert!(agree!(ranked / try_ranked, &xs, &ys).is_ok());
        assert!(agree!(chained / try_chained, &xs).is_ok());
        assert!(agree!(shadowed / try_shadowed, &xs).is_ok());
        assert!(agree!(shadowed_in_lambdas / try_shadowed_in_lambdas, &xs).is_ok());
        assert!(agree!(two_enumerates / try_two_enumerates, &xs, &xs).is_ok());
        assert!(agree!(gathered / try_gathered, &xs, &ys).is_ok());
        assert!(agree!(outer_fails / try_outer_fails, &xs, &ys).is_ok());
        // Index 50 of 50 values, and division by zero, at the end and in the middle.
        let mut bad = xs.clone();
        bad.push(50);
        bad.insert(bad.len() / 2, 0);
        let short = &ys[..10];
        assert!(agree!(gathered / try_gathered, &bad, &ys).is_err());
        assert!(agree!(outer_fails / try_outer_fails, &bad, short).is_err());
        assert!(agree!(divided / try_divided, &bad).is_err());
    }
}

#[test]
fn the_fused_kernels_run_per_lane() {
    for explain in [k::plan::nearest::explain(), k::plan::ranked::explain()] {
        assert!(explain.contains(": per-lane: "), "{explain}");
    }
}
