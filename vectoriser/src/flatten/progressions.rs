//! The executor's fused scatter of progressions ([`FusedForm::ScatterProgressions`], rule
//! `scatter-progressions` of [`crate::fuse`]): the progressions `(len, start, step)` of every
//! lane's mapped function, evaluated lifted like any map, then written into the destination by
//! [`fused::scatter_progressions_s`] (one value per lane, no index array).
//!
//! The kernel declines, and the original runs, where it would not give the original's result
//! exactly: a negative length (an `iota` error), a position outside its destination (a scatter
//! error), a destination whose elements are not scalars of the value's type, or any error while
//! evaluating the parts (reported by the original, in the interpreter's order).
//!
//! Cost: the lifted map over the progressions, one copy of the destination, one store per
//! position.
//!
//! [`FusedForm::ScatterProgressions`]: crate::ir::FusedForm::ScatterProgressions

use super::{Ctx, Flattener};
use crate::env::Env;
use crate::error::Result;
use crate::ir::Expr;
use crate::lval::{LVal, LaneColumn, adopt, vsegd_of_segd};
use flatland_runtime::fused::{self, Progression};
use std::sync::Arc;

impl Flattener<'_> {
    /// The fused scatter on the variables of `env`, or `None` where it declines (see the
    /// module documentation).
    pub(super) fn scatter_progressions(
        &self,
        dest: &Expr,
        progressions: &Expr,
        value: &Expr,
        env: &Env,
        ctx: &Ctx,
    ) -> Option<LVal> {
        // The parts are nodes of the original (or share them): evaluated in a copy of the
        // environment, so that their releases do not reach `env` when the original runs.
        let mut scratch = env.clone();
        let fault = ctx.fault.borrow_mut().take();
        let r = (|| -> Result<Option<LVal>> {
            let progs = self.eval(progressions, &mut scratch, ctx)?;
            let dest = self.eval(dest, &mut scratch, ctx)?;
            let value = self.eval(value, &mut scratch, ctx)?;
            write(&dest, &progs, &value)
        })();
        // A declined kernel leaves no fault behind for the original's error to pick up.
        *ctx.fault.borrow_mut() = fault;
        r.ok().flatten()
    }
}

/// Every lane's progressions written into its destination with its value; `None` for a
/// negative length, `Err` for a position outside (both left to the original to report).
fn write(dest: &LVal, progs: &LVal, value: &LVal) -> Result<Option<LVal>> {
    let (lanes, triples) = progs.elements()?;
    let LVal::Tuple(parts) = &triples else {
        return Ok(None);
    };
    let [len, start, step] = &parts[..] else {
        return Ok(None);
    };
    let (len, start, step) = (
        len.col()?.i64s()?,
        start.col()?.i64s()?,
        step.col()?.i64s()?,
    );
    let Some(progs) = (0..len.len())
        .map(|k| {
            let len = usize::try_from(len[k]).ok()?;
            Some(Progression {
                start: start[k],
                step: step[k],
                len,
            })
        })
        .collect::<Option<Vec<_>>>()
    else {
        return Ok(None);
    };
    let (segd, elements) = dest.elements()?;
    let rt = crate::error::Error::Runtime;
    let col = match (elements.col()?, value.col()?) {
        (LaneColumn::Bool(b), LaneColumn::Bool(v)) => LaneColumn::Bool(adopt(
            fused::scatter_progressions_s(b, &segd, &lanes, &progs, v).map_err(rt)?,
        )),
        (LaneColumn::I64(b), LaneColumn::I64(v)) => LaneColumn::I64(adopt(
            fused::scatter_progressions_s(b, &segd, &lanes, &progs, v).map_err(rt)?,
        )),
        (LaneColumn::F64(b), LaneColumn::F64(v)) => LaneColumn::F64(adopt(
            fused::scatter_progressions_s(b, &segd, &lanes, &progs, v).map_err(rt)?,
        )),
        _ => return Ok(None),
    };
    Ok(Some(LVal::Array(
        vsegd_of_segd(&segd),
        Arc::new(LVal::Scalar(col)),
    )))
}
