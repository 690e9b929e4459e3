//! Bulk steps over indices that are generated, not stored: a scatter at the `concat` of mapped
//! progressions (rule `scatter-progressions`, NESL's sieve) and a filter of a long range
//! (classified in chunks, never materialised). Each program runs three ways (eval, exec
//! unfused, exec fused) and must agree bitwise, errors included; the trace shows which
//! kernels ran.

use flatland_vectoriser::exec::{ExecOptions, Prepared};
use flatland_vectoriser::fuse;
use flatland_vectoriser::ir::{BinaryOp, Expr, Function, Lambda, Program, Type};
use flatland_vectoriser::value::Value;

mod agree;

use agree::{agree, i64s};

fn v(n: &str) -> Expr {
    Expr::var(n)
}

/// `sieve(ps, m, x)`: `m` copies of `true` with `x` written at the multiples `2p, 3p, .. < m`
/// of every `p` of `ps` (the progressions `iota(count, 2p + shift, p)`, `count` as NESL's
/// sieve computes it, plus `extra` positions past the end).
fn sieve(extra: i64, shift: i64) -> Program {
    let q = v("q");
    let count = Expr::if_(
        Expr::binary(BinaryOp::Lt, q.clone() * Expr::i64(2), v("m")),
        (v("m") - Expr::i64(1) - q.clone() * Expr::i64(2)) / q.clone() + Expr::i64(1 + extra),
        Expr::i64(0),
    );
    let progression = Lambda::new(
        &["q"],
        Expr::let_(
            "lo",
            q.clone() * Expr::i64(2) + Expr::i64(shift),
            Expr::iota(count, v("lo"), q),
        ),
    );
    let body = Expr::let_(
        "ix",
        Expr::concat(Expr::map(progression, vec![v("ps")])),
        Expr::scatter(
            Expr::replicate(v("m"), Expr::bool(true)),
            v("ix"),
            Expr::replicate(Expr::length(v("ix")), v("x")),
        ),
    );
    Program::new(vec![Function::new(
        "sieve",
        vec![
            ("ps".into(), Type::array(Type::I64)),
            ("m".into(), Type::I64),
            ("x".into(), Type::Bool),
        ],
        Type::array(Type::Bool),
        body,
    )])
}

fn trace_of(p: &Program, f: &str, args: Vec<Value>) -> String {
    let prepared = Prepared::new(p, f, &ExecOptions::default()).unwrap();
    prepared.run(args).unwrap();
    prepared.trace().to_string()
}

#[test]
fn a_scatter_at_generated_progressions_is_fused_and_exact() {
    let p = sieve(0, 0);
    let (_, rules) = fuse::fuse_reporting(&p);
    assert!(rules.contains(&"scatter-progressions"), "{rules:?}");
    for (ps, m) in [
        (vec![2, 3, 5, 7], 100),
        (vec![], 10),
        (vec![2, 2, 3], 7),
        (vec![50, 2], 1_000),
    ] {
        let args = vec![i64s(&ps), Value::I64(m), Value::Bool(false)];
        let flags = agree(&p, "sieve", args.clone()).unwrap();
        let Value::Array(flags) = flags else {
            panic!("not an array")
        };
        for (i, f) in flags.iter().enumerate() {
            let composite = ps.iter().any(|&q| i as i64 >= 2 * q && i as i64 % q == 0);
            assert_eq!(
                *f,
                Value::Bool(!composite),
                "position {i} of {ps:?} below {m}"
            );
        }
        let trace = trace_of(&p, "sieve", args);
        assert!(
            trace.contains("scatter-progressions: 1 by its kernel"),
            "{trace}"
        );
    }
}

#[test]
fn a_bad_progression_is_the_original_error() {
    // One position past the end: the scatter's error, from the unfused steps.
    let args = vec![i64s(&[3]), Value::I64(10), Value::Bool(false)];
    declined(
        &sieve(1, 0),
        "sieve",
        args,
        "scatter",
        "scatter-progressions",
    );
    // A negative length: the `iota`'s error. A negative start: the scatter's.
    let e = agree(
        &sieve(-5, 0),
        "sieve",
        vec![i64s(&[3]), Value::I64(10), Value::Bool(false)],
    );
    assert!(e.unwrap_err().to_string().contains("iota"));
    let e = agree(
        &sieve(0, -7),
        "sieve",
        vec![i64s(&[3]), Value::I64(10), Value::Bool(false)],
    );
    assert!(e.unwrap_err().to_string().contains("scatter"));
}

