//! The executor's first error without rerunning the program (`exec`, "Errors"): a failing run
//! costs about what a successful one does, asserted through the runtime's work counters.
//!
//! Each measure also counts the heap bytes the process allocated (every thread), to set the run
//! beside the reference interpreter's, which the executor used to rerun on every runtime error
//! (its boxed values are not in the work counters).
#![cfg(feature = "stats")]

use flatland_runtime::stats;
use flatland_vectoriser::exec::{Arg, ExecOptions, Prepared};
use flatland_vectoriser::ir::{Expr, Function, Lambda, Program, ReduceOp, Type};
use flatland_vectoriser::{eval, programs, value::Value};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The system allocator, counting the bytes it hands out.
struct Counting;

static ALLOCATED: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the counter is a side
// effect only.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size() as u64, Relaxed);
        // SAFETY: the caller's contract for `alloc`, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATED.fetch_add(new_size as u64, Relaxed);
        // SAFETY: the caller's contract for `realloc`, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// One measure at a time: the heap counter is the whole process's.
static SERIAL: Mutex<()> = Mutex::new(());

/// What `f` did: its result, its work and the heap bytes allocated meanwhile.
fn measured<R>(f: impl FnOnce() -> R) -> (R, stats::Work, u64) {
    let before = ALLOCATED.load(Relaxed);
    let (r, work) = stats::measure(f);
    (r, work, ALLOCATED.load(Relaxed) - before)
}

/// A CSR matrix of `rows` rows of `per_row` entries over a vector of `vlen`, as one
/// `[[(i64, f64)]]` argument; the entry `bad` (if any) has a column out of range.
fn matrix(rows: usize, per_row: usize, vlen: usize, bad: Option<usize>) -> Arg {
    let nnz = rows * per_row;
    let cols: Vec<i64> = (0..nnz)
        .map(|k| {
            if Some(k) == bad {
                vlen as i64 + 3
            } else {
                ((k * 7919) % vlen) as i64
            }
        })
        .collect();
    let vals: Vec<f64> = (0..nnz).map(|k| (k % 10) as f64 * 0.5).collect();
    let entries = Arg::tuple(vec![Arg::i64s(cols), Arg::f64s(vals)]).unwrap();
    let rows = Arg::arrays(vec![per_row; rows], entries).unwrap();
    Arg::arrays(vec![nnz / per_row], rows).unwrap()
}

fn vector(vlen: usize) -> Arg {
    Arg::arrays(vec![vlen], Arg::f64s((0..vlen).map(|i| i as f64).collect())).unwrap()
}

#[test]
fn one_bad_index_among_a_million_lanes_costs_what_a_good_run_does() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (rows, per_row, vlen) = (100_000, 10, 50_000);
    let bad = rows * per_row - 5;
    let (p, f) = programs::smvm();
    let fused = Prepared::new(p.ir(), f.name(), &ExecOptions::default()).unwrap();
    let unfused = Prepared::new(p.ir(), f.name(), &ExecOptions { fuse: false }).unwrap();
    let run = |prepared: &Prepared, bad: Option<usize>| {
        let args = vec![matrix(rows, per_row, vlen, bad), vector(vlen)];
        measured(move || prepared.run_args(args))
    };
    let (ok, good, good_heap) = run(&unfused, None);
    ok.unwrap();
    let (ok, fused_good, fused_good_heap) = run(&fused, None);
    ok.unwrap();
    let (err, failing, failing_heap) = run(&unfused, Some(bad));
    let err = err.unwrap_err();
    let (ferr, fused_failing, fused_heap) = run(&fused, Some(bad));
    // The interpreter's error, and what asking it cost (the old way).
    let want = format!(
        "index: lane {}: index {} out of range for length {vlen}",
        bad % per_row,
        vlen + 3
    );
    assert_eq!(err.to_string(), want);
    assert_eq!(ferr.unwrap_err().to_string(), want);
    let m = Value::array(
        (0..rows)
            .map(|r| {
                Value::array(
                    (r * per_row..(r + 1) * per_row)
                        .map(|k| {
                            let c = if k == bad {
                                vlen + 3
                            } else {
                                (k * 7919) % vlen
                            };
                            Value::Tuple(vec![
                                Value::I64(c as i64),
                                Value::F64((k % 10) as f64 * 0.5),
                            ])
                        })
                        .collect(),
                )
            })
            .collect(),
    );
    let v = Value::array((0..vlen).map(|i| Value::F64(i as f64)).collect());
    let args = vec![m, v];
    let (e, _, eval_heap) = measured(|| eval::run(p.ir(), f.name(), args));
    assert_eq!(e.unwrap_err().to_string(), want);
    println!(
        "good run (unfused): {good:?}, heap {good_heap}\ngood run (fused): {fused_good:?}, heap \
         {fused_good_heap}\nfailing (unfused): {failing:?}, heap {failing_heap}\nfailing \
         (fused): {fused_failing:?}, heap {fused_heap}\nthe interpreter on the whole program \
         (what the executor used to add to a failing run): heap {eval_heap}"
    );
    // The failing run does no more than the good one (it stops at the gather).
    assert!(
        failing.bytes_allocated <= good.bytes_allocated,
        "{failing:?} vs {good:?}"
    );
    assert!(
        failing.elements_read <= good.elements_read,
        "{failing:?} vs {good:?}"
    );
    // Fused, the kernel reads the rows (its direct pass, then its block pass) before it hands
    // them to the unfused steps, which report the error: still no more than twice the steps
    // of a good unfused run.
    assert!(
        fused_failing.bytes_allocated <= good.bytes_allocated,
        "{fused_failing:?} vs {good:?}"
    );
    assert!(
        fused_failing.elements_read <= 2 * good.elements_read + fused_good.elements_read,
        "{fused_failing:?} vs {good:?}"
    );
    // ... and nothing near the interpreter's boxed values.
    assert!(
        failing_heap * 4 < eval_heap,
        "{failing_heap} vs {eval_heap}"
    );
    assert!(fused_heap * 4 < eval_heap, "{fused_heap} vs {eval_heap}");
}

