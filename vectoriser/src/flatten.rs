//! Flattening: every IR construct in its *lifted* form, run over all the lanes of a context at
//! once with runtime bulk operations (Blelloch; Keller and Chakravarty; DPH; the
//! executor of "The pipeline of a program" in `docs/ARCHITECTURE.md`).
//!
//! A context is a number of lanes (the flattened iteration space of the enclosing maps) and, for
//! error messages, each lane's position in its innermost map. Every variable is bound to a lifted
//! value ([`LVal`]) with one value per lane. The lifting rules:
//!
//! - scalar operator trees compile to one [`flatland_runtime::expr`] program run over all lanes
//!   (no per-element interpretation);
//! - `map` adds a segment level: the arrays' elements become the lanes of a new context (a
//!   contiguous descriptor), and the lambda's free variables are replicated into it with
//!   `replicate_s`, which for arrays only replicates *virtual segments* (no element copies);
//! - `index` becomes `seg::index_l` on the virtual descriptor (reads from the one physical copy);
//! - `if` evaluates its condition, packs the lanes of each branch (and the branch's free
//!   variables), runs each branch only on its lanes (a branch with no lanes is skipped, which is
//!   what ends lifted recursion) and combines the results by the condition;
//! - `reduce`/`scan` become segmented folds/scans (`seg::fold_vs`, `seg::scan_s`) with the
//!   canonical association; lambda operators and per-lane identities run the same association as
//!   bulk steps over all segments ([`chains`]);
//! - `filter`/`partition` compute class keys lifted (predicates lazily, if-elif) and split the
//!   elements with one `seg::split_s`, each class packed in an array of its own. One class
//!   of a filter (`filter(ps, a).i`) is a mask and one pack of that class's elements; with
//!   fusion, the predicates run as one expression-machine pass over all the elements (free
//!   scalars repeated per segment, free arrays gathered), kept where it meets no error that
//!   an element's class depends on;
//! - array literals of arrays and `append` chains copy their parts once, into lane order;
//! - a call evaluates the callee's body in the caller's context (lifted call); recursion proceeds
//!   on the packed active lanes until none remain. The native stack grows on the heap
//!   (`stacker`); the depth of lifted calls that have lanes is bounded by [`crate::limits`] (the
//!   interpreter's call depth: a lifted call at depth `d` runs the interpreter's calls at `d`).
//!
//! The rules live in one child module per idea: `context` (the lanes, [`Ctx`]), `maps` (`map`
//! and calls), `branches` (the lifted `if`), `reduce` and `chains` (reductions and scans),
//! `filters` (`filter` and `partition`), `arrays` (the array operations), `fused` (the fused
//! forms on the kernels of `crate::kernels`), `hist` (reductions by index), `looping`
//! (sequential loops), `sort`, `free_vars`, and `errors` (the first error, below).
//!
//! A runtime error unwinds with the lane it failed at, kept in its context, so that the error
//! the executor reports is the interpreter's first without rerunning the program (the module
//! `errors`, `flatten/errors.rs`; the rule is [`crate::exec`]'s).
//!
//! The lifting runs as the program runs: each node's lifted form is one or a few bulk runtime
//! calls over the current lanes (the lanes of a recursive call are only known at run time).
//! Fusion ([`crate::fuse`], the kernels of `crate::kernels`) fits at the same place: the bulk calls a node issues (`index_l` feeding the
//! multiply feeding `fold_vs` in smvm) are the vertices of its dependency graph, so a node's
//! lifted form can be fused before it runs.

