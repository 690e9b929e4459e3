//! The fusion rules (Futhark's `TryFusion`), applied bottom-up over the IR and over the
//! dependency graph of each let chain ([`super::graph`]). Every rule keeps the order in which
//! the unfused program evaluates its bulk steps under the lifted executor (so results, floats
//! and errors included, are the same bits) and keeps each reduction's operand sequence, so the
//! canonical association folds the same values.
//!
//! - `map-map`: `map(g, map(f, xs..))` → `map(|p..| let y = f(p..) in g(y), xs..)`;
//! - `map-reduce` (redomap): `reduce(op, z, map(f, xs..))` → `redomap(op, z, f, xs..)`;
//! - `map-redomap`: `redomap(op, z, g, map(f, xs..))` → `redomap(op, z, g ∘ f, xs..)`;
//! - vertical through a let: `let y = map(..) in C[y]` with `C` the next node and `y`'s only
//!   user, then the rules above;
//! - horizontal: reductions/redomaps with built-in operators and constant identities over one
//!   array, side by side in a tuple or in adjacent independent lets, become one tuple-valued
//!   redomap whose operator works component-wise.

use super::graph::{Chain, inert, uses};
use crate::ir::{BinaryOp, Expr, Fused, FusedForm, Lambda, ReduceOp};
use std::sync::Arc;

/// Most reductions fused horizontally into one redomap.
pub(crate) const MAX_HORIZONTAL: usize = 8;

/// The rewriting state: fresh names and the rules applied (by name, in order).
#[derive(Default)]
pub(crate) struct Fuser {
    fresh: usize,
    pub(crate) applied: Vec<&'static str>,
    /// The cost model's predictions behind the decisions taken (see [`super::classes`]).
    pub(crate) explained: Vec<String>,
    /// How size- and machine-dependent fusions are decided.
    pub(crate) decide: super::Decide,
}

fn arc(e: Expr) -> Arc<Expr> {
    Arc::new(e)
}

impl Fuser {
    pub(super) fn fresh(&mut self, base: &str) -> String {
        self.fresh += 1;
        format!("{base}'{}", self.fresh)
    }

    fn lambda(&mut self, l: &Lambda) -> Lambda {
        Lambda {
            params: l.params.clone(),
            body: arc(self.expr(&l.body)),
        }
    }

    fn op(&mut self, o: &ReduceOp) -> ReduceOp {
        match o {
            ReduceOp::Lambda(l) => ReduceOp::Lambda(self.lambda(l)),
            other => other.clone(),
        }
    }

    /// `e` with every rule applied bottom-up.
    pub(crate) fn expr(&mut self, e: &Expr) -> Expr {
        if let Expr::Let(..) = e {
            return self.chain(e);
        }
        let r = |s: &mut Self, x: &Arc<Expr>| arc(s.expr(x));
        let all = |s: &mut Self, xs: &[Expr]| xs.iter().map(|x| s.expr(x)).collect::<Vec<_>>();
        let rebuilt = match e {
            Expr::Var(_) | Expr::Lit(_) | Expr::Fused(_) => e.clone(),
            Expr::Let(..) => unreachable!("handled above"),
            Expr::Tuple(es) => Expr::Tuple(all(self, es)),
            Expr::ArrayLit(t, es) => Expr::ArrayLit(t.clone(), all(self, es)),
            Expr::Call(n, es) => Expr::Call(n.clone(), all(self, es)),
            Expr::Proj(a, i) => Expr::Proj(r(self, a), *i),
            Expr::Unary(o, a) => Expr::Unary(*o, r(self, a)),
            Expr::Length(a) => Expr::Length(r(self, a)),
            Expr::Concat(a) => Expr::Concat(r(self, a)),
            Expr::Sort(o, a) => Expr::Sort(*o, r(self, a)),
            Expr::Binary(o, a, b) => Expr::Binary(*o, r(self, a), r(self, b)),
            Expr::Ternary(o, a, b, c) => Expr::Ternary(*o, r(self, a), r(self, b), r(self, c)),
            Expr::Index(a, b) => Expr::Index(r(self, a), r(self, b)),
            Expr::Replicate(a, b) => Expr::Replicate(r(self, a), r(self, b)),
            Expr::Append(a, b) => Expr::Append(r(self, a), r(self, b)),
            Expr::If(a, b, c) => Expr::If(r(self, a), r(self, b), r(self, c)),
            Expr::Slice(a, b, c) => Expr::Slice(r(self, a), r(self, b), r(self, c)),
            Expr::Scatter(a, b, c) => Expr::Scatter(r(self, a), r(self, b), r(self, c)),
            Expr::Iota { len, start, step } => Expr::Iota {
                len: r(self, len),
                start: r(self, start),
                step: r(self, step),
            },
            Expr::Map(f, xs) => Expr::Map(self.lambda(f), all(self, xs)),
            Expr::Reduce(o, z, a) => Expr::Reduce(self.op(o), r(self, z), r(self, a)),
            Expr::Scan(o, z, a) => Expr::Scan(self.op(o), r(self, z), r(self, a)),
            Expr::Redomap(o, z, f, xs) => {
                Expr::Redomap(self.op(o), r(self, z), self.lambda(f), all(self, xs))
            }
            Expr::Filter(ps, a) => {
                Expr::Filter(ps.iter().map(|p| self.lambda(p)).collect(), r(self, a))
            }
            Expr::Loop { init, form, body } => Expr::Loop {
                init: r(self, init),
                form: match form {
                    crate::ir::LoopForm::For(n) => crate::ir::LoopForm::For(r(self, n)),
                    crate::ir::LoopForm::While(c) => crate::ir::LoopForm::While(self.lambda(c)),
                },
                body: self.lambda(body),
            },
            Expr::Hist {
                bins,
                op,
                identity,
                indices,
                values,
            } => Expr::Hist {
                op: self.op(op),
                bins: r(self, bins),
                identity: r(self, identity),
                indices: r(self, indices),
                values: r(self, values),
            },
            Expr::Partition {
                classes,
                interest,
                key,
                array,
            } => Expr::Partition {
                classes: *classes,
                interest: interest.clone(),
                key: self.lambda(key),
                array: r(self, array),
            },
        };
        self.local(rebuilt)
    }

