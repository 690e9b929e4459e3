//! The fusion rules (`flatland_vectoriser::fuse`) beyond map-map and map-reduce: map into scan
//! (scanomap), map into the keys of filter/partition, filter/partition into a consuming reduce
//! (partition-reduce) and the "mega" step (a partition fused with the consumers of its classes),
//! decided by the cost model. Every program runs three ways (eval, exec unfused, exec fused)
//! and must agree bitwise, errors included.

use flatland_runtime::cost::{Machine, with_machine};
#[cfg(feature = "stats")]
use flatland_vectoriser::exec;
use flatland_vectoriser::fuse;
use flatland_vectoriser::ir::{BinaryOp, Expr, Function, Lambda, Program, ReduceOp, Type, UnaryOp};
use flatland_vectoriser::value::Value;
use quickcheck::{QuickCheck, TestResult};

mod agree;

#[cfg(feature = "stats")]
use agree::OFF;
use agree::{agree, f64s, i64s};

fn one(name: &str, params: Vec<(&str, Type)>, ret: Type, body: Expr) -> Program {
    Program::new(vec![Function::new(
        name,
        params
            .into_iter()
            .map(|(n, t)| (n.to_string(), t))
            .collect(),
        ret,
        body,
    )])
}

fn v(n: &str) -> Expr {
    Expr::var(n)
}

/// `scan(op, z, map(|x| x * 3 - 1, xs))` over `[i64]`, and the same per row of `[[f64]]`.
fn scans(op: ReduceOp) -> (Program, Program) {
    let flat = one(
        "s",
        vec![("xs", Type::array(Type::I64))],
        Type::array(Type::I64),
        Expr::scan(
            op.clone(),
            Expr::i64(match op {
                ReduceOp::Mul => 1,
                ReduceOp::Min => i64::MAX,
                ReduceOp::Max => i64::MIN,
                _ => 0,
            }),
            Expr::map(
                Lambda::new(&["x"], v("x") * Expr::i64(3) - Expr::i64(1)),
                vec![v("xs")],
            ),
        ),
    );
    let rows = one(
        "s",
        vec![("rows", Type::array(Type::array(Type::F64)))],
        Type::array(Type::array(Type::F64)),
        Expr::map(
            Lambda::new(
                &["row"],
                Expr::let_(
                    "sq",
                    Expr::map(
                        Lambda::new(&["x"], v("x") * v("x") - Expr::f64(0.5)),
                        vec![v("row")],
                    ),
                    Expr::scan(ReduceOp::Add, Expr::f64(0.0), v("sq")),
                ),
            ),
            vec![v("rows")],
        ),
    );
    (flat, rows)
}

