//! Block kernels: one tight slice loop per (operator, type), each calling the scalar function of
//! [`op`](super::op) so the machine and the reference semantics cannot drift apart (binary
//! operators through their types in [`op::fixed`](super::op::fixed), unary ones through theirs in
//! [`op::fixed_unary`](super::op::fixed_unary), one loop per operator).
//!
//! The operator is matched once per block, outside the loop; inside, each loop is a plain
//! `zip` over equal-length slices that rustc vectorises where the operation allows it.

use super::op::fixed::{self, Fixed, Operand};
use super::op::fixed_unary::FixedUnary;
use super::op::{BinaryOp, UnaryOp, conv, float, int};
use crate::{with_fixed_op, with_fixed_unary};

#[inline(always)]
fn map1<A: Copy, O>(o: &mut [O], a: &[A], f: impl Fn(A) -> O) {
    for (o, &a) in o.iter_mut().zip(a) {
        *o = f(a);
    }
}

#[inline(always)]
fn map2<A: Copy, B: Copy, O>(o: &mut [O], a: &[A], b: &[B], f: impl Fn(A, B) -> O) {
    for ((o, &a), &b) in o.iter_mut().zip(a).zip(b) {
        *o = f(a, b);
    }
}

/// The position of the first zero divisor, if any (a vectorised scan first, the exact position
/// only when there is one).
#[inline]
fn first_zero(b: &[i64]) -> Option<usize> {
    if b.iter().fold(0u8, |acc, &y| acc | u8::from(y == 0)) != 0 {
        b.iter().position(|&y| y == 0)
    } else {
        None
    }
}

fn internal(op: impl std::fmt::Display, ty: &str) -> ! {
    unreachable!("internal error: the compiler emitted {op} on {ty}")
}

/// Arithmetic, bitwise and shift operators on `i64`. `Err(p)`: division by zero at block
/// position `p` (the first one).
pub(super) fn int(op: BinaryOp, o: &mut [i64], a: &[i64], b: &[i64]) -> Result<(), usize> {
    use BinaryOp as B;
    match op {
        B::Div | B::Rem | B::FloorDiv | B::Mod | B::RemEuclid | B::DivEuclid => {
            if let Some(p) = first_zero(b) {
                return Err(p);
            }
            // No divisor is zero: the `unwrap_or` is never taken.
            with_fixed_op!(
                op,
                [Div, Rem, FloorDiv, Mod, RemEuclid, DivEuclid],
                |O| map2(o, a, b, |x, y| O::try_apply(x, y).unwrap_or(0)),
                internal(op, "i64")
            );
        }
        B::Pow => {
            if let Some(p) = a.iter().zip(b).position(|(&x, &y)| x == 0 && y < 0) {
                return Err(p);
            }
            // No zero base with a negative exponent: the `unwrap_or` is never taken.
            map2(o, a, b, |x, y| fixed::Pow::try_apply(x, y).unwrap_or(0));
        }
        _ => with_fixed_op!(
            op,
            [
                Add, Sub, Mul, Min, MinNum, Max, MaxNum, BitAnd, BitOr, BitXor, Shl, Shr
            ],
            |O| map2(o, a, b, O::apply::<i64>),
            internal(op, "i64")
        ),
    }
    Ok(())
}

/// Arithmetic operators on `f64` (never fail).
pub(super) fn float(op: BinaryOp, o: &mut [f64], a: &[f64], b: &[f64]) {
    with_fixed_op!(
        op,
        [
            Add, Sub, Mul, Div, Rem, FloorDiv, Mod, Min, Max, Powf, Atan2, Hypot, Copysign,
            RemEuclid, DivEuclid, MinNum, MaxNum
        ],
        |O| map2(o, a, b, O::apply::<f64>),
        internal(op, "f64")
    );
}

/// `powi` on `f64` bases and `i64` exponents.
pub(super) fn powi(o: &mut [f64], a: &[f64], n: &[i64]) {
    map2(o, a, n, float::powi);
}

/// The classification operators from `f64` to `bool`.
pub(super) fn float_test(op: UnaryOp, o: &mut [bool], a: &[f64]) {
    with_fixed_unary!(
        op,
        [IsNan, IsFinite, IsInfinite],
        |U| map1(o, a, U::test),
        internal(op, "f64 to bool")
    );
}

/// Logical and bitwise operators on `bool`.
pub(super) fn boolean(op: BinaryOp, o: &mut [bool], a: &[bool], b: &[bool]) {
    with_fixed_op!(
        op,
        [And, BitAnd, Or, BitOr, BitXor],
        |O| map2(o, a, b, O::apply::<bool>),
        internal(op, "bool")
    );
}

/// Comparisons on any ordered type.
pub(super) fn cmp<T: Copy + PartialOrd>(op: BinaryOp, o: &mut [bool], a: &[T], b: &[T]) {
    with_fixed_op!(
        op,
        [Eq, Ne, Lt, Le, Gt, Ge],
        |O| map2(o, a, b, O::holds::<T>),
        internal(op, "a comparison")
    );
}

/// The rest of a unary kernel: a cast to the operand's own type copies, anything else is the
/// compiler's bug.
fn same_type_cast<T: Copy>(op: UnaryOp, o: &mut [T], a: &[T], ty: &str) {
    match op {
        UnaryOp::Cast(_) => o.copy_from_slice(a),
        _ => internal(op, ty),
    }
}

