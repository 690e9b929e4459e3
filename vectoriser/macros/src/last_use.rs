//! Which reads of a variable may move its value in the per-lane form (`lane.rs`): the last
//! reads, so that an array nothing reads any more is handed over (to a call, a filter, a
//! lane) and freed there instead of living to the end of its scope. A recursion whose levels
//! hand their arrays down this way holds only live values across its recursive calls
//! (`recursion.rs`), as the flattening executor does.
//!
//! A read moves only where the generated Rust evaluates it after every other read of the
//! variable and of the *aliases* that may borrow from it (a `let` bound to a value that
//! reads it in place), and where no value computed before it still borrows from it: the
//! code is plain Rust, so a wrong answer here is a compile error in the generated code, never
//! a wrong value. The reads under a lambda never move what the lambda does not bind (a lambda
//! runs many times).

use flatland_vectoriser::check;
use flatland_vectoriser::ir::{Expr, FusedForm, Program, Scalar, Type, children};

/// The identity of a node of the program being emitted: the emitter reads one program, which
/// does not move while it runs.
pub(crate) fn node(e: &Expr) -> usize {
    std::ptr::from_ref(e) as usize
}

/// Whether a value of type `t` holds an array.
pub(crate) fn holds_array(t: &Type) -> bool {
    match t {
        Type::Array(_) => true,
        Type::Tuple(ts) => ts.iter().any(holds_array),
        Type::I64 | Type::F64 | Type::Bool => false,
    }
}

/// The reads of `v` in `body` (the scope of its binding; `env` the variables in scope there,
/// `v` included) whose code may move `v`'s value: on every path through `body`, the last read
/// of `v` and its aliases where it is one of these. Each is a [`node`] of an `Expr::Var`.
pub(crate) fn moving_reads(
    p: &Program,
    env: &[(String, Type)],
    v: &str,
    body: &Expr,
) -> Vec<usize> {
    let mut w = Walk {
        p,
        env: env.to_vec(),
        v,
        group: vec![v.to_string()],
    };
    w.walk(body)
        .last
        .into_iter()
        .filter_map(|(own, n)| own.then_some(n))
        .collect()
}

/// Whether `e` reads the free variable `n`.
pub(crate) fn reads(e: &Expr, n: &str) -> bool {
    match e {
        Expr::Var(m) => m == n,
        Expr::Let(m, x, b) => reads(x, n) || (m != n && reads(b, n)),
        _ => {
            let (exprs, lambdas) = children(e);
            exprs.into_iter().any(|x| reads(x, n))
                || lambdas
                    .into_iter()
                    .any(|l| l.params.iter().all(|(p, _)| p != n) && reads(&l.body, n))
        }
    }
}

/// The `let`s that begin `body` and name fields of the tuple variable `t`, each with its name,
/// field and body (`let n0 = t.i0 in .. let nk = t.ik in rest`: distinct fields, distinct
/// names, none rebinding `t`), and `rest`, where `rest` does not read `t`: what a tuple pattern
/// (`let (a, _, b) = f(..)`) lowers to. Where `t` is bound by a `let` whose body is `body`, the
/// per-lane form destructures `t` there, moving the fields the pattern names (`lane.rs`), so
/// the last of these reads consumes `t` (`recursion.rs` counts it as `t`'s move). `None`
/// where `body` begins otherwise or `rest` reads `t`.
pub(crate) fn destructuring<'e>(t: &str, body: &'e Expr) -> Option<Destructured<'e>> {
    let mut lets: Vec<(&'e str, usize, &'e Expr)> = Vec::new();
    let mut last = None;
    let mut rest = body;
    while let Expr::Let(n, v, r) = rest {
        let Expr::Proj(of, i) = &**v else { break };
        let fresh = lets.iter().all(|&(m, j, _)| m != n && j != *i);
        if !matches!(&**of, Expr::Var(m) if m == t) || !fresh || n == t {
            break;
        }
        lets.push((n, *i, r));
        last = Some(node(of));
        rest = r;
    }
    match last {
        Some(last) if !reads(rest, t) => Some(Destructured { lets, last, rest }),
        _ => None,
    }
}

