//! The math operators against `std` over a sweep of special values (NaN, infinities, signed
//! zeros, subnormals, huge exponents), and `powi`'s two operand types through the machine.

use super::op::{BinaryOp, Scalar, TernaryOp, UnaryOp, float, int};
use super::{ColumnExpr, ColumnRef, CompiledExpr, ScalarType};
use std::hint::black_box;

/// The special values every math operator is checked on.
pub(super) fn sweep_f64() -> Vec<f64> {
    vec![
        0.0,
        -0.0,
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        2.2e-310,
        f64::MAX,
        f64::MIN,
        1e300,
        -1e300,
        1e-300,
        709.8,
        -745.2,
        0.5,
        -0.5,
        1.0,
        -1.0,
        1.5,
        -2.5,
        2.5,
        3.0,
        std::f64::consts::PI,
        -std::f64::consts::FRAC_PI_2,
        1e-10,
        4.5e15,
        9.007_199_254_740_993e15,
    ]
}

/// `i64` special values.
pub(super) fn sweep_i64() -> Vec<i64> {
    vec![
        0,
        1,
        -1,
        2,
        -2,
        3,
        -7,
        7,
        63,
        64,
        1 << 32,
        i64::MAX,
        i64::MIN,
        i64::MIN + 1,
        -(1 << 40) + 3,
    ]
}

fn same(a: f64, b: f64) -> bool {
    float::same(a, b)
}

/// Each unary `f64` operator beside the `std` method it must equal.
#[allow(clippy::type_complexity)]
fn unary_f64_oracles() -> Vec<(UnaryOp, fn(f64) -> f64)> {
    vec![
        (UnaryOp::Exp, f64::exp),
        (UnaryOp::Exp2, f64::exp2),
        (UnaryOp::ExpM1, f64::exp_m1),
        (UnaryOp::Ln, f64::ln),
        (UnaryOp::Ln1p, f64::ln_1p),
        (UnaryOp::Log2, f64::log2),
        (UnaryOp::Log10, f64::log10),
        (UnaryOp::Sin, f64::sin),
        (UnaryOp::Cos, f64::cos),
        (UnaryOp::Tan, f64::tan),
        (UnaryOp::Asin, f64::asin),
        (UnaryOp::Acos, f64::acos),
        (UnaryOp::Atan, f64::atan),
        (UnaryOp::Sinh, f64::sinh),
        (UnaryOp::Cosh, f64::cosh),
        (UnaryOp::Tanh, f64::tanh),
        (UnaryOp::Floor, f64::floor),
        (UnaryOp::Ceil, f64::ceil),
        (UnaryOp::Round, f64::round),
        (UnaryOp::Trunc, f64::trunc),
        (UnaryOp::Fract, f64::fract),
        (UnaryOp::Recip, f64::recip),
        (UnaryOp::Signum, f64::signum),
        (UnaryOp::Abs, f64::abs),
        (UnaryOp::Sqrt, f64::sqrt),
        (UnaryOp::Neg, <f64 as std::ops::Neg>::neg),
    ]
}

#[test]
fn unary_math_equals_std_on_special_values() {
    let oracles = unary_f64_oracles();
    // Every f64 -> f64 operator of the table has an oracle.
    for op in UnaryOp::ALL {
        if op.on_f64(1.0).is_some() {
            assert!(oracles.iter().any(|(o, _)| *o == op), "{op} has no oracle");
        }
    }
    for x in sweep_f64() {
        for (op, f) in &oracles {
            let want = f(black_box(x));
            let got = op.eval(Scalar::F64(x)).unwrap().as_f64().unwrap();
            assert!(same(got, want), "{op}({x:e}) = {got:e}, std {want:e}");
        }
        for (op, f) in [
            (UnaryOp::IsNan, f64::is_nan as fn(f64) -> bool),
            (UnaryOp::IsFinite, f64::is_finite),
            (UnaryOp::IsInfinite, f64::is_infinite),
        ] {
            assert_eq!(op.eval(Scalar::F64(x)), Ok(Scalar::Bool(f(x))), "{op}({x})");
        }
    }
    for a in sweep_i64() {
        for (op, want) in [
            (UnaryOp::Signum, a.signum()),
            (UnaryOp::CountOnes, i64::from(a.count_ones())),
            (UnaryOp::LeadingZeros, i64::from(a.leading_zeros())),
            (UnaryOp::TrailingZeros, i64::from(a.trailing_zeros())),
            (UnaryOp::Abs, a.wrapping_abs()),
        ] {
            assert_eq!(op.eval(Scalar::I64(a)), Ok(Scalar::I64(want)), "{op}({a})");
        }
    }
}

