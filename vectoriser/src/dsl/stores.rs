//! Runtime stores as the executor's lifted values and back, directly (no `Vec<Vec<_>>` in
//! between): a [`Nested`] array of any element type of the IR (`i64`, `f64`, `bool`, tuples,
//! `Vec` of them for deeper nesting) and of the narrow boundary types (`u32`, `i32`, `usize`,
//! `f32`, widened and narrowed by [`crate::boundary`]).
//!
//! `i64` and `f64` blocks, and tuples of them, are shared, not copied; a single-block array
//! keeps its virtual segments. `bool` blocks are unpacked from bits (one pass), narrow blocks
//! widened (one parallel pass).
//!
//! ```
//! use flatland_runtime::elt::{Elt, Nested, Store};
//! use flatland_vectoriser::exec::Arg;
//! let values = <(i64, bool) as Elt>::Store::from_vec(vec![(1, true), (2, false)]);
//! let n = Nested::<(i64, bool)>::from_offsets(vec![0, 2, 2], values).unwrap();
//! let a = Arg::nested(&n, "argument `n` of `f`").unwrap();
//! let back: Nested<(i64, bool)> = a.into_nested("the result of `f`").unwrap();
//! assert_eq!(back.to_vec(), n.to_vec());
//! ```

use super::{Arr, Ty};
use crate::boundary::{narrow_all, widen_all};
use crate::error::{Error, Result};
use crate::exec::Arg;
use crate::lval::{LVal, LaneColumn, adopt, vsegd_of_segd};
use crate::value::Value;
use bitvec::prelude::{BitVec, Lsb0};
use flatland_runtime::elt::{Bits, Buffer, Elt, Nested, Soa};
use flatland_segd::Segd;
use std::sync::Arc;

/// An element type whose runtime store converts to the executor's columns and back.
///
/// ```
/// use flatland_vectoriser::dsl::{Element, Ty};
/// assert_eq!(<<Vec<(usize, f32)> as Element>::Ty as Ty>::ty().to_string(), "[(i64, f64)]");
/// ```
pub trait Element: Elt {
    /// The dsl type the elements have in the IR.
    type Ty: Ty;
    /// The elements of `store` as lanes (`place` names the argument in errors).
    ///
    /// # Errors
    /// A narrow element that does not fit ([`Error::DoesNotFit`]).
    fn to_lanes(store: &Self::Store, place: &str) -> Result<Arg>;
    /// Lanes back as a store (`place` names the result in errors).
    ///
    /// # Errors
    /// Lanes of another type, or a value that does not fit a narrow type.
    fn from_lanes(lanes: Arg, place: &str) -> Result<Self::Store>;
}

fn not_of_type<T: Ty>(place: &str) -> Error {
    Error::Input {
        detail: format!("{place} is not of type {}", T::ty()),
    }
}

macro_rules! wide_element {
    ($t:ty, $col:ident) => {
        impl Element for $t {
            type Ty = $t;
            fn to_lanes(store: &Buffer<$t>, _: &str) -> Result<Arg> {
                Ok(Arg(LVal::Scalar(LaneColumn::$col(store.clone()))))
            }
            fn from_lanes(lanes: Arg, place: &str) -> Result<Buffer<$t>> {
                match lanes.0 {
                    LVal::Scalar(LaneColumn::$col(b)) => Ok(b),
                    _ => Err(not_of_type::<$t>(place)),
                }
            }
        }
    };
}
wide_element!(i64, I64);
wide_element!(f64, F64);

impl Element for bool {
    type Ty = bool;
    fn to_lanes(store: &Bits, _: &str) -> Result<Arg> {
        let bools: Vec<bool> = store.as_bitslice().iter().by_vals().collect();
        Ok(Arg(LVal::Scalar(LaneColumn::Bool(adopt(bools)))))
    }
    fn from_lanes(lanes: Arg, place: &str) -> Result<Bits> {
        match lanes.0 {
            LVal::Scalar(LaneColumn::Bool(b)) => Ok(Bits::from(
                b.as_slice()
                    .iter()
                    .copied()
                    .collect::<BitVec<usize, Lsb0>>(),
            )),
            _ => Err(not_of_type::<bool>(place)),
        }
    }
}

macro_rules! narrow_element {
    ($t:ty, $wide:ty, $col:ident) => {
        impl Element for $t {
            type Ty = $wide;
            fn to_lanes(store: &Buffer<$t>, place: &str) -> Result<Arg> {
                let wide = widen_all(store.as_slice(), place)?;
                Ok(Arg(LVal::Scalar(LaneColumn::$col(adopt(wide)))))
            }
            fn from_lanes(lanes: Arg, place: &str) -> Result<Buffer<$t>> {
                match lanes.0 {
                    LVal::Scalar(LaneColumn::$col(b)) => {
                        Ok(Buffer::from(narrow_all::<$t>(b.as_slice(), place)?))
                    }
                    _ => Err(not_of_type::<$wide>(place)),
                }
            }
        }
    };
}
narrow_element!(u32, i64, I64);
narrow_element!(i32, i64, I64);
narrow_element!(usize, i64, I64);
narrow_element!(f32, f64, F64);

