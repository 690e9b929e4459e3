//! The kernels' lambda compiler: a map body, a predicate, a key or an operator (IR) compiled
//! to expression-machine trees over *sources*, the input columns of a block (a field of an
//! array argument's elements, a free scalar repeated over its lane's elements, a gather
//! `v[i]` from a free array, an array's length). A body the compiler does not accept (a
//! construct other than constants, variables, `let`, tuples, projections, scalar operators,
//! `if`s that may run as selects and reads of free arrays) makes the kernel give up, and the
//! executor runs the unfused steps.
//!
//! Cost: one walk of the body (linear in its nodes); equal sources share one column.

use crate::env::{Env, lookup};
use crate::ir::{Classes, Expr, ScalarType};
use crate::lval::LVal;
use flatland_runtime::expr::native::Kernels;
use flatland_runtime::expr::{self, CompiledExpr, Node, Parallelism};
use std::sync::Arc;

/// Where one input column of a block comes from.
#[derive(Clone, Debug)]
pub(super) enum Source {
    /// Field `path` of the elements of array argument `arg`.
    Param(usize, Vec<usize>),
    /// Field `path` of a free variable, one value per lane (repeated over the lane's elements).
    Free(String, Vec<usize>),
    /// `arr[index]`, `arr` a free array of scalars (field `path` of a free variable), `index` a
    /// program over the sources before this one.
    Gather(String, Vec<usize>, Arc<CompiledExpr>, Option<usize>),
    /// The length of each lane's array (field `path` of a free variable), repeated over the
    /// lane's elements.
    Len(String, Vec<usize>),
}

impl PartialEq for Source {
    /// Equal sources share one column; gathers are merged only when both read one array at
    /// one source column (`a[x]` written twice), otherwise their programs differ.
    fn eq(&self, other: &Source) -> bool {
        match (self, other) {
            (Source::Gather(a, p, _, Some(i)), Source::Gather(b, q, _, Some(j))) => {
                a == b && p == q && i == j
            }
            (Source::Param(a, p), Source::Param(b, q)) => a == b && p == q,
            (Source::Free(a, p), Source::Free(b, q)) | (Source::Len(a, p), Source::Len(b, q)) => {
                a == b && p == q
            }
            _ => false,
        }
    }
}

/// A compiled value: a scalar tree, a tuple of values, or a reference to a free array.
#[derive(Clone)]
pub(super) enum CompiledValue {
    /// A scalar: an expression-machine tree over the sources.
    Tree(expr::ColumnExpr),
    /// A tuple of compiled values.
    Tuple(Vec<CompiledValue>),
    /// Field `path` of free variable `name`, an array (read by `index` and `len`).
    Array(String, Vec<usize>),
}

/// Compiles IR bodies over the sources of one kernel (shared by all the bodies it compiles, so
/// equal sources share one column).
pub(super) struct LambdaCompiler<'a> {
    pub(super) env: &'a Env,
    /// The native kernels of the program being run (attached to the programs compiled here).
    pub(super) kernels: &'a Kernels,
    pub(super) params: Vec<String>,
    args: Vec<&'a LVal>,
    pub(super) srcs: Vec<Source>,
    pub(super) types: Vec<ScalarType>,
    scope: Vec<(String, CompiledValue)>,
    /// Whether an `if` whose branches read free arrays compiles to a select (both branches
    /// computed on every element): only where a failure makes the kernel give up, and a gather
    /// out of range on an element whose branch is not taken is forgiven (`eval_on_elements`).
    /// Branches with operators that can fail (division) are still not compiled: computing them
    /// where they are not taken would fail, and the kernel would give up every time.
    pub(super) speculative: bool,
    /// The index tree of each gather source, by source.
    pub(super) index_trees: Vec<(usize, expr::ColumnExpr)>,
}

pub(super) fn field<'v>(v: &'v LVal, path: &[usize]) -> Option<&'v LVal> {
    path.iter().try_fold(v, |v, &i| match v {
        LVal::Tuple(fs) => fs.get(i),
        _ => None,
    })
}

/// Whether evaluating `e` for lanes that do not need it is harmless (no failing operator, no
/// indexing), so an `if` over it may evaluate both branches.
pub(super) fn safe(e: &Expr) -> bool {
    harmless(e, false)
}

