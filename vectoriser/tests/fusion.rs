//! Fusion: fused and unfused execution agree bitwise with the interpreter (results and errors),
//! the rules fire where they should, and (feature `stats`) fused forms do one pass.

#[cfg(feature = "stats")]
use flatland_vectoriser::exec;
use flatland_vectoriser::ir::{BinaryOp, Expr, Function, Lambda, Program, ReduceOp, Type};
use flatland_vectoriser::value::Value;
use flatland_vectoriser::{fuse, programs};
use quickcheck::{QuickCheck, TestResult};

mod agree;

#[cfg(feature = "stats")]
use agree::OFF;
use agree::{agree, f64s};

/// `(sum xs, product xs, min xs)`, three reductions over one array.
fn three() -> Program {
    let xs = || Expr::var("xs");
    let body = Expr::Tuple(vec![
        Expr::reduce(ReduceOp::Add, Expr::f64(0.0), xs()),
        Expr::reduce(ReduceOp::Mul, Expr::f64(1.0), xs()),
        Expr::reduce(ReduceOp::Min, Expr::f64(f64::INFINITY), xs()),
    ]);
    Program::new(vec![Function::new(
        "three",
        vec![("xs".into(), Type::array(Type::F64))],
        Type::Tuple(vec![Type::F64; 3]),
        body,
    )])
}

/// Per row: `let s = reduce(+, 0, map(x * x, row)) in let m = reduce(max, -inf, row) in
/// let c = redomap(+, 0, |x| if x < 0 then 1 else 0, row) in (s, m, c)`: vertical fusion
/// through lets, then horizontal fusion of the adjacent lets (a segmented tuple redomap).
fn rows_stats() -> Program {
    let row = || Expr::var("row");
    let sq = Expr::let_(
        "sq",
        Expr::map(
            Lambda::new(&["x"], Expr::var("x") * Expr::var("x")),
            vec![row()],
        ),
        Expr::reduce(ReduceOp::Add, Expr::f64(0.0), Expr::var("sq")),
    );
    let neg = Lambda::new(
        &["x"],
        Expr::if_(
            Expr::var("x").lt(Expr::f64(0.0)),
            Expr::i64(1),
            Expr::i64(0),
        ),
    );
    let inner = Expr::let_(
        "s",
        Expr::reduce(ReduceOp::Add, Expr::f64(0.0), Expr::var("row")),
        Expr::let_(
            "m",
            Expr::reduce(ReduceOp::Max, Expr::f64(f64::NEG_INFINITY), row()),
            Expr::let_(
                "c",
                Expr::redomap(ReduceOp::Add, Expr::i64(0), neg, vec![row()]),
                Expr::Tuple(vec![Expr::var("s"), Expr::var("m"), Expr::var("c"), sq]),
            ),
        ),
    );
    let body = Expr::map(Lambda::new(&["row"], inner), vec![Expr::var("rows")]);
    Program::new(vec![Function::new(
        "rows_stats",
        vec![("rows".into(), Type::array(Type::array(Type::F64)))],
        Type::array(Type::Tuple(vec![
            Type::F64,
            Type::F64,
            Type::I64,
            Type::F64,
        ])),
        body,
    )])
}

#[test]
fn horizontal_fusion_of_three_reductions() {
    let (fused, rules) = fuse::fuse_reporting(&three());
    assert_eq!(rules, vec!["horizontal"], "{fused}");
    for n in [0, 1, 15, 16, 4095, 4096, 4097, 50_000] {
        let xs: Vec<f64> = (0..n)
            .map(|i| ((i * 37 % 101) as f64 - 50.0) / 7.0)
            .collect();
        agree(&three(), "three", vec![f64s(&xs)]).unwrap();
    }
}

#[test]
fn horizontal_fusion_on_arbitrary_floats() {
    // quickcheck's f64 includes NaN, infinities and -0.0; repeat the data so leaves fill up.
    fn prop(xs: Vec<f64>, reps: u8) -> bool {
        let xs: Vec<f64> = xs
            .iter()
            .copied()
            .cycle()
            .take(xs.len() * (usize::from(reps % 8) * 40 + 1))
            .collect();
        agree(&three(), "three", vec![f64s(&xs)]).is_ok()
    }
    QuickCheck::new()
        .tests(60)
        .quickcheck(prop as fn(Vec<f64>, u8) -> bool);
}

