//! The machine against a naive lane-by-lane tree walker that calls the scalar semantics of `op`.

use super::op::{self, BinaryOp, Scalar, ScalarType, TernaryOp, UnaryOp};
use super::*;
use crate::{Error, cost, sched};
use bitvec::vec::BitVec;
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};

/// Owned input columns (`bits` is passed as a bit slice, the rest as plain slices).
#[derive(Clone, Debug)]
enum Col {
    I(Vec<i64>),
    F(Vec<f64>),
    B(Vec<bool>),
    Bits(BitVec),
}

impl Col {
    fn as_ref(&self) -> ColumnRef<'_> {
        match self {
            Col::I(x) => ColumnRef::I64(x),
            Col::F(x) => ColumnRef::F64(x),
            Col::B(x) => ColumnRef::Bool(x),
            Col::Bits(x) => ColumnRef::Bits(x),
        }
    }

    fn get(&self, lane: usize) -> Scalar {
        match self {
            Col::I(x) => Scalar::I64(x[lane]),
            Col::F(x) => Scalar::F64(x[lane]),
            Col::B(x) => Scalar::Bool(x[lane]),
            Col::Bits(x) => Scalar::Bool(x[lane]),
        }
    }
}

/// The meaning of an expression at one lane: a post-order tree walk (left to right) with the
/// scalar functions; the first failing operation is the error.
fn walk(e: &ColumnExpr, cols: &[Col], lane: usize) -> crate::Result<Scalar> {
    Ok(match e.node() {
        Node::Input(k) => cols[*k].get(lane),
        Node::Const(c) => *c,
        Node::Iota { start, step } => {
            Scalar::I64(op::int::add(*start, op::int::mul(*step, lane as i64)))
        }
        Node::Unary(o, a) => o.eval(walk(a, cols, lane)?)?,
        Node::Binary(o, a, b) => {
            let a = walk(a, cols, lane)?;
            let b = walk(b, cols, lane)?;
            o.eval(a, b, lane)?
        }
        Node::Ternary(o, a, b, c) => {
            let a = walk(a, cols, lane)?;
            let b = walk(b, cols, lane)?;
            let c = walk(c, cols, lane)?;
            o.eval(a, b, c, lane)?
        }
        Node::Select(c, a, b) => {
            let c = walk(c, cols, lane)?;
            let a = walk(a, cols, lane)?;
            let b = walk(b, cols, lane)?;
            op::select(c, a, b)?
        }
    })
}

fn reference(e: &ColumnExpr, cols: &[Col], len: usize) -> crate::Result<Vec<Scalar>> {
    (0..len).map(|lane| walk(e, cols, lane)).collect()
}

fn scalars(c: &Column) -> Vec<Scalar> {
    match c {
        Column::I64(x) => x.iter().map(|&v| Scalar::I64(v)).collect(),
        Column::F64(x) => x.iter().map(|&v| Scalar::F64(v)).collect(),
        Column::Bool(x) => x.iter().by_vals().map(Scalar::Bool).collect(),
    }
}

fn same(a: &[Scalar], b: &[Scalar]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(*y))
}

/// A profile under which the scheduler splits every input of two leaves or more.
fn eager_machine() -> cost::Machine {
    cost::Machine::new(0.5, 1.0, 0.0, 64)
}

fn pool3() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap()
    })
}

/// Evaluates with every parallelism and checks each against the reference.
fn check(e: &ColumnExpr, cols: &[Col], len: usize) -> Result<(), String> {
    let refs: Vec<ColumnRef<'_>> = cols.iter().map(Col::as_ref).collect();
    let types: Vec<ScalarType> = refs.iter().map(ColumnRef::ty).collect();
    let want = reference(e, cols, len);
    let program = CompiledExpr::compile(e, &types).map_err(|err| format!("compile: {err}"))?;
    // The last variant: the scheduler under a profile that splits whenever there are two leaves,
    // on a pool of three threads (uneven task sizes, tasks of whole leaves).
    for (par, eager) in [
        (Parallelism::Sequential, false),
        (Parallelism::PerBlock, false),
        (Parallelism::Auto, false),
        (Parallelism::Auto, true),
    ] {
        let p = program.clone().with_parallelism(par);
        let got = if eager {
            pool3().install(|| cost::with_machine(eager_machine(), || p.eval(&refs, len)))
        } else {
            p.eval(&refs, len)
        }
        .map(|c| scalars(&c));
        let ok = match (&got, &want) {
            (Ok(g), Ok(w)) => same(g, w),
            (Err(g), Err(w)) => g == w,
            _ => false,
        };
        if !ok {
            let show = |r: &crate::Result<Vec<Scalar>>| match r {
                Ok(v) => format!("{:?}", &v[..v.len().min(8)]),
                Err(e) => e.to_string(),
            };
            return Err(format!(
                "{e}\n{p}{par:?} (eager {eager}), len {len}: machine {} vs reference {}",
                show(&got),
                show(&want)
            ));
        }
    }
    Ok(())
}