#[test]
fn binary_math_equals_std_on_special_values() {
    let xs = sweep_f64();
    #[allow(clippy::type_complexity)]
    let oracles: [(BinaryOp, fn(f64, f64) -> f64); 6] = [
        (BinaryOp::Powf, f64::powf),
        (BinaryOp::Atan2, f64::atan2),
        (BinaryOp::Hypot, f64::hypot),
        (BinaryOp::Copysign, f64::copysign),
        (BinaryOp::RemEuclid, f64::rem_euclid),
        (BinaryOp::DivEuclid, f64::div_euclid),
    ];
    for &a in &xs {
        for &b in &xs {
            for (op, f) in oracles {
                let want = f(black_box(a), black_box(b));
                let got = op.on_f64(a, b).unwrap();
                assert!(
                    same(got, want),
                    "{op}({a:e}, {b:e}) = {got:e}, std {want:e}"
                );
            }
            // `std` leaves the zero of min(-0, +0) unspecified; Flatland orders -0 < +0.
            let zeros = a == 0.0 && b == 0.0;
            let (lo, hi) = (float::min_num(a, b), float::max_num(a, b));
            if zeros {
                assert!(same(lo, float::min(a, b)) && same(hi, float::max(a, b)));
            } else {
                assert!(same(lo, black_box(a).min(b)), "min_num({a:e}, {b:e})");
                assert!(same(hi, black_box(a).max(b)), "max_num({a:e}, {b:e})");
            }
        }
        for n in [
            0,
            1,
            -1,
            2,
            -2,
            3,
            5,
            -5,
            16,
            31,
            -31,
            1023,
            -1075,
            i32::MAX,
            i32::MIN,
        ] {
            let want = black_box(a).powi(black_box(n));
            let got = BinaryOp::Powi
                .eval(Scalar::F64(a), Scalar::I64(i64::from(n)), 0)
                .unwrap()
                .as_f64()
                .unwrap();
            assert!(same(got, want), "powi({a:e}, {n}) = {got:e}, std {want:e}");
        }
    }
    let is = sweep_i64();
    for &a in &is {
        for b in (0..70).chain([u32::MAX as i64]) {
            assert_eq!(
                int::pow(a, b),
                Some(a.wrapping_pow(b as u32)),
                "pow({a}, {b})"
            );
        }
        for &b in &is {
            if b == 0 {
                assert_eq!(int::rem_euclid(a, b), None);
                assert_eq!(int::div_euclid(a, b), None);
                continue;
            }
            assert_eq!(int::rem_euclid(a, b), Some(a.wrapping_rem_euclid(b)));
            assert_eq!(int::div_euclid(a, b), Some(a.wrapping_div_euclid(b)));
            if let Some(q) = a.checked_div_euclid(b) {
                assert_eq!(int::div_euclid(a, b), Some(q));
            }
        }
    }
    // A negative exponent is the truncated reciprocal; 0 to a negative power divides by zero.
    assert_eq!(int::pow(2, -1), Some(0));
    assert_eq!(int::pow(-1, -2), Some(1));
    assert_eq!(
        BinaryOp::Pow.eval(Scalar::I64(0), Scalar::I64(-3), 4),
        Err(crate::Error::DivisionByZero { op: "pow", lane: 4 })
    );
}

