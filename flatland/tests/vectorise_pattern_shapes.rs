//! The shapes the macro's deleted direct patterns matched, now run by the strategy the run
//! chooses (the per-lane form at these sizes): a segmented redomap over `Nested` rows (short rows
//! as an inline chain, gathers prefetched ahead), a redomap over scalar slices, a map or zip over
//! them and a filter: equal to `NAME_reference` and to the executor bitwise, on random inputs
//! across leaf boundaries, with the executor's errors on failing elements.

use flatland::runtime::expr::op::float::canonical_bits;
use flatland::vectorise;
use quickcheck::{QuickCheck, TestResult};

#[vectorise]
mod k {
    use flatland::runtime::elt::Nested;

    pub fn rows_dot(cols: &Nested<i64>, vals: &Nested<f64>, v: &[f64]) -> Vec<f64> {
        cols.zip(vals)
            .map(|(cs, xs)| cs.zip(xs).map(|(c, x)| x * v[c]).sum())
    }
    pub fn rows_scaled(vals: &Nested<f64>, w: f64) -> Vec<f64> {
        vals.map(|xs| xs.map(|x| x * w).sum())
    }

    pub fn rows_peak(vals: &Nested<f64>, w: f64) -> Vec<f64> {
        vals.map(|xs| xs.map(|x| x * w).max())
    }

    pub fn rows_from(vals: &Nested<f64>) -> Vec<f64> {
        vals.map(|xs| xs.reduce(0.25, |a, b| a + b))
    }

    pub fn rows_ints(cols: &Nested<i64>, k: i64) -> Vec<i64> {
        cols.map(|cs| {
            cs.map(|c| {
                let k = c * 3;
                k - 1
            })
            .sum()
        })
    }

    pub fn dot(xs: &[f64], ys: &[f64]) -> f64 {
        xs.zip(ys).map(|(x, y)| x * y).sum()
    }

    pub fn total(xs: &[i64]) -> i64 {
        xs.sum()
    }

    pub fn clipped_max(xs: &[f64], w: &[f64], k: i64) -> f64 {
        xs.map(|x| if x > 0.0 { x * w[k] } else { -x }).max()
    }

    pub fn ratios(xs: &[i64], d: i64) -> Vec<i64> {
        xs.map(|x| x / d + 1)
    }

    pub fn blend(xs: &[f64], ys: &Vec<f64>, t: f64) -> Vec<f64> {
        xs.zip(ys).map(|(x, y)| x * (1.0 - t) + y * t)
    }

    pub fn positive(xs: &[i64]) -> Vec<bool> {
        xs.map(|x| x > 0)
    }

    pub fn kept(xs: &[f64], w: &[f64], k: i64) -> Vec<f64> {
        xs.filter(|x| x * w[k] > 0.5 || x != x)
    }
}

/// Rows of lengths around the short-leaf bound and the leaf size, with a gather per entry:
/// direct == reference == executor bitwise, and an out-of-range column gives the executor's
/// error.
#[test]
fn segmented_rows_of_every_length_equal_reference_and_executor() {
    use flatland::runtime::{assoc, elt::Nested};
    fn prop(lens: Vec<u8>, seed: Vec<i32>, bad: bool) -> bool {
        let short = assoc::SHORT;
        let lens: Vec<usize> = lens
            .iter()
            .map(|&l| match l % 8 {
                0 => 0,
                1 => short - 1,
                2 => short,
                3 => short + 1,
                4 => 4096 + usize::from(l),
                _ => usize::from(l % 5),
            })
            .collect();
        let mut offsets = vec![0];
        for l in &lens {
            offsets.push(offsets.last().unwrap() + l);
        }
        let nnz = *offsets.last().unwrap();
        let v = floats(&seed, 1000);
        let mut cols: Vec<i64> = (0..nnz).map(|i| ((i * 7919) % 1000) as i64).collect();
        if bad && nnz > 0 {
            cols[nnz / 2] = 1000;
        }
        let vals = floats(&seed, nnz + 3)[3..].to_vec();
        let c = Nested::from_offsets(offsets.clone(), cols).unwrap();
        let x = Nested::from_offsets(offsets, vals).unwrap();
        let bits = |r: flatland::vectoriser::Result<Vec<f64>>| {
            r.map(|v| v.into_iter().map(canonical_bits).collect::<Vec<_>>())
                .map_err(|e| e.to_string())
        };
        let direct = bits(k::try_rows_dot(&c, &x, &v));
        direct.is_err() == (bad && nnz > 0)
            && direct == bits(k::plan::rows_dot::reference(&c, &x, &v))
            && direct == bits(k::plan::rows_dot::executor(&c, &x, &v))
    }
    QuickCheck::new()
        .tests(30)
        .quickcheck(prop as fn(Vec<u8>, Vec<i32>, bool) -> bool);
}

