//! One class of a filter over a generated range, `(lo..hi).filter(p)` or `filter(ps,
//! iota(len, start, step)).i`, in chunks: the range is never materialised. Each chunk of
//! [`CHUNK`] elements is generated, classified by the one-pass mask kernel
//! (`crate::kernels::filter_mask`) and its selected elements packed, so the working set stays
//! in cache (NESL's sieve ends with a filter of all `n` numbers; whole, its range alone is `8n`
//! bytes of fresh pages).
//!
//! Where the result could differ from the unchunked filter's, the chunks are not used and the
//! filter runs whole, as before, and the trace records `filter iota chunks` declined: an error
//! while evaluating the range's operands, or a mask kernel that declines a chunk (a predicate it
//! cannot compile or one that fails: the whole filter then reports the error of the lowest
//! failing element, as always). A negative length or a range the memory budget refuses is left
//! to the whole filter to report; a range of at most one chunk is filtered whole from the
//! operands already evaluated. Only for one lane (a range in a function body, not under a
//! `map`).
//!
//! Cost: the operands once; per chunk, one generated block and one mask pass; one output write
//! per selected element.

use super::{Ctx, Flattener, segd_of};
use crate::env::Env;
use crate::error::Result;
use crate::ir::{Expr, Lambda};
use crate::lval::{LVal, LaneColumn, adopt, vsegd_of_segd};
use flatland_segd::Segd;
use std::sync::Arc;

/// Elements generated and classified at once: 2 MiB of `i64`, within a core's cache.
pub(super) const CHUNK: usize = 1 << 18;

/// The trace's name for the chunked filter.
const CHUNKS: &str = "filter iota chunks";

/// The `iota` at the end of `a`'s lets, if `a` is one.
fn iota_under_lets(a: &Expr) -> Option<&Expr> {
    match a {
        Expr::Let(_, _, b) => iota_under_lets(b),
        Expr::Iota { .. } => Some(a),
        _ => None,
    }
}

/// What [`Flattener::iota_filter_class`] gives: the class, or the range's elements for the
/// whole filter (evaluated once either way).
pub(super) enum RangeFilter {
    /// The class, from the chunks.
    Class(LVal),
    /// The range's elements and their one segment: too short to chunk, or a chunk declined.
    Elements(Segd, LVal),
}

impl Flattener<'_> {
    /// `filter(ps, a).class` in chunks when `a` is a long range of one lane (see the module
    /// documentation); `None` leaves `a` unevaluated (not a range, or its operands fail).
    pub(super) fn iota_filter_class(
        &self,
        ps: &[Lambda],
        class: usize,
        a: &Expr,
        env: &mut Env,
        ctx: &Ctx,
    ) -> Option<RangeFilter> {
        if !self.fuse || ctx.n != 1 || iota_under_lets(a).is_none() {
            return None;
        }
        // The operands, in a copy of the environment (their nodes release bindings; if they
        // fail, the whole filter evaluates `a` again to report it) and with no fault left.
        let mut scratch = env.clone();
        let fault = ctx.fault.borrow_mut().take();
        let operands = self.range_operands(a, &mut scratch, ctx);
        *ctx.fault.borrow_mut() = fault;
        let Ok((len, start, step)) = operands else {
            self.trace.record(CHUNKS, false);
            return None;
        };
        // A negative length, or a range the memory budget refuses: the whole filter reports
        // the `iota`'s error (the chunks' output can be as long as the range).
        let len = usize::try_from(len).ok()?;
        flatland_runtime::budget::check_elements::<i64>("iota_s output", len).ok()?;
        let r = if len > CHUNK {
            let at = |j: usize| start.wrapping_add((j as i64).wrapping_mul(step));
            let r = self.chunks(ps, class, len, at, env);
            self.trace.record(CHUNKS, r.is_some());
            r.map(RangeFilter::Class)
        } else {
            None
        };
        let r = match r {
            Some(r) => r,
            None => RangeFilter::Elements(
                segd_of(vec![len]).ok()?,
                LVal::Scalar(LaneColumn::I64(adopt(flatland_runtime::flat::iota(
                    start, step, len,
                )))),
            ),
        };
        self.release_unevaluated(a, env);
        Some(r)
    }

    /// The elements of class `class` among the range's `len` elements `at(j)`, classified in
    /// chunks in parallel (each chunk by the mask kernel); `None` where a chunk declines.
    fn chunks(
        &self,
        ps: &[Lambda],
        class: usize,
        len: usize,
        at: impl Fn(usize) -> i64 + Sync,
        env: &Env,
    ) -> Option<LVal> {
        // Consecutive chunks per task, two tasks a thread; a task reuses one block buffer.
        let chunks = len.div_ceil(CHUNK);
        let tasks = chunks.min(2 * rayon::current_num_threads()).max(1);
        let groups: Vec<std::ops::Range<usize>> = (0..tasks)
            .map(|t| chunks * t / tasks..chunks * (t + 1) / tasks)
            .collect();
        let kernels = &self.kernels;
        let parts = flatland_runtime::sched::run_parts(groups, |_, group| {
            let mut out = Vec::new();
            flatland_runtime::stats::record_alloc::<i64>(CHUNK);
            let mut block: Vec<i64> = Vec::with_capacity(CHUNK);
            for c in group {
                let (lo, hi) = (c * CHUNK, len.min((c + 1) * CHUNK));
                block.clear();
                block.extend((lo..hi).map(&at));
                let xs = LVal::Scalar(LaneColumn::I64(adopt(std::mem::take(&mut block))));
                let segd = segd_of(vec![hi - lo]).ok()?;
                let mask = crate::kernels::filter_mask(ps, class, &xs, &segd, env, kernels)?;
                // The selected elements, packed as the whole filter packs them.
                let picked = xs.pack(&mask).ok()?;
                out.extend_from_slice(picked.col().ok()?.i64s().ok()?);
                // The buffer back (no copy: nothing else holds it once the mask is made).
                if let LVal::Scalar(LaneColumn::I64(b)) = xs {
                    block = b.into_vec();
                }
            }
            Some(out)
        });
        let out = parts
            .into_iter()
            .collect::<Option<Vec<Vec<i64>>>>()?
            .concat();
        flatland_runtime::stats::record_alloc::<i64>(out.len());
        let segd = segd_of(vec![out.len()]).ok()?;
        Some(LVal::Array(
            vsegd_of_segd(&segd),
            Arc::new(LVal::Scalar(LaneColumn::I64(adopt(out)))),
        ))
    }

    /// The scalars `len, start, step` of the `iota` at the end of `a`'s lets, evaluated as
    /// `a` would evaluate them (lets first, in order).
    fn range_operands(&self, a: &Expr, env: &mut Env, ctx: &Ctx) -> Result<(i64, i64, i64)> {
        match a {
            Expr::Let(n, v, b) => {
                let v = self.eval(v, env, ctx)?;
                env.push((n.clone(), Some(v)));
                let r = self.range_operands(b, env, ctx);
                env.pop();
                r
            }
            Expr::Iota { len, start, step } => {
                let mut one = |e: &Expr| -> Result<i64> {
                    let v = self.eval(e, env, ctx)?;
                    let c = v.col()?.i64s()?;
                    c.first()
                        .copied()
                        .ok_or_else(|| crate::lval::internal("a range operand with no lane".into()))
                };
                Ok((one(len)?, one(start)?, one(step)?))
            }
            _ => Err(crate::lval::internal("not a range".into())),
        }
    }
}
