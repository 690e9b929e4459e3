//! The environment of lifted values: the variables in scope while the executor walks a
//! function body, each bound to its lifted value (one value per lane of the current context).
//! The executor's walk (`flatten`), the single-pass kernels (`kernels`) and the native-kernel
//! walk (`native`, with values of the right types and no lanes) read variables through it.
//!
//! A lookup is a reverse linear scan over the bindings (innermost first): environments hold a
//! function's parameters and its `let`s, a few dozen names.

use crate::error::Result;
use crate::lval::{LVal, internal};

/// Bindings, innermost last; `None` once released after the variable's last use.
pub(crate) type Env = Vec<(String, Option<LVal>)>;

/// The value bound to `name`, innermost binding first.
///
/// # Errors
/// An internal error when `name` is unbound or was released after its last use.
pub(crate) fn lookup<'e>(env: &'e Env, name: &str) -> Result<&'e LVal> {
    match env.iter().rev().find(|(n, _)| n == name) {
        Some((_, Some(v))) => Ok(v),
        Some((_, None)) => Err(internal(format!("`{name}` used after its last use"))),
        None => Err(internal(format!("unbound `{name}`"))),
    }
}
