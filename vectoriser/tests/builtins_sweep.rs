//! Every math operator of the table over a sweep of special values (NaN, infinities, signed
//! zeros, subnormals, huge exponents), and sort / argsort over arrays of them: the reference
//! interpreter, the executor unfused and fused agree bit for bit (floats under `same`), flat and
//! inside a map over rows.

mod agree;

use agree::{agree, f64s, i64s};
use flatland_vectoriser::ir::{
    BinaryOp, Expr, Function, Lambda, Program, ScalarType, SortOp, TernaryOp, Type, UnaryOp,
};
use flatland_vectoriser::value::Value;

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
        f64::MAX,
        f64::MIN,
        1e300,
        709.8,
        -745.2,
        0.5,
        -2.5,
        1.0,
        -1.0,
        3.0,
    ]
}

fn ints() -> Vec<i64> {
    vec![0, 1, -1, 2, -7, 63, 64, i64::MAX, i64::MIN, 1 << 40]
}

/// `fn f(xs: [a], ys: [b]) = map(|x, y| op(x, y), xs, ys)`, and the same per row of
/// `[[a]]` arrays.
fn programs(body: Expr, a: Type, b: Type) -> Program {
    let l = Lambda::new(&["x", "y"], body);
    let flat = Expr::map(l.clone(), vec![Expr::var("xs"), Expr::var("ys")]);
    let rows = Expr::map(
        Lambda::new(
            &["r", "s"],
            Expr::map(l, vec![Expr::var("r"), Expr::var("s")]),
        ),
        vec![Expr::var("xss"), Expr::var("yss")],
    );
    let (ta, tb) = (Type::array(a), Type::array(b));
    Program::new(vec![
        Function::new(
            "flat",
            vec![("xs".into(), ta.clone()), ("ys".into(), tb.clone())],
            Type::array(Type::F64),
            flat,
        ),
        Function::new(
            "rows",
            vec![
                ("xss".into(), Type::array(ta)),
                ("yss".into(), Type::array(tb)),
            ],
            Type::array(Type::array(Type::F64)),
            rows,
        ),
    ])
}

fn run(p: &Program, xs: Value, ys: Value) {
    // Result types are those the checker infers; the declared one is only a placeholder, so
    // the program is re-declared with the checked type.
    let snapshot = p.clone();
    let mut p = p.clone();
    for f in &mut p.functions {
        f.ret = flatland_vectoriser::check::type_of(&snapshot, &f.params, &f.body)
            .unwrap_or_else(|e| panic!("{e}\n{snapshot}"));
    }
    let split = |v: &Value| -> Value {
        // Rows of 1, 0 and the rest of the elements.
        let a = v.as_array().unwrap();
        Value::array(vec![
            Value::array(a[..1].to_vec()),
            Value::array(vec![]),
            Value::array(a[1..].to_vec()),
        ])
    };
    agree(&p, "flat", vec![xs.clone(), ys.clone()]).unwrap();
    agree(&p, "rows", vec![split(&xs), split(&ys)]).unwrap();
}

fn pairs<T: Copy>(xs: &[T], ys: &[T]) -> (Vec<T>, Vec<T>) {
    xs.iter()
        .flat_map(|&x| ys.iter().map(move |&y| (x, y)))
        .unzip()
}

