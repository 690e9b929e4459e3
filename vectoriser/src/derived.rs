//! The selection operations written in the core IR: `any`, `all`, `count`, `first`, `last`,
//! `argmin`, `argmax`, `rev`, `enumerate`, `take`, `skip`, `count_by_index`. `#[vectorise]` and the dsl build them
//! here, so both mean the same program (and every execution path runs core constructs the
//! random-program tests cover).
//!
//! - `any(p, a)` / `all(p, a)`: a redomap of `p` with `or` / `and` (`false` / `true` when empty).
//! - `count(p, a)`: the number of elements where `p` holds, a redomap of `if p then 1 else 0`.
//! - `first(a)` / `last(a)`: `a[0]` / `a[len(a) - 1]`; on an empty array an index error
//!   (`Error::IndexOutOfRange` naming `index`), there being no `Option` in the IR.
//! - `argmin(a)` / `argmax(a)`: the index of the first least / greatest element by `<` / `>`
//!   (first on ties; `-0.0` and `0.0` tie), or of the first NaN if there is one (as the
//!   built-in `min` / `max` reductions are NaN then), and `-1` for the empty array.
//! - `sort_by_key(f, a)`: `a` gathered by the stable `argsort` of its keys (`sort` and
//!   `argsort` themselves are the IR's [`Expr::Sort`]).
//! - `rev(a)`, `enumerate(a)` (pairs `(i, x)`), `take(a, n)` / `skip(a, n)` (the first `n` /
//!   all but the first `n` elements; `n` is clamped to `0..=len(a)`, as Rust's iterators take
//!   or skip at most what there is).
//!
//! ```
//! use flatland_vectoriser::{derived, eval, ir::{Expr, Function, Program, Type}, value::Value};
//! let body = derived::argmax(Expr::var("xs"), &Type::F64).unwrap();
//! let f = Function::new("f", vec![("xs".into(), Type::array(Type::F64))], Type::I64, body);
//! let p = Program::new(vec![f]);
//! let xs = Value::array(vec![Value::F64(1.0), Value::F64(3.0), Value::F64(3.0)]);
//! assert_eq!(eval::run(&p, "f", vec![xs]).unwrap(), Value::I64(1));
//! ```

use crate::ir::{BinaryOp, Expr, Lambda, ReduceOp, SortOp, Type, UnaryOp};

/// The variable an operation binds its array to (only its own body sees it).
const ARRAY: &str = "__derived_a";

fn bind(a: Expr, body: impl FnOnce(Expr) -> Expr) -> Expr {
    Expr::let_(ARRAY, a, body(Expr::var(ARRAY)))
}

fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}

/// `true` if `p` holds for some element of `a`.
///
/// ```
/// use flatland_vectoriser::{derived, ir::{Expr, Lambda}};
/// let p = Lambda::new(&["x"], Expr::var("x").lt(Expr::i64(0)));
/// assert!(derived::any(p, Expr::var("xs")).to_string().starts_with("redomap(or"));
/// ```
pub fn any(p: Lambda, a: Expr) -> Expr {
    Expr::redomap(ReduceOp::Or, Expr::bool(false), p, vec![a])
}

/// `true` if `p` holds for every element of `a`.
///
/// ```
/// use flatland_vectoriser::{derived, ir::{Expr, Lambda}};
/// let p = Lambda::new(&["x"], Expr::var("x").lt(Expr::i64(0)));
/// assert!(derived::all(p, Expr::var("xs")).to_string().starts_with("redomap(and"));
/// ```
pub fn all(p: Lambda, a: Expr) -> Expr {
    Expr::redomap(ReduceOp::And, Expr::bool(true), p, vec![a])
}

/// The number of elements of `a` for which `p` holds (an `i64`).
///
/// ```
/// use flatland_vectoriser::{derived, ir::{Expr, Lambda}};
/// let p = Lambda::new(&["x"], Expr::var("x").lt(Expr::i64(0)));
/// assert!(derived::count(p, Expr::var("xs")).to_string().starts_with("redomap(+, 0"));
/// ```
pub fn count(p: Lambda, a: Expr) -> Expr {
    let one = Lambda {
        params: p.params,
        body: std::sync::Arc::new(Expr::if_((*p.body).clone(), Expr::i64(1), Expr::i64(0))),
    };
    Expr::redomap(ReduceOp::Add, Expr::i64(0), one, vec![a])
}