#[test]
fn segmented_vertical_and_horizontal_fusion() {
    let (_, rules) = fuse::fuse_reporting(&rows_stats());
    assert!(
        rules.contains(&"horizontal") && rules.contains(&"map-reduce"),
        "{rules:?}"
    );
    let lens = [0, 3, 0, 9000, 1, 4096, 17];
    let rows: Vec<Value> = lens
        .iter()
        .enumerate()
        .map(|(r, &l)| {
            f64s(
                &(0..l)
                    .map(|i| ((i * 13 + r) % 29) as f64 - 10.5)
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    agree(&rows_stats(), "rows_stats", vec![Value::array(rows)]).unwrap();
    agree(&rows_stats(), "rows_stats", vec![Value::array(vec![])]).unwrap();
}

#[test]
fn fused_errors_are_the_unfused_errors() {
    // sum(map(|x| 10 / x, xs)): the kernel meets the division by zero and falls back.
    let body = Expr::reduce(
        ReduceOp::Add,
        Expr::i64(0),
        Expr::map(
            Lambda::new(&["x"], Expr::i64(10) / Expr::var("x")),
            vec![Expr::var("xs")],
        ),
    );
    let p = Program::new(vec![Function::new(
        "f",
        vec![("xs".into(), Type::array(Type::I64))],
        Type::I64,
        body,
    )]);
    let xs = Value::array(
        (0..10_000)
            .map(|i| Value::I64(i64::from(i != 7_000) * (i + 1)))
            .collect(),
    );
    let e = agree(&p, "f", vec![xs]).unwrap_err();
    assert_eq!(e.to_string(), "div: lane 7000: division by zero");
    // An index out of range inside a fused gather, as smvm would hit it.
    let (sp, f) = programs::smvm();
    let rows = Value::array(vec![Value::array(vec![Value::Tuple(vec![
        Value::I64(5),
        Value::F64(1.0),
    ])])]);
    let err = agree(sp.ir(), f.name(), vec![rows, f64s(&[1.0, 2.0])]).unwrap_err();
    assert!(err.to_string().contains("index"), "{err}");
}

#[test]
fn map_map_and_map_redomap_chains() {
    // reduce(max, 0, map(g, map(f, xs))) and redomap over a map of two arrays.
    let f = Lambda::new(&["x", "y"], Expr::var("x") * Expr::var("y") - Expr::i64(3));
    let g = Lambda::new(
        &["x"],
        Expr::binary(BinaryOp::Max, Expr::var("x"), Expr::var("k")),
    );
    let body = Expr::let_(
        "k",
        Expr::i64(-7),
        Expr::redomap(
            ReduceOp::Max,
            Expr::i64(i64::MIN),
            Lambda::new(&["z"], Expr::var("z") + Expr::var("k")),
            vec![Expr::map(
                g,
                vec![Expr::map(f, vec![Expr::var("a"), Expr::var("b")])],
            )],
        ),
    );
    let p = Program::new(vec![Function::new(
        "g",
        vec![
            ("a".into(), Type::array(Type::I64)),
            ("b".into(), Type::array(Type::I64)),
        ],
        Type::I64,
        body,
    )]);
    let (_, rules) = fuse::fuse_reporting(&p);
    assert_eq!(rules, vec!["map-map", "map-redomap"]);
    let ints = |xs: Vec<i64>| Value::array(xs.into_iter().map(Value::I64).collect());
    let a: Vec<i64> = (0..20_000).map(|i| (i * 7919) % 1000 - 500).collect();
    let b: Vec<i64> = (0..20_000).map(|i| (i * 104_729) % 37 - 18).collect();
    agree(&p, "g", vec![ints(a.clone()), ints(b)]).unwrap();
    let e = agree(&p, "g", vec![ints(a), ints(vec![1])]).unwrap_err();
    assert!(e.to_string().contains("map"), "{e}");
}

// `!(x <= 100.0)` spells the else-class exactly (NaN included), as the program's if-elif does.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn fusion2_reference(a: &[f64]) -> (f64, f64, f64, Vec<f64>, Vec<f64>, Vec<f64>) {
    use flatland_runtime::assoc::fold;
    let x0: Vec<f64> = a.iter().copied().filter(|&x| x < 1.0).collect();
    let x1: Vec<f64> = a
        .iter()
        .copied()
        .filter(|&x| (1.0..10.0).contains(&x))
        .collect();
    let x2: Vec<f64> = a
        .iter()
        .copied()
        .filter(|&x| (10.0..=100.0).contains(&x))
        .collect();
    let x3: Vec<f64> = a.iter().copied().filter(|&x| !(x <= 100.0)).collect();
    let z2: Vec<f64> = x1
        .iter()
        .map(|x| x * 10.0)
        .filter(|&y| !(50.0 < y))
        .collect();
    let y3: Vec<f64> = x3.iter().map(|x| x.sqrt()).collect();
    (
        fold(&z2, 0.0, |p, q| p + q),
        fold(&x2, 1.0, |p, q| p * q),
        fold(&y3, f64::INFINITY, flatland_runtime::expr::op::float::min),
        x0,
        z2,
        y3,
    )
}

#[test]
fn fusion2_agrees_with_plain_rust() {
    fn prop(a: Vec<i16>) -> TestResult {
        let a: Vec<f64> = a.iter().map(|&x| f64::from(x) / 50.0).collect();
        let Ok(Value::Tuple(r)) = agree(&fuse::fusion2(), "fusion2", vec![f64s(&a)]) else {
            return TestResult::error("not a tuple");
        };
        let (s1, s2, s3, x0, z2, y3) = fusion2_reference(&a);
        let want = vec![
            Value::F64(s1),
            Value::F64(s2),
            Value::F64(s3),
            f64s(&x0),
            f64s(&z2),
            f64s(&y3),
        ];
        TestResult::from_bool(r == want)
    }
    QuickCheck::new()
        .tests(100)
        .quickcheck(prop as fn(Vec<i16>) -> TestResult);
    let big: Vec<f64> = (0..30_000)
        .map(|i| f64::from((i * 7919) % 20_000) / 100.0)
        .collect();
    agree(&fuse::fusion2(), "fusion2", vec![f64s(&big)]).unwrap();
}

#[cfg(feature = "stats")]
mod work {
    use super::*;
    use flatland_runtime::stats;
    use flatland_vectoriser::dsl::{Arr, Ty};

    #[test]
    fn three_reductions_read_their_array_once() {
        let n: u32 = 100_000;
        let xs = f64s(&(0..n).map(|i| f64::from(i % 100) / 3.0).collect::<Vec<_>>());
        let (r, fused) = stats::measure(|| exec::run(&three(), "three", vec![xs.clone()]));
        r.unwrap();
        let (r, unfused) = stats::measure(|| exec::run_with(&three(), "three", vec![xs], &OFF));
        r.unwrap();
        println!("fused {fused:?}\nunfused {unfused:?}");
        assert_eq!(fused.elements_read, u64::from(n), "{fused:?}");
        assert_eq!(unfused.elements_read, 3 * u64::from(n), "{unfused:?}");
    }

    #[test]
    fn fused_smvm_reads_each_element_once_and_allocates_no_nnz_temporary() {
        let (p, f) = programs::smvm();
        let (rows, per_row, vlen) = (2_000usize, 50usize, 5_000usize);
        let nnz = rows * per_row;
        let matrix: Vec<Vec<(i64, f64)>> = (0..rows)
            .map(|r| {
                (0..per_row)
                    .map(|j| (((r * 7 + j * 13) % vlen) as i64, j as f64 + 0.5))
                    .collect()
            })
            .collect();
        let v: Vec<f64> = (0..vlen).map(|i| i as f64 / 3.0).collect();
        let args = vec![
            <Arr<Arr<(i64, f64)>>>::to_value(matrix),
            <Arr<f64>>::to_value(v),
        ];
        let (a, fused) = stats::measure(|| exec::run(p.ir(), f.name(), args.clone()));
        let (b, unfused) = stats::measure(|| exec::run_with(p.ir(), f.name(), args, &OFF));
        assert_eq!(a.unwrap(), b.unwrap());
        println!("fused {fused:?}\nunfused {unfused:?}");
        // Per nonzero: its index and value read once, one read of v (the gather) and one of the
        // gathered block buffer by the multiply; per row O(1).
        let nnz = nnz as u64;
        assert!(
            fused.elements_read <= 4 * nnz + 8 * rows as u64,
            "{fused:?}"
        );
        // No nnz-sized temporary: allocations stay O(rows), far below nnz * 8 bytes.
        assert!(fused.bytes_allocated < 8 * nnz / 2, "{fused:?}");
        assert!(unfused.bytes_allocated > 8 * nnz, "{unfused:?}");
    }
}