#[test]
fn every_math_operator_agrees_on_special_values() {
    let (fa, fb) = pairs(&sweep(), &sweep());
    let (ia, ib) = pairs(&ints(), &ints());
    let (fm, im): (Vec<f64>, Vec<i64>) = sweep()
        .into_iter()
        .flat_map(|x| ints().into_iter().chain(-5..5).map(move |n| (x, n)))
        .unzip();
    let x = || Expr::var("x");
    let y = || Expr::var("y");
    for op in UnaryOp::ALL {
        for (t, xs) in [(ScalarType::F64, f64s(&fa)), (ScalarType::I64, i64s(&ia))] {
            if op.result_type(t).is_none() {
                continue;
            }
            let ty = Type::of_scalar(t);
            let p = programs(Expr::unary(op, x()), ty.clone(), ty);
            run(&p, xs.clone(), xs);
        }
    }
    for op in BinaryOp::ALL {
        for (a, b, xs, ys) in [
            (ScalarType::F64, ScalarType::F64, f64s(&fa), f64s(&fb)),
            (ScalarType::F64, ScalarType::I64, f64s(&fm), i64s(&im)),
            (ScalarType::I64, ScalarType::I64, i64s(&ia), i64s(&ib)),
        ] {
            if op.result_type(a, b).is_none() || op.can_fail() && a == ScalarType::I64 {
                continue;
            }
            let p = programs(
                Expr::binary(op, x(), y()),
                Type::of_scalar(a),
                Type::of_scalar(b),
            );
            run(&p, xs, ys);
        }
    }
    // The ternary operators: `mul_add`, and `clamp` to bounds put in order (NaN-ignoring
    // `min`/`max` of `y` and a constant, so that no lane fails).
    let b = |op, a: Expr, b: Expr| Expr::binary(op, a, b);
    let fma = Expr::ternary(TernaryOp::MulAdd, x(), y(), x());
    run(&programs(fma, Type::F64, Type::F64), f64s(&fa), f64s(&fb));
    let (lo, hi) = (
        b(BinaryOp::MinNum, y(), Expr::f64(1.0)),
        b(BinaryOp::MaxNum, y(), Expr::f64(1.0)),
    );
    let clamp = Expr::ternary(TernaryOp::Clamp, x(), lo, hi);
    run(&programs(clamp, Type::F64, Type::F64), f64s(&fa), f64s(&fb));
    let (lo, hi) = (
        b(BinaryOp::Min, y(), Expr::i64(0)),
        b(BinaryOp::Max, y(), Expr::i64(0)),
    );
    let clamp = Expr::ternary(TernaryOp::Clamp, x(), lo, hi);
    run(&programs(clamp, Type::I64, Type::I64), i64s(&ia), i64s(&ib));
    // The failing integer operators, on divisors that are not zero (and exponents >= 0).
    let nz: Vec<i64> = ib.iter().map(|&v| if v == 0 { 3 } else { v }).collect();
    for op in [BinaryOp::RemEuclid, BinaryOp::DivEuclid, BinaryOp::Pow] {
        let ys: Vec<i64> = if op == BinaryOp::Pow {
            nz.iter().map(|v| v & 63).collect()
        } else {
            nz.clone()
        };
        let p = programs(Expr::binary(op, x(), y()), Type::I64, Type::I64);
        run(&p, i64s(&ia), i64s(&ys));
    }
}

#[test]
fn sort_and_argsort_agree_on_special_values() {
    for op in [SortOp::Values, SortOp::Indices] {
        for (t, v) in [(Type::F64, f64s(&sweep())), (Type::I64, i64s(&ints()))] {
            let body = Expr::sort(op, Expr::var("xs"));
            let ret = if op == SortOp::Values {
                Type::array(t.clone())
            } else {
                Type::array(Type::I64)
            };
            let rows = Expr::map(
                Lambda::new(&["r"], Expr::sort(op, Expr::var("r"))),
                vec![Expr::var("xss")],
            );
            let p = Program::new(vec![
                Function::new(
                    "flat",
                    vec![("xs".into(), Type::array(t.clone()))],
                    ret.clone(),
                    body,
                ),
                Function::new(
                    "rows",
                    vec![("xss".into(), Type::array(Type::array(t)))],
                    Type::array(ret),
                    rows,
                ),
            ]);
            agree(&p, "flat", vec![v.clone()]).unwrap();
            let a = v.as_array().unwrap();
            let rows = Value::array(vec![
                Value::array(a[3..].to_vec()),
                Value::array(vec![]),
                v.clone(),
                Value::array(a[..2].to_vec()),
            ]);
            agree(&p, "rows", vec![rows]).unwrap();
        }
    }
}
