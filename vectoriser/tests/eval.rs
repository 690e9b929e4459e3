//! The reference interpreter and the checker on their own: semantics corners, errors naming
//! the operation, lane and node, deep recursion.

use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder, if_};
use flatland_vectoriser::ir::{self, BinaryOp as BinOp, Expr, Function, Lambda, ReduceOp, Type};
use flatland_vectoriser::value::Value;
use flatland_vectoriser::{Error, check, eval};

fn ints(xs: &[i64]) -> Value {
    Value::array(xs.iter().copied().map(Value::I64).collect())
}

fn prog(params: Vec<(&str, Type)>, ret: Type, body: Expr) -> ir::Program {
    let params = params
        .into_iter()
        .map(|(n, t)| (n.to_string(), t))
        .collect();
    ir::Program::new(vec![Function::new("main", params, ret, body)])
}

#[test]
fn division_by_zero_names_operation_and_lane() {
    let mut p = ProgramBuilder::new();
    let f = p.function(
        "f",
        ["xs", "d"],
        |_, (xs, d): (Ex<Arr<i64>>, Ex<Arr<i64>>)| xs.zip_map(&d, |x, y| x / y),
    );
    let e = p.eval(&f, (vec![1, 2, 3], vec![1, 0, 1])).unwrap_err();
    assert_eq!(e.to_string(), "div: lane 1: division by zero");
    assert!(matches!(
        e,
        Error::Runtime(flatland_runtime::Error::DivisionByZero { op: "div", lane: 1 })
    ));
    let g = p.function(
        "g",
        ["xs", "d"],
        |_, (xs, d): (Ex<Arr<i64>>, Ex<Arr<i64>>)| xs.zip_map(&d, |x, y| x % y),
    );
    assert_eq!(
        p.eval(&g, (vec![5, 7], vec![2, 0]))
            .unwrap_err()
            .to_string(),
        "rem: lane 1: division by zero"
    );
    // wrapping: MIN / -1 and MIN % -1 do not fail
    assert_eq!(
        p.eval(&f, (vec![i64::MIN], vec![-1])).unwrap(),
        vec![i64::MIN]
    );
}

#[test]
fn index_out_of_range_names_the_innermost_lane() {
    let mut p = ProgramBuilder::new();
    let f = p.function(
        "f",
        ["xss", "t"],
        |_, (xss, t): (Ex<Arr<Arr<i64>>>, Ex<Arr<i64>>)| {
            xss.map(move |xs| xs.map(move |i| t.at(i)))
        },
    );
    let e = p
        .eval(&f, (vec![vec![0], vec![1, 0, 9]], vec![4, 5]))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "index: lane 2: index 9 out of range for length 2"
    );
    let e = p.eval(&f, (vec![vec![-1]], vec![4, 5])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "index: lane 0: index -1 out of range for length 2"
    );
}

#[test]
fn untaken_branch_is_not_evaluated() {
    let mut p = ProgramBuilder::new();
    let f = p.function("f", ["xs"], |_, xs: Ex<Arr<i64>>| {
        xs.map(|x| if_(x.equals(0), Ex::from(0i64), Ex::from(100i64) / x))
    });
    assert_eq!(p.eval(&f, vec![0, 5, 0, -10]).unwrap(), vec![0, 20, 0, -10]);
}

#[test]
fn scalar_semantics() {
    let e = |op, a, b| {
        let p = prog(
            vec![],
            Type::I64,
            Expr::binary(op, Expr::i64(a), Expr::i64(b)),
        );
        eval::run(&p, "main", vec![]).unwrap()
    };
    assert_eq!(e(BinOp::Add, i64::MAX, 1), Value::I64(i64::MIN));
    assert_eq!(e(BinOp::Shl, 1, 64 + 3), Value::I64(8));
    assert_eq!(e(BinOp::Shr, -16, 2), Value::I64(-4));
    assert_eq!(e(BinOp::Rem, -7, 2), Value::I64(-1));
    let f = |op, a: f64, b: f64| {
        let p = prog(
            vec![],
            Type::F64,
            Expr::binary(op, Expr::f64(a), Expr::f64(b)),
        );
        eval::run(&p, "main", vec![]).unwrap()
    };
    assert_eq!(f(BinOp::Min, f64::NAN, 1.0), Value::F64(f64::NAN));
    assert_eq!(f(BinOp::Max, 1.0, f64::NAN), Value::F64(f64::NAN));
    assert_eq!(f(BinOp::Div, 1.0, 0.0), Value::F64(f64::INFINITY));
}