// ---- random programs ----------------------------------------------------------------------

/// Input signature of the random cases.
const SIG: [ScalarType; 6] = [
    ScalarType::I64,
    ScalarType::I64,
    ScalarType::F64,
    ScalarType::F64,
    ScalarType::Bool,
    ScalarType::Bool,
];

fn pick<T: Copy>(g: &mut Gen, xs: &[T]) -> T {
    *g.choose(xs).expect("non-empty")
}

fn gen_i64(g: &mut Gen) -> i64 {
    match u8::arbitrary(g) % 10 {
        0 => pick(
            g,
            &[
                1,
                -1,
                2,
                -2,
                63,
                64,
                65,
                -64,
                i64::MIN,
                i64::MAX,
                i64::MIN + 1,
            ],
        ),
        1 if u8::arbitrary(g) % 8 == 0 => 0,
        2 => i64::arbitrary(g),
        _ => i64::from(i16::arbitrary(g) % 1000) | 1,
    }
}

fn gen_f64(g: &mut Gen) -> f64 {
    match u8::arbitrary(g) % 8 {
        0 => pick(
            g,
            &[
                0.0,
                -0.0,
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                1e300,
                -1e-300,
                f64::MIN_POSITIVE,
            ],
        ),
        1 => f64::from(i8::arbitrary(g)),
        _ => f64::from(i32::arbitrary(g)) / 64.0,
    }
}

fn gen_const(g: &mut Gen, ty: ScalarType) -> Scalar {
    match ty {
        ScalarType::I64 => Scalar::I64(gen_i64(g)),
        ScalarType::F64 => Scalar::F64(gen_f64(g)),
        ScalarType::Bool => Scalar::Bool(bool::arbitrary(g)),
    }
}

/// A random well-typed expression of type `ty`; `pool` holds earlier subtrees to share.
fn gen_expr(
    g: &mut Gen,
    ty: ScalarType,
    depth: u32,
    pool: &mut Vec<(ScalarType, ColumnExpr)>,
) -> ColumnExpr {
    use ScalarType::{Bool, F64, I64};
    let shared: Vec<ColumnExpr> = pool
        .iter()
        .filter(|(t, _)| *t == ty)
        .map(|(_, e)| e.clone())
        .collect();
    if !shared.is_empty() && u8::arbitrary(g) % 8 == 0 {
        return pick_expr(g, &shared);
    }
    let leaf = depth == 0 || u8::arbitrary(g) % 8 == 0;
    let e = if leaf {
        let inputs: Vec<usize> = (0..SIG.len()).filter(|&k| SIG[k] == ty).collect();
        match u8::arbitrary(g) % 5 {
            0 => ColumnExpr::new(Node::Const(gen_const(g, ty))),
            1 if ty == I64 => ColumnExpr::iota(gen_i64(g), gen_i64(g)),
            _ => ColumnExpr::input(pick(g, &inputs)),
        }
    } else {
        let d = depth - 1;
        match u8::arbitrary(g) % 6 {
            // A unary operator (or cast) producing `ty`.
            0 | 1 => {
                let ops: Vec<(UnaryOp, ScalarType)> = UnaryOp::ALL
                    .iter()
                    .flat_map(|&o| ScalarType::ALL.iter().map(move |&t| (o, t)))
                    .filter(|&(o, t)| o.result_type(t) == Some(ty))
                    .collect();
                let (o, t) = pick(g, &ops);
                gen_expr(g, t, d, pool).unary(o)
            }
            // Select, or a ternary operator producing `ty` where one does.
            2 => {
                let ops: Vec<TernaryOp> = TernaryOp::ALL
                    .into_iter()
                    .filter(|o| o.result_type(ty, ty, ty) == Some(ty))
                    .collect();
                if !ops.is_empty() && bool::arbitrary(g) {
                    let o = pick(g, &ops);
                    let a = gen_expr(g, ty, d, pool);
                    a.ternary(o, gen_expr(g, ty, d, pool), gen_expr(g, ty, d, pool))
                } else {
                    let c = gen_expr(g, Bool, d, pool);
                    c.select(gen_expr(g, ty, d, pool), gen_expr(g, ty, d, pool))
                }
            }
            // A binary operator producing `ty`.
            _ => {
                let ops: Vec<(BinaryOp, ScalarType)> = BinaryOp::ALL
                    .iter()
                    .flat_map(|&o| [I64, F64, Bool].into_iter().map(move |t| (o, t)))
                    .filter(|&(o, t)| o.result_type(t, t) == Some(ty))
                    .collect();
                let (o, t) = pick(g, &ops);
                gen_expr(g, t, d, pool).binary(o, gen_expr(g, t, d, pool))
            }
        }
    };
    pool.push((ty, e.clone()));
    e
}