    /// The vertical rules at one node whose children are already fused. A producer under lets
    /// (`C(let x = a in map(..))`) is reached by floating the lets out of the consumer first,
    /// when nothing else of the consumer mentions their names.
    fn local(&mut self, e: Expr) -> Expr {
        if let Some((binds, inner)) = float_lets(&e) {
            let fused = self.local(inner);
            return Chain {
                binds,
                result: fused,
            }
            .build();
        }
        match &e {
            Expr::Map(g, ys) if ys.len() == 1 && g.params.len() == 1 => {
                if let Expr::Map(f, xs) = &ys[0] {
                    self.applied.push("map-map");
                    let h = self.compose(g, f);
                    return Expr::Map(h, xs.clone());
                }
            }
            Expr::Reduce(op, z, a) if inert(z) => {
                if let Expr::Map(f, xs) = &**a {
                    self.applied.push("map-reduce");
                    let f = self.rename(f);
                    return Expr::Redomap(op.clone(), z.clone(), f, xs.clone());
                }
                if let Some(fused) = self.class_reduce(&e, a) {
                    return fused;
                }
            }
            Expr::Scan(op, z, a) if inert(z) && op.bin_op().is_some() => {
                if let Expr::Map(f, xs) = &**a {
                    self.applied.push("map-scan");
                    return self.scanomap(op, z, f, xs);
                }
            }
            Expr::Redomap(op, z, g, ys) if inert(z) && ys.len() == 1 && g.params.len() == 1 => {
                if let Expr::Map(f, xs) = &ys[0] {
                    self.applied.push("map-redomap");
                    let h = self.compose(g, f);
                    return Expr::Redomap(op.clone(), z.clone(), h, xs.clone());
                }
                if let Some(fused) = self.class_reduce(&e, &ys[0]) {
                    return fused;
                }
            }

            Expr::Tuple(es) => {
                if let Some(fused) = self.horizontal_tuple(es) {
                    return fused;
                }
            }
            _ => {}
        }
        e
    }

    /// `scan(op, z, map(f, xs..))` as a scanomap ([`crate::ir::FusedForm::Scanomap`]) over
    /// variables: arrays that are not variables are bound first (in order, after the inert
    /// identity, as the scan evaluates them).
    fn scanomap(&mut self, op: &ReduceOp, z: &Arc<Expr>, f: &Lambda, xs: &[Expr]) -> Expr {
        let mut binds = Vec::new();
        let names: Vec<String> = xs
            .iter()
            .map(|x| match x {
                Expr::Var(n) => n.clone(),
                other => {
                    let n = self.fresh("xs");
                    binds.push((n.clone(), other.clone()));
                    n
                }
            })
            .collect();
        let vars = names.iter().map(|n| Expr::var(n)).collect();
        let original = Expr::Scan(op.clone(), z.clone(), arc(Expr::Map(f.clone(), vars)));
        let fused = Expr::Fused(Arc::new(Fused {
            form: FusedForm::Scanomap {
                op: op.clone(),
                identity: (**z).clone(),
                f: f.clone(),
                arrays: names,
            },
            original,
        }));
        Chain {
            binds,
            result: fused,
        }
        .build()
    }

