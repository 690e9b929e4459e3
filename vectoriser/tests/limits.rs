//! The recursion depth limit (`flatland_vectoriser::limits`): the interpreter and the executor run 10^5 levels under
//! the default limit, and refuse one level more with the same `Error::RecursionLimit`. (The
//! code `#[vectorise]` generates is tested in `cli/tests/recursion_limit.rs`.)
//!
//! Each test sets its limit with `limits::with_max_recursion_depth` (this thread only), so the
//! tests may run in parallel.

use flatland_vectoriser::exec::{self, ExecOptions};
use flatland_vectoriser::ir::{BinaryOp, Expr, Function, Lambda, Program, Type};
use flatland_vectoriser::programs::{self, Pivot};
use flatland_vectoriser::value::Value;
use flatland_vectoriser::{Error, eval, limits};
use std::sync::Arc;
use std::time::Instant;

fn limit_error(function: &str, limit: usize) -> Error {
    Error::RecursionLimit {
        function: function.into(),
        depth: limit + 1,
        limit,
    }
}

#[test]
fn the_default_limit_is_ten_to_the_five() {
    assert_eq!(limits::DEFAULT_MAX_RECURSION_DEPTH, 100_000);
    assert_eq!(limits::max_recursion_depth(), 100_000);
}

/// `count_down(n)` is `n + 1` calls deep: 10^5 levels run under the default limit in the
/// interpreter and the executor (fused or not), one more level is the typed error.
#[test]
fn ten_to_the_five_levels_run_under_the_default_limit_and_one_more_does_not() {
    let (p, f) = programs::count_down();
    let deepest = 99_999; // depth 100_000
    let t = Instant::now();
    assert_eq!(p.eval(&f, deepest).unwrap(), deepest);
    eprintln!("eval: depth 10^5 in {:.2?}", t.elapsed());
    for fuse in [true, false] {
        let t = Instant::now();
        let out = exec::run_with(
            p.ir(),
            "count_down",
            vec![Value::I64(deepest)],
            &ExecOptions { fuse },
        );
        assert_eq!(out.unwrap(), Value::I64(deepest));
        eprintln!("exec (fuse {fuse}): depth 10^5 in {:.2?}", t.elapsed());
    }
    let e = limit_error("count_down", 100_000);
    assert_eq!(p.eval(&f, deepest + 1).unwrap_err(), e);
    assert_eq!(p.exec(&f, deepest + 1).unwrap_err(), e);
}

/// With a lower limit, the same error (variant and fields) from the interpreter and the
/// executor; the limit is exact (`limit` levels run).
#[test]
fn a_lower_limit_gives_the_same_error_from_eval_and_the_executor() {
    let (p, f) = programs::count_down();
    limits::with_max_recursion_depth(1_000, || {
        assert_eq!(p.eval(&f, 999).unwrap(), 999);
        assert_eq!(p.exec(&f, 999).unwrap(), 999);
        let e = limit_error("count_down", 1_000);
        assert_eq!(p.eval(&f, 1_000).unwrap_err(), e);
        assert_eq!(p.exec(&f, 1_000).unwrap_err(), e);
        for fuse in [true, false] {
            let out = exec::run_with(
                p.ir(),
                "count_down",
                vec![Value::I64(5_000)],
                &ExecOptions { fuse },
            );
            assert_eq!(out.unwrap_err(), e);
        }
        assert_eq!(
            e.to_string(),
            "recursion limit: a call of `count_down` at depth 1001 goes past the limit of 1000 \
             levels (flatland_vectoriser::limits::set_max_recursion_depth)"
        );
    });
    // The scoped limit is gone afterwards.
    assert_eq!(p.exec(&f, 5_000).unwrap(), 5_000);
}

/// Quicksort with a first-element pivot on sorted input recurses as deep as the input is long
/// (its lifted calls carry two lanes a level: the empty lower part and the rest).
#[test]
fn first_pivot_quicksort_on_sorted_input_hits_the_limit_alike() {
    let (p, f) = programs::quicksort(Pivot::First);
    let sorted: Vec<i64> = (0..400).collect();
    limits::with_max_recursion_depth(400, || {
        assert_eq!(p.eval(&f, sorted.clone()).unwrap(), sorted);
        assert_eq!(p.exec(&f, sorted.clone()).unwrap(), sorted);
    });
    limits::with_max_recursion_depth(399, || {
        let e = limit_error("quicksort", 399);
        assert_eq!(p.eval(&f, sorted.clone()).unwrap_err(), e);
        assert_eq!(p.exec(&f, sorted.clone()).unwrap_err(), e);
    });
    // Middle pivots recurse about log2(n) deep.
    let (p, f) = programs::quicksort(Pivot::Middle);
    limits::with_max_recursion_depth(12, || {
        assert_eq!(p.exec(&f, sorted.clone()).unwrap(), sorted);
    });
}

