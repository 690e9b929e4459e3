//! Expression handles ([`Ex`]): typed IR expressions, the lambdas built by calling a closure
//! once with handles naming its parameters, and the constructors that are not methods
//! ([`let_`], [`if_`], [`iota`], [`iota_step`], [`replicate`], [`array`], [`pair`]).
//!
//! Cost: building is linear in the expression built; nothing runs.

use super::types::{Arr, Ty};
use crate::ir::{BinaryOp as BinOp, Expr, Lambda, Scalar, UnaryOp as UnOp};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A typed expression handle: an IR expression of dsl type `T`.
///
/// ```
/// use flatland_vectoriser::dsl::Ex;
/// let e = Ex::from(2i64) * 3;
/// assert_eq!(e.expr().to_string(), "(2 * 3)");
/// // Operators take handles by reference too: no clones.
/// let sq = &e * &e - &e;
/// assert_eq!(sq.expr().to_string(), "(((2 * 3) * (2 * 3)) - (2 * 3))");
/// ```
pub struct Ex<T> {
    pub(super) e: Expr,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for Ex<T> {
    fn clone(&self) -> Self {
        Ex::wrap(self.e.clone())
    }
}

/// A handle used by reference where a value is expected (`&x * &x`): the expression is shared,
/// not recomputed differently.
impl<T> From<&Ex<T>> for Ex<T> {
    fn from(x: &Ex<T>) -> Ex<T> {
        x.clone()
    }
}

impl<T> std::fmt::Debug for Ex<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Ex({})", self.e)
    }
}

/// Literal handles: a Rust scalar is the IR literal of its value.
macro_rules! literal {
    ($t:ty, $ty:ident) => {
        impl From<$t> for Ex<$t> {
            fn from(v: $t) -> Ex<$t> {
                Ex::wrap(Expr::Lit(Scalar::$ty(v)))
            }
        }
    };
}
literal!(i64, I64);
literal!(f64, F64);
literal!(bool, Bool);

static FRESH: AtomicUsize = AtomicUsize::new(0);

pub(super) fn fresh(prefix: &str) -> String {
    format!("{prefix}{}", FRESH.fetch_add(1, Ordering::Relaxed))
}

pub(super) fn lambda1<A, R>(f: impl FnOnce(Ex<A>) -> Ex<R>) -> Lambda {
    let x = fresh("x");
    let body = f(Ex::wrap(Expr::var(&x)));
    Lambda::new(&[&x], body.e)
}

pub(super) fn lambda2<A, B, R>(f: impl FnOnce(Ex<A>, Ex<B>) -> Ex<R>) -> Lambda {
    let (x, y) = (fresh("x"), fresh("y"));
    let body = f(Ex::wrap(Expr::var(&x)), Ex::wrap(Expr::var(&y)));
    Lambda::new(&[&x, &y], body.e)
}

pub(super) fn lambda3<A, B, C, R>(f: impl FnOnce(Ex<A>, Ex<B>, Ex<C>) -> Ex<R>) -> Lambda {
    let (x, y, z) = (fresh("x"), fresh("y"), fresh("z"));
    let body = f(
        Ex::wrap(Expr::var(&x)),
        Ex::wrap(Expr::var(&y)),
        Ex::wrap(Expr::var(&z)),
    );
    Lambda::new(&[&x, &y, &z], body.e)
}

pub(super) fn lambda4<A, B, C, D, R>(
    f: impl FnOnce(Ex<A>, Ex<B>, Ex<C>, Ex<D>) -> Ex<R>,
) -> Lambda {
    let (x, y, z, w) = (fresh("x"), fresh("y"), fresh("z"), fresh("w"));
    let body = f(
        Ex::wrap(Expr::var(&x)),
        Ex::wrap(Expr::var(&y)),
        Ex::wrap(Expr::var(&z)),
        Ex::wrap(Expr::var(&w)),
    );
    Lambda::new(&[&x, &y, &z, &w], body.e)
}

impl<T> Ex<T> {
    /// Wraps an IR expression (its type is not checked until the program is).
    ///
    /// ```
    /// use flatland_vectoriser::{dsl::Ex, ir::Expr};
    /// let e: Ex<i64> = Ex::wrap(Expr::i64(4));
    /// assert_eq!(e.expr(), &Expr::i64(4));
    /// ```
    pub fn wrap(e: Expr) -> Ex<T> {
        Ex { e, _t: PhantomData }
    }

    /// The IR expression.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(true).expr().to_string(), "true");
    /// ```
    pub fn expr(&self) -> &Expr {
        &self.e
    }