/// Short rows are folded by an inline chain whose last `identity ⊕ chain` step is left out
/// where it cannot change a bit (a sum from 0 or +0.0): rows of every short length holding
/// signed zeros, infinities and NaNs give the reference's bits, for sums (the step left out),
/// a max and a sum from 0.25 (the step kept).
#[test]
fn short_rows_of_special_values_equal_reference_and_executor() {
    use flatland::runtime::{assoc, elt::Nested};
    fn prop(lens: Vec<u8>, picks: Vec<u8>, w: u8) -> bool {
        let special = [
            -0.0,
            0.0,
            1.5,
            -2.25,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -1e300,
        ];
        let lens: Vec<usize> = lens
            .iter()
            .map(|&l| usize::from(l) % (assoc::SHORT + 2))
            .collect();
        let mut offsets = vec![0];
        for l in &lens {
            offsets.push(offsets.last().unwrap() + l);
        }
        let nnz = *offsets.last().unwrap();
        let pick = |i: usize| usize::from(picks.get(i % picks.len().max(1)).copied().unwrap_or(0));
        let vals: Vec<f64> = (0..nnz)
            .map(|i| special[(pick(i) + i) % special.len()])
            .collect();
        let ints: Vec<i64> = (0..nnz).map(|i| (pick(i) as i64 - 128) << 40).collect();
        let w = special[usize::from(w) % special.len()];
        let x = Nested::from_offsets(offsets.clone(), vals).unwrap();
        let c = Nested::from_offsets(offsets, ints).unwrap();
        let bits = |r: flatland::vectoriser::Result<Vec<f64>>| {
            r.map(|v| v.into_iter().map(canonical_bits).collect::<Vec<_>>())
                .map_err(|e| e.to_string())
        };
        let scaled = bits(k::try_rows_scaled(&x, w));
        let peak = bits(k::try_rows_peak(&x, w));
        let from = bits(k::try_rows_from(&x));
        let ints = k::try_rows_ints(&c, 7).map_err(|e| e.to_string());
        scaled.is_ok()
            && scaled == bits(k::plan::rows_scaled::reference(&x, w))
            && scaled == bits(k::plan::rows_scaled::executor(&x, w))
            && peak == bits(k::plan::rows_peak::reference(&x, w))
            && peak == bits(k::plan::rows_peak::executor(&x, w))
            && from == bits(k::plan::rows_from::reference(&x))
            && from == bits(k::plan::rows_from::executor(&x))
            && ints == k::plan::rows_ints::reference(&c, 7).map_err(|e| e.to_string())
            && ints == k::plan::rows_ints::executor(&c, 7).map_err(|e| e.to_string())
    }
    QuickCheck::new()
        .tests(60)
        .quickcheck(prop as fn(Vec<u8>, Vec<u8>, u8) -> bool);
}

/// Values with a spread of magnitudes, so a different association would change the bits.
fn floats(seed: &[i32], n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let s = seed.get(i % seed.len().max(1)).copied().unwrap_or(1);
            f64::from(s) * 1e-3 + (i as f64).sqrt() * 1e5
        })
        .collect()
}

fn lengths(extra: u16) -> usize {
    // Around 0, one leaf (4096) and a few leaves.
    [0, 1, 7, 4095, 4096, 4097, 3 * 4096 + 5][usize::from(extra % 7)] + usize::from(extra % 13)
}

#[test]
fn reductions_equal_reference_and_executor() {
    fn prop(seed: Vec<i32>, extra: u16, k: u8) -> TestResult {
        let n = lengths(extra);
        let (xs, ys) = (floats(&seed, n), floats(&seed, n + 1)[1..].to_vec());
        let is: Vec<i64> = xs.iter().map(|x| *x as i64 - 1_000_000).collect();
        let w = vec![0.5, -2.0, 1e-9];
        let k = i64::from(k % 3);
        let same_f = flatland::runtime::expr::op::float::same;
        let dot = k::dot(&xs, &ys);
        let ok = same_f(dot, k::plan::dot::reference(&xs, &ys).unwrap())
            && same_f(dot, k::plan::dot::executor(&xs, &ys).unwrap())
            && k::total(&is) == k::plan::total::reference(&is).unwrap()
            && same_f(
                k::clipped_max(&xs, &w, k),
                k::plan::clipped_max::reference(&xs, &w, k).unwrap(),
            );
        TestResult::from_bool(ok)
    }
    QuickCheck::new()
        .tests(40)
        .quickcheck(prop as fn(Vec<i32>, u16, u8) -> TestResult);
}

