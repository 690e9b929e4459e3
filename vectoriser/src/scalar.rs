//! Scalar operator semantics shared by the interpreter and the executor (DESIGN.md section 4):
//! `i64` arithmetic wraps, `/` and `%` by zero are errors naming the operation and lane, shifts
//! use the low 6 bits, `f64` is IEEE with NaN propagating through `min`/`max`.
//!
//! ```
//! use flatland_vectoriser::{ir::{BinOp, Scalar}, scalar};
//! assert_eq!(scalar::binary(BinOp::Add, Scalar::I64(i64::MAX), Scalar::I64(1), 0), Ok(Scalar::I64(i64::MIN)));
//! assert!(scalar::binary(BinOp::Div, Scalar::I64(1), Scalar::I64(0), 4).is_err());
//! ```

use crate::ir::{BinOp, Scalar, UnOp};
use flatland_runtime::Error;

fn mismatch(op: &'static str, detail: String) -> Error {
    Error::Invalid { op, detail }
}

/// `min` on `f64`: NaN propagates (the first NaN operand is returned), ties return `a`.
///
/// ```
/// use flatland_vectoriser::scalar::min_f64;
/// assert!(min_f64(1.0, f64::NAN).is_nan());
/// assert_eq!(min_f64(2.0, 1.0), 1.0);
/// ```
pub fn min_f64(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        a
    } else if b.is_nan() || b < a {
        b
    } else {
        a
    }
}

/// `max` on `f64`: NaN propagates (the first NaN operand is returned), ties return `a`.
///
/// ```
/// use flatland_vectoriser::scalar::max_f64;
/// assert!(max_f64(f64::NAN, 1.0).is_nan());
/// assert_eq!(max_f64(2.0, 1.0), 2.0);
/// ```
pub fn max_f64(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        a
    } else if b.is_nan() || b > a {
        b
    } else {
        a
    }
}

/// Applies a binary operator; `lane` names the lane in errors.
///
/// # Errors
/// Integer division or remainder by zero; operand types the operator does not accept.
///
/// ```
/// use flatland_vectoriser::{ir::{BinOp, Scalar}, scalar};
/// assert_eq!(scalar::binary(BinOp::Shl, Scalar::I64(1), Scalar::I64(65), 0), Ok(Scalar::I64(2)));
/// ```
pub fn binary(op: BinOp, a: Scalar, b: Scalar, lane: usize) -> Result<Scalar, Error> {
    use BinOp as B;
    use Scalar::{Bool, F64, I64};
    Ok(match (a, b) {
        (I64(x), I64(y)) => match op {
            B::Add => I64(x.wrapping_add(y)),
            B::Sub => I64(x.wrapping_sub(y)),
            B::Mul => I64(x.wrapping_mul(y)),
            B::Div | B::Rem if y == 0 => {
                return Err(Error::DivisionByZero {
                    op: op.symbol(),
                    lane,
                });
            }
            B::Div => I64(x.wrapping_div(y)),
            B::Rem => I64(x.wrapping_rem(y)),
            B::Min => I64(x.min(y)),
            B::Max => I64(x.max(y)),
            B::Eq => Bool(x == y),
            B::Ne => Bool(x != y),
            B::Lt => Bool(x < y),
            B::Le => Bool(x <= y),
            B::Gt => Bool(x > y),
            B::Ge => Bool(x >= y),
            B::And => I64(x & y),
            B::Or => I64(x | y),
            B::Xor => I64(x ^ y),
            B::Shl => I64(x.wrapping_shl((y & 63) as u32)),
            B::Shr => I64(x >> (y & 63)),
        },
        (F64(x), F64(y)) => match op {
            B::Add => F64(x + y),
            B::Sub => F64(x - y),
            B::Mul => F64(x * y),
            B::Div => F64(x / y),
            B::Rem => F64(x % y),
            B::Min => F64(min_f64(x, y)),
            B::Max => F64(max_f64(x, y)),
            B::Eq => Bool(x == y),
            B::Ne => Bool(x != y),
            B::Lt => Bool(x < y),
            B::Le => Bool(x <= y),
            B::Gt => Bool(x > y),
            B::Ge => Bool(x >= y),
            _ => return Err(mismatch(op.symbol(), "not defined on f64".into())),
        },
        (Bool(x), Bool(y)) => match op {
            B::And => Bool(x & y),
            B::Or => Bool(x | y),
            B::Xor | B::Ne => Bool(x ^ y),
            B::Eq => Bool(x == y),
            _ => return Err(mismatch(op.symbol(), "not defined on bool".into())),
        },
        _ => {
            return Err(mismatch(
                op.symbol(),
                format!("operands of different types: {a} and {b}"),
            ));
        }
    })
}

/// Applies a unary operator.
///
/// # Errors
/// An operand type the operator does not accept.
///
/// ```
/// use flatland_vectoriser::{ir::{Scalar, UnOp}, scalar};
/// assert_eq!(scalar::unary(UnOp::ToI64, Scalar::F64(-2.7)), Ok(Scalar::I64(-2)));
/// assert_eq!(scalar::unary(UnOp::Abs, Scalar::I64(i64::MIN)), Ok(Scalar::I64(i64::MIN)));
/// ```
pub fn unary(op: UnOp, a: Scalar) -> Result<Scalar, Error> {
    use Scalar::{Bool, F64, I64};
    Ok(match (op, a) {
        (UnOp::Neg, I64(x)) => I64(x.wrapping_neg()),
        (UnOp::Neg, F64(x)) => F64(-x),
        (UnOp::Not, Bool(x)) => Bool(!x),
        (UnOp::Not, I64(x)) => I64(!x),
        (UnOp::Abs, I64(x)) => I64(x.wrapping_abs()),
        (UnOp::Abs, F64(x)) => F64(x.abs()),
        (UnOp::Sqrt, F64(x)) => F64(x.sqrt()),
        (UnOp::ToF64, I64(x)) => F64(x as f64),
        (UnOp::ToF64, F64(x)) => F64(x),
        (UnOp::ToF64, Bool(x)) => F64(if x { 1.0 } else { 0.0 }),
        (UnOp::ToI64, I64(x)) => I64(x),
        (UnOp::ToI64, F64(x)) => I64(x as i64),
        (UnOp::ToI64, Bool(x)) => I64(i64::from(x)),
        _ => return Err(mismatch(op.name(), format!("not defined on {}", a.ty()))),
    })
}
