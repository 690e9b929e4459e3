//! Unary operators chosen at compile time, as [`fixed`](super::fixed) does for the binary ones.
//!
//! Each unary operator other than the casts has a zero-sized type here ([`Neg`], [`Sqrt`],
//! [`IsNan`], ...) implementing [`FixedUnary`], whose methods call the operator's one definition
//! ([`UnaryOp::on_i64`], [`UnaryOp::on_f64`], [`UnaryOp::on_bool`], [`UnaryOp::test_f64`]) with
//! the operator a constant: they are `#[inline(always)]`, so the match on the operator folds away
//! and a loop body is the operator's code alone.
//! [`with_fixed_unary!`](crate::with_fixed_unary) turns an operator known at run time into its
//! type. The casts ([`UnaryOp::Cast`]) have no type here: each pair of types has its one
//! definition in [`conv`](super::conv).
//!
//! ```
//! use flatland_runtime::expr::op::fixed_unary::FixedUnary;
//! use flatland_runtime::expr::op::UnaryOp;
//! use flatland_runtime::with_fixed_unary;
//!
//! /// `o[i] = op(a[i])` for a few `f64` operators: one loop per operator.
//! fn map_f64(op: UnaryOp, o: &mut [f64], a: &[f64]) -> Option<()> {
//!     with_fixed_unary!(op, [Neg, Sqrt, Floor], |U| {
//!         for (o, &x) in o.iter_mut().zip(a) {
//!             *o = U::apply(x);
//!         }
//!         Some(())
//!     }, None)
//! }
//! let mut o = [0.0; 3];
//! map_f64(UnaryOp::Neg, &mut o, &[1.0, 0.0, f64::NAN]).unwrap();
//! assert_eq!(o[0], -1.0);
//! assert_eq!(o[1].to_bits(), (-0.0f64).to_bits());
//! assert!(o[2].is_nan());
//! assert!(map_f64(UnaryOp::Exp, &mut o, &[1.0]).is_none()); // not in the list
//! ```

use super::{ScalarType, UnaryOp};

/// A Rust type of one of the scalar types, with the unary operators from that type to itself
/// ([`UnaryOp::on_i64`], [`UnaryOp::on_f64`], [`UnaryOp::on_bool`]).
///
/// ```
/// use flatland_runtime::expr::op::{fixed_unary::UnaryOperand, UnaryOp};
/// assert_eq!(i64::unary(UnaryOp::Abs, -3), Some(3));
/// assert_eq!(f64::unary(UnaryOp::IsNan, 1.0), None); // yields a `bool`
/// ```
pub trait UnaryOperand: Copy {
    /// The scalar type.
    const TYPE: ScalarType;
    /// `op` on a value of this type: the operator's definition (`None` for an operator that does
    /// not map this type to itself, such as a cast or a test).
    fn unary(op: UnaryOp, a: Self) -> Option<Self>;
}

impl UnaryOperand for i64 {
    const TYPE: ScalarType = ScalarType::I64;
    #[inline(always)]
    fn unary(op: UnaryOp, a: i64) -> Option<i64> {
        op.on_i64(a)
    }
}

impl UnaryOperand for f64 {
    const TYPE: ScalarType = ScalarType::F64;
    #[inline(always)]
    fn unary(op: UnaryOp, a: f64) -> Option<f64> {
        op.on_f64(a)
    }
}

impl UnaryOperand for bool {
    const TYPE: ScalarType = ScalarType::Bool;
    #[inline(always)]
    fn unary(op: UnaryOp, a: bool) -> Option<bool> {
        op.on_bool(a)
    }
}

/// A unary operator as a type: [`FixedUnary::OP`], and the operator applied through its
/// definition.
///
/// ```
/// use flatland_runtime::expr::op::fixed_unary::{Abs, FixedUnary, IsFinite, Not};
/// assert_eq!(Abs::apply(i64::MIN), i64::MIN); // wrapping
/// assert_eq!(Abs::apply(-0.0f64).to_bits(), 0.0f64.to_bits());
/// assert!(Not::apply(false));
/// assert!(!IsFinite::test(f64::INFINITY));
/// ```
pub trait FixedUnary {
    /// The operator.
    const OP: UnaryOp;

    /// The operator on `a`, for an operator that maps `T` to `T`. Panics if it does not: a
    /// caller's bug.
    #[inline(always)]
    fn apply<T: UnaryOperand>(a: T) -> T {
        match T::unary(Self::OP, a) {
            Some(v) => v,
            None => not_on(Self::OP, T::TYPE),
        }
    }

    /// The classification of `a` ([`UnaryOp::test_f64`]: `is_nan`, `is_finite`, `is_infinite`).
    /// Panics if the operator is not one: a caller's bug.
    #[inline(always)]
    fn test(a: f64) -> bool {
        match Self::OP.test_f64(a) {
            Some(v) => v,
            None => not_on(Self::OP, ScalarType::Bool),
        }
    }
}

