//! The operator set and THE scalar arithmetic semantics of Flatland (the contract "Arithmetic and
//! NaN" of `docs/ARCHITECTURE.md`).
//!
//! Everything that computes a scalar operator (the expression machine's block loops, the
//! vectoriser's reference interpreter and its flattened code, MoA's lazy expressions) calls the
//! functions of this module, so every layer agrees bit for bit. This is the one table from
//! operators to code: the machine's block loops take a binary operator as a type from [`fixed`]
//! (one loop per operator, [`with_fixed_op!`](crate::with_fixed_op)), and the code the
//! `#[vectorise]` macro generates (its native kernels and per-lane form) calls
//! [`BinaryOp::on_i64`] and friends with a constant operator; both fold to the operator's code
//! once inlined.
//!
//! # Types
//! Three scalar types: [`ScalarType::I64`], [`ScalarType::F64`], [`ScalarType::Bool`]. There is no
//! implicit promotion: both operands of a binary operator have the same type (use
//! [`UnaryOp::Cast`]); [`UnaryOp::result_type`] and [`BinaryOp::result_type`] say which types an
//! operator accepts and what it returns.
//!
//! # Semantics
//! - **`i64`** arithmetic wraps (two's complement): `add`, `sub`, `mul`, `neg`, `abs`
//!   (`abs(i64::MIN) == i64::MIN`).
//! - **Division by zero.** `i64` [`Div`](BinaryOp::Div), [`Rem`](BinaryOp::Rem),
//!   [`FloorDiv`](BinaryOp::FloorDiv) and [`Mod`](BinaryOp::Mod) by zero are an error
//!   ([`Error::DivisionByZero`] naming the operation and the lane). `f64` division never fails: it
//!   is IEEE (`1/0 = inf`, `0/0 = NaN`, `x % 0 = NaN`).
//! - **`i64` `/` ([`Div`](BinaryOp::Div))** truncates toward zero; **`%` ([`Rem`](BinaryOp::Rem))**
//!   is the matching remainder, with the sign of the dividend (`a == (a / b) * b + a % b`):
//!   `-7 / 2 == -3`, `-7 % 2 == -1`. `i64::MIN / -1` wraps to `i64::MIN`, `i64::MIN % -1 == 0`.
//! - **`i64` floor division ([`FloorDiv`](BinaryOp::FloorDiv))** rounds toward negative infinity;
//!   **modulo ([`Mod`](BinaryOp::Mod))** is the matching remainder, with the sign of the divisor
//!   (Python's `//` and `%`; `a == floor_div(a, b) * b + modulo(a, b)`): `floor_div(-7, 2) == -4`,
//!   `modulo(-7, 2) == 1`, `modulo(7, -2) == -1`. `floor_div(i64::MIN, -1)` wraps to `i64::MIN`,
//!   `modulo(i64::MIN, -1) == 0`.
//! - **`f64`** is IEEE 754 binary64, round to nearest. `Div` is `a / b`; `Rem` is C's `fmod`
//!   (Rust's `%`: truncated, sign of the dividend, exact); `FloorDiv` is `floor(a / b)`; `Mod` is
//!   `fmod(a, b)`, plus `b` when that is non-zero and its sign differs from `b`'s (Python's float
//!   `%` up to the sign of a zero result). NaN propagates through every arithmetic operator and
//!   through `min` / `max` (not through [`MinNum`](BinaryOp::MinNum) / [`MaxNum`](BinaryOp::MaxNum),
//!   `std`'s `f64::min` / `max`, which ignore a NaN operand).
//! - **NaN bits are not part of a result.** Rust leaves the sign and payload of a NaN made by
//!   an arithmetic operation unspecified (RFC 3514): x86 makes the negative quiet NaN, constant
//!   folding the positive one, and which operand's NaN an addition passes on depends on the
//!   order the optimiser chose. So "bit for bit" everywhere in Flatland means
//!   [`float::same`]: equal bits, or both NaN.
//! - **`min` / `max`** on `f64` are IEEE 754-2019 `minimum` / `maximum`: NaN if either operand is
//!   NaN (the canonical quiet NaN), and `-0.0 < +0.0`. On `i64` the usual order.
//! - **Shifts** are on `i64` only and use the low 6 bits of the shift amount (`x << 65 == x << 1`,
//!   `x << -1 == x << 63`). [`Shr`](BinaryOp::Shr) is arithmetic (sign-propagating).
//! - **Comparisons** on all three types return `bool`; `f64` comparisons are IEEE (every comparison
//!   with NaN is false except `!=`; `-0.0 == 0.0`); `false < true`.
//! - **Logical** [`And`](BinaryOp::And) / [`Or`](BinaryOp::Or) / [`UnaryOp::Not`] take `bool`.
//!   Both operands are always evaluated (no short circuit: operators are total or fail per lane).
//! - **Bitwise** [`BitAnd`](BinaryOp::BitAnd) / [`BitOr`](BinaryOp::BitOr) /
//!   [`BitXor`](BinaryOp::BitXor) take two `i64` or two `bool`; [`UnaryOp::BitNot`] takes `i64`.
//! - **`sqrt`** takes `f64` (IEEE: `sqrt(-1) = NaN`, `sqrt(-0.0) = -0.0`); **`abs`** and **`neg`**
//!   take `i64` or `f64`.
//! - **Casts** ([`UnaryOp::Cast`]): `i64 -> f64` rounds to nearest; `f64 -> i64` truncates toward
//!   zero and saturates (NaN becomes 0, `±inf` and out-of-range values become `i64::MIN` /
//!   `i64::MAX`); `bool -> i64 / f64` gives 0 or 1; `i64 / f64 -> bool` is `x != 0` (so NaN is
//!   `true`, `-0.0` is `false`); a cast to the same type is the identity.
//! - **Math** (`exp`, `exp2`, `exp_m1`, `ln`, `ln_1p`, `log2`, `log10`, `sin`, `cos`, `tan`,
//!   `asin`, `acos`, `atan`, `sinh`, `cosh`, `tanh`, `floor`, `ceil`, `round`, `trunc`, `fract`,
//!   `recip`, `signum`, `is_nan`, `is_finite`, `is_infinite`, `powf`, `powi`, `atan2`, `hypot`,
//!   `copysign`, `rem_euclid`, `div_euclid` on `f64`; `signum`, `count_ones`, `leading_zeros`,
//!   `trailing_zeros`, `pow`, `rem_euclid`, `div_euclid` on `i64`): each equals Rust's `std`
//!   method of the same name under [`float::same`] wherever `std` returns a value. `powi` takes
//!   an `f64` base and an `i64` exponent (the one operator with two operand types) and is
//!   square-and-multiply, spelled out ([`float::powi`]); the `i64` operators wrap where `std`
//!   would overflow, `rem_euclid` / `div_euclid` by zero are [`Error::DivisionByZero`], and so is
//!   `pow(0, n)` for `n < 0` (see [`int::pow`]).
//! - **`select(c, a, b)`** is `a` where `c` is true, else `b` (`a` and `b` of one type); both arms
//!   are evaluated for every lane.
//!
//! ```
//! use flatland_runtime::expr::op::{BinaryOp, Scalar, UnaryOp, ScalarType};
//! assert_eq!(BinaryOp::FloorDiv.eval(Scalar::I64(-7), Scalar::I64(2), 0), Ok(Scalar::I64(-4)));
//! assert_eq!(BinaryOp::Mod.eval(Scalar::I64(-7), Scalar::I64(2), 0), Ok(Scalar::I64(1)));
//! assert_eq!(BinaryOp::Shl.eval(Scalar::I64(1), Scalar::I64(65), 0), Ok(Scalar::I64(2)));
//! assert!(BinaryOp::Div.eval(Scalar::I64(1), Scalar::I64(0), 3).is_err());
//! assert_eq!(UnaryOp::Cast(ScalarType::I64).eval(Scalar::F64(-2.7)), Ok(Scalar::I64(-2)));
//! ```