#[test]
fn deep_recursion_does_not_overflow() {
    let mut p = ProgramBuilder::new();
    let down = p.function("down", ["n"], |down, n: Ex<i64>| {
        if_(n.le(0), Ex::from(0i64), down.call(n.clone() - 1) + 1)
    });
    // 10^5 calls deep (`down(99_999)` to `down(0)`): the default recursion limit.
    assert_eq!(p.eval(&down, 99_999).unwrap(), 99_999);
}

#[test]
fn filter_is_if_elif_and_partition_keeps_order() {
    // predicates overlap: x < 10 and x < 5; 3 goes to class 0 only
    let preds = vec![
        Lambda::new(&["x"], Expr::var("x").lt(Expr::i64(10))),
        Lambda::new(&["x"], Expr::var("x").lt(Expr::i64(5))),
    ];
    let body = Expr::filter(preds, Expr::var("xs"));
    let t = Type::array(Type::I64);
    let p = prog(
        vec![("xs", t.clone())],
        Type::Tuple(vec![t.clone(); 3]),
        body,
    );
    let got = eval::run(&p, "main", vec![ints(&[3, 12, 7, 20])]).unwrap();
    assert_eq!(
        got,
        Value::Tuple(vec![ints(&[3, 7]), ints(&[]), ints(&[12, 20])])
    );

    let key = Lambda::new(&["x"], Expr::var("x") % Expr::i64(3));
    let body = Expr::partition(3, vec![2, 0], key, Expr::var("xs"));
    let p = prog(
        vec![("xs", t.clone())],
        Type::Tuple(vec![t.clone(); 2]),
        body,
    );
    let got = eval::run(&p, "main", vec![ints(&[5, 3, 2, 9, 4])]).unwrap();
    assert_eq!(got, Value::Tuple(vec![ints(&[5, 2]), ints(&[3, 9])]));
    let e = eval::run(&p, "main", vec![ints(&[3, -1])]).unwrap_err();
    assert_eq!(e.to_string(), "partition: lane 1: negative key -1");
}

#[test]
fn scatter_last_index_wins_and_slices_are_checked() {
    let t = Type::array(Type::I64);
    let body = Expr::scatter(Expr::var("d"), Expr::var("i"), Expr::var("v"));
    let p = prog(
        vec![("d", t.clone()), ("i", t.clone()), ("v", t.clone())],
        t.clone(),
        body,
    );
    let got = eval::run(
        &p,
        "main",
        vec![ints(&[0, 0, 0]), ints(&[1, 2, 1]), ints(&[7, 8, 9])],
    )
    .unwrap();
    assert_eq!(got, ints(&[0, 9, 8]));
    let e = eval::run(&p, "main", vec![ints(&[0]), ints(&[1]), ints(&[7])]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "scatter: lane 0: index 1 out of range for length 1"
    );

    let body = Expr::slice(Expr::var("d"), Expr::i64(2), Expr::i64(2));
    let p = prog(vec![("d", t.clone())], t, body);
    assert_eq!(
        eval::run(&p, "main", vec![ints(&[1, 2, 3, 4])]).unwrap(),
        ints(&[3, 4])
    );
    let e = eval::run(&p, "main", vec![ints(&[1, 2, 3])]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "slice: lane 0: start 2 and length 2 out of range for length 3"
    );
}

