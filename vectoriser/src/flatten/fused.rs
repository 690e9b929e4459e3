//! The executor's side of fusion ([`crate::fuse`]): a fused form ([`crate::ir::Expr::Fused`])
//! runs as its single-pass kernel ([`crate::kernels`]) where the kernel accepts the values,
//! else as the expression it replaced.

use super::{Ctx, Flattener};
use crate::env::Env;
use crate::error::Result;
use crate::ir::{Expr, Fused, FusedForm, children};
use crate::kernels;
use crate::lval::LVal;

impl Flattener<'_> {
    /// A fused form: its kernel when fusion is on and the kernel accepts it, else the original.
    pub(super) fn fused(&self, f: &Fused, env: &mut Env, ctx: &Ctx) -> Result<LVal> {
        if let Some(r) = self.fused_kernel(f, env, ctx) {
            self.release_unevaluated(&f.original, env);
            return Ok(r);
        }
        self.eval(&f.original, env, ctx)
    }

    /// A fused form's single-pass kernel on the variables of `env`, when fusion is on and the
    /// kernel accepts them; `None` leaves it to the expression it replaced.
    fn fused_kernel(&self, f: &Fused, env: &Env, ctx: &Ctx) -> Option<LVal> {
        if !self.fuse {
            return None;
        }
        let (kind, r) = match &f.form {
            FusedForm::Scanomap {
                op,
                identity,
                f,
                arrays,
            } => (
                "scanomap",
                kernels::scanomap(op, identity, f, arrays, env, &self.kernels),
            ),
            FusedForm::Classes(c) => ("classes", kernels::classes(c, env, &self.kernels)),
            FusedForm::ScatterProgressions {
                dest,
                progressions,
                value,
            } => (
                "scatter-progressions",
                self.scatter_progressions(dest, progressions, value, env, ctx),
            ),
        };
        self.trace.record(kind, r.is_some());
        r
    }

    /// Releases what evaluating `original` would have released (the bindings whose last use
    /// is one of its nodes), when the kernel ran instead: only variables free in `original`,
    /// at the nodes of its own scope (not inside its lambdas, whose environments are others).
    pub(super) fn release_unevaluated(&self, original: &Expr, env: &mut Env) {
        let mut nodes = Vec::new();
        scope_nodes(original, &mut nodes);
        let bound: Vec<&str> = nodes
            .iter()
            .filter_map(|e| match e {
                Expr::Let(n, ..) => Some(n.as_str()),
                _ => None,
            })
            .collect();
        let mut own: Env = Vec::new();
        for n in self.free_of(original, &[]).iter() {
            if bound.contains(&n.as_str()) {
                continue;
            }
            if let Some((_, slot)) = env.iter_mut().rev().find(|(m, _)| m == n) {
                own.push((n.clone(), slot.take()));
            }
        }
        for node in nodes {
            self.release(node, &mut own);
        }
        for (n, v) in own {
            if let Some((_, slot)) = env.iter_mut().rev().find(|(m, _)| *m == n) {
                *slot = v;
            }
        }
    }
}

/// The nodes of `e` evaluated in `e`'s own environment: every operand, not lambda bodies nor
/// the branches of an `if` (a lifted branch runs in an environment of its own).
fn scope_nodes<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    out.push(e);
    let own = match e {
        Expr::If(c, ..) => vec![&**c],
        _ => children(e).0,
    };
    for x in own {
        scope_nodes(x, out);
    }
}