fn pick_expr(g: &mut Gen, xs: &[ColumnExpr]) -> ColumnExpr {
    let i = usize::arbitrary(g) % xs.len();
    xs[i].clone()
}

#[derive(Clone, Debug)]
struct Case {
    expr: ColumnExpr,
    cols: Vec<Col>,
    len: usize,
}

impl Arbitrary for Case {
    fn arbitrary(g: &mut Gen) -> Case {
        let len = match u8::arbitrary(g) % 10 {
            0 => 0,
            1 => usize::arbitrary(g) % 8,
            2 => pick(g, &[BLOCK - 1, BLOCK, BLOCK + 1, 2 * BLOCK + 3]),
            _ => 1 + usize::arbitrary(g) % 3000,
        };
        let ty = pick(g, &ScalarType::ALL);
        let depth = 2 + u32::from(u8::arbitrary(g) % 5);
        let expr = gen_expr(g, ty, depth, &mut Vec::new());
        let cols = vec![
            Col::I((0..len).map(|_| gen_i64(g)).collect()),
            Col::I((0..len).map(|_| gen_i64(g)).collect()),
            Col::F((0..len).map(|_| gen_f64(g)).collect()),
            Col::F((0..len).map(|_| gen_f64(g)).collect()),
            Col::B((0..len).map(|_| bool::arbitrary(g)).collect()),
            Col::Bits((0..len).map(|_| bool::arbitrary(g)).collect()),
        ];
        Case { expr, cols, len }
    }
}

#[test]
fn random_programs_match_the_reference() {
    fn prop(c: Case) -> TestResult {
        match check(&c.expr, &c.cols, c.len) {
            Ok(()) => TestResult::passed(),
            Err(msg) => TestResult::error(msg),
        }
    }
    QuickCheck::new()
        .tests(400)
        .quickcheck(prop as fn(Case) -> TestResult);
}

// ---- every opcode on edge values ------------------------------------------------------------

fn edge_i64() -> Vec<i64> {
    let base = [
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
        65,
        127,
        -64,
        -65,
        i64::MIN,
        i64::MAX,
        i64::MIN + 1,
    ];
    let mut v = Vec::new();
    for &a in &base {
        v.push(a);
    }
    v
}

fn edge_f64() -> Vec<f64> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.5,
        -7.0,
        2.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e300,
        -1e-300,
        f64::MIN_POSITIVE,
        9.3e18,
        -9.3e18,
    ]
}

/// All pairs of edge values as two columns.
fn pairs<T: Copy>(xs: &[T]) -> (Vec<T>, Vec<T>) {
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in xs {
        for &y in xs {
            a.push(x);
            b.push(y);
        }
    }
    (a, b)
}

