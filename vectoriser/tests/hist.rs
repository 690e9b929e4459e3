//! Reductions by index (`hist`): the executor (fused and unfused) agrees with the reference
//! interpreter bitwise on inputs of several blocks, one histogram per lane under `map` (lanes
//! of very different sizes, empty ones, one huge one), built-in and lambda operators, and on
//! the errors (negative bins, indices and values of different lengths).

use flatland_runtime::assoc::HIST_BLOCK;
use flatland_vectoriser::ir::{Expr, Function, Lambda, Program, ReduceOp, Type};
use flatland_vectoriser::value::Value;
use flatland_vectoriser::{eval, exec};

fn ints(xs: impl IntoIterator<Item = i64>) -> Value {
    Value::array(xs.into_iter().map(Value::I64).collect())
}

fn floats(xs: impl IntoIterator<Item = f64>) -> Value {
    Value::array(xs.into_iter().map(Value::F64).collect())
}

/// eval, exec fused and exec unfused on `main(params) = body`, all equal (values or errors).
fn agree(
    params: Vec<(String, Type)>,
    ret: Type,
    body: Expr,
    args: Vec<Value>,
) -> flatland_vectoriser::Result<Value> {
    let p = Program::new(vec![Function::new("main", params, ret, body)]);
    let want = eval::run(&p, "main", args.clone());
    let fused = exec::run(&p, "main", args.clone());
    let unfused = exec::run_with(&p, "main", args, &exec::ExecOptions { fuse: false });
    assert_eq!(want, fused, "fused\n{p}");
    assert_eq!(want, unfused, "unfused\n{p}");
    want
}

fn bits(v: &Value) -> Vec<u64> {
    match v {
        Value::F64(x) => vec![x.to_bits()],
        Value::I64(x) => vec![*x as u64],
        other => other
            .as_array()
            .map_or(vec![], |xs| xs.iter().flat_map(bits).collect()),
    }
}

fn add_lambda() -> ReduceOp {
    ReduceOp::Lambda(Lambda::new(&["a", "b"], Expr::var("a") + Expr::var("b")))
}

#[test]
fn flat_sums_of_several_blocks_agree_and_follow_the_blocks() {
    let n = 2 * HIST_BLOCK + 123;
    let ks = ints((0..n as i64).map(|i| (i * 7919) % 70 - 3));
    let vs = floats((0..n).map(|i| (i % 1000) as f64 * 0.001 + 1e-9));
    let params = vec![
        ("ks".into(), Type::array(Type::I64)),
        ("vs".into(), Type::array(Type::F64)),
    ];
    for op in [ReduceOp::Add, add_lambda()] {
        let body = Expr::hist(
            Expr::i64(64),
            Expr::f64(0.0),
            op,
            Expr::var("ks"),
            Expr::var("vs"),
        );
        let r = agree(
            params.clone(),
            Type::array(Type::F64),
            body,
            vec![ks.clone(), vs.clone()],
        )
        .unwrap();
        assert_eq!(r.as_array().unwrap().len(), 64);
    }
    // The association is the blocks', not one left fold over all the input.
    let (k, v) = (ks.as_array().unwrap(), vs.as_array().unwrap());
    let mut naive = vec![0.0f64; 64];
    for (k, v) in k.iter().zip(v) {
        if let (Value::I64(k), Value::F64(v)) = (k, v)
            && (0..64).contains(k)
        {
            naive[*k as usize] += v;
        }
    }
    let body = Expr::hist(
        Expr::i64(64),
        Expr::f64(0.0),
        ReduceOp::Add,
        Expr::var("ks"),
        Expr::var("vs"),
    );
    let p = Program::new(vec![Function::new(
        "main",
        params,
        Type::array(Type::F64),
        body,
    )]);
    let got = eval::run(&p, "main", vec![ks, vs]).unwrap();
    assert_ne!(
        bits(&got),
        bits(&floats(naive)),
        "expected the blocks to change some bits"
    );
}

