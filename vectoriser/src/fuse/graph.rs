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
        Expr::Loop { init, form, body } => {
            uses(init, name)
                + lam(body)
                + match form {
                    crate::ir::LoopForm::For(n) => uses(n, name),
                    crate::ir::LoopForm::While(c) => lam(c),
                }
        }
        Expr::Hist {
            bins,
            op: o,
            identity,
            indices,
            values,
        } => {
            uses(bins, name)
                + uses(identity, name)
                + uses(indices, name)
                + uses(values, name)
                + op(o)
        }
        Expr::Partition { key, array, .. } => uses(array, name) + lam(key),
        Expr::Tuple(es) | Expr::ArrayLit(_, es) | Expr::Call(_, es) => all(es),
        Expr::Proj(a, _)
        | Expr::Unary(_, a)
        | Expr::Length(a)
        | Expr::Concat(a)
        | Expr::Sort(_, a) => uses(a, name),
        Expr::Binary(_, a, b) | Expr::Index(a, b) | Expr::Replicate(a, b) | Expr::Append(a, b) => {
            uses(a, name) + uses(b, name)
        }
        Expr::If(a, b, c)
        | Expr::Slice(a, b, c)
        | Expr::Scatter(a, b, c)
        | Expr::Ternary(_, a, b, c) => uses(a, name) + uses(b, name) + uses(c, name),
        Expr::Iota { len, start, step } => uses(len, name) + uses(start, name) + uses(step, name),
        Expr::Fused(f) => uses(&f.original, name),
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

/// `e` with `f` applied to each direct child: expressions, and the bodies of its lambdas
/// (reduction operators included). `f` also gets the names the child binds for its evaluation
/// (a `let`'s name for its body, a lambda's parameters). A fused form is a leaf.
pub(crate) fn map_children(e: &Expr, f: &mut dyn FnMut(&Expr, &[&str]) -> Expr) -> Expr {
    let mut x = |c: &Arc<Expr>| Arc::new(f(c, &[]));
    let lam = |l: &Lambda, f: &mut dyn FnMut(&Expr, &[&str]) -> Expr| {
        let ps: Vec<&str> = l.params.iter().map(|(n, _)| n.as_str()).collect();
        Lambda {
            params: l.params.clone(),
            body: Arc::new(f(&l.body, &ps)),
        }
    };
    match e {
        Expr::Var(_) | Expr::Lit(_) | Expr::Fused(_) => e.clone(),
        Expr::Let(n, v, b) => {
            let v = x(v);
            Expr::Let(n.clone(), v, Arc::new(f(b, &[n.as_str()])))
        }
        Expr::Tuple(es) => Expr::Tuple(es.iter().map(|c| f(c, &[])).collect()),
        Expr::ArrayLit(t, es) => Expr::ArrayLit(t.clone(), es.iter().map(|c| f(c, &[])).collect()),
        Expr::Call(n, es) => Expr::Call(n.clone(), es.iter().map(|c| f(c, &[])).collect()),
        Expr::Proj(a, i) => Expr::Proj(x(a), *i),
        Expr::Unary(o, a) => Expr::Unary(*o, x(a)),
        Expr::Length(a) => Expr::Length(x(a)),
        Expr::Concat(a) => Expr::Concat(x(a)),
        Expr::Sort(o, a) => Expr::Sort(*o, x(a)),
        Expr::Binary(o, a, b) => Expr::Binary(*o, x(a), x(b)),
        Expr::Ternary(o, a, b, c) => Expr::Ternary(*o, x(a), x(b), x(c)),
        Expr::Index(a, b) => Expr::Index(x(a), x(b)),
        Expr::Replicate(a, b) => Expr::Replicate(x(a), x(b)),
        Expr::Append(a, b) => Expr::Append(x(a), x(b)),
        Expr::If(a, b, c) => Expr::If(x(a), x(b), x(c)),
        Expr::Slice(a, b, c) => Expr::Slice(x(a), x(b), x(c)),
        Expr::Scatter(a, b, c) => Expr::Scatter(x(a), x(b), x(c)),
        Expr::Iota { len, start, step } => Expr::Iota {
            len: x(len),
            start: x(start),
            step: x(step),
        },
        Expr::Map(l, xs) => {
            let xs = xs.iter().map(|c| f(c, &[])).collect();
            Expr::Map(lam(l, f), xs)
        }
        Expr::Reduce(o, z, a) | Expr::Scan(o, z, a) => {
            let (z, a) = (x(z), x(a));
            let o = match o {
                ReduceOp::Lambda(l) => ReduceOp::Lambda(lam(l, f)),
                o => o.clone(),
            };
            if matches!(e, Expr::Reduce(..)) {
                Expr::Reduce(o, z, a)
            } else {
                Expr::Scan(o, z, a)
            }
        }
        Expr::Redomap(o, z, l, xs) => {
            let z = x(z);
            let xs = xs.iter().map(|c| f(c, &[])).collect();
            let o = match o {
                ReduceOp::Lambda(l) => ReduceOp::Lambda(lam(l, f)),
                o => o.clone(),
            };
            Expr::Redomap(o, z, lam(l, f), xs)
        }
        Expr::Filter(ps, a) => {
            let a = x(a);
            Expr::Filter(ps.iter().map(|p| lam(p, f)).collect(), a)
        }
        Expr::Loop { init, form, body } => {
            let init = x(init);
            let form = match form {
                crate::ir::LoopForm::For(n) => crate::ir::LoopForm::For(x(n)),
                crate::ir::LoopForm::While(c) => crate::ir::LoopForm::While(lam(c, f)),
            };
            Expr::Loop {
                init,
                form,
                body: lam(body, f),
            }
        }
        Expr::Hist {
            bins,
            op,
            identity,
            indices,
            values,
        } => {
            let (bins, identity, indices, values) = (x(bins), x(identity), x(indices), x(values));
            let op = match op {
                ReduceOp::Lambda(l) => ReduceOp::Lambda(lam(l, f)),
                o => o.clone(),
            };
            Expr::Hist {
                bins,
                op,
                identity,
                indices,
                values,
            }
        }
        Expr::Partition {
            classes,
            interest,
            key,
            array,
        } => {
            let array = x(array);
            Expr::Partition {
                classes: *classes,
                interest: interest.clone(),
                key: lam(key, f),
                array,
            }
        }
    }
}