#[test]
fn every_binary_opcode_on_edge_values() {
    let (ia, ib) = pairs(&edge_i64());
    let (fa, fb) = pairs(&edge_f64());
    let (ba, bb) = pairs(&[false, true]);
    // Divisors without zero, so the division opcodes are checked on every other edge value.
    let ib_nz: Vec<i64> = ib.iter().map(|&y| if y == 0 { 5 } else { y }).collect();
    for op in BinaryOp::ALL {
        for (cols, t) in [
            (
                vec![Col::I(ia.clone()), Col::I(ib.clone())],
                ScalarType::I64,
            ),
            (
                vec![Col::I(ia.clone()), Col::I(ib_nz.clone())],
                ScalarType::I64,
            ),
            (
                vec![Col::F(fa.clone()), Col::F(fb.clone())],
                ScalarType::F64,
            ),
            (
                vec![Col::B(ba.clone()), Col::Bits(bb.iter().copied().collect())],
                ScalarType::Bool,
            ),
        ] {
            if op.result_type(t, t).is_none() {
                continue;
            }
            let len = cols[0].as_ref().len();
            let e = ColumnExpr::input(0).binary(op, ColumnExpr::input(1));
            check(&e, &cols, len).unwrap();
            // The same with a constant operand on each side.
            let c = cols[1].get(len / 2);
            check(
                &ColumnExpr::input(0).binary(op, ColumnExpr::constant(c)),
                &cols,
                len,
            )
            .unwrap();
            check(
                &ColumnExpr::constant(c).binary(op, ColumnExpr::input(0)),
                &cols,
                len,
            )
            .unwrap();
        }
    }
}

#[test]
fn every_unary_opcode_on_edge_values() {
    for op in UnaryOp::ALL {
        for col in [
            Col::I(edge_i64()),
            Col::F(edge_f64()),
            Col::B(vec![false, true]),
        ] {
            let t = col.as_ref().ty();
            if op.result_type(t).is_none() {
                continue;
            }
            let len = col.as_ref().len();
            check(&ColumnExpr::input(0).unary(op), &[col], len).unwrap();
        }
    }
}

#[test]
fn select_and_iota() {
    let xs: Vec<i64> = (0..3000).collect();
    let cols = [
        Col::I(xs),
        Col::Bits((0..3000).map(|i| i % 3 == 0).collect()),
    ];
    let e = ColumnExpr::input(1).select(ColumnExpr::iota(i64::MAX - 5, 3), -ColumnExpr::input(0));
    check(&e, &cols, 3000).unwrap();
    let e = ColumnExpr::input(1).select(
        ColumnExpr::input(1).logical_not(),
        ColumnExpr::input(0).lt(ColumnExpr::constant(7i64)),
    );
    check(&e, &cols, 3000).unwrap();
}

#[test]
fn semantics_spot_checks() {
    let i = |v: &[i64]| Col::I(v.to_vec());
    let run = |e: ColumnExpr, cols: &[Col]| {
        let refs: Vec<_> = cols.iter().map(Col::as_ref).collect();
        e.eval(&refs, refs[0].len()).unwrap()
    };
    let two = [i(&[i64::MAX, i64::MIN, 1, -8]), i(&[1, -1, 64, 65])];
    assert_eq!(
        run(ColumnExpr::input(0) + ColumnExpr::input(1), &two)
            .as_i64()
            .unwrap(),
        &[i64::MIN, i64::MAX, 65, 57]
    );
    assert_eq!(
        run(ColumnExpr::input(0) << ColumnExpr::input(1), &two)
            .as_i64()
            .unwrap()[2..],
        [1, -16]
    );
    assert_eq!(
        run(ColumnExpr::input(0) >> ColumnExpr::input(1), &two)
            .as_i64()
            .unwrap()[2..],
        [1, -4]
    );
    assert_eq!(
        run(ColumnExpr::input(0) / ColumnExpr::input(1), &two)
            .as_i64()
            .unwrap()[1],
        i64::MIN
    );
    assert_eq!(
        run(ColumnExpr::input(0) % ColumnExpr::input(1), &two)
            .as_i64()
            .unwrap()[1],
        0
    );
    let f = [
        Col::F(vec![f64::NAN, -0.0, 1.0]),
        Col::F(vec![1.0, 0.0, f64::NAN]),
    ];
    let m = run(ColumnExpr::input(0).min(ColumnExpr::input(1)), &f);
    let m = m.as_f64().unwrap();
    assert!(m[0].is_nan() && m[2].is_nan());
    assert_eq!(m[1].to_bits(), (-0.0f64).to_bits());
    let eq = run(ColumnExpr::input(0).eq(ColumnExpr::input(1)), &f);
    assert_eq!(
        eq.as_bool().unwrap().iter().by_vals().collect::<Vec<_>>(),
        [false, true, false]
    );
}

