//! `scatter(dest, idx, replicate(count, x))`: the executor keeps `x` as one value per lane (a
//! marking scatter when every lane writes the same value, the sieve's `vec![false; m]`) and
//! expands it only when lanes differ. Fused, unfused and the interpreter must agree bitwise,
//! results and errors.

use flatland_vectoriser::ir::{Expr, Function, Lambda, Program, Type};
use flatland_vectoriser::value::Value;
use quickcheck::{QuickCheck, TestResult};

mod agree;

use agree::{agree, f64s, i64s};

fn v(n: &str) -> Expr {
    Expr::var(n)
}

/// Per row of `(dest, idx, count, x)`: `scatter(dest, idx, replicate(count, x))`.
fn marks() -> Program {
    let body = Expr::scatter(
        Expr::proj(v("r"), 0),
        Expr::proj(v("r"), 1),
        Expr::replicate(Expr::proj(v("r"), 2), Expr::proj(v("r"), 3)),
    );
    Program::new(vec![Function::new(
        "marks",
        vec![(
            "rows".into(),
            Type::array(Type::Tuple(vec![
                Type::array(Type::F64),
                Type::array(Type::I64),
                Type::I64,
                Type::F64,
            ])),
        )],
        Type::array(Type::array(Type::F64)),
        Expr::map(Lambda::new(&["r"], body), vec![v("rows")]),
    )])
}

fn row(dest: &[f64], idx: &[i64], count: i64, x: f64) -> Value {
    Value::Tuple(vec![
        f64s(dest),
        i64s(idx),
        Value::I64(count),
        Value::F64(x),
    ])
}

fn run(rows: Vec<Value>) -> flatland_vectoriser::Result<Value> {
    agree(&marks(), "marks", vec![Value::array(rows)])
}

#[test]
fn one_value_for_all_lanes_and_values_per_lane() {
    let dest = [1.0, 2.0, 3.0, 4.0];
    // Every lane writes -0.0: one marking scatter.
    let same = run(vec![
        row(&dest, &[0, 2, 2], 3, -0.0),
        row(&dest[..2], &[], 0, -0.0),
        row(&dest[..3], &[1], 1, -0.0),
    ])
    .unwrap();
    let Value::Array(rows) = &same else {
        panic!("an array")
    };
    assert_eq!(rows[0], f64s(&[-0.0, 2.0, -0.0, 4.0]));
    // Lanes write different values (and a NaN): expanded, last writer wins per position.
    run(vec![
        row(&dest, &[3, 3, 0], 3, 7.5),
        row(&dest, &[1, 2], 2, f64::NAN),
        row(&dest[..1], &[], 0, 0.25),
    ])
    .unwrap();
    // Two lanes, counts 0 and 2 (as many lanes as values, but not one value per lane).
    let r = run(vec![row(&dest, &[], 0, 9.0), row(&dest, &[0, 1], 2, 5.0)]).unwrap();
    let Value::Array(rows) = &r else {
        panic!("an array")
    };
    assert_eq!(rows[1], f64s(&[5.0, 5.0, 3.0, 4.0]));
}

#[test]
fn counts_and_indices_are_checked_as_before() {
    let dest = [1.0, 2.0];
    // More indices than values, a negative count, an index out of range.
    for rows in [
        vec![row(&dest, &[0, 1], 1, 0.0)],
        vec![row(&dest, &[0], 1, 0.0), row(&dest, &[], -1, 0.0)],
        vec![row(&dest, &[2], 1, 0.0)],
    ] {
        assert!(run(rows).is_err());
    }
}

#[test]
fn random_rows_agree() {
    fn prop(raw: Vec<(Vec<i8>, Vec<u8>, i8, bool)>) -> TestResult {
        let rows: Vec<Value> = raw
            .iter()
            .map(|(d, idx, x, uneven)| {
                let dest: Vec<f64> = d.iter().map(|&k| f64::from(k)).collect();
                let n = dest.len().max(1) as i64;
                let idx: Vec<i64> = idx.iter().map(|&i| i64::from(i) % n).collect();
                // Mostly valid scatters; an uneven count or an empty destination fails.
                let count = idx.len() as i64 + i64::from(*uneven && *x < -100);
                row(
                    &dest,
                    &idx,
                    count,
                    if *uneven { f64::from(*x) } else { 0.5 },
                )
            })
            .collect();
        let _ = run(rows);
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(100)
        .quickcheck(prop as fn(Vec<(Vec<i8>, Vec<u8>, i8, bool)>) -> TestResult);
}

/// An index out of range late in a long index array (tasks check it in parallel) is found, for
/// one lane (whose indices are already positions in the flat destination, no positions built)
/// and for the third of three lanes, with one value for all writes or values that differ
/// between lanes: the executor fails as the interpreter does and reports its error (the first
/// bad index in order, named after its lane).
#[test]
fn out_of_range_indices_name_the_lane_as_the_interpreter_does() {
    let dest: Vec<f64> = (0..50_000).map(f64::from).collect();
    let mut idx: Vec<i64> = (0..40_000).map(|i| (i * 7919) % 50_000).collect();
    idx[30_000] = 50_000;
    idx[35_000] = -1;
    for x in [0.0, 2.5] {
        let long = || row(&dest, &idx, 40_000, 0.0);
        for (rows, lane) in [
            (vec![long()], 0),
            (
                vec![row(&dest, &[0], 1, x), row(&dest[..10], &[], 0, x), long()],
                2,
            ),
        ] {
            let e = run(rows).unwrap_err().to_string();
            assert!(e.contains("scatter"), "{e}");
            assert!(e.contains("50000"), "{e}");
            assert!(e.contains(&format!("lane {lane}")), "{e}");
        }
    }
}
