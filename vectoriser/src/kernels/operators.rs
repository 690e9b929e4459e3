//! The built-in reduction operators (`+`, `*`, `min`, `max` on numbers, `&&`, `||` on `bool`)
//! on block columns, for the kernels that fold or scan: one leaf's canonical fold
//! ([`assoc::leaf_fold`]), the combination of two partial results, and the typed columns of
//! results. `with_op!` maps an operator and a type to its step: the runtime's one definition
//! (`runtime::expr::op`), monomorphised through `with_fixed_op!`.
//!
//! Cost: a leaf fold is one pass over the leaf's elements; everything else is O(1) per call.

use super::block::BlockColumn;
use crate::env::{Env, lookup};
use crate::ir::{BinaryOp, Expr, Scalar, ScalarType};
use crate::lval::{LaneColumn, adopt, uniform};
use flatland_runtime::assoc;
use std::ops::Range;

/// The scalar types of columns, for the typed loops of the kernels and the lifted reductions
/// (the type `T` that [`with_op!`] names).
pub(crate) trait ColumnScalar: Copy + Send + Sync {
    /// The scalar's value, when it has this type.
    fn of(s: Scalar) -> Option<Self>;
    /// The value as a scalar.
    fn scalar(self) -> Scalar;
    /// A block column's values, when it has this type.
    fn slice<'b>(c: &'b BlockColumn<'_>) -> Option<&'b [Self]>;
    /// A lane column's values, when it has this type.
    fn lanes(c: &LaneColumn) -> Option<&[Self]>;
    /// The values as a lane column.
    fn col(v: Vec<Self>) -> LaneColumn;
}

macro_rules! column_scalar {
    ($t:ty, $ctor:ident, $get:ident) => {
        impl ColumnScalar for $t {
            fn of(s: Scalar) -> Option<$t> {
                s.$get()
            }
            fn scalar(self) -> Scalar {
                Scalar::$ctor(self)
            }
            fn slice<'b>(c: &'b BlockColumn<'_>) -> Option<&'b [$t]> {
                match c {
                    BlockColumn::$ctor(v) => Some(v),
                    _ => None,
                }
            }
            fn lanes(c: &LaneColumn) -> Option<&[$t]> {
                match c {
                    LaneColumn::$ctor(v) => Some(v),
                    _ => None,
                }
            }
            fn col(v: Vec<$t>) -> LaneColumn {
                LaneColumn::$ctor(adopt(v))
            }
        }
    };
}

column_scalar!(i64, I64, as_i64);

column_scalar!(f64, F64, as_f64);

column_scalar!(bool, Bool, as_bool);

/// Runs `$body` with `$f` the step of built-in operator `$op` on type `$t` (its one definition,
/// `runtime::expr::op`, through the operator types of `op::fixed`) and `$T` its Rust type (`None`
/// for a combination the kernels do not accept).
#[rustfmt::skip]
macro_rules! with_op {
    ($op:expr, $t:expr, |$f:ident: $T:ident| $body:expr) => {{
        use $crate::ir::ScalarType as S;
        use $crate::kernels::operators::with_typed_op as typed;
        match $t {
            S::I64 => typed!($op, i64, [Add, Mul, Min, Max], |$f: $T| $body),
            S::F64 => typed!($op, f64, [Add, Mul, Min, Max], |$f: $T| $body),
            S::Bool => typed!($op, bool, [And, Or], |$f: $T| $body),
        }
    }};
}

/// [`with_op!`] for one type `$ty` and the operators `$O` the kernels accept on it.
macro_rules! with_typed_op {
    ($op:expr, $ty:ty, [$($O:ident),+], |$f:ident: $T:ident| $body:expr) => {{
        use $crate::runtime::expr::op::fixed::Fixed as _;
        type $T = $ty;
        $crate::runtime::with_fixed_op!($op, [$($O),+], |O| {
            let $f = O::apply::<$T>;
            $body
        }, None)
    }};
}
pub(crate) use with_op;
pub(crate) use with_typed_op;

/// The canonical fold of `col[r]` (one leaf) from `z`.
pub(super) fn leaf(op: BinaryOp, z: Scalar, col: &BlockColumn<'_>, r: Range<usize>) -> Scalar {
    let go = || {
        with_op!(op, z.ty(), |f: T| {
            Some(T::scalar(assoc::leaf_fold(
                &T::slice(col)?[r],
                T::of(z)?,
                f,
            )))
        })
    };
    go().expect("operator and types checked when the kernel was built")
}

/// `a op b`.
pub(super) fn combine(op: BinaryOp, a: Scalar, b: Scalar) -> Scalar {
    let go = || with_op!(op, a.ty(), |f: T| Some(T::scalar(f(T::of(a)?, T::of(b)?))));
    go().expect("operator and types checked when the kernel was built")
}

pub(super) fn accepts(op: BinaryOp, t: ScalarType) -> bool {
    use BinaryOp as B;
    match t {
        ScalarType::Bool => matches!(op, B::And | B::Or),
        _ => matches!(op, B::Add | B::Mul | B::Min | B::Max),
    }
}

pub(super) fn column(t: ScalarType, vals: impl Iterator<Item = Scalar>) -> LaneColumn {
    match t {
        ScalarType::I64 => LaneColumn::I64(adopt(vals.map(|s| s.as_i64().unwrap_or(0)).collect())),
        ScalarType::F64 => {
            LaneColumn::F64(adopt(vals.map(|s| s.as_f64().unwrap_or(0.0)).collect()))
        }
        ScalarType::Bool => {
            LaneColumn::Bool(adopt(vals.map(|s| s.as_bool().unwrap_or(false)).collect()))
        }
    }
}

/// A literal identity, or a variable holding one value on every lane.
pub(super) fn identity(z: &Expr, env: &Env) -> Option<Scalar> {
    match z {
        Expr::Lit(s) => Some(*s),
        Expr::Var(n) => uniform(lookup(env, n).ok()?.col().ok()?),
        _ => None,
    }
}