// ---- errors -------------------------------------------------------------------------------------

#[test]
fn lowest_failing_lane_is_reported_whatever_the_schedule() {
    let n = 100_000;
    // x1 is zero at 1024 and 99_999; x2 is zero at 700: `rem` fails first (lane 700) although the
    // `div` instruction runs before it.
    let x0: Vec<i64> = (0..n as i64).collect();
    let mut x1 = vec![3i64; n];
    x1[1024] = 0;
    x1[99_999] = 0;
    let mut x2 = vec![5i64; n];
    let e = (ColumnExpr::input(0) / ColumnExpr::input(1))
        + (ColumnExpr::input(0) % ColumnExpr::input(2));
    let cases = [
        (
            None,
            Error::DivisionByZero {
                op: "div",
                lane: 1024,
            },
        ),
        (
            Some(700),
            Error::DivisionByZero {
                op: "rem",
                lane: 700,
            },
        ),
        (
            Some(1024),
            Error::DivisionByZero {
                op: "div",
                lane: 1024,
            },
        ),
        (
            Some(50_000),
            Error::DivisionByZero {
                op: "div",
                lane: 1024,
            },
        ),
    ];
    for (zero, want) in cases {
        x2.fill(5);
        if let Some(z) = zero {
            x2[z] = 0;
        }
        let cols = [Col::I(x0.clone()), Col::I(x1.clone()), Col::I(x2.clone())];
        check(&e, &cols, n).unwrap();
        let refs: Vec<_> = cols.iter().map(Col::as_ref).collect();
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let got = pool.install(|| e.eval(&refs, n));
            assert_eq!(got, Err(want.clone()));
        }
    }
    // Only the late zero in x1.
    x1[1024] = 3;
    x2.fill(5);
    let cols = [Col::I(x0), Col::I(x1), Col::I(x2)];
    let refs: Vec<_> = cols.iter().map(Col::as_ref).collect();
    assert_eq!(
        e.eval(&refs, n),
        Err(Error::DivisionByZero {
            op: "div",
            lane: 99_999
        })
    );
}

#[test]
fn ill_typed_programs_name_the_node() {
    let cases: Vec<(ColumnExpr, &str)> = vec![
        (
            ColumnExpr::input(0) + ColumnExpr::input(1),
            "expr: node `add(x0, x1)`: add does not accept operands of type (i64, f64)",
        ),
        (
            (ColumnExpr::input(1) * ColumnExpr::input(1)).sqrt().abs()
                << ColumnExpr::constant(1i64),
            "expr: node `shl(abs(sqrt(mul(x1, x1))), 1)`: shl does not accept operands of type (f64, i64)",
        ),
        (
            ColumnExpr::input(0).sqrt(),
            "expr: node `sqrt(x0)`: sqrt does not accept operands of type (i64)",
        ),
        (
            ColumnExpr::input(0).select(ColumnExpr::input(1), ColumnExpr::input(1)),
            "expr: node `select(x0, x1, x1)`: select does not accept operands of type (i64, f64, f64)",
        ),
        (
            ColumnExpr::input(2).and(ColumnExpr::input(0).lt(ColumnExpr::input(0))),
            "expr: node `and(x2, lt(x0, x0))`: and does not accept operands of type (f64, bool)",
        ),
        (
            ColumnExpr::input(7),
            "expr: node `x7`: input 7 out of range (3 input types given)",
        ),
    ];
    let sig = [ScalarType::I64, ScalarType::F64, ScalarType::F64];
    for (e, msg) in cases {
        let err = CompiledExpr::compile(&e, &sig).unwrap_err();
        assert!(matches!(err, Error::Invalid { op: "expr", .. }));
        assert_eq!(err.to_string(), msg);
    }
}