pub mod fixed;
pub mod fixed_unary;

use super::scalar::type_error;
pub use super::scalar::{Scalar, ScalarType};
pub use super::ternary::TernaryOp;
use crate::{Error, Result};
use std::fmt;

/// Unary operators (including casts).
///
/// ```
/// use flatland_runtime::expr::op::{Scalar, UnaryOp};
/// assert_eq!(UnaryOp::Abs.eval(Scalar::I64(i64::MIN)), Ok(Scalar::I64(i64::MIN)));
/// assert_eq!(UnaryOp::Sqrt.eval(Scalar::F64(9.0)), Ok(Scalar::F64(3.0)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// Negation (`i64` wrapping, `f64`).
    Neg,
    /// Absolute value (`i64` wrapping, `f64`).
    Abs,
    /// Square root (`f64`).
    Sqrt,
    /// Logical not (`bool`).
    Not,
    /// Bitwise not (`i64`).
    BitNot,
    /// Conversion to the given type (see the module documentation).
    Cast(ScalarType),
    /// `e^x` (`f64`).
    Exp,
    /// `2^x` (`f64`).
    Exp2,
    /// `e^x - 1` (`f64`).
    ExpM1,
    /// Natural logarithm (`f64`).
    Ln,
    /// `ln(1 + x)` (`f64`).
    Ln1p,
    /// Base-2 logarithm (`f64`).
    Log2,
    /// Base-10 logarithm (`f64`).
    Log10,
    /// Sine (`f64`).
    Sin,
    /// Cosine (`f64`).
    Cos,
    /// Tangent (`f64`).
    Tan,
    /// Arcsine (`f64`).
    Asin,
    /// Arccosine (`f64`).
    Acos,
    /// Arctangent (`f64`).
    Atan,
    /// Hyperbolic sine (`f64`).
    Sinh,
    /// Hyperbolic cosine (`f64`).
    Cosh,
    /// Hyperbolic tangent (`f64`).
    Tanh,
    /// Round toward negative infinity (`f64`).
    Floor,
    /// Round toward positive infinity (`f64`).
    Ceil,
    /// Round to nearest, halfway away from zero (`f64`).
    Round,
    /// Round toward zero (`f64`).
    Trunc,
    /// The fractional part (`f64`).
    Fract,
    /// `1 / x` (`f64`).
    Recip,
    /// The sign: `-1`, `0`, `1` on `i64`; `±1.0` or NaN on `f64`.
    Signum,
    /// Whether a `f64` is NaN (`bool`).
    IsNan,
    /// Whether a `f64` is finite (`bool`).
    IsFinite,
    /// Whether a `f64` is infinite (`bool`).
    IsInfinite,
    /// The number of one bits (`i64`).
    CountOnes,
    /// The number of leading zero bits (`i64`).
    LeadingZeros,
    /// The number of trailing zero bits (`i64`).
    TrailingZeros,
}

impl UnaryOp {
    /// The operator's work relative to an add, for the cost model: 2 for `sqrt` and `recip`,
    /// 8 for the exponentials, logarithms and trigonometric functions, 1 otherwise (measured:
    /// about 4 ns per `sin`, `exp` or `ln` of an `f64` lane in the expression machine, where an
    /// add is about 0.5 ns).
    ///
    /// ```
    /// use flatland_runtime::expr::op::UnaryOp;
    /// assert!(UnaryOp::Sin.work() > UnaryOp::Sqrt.work() && UnaryOp::Sqrt.work() > UnaryOp::Neg.work());
    /// ```
    pub fn work(self) -> f64 {
        use UnaryOp as U;
        match self {
            U::Sqrt | U::Recip => 2.0,
            U::Exp
            | U::Exp2
            | U::ExpM1
            | U::Ln
            | U::Ln1p
            | U::Log2
            | U::Log10
            | U::Sin
            | U::Cos
            | U::Tan
            | U::Asin
            | U::Acos
            | U::Atan
            | U::Sinh
            | U::Cosh
            | U::Tanh => 8.0,
            _ => 1.0,
        }
    }

    /// Every unary operator (casts to each type included), for generators and tables.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::UnaryOp::ALL.len(), 37);
    /// ```
    pub const ALL: [UnaryOp; 37] = [
        UnaryOp::Neg,
        UnaryOp::Abs,
        UnaryOp::Sqrt,
        UnaryOp::Not,
        UnaryOp::BitNot,
        UnaryOp::Cast(ScalarType::I64),
        UnaryOp::Cast(ScalarType::F64),
        UnaryOp::Cast(ScalarType::Bool),
        UnaryOp::Exp,
        UnaryOp::Exp2,
        UnaryOp::ExpM1,
        UnaryOp::Ln,
        UnaryOp::Ln1p,
        UnaryOp::Log2,
        UnaryOp::Log10,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Tan,
        UnaryOp::Asin,
        UnaryOp::Acos,
        UnaryOp::Atan,
        UnaryOp::Sinh,
        UnaryOp::Cosh,
        UnaryOp::Tanh,
        UnaryOp::Floor,
        UnaryOp::Ceil,
        UnaryOp::Round,
        UnaryOp::Trunc,
        UnaryOp::Fract,
        UnaryOp::Recip,
        UnaryOp::Signum,
        UnaryOp::IsNan,
        UnaryOp::IsFinite,
        UnaryOp::IsInfinite,
        UnaryOp::CountOnes,
        UnaryOp::LeadingZeros,
        UnaryOp::TrailingZeros,
    ];

