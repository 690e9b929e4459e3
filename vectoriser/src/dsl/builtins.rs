//! The math methods of the staged front-end ([`crate::dsl`]): one per operator of the runtime's
//! table ([`flatland_runtime::expr::op`]), named as the `std` method whose result it equals.
//!
//! `Ex::min` / `Ex::max` of [`crate::dsl`] are the IR's IEEE 754-2019 `minimum` / `maximum` (a
//! NaN operand makes the result NaN), as are [`Ex::minimum`] / [`Ex::maximum`] here;
//! [`Ex::min_num`] / [`Ex::max_num`] are `std`'s `f64::min` / `max` (a NaN operand is ignored).
//!
//! ```
//! use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder};
//! let mut p = ProgramBuilder::new();
//! let f = p.function("f", ["xs"], |_, xs: Ex<Arr<f64>>| xs.map(|x| x.exp().ln().powi(2)));
//! assert_eq!(p.exec(&f, vec![3.0]).unwrap(), vec![3f64.exp().ln().powi(2)]);
//! ```

use crate::derived;
use crate::dsl::{Arr, Ex, Num, Ty};
use crate::ir::{BinaryOp, Expr, Lambda, SortOp, TernaryOp, UnaryOp};
use std::sync::atomic::{AtomicUsize, Ordering};

static FRESH: AtomicUsize = AtomicUsize::new(0);

/// A one-parameter lambda from a Rust closure (parameter names of their own, `__bN`).
fn lambda1<A, R>(f: impl FnOnce(Ex<A>) -> Ex<R>) -> Lambda {
    let x = format!("__b{}", FRESH.fetch_add(1, Ordering::Relaxed));
    let body = f(Ex::wrap(Expr::var(&x)));
    Lambda::new(&[&x], body.expr().clone())
}

fn un<T, R>(a: &Ex<T>, op: UnaryOp) -> Ex<R> {
    Ex::wrap(Expr::unary(op, a.expr().clone()))
}

fn bin<T, U, R>(a: &Ex<T>, op: BinaryOp, b: impl Into<Ex<U>>) -> Ex<R> {
    Ex::wrap(Expr::binary(op, a.expr().clone(), b.into().expr().clone()))
}

macro_rules! unary {
    ($t:ty => $r:ty: $($name:ident $op:ident $x:literal),* $(,)?) => {
        impl Ex<$t> {
            $(
                #[doc = concat!("`self.", stringify!($name), "()` (the runtime's `", stringify!($name), "`).")]
                ///
                /// ```
                /// use flatland_vectoriser::dsl::Ex;
                #[doc = concat!("let e = Ex::from(", $x, ").", stringify!($name), "();")]
                #[doc = concat!("assert_eq!(e.expr().to_string(), \"", stringify!($name), "(", $x, ")\");")]
                /// ```
                pub fn $name(&self) -> Ex<$r> {
                    un(self, UnaryOp::$op)
                }
            )*
        }
    };
}

macro_rules! binary {
    ($t:ty, $u:ty: $($name:ident $op:ident $x:literal $y:literal),* $(,)?) => {
        impl Ex<$t> {
            $(
                #[doc = concat!("`self.", stringify!($name), "(other)` (the runtime's `", stringify!($name), "`).")]
                ///
                /// ```
                /// use flatland_vectoriser::dsl::Ex;
                #[doc = concat!("let e = Ex::from(", $x, ").", stringify!($name), "(", $y, ");")]
                #[doc = concat!("assert!(e.expr().to_string().starts_with(\"", stringify!($name), "(\"));")]
                /// ```
                pub fn $name(&self, other: impl Into<Ex<$u>>) -> Ex<$t> {
                    bin(self, BinaryOp::$op, other)
                }
            )*
        }
    };
}

unary!(f64 => f64:
    exp Exp "1.0", exp2 Exp2 "1.0", exp_m1 ExpM1 "1.0", ln Ln "1.0", ln_1p Ln1p "1.0",
    log2 Log2 "1.0", log10 Log10 "1.0", sin Sin "1.0", cos Cos "1.0", tan Tan "1.0",
    asin Asin "1.0", acos Acos "1.0", atan Atan "1.0", sinh Sinh "1.0", cosh Cosh "1.0",
    tanh Tanh "1.0", floor Floor "1.5", ceil Ceil "1.5", round Round "1.5", trunc Trunc "1.5",
    fract Fract "1.5", recip Recip "2.0", signum Signum "-2.0",
);
unary!(f64 => bool: is_nan IsNan "1.0", is_finite IsFinite "1.0", is_infinite IsInfinite "1.0");
unary!(i64 => i64:
    signum Signum "-3", count_ones CountOnes "7", leading_zeros LeadingZeros "7",
    trailing_zeros TrailingZeros "8",
);
binary!(f64, f64:
    powf Powf "2.0" "0.5", atan2 Atan2 "1.0" "2.0", hypot Hypot "3.0" "4.0",
    copysign Copysign "1.0" "-0.0", rem_euclid RemEuclid "-7.0" "2.0",
    div_euclid DivEuclid "-7.0" "2.0", min_num MinNum "1.0" "2.0", max_num MaxNum "1.0" "2.0",
);