#[test]
fn bad_inputs_are_typed_errors() {
    let p = CompiledExpr::compile(
        &(ColumnExpr::input(0) + ColumnExpr::input(1)),
        &[ScalarType::F64; 2],
    )
    .unwrap();
    let a = [1.0, 2.0];
    let b = [1.0];
    assert_eq!(
        p.eval(&[ColumnRef::F64(&a), ColumnRef::F64(&b)], 2),
        Err(Error::LengthMismatch {
            op: "expr",
            expected: 2,
            found: 1
        })
    );
    assert!(matches!(
        p.eval(&[ColumnRef::F64(&a)], 2),
        Err(Error::Invalid { .. })
    ));
    let err = p
        .eval(&[ColumnRef::F64(&a), ColumnRef::I64(&[1, 2])], 2)
        .unwrap_err();
    assert_eq!(err.to_string(), "expr: input 1: expected f64, found i64");
    let mut out = [0i64; 2];
    assert!(matches!(
        p.eval_into(
            &[ColumnRef::F64(&a), ColumnRef::F64(&a)],
            ColumnMut::I64(&mut out)
        ),
        Err(Error::Invalid { .. })
    ));
}

// ---- shapes: empty, block boundaries, outputs ---------------------------------------------------

#[test]
fn empty_and_block_boundaries() {
    let e = (ColumnExpr::input(0).cast(ScalarType::F64) * ColumnExpr::input(1)
        - ColumnExpr::index().cast(ScalarType::F64))
    .gt(ColumnExpr::input(1).select_f(ColumnExpr::input(2)));
    for len in [0, 1, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK, 100_000] {
        let cols = [
            Col::I((0..len as i64).map(|i| i * 7 - 3).collect()),
            Col::F((0..len).map(|i| (i as f64).sin()).collect()),
            Col::Bits((0..len).map(|i| i % 5 < 2).collect()),
        ];
        check(&e, &cols, len).unwrap();
        // Bool output written into a caller's buffer.
        let refs: Vec<_> = cols.iter().map(Col::as_ref).collect();
        let p = CompiledExpr::compile(&e, &[ScalarType::I64, ScalarType::F64, ScalarType::Bool])
            .unwrap();
        let mut out = vec![false; len];
        p.eval_into(&refs, ColumnMut::Bool(&mut out)).unwrap();
        let want = scalars(&p.eval(&refs, len).unwrap());
        assert!(same(
            &out.iter().map(|&b| Scalar::Bool(b)).collect::<Vec<_>>(),
            &want
        ));
    }
}

impl ColumnExpr {
    /// `cond ? self as f64-ish : 0.5` helper for the boundary test: selects `self` (a `f64`)
    /// where `cond` (a `bool`) holds, else 0.5.
    fn select_f(self, cond: ColumnExpr) -> ColumnExpr {
        cond.select(self, ColumnExpr::constant(0.5))
    }
}

#[test]
fn trivial_roots_copy_inputs_and_constants() {
    let xs = [1i64, 2, 3];
    let ys = [true, false, true];
    assert_eq!(
        ColumnExpr::input(0)
            .eval(&[ColumnRef::I64(&xs)], 3)
            .unwrap()
            .as_i64()
            .unwrap(),
        &xs
    );
    let out = ColumnExpr::input(0)
        .eval(&[ColumnRef::Bool(&ys)], 3)
        .unwrap();
    assert_eq!(
        out.as_bool().unwrap().iter().by_vals().collect::<Vec<_>>(),
        ys
    );
    let out = ColumnExpr::constant(2.5).eval(&[], 2).unwrap();
    assert_eq!(out.as_f64().unwrap(), &[2.5, 2.5]);
    // Identity casts compile to nothing.
    let p = CompiledExpr::compile(
        &ColumnExpr::input(0).cast(ScalarType::I64),
        &[ScalarType::I64],
    )
    .unwrap();
    assert!(p.instructions().is_empty());
    let out = ColumnExpr::index()
        .cast(ScalarType::I64)
        .eval(&[], 2000)
        .unwrap();
    assert_eq!(out.as_i64().unwrap()[1999], 1999);
}