/// A tuple variable's destructuring `let`s ([`destructuring`]).
pub(crate) struct Destructured<'e> {
    /// Each `let`'s name, the field it binds and its body, in order.
    pub(crate) lets: Vec<(&'e str, usize, &'e Expr)>,
    /// The read of the tuple in the last of them (a [`node`]): it consumes the tuple.
    pub(crate) last: usize,
    /// The body of the last of them.
    pub(crate) rest: &'e Expr,
}

/// Whether the value of `e` may borrow from a variable `group` names (read in place: a
/// variable, a field or a row of one, a slice of one, a branch or a `let` handing one over).
/// What an operation computes is owned.
pub(crate) fn may_borrow(e: &Expr, group: &dyn Fn(&str) -> bool) -> bool {
    match e {
        Expr::Var(m) => group(m),
        Expr::Proj(t, _) => may_borrow(t, group),
        // (An element holding no array is copied out: the over-approximation only keeps more.)
        Expr::Index(a, _) | Expr::Slice(a, _, _) => matches!(&**a, Expr::Var(m) if group(m)),
        Expr::If(_, a, b) => may_borrow(a, group) || may_borrow(b, group),
        Expr::Tuple(es) => es.iter().any(|x| may_borrow(x, group)),
        Expr::Let(n, x, b) => matches!(&**b, Expr::Var(m) if m == n) && may_borrow(x, group),
        Expr::Fused(f) => {
            !matches!(f.form, FusedForm::ScatterProgressions { .. })
                && may_borrow(&f.original, group)
        }
        _ => false,
    }
}

/// The reads found in an expression: whether it reads the variable or an alias at all, and
/// the reads that are last on every path through it and may move (`true` for a read of the
/// variable itself, `false` for an alias).
#[derive(Default)]
struct Reads {
    any: bool,
    last: Vec<(bool, usize)>,
}

impl Reads {
    /// Read, but nothing of it may move.
    fn held() -> Reads {
        Reads {
            any: true,
            last: Vec::new(),
        }
    }
}

struct Walk<'a> {
    p: &'a Program,
    env: Vec<(String, Type)>,
    v: &'a str,
    /// The variable and its aliases in scope.
    group: Vec<String>,
}