    /// The operator's name (used in error messages and listings).
    ///
    /// ```
    /// use flatland_runtime::expr::op::{ScalarType, UnaryOp};
    /// assert_eq!(UnaryOp::Cast(ScalarType::F64).name(), "cast_f64");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Abs => "abs",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Not => "not",
            UnaryOp::BitNot => "bit_not",
            UnaryOp::Cast(ScalarType::I64) => "cast_i64",
            UnaryOp::Cast(ScalarType::F64) => "cast_f64",
            UnaryOp::Cast(ScalarType::Bool) => "cast_bool",
            UnaryOp::Exp => "exp",
            UnaryOp::Exp2 => "exp2",
            UnaryOp::ExpM1 => "exp_m1",
            UnaryOp::Ln => "ln",
            UnaryOp::Ln1p => "ln_1p",
            UnaryOp::Log2 => "log2",
            UnaryOp::Log10 => "log10",
            UnaryOp::Sin => "sin",
            UnaryOp::Cos => "cos",
            UnaryOp::Tan => "tan",
            UnaryOp::Asin => "asin",
            UnaryOp::Acos => "acos",
            UnaryOp::Atan => "atan",
            UnaryOp::Sinh => "sinh",
            UnaryOp::Cosh => "cosh",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Floor => "floor",
            UnaryOp::Ceil => "ceil",
            UnaryOp::Round => "round",
            UnaryOp::Trunc => "trunc",
            UnaryOp::Fract => "fract",
            UnaryOp::Recip => "recip",
            UnaryOp::Signum => "signum",
            UnaryOp::IsNan => "is_nan",
            UnaryOp::IsFinite => "is_finite",
            UnaryOp::IsInfinite => "is_infinite",
            UnaryOp::CountOnes => "count_ones",
            UnaryOp::LeadingZeros => "leading_zeros",
            UnaryOp::TrailingZeros => "trailing_zeros",
        }
    }

    /// The result type for an operand of type `a`, or `None` if the operator does not accept it.
    ///
    /// ```
    /// use flatland_runtime::expr::op::{ScalarType, UnaryOp};
    /// assert_eq!(UnaryOp::Sqrt.result_type(ScalarType::F64), Some(ScalarType::F64));
    /// assert_eq!(UnaryOp::Sqrt.result_type(ScalarType::I64), None);
    /// ```
    pub fn result_type(self, a: ScalarType) -> Option<ScalarType> {
        use ScalarType::{Bool, F64, I64};
        match (self, a) {
            (UnaryOp::Cast(to), _) => Some(to),
            (op, Bool) if op.on_bool(false).is_some() => Some(a),
            (op, I64) if op.on_i64(0).is_some() => Some(a),
            (op, F64) if op.on_f64(0.0).is_some() => Some(a),
            (op, F64) if op.test_f64(0.0).is_some() => Some(Bool),
            _ => None,
        }
    }

    /// Applies the operator to one value. Unary operators never fail on a well-typed operand; an
    /// operand of a type the operator does not accept is an [`Error::Invalid`].
    ///
    /// ```
    /// use flatland_runtime::expr::op::{Scalar, ScalarType, UnaryOp};
    /// assert_eq!(UnaryOp::Cast(ScalarType::Bool).eval(Scalar::F64(f64::NAN)), Ok(Scalar::Bool(true)));
    /// assert!(UnaryOp::Not.eval(Scalar::I64(1)).is_err());
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] if the operator does not accept the operand's type.
    pub fn eval(self, a: Scalar) -> Result<Scalar> {
        use Scalar::{Bool, F64, I64};
        Ok(match (self, a) {
            (UnaryOp::Cast(to), a) => cast(a, to),
            (op, I64(x)) if op.on_i64(x).is_some() => I64(op.on_i64(x).unwrap_or(x)),
            (op, F64(x)) if op.on_f64(x).is_some() => F64(op.on_f64(x).unwrap_or(x)),
            (op, F64(x)) if op.test_f64(x).is_some() => Bool(op.test_f64(x).unwrap_or(false)),
            (op, Bool(x)) if op.on_bool(x).is_some() => Bool(op.on_bool(x).unwrap_or(x)),
            (op, a) => return Err(type_error(op.name(), &[a.ty()])),
        })
    }

    /// The operator on an `i64` for the operators that map `i64` to `i64` (`neg`, `abs`,
    /// `bit_not`, `signum`, `count_ones`, `leading_zeros`, `trailing_zeros`; not the casts);
    /// `None` for every other operator. With a
    /// constant operator the match folds away once inlined (see [`BinaryOp::on_i64`]).
    ///
    /// ```
    /// use flatland_runtime::expr::op::UnaryOp;
    /// assert_eq!(UnaryOp::CountOnes.on_i64(7), Some(3));
    /// assert_eq!(UnaryOp::Exp.on_i64(7), None);
    /// ```
    #[inline(always)]
    pub fn on_i64(self, a: i64) -> Option<i64> {
        Some(match self {
            UnaryOp::Neg => int::neg(a),
            UnaryOp::Abs => int::abs(a),
            UnaryOp::BitNot => int::bit_not(a),
            UnaryOp::Signum => int::signum(a),
            UnaryOp::CountOnes => int::count_ones(a),
            UnaryOp::LeadingZeros => int::leading_zeros(a),
            UnaryOp::TrailingZeros => int::trailing_zeros(a),
            _ => return None,
        })
    }

    /// The operator on an `f64` for the operators that map `f64` to `f64` (`neg`, `abs`, `sqrt`,
    /// `exp` ... `recip`, `signum`; not the casts); `None` for every other operator.
    ///
    /// ```
    /// use flatland_runtime::expr::op::UnaryOp;
    /// assert_eq!(UnaryOp::Floor.on_f64(-0.5), Some(-1.0));
    /// assert_eq!(UnaryOp::IsNan.on_f64(0.0), None);
    /// ```
    #[inline(always)]
    pub fn on_f64(self, a: f64) -> Option<f64> {
        Some(match self {
            UnaryOp::Neg => float::neg(a),
            UnaryOp::Abs => float::abs(a),
            UnaryOp::Sqrt => float::sqrt(a),
            UnaryOp::Exp => float::exp(a),
            UnaryOp::Exp2 => float::exp2(a),
            UnaryOp::ExpM1 => float::exp_m1(a),
            UnaryOp::Ln => float::ln(a),
            UnaryOp::Ln1p => float::ln_1p(a),
            UnaryOp::Log2 => float::log2(a),
            UnaryOp::Log10 => float::log10(a),
            UnaryOp::Sin => float::sin(a),
            UnaryOp::Cos => float::cos(a),
            UnaryOp::Tan => float::tan(a),
            UnaryOp::Asin => float::asin(a),
            UnaryOp::Acos => float::acos(a),
            UnaryOp::Atan => float::atan(a),
            UnaryOp::Sinh => float::sinh(a),
            UnaryOp::Cosh => float::cosh(a),
            UnaryOp::Tanh => float::tanh(a),
            UnaryOp::Floor => float::floor(a),
            UnaryOp::Ceil => float::ceil(a),
            UnaryOp::Round => float::round(a),
            UnaryOp::Trunc => float::trunc(a),
            UnaryOp::Fract => float::fract(a),
            UnaryOp::Recip => float::recip(a),
            UnaryOp::Signum => float::signum(a),
            _ => return None,
        })
    }

    /// The operator on a `bool` for the operators that map `bool` to `bool` (`not`; not the
    /// casts); `None` for every other operator.
    ///
    /// ```
    /// use flatland_runtime::expr::op::UnaryOp;
    /// assert_eq!(UnaryOp::Not.on_bool(true), Some(false));
    /// assert_eq!(UnaryOp::Neg.on_bool(true), None);
    /// ```
    #[inline(always)]
    pub fn on_bool(self, a: bool) -> Option<bool> {
        Some(match self {
            UnaryOp::Not => boolean::not(a),
            _ => return None,
        })
    }

    /// The classification operators on an `f64` (`is_nan`, `is_finite`, `is_infinite`); `None`
    /// for every other operator.
    ///
    /// ```
    /// use flatland_runtime::expr::op::UnaryOp;
    /// assert_eq!(UnaryOp::IsFinite.test_f64(f64::NAN), Some(false));
    /// ```
    #[inline(always)]
    pub fn test_f64(self, a: f64) -> Option<bool> {
        Some(match self {
            UnaryOp::IsNan => float::is_nan(a),
            UnaryOp::IsFinite => float::is_finite(a),
            UnaryOp::IsInfinite => float::is_infinite(a),
            _ => return None,
        })
    }
}

