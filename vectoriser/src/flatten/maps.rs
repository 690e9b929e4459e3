//! `map` and calls, lifted: a `map` enters a context whose lanes are the elements of its arrays
//! (a contiguous descriptor), the lambda's free variables replicated into it virtually
//! (`replicate_s` on virtual segments: no element copies); a call evaluates the callee's body
//! in the caller's context, recursion included (the native stack grows on the heap).
//!
//! Cost: entering a map is O(lanes) for the descriptor and O(free arrays' lanes) for the
//! replication; a call costs its body's steps over the caller's lanes.

use super::context::Ctx;
use super::free_vars::free_vars;
use super::{Flattener, rt};
use crate::check::node_key;
use crate::env::{Env, lookup};
use crate::error::Result;
use crate::ir::{Expr, Lambda, Type};
use crate::liveness;
use crate::lval::{LVal, internal, vsegd_of_segd};
use flatland_runtime::Error as RtError;
use flatland_segd::Segd;
use std::sync::Arc;

/// The elements of equally long arrays (`arrays`, one array per lane of `ctx` each), in lane
/// order, and their contiguous descriptor: the lanes of the context a `map` over them enters.
///
/// # Errors
/// A [`RtError::LengthMismatch`] naming the first lane whose arrays differ in length.
fn elements_of_all(op: &'static str, arrays: Vec<LVal>, ctx: &Ctx) -> Result<(Segd, Vec<LVal>)> {
    let first = arrays
        .first()
        .ok_or_else(|| internal(format!("{op} of no arrays")))?
        .array()?
        .0;
    for a in &arrays[1..] {
        let v = a.array()?.0;
        if v.same_lengths(first) {
            continue;
        }
        let (lens0, lens) = (first.lengths(), v.lengths());
        if let Some(j) = (0..ctx.n).find(|&j| lens[j] != lens0[j]) {
            return Err(ctx.fail(
                j,
                rt(RtError::LengthMismatch {
                    op,
                    expected: lens0[j],
                    found: lens[j],
                }),
            ));
        }
    }
    let mut segd = None;
    let mut elems = Vec::with_capacity(arrays.len());
    for a in arrays {
        let (s, e) = a.elements()?;
        segd = Some(s);
        elems.push(e);
    }
    let segd = segd.ok_or_else(|| internal(format!("{op} of no arrays")))?;
    Ok((segd, elems))
}

impl Flattener<'_> {
    /// The free variables of `e` when `params` are bound (cached per node).
    pub(super) fn free_of(&self, e: &Expr, params: &[(String, Option<Type>)]) -> Arc<Vec<String>> {
        let key = node_key(e);
        if let Some(f) = self.free.borrow().get(&key) {
            return f.clone();
        }
        let mut bound: Vec<String> = params.iter().map(|(n, _)| n.clone()).collect();
        let mut out = Vec::new();
        free_vars(e, &mut bound, &mut out);
        let out = Arc::new(out);
        self.free.borrow_mut().insert(key, out.clone());
        out
    }

    /// The environment of `e` moved into a new context by `f` (replicate, pack, gather).
    pub(super) fn move_env(
        &self,
        e: &Expr,
        params: &[(String, Option<Type>)],
        env: &Env,
        f: impl Fn(&LVal) -> Result<LVal>,
    ) -> Result<Env> {
        self.free_of(e, params)
            .iter()
            .map(|n| Ok((n.clone(), Some(f(lookup(env, n)?)?))))
            .collect()
    }

    /// Calls `name` lifted over the lanes of `ctx`.
    pub(crate) fn call(&self, name: &str, args: Vec<LVal>, ctx: &Ctx) -> Result<LVal> {
        let f = self
            .program
            .function(name)
            .ok_or_else(|| internal(format!("no function `{name}`")))?;
        let mut env: Env = f
            .params
            .iter()
            .map(|(n, _)| n.clone())
            .zip(args.into_iter().map(Some))
            .collect();
        if ctx.n == 0 {
            // No lane calls: nothing to count.
            return self.eval(&f.body, &mut env, ctx);
        }
        self.depth.call(name, || self.eval(&f.body, &mut env, ctx))
    }

    /// Enters a lambda applied to the elements of `arrays` (one array per lane): the new
    /// context's lanes are the elements, the lambda's free variables are replicated into it.
    pub(super) fn enter(
        &self,
        op: &'static str,
        f: &Lambda,
        arrays: Vec<LVal>,
        env: &mut Env,
        ctx: &Ctx,
        node: Option<&Expr>,
    ) -> Result<(Segd, LVal)> {
        let (segd, params) = elements_of_all(op, arrays, ctx)?;
        let params = params.into_iter().map(Some);
        let inner = Ctx::inner(&segd);
        let mut benv = self.move_env(&f.body, &f.params, env, |v| v.replicate_s(&segd))?;
        benv.extend(f.params.iter().map(|(n, _)| n.clone()).zip(params));
        if let Some(e) = node {
            // The caller's bindings the map uses last are released before the body runs; those
            // still needed afterwards keep only the elements they reach while it runs (lifted
            // recursion keeps them alive for as long as it goes).
            self.release(e, env);
            if self.live.calls.contains(&node_key(e)) {
                for (_, v) in env.iter_mut() {
                    if let Some(v) = v {
                        *v = liveness::compact(v)?;
                    }
                }
            }
        }
        // A body that may fail keeps its environment, to settle which lane fails first; not a
        // body that calls a function: the kept values would live through the recursion.
        let kept = (self.fallible.may_fail(&f.body)
            && !self.live.calls.contains(&node_key(&f.body)))
        .then(|| benv.clone());
        let r = self.eval(&f.body, &mut benv, &inner);
        drop(benv);
        let r = r.map_err(|err| self.settle_body(f, err, kept, &inner, (&segd, ctx)))?;
        Ok((segd, r))
    }

    pub(super) fn lifted_map(
        &self,
        f: &Lambda,
        arrays: &[Expr],
        env: &mut Env,
        ctx: &Ctx,
        op: &'static str,
        node: Option<&Expr>,
    ) -> Result<LVal> {
        let vals: Vec<LVal> = arrays
            .iter()
            .map(|a| self.eval(a, env, ctx))
            .collect::<Result<_>>()?;
        let (segd, r) = self.enter(op, f, vals, env, ctx, node)?;
        Ok(LVal::Array(vsegd_of_segd(&segd), Arc::new(r)))
    }
}
