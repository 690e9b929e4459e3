//! The dsl's reductions by index ([`hist`], [`hist_with`], [`count_by_index`]: the IR's
//! [`Expr::Hist`]) and sequential loops with carried state ([`loop_n`], [`iterate_while`]: the
//! IR's [`Expr::Loop`]), re-exported by [`crate::dsl`].
//!
//! ```
//! use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder};
//! use flatland_vectoriser::dsl::count_by_index;
//! let mut p = ProgramBuilder::new();
//! let f = p.function("counts", ["ks"], |_, ks: Ex<Arr<i64>>| count_by_index(3, ks));
//! assert_eq!(p.eval(&f, vec![0, 2, 2, -1, 9]).unwrap(), vec![1, 0, 2]);
//! assert_eq!(p.exec(&f, vec![0, 2, 2, -1, 9]).unwrap(), vec![1, 0, 2]);
//! ```

use crate::derived;
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
/// use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder};
/// use flatland_vectoriser::{dsl::hist, ir::ReduceOp};
/// let mut p = ProgramBuilder::new();
/// let f = p.function("sums", ["ks", "vs"], |_, (ks, vs): (Ex<Arr<i64>>, Ex<Arr<f64>>)| hist(2, 0.0, ReduceOp::Add, ks, vs));
/// assert_eq!(p.eval(&f, (vec![1, 1, 0], vec![0.5, 1.0, 2.0])).unwrap(), vec![2.0, 1.5]);
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
/// use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder};
/// use flatland_vectoriser::dsl::hist_with;
/// let mut p = ProgramBuilder::new();
/// let f = p.function("h", ["ks", "vs"], |_, (ks, vs): (Ex<Arr<i64>>, Ex<Arr<i64>>)| {
///     hist_with(2, 0, |a, b| a + b * 2, ks, vs)
/// });
/// assert_eq!(p.exec(&f, (vec![0, 0, 1], vec![1, 2, 3])).unwrap(), vec![6, 6]);
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
/// use flatland_vectoriser::dsl::count_by_index;
/// assert!(count_by_index(4, iota(3)).expr().to_string().contains("hist(4, 0, +"));
/// ```
pub fn count_by_index(bins: impl Into<Ex<i64>>, indices: impl Into<Ex<Arr<i64>>>) -> Ex<Arr<i64>> {
    Ex::wrap(derived::count_by_index(
        bins.into().expr().clone(),
        indices.into().expr().clone(),
        &fresh("k"),
    ))
}

/// `loop(init, for n, |state, i| body)`: `n` iterations (none when `n <= 0`) of `body` on the
/// state, `i` counting from 0; the result is the last state ([`Expr::Loop`]). Under `map` each
/// lane runs its own number of iterations.
///
/// ```
/// use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder};
/// use flatland_vectoriser::dsl::loop_n;
/// let mut p = ProgramBuilder::new();
/// // Each row's sum of squares of 0..len, by a loop per lane.
/// let f = p.function("f", ["rows"], |_, rows: Ex<Arr<Arr<i64>>>| rows.map(|r| loop_n(0, r.len(), |s, i| s + i.clone() * i)));
/// let rows = vec![vec![], vec![7], vec![1, 2, 3]];
/// assert_eq!(p.eval(&f, rows.clone()).unwrap(), vec![0, 0, 5]);
/// assert_eq!(p.exec(&f, rows).unwrap(), vec![0, 0, 5]);
/// ```
pub fn loop_n<S>(
    init: impl Into<Ex<S>>,
    n: impl Into<Ex<i64>>,
    body: impl FnOnce(Ex<S>, Ex<i64>) -> Ex<S>,
) -> Ex<S> {
    let (s, i) = (fresh("s"), fresh("i"));
    let b = body(Ex::wrap(Expr::var(&s)), Ex::wrap(Expr::var(&i)));
    Ex::wrap(Expr::loop_for(
        init.into().expr().clone(),
        n.into().expr().clone(),
        Lambda::new(&[&s, &i], b.expr().clone()),
    ))
}

/// `loop(init, while |state| cond, |state| body)`: `body` applied to the state while `cond`
/// holds of it (checked before each iteration); the result is the first state where it does
/// not. Under `map` each lane stops on its own.
///
/// ```
/// use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder};
/// use flatland_vectoriser::dsl::iterate_while;
/// let mut p = ProgramBuilder::new();
/// let f = p.function("f", ["xs"], |_, xs: Ex<Arr<i64>>| xs.map(|x| iterate_while(x, |s| s.lt(100), |s| s * 2)));
/// assert_eq!(p.exec(&f, vec![1, 30, 500]).unwrap(), vec![128, 120, 500]);
/// ```
pub fn iterate_while<S>(
    init: impl Into<Ex<S>>,
    cond: impl FnOnce(Ex<S>) -> Ex<bool>,
    body: impl FnOnce(Ex<S>) -> Ex<S>,
) -> Ex<S> {
    let (c, s) = (fresh("c"), fresh("s"));
    let cb = cond(Ex::wrap(Expr::var(&c)));
    let b = body(Ex::wrap(Expr::var(&s)));
    Ex::wrap(Expr::loop_while(
        init.into().expr().clone(),
        Lambda::new(&[&c], cb.expr().clone()),
        Lambda::new(&[&s], b.expr().clone()),
    ))
}
