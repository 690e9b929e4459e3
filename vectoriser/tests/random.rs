//! Random well-typed programs: the flattened executor must agree with the reference
//! interpreter bitwise (floats included) on every one.
//!
//! The generator builds programs over `i64`, `f64` and `bool` with nested maps (to depth 3, with
//! free variables from every enclosing level), `if` under `map`, built-in and lambda reductions
//! and scans (identities that vary per lane included), redomap, filters with up to three
//! predicates, partitions with classes of interest, in-range indexing, slices, iota, replicate,
//! append, concat, scatter, reductions by index (one histogram per lane), `for` and `while`
//! loops (a trip count per lane), array literals, let, a helper function and a recursive one. Inputs
//! include empty arrays and empty segments. Integer division is guarded (divisor `d | 1`) and
//! float operations stay finite, so no program fails at run time; the failing programs
//! (`failing_program`: some indices and divisors unguarded, so that several lanes fail at several
//! steps) check that the executor's error is the interpreter's, message for message (also tested
//! in `flatten.rs`). A failing case shrinks (smaller inputs, smaller programs) and prints the
//! program.

#[path = "random_programs/gen.rs"]
mod generator;

use flatland_vectoriser::value::Value;
use flatland_vectoriser::{eval, exec};
use generator::{failing_program, program};
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};
use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

/// More live heap than any case needs by far (they hold kilobytes): a case past it is reported
/// and the process aborts, instead of the machine's out-of-memory killer ending the test run
/// without a word (it did once in CI, and the case was lost).
const HEAP_LIMIT: usize = 4 << 30;

/// The memory budget of one case ([`flatland_runtime::budget`]): sizes the program computes
/// (iota, replicate, concat, ...) are checked against it before they are allocated, so no case
/// holds more than this in runtime buffers; a case refused by it is discarded.
const CASE_BUDGET: usize = 256 << 20;

/// The system allocator, counting live bytes against [`HEAP_LIMIT`].
struct Guarded;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static REPORTED: AtomicBool = AtomicBool::new(false);
/// The random case running now (its program, seed, budget and inputs).
static CASE: Mutex<String> = Mutex::new(String::new());

#[global_allocator]
static ALLOC: Guarded = Guarded;

/// Counts `by` more live bytes, reporting the case once the total passes [`HEAP_LIMIT`].
fn grew(by: usize) {
    let live = LIVE.fetch_add(by, Relaxed) + by;
    if live > HEAP_LIMIT && !REPORTED.swap(true, Relaxed) {
        over_limit(live);
    }
}

// SAFETY: every call is forwarded to the system allocator with the caller's pointer and layout;
// the counting around it touches only atomics.
unsafe impl GlobalAlloc for Guarded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: the caller's contract for `alloc`, passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: the caller's contract for `alloc_zeroed`, passed on unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: `ptr` was allocated by `System` with `layout` (every allocation goes there).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            grew(new_size - layout.size());
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Relaxed);
        }
        // SAFETY: the caller's contract for `realloc`, passed on unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Writes the running case to stderr (directly: the test harness's capture would be lost with
/// the process) and aborts.
fn over_limit(live: usize) -> ! {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "random programs: {live} live heap bytes, over {HEAP_LIMIT}; the case:"
    );
    // `try_lock`: the allocation may come from the thread that holds the lock.
    if let Ok(case) = CASE.try_lock() {
        let _ = err.write_all(case.as_bytes());
    }
    let _ = err.flush();
    std::process::abort()
}

/// Inputs: small values, empty arrays and empty segments likely.
#[derive(Clone, Debug)]
struct Inputs {
    a: Vec<i64>,
    b: Vec<f64>,
    c: Vec<bool>,
    m: Vec<Vec<i64>>,
    n: Vec<Vec<f64>>,
    t: Vec<Vec<Vec<i64>>>,
    k: i64,
    x: f64,
}

fn small<T>(g: &mut Gen, max: usize, f: &mut impl FnMut(&mut Gen) -> T) -> Vec<T> {
    let len = usize::arbitrary(g) % (max + 1);
    (0..len).map(|_| f(g)).collect()
}

