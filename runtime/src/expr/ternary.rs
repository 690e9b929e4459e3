//! The ternary scalar operators: `mul_add` and `clamp`, with their types, their failure and
//! their values, beside the unary and binary operators of [`op`](super::op) (re-exported there).

use super::math::{float, int};
use super::scalar::{Scalar, ScalarType, type_error};
use crate::{Error, Result};
use std::fmt;

/// What a failing `clamp` says (where `std` panics).
const BOUNDS: &str = "the lower bound is above the upper bound, or a bound is NaN";

/// Ternary operators: each takes three operands of one type.
///
/// ```
/// use flatland_runtime::expr::op::{Scalar, TernaryOp};
/// let (two, three, one) = (Scalar::F64(2.0), Scalar::F64(3.0), Scalar::F64(1.0));
/// assert_eq!(TernaryOp::MulAdd.eval(two, three, one, 0), Ok(Scalar::F64(7.0)));
/// assert_eq!(TernaryOp::Clamp.eval(Scalar::I64(9), Scalar::I64(0), Scalar::I64(5), 0), Ok(Scalar::I64(5)));
/// assert_eq!(
///     TernaryOp::Clamp.eval(Scalar::I64(9), Scalar::I64(5), Scalar::I64(0), 3).unwrap_err().to_string(),
///     "clamp: lane 3: the lower bound is above the upper bound, or a bound is NaN"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TernaryOp {
    /// `a.mul_add(b, c)`: `a * b + c` with one rounding, on `f64`.
    MulAdd,
    /// `a.clamp(lo, hi)` on `i64` or `f64` (`std`'s; an error where `std` panics).
    Clamp,
}

impl TernaryOp {
    /// Every ternary operator, for generators and tables.
    pub const ALL: [TernaryOp; 2] = [TernaryOp::MulAdd, TernaryOp::Clamp];

    /// The operator's name (the `std` method's).
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::TernaryOp::MulAdd.name(), "mul_add");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            TernaryOp::MulAdd => "mul_add",
            TernaryOp::Clamp => "clamp",
        }
    }

    /// The operator's work relative to an add, for the cost model (`mul_add` 1, `clamp` 2).
    ///
    /// ```
    /// use flatland_runtime::expr::op::TernaryOp;
    /// assert_eq!(TernaryOp::Clamp.work(), 2.0);
    /// ```
    pub fn work(self) -> f64 {
        match self {
            TernaryOp::MulAdd => 1.0,
            TernaryOp::Clamp => 2.0,
        }
    }

    /// Whether the operator can fail (`clamp`'s bounds out of order).
    ///
    /// ```
    /// use flatland_runtime::expr::op::TernaryOp;
    /// assert!(TernaryOp::Clamp.can_fail() && !TernaryOp::MulAdd.can_fail());
    /// ```
    pub fn can_fail(self) -> bool {
        self == TernaryOp::Clamp
    }

    /// The result type for operands of types `a`, `b` and `c`, or `None` if the operator does
    /// not accept them.
    ///
    /// ```
    /// use flatland_runtime::expr::op::{TernaryOp, ScalarType::*};
    /// assert_eq!(TernaryOp::Clamp.result_type(I64, I64, I64), Some(I64));
    /// assert_eq!(TernaryOp::MulAdd.result_type(I64, I64, I64), None);
    /// ```
    pub fn result_type(self, a: ScalarType, b: ScalarType, c: ScalarType) -> Option<ScalarType> {
        use ScalarType::{F64, I64};
        match (self, a, b, c) {
            (TernaryOp::MulAdd | TernaryOp::Clamp, F64, F64, F64) => Some(F64),
            (TernaryOp::Clamp, I64, I64, I64) => Some(I64),
            _ => None,
        }
    }

    /// The operator on three `f64`; `None` where it fails or does not apply to `f64`.
    ///
    /// ```
    /// use flatland_runtime::expr::op::TernaryOp;
    /// assert_eq!(TernaryOp::Clamp.on_f64(2.0, 0.0, 1.0), Some(1.0));
    /// assert_eq!(TernaryOp::Clamp.on_f64(2.0, 1.0, 0.0), None);
    /// ```
    #[inline(always)]
    pub fn on_f64(self, a: f64, b: f64, c: f64) -> Option<f64> {
        match self {
            TernaryOp::MulAdd => Some(float::mul_add(a, b, c)),
            TernaryOp::Clamp => float::clamp(a, b, c),
        }
    }

    /// The operator on three `i64`; `None` where it fails or does not apply to `i64`.
    ///
    /// ```
    /// use flatland_runtime::expr::op::TernaryOp;
    /// assert_eq!(TernaryOp::Clamp.on_i64(-2, 0, 1), Some(0));
    /// assert_eq!(TernaryOp::MulAdd.on_i64(1, 2, 3), None);
    /// ```
    #[inline(always)]
    pub fn on_i64(self, a: i64, b: i64, c: i64) -> Option<i64> {
        match self {
            TernaryOp::MulAdd => None,
            TernaryOp::Clamp => int::clamp(a, b, c),
        }
    }

    /// The error of a failing application at `lane` ([`Error::Domain`]).
    ///
    /// ```
    /// use flatland_runtime::expr::op::TernaryOp;
    /// assert!(TernaryOp::Clamp.failure(2).to_string().starts_with("clamp: lane 2: "));
    /// ```
    pub fn failure(self, lane: usize) -> Error {
        Error::Domain {
            op: self.name(),
            lane,
            detail: BOUNDS,
        }
    }

    /// Applies the operator to three values. `lane` says where an error happened.
    ///
    /// # Errors
    /// [`Error::Domain`] for `clamp`'s bounds out of order (or NaN), [`Error::Invalid`] for
    /// operand types the operator does not accept.
    pub fn eval(self, a: Scalar, b: Scalar, c: Scalar, lane: usize) -> Result<Scalar> {
        let value = match (a, b, c) {
            (Scalar::F64(x), Scalar::F64(y), Scalar::F64(z)) if self.applies(ScalarType::F64) => {
                self.on_f64(x, y, z).map(Scalar::F64)
            }
            (Scalar::I64(x), Scalar::I64(y), Scalar::I64(z)) if self.applies(ScalarType::I64) => {
                self.on_i64(x, y, z).map(Scalar::I64)
            }
            _ => return Err(type_error(self.name(), &[a.ty(), b.ty(), c.ty()])),
        };
        value.ok_or_else(|| self.failure(lane))
    }

    /// Whether the operator takes three operands of type `t`.
    fn applies(self, t: ScalarType) -> bool {
        self.result_type(t, t, t).is_some()
    }
}

impl fmt::Display for TernaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