impl fmt::Display for UnaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The family a binary operator belongs to.
///
/// ```
/// use flatland_runtime::expr::op::{BinaryOp, OpKind};
/// assert_eq!(BinaryOp::Lt.kind(), OpKind::Comparison);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// `add sub mul div rem floor_div mod min max`: `i64` or `f64`, result of the operand type.
    Arithmetic,
    /// `eq ne lt le gt ge`: any type, result `bool`.
    Comparison,
    /// `and or`: `bool`.
    Logical,
    /// `bit_and bit_or bit_xor`: `i64` or `bool`.
    Bitwise,
    /// `shl shr`: `i64`.
    Shift,
    /// `powf atan2 hypot copysign` (`f64`), `pow` (`i64`), `powi` (`f64` base, `i64` exponent):
    /// each takes the types [`BinaryOp::result_type`] lists.
    Math,
}

/// Binary operators.
///
/// ```
/// use flatland_runtime::expr::op::{BinaryOp, Scalar};
/// assert_eq!(BinaryOp::Add.eval(Scalar::I64(i64::MAX), Scalar::I64(1), 0), Ok(Scalar::I64(i64::MIN)));
/// assert_eq!(BinaryOp::Lt.eval(Scalar::F64(f64::NAN), Scalar::F64(1.0), 0), Ok(Scalar::Bool(false)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b`: truncating on `i64`, IEEE on `f64`.
    Div,
    /// `a % b`: truncated remainder (sign of the dividend).
    Rem,
    /// Floor division (round toward negative infinity).
    FloorDiv,
    /// Modulo matching floor division (sign of the divisor).
    Mod,
    /// Minimum (`f64`: IEEE `minimum`).
    Min,
    /// Maximum (`f64`: IEEE `maximum`).
    Max,
    /// `a == b`.
    Eq,
    /// `a != b`.
    Ne,
    /// `a < b`.
    Lt,
    /// `a <= b`.
    Le,
    /// `a > b`.
    Gt,
    /// `a >= b`.
    Ge,
    /// Logical and (`bool`, both sides evaluated).
    And,
    /// Logical or (`bool`, both sides evaluated).
    Or,
    /// Bitwise and.
    BitAnd,
    /// Bitwise or.
    BitOr,
    /// Bitwise exclusive or.
    BitXor,
    /// Left shift by the low 6 bits of `b`.
    Shl,
    /// Arithmetic right shift by the low 6 bits of `b`.
    Shr,
    /// `a^b` on `f64`.
    Powf,
    /// `a^n`: `f64` base, `i64` exponent (square-and-multiply).
    Powi,
    /// `a.atan2(b)` on `f64`.
    Atan2,
    /// `sqrt(a^2 + b^2)` on `f64`.
    Hypot,
    /// `a` with the sign of `b` on `f64`.
    Copysign,
    /// `a^b` on `i64` (wrapping; see `int::pow` for negative exponents).
    Pow,
    /// Euclidean remainder (`i64`: division by zero is an error).
    RemEuclid,
    /// Euclidean division (`i64`: division by zero is an error).
    DivEuclid,
    /// `std`'s minimum (`f64`: a NaN operand is ignored).
    MinNum,
    /// `std`'s maximum (`f64`: a NaN operand is ignored).
    MaxNum,
}