#[test]
fn maps_equal_reference_and_executor() {
    fn prop(seed: Vec<i32>, extra: u16, d: i8) -> bool {
        let n = lengths(extra);
        let (xs, ys) = (floats(&seed, n), floats(&seed, n + 2)[2..].to_vec());
        let is: Vec<i64> = xs.iter().map(|x| *x as i64 - 1_000_000).collect();
        let d = i64::from(d);
        let bits = |v: Vec<f64>| v.into_iter().map(canonical_bits).collect::<Vec<_>>();
        let blend = bits(k::blend(&xs, &ys, 0.25));
        // Division by zero: the same error as the executor's, naming the operation.
        let ratios = k::try_ratios(&is, d).map_err(|e| e.to_string());
        blend == bits(k::plan::blend::reference(&xs, &ys, 0.25).unwrap())
            && blend == bits(k::plan::blend::executor(&xs, &ys, 0.25).unwrap())
            && ratios == k::plan::ratios::reference(&is, d).map_err(|e| e.to_string())
            && ratios == k::plan::ratios::executor(&is, d).map_err(|e| e.to_string())
            && k::positive(&is) == is.iter().map(|&x| x > 0).collect::<Vec<_>>()
    }
    QuickCheck::new()
        .tests(40)
        .quickcheck(prop as fn(Vec<i32>, u16, i8) -> bool);
}

#[test]
fn failing_elements_and_mismatched_lengths_give_the_executors_errors() {
    let xs = vec![1.0, -2.0, 3.0];
    // Out-of-range gather, only for positive elements.
    let direct = k::try_clipped_max(&xs, &[1.0], 4).map_err(|e| e.to_string());
    assert!(direct.is_err(), "{direct:?}");
    assert_eq!(
        direct,
        k::plan::clipped_max::reference(&xs, &[1.0], 4).map_err(|e| e.to_string())
    );
    // Negative elements only take the other branch: no gather, no error.
    assert_eq!(k::clipped_max(&[-1.0, -5.0], &[1.0], 4), 5.0);
    let short = [1.0, 2.0];
    let direct = k::try_dot(&xs, &short).map_err(|e| e.to_string());
    assert!(direct.is_err(), "{direct:?}");
    assert_eq!(
        direct,
        k::plan::dot::reference(&xs, &short).map_err(|e| e.to_string())
    );
    assert_eq!(
        k::try_blend(&xs, &short.to_vec(), 0.5).map_err(|e| e.to_string()),
        k::plan::blend::reference(&xs, &short.to_vec(), 0.5).map_err(|e| e.to_string())
    );
    // Empty inputs: the identity and an empty array.
    assert_eq!(k::dot(&[], &[]), 0.0);
    assert_eq!(k::total(&[]), 0);
    assert_eq!(k::clipped_max(&[], &[], 0), f64::NEG_INFINITY);
    assert_eq!(k::ratios(&[], 0), Vec::<i64>::new());
}

/// With a vector larger than the caches and scattered columns the per-lane form prefetches its
/// gathers (`lane::gathers_pay`): still bitwise the reference's result.
#[test]
fn prefetched_gathers_change_no_bit() {
    use flatland::runtime::{elt::Nested, hint};
    let n = 1 << 23;
    let v: Vec<f64> = (0..n).map(|i| (i as f64).sqrt() * 1e-3).collect();
    let lens: Vec<usize> = (0..3000).map(|i| [0, 1, 2, 15, 16, 40][i % 6]).collect();
    let mut offsets = vec![0];
    for l in &lens {
        offsets.push(offsets.last().unwrap() + l);
    }
    let nnz = *offsets.last().unwrap();
    let cols: Vec<i64> = (0..nnz).map(|i| ((i * 7_919_993) % n) as i64).collect();
    assert!(hint::prefetch_pays(&v, &cols));
    let vals: Vec<f64> = (0..nnz).map(|i| 1.0 + i as f64 * 1e-7).collect();
    let c = Nested::from_offsets(offsets.clone(), cols).unwrap();
    let x = Nested::from_offsets(offsets, vals).unwrap();
    let bits = |r: Vec<f64>| r.into_iter().map(canonical_bits).collect::<Vec<_>>();
    assert_eq!(
        bits(k::rows_dot(&c, &x, &v)),
        bits(k::plan::rows_dot::reference(&c, &x, &v).unwrap())
    );
}

