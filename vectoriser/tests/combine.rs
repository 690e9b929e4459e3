//! Reductions and scans whose operator is a lambda: with fusion on the operator is compiled once
//! (one program per field of its result, `fuse::combine`); fused, unfused and the interpreter
//! must agree bitwise, results and errors, on empty rows, short rows, rows of several leaves,
//! free scalars read per row, and ties, NaN and signed zeros.

use flatland_vectoriser::ir::{BinaryOp, Expr, Function, Lambda, Program, ReduceOp, Type};
use flatland_vectoriser::value::Value;
use quickcheck::{QuickCheck, TestResult};

mod agree;

use agree::{agree, f64s, i64s};

fn v(n: &str) -> Expr {
    Expr::var(n)
}

/// Per row and its weight `k`: the index of the first element whose value times `k` is
/// largest (`(NaN, -1)` for an empty row), a tuple-valued lambda reading a free scalar.
fn arg_max_rows() -> Program {
    let a1 = Expr::proj(v("a"), 1);
    let b1 = Expr::proj(v("b"), 1);
    let better = Expr::binary(
        BinaryOp::Gt,
        Expr::proj(v("b"), 0) * v("k"),
        Expr::proj(v("a"), 0) * v("k"),
    );
    let take_b = Expr::binary(
        BinaryOp::Or,
        Expr::binary(BinaryOp::Lt, a1, Expr::i64(0)),
        Expr::binary(
            BinaryOp::And,
            Expr::binary(BinaryOp::Ge, b1, Expr::i64(0)),
            better,
        ),
    );
    let op = ReduceOp::Lambda(Lambda::new(&["a", "b"], Expr::if_(take_b, v("b"), v("a"))));
    let pairs = Expr::map(
        Lambda::new(&["x", "i"], Expr::Tuple(vec![v("x"), v("i")])),
        vec![
            v("row"),
            Expr::iota(Expr::length(v("row")), Expr::i64(0), Expr::i64(1)),
        ],
    );
    let z = Expr::Tuple(vec![Expr::f64(f64::NAN), Expr::i64(-1)]);
    let per_row = Expr::reduce(op, z, pairs);
    Program::new(vec![Function::new(
        "arg_max_rows",
        vec![
            ("rows".into(), Type::array(Type::array(Type::F64))),
            ("ks".into(), Type::array(Type::F64)),
        ],
        Type::array(Type::Tuple(vec![Type::F64, Type::I64])),
        Expr::map(
            Lambda::new(&["row", "k"], per_row),
            vec![v("rows"), v("ks")],
        ),
    )])
}

/// Per row: the inclusive scan of `|a, b| a * k + b` (not associative: every path must use the
/// one canonical association to agree).
fn scan_rows() -> Program {
    let op = ReduceOp::Lambda(Lambda::new(&["a", "b"], v("a") * v("k") + v("b")));
    Program::new(vec![Function::new(
        "scan_rows",
        vec![
            ("rows".into(), Type::array(Type::array(Type::F64))),
            ("ks".into(), Type::array(Type::F64)),
        ],
        Type::array(Type::array(Type::F64)),
        Expr::map(
            Lambda::new(&["row", "k"], Expr::scan(op, Expr::f64(0.0), v("row"))),
            vec![v("rows"), v("ks")],
        ),
    )])
}

/// `reduce(0, |a, b| a + 100 / b, xs)`: fails on a zero element.
fn dividing() -> Program {
    let op = ReduceOp::Lambda(Lambda::new(
        &["a", "b"],
        v("a") + Expr::binary(BinaryOp::Div, Expr::i64(100), v("b")),
    ));
    Program::new(vec![Function::new(
        "dividing",
        vec![("xs".into(), Type::array(Type::I64))],
        Type::I64,
        Expr::reduce(op, Expr::i64(0), v("xs")),
    )])
}

fn rows_value(rows: &[Vec<f64>]) -> Value {
    Value::array(rows.iter().map(|r| f64s(r)).collect())
}

