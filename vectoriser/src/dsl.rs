//! The staged front-end: build IR programs in Rust with typed expression handles ([`Ex`]) and
//! closures for lambdas, then run them on Rust values.
//!
//! A closure passed to [`Ex::map`] (and friends) is called once, at build time, with a handle
//! naming its parameter; what it returns becomes the lambda's body. Values used in a closure that
//! were built outside it are its free variables. Handles are expression trees: using one twice
//! computes it twice, so bind shared values with [`let_`]. Operators take handles by value or by
//! reference (`&x * &x`), so a handle is never cloned to be used twice.
//!
//! Functions have any number of parameters (up to six), named by the caller ([`Program::function`]);
//! a function is [`Program::prepare`]d once (checked, fused, analysed) and run many times.
//!
//! One idea per file: the conversions between dsl types and Rust values are here ([`Ty`]), with
//! the expression handles; the program builder is `dsl/program.rs` ([`Program`], [`Func`],
//! [`Prepared`]); runtime stores as lifted values are `dsl/stores.rs` ([`Element`]).
//!
//! ```
//! use flatland_vectoriser::dsl::{Arr, Ex, Program};
//! let mut p = Program::new();
//! // smvm: rows.map(|row| row.map(|(i, x)| x * v[i]).sum())
//! let smvm = p.function("smvm", ["rows", "v"], |_, (rows, v): (Ex<Arr<Arr<(i64, f64)>>>, Ex<Arr<f64>>)| {
//!     rows.map(move |row| row.map(|e| e.get1() * v.at(e.get0())).sum())
//! });
//! let rows = vec![vec![(0, 2.0), (1, 1.0)], vec![], vec![(1, 3.0)]];
//! assert_eq!(p.eval(&smvm, (rows.clone(), vec![10.0, 100.0])).unwrap(), vec![120.0, 0.0, 300.0]);
//! let smvm = p.prepare(&smvm).unwrap();
//! assert_eq!(smvm.call((rows, vec![10.0, 100.0])).unwrap(), vec![120.0, 0.0, 300.0]);
//! ```

mod builtins;
mod loops;
mod program;
mod stores;

pub use loops::{count_by_index, hist, hist_with, iterate_while, loop_n};
pub use program::{Func, Handles, Params, Prepared, Program};
pub use stores::Element;

use crate::exec::Arg;
use crate::ir::{
    BinaryOp as BinOp, Expr, Lambda, ReduceOp, Scalar, ScalarType, Type, UnaryOp as UnOp,
};
use crate::lval::{Col, LVal};
use crate::value::Value;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The marker type of arrays of `T` in handles (`Ex<Arr<i64>>` is an `[i64]` expression).
///
/// ```
/// use flatland_vectoriser::dsl::{Arr, Ty};
/// assert_eq!(<Arr<Arr<bool>> as Ty>::ty().to_string(), "[[bool]]");
/// ```
pub struct Arr<T>(PhantomData<T>);

/// A type of the dsl: its IR type and its Rust representation.
///
/// ```
/// use flatland_vectoriser::dsl::Ty;
/// let v = <(i64, f64) as Ty>::to_value((1, 2.0));
/// assert_eq!(<(i64, f64) as Ty>::from_value(v), Some((1, 2.0)));
/// ```
pub trait Ty: 'static {
    /// The Rust value of this type.
    type Rust: Clone;
    /// The IR type.
    fn ty() -> Type;
    /// Converts a Rust value to an IR value.
    fn to_value(r: Self::Rust) -> Value;
    /// Converts an IR value back (`None` if it does not have this type).
    fn from_value(v: Value) -> Option<Self::Rust>;
    /// The executor's columnar form of one value per lane (struct of arrays, no boxing).
    fn to_lanes(rs: Vec<Self::Rust>) -> Arg;
    /// One value per lane back from the columnar form (`None` if it does not have this type),
    /// taking it: columns that nothing else shares become the result's vectors without a copy.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{Arr, Ty};
    /// let a = <Arr<f64> as Ty>::to_lanes(vec![vec![1.0, 2.0]]);
    /// assert_eq!(<Arr<f64> as Ty>::into_lanes(a), Some(vec![vec![1.0, 2.0]]));
    /// ```
    fn into_lanes(a: Arg) -> Option<Vec<Self::Rust>>;
    /// One value per lane back from the columnar form (`None` if it does not have this type),
    /// copied out of it.
    fn from_lanes(a: &Arg) -> Option<Vec<Self::Rust>> {
        Self::into_lanes(a.clone())
    }
}