impl BinaryOp {
    /// Every binary operator, for generators and tables.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::BinaryOp::ALL.len(), 32);
    /// ```
    pub const ALL: [BinaryOp; 32] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Rem,
        BinaryOp::FloorDiv,
        BinaryOp::Mod,
        BinaryOp::Min,
        BinaryOp::Max,
        BinaryOp::Eq,
        BinaryOp::Ne,
        BinaryOp::Lt,
        BinaryOp::Le,
        BinaryOp::Gt,
        BinaryOp::Ge,
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::BitAnd,
        BinaryOp::BitOr,
        BinaryOp::BitXor,
        BinaryOp::Shl,
        BinaryOp::Shr,
        BinaryOp::Powf,
        BinaryOp::Powi,
        BinaryOp::Atan2,
        BinaryOp::Hypot,
        BinaryOp::Copysign,
        BinaryOp::Pow,
        BinaryOp::RemEuclid,
        BinaryOp::DivEuclid,
        BinaryOp::MinNum,
        BinaryOp::MaxNum,
    ];

    /// The operator's name (used in error messages, e.g. "div: lane 3: division by zero").
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::BinaryOp::FloorDiv.name(), "floor_div");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Rem => "rem",
            BinaryOp::FloorDiv => "floor_div",
            BinaryOp::Mod => "mod",
            BinaryOp::Min => "min",
            BinaryOp::Max => "max",
            BinaryOp::Eq => "eq",
            BinaryOp::Ne => "ne",
            BinaryOp::Lt => "lt",
            BinaryOp::Le => "le",
            BinaryOp::Gt => "gt",
            BinaryOp::Ge => "ge",
            BinaryOp::And => "and",
            BinaryOp::Or => "or",
            BinaryOp::BitAnd => "bit_and",
            BinaryOp::BitOr => "bit_or",
            BinaryOp::BitXor => "bit_xor",
            BinaryOp::Shl => "shl",
            BinaryOp::Shr => "shr",
            BinaryOp::Powf => "powf",
            BinaryOp::Powi => "powi",
            BinaryOp::Atan2 => "atan2",
            BinaryOp::Hypot => "hypot",
            BinaryOp::Copysign => "copysign",
            BinaryOp::Pow => "pow",
            BinaryOp::RemEuclid => "rem_euclid",
            BinaryOp::DivEuclid => "div_euclid",
            BinaryOp::MinNum => "min_num",
            BinaryOp::MaxNum => "max_num",
        }
    }

    /// The operator's family.
    ///
    /// ```
    /// use flatland_runtime::expr::op::{BinaryOp, OpKind};
    /// assert_eq!(BinaryOp::Mod.kind(), OpKind::Arithmetic);
    /// ```
    pub fn kind(self) -> OpKind {
        use BinaryOp as B;
        match self {
            B::Add | B::Sub | B::Mul | B::Div | B::Rem | B::FloorDiv | B::Mod | B::Min | B::Max => {
                OpKind::Arithmetic
            }
            B::Powf | B::Powi | B::Atan2 | B::Hypot | B::Copysign | B::Pow => OpKind::Math,
            B::RemEuclid | B::DivEuclid | B::MinNum | B::MaxNum => OpKind::Arithmetic,
            B::Eq | B::Ne | B::Lt | B::Le | B::Gt | B::Ge => OpKind::Comparison,
            B::And | B::Or => OpKind::Logical,
            B::BitAnd | B::BitOr | B::BitXor => OpKind::Bitwise,
            B::Shl | B::Shr => OpKind::Shift,
        }
    }

    /// The operator's work relative to an add, for the cost model: 4 for divisions and
    /// remainders and `powi`, 8 for `powf`, `pow`, `atan2` and `hypot`, 1 otherwise.
    ///
    /// ```
    /// use flatland_runtime::expr::op::BinaryOp;
    /// assert!(BinaryOp::Powf.work() > BinaryOp::Div.work() && BinaryOp::Div.work() > BinaryOp::Add.work());
    /// ```
    pub fn work(self) -> f64 {
        use BinaryOp as B;
        match self {
            B::Div | B::Rem | B::FloorDiv | B::Mod | B::DivEuclid | B::RemEuclid | B::Powi => 4.0,
            B::Powf | B::Pow | B::Atan2 | B::Hypot => 8.0,
            _ => 1.0,
        }
    }

    /// Whether the operator can fail on `i64` operands (division by zero).
    ///
    /// ```
    /// use flatland_runtime::expr::op::BinaryOp;
    /// assert!(BinaryOp::Mod.can_fail() && !BinaryOp::Mul.can_fail());
    /// ```
    pub fn can_fail(self) -> bool {
        matches!(
            self,
            BinaryOp::Div
                | BinaryOp::Rem
                | BinaryOp::FloorDiv
                | BinaryOp::Mod
                | BinaryOp::Pow
                | BinaryOp::RemEuclid
                | BinaryOp::DivEuclid
        )
    }

    /// The result type for operands of types `a` and `b`, or `None` if the operator does not
    /// accept them (the operands must have one type; see [`OpKind`]).
    ///
    /// ```
    /// use flatland_runtime::expr::op::{BinaryOp, ScalarType::*};
    /// assert_eq!(BinaryOp::Add.result_type(I64, I64), Some(I64));
    /// assert_eq!(BinaryOp::Add.result_type(I64, F64), None);
    /// assert_eq!(BinaryOp::Ge.result_type(Bool, Bool), Some(Bool));
    /// ```
    pub fn result_type(self, a: ScalarType, b: ScalarType) -> Option<ScalarType> {
        use ScalarType::{Bool, F64, I64};
        match (self, a, b) {
            (BinaryOp::Powi, F64, I64)
            | (BinaryOp::Powf | BinaryOp::Atan2 | BinaryOp::Hypot | BinaryOp::Copysign, F64, F64) =>
            {
                return Some(F64);
            }
            (BinaryOp::Pow, I64, I64) => return Some(I64),
            _ if self.kind() == OpKind::Math => return None,
            _ => {}
        }
        if a != b {
            return None;
        }
        match (self.kind(), a) {
            (OpKind::Arithmetic, I64 | F64)
            | (OpKind::Logical, Bool)
            | (OpKind::Bitwise, I64 | Bool)
            | (OpKind::Shift, I64) => Some(a),
            (OpKind::Comparison, _) => Some(Bool),
            _ => None,
        }
    }

    /// Applies the operator to two values. `lane` is only used to say where an error happened:
    /// `i64` division by zero is [`Error::DivisionByZero`] `{ op: self.name(), lane }`; operands of
    /// types the operator does not accept are an [`Error::Invalid`].
    ///
    /// ```
    /// use flatland_runtime::{Error, expr::op::{BinaryOp, Scalar}};
    /// assert_eq!(
    ///     BinaryOp::Rem.eval(Scalar::I64(5), Scalar::I64(0), 7),
    ///     Err(Error::DivisionByZero { op: "rem", lane: 7 })
    /// );
    /// assert_eq!(BinaryOp::Rem.eval(Scalar::F64(5.5), Scalar::F64(2.0), 0), Ok(Scalar::F64(1.5)));
    /// ```
    ///
    /// # Errors
    /// [`Error::DivisionByZero`] for `i64` division by zero, [`Error::Invalid`] for operand types
    /// the operator does not accept.
    pub fn eval(self, a: Scalar, b: Scalar, lane: usize) -> Result<Scalar> {
        use Scalar::{Bool, F64, I64};
        let comparison = self.kind() == OpKind::Comparison;
        let out = match (a, b) {
            (I64(x), I64(y)) if comparison => compare(self, x, y).map(Bool),
            (F64(x), F64(y)) if comparison => compare(self, x, y).map(Bool),
            (Bool(x), Bool(y)) if comparison => compare(self, x, y).map(Bool),
            (I64(x), I64(y)) => match self.on_i64(x, y) {
                None if self.can_fail() => {
                    return Err(Error::DivisionByZero {
                        op: self.name(),
                        lane,
                    });
                }
                v => v.map(I64),
            },
            (F64(x), F64(y)) => self.on_f64(x, y).map(F64),
            (Bool(x), Bool(y)) => self.on_bool(x, y).map(Bool),
            (F64(x), I64(n)) if self == BinaryOp::Powi => Some(F64(float::powi(x, n))),
            _ => None,
        };
        out.ok_or_else(|| type_error(self.name(), &[a.ty(), b.ty()]))
    }

    /// The operator on two `i64` for the operators that yield `i64` (arithmetic, bitwise,
    /// shifts); `None` for a division by zero and for every other operator. With a constant
    /// operator the match folds away once inlined: code generated for a program (the
    /// `#[vectorise]` macro's native kernels) calls it per lane.
    ///
    /// ```
    /// use flatland_runtime::expr::op::BinaryOp;
    /// assert_eq!(BinaryOp::Mod.on_i64(-7, 2), Some(1));
    /// assert_eq!(BinaryOp::Div.on_i64(1, 0), None);
    /// assert_eq!(BinaryOp::Lt.on_i64(1, 2), None); // a comparison: see `compare`
    /// ```
    #[inline(always)]
    pub fn on_i64(self, a: i64, b: i64) -> Option<i64> {
        use BinaryOp as B;
        Some(match self {
            B::Add => int::add(a, b),
            B::Sub => int::sub(a, b),
            B::Mul => int::mul(a, b),
            B::Div => int::div(a, b)?,
            B::Rem => int::rem(a, b)?,
            B::FloorDiv => int::floor_div(a, b)?,
            B::Mod => int::modulo(a, b)?,
            B::Min | B::MinNum => int::min(a, b),
            B::Max | B::MaxNum => int::max(a, b),
            B::BitAnd => a & b,
            B::BitOr => a | b,
            B::BitXor => a ^ b,
            B::Shl => int::shl(a, b),
            B::Shr => int::shr(a, b),
            B::Pow => int::pow(a, b)?,
            B::RemEuclid => int::rem_euclid(a, b)?,
            B::DivEuclid => int::div_euclid(a, b)?,
            _ => return None,
        })
    }

    /// The operator on two `f64` for the arithmetic operators (which never fail on `f64`);
    /// `None` for every other operator. See [`BinaryOp::on_i64`].
    ///
    /// ```
    /// use flatland_runtime::expr::op::BinaryOp;
    /// assert_eq!(BinaryOp::Rem.on_f64(5.5, 2.0), Some(1.5));
    /// assert_eq!(BinaryOp::And.on_f64(1.0, 1.0), None);
    /// ```
    #[inline(always)]
    pub fn on_f64(self, a: f64, b: f64) -> Option<f64> {
        use BinaryOp as B;
        Some(match self {
            B::Add => a + b,
            B::Sub => a - b,
            B::Mul => a * b,
            B::Div => a / b,
            B::Rem => float::rem(a, b),
            B::FloorDiv => float::floor_div(a, b),
            B::Mod => float::modulo(a, b),
            B::Min => float::min(a, b),
            B::Max => float::max(a, b),
            B::Powf => float::powf(a, b),
            B::Atan2 => float::atan2(a, b),
            B::Hypot => float::hypot(a, b),
            B::Copysign => float::copysign(a, b),
            B::RemEuclid => float::rem_euclid(a, b),
            B::DivEuclid => float::div_euclid(a, b),
            B::MinNum => float::min_num(a, b),
            B::MaxNum => float::max_num(a, b),
            _ => return None,
        })
    }

    /// The operator on two `bool` for the logical and bitwise operators; `None` for every other
    /// operator. See [`BinaryOp::on_i64`].
    ///
    /// ```
    /// use flatland_runtime::expr::op::BinaryOp;
    /// assert_eq!(BinaryOp::BitXor.on_bool(true, true), Some(false));
    /// assert_eq!(BinaryOp::Add.on_bool(true, true), None);
    /// ```
    #[inline(always)]
    pub fn on_bool(self, a: bool, b: bool) -> Option<bool> {
        use BinaryOp as B;
        Some(match self {
            B::And | B::BitAnd => a & b,
            B::Or | B::BitOr => a | b,
            B::BitXor => a ^ b,
            _ => return None,
        })
    }
}

