//! The flattened executor: runs a program through the lifting transformation
//! ([`crate::flatten`]) on the runtime's bulk primitives, from the top-level context of one lane.
//!
//! Results are bitwise those of [`crate::eval`] (floats included: every reduction and scan uses
//! the canonical association), and runtime errors name the same operation and lane.
//!
//! ```
//! use flatland_vectoriser::{exec, eval, programs, value::Value};
//! let (p, _) = programs::smvm();
//! let rows = Value::array(vec![Value::array(vec![Value::Tuple(vec![Value::I64(1), Value::F64(2.0)])]), Value::array(vec![])]);
//! let v = Value::array(vec![Value::F64(1.0), Value::F64(5.0)]);
//! let flat = exec::run(p.ir(), "smvm", vec![rows.clone(), v.clone()]).unwrap();
//! assert_eq!(flat, eval::run(p.ir(), "smvm", vec![rows, v]).unwrap());
//! ```

use crate::check;
use crate::error::{Error, Result};
use crate::eval;
use crate::flatten::{Ctx, Flattener};
use crate::ir::Program;
use crate::lval::LVal;
use crate::value::Value;

/// Checks `p` and the arguments, then runs `function` flattened.
///
/// # Errors
/// A type error in the program, arguments that do not fit, or a runtime error naming the
/// operation and lane (as [`eval::run`] names them).
///
/// ```
/// use flatland_vectoriser::{exec, ir::{Expr, Function, Lambda, Program, Type}, value::Value};
/// let body = Expr::map(Lambda::new(&["x"], Expr::i64(10) / Expr::var("x")), vec![Expr::var("xs")]);
/// let p = Program::new(vec![Function::new("f", vec![("xs".into(), Type::array(Type::I64))], Type::array(Type::I64), body)]);
/// let xs = Value::array(vec![Value::I64(5), Value::I64(0)]);
/// assert_eq!(exec::run(&p, "f", vec![xs]).unwrap_err().to_string(), "div: lane 1: division by zero");
/// ```
pub fn run(p: &Program, function: &str, args: Vec<Value>) -> Result<Value> {
    let types = check::annotate(p)?;
    eval::check_args(p, function, &args)?;
    let f = p.function(function).ok_or_else(|| Error::Input {
        detail: format!("no function `{function}`"),
    })?;
    let largs = args
        .iter()
        .zip(&f.params)
        .map(|(a, (_, t))| LVal::from_values(std::slice::from_ref(a), t))
        .collect::<Result<_>>()?;
    let out = Flattener::new(p, types).call(function, largs, &Ctx::top())?;
    out.to_values().pop().ok_or_else(|| Error::Input {
        detail: "no result".into(),
    })
}
