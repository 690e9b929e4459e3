//! Binary operators chosen at compile time, for loops that are compiled once per operator.
//!
//! A loop over a block that matches the operator once, outside the loop, needs the operator as a
//! *type* inside it so that rustc compiles one loop per operator (and per pair of operators, as
//! the machine's folded `add`/`sub`/`mul` pairs do). Each binary operator has a zero-sized type
//! here ([`Add`], [`Lt`], ...) implementing [`Fixed`], whose methods call the operator's one
//! definition ([`BinaryOp::on_i64`], [`BinaryOp::on_f64`], [`BinaryOp::on_bool`],
//! [`compare`]) with the operator a constant: they are `#[inline(always)]`, so
//! the match on the operator folds away and the loop body is the operator's code alone.
//! [`with_fixed_op!`](crate::with_fixed_op) turns an operator known at run time into its type.
//!
//! ```
//! use flatland_runtime::expr::op::fixed::Fixed;
//! use flatland_runtime::expr::op::BinaryOp;
//! use flatland_runtime::with_fixed_op;
//!
//! /// `o[i] = a[i] op b[i]` for the operators that cannot fail on `f64`: one loop per operator.
//! fn zip_f64(op: BinaryOp, o: &mut [f64], a: &[f64], b: &[f64]) -> Option<()> {
//!     with_fixed_op!(op, [Add, Sub, Mul, Min, Max], |O| {
//!         for ((o, &x), &y) in o.iter_mut().zip(a).zip(b) {
//!             *o = O::apply(x, y);
//!         }
//!         Some(())
//!     }, None)
//! }
//! let mut o = [0.0; 3];
//! zip_f64(BinaryOp::Max, &mut o, &[1.0, f64::NAN, -0.0], &[2.0, 0.0, 0.0]).unwrap();
//! assert_eq!(o[0], 2.0);
//! assert!(o[1].is_nan()); // IEEE 754-2019 `maximum`, as `BinaryOp::Max.on_f64`
//! assert_eq!(o[2].to_bits(), 0.0f64.to_bits());
//! assert!(zip_f64(BinaryOp::Div, &mut o, &[1.0], &[2.0]).is_none()); // not in the list
//! ```

use super::{BinaryOp, ScalarType, compare};

/// A Rust type of one of the scalar types, with the binary operators of that type
/// ([`BinaryOp::on_i64`], [`BinaryOp::on_f64`], [`BinaryOp::on_bool`]).
///
/// ```
/// use flatland_runtime::expr::op::{fixed::Operand, BinaryOp, ScalarType};
/// assert_eq!(<f64 as Operand>::TYPE, ScalarType::F64);
/// assert_eq!(i64::binary(BinaryOp::Mod, -7, 2), Some(1));
/// assert_eq!(i64::binary(BinaryOp::Div, 1, 0), None);
/// ```
pub trait Operand: Copy + PartialOrd {
    /// The scalar type.
    const TYPE: ScalarType;
    /// `op` on two values of this type: the operator's definition (`None` for a failing lane,
    /// and for an operator that does not yield this type, such as a comparison).
    fn binary(op: BinaryOp, a: Self, b: Self) -> Option<Self>;
}

impl Operand for i64 {
    const TYPE: ScalarType = ScalarType::I64;
    #[inline(always)]
    fn binary(op: BinaryOp, a: i64, b: i64) -> Option<i64> {
        op.on_i64(a, b)
    }
}

impl Operand for f64 {
    const TYPE: ScalarType = ScalarType::F64;
    #[inline(always)]
    fn binary(op: BinaryOp, a: f64, b: f64) -> Option<f64> {
        op.on_f64(a, b)
    }
}

impl Operand for bool {
    const TYPE: ScalarType = ScalarType::Bool;
    #[inline(always)]
    fn binary(op: BinaryOp, a: bool, b: bool) -> Option<bool> {
        op.on_bool(a, b)
    }
}

/// A binary operator as a type: [`Fixed::OP`], and the operator applied through its definition.
///
/// ```
/// use flatland_runtime::expr::op::fixed::{Div, Fixed, Le, Mul};
/// assert_eq!(Mul::apply(i64::MAX, 2), -2); // wrapping
/// assert_eq!(Div::try_apply(1i64, 0), None);
/// assert!(Le::holds(-0.0, 0.0));
/// ```
pub trait Fixed {
    /// The operator.
    const OP: BinaryOp;

    /// The operator on `a` and `b`, for an operator that cannot fail on `T` (every operator of
    /// `T`'s result type except the `i64` divisions and `pow`; use [`Fixed::try_apply`] for
    /// those). Panics if the operator fails or does not yield `T`: a caller's bug.
    #[inline(always)]
    fn apply<T: Operand>(a: T, b: T) -> T {
        match T::binary(Self::OP, a, b) {
            Some(v) => v,
            None => not_total(Self::OP, T::TYPE),
        }
    }

