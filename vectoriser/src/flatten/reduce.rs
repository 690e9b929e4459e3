//! Reductions and scans, lifted: built-in operators as one segmented fold or scan of the
//! runtime over all lanes (`seg::fold_vs`, `seg::scan_s`), lambda operators as bulk steps over
//! chains (module `chains`) or compiled once when they are scalar trees
//! (`crate::kernels::combine`), and redomaps as the single-pass kernel where it accepts the
//! values (`crate::kernels::redomap`), else as a map followed by the reduction.
//!
//! Cost: one pass over the elements for a built-in operator or a kernel; a lambda operator is
//! one lifted application (or one compiled program run) per element, in chains of leaf
//! length.

use super::chains::{Apply, fold_chains, scan_chains};
use super::context::Ctx;
use super::{Flattener, rt};
use crate::env::Env;
use crate::error::Result;
use crate::ir::{Expr, Lambda, ReduceOp};
use crate::kernels::combine::Combine;
use crate::lval::{LVal, LaneColumn, uniform, vsegd_of_segd};
use crate::scalar_tree::pair_tree;
use flatland_runtime::{expr, seg};
use std::sync::Arc;

/// A redomap's kernel run, or what its unfused steps need when the kernel declines.
enum Redomapped {
    /// The kernel's result.
    Done(LVal),
    /// The identity (one per lane) and the arrays, for the map and the reduction.
    Declined { z: LVal, arrays: Vec<LVal> },
}

/// The name a redomap's map goes by in errors: `map` when it was one before fusion.
fn redomap_op(f: &Lambda) -> &'static str {
    if crate::fuse::from_map(f) {
        "map"
    } else {
        "redomap"
    }
}

