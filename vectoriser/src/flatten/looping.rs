//! The lifted sequential loop (`loop`): every lane of the context carries its own state, and
//! each iteration runs the body once, lifted, over the lanes still active.
//!
//! Before each iteration the lanes that stop (their count reached, or their condition false)
//! leave: their state is set aside with their positions, and the active lanes' state and the
//! body's free variables are packed to the rest. An iteration where no lane leaves packs
//! nothing, so the loop-invariant free variables are moved into the loop once (and, under a
//! `map`, replicated once by the `map`, not per iteration). The finished states are put back
//! in lane order at the end.

use super::{Ctx, Flattener, assemble};
use crate::env::Env;
use crate::error::Result;
use crate::ir::{Expr, Lambda, LoopForm};
use crate::lval::{LVal, LaneColumn, adopt};
use bitvec::prelude::*;

/// The lanes of a running loop: the active ones with their state, and the finished ones.
pub(crate) struct Looping {
    /// How many lanes the loop's context has.
    lanes: usize,
    /// The active lanes' positions in the loop's context, and their context.
    ids: Vec<usize>,
    sub: Ctx,
    /// The active lanes' state.
    state: LVal,
    /// The finished lanes' positions and final states.
    done: Vec<(Vec<usize>, LVal)>,
    /// The iterations run so far.
    iteration: i64,
    /// Each lane's number of iterations (`for` loops).
    counts: Option<Vec<i64>>,
}

impl Looping {
    /// A loop over the lanes of `ctx` from the states `init`; `counts` for a `for` loop.
    pub(crate) fn new(init: LVal, counts: Option<&LVal>, ctx: &Ctx) -> Result<Looping> {
        Ok(Looping {
            lanes: ctx.n,
            ids: (0..ctx.n).collect(),
            sub: ctx.clone(),
            state: init,
            done: Vec::new(),
            iteration: 0,
            counts: counts
                .map(|c| Ok::<_, crate::Error>(c.col()?.i64s()?.to_vec()))
                .transpose()?,
        })
    }

    /// The active lanes whose `for` count is not reached yet.
    pub(crate) fn counted(&self) -> Option<BitVec> {
        let counts = self.counts.as_ref()?;
        Some(
            self.ids
                .iter()
                .map(|&i| counts[i] > self.iteration)
                .collect(),
        )
    }

    /// Keeps the active lanes whose bit of `go` is set; the others finish. Returns the mask to
    /// pack the body's free variables with, or `None` when every lane goes on (nothing to pack).
    pub(crate) fn settle(&mut self, go: &BitSlice) -> Result<Option<BitVec>> {
        if go.all() {
            return Ok(None);
        }
        let stop: BitVec = go.iter().by_vals().map(|b| !b).collect();
        let pick = |ids: &[usize], m: &BitSlice| -> Vec<usize> {
            ids.iter()
                .zip(m.iter().by_vals())
                .filter(|p| p.1)
                .map(|p| *p.0)
                .collect()
        };
        self.done
            .push((pick(&self.ids, &stop), self.state.pack(&stop)?));
        let local: Vec<usize> = (0..self.ids.len()).filter(|&j| go[j]).collect();
        self.sub = self.sub.gather(&local);
        self.ids = pick(&self.ids, go);
        self.state = self.state.pack(go)?;
        Ok(Some(go.to_bitvec()))
    }

    /// Whether any lane is still active.
    pub(crate) fn active(&self) -> bool {
        !self.ids.is_empty()
    }

    /// The active lanes' context.
    pub(crate) fn lanes(&self) -> &Ctx {
        &self.sub
    }

    /// The active lanes' state.
    pub(crate) fn state(&self) -> &LVal {
        &self.state
    }

    /// The iteration number on every active lane.
    pub(crate) fn index(&self) -> LVal {
        LVal::Scalar(LaneColumn::I64(adopt(vec![self.iteration; self.ids.len()])))
    }

    /// The next state of the active lanes (the body's result).
    pub(crate) fn step(&mut self, next: LVal) {
        self.state = next;
        self.iteration = self.iteration.wrapping_add(1);
    }

    /// Every lane's final state, in lane order.
    pub(crate) fn finish(mut self) -> Result<LVal> {
        if self.done.is_empty() {
            return Ok(self.state);
        }
        if self.active() {
            self.done.push((self.ids, self.state));
        }
        assemble(self.done, self.lanes)
    }
}

/// Packs every binding of `env` by `mask`.
pub(crate) fn pack_env(env: &mut Env, mask: &BitSlice) -> Result<()> {
    for (_, v) in env.iter_mut() {
        if let Some(v) = v {
            *v = v.pack(mask)?;
        }
    }
    Ok(())
}

impl Flattener<'_> {
    /// `loop(init, form, body)` (node `e`) over the lanes of `ctx`.
    pub(crate) fn lifted_loop(
        &self,
        e: &Expr,
        (init, form, body): (&Expr, &LoopForm, &Lambda),
        env: &mut Env,
        ctx: &Ctx,
    ) -> Result<LVal> {
        let init = self.eval(init, env, ctx)?;
        let counts = match form {
            LoopForm::For(n) => Some(self.eval(n, env, ctx)?),
            LoopForm::While(_) => None,
        };
        let mut lp = Looping::new(init, counts.as_ref(), ctx)?;
        drop(counts);
        let mut benv = self.move_env(&body.body, &body.params, env, |v| Ok(v.clone()))?;
        let mut cenv = match form {
            LoopForm::While(c) => self.move_env(&c.body, &c.params, env, |v| Ok(v.clone()))?,
            LoopForm::For(_) => Env::new(),
        };
        self.release(e, env);
        loop {
            let go = match (form, lp.counted()) {
                (_, Some(go)) => go,
                (LoopForm::While(c), None) => {
                    let r = self.apply_in(c, vec![lp.state().clone()], &cenv, lp.lanes())?;
                    r.col()?.bools()?.iter().collect()
                }
                (LoopForm::For(_), None) => unreachable!("a for loop has counts"),
            };
            if let Some(mask) = lp.settle(&go)? {
                pack_env(&mut benv, &mask)?;
                pack_env(&mut cenv, &mask)?;
            }
            if !lp.active() {
                break;
            }
            let mut args = vec![lp.state().clone()];
            if matches!(form, LoopForm::For(_)) {
                args.push(lp.index());
            }
            let next = self.apply_in(body, args, &benv, lp.lanes())?;
            lp.step(next);
        }
        lp.finish()
    }

    /// `l` applied to `args` in a context whose free variables are `env` (a copy each time:
    /// the body releases its bindings as it goes).
    pub(crate) fn apply_in(
        &self,
        l: &Lambda,
        args: Vec<LVal>,
        env: &Env,
        ctx: &Ctx,
    ) -> Result<LVal> {
        let mut inner = env.clone();
        inner.extend(
            l.params
                .iter()
                .map(|(n, _)| n.clone())
                .zip(args.into_iter().map(Some)),
        );
        self.eval(&l.body, &mut inner, ctx)
    }
}
