//! `sort` and `argsort` ([`Expr::Sort`](crate::ir::Expr::Sort)): the lifted form over all the
//! lanes of a context, one call of the runtime's segmented sort ([`seg::sort_f64_s`],
//! [`seg::argsort_f64_s`] and their `i64` forms: element-balanced, every row in parallel), and
//! the reference interpreter's meaning (a stable sort of each array by `f64::total_cmp`, written
//! for obviousness).

use crate::error::Result;
use crate::ir::SortOp;
use crate::lval::{Col, LVal, adopt, internal, vsegd_of_segd};
use crate::value::Value;
use flatland_runtime::seg;
use std::cmp::Ordering;
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
        (SortOp::Values, Col::F64(xs)) => {
            let mut v = xs.to_vec();
            seg::sort_f64_s(&segd, &mut v)?;
            Col::F64(adopt(v))
        }
        (SortOp::Values, Col::I64(xs)) => {
            let mut v = xs.to_vec();
            seg::sort_i64_s(&segd, &mut v)?;
            Col::I64(adopt(v))
        }
        (SortOp::Indices, Col::F64(xs)) => Col::I64(adopt(seg::argsort_f64_s(&segd, &xs)?)),
        (SortOp::Indices, Col::I64(xs)) => Col::I64(adopt(seg::argsort_i64_s(&segd, &xs)?)),
        (_, Col::Bool(_)) => {
            return Err(internal(format!("{}: an array of bool", op.name())));
        }
    };
    Ok(LVal::Array(
        vsegd_of_segd(&segd),
        Arc::new(LVal::Scalar(out)),
    ))
}

fn order(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::I64(x), Value::I64(y)) => x.cmp(y),
        (Value::F64(x), Value::F64(y)) => x.total_cmp(y),
        _ => unreachable!("checked program: numbers expected, found {a} and {b}"),
    }
}

/// The reference meaning of `op` on one array: a stable sort of its indices by the order.
pub(crate) fn reference(op: SortOp, xs: &[Value]) -> Value {
    let mut idx: Vec<usize> = (0..xs.len()).collect();
    idx.sort_by(|&i, &j| order(&xs[i], &xs[j]));
    Value::array(match op {
        SortOp::Values => idx.into_iter().map(|i| xs[i].clone()).collect(),
        SortOp::Indices => idx.into_iter().map(|i| Value::I64(i as i64)).collect(),
    })
}