impl Flattener<'_> {
    /// The bulk application of a reduction operator to pairs of lanes.
    pub(super) fn applier<'a>(
        &'a self,
        op: &'a ReduceOp,
        compiled: Option<&'a Combine>,
        env: &'a Env,
        ctx: &'a Ctx,
    ) -> Box<Apply<'a>> {
        match (op.bin_op(), op) {
            (Some(bop), _) => {
                // Compiled at the first step (the operands' types are the same at every step).
                let mut compiled: Option<expr::CompiledExpr> = None;
                let kernels = &self.kernels;
                Box::new(move |a: &LVal, b: &LVal, segs: &[usize]| {
                    let (x, y) = (a.col()?, b.col()?);
                    let program = match compiled {
                        Some(ref p) => p,
                        None => compiled.insert(
                            expr::CompiledExpr::compile(&pair_tree(bop), &[x.ty(), y.ty()])
                                .map_err(rt)?
                                .with_kernels(kernels),
                        ),
                    };
                    let out = program
                        .eval(&[x.as_ref(), y.as_ref()], segs.len())
                        .map_err(|e| ctx.gather(segs).fix(e))?;
                    Ok(LVal::Scalar(LaneColumn::from_column(out)))
                })
            }
            (None, ReduceOp::Lambda(l)) => {
                // A step the compiled operator cannot take, or one that fails, runs lifted
                // (which reports the error).
                Box::new(move |a: &LVal, b: &LVal, segs: &[usize]| {
                    if let Some(Some(Ok(r))) = compiled.map(|c| c.apply(a, b, segs, env)) {
                        return Ok(r);
                    }
                    let args = vec![a.clone(), b.clone()];
                    self.apply_lambda(l, args, env, segs, &ctx.gather(segs))
                })
            }
            (None, _) => unreachable!("built-in operators have a scalar operator"),
        }
    }

    /// A lambda operator compiled once for a whole fold or scan, where its body allows (fusion
    /// on; [`crate::kernels::combine`]).
    pub(super) fn compiled_operator(&self, op: &ReduceOp, z: &LVal, env: &Env) -> Option<Combine> {
        match op {
            ReduceOp::Lambda(l) if self.fuse => {
                let c = Combine::new(l, z, env, &self.kernels);
                self.trace.record("operator", c.is_some());
                c
            }
            _ => None,
        }
    }

    /// `l` applied lifted to `args` (one value per lane of `sub`), lane `j` belonging to lane
    /// `segs[j]` of the context whose variables are `env` (the lambda's free variables are
    /// gathered from there).
    pub(super) fn apply_lambda(
        &self,
        l: &Lambda,
        args: Vec<LVal>,
        env: &Env,
        segs: &[usize],
        sub: &Ctx,
    ) -> Result<LVal> {
        let mut benv = self.move_env(&l.body, &l.params, env, |v| v.gather(segs))?;
        benv.extend(
            l.params
                .iter()
                .map(|(n, _)| n.clone())
                .zip(args.into_iter().map(Some)),
        );
        self.eval(&l.body, &mut benv, sub)
    }

    pub(super) fn lifted_reduce(
        &self,
        op: &ReduceOp,
        z: &LVal,
        arr: &LVal,
        env: &Env,
        ctx: &Ctx,
    ) -> Result<LVal> {
        let (v, el) = arr.array()?;
        if let (Some(bop), LVal::Scalar(block), LVal::Scalar(zc)) = (op.bin_op(), &**el, z)
            && let Some(z0) = uniform(zc)
        {
            return Ok(LVal::Scalar(builtin!(
                "reduction",
                bop,
                block,
                |f, b: T| { seg::fold_vs(v, &[b], T::of(z0)?, f) }
            )));
        }
        let (segd, xs) = arr.elements()?;
        let compiled = self.compiled_operator(op, z, env);
        let fast = compiled.as_ref().map(|c| (c, env));
        let mut apply = self.applier(op, compiled.as_ref(), env, ctx);
        fold_chains(&segd, &xs, z, &mut *apply, fast)
    }

    pub(super) fn lifted_scan(
        &self,
        op: &ReduceOp,
        z: &LVal,
        arr: &LVal,
        env: &Env,
        ctx: &Ctx,
    ) -> Result<LVal> {
        let (segd, xs) = arr.elements()?;
        let out = if let (Some(bop), LVal::Scalar(data), LVal::Scalar(zc)) = (op.bin_op(), &xs, z)
            && let Some(z0) = uniform(zc)
        {
            LVal::Scalar(builtin!("scan", bop, data, |f, d: T| seg::scan_s(
                &segd,
                d,
                T::of(z0)?,
                f
            )))
        } else {
            let compiled = self.compiled_operator(op, z, env);
            scan_chains(
                &segd,
                &xs,
                z,
                &mut *self.applier(op, compiled.as_ref(), env, ctx),
            )?
        };
        Ok(LVal::Array(vsegd_of_segd(&segd), Arc::new(out)))
    }

    /// `redomap(op, z0, f, arrays)` on the evaluated `arrays` and identity `z` (`None` when
    /// `z0` is a literal, which this evaluates): one single-pass kernel where fusion accepts it,
    /// else `f` mapped lifted and the results reduced.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn redomap_of(
        &self,
        op: &ReduceOp,
        z0: &Expr,
        z: Option<LVal>,
        f: &Lambda,
        vals: Vec<LVal>,
        env: &mut Env,
        ctx: &Ctx,
    ) -> Result<LVal> {
        let (z, vals) = match self.redomap_kernel(op, z0, z, f, vals, env, ctx)? {
            Redomapped::Done(r) => return Ok(r),
            Redomapped::Declined { z, arrays } => (z, arrays),
        };
        let (segd, r) = self.enter(redomap_op(f), f, vals, env, ctx, None)?;
        let mapped = LVal::Array(vsegd_of_segd(&segd), Arc::new(r));
        self.lifted_reduce(op, &z, &mapped, env, ctx)
    }

    /// The single-pass kernel of `redomap(op, z0, f, arrays)` where fusion accepts it; else the
    /// identity for the unfused steps (a literal built for every lane of `ctx`) and the arrays
    /// back.
    #[allow(clippy::too_many_arguments)]
    fn redomap_kernel(
        &self,
        op: &ReduceOp,
        z0: &Expr,
        z: Option<LVal>,
        f: &Lambda,
        vals: Vec<LVal>,
        env: &Env,
        ctx: &Ctx,
    ) -> Result<Redomapped> {
        // A literal identity is the same on every lane: the kernel gets it as one lane, and
        // only the unfused steps build it for every lane (a literal cannot fail, so evaluating
        // it after the arrays is unobservable).
        let lit = z.is_none();
        let top = Ctx::top();
        let z = match z {
            Some(z) => z,
            None => self.scalar_of(z0, &[], if self.fuse { &top } else { ctx })?,
        };
        if self.fuse {
            let r =
                crate::kernels::redomap(op, &z, f, &vals, env, &self.kernels, &self.index_ranges);
            self.trace.record("redomap", r.is_some());
            if let Some(r) = r {
                return Ok(Redomapped::Done(r));
            }
        }
        let z = if lit && self.fuse {
            self.scalar_of(z0, &[], ctx)?
        } else {
            z
        };
        Ok(Redomapped::Declined { z, arrays: vals })
    }
}