impl Ex<f64> {
    /// IEEE 754-2019 `minimum` (NaN if either is NaN; the IR's `min`, as [`Ex::min`]).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(1.0).minimum(2.0).expr().to_string(), "min(1.0, 2.0)");
    /// ```
    pub fn minimum(&self, other: impl Into<Ex<f64>>) -> Ex<f64> {
        bin(self, BinaryOp::Min, other)
    }

    /// IEEE 754-2019 `maximum` (NaN if either is NaN; the IR's `max`, as [`Ex::max`]).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(1.0).maximum(2.0).expr().to_string(), "max(1.0, 2.0)");
    /// ```
    pub fn maximum(&self, other: impl Into<Ex<f64>>) -> Ex<f64> {
        bin(self, BinaryOp::Max, other)
    }
}
binary!(f64, i64: powi Powi "2.0" "3");

impl Ex<f64> {
    /// `self * a + b` with one rounding (`std`'s `f64::mul_add`).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(2.0).mul_add(3.0, 1.0).expr().to_string(), "mul_add(2.0, 3.0, 1.0)");
    /// ```
    pub fn mul_add(&self, a: impl Into<Ex<f64>>, b: impl Into<Ex<f64>>) -> Ex<f64> {
        ternary(self, TernaryOp::MulAdd, a, b)
    }
}

impl<T: Num> Ex<T> {
    /// `self` restricted to `lo..=hi` (`std`'s `clamp`; where `std` panics, `lo > hi` or a NaN
    /// bound, the program stops with an error naming `clamp` and the lane).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::Ex;
    /// assert_eq!(Ex::from(7).clamp(0, 5).expr().to_string(), "clamp(7, 0, 5)");
    /// ```
    pub fn clamp(&self, lo: impl Into<Ex<T>>, hi: impl Into<Ex<T>>) -> Ex<T> {
        ternary(self, TernaryOp::Clamp, lo, hi)
    }
}

fn ternary<T, U, V, R>(
    a: &Ex<T>,
    op: TernaryOp,
    b: impl Into<Ex<U>>,
    c: impl Into<Ex<V>>,
) -> Ex<R> {
    Ex::wrap(Expr::ternary(
        op,
        a.expr().clone(),
        b.into().expr().clone(),
        c.into().expr().clone(),
    ))
}
binary!(i64, i64:
    pow Pow "2" "10", rem_euclid RemEuclid "-7" "2", div_euclid DivEuclid "-7" "2",
);

/// The selection and sorting operations on arrays ([`crate::derived`] says what each means, the
/// empty array included).
impl<T: Ty> Ex<Arr<T>> {
    /// `true` if `p` holds for some element.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).any(|x| x.lt(1)).expr().to_string().starts_with("redomap(or"));
    /// ```
    pub fn any(&self, p: impl FnOnce(Ex<T>) -> Ex<bool>) -> Ex<bool> {
        Ex::wrap(derived::any(lambda1(p), self.expr().clone()))
    }

    /// `true` if `p` holds for every element.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).all(|x| x.lt(1)).expr().to_string().starts_with("redomap(and"));
    /// ```
    pub fn all(&self, p: impl FnOnce(Ex<T>) -> Ex<bool>) -> Ex<bool> {
        Ex::wrap(derived::all(lambda1(p), self.expr().clone()))
    }

    /// The number of elements for which `p` holds.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).count(|x| x.lt(1)).expr().to_string().starts_with("redomap(+"));
    /// ```
    pub fn count(&self, p: impl FnOnce(Ex<T>) -> Ex<bool>) -> Ex<i64> {
        Ex::wrap(derived::count(lambda1(p), self.expr().clone()))
    }

    /// The first element (an index error when empty).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert_eq!(iota(3).first().expr().to_string(), "iota(3, 0, 1)[0]");
    /// ```
    pub fn first(&self) -> Ex<T> {
        Ex::wrap(derived::first(self.expr().clone()))
    }

    /// The last element (an index error when empty).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).last().expr().to_string().contains("length("));
    /// ```
    pub fn last(&self) -> Ex<T> {
        Ex::wrap(derived::last(self.expr().clone()))
    }

    /// The elements in reverse order.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).rev().expr().to_string().contains("map("));
    /// ```
    pub fn rev(&self) -> Ex<Arr<T>> {
        Ex::wrap(derived::rev(self.expr().clone()))
    }

    /// The pairs `(i, self[i])`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).enumerate().expr().to_string().contains("map("));
    /// ```
    pub fn enumerate(&self) -> Ex<Arr<(i64, T)>> {
        Ex::wrap(derived::enumerate(self.expr().clone()))
    }