use crate::check::{Types, node_key};
use crate::env::{Env, lookup};
use crate::error::{Error, Result};
use crate::ir::{Expr, Program, Type};
use crate::liveness;
use crate::lval::{LVal, LaneColumn, internal};
use crate::scalar_tree::{self, selectable};
use flatland_runtime::expr::native::Kernels;
use flatland_runtime::{Error as RtError, expr};
use flatland_segd::Segd;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// `$run` with `$f` the step of the built-in operator `$op` on the element type of column
/// `$col`, `$v` that column's values and `$T` their Rust type: one monomorphised instance per
/// (operator, type) through [`with_op!`](crate::kernels::operators::with_op), the runtime's
/// definitions of the operators. `$run` gives the runtime's `Result<Vec<$T>>`, which becomes a
/// lane column; inside it, `?` on an `Option` (another operand of the wrong type) declines like
/// a combination `with_op!` does not list: an internal error naming the step `$what`.
macro_rules! builtin {
    ($what:literal, $op:expr, $col:expr, |$f:ident, $v:ident: $T:ident| $run:expr) => {{
        use $crate::kernels::operators::{ColumnScalar as _, with_op};
        let col = $col;
        let typed = || {
            with_op!($op, col.ty(), |$f: $T| {
                let $v = $T::lanes(col)?;
                Some($run.map($T::col))
            })
        };
        typed()
            .ok_or_else(|| {
                $crate::lval::internal(
                    concat!("built-in ", $what, " on an unsupported type").into(),
                )
            })?
            .map_err(rt)?
    }};
}

mod arrays;
mod branches;
mod chains;
mod context;
mod errors;
mod filters;
mod free_vars;
mod fused;
mod hist;
mod iota_filter;
mod looping;
mod maps;
mod progressions;
mod reduce;
mod sort;

pub(crate) use context::Ctx;

fn invalid(op: &'static str, lane: usize, detail: String) -> Error {
    Error::Runtime(RtError::Invalid {
        op,
        detail: format!("lane {lane}: {detail}"),
    })
}

fn rt(e: RtError) -> Error {
    Error::Runtime(e)
}

/// Position of each element inside its segment (`0, 1, .., len - 1` per segment).
fn counts(op: &'static str, col: &LaneColumn, ctx: &Ctx) -> Result<Vec<usize>> {
    col.i64s()?
        .iter()
        .enumerate()
        .map(|(j, &n)| {
            usize::try_from(n)
                .map_err(|_| ctx.fail(j, invalid(op, ctx.lane(j), format!("negative length {n}"))))
        })
        .collect()
}

fn segd_of(lens: Vec<usize>) -> Result<Segd> {
    Segd::from_lengths(lens).map_err(|e| rt(e.into()))
}

/// Lifted values with the positions they belong at.
type Parts = Vec<(Vec<usize>, LVal)>;

/// Values of `parts` (positions, values) placed at their positions; the positions of all parts
/// together are `0..total`, each once.
fn assemble(parts: Parts, total: usize) -> Result<LVal> {
    let mut inv = vec![0usize; total];
    let mut k = 0;
    let mut all: Option<LVal> = None;
    for (pos, vals) in parts {
        for p in pos {
            inv[p] = k;
            k += 1;
        }
        all = Some(match all {
            None => vals,
            Some(a) => LVal::append(&a, &vals)?,
        });
    }
    let all = all.ok_or_else(|| internal("assemble of nothing".into()))?;
    if k != total {
        return Err(internal(format!(
            "assemble: {k} values for {total} positions"
        )));
    }
    all.gather(&inv)
}

/// The lifting transformation, run over a checked program.
pub(crate) struct Flattener<'p> {
    program: &'p Program,
    types: Arc<Types>,
    free: RefCell<HashMap<usize, Arc<Vec<String>>>>,
    /// Compiled scalar trees, per node (a node's tree and input types never change).
    compiled: RefCell<HashMap<usize, Arc<expr::CompiledExpr>>>,
    /// Whether redomaps may run as single-pass kernels ([`crate::fuse`]).
    fuse: bool,
    /// Where each variable is used last (computed once for the whole program).
    live: Arc<liveness::Liveness>,
    /// The run's call depth, against its limit ([`crate::limits`]).
    depth: crate::limits::Depth,
    /// The program's native kernels (attached to every expression program compiled here).
    kernels: Arc<Kernels>,
    /// Where the single-pass steps record their routes.
    trace: Arc<crate::trace::Trace>,
    /// Which nodes may fail (computed once for the whole program).
    fallible: Arc<crate::fallible::Fallible>,
    /// The free variables of the roots that settle errors ([`errors`]), per node.
    root_free: RefCell<HashMap<usize, Arc<Vec<String>>>>,
    /// The index columns this run's fused gathers went through, and their ranges.
    index_ranges: crate::kernels::IndexRanges,
}