#[test]
fn one_histogram_per_lane_with_a_huge_lane_among_empty_ones() {
    // main(rows, bins) = map(|r, b| hist(b, z, op, r, map(|k| k * 3 + 1, r)), rows, bins)
    let lens = [0usize, 5, HIST_BLOCK + 7, 0, 1, 40];
    let rows = Value::array(
        lens.iter()
            .enumerate()
            .map(|(l, &n)| ints((0..n as i64).map(|i| (i * 31 + l as i64) % 13 - 2)))
            .collect(),
    );
    let bins = ints([3, 0, 12, 4, 1, 9]);
    let params = vec![
        ("rows".into(), Type::array(Type::array(Type::I64))),
        ("bins".into(), Type::array(Type::I64)),
    ];
    let max_lambda = ReduceOp::Lambda(Lambda::new(
        &["a", "b"],
        Expr::binary(
            flatland_vectoriser::ir::BinaryOp::Max,
            Expr::var("a"),
            Expr::var("b"),
        ),
    ));
    for (op, z) in [
        (ReduceOp::Add, Expr::i64(0)),
        (ReduceOp::Max, Expr::var("b")),
        (max_lambda, Expr::var("b") - Expr::i64(100)),
        (add_lambda(), Expr::i64(0)),
    ] {
        let vals = Expr::map(
            Lambda::new(&["k"], Expr::var("k") * Expr::i64(3) + Expr::i64(1)),
            vec![Expr::var("r")],
        );
        let h = Expr::hist(Expr::var("b"), z, op, Expr::var("r"), vals);
        let body = Expr::map(
            Lambda::new(&["r", "b"], h),
            vec![Expr::var("rows"), Expr::var("bins")],
        );
        let r = agree(
            params.clone(),
            Type::array(Type::array(Type::I64)),
            body,
            vec![rows.clone(), bins.clone()],
        )
        .unwrap();
        let lens: Vec<usize> = r
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_array().unwrap().len())
            .collect();
        assert_eq!(lens, vec![3, 0, 12, 4, 1, 9]);
    }
}

#[test]
fn errors_agree() {
    let params = vec![
        ("ks".into(), Type::array(Type::I64)),
        ("n".into(), Type::I64),
    ];
    let vals = Expr::replicate(Expr::length(Expr::var("ks")) + Expr::i64(1), Expr::i64(1));
    let mismatch = Expr::hist(
        Expr::var("n"),
        Expr::i64(0),
        ReduceOp::Add,
        Expr::var("ks"),
        vals,
    );
    let p = Program::new(vec![Function::new(
        "main",
        params.clone(),
        Type::array(Type::I64),
        mismatch.clone(),
    )]);
    let e = eval::run(&p, "main", vec![ints([1, 2]), Value::I64(3)]).unwrap_err();
    assert!(e.to_string().contains("hist"), "{e}");
    let r = agree(
        params.clone(),
        Type::array(Type::I64),
        mismatch,
        vec![ints([1, 2]), Value::I64(3)],
    );
    assert!(r.is_err());
    let ones = Expr::replicate(Expr::length(Expr::var("ks")), Expr::i64(1));
    let negative = Expr::hist(
        Expr::var("n"),
        Expr::i64(0),
        ReduceOp::Add,
        Expr::var("ks"),
        ones,
    );
    let p = Program::new(vec![Function::new(
        "main",
        params.clone(),
        Type::array(Type::I64),
        negative.clone(),
    )]);
    let e = eval::run(&p, "main", vec![ints([1]), Value::I64(-2)]).unwrap_err();
    assert_eq!(e.to_string(), "hist: lane 0: negative number of bins -2");
    let r = agree(
        params,
        Type::array(Type::I64),
        negative,
        vec![ints([1]), Value::I64(-2)],
    );
    assert!(r.is_err());
}
