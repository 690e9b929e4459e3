//! Which nodes of a program may raise a runtime error, and in what order the executor and the
//! reference interpreter meet the parts of a node: what the executor needs to tell whether the
//! error it met first is the one [`crate::eval`] meets first (see [`crate::exec`], "Errors").
//!
//! The analysis is conservative: a node *may fail* when one of its own steps can raise an
//! [`crate::Error::Runtime`] on some input (an `i64` division by a divisor that is not a
//! non-zero constant, an index, a slice, an `iota` or `replicate` of a length that is not a
//! non-negative constant, arrays of different lengths, a scatter, a histogram, a partition's
//! key) or a part of it may (a call always may: the recursion limit). It is computed once per
//! prepared program ([`crate::exec::Prepared`]).
//!
//! A node's evaluation is a sequence of [`Part`]s, in the order the interpreter evaluates them
//! for one lane; the executor runs each part over all the lanes of its context before the next,
//! except the *deferred* steps (the operators of a scalar tree, which run as one program after
//! all of the tree's inputs, and the length checks of `iota` and `replicate`, which run after
//! all their operands).

use crate::check::{Types, node_key};
use crate::ir::{BinaryOp, Expr, LoopForm, Program, ReduceOp, Scalar};
use crate::scalar_tree::selectable;
use std::collections::HashSet;

/// One part of a node's evaluation.
pub(crate) enum Part<'e> {
    /// A sub-expression (an operand, or a lambda's body).
    Child(&'e Expr),
    /// One of the node's own steps.
    Step {
        /// Whether it may raise a runtime error.
        fails: bool,
        /// Whether the executor runs it after all the node's children, where the interpreter
        /// runs it between them.
        deferred: bool,
    },
}

/// What a failure inside a node leaves known of the node's first error ([`Fallible::after`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct After {
    /// No lane below the failing one can fail in a part the executor has not yet run.
    pub(crate) lowest: bool,
    /// At the failing lane, no part the interpreter runs before the failing one can fail
    /// unseen by the executor.
    pub(crate) exact: bool,
}

/// The nodes of a program that may raise a runtime error, and the roots among them: the nodes
/// that settle the errors of their parts themselves (see `flatten/errors.rs`).
pub(crate) struct Fallible {
    may: HashSet<usize>,
    roots: HashSet<usize>,
}

fn step(fails: bool) -> Part<'static> {
    Part::Step {
        fails,
        deferred: false,
    }
}

/// Whether `e` is the constant `i64` `v` for which `ok(v)`.
fn constant(e: &Expr, ok: impl Fn(i64) -> bool) -> bool {
    matches!(e, Expr::Lit(Scalar::I64(v)) if ok(*v))
}

/// Whether `op` applied to `a` and `b` may fail, on operands of type `i64` (`f64` division
/// never fails): not when the divisor is a non-zero constant or `x | c` for an odd constant `c`
/// (the random programs' guard), nor a power by a non-negative constant.
fn binary_fails(types: &Types, op: BinaryOp, a: &Expr, b: &Expr) -> bool {
    if !op.can_fail() || types.get(&node_key(a)) != Some(&crate::ir::Type::I64) {
        return false;
    }
    if op == BinaryOp::Pow {
        return !constant(b, |v| v >= 0);
    }
    let odd = |e: &Expr| constant(e, |v| v % 2 != 0);
    let nonzero = match b {
        Expr::Binary(BinaryOp::BitOr, x, y) => odd(x) || odd(y),
        _ => constant(b, |v| v != 0),
    };
    !nonzero
}

/// The parts of the scalar tree rooted at `e`: its inputs, in the order the executor evaluates
/// them, and whether one of its operators may fail.
fn tree<'e>(types: &Types, e: &'e Expr, inputs: &mut Vec<&'e Expr>) -> bool {
    match e {
        Expr::Lit(_) => false,
        Expr::If(c, a, b) if selectable(types, e) => {
            let c = tree(types, c, inputs);
            let a = tree(types, a, inputs);
            tree(types, b, inputs) || a || c
        }
        Expr::Unary(_, a) => tree(types, a, inputs),
        Expr::Binary(op, a, b) => {
            let x = tree(types, a, inputs);
            let y = tree(types, b, inputs);
            x || y || binary_fails(types, *op, a, b)
        }
        Expr::Ternary(op, a, b, c) => {
            let x = tree(types, a, inputs);
            let y = tree(types, b, inputs);
            let z = tree(types, c, inputs);
            x || y || z || op.can_fail()
        }
        other => {
            inputs.push(other);
            false
        }
    }
}