impl fmt::Display for BinaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The comparison `op` on two values of one ordered type; `None` if `op` is not a comparison.
///
/// ```
/// use flatland_runtime::expr::op::{compare, BinaryOp};
/// assert_eq!(compare(BinaryOp::Le, -0.0, 0.0), Some(true));
/// assert_eq!(compare(BinaryOp::Add, 1, 2), None);
/// ```
#[inline(always)]
pub fn compare<T: PartialOrd>(op: BinaryOp, a: T, b: T) -> Option<bool> {
    Some(match op {
        BinaryOp::Eq => a == b,
        BinaryOp::Ne => a != b,
        BinaryOp::Lt => a < b,
        BinaryOp::Le => a <= b,
        BinaryOp::Gt => a > b,
        BinaryOp::Ge => a >= b,
        _ => return None,
    })
}

/// `select(c, a, b)`: `a` if `c`, else `b`; both must have one type.
///
/// ```
/// use flatland_runtime::expr::op::{select, Scalar};
/// assert_eq!(select(Scalar::Bool(false), Scalar::I64(1), Scalar::I64(2)), Ok(Scalar::I64(2)));
/// assert!(select(Scalar::I64(0), Scalar::I64(1), Scalar::I64(2)).is_err());
/// ```
///
/// # Errors
/// [`Error::Invalid`] if `c` is not `bool` or the arms have different types.
pub fn select(c: Scalar, a: Scalar, b: Scalar) -> Result<Scalar> {
    match c {
        Scalar::Bool(c) if a.ty() == b.ty() => Ok(if c { a } else { b }),
        _ => Err(type_error("select", &[c.ty(), a.ty(), b.ty()])),
    }
}

/// The result type of `select(c, a, b)`, or `None` if `c` is not `bool` or the arms differ.
///
/// ```
/// use flatland_runtime::expr::op::{select_type, ScalarType::*};
/// assert_eq!(select_type(Bool, F64, F64), Some(F64));
/// assert_eq!(select_type(Bool, F64, I64), None);
/// ```
pub fn select_type(c: ScalarType, a: ScalarType, b: ScalarType) -> Option<ScalarType> {
    (c == ScalarType::Bool && a == b).then_some(a)
}

/// Converts a value to the type `to` (see the module documentation for the rules).
///
/// ```
/// use flatland_runtime::expr::op::{cast, Scalar, ScalarType};
/// assert_eq!(cast(Scalar::F64(1e300), ScalarType::I64), Scalar::I64(i64::MAX));
/// assert_eq!(cast(Scalar::Bool(true), ScalarType::F64), Scalar::F64(1.0));
/// ```
pub fn cast(a: Scalar, to: ScalarType) -> Scalar {
    use Scalar::{Bool, F64, I64};
    match (a, to) {
        (I64(x), ScalarType::I64) => I64(x),
        (I64(x), ScalarType::F64) => F64(conv::i64_to_f64(x)),
        (I64(x), ScalarType::Bool) => Bool(conv::i64_to_bool(x)),
        (F64(x), ScalarType::I64) => I64(conv::f64_to_i64(x)),
        (F64(x), ScalarType::F64) => F64(x),
        (F64(x), ScalarType::Bool) => Bool(conv::f64_to_bool(x)),
        (Bool(x), ScalarType::I64) => I64(conv::bool_to_i64(x)),
        (Bool(x), ScalarType::F64) => F64(conv::bool_to_f64(x)),
        (Bool(x), ScalarType::Bool) => Bool(x),
    }
}

/// The `i64` semantics, one function per operator (the typed kernels call these).
pub mod int {
    pub use crate::expr::math::int::*;

    /// Wrapping addition.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::int::add(i64::MAX, 1), i64::MIN);
    /// ```
    #[inline(always)]
    pub fn add(a: i64, b: i64) -> i64 {
        a.wrapping_add(b)
    }

    /// Wrapping subtraction.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::int::sub(i64::MIN, 1), i64::MAX);
    /// ```
    #[inline(always)]
    pub fn sub(a: i64, b: i64) -> i64 {
        a.wrapping_sub(b)
    }

    /// Wrapping multiplication.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::int::mul(i64::MIN, -1), i64::MIN);
    /// ```
    #[inline(always)]
    pub fn mul(a: i64, b: i64) -> i64 {
        a.wrapping_mul(b)
    }

