//! The math methods of `#[vectorise]` on a sweep of special values (NaN, infinities, signed
//! zeros, subnormals, huge exponents): the generated code (direct or executor), the executor and
//! the reference interpreter agree bit for bit (NaN with NaN), and every result equals the
//! `std` method's; `a.max(b)` ignores a NaN as `std` does, `a.maximum(b)` propagates it;
//! `clamp` fails where `std` panics.

use flatland::prelude::*;
use flatland::runtime::expr::op::float;

#[vectorise]
mod m {
    pub fn unary(xs: &[f64]) -> Vec<Vec<f64>> {
        xs.map(|x| {
            vec![
                x.exp(),
                x.exp2(),
                x.exp_m1(),
                x.ln(),
                x.ln_1p(),
                x.log2(),
                x.log10(),
                x.sin(),
                x.cos(),
                x.tan(),
                x.asin(),
                x.acos(),
                x.atan(),
                x.sinh(),
                x.cosh(),
                x.tanh(),
                x.floor(),
                x.ceil(),
                x.round(),
                x.trunc(),
                x.fract(),
                x.recip(),
                x.signum(),
                x.abs(),
                x.sqrt(),
            ]
        })
    }

    pub fn tests(xs: &[f64]) -> Vec<(bool, bool, bool)> {
        xs.map(|x| (x.is_nan(), x.is_finite(), x.is_infinite()))
    }

    pub fn binary(xs: &[f64], ys: &[f64]) -> Vec<Vec<f64>> {
        xs.zip(ys).map(|(a, b)| {
            vec![
                a.powf(b),
                a.atan2(b),
                a.hypot(b),
                a.copysign(b),
                a.rem_euclid(b),
                a.div_euclid(b),
                a.max(b),
                a.min(b),
                a.maximum(b),
                a.minimum(b),
            ]
        })
    }

    pub fn powi(xs: &[f64], ns: &[i64]) -> Vec<f64> {
        xs.zip(ns).map(|(x, n)| x.powi(n))
    }

    pub fn exp_floor(xs: &[f64]) -> Vec<f64> {
        xs.map(|x| x.exp().floor())
    }

    pub fn ints(a: &[i64], b: &[i64]) -> Vec<Vec<i64>> {
        a.zip(b).map(|(x, y)| {
            vec![
                x.signum(),
                x.count_ones(),
                x.leading_zeros(),
                x.trailing_zeros(),
                x.pow(y & 15),
                x.rem_euclid(y | 1),
                x.div_euclid(y | 1),
                x.max(y),
                x.min(y),
                x.abs(),
            ]
        })
    }

    pub fn pow_of(a: &[i64], b: &[i64]) -> Vec<i64> {
        a.zip(b).map(|(x, y)| x.pow(y))
    }

    pub fn softmax(rows: &[Vec<f64>]) -> Vec<Vec<f64>> {
        rows.map(|r| {
            let m = r.max();
            let e = r.map(|x| (x - m).exp());
            let s = e.sum();
            e.map(|x| x / s)
        })
    }

    pub fn nan_ignoring_max(xs: &[f64]) -> f64 {
        xs.reduce(f64::NEG_INFINITY, |a, b| a.max(b))
    }

    pub fn nan_propagating_max(xs: &[f64]) -> f64 {
        xs.reduce(f64::NEG_INFINITY, |a, b| a.maximum(b))
    }

    pub fn builtin_max(xs: &[f64]) -> f64 {
        xs.max()
    }

    pub fn mul_add(xs: &[f64], ys: &[f64], zs: &[f64]) -> Vec<f64> {
        xs.zip(ys).zip(zs).map(|((a, b), c)| a.mul_add(b, c))
    }

    pub fn clamp(xs: &[f64], lo: f64, hi: f64) -> Vec<f64> {
        xs.map(|x| x.clamp(lo, hi))
    }

    pub fn clamp_ints(xs: &[i64], lo: &[i64], hi: &[i64]) -> Vec<i64> {
        xs.zip(lo).zip(hi).map(|((x, l), h)| x.clamp(l, h))
    }
}

fn sweep() -> Vec<f64> {
    vec![
        0.0,
        -0.0,
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        2.2e-310,
        f64::MAX,
        f64::MIN,
        1e300,
        -1e-300,
        709.8,
        -745.2,
        0.5,
        -0.5,
        1.0,
        -1.0,
        -2.5,
        2.5,
        3.0,
        std::f64::consts::PI,
        4.5e15,
    ]
}

fn same_all(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(&x, &y)| float::same(x, y))
}

fn same_rows(a: &[Vec<f64>], b: &[Vec<f64>]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_all(x, y))
}