impl Walk<'_> {
    fn in_group(&self, m: &str) -> bool {
        self.group.iter().any(|g| g == m)
    }

    fn read(&self, e: &Expr, m: &str) -> Reads {
        if self.in_group(m) {
            Reads {
                any: true,
                last: vec![(m == self.v && self.group[0] == self.v, node(e))],
            }
        } else {
            Reads::default()
        }
    }

    fn walk(&mut self, e: &Expr) -> Reads {
        match e {
            Expr::Var(m) => self.read(e, m),
            Expr::Let(n, x, b) => {
                let rx = self.walk(x);
                // A type it cannot tell counts as an array (its aliases are kept).
                let t = check::type_of(self.p, &self.env, x)
                    .unwrap_or_else(|_| Type::array(Type::Tuple(vec![])));
                let group = |m: &str| self.in_group(m);
                let alias = may_borrow(x, &group) && holds_array(&t);
                let saved = self.group.clone();
                // A binding of the same name hides the outer one in the body.
                if n == self.v {
                    self.group[0] = String::new();
                }
                self.group.retain(|g| g != n || g.is_empty());
                self.env.push((n.clone(), t));
                // A renaming (`let a = v`, as slicing lowers) after which nothing reads the
                // variable but through the new name hands its value over to the new name.
                let renames = matches!(&**x, Expr::Var(m) if m == self.v && saved[0] == self.v)
                    && !self.walk(b).any;
                if alias {
                    self.group.push(n.clone());
                }
                // The body's value is made owned, unless it hands the variable over.
                let rb = if matches!(&**b, Expr::Var(m) if m == n) {
                    self.walk(b)
                } else {
                    self.walk_owned(b)
                };
                self.env.pop();
                self.group = saved;
                if renames {
                    Reads {
                        any: true,
                        last: vec![(true, node(x))],
                    }
                } else if rb.any {
                    rb
                } else {
                    rx
                }
            }
            Expr::If(c, a, b) => {
                let (rc, ra, rb) = (self.walk(c), self.walk(a), self.walk(b));
                if ra.any || rb.any {
                    // The condition is a `bool`: nothing of it is alive in the branches. A
                    // branch that does not read the variable keeps it to the end of its scope.
                    let mut last = ra.last;
                    last.extend(rb.last);
                    Reads { any: true, last }
                } else {
                    rc
                }
            }
            // Read in place by the emitter (a field, a row, a length), never moved.
            Expr::Proj(a, _) | Expr::Length(a) if matches!(&**a, Expr::Var(_)) => self.walk_held(a),
            Expr::Index(a, i) => {
                if let Expr::Var(m) = &**a {
                    // The index is computed while the array is borrowed; an element holding
                    // no array is copied out, so the last such read may take the array (the
                    // emitter's moving index frees it).
                    let ri = self.walk(i);
                    if !self.in_group(m) {
                        return ri;
                    }
                    let copied = matches!(check::type_of(self.p, &self.env, a),
                        Ok(Type::Array(el)) if !holds_array(&el));
                    if ri.any || !copied {
                        return Reads::held();
                    }
                    return self.read(a, m);
                }
                self.operands(e)
            }
            Expr::Slice(a, s, l) => {
                if let Expr::Var(m) = &**a {
                    let (rs, rl) = (self.walk(s), self.walk(l));
                    if self.in_group(m) {
                        return Reads::held();
                    }
                    return self.sequence(vec![rs, rl], &[s, l], false);
                }
                self.operands(e)
            }
            Expr::Fused(f) => match f.form {
                // Emitted from the fused form's parts (the same reads), in an order of its own.
                FusedForm::ScatterProgressions { .. } => self.walk_held(&f.original),
                _ => self.walk(&f.original),
            },
            // The parts of a concatenated literal are read in place, side by side.
            Expr::Concat(a) if matches!(unfused(a), Expr::ArrayLit(_, es) if !es.is_empty()) => {
                let Expr::ArrayLit(_, es) = unfused(a) else {
                    unreachable!("matched above")
                };
                let parts: Vec<&Expr> = es.iter().collect();
                if let Some(taken) = self.taken_rows(&parts) {
                    return taken;
                }
                let rs = es.iter().map(|x| self.walk(x)).collect();
                self.sequence(rs, &es.iter().collect::<Vec<_>>(), true)
            }
            // Each element is made owned before the next is computed.
            Expr::ArrayLit(_, es) => {
                let rs = es.iter().map(|x| self.walk_owned(x)).collect();
                self.sequence(rs, &es.iter().collect::<Vec<_>>(), false)
            }
            // A chain of appends is emitted as the concatenation of a literal of its operands.
            Expr::Append(..) => {
                let mut parts = Vec::new();
                appended(e, &mut parts);
                match self.taken_rows(&parts) {
                    Some(taken) => taken,
                    None => self.operands(e),
                }
            }
            // Values side by side, in order, until the tuple or the call is made.
            Expr::Tuple(es) | Expr::Call(_, es) => {
                let rs = es.iter().map(|x| self.walk(x)).collect();
                self.sequence(rs, &es.iter().collect::<Vec<_>>(), true)
            }
            _ => self.operands(e),
        }
    }

    /// The reads of a concatenated literal's parts (or of a chain of appends' operands) that
    /// take rows of the variable itself (`[sorted[0], equal, sorted[1]]`): where the parts that
    /// read it at all are rows of it at distinct constant indices, and its element is an array,
    /// each such row may be handed over ([`taken_row`]) once nothing reads the variable after
    /// the literal. `None` where the parts read it otherwise.
    fn taken_rows(&mut self, es: &[&Expr]) -> Option<Reads> {
        if self.group[0] != self.v {
            return None;
        }
        let mut rows: Vec<(i64, usize)> = Vec::new();
        for x in es {
            if let Some((m, k, read)) = taken_row(x)
                && m == self.v
            {
                rows.push((k, read));
            } else if self.walk(x).any {
                return None;
            }
        }
        let rows_of_arrays = matches!(self.env.iter().rev().find(|(n, _)| n == self.v),
            Some((_, Type::Array(row))) if matches!(**row, Type::Array(_)));
        let mut ks: Vec<i64> = rows.iter().map(|(k, _)| *k).collect();
        ks.sort_unstable();
        ks.dedup();
        if rows.is_empty() || !rows_of_arrays || ks.len() != rows.len() {
            return None;
        }
        Some(Reads {
            any: true,
            last: rows.into_iter().map(|(_, read)| (true, read)).collect(),
        })
    }

    /// [`Walk::walk`] of an expression whose value is made owned at once (an element of an
    /// array literal, the body of a `let`): there a slice of the variable is its last read
    /// when the bounds (scalars, computed first) are, and the emitter's moving slice copies
    /// the part out (the copy that making it owned would make) and frees the rest.
    fn walk_owned(&mut self, e: &Expr) -> Reads {
        if let Expr::Slice(a, s, l) = e
            && let Expr::Var(m) = &**a
            && self.in_group(m)
        {
            let (_, _) = (self.walk(s), self.walk(l));
            return self.read(a, m);
        }
        self.walk(e)
    }

    /// Reads of `e`, none of which may move.
    fn walk_held(&mut self, e: &Expr) -> Reads {
        if self.walk(e).any {
            Reads::held()
        } else {
            Reads::default()
        }
    }

    /// Whether the body of `l` reads the variable or an alias (that it does not rebind).
    fn under_lambda(&mut self, l: &flatland_vectoriser::ir::Lambda) -> bool {
        let saved = self.group.clone();
        for (p, t) in &l.params {
            if p == self.v {
                self.group[0] = String::new();
            }
            self.group.retain(|g| g != p || g.is_empty());
            // A parameter of unknown type counts as an array (its aliases are kept).
            let t = t
                .clone()
                .unwrap_or_else(|| Type::array(Type::Tuple(vec![])));
            self.env.push((p.clone(), t));
        }
        let any = self.walk(&l.body).any;
        self.env.truncate(self.env.len() - l.params.len());
        self.group = saved;
        any
    }

    /// Operands evaluated in order, their values kept side by side (`alive`) or each made
    /// owned before the next: the last reading operand's last reads, unless an earlier
    /// operand's value may still borrow the variable.
    fn sequence(&mut self, rs: Vec<Reads>, es: &[&Expr], alive: bool) -> Reads {
        let Some(k) = rs.iter().rposition(|r| r.any) else {
            return Reads::default();
        };
        let group = |m: &str| self.in_group(m);
        let blocked = alive
            && es[..k]
                .iter()
                .zip(&rs)
                .any(|(x, r)| r.any && may_borrow(x, &group));
        let mut rs = rs;
        if blocked {
            Reads::held()
        } else {
            std::mem::take(&mut rs[k])
        }
    }

    /// Any other node: its operands (in an order the emitter may choose) and its lambdas
    /// (run while it runs). The reads may move only where exactly one operand reads and no
    /// lambda does.
    fn operands(&mut self, e: &Expr) -> Reads {
        let (exprs, lambdas) = children(e);
        let under = lambdas.iter().any(|l| self.under_lambda(l));
        let mut reading: Vec<Reads> = exprs
            .iter()
            .map(|x| self.walk(x))
            .filter(|r| r.any)
            .collect();
        match (under, reading.len()) {
            (false, 0) => Reads::default(),
            (false, 1) => reading.pop().unwrap_or_default(),
            _ => Reads::held(),
        }
    }
}

