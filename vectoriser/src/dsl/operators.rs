//! Operators on scalar handles: arithmetic on numbers ([`Num`]), by value and by reference
//! (`&x * &x`), comparisons, the `f64` and `bool` operators and `!`.
//!
//! Cost: each operator builds one IR node.

use super::handles::Ex;
use super::types::Ty;
use crate::ir::{BinaryOp as BinOp, Scalar, ScalarType, UnaryOp as UnOp};

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
