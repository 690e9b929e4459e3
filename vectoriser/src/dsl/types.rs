//! The dsl's types ([`Ty`]): each names its IR type and converts between its Rust
//! representation and the IR's values (reference values, and the executor's lifted values one
//! lane per argument). [`Arr`] marks arrays in handles.
//!
//! Cost: a conversion is one pass over the value's elements.

use crate::exec::Arg;
use crate::ir::Type;
use crate::lval::{LVal, LaneColumn};
use crate::value::Value;
use std::marker::PhantomData;

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
                Arg(LVal::Scalar(LaneColumn::$ty(rs.into())))
            }
            fn into_lanes(a: Arg) -> Option<Vec<$t>> {
                match a.0 {
                    LVal::Scalar(LaneColumn::$ty(v)) => Some(v.into_vec()),
                    _ => None,
                }
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