/// `a[0]` (an index error when `a` is empty).
///
/// ```
/// use flatland_vectoriser::{derived, ir::Expr};
/// assert_eq!(derived::first(Expr::var("xs")).to_string(), "xs[0]");
/// ```
pub fn first(a: Expr) -> Expr {
    Expr::index(a, Expr::i64(0))
}

/// `a[len(a) - 1]` (an index error when `a` is empty).
///
/// ```
/// use flatland_vectoriser::{derived, ir::Expr};
/// assert!(derived::last(Expr::var("xs")).to_string().contains("length("));
/// ```
pub fn last(a: Expr) -> Expr {
    bind(a, |a| {
        Expr::index(a.clone(), Expr::length(a) - Expr::i64(1))
    })
}

/// `a` reversed.
///
/// ```
/// use flatland_vectoriser::{derived, ir::Expr};
/// assert!(derived::rev(Expr::var("xs")).to_string().contains("iota("));
/// ```
pub fn rev(a: Expr) -> Expr {
    bind(a, |a| {
        let n = Expr::length(a.clone());
        let at = Expr::index(a, n.clone() - Expr::i64(1) - Expr::var("__derived_i"));
        Expr::map(
            Lambda::new(&["__derived_i"], at),
            vec![Expr::iota(n, Expr::i64(0), Expr::i64(1))],
        )
    })
}

/// The pairs `(i, a[i])`.
///
/// ```
/// use flatland_vectoriser::{derived, ir::Expr};
/// assert!(derived::enumerate(Expr::var("xs")).to_string().contains("map("));
/// ```
pub fn enumerate(a: Expr) -> Expr {
    bind(a, |a| {
        let pair = Lambda::new(
            &["__derived_i", "__derived_x"],
            Expr::Tuple(vec![Expr::var("__derived_i"), Expr::var("__derived_x")]),
        );
        let n = Expr::length(a.clone());
        Expr::map(pair, vec![Expr::iota(n, Expr::i64(0), Expr::i64(1)), a])
    })
}

/// `min(max(n, 0), len(a))`.
fn clamped(n: Expr, a: &Expr) -> Expr {
    bin(
        BinaryOp::Min,
        bin(BinaryOp::Max, n, Expr::i64(0)),
        Expr::length(a.clone()),
    )
}

/// The first `n` elements of `a` (all of them if `n >= len(a)`, none if `n <= 0`).
///
/// ```
/// use flatland_vectoriser::{derived, ir::Expr};
/// assert!(derived::take(Expr::var("xs"), Expr::i64(2)).to_string().contains("slice("));
/// ```
pub fn take(a: Expr, n: Expr) -> Expr {
    bind(a, |a| {
        let k = clamped(n, &a);
        Expr::slice(a, Expr::i64(0), k)
    })
}

/// `a` without its first `n` elements (empty if `n >= len(a)`, all of `a` if `n <= 0`).
///
/// ```
/// use flatland_vectoriser::{derived, ir::Expr};
/// assert!(derived::skip(Expr::var("xs"), Expr::i64(2)).to_string().contains("slice("));
/// ```
pub fn skip(a: Expr, n: Expr) -> Expr {
    bind(a, |a| {
        let k = clamped(n, &a);
        let rest = Expr::length(a.clone()) - k.clone();
        Expr::slice(a, k, rest)
    })
}

/// `a` sorted stably by the keys `key(x)` (numbers, in `i64` or `f64::total_cmp` order): the
/// elements gathered by `argsort(map(key, a))`.
///
/// ```
/// use flatland_vectoriser::{derived, ir::{Expr, Lambda}};
/// let k = Lambda::new(&["x"], Expr::var("x").lt(Expr::i64(0)));
/// assert!(derived::sort_by_key(k, Expr::var("xs")).to_string().contains("argsort(map("));
/// ```
pub fn sort_by_key(key: Lambda, a: Expr) -> Expr {
    bind(a, |a| {
        let idx = Expr::sort(SortOp::Indices, Expr::map(key, vec![a.clone()]));
        let at = Expr::index(a, Expr::var("__derived_i"));
        Expr::map(Lambda::new(&["__derived_i"], at), vec![idx])
    })
}

