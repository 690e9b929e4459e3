//! Scatter fused with the progressions that generate its indices (`scatter-progressions`):
//!
//! ```text
//! let x = concat(map(|p..| lets.. in iota(len, start, step), arrays..)) in
//! let y = scatter(dest, x, replicate(length(x), value)) in ..
//! ```
//!
//! becomes `let y = scatter_progressions(dest, map(|p..| lets.. in (len, start, step), arrays..),
//! value)` ([`crate::ir::FusedForm::ScatterProgressions`]) when `x` has no other use: NESL's
//! sieve, `vec![true; n].scatter(composites, vec![false; composites.len()])` over the strided
//! ranges of the primes. The kernel writes each progression straight into the destination; the
//! index array (about `n ln ln n` elements for the sieve) is never built. Every write stores the
//! one `value`, so the order of the writes does not matter and the result is the original's
//! (last write wins) bit for bit.

use super::graph::{Chain, map_children, uses};
use super::rules::Fuser;
use crate::ir::{Expr, Function, Fused, FusedForm, Lambda, Program};
use std::sync::Arc;

impl Fuser {
    /// Fuses node `i` of the chain (a concat of mapped `iota`s) into the scatter that follows
    /// it, when that scatter is its only user; returns whether it did.
    pub(super) fn scatter_progressions(&mut self, c: &mut Chain, i: usize) -> bool {
        let (x, producer) = &c.binds[i];
        let Expr::Concat(mapped) = producer else {
            return false;
        };
        let Expr::Map(f, arrays) = &**mapped else {
            return false;
        };
        let Some(body) = progression_of(&f.body) else {
            return false;
        };
        let next = if i + 1 < c.binds.len() {
            &c.binds[i + 1].1
        } else {
            &c.result
        };
        let Expr::Scatter(dest, idx, values) = next else {
            return false;
        };
        let Expr::Replicate(count, value) = &**values else {
            return false;
        };
        let is_x = |e: &Expr| matches!(e, Expr::Var(n) if n == x);
        let counts_x = matches!(&**count, Expr::Length(a) if is_x(a));
        if !is_x(idx)
            || !counts_x
            || uses(dest, x) > 0
            || uses(value, x) > 0
            || c.uses_after(i, x) != 2
        {
            return false;
        }
        let form = FusedForm::ScatterProgressions {
            dest: dest.clone(),
            progressions: Expr::Map(
                Lambda {
                    params: f.params.clone(),
                    body: Arc::new(body),
                },
                arrays.clone(),
            ),
            value: value.clone(),
        };
        let original = Expr::Let(
            x.clone(),
            Arc::new(producer.clone()),
            Arc::new(next.clone()),
        );
        let fused = Expr::Fused(Arc::new(Fused { form, original }));
        if i + 1 < c.binds.len() {
            c.binds[i + 1].1 = fused;
        } else {
            c.result = fused;
        }
        c.binds.remove(i);
        self.applied.push("scatter-progressions");
        true
    }
}

/// `p` with only the rule `scatter-progressions` applied, wherever it matches: the fusion that
/// per-lane code (the sequential form `#[vectorise]` emits, which evaluates lane by lane in the
/// interpreter's order) takes from this pass. The other rules keep the lifted executor's order of
/// evaluation, not the interpreter's lane-by-lane order (`map-map` runs `g` on lane 0 before `f`
/// on lane 1), so a program with two failing lanes would report another error; this one
/// evaluates the progressions, the destination and the value in the original's order.
///
/// ```
/// use flatland_vectoriser::{fuse, programs};
/// let (p, _) = programs::primes();
/// let fused = fuse::per_lane(p.ir());
/// assert!(fused.to_string().contains("scatter_progressions"), "{fused}");
/// let (dot, _) = programs::dot();
/// assert_eq!(fuse::per_lane(dot.ir()), *dot.ir()); // no map-reduce here
/// ```
pub fn per_lane(p: &Program) -> Program {
    let mut fuser = Fuser::default();
    Program::new(
        p.functions
            .iter()
            .map(|f| Function {
                body: scatters(&mut fuser, &f.body),
                ..f.clone()
            })
            .collect(),
    )
}

/// `e` with `scatter-progressions` applied in every let chain, inner ones first.
fn scatters(fuser: &mut Fuser, e: &Expr) -> Expr {
    let e = map_children(e, &mut |c, _| scatters(fuser, c));
    if !matches!(e, Expr::Let(..)) {
        return e;
    }
    let mut c = Chain::of(&e);
    let mut i = 0;
    while i < c.binds.len() {
        if !fuser.scatter_progressions(&mut c, i) {
            i += 1;
        }
    }
    c.build()
}

/// `lets.. in (len, start, step)` for a lambda body `lets.. in iota(len, start, step)`.
fn progression_of(body: &Expr) -> Option<Expr> {
    match body {
        Expr::Let(n, v, b) => Some(Expr::Let(
            n.clone(),
            v.clone(),
            Arc::new(progression_of(b)?),
        )),
        Expr::Iota { len, start, step } => Some(Expr::Tuple(vec![
            (**len).clone(),
            (**start).clone(),
            (**step).clone(),
        ])),
        _ => None,
    }
}
