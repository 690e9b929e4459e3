//! The executor's first error: the one the reference interpreter meets first, found without
//! rerunning the program (the rule is [`crate::exec`]'s "Errors").
//!
//! A runtime error unwinds through the nodes that were evaluating with a [`Fault`] kept in its
//! context: a failing lane and what is known of it. A failing step starts it with its lowest
//! failing lane, exactly the interpreter's error there (the expression machine and the lifted
//! primitives report that lane, and for that lane the first failing operation). Each node on
//! the way up weakens it by the parts that had not run yet ([`crate::fallible`]); `map` and
//! `if` carry it into the enclosing context. A *root* (a map's body, or a node whose parts the
//! executor runs in another order than the interpreter: reductions and scans, filters,
//! partitions, histograms, loops, scatters, fused forms, scalar trees whose operators may fail
//! after an input that may) keeps its free variables while it runs and, where the fault is not
//! known to be the interpreter's first error, settles it: reruns itself (lifted) on the lanes
//! below the failing one, by halves where no lane is known, and asks the interpreter for the
//! one lane it ends on. A root that calls a function keeps nothing (its values would live
//! through the recursion); its faults go up to the enclosing root.

use super::context::Fault;
use super::free_vars::free_vars;
use super::{Ctx, Flattener, internal};
use crate::check::node_key;
use crate::env::Env;
use crate::error::{Error, Result};
use crate::ir::Expr;
use crate::value::Value;
use flatland_runtime::Error as RtError;
use std::sync::Arc;

/// Whether `e` is an error of a lane (one the interpreter would meet at some lane) rather than
/// one of the whole run: a memory budget refusal (sizes summed over all lanes) and internal
/// errors keep the executor's.
pub(crate) fn lane_error(e: &Error) -> bool {
    match e {
        Error::Runtime(RtError::MemoryBudget { .. }) => false,
        Error::Runtime(RtError::Invalid { op, .. }) => *op != "exec",
        Error::Runtime(_) => true,
        _ => false,
    }
}

impl Ctx {
    /// Records that lane `lane` of this context is the lowest failing lane of a step, and that
    /// `err` is the interpreter's error there; returns `err`.
    pub(super) fn fail(&self, lane: usize, err: Error) -> Error {
        *self.fault.borrow_mut() = Some(Fault {
            err: err.clone(),
            lane: Some(lane),
            exact: true,
            lowest: true,
            from: None,
        });
        err
    }

    /// The fault kept for `err` (nothing known when the kept one is of another error).
    fn take_fault(&self, err: &Error) -> Fault {
        match self.fault.borrow_mut().take() {
            Some(f) if f.err == *err => f,
            _ => Fault::lost(err.clone()),
        }
    }

    fn put(&self, f: Fault) -> Error {
        let err = f.err.clone();
        *self.fault.borrow_mut() = Some(f);
        err
    }

    /// Whether the error a run of the top-level context returned is the interpreter's first.
    pub(crate) fn settled(&self, err: &Error) -> bool {
        !lane_error(err) || self.take_fault(err).canonical()
    }

    /// Carries the error `err` of a sub-context `sub` (whose lane `k` is lane `outer(k)` of
    /// this one, in the same order) into this context.
    pub(super) fn lift(&self, sub: &Ctx, err: Error, outer: impl Fn(usize) -> usize) -> Error {
        if !lane_error(&err) {
            return err;
        }
        let mut f = sub.take_fault(&err);
        f.lane = f.lane.map(outer);
        self.put(f)
    }
}

/// A root's node, its free variables as they were when it started, and its context.
pub(super) struct Root<'a> {
    node: &'a Expr,
    env: Env,
    ctx: &'a Ctx,
}