macro_rules! scalar_ty {
    ($t:ty, $ty:ident) => {
        impl Ty for $t {
            type Rust = $t;
            fn ty() -> Type {
                Type::$ty
            }
            fn to_value(r: $t) -> Value {
                Value::$ty(r)
            }
            fn from_value(v: Value) -> Option<$t> {
                match v {
                    Value::$ty(x) => Some(x),
                    _ => None,
                }
            }
            fn to_lanes(rs: Vec<$t>) -> Arg {
                Arg(LVal::Scalar(Col::$ty(rs.into())))
            }
            fn into_lanes(a: Arg) -> Option<Vec<$t>> {
                match a.0 {
                    LVal::Scalar(Col::$ty(v)) => Some(v.into_vec()),
                    _ => None,
                }
            }
        }
        impl From<$t> for Ex<$t> {
            fn from(v: $t) -> Ex<$t> {
                Ex::wrap(Expr::Lit(Scalar::$ty(v)))
            }
        }
    };
}
scalar_ty!(i64, I64);
scalar_ty!(f64, F64);
scalar_ty!(bool, Bool);

impl<T: Ty> Ty for Arr<T> {
    type Rust = Vec<T::Rust>;
    fn ty() -> Type {
        Type::array(T::ty())
    }
    fn to_value(r: Vec<T::Rust>) -> Value {
        Value::array(r.into_iter().map(T::to_value).collect())
    }
    fn from_value(v: Value) -> Option<Vec<T::Rust>> {
        match v {
            Value::Array(xs) => {
                let xs = std::sync::Arc::try_unwrap(xs).unwrap_or_else(|shared| (*shared).clone());
                xs.into_iter().map(T::from_value).collect()
            }
            _ => None,
        }
    }
    fn to_lanes(mut rs: Vec<Vec<T::Rust>>) -> Arg {
        let lens: Vec<usize> = rs.iter().map(Vec::len).collect();
        // One lane (a function's array argument): its elements move, uncopied.
        let elements = match rs.pop() {
            Some(only) if rs.is_empty() => only,
            Some(last) => {
                rs.push(last);
                rs.into_iter().flatten().collect()
            }
            None => Vec::new(),
        };
        let inner = T::to_lanes(elements);
        Arg(LVal::array_of(lens, inner.0))
    }
    fn into_lanes(a: Arg) -> Option<Vec<Vec<T::Rust>>> {
        match a.0 {
            array @ LVal::Array(..) => {
                // Only the elements the lanes reach, in lane order (a class of a partition
                // shares its block with the other classes: it copies its own elements, not the
                // block). Elements already in order are not copied, and once `array` is gone
                // nothing else shares them: the vectors are handed over as they are.
                let (segd, inner) = array.elements().ok()?;
                drop(array);
                let inner = T::into_lanes(Arg(inner))?;
                if segd.len() == 1 && segd.elements() == inner.len() {
                    return Some(vec![inner]);
                }
                segd.iter()
                    .map(|(start, len)| inner.get(start..start + len).map(<[_]>::to_vec))
                    .collect()
            }
            _ => None,
        }
    }
}

macro_rules! tuple_ty {
    ($($a:ident $i:tt),*) => {
        impl<$($a: Ty),*> Ty for ($($a,)*) {
            type Rust = ($($a::Rust,)*);
            fn ty() -> Type {
                Type::Tuple(vec![$($a::ty()),*])
            }
            fn to_value(r: Self::Rust) -> Value {
                Value::Tuple(vec![$($a::to_value(r.$i)),*])
            }
            fn from_value(v: Value) -> Option<Self::Rust> {
                match v {
                    Value::Tuple(vs) => {
                        let mut it = vs.into_iter();
                        Some(($($a::from_value(it.next()?)?,)*))
                    }
                    _ => None,
                }
            }
            #[allow(non_snake_case)]
            fn to_lanes(rs: Vec<Self::Rust>) -> Arg {
                $(let mut $a = Vec::with_capacity(rs.len());)*
                for r in rs {
                    $($a.push(r.$i);)*
                }
                Arg(LVal::Tuple(vec![$($a::to_lanes($a).0),*]))
            }
            #[allow(non_snake_case)]
            fn into_lanes(a: Arg) -> Option<Vec<Self::Rust>> {
                let n = a.0.lanes();
                match a.0 {
                    LVal::Tuple(fields) => {
                        let mut it = fields.into_iter();
                        $(let $a = $a::into_lanes(Arg(it.next()?))?;)*
                        $(let mut $a = $a.into_iter();)*
                        Some((0..n).map(|_| ($($a.next().expect("lanes"),)*)).collect())
                    }
                    _ => None,
                }
            }
        }
    };
}
tuple_ty!(A 0, B 1);
tuple_ty!(A 0, B 1, C 2);
tuple_ty!(A 0, B 1, C 2, D 3);

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
    e: Expr,
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

