//! The dsl's reductions by index: [`hist`], [`hist_with`] and [`count_by_index`] (the IR's
//! [`Expr::Hist`]), beside the builders of [`crate::dsl`].
//!
//! ```
//! use flatland_vectoriser::dsl::{Arr, Ex, Program};
//! use flatland_vectoriser::dsl_loops::count_by_index;
//! let mut p = Program::new();
//! let f = p.function1("counts", |_, ks: Ex<Arr<i64>>| count_by_index(3, ks));
//! assert_eq!(p.eval1(&f, vec![0, 2, 2, -1, 9]).unwrap(), vec![1, 0, 2]);
//! assert_eq!(p.exec1(&f, vec![0, 2, 2, -1, 9]).unwrap(), vec![1, 0, 2]);
//! ```

use crate::dsl::{Arr, Ex};
use crate::ir::{Expr, Lambda, ReduceOp};
use std::sync::atomic::{AtomicUsize, Ordering};

static FRESH: AtomicUsize = AtomicUsize::new(0);

/// A name no other builder hands out (the prefix is this module's own).
fn fresh(prefix: &str) -> String {
    format!("__loop_{prefix}{}", FRESH.fetch_add(1, Ordering::Relaxed))
}

/// `hist(bins, identity, op, indices, values)` with a built-in operator: `bins` bins, bin `k`
/// the fold with `op` from `identity` of the values whose index is `k`; indices outside
/// `0..bins` are skipped ([`Expr::Hist`]).
///
/// ```
/// use flatland_vectoriser::dsl::{Arr, Ex, Program};
/// use flatland_vectoriser::{dsl_loops::hist, ir::ReduceOp};
/// let mut p = Program::new();
/// let f = p.function2("sums", |_, ks: Ex<Arr<i64>>, vs: Ex<Arr<f64>>| hist(2, 0.0, ReduceOp::Add, ks, vs));
/// assert_eq!(p.eval2(&f, vec![1, 1, 0], vec![0.5, 1.0, 2.0]).unwrap(), vec![2.0, 1.5]);
/// ```
pub fn hist<T>(
    bins: impl Into<Ex<i64>>,
    identity: impl Into<Ex<T>>,
    op: ReduceOp,
    indices: impl Into<Ex<Arr<i64>>>,
    values: impl Into<Ex<Arr<T>>>,
) -> Ex<Arr<T>> {
    Ex::wrap(Expr::hist(
        bins.into().expr().clone(),
        identity.into().expr().clone(),
        op,
        indices.into().expr().clone(),
        values.into().expr().clone(),
    ))
}

/// [`hist`] with an associative lambda as the operator.
///
/// ```
/// use flatland_vectoriser::dsl::{Arr, Ex, Program};
/// use flatland_vectoriser::dsl_loops::hist_with;
/// let mut p = Program::new();
/// let f = p.function2("h", |_, ks: Ex<Arr<i64>>, vs: Ex<Arr<i64>>| {
///     hist_with(2, 0, |a, b| a + b * 2, ks, vs)
/// });
/// assert_eq!(p.exec2(&f, vec![0, 0, 1], vec![1, 2, 3]).unwrap(), vec![6, 6]);
/// ```
pub fn hist_with<T>(
    bins: impl Into<Ex<i64>>,
    identity: impl Into<Ex<T>>,
    op: impl FnOnce(Ex<T>, Ex<T>) -> Ex<T>,
    indices: impl Into<Ex<Arr<i64>>>,
    values: impl Into<Ex<Arr<T>>>,
) -> Ex<Arr<T>> {
    let (a, b) = (fresh("a"), fresh("b"));
    let body = op(Ex::wrap(Expr::var(&a)), Ex::wrap(Expr::var(&b)));
    let op = ReduceOp::Lambda(Lambda::new(&[&a, &b], body.expr().clone()));
    hist(bins, identity, op, indices, values)
}

/// `bins` bins, bin `k` the number of `indices` equal to `k` (others skipped): [`hist`] of
/// ones with `+`.
///
/// ```
/// use flatland_vectoriser::dsl::{iota, Ex};
/// use flatland_vectoriser::dsl_loops::count_by_index;
/// assert!(count_by_index(4, iota(3)).expr().to_string().contains("hist(4, 0, +"));
/// ```
pub fn count_by_index(bins: impl Into<Ex<i64>>, indices: impl Into<Ex<Arr<i64>>>) -> Ex<Arr<i64>> {
    Ex::wrap(count_by_index_expr(
        bins.into().expr().clone(),
        indices.into().expr().clone(),
        &fresh("k"),
    ))
}

/// The IR of `count_by_index(bins, indices)`, the indices bound once to `name`.
///
/// ```
/// use flatland_vectoriser::{dsl_loops::count_by_index_expr, ir::Expr};
/// let e = count_by_index_expr(Expr::i64(2), Expr::var("ks"), "k");
/// assert_eq!(e.to_string(), "let k = ks in\nhist(2, 0, +, k, replicate(length(k), 1))");
/// ```
pub fn count_by_index_expr(bins: Expr, indices: Expr, name: &str) -> Expr {
    let k = Expr::var(name);
    let ones = Expr::replicate(Expr::length(k.clone()), Expr::i64(1));
    Expr::let_(
        name,
        indices,
        Expr::hist(bins, Expr::i64(0), ReduceOp::Add, k, ones),
    )
}
