//! A filter of a range longer than the memory budget allows: the range is filtered in chunks
//! (never built whole), yet the budget refuses it before any chunk, with the error the unchunked
//! filter gives (the range's allocation). Its own test binary: the budget is process-wide.

use flatland_runtime::Error as RtError;
use flatland_vectoriser::Error;
use flatland_vectoriser::exec::{ExecOptions, Prepared};
use flatland_vectoriser::ir::{BinaryOp, Expr, Function, Lambda, Program, Type};
use flatland_vectoriser::value::Value;

#[test]
fn a_range_over_the_budget_is_refused_as_whole() {
    // `(0..n).filter(|i| i % 2 == 0)`.
    let even = Lambda::new(
        &["i"],
        Expr::binary(
            BinaryOp::Eq,
            Expr::binary(BinaryOp::Rem, Expr::var("i"), Expr::i64(2)),
            Expr::i64(0),
        ),
    );
    let range = Expr::iota(Expr::var("n"), Expr::i64(0), Expr::i64(1));
    let p = Program::new(vec![Function::new(
        "evens",
        vec![("n".into(), Type::I64)],
        Type::array(Type::I64),
        Expr::proj(Expr::filter(vec![even], range), 0),
    )]);
    flatland_runtime::budget::set_limit(Some(1 << 24));
    for fuse in [true, false] {
        let prepared = Prepared::new(&p, "evens", &ExecOptions { fuse }).unwrap();
        let e = prepared.run(vec![Value::I64(1 << 40)]).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Runtime(RtError::MemoryBudget {
                    what: "iota_s output",
                    ..
                })
            ),
            "{e}"
        );
        assert!(!prepared.trace().to_string().contains("filter iota chunks"));
    }
    // Within the budget: chunks.
    let prepared = Prepared::new(&p, "evens", &ExecOptions::default()).unwrap();
    let Value::Array(evens) = prepared.run(vec![Value::I64(1 << 19)]).unwrap() else {
        panic!("not an array")
    };
    assert_eq!(evens.len(), 1 << 18);
    assert!(
        prepared
            .trace()
            .to_string()
            .contains("filter iota chunks: 1 by its kernel")
    );
}