/// The leaves of an `append` chain, in order.
fn append_leaves<'e>(e: &'e Expr, out: &mut Vec<Part<'e>>) {
    match e {
        Expr::Append(a, b) => {
            append_leaves(a, out);
            append_leaves(b, out);
        }
        other => out.push(Part::Child(other)),
    }
}

impl Fallible {
    /// The analysis of every function of `program` (whose node types are `types`).
    pub(crate) fn of(program: &Program, types: &Types) -> Fallible {
        let mut f = Fallible {
            may: HashSet::new(),
            roots: HashSet::new(),
        };
        for func in &program.functions {
            f.walk(&func.body, types);
        }
        f
    }

    /// Records the nodes of `e` that may fail (its sub-expressions first, lambda bodies
    /// included); whether `e` may.
    fn walk(&mut self, e: &Expr, types: &Types) -> bool {
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.walk_inner(e, types))
    }

    fn walk_inner(&mut self, e: &Expr, types: &Types) -> bool {
        let (children, lambdas) = crate::ir::children(e);
        let mut fails = matches!(e, Expr::Call(..));
        for c in children {
            fails |= self.walk(c, types);
        }
        for l in lambdas {
            fails |= self.walk(&l.body, types);
        }
        fails |= self.parts(e, types).iter().any(|p| match p {
            Part::Step { fails, .. } => *fails,
            Part::Child(c) => self.may_fail(c),
        });
        if fails {
            self.may.insert(node_key(e));
            if self.settles(e, types) {
                self.roots.insert(node_key(e));
            }
        }
        fails
    }

    /// Whether `e` (which may fail) is a root: a node whose parts the executor runs in another
    /// order than the interpreter (the bulk constructs, and a deferred step that may fail after
    /// a child that may).
    fn settles(&self, e: &Expr, types: &Types) -> bool {
        match e {
            Expr::Reduce(..)
            | Expr::Scan(..)
            | Expr::Redomap(..)
            | Expr::Filter(..)
            | Expr::Partition { .. }
            | Expr::Hist { .. }
            | Expr::Loop { .. }
            | Expr::Scatter(..)
            | Expr::Fused(_) => true,
            Expr::Proj(t, _) => matches!(**t, Expr::Filter(..)),
            _ => {
                let parts = self.parts(e, types);
                let deferred = parts.iter().any(|p| {
                    matches!(
                        p,
                        Part::Step {
                            fails: true,
                            deferred: true
                        }
                    )
                });
                deferred
                    && parts
                        .iter()
                        .skip(1)
                        .any(|p| matches!(p, Part::Child(c) if self.may_fail(c)))
            }
        }
    }

    /// Whether `e` is a root ([`Fallible::settles`]), computed once.
    pub(crate) fn is_root(&self, e: &Expr) -> bool {
        self.roots.contains(&node_key(e))
    }

    /// Whether evaluating `e` may raise a runtime error.
    pub(crate) fn may_fail(&self, e: &Expr) -> bool {
        self.may.contains(&node_key(e))
    }

    /// The parts of `e`'s evaluation, in the interpreter's order for one lane (see the module
    /// doc). A scalar tree's parts are its inputs and one deferred step for its operators.
    pub(crate) fn parts<'e>(&self, e: &'e Expr, types: &Types) -> Vec<Part<'e>> {
        let child = Part::Child;
        let lambda_fails = |op: &ReduceOp| match op {
            ReduceOp::Lambda(l) => self.may_fail(&l.body),
            _ => false,
        };
        let lengths = |arrays: &[Expr]| step(arrays.len() > 1);
        match e {
            Expr::Var(_) => vec![],
            Expr::Lit(_) | Expr::Unary(..) | Expr::Binary(..) | Expr::Ternary(..) => {
                Self::tree_parts(e, types)
            }
            Expr::If(..) if selectable(types, e) => Self::tree_parts(e, types),
            Expr::If(c, a, b) => vec![child(c), child(a), child(b)],
            Expr::Tuple(es) | Expr::Call(_, es) | Expr::ArrayLit(_, es) => {
                es.iter().map(child).collect()
            }
            Expr::Proj(t, _) => match &**t {
                Expr::Filter(ps, a) => {
                    vec![child(a), step(ps.iter().any(|p| self.may_fail(&p.body)))]
                }
                _ => vec![child(t)],
            },
            Expr::Let(_, v, b) => vec![child(v), child(b)],
            Expr::Index(a, i) => vec![child(a), child(i), step(true)],
            Expr::Length(a) | Expr::Concat(a) | Expr::Sort(_, a) => vec![child(a)],
            Expr::Iota {
                len,
                start,
                step: d,
            } => vec![
                child(len),
                child(start),
                child(d),
                Part::Step {
                    fails: !constant(len, |v| v >= 0),
                    deferred: true,
                },
            ],
            Expr::Replicate(n, x) => vec![
                child(n),
                child(x),
                Part::Step {
                    fails: !constant(n, |v| v >= 0),
                    deferred: true,
                },
            ],
            Expr::Slice(a, s, l) => vec![child(a), child(s), child(l), step(true)],
            Expr::Append(..) => {
                let mut out = Vec::new();
                append_leaves(e, &mut out);
                out
            }
            // The lengths of indices and values, then each index; scattering a replicated
            // scalar, the executor checks the count of the replicate after its value.
            Expr::Scatter(d, i, v) => match &**v {
                Expr::Replicate(n, x)
                    if types
                        .get(&node_key(x))
                        .and_then(crate::ir::Type::scalar)
                        .is_some() =>
                {
                    vec![
                        child(d),
                        child(i),
                        child(n),
                        child(x),
                        Part::Step {
                            fails: !constant(n, |v| v >= 0),
                            deferred: true,
                        },
                        step(true),
                        step(true),
                    ]
                }
                _ => vec![child(d), child(i), child(v), step(true), step(true)],
            },
            Expr::Map(f, arrays) => {
                let mut out: Vec<Part<'e>> = arrays.iter().map(child).collect();
                out.push(lengths(arrays));
                out.push(child(&f.body));
                out
            }
            Expr::Redomap(op, z, f, arrays) => {
                let mut out = vec![child(z)];
                out.extend(arrays.iter().map(child));
                out.push(lengths(arrays));
                out.push(child(&f.body));
                out.push(step(lambda_fails(op)));
                out
            }
            Expr::Reduce(op, z, a) | Expr::Scan(op, z, a) => {
                vec![child(z), child(a), step(lambda_fails(op))]
            }
            Expr::Filter(ps, a) => {
                vec![child(a), step(ps.iter().any(|p| self.may_fail(&p.body)))]
            }
            Expr::Partition { array, .. } => vec![child(array), step(true)],
            Expr::Hist {
                bins,
                op,
                identity,
                indices,
                values,
            } => vec![
                child(bins),
                step(true),
                child(identity),
                child(indices),
                child(values),
                step(true),
                step(lambda_fails(op)),
            ],
            Expr::Loop { init, form, body } => {
                let mut out = vec![child(init)];
                let cond = match form {
                    LoopForm::For(n) => {
                        out.push(child(n));
                        false
                    }
                    LoopForm::While(c) => self.may_fail(&c.body),
                };
                out.push(step(cond || self.may_fail(&body.body)));
                out
            }
            Expr::Fused(f) => vec![child(&f.original)],
        }
    }

    fn tree_parts<'e>(e: &'e Expr, types: &Types) -> Vec<Part<'e>> {
        let mut inputs = Vec::new();
        let ops = tree(types, e, &mut inputs);
        let mut out: Vec<Part<'e>> = inputs.into_iter().map(Part::Child).collect();
        out.push(Part::Step {
            fails: ops,
            deferred: true,
        });
        out
    }

    /// What stays known of `e`'s first error when the part of it holding the node `from`
    /// failed (`None`: one of `e`'s own steps), at a lane that is the lowest failing one of that
    /// part: parts after it that may fail could fail at lower lanes (the executor has not run
    /// them there), and a deferred step that may fail could come first at the failing lane.
    pub(crate) fn after(&self, e: &Expr, from: Option<usize>, types: &Types) -> After {
        let parts = self.parts(e, types);
        let fails = |p: &Part<'_>| match p {
            Part::Child(c) => self.may_fail(c),
            Part::Step { fails, .. } => *fails,
        };
        let at = match from {
            // A call's callee body runs last, after its arguments.
            Some(k) if matches!(e, Expr::Call(..)) && !parts.iter().any(|p| holds(p, k)) => {
                return After {
                    lowest: true,
                    exact: true,
                };
            }
            Some(k) => parts.iter().position(|p| holds(p, k)),
            None => {
                let steps: Vec<usize> = (0..parts.len())
                    .filter(|&i| matches!(parts[i], Part::Step { fails: true, .. }))
                    .collect();
                match steps[..] {
                    [one] => {
                        return After {
                            lowest: !parts[one + 1..].iter().any(fails),
                            exact: true,
                        };
                    }
                    _ => {
                        return After {
                            lowest: false,
                            exact: true,
                        };
                    }
                }
            }
        };
        let Some(k) = at else {
            return After {
                lowest: false,
                exact: false,
            };
        };
        let deferred = parts.iter().any(|p| {
            matches!(
                p,
                Part::Step {
                    fails: true,
                    deferred: true
                }
            )
        });
        After {
            lowest: !parts[k + 1..].iter().any(fails) && !deferred,
            exact: k == 0 || !deferred,
        }
    }
}

