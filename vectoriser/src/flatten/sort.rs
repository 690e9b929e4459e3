//! `sort` and `argsort` ([`Expr::Sort`](crate::ir::Expr::Sort)): the lifted form over all the
//! lanes of a context, one call of the runtime's segmented sort ([`seg::sort_f64_s`],
//! [`seg::argsort_f64_s`] and their `i64` forms: element-balanced, every row in parallel). The
//! reference interpreter's meaning (a stable sort of each array by `f64::total_cmp`, written
//! for obviousness) is `crate::eval`'s.

use crate::error::Result;
use crate::ir::SortOp;
use crate::lval::{LVal, LaneColumn, adopt, internal, vsegd_of_segd};
use flatland_runtime::seg;
use std::sync::Arc;

/// `sort(a)` / `argsort(a)` on every lane: the lanes' arrays (numbers) gathered into one
/// contiguous block, then every segment sorted at once.
pub(crate) fn sort(op: SortOp, a: &LVal) -> Result<LVal> {
    let (segd, elems) = a.elements()?;
    flatland_runtime::budget::check_elements::<f64>("sort", segd.elements())?;
    let LVal::Scalar(col) = elems else {
        return Err(internal(format!("{}: elements are not numbers", op.name())));
    };
    let out = match (op, col) {
        (SortOp::Values, LaneColumn::F64(xs)) => {
            let mut v = xs.to_vec();
            seg::sort_f64_s(&segd, &mut v)?;
            LaneColumn::F64(adopt(v))
        }
        (SortOp::Values, LaneColumn::I64(xs)) => {
            let mut v = xs.to_vec();
            seg::sort_i64_s(&segd, &mut v)?;
            LaneColumn::I64(adopt(v))
        }
        (SortOp::Indices, LaneColumn::F64(xs)) => {
            LaneColumn::I64(adopt(seg::argsort_f64_s(&segd, &xs)?))
        }
        (SortOp::Indices, LaneColumn::I64(xs)) => {
            LaneColumn::I64(adopt(seg::argsort_i64_s(&segd, &xs)?))
        }
        (_, LaneColumn::Bool(_)) => {
            return Err(internal(format!("{}: an array of bool", op.name())));
        }
    };
    Ok(LVal::Array(
        vsegd_of_segd(&segd),
        Arc::new(LVal::Scalar(out)),
    ))
}