#[test]
fn registers_are_reused_and_shared_nodes_computed_once() {
    // A balanced tree of 64 leaves: log-depth register pressure.
    let mut level: Vec<ColumnExpr> = (0..64).map(|k| ColumnExpr::input(k % 4)).collect();
    while level.len() > 1 {
        level = level
            .chunks(2)
            .map(|p| p[0].clone() * p[1].clone())
            .collect();
    }
    let p = CompiledExpr::compile(&level[0], &[ScalarType::F64; 4]).unwrap();
    // 63 multiplications; a product whose only consumer is the next instruction folds into it.
    assert_eq!(p.instructions().len(), 42);
    assert!(p.registers() <= 7, "{} registers", p.registers());
    // A shared subtree is evaluated once.
    let s = (ColumnExpr::input(0) + ColumnExpr::input(1)).sqrt();
    let e = s.clone() * s.clone() + s;
    let p = CompiledExpr::compile(&e, &[ScalarType::F64; 2]).unwrap();
    assert_eq!(
        p.to_string(),
        "r0 = add.f64 x0, x1\nr1 = sqrt.f64 r0\nout = add.f64 (mul r1, r1), r1\n"
    );
    // Duplicate constants share one register.
    let e = ColumnExpr::input(0) * ColumnExpr::constant(2.0) + ColumnExpr::constant(2.0);
    assert_eq!(
        CompiledExpr::compile(&e, &[ScalarType::F64])
            .unwrap()
            .registers(),
        2
    );
}

#[test]
fn deep_expressions_compile_run_and_drop_without_recursion() {
    let mut e = ColumnExpr::input(0);
    for i in 0..50_000i64 {
        e = e + ColumnExpr::constant(i % 3);
    }
    let p = CompiledExpr::compile(&e, &[ScalarType::I64]).unwrap();
    // Each addition folds into the next: one instruction per pair.
    assert_eq!(p.instructions().len(), 25_000);
    // Two working registers and the three constants.
    assert_eq!(p.registers(), 2 + 3);
    let out = p.eval(&[ColumnRef::I64(&[1, 2])], 2).unwrap();
    assert_eq!(out.as_i64().unwrap(), &[49_999 + 1, 49_999 + 2]);
    assert!(e.to_string().contains("..."));
    drop(e);
}

#[test]
fn arithmetic_pairs_fold_into_one_pass() {
    let x = ColumnExpr::input;
    let e = (x(0) * x(1) + x(2)) * x(3) - x(4);
    let p = CompiledExpr::compile(&e, &[ScalarType::F64; 5]).unwrap();
    assert_eq!(
        p.to_string(),
        "r0 = add.f64 (mul x0, x1), x2\nout = sub.f64 (mul r0, x3), x4\n"
    );
    // The folded result as the right operand; a value used twice is not folded.
    let e = x(2) - x(0) * x(1);
    let p = CompiledExpr::compile(&e, &[ScalarType::I64; 3]).unwrap();
    assert_eq!(p.to_string(), "out = sub.i64 x2, (mul x0, x1)\n");
    let s = x(0) * x(1);
    let p = CompiledExpr::compile(&(s.clone() + s), &[ScalarType::F64; 2]).unwrap();
    assert_eq!(p.instructions().len(), 2);
    // Registers of the folded instruction's operands are not reused for its result.
    let (a, b) = (x(0) * x(1) - x(2), x(1) * x(2) + x(0));
    let e = (a.clone() * b.clone()) * (b - a);
    let p = CompiledExpr::compile(&e, &[ScalarType::F64; 3]).unwrap();
    for i in p.instructions() {
        if let Instr::Binary2 {
            dst: Dst::Reg(d),
            a,
            b,
            c,
            ..
        } = *i
        {
            assert!(![a, b, c].contains(&Src::Reg(d)), "{p}");
        }
    }
    let cols = [
        Col::F(vec![1.5, -2.0, f64::NAN, 1e308]),
        Col::F(vec![0.1, 3.0, 1.0, 1e308]),
        Col::F(vec![-0.0, 7.0, 2.0, -1e308]),
    ];
    check(&e, &cols, 4).unwrap();
}