#[test]
fn unary_math_agrees_on_every_path_and_with_std() {
    let xs = sweep();
    let got = m::unary(&xs);
    assert!(same_rows(&got, &m::plan::unary::executor(&xs).unwrap()));
    assert!(same_rows(&got, &m::plan::unary::reference(&xs).unwrap()));
    #[allow(clippy::type_complexity)]
    let std: [fn(f64) -> f64; 25] = [
        f64::exp,
        f64::exp2,
        f64::exp_m1,
        f64::ln,
        f64::ln_1p,
        f64::log2,
        f64::log10,
        f64::sin,
        f64::cos,
        f64::tan,
        f64::asin,
        f64::acos,
        f64::atan,
        f64::sinh,
        f64::cosh,
        f64::tanh,
        f64::floor,
        f64::ceil,
        f64::round,
        f64::trunc,
        f64::fract,
        f64::recip,
        f64::signum,
        f64::abs,
        f64::sqrt,
    ];
    for (x, row) in xs.iter().zip(&got) {
        let want: Vec<f64> = std.iter().map(|f| f(std::hint::black_box(*x))).collect();
        assert!(same_all(row, &want), "{x:e}: {row:?} != {want:?}");
    }
    let t = m::tests(&xs);
    assert_eq!(t, m::plan::tests::executor(&xs).unwrap());
    assert_eq!(t, m::plan::tests::reference(&xs).unwrap());
    for (x, &(n, f, i)) in xs.iter().zip(&t) {
        assert_eq!((n, f, i), (x.is_nan(), x.is_finite(), x.is_infinite()));
    }
    let e = m::exp_floor(&xs);
    assert!(same_all(&e, &m::plan::exp_floor::reference(&xs).unwrap()));
    assert!(same_all(&e, &m::plan::exp_floor::executor(&xs).unwrap()));
    assert!(same_all(&e, &m::plan::exp_floor::per_lane(&xs).unwrap()));
    assert!(
        m::plan::explain().contains("exp_floor: per-lane"),
        "{}",
        m::plan::explain()
    );
}

#[test]
fn binary_math_agrees_on_every_path_and_with_std() {
    let s = sweep();
    let (xs, ys): (Vec<f64>, Vec<f64>) = s
        .iter()
        .flat_map(|&a| s.iter().map(move |&b| (a, b)))
        .unzip();
    let got = m::binary(&xs, &ys);
    assert!(same_rows(
        &got,
        &m::plan::binary::executor(&xs, &ys).unwrap()
    ));
    assert!(same_rows(
        &got,
        &m::plan::binary::reference(&xs, &ys).unwrap()
    ));
    for ((&a, &b), row) in xs.iter().zip(&ys).zip(&got) {
        let (a, b) = std::hint::black_box((a, b));
        let mut want = vec![
            a.powf(b),
            a.atan2(b),
            a.hypot(b),
            a.copysign(b),
            a.rem_euclid(b),
            a.div_euclid(b),
            a.max(b),
            a.min(b),
            float::max(a, b),
            float::min(a, b),
        ];
        if a == 0.0 && b == 0.0 {
            // `std` leaves which zero min/max return unspecified; Flatland orders -0 < +0.
            want[6] = float::max(a, b);
            want[7] = float::min(a, b);
        }
        assert!(same_all(row, &want), "{a:e} {b:e}: {row:?} != {want:?}");
    }
    let ns: Vec<i64> = (0..s.len() as i64).map(|k| k - 12).collect();
    let p = m::powi(&s, &ns);
    assert!(same_all(&p, &m::plan::powi::executor(&s, &ns).unwrap()));
    assert!(same_all(&p, &m::plan::powi::reference(&s, &ns).unwrap()));
    for ((&x, &n), &o) in s.iter().zip(&ns).zip(&p) {
        let want = std::hint::black_box(x).powi(std::hint::black_box(n as i32));
        assert!(
            float::same(o, want),
            "powi({x:e}, {n}) = {o:e}, std {want:e}"
        );
    }
}

#[test]
fn integer_math_agrees_on_every_path_and_with_std() {
    let v = [0, 1, -1, 2, -7, 7, 64, i64::MAX, i64::MIN, 1 << 33];
    let (a, b): (Vec<i64>, Vec<i64>) = v
        .iter()
        .flat_map(|&x| v.iter().map(move |&y| (x, y)))
        .unzip();
    let got = m::ints(&a, &b);
    assert_eq!(got, m::plan::ints::executor(&a, &b).unwrap());
    assert_eq!(got, m::plan::ints::reference(&a, &b).unwrap());
    for ((&x, &y), row) in a.iter().zip(&b).zip(&got) {
        let want = vec![
            x.signum(),
            i64::from(x.count_ones()),
            i64::from(x.leading_zeros()),
            i64::from(x.trailing_zeros()),
            x.wrapping_pow((y & 15) as u32),
            x.wrapping_rem_euclid(y | 1),
            x.wrapping_div_euclid(y | 1),
            x.max(y),
            x.min(y),
            x.wrapping_abs(),
        ];
        assert_eq!(row, &want, "{x} {y}");
    }
    // 0 to a negative power is a division by zero, named, on every path.
    let (a, b) = (vec![2, 0], vec![2, -1]);
    for r in [
        m::try_pow_of(&a, &b),
        m::plan::pow_of::executor(&a, &b),
        m::plan::pow_of::reference(&a, &b),
    ] {
        let e = r.unwrap_err().to_string();
        assert!(e.contains("pow") && e.contains("division by zero"), "{e}");
    }
}