    /// The first `n` elements (clamped to `0..=len`).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).take(2).expr().to_string().contains("slice("));
    /// ```
    pub fn take(&self, n: impl Into<Ex<i64>>) -> Ex<Arr<T>> {
        Ex::wrap(derived::take(self.expr().clone(), n.into().expr().clone()))
    }

    /// All but the first `n` elements (`n` clamped to `0..=len`).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).skip(2).expr().to_string().contains("slice("));
    /// ```
    pub fn skip(&self, n: impl Into<Ex<i64>>) -> Ex<Arr<T>> {
        Ex::wrap(derived::skip(self.expr().clone(), n.into().expr().clone()))
    }

    /// The elements sorted stably by the number `key(x)` (`i64`, or `f64` in `total_cmp`
    /// order).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).sort_by_key(|x| -x).expr().to_string().contains("argsort("));
    /// ```
    pub fn sort_by_key<K: Num>(&self, key: impl FnOnce(Ex<T>) -> Ex<K>) -> Ex<Arr<T>> {
        Ex::wrap(derived::sort_by_key(lambda1(key), self.expr().clone()))
    }
}

/// Sorting and arg-selection on arrays of numbers.
impl<T: Num> Ex<Arr<T>> {
    /// The elements in ascending order (`f64` by `total_cmp`).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert_eq!(iota(3).sort().expr().to_string(), "sort(iota(3, 0, 1))");
    /// ```
    pub fn sort(&self) -> Ex<Arr<T>> {
        Ex::wrap(Expr::sort(SortOp::Values, self.expr().clone()))
    }

    /// The stable sorting permutation.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert_eq!(iota(3).argsort().expr().to_string(), "argsort(iota(3, 0, 1))");
    /// ```
    pub fn argsort(&self) -> Ex<Arr<i64>> {
        Ex::wrap(Expr::sort(SortOp::Indices, self.expr().clone()))
    }

    /// The index of the first least element (the first NaN if any; `-1` when empty).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).argmin().expr().to_string().contains("reduce("));
    /// ```
    pub fn argmin(&self) -> Ex<i64> {
        Ex::wrap(derived::argmin(self.expr().clone(), &T::ty()).expect("a Num type is i64 or f64"))
    }

    /// The index of the first greatest element (the first NaN if any; `-1` when empty).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).argmax().expr().to_string().contains("reduce("));
    /// ```
    pub fn argmax(&self) -> Ex<i64> {
        Ex::wrap(derived::argmax(self.expr().clone(), &T::ty()).expect("a Num type is i64 or f64"))
    }
}

#[cfg(test)]
mod tests {
    use crate::dsl::{Arr, Ex, ProgramBuilder};

    #[test]
    fn dsl_math_runs_as_the_reference_and_nan_handling_is_as_named() {
        let mut p = ProgramBuilder::new();
        let f = p.function("f", ["xs"], |_, xs: Ex<Arr<f64>>| {
            xs.map(|x| (x.max_num(f64::NAN) + x.maximum(0.0)).powi(3).floor())
        });
        let xs = vec![1.5, -2.0, f64::INFINITY];
        let want: Vec<f64> = xs
            .iter()
            .map(|&x: &f64| (x.max(f64::NAN) + x.max(0.0)).powi(3).floor())
            .collect();
        assert_eq!(p.eval(&f, xs.clone()).unwrap(), want);
        assert_eq!(p.exec(&f, xs).unwrap(), want);
        let g = p.function("g", ["xs"], |_, xs: Ex<Arr<i64>>| {
            xs.map(|x| x.pow(3).rem_euclid(5) + x.count_ones())
        });
        assert_eq!(p.exec(&g, vec![-2, 3]).unwrap(), vec![2 + 63, 2 + 2]);
    }

    #[test]
    fn dsl_selection_and_sorting_run_as_the_reference() {
        let mut p = ProgramBuilder::new();
        let f = p.function("f", ["xs"], |_, xs: Ex<Arr<f64>>| xs.sort().rev().take(3));
        let g = p.function("g", ["xs"], |_, xs: Ex<Arr<f64>>| {
            xs.argmax() + xs.argsort().first()
        });
        let h = p.function("h", ["xs"], |_, xs: Ex<Arr<i64>>| {
            xs.sort_by_key(|x| -x).skip(1).count(|x| x.lt(3))
        });
        let xs = vec![0.5, f64::NEG_INFINITY, 3.0, -0.0, 2.0];
        assert_eq!(p.exec(&f, xs.clone()).unwrap(), vec![3.0, 2.0, 0.5]);
        assert_eq!(p.eval(&f, xs.clone()).unwrap(), vec![3.0, 2.0, 0.5]);
        assert_eq!(p.exec(&g, xs.clone()).unwrap(), 2 + 1);
        assert_eq!(p.exec(&h, vec![5, 1, 4, 2]).unwrap(), 2);
        assert_eq!(p.eval(&h, vec![]).unwrap(), 0);
    }
}