    /// `reduce(op, z, partition(..).k)` (or a redomap of it) as `let p = partition(..) in
    /// reduce(op, z, p.k)`, fused by the partition-reduce rule ([`super::classes`]) if it
    /// applies.
    fn class_reduce(&mut self, e: &Expr, a: &Expr) -> Option<Expr> {
        let Expr::Proj(part, k) = a else { return None };
        if !matches!(&**part, Expr::Filter(..) | Expr::Partition { .. }) {
            return None;
        }
        let (p, r) = (self.fresh("part"), self.fresh("r"));
        let proj = Expr::proj(Expr::var(&p), *k);
        let consumer = match e {
            Expr::Reduce(op, z, _) => Expr::Reduce(op.clone(), z.clone(), arc(proj)),
            Expr::Redomap(op, z, f, _) => {
                Expr::Redomap(op.clone(), z.clone(), f.clone(), vec![proj])
            }
            _ => return None,
        };
        let mut c = Chain {
            binds: vec![(p, (**part).clone()), (r.clone(), consumer)],
            result: Expr::var(&r),
        };
        self.classes(&mut c, 0).then(|| c.build())
    }

    /// `|p..| let f.params = p.. in f.body` with fresh `p..`: the same function, whose
    /// parameter names mark it as the body of a fused map ([`from_map`]).
    fn rename(&mut self, f: &Lambda) -> Lambda {
        let fresh: Vec<String> = f.params.iter().map(|(n, _)| self.fresh(n)).collect();
        let body = f
            .params
            .iter()
            .zip(&fresh)
            .rev()
            .fold((*f.body).clone(), |body, ((n, _), p)| {
                Expr::Let(n.clone(), arc(Expr::Var(p.clone())), arc(body))
            });
        Lambda {
            params: fresh
                .into_iter()
                .zip(&f.params)
                .map(|(p, (_, t))| (p, t.clone()))
                .collect(),
            body: arc(body),
        }
    }

    /// `|p..| let y = (let f.params = p.. in f.body) in g.body` with fresh `p..`.
    fn compose(&mut self, g: &Lambda, f: &Lambda) -> Lambda {
        let f = self.rename(f);
        let body = Expr::Let(g.params[0].0.clone(), f.body.clone(), g.body.clone());
        Lambda {
            params: f.params,
            body: arc(body),
        }
    }

    /// A let chain: its nodes fused first, then producer→consumer pairs, then horizontal runs.
    fn chain(&mut self, e: &Expr) -> Expr {
        let mut c = Chain::of(e);
        for (_, v) in &mut c.binds {
            *v = self.expr(v);
        }
        c.result = self.expr(&c.result);
        let mut i = 0;
        while i < c.binds.len() {
            if self.vertical(&mut c, i) {
                continue;
            }
            i += 1;
        }
        let mut i = 0;
        while i < c.binds.len() {
            if !self.scatter_progressions(&mut c, i) {
                i += 1;
            }
        }
        self.sibling_filters(&mut c);
        let mut i = 0;
        while i < c.binds.len() {
            self.classes(&mut c, i);
            i += 1;
        }
        let mut i = 0;
        while i < c.binds.len() {
            self.horizontal_lets(&mut c, i);
            i += 1;
        }
        c.build()
    }

