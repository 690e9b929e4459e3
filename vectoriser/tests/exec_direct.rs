//! The fused redomap's direct path (`seg::fold_s_leaves_split` straight from in-place columns and
//! gathers) and prepared programs: results and errors bitwise those of the interpreter, fused
//! and unfused; (feature `stats`) the fused smvm reads each matrix element once and allocates
//! nothing of nnz size.

use flatland_vectoriser::exec::{self, Arg, ExecOptions, Prepared};
use flatland_vectoriser::ir::{BinaryOp, Expr, Function, Lambda, Program, ReduceOp, Type};
use flatland_vectoriser::value::Value;
use flatland_vectoriser::{eval, fuse, programs};

const OFF: ExecOptions = ExecOptions { fuse: false };

/// `fold(rows, v)`: per row, `reduce(op, z, map(|e| body, row))` (fused to a redomap), where the
/// body reads `x = e.1` and `g = v[e.0]`.
fn rows_fold(op: ReduceOp, z: f64, body: Expr) -> Program {
    let e = || Expr::var("e");
    let body = Expr::let_(
        "x",
        Expr::proj(e(), 1),
        Expr::let_("g", Expr::index(Expr::var("v"), Expr::proj(e(), 0)), body),
    );
    let per_row = Expr::reduce(
        op,
        Expr::f64(z),
        Expr::map(Lambda::new(&["e"], body), vec![Expr::var("row")]),
    );
    let entry = Type::Tuple(vec![Type::I64, Type::F64]);
    Program::new(vec![Function::new(
        "fold",
        vec![
            ("rows".into(), Type::array(Type::array(entry))),
            ("v".into(), Type::array(Type::F64)),
        ],
        Type::array(Type::F64),
        Expr::map(Lambda::new(&["row"], per_row), vec![Expr::var("rows")]),
    )])
}

fn agree(p: &Program, args: Vec<Value>) -> flatland_vectoriser::Result<Value> {
    let e = eval::run(p, "fold", args.clone());
    let u = exec::run_with(p, "fold", args.clone(), &OFF);
    let x = exec::run(p, "fold", args);
    assert_eq!(e, u, "eval and unfused exec differ\n{p}");
    assert_eq!(e, x, "eval and fused exec differ\n{}", fuse::fuse(p));
    e
}

fn matrix(rows: &[Vec<(i64, f64)>]) -> Value {
    Value::array(
        rows.iter()
            .map(|r| {
                Value::array(
                    r.iter()
                        .map(|&(c, x)| Value::Tuple(vec![Value::I64(c), Value::F64(x)]))
                        .collect(),
                )
            })
            .collect(),
    )
}

fn f64s(xs: &[f64]) -> Value {
    Value::array(xs.iter().map(|&x| Value::F64(x)).collect())
}

/// Empty rows, short rows, one row of several leaves; NaNs of two payloads, signed zeros and
/// infinities among the values.
fn inputs() -> (Value, Value) {
    let nan_a = f64::from_bits(0x7ff8_0000_0000_0001);
    let nan_b = f64::from_bits(0xfff8_0000_0000_0002);
    let specials = [
        nan_a,
        -0.0,
        0.0,
        f64::INFINITY,
        nan_b,
        -1.5,
        f64::NEG_INFINITY,
    ];
    let v: Vec<f64> = (0..50)
        .map(|i| {
            if i % 7 == 3 {
                specials[i % specials.len()]
            } else {
                f64::from(i as i32) * 0.37 - 4.0
            }
        })
        .collect();
    let mut rows: Vec<Vec<(i64, f64)>> = vec![vec![]];
    for r in 0..40usize {
        let len = if r == 17 { 5_000 } else { r % 9 };
        rows.push(
            (0..len)
                .map(|j| {
                    let x = if (r + j) % 11 == 5 {
                        specials[(r + j) % specials.len()]
                    } else {
                        ((r * 31 + j * 7) % 23) as f64 / 8.0 - 1.0
                    };
                    (((r * 13 + j * 29) % 50) as i64, x)
                })
                .collect(),
        );
    }
    rows.push(vec![]);
    (matrix(&rows), f64s(&v))
}

#[test]
fn direct_shapes_agree_with_the_interpreter() {
    let (x, g) = (|| Expr::var("x"), || Expr::var("g"));
    let bin = |op, a: Expr, b: Expr| Expr::binary(op, a, b);
    let bodies = vec![
        x(),
        g(),
        bin(BinaryOp::Mul, x(), g()),
        bin(BinaryOp::Mul, g(), x()),
        bin(BinaryOp::Add, x(), g()),
        bin(BinaryOp::Sub, g(), x()),
        bin(BinaryOp::Sub, x(), x()),
        bin(BinaryOp::Add, g(), g()),
        // Not direct (a constant leaf, two operators): the block path.
        bin(BinaryOp::Mul, x(), Expr::f64(2.0)),
        bin(BinaryOp::Add, bin(BinaryOp::Mul, x(), g()), x()),
    ];
    let ops = [
        (ReduceOp::Add, 0.0),
        (ReduceOp::Min, f64::INFINITY),
        (ReduceOp::Max, f64::NEG_INFINITY),
        (ReduceOp::Mul, 1.0),
        (ReduceOp::Add, -0.0),
    ];
    let (rows, v) = inputs();
    for body in &bodies {
        for (op, z) in &ops {
            let p = rows_fold(op.clone(), *z, body.clone());
            agree(&p, vec![rows.clone(), v.clone()]).unwrap();
            agree(&p, vec![Value::array(vec![]), v.clone()]).unwrap();
        }
    }
}