/// `(scan(+, 0, big), map(|r| let s = reduce(+, 0, map(|c| x[c], r)) in s / (s - 7), rows))`:
/// the index fails at a late row, and the division after it could fail at an earlier one.
fn later_step_may_fail() -> Program {
    let ia = Type::array(Type::I64);
    let row_sum = Expr::reduce(
        ReduceOp::Add,
        Expr::i64(0),
        Expr::map(
            Lambda::new(&["c"], Expr::index(Expr::var("x"), Expr::var("c"))),
            vec![Expr::var("r")],
        ),
    );
    let body = Expr::let_(
        "s",
        row_sum,
        Expr::var("s") / (Expr::var("s") - Expr::i64(7)),
    );
    Program::new(vec![Function::new(
        "f",
        vec![
            ("big".into(), ia.clone()),
            ("rows".into(), Type::array(ia.clone())),
            ("x".into(), ia.clone()),
        ],
        Type::Tuple(vec![ia.clone(), ia.clone()]),
        Expr::Tuple(vec![
            Expr::scan(ReduceOp::Add, Expr::i64(0), Expr::var("big")),
            Expr::map(Lambda::new(&["r"], body), vec![Expr::var("rows")]),
        ]),
    )])
}

#[test]
fn a_step_that_may_fail_later_costs_the_failing_contexts_lanes() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (big, rows, per_row, xlen) = (1_000_000, 1_000, 4, 100);
    let bad_row = rows - 3;
    let args = |bad: bool, big: usize| {
        let cols: Vec<i64> = (0..rows * per_row)
            .map(|k| {
                if bad && k == bad_row * per_row + 1 {
                    -1
                } else {
                    (k % xlen) as i64
                }
            })
            .collect();
        vec![
            Arg::arrays(vec![big], Arg::i64s((0..big as i64).collect())).unwrap(),
            Arg::arrays(
                vec![rows],
                Arg::arrays(vec![per_row; rows], Arg::i64s(cols)).unwrap(),
            )
            .unwrap(),
            Arg::arrays(
                vec![xlen],
                Arg::i64s((0..xlen as i64).map(|i| i + 10).collect()),
            )
            .unwrap(),
        ]
    };
    let p = later_step_may_fail();
    for opts in [ExecOptions::default(), ExecOptions { fuse: false }] {
        let prepared = Prepared::new(&p, "f", &opts).unwrap();
        let run = |bad: bool, big: usize| {
            let args = args(bad, big);
            measured(|| prepared.run_args(args))
        };
        let (ok, good, _) = run(false, big);
        ok.unwrap();
        let (err, failing, failing_heap) = run(true, big);
        let want = format!("index: lane 1: index -1 out of range for length {xlen}");
        assert_eq!(err.unwrap_err().to_string(), want);
        // The rows alone, failing: what settling the error may cost is of this order.
        let (err, small, _) = run(true, 0);
        assert_eq!(err.unwrap_err().to_string(), want);
        println!(
            "fuse {}: good {good:?}\nfailing {failing:?}, heap {failing_heap}\nthe failing rows \
             alone: {small:?}",
            opts.fuse
        );
        // Settling reruns the rows below the failing one (lifted), not the scan of `big`.
        assert!(
            failing.bytes_allocated <= good.bytes_allocated + 2 * small.bytes_allocated,
            "{failing:?} vs {good:?}"
        );
        assert!(
            failing.elements_read <= good.elements_read + 2 * small.elements_read,
            "{failing:?} vs {good:?}"
        );
        assert!(
            small.bytes_allocated * 20 < good.bytes_allocated,
            "{small:?} vs {good:?}"
        );
    }
}