#[cold]
#[inline(never)]
fn not_on(op: UnaryOp, t: ScalarType) -> ! {
    panic!("`{op}` applied as an operator yielding {t}: it does not")
}

macro_rules! fixed_unary_ops {
    ($($U:ident)+) => {
        $(
            #[doc = concat!("[`UnaryOp::", stringify!($U), "`] as a type (see [`FixedUnary`]).")]
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct $U;

            impl FixedUnary for $U {
                const OP: UnaryOp = UnaryOp::$U;
            }
        )+

        /// Every unary operator that has a type here, in [`UnaryOp::ALL`]'s order (all but the
        /// casts).
        pub const EVERY: &[UnaryOp] = &[$(UnaryOp::$U),+];

        /// The check of each type against [`UnaryOp::eval`], one per type.
        #[cfg(test)]
        const CHECKS: &[fn()] = &[$(tests::check::<$U>),+];
    };
}

fixed_unary_ops!(
    Neg Abs Sqrt Not BitNot Exp Exp2 ExpM1 Ln Ln1p Log2 Log10 Sin Cos Tan Asin Acos Atan Sinh Cosh
    Tanh Floor Ceil Round Trunc Fract Recip Signum IsNan IsFinite IsInfinite CountOnes LeadingZeros
    TrailingZeros
);

/// Runs `$body` with `$U` the type ([`fixed_unary`](crate::expr::op::fixed_unary)) of the unary
/// operator `$op` when it is one of the listed `UnaryOp` variants, else evaluates `$otherwise`.
/// `$body` is compiled once per listed operator, with `$U::apply` and `$U::test` (trait
/// [`FixedUnary`](crate::expr::op::fixed_unary::FixedUnary), which must be in scope) folding to
/// that operator's code.
///
/// ```
/// use flatland_runtime::expr::op::{fixed_unary::FixedUnary, UnaryOp};
/// use flatland_runtime::with_fixed_unary;
/// let map = |op: UnaryOp, xs: &[i64]| -> Option<Vec<i64>> {
///     with_fixed_unary!(op, [Neg, Abs, CountOnes], |U| Some(xs.iter().map(|&x| U::apply(x)).collect()), None)
/// };
/// assert_eq!(map(UnaryOp::CountOnes, &[7, -1]), Some(vec![3, 64]));
/// assert_eq!(map(UnaryOp::BitNot, &[0]), None);
/// ```
#[macro_export]
macro_rules! with_fixed_unary {
    ($op:expr, [$($U:ident),+ $(,)?], |$F:ident| $body:expr, $otherwise:expr $(,)?) => {
        $crate::__with_fixed_type!(UnaryOp, fixed_unary, $op, [$($U),+], |$F| $body, $otherwise)
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::op::Scalar;

    #[test]
    fn every_operator_but_the_casts_has_its_type() {
        let not_cast: Vec<UnaryOp> = UnaryOp::ALL
            .into_iter()
            .filter(|op| !matches!(op, UnaryOp::Cast(_)))
            .collect();
        assert_eq!(EVERY, &not_cast[..]);
    }

    fn same(a: Scalar, b: Scalar) -> bool {
        match (a, b) {
            (Scalar::F64(x), Scalar::F64(y)) => x.to_bits() == y.to_bits(),
            _ => a == b,
        }
    }

    /// `U`'s methods give `UnaryOp::eval`'s value, bit for bit, for every operand type the
    /// operator takes, on edge values.
    pub(super) fn check<U: FixedUnary>() {
        let op = U::OP;
        let ints = [0, -1, 1, 7, i64::MIN, i64::MAX];
        let floats = [
            0.0,
            -0.0,
            1.0,
            -1.5,
            0.5,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            f64::MAX,
            1e300,
        ];
        let mut took = false;
        for &x in &ints {
            if let Ok(want) = op.eval(Scalar::I64(x)) {
                took = true;
                assert!(same(Scalar::I64(U::apply(x)), want), "{op} {x}");
            }
        }
        for &x in &floats {
            match op.eval(Scalar::F64(x)) {
                Ok(want @ Scalar::F64(_)) => {
                    took = true;
                    assert!(same(Scalar::F64(U::apply(x)), want), "{op} {x}");
                }
                Ok(want) => {
                    took = true;
                    assert!(same(Scalar::Bool(U::test(x)), want), "{op} {x}");
                }
                Err(_) => {}
            }
        }
        for x in [false, true] {
            if let Ok(want) = op.eval(Scalar::Bool(x)) {
                took = true;
                assert!(same(Scalar::Bool(U::apply(x)), want), "{op} {x}");
            }
        }
        assert!(took, "{op} takes no type");
    }

    #[test]
    fn the_types_apply_the_definitions() {
        assert_eq!(CHECKS.len(), EVERY.len());
        for check in CHECKS {
            check();
        }
    }

    #[test]
    #[should_panic(expected = "applied as an operator yielding")]
    fn an_operator_on_a_type_it_does_not_take_panics() {
        let _ = Sqrt::apply(4i64);
    }
}