    /// The operator on `a` and `b`; `None` where it fails (an `i64` division by zero) or does not
    /// yield `T`.
    #[inline(always)]
    fn try_apply<T: Operand>(a: T, b: T) -> Option<T> {
        T::binary(Self::OP, a, b)
    }

    /// The comparison on `a` and `b` ([`compare`]). Panics if the operator is
    /// not a comparison: a caller's bug.
    #[inline(always)]
    fn holds<T: PartialOrd>(a: T, b: T) -> bool {
        match compare(Self::OP, a, b) {
            Some(v) => v,
            None => not_total(Self::OP, ScalarType::Bool),
        }
    }
}

#[cold]
#[inline(never)]
fn not_total(op: BinaryOp, t: ScalarType) -> ! {
    panic!("`{op}` applied as a total operator yielding {t}: it fails or yields another type")
}

macro_rules! fixed_ops {
    ($($O:ident)+) => {
        $(
            #[doc = concat!("[`BinaryOp::", stringify!($O), "`] as a type (see [`Fixed`]).")]
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct $O;

            impl Fixed for $O {
                const OP: BinaryOp = BinaryOp::$O;
            }
        )+

        #[cfg(test)]
        const EVERY: &[BinaryOp] = &[$(BinaryOp::$O),+];
    };
}

fixed_ops!(
    Add Sub Mul Div Rem FloorDiv Mod Min Max Eq Ne Lt Le Gt Ge And Or BitAnd BitOr BitXor Shl Shr
    Powf Powi Atan2 Hypot Copysign Pow RemEuclid DivEuclid MinNum MaxNum
);

/// Runs `$body` with `$F` the type ([`fixed`](crate::expr::op::fixed)) of the operator `$op` when
/// it is one of the listed `BinaryOp` variants, else evaluates `$otherwise`. `$body` is compiled
/// once per listed operator, with `$F::apply`, `$F::try_apply` and `$F::holds` (trait
/// [`Fixed`](crate::expr::op::fixed::Fixed), which must be in scope) folding to that operator's
/// code.
///
/// ```
/// use flatland_runtime::expr::op::{fixed::Fixed, BinaryOp};
/// use flatland_runtime::with_fixed_op;
/// let fold = |op: BinaryOp, xs: &[i64]| -> Option<i64> {
///     with_fixed_op!(op, [Add, Mul, Min, Max], |O| xs.iter().copied().reduce(O::apply), None)
/// };
/// assert_eq!(fold(BinaryOp::Mul, &[2, 3, 7]), Some(42));
/// assert_eq!(fold(BinaryOp::Sub, &[2, 3]), None);
/// ```
#[macro_export]
macro_rules! with_fixed_op {
    ($op:expr, [$($O:ident),+ $(,)?], |$F:ident| $body:expr, $otherwise:expr $(,)?) => {
        $crate::__with_fixed_type!(BinaryOp, fixed, $op, [$($O),+], |$F| $body, $otherwise)
    };
}

/// The body of [`with_fixed_op!`] and [`with_fixed_unary!`](crate::with_fixed_unary): a `match`
/// on the operator enum `$Enum` with one arm per listed variant, naming its type in
/// `expr::op::$module`.
#[doc(hidden)]
#[macro_export]
macro_rules! __with_fixed_type {
    ($Enum:ident, $module:ident, $op:expr, [$($O:ident),+], |$F:ident| $body:expr, $otherwise:expr) => {
        match $op {
            $(
                $crate::expr::op::$Enum::$O => {
                    #[allow(dead_code)]
                    type $F = $crate::expr::op::$module::$O;
                    $body
                }
            )+
            #[allow(unreachable_patterns)]
            _ => $otherwise,
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operator_has_its_type() {
        assert_eq!(EVERY, &BinaryOp::ALL[..]);
    }

    #[test]
    fn the_types_apply_the_definitions() {
        let (xs, ys) = ([-7i64, 0, i64::MIN, 5], [2i64, 3, -1, 0]);
        for (&a, &b) in xs.iter().zip(&ys) {
            assert_eq!(Sub::try_apply(a, b), BinaryOp::Sub.on_i64(a, b));
            assert_eq!(Mod::try_apply(a, b), BinaryOp::Mod.on_i64(a, b));
            assert_eq!(Shl::apply(a, b), BinaryOp::Shl.on_i64(a, b).unwrap());
            assert_eq!(Gt::holds(a, b), a > b);
        }
        assert!(Min::apply(f64::NAN, 1.0).is_nan());
        assert_eq!(MinNum::apply(f64::NAN, 1.0), 1.0);
        assert!(BitXor::apply(true, false));
    }

    #[test]
    #[should_panic(expected = "applied as a total operator")]
    fn a_failing_lane_is_not_total() {
        let _ = Div::apply(1i64, 0);
    }
}