    pub(super) fn bin<U, R>(&self, op: BinOp, other: impl Into<Ex<U>>) -> Ex<R> {
        Ex::wrap(Expr::binary(op, self.e.clone(), other.into().e))
    }

    pub(super) fn un<R>(&self, op: UnOp) -> Ex<R> {
        Ex::wrap(Expr::unary(op, self.e.clone()))
    }
}

/// `let x = value in body(x)`: binds a value once so the body can use it many times.
///
/// ```
/// use flatland_vectoriser::dsl::{let_, Ex};
/// let e = let_(Ex::from(2i64) * 5, |x| &x + &x);
/// assert!(e.expr().to_string().starts_with("let"));
/// ```
pub fn let_<A, R>(value: Ex<A>, body: impl FnOnce(Ex<A>) -> Ex<R>) -> Ex<R> {
    let x = fresh("v");
    let b = body(Ex::wrap(Expr::var(&x)));
    Ex::wrap(Expr::let_(&x, value.e, b.e))
}

/// `if c then a else b` (only the taken branch runs).
///
/// ```
/// use flatland_vectoriser::dsl::{if_, Ex};
/// let e = if_(Ex::from(1i64).lt(2), Ex::from(1.0), Ex::from(2.0));
/// assert_eq!(e.expr().to_string(), "if (1 < 2) then 1.0 else 2.0");
/// ```
pub fn if_<T>(c: Ex<bool>, a: impl Into<Ex<T>>, b: impl Into<Ex<T>>) -> Ex<T> {
    Ex::wrap(Expr::if_(c.e, a.into().e, b.into().e))
}

/// `iota(n, 0, 1)`: `[0, 1, ..., n - 1]`.
///
/// ```
/// use flatland_vectoriser::dsl::iota;
/// assert_eq!(iota(5).expr().to_string(), "iota(5, 0, 1)");
/// ```
pub fn iota(n: impl Into<Ex<i64>>) -> Ex<Arr<i64>> {
    iota_step(n, 0, 1)
}

/// `iota(n, start, step)`: `[start, start + step, ...]`, `n` elements.
///
/// ```
/// use flatland_vectoriser::dsl::iota_step;
/// assert_eq!(iota_step(3, 4, 2).expr().to_string(), "iota(3, 4, 2)");
/// ```
pub fn iota_step(
    n: impl Into<Ex<i64>>,
    start: impl Into<Ex<i64>>,
    step: impl Into<Ex<i64>>,
) -> Ex<Arr<i64>> {
    Ex::wrap(Expr::iota(n.into().e, start.into().e, step.into().e))
}

/// `replicate(n, x)`: `n` copies of `x`.
///
/// ```
/// use flatland_vectoriser::dsl::{replicate, Ex};
/// assert_eq!(replicate(3, Ex::from(true)).expr().to_string(), "replicate(3, true)");
/// ```
pub fn replicate<T>(n: impl Into<Ex<i64>>, x: impl Into<Ex<T>>) -> Ex<Arr<T>> {
    Ex::wrap(Expr::replicate(n.into().e, x.into().e))
}

/// An array literal.
///
/// ```
/// use flatland_vectoriser::dsl::{array, Ex};
/// assert_eq!(array::<i64>(vec![Ex::from(1i64)]).expr().to_string(), "[1]: [i64]");
/// ```
pub fn array<T: Ty>(elems: Vec<Ex<T>>) -> Ex<Arr<T>> {
    Ex::wrap(Expr::ArrayLit(
        T::ty(),
        elems.into_iter().map(|x| x.e).collect(),
    ))
}

/// A pair.
///
/// ```
/// use flatland_vectoriser::dsl::{pair, Ex};
/// assert_eq!(pair(Ex::from(1i64), Ex::from(2.0)).expr().to_string(), "(1, 2.0)");
/// ```
pub fn pair<A, B>(a: Ex<A>, b: Ex<B>) -> Ex<(A, B)> {
    Ex::wrap(Expr::Tuple(vec![a.e, b.e]))
}

impl<A, B> Ex<(A, B)> {
    /// The first field.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{pair, Ex};
    /// assert_eq!(pair(Ex::from(1i64), Ex::from(2.0)).get0().expr().to_string(), "(1, 2.0).0");
    /// ```
    pub fn get0(&self) -> Ex<A> {
        Ex::wrap(Expr::proj(self.e.clone(), 0))
    }

    /// The second field.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{pair, Ex};
    /// assert_eq!(pair(Ex::from(1i64), Ex::from(2.0)).get1().expr().to_string(), "(1, 2.0).1");
    /// ```
    pub fn get1(&self) -> Ex<B> {
        Ex::wrap(Expr::proj(self.e.clone(), 1))
    }
}
