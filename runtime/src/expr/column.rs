//! Typed columns: the inputs ([`ColumnRef`]) and outputs ([`Column`], [`ColumnMut`]) of the
//! expression machine.
//!
//! `bool` inputs may be plain `&[bool]` or bit slices (`&BitSlice`, the element store of `bool`);
//! an owned `bool` output is a [`BitVec`] (one bit per element), a borrowed one a `&mut [bool]`.

use super::op::ScalarType;
use bitvec::slice::BitSlice;
use bitvec::vec::BitVec;

/// A borrowed input column.
///
/// ```
/// use flatland_runtime::expr::{ColumnRef, ScalarType};
/// let xs = [1i64, 2, 3];
/// let c = ColumnRef::from(&xs[..]);
/// assert_eq!((c.ty(), c.len()), (ScalarType::I64, 3));
/// ```
#[derive(Clone, Copy, Debug)]
pub enum ColumnRef<'a> {
    /// `i64` elements.
    I64(&'a [i64]),
    /// `f64` elements.
    F64(&'a [f64]),
    /// `bool` elements, one byte each.
    Bool(&'a [bool]),
    /// `bool` elements, one bit each.
    Bits(&'a BitSlice),
}

impl ColumnRef<'_> {
    /// The element type (`Bool` for both boolean representations).
    ///
    /// ```
    /// use bitvec::prelude::*;
    /// use flatland_runtime::expr::{ColumnRef, ScalarType};
    /// let bits = bitvec![1, 0];
    /// assert_eq!(ColumnRef::Bits(&bits).ty(), ScalarType::Bool);
    /// ```
    pub fn ty(&self) -> ScalarType {
        match self {
            ColumnRef::I64(_) => ScalarType::I64,
            ColumnRef::F64(_) => ScalarType::F64,
            ColumnRef::Bool(_) | ColumnRef::Bits(_) => ScalarType::Bool,
        }
    }

    /// The number of elements.
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnRef;
    /// assert_eq!(ColumnRef::Bool(&[true]).len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        match self {
            ColumnRef::I64(x) => x.len(),
            ColumnRef::F64(x) => x.len(),
            ColumnRef::Bool(x) => x.len(),
            ColumnRef::Bits(x) => x.len(),
        }
    }

    /// Whether the column has no elements.
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnRef;
    /// assert!(ColumnRef::F64(&[]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<'a> From<&'a [i64]> for ColumnRef<'a> {
    fn from(x: &'a [i64]) -> Self {
        ColumnRef::I64(x)
    }
}

impl<'a> From<&'a [f64]> for ColumnRef<'a> {
    fn from(x: &'a [f64]) -> Self {
        ColumnRef::F64(x)
    }
}

impl<'a> From<&'a [bool]> for ColumnRef<'a> {
    fn from(x: &'a [bool]) -> Self {
        ColumnRef::Bool(x)
    }
}

impl<'a> From<&'a BitSlice> for ColumnRef<'a> {
    fn from(x: &'a BitSlice) -> Self {
        ColumnRef::Bits(x)
    }
}

impl<'a> From<&'a Column> for ColumnRef<'a> {
    fn from(c: &'a Column) -> Self {
        match c {
            Column::I64(x) => ColumnRef::I64(x),
            Column::F64(x) => ColumnRef::F64(x),
            Column::Bool(x) => ColumnRef::Bits(x),
        }
    }
}

/// An owned output column.
///
/// ```
/// use flatland_runtime::expr::{Column, ScalarType};
/// let c = Column::F64(vec![1.0]);
/// assert_eq!((c.ty(), c.len()), (ScalarType::F64, 1));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    /// `i64` elements.
    I64(Vec<i64>),
    /// `f64` elements.
    F64(Vec<f64>),
    /// `bool` elements, one bit each.
    Bool(BitVec),
}

impl Column {
    /// The element type.
    ///
    /// ```
    /// use flatland_runtime::expr::{Column, ScalarType};
    /// assert_eq!(Column::I64(vec![]).ty(), ScalarType::I64);
    /// ```
    pub fn ty(&self) -> ScalarType {
        match self {
            Column::I64(_) => ScalarType::I64,
            Column::F64(_) => ScalarType::F64,
            Column::Bool(_) => ScalarType::Bool,
        }
    }

    /// The number of elements.
    ///
    /// ```
    /// use flatland_runtime::expr::Column;
    /// assert_eq!(Column::I64(vec![1, 2]).len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        match self {
            Column::I64(x) => x.len(),
            Column::F64(x) => x.len(),
            Column::Bool(x) => x.len(),
        }
    }

    /// Whether the column has no elements.
    ///
    /// ```
    /// use flatland_runtime::expr::Column;
    /// assert!(Column::F64(vec![]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i64` elements, if the column holds `i64`.
    ///
    /// ```
    /// use flatland_runtime::expr::Column;
    /// assert_eq!(Column::I64(vec![1]).as_i64(), Some(&[1][..]));
    /// ```
    pub fn as_i64(&self) -> Option<&[i64]> {
        match self {
            Column::I64(x) => Some(x),
            _ => None,
        }
    }

    /// The `f64` elements, if the column holds `f64`.
    ///
    /// ```
    /// use flatland_runtime::expr::Column;
    /// assert_eq!(Column::F64(vec![1.0]).as_f64(), Some(&[1.0][..]));
    /// ```
    pub fn as_f64(&self) -> Option<&[f64]> {
        match self {
            Column::F64(x) => Some(x),
            _ => None,
        }
    }

    /// The `bool` elements, if the column holds `bool`.
    ///
    /// ```
    /// use bitvec::prelude::*;
    /// use flatland_runtime::expr::Column;
    /// assert_eq!(Column::Bool(bitvec![1, 0]).as_bool().unwrap().count_ones(), 1);
    /// ```
    pub fn as_bool(&self) -> Option<&BitSlice> {
        match self {
            Column::Bool(x) => Some(x),
            _ => None,
        }
    }
}

/// A borrowed output column, for [`CompiledExpr::eval_into`](super::CompiledExpr::eval_into).
///
/// ```
/// use flatland_runtime::expr::{ColumnMut, ScalarType};
/// let mut out = [0.0; 4];
/// assert_eq!(ColumnMut::F64(&mut out).ty(), ScalarType::F64);
/// ```
#[derive(Debug)]
pub enum ColumnMut<'a> {
    /// `i64` elements.
    I64(&'a mut [i64]),
    /// `f64` elements.
    F64(&'a mut [f64]),
    /// `bool` elements, one byte each.
    Bool(&'a mut [bool]),
}

impl ColumnMut<'_> {
    /// The element type.
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnMut, ScalarType};
    /// assert_eq!(ColumnMut::Bool(&mut []).ty(), ScalarType::Bool);
    /// ```
    pub fn ty(&self) -> ScalarType {
        match self {
            ColumnMut::I64(_) => ScalarType::I64,
            ColumnMut::F64(_) => ScalarType::F64,
            ColumnMut::Bool(_) => ScalarType::Bool,
        }
    }

    /// The number of elements.
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnMut;
    /// assert_eq!(ColumnMut::I64(&mut [0; 3]).len(), 3);
    /// ```
    pub fn len(&self) -> usize {
        match self {
            ColumnMut::I64(x) => x.len(),
            ColumnMut::F64(x) => x.len(),
            ColumnMut::Bool(x) => x.len(),
        }
    }

    /// Whether the column has no elements.
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnMut;
    /// assert!(ColumnMut::I64(&mut []).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