/// `xs.filter(|x| PRED)` is one `flat::filter` with the predicate compiled by rustc: equal to the
/// reference and the executor bitwise (NaN kept by `x != x`, signed zeros in order), and an
/// out-of-range gather in the predicate gives the executor's error.
#[test]
fn flat_filter_equals_reference_and_executor() {
    fn prop(seed: Vec<i32>, k: u8) -> bool {
        let xs: Vec<f64> = seed
            .iter()
            .map(|&s| match s % 5 {
                0 => f64::NAN,
                1 => -0.0,
                _ => f64::from(s) / 7.0,
            })
            .collect();
        let w = [0.5, -1.0, 2.0];
        let k = i64::from(k % 4);
        let (direct, work) = flatland::runtime::stats::measure(|| k::try_kept(&xs, &w, k));
        // Per-lane code runs no expression program (the executor would).
        if flatland::runtime::stats::ENABLED
            && direct.is_ok()
            && !xs.is_empty()
            && work.lanes_native + work.lanes_interpreted > 0
        {
            return false;
        }
        let bits = |r: &flatland::vectoriser::Result<Vec<f64>>| {
            r.as_ref()
                .map(|v| v.iter().map(|&x| canonical_bits(x)).collect::<Vec<_>>())
                .map_err(ToString::to_string)
        };
        let (executor, reference) = (
            k::plan::kept::executor(&xs, &w, k),
            k::plan::kept::reference(&xs, &w, k),
        );
        bits(&direct) == bits(&executor)
            && bits(&direct) == bits(&reference)
            && (k < 3 || xs.is_empty() || direct.is_err())
    }
    QuickCheck::new()
        .tests(200)
        .quickcheck(prop as fn(Vec<i32>, u8) -> bool);
}

#[vectorise]
mod again {
    use flatland::runtime::elt::Nested;

    /// Two gathers through one index column in one run: the second reads unchecked when the
    /// column's range fits its vector (module `kernels::index_ranges`).
    pub fn two_pulls(ins: &Nested<i64>, v: &[f64], w: &[f64]) -> Vec<f64> {
        let a = ins.map(|row| row.map(|u| v[u]).sum());
        let b = ins.map(|row| row.map(|u| w[u]).sum());
        a.zip(b).map(|(x, y)| x * 2.0 + y)
    }

    /// The same gather every iteration of a loop (PageRank's pull).
    pub fn pulls(ins: &Nested<i64>, v: &[f64], iters: i64) -> Vec<f64> {
        let mut r = v.map(|x| x);
        for _ in 0..iters {
            let c = r.map(|x| x * 0.5 + 0.25);
            r = ins.map(|row| row.map(|u| c[u]).sum());
        }
        r
    }
}

/// A gather through an index column the run has gathered through before reads without a bounds
/// check where the column's range fits the vector, and checks (the interpreter's error) where
/// it does not; the executor's bits are the interpreter's either way.
#[test]
fn gathers_through_a_seen_index_column_agree_and_keep_their_errors() {
    use flatland::runtime::elt::Nested;
    let n = 3000usize;
    // Rows of 0 to 40 entries and two of 9,000 (several leaves, lanes of one leaf).
    let mut lens: Vec<usize> = (0..n).map(|i| (i * 7) % 41).collect();
    lens[5] = 9000;
    lens[2000] = 9000;
    let mut offsets = vec![0];
    for l in &lens {
        offsets.push(offsets.last().unwrap() + l);
    }
    let nnz = *offsets.last().unwrap();
    let cols: Vec<i64> = (0..nnz).map(|i| ((i * 7919) % n) as i64).collect();
    let ins = Nested::from_offsets(offsets, cols).unwrap();
    let v: Vec<f64> = (0..n).map(|i| (i as f64).sqrt() * 0.1 + 1e-9).collect();
    let w: Vec<f64> = v.iter().map(|x| 1.0 / (1.0 + x)).collect();
    let bits = |r: Vec<f64>| r.into_iter().map(canonical_bits).collect::<Vec<_>>();
    assert_eq!(
        bits(again::plan::two_pulls::executor(&ins, &v, &w).unwrap()),
        bits(again::plan::two_pulls::reference(&ins, &v, &w).unwrap())
    );
    assert_eq!(
        bits(again::plan::pulls::executor(&ins, &v, 4).unwrap()),
        bits(again::plan::pulls::reference(&ins, &v, 4).unwrap())
    );
    let routes = again::plan::pulls::trace().unwrap().routes();
    assert!(routes["redomap"].kernel >= 4, "{routes:?}");
    // The second vector one element short: the seen column's range no longer fits.
    let short = &w[..n - 1];
    let want = again::plan::two_pulls::reference(&ins, &v, short).unwrap_err();
    let got = again::plan::two_pulls::executor(&ins, &v, short).unwrap_err();
    assert_eq!(got.to_string(), want.to_string());
}