    /// Fuses node `i` (a map) into the next node when that is its only user.
    fn vertical(&mut self, c: &mut Chain, i: usize) -> bool {
        let (name, producer) = c.binds[i].clone();
        if !matches!(producer, Expr::Map(..)) || c.uses_after(i, &name) != 1 {
            return false;
        }
        let next = if i + 1 < c.binds.len() {
            &c.binds[i + 1].1
        } else {
            &c.result
        };
        let is_y = |x: &Expr| matches!(x, Expr::Var(n) if *n == name);
        let inlined = match next {
            Expr::Reduce(op, z, a) if inert(z) && is_y(a) && uses(z, &name) == 0 => {
                Expr::Reduce(op.clone(), z.clone(), arc(producer))
            }
            Expr::Scan(op, z, a)
                if inert(z) && op.bin_op().is_some() && is_y(a) && uses(z, &name) == 0 =>
            {
                Expr::Scan(op.clone(), z.clone(), arc(producer))
            }
            Expr::Redomap(op, z, g, ys)
                if inert(z) && ys.len() == 1 && is_y(&ys[0]) && uses(z, &name) == 0 =>
            {
                Expr::Redomap(op.clone(), z.clone(), g.clone(), vec![producer])
            }
            Expr::Map(g, ys) if ys.len() == 1 && is_y(&ys[0]) => {
                Expr::Map(g.clone(), vec![producer])
            }
            _ => return false,
        };
        let fused = self.local(inlined);
        if i + 1 < c.binds.len() {
            c.binds[i + 1].1 = fused;
        } else {
            c.result = fused;
        }
        c.binds.remove(i);
        true
    }

    /// Adjacent independent lets from node `i` that reduce one array become one redomap.
    fn horizontal_lets(&mut self, c: &mut Chain, i: usize) {
        let Some((xs, _)) = reducer(&c.binds[i].1) else {
            return;
        };
        let mut end = i + 1;
        while end < c.binds.len() && end - i < MAX_HORIZONTAL {
            let ok = reducer(&c.binds[end].1).is_some_and(|(ys, _)| ys == xs)
                && (i..end).all(|k| !c.depends(end, k) && c.binds[k].0 != xs);
            if !ok {
                break;
            }
            end += 1;
        }
        if end - i < 2 || c.binds[i..end].iter().any(|(n, _)| *n == xs) {
            return;
        }
        let parts: Vec<Expr> = c.binds[i..end].iter().map(|(_, v)| v.clone()).collect();
        let t = self.fresh("fused");
        let fused = self.horizontal(&parts, &xs);
        let names: Vec<String> = c.binds[i..end].iter().map(|(n, _)| n.clone()).collect();
        let mut binds = vec![(t.clone(), fused)];
        binds.extend(
            names
                .into_iter()
                .enumerate()
                .map(|(k, n)| (n, Expr::proj(Expr::Var(t.clone()), k))),
        );
        c.binds.splice(i..end, binds);
    }

    /// The first run of at least two components over one array (after inert components only)
    /// becomes one redomap bound to a fresh name.
    fn horizontal_tuple(&mut self, es: &[Expr]) -> Option<Expr> {
        let start = es.iter().position(|e| reducer(e).is_some())?;
        if !es[..start].iter().all(inert) {
            return None;
        }
        let (xs, _) = reducer(&es[start])?;
        let len = es[start..]
            .iter()
            .take(MAX_HORIZONTAL)
            .take_while(|e| reducer(e).is_some_and(|(ys, _)| ys == xs))
            .count();
        if len < 2 {
            return None;
        }
        let t = self.fresh("fused");
        let fused = self.horizontal(&es[start..start + len], &xs);
        let mut out = es.to_vec();
        for k in 0..len {
            out[start + k] = Expr::proj(Expr::Var(t.clone()), k);
        }
        Some(Expr::Let(t, arc(fused), arc(Expr::Tuple(out))))
    }

    /// One redomap over `xs` computing every reduction of `parts` (see [`reducer`]).
    fn horizontal(&mut self, parts: &[Expr], xs: &str) -> Expr {
        self.applied.push("horizontal");
        let x = self.fresh("x");
        let (a, b) = (self.fresh("a"), self.fresh("b"));
        let mut zs = Vec::new();
        let mut maps = Vec::new();
        let mut ops = Vec::new();
        for p in parts {
            let (_, (op, z, f)) = reducer(p).expect("checked by the caller");
            zs.push(z.clone());
            maps.push(match f {
                None => Expr::Var(x.clone()),
                Some(f) => Expr::Let(
                    f.params[0].0.clone(),
                    arc(Expr::Var(x.clone())),
                    f.body.clone(),
                ),
            });
            let k = ops.len();
            ops.push(Expr::binary(
                op,
                Expr::proj(Expr::Var(a.clone()), k),
                Expr::proj(Expr::Var(b.clone()), k),
            ));
        }
        Expr::Redomap(
            ReduceOp::Lambda(Lambda::new(&[&a, &b], Expr::Tuple(ops))),
            arc(Expr::Tuple(zs)),
            Lambda::new(&[&x], Expr::Tuple(maps)),
            vec![Expr::Var(xs.to_string())],
        )
    }
}