impl Arbitrary for Inputs {
    fn arbitrary(g: &mut Gen) -> Inputs {
        let mut int = |g: &mut Gen| i64::from(i8::arbitrary(g) % 20);
        let mut flt = |g: &mut Gen| f64::from(i8::arbitrary(g) % 20) * 0.25;
        Inputs {
            a: small(g, 6, &mut int),
            b: small(g, 6, &mut flt),
            c: small(g, 6, &mut bool::arbitrary),
            m: small(g, 4, &mut |g| small(g, 4, &mut int)),
            n: small(g, 4, &mut |g| small(g, 4, &mut flt)),
            t: small(g, 3, &mut |g| small(g, 3, &mut |g| small(g, 3, &mut int))),
            k: int(g),
            x: flt(g),
        }
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Inputs>> {
        let me = self.clone();
        let mut out = Vec::new();
        macro_rules! cut {
            ($f:ident) => {
                if !me.$f.is_empty() {
                    let mut s = me.clone();
                    s.$f.truncate(me.$f.len() / 2);
                    out.push(s);
                    let mut s = me.clone();
                    s.$f.pop();
                    out.push(s);
                }
            };
        }
        cut!(a);
        cut!(b);
        cut!(c);
        cut!(m);
        cut!(n);
        cut!(t);
        Box::new(out.into_iter())
    }
}

fn ints(xs: &[i64]) -> Value {
    Value::array(xs.iter().map(|&x| Value::I64(x)).collect())
}

fn floats(xs: &[f64]) -> Value {
    Value::array(xs.iter().map(|&x| Value::F64(x)).collect())
}

impl Inputs {
    fn values(&self) -> Vec<Value> {
        vec![
            ints(&self.a),
            floats(&self.b),
            Value::array(self.c.iter().map(|&x| Value::Bool(x)).collect()),
            Value::array(self.m.iter().map(|r| ints(r)).collect()),
            Value::array(self.n.iter().map(|r| floats(r)).collect()),
            Value::array(
                self.t
                    .iter()
                    .map(|r| Value::array(r.iter().map(|s| ints(s)).collect()))
                    .collect(),
            ),
            Value::I64(self.k),
            Value::F64(self.x),
        ]
    }
}

/// One random program (regenerated from its seed and size) and its inputs.
#[derive(Clone)]
struct Case {
    seed: u64,
    budget: u32,
    inputs: Inputs,
    /// A program of [`failing_program`] rather than [`program`].
    failing: bool,
}

impl Case {
    fn program(&self) -> flatland_vectoriser::ir::Program {
        if self.failing {
            failing_program(self.seed, self.budget)
        } else {
            program(self.seed, self.budget)
        }
    }
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "seed {} budget {}\n{}\ninputs {:?}",
            self.seed,
            self.budget,
            self.program(),
            self.inputs
        )
    }
}