/// A row of a variable at a constant index (`x[k]`), as a part of a concatenated literal may
/// take it ([`Walk::taken_rows`]): the variable, the index, and the [`node`] of the read of the
/// variable (which the emitter finds among the moving reads).
pub(crate) fn taken_row(e: &Expr) -> Option<(&str, i64, usize)> {
    match unfused(e) {
        Expr::Index(a, i) => match (&**a, &**i) {
            (Expr::Var(m), Expr::Lit(Scalar::I64(k))) => Some((m.as_str(), *k, node(a))),
            _ => None,
        },
        _ => None,
    }
}

/// The operands of a chain of appends, left to right: `(a ++ b) ++ c` gives `a`, `b`, `c`.
pub(crate) fn appended<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    if let Expr::Append(a, b) = e {
        appended(a, out);
        appended(b, out);
    } else {
        out.push(e);
    }
}

/// `e` with its fusion wrappers taken off (per-lane code runs the original forms).
pub(crate) fn unfused(e: &Expr) -> &Expr {
    match e {
        Expr::Fused(f) => unfused(&f.original),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::{moving_reads, node};
    use flatland_vectoriser::ir::{Expr, Lambda, Program, Type};
    use std::sync::Arc;

    fn if_(c: Expr, a: Expr, b: Expr) -> Expr {
        Expr::If(Arc::new(c), Arc::new(a), Arc::new(b))
    }

    fn index(a: Expr, i: Expr) -> Expr {
        Expr::Index(Arc::new(a), Arc::new(i))
    }

    fn length(a: Expr) -> Expr {
        Expr::Length(Arc::new(a))
    }

    /// The `Var(v)` nodes of `e` in preorder (lambda bodies included).
    fn reads_of(e: &Expr, v: &str) -> Vec<usize> {
        let mut out = Vec::new();
        flatland_vectoriser::ir::for_each_node(e, &mut |x| {
            if matches!(x, Expr::Var(m) if m == v) {
                out.push(node(x));
            }
        });
        out
    }

    fn moves(body: &Expr) -> Vec<usize> {
        let p = Program::new(vec![]);
        let env = vec![
            ("xs".to_string(), Type::array(Type::I64)),
            ("c".to_string(), Type::Bool),
        ];
        moving_reads(&p, &env, "xs", body)
    }

    fn below(p: &str) -> Lambda {
        Lambda::new(&["x"], Expr::var("x").lt(Expr::var(p)))
    }

    #[test]
    fn the_last_filter_of_an_array_takes_it() {
        // let p = xs[0] in let a = filter(x < p, xs).0 in let b = filter(x < p, xs).0 in (a, b)
        let body = Expr::let_(
            "p",
            index(Expr::var("xs"), Expr::i64(0)),
            Expr::let_(
                "a",
                Expr::proj(Expr::filter(vec![below("p")], Expr::var("xs")), 0),
                Expr::let_(
                    "b",
                    Expr::proj(Expr::filter(vec![below("p")], Expr::var("xs")), 1),
                    Expr::Tuple(vec![Expr::var("a"), Expr::var("b")]),
                ),
            ),
        );
        let reads = reads_of(&body, "xs");
        assert_eq!(reads.len(), 3);
        assert_eq!(moves(&body), vec![reads[2]]);
    }

    #[test]
    fn each_branch_moves_its_last_read() {
        let body = if_(
            Expr::var("c"),
            Expr::proj(Expr::filter(vec![below("xs")], Expr::var("xs")), 0),
            Expr::Append(Arc::new(Expr::var("xs")), Arc::new(Expr::var("xs"))),
        );
        // The first branch's filter reads `xs` under its predicate: nothing moves there; the
        // second reads it twice side by side: nothing moves either.
        assert!(moves(&body).is_empty());
        let body = if_(
            Expr::var("c"),
            Expr::proj(Expr::filter(vec![below("c")], Expr::var("xs")), 0),
            length(Expr::var("xs")),
        );
        // A length reads in place; the filter's array moves.
        let reads = reads_of(&body, "xs");
        assert_eq!(moves(&body), vec![reads[0]]);
    }

    #[test]
    fn a_value_that_still_borrows_keeps_the_variable() {
        // let y = xs in (y, filter(.., xs).0): `y` borrows `xs` beside the last read.
        let body = Expr::let_(
            "y",
            Expr::var("xs"),
            Expr::Tuple(vec![
                Expr::var("y"),
                Expr::proj(Expr::filter(vec![below("c")], Expr::var("xs")), 0),
            ]),
        );
        assert!(moves(&body).is_empty());
        // (filter(.., xs).0, xs): an owned value first, then the last read, which moves.
        let body = Expr::Tuple(vec![
            Expr::proj(Expr::filter(vec![below("c")], Expr::var("xs")), 0),
            Expr::var("xs"),
        ]);
        assert_eq!(moves(&body), vec![reads_of(&body, "xs")[1]]);
        // (xs, filter(.., xs).0): the first still borrows when the second reads.
        let body = Expr::Tuple(vec![
            Expr::var("xs"),
            Expr::proj(Expr::filter(vec![below("c")], Expr::var("xs")), 0),
        ]);
        assert!(moves(&body).is_empty());
    }

    #[test]
    fn a_renaming_hands_the_array_over_and_a_shadowed_name_is_not_read() {
        // [let a = xs in slice(a, 0, 1), let b = xs in slice(b, 1, length(b) - 1)]: slicing as
        // the macro lowers it; the second renaming is the last read.
        let slice = |n: &str, lo: i64, len: Expr| {
            Expr::let_(
                n,
                Expr::var("xs"),
                Expr::Slice(
                    Arc::new(Expr::var(n)),
                    Arc::new(Expr::i64(lo)),
                    Arc::new(len),
                ),
            )
        };
        let body = Expr::ArrayLit(
            Type::array(Type::I64),
            vec![
                slice("a", 0, Expr::i64(1)),
                slice("b", 1, length(Expr::var("b")) - Expr::i64(1)),
            ],
        );
        let reads = reads_of(&body, "xs");
        assert_eq!(moves(&body), vec![reads[1]]);
        // let xs = [1] in xs: the inner `xs` is another variable.
        let body = Expr::let_(
            "xs",
            Expr::ArrayLit(Type::I64, vec![Expr::i64(1)]),
            Expr::var("xs"),
        );
        assert!(moves(&body).is_empty());
    }

    #[test]
    fn the_last_index_of_scalars_takes_the_array() {
        // let a = xs[0] in xs[1]: the second index copies its element out and frees the array.
        let body = Expr::let_(
            "a",
            index(Expr::var("xs"), Expr::i64(0)),
            index(Expr::var("xs"), Expr::i64(1)),
        );
        let reads = reads_of(&body, "xs");
        assert_eq!(moves(&body), vec![reads[1]]);
        // xs[xs[0]]: the index is computed while the array is borrowed.
        let body = index(Expr::var("xs"), index(Expr::var("xs"), Expr::i64(0)));
        assert!(moves(&body).is_empty());
    }

    #[test]
    fn a_concatenation_takes_distinct_constant_rows_at_the_last_read() {
        let p = Program::new(vec![]);
        let env = vec![
            ("xss".to_string(), Type::array(Type::array(Type::I64))),
            ("ys".to_string(), Type::array(Type::I64)),
        ];
        let moves = |body: &Expr| moving_reads(&p, &env, "xss", body);
        let row = |k: i64| index(Expr::var("xss"), Expr::i64(k));
        let concat = |parts: Vec<Expr>| {
            Expr::Concat(Arc::new(Expr::ArrayLit(Type::array(Type::I64), parts)))
        };
        // [xss[1], ys, xss[0]].concat(): both rows taken.
        let body = concat(vec![row(1), Expr::var("ys"), row(0)]);
        assert_eq!(moves(&body), reads_of(&body, "xss"));
        // The same as a chain of appends.
        let body = Expr::Append(
            Arc::new(Expr::Append(Arc::new(row(1)), Arc::new(Expr::var("ys")))),
            Arc::new(row(0)),
        );
        assert_eq!(moves(&body), reads_of(&body, "xss"));
        // One row twice, a row at a computed index, or the array read otherwise: none.
        assert!(moves(&concat(vec![row(0), row(0)])).is_empty());
        let computed = index(Expr::var("xss"), length(Expr::var("ys")));
        assert!(moves(&concat(vec![row(0), computed])).is_empty());
        let whole = Expr::Concat(Arc::new(Expr::var("xss")));
        assert!(moves(&concat(vec![row(0), whole])).is_empty());
        // Read again after the concatenation: none.
        let body = Expr::Tuple(vec![concat(vec![row(0), row(1)]), length(Expr::var("xss"))]);
        assert!(moves(&body).is_empty());
    }

    #[test]
    fn reads_under_a_lambda_never_move() {
        // map(|x| x + length(xs), [1, 2])
        let body = Expr::map(
            Lambda::new(&["x"], Expr::var("x") + length(Expr::var("xs"))),
            vec![Expr::ArrayLit(Type::I64, vec![Expr::i64(1), Expr::i64(2)])],
        );
        assert!(moves(&body).is_empty());
    }
}
