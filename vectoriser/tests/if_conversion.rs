//! If-conversion: an `if` under `map` whose branches are scalar code that cannot fail runs as a
//! select when the cost model predicts it no slower than packing lanes, and by packing lanes
//! otherwise. Both ways agree with `eval` bit for bit; the decision and its predictions are in
//! `Prepared::decisions`; the work counters show that a select moves no lanes.

mod agree;

use agree::{agree, f64s};
use flatland_vectoriser::exec::{ExecOptions, Prepared};
use flatland_vectoriser::ir::{BinaryOp, Expr, Function, Lambda, Program, Type, UnaryOp};

fn v(n: &str) -> Expr {
    Expr::var(n)
}

/// `map(|x, y| if x > 0.0 then then_ else else_, xs, ys)`.
fn mapped_if(then_: Expr, else_: Expr) -> Program {
    let body = Expr::if_(
        Expr::binary(BinaryOp::Gt, v("x"), Expr::f64(0.0)),
        then_,
        else_,
    );
    Program::new(vec![Function::new(
        "f",
        vec![
            ("xs".into(), Type::array(Type::F64)),
            ("ys".into(), Type::array(Type::F64)),
        ],
        Type::array(Type::F64),
        Expr::map(Lambda::new(&["x", "y"], body), vec![v("xs"), v("ys")]),
    )])
}

/// Cheap branches, one of them an `f64` division (which cannot fail): a select.
fn cheap() -> Program {
    mapped_if(
        Expr::binary(BinaryOp::Div, v("y"), v("x")),
        Expr::unary(UnaryOp::Neg, v("y")),
    )
}

/// Ten transcendental functions on each side: packing lanes computes each branch on its lanes
/// only, which pays for moving them.
fn dear() -> Program {
    use UnaryOp::{Atan, Cos, Exp, Ln, Sin, Sinh, Tan, Tanh};
    let sum = |ops: [(UnaryOp, &str); 10]| {
        ops.into_iter()
            .map(|(op, x)| Expr::unary(op, v(x)))
            .reduce(|a, b| a + b)
            .expect("ten terms")
    };
    mapped_if(
        sum([
            (Exp, "y"),
            (Sin, "x"),
            (Ln, "x"),
            (Cos, "y"),
            (Tanh, "x"),
            (Atan, "y"),
            (Sinh, "y"),
            (Tan, "x"),
            (Sin, "y"),
            (Cos, "x"),
        ]),
        sum([
            (Cos, "y"),
            (Tanh, "x"),
            (Atan, "y"),
            (Exp, "x"),
            (Sin, "y"),
            (Ln, "y"),
            (Tan, "y"),
            (Sinh, "x"),
            (Atan, "x"),
            (Cos, "x"),
        ]),
    )
}

fn inputs(n: usize) -> (Vec<f64>, Vec<f64>) {
    let xs = (0..n)
        .map(|i| match i % 7 {
            0 => 0.0,
            1 => -0.0,
            2 => f64::NAN,
            3 => -(i as f64),
            _ => i as f64 * 0.25,
        })
        .collect();
    let ys = (0..n).map(|i| (i as f64).sin() * 3.0).collect();
    (xs, ys)
}

fn decisions(p: &Program) -> Vec<String> {
    Prepared::new(p, "f", &ExecOptions::default())
        .unwrap()
        .decisions()
        .to_vec()
}

#[test]
fn cheap_branches_run_as_a_select_and_dear_ones_by_packing_lanes() {
    let said = decisions(&cheap());
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].starts_with("if-conversion:"), "{said:?}");
    assert!(said[0].contains("runs as a select"), "{said:?}");
    let said = decisions(&dear());
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("runs as packed lanes"), "{said:?}");
    assert!(said[0].contains("predicted per lane"), "{said:?}");
}

#[test]
fn both_ways_agree_with_eval_bit_for_bit() {
    for n in [0, 1, 2, 7, 1000] {
        let (xs, ys) = inputs(n);
        for p in [cheap(), dear()] {
            agree(&p, "f", vec![f64s(&xs), f64s(&ys)]).unwrap();
        }
    }
}

/// An `i64` division can fail (by zero), so its `if` is never a select: the lanes that take
/// the other branch must not report the error.
#[test]
fn a_branch_that_can_fail_is_never_selected() {
    let body = Expr::if_(
        Expr::binary(BinaryOp::Eq, v("d"), Expr::i64(0)),
        Expr::i64(0),
        Expr::binary(BinaryOp::Div, Expr::i64(100), v("d")),
    );
    let p = Program::new(vec![Function::new(
        "f",
        vec![("ds".into(), Type::array(Type::I64))],
        Type::array(Type::I64),
        Expr::map(Lambda::new(&["d"], body), vec![v("ds")]),
    )]);
    assert!(decisions(&p).is_empty(), "{:?}", decisions(&p));
    let r = agree(&p, "f", vec![agree::i64s(&[0, 5, 0, -3])]).unwrap();
    assert_eq!(r, agree::i64s(&[0, 20, 0, -33]));
}

#[cfg(feature = "stats")]
#[test]
fn a_select_moves_no_lanes_and_packing_does() {
    use flatland_runtime::stats;
    let (xs, ys) = inputs(10_000);
    let copied = |p: &Program| {
        let run = Prepared::new(p, "f", &ExecOptions::default()).unwrap();
        let args = vec![f64s(&xs), f64s(&ys)];
        let (r, work) = stats::measure(|| run.run(args));
        r.unwrap();
        work.elements_copied
    };
    let (select, packed) = (copied(&cheap()), copied(&dear()));
    assert_eq!(select, 0, "a select copies no lane");
    // Packing gathers each branch's inputs for its lanes and combines the results.
    assert!(packed >= 10_000, "packed lanes copied {packed} elements");
}