impl Arbitrary for Case {
    fn arbitrary(g: &mut Gen) -> Case {
        Case {
            seed: u64::arbitrary(g),
            budget: 3 + u32::arbitrary(g) % 4,
            inputs: Inputs::arbitrary(g),
            failing: false,
        }
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Case>> {
        let me = self.clone();
        let smaller = (1..me.budget).rev().map({
            let me = me.clone();
            move |b| Case {
                budget: b,
                ..me.clone()
            }
        });
        let inputs = me.inputs.shrink().map(move |i| Case {
            inputs: i,
            ..me.clone()
        });
        Box::new(smaller.chain(inputs))
    }
}

/// Runs of failing programs that failed (in [`agree`]), and all of them.
static FAILED: AtomicUsize = AtomicUsize::new(0);
static FAILING_RUNS: AtomicUsize = AtomicUsize::new(0);

fn agree(case: Case) -> TestResult {
    let p = case.program();
    let running = format!("{case:?}\n{p}\n");
    *CASE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = running;
    if let Err(e) = flatland_vectoriser::check::check_program(&p) {
        return TestResult::error(format!("generator made an ill-typed program: {e}\n{p}"));
    }
    let args = case.inputs.values();
    // The per-case size budget: a case whose computed sizes would take more than
    // CASE_BUDGET is refused by the runtime before it allocates, and discarded here.
    flatland_runtime::budget::set_limit(Some(CASE_BUDGET));
    let want = eval::run(&p, "main", args.clone());
    let off = exec::ExecOptions { fuse: false };
    let unfused = exec::run_with(&p, "main", args.clone(), &off);
    let fused = exec::run(&p, "main", args);
    let refused = |r: &Result<Value, flatland_vectoriser::Error>| {
        matches!(
            r,
            Err(flatland_vectoriser::Error::Runtime(
                flatland_runtime::Error::MemoryBudget { .. }
            ))
        )
    };
    if refused(&want) || refused(&unfused) || refused(&fused) {
        return TestResult::discard();
    }
    if case.failing {
        FAILING_RUNS.fetch_add(1, Relaxed);
        if want.is_err() {
            FAILED.fetch_add(1, Relaxed);
        }
    }
    if want == unfused && want == fused {
        TestResult::passed()
    } else {
        TestResult::error(format!(
            "eval: {want:?}\nexec unfused: {unfused:?}\nexec fused: {fused:?}\nfused program:\n{}",
            flatland_vectoriser::fuse::fuse(&p)
        ))
    }
}

#[test]
fn flattened_equals_interpreted_on_random_programs() {
    let n = std::env::var("FLATLAND_RANDOM_PROGRAMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    QuickCheck::new()
        .rng(Gen::new(8))
        .tests(n)
        .max_tests(n * 2)
        .quickcheck(agree as fn(Case) -> TestResult);
}

/// [`agree`] on the failing program of the case's seed and size.
fn failing(mut case: Case) -> TestResult {
    case.failing = true;
    agree(case)
}

/// Programs with unguarded indices and divisors: the executor's error (its first in the
/// interpreter's order, found without rerunning the program) must be the interpreter's, message
/// for message, fused and unfused.
#[test]
fn executor_errors_equal_the_interpreters_on_failing_programs() {
    let n = std::env::var("FLATLAND_RANDOM_PROGRAMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    QuickCheck::new()
        .rng(Gen::new(8))
        .tests(n)
        .max_tests(n * 2)
        .quickcheck(failing as fn(Case) -> TestResult);
    let (failed, runs) = (FAILED.load(Relaxed), FAILING_RUNS.load(Relaxed));
    assert!(
        failed * 5 >= runs,
        "only {failed} of {runs} failing programs failed"
    );
}

#[test]
fn fusion_applies_to_random_programs() {
    use flatland_runtime::cost::{Machine, with_machine};
    let mut seen = std::collections::BTreeMap::new();
    // Two profiles, so that the cost model both takes and declines the mega step.
    for machine in [
        Machine::new(0.05, 2.0, 20_000.0, 2),
        Machine::new(50.0, 0.0, 20_000.0, 2),
    ] {
        for seed in 0..300 {
            let p = program(seed, 5);
            for rule in with_machine(machine, || flatland_vectoriser::fuse::fuse_reporting(&p).1) {
                *seen.entry(rule).or_insert(0usize) += 1;
            }
        }
    }
    // Horizontal fusion needs reductions side by side over one array, which the generator
    // rarely builds; tests/fusion.rs covers it.
    for rule in [
        "map-map",
        "map-reduce",
        "map-redomap",
        "map-scan",
        "partition-reduce",
        "mega",
        "mega-declined",
        "scatter-progressions",
        "sibling-filters",
    ] {
        assert!(
            seen.contains_key(rule),
            "rule {rule} never applied: {seen:?}"
        );
    }
    println!("rules applied to 600 random programs: {seen:?}");
}

/// If-conversion on random programs: the `if`s whose branches cannot fail run as selects
/// (checked against `eval` in every run of the tests above); a program whose branches are
/// dear enough to pack lanes (rare: ten transcendental functions) is also run against `eval`
/// on random inputs. `tests/if_conversion.rs` decides both ways on purpose.
#[test]
fn if_conversion_on_random_programs() {
    let (mut select, mut packed) = (0, Vec::new());
    for seed in 0..2000 {
        let p = program(seed, 5);
        let prepared = exec::Prepared::new(&p, "main", &exec::ExecOptions::default()).unwrap();
        for d in prepared.decisions() {
            select += usize::from(d.contains("runs as a select"));
            if d.contains("runs as packed lanes") {
                packed.push(seed);
            }
        }
    }
    println!(
        "if-conversion on 2000 random programs: {select} selects, {} packed",
        packed.len()
    );
    assert!(select > 100, "{select} selects, {packed:?} packed");
    let mut g = Gen::new(20);
    for &seed in &packed {
        for _ in 0..20 {
            let case = Case {
                seed,
                budget: 5,
                inputs: Inputs::arbitrary(&mut g),
                failing: false,
            };
            let r = agree(case.clone());
            assert!(!r.is_failure() && !r.is_error(), "{case:?}: {r:?}");
        }
    }
}

#[test]
fn the_generator_covers_the_constructs() {
    let mut seen = std::collections::HashSet::new();
    for seed in 0..300 {
        let text = program(seed, 5).to_string();
        for kw in [
            "map(",
            "reduce(",
            "scan(",
            "filter(",
            "partition(",
            "redomap(",
            "slice(",
            "scatter(",
            "hist(",
            "loop(",
            "iota(",
            "replicate(",
            "append(",
            "concat(",
            "if ",
            "rec(",
            "helper(",
        ] {
            if text.contains(kw) {
                seen.insert(kw);
            }
        }
    }
    assert_eq!(seen.len(), 17, "constructs generated: {seen:?}");
}

#[test]
#[ignore = "prints sample programs"]
fn show_samples() {
    let mut g = Gen::new(8);
    for seed in 0..6 {
        let inputs = Inputs::arbitrary(&mut g);
        let p = program(seed, 4);
        println!(
            "{p}\n=> {:?}\n",
            eval::run(&p, "main", inputs.values()).map(|v| v.to_string())
        );
    }
}

/// A case the random test once met (seed 9900952025442971757, size 4): `filter` predicates
/// `[not(true), false, let v = c[-5] in k != k]` on an empty `c`, only class 0 used. The fused
/// executor's one-pass filter keys skipped the third predicate's dead `let`, whose read the
/// interpreter evaluates and fails on; now a speculative pass refuses a binding that may
/// fail and the lazy steps report the error.
#[test]
fn a_dead_let_that_fails_in_a_filter_predicate_is_an_error_when_fused() {
    let case = Case {
        seed: 9_900_952_025_442_971_757,
        budget: 4,
        inputs: Inputs {
            a: vec![],
            b: vec![],
            c: vec![],
            m: vec![],
            n: vec![],
            t: vec![],
            k: -1,
            x: 2.5,
        },
        failing: true,
    };
    let p = case.program();
    assert!(
        p.to_string().contains("c[-5]"),
        "the generator changed:\n{p}"
    );
    let r = agree(case);
    assert!(!r.is_error() && !r.is_failure(), "{r:?}");
}
