//! Values of the reference interpreter: scalars, tuples and nested arrays, boxed and obvious.
//!
//! ```
//! use flatland_vectoriser::value::Value;
//! let v = Value::array(vec![Value::I64(1), Value::I64(2)]);
//! assert_eq!(v.to_string(), "[1, 2]");
//! ```

use crate::ir::{Scalar, Type};
use std::fmt;
use std::sync::Arc;

/// A value of the IR, as [`crate::eval`] computes it.
///
/// Equality is *bitwise* for `f64` (`0.0 != -0.0`), except that every NaN equals every NaN: Rust
/// leaves a computed NaN's sign and payload unspecified ([`float::same`]). This is the equality
/// the flattened executor is held to.
///
/// [`float::same`]: flatland_runtime::expr::op::float::same
///
/// ```
/// use flatland_vectoriser::value::Value;
/// assert_eq!(Value::F64(f64::NAN), Value::F64(-f64::NAN));
/// assert_ne!(Value::F64(0.0), Value::F64(-0.0));
/// ```
#[derive(Clone, Debug)]
pub enum Value {
    /// An `i64`.
    I64(i64),
    /// An `f64`.
    F64(f64),
    /// A `bool`.
    Bool(bool),
    /// A tuple.
    Tuple(Vec<Value>),
    /// An array (shared: cloning an array value is O(1)).
    Array(Arc<Vec<Value>>),
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::I64(a), Value::I64(b)) => a == b,
            (Value::F64(a), Value::F64(b)) => flatland_runtime::expr::op::float::same(*a, *b),
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Tuple(a), Value::Tuple(b)) => a == b,
            (Value::Array(a), Value::Array(b)) => a == b,
            _ => false,
        }
    }
}

impl From<Scalar> for Value {
    fn from(s: Scalar) -> Value {
        match s {
            Scalar::I64(v) => Value::I64(v),
            Scalar::F64(v) => Value::F64(v),
            Scalar::Bool(v) => Value::Bool(v),
        }
    }
}

impl Value {
    /// An array value.
    ///
    /// ```
    /// use flatland_vectoriser::value::Value;
    /// assert_eq!(Value::array(vec![]).as_array().map(<[_]>::len), Some(0));
    /// ```
    pub fn array(elems: Vec<Value>) -> Value {
        Value::Array(Arc::new(elems))
    }

    /// Whether the value has type `t` (every element of an array checked).
    ///
    /// ```
    /// use flatland_vectoriser::{ir::Type, value::Value};
    /// assert!(Value::array(vec![]).has_type(&Type::array(Type::F64)));
    /// assert!(!Value::I64(1).has_type(&Type::F64));
    /// ```
    pub fn has_type(&self, t: &Type) -> bool {
        match (self, t) {
            (Value::I64(_), Type::I64)
            | (Value::F64(_), Type::F64)
            | (Value::Bool(_), Type::Bool) => true,
            (Value::Tuple(vs), Type::Tuple(ts)) => {
                vs.len() == ts.len() && vs.iter().zip(ts).all(|(v, t)| v.has_type(t))
            }
            (Value::Array(vs), Type::Array(e)) => vs.iter().all(|v| v.has_type(e)),
            _ => false,
        }
    }

    /// The elements, if this is an array.
    ///
    /// ```
    /// use flatland_vectoriser::value::Value;
    /// assert_eq!(Value::array(vec![Value::Bool(true)]).as_array().map(<[_]>::len), Some(1));
    /// ```
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(vs) => Some(vs),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::I64(v) => write!(f, "{v}"),
            Value::F64(v) => write!(f, "{v:?}"),
            Value::Bool(v) => write!(f, "{v}"),
            Value::Tuple(_) | Value::Array(_) => {
                let (vs, open, close) = match self {
                    Value::Tuple(vs) => (vs, "(", ")"),
                    Value::Array(vs) => (&**vs, "[", "]"),
                    _ => unreachable!("matched above"),
                };
                write!(f, "{open}")?;
                for (i, v) in vs.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{v}")?;
                }
                write!(f, "{close}")
            }
        }
    }
}