macro_rules! tuple_element {
    ($($a:ident $i:tt),*) => {
        impl<$($a: Element),*> Element for ($($a,)*) {
            type Ty = ($($a::Ty,)*);
            fn to_lanes(store: &Self::Store, place: &str) -> Result<Arg> {
                let f = store.fields();
                Ok(Arg(LVal::Tuple(vec![$($a::to_lanes(&f.$i, place)?.0),*])))
            }
            fn from_lanes(lanes: Arg, place: &str) -> Result<Self::Store> {
                match lanes.0 {
                    LVal::Tuple(fields) => {
                        let mut it = fields.into_iter();
                        let mut next = || it.next().map(Arg).ok_or_else(|| not_of_type::<Self::Ty>(place));
                        let fields = ($($a::from_lanes(next()?, place)?,)*);
                        Ok(Soa::try_new(fields)?)
                    }
                    _ => Err(not_of_type::<Self::Ty>(place)),
                }
            }
        }
    };
}
tuple_element!(A 0, B 1);
tuple_element!(A 0, B 1, C 2);
tuple_element!(A 0, B 1, C 2, D 3);

/// Deeper nesting: `Nested<Vec<T>>` is an array of arrays of arrays (`[[[T]]]`), its rows
/// themselves `Nested<T>` stores.
impl<T: Element> Element for Vec<T> {
    type Ty = Arr<T::Ty>;
    fn to_lanes(store: &Nested<T>, place: &str) -> Result<Arg> {
        Ok(Arg(if let [block] = store.blocks() {
            LVal::Array(
                store.vsegd().clone(),
                Arc::new(T::to_lanes(block, place)?.0),
            )
        } else {
            let (segd, flat) = store.concat()?;
            LVal::array_of(segd.lengths().into_owned(), T::to_lanes(&flat, place)?.0)
        }))
    }
    fn from_lanes(lanes: Arg, place: &str) -> Result<Nested<T>> {
        match lanes.0 {
            LVal::Array(vsegd, inner) => {
                let inner = Arc::unwrap_or_clone(inner);
                let block = T::from_lanes(Arg(inner), place)?;
                Ok(Nested::from_parts(vsegd, vec![block])?)
            }
            _ => Err(not_of_type::<Self::Ty>(place)),
        }
    }
}

impl Arg {
    /// A runtime [`Nested`] array as one `[[T]]` argument, converted directly (see the module
    /// docs); `place` names the argument in errors.
    ///
    /// # Errors
    /// A narrow element that does not fit, or a virtual element count beyond `usize`.
    ///
    /// ```
    /// use flatland_runtime::elt::{Elt, Nested, Store};
    /// use flatland_vectoriser::{dsl::{Arr, Ty}, exec::Arg};
    /// let bits = <bool as Elt>::Store::from_vec(vec![true, false, true]);
    /// let n = Nested::<bool>::from_offsets(vec![0, 1, 3], bits).unwrap();
    /// let a = Arg::nested(&n, "argument `n` of `f`").unwrap();
    /// assert_eq!(<Arr<Arr<bool>> as Ty>::from_lanes(&a), Some(vec![vec![vec![true], vec![false, true]]]));
    /// ```
    pub fn nested<T: Element>(n: &Nested<T>, place: &str) -> Result<Arg> {
        let rows = <Vec<T>>::to_lanes(n, place)?;
        Ok(Arg(LVal::Array(
            vsegd_of_segd(&Segd::regular(1, n.len())),
            Arc::new(rows.0),
        )))
    }

    /// A one-lane `[[T]]` result as a runtime [`Nested`] array, converted directly: its rows
    /// are the lane's elements in order; `place` names the result in errors.
    ///
    /// # Errors
    /// A result of another type, or a value that does not fit a narrow type.
    ///
    /// ```
    /// use flatland_vectoriser::{dsl::{Arr, Ty}, exec::Arg};
    /// let a = <Arr<Arr<i64>> as Ty>::to_lanes(vec![vec![vec![1, 2], vec![]]]);
    /// let n = a.into_nested::<u32>("the result of `f`").unwrap();
    /// assert_eq!(n.to_vec(), vec![vec![1u32, 2], vec![]]);
    /// ```
    pub fn into_nested<T: Element>(self, place: &str) -> Result<Nested<T>> {
        if self.0.lanes() != 1 || !matches!(self.0, LVal::Array(..)) {
            return Err(not_of_type::<Arr<Arr<T::Ty>>>(place));
        }
        let (_, rows) = self.0.elements()?;
        <Vec<T>>::from_lanes(Arg(rows), place)
    }

    /// The value of a one-lane argument or result, for the reference interpreter.
    ///
    /// # Errors
    /// An argument without exactly one lane.
    ///
    /// ```
    /// use flatland_vectoriser::{exec::Arg, value::Value};
    /// assert_eq!(Arg::i64s(vec![3]).into_value().unwrap(), Value::I64(3));
    /// ```
    pub fn into_value(self) -> Result<Value> {
        let mut vs = self.0.to_values();
        match (vs.pop(), vs.is_empty()) {
            (Some(v), true) => Ok(v),
            _ => Err(Error::Input {
                detail: "a value of more or fewer than one lane".into(),
            }),
        }
    }

    /// One lane holding `v`, of IR type `T` (for a reference interpreter's result).
    ///
    /// # Errors
    /// A value not of type `T`.
    ///
    /// ```
    /// use flatland_vectoriser::{exec::Arg, value::Value};
    /// let a = Arg::of_value::<i64>(&Value::I64(4)).unwrap();
    /// assert_eq!(a.into_value().unwrap(), Value::I64(4));
    /// ```
    pub fn of_value<T: Ty>(v: &Value) -> Result<Arg> {
        Ok(Arg(LVal::from_values(std::slice::from_ref(v), &T::ty())?))
    }
}
