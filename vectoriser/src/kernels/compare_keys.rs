//! Comparison keys: the classes of a filter whose predicates all compare the element with one
//! operand (quicksort's `x < p`, `x == p`, `x > p` once `fuse::siblings` merged them) from
//! one comparison per element, in one pass straight into the byte keys: the operand read once
//! per lane (`seg::zip_replicated_s`, no repeated column), no expression-machine program, no
//! `i64` key column.
//!
//! Cost: one pass over the elements, one byte written per element.

use crate::comparison::{class_table, outcome};
use crate::env::{Env, lookup};
use crate::ir::{Expr, Lambda};
use crate::lval::{LVal, LaneColumn};
use flatland_runtime::expr::op::Scalar;
use flatland_runtime::{flat, seg};
use flatland_segd::Segd;

/// The class keys of `filter(ps, xs)` (the elements `xs` in the segments of `segd`) when every
/// predicate compares the element with the same operand, a literal or a scalar of the lane
/// (`crate::comparison::class_table`), and the elements are `i64` or `f64`; `None` otherwise.
/// A comparison cannot fail, so the keys are the lazy steps' keys.
pub(crate) fn compare_keys(ps: &[Lambda], xs: &LVal, segd: &Segd, env: &Env) -> Option<Vec<u8>> {
    let (operand, table) = class_table(ps)?;
    // The table in one word, each outcome's class a byte of it: a shift, no load per element.
    let packed = u32::from_le_bytes(table);
    let key = move |o: usize| (packed >> (8 * o)) as u8;
    match (xs.col().ok()?, &operand) {
        (LaneColumn::I64(xs), Expr::Lit(Scalar::I64(p))) => {
            Some(flat::map(xs, |x| key(outcome(x, *p))))
        }
        (LaneColumn::F64(xs), Expr::Lit(Scalar::F64(p))) => {
            Some(flat::map(xs, |x| key(outcome(x, *p))))
        }
        (xs, Expr::Var(name)) => match (xs, lookup(env, name).ok()?.col().ok()?) {
            (LaneColumn::I64(xs), LaneColumn::I64(ps)) => {
                seg::zip_replicated_s(segd, xs, ps, |x, p| key(outcome(x, p))).ok()
            }
            (LaneColumn::F64(xs), LaneColumn::F64(ps)) => {
                seg::zip_replicated_s(segd, xs, ps, |x, p| key(outcome(x, p))).ok()
            }
            _ => None,
        },
        _ => None,
    }
}
