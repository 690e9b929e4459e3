//! The dsl as a user meets it: functions of any arity with named parameters, prepared once and
//! run many times, operators on references, handles tied to their program.

use flatland_runtime::stats;
use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder, if_};
use flatland_vectoriser::ir::Expr;

#[test]
fn a_prepared_program_is_checked_and_fused_once_for_ten_thousand_runs() {
    let mut p = ProgramBuilder::new();
    let axpy = p.function(
        "axpy",
        ["a", "xs", "ys"],
        |_, (a, xs, ys): (Ex<f64>, Ex<Arr<f64>>, Ex<Arr<f64>>)| {
            xs.zip_map(&ys, |x, y| &a * &x + &y).sum()
        },
    );
    let (prepared, setup) = stats::measure(|| p.prepare(&axpy).unwrap());
    let (sum, runs) = stats::measure(|| {
        (0..10_000)
            .map(|k| {
                prepared
                    .call((2.0, vec![1.0, k as f64], vec![0.5, 1.0]))
                    .unwrap()
            })
            .sum::<f64>()
    });
    let want: f64 = (0..10_000).map(|k| 2.0 + 0.5 + 2.0 * k as f64 + 1.0).sum();
    assert_eq!(sum, want);
    if stats::ENABLED {
        assert_eq!(setup.programs_prepared, 1);
        assert_eq!(runs.programs_prepared, 0, "a run re-prepared the program");
        // The one-off form prepares on every call: the counter sees the difference.
        let ((), once) = stats::measure(|| {
            for _ in 0..3 {
                p.exec(&axpy, (1.0, vec![1.0], vec![1.0])).unwrap();
            }
        });
        assert_eq!(once.programs_prepared, 3);
    }
}

/// The handles of `pick`'s four parameters.
type Pick = (Ex<Arr<Arr<i64>>>, Ex<i64>, Ex<i64>, Ex<i64>);

#[test]
fn functions_of_any_arity_keep_their_parameter_names_in_the_ir_and_in_errors() {
    let mut p = ProgramBuilder::new();
    let pick = p.function(
        "pick",
        ["table", "row", "col", "default"],
        |_, (table, row, col, default): Pick| {
            if_(row.lt(table.len()), table.at(&row).at(&col), default)
        },
    );
    let table = vec![vec![1, 2], vec![3]];
    assert_eq!(p.exec(&pick, (table.clone(), 1, 0, -1)).unwrap(), 3);
    assert_eq!(p.eval(&pick, (table.clone(), 5, 0, -1)).unwrap(), -1);
    // The parameters are called what the user called them.
    let ir = p.ir().to_string();
    assert!(
        ir.starts_with("fn pick(table: [[i64]], row: i64, col: i64, default: i64)"),
        "{ir}"
    );
    let prepared = p.prepare(&pick).unwrap();
    assert_eq!(prepared.call((table, 0, 1, 0)).unwrap(), 2);
    // A type error names the node by the parameter's name.
    let mut q = ProgramBuilder::new();
    let bad = q.function("bad", ["weights"], |_, weights: Ex<Arr<f64>>| {
        Ex::<f64>::wrap(Expr::index(weights.expr().clone(), Expr::f64(1.0)))
    });
    let e = q.prepare(&bad).err().unwrap().to_string();
    assert!(
        e.starts_with("type error in `bad` at `weights[1.0]`"),
        "{e}"
    );
}

#[test]
fn operators_on_references_need_no_clones() {
    let mut p = ProgramBuilder::new();
    let poly = p.function("poly", ["x"], |_, x: Ex<i64>| &x * &x - &x * 3 + -&x);
    assert_eq!(p.exec(&poly, 5).unwrap(), 25 - 15 - 5);
    let flip = p.function("flip", ["b"], |_, b: Ex<bool>| !&b);
    assert!(!p.eval(&flip, true).unwrap());
}

#[test]
fn handles_of_another_program_are_errors_naming_them() {
    let mut p = ProgramBuilder::new();
    let mut q = ProgramBuilder::new();
    let inc = q.function("inc", ["x"], |_, x: Ex<i64>| x + 1);
    // Running another program's function.
    let e = p.eval(&inc, 1).unwrap_err().to_string();
    assert_eq!(e, "bad input: `inc` is a function of another program");
    assert!(p.prepare(&inc).is_err());
    // Calling it from this program's body.
    let twice = p.function("twice", ["y"], |_, y: Ex<i64>| inc.call(inc.call(y)));
    let e = p.exec(&twice, 1).unwrap_err().to_string();
    assert_eq!(
        e,
        "bad input: the body of `twice` calls `inc`, a function of another program"
    );
    // A parameter handle of another program's function is unbound in this one.
    let mut r = ProgramBuilder::new();
    let mut leaked = None;
    q.function("keep", ["kept"], |_, kept: Ex<i64>| {
        leaked = Some(kept.clone());
        kept
    });
    let leaked = leaked.unwrap();
    let g = r.function("g", ["z"], move |_, z: Ex<i64>| z + leaked);
    let e = r.exec(&g, 1).unwrap_err().to_string();
    assert!(e.contains("unbound variable `kept`"), "{e}");
}

#[test]
fn definition_defects_are_reported_by_every_run() {
    let mut p = ProgramBuilder::new();
    let f = p.function("f", ["a", "a"], |_, (a, _b): (Ex<i64>, Ex<i64>)| a);
    let e = p.eval(&f, (1, 2)).unwrap_err().to_string();
    assert_eq!(e, "bad input: `f` has two parameters named `a`");
    let mut p = ProgramBuilder::new();
    p.function("g", ["x"], |_, x: Ex<i64>| x);
    let g = p.function("g", ["x"], |_, x: Ex<i64>| x + 1);
    let e = p.exec(&g, 1).unwrap_err().to_string();
    assert_eq!(e, "bad input: the program defines `g` twice");
}