#[test]
fn the_machine_computes_the_math_operators_as_the_table() {
    let xs = sweep_f64();
    let ns: Vec<i64> = (0..xs.len() as i64).map(|k| k - 12).collect();
    let e = ColumnExpr::input(0).binary(BinaryOp::Powi, ColumnExpr::input(1));
    let p = CompiledExpr::compile(&e, &[ScalarType::F64, ScalarType::I64]).unwrap();
    let out = p
        .eval(&[ColumnRef::F64(&xs), ColumnRef::I64(&ns)], xs.len())
        .unwrap();
    for ((&x, &n), &o) in xs.iter().zip(&ns).zip(out.as_f64().unwrap()) {
        assert!(same(o, float::powi(x, n)), "powi({x}, {n})");
    }
    assert!(CompiledExpr::compile(&e, &[ScalarType::F64, ScalarType::F64]).is_err());
    // A zero base with a negative exponent fails at its lane, as a division by zero does.
    let bases = [2i64, 0, 0];
    let exps = [3i64, 1, -1];
    let e = ColumnExpr::input(0).binary(BinaryOp::Pow, ColumnExpr::input(1));
    let p = CompiledExpr::compile(&e, &[ScalarType::I64, ScalarType::I64]).unwrap();
    assert_eq!(
        p.eval(&[ColumnRef::I64(&bases), ColumnRef::I64(&exps)], 3),
        Err(crate::Error::DivisionByZero { op: "pow", lane: 2 })
    );
}

#[test]
fn ternary_math_equals_std_on_special_values() {
    let xs = sweep_f64();
    for &a in &xs {
        for &b in &xs {
            for &c in &xs {
                let (want, got) = (black_box(a).mul_add(b, c), float::mul_add(a, b, c));
                assert!(same(got, want), "mul_add({a:e}, {b:e}, {c:e})");
                let got = TernaryOp::Clamp.on_f64(a, b, c);
                // std panics where `min > max` or a bound is NaN (its documented precondition).
                match (b <= c).then(|| black_box(a).clamp(b, c)) {
                    Some(w) => assert!(
                        got.is_some_and(|g| same(g, w)),
                        "clamp({a:e}, {b:e}, {c:e})"
                    ),
                    None => assert_eq!(got, None, "clamp({a:e}, {b:e}, {c:e}) panics in std"),
                }
            }
        }
    }
    let is = sweep_i64();
    for &a in &is {
        for &b in &is {
            for &c in &is {
                assert_eq!(
                    int::clamp(a, b, c),
                    (b <= c).then(|| black_box(a).clamp(b, c)),
                    "clamp({a}, {b}, {c})"
                );
            }
        }
    }
}

#[test]
fn the_machine_computes_the_ternary_operators_as_the_table() {
    let xs = sweep_f64();
    let n = xs.len();
    let (ys, zs): (Vec<f64>, Vec<f64>) = (0..n)
        .map(|k| (xs[(k * 7) % n], xs[(k * 13 + 5) % n]))
        .unzip();
    let cols = [
        ColumnRef::F64(&xs),
        ColumnRef::F64(&ys),
        ColumnRef::F64(&zs),
    ];
    let e = ColumnExpr::input(0).ternary(
        TernaryOp::MulAdd,
        ColumnExpr::input(1),
        ColumnExpr::input(2),
    );
    let p = CompiledExpr::compile(&e, &[ScalarType::F64; 3]).unwrap();
    let out = p.eval(&cols, n).unwrap();
    for k in 0..n {
        let o = out.as_f64().unwrap()[k];
        assert!(
            same(o, float::mul_add(xs[k], ys[k], zs[k])),
            "mul_add at {k}"
        );
    }
    assert!(CompiledExpr::compile(&e, &[ScalarType::I64; 3]).is_err());
    // clamp fails at the lowest lane whose bounds are out of order, as `Error::Domain`.
    let x = [5i64, 5, 5, 5];
    let lo = [0i64, 0, 9, 9];
    let hi = [9i64, 3, 0, 0];
    let e =
        ColumnExpr::input(0).ternary(TernaryOp::Clamp, ColumnExpr::input(1), ColumnExpr::input(2));
    let p = CompiledExpr::compile(&e, &[ScalarType::I64; 3]).unwrap();
    let cols = |n: usize| {
        [
            ColumnRef::I64(&x[..n]),
            ColumnRef::I64(&lo[..n]),
            ColumnRef::I64(&hi[..n]),
        ]
    };
    assert_eq!(p.eval(&cols(2), 2).unwrap().as_i64().unwrap(), &[5, 3]);
    assert_eq!(p.eval(&cols(4), 4), Err(TernaryOp::Clamp.failure(2)));
}
