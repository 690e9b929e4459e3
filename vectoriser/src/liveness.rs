//! Last uses of variables in the lifted evaluator ([`crate::flatten`]), so that a binding is
//! released as soon as nothing after it reads it.
//!
//! Lifted recursion keeps every level's environment alive until the recursive call returns;
//! without releasing dead bindings, quicksort on sorted input (recursion as deep as the input is
//! long) holds every level's partition blocks at once: quadratic memory. With them released,
//! and the values still needed across the call compacted to the elements they reach
//! ([`compact`]), live memory is linear in the depth.
//!
//! The analysis runs once per program, over every function body: for each node, the variables
//! (or tuple components, for `t.i` uses) read by the node and by nothing evaluated after it in
//! its scope. A scope is a function body, a lambda body, or a branch of a lifted `if`: each runs
//! in an environment of its own. A node shared between several places of the tree (the dsl
//! shares handles) releases only what is dead after every one of them.

use crate::check::node_key;
use crate::error::Result;
use crate::ir::{Expr, Program, children};
use crate::lval::{LVal, LaneColumn, vsegd_of_segd};
use flatland_runtime::Error as RtError;
use flatland_segd::{PSeg, SSegd, Segd, VSegd};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// A read of a variable: the whole value, or component `i` of a tuple (`t.i`).
type Use = (String, Option<usize>);

/// A release: the whole binding (`None`), or all its tuple components but these.
pub(crate) type Kill = (String, Option<Vec<usize>>);

/// The releases after each node, and the nodes under which a user function is called.
#[derive(Default)]
pub(crate) struct Liveness {
    pub(crate) kills: HashMap<usize, Vec<Kill>>,
    pub(crate) calls: HashSet<usize>,
}

fn add(out: &mut Vec<Use>, u: Use) {
    if !out.contains(&u) {
        out.push(u);
    }
}

/// The free reads of `e`.
fn uses(e: &Expr, out: &mut Vec<Use>) {
    let scoped = |e: &Expr, bound: &[&str], out: &mut Vec<Use>| {
        let mut inner = Vec::new();
        uses(e, &mut inner);
        for u in inner {
            if !bound.contains(&u.0.as_str()) {
                add(out, u);
            }
        }
    };
    match e {
        Expr::Var(n) => add(out, (n.clone(), None)),
        Expr::Proj(t, i) if matches!(&**t, Expr::Var(_)) => {
            if let Expr::Var(n) = &**t {
                add(out, (n.clone(), Some(*i)));
            }
        }
        Expr::Let(n, v, b) => {
            uses(v, out);
            scoped(b, &[n.as_str()], out);
        }
        _ => {
            let (cs, ls) = children(e);
            for c in cs {
                uses(c, out);
            }
            for l in ls {
                let params: Vec<&str> = l.params.iter().map(|(n, _)| n.as_str()).collect();
                scoped(&l.body, &params, out);
            }
        }
    }
}

fn has_call(e: &Expr) -> bool {
    matches!(e, Expr::Call(..)) || {
        let (cs, ls) = children(e);
        cs.into_iter().any(has_call) || ls.into_iter().any(|l| has_call(&l.body))
    }
}

impl Liveness {
    /// The analysis of every function of `program`; `lifted_if` tells the `if` nodes whose
    /// branches run in environments of their own (those not evaluated as a `select`).
    pub(crate) fn of(program: &Program, lifted_if: &dyn Fn(&Expr) -> bool) -> Liveness {
        let mut live = Liveness::default();
        for f in &program.functions {
            live.walk(&f.body, &[], lifted_if);
        }
        live
    }

    /// Records the releases after `e` and under it, given the reads after `e` in its scope.
    fn walk(&mut self, e: &Expr, after: &[Use], lifted_if: &dyn Fn(&Expr) -> bool) {
        let mut own = Vec::new();
        uses(e, &mut own);
        self.record(e, kills(&own, after));
        if has_call(e) {
            self.calls.insert(node_key(e));
        }
        let union = |base: &[Use], more: &[&Expr]| {
            let mut l = base.to_vec();
            for x in more {
                uses(x, &mut l);
            }
            l
        };
        match e {
            Expr::Proj(t, _) if matches!(&**t, Expr::Var(_)) => {
                // Read as `t.i`: the variable node itself releases nothing here.
                self.record(t, Vec::new());
            }
            Expr::Let(n, v, b) => {
                let mut in_b: Vec<Use> = after.iter().filter(|u| &u.0 != n).cloned().collect();
                self.walk(b, &in_b, lifted_if);
                let mut rest = Vec::new();
                uses(b, &mut rest);
                for u in rest {
                    if &u.0 != n {
                        add(&mut in_b, u);
                    }
                }
                for u in after {
                    add(&mut in_b, u.clone());
                }
                self.walk(v, &in_b, lifted_if);
            }
            Expr::If(c, a, b) if lifted_if(e) => {
                self.walk(c, &union(after, &[a, b]), lifted_if);
                self.walk(a, &[], lifted_if);
                self.walk(b, &[], lifted_if);
            }
            _ => {
                let (cs, ls) = children(e);
                let mut base = after.to_vec();
                for l in &ls {
                    let params: Vec<&str> = l.params.iter().map(|(n, _)| n.as_str()).collect();
                    let mut inner = Vec::new();
                    uses(&l.body, &mut inner);
                    for u in inner {
                        if !params.contains(&u.0.as_str()) {
                            add(&mut base, u);
                        }
                    }
                }
                for (i, c) in cs.iter().enumerate() {
                    self.walk(c, &union(&base, &cs[i + 1..]), lifted_if);
                }
                for l in ls {
                    self.walk(&l.body, &[], lifted_if);
                }
            }
        }
    }