#[test]
fn deterministic_across_pools() {
    let n = 200_003;
    let cols = [
        Col::F((0..n).map(|i| (i as f64) * 0.37 - 1000.0).collect()),
        Col::F((0..n).map(|i| ((i * 7919) % 1013) as f64 / 7.0).collect()),
    ];
    let e = (ColumnExpr::input(0) / ColumnExpr::input(1))
        .floor_div(ColumnExpr::constant(3.0))
        .max(ColumnExpr::input(0).sqrt());
    let refs: Vec<_> = cols.iter().map(Col::as_ref).collect();
    let want = scalars(&e.eval(&refs, n).unwrap());
    let p = CompiledExpr::compile(&e, &[ScalarType::F64; 2]).unwrap();
    let planned =
        pool3().install(|| cost::with_machine(eager_machine(), || sched::plan(n, p.elem_cost())));
    assert!(planned.num_tasks() > 1, "{}", planned.explain());
    for threads in [1, 2, 3, 8] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let got = pool.install(|| e.eval(&refs, n).unwrap());
        assert!(same(&scalars(&got), &want));
    }
    check(&e, &cols, n).unwrap();
}

#[test]
fn concurrent_evaluations_from_pool_tasks_agree() {
    use rayon::prelude::*;
    let n = 50_000;
    let xs: Vec<i64> = (0..n as i64).map(|i| (i + 1) % 97 - 48).collect();
    let e = (ColumnExpr::input(0) * ColumnExpr::constant(3i64))
        .modulo(ColumnExpr::input(0) + ColumnExpr::constant(48i64));
    let p = CompiledExpr::compile(&e, &[ScalarType::I64]).unwrap();
    // Lane 96 holds -48: `x + 48` is zero there, and every 97 lanes after.
    let want = Err(Error::DivisionByZero {
        op: "mod",
        lane: 96,
    });
    let results: Vec<_> = (0..16)
        .into_par_iter()
        .map(|_| p.eval(&[ColumnRef::I64(&xs)], n))
        .collect();
    assert!(results.iter().all(|r| *r == want));
    let ok = &xs[..96];
    let good: Vec<_> = (0..16)
        .into_par_iter()
        .map(|_| p.eval(&[ColumnRef::I64(ok)], ok.len()).unwrap())
        .collect();
    assert!(good.windows(2).all(|w| w[0] == w[1]));
}

#[cfg(feature = "stats")]
#[test]
fn five_operand_expression_allocates_only_its_output() {
    use crate::stats;
    for n in [0, 1000, 100_000] {
        let cols: Vec<Vec<f64>> = (0..5)
            .map(|k| (0..n).map(|i| (i + k) as f64).collect())
            .collect();
        let refs: Vec<_> = cols.iter().map(|c| ColumnRef::F64(c)).collect();
        let x = |k| ColumnExpr::input(k);
        let e = (x(0) * x(1) + x(2)) / (x(3) - x(4).sqrt());
        let p = CompiledExpr::compile(&e, &[ScalarType::F64; 5]).unwrap();
        let (out, work) = stats::measure(|| p.eval(&refs, n).unwrap());
        assert_eq!(out.len(), n);
        assert_eq!(
            work.bytes_allocated,
            (n * std::mem::size_of::<f64>()) as u64
        );
        assert_eq!(work.elements_read, 5 * n as u64);
        assert_eq!(work.elements_written, n as u64);
        assert_eq!(work.elements_copied, 0);
        // A bool result is bit-packed: one word per 64 lanes.
        let b = CompiledExpr::compile(&x(0).lt(x(1)), &[ScalarType::F64; 5]).unwrap();
        let (_, work) = stats::measure(|| b.eval(&refs, n).unwrap());
        assert_eq!(work.bytes_allocated, (n.div_ceil(64) * 8) as u64);
        assert_eq!(work.elements_read, 2 * n as u64);
        // Into a caller's buffer: nothing allocated.
        let mut out = vec![0.0; n];
        let ((), work) = stats::measure(|| p.eval_into(&refs, ColumnMut::F64(&mut out)).unwrap());
        assert_eq!(work.bytes_allocated, 0);
        assert_eq!(work.elements_read, 5 * n as u64);
    }
}