static FRESH: AtomicUsize = AtomicUsize::new(0);

fn fresh(prefix: &str) -> String {
    format!("{prefix}{}", FRESH.fetch_add(1, Ordering::Relaxed))
}

fn lambda1<A, R>(f: impl FnOnce(Ex<A>) -> Ex<R>) -> Lambda {
    let x = fresh("x");
    let body = f(Ex::wrap(Expr::var(&x)));
    Lambda::new(&[&x], body.e)
}

fn lambda2<A, B, R>(f: impl FnOnce(Ex<A>, Ex<B>) -> Ex<R>) -> Lambda {
    let (x, y) = (fresh("x"), fresh("y"));
    let body = f(Ex::wrap(Expr::var(&x)), Ex::wrap(Expr::var(&y)));
    Lambda::new(&[&x, &y], body.e)
}

fn lambda3<A, B, C, R>(f: impl FnOnce(Ex<A>, Ex<B>, Ex<C>) -> Ex<R>) -> Lambda {
    let (x, y, z) = (fresh("x"), fresh("y"), fresh("z"));
    let body = f(
        Ex::wrap(Expr::var(&x)),
        Ex::wrap(Expr::var(&y)),
        Ex::wrap(Expr::var(&z)),
    );
    Lambda::new(&[&x, &y, &z], body.e)
}