/// Rows of every kind: empty, one element, short, one leaf and more than one leaf (4096
/// elements a leaf), with ties, NaN, infinities and signed zeros.
fn edge_rows() -> (Vec<Vec<f64>>, Vec<f64>) {
    let special = [
        0.0,
        -0.0,
        f64::NAN,
        f64::INFINITY,
        -1.5,
        2.5,
        2.5,
        f64::NEG_INFINITY,
    ];
    let row = |n: usize, s: usize| -> Vec<f64> {
        (0..n)
            .map(|i| {
                if (i + s) % 97 == 0 {
                    special[(i + s) % special.len()]
                } else {
                    ((i * 7919 + s) % 1013) as f64 / 8.0 - 60.0
                }
            })
            .collect()
    };
    let rows = vec![
        row(0, 0),
        row(1, 1),
        row(7, 2),
        row(17, 3),
        row(0, 4),
        row(4096, 5),
        row(10_001, 6),
        row(3, 7),
    ];
    let ks = vec![1.0, -1.0, 0.5, -0.0, 2.0, -3.0, 1.0, f64::NAN];
    (rows, ks)
}

#[test]
fn lambda_reductions_agree_on_edge_rows() {
    let (rows, ks) = edge_rows();
    let args = vec![rows_value(&rows), f64s(&ks)];
    let r = agree(&arg_max_rows(), "arg_max_rows", args.clone()).unwrap();
    // The first largest of the long row, by hand.
    let Value::Array(per_row) = r else {
        panic!("an array")
    };
    let want = rows[6]
        .iter()
        .enumerate()
        .fold(None::<(f64, usize)>, |best, (i, &x)| match best {
            Some((b, _)) if x.partial_cmp(&b) != Some(std::cmp::Ordering::Greater) => best,
            _ => Some((x, i)),
        })
        .unwrap()
        .1;
    assert_eq!(
        per_row[6],
        Value::Tuple(vec![Value::F64(rows[6][want]), Value::I64(want as i64)])
    );
    agree(&scan_rows(), "scan_rows", args).unwrap();
}

#[test]
fn a_failing_lambda_operator_reports_the_same_error() {
    let mut xs: Vec<i64> = (1..6000).collect();
    xs[4500] = 0;
    let e = agree(&dividing(), "dividing", vec![i64s(&xs)]).unwrap_err();
    assert!(e.to_string().contains("division by zero"), "{e}");
    assert!(agree(&dividing(), "dividing", vec![i64s(&[])]).is_ok());
}

#[test]
fn lambda_reductions_agree_on_random_rows() {
    fn prop(raw: Vec<Vec<i8>>, ks: Vec<i8>) -> TestResult {
        if ks.is_empty() {
            return TestResult::discard();
        }
        let rows: Vec<Vec<f64>> = raw
            .iter()
            .map(|r| r.iter().map(|&x| f64::from(x) / 4.0).collect())
            .collect();
        let ks: Vec<f64> = (0..rows.len())
            .map(|i| f64::from(ks[i % ks.len()]) / 2.0)
            .collect();
        let args = vec![rows_value(&rows), f64s(&ks)];
        agree(&arg_max_rows(), "arg_max_rows", args.clone()).unwrap();
        agree(&scan_rows(), "scan_rows", args).unwrap();
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(60)
        .quickcheck(prop as fn(Vec<Vec<i8>>, Vec<i8>) -> TestResult);
}

/// On a profile where tasks cost nothing and a pool of three, the chains of a lambda reduction
/// are split into groups run as separate tasks: the same bits and errors as the interpreter.
#[test]
fn lambda_reduction_chains_split_between_tasks_agree() {
    use flatland_runtime::cost::{Machine, with_machine};
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .expect("a pool");
    let eager = Machine::new(0.5, 1.0, 0.0, 64);
    pool.install(|| {
        with_machine(eager, || {
            let (rows, ks) = edge_rows();
            agree(
                &arg_max_rows(),
                "arg_max_rows",
                vec![rows_value(&rows), f64s(&ks)],
            )
            .unwrap();
            let mut xs: Vec<i64> = (1..6000).collect();
            xs[4500] = 0;
            assert!(agree(&dividing(), "dividing", vec![i64s(&xs)]).is_err());
            let many: Vec<Vec<f64>> = (0..300)
                .map(|r| {
                    (0..r % 40)
                        .map(|i| f64::from((i * 31 + r) % 17) - 8.0)
                        .collect()
                })
                .collect();
            let ks: Vec<f64> = (0..300).map(|r| f64::from(r % 5) - 2.0).collect();
            agree(
                &arg_max_rows(),
                "arg_max_rows",
                vec![rows_value(&many), f64s(&ks)],
            )
            .unwrap();
        });
    });
}