    /// Truncating division; `None` when `b == 0`; `i64::MIN / -1 == i64::MIN`.
    ///
    /// ```
    /// use flatland_runtime::expr::op::int::div;
    /// assert_eq!(div(-7, 2), Some(-3));
    /// assert_eq!(div(i64::MIN, -1), Some(i64::MIN));
    /// assert_eq!(div(1, 0), None);
    /// ```
    #[inline(always)]
    pub fn div(a: i64, b: i64) -> Option<i64> {
        if b == 0 {
            None
        } else {
            Some(a.wrapping_div(b))
        }
    }

    /// Truncated remainder (sign of the dividend); `None` when `b == 0`.
    ///
    /// ```
    /// use flatland_runtime::expr::op::int::rem;
    /// assert_eq!(rem(-7, 2), Some(-1));
    /// assert_eq!(rem(i64::MIN, -1), Some(0));
    /// ```
    #[inline(always)]
    pub fn rem(a: i64, b: i64) -> Option<i64> {
        if b == 0 {
            None
        } else {
            Some(a.wrapping_rem(b))
        }
    }

    /// Floor division (toward negative infinity); `None` when `b == 0`.
    ///
    /// ```
    /// use flatland_runtime::expr::op::int::floor_div;
    /// assert_eq!(floor_div(-7, 2), Some(-4));
    /// assert_eq!(floor_div(7, -2), Some(-4));
    /// assert_eq!(floor_div(i64::MIN, -1), Some(i64::MIN));
    /// ```
    #[inline(always)]
    pub fn floor_div(a: i64, b: i64) -> Option<i64> {
        if b == 0 {
            return None;
        }
        let q = a.wrapping_div(b);
        let r = a.wrapping_rem(b);
        Some(if r != 0 && ((r < 0) != (b < 0)) {
            q - 1
        } else {
            q
        })
    }

    /// Modulo matching [`floor_div`] (sign of the divisor); `None` when `b == 0`.
    ///
    /// ```
    /// use flatland_runtime::expr::op::int::modulo;
    /// assert_eq!(modulo(-7, 2), Some(1));
    /// assert_eq!(modulo(7, -2), Some(-1));
    /// assert_eq!(modulo(i64::MIN, -1), Some(0));
    /// ```
    #[inline(always)]
    pub fn modulo(a: i64, b: i64) -> Option<i64> {
        if b == 0 {
            return None;
        }
        let r = a.wrapping_rem(b);
        // |r| < |b| and r, b of opposite signs: r + b cannot overflow.
        Some(if r != 0 && ((r < 0) != (b < 0)) {
            r + b
        } else {
            r
        })
    }

    /// Minimum.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::int::min(-1, 2), -1);
    /// ```
    #[inline(always)]
    pub fn min(a: i64, b: i64) -> i64 {
        if b < a { b } else { a }
    }

    /// Maximum.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::int::max(-1, 2), 2);
    /// ```
    #[inline(always)]
    pub fn max(a: i64, b: i64) -> i64 {
        if b > a { b } else { a }
    }

    /// Left shift by the low 6 bits of `b`.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::int::shl(1, 65), 2);
    /// ```
    #[inline(always)]
    pub fn shl(a: i64, b: i64) -> i64 {
        a << (b & 63)
    }

    /// Arithmetic right shift by the low 6 bits of `b`.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::int::shr(-8, 64 + 1), -4);
    /// ```
    #[inline(always)]
    pub fn shr(a: i64, b: i64) -> i64 {
        a >> (b & 63)
    }

    /// Wrapping negation.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::int::neg(i64::MIN), i64::MIN);
    /// ```
    #[inline(always)]
    pub fn neg(a: i64) -> i64 {
        a.wrapping_neg()
    }

    /// Wrapping absolute value.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::int::abs(i64::MIN), i64::MIN);
    /// ```
    #[inline(always)]
    pub fn abs(a: i64) -> i64 {
        a.wrapping_abs()
    }

    /// Bitwise not.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::int::bit_not(0), -1);
    /// ```
    #[inline(always)]
    pub fn bit_not(a: i64) -> i64 {
        !a
    }
}

/// The `f64` semantics of the operators that are not a single IEEE instruction.
pub mod float {
    pub use crate::expr::math::float::*;
    pub use crate::expr::scalar::{canonical_bits, same};

    /// Negation (flips the sign bit, also of NaN and zero).
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::float::neg(0.0).to_bits(), (-0.0f64).to_bits());
    /// ```
    #[inline(always)]
    pub fn neg(a: f64) -> f64 {
        -a
    }

    /// Absolute value (clears the sign bit).
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::float::abs(-2.0), 2.0);
    /// ```
    #[inline(always)]
    pub fn abs(a: f64) -> f64 {
        a.abs()
    }

    /// IEEE square root.
    ///
    /// ```
    /// assert!(flatland_runtime::expr::op::float::sqrt(-1.0).is_nan());
    /// ```
    #[inline(always)]
    pub fn sqrt(a: f64) -> f64 {
        a.sqrt()
    }

    /// Truncated remainder, C's `fmod` (exact; sign of the dividend; `x % 0 = NaN`).
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::float::rem(-5.5, 2.0), -1.5);
    /// ```
    #[inline(always)]
    pub fn rem(a: f64, b: f64) -> f64 {
        a % b
    }

    /// Floor division: `floor(a / b)`.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::float::floor_div(-7.0, 2.0), -4.0);
    /// ```
    #[inline(always)]
    pub fn floor_div(a: f64, b: f64) -> f64 {
        (a / b).floor()
    }

    /// Modulo with the sign of the divisor: `fmod(a, b)`, plus `b` when that is non-zero and its
    /// sign differs from `b`'s.
    ///
    /// ```
    /// use flatland_runtime::expr::op::float::modulo;
    /// assert_eq!(modulo(-7.0, 2.0), 1.0);
    /// assert_eq!(modulo(7.0, -2.0), -1.0);
    /// assert!(modulo(1.0, 0.0).is_nan());
    /// ```
    #[inline(always)]
    pub fn modulo(a: f64, b: f64) -> f64 {
        let r = a % b;
        if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
            r + b
        } else {
            r
        }
    }
}

/// The `bool` semantics.
pub mod boolean {
    /// Logical not.
    ///
    /// ```
    /// assert!(flatland_runtime::expr::op::boolean::not(false));
    /// ```
    #[inline(always)]
    pub fn not(a: bool) -> bool {
        !a
    }
}

/// The conversions behind [`cast`].
pub mod conv {
    /// Round to nearest.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::conv::i64_to_f64(3), 3.0);
    /// ```
    #[inline(always)]
    pub fn i64_to_f64(a: i64) -> f64 {
        a as f64
    }

    /// Truncate toward zero, saturating; NaN becomes 0.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::conv::f64_to_i64(f64::NAN), 0);
    /// ```
    #[inline(always)]
    pub fn f64_to_i64(a: f64) -> i64 {
        a as i64
    }

