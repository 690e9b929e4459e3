//! The random `#[vectorise]` corpus (`random_corpus/corpus_*.rs`, written by
//! `random_corpus/gen.rs` from a fixed seed): 300 functions of nested maps, filters,
//! reductions, scans, folds, loops, histograms, sorts, selections, slices, scatters, calls,
//! recursion and math (the generator's doc lists them; each file's header counts them). The
//! generator writes every function twice, as Rust source in the macro's subset and as the IR
//! that source means, built by the generator itself, not by the macro (the selection forms with
//! `flatland::vectoriser::derived`, which defines them). Each function's `try_`
//! code (what `#[vectorise]` compiles it to: direct, or the strategy the run chooses), the same
//! with each strategy forced (`flatland::vectoriser::strategy`: the flattening executor, and the
//! per-lane form) and its per-lane form
//! (`plan::f::per_lane`, plain Rust transcribed from the IR, its maps' lanes and heavy bulk
//! operations forced to run one after another and forced parallel, on the default pool and on
//! pools of 1, 3 and 8 threads)
//! run on inputs with
//! empty arrays, empty rows, one row holding almost everything, edge values and values that
//! make bad indices and divisions by zero, and must equal `flatland::vectoriser::eval::run` on
//! the generator's IR bit for bit (floats by their bits, NaN as one value; errors by their
//! message).
//!
//! After changing the generator, regenerate the files with
//! `FLATLAND_REGENERATE=1 cargo test --test vectorise_random_corpus`.

#[path = "random_corpus/gen.rs"]
mod generator;

use flatland::runtime::elt::Nested;
use flatland::runtime::expr::op::float::canonical_bits;
use flatland::vectoriser::eval;
use flatland::vectoriser::lane::{self, Lanes};
use flatland::vectoriser::strategy::{Strategy, with_strategy};
use flatland::vectoriser::value::Value;
use flatland_cli::harness::inputs::Rng;

const SEED: u64 = 20_261_201;
const MODULES: usize = 12;
const PER_MODULE: usize = 25;

/// The arguments of every generated function (`n` also as rows, for `eval`).
struct Inputs {
    a: Vec<i64>,
    b: Vec<f64>,
    c: Vec<bool>,
    m: Vec<Vec<i64>>,
    n: Nested<f64>,
    n_rows: Vec<Vec<f64>>,
    k: i64,
    x: f64,
}

/// A generated function's name, its `try_` code and its per-lane form (`plan::f::per_lane`),
/// each on the inputs as a value (or the error).
type Case = (
    &'static str,
    fn(&Inputs) -> Result<Value, String>,
    fn(&Inputs) -> Result<Value, String>,
);

/// A Rust result as the reference interpreter's value.
trait ToValue {
    fn to_value(self) -> Value;
}

impl ToValue for i64 {
    fn to_value(self) -> Value {
        Value::I64(self)
    }
}

impl ToValue for f64 {
    fn to_value(self) -> Value {
        Value::F64(self)
    }
}

impl ToValue for bool {
    fn to_value(self) -> Value {
        Value::Bool(self)
    }
}

impl<T: ToValue> ToValue for Vec<T> {
    fn to_value(self) -> Value {
        Value::array(self.into_iter().map(ToValue::to_value).collect())
    }
}

impl<A: ToValue, B: ToValue> ToValue for (A, B) {
    fn to_value(self) -> Value {
        Value::Tuple(vec![self.0.to_value(), self.1.to_value()])
    }
}

fn value<T: ToValue>(r: flatland::vectoriser::Result<T>) -> Result<Value, String> {
    r.map(ToValue::to_value).map_err(|e| format!("error: {e}"))
}

include!("random_corpus/corpus_0.rs");
include!("random_corpus/corpus_1.rs");
include!("random_corpus/corpus_2.rs");
include!("random_corpus/corpus_3.rs");
include!("random_corpus/corpus_4.rs");
include!("random_corpus/corpus_5.rs");
include!("random_corpus/corpus_6.rs");
include!("random_corpus/corpus_7.rs");
include!("random_corpus/corpus_8.rs");
include!("random_corpus/corpus_9.rs");
include!("random_corpus/corpus_10.rs");
include!("random_corpus/corpus_11.rs");

