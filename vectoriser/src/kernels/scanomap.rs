//! The single-pass scanomap kernel: `scan(op, z, map(f, arrays))` with a built-in operator,
//! each block's mapped values computed with the expression machine and scanned straight into
//! the result with the canonical association.
//!
//! Cost: one pass over the elements, one block-sized buffer per input that is not read in
//! place; the result is the only full-size allocation.

use super::block::{BlockPlan, arrays_of, sequential_blocks};
use super::lambda::{LambdaCompiler, body_outs};
use super::operators::{ColumnScalar, accepts, identity, with_op};
use crate::env::Env;
use crate::ir::{Expr, Lambda, ReduceOp};
use crate::lval::LVal;
use flatland_runtime::expr::native::Kernels;
use flatland_runtime::{assoc, stats};
use flatland_segd::Segd;
use std::sync::Arc;

/// `scan(op, z, map(f, arrays))` over the lanes of the context in one pass ("scanomap"): each
/// block of mapped values (at most [`fused::BLOCK`], whole leaves of the segments) is computed
/// with the expression machine and scanned straight into the result with the canonical
/// association ([`assoc::leaf_scan`] per leaf, carried left to right along each segment); no
/// array of mapped values exists. `None` when the kernel does not accept the scan or meets an
/// error (the caller runs the unfused steps, which report it).
pub(crate) fn scanomap(
    op: &ReduceOp,
    z: &Expr,
    f: &Lambda,
    arrays: &[String],
    env: &Env,
    kernels: &Kernels,
) -> Option<LVal> {
    let bop = op.bin_op()?;
    let z = identity(z, env)?;
    if arrays.len() != f.params.len() || !accepts(bop, z.ty()) {
        return None;
    }
    let descs = arrays_of(arrays, env)?;
    let mut c = LambdaCompiler::new(
        env,
        f.params.iter().map(|(n, _)| n.clone()).collect(),
        descs.iter().map(|(_, e)| *e).collect(),
        kernels,
    );
    let outs = body_outs(&mut c, &f.body, None)?;
    let (plan, pos) = BlockPlan::new(&c, &outs, &descs, env)?;
    let k = pos[0];
    if plan.ty(&c, k) != z.ty() {
        return None;
    }
    let segd = Segd::from_lengths(descs[0].0.lengths()).ok()?;
    with_op!(bop, z.ty(), |f: T| {
        let z = T::of(z)?;
        let n = segd.elements();
        stats::record_alloc::<T>(n);
        stats::record_written(n as u64);
        let mut out: Vec<T> = vec![z; n];
        let mut carry = z;
        let mut seg = usize::MAX;
        sequential_blocks(&segd, |pieces| {
            let cols = plan.produce(pieces).ok()?;
            let vals = T::slice(&cols[k])?;
            let mut at = 0;
            for p in pieces {
                if p.segment != seg {
                    seg = p.segment;
                    carry = z;
                }
                let start = segd.start(p.segment) + p.offset;
                let leaf = &vals[at..at + p.len];
                if let Some(total) =
                    assoc::leaf_scan(leaf, carry, &mut out[start..start + p.len], f)
                {
                    carry = f(carry, total);
                }
                at += p.len;
            }
            Some(())
        })?;
        Some(LVal::Array(
            crate::lval::vsegd_of_segd(&segd),
            Arc::new(LVal::Scalar(T::col(out))),
        ))
    })
}