fn lambda4<A, B, C, D, R>(f: impl FnOnce(Ex<A>, Ex<B>, Ex<C>, Ex<D>) -> Ex<R>) -> Lambda {
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

    fn bin<U, R>(&self, op: BinOp, other: impl Into<Ex<U>>) -> Ex<R> {
        Ex::wrap(Expr::binary(op, self.e.clone(), other.into().e))
    }

    fn un<R>(&self, op: UnOp) -> Ex<R> {
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

/// Numeric scalar types (`i64`, `f64`): arithmetic, comparisons, sums.
///
/// ```
/// use flatland_vectoriser::dsl::Num;
/// assert_eq!(<f64 as Num>::zero(), flatland_vectoriser::ir::Scalar::F64(0.0));
/// ```
pub trait Num: Ty + Sized {
    /// The additive identity.
    fn zero() -> Scalar;
    /// The multiplicative identity.
    fn one() -> Scalar;
}

impl Num for i64 {
    fn zero() -> Scalar {
        Scalar::I64(0)
    }
    fn one() -> Scalar {
        Scalar::I64(1)
    }
}

impl Num for f64 {
    fn zero() -> Scalar {
        Scalar::F64(0.0)
    }
    fn one() -> Scalar {
        Scalar::F64(1.0)
    }
}

macro_rules! arith {
    ($t:ty: $($tr:ident $m:ident $op:ident),*) => {
        $(impl<R: Into<Ex<$t>>> std::ops::$tr<R> for Ex<$t> {
            type Output = Ex<$t>;
            fn $m(self, rhs: R) -> Ex<$t> {
                self.bin(BinOp::$op, rhs)
            }
        })*
        $(impl<R: Into<Ex<$t>>> std::ops::$tr<R> for &Ex<$t> {
            type Output = Ex<$t>;
            fn $m(self, rhs: R) -> Ex<$t> {
                self.bin(BinOp::$op, rhs)
            }
        })*
        impl std::ops::Neg for Ex<$t> {
            type Output = Ex<$t>;
            fn neg(self) -> Ex<$t> {
                self.un(UnOp::Neg)
            }
        }
        impl std::ops::Neg for &Ex<$t> {
            type Output = Ex<$t>;
            fn neg(self) -> Ex<$t> {
                self.un(UnOp::Neg)
            }
        }
    };
}
arith!(i64: Add add Add, Sub sub Sub, Mul mul Mul, Div div Div, Rem rem Rem);
arith!(f64: Add add Add, Sub sub Sub, Mul mul Mul, Div div Div, Rem rem Rem);

impl<T: Num> Ex<T>
where
    Ex<T>: From<T>,
{
    /// `self < other`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(1.0).lt(2.0).expr().to_string(), "(1.0 < 2.0)");
    /// ```
    pub fn lt(&self, other: impl Into<Ex<T>>) -> Ex<bool> {
        self.bin(BinOp::Lt, other)
    }
    /// `self <= other`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(1i64).le(2).expr().to_string(), "(1 <= 2)");
    /// ```
    pub fn le(&self, other: impl Into<Ex<T>>) -> Ex<bool> {
        self.bin(BinOp::Le, other)
    }
    /// `self > other`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(1i64).gt(2).expr().to_string(), "(1 > 2)");
    /// ```
    pub fn gt(&self, other: impl Into<Ex<T>>) -> Ex<bool> {
        self.bin(BinOp::Gt, other)
    }
    /// `self >= other`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(1i64).ge(2).expr().to_string(), "(1 >= 2)");
    /// ```
    pub fn ge(&self, other: impl Into<Ex<T>>) -> Ex<bool> {
        self.bin(BinOp::Ge, other)
    }
    /// `self == other`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(1i64).equals(2).expr().to_string(), "(1 == 2)");
    /// ```
    pub fn equals(&self, other: impl Into<Ex<T>>) -> Ex<bool> {
        self.bin(BinOp::Eq, other)
    }
    /// `self != other`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(1i64).not_equals(2).expr().to_string(), "(1 != 2)");
    /// ```
    pub fn not_equals(&self, other: impl Into<Ex<T>>) -> Ex<bool> {
        self.bin(BinOp::Ne, other)
    }
    /// `min(self, other)`: on `f64` IEEE 754-2019 `minimum` (NaN if either is NaN), unlike
    /// `std`'s `f64::min` (`min_num`, which ignores a NaN).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(1i64).min(2).expr().to_string(), "min(1, 2)");
    /// ```
    pub fn min(&self, other: impl Into<Ex<T>>) -> Ex<T> {
        self.bin(BinOp::Min, other)
    }
    /// `max(self, other)`: on `f64` IEEE 754-2019 `maximum` (NaN if either is NaN), unlike
    /// `std`'s `f64::max` (`max_num`, which ignores a NaN).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(1i64).max(2).expr().to_string(), "max(1, 2)");
    /// ```
    pub fn max(&self, other: impl Into<Ex<T>>) -> Ex<T> {
        self.bin(BinOp::Max, other)
    }
    /// `abs(self)`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(-1i64).abs().expr().to_string(), "abs(-1)");
    /// ```
    pub fn abs(&self) -> Ex<T> {
        self.un(UnOp::Abs)
    }
    /// Conversion to `f64`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(1i64).to_f64().expr().to_string(), "cast_f64(1)");
    /// ```
    pub fn to_f64(&self) -> Ex<f64> {
        self.un(UnOp::Cast(ScalarType::F64))
    }
    /// Conversion to `i64` (truncating, saturating).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(1.5).to_i64().expr().to_string(), "cast_i64(1.5)");
    /// ```
    pub fn to_i64(&self) -> Ex<i64> {
        self.un(UnOp::Cast(ScalarType::I64))
    }
}

impl Ex<f64> {
    /// `sqrt(self)`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(4.0).sqrt().expr().to_string(), "sqrt(4.0)");
    /// ```
    pub fn sqrt(&self) -> Ex<f64> {
        self.un(UnOp::Sqrt)
    }
}

impl Ex<bool> {
    /// Logical and (both sides evaluated).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(true).and(false).expr().to_string(), "(true && false)");
    /// ```
    pub fn and(&self, other: impl Into<Ex<bool>>) -> Ex<bool> {
        self.bin(BinOp::And, other)
    }
    /// Logical or (both sides evaluated).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(true).or(false).expr().to_string(), "(true || false)");
    /// ```
    pub fn or(&self, other: impl Into<Ex<bool>>) -> Ex<bool> {
        self.bin(BinOp::Or, other)
    }
}

impl std::ops::Not for Ex<bool> {
    type Output = Ex<bool>;
    fn not(self) -> Ex<bool> {
        self.un(UnOp::Not)
    }
}

impl std::ops::Not for &Ex<bool> {
    type Output = Ex<bool>;
    fn not(self) -> Ex<bool> {
        self.un(UnOp::Not)
    }
}

impl<T: Ty> Ex<Arr<T>> {
    /// `length(self)`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert_eq!(iota(3).len().expr().to_string(), "length(iota(3, 0, 1))");
    /// ```
    pub fn len(&self) -> Ex<i64> {
        Ex::wrap(Expr::length(self.e.clone()))
    }

    /// `self[i]`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert_eq!(iota(3).at(1).expr().to_string(), "iota(3, 0, 1)[1]");
    /// ```
    pub fn at(&self, i: impl Into<Ex<i64>>) -> Ex<T> {
        Ex::wrap(Expr::index(self.e.clone(), i.into().e))
    }

    /// `map(f, self)`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).map(|x| x * 2).expr().to_string().starts_with("map(|x"));
    /// ```
    pub fn map<R>(&self, f: impl FnOnce(Ex<T>) -> Ex<R>) -> Ex<Arr<R>> {
        Ex::wrap(Expr::map(lambda1(f), vec![self.e.clone()]))
    }

    /// `map(f, self, other)`: the lambda takes one element of each.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).zip_map(&iota(3), |x, y| x + y).expr().to_string().starts_with("map(|x"));
    /// ```
    pub fn zip_map<U, R>(
        &self,
        other: &Ex<Arr<U>>,
        f: impl FnOnce(Ex<T>, Ex<U>) -> Ex<R>,
    ) -> Ex<Arr<R>> {
        Ex::wrap(Expr::map(lambda2(f), vec![self.e.clone(), other.e.clone()]))
    }

    /// `map(f, self, b, c)`: a zip of three equally long arrays consumed by a map (no tuple
    /// array is built); the lambda takes one element of each.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{Arr, Ex, Program};
    /// type F = Ex<Arr<f64>>;
    /// let mut p = Program::new();
    /// let f = p.function("fma", ["a", "b", "c"], |_, (a, b, c): (F, F, F)| {
    ///     a.zip3_map(&b, &c, |x, y, z| x.mul_add(y, z).clamp(0.0, 10.0))
    /// });
    /// let f = p.prepare(&f).unwrap();
    /// let out = f.call((vec![1.0, 2.0], vec![3.0, 4.0], vec![1.0, 5.0])).unwrap();
    /// assert_eq!(out, vec![4.0, 10.0]);
    /// ```
    pub fn zip3_map<B, C, R>(
        &self,
        b: &Ex<Arr<B>>,
        c: &Ex<Arr<C>>,
        f: impl FnOnce(Ex<T>, Ex<B>, Ex<C>) -> Ex<R>,
    ) -> Ex<Arr<R>> {
        let arrays = vec![self.e.clone(), b.e.clone(), c.e.clone()];
        Ex::wrap(Expr::map(lambda3(f), arrays))
    }

    /// `map(f, self, b, c, d)`: [`Ex::zip3_map`] of four arrays.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{Arr, Ex, Program};
    /// type I = Ex<Arr<i64>>;
    /// let mut p = Program::new();
    /// let f = p.function("dots", ["a", "b", "c", "d"], |_, (a, b, c, d): (I, I, I, I)| {
    ///     a.zip4_map(&b, &c, &d, |x, y, z, w| x * y + z * w)
    /// });
    /// let f = p.prepare(&f).unwrap();
    /// let out = f.call((vec![1, 2], vec![3, 4], vec![5, 6], vec![7, 8])).unwrap();
    /// assert_eq!(out, vec![38, 56]);
    /// ```
    pub fn zip4_map<B, C, D, R>(
        &self,
        b: &Ex<Arr<B>>,
        c: &Ex<Arr<C>>,
        d: &Ex<Arr<D>>,
        f: impl FnOnce(Ex<T>, Ex<B>, Ex<C>, Ex<D>) -> Ex<R>,
    ) -> Ex<Arr<R>> {
        let arrays = vec![self.e.clone(), b.e.clone(), c.e.clone(), d.e.clone()];
        Ex::wrap(Expr::map(lambda4(f), arrays))
    }

    /// `reduce(op, identity, self)` with a built-in operator.
    ///
    /// ```
    /// use flatland_vectoriser::{dsl::iota, ir::ReduceOp};
    /// assert_eq!(iota(3).reduce(ReduceOp::Max, 0).expr().to_string(), "reduce(max, 0, iota(3, 0, 1))");
    /// ```
    pub fn reduce(&self, op: ReduceOp, identity: impl Into<Ex<T>>) -> Ex<T> {
        Ex::wrap(Expr::reduce(op, identity.into().e, self.e.clone()))
    }

    /// `reduce(f, identity, self)` with an associative lambda.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).reduce_with(0, |a, b| a + b).expr().to_string().starts_with("reduce(|x"));
    /// ```
    pub fn reduce_with(
        &self,
        identity: impl Into<Ex<T>>,
        f: impl FnOnce(Ex<T>, Ex<T>) -> Ex<T>,
    ) -> Ex<T> {
        Ex::wrap(Expr::reduce(
            ReduceOp::Lambda(lambda2(f)),
            identity.into().e,
            self.e.clone(),
        ))
    }

    /// `scan(op, identity, self)` (inclusive) with a built-in operator.
    ///
    /// ```
    /// use flatland_vectoriser::{dsl::iota, ir::ReduceOp};
    /// assert_eq!(iota(3).scan(ReduceOp::Add, 0).expr().to_string(), "scan(+, 0, iota(3, 0, 1))");
    /// ```
    pub fn scan(&self, op: ReduceOp, identity: impl Into<Ex<T>>) -> Ex<Arr<T>> {
        Ex::wrap(Expr::scan(op, identity.into().e, self.e.clone()))
    }

    /// `scan(f, identity, self)` (inclusive) with an associative lambda.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).scan_with(0, |a, b| a + b).expr().to_string().starts_with("scan(|x"));
    /// ```
    pub fn scan_with(
        &self,
        identity: impl Into<Ex<T>>,
        f: impl FnOnce(Ex<T>, Ex<T>) -> Ex<T>,
    ) -> Ex<Arr<T>> {
        Ex::wrap(Expr::scan(
            ReduceOp::Lambda(lambda2(f)),
            identity.into().e,
            self.e.clone(),
        ))
    }

    /// `redomap(op, identity, f, self)`: reduce of the mapped elements in one pass.
    ///
    /// ```
    /// use flatland_vectoriser::{dsl::iota, ir::ReduceOp};
    /// assert!(iota(3).redomap(ReduceOp::Add, 0, |x| x * 2).expr().to_string().starts_with("redomap(+, 0"));
    /// ```
    pub fn redomap<R>(
        &self,
        op: ReduceOp,
        identity: impl Into<Ex<R>>,
        f: impl FnOnce(Ex<T>) -> Ex<R>,
    ) -> Ex<R> {
        Ex::wrap(Expr::redomap(
            op,
            identity.into().e,
            lambda1(f),
            vec![self.e.clone()],
        ))
    }

    /// The elements satisfying `pred`, in order (class 0 of a one-predicate `filter`).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).filter(|x| x.lt(2)).expr().to_string().starts_with("filter([|x"));
    /// ```
    pub fn filter(&self, pred: impl FnOnce(Ex<T>) -> Ex<bool>) -> Ex<Arr<T>> {
        Ex::wrap(Expr::proj(
            Expr::filter(vec![lambda1(pred)], self.e.clone()),
            0,
        ))
    }

    /// `filter(predicates, self)` with if-elif semantics: `body` receives the
    /// `predicates.len() + 1` classes (the last one takes the elements no predicate accepted).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{iota, Ex};
    /// let preds: Vec<Box<dyn FnOnce(Ex<i64>) -> Ex<bool>>> = vec![Box::new(|x| x.lt(1)), Box::new(|x| x.lt(2))];
    /// let e = iota(3).filter_with(preds, |parts| parts[2].len());
    /// assert!(e.expr().to_string().starts_with("let"));
    /// ```
    pub fn filter_with<R>(
        &self,
        predicates: Vec<Predicate<T>>,
        body: impl FnOnce(Vec<Ex<Arr<T>>>) -> Ex<R>,
    ) -> Ex<R> {
        let n = predicates.len() + 1;
        let ls = predicates.into_iter().map(lambda1).collect();
        bind_parts(Expr::filter(ls, self.e.clone()), n, body)
    }

    /// `partition(classes, interest, key, self)`: `body` receives one array per class of interest,
    /// in the order given.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// let e = iota(9).partition_with(3, vec![2, 0], |x| x % 3, |parts| parts[0].len() + parts[1].len());
    /// assert!(e.expr().to_string().contains("partition(3, {2, 0}"));
    /// ```
    pub fn partition_with<R>(
        &self,
        classes: usize,
        interest: Vec<usize>,
        key: impl FnOnce(Ex<T>) -> Ex<i64>,
        body: impl FnOnce(Vec<Ex<Arr<T>>>) -> Ex<R>,
    ) -> Ex<R> {
        let n = interest.len();
        bind_parts(
            Expr::partition(classes, interest, lambda1(key), self.e.clone()),
            n,
            body,
        )
    }

    /// `slice(self, start, len)`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert_eq!(iota(5).slice(1, 2).expr().to_string(), "slice(iota(5, 0, 1), 1, 2)");
    /// ```
    pub fn slice(&self, start: impl Into<Ex<i64>>, len: impl Into<Ex<i64>>) -> Ex<Arr<T>> {
        Ex::wrap(Expr::slice(self.e.clone(), start.into().e, len.into().e))
    }

    /// `append(self, other)`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(1).append(&iota(2)).expr().to_string().starts_with("append("));
    /// ```
    pub fn append(&self, other: &Ex<Arr<T>>) -> Ex<Arr<T>> {
        Ex::wrap(Expr::append(self.e.clone(), other.e.clone()))
    }

    /// `scatter(self, indices, values)`: the last index wins on collisions.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{iota, replicate};
    /// assert!(iota(3).scatter(&iota(1), &replicate(1, 7)).expr().to_string().starts_with("scatter("));
    /// ```
    pub fn scatter(&self, indices: &Ex<Arr<i64>>, values: &Ex<Arr<T>>) -> Ex<Arr<T>> {
        Ex::wrap(Expr::scatter(
            self.e.clone(),
            indices.e.clone(),
            values.e.clone(),
        ))
    }
}

/// A boxed predicate for [`Ex::filter_with`].
pub type Predicate<T> = Box<dyn FnOnce(Ex<T>) -> Ex<bool>>;

fn bind_parts<T, R>(e: Expr, n: usize, body: impl FnOnce(Vec<Ex<Arr<T>>>) -> Ex<R>) -> Ex<R> {
    let t = fresh("parts");
    let parts = (0..n)
        .map(|k| Ex::wrap(Expr::proj(Expr::var(&t), k)))
        .collect();
    Ex::wrap(Expr::let_(&t, e, body(parts).e))
}

impl<T: Num> Ex<Arr<T>> {
    /// `reduce(+, 0, self)`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert_eq!(iota(3).sum().expr().to_string(), "reduce(+, 0, iota(3, 0, 1))");
    /// ```
    pub fn sum(&self) -> Ex<T> {
        Ex::wrap(Expr::reduce(
            ReduceOp::Add,
            Expr::Lit(T::zero()),
            self.e.clone(),
        ))
    }

    /// `reduce(*, 1, self)`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert_eq!(iota(3).product().expr().to_string(), "reduce(*, 1, iota(3, 0, 1))");
    /// ```
    pub fn product(&self) -> Ex<T> {
        Ex::wrap(Expr::reduce(
            ReduceOp::Mul,
            Expr::Lit(T::one()),
            self.e.clone(),
        ))
    }
}

impl<T: Ty> Ex<Arr<Arr<T>>> {
    /// `concat(self)`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{iota, replicate};
    /// assert_eq!(replicate(2, iota(2)).concat().expr().to_string(), "concat(replicate(2, iota(2, 0, 1)))");
    /// ```
    pub fn concat(&self) -> Ex<Arr<T>> {
        Ex::wrap(Expr::concat(self.e.clone()))
    }
}