/// Runs `f` three ways expecting an error that mentions `word`, the kernel `kind` declining it
/// once (the unfused steps report it).
fn declined(p: &Program, f: &str, args: Vec<Value>, word: &str, kind: &str) {
    let e = agree(p, f, args.clone()).unwrap_err();
    assert!(e.to_string().contains(word), "{e}");
    let prepared = Prepared::new(p, f, &ExecOptions::default()).unwrap();
    assert!(prepared.run(args).is_err());
    let trace = prepared.trace().to_string();
    assert!(
        trace.contains(&format!("{kind}: 0 by its kernel, 1 declined")),
        "{trace}"
    );
}

#[test]
fn the_fused_scatter_runs_under_a_map_one_destination_per_lane() {
    // `map(|m| sieve(ps, m, m % 2 == 0), ms)`: lanes of different lengths and values.
    let inner = sieve(0, 0);
    let body = Expr::map(
        Lambda::new(
            &["m"],
            Expr::call(
                "sieve",
                vec![
                    v("ps"),
                    v("m"),
                    Expr::binary(
                        BinaryOp::Eq,
                        Expr::binary(BinaryOp::Rem, v("m"), Expr::i64(2)),
                        Expr::i64(0),
                    ),
                ],
            ),
        ),
        vec![v("ms")],
    );
    let mut functions = inner.functions.clone();
    functions.push(Function::new(
        "lanes",
        vec![
            ("ps".into(), Type::array(Type::I64)),
            ("ms".into(), Type::array(Type::I64)),
        ],
        Type::array(Type::array(Type::Bool)),
        body,
    ));
    let p = Program::new(functions);
    let args = vec![i64s(&[2, 3, 5]), i64s(&[0, 1, 30, 7, 64, 3])];
    agree(&p, "lanes", args.clone()).unwrap();
    let trace = trace_of(&p, "lanes", args);
    assert!(
        trace.contains("scatter-progressions: 1 by its kernel"),
        "{trace}"
    );
}

/// `filter([|i| p(i)], iota(n, start, step)).0` with `p(i) = i % k == r || xs[i mod len(xs)] > 0`.
fn range_filter() -> Program {
    let i = v("i");
    let pred = Lambda::new(
        &["i"],
        Expr::binary(
            BinaryOp::Or,
            Expr::binary(
                BinaryOp::Eq,
                Expr::binary(BinaryOp::Rem, i.clone(), v("k")),
                v("r"),
            ),
            Expr::binary(
                BinaryOp::Gt,
                Expr::index(v("xs"), {
                    // ((i % len) + len) % len: in range for negative `i` too.
                    let len = Expr::length(v("xs"));
                    let rem = Expr::binary(BinaryOp::Rem, i, len.clone());
                    Expr::binary(BinaryOp::Rem, rem + len.clone(), len)
                }),
                Expr::i64(0),
            ),
        ),
    );
    let range = Expr::let_("s", v("start"), Expr::iota(v("n"), v("s"), v("step")));
    Program::new(vec![Function::new(
        "f",
        ["n", "start", "step", "k", "r"]
            .iter()
            .map(|n| (n.to_string(), Type::I64))
            .chain([("xs".to_string(), Type::array(Type::I64))])
            .collect(),
        Type::array(Type::I64),
        Expr::proj(Expr::filter(vec![pred], range), 0),
    )])
}

/// The arguments of [`range_filter`]: `n, start, step, k, r` and `xs`.
fn range_args(scalars: [i64; 5], xs: &[i64]) -> Vec<Value> {
    scalars
        .map(Value::I64)
        .into_iter()
        .chain([i64s(xs)])
        .collect()
}

#[test]
fn a_long_range_is_filtered_in_chunks_exactly() {
    let p = range_filter();
    let xs: Vec<i64> = (0..1000).map(|j| i64::from(j % 97 == 0)).collect();
    // Longer than one chunk (2^18), with positive, negative and wrapping steps.
    for (n, start, step) in [
        (600_000, 0, 1),
        (300_001, 5, 3),
        (400_000, 1_000_000, -2),
        (300_000, i64::MAX - 10, 1),
    ] {
        let args = range_args([n, start, step, 1009, 4], &xs);
        agree(&p, "f", args.clone()).unwrap();
        let trace = trace_of(&p, "f", args);
        assert!(
            trace.contains("filter iota chunks: 1 by its kernel"),
            "{trace}"
        );
    }
    // A predicate that fails (`% 0`) at some element: the whole filter's error.
    let args = range_args([300_000, 0, 1, 0, 0], &xs);
    declined(&p, "f", args, "zero", "filter iota chunks");
    // A short range is filtered whole, with no chunk and no decline.
    let args = range_args([1000, 0, 1, 7, 1], &xs);
    agree(&p, "f", args.clone()).unwrap();
    assert!(!trace_of(&p, "f", args).contains("filter iota chunks"));
}
