//! The values the operators act on: the three scalar types and a dynamically typed scalar
//! (re-exported by [`op`](super::op), whose operators take and return them).

use crate::Error;
use std::fmt;

/// The type of a scalar (and of the elements of a column).
///
/// ```
/// use flatland_runtime::expr::op::ScalarType;
/// assert_eq!(ScalarType::F64.to_string(), "f64");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarType {
    /// 64-bit signed integer (wrapping arithmetic).
    I64,
    /// IEEE 754 binary64.
    F64,
    /// Boolean.
    Bool,
}

impl ScalarType {
    /// All scalar types.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::ScalarType::ALL.len(), 3);
    /// ```
    pub const ALL: [ScalarType; 3] = [ScalarType::I64, ScalarType::F64, ScalarType::Bool];

    /// The type's name as written in programs: `i64`, `f64` or `bool`.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::ScalarType::Bool.name(), "bool");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::I64 => "i64",
            ScalarType::F64 => "f64",
            ScalarType::Bool => "bool",
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dynamically typed scalar value.
///
/// `PartialEq` compares `f64` values with IEEE `==` (so NaN is not equal to itself); use
/// [`Scalar::same`] for bitwise identity.
///
/// ```
/// use flatland_runtime::expr::op::{Scalar, ScalarType};
/// let x = Scalar::from(2.5);
/// assert_eq!(x.ty(), ScalarType::F64);
/// assert!(Scalar::F64(f64::NAN).same(Scalar::F64(f64::NAN)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// An `i64`.
    I64(i64),
    /// An `f64`.
    F64(f64),
    /// A `bool`.
    Bool(bool),
}

impl Scalar {
    /// The value's type.
    ///
    /// ```
    /// use flatland_runtime::expr::op::{Scalar, ScalarType};
    /// assert_eq!(Scalar::Bool(true).ty(), ScalarType::Bool);
    /// ```
    pub fn ty(self) -> ScalarType {
        match self {
            Scalar::I64(_) => ScalarType::I64,
            Scalar::F64(_) => ScalarType::F64,
            Scalar::Bool(_) => ScalarType::Bool,
        }
    }

    /// Identity: same type and the same value bit for bit, where every NaN is the same as every
    /// other ([`float::same`](super::op::float::same): `-0.0` is not the same as `0.0`).
    ///
    /// ```
    /// use flatland_runtime::expr::op::Scalar;
    /// assert!(!Scalar::F64(-0.0).same(Scalar::F64(0.0)));
    /// assert!(Scalar::F64(f64::NAN).same(Scalar::F64(-f64::NAN)));
    /// ```
    pub fn same(self, other: Scalar) -> bool {
        match (self, other) {
            (Scalar::I64(a), Scalar::I64(b)) => a == b,
            (Scalar::F64(a), Scalar::F64(b)) => same(a, b),
            (Scalar::Bool(a), Scalar::Bool(b)) => a == b,
            _ => false,
        }
    }

    /// The `i64` inside, if it is one.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::Scalar::I64(4).as_i64(), Some(4));
    /// ```
    pub fn as_i64(self) -> Option<i64> {
        match self {
            Scalar::I64(x) => Some(x),
            _ => None,
        }
    }

    /// The `f64` inside, if it is one.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::Scalar::F64(0.5).as_f64(), Some(0.5));
    /// ```
    pub fn as_f64(self) -> Option<f64> {
        match self {
            Scalar::F64(x) => Some(x),
            _ => None,
        }
    }

    /// The `bool` inside, if it is one.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::Scalar::Bool(true).as_bool(), Some(true));
    /// ```
    pub fn as_bool(self) -> Option<bool> {
        match self {
            Scalar::Bool(x) => Some(x),
            _ => None,
        }
    }
}

impl From<i64> for Scalar {
    fn from(x: i64) -> Self {
        Scalar::I64(x)
    }
}

impl From<f64> for Scalar {
    fn from(x: f64) -> Self {
        Scalar::F64(x)
    }
}

impl From<bool> for Scalar {
    fn from(x: bool) -> Self {
        Scalar::Bool(x)
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::I64(x) => write!(f, "{x}"),
            Scalar::F64(x) => write!(f, "{x:?}"),
            Scalar::Bool(x) => write!(f, "{x}"),
        }
    }
}

/// The identity Flatland's results keep: equal bits, or both NaN (of any sign and payload,
/// which Rust leaves unspecified; see the module's semantics). Unlike `==`, `-0.0` and `0.0`
/// differ and a NaN is the same as itself.
///
/// ```
/// use flatland_runtime::expr::op::float::same;
/// assert!(same(f64::NAN, -f64::NAN));
/// assert!(!same(0.0, -0.0));
/// assert!(same(1.5, 1.5) && !same(1.5, f64::NAN));
/// ```
#[inline]
pub fn same(a: f64, b: f64) -> bool {
    canonical_bits(a) == canonical_bits(b)
}

/// The bits that identify `a` under [`same`]: its own bits, or one fixed pattern for every
/// NaN. Compare `Vec<u64>`s of these to compare float results bit for bit.
///
/// ```
/// use flatland_runtime::expr::op::float::canonical_bits;
/// assert_eq!(canonical_bits(-f64::NAN), canonical_bits(f64::NAN));
/// assert_ne!(canonical_bits(-0.0), canonical_bits(0.0));
/// assert_eq!(canonical_bits(2.5), 2.5f64.to_bits());
/// ```
#[inline]
pub fn canonical_bits(a: f64) -> u64 {
    if a.is_nan() {
        f64::NAN.to_bits()
    } else {
        a.to_bits()
    }
}

/// The error for an operator `op` applied to operands of `types` it does not accept.
pub(super) fn type_error(op: &'static str, types: &[ScalarType]) -> Error {
    let list: Vec<&str> = types.iter().map(|t| t.name()).collect();
    Error::Invalid {
        op,
        detail: format!("operands of type ({}) are not accepted", list.join(", ")),
    }
}