const CASES: [&[Case]; MODULES] = [
    CASES_0, CASES_1, CASES_2, CASES_3, CASES_4, CASES_5, CASES_6, CASES_7, CASES_8, CASES_9,
    CASES_10, CASES_11,
];

fn modules() -> Vec<generator::Module> {
    (0..MODULES)
        .map(|i| generator::module(SEED, i, i * PER_MODULE, PER_MODULE))
        .collect()
}

fn path(index: usize) -> String {
    format!(
        "{}/tests/random_corpus/corpus_{index}.rs",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn the_generated_files_are_the_generators_output() {
    for (i, m) in modules().iter().enumerate() {
        let want = generator::file(m, SEED, i);
        if std::env::var_os("FLATLAND_REGENERATE").is_some() {
            std::fs::write(path(i), &want).expect("write the corpus");
        }
        let have = std::fs::read_to_string(path(i)).expect("read the corpus");
        assert!(
            have == want,
            "tests/random_corpus/corpus_{i}.rs is stale: run FLATLAND_REGENERATE=1 cargo test --test vectorise_random_corpus"
        );
    }
}

#[test]
fn the_corpus_draws_every_math_method() {
    let text: String = modules().iter().map(|m| m.source.clone()).collect();
    let missing: Vec<&str> = generator::math_methods()
        .into_iter()
        .filter(|name| !text.contains(&format!(".{name}(")))
        .collect();
    assert!(missing.is_empty(), "math methods never drawn: {missing:?}");
}

/// A value with its floats shown by their bits (every NaN as one).
fn show(v: &Value) -> String {
    match v {
        Value::F64(f) => format!("{:#x}", canonical_bits(*f)),
        Value::I64(i) => i.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Tuple(fs) => format!("({})", fs.iter().map(show).collect::<Vec<_>>().join(", ")),
        Value::Array(xs) => format!("[{}]", xs.iter().map(show).collect::<Vec<_>>().join(", ")),
    }
}

fn nested(rows: &[Vec<f64>]) -> Nested<f64> {
    let mut offsets = vec![0];
    for r in rows {
        offsets.push(offsets.last().expect("an offset") + r.len());
    }
    Nested::from_offsets(offsets, rows.concat()).expect("valid offsets")
}

fn inputs(
    a: Vec<i64>,
    b: Vec<f64>,
    c: Vec<bool>,
    m: Vec<Vec<i64>>,
    n_rows: Vec<Vec<f64>>,
    k: i64,
    x: f64,
) -> Inputs {
    Inputs {
        n: nested(&n_rows),
        a,
        b,
        c,
        m,
        n_rows,
        k,
        x,
    }
}

/// Random arguments: `len` elements in the slices (of equal lengths, so that zips of them
/// agree), `rows` rows of up to `width` elements (empty rows likely).
fn random(r: &mut Rng, len: usize, rows: usize, width: usize) -> Inputs {
    let int = |r: &mut Rng| r.below(41) as i64 - 20;
    let flt = |r: &mut Rng| r.dyadic() / 4.0;
    let a = (0..len).map(|_| int(r)).collect();
    let b = (0..len).map(|_| flt(r)).collect();
    let c = (0..len).map(|_| r.below(2) == 0).collect();
    let row_len = |r: &mut Rng| usize::try_from(r.below(width as u64 + 1)).expect("small");
    let m = (0..rows)
        .map(|_| {
            let l = row_len(r);
            (0..l).map(|_| int(r)).collect()
        })
        .collect();
    let n = (0..rows)
        .map(|_| {
            let l = row_len(r);
            (0..l).map(|_| flt(r)).collect()
        })
        .collect();
    let k = int(r);
    let x = flt(r);
    inputs(a, b, c, m, n, k, x)
}

/// The inputs every function runs on.
fn cases() -> Vec<(&'static str, Inputs)> {
    let r = &mut Rng::new(SEED);
    let empty = inputs(vec![], vec![], vec![], vec![], vec![], 0, 0.0);
    let empty_rows = inputs(
        vec![],
        vec![],
        vec![],
        vec![vec![], vec![]],
        vec![vec![]],
        1,
        -0.0,
    );
    let small = random(r, 5, 3, 3);
    // One row holding almost everything, beside empty and one-element rows.
    let mut skewed = random(r, 9, 3, 2);
    skewed.m = vec![
        vec![],
        (0..40).map(|i| (i * 7) % 23 - 11).collect(),
        vec![3],
    ];
    skewed.n_rows = vec![
        vec![0.5],
        vec![],
        (0..38).map(|i| f64::from(i % 9) * 0.75 - 2.0).collect(),
    ];
    skewed.n = nested(&skewed.n_rows);
    // Edge values: extreme integers, NaN, infinities, signed zeros; `k` zero (a divisor).
    let edges = inputs(
        vec![i64::MIN, -65, -1, 0, 1, 63, 64, i64::MAX],
        vec![
            f64::NAN,
            f64::NEG_INFINITY,
            -0.0,
            0.0,
            5e-324,
            1e300,
            -2.5,
            f64::INFINITY,
        ],
        vec![true, false, true, true, false, false, true, false],
        vec![vec![i64::MAX, i64::MIN], vec![0], vec![]],
        vec![vec![f64::NAN, 1.0], vec![], vec![-0.0, f64::INFINITY, 0.25]],
        0,
        f64::NAN,
    );
    // A bad index (`k` past every array) and slices of different lengths (zips disagree).
    let mut bad = random(r, 6, 4, 4);
    bad.k = 1000;
    bad.b.truncate(3);
    bad.c.clear();
    let wide = random(r, 48, 8, 12);
    vec![
        ("empty", empty),
        ("empty rows", empty_rows),
        ("small", small),
        ("one full row", skewed),
        ("edge values", edges),
        ("bad index, unequal lengths", bad),
        ("wide", wide),
    ]
}

/// The arguments at positions `used` of the generator's parameters.
fn args(i: &Inputs, used: &[usize]) -> Vec<Value> {
    let all = [
        i.a.clone().to_value(),
        i.b.clone().to_value(),
        i.c.clone().to_value(),
        i.m.clone().to_value(),
        i.n_rows.clone().to_value(),
        Value::I64(i.k),
        Value::F64(i.x),
    ];
    used.iter().map(|&p| all[p].clone()).collect()
}

#[test]
fn generated_functions_equal_eval() {
    let inputs = cases();
    let mut failures = Vec::new();
    let (mut runs, mut errors) = (0, 0);
    // Parallel lanes on pools of other sizes too: the bits must not depend on the thread count.
    let pools: Vec<(String, rayon::ThreadPool)> = [1, 3, 8]
        .into_iter()
        .map(|t| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build();
            (format!("per_lane (parallel, {t} threads) "), pool.unwrap())
        })
        .collect();
    for (module, cases) in modules().iter().zip(CASES) {
        assert_eq!(module.functions.len(), cases.len(), "the corpus is stale");
        for ((name, used), (case_name, run, per_lane)) in module.functions.iter().zip(cases) {
            assert_eq!(name, case_name, "the corpus is stale");
            for (what, i) in &inputs {
                let want = eval::run(&module.program, name, args(i, used))
                    .map_err(|e| format!("error: {e}"));
                runs += 1;
                errors += usize::from(want.is_err());
                let forced = |l| lane::with_lanes(l, || per_lane(i));
                let mut outcomes = vec![
                    ("try_".to_string(), run(i)),
                    (
                        "try_ (flatten forced) ".into(),
                        with_strategy(Strategy::Flatten, || run(i)),
                    ),
                    (
                        "try_ (per-lane forced) ".into(),
                        with_strategy(Strategy::PerLane, || run(i)),
                    ),
                    ("per_lane (sequential) ".into(), forced(Lanes::Sequential)),
                    ("per_lane (parallel) ".into(), forced(Lanes::Parallel)),
                ];
                for (code, pool) in &pools {
                    outcomes.push((code.clone(), pool.install(|| forced(Lanes::Parallel))));
                }
                for (code, have) in outcomes {
                    let same = match (&want, &have) {
                        (Ok(w), Ok(h)) => w == h,
                        (Err(w), Err(h)) => w == h,
                        _ => false,
                    };
                    if !same {
                        let s = |r: &Result<Value, String>| match r {
                            Ok(v) => show(v),
                            Err(e) => e.clone(),
                        };
                        failures.push(format!(
                            "{name} on {what}:\n  eval   {:.300}\n  {code}{name} {:.300}",
                            s(&want),
                            s(&have)
                        ));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} runs differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{runs} runs compared, {errors} of them errors");
    // Errors are compared too, but most runs must compute a value.
    assert!(errors * 2 < runs, "{errors} of {runs} runs failed");
}
