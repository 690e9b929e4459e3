//! The dependency graph of a function body's let-bound operations (Futhark's `GraphRep`): a
//! chain of bindings `let x_i = e_i in ...` ending in a result, with the uses of each binding
//! counted over the rest of the chain. The fusion rules ([`super::rules`]) ask it who consumes
//! a producer and whether two nodes are independent.

use crate::ir::{Expr, Lambda, ReduceOp};
use std::sync::Arc;

/// A let chain: bindings in order, then the result.
#[derive(Clone, Debug)]
pub(crate) struct Chain {
    /// `(name, value)` of each binding, in evaluation order.
    pub(crate) binds: Vec<(String, Expr)>,
    /// The chain's result.
    pub(crate) result: Expr,
}

impl Chain {
    /// The chain of nested `let`s at the head of `e`.
    pub(crate) fn of(e: &Expr) -> Chain {
        let mut binds = Vec::new();
        let mut cur = e;
        while let Expr::Let(n, v, b) = cur {
            binds.push((n.clone(), (**v).clone()));
            cur = b;
        }
        Chain {
            binds,
            result: cur.clone(),
        }
    }

    /// The chain as nested `let`s again.
    pub(crate) fn build(self) -> Expr {
        self.binds
            .into_iter()
            .rev()
            .fold(self.result, |body, (n, v)| {
                Expr::Let(n, Arc::new(v), Arc::new(body))
            })
    }

    /// Occurrences of `name` (free) in the bindings after node `i` and the result; counting
    /// stops where a later binding shadows `name`.
    pub(crate) fn uses_after(&self, i: usize, name: &str) -> usize {
        let mut n = 0;
        for (b, v) in &self.binds[i + 1..] {
            n += uses(v, name);
            if b == name {
                return n;
            }
        }
        n + uses(&self.result, name)
    }

    /// Whether node `j` (a later node) depends on node `i` directly.
    pub(crate) fn depends(&self, j: usize, i: usize) -> bool {
        uses(&self.binds[j].1, &self.binds[i].0) > 0
    }
}

/// Free occurrences of `name` in `e`.
pub(crate) fn uses(e: &Expr, name: &str) -> usize {
    let lam = |l: &Lambda| {
        if l.params.iter().any(|(p, _)| p == name) {
            0
        } else {
            uses(&l.body, name)
        }
    };
    let op = |o: &ReduceOp| match o {
        ReduceOp::Lambda(l) => lam(l),
        _ => 0,
    };
    let all = |es: &[Expr]| es.iter().map(|x| uses(x, name)).sum::<usize>();
    match e {
        Expr::Var(n) => usize::from(n == name),
        Expr::Lit(_) => 0,
        Expr::Let(n, v, b) => uses(v, name) + if n == name { 0 } else { uses(b, name) },
        Expr::Map(f, arrays) => all(arrays) + lam(f),
        Expr::Reduce(o, z, a) | Expr::Scan(o, z, a) => uses(z, name) + uses(a, name) + op(o),
        Expr::Redomap(o, z, f, arrays) => uses(z, name) + all(arrays) + lam(f) + op(o),
        Expr::Filter(ps, a) => uses(a, name) + ps.iter().map(lam).sum::<usize>(),
        Expr::Partition { key, array, .. } => uses(array, name) + lam(key),
        Expr::Tuple(es) | Expr::ArrayLit(_, es) | Expr::Call(_, es) => all(es),
        Expr::Proj(a, _) | Expr::Unary(_, a) | Expr::Length(a) | Expr::Concat(a) => uses(a, name),
        Expr::Binary(_, a, b) | Expr::Index(a, b) | Expr::Replicate(a, b) | Expr::Append(a, b) => {
            uses(a, name) + uses(b, name)
        }
        Expr::If(a, b, c) | Expr::Slice(a, b, c) | Expr::Scatter(a, b, c) => {
            uses(a, name) + uses(b, name) + uses(c, name)
        }
        Expr::Iota { len, start, step } => uses(len, name) + uses(start, name) + uses(step, name),
    }
}

/// Whether evaluating `e` can neither fail nor do bulk work (constants, variables, tuples and
/// projections of them): such expressions may be moved across others without changing which
/// error a program reports first.
pub(crate) fn inert(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) | Expr::Var(_) => true,
        Expr::Proj(a, _) => inert(a),
        Expr::Tuple(es) => es.iter().all(inert),
        _ => false,
    }
}