/// Unary operators from `i64` to `i64`.
pub(super) fn int_unary(op: UnaryOp, o: &mut [i64], a: &[i64]) {
    with_fixed_unary!(
        op,
        [
            Neg,
            Abs,
            BitNot,
            Signum,
            CountOnes,
            LeadingZeros,
            TrailingZeros
        ],
        |U| map1(o, a, U::apply::<i64>),
        same_type_cast(op, o, a, "i64")
    );
}

/// Unary operators from `f64` to `f64`.
pub(super) fn float_unary(op: UnaryOp, o: &mut [f64], a: &[f64]) {
    with_fixed_unary!(
        op,
        [
            Neg, Abs, Sqrt, Exp, Exp2, ExpM1, Ln, Ln1p, Log2, Log10, Sin, Cos, Tan, Asin, Acos,
            Atan, Sinh, Cosh, Tanh, Floor, Ceil, Round, Trunc, Fract, Recip, Signum
        ],
        |U| map1(o, a, U::apply::<f64>),
        same_type_cast(op, o, a, "f64")
    );
}

/// Unary operators from `bool` to `bool`.
pub(super) fn bool_unary(op: UnaryOp, o: &mut [bool], a: &[bool]) {
    with_fixed_unary!(
        op,
        [Not],
        |U| map1(o, a, U::apply::<bool>),
        same_type_cast(op, o, a, "bool")
    );
}

/// `i64 -> f64`.
pub(super) fn i64_to_f64(o: &mut [f64], a: &[i64]) {
    map1(o, a, conv::i64_to_f64);
}

/// `i64 -> bool`.
pub(super) fn i64_to_bool(o: &mut [bool], a: &[i64]) {
    map1(o, a, conv::i64_to_bool);
}

/// `f64 -> i64`.
pub(super) fn f64_to_i64(o: &mut [i64], a: &[f64]) {
    map1(o, a, conv::f64_to_i64);
}

/// `f64 -> bool`.
pub(super) fn f64_to_bool(o: &mut [bool], a: &[f64]) {
    map1(o, a, conv::f64_to_bool);
}

/// `bool -> i64`.
pub(super) fn bool_to_i64(o: &mut [i64], a: &[bool]) {
    map1(o, a, conv::bool_to_i64);
}

/// `bool -> f64`.
pub(super) fn bool_to_f64(o: &mut [f64], a: &[bool]) {
    map1(o, a, conv::bool_to_f64);
}

/// `select(c, a, b)`.
pub(super) fn select<T: Copy>(o: &mut [T], c: &[bool], a: &[T], b: &[T]) {
    for (((o, &c), &a), &b) in o.iter_mut().zip(c).zip(a).zip(b) {
        *o = if c { a } else { b };
    }
}

/// `o[i] = f(a[i], b[i], c[i])`, or the position of the first lane where `f` fails (`None`).
pub(super) fn ternary<T: Copy>(
    o: &mut [T],
    a: &[T],
    b: &[T],
    c: &[T],
    f: impl Fn(T, T, T) -> Option<T>,
) -> Result<(), usize> {
    for (i, (((o, &a), &b), &c)) in o.iter_mut().zip(a).zip(b).zip(c).enumerate() {
        *o = f(a, b, c).ok_or(i)?;
    }
    Ok(())
}

/// `o[i] = start + step * (first + i)`, wrapping.
pub(super) fn iota(o: &mut [i64], start: i64, step: i64, first: usize) {
    let base = int::add(start, int::mul(step, first as i64));
    for (i, o) in o.iter_mut().enumerate() {
        *o = int::add(base, int::mul(step, i as i64));
    }
}

#[inline(always)]
fn map3<T: Copy>(o: &mut [T], a: &[T], b: &[T], c: &[T], f: impl Fn(T, T, T) -> T) {
    for (((o, &a), &b), &c) in o.iter_mut().zip(a).zip(b).zip(c) {
        *o = f(a, b, c);
    }
}

fn arith2_loop<T: Operand, F1: Fixed, F2: Fixed>(
    swap: bool,
    o: &mut [T],
    a: &[T],
    b: &[T],
    c: &[T],
) {
    // Two separate roundings, as two instructions would give (Rust never contracts to FMA).
    if swap {
        map3(o, a, b, c, |x, y, z| F2::apply(z, F1::apply(x, y)));
    } else {
        map3(o, a, b, c, |x, y, z| F2::apply(F1::apply(x, y), z));
    }
}

fn arith2_outer<T: Operand, F1: Fixed>(
    op2: BinaryOp,
    swap: bool,
    o: &mut [T],
    a: &[T],
    b: &[T],
    c: &[T],
) {
    with_fixed_op!(
        op2,
        [Add, Sub, Mul],
        |F2| arith2_loop::<T, F1, F2>(swap, o, a, b, c),
        internal(op2, "a folded pair")
    );
}

/// `o = op2(op1(a, b), c)` (or `op2(c, op1(a, b))` when `swap`) for `op1`, `op2` in
/// `add sub mul`: one loop per pair of operators.
pub(super) fn arith2<T: Operand>(
    op1: BinaryOp,
    op2: BinaryOp,
    swap: bool,
    o: &mut [T],
    a: &[T],
    b: &[T],
    c: &[T],
) {
    with_fixed_op!(
        op1,
        [Add, Sub, Mul],
        |F1| arith2_outer::<T, F1>(op2, swap, o, a, b, c),
        internal(op1, "a folded pair")
    );
}