/// The projections `name.k` of the free `name` in `e` (their `k`s), and whether `name` occurs
/// free anywhere else.
pub(crate) fn projections(e: &Expr, name: &str, ks: &mut Vec<usize>) -> bool {
    let mut other = false;
    match e {
        Expr::Proj(a, k) if matches!(&**a, Expr::Var(n) if n == name) => ks.push(*k),
        Expr::Var(n) => other = n == name,
        Expr::Fused(f) => other = uses(&f.original, name) > 0,
        _ => {
            map_children(e, &mut |c, bound| {
                if !bound.contains(&name) {
                    other |= projections(c, name, ks);
                }
                Expr::Tuple(vec![])
            });
        }
    }
    other
}

/// `e` with the free projections `name.k` replaced by `Var(to[k])` where given.
pub(crate) fn subst_projections(
    e: &Expr,
    name: &str,
    to: &std::collections::HashMap<usize, String>,
) -> Expr {
    match e {
        Expr::Proj(a, k) if matches!(&**a, Expr::Var(n) if n == name) => to
            .get(k)
            .map_or_else(|| e.clone(), |v| Expr::Var(v.clone())),
        _ => map_children(e, &mut |c, bound| {
            if bound.contains(&name) {
                c.clone()
            } else {
                subst_projections(c, name, to)
            }
        }),
    }
}

/// Scalar operators in `e` (lambda bodies included): the per-element work of a fused body.
pub(crate) fn ops(e: &Expr) -> usize {
    let own = usize::from(matches!(
        e,
        Expr::Unary(..) | Expr::Binary(..) | Expr::Ternary(..) | Expr::If(..) | Expr::Index(..)
    ));
    let mut n = own;
    map_children(e, &mut |c, _| {
        n += ops(c);
        Expr::Tuple(vec![])
    });
    n
}

/// Whether `e` contains a fused form.
pub(crate) fn has_fused(e: &Expr) -> bool {
    let mut found = matches!(e, Expr::Fused(_));
    if !found {
        map_children(e, &mut |c, _| {
            found |= has_fused(c);
            Expr::Tuple(vec![])
        });
    }
    found
}
