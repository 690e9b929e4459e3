//! Shared by the fusion tests: run a program three ways (eval, exec unfused, exec fused) and
//! insist on bitwise agreement, results and errors.

#![allow(dead_code)] // each test file uses its own subset

use flatland_vectoriser::exec::{self, ExecOptions};
use flatland_vectoriser::ir::Program;
use flatland_vectoriser::value::Value;
use flatland_vectoriser::{eval, fuse};

/// Execution with fusion off.
pub(crate) const OFF: ExecOptions = ExecOptions { fuse: false };

/// An array of `f64` values.
pub(crate) fn f64s(xs: &[f64]) -> Value {
    Value::array(xs.iter().map(|&x| Value::F64(x)).collect())
}

/// An array of `i64` values.
pub(crate) fn i64s(xs: &[i64]) -> Value {
    Value::array(xs.iter().map(|&x| Value::I64(x)).collect())
}

/// Runs `f` of `p` through eval, exec unfused and exec fused; all three must agree bitwise.
pub(crate) fn agree(p: &Program, f: &str, args: Vec<Value>) -> flatland_vectoriser::Result<Value> {
    let e = eval::run(p, f, args.clone());
    let u = exec::run_with(p, f, args.clone(), &OFF);
    let x = exec::run(p, f, args);
    assert_eq!(e, u, "eval and unfused exec differ\n{p}");
    assert_eq!(
        e,
        x,
        "eval and fused exec differ\nfused:\n{}",
        fuse::fuse(p)
    );
    e
}