/// Whether the part `p` is, or holds, the node keyed `k`.
fn holds(p: &Part<'_>, k: usize) -> bool {
    match p {
        Part::Child(c) => contains(c, k),
        Part::Step { .. } => false,
    }
}

/// Whether the node keyed `k` is `e` or one of its sub-expressions (lambda bodies included).
fn contains(e: &Expr, k: usize) -> bool {
    if node_key(e) == k {
        return true;
    }
    stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || contains_below(e, k))
}

fn contains_below(e: &Expr, k: usize) -> bool {
    let (children, lambdas) = crate::ir::children(e);
    children.into_iter().any(|c| contains(c, k)) || lambdas.iter().any(|l| contains(&l.body, k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Expr, Function, Lambda, Type};

    fn analysed(body: Expr) -> (Program, Types) {
        let p = Program::new(vec![Function::new(
            "f",
            vec![
                ("xs".into(), Type::array(Type::I64)),
                ("d".into(), Type::I64),
            ],
            Type::array(Type::I64),
            body,
        )]);
        let types = crate::check::annotate(&p).unwrap();
        (p, types)
    }

    #[test]
    fn guarded_divisions_and_constant_lengths_cannot_fail() {
        let guarded = Expr::map(
            Lambda::new(
                &["x"],
                Expr::var("x") / Expr::binary(BinaryOp::BitOr, Expr::var("d"), Expr::i64(1)),
            ),
            vec![Expr::var("xs")],
        );
        let (p, types) = analysed(guarded);
        assert!(!Fallible::of(&p, &types).may_fail(&p.functions[0].body));
        let bare = Expr::map(
            Lambda::new(&["x"], Expr::var("x") / Expr::var("d")),
            vec![Expr::var("xs")],
        );
        let (p, types) = analysed(bare);
        assert!(Fallible::of(&p, &types).may_fail(&p.functions[0].body));
    }

    #[test]
    fn a_failing_index_followed_by_a_division_leaves_lower_lanes_unknown() {
        // map(|x| let y = xs[x] in y / d): the index fails first, the division could fail at a
        // lower lane.
        let body = Expr::let_(
            "y",
            Expr::index(Expr::var("xs"), Expr::var("x")),
            Expr::var("y") / Expr::var("d"),
        );
        let (p, types) = analysed(Expr::map(Lambda::new(&["x"], body), vec![Expr::var("xs")]));
        let f = Fallible::of(&p, &types);
        let Expr::Map(l, _) = &p.functions[0].body else {
            panic!("a map")
        };
        let Expr::Let(_, v, _) = &*l.body else {
            panic!("a let")
        };
        let a = f.after(&l.body, Some(node_key(v)), &types);
        assert_eq!(
            a,
            After {
                lowest: false,
                exact: true
            }
        );
        let Expr::Let(_, _, b) = &*l.body else {
            panic!("a let")
        };
        let a = f.after(&l.body, Some(node_key(b)), &types);
        assert_eq!(
            a,
            After {
                lowest: true,
                exact: true
            }
        );
    }
}