/// [`safe`], or with `reads` also reading free arrays (`a[i]`, `a.len()`): a speculative
/// compiler's gathers forgive an index out of range where no result depends on it.
fn harmless(e: &Expr, reads: bool) -> bool {
    let h = |e: &Expr| harmless(e, reads);
    match e {
        Expr::Lit(_) | Expr::Var(_) => true,
        Expr::Proj(a, _) | Expr::Unary(_, a) => h(a),
        Expr::Binary(op, a, b) => !op.can_fail() && h(a) && h(b),
        Expr::Ternary(op, a, b, c) => !op.can_fail() && h(a) && h(b) && h(c),
        Expr::Tuple(es) => es.iter().all(h),
        Expr::Let(_, a, b) => h(a) && h(b),
        Expr::If(a, b, c) => h(a) && h(b) && h(c),
        Expr::Index(a, i) => reads && matches!(**a, Expr::Var(_)) && h(i),
        Expr::Length(a) => reads && matches!(**a, Expr::Var(_)),
        _ => false,
    }
}

impl<'a> LambdaCompiler<'a> {
    pub(super) fn new(
        env: &'a Env,
        params: Vec<String>,
        args: Vec<&'a LVal>,
        kernels: &'a Kernels,
    ) -> LambdaCompiler<'a> {
        LambdaCompiler {
            env,
            kernels,
            params,
            args,
            srcs: Vec::new(),
            types: Vec::new(),
            scope: Vec::new(),
            speculative: false,
            index_trees: Vec::new(),
        }
    }

    fn src(&mut self, s: Source, t: ScalarType) -> expr::ColumnExpr {
        let k = self.srcs.iter().position(|x| *x == s).unwrap_or_else(|| {
            self.srcs.push(s);
            self.types.push(t);
            self.srcs.len() - 1
        });
        expr::ColumnExpr::input(k)
    }

    /// The compiled form of a lifted value's shape; `free` names a free variable.
    fn of_lval(
        &mut self,
        v: &LVal,
        arg: Option<usize>,
        name: &str,
        path: &mut Vec<usize>,
    ) -> Option<CompiledValue> {
        Some(match v {
            LVal::Scalar(c) => {
                let s = match arg {
                    Some(a) => Source::Param(a, path.clone()),
                    None => Source::Free(name.to_string(), path.clone()),
                };
                CompiledValue::Tree(self.src(s, c.ty()))
            }
            LVal::Tuple(fs) => {
                let mut out = Vec::with_capacity(fs.len());
                for (i, f) in fs.iter().enumerate() {
                    path.push(i);
                    out.push(self.of_lval(f, arg, name, path)?);
                    path.pop();
                }
                CompiledValue::Tuple(out)
            }
            LVal::Array(..) if arg.is_none() => {
                CompiledValue::Array(name.to_string(), path.clone())
            }
            LVal::Array(..) => return None,
        })
    }

    fn var(&mut self, n: &str) -> Option<CompiledValue> {
        if let Some((_, cv)) = self.scope.iter().rev().find(|(m, _)| m == n) {
            return Some(cv.clone());
        }
        if let Some(k) = self.params.iter().position(|p| p == n) {
            let v = self.args[k];
            return self.of_lval(v, Some(k), n, &mut Vec::new());
        }
        let v = lookup(self.env, n).ok()?;
        self.of_lval(v, None, n, &mut Vec::new())
    }

    pub(super) fn tree(&mut self, e: &Expr) -> Option<expr::ColumnExpr> {
        match self.compile(e)? {
            CompiledValue::Tree(t) => Some(t),
            _ => None,
        }
    }

    pub(super) fn compile(&mut self, e: &Expr) -> Option<CompiledValue> {
        Some(match e {
            Expr::Lit(s) => CompiledValue::Tree(expr::ColumnExpr::constant(*s)),
            Expr::Var(n) => self.var(n)?,
            Expr::Proj(a, i) => match self.compile(a)? {
                CompiledValue::Tuple(mut vs) if *i < vs.len() => vs.swap_remove(*i),
                CompiledValue::Array(n, mut path) => {
                    path.push(*i);
                    CompiledValue::Array(n, path)
                }
                _ => return None,
            },
            Expr::Tuple(es) => {
                CompiledValue::Tuple(es.iter().map(|x| self.compile(x)).collect::<Option<_>>()?)
            }
            // A binding nothing reads that cannot fail (a fused body's renamed parameter
            // whose element is an array, say) need not compile.
            Expr::Let(n, v, b) if safe(v) && crate::fuse::graph::uses(b, n) == 0 => {
                self.compile(b)?
            }
            // A speculative pass forgives a read out of range where no result depends on it,
            // but a `let` is evaluated whether or not its name is read (the interpreter's
            // `let c[-5] in k != k` fails): a binding that may fail is left to the lazy steps.
            Expr::Let(_, v, _) if self.speculative && !safe(v) => return None,
            Expr::Let(n, v, b) => {
                let cv = self.compile(v)?;
                self.scope.push((n.clone(), cv));
                let r = self.compile(b);
                self.scope.pop();
                r?
            }
            Expr::Unary(op, a) => CompiledValue::Tree(self.tree(a)?.unary(*op)),
            Expr::Binary(op, a, b) => {
                let x = self.tree(a)?;
                CompiledValue::Tree(x.binary(*op, self.tree(b)?))
            }
            Expr::Ternary(op, a, b, c) => {
                let x = self.tree(a)?;
                let y = self.tree(b)?;
                CompiledValue::Tree(x.ternary(*op, y, self.tree(c)?))
            }
            Expr::If(c, a, b) if harmless(a, self.speculative) && harmless(b, self.speculative) => {
                let c = self.tree(c)?;
                select(&c, self.compile(a)?, self.compile(b)?)?
            }
            Expr::Length(a) => {
                let CompiledValue::Array(n, path) = self.compile(a)? else {
                    return None;
                };
                CompiledValue::Tree(self.src(Source::Len(n, path), ScalarType::I64))
            }
            Expr::Index(a, i) => {
                let CompiledValue::Array(n, path) = self.compile(a)? else {
                    return None;
                };
                let idx = self.tree(i)?;
                let arr = field(lookup(self.env, &n).ok()?, &path)?;
                let LVal::Array(_, el) = arr else { return None };
                let LVal::Scalar(c) = &**el else { return None };
                let t = c.ty();
                let program = CompiledExpr::compile(&idx, &self.types)
                    .ok()?
                    .with_kernels(self.kernels)
                    .with_parallelism(Parallelism::Sequential);
                if program.output_type() != ScalarType::I64 {
                    return None;
                }
                let direct = match idx.node() {
                    Node::Input(k) => Some(*k),
                    _ => None,
                };
                let e = self.src(Source::Gather(n, path, Arc::new(program), direct), t);
                if let Node::Input(k) = e.node()
                    && !self.index_trees.iter().any(|(j, _)| j == k)
                {
                    self.index_trees.push((*k, idx));
                }
                CompiledValue::Tree(e)
            }
            _ => return None,
        })
    }
}