#[test]
fn min_and_max_follow_std_while_maximum_propagates_nan() {
    let xs = [1.0, f64::NAN, 3.0, -2.0];
    for r in [
        m::try_nan_ignoring_max(&xs),
        m::plan::nan_ignoring_max::executor(&xs),
        m::plan::nan_ignoring_max::reference(&xs),
    ] {
        assert_eq!(r.unwrap(), 3.0);
    }
    for r in [
        m::try_nan_propagating_max(&xs),
        m::plan::nan_propagating_max::executor(&xs),
        m::try_builtin_max(&xs),
        m::plan::builtin_max::reference(&xs),
    ] {
        assert!(r.unwrap().is_nan());
    }
}

#[test]
fn softmax_rows_agree_and_sum_to_one() {
    let rows = vec![
        vec![1.0, 2.0, 3.0],
        vec![],
        vec![-1e300, 0.0],
        vec![5.0],
        vec![0.5; 40],
    ];
    let got = m::softmax(&rows);
    assert!(same_rows(&got, &m::plan::softmax::executor(&rows).unwrap()));
    assert!(same_rows(
        &got,
        &m::plan::softmax::reference(&rows).unwrap()
    ));
    for (r, s) in rows.iter().zip(&got) {
        assert_eq!(r.len(), s.len());
        if !r.is_empty() {
            assert!((s.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{s:?}");
        }
    }
}

#[test]
fn ternary_math_agrees_on_every_path_and_with_std() {
    let s = sweep();
    let n = s.len();
    let triples: Vec<(f64, f64, f64)> = (0..n * n * n)
        .map(|k| (s[k % n], s[(k / n) % n], s[k / (n * n)]))
        .collect();
    let xs: Vec<f64> = triples.iter().map(|t| t.0).collect();
    let ys: Vec<f64> = triples.iter().map(|t| t.1).collect();
    let zs: Vec<f64> = triples.iter().map(|t| t.2).collect();
    let got = m::mul_add(&xs, &ys, &zs);
    let want: Vec<f64> = triples
        .iter()
        .map(|&(a, b, c)| std::hint::black_box(a).mul_add(b, c))
        .collect();
    assert!(same_all(&got, &want));
    assert!(same_all(
        &got,
        &m::plan::mul_add::executor(&xs, &ys, &zs).unwrap()
    ));
    assert!(same_all(
        &got,
        &m::plan::mul_add::per_lane(&xs, &ys, &zs).unwrap()
    ));
    assert!(same_all(
        &got,
        &m::plan::mul_add::reference(&xs, &ys, &zs).unwrap()
    ));
    for &lo in &s {
        for &hi in &s {
            let want: Option<Vec<f64>> = (lo <= hi).then(|| {
                s.iter()
                    .map(|&x| std::hint::black_box(x).clamp(lo, hi))
                    .collect()
            });
            let paths = [
                m::try_clamp(&s, lo, hi),
                m::plan::clamp::executor(&s, lo, hi),
                m::plan::clamp::per_lane(&s, lo, hi),
                m::plan::clamp::reference(&s, lo, hi),
            ];
            for got in paths {
                match (&want, got) {
                    (Some(w), Ok(g)) => assert!(same_all(&g, w), "clamp to {lo:e}..={hi:e}"),
                    (None, Err(e)) => assert_eq!(
                        e.to_string(),
                        "clamp: lane 0: the lower bound is above the upper bound, or a bound is NaN"
                    ),
                    (w, g) => panic!("clamp to {lo:e}..={hi:e}: std {w:?}, flatland {g:?}"),
                }
            }
        }
    }
    // Integers: the lowest lane whose bounds are out of order names the error.
    let xs = [5, -9, 7, 3, i64::MIN, i64::MAX];
    let lo = [0, 0, 7, 4, i64::MIN, 0];
    let hi = [3, 9, 7, 4, 0, 0];
    let want: Vec<i64> = (0..6).map(|k| xs[k].clamp(lo[k], hi[k])).collect();
    assert_eq!(m::clamp_ints(&xs, &lo, &hi), want);
    assert_eq!(m::plan::clamp_ints::executor(&xs, &lo, &hi).unwrap(), want);
    assert_eq!(m::plan::clamp_ints::per_lane(&xs, &lo, &hi).unwrap(), want);
    let hi = [3, 9, 6, 4, -1, 0];
    for e in [
        m::try_clamp_ints(&xs, &lo, &hi),
        m::plan::clamp_ints::executor(&xs, &lo, &hi),
        m::plan::clamp_ints::per_lane(&xs, &lo, &hi),
        m::plan::clamp_ints::reference(&xs, &lo, &hi),
    ] {
        assert_eq!(
            e.unwrap_err().to_string(),
            "clamp: lane 2: the lower bound is above the upper bound, or a bound is NaN"
        );
    }
}