impl Flattener<'_> {
    /// The free variables of `e`, kept when `e` is a root (`fallible::Fallible::is_root`).
    pub(super) fn root_env(&self, e: &Expr, env: &Env) -> Result<Option<Env>> {
        // A root that calls a function keeps nothing: its values would live through the
        // recursion (its faults go up to the enclosing root).
        if !self.fallible.is_root(e) || self.live.calls.contains(&node_key(e)) {
            return Ok(None);
        }
        let key = node_key(e);
        let cached = self.root_free.borrow().get(&key).cloned();
        let names = if let Some(n) = cached {
            n
        } else {
            let mut out = Vec::new();
            free_vars(e, &mut Vec::new(), &mut out);
            let out = Arc::new(out);
            self.root_free.borrow_mut().insert(key, out.clone());
            out
        };
        names
            .iter()
            .map(|n| Ok((n.clone(), Some(crate::env::lookup(env, n)?.clone()))))
            .collect::<Result<_>>()
            .map(Some)
    }

    /// The error `err` that `e` (over `ctx`) returns, with its fault brought up to `e`: weakened
    /// by `e`'s parts that had not run, settled when `e` is a root (`root`: its free variables).
    pub(super) fn unwound(&self, e: &Expr, err: Error, ctx: &Ctx, root: Option<Env>) -> Error {
        if !lane_error(&err) {
            return err;
        }
        let mut f = ctx.take_fault(&err);
        if f.lane.is_some() {
            let after = self.fallible.after(e, f.from, &self.types);
            f.lowest &= after.lowest;
            f.exact &= after.exact;
        }
        f.from = Some(node_key(e));
        if let Some(env) = root
            && !f.canonical()
        {
            let root = Root { node: e, env, ctx };
            return match self.settle(&root, f) {
                Ok(f) => ctx.put(f),
                Err(e) => e,
            };
        }
        ctx.put(f)
    }

    /// The error `err` of a map's body `f` (over `inner`, the elements of `segd`'s segments,
    /// one segment per lane of `ctx`) carried into `ctx`: settled over the body's lanes first
    /// (`kept`: the body's environment, kept where it may fail), so that it is the
    /// interpreter's first error over `ctx` up to the map.
    pub(super) fn settle_body(
        &self,
        f: &crate::ir::Lambda,
        err: Error,
        kept: Option<Env>,
        inner: &Ctx,
        (segd, ctx): (&flatland_segd::Segd, &Ctx),
    ) -> Error {
        if !lane_error(&err) {
            return err;
        }
        let mut fault = inner.take_fault(&err);
        if !fault.canonical() {
            fault = match kept {
                Some(env) => {
                    let root = Root {
                        node: &f.body,
                        env,
                        ctx: inner,
                    };
                    match self.settle(&root, fault) {
                        Ok(g) => g,
                        Err(e) => return e,
                    }
                }
                None => Fault::lost(err),
            };
        }
        fault.lane = fault
            .lane
            .map(|j| segd.try_segment_of_element(j).map_or(j, |(s, _)| s));
        ctx.put(fault)
    }

    /// `f`, the fault of `root` over all its lanes, made the interpreter's first error.
    ///
    /// # Errors
    /// An error of the whole run met on the way (the recursion limit: the interpreter's error
    /// when it meets it first).
    pub(super) fn settle(&self, root: &Root<'_>, f: Fault) -> Result<Fault> {
        let from = f.from;
        let (lane, err) = self.settle_in(root, 0, root.ctx.n, f)?;
        Ok(Fault {
            err,
            lane: Some(lane),
            exact: true,
            lowest: true,
            from,
        })
    }

    /// The lowest failing lane of `root` in `lo..hi` and the interpreter's error there, given
    /// the fault `f` of a run over exactly those lanes (its lane counted from `lo`).
    fn settle_in(&self, root: &Root<'_>, lo: usize, hi: usize, f: Fault) -> Result<(usize, Error)> {
        if f.canonical() {
            return Ok((lo + f.lane.unwrap_or(0), f.err));
        }
        if let Some(l) = f.lane {
            let at = lo + l;
            if !f.lowest
                && l > 0
                && let Some(g) = self.rerun(root, lo, at)?
            {
                return self.settle_in(root, lo, at, g);
            }
            let err = if f.exact {
                f.err
            } else {
                self.eval_lane(root, at)?
            };
            return Ok((at, err));
        }
        if hi - lo <= 1 {
            return Ok((lo, self.eval_lane(root, lo)?));
        }
        let mid = lo + (hi - lo) / 2;
        if let Some(g) = self.rerun(root, lo, mid)? {
            return self.settle_in(root, lo, mid, g);
        }
        match self.rerun(root, mid, hi)? {
            Some(g) => self.settle_in(root, mid, hi, g),
            None => Err(internal(format!(
                "a failing step succeeded when rerun on its lanes {lo}..{hi}: {}",
                f.err
            ))),
        }
    }

    /// Runs `root` lifted on its lanes `lo..hi`: `None` when they succeed, else the fault.
    fn rerun(&self, root: &Root<'_>, lo: usize, hi: usize) -> Result<Option<Fault>> {
        let idx: Vec<usize> = (lo..hi).collect();
        let sub = root.ctx.gather(&idx);
        let mut env = root
            .env
            .iter()
            .map(|(n, v)| Ok((n.clone(), v.as_ref().map(|v| v.gather(&idx)).transpose()?)))
            .collect::<Result<Env>>()?;
        match self.eval(root.node, &mut env, &sub) {
            Ok(_) => Ok(None),
            Err(e) if lane_error(&e) => Ok(Some(sub.take_fault(&e))),
            Err(e) => Err(e),
        }
    }

    /// The interpreter's error on lane `lane` of `root` alone.
    fn eval_lane(&self, root: &Root<'_>, lane: usize) -> Result<Error> {
        let env = root
            .env
            .iter()
            .map(|(n, v)| {
                let v = v
                    .as_ref()
                    .ok_or_else(|| internal(format!("`{n}` released in a root")))?;
                let value: Value = v
                    .gather(&[lane])?
                    .to_values()
                    .pop()
                    .ok_or_else(|| internal(format!("`{n}` has no lane {lane}")))?;
                Ok((n.clone(), value))
            })
            .collect::<Result<Vec<_>>>()?;
        match crate::eval::at_lane(
            self.program,
            root.node,
            env,
            root.ctx.lane(lane),
            self.depth.level(),
        ) {
            Err(e) if lane_error(&e) => Ok(e),
            Err(e) => Err(e),
            Ok(_) => Err(internal(format!(
                "lane {lane} failed lifted and not in the interpreter"
            ))),
        }
    }
}
