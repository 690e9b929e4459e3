//! Operators whose conditionals choose between their arguments (a best-of `reduce`, a running
//! best by `scan`): `#[vectorise]` compiles those conditionals into selects without a branch
//! (`runtime::hint::select`) in the per-lane code. The values, bits included (`NaN`, `-0.0`,
//! ties), are the reference interpreter's and the executor's on every length of leaf the
//! canonical association treats apart: short chains, lanes of two to four elements, long lanes
//! and several leaves.

use flatland::prelude::*;

mod common;

#[vectorise]
mod best {
    /// The nearest centre of each point and its squared distance (the first on ties).
    pub fn nearest(points: &[(f64, f64)], centres: &[(f64, f64)]) -> Vec<(i64, f64)> {
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
            })
            .collect()
    }

    /// Each row's largest value with its index, from a start whose flag the operator keeps.
    pub fn row_best(rows: &[Vec<f64>]) -> Vec<((i64, f64), bool)> {
        rows.map(|r| {
            r.enumerate().map(|(i, x)| ((i, x), x < 0.0)).reduce(
                ((-1, f64::NEG_INFINITY), false),
                |a, b| {
                    if a.0.0 < 0 || b.0.1 > a.0.1 { b } else { a }
                },
            )
        })
    }

    /// The running largest value and whether it came from a negative one.
    pub fn running_best(xs: &[f64]) -> Vec<(f64, bool)> {
        xs.map(|x| (x, x < 0.0)).scan(
            (f64::NEG_INFINITY, false),
            |a, b| if b.0 > a.0 { b } else { a },
        )
    }
}

/// Floats that make any change of association or of bits visible: signed zeros, NaNs, both
/// infinities and ties.
fn awkward(n: usize, seed: u64) -> Vec<f64> {
    let specials = [
        0.0,
        -0.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1.5,
        1.5,
    ];
    common::ints(n, seed, 40)
        .into_iter()
        .map(|k| match usize::try_from(k).map_or(0, |k| k) {
            k if k < specials.len() => specials[k],
            k => k as f64 - 20.0,
        })
        .collect()
}

fn same_bits<T: std::fmt::Debug>(a: &T, b: &T) {
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
}

#[test]
fn best_of_reductions_keep_the_interpreters_bits_on_every_leaf_shape() {
    let lengths: Vec<usize> = (0..=50).chain([63, 64, 65, 1000, 4097, 20_000]).collect();
    let rows: Vec<Vec<f64>> = lengths.iter().map(|&n| awkward(n, 7 + n as u64)).collect();
    let got = best::row_best(&rows);
    same_bits(&got, &best::plan::row_best::reference(&rows).unwrap());
    same_bits(&got, &best::plan::row_best::executor(&rows).unwrap());
    for &k in &lengths {
        let xs = awkward(2 * k, 11 + k as u64);
        let centres: Vec<(f64, f64)> = xs.chunks(2).map(|c| (c[0], c[1])).collect();
        let points: Vec<(f64, f64)> = awkward(64, 3 + k as u64)
            .chunks(2)
            .map(|c| (c[0], c[1]))
            .collect();
        let got = best::nearest(&points, &centres);
        same_bits(
            &got,
            &best::plan::nearest::reference(&points, &centres).unwrap(),
        );
        same_bits(
            &got,
            &best::plan::nearest::executor(&points, &centres).unwrap(),
        );
    }
}

#[test]
fn a_running_best_keeps_the_interpreters_bits() {
    for n in [0, 1, 2, 15, 16, 17, 39, 40, 1000, 5000] {
        let xs = awkward(n, 19 + n as u64);
        let got = best::running_best(&xs);
        same_bits(&got, &best::plan::running_best::reference(&xs).unwrap());
        same_bits(&got, &best::plan::running_best::executor(&xs).unwrap());
    }
}