#[test]
fn reduce_uses_the_canonical_association() {
    let xs: Vec<f64> = (0..20_000).map(|i| (f64::from(i) * 0.7).sin()).collect();
    let body = Expr::reduce(ReduceOp::Add, Expr::f64(0.0), Expr::var("xs"));
    let p = prog(vec![("xs", Type::array(Type::F64))], Type::F64, body);
    let v = Value::array(xs.iter().copied().map(Value::F64).collect());
    let want = flatland_runtime::assoc::fold(&xs, 0.0, |a, b| a + b);
    assert_eq!(
        eval::run(&p, "main", vec![v.clone()]).unwrap(),
        Value::F64(want)
    );
    let seq: f64 = xs.iter().sum();
    assert_ne!(
        want.to_bits(),
        seq.to_bits(),
        "the test must distinguish associations"
    );
    let body = Expr::scan(ReduceOp::Add, Expr::f64(0.0), Expr::var("xs"));
    let p = prog(
        vec![("xs", Type::array(Type::F64))],
        Type::array(Type::F64),
        body,
    );
    let want = flatland_runtime::assoc::scan_inclusive(&xs, 0.0, |a, b| a + b);
    assert_eq!(
        eval::run(&p, "main", vec![v]).unwrap(),
        Value::array(want.into_iter().map(Value::F64).collect())
    );
}

#[test]
fn checker_infers_lambda_parameters_and_names_nodes() {
    // The lambda's parameter types come from the arrays: (i64, [f64]) pairs.
    let body = Expr::map(
        Lambda::new(&["i", "row"], Expr::index(Expr::var("row"), Expr::var("i"))),
        vec![Expr::var("is"), Expr::var("rows")],
    );
    let env = vec![
        ("is".to_string(), Type::array(Type::I64)),
        ("rows".to_string(), Type::array(Type::array(Type::F64))),
    ];
    assert_eq!(
        check::type_of(&ir::Program::default(), &env, &body).unwrap(),
        Type::array(Type::F64)
    );
    // Swapped arguments: the index is now an array.
    let bad = Expr::map(
        Lambda::new(&["i", "row"], Expr::index(Expr::var("row"), Expr::var("i"))),
        vec![Expr::var("rows"), Expr::var("is")],
    );
    let e = check::type_of(&ir::Program::default(), &env, &bad).unwrap_err();
    assert_eq!(
        e.to_string(),
        "type error in `<expr>` at `row[i]`: the indexed value must be an array, found i64"
    );
    let p = prog(vec![], Type::I64, Expr::var("nope"));
    assert!(
        check::check_program(&p)
            .unwrap_err()
            .to_string()
            .contains("unbound variable `nope`")
    );
    let p = prog(vec![], Type::I64, Expr::call("main", vec![Expr::i64(1)]));
    assert!(
        check::check_program(&p)
            .unwrap_err()
            .to_string()
            .contains("takes 0 arguments")
    );
    let preds = (0..15)
        .map(|_| Lambda::new(&["x"], Expr::bool(true)))
        .collect();
    let p = prog(
        vec![("xs", Type::array(Type::I64))],
        Type::I64,
        Expr::filter(preds, Expr::var("xs")),
    );
    assert!(
        check::check_program(&p)
            .unwrap_err()
            .to_string()
            .contains("at most 14")
    );
    // A reduction lambda's parameters are inferred from the identity.
    let op = ReduceOp::Lambda(Lambda::new(
        &["a", "b"],
        Expr::binary(BinOp::Max, Expr::var("a"), Expr::var("b")),
    ));
    let p = prog(
        vec![("xs", Type::array(Type::F64))],
        Type::F64,
        Expr::reduce(op, Expr::f64(f64::NEG_INFINITY), Expr::var("xs")),
    );
    assert!(check::check_program(&p).is_ok());
}

#[test]
fn inputs_are_checked() {
    let p = prog(
        vec![("xs", Type::array(Type::I64))],
        Type::I64,
        Expr::length(Expr::var("xs")),
    );
    let e = eval::run(&p, "main", vec![Value::array(vec![Value::F64(1.0)])]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "bad input: argument `xs` of `main` must be [i64]"
    );
    assert!(eval::run(&p, "other", vec![]).is_err());
}

#[test]
fn pretty_printer_is_readable() {
    let (p, _) =
        flatland_vectoriser::programs::quicksort(flatland_vectoriser::programs::Pivot::Middle);
    let text = p.ir().to_string();
    assert!(
        text.starts_with(
            "fn quicksort(xs: [i64]) -> [i64] =\n  if (length(xs) <= 1) then xs else let"
        ),
        "{text}"
    );
    assert!(text.contains("filter([|"), "{text}");
}
