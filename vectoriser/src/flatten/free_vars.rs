//! The free variables of an expression (the variables it reads that it does not bind), in
//! order of first use: what a `map` replicates into its context, what an `if` packs for each
//! branch, and what a root that settles errors keeps while it runs.
//!
//! Cost: one walk of the expression (linear in its nodes, times the bound names in scope).

use crate::ir::{Expr, Lambda, ReduceOp};

/// Appends to `out` the variables `e` reads that are neither in `bound` nor in `out` yet.
pub(super) fn free_vars(e: &Expr, bound: &mut Vec<String>, out: &mut Vec<String>) {
    let lam = |l: &Lambda, bound: &mut Vec<String>, out: &mut Vec<String>| {
        let depth = bound.len();
        bound.extend(l.params.iter().map(|(n, _)| n.clone()));
        free_vars(&l.body, bound, out);
        bound.truncate(depth);
    };
    match e {
        Expr::Var(n) => {
            if !bound.contains(n) && !out.contains(n) {
                out.push(n.clone());
            }
        }
        Expr::Lit(_) => {}
        Expr::Let(n, v, b) => {
            free_vars(v, bound, out);
            bound.push(n.clone());
            free_vars(b, bound, out);
            bound.pop();
        }
        Expr::Map(f, arrays) => {
            for a in arrays {
                free_vars(a, bound, out);
            }
            lam(f, bound, out);
        }
        Expr::Reduce(op, z, a) | Expr::Scan(op, z, a) => {
            free_vars(z, bound, out);
            free_vars(a, bound, out);
            if let ReduceOp::Lambda(l) = op {
                lam(l, bound, out);
            }
        }
        Expr::Redomap(op, z, f, arrays) => {
            free_vars(z, bound, out);
            for a in arrays {
                free_vars(a, bound, out);
            }
            lam(f, bound, out);
            if let ReduceOp::Lambda(l) = op {
                lam(l, bound, out);
            }
        }
        Expr::Hist {
            bins,
            op,
            identity,
            indices,
            values,
        } => {
            for x in [bins, identity, indices, values] {
                free_vars(x, bound, out);
            }
            if let ReduceOp::Lambda(l) = op {
                lam(l, bound, out);
            }
        }
        Expr::Loop { init, form, body } => {
            free_vars(init, bound, out);
            match form {
                crate::ir::LoopForm::For(n) => free_vars(n, bound, out),
                crate::ir::LoopForm::While(c) => lam(c, bound, out),
            }
            lam(body, bound, out);
        }
        Expr::Filter(ps, a) => {
            free_vars(a, bound, out);
            for p in ps {
                lam(p, bound, out);
            }
        }
        Expr::Partition { key, array, .. } => {
            free_vars(array, bound, out);
            lam(key, bound, out);
        }
        Expr::Tuple(es) | Expr::ArrayLit(_, es) | Expr::Call(_, es) => {
            for x in es {
                free_vars(x, bound, out);
            }
        }
        Expr::Proj(a, _)
        | Expr::Unary(_, a)
        | Expr::Length(a)
        | Expr::Concat(a)
        | Expr::Sort(_, a) => {
            free_vars(a, bound, out);
        }
        Expr::Binary(_, a, b) | Expr::Index(a, b) | Expr::Replicate(a, b) | Expr::Append(a, b) => {
            free_vars(a, bound, out);
            free_vars(b, bound, out);
        }
        Expr::If(a, b, c)
        | Expr::Slice(a, b, c)
        | Expr::Scatter(a, b, c)
        | Expr::Ternary(_, a, b, c) => {
            free_vars(a, bound, out);
            free_vars(b, bound, out);
            free_vars(c, bound, out);
        }
        Expr::Iota { len, start, step } => {
            free_vars(len, bound, out);
            free_vars(start, bound, out);
            free_vars(step, bound, out);
        }
        Expr::Fused(f) => free_vars(&f.original, bound, out),
    }
}