    /// `a != 0`.
    ///
    /// ```
    /// assert!(flatland_runtime::expr::op::conv::i64_to_bool(-3));
    /// ```
    #[inline(always)]
    pub fn i64_to_bool(a: i64) -> bool {
        a != 0
    }

    /// `a != 0.0` (NaN is true, `-0.0` false).
    ///
    /// ```
    /// assert!(!flatland_runtime::expr::op::conv::f64_to_bool(-0.0));
    /// ```
    #[inline(always)]
    pub fn f64_to_bool(a: f64) -> bool {
        a != 0.0
    }

    /// 0 or 1.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::conv::bool_to_i64(true), 1);
    /// ```
    #[inline(always)]
    pub fn bool_to_i64(a: bool) -> i64 {
        i64::from(a)
    }

    /// 0.0 or 1.0.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::conv::bool_to_f64(true), 1.0);
    /// ```
    #[inline(always)]
    pub fn bool_to_f64(a: bool) -> f64 {
        if a { 1.0 } else { 0.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    #[test]
    fn division_edge_cases() {
        for (a, b) in [
            (7i64, 2i64),
            (-7, 2),
            (7, -2),
            (-7, -2),
            (6, 3),
            (-6, 3),
            (0, -5),
        ] {
            let q = int::floor_div(a, b).unwrap();
            let m = int::modulo(a, b).unwrap();
            assert_eq!(q, (a as f64 / b as f64).floor() as i64, "{a} // {b}");
            assert_eq!(q * b + m, a);
            assert!(m == 0 || (m < 0) == (b < 0));
            assert_eq!(int::div(a, b).unwrap() * b + int::rem(a, b).unwrap(), a);
        }
        assert_eq!(int::div(i64::MIN, -1), Some(i64::MIN));
        assert_eq!(int::rem(i64::MIN, -1), Some(0));
        assert_eq!(int::floor_div(i64::MIN, -1), Some(i64::MIN));
        assert_eq!(int::modulo(i64::MIN, -1), Some(0));
        assert_eq!(int::modulo(i64::MIN, i64::MAX), Some(i64::MAX - 1));
        for op in [
            BinaryOp::Div,
            BinaryOp::Rem,
            BinaryOp::FloorDiv,
            BinaryOp::Mod,
        ] {
            assert_eq!(
                op.eval(Scalar::I64(3), Scalar::I64(0), 9),
                Err(Error::DivisionByZero {
                    op: op.name(),
                    lane: 9
                })
            );
            assert!(op.eval(Scalar::F64(3.0), Scalar::F64(0.0), 9).is_ok());
        }
        assert_eq!(
            Error::DivisionByZero { op: "mod", lane: 4 }.to_string(),
            "mod: lane 4: division by zero"
        );
    }

    #[test]
    fn float_edge_cases() {
        assert!(float::modulo(f64::NAN, 1.0).is_nan());
        assert!(float::floor_div(1.0, 0.0).is_infinite());
        assert_eq!(float::modulo(-1.0, f64::INFINITY), f64::INFINITY);
        assert_eq!(float::min(-0.0, 0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(float::max(0.0, -0.0).to_bits(), 0.0f64.to_bits());
        assert!(float::max(f64::NAN, f64::NAN).is_nan());
        assert_eq!(conv::f64_to_i64(f64::NEG_INFINITY), i64::MIN);
        assert_eq!(conv::f64_to_i64(-0.9), 0);
        assert_eq!(
            BinaryOp::Ne.eval(Scalar::F64(f64::NAN), Scalar::F64(f64::NAN), 0),
            Ok(Scalar::Bool(true))
        );
        assert_eq!(
            BinaryOp::Eq.eval(Scalar::F64(-0.0), Scalar::F64(0.0), 0),
            Ok(Scalar::Bool(true))
        );
    }

    /// IEEE 754-2019 minimum / maximum spelled out case by case, against `float::min` / `max`.
    fn min_max_match(a: f64, b: f64) -> bool {
        let min = if a.is_nan() || b.is_nan() {
            f64::NAN
        } else if a < b {
            a
        } else if b < a {
            b
        } else if a.is_sign_negative() {
            a
        } else {
            b
        };
        let max = if a.is_nan() || b.is_nan() {
            f64::NAN
        } else if a > b {
            a
        } else if b > a {
            b
        } else if a.is_sign_positive() {
            a
        } else {
            b
        };
        float::min(a, b).to_bits() == min.to_bits() && float::max(a, b).to_bits() == max.to_bits()
    }

    #[test]
    fn float_min_max_on_edge_values() {
        let edges = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            5e-324,
        ];
        for a in edges {
            for b in edges {
                assert!(min_max_match(a, b), "{a} {b}");
            }
        }
    }

    #[test]
    fn shifts_use_low_six_bits() {
        assert_eq!(int::shl(1, 64), 1);
        assert_eq!(int::shl(1, -1), i64::MIN);
        assert_eq!(int::shr(i64::MIN, 63), -1);
        assert_eq!(int::shr(-1, 1000), -1);
        assert_eq!(int::shr(1024, 1000), 1024 >> 40);
    }

    #[test]
    fn result_types_agree_with_eval() {
        let samples = [Scalar::I64(3), Scalar::F64(1.5), Scalar::Bool(true)];
        for op in BinaryOp::ALL {
            for a in samples {
                for b in samples {
                    let t = op.result_type(a.ty(), b.ty());
                    let r = op.eval(a, b, 0);
                    match t {
                        Some(t) => assert_eq!(r.unwrap().ty(), t, "{op} {a} {b}"),
                        None => assert!(matches!(r, Err(Error::Invalid { .. })), "{op} {a} {b}"),
                    }
                }
            }
        }
        for op in UnaryOp::ALL {
            for a in samples {
                match op.result_type(a.ty()) {
                    Some(t) => assert_eq!(op.eval(a).unwrap().ty(), t),
                    None => assert!(op.eval(a).is_err()),
                }
            }
        }
    }

    quickcheck! {
        fn floor_div_mod_identity(a: i64, b: i64) -> bool {
            match (int::floor_div(a, b), int::modulo(a, b)) {
                (Some(q), Some(m)) => {
                    q.wrapping_mul(b).wrapping_add(m) == a
                        && (m == 0 || (m < 0) == (b < 0))
                        && m.unsigned_abs() < b.unsigned_abs()
                }
                (None, None) => b == 0,
                _ => false,
            }
        }

        fn float_min_max_match_the_definition(a: f64, b: f64) -> bool {
            min_max_match(a, b)
        }

        fn float_min_max_order(a: f64, b: f64) -> bool {
            let (lo, hi) = (float::min(a, b), float::max(a, b));
            if a.is_nan() || b.is_nan() {
                lo.is_nan() && hi.is_nan()
            } else {
                lo <= hi && (lo == a || lo == b) && (hi == a || hi == b)
                    && float::min(b, a).to_bits() == lo.to_bits()
                    && float::max(b, a).to_bits() == hi.to_bits()
            }
        }
    }
}