#[test]
fn direct_gathers_out_of_range_report_the_interpreters_error() {
    let (p, f) = programs::smvm();
    let v = f64s(&[1.0, 2.0, 3.0]);
    for bad in [3, -1, i64::MIN] {
        let rows = matrix(&[vec![(0, 1.0)], vec![(2, 1.0), (bad, 2.0)], vec![(bad, 0.5)]]);
        let want = eval::run(p.ir(), f.name(), vec![rows.clone(), v.clone()]).unwrap_err();
        let fused = exec::run(p.ir(), f.name(), vec![rows.clone(), v.clone()]).unwrap_err();
        let unfused = exec::run_with(p.ir(), f.name(), vec![rows, v.clone()], &OFF).unwrap_err();
        assert_eq!(fused.to_string(), want.to_string());
        assert_eq!(unfused.to_string(), want.to_string());
    }
}

/// A gathered vector too big for the cache, read at scattered positions: the direct path
/// prefetches its gathers and folds long leaves lane after lane. Same bits (and the same error
/// for an index out of range in a long row) as the interpreter.
#[test]
fn prefetched_gathers_agree_with_the_interpreter() {
    let vlen = 600_000usize;
    let v: Vec<f64> = (0..vlen).map(|i| (i % 1013) as f64 * 0.125 - 7.0).collect();
    let row = |r: usize, len: usize| -> Vec<(i64, f64)> {
        (0..len)
            .map(|j| {
                let c = (r * 7919 + j * 104_729) % vlen;
                (c as i64, ((r + j) % 17) as f64 - 8.5)
            })
            .collect()
    };
    let lens = [0, 3, 4_000, 1, 0, 9, 70_000, 2, 257];
    let rows: Vec<Vec<(i64, f64)>> = lens.iter().enumerate().map(|(r, &l)| row(r, l)).collect();
    let p = rows_fold(
        ReduceOp::Add,
        -0.0,
        Expr::binary(BinaryOp::Mul, Expr::var("x"), Expr::var("g")),
    );
    agree(&p, vec![matrix(&rows), f64s(&v)]).unwrap();
    let mut broken = rows;
    broken[6][50_000].0 = vlen as i64;
    assert!(agree(&p, vec![matrix(&broken), f64s(&v)]).is_err());
}

#[test]
fn a_prepared_program_runs_again_and_again_as_run_args_does() {
    fn shared<T: Send + Sync>(_: &T) {}
    let (p, f) = programs::smvm();
    let (rows, v) = inputs();
    for opts in [ExecOptions::default(), OFF] {
        let prepared = Prepared::new(p.ir(), f.name(), &opts).unwrap();
        shared(&prepared);
        for _ in 0..3 {
            let want = exec::run_with(p.ir(), f.name(), vec![rows.clone(), v.clone()], &opts);
            let got = prepared.run(vec![rows.clone(), v.clone()]);
            assert_eq!(got.unwrap(), want.unwrap());
        }
        let two = vec![Arg::f64s(vec![1.0]), Arg::f64s(vec![2.0])];
        assert_eq!(
            prepared.run_args(two.clone()).unwrap_err().to_string(),
            exec::run_args_with(p.ir(), f.name(), two, &opts)
                .unwrap_err()
                .to_string()
        );
    }
}

#[cfg(feature = "stats")]
#[test]
fn fused_smvm_reads_each_element_once_and_allocates_o_rows() {
    use flatland_runtime::stats;
    let (p, f) = programs::smvm();
    let (rows, per_row, vlen) = (2_000usize, 100usize, 5_000usize);
    let m: Vec<Vec<(i64, f64)>> = (0..rows)
        .map(|r| {
            (0..per_row)
                .map(|j| (((r * 7 + j * 13) % vlen) as i64, j as f64 + 0.25))
                .collect()
        })
        .collect();
    let v: Vec<f64> = (0..vlen).map(|i| i as f64 / 3.0).collect();
    let args = vec![matrix(&m), f64s(&v)];
    let prepared = Prepared::new(p.ir(), f.name(), &ExecOptions::default()).unwrap();
    let (r, work) = stats::measure(|| prepared.run(args.clone()));
    assert_eq!(r.unwrap(), eval::run(p.ir(), f.name(), args).unwrap());
    println!("{work:?}");
    let nnz = (rows * per_row) as u64;
    // Per nonzero: its column and value read in place, one gathered element of v; O(1) per row.
    assert!(work.elements_read <= 3 * nnz + 4 * rows as u64, "{work:?}");
    // No nnz-sized temporary and no block buffers: a few words per row.
    assert!(work.bytes_allocated <= 32 * rows as u64, "{work:?}");
}