/// A limit of 0 refuses the entry call itself; a call with no lanes (a recursion that has ended
/// on every lane) is not counted.
#[test]
fn the_entry_call_counts_and_a_call_with_no_lanes_does_not() {
    let (p, f) = programs::count_down();
    let e = limit_error("count_down", 0);
    limits::with_max_recursion_depth(0, || {
        assert_eq!(p.eval(&f, 0).unwrap_err(), e);
        assert_eq!(p.exec(&f, 0).unwrap_err(), e);
        assert_eq!(
            eval::run(p.ir(), "count_down", vec![Value::I64(0)]).unwrap_err(),
            e
        );
    });
    limits::with_max_recursion_depth(1, || {
        assert_eq!(p.exec(&f, 0).unwrap(), 0);
    });
    // Quicksort of one element: the entry call only.
    let (p, f) = programs::quicksort(Pivot::First);
    limits::with_max_recursion_depth(1, || {
        assert_eq!(p.exec(&f, vec![7]).unwrap(), vec![7]);
        assert_eq!(p.eval(&f, vec![7]).unwrap(), vec![7]);
    });
}

fn if_(c: Expr, a: Expr, b: Expr) -> Expr {
    Expr::If(Arc::new(c), Arc::new(a), Arc::new(b))
}

fn gt(a: Expr, b: i64) -> Expr {
    Expr::binary(BinaryOp::Gt, a, Expr::i64(b))
}

/// `even(n)`/`odd(n)` call each other, one function a depth: the same error from both.
#[test]
fn mutual_recursion_alternating_by_depth_gives_the_same_error() {
    let n = || Expr::var("n");
    let step = |other: &str| {
        if_(
            gt(n(), 0),
            Expr::call(other, vec![n() - Expr::i64(1)]),
            Expr::bool(other == "odd"),
        )
    };
    let p = Program::new(vec![
        Function::new(
            "even",
            vec![("n".into(), Type::I64)],
            Type::Bool,
            step("odd"),
        ),
        Function::new(
            "odd",
            vec![("n".into(), Type::I64)],
            Type::Bool,
            step("even"),
        ),
    ]);
    let run = |n: i64| {
        let e = eval::run(&p, "even", vec![Value::I64(n)]);
        let x = exec::run(&p, "even", vec![Value::I64(n)]);
        assert_eq!(e, x, "n = {n}");
        e
    };
    limits::with_max_recursion_depth(100, || {
        assert_eq!(run(99), Ok(Value::Bool(false)));
        // `even` is called at the odd depths.
        assert_eq!(run(100), Err(limit_error("even", 100)));
        assert_eq!(run(1_000), Err(limit_error("even", 100)));
    });
    limits::with_max_recursion_depth(101, || {
        assert_eq!(run(1_000), Err(limit_error("odd", 101)));
    });
}

/// Lane 0 recurses past the limit, lane 1 divides by zero at once: the interpreter meets the
/// limit first (lane order), the executor the division (its `if` runs the failing branch
/// first); the executor reports the interpreter's error.
#[test]
fn the_limit_met_first_by_the_interpreter_is_the_executors_error() {
    let n = || Expr::var("n");
    let g = if_(
        gt(n(), 100),
        Expr::i64(10) / (n() - n()),
        if_(
            gt(n(), 0),
            Expr::call("g", vec![n() - Expr::i64(1)]) + Expr::i64(1),
            Expr::i64(0),
        ),
    );
    let f = Expr::map(
        Lambda::new(&["n"], Expr::call("g", vec![n()])),
        vec![Expr::var("ns")],
    );
    let ints = Type::array(Type::I64);
    let p = Program::new(vec![
        Function::new("g", vec![("n".into(), Type::I64)], Type::I64, g),
        Function::new("f", vec![("ns".into(), ints.clone())], ints, f),
    ]);
    let ns = |xs: &[i64]| Value::array(xs.iter().map(|&x| Value::I64(x)).collect());
    limits::with_max_recursion_depth(10, || {
        let e = limit_error("g", 10);
        assert_eq!(eval::run(&p, "f", vec![ns(&[50, 200])]), Err(e.clone()));
        assert_eq!(exec::run(&p, "f", vec![ns(&[50, 200])]), Err(e));
        // The other lane order: the division first, in both.
        let div = eval::run(&p, "f", vec![ns(&[200, 50])]).unwrap_err();
        assert_eq!(div.to_string(), "div: lane 0: division by zero");
        assert_eq!(exec::run(&p, "f", vec![ns(&[200, 50])]).unwrap_err(), div);
    });
}