/// The last uses of variables in `program` (whose node types are `types`).
pub(crate) fn analyse(program: &Program, types: &Types) -> liveness::Liveness {
    liveness::Liveness::of(program, &|e| !selectable(types, e))
}

impl<'p> Flattener<'p> {
    /// A flattener over a checked program, its node types, its liveness ([`analyse`]) and
    /// which of its nodes may fail, computed once per prepared program.
    pub(crate) fn planned(
        program: &'p Program,
        types: Arc<Types>,
        live: Arc<liveness::Liveness>,
        kernels: Arc<Kernels>,
        trace: Arc<crate::trace::Trace>,
        fallible: Arc<crate::fallible::Fallible>,
    ) -> Flattener<'p> {
        Flattener {
            program,
            live,
            types,
            kernels,
            trace,
            free: RefCell::default(),
            compiled: RefCell::default(),
            fuse: false,
            depth: crate::limits::Depth::new(),
            fallible,
            root_free: RefCell::default(),
            index_ranges: crate::kernels::IndexRanges::default(),
        }
    }

    /// Lets redomaps run as single-pass kernels where [`crate::fuse`] accepts them.
    pub(crate) fn with_fuse(mut self, fuse: bool) -> Flattener<'p> {
        self.fuse = fuse;
        self
    }

    fn ty(&self, e: &Expr) -> Result<&Type> {
        self.types
            .get(&node_key(e))
            .ok_or_else(|| internal(format!("no type for `{}`", crate::check::short(e))))
    }

    fn eval(&self, e: &Expr, env: &mut Env, ctx: &Ctx) -> Result<LVal> {
        if ctx.n == 0 {
            return Ok(LVal::empty(self.ty(e)?));
        }
        flatland_runtime::stats::record_nodes_walked(1);
        let root = self.root_env(e, env)?;
        let r = stacker::maybe_grow(128 * 1024, 4 * 1024 * 1024, || self.eval_inner(e, env, ctx));
        self.release(e, env);
        r.map_err(|err| self.unwound(e, err, ctx, root))
    }

    /// Releases the variables (or tuple components) whose last use is `e`.
    fn release(&self, e: &Expr, env: &mut Env) {
        let Some(ks) = self.live.kills.get(&node_key(e)) else {
            return;
        };
        for (n, keep) in ks {
            let Some((_, slot)) = env.iter_mut().rev().find(|(m, _)| m == n) else {
                continue;
            };
            match (keep, slot) {
                (None, slot) => *slot = None,
                (Some(keep), Some(LVal::Tuple(vs))) => {
                    for (i, v) in vs.iter_mut().enumerate() {
                        if !keep.contains(&i) {
                            *v = liveness::hollow(v);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn eval_inner(&self, e: &Expr, env: &mut Env, ctx: &Ctx) -> Result<LVal> {
        Ok(match e {
            Expr::Var(n) => lookup(env, n)?.clone(),
            Expr::Lit(_) | Expr::Unary(..) | Expr::Binary(..) | Expr::Ternary(..) => {
                self.scalar(e, env, ctx)?
            }
            Expr::Tuple(es) => LVal::Tuple(
                es.iter()
                    .map(|x| self.eval(x, env, ctx))
                    .collect::<Result<_>>()?,
            ),
            Expr::Proj(t, i) if matches!(**t, Expr::Filter(..)) => {
                self.filter_class(t, *i, env, ctx)?
            }
            Expr::Proj(t, i) => match self.eval(t, env, ctx)? {
                LVal::Tuple(mut vs) if *i < vs.len() => vs.swap_remove(*i),
                _ => return Err(internal("projection of a non-tuple".into())),
            },
            Expr::Let(n, v, b) => {
                let v = self.eval(v, env, ctx)?;
                env.push((n.clone(), Some(v)));
                let r = self.eval(b, env, ctx);
                env.pop();
                r?
            }
            Expr::If(..) if self.selectable(e) => self.scalar(e, env, ctx)?,
            Expr::If(c, a, b) => self.lifted_if(e, c, a, b, env, ctx)?,
            Expr::Call(name, args) => {
                let args = args
                    .iter()
                    .map(|a| self.eval(a, env, ctx))
                    .collect::<Result<_>>()?;
                self.call(name, args, ctx)?
            }
            Expr::Fused(f) => self.fused(f, env, ctx)?,
            _ => self.array_op(e, env, ctx)?,
        })
    }

    /// Whether `e` is an `if` on scalars whose branches are trees of operators that cannot fail:
    /// evaluating both branches on every lane is then unobservable, and the `if` becomes the
    /// expression machine's `select` instead of packing lanes.
    fn selectable(&self, e: &Expr) -> bool {
        selectable(&self.types, e)
    }

    /// A tree of scalar operators, compiled to one expression-machine program over all lanes;
    /// the other nodes under it are evaluated lifted (in order) and become its input columns.
    fn scalar(&self, e: &Expr, env: &mut Env, ctx: &Ctx) -> Result<LVal> {
        let mut nodes = Vec::new();
        scalar_tree::scalar_shape(&self.types, e, &mut nodes);
        let inputs = nodes
            .iter()
            .map(|n| Ok(self.eval(n, env, ctx)?.col()?.clone()))
            .collect::<Result<Vec<LaneColumn>>>()?;
        self.scalar_of(e, &inputs, ctx)
    }

    /// The scalar operator tree `e` run over all lanes of `ctx` on its evaluated input columns
    /// (the nodes [`scalar_tree::scalar_shape`] lists, in order); compiled once per node.
    fn scalar_of(&self, e: &Expr, inputs: &[LaneColumn], ctx: &Ctx) -> Result<LVal> {
        let key = node_key(e);
        let cached = self.compiled.borrow().get(&key).cloned();
        let program = if let Some(p) = cached {
            p
        } else {
            let tree = scalar_tree::scalar_shape(&self.types, e, &mut Vec::new());
            let types: Vec<_> = inputs.iter().map(LaneColumn::ty).collect();
            let p = Arc::new(
                (expr::CompiledExpr::compile(&tree, &types).map_err(rt)?)
                    .with_kernels(&self.kernels),
            );
            self.compiled.borrow_mut().insert(key, p.clone());
            p
        };
        let refs: Vec<_> = inputs.iter().map(LaneColumn::as_ref).collect();
        let out = program.eval(&refs, ctx.n).map_err(|e| ctx.fix(e))?;
        Ok(LVal::Scalar(LaneColumn::from_column(out)))
    }

    /// The parts of an `append` chain (its operands, through nested appends, in order),
    /// evaluated in the order the nested appends would evaluate them; a nested append's
    /// bindings used last are released once its operands are evaluated, as it would release
    /// them.
    fn append_parts(&self, e: &Expr, env: &mut Env, ctx: &Ctx, out: &mut Vec<LVal>) -> Result<()> {
        let Expr::Append(a, b) = e else {
            out.push(self.eval(e, env, ctx)?);
            return Ok(());
        };
        for x in [a, b] {
            if matches!(**x, Expr::Append(..)) {
                self.append_parts(x, env, ctx, out)?;
                self.release(x, env);
            } else {
                out.push(self.eval(x, env, ctx)?);
            }
        }
        Ok(())
    }

    fn array_op(&self, e: &Expr, env: &mut Env, ctx: &Ctx) -> Result<LVal> {
        let mut ev = |x: &Expr| self.eval(x, env, ctx);
        Ok(match e {
            Expr::ArrayLit(t, es) => {
                let vals = es.iter().map(&mut ev).collect::<Result<Vec<_>>>()?;
                arrays::array_lit(t, vals, ctx)?
            }
            Expr::Index(a, i) => {
                let (a, i) = (ev(a)?, ev(i)?);
                arrays::index(&a, &i, ctx)?
            }
            Expr::Length(a) => arrays::length(&ev(a)?)?,
            Expr::Iota { len, start, step } => {
                let (l, s, d) = (ev(len)?, ev(start)?, ev(step)?);
                arrays::iota(&l, &s, &d, ctx)?
            }
            Expr::Replicate(c, x) => {
                let (c, x) = (ev(c)?, ev(x)?);
                arrays::replicate(&c, &x, ctx)?
            }
            Expr::Slice(a, s, l) => {
                let (a, s, l) = (ev(a)?, ev(s)?, ev(l)?);
                arrays::slice(&a, &s, &l, ctx)?
            }
            Expr::Append(..) => {
                // A chain `append(append(a, b), c)` copies its parts once, into lane order.
                let mut parts = Vec::new();
                self.append_parts(e, env, ctx, &mut parts)?;
                arrays::append(parts)?
            }
            Expr::Concat(a) => arrays::concat(&ev(a)?)?,
            Expr::Sort(op, a) => sort::sort(*op, &ev(a)?)?,
            Expr::Scatter(d, i, v) => {
                let (d, i) = (ev(d)?, ev(i)?);
                let values = match &**v {
                    Expr::Replicate(c, x) if self.ty(x)?.scalar().is_some() => {
                        let (count, x) = (self.eval(c, env, ctx)?, self.eval(x, env, ctx)?);
                        self.release(v, env);
                        arrays::Values::Replicated { count, x }
                    }
                    _ => arrays::Values::Arrays(self.eval(v, env, ctx)?),
                };
                arrays::scatter(&d, &i, values, ctx)?
            }
            Expr::Map(f, arrays) => self.lifted_map(f, arrays, env, ctx, "map", Some(e))?,
            Expr::Reduce(op, z, a) => {
                let z = self.eval(z, env, ctx)?;
                let a = self.eval(a, env, ctx)?;
                self.lifted_reduce(op, &z, &a, env, ctx)?
            }
            Expr::Scan(op, z, a) => {
                let z = self.eval(z, env, ctx)?;
                let a = self.eval(a, env, ctx)?;
                self.lifted_scan(op, &z, &a, env, ctx)?
            }
            Expr::Redomap(op, z0, f, arrays) => {
                let z = if matches!(**z0, Expr::Lit(_)) {
                    None
                } else {
                    Some(self.eval(z0, env, ctx)?)
                };
                let vals: Vec<LVal> = arrays
                    .iter()
                    .map(|a| self.eval(a, env, ctx))
                    .collect::<Result<_>>()?;
                self.redomap_of(op, z0, z, f, vals, env, ctx)?
            }
            Expr::Hist {
                bins,
                op,
                identity,
                indices,
                values,
            } => {
                let counts = hist::bin_counts(&self.eval(bins, env, ctx)?, ctx)?;
                let z = self.eval(identity, env, ctx)?;
                let ks = self.eval(indices, env, ctx)?;
                let vs = self.eval(values, env, ctx)?;
                self.lifted_hist(op, &counts, &z, (&ks, &vs), env, ctx)?
            }
            Expr::Loop { init, form, body } => self.lifted_loop(e, (init, form, body), env, ctx)?,
            Expr::Filter(ps, a) => {
                let (segd, xs) = self.elements_of(a, env, ctx)?;
                self.filter_all(ps, &segd, &xs, env)?
            }
            Expr::Partition {
                classes,
                interest,
                key,
                array,
            } => {
                let (segd, xs) = self.elements_of(array, env, ctx)?;
                self.partition_of(*classes, interest, key, &segd, &xs, env)?
            }
            other => {
                return Err(internal(format!(
                    "not an array operation: {}",
                    other.kind()
                )));
            }
        })
    }
}