/// The first `k` elements of `a` in ascending order, as indices into `a` (`take(argsort(a), k)`;
/// ties in input order).
///
/// ```
/// use flatland_vectoriser::{derived, ir::Expr};
/// assert!(derived::top_k_indices(Expr::var("xs"), Expr::i64(3)).to_string().contains("argsort("));
/// ```
pub fn top_k_indices(a: Expr, k: Expr) -> Expr {
    take(Expr::sort(SortOp::Indices, a), k)
}

/// `argmin(a)` (`max` false) or `argmax(a)` (`max` true) over an array of `el`; `None` unless
/// `el` is `i64` or `f64`. See the module documentation for ties, NaN and the empty array.
fn arg_best(a: Expr, el: &Type, max: bool) -> Option<Expr> {
    let (worst, float) = match (el, max) {
        (Type::I64, false) => (Expr::i64(i64::MAX), false),
        (Type::I64, true) => (Expr::i64(i64::MIN), false),
        (Type::F64, false) => (Expr::f64(f64::INFINITY), true),
        (Type::F64, true) => (Expr::f64(f64::NEG_INFINITY), true),
        _ => return None,
    };
    let (p, q) = (Expr::var("__derived_p"), Expr::var("__derived_q"));
    let (pv, pi) = (Expr::proj(p.clone(), 0), Expr::proj(p.clone(), 1));
    let qv = Expr::proj(q.clone(), 0);
    let order = if max { BinaryOp::Gt } else { BinaryOp::Lt };
    // `q` (later elements) replaces `p` when `p` is the identity, or `q` is strictly better.
    let mut better = bin(
        BinaryOp::Or,
        pi.lt(Expr::i64(0)),
        bin(order, qv.clone(), pv.clone()),
    );
    if float {
        let nan = |v: Expr| Expr::unary(UnaryOp::IsNan, v);
        // A NaN wins over every number, the first NaN over later ones.
        better = bin(
            BinaryOp::Or,
            bin(
                BinaryOp::And,
                nan(qv),
                Expr::unary(UnaryOp::Not, nan(pv.clone())),
            ),
            bin(BinaryOp::And, Expr::unary(UnaryOp::Not, nan(pv)), better),
        );
    }
    let combine = Lambda::new(&["__derived_p", "__derived_q"], Expr::if_(better, q, p));
    let pairs = bind(a, |a| {
        let pair = Lambda::new(
            &["__derived_x", "__derived_i"],
            Expr::Tuple(vec![Expr::var("__derived_x"), Expr::var("__derived_i")]),
        );
        let n = Expr::length(a.clone());
        Expr::map(pair, vec![a, Expr::iota(n, Expr::i64(0), Expr::i64(1))])
    });
    let identity = Expr::Tuple(vec![worst, Expr::i64(-1)]);
    Some(Expr::proj(
        Expr::reduce(ReduceOp::Lambda(combine), identity, pairs),
        1,
    ))
}

/// The index of the first least element of `a` (see the module documentation), for `el` `i64`
/// or `f64`; `None` for other element types.
///
/// ```
/// use flatland_vectoriser::{derived, ir::{Expr, Type}};
/// assert!(derived::argmin(Expr::var("xs"), &Type::I64).is_some());
/// assert!(derived::argmin(Expr::var("xs"), &Type::Bool).is_none());
/// ```
pub fn argmin(a: Expr, el: &Type) -> Option<Expr> {
    arg_best(a, el, false)
}

/// The index of the first greatest element of `a` (see the module documentation), for `el`
/// `i64` or `f64`; `None` for other element types.
///
/// ```
/// use flatland_vectoriser::{derived, ir::{Expr, Type}};
/// assert!(derived::argmax(Expr::var("xs"), &Type::F64).is_some());
/// ```
pub fn argmax(a: Expr, el: &Type) -> Option<Expr> {
    arg_best(a, el, true)
}

/// The IR of `count_by_index(bins, indices)`, the indices bound once to `name`.
///
/// ```
/// use flatland_vectoriser::{derived::count_by_index, ir::Expr};
/// let e = count_by_index(Expr::i64(2), Expr::var("ks"), "k");
/// assert_eq!(e.to_string(), "let k = ks in\nhist(2, 0, +, k, replicate(length(k), 1))");
/// ```
pub fn count_by_index(bins: Expr, indices: Expr, name: &str) -> Expr {
    let k = Expr::var(name);
    let ones = Expr::replicate(Expr::length(k.clone()), Expr::i64(1));
    Expr::let_(
        name,
        indices,
        Expr::hist(bins, Expr::i64(0), ReduceOp::Add, k, ones),
    )
}