#[test]
fn map_into_scan_is_one_scanomap() {
    for op in [ReduceOp::Add, ReduceOp::Mul, ReduceOp::Min, ReduceOp::Max] {
        let (flat, rows) = scans(op);
        let (fused, rules) = fuse::fuse_reporting(&flat);
        assert_eq!(rules, vec!["map-scan"], "{fused}");
        assert!(fused.to_string().contains("scanomap("), "{fused}");
        for n in [0, 1, 17, 4095, 4096, 4097, 20_000] {
            let xs: Vec<i64> = (0..n).map(|i| (i * 7919) % 23 - 11).collect();
            agree(&flat, "s", vec![i64s(&xs)]).unwrap();
        }
        let (_, rules) = fuse::fuse_reporting(&rows);
        assert_eq!(rules, vec!["map-scan"]);
        let lens = [0usize, 3, 0, 9000, 1, 4096, 17];
        let rs: Vec<Value> = lens
            .iter()
            .enumerate()
            .map(|(r, &l)| {
                f64s(
                    &(0..l)
                        .map(|i| ((i * 13 + r) % 29) as f64 * 0.37)
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        agree(&rows, "s", vec![Value::array(rs)]).unwrap();
    }
}

#[test]
fn scanomap_on_arbitrary_floats() {
    fn prop(xs: Vec<f64>, reps: u8) -> bool {
        let (_, rows) = scans(ReduceOp::Add);
        let xs: Vec<f64> = xs
            .iter()
            .copied()
            .cycle()
            .take(xs.len() * (usize::from(reps % 8) * 300 + 1))
            .collect();
        let rs = Value::array(vec![f64s(&xs), f64s(&[]), f64s(&xs[..xs.len() / 2])]);
        agree(&rows, "s", vec![rs]).is_ok()
    }
    QuickCheck::new()
        .tests(40)
        .quickcheck(prop as fn(Vec<f64>, u8) -> bool);
}

/// `reduce(+, 0, filter([|x| x < k], xs).0)` and `reduce(max, 0, map(|y| y * 2, partition(3,
/// {2, 0}, |x| x % 3, xs).0))`: one class reduced, nothing else used.
fn partition_reduce() -> Program {
    let lt = Lambda::new(&["x"], v("x").lt(v("k")));
    let key = Lambda::new(&["x"], Expr::binary(BinaryOp::Mod, v("x"), Expr::i64(3)));
    let body = Expr::let_(
        "f",
        Expr::filter(vec![lt], v("xs")),
        Expr::let_(
            "s",
            Expr::reduce(ReduceOp::Add, Expr::i64(0), Expr::proj(v("f"), 0)),
            Expr::let_(
                "p",
                Expr::partition(3, vec![2, 0], key, v("xs")),
                Expr::let_(
                    "m",
                    Expr::reduce(
                        ReduceOp::Max,
                        Expr::i64(i64::MIN),
                        Expr::map(
                            Lambda::new(&["y"], v("y") * Expr::i64(2)),
                            vec![Expr::proj(v("p"), 0)],
                        ),
                    ),
                    Expr::Tuple(vec![v("s"), v("m")]),
                ),
            ),
        ),
    );
    one(
        "pr",
        vec![("xs", Type::array(Type::I64)), ("k", Type::I64)],
        Type::Tuple(vec![Type::I64, Type::I64]),
        body,
    )
}

#[test]
fn filter_and_partition_into_a_reduce() {
    let p = partition_reduce();
    let (fused, rules) = fuse::fuse_reporting(&p);
    assert_eq!(
        rules.iter().filter(|r| **r == "partition-reduce").count(),
        2,
        "{rules:?}\n{fused}"
    );
    assert!(!fused.to_string().contains("partition(3"), "{fused}");
    for n in [0i64, 1, 100, 4096, 9000, 30_000] {
        let xs: Vec<i64> = (0..n).map(|i| (i * 7919) % 1000 - 300).collect();
        agree(&p, "pr", vec![i64s(&xs), Value::I64(17)]).unwrap();
    }
    // A negative key is an error of the partition, fused or not.
    let e = agree(&p, "pr", vec![i64s(&[3, 4, -5, 6]), Value::I64(0)]);
    assert!(e.is_ok(), "mod is never negative: {e:?}");
}

#[test]
fn fused_partition_errors_are_the_unfused_errors() {
    // partition(2, {1}, |x| x / d, xs) with a key out of range, and a division by zero in the
    // key: the kernel rejects both, the unfused steps report them.
    let key = Lambda::new(&["x"], v("x") / v("d"));
    let body = Expr::reduce(
        ReduceOp::Add,
        Expr::i64(0),
        Expr::proj(Expr::partition(2, vec![1], key, v("xs")), 0),
    );
    let p = one(
        "e",
        vec![("xs", Type::array(Type::I64)), ("d", Type::I64)],
        Type::I64,
        body,
    );
    assert!(fuse::fuse_reporting(&p).1.contains(&"partition-reduce"));
    let xs: Vec<i64> = (0..10_000).map(|i| i % 2).collect();
    agree(&p, "e", vec![i64s(&xs), Value::I64(1)]).unwrap();
    let e = agree(&p, "e", vec![i64s(&xs), Value::I64(0)]).unwrap_err();
    assert!(e.to_string().contains("division by zero"), "{e}");
    let mut ys = xs.clone();
    ys[7_777] = 5;
    let e = agree(&p, "e", vec![i64s(&ys), Value::I64(1)]).unwrap_err();
    assert!(e.to_string().contains("partition"), "{e}");
}

#[test]
fn map_into_partition_keys_per_row() {
    // Per row: the classes of partition(3, {0, 2}, |x| x % 3, row) and the count of class 1.
    let key = Lambda::new(
        &["x"],
        Expr::binary(BinaryOp::Mod, v("x") * Expr::i64(5), Expr::i64(3)),
    );
    let inner = Expr::let_(
        "p",
        Expr::partition(3, vec![0, 2], key, v("row")),
        Expr::Tuple(vec![
            Expr::proj(v("p"), 0),
            Expr::proj(v("p"), 1),
            Expr::unary(UnaryOp::Neg, Expr::length(Expr::proj(v("p"), 1))),
        ]),
    );
    let p = one(
        "k",
        vec![("m", Type::array(Type::array(Type::I64)))],
        Type::array(Type::Tuple(vec![
            Type::array(Type::I64),
            Type::array(Type::I64),
            Type::I64,
        ])),
        Expr::map(Lambda::new(&["row"], inner), vec![v("m")]),
    );
    let rows: Vec<Value> = [0usize, 5, 0, 5000, 1, 13]
        .iter()
        .map(|&l| i64s(&(0..l as i64).map(|i| i * 31 % 17 - 8).collect::<Vec<_>>()))
        .collect();
    agree(&p, "k", vec![Value::array(rows)]).unwrap();
}

fn fusion2_input(n: usize) -> Value {
    f64s(
        &(0..n)
            .map(|i| ((i * 7919) % 20_000) as f64 / 100.0)
            .collect::<Vec<_>>(),
    )
}

/// Cheap operators, dear memory: the mega step pays.
fn memory_bound() -> Machine {
    Machine::new(0.05, 2.0, 20_000.0, 2)
}

/// Dear operators, free memory: the divergence does not pay.
fn compute_bound() -> Machine {
    Machine::new(50.0, 0.0, 20_000.0, 2)
}

#[test]
fn fusion2_is_one_pass_when_the_cost_model_says_so() {
    let p = fuse::fusion2();
    let (fused, rules) = with_machine(memory_bound(), || fuse::fuse_reporting(&p));
    assert!(rules.contains(&"mega"), "{rules:?}\n{fused}");
    // One fused node reads `a`; nothing else of the original steps is left outside it.
    let text = fused.to_string();
    assert!(text.contains("classes(a,"), "{text}");
    assert!(!text.contains("filter("), "{text}");
    let why = with_machine(memory_bound(), || fuse::explain(&p));
    assert!(why.iter().any(|w| w.starts_with("mega taken")), "{why:?}");
    let (declined, rules) = with_machine(compute_bound(), || fuse::fuse_reporting(&p));
    assert!(rules.contains(&"mega-declined"), "{rules:?}\n{declined}");
    assert!(!rules.contains(&"mega"), "{rules:?}");
    assert!(declined.to_string().contains("filter("), "{declined}");
    let why = with_machine(compute_bound(), || fuse::explain(&p));
    assert!(
        why.iter().any(|w| w.starts_with("mega declined")),
        "{why:?}"
    );
    // Both choices give the interpreter's bits.
    for machine in [memory_bound(), compute_bound()] {
        with_machine(machine, || {
            for n in [0, 1, 7, 4097, 30_000] {
                agree(&p, "fusion2", vec![fusion2_input(n)]).unwrap();
            }
        });
    }
}

#[test]
fn fusion2_mega_on_arbitrary_input() {
    fn prop(a: Vec<i16>, nan: bool) -> TestResult {
        let mut a: Vec<f64> = a.iter().map(|&x| f64::from(x) / 50.0).collect();
        if nan && !a.is_empty() {
            a[0] = f64::NAN;
        }
        let a: Vec<f64> = a.iter().copied().cycle().take(a.len() * 50).collect();
        with_machine(memory_bound(), || {
            TestResult::from_bool(agree(&fuse::fusion2(), "fusion2", vec![f64s(&a)]).is_ok())
        })
    }
    QuickCheck::new()
        .tests(60)
        .quickcheck(prop as fn(Vec<i16>, bool) -> TestResult);
}

/// A filter whose classes are used as they are (quicksort's three parts) is a plain partition:
/// the one-pass kernel would only run it sequentially, so it stays the parallel unfused steps
/// on every profile, the one where memory is dear included.
#[test]
fn a_plain_partition_is_not_made_one_sequential_pass() {
    let (p, _) =
        flatland_vectoriser::programs::quicksort(flatland_vectoriser::programs::Pivot::Middle);
    for machine in [memory_bound(), compute_bound(), Machine::defaults()] {
        let (fused, rules) = with_machine(machine, || fuse::fuse_reporting(p.ir()));
        assert!(rules.contains(&"mega-declined"), "{rules:?}\n{fused}");
        assert!(!rules.contains(&"mega"), "{rules:?}\n{fused}");
        assert!(fused.to_string().contains("filter("), "{fused}");
        let why = with_machine(machine, || fuse::explain(p.ir()));
        assert!(
            why.iter()
                .any(|w| w.starts_with("mega declined: a plain partition")),
            "{why:?}"
        );
    }
}

#[test]
fn the_default_machine_takes_the_mega_step_for_fusion2() {
    let rules = with_machine(Machine::defaults(), || {
        fuse::fuse_reporting(&fuse::fusion2()).1
    });
    assert!(rules.contains(&"mega"), "{rules:?}");
}

#[cfg(feature = "stats")]
mod work {
    use super::*;
    use flatland_runtime::stats;
    use flatland_vectoriser::exec::Arg;

    #[test]
    fn scanomap_reads_once_and_builds_no_mapped_array() {
        let n = 100_000usize;
        let (flat, _) = scans(ReduceOp::Add);
        let xs: Vec<i64> = (0..n as i64).map(|i| i % 97 - 40).collect();
        let a = Arg::arrays(vec![n], Arg::i64s(xs)).unwrap();
        let (r, fused) = stats::measure(|| exec::run_args(&flat, "s", vec![a.clone()]));
        let (q, unfused) = stats::measure(|| exec::run_args_with(&flat, "s", vec![a], &OFF));
        assert_eq!(
            <flatland_vectoriser::dsl::Arr<i64> as flatland_vectoriser::dsl::Ty>::from_lanes(
                &r.unwrap()
            ),
            <flatland_vectoriser::dsl::Arr<i64> as flatland_vectoriser::dsl::Ty>::from_lanes(
                &q.unwrap()
            ),
        );
        println!("fused {fused:?}\nunfused {unfused:?}");
        // The map's program reads each element once; the scan writes its result once.
        assert_eq!(fused.elements_read, n as u64, "{fused:?}");
        assert_eq!(fused.elements_written, 2 * n as u64, "{fused:?}");
        // One i64 result, plus block-sized buffers: no array of mapped values.
        assert!(
            fused.bytes_allocated < 8 * n as u64 + 64 * 4096,
            "{fused:?}"
        );
        assert!(unfused.bytes_allocated >= 16 * n as u64, "{unfused:?}");
    }

    #[test]
    fn partition_keys_are_one_pass() {
        // The whole partition is the result: no class form, the keys run as one program.
        let key = Lambda::new(&["x"], Expr::binary(BinaryOp::Mod, v("x"), Expr::i64(3)));
        let p = one(
            "p",
            vec![("xs", Type::array(Type::I64))],
            Type::Tuple(vec![Type::array(Type::I64); 2]),
            Expr::partition(3, vec![0, 2], key, v("xs")),
        );
        let n = 50_000usize;
        let xs: Vec<i64> = (0..n as i64).map(|i| i * 7 % 11).collect();
        let a = Arg::arrays(vec![n], Arg::i64s(xs.clone())).unwrap();
        let (r, fused) = stats::measure(|| exec::run_args(&p, "p", vec![a.clone()]));
        let (q, unfused) = stats::measure(|| exec::run_args_with(&p, "p", vec![a], &OFF));
        r.unwrap();
        q.unwrap();
        agree(&p, "p", vec![i64s(&xs)]).unwrap();
        println!("fused {fused:?}\nunfused {unfused:?}");
        assert!(fused.elements_read < unfused.elements_read, "{fused:?}");
        assert!(fused.bytes_allocated < unfused.bytes_allocated, "{fused:?}");
    }

    #[test]
    fn fused_fusion2_reads_its_input_once() {
        let n = 200_000usize;
        let data: Vec<f64> = (0..n)
            .map(|i| ((i * 7919) % 20_000) as f64 / 100.0)
            .collect();
        let a = Arg::arrays(vec![n], Arg::f64s(data)).unwrap();
        let p = fuse::fusion2();
        let (r, fused) = with_machine(memory_bound(), || {
            stats::measure(|| exec::run_args(&p, "fusion2", vec![a.clone()]))
        });
        r.unwrap();
        let (r, unfused) = stats::measure(|| exec::run_args_with(&p, "fusion2", vec![a], &OFF));
        r.unwrap();
        println!("fused {fused:?}\nunfused {unfused:?}");
        assert_eq!(fused.elements_read, n as u64, "{fused:?}");
        assert!(unfused.elements_read > 3 * n as u64, "{unfused:?}");
    }
}

/// Quicksort's three parts of `s` around `o` (`x < o`, `o == x`, `x > o`: the second written
/// the other way round), appended; `between` is bound between the second and the third.
fn three_parts(t: Type, between: Option<(&str, Expr)>) -> Program {
    let part = |op, flip| {
        let body = if flip {
            Expr::binary(op, v("o"), v("x"))
        } else {
            Expr::binary(op, v("x"), v("o"))
        };
        Expr::proj(Expr::filter(vec![Lambda::new(&["x"], body)], v("s")), 0)
    };
    let third = Expr::let_(
        "c",
        part(BinaryOp::Gt, false),
        Expr::append(v("a"), Expr::append(v("b"), v("c"))),
    );
    let third = match between {
        Some((name, value)) => Expr::let_(name, value, third),
        None => third,
    };
    let body = Expr::let_(
        "a",
        part(BinaryOp::Lt, false),
        Expr::let_("b", part(BinaryOp::Eq, true), third),
    );
    let arr = Type::Array(Box::new(t.clone()));
    one("f", vec![("s", arr.clone()), ("o", t)], arr, body)
}

/// The same parts of every row around the row's own operand: the merged filter runs lifted.
fn three_parts_per_row() -> Program {
    let (inner, f) = (three_parts(Type::F64, None), "f");
    let row = Type::Array(Box::new(Type::F64));
    let rows = Type::Array(Box::new(row.clone()));
    let body = Expr::map(
        Lambda::new(&["r", "p"], Expr::call(f, vec![v("r"), v("p")])),
        vec![v("rows"), v("ps")],
    );
    let mut fs = inner.functions.clone();
    fs.push(Function::new(
        "rows",
        vec![
            ("rows".to_string(), rows.clone()),
            ("ps".to_string(), Type::Array(Box::new(Type::F64))),
        ],
        rows,
        body,
    ));
    Program::new(fs)
}

#[test]
fn sibling_filters_become_one_filter_with_the_same_bits() {
    fn prop(xs: Vec<i64>, o: i64, ys: Vec<f64>, p: f64, nan: bool) -> bool {
        let ints = three_parts(Type::I64, None);
        let xs: Vec<i64> = xs.iter().map(|x| x % 5).collect();
        agree(&ints, "f", vec![i64s(&xs), Value::I64(o % 5)]).unwrap();
        // Floats with NaNs among the elements and as the operand: in none of the parts.
        let floats = three_parts(Type::F64, None);
        let mut ys: Vec<f64> = ys.iter().map(|y| y.round() % 3.0).collect();
        if nan {
            ys.push(f64::NAN);
        }
        let p = if nan && ys.len() % 2 == 0 {
            f64::NAN
        } else {
            p.round() % 3.0
        };
        agree(&floats, "f", vec![f64s(&ys), Value::F64(p)]).unwrap();
        true
    }
    let (fused, rules) = fuse::fuse_reporting(&three_parts(Type::I64, None));
    assert!(rules.contains(&"sibling-filters"), "{rules:?}");
    let text = fused.functions[0].body.to_string();
    assert_eq!(text.matches("filter(").count(), 1, "{text}");
    QuickCheck::new()
        .tests(200)
        .quickcheck(prop as fn(Vec<i64>, i64, Vec<f64>, f64, bool) -> bool);
}

#[test]
fn sibling_filters_that_may_overlap_or_read_a_rebound_operand_stay_apart() {
    // `o` rebound before the third filter: it reads another operand than the first two.
    let rebound = three_parts(Type::I64, Some(("o", v("o") + Expr::i64(1))));
    let (fused, _) = fuse::fuse_reporting(&rebound);
    let text = fused.functions[0].body.to_string();
    assert_eq!(text.matches("filter(").count(), 2, "{text}");
    agree(&rebound, "f", vec![i64s(&[3, 1, 2, 4, 2]), Value::I64(2)]).unwrap();
    // `x <= o` and `x >= o` both hold at `o`: not merged.
    let part = |op| {
        Expr::proj(
            Expr::filter(
                vec![Lambda::new(&["x"], Expr::binary(op, v("x"), v("o")))],
                v("s"),
            ),
            0,
        )
    };
    let arr = Type::Array(Box::new(Type::I64));
    let overlap = one(
        "f",
        vec![("s", arr.clone()), ("o", Type::I64)],
        arr,
        Expr::let_(
            "a",
            part(BinaryOp::Le),
            Expr::let_("b", part(BinaryOp::Ge), Expr::append(v("a"), v("b"))),
        ),
    );
    let (_, rules) = fuse::fuse_reporting(&overlap);
    assert!(!rules.contains(&"sibling-filters"), "{rules:?}");
    agree(&overlap, "f", vec![i64s(&[3, 1, 2, 4, 2]), Value::I64(2)]).unwrap();
}

#[test]
fn a_merged_filter_classifies_each_lane_by_one_comparison() {
    use flatland_vectoriser::exec::{ExecOptions, Prepared};
    let p = three_parts_per_row();
    let rows = Value::array(vec![
        f64s(&[3.0, 1.0, f64::NAN, 2.0, 2.0]),
        f64s(&[]),
        f64s(&[5.0; 3]),
        f64s(&[1.0, -0.0, 0.0]),
    ]);
    let ps = f64s(&[2.0, 1.0, 5.0, 0.0]);
    let want = agree(&p, "rows", vec![rows.clone(), ps.clone()]).unwrap();
    let prepared = Prepared::new(&p, "rows", &ExecOptions::default()).unwrap();
    assert_eq!(prepared.run(vec![rows, ps]).unwrap(), want);
    let routes = prepared.trace().routes();
    assert_eq!(routes["comparison keys"].kernel, 1, "{}", prepared.trace());
}