/// `C(let binds in map(..))` as `(binds, C(map(..)))` for a consumer `C` (reduce or redomap with
/// an inert identity, one-array map or redomap) whose other parts do not mention the names
/// bound: evaluation order is unchanged (the identity is inert, the lets ran first anyway).
fn float_lets(e: &Expr) -> Option<(Vec<(String, Expr)>, Expr)> {
    let (arr, rebuild): (&Expr, Box<dyn Fn(Expr) -> Expr>) = match e {
        Expr::Reduce(op, z, a) if inert(z) => {
            let (op, z) = (op.clone(), z.clone());
            (
                &**a,
                Box::new(move |x| Expr::Reduce(op.clone(), z.clone(), arc(x))),
            )
        }
        Expr::Scan(op, z, a) if inert(z) && op.bin_op().is_some() => {
            let (op, z) = (op.clone(), z.clone());
            (
                &**a,
                Box::new(move |x| Expr::Scan(op.clone(), z.clone(), arc(x))),
            )
        }
        Expr::Redomap(op, z, g, ys) if inert(z) && ys.len() == 1 => {
            let (op, z, g) = (op.clone(), z.clone(), g.clone());
            (
                &ys[0],
                Box::new(move |x| Expr::Redomap(op.clone(), z.clone(), g.clone(), vec![x])),
            )
        }
        Expr::Map(g, ys) if ys.len() == 1 => {
            let g = g.clone();
            (&ys[0], Box::new(move |x| Expr::Map(g.clone(), vec![x])))
        }
        _ => return None,
    };
    if !matches!(arr, Expr::Let(..)) {
        return None;
    }
    let chain = Chain::of(arr);
    if !matches!(chain.result, Expr::Map(..)) {
        return None;
    }
    let rest = rebuild(Expr::Tuple(vec![]));
    if chain.binds.iter().any(|(n, _)| uses(&rest, n) > 0) {
        return None;
    }
    let inner = rebuild(chain.result);
    Some((chain.binds, inner))
}

/// Whether a lambda is the body of a map fused into its consumer (its parameters carry the
/// fresh names of [`Fuser::rename`], which user programs do not produce): the bulk step that
/// checks its arrays' lengths then names itself `map`, as the unfused program does.
pub(crate) fn from_map(f: &Lambda) -> bool {
    f.params.first().is_some_and(|(n, _)| n.contains('\''))
}

/// The operator, identity and map lambda (none for `reduce`) of a reduction.
type Reduction<'e> = (BinaryOp, &'e Expr, Option<&'e Lambda>);

/// A reduction that horizontal fusion accepts: `reduce` or one-array `redomap` over a variable,
/// with a built-in operator and a literal identity. Returns the array's name and the operator,
/// identity and map lambda (none for `reduce`).
fn reducer(e: &Expr) -> Option<(String, Reduction<'_>)> {
    let (op, z, f, a) = match e {
        Expr::Reduce(op, z, a) => (op, z, None, &**a),
        Expr::Redomap(op, z, f, xs) if xs.len() == 1 && f.params.len() == 1 => {
            (op, z, Some(f), &xs[0])
        }
        _ => return None,
    };
    match (op.bin_op(), &**z, a) {
        (Some(b), Expr::Lit(_), Expr::Var(n)) => Some((n.clone(), (b, &**z, f))),
        _ => None,
    }
}

/// Recognises the operator that [`Fuser::horizontal`] builds: `|a, b| (a.0 op0 b.0, ..)`;
/// returns the component operators.
pub(crate) fn componentwise(op: &ReduceOp) -> Option<Vec<BinaryOp>> {
    let ReduceOp::Lambda(l) = op else {
        return None;
    };
    let [(a, _), (b, _)] = &l.params[..] else {
        return None;
    };
    let Expr::Tuple(es) = &*l.body else {
        return None;
    };
    es.iter()
        .enumerate()
        .map(|(k, e)| match e {
            Expr::Binary(o, x, y)
                if matches!(
                    o,
                    BinaryOp::Add
                        | BinaryOp::Mul
                        | BinaryOp::Min
                        | BinaryOp::Max
                        | BinaryOp::And
                        | BinaryOp::Or
                ) && is_proj(x, a, k)
                    && is_proj(y, b, k) =>
            {
                Some(*o)
            }
            _ => None,
        })
        .collect()
}

fn is_proj(e: &Expr, var: &str, k: usize) -> bool {
    matches!(e, Expr::Proj(v, i) if *i == k && matches!(&**v, Expr::Var(n) if n == var))
}