    /// Keeps, for a node reached from several places, only the releases valid at all of them.
    fn record(&mut self, e: &Expr, new: Vec<Kill>) {
        let key = node_key(e);
        let Some(old) = self.kills.get_mut(&key) else {
            self.kills.insert(key, new);
            return;
        };
        let merged = old
            .iter()
            .filter_map(|(n, keep)| {
                let (_, other) = new.iter().find(|(m, _)| m == n)?;
                Some((
                    n.clone(),
                    match (keep, other) {
                        (None, None) => None,
                        (Some(k), None) | (None, Some(k)) => Some(k.clone()),
                        (Some(a), Some(b)) => {
                            let mut k = a.clone();
                            k.extend(b.iter().filter(|i| !a.contains(i)));
                            Some(k)
                        }
                    },
                ))
            })
            .collect();
        *old = merged;
    }
}

/// The releases of the variables read in `own` that nothing in `after` reads.
fn kills(own: &[Use], after: &[Use]) -> Vec<Kill> {
    let mut out: Vec<Kill> = Vec::new();
    for (n, _) in own {
        if out.iter().any(|(m, _)| m == n) || after.contains(&(n.clone(), None)) {
            continue;
        }
        let keep: Vec<usize> = after
            .iter()
            .filter(|(m, _)| m == n)
            .filter_map(|(_, c)| *c)
            .collect();
        out.push((n.clone(), (!keep.is_empty()).then_some(keep)));
    }
    out
}

/// A value of the same shape and lanes whose arrays are all empty (a released tuple component).
pub(crate) fn hollow(v: &LVal) -> LVal {
    match v {
        LVal::Scalar(_) => v.clone(),
        LVal::Tuple(vs) => LVal::Tuple(vs.iter().map(hollow).collect()),
        LVal::Array(d, e) => LVal::Array(
            vsegd_of_segd(&Segd::regular(d.len(), 0)),
            Arc::new(no_lanes(e)),
        ),
    }
}

fn no_lanes(v: &LVal) -> LVal {
    match v {
        LVal::Scalar(c) => LVal::Scalar(LaneColumn::empty(c.ty())),
        LVal::Tuple(vs) => LVal::Tuple(vs.iter().map(no_lanes).collect()),
        LVal::Array(_, e) => {
            LVal::Array(vsegd_of_segd(&Segd::regular(0, 0)), Arc::new(no_lanes(e)))
        }
    }
}

/// `v` with every array whose reachable physical segments cover less than half of its data block copied
/// to a block of just those segments (the same values; the rest of the block can be freed);
/// an array whose lanes reach less than half the block in all is copied lane by lane (in time
/// proportional to its lanes). Copies at most half of the block it leaves.
pub(crate) fn compact(v: &LVal) -> Result<LVal> {
    Ok(match v {
        LVal::Scalar(_) => v.clone(),
        LVal::Tuple(vs) => LVal::Tuple(vs.iter().map(compact).collect::<Result<_>>()?),
        LVal::Array(d, e) => {
            // Lanes that reach less than half the block in all (a few lanes packed out of
            // many, as an `if`'s base case): their elements copied in lane order, in time
            // proportional to those lanes, not to the block's physical segments.
            if let Some(reached) = d.virtual_elements_usize()
                && reached.saturating_mul(2) < e.lanes()
            {
                let (segd, plan) = d.demote().map_err(RtError::from)?;
                return Ok(LVal::Array(
                    vsegd_of_segd(&segd),
                    Arc::new(compact(&e.ranges(&plan)?)?),
                ));
            }
            // The physical segments no lane names (packed or gathered away) are dropped first.
            let culled;
            let d = if d.should_cull() {
                culled = d.cull().vsegd;
                &culled
            } else {
                d
            };
            let reached = d.physical_elements();
            if reached.saturating_mul(2) >= e.lanes() {
                return Ok(v.clone());
            }
            let ss = d.ssegd();
            let plan: Vec<PSeg> = (0..ss.len()).map(|i| ss.pseg(i)).collect();
            let elems = compact(&e.ranges(&plan)?)?;
            let segd = ss.segd();
            let ssegd = SSegd::try_in_block(
                segd.starts().into_owned(),
                segd.lengths().into_owned(),
                reached,
            )
            .map_err(RtError::from)?;
            let d = if d.is_manifest() {
                VSegd::manifest(ssegd)
            } else {
                VSegd::try_new(d.vsegids().into_owned(), ssegd).map_err(RtError::from)?
            };
            LVal::Array(d, Arc::new(elems))
        }
    })
}