fn select(c: &expr::ColumnExpr, a: CompiledValue, b: CompiledValue) -> Option<CompiledValue> {
    Some(match (a, b) {
        (CompiledValue::Tree(x), CompiledValue::Tree(y)) => {
            CompiledValue::Tree(c.clone().select(x, y))
        }
        (CompiledValue::Tuple(xs), CompiledValue::Tuple(ys)) if xs.len() == ys.len() => {
            CompiledValue::Tuple(
                xs.into_iter()
                    .zip(ys)
                    .map(|(x, y)| select(c, x, y))
                    .collect::<Option<_>>()?,
            )
        }
        _ => return None,
    })
}

/// The trees of a map body compiled by `c`: one scalar, or a tuple of `fields` scalars.
pub(super) fn body_outs(
    c: &mut LambdaCompiler<'_>,
    body: &Expr,
    fields: Option<usize>,
) -> Option<Vec<expr::ColumnExpr>> {
    Some(match (c.compile(body)?, fields) {
        (CompiledValue::Tree(t), None) => vec![t],
        (CompiledValue::Tuple(ts), Some(n)) if ts.len() == n => ts
            .into_iter()
            .map(|t| match t {
                CompiledValue::Tree(t) => Some(t),
                _ => None,
            })
            .collect::<Option<_>>()?,
        _ => return None,
    })
}

/// The trees of a class form compiled by `c`: the key's tree, then one tree per distinct output
/// value (outputs with equal values, a reduction and the packed array of one class, share a
/// column), and the tree of each output.
pub(super) fn class_trees(
    c: &mut LambdaCompiler<'_>,
    form: &Classes,
) -> Option<(Vec<expr::ColumnExpr>, Vec<usize>)> {
    let mut trees = Vec::with_capacity(form.outs.len() + 1);
    let mut tree_of = Vec::with_capacity(form.outs.len());
    for (o, l) in std::iter::once(&form.key)
        .chain(form.outs.iter().map(|o| &o.value))
        .enumerate()
    {
        if o > 0
            && let Some(q) = form.outs[..o - 1].iter().position(|q| q.value == *l)
        {
            tree_of.push(tree_of[q]);
            continue;
        }
        let [(p, _)] = &l.params[..] else {
            return None;
        };
        c.params = vec![p.clone()];
        let CompiledValue::Tree(t) = c.compile(&l.body)? else {
            return None;
        };
        if o > 0 {
            tree_of.push(trees.len());
        }
        trees.push(t);
    }
    if c.srcs
        .iter()
        .any(|s| !matches!(s, Source::Param(..) | Source::Free(..)))
    {
        return None;
    }
    Some((trees, tree_of))
}
