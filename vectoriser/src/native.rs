//! The expression-machine programs the flattened executor runs for a program, known before it
//! runs, so that they can be compiled ahead of time (the `#[vectorise]` macro turns each into a
//! native kernel, [`flatland_runtime::expr::native`]).
//!
//! The executor compiles a program for every maximal tree of scalar operators it meets (the
//! other nodes under the tree become its input columns: the private module `scalar_tree`), for
//! the pairwise steps of built-in reductions and scans; ranges are `seg::iota_s`. The trees
//! depend on the IR and the node types only, so [`Prepared::expression_programs`] walks
//! the prepared (checked, fused) program and compiles each one as the executor will.
//!
//! The single-pass kernels of the forms [`crate::fuse`] makes (the private module `kernels`:
//! redomap, scanomap, class forms, filter and partition keys) and the reduction operators
//! written as lambdas (one program per field of the result) compile from the shapes of their
//! inputs; the walk asks them for those programs with values of the right types and no lanes.

use crate::Result;
use crate::check::{Types, node_key};
use crate::env::Env;
use crate::exec::Prepared;
use crate::fuse::Decide;
use crate::ir::{Expr, Program, ReduceOp, ScalarType, Type};
use crate::ir::{children, for_each_node};
use crate::kernels::{self, combine};
use crate::lval::LVal;
use crate::scalar_tree::{pair_tree, scalar_shape, selectable};
use flatland_runtime::expr;
use std::collections::HashSet;

/// Whether the executor evaluates `e` as the root of a scalar operator tree.
fn scalar_root(types: &Types, e: &Expr) -> bool {
    matches!(
        e,
        Expr::Lit(_) | Expr::Unary(..) | Expr::Binary(..) | Expr::Ternary(..)
    ) || selectable(types, e)
}

fn scalar_type(types: &Types, e: &Expr) -> Option<ScalarType> {
    types.get(&node_key(e))?.scalar()
}

/// Programs found so far, each once (by key).
#[derive(Default)]
struct Found {
    programs: Vec<expr::CompiledExpr>,
    keys: HashSet<String>,
}

impl Found {
    fn push(&mut self, p: expr::CompiledExpr) {
        if self.keys.insert(p.key()) {
            self.programs.push(p);
        }
    }

    fn compile(&mut self, tree: &expr::ColumnExpr, inputs: &[ScalarType]) {
        if let Ok(p) = expr::CompiledExpr::compile(tree, inputs) {
            self.push(p);
        }
    }
}

/// Walks `e`, adding the programs the executor compiles for it.
fn collect(types: &Types, e: &Expr, found: &mut Found) {
    if scalar_root(types, e) {
        let mut nodes = Vec::new();
        let tree = scalar_shape(types, e, &mut nodes);
        if let Some(inputs) = nodes
            .iter()
            .map(|n| scalar_type(types, n))
            .collect::<Option<Vec<_>>>()
        {
            found.compile(&tree, &inputs);
        }
        for n in nodes {
            collect(types, n, found);
        }
        return;
    }
    match e {
        Expr::Reduce(op, z, _)
        | Expr::Scan(op, z, _)
        | Expr::Redomap(op, z, ..)
        | Expr::Hist {
            op, identity: z, ..
        } => {
            if let (Some(bop), Some(t)) = (op.bin_op(), scalar_type(types, z)) {
                found.compile(&pair_tree(bop), &[t, t]);
            }
            if let (ReduceOp::Lambda(l), Some(t)) = (op, types.get(&node_key(z))) {
                for p in combine::programs(l, &LVal::empty(t), &shapes(types, &l.body)) {
                    found.push(p);
                }
            }
        }
        _ => {}
    }
    if matches!(
        e,
        Expr::Redomap(..) | Expr::Filter(..) | Expr::Partition { .. } | Expr::Fused(_)
    ) {
        // The single-pass kernels compile from shapes only: values of the right types with
        // no lanes stand for the variables and the arrays' elements.
        let env = shapes(types, e);
        let elems = |a: &Expr| match types.get(&node_key(a))? {
            Type::Array(el) => Some(LVal::empty(el)),
            _ => None,
        };
        for p in kernels::programs_for(e, &env, &elems) {
            found.push(p);
        }
    }
    let (exprs, lambdas) = children(e);
    for c in exprs {
        collect(types, c, found);
    }
    for l in lambdas {
        collect(types, &l.body, found);
    }
}

/// An environment of values with no lanes, of the types of the variables read under `e`.
fn shapes(types: &Types, e: &Expr) -> Env {
    variables(types, e)
        .into_iter()
        .map(|(n, t)| (n, Some(LVal::empty(&t))))
        .collect()
}

/// The variables read under `e` (lambda bodies and fused originals included), with the type
/// of their first occurrence.
fn variables(types: &Types, e: &Expr) -> Vec<(String, Type)> {
    let mut out: Vec<(String, Type)> = Vec::new();
    for_each_node(e, &mut |e| {
        if let Expr::Var(n) = e
            && !out.iter().any(|(m, _)| m == n)
            && let Some(t) = types.get(&node_key(e))
        {
            out.push((n.clone(), t.clone()));
        }
    });
    out
}

impl Prepared {
    /// Every expression-machine program the executor compiles when it runs this prepared
    /// program (any function, any input), each once; see the [module docs](self) for what is
    /// not covered.
    ///
    /// ```
    /// use flatland_vectoriser::{exec::{ExecOptions, Prepared}, programs};
    /// let (p, f) = programs::sum_squares();
    /// let prepared = Prepared::new(p.ir(), f.name(), &ExecOptions { fuse: false }).unwrap();
    /// let ps = prepared.expression_programs();
    /// // The identity `0.0` (one value per lane), `x * x` over the elements, the `+` steps of
    /// // the sum.
    /// assert_eq!(ps.len(), 3);
    /// assert!(ps.iter().any(|p| p.instructions().is_empty() && p.constants().len() == 1));
    /// ```
    pub fn expression_programs(&self) -> Vec<expr::CompiledExpr> {
        let mut found = Found::default();
        self.collect_programs(&mut found);
        found.programs
    }

    fn collect_programs(&self, found: &mut Found) {
        for f in &self.fused_program().functions {
            collect(self.node_types(), &f.body, found);
        }
    }
}

/// The expression-machine programs the executor may compile for any function of `p`, under
/// either outcome of every size-dependent fusion ([`Decide::FORCED`]), each once: what a build
/// compiles to native kernels without reading the machine profile, since the run decides the
/// fusions on its own machine. (Each cluster's kernels depend on its own decision only, so the
/// two forced outcomes cover every mix the run can decide.)
///
/// # Errors
/// A type error in the program.
///
/// ```
/// use flatland_vectoriser::{exec::{ExecOptions, Prepared}, fuse, native};
/// let p = fuse::fusion2();
/// let both = native::kernel_programs(&p).unwrap();
/// let run = Prepared::new(&p, "fusion2", &ExecOptions::default()).unwrap();
/// let keys: Vec<String> = both.iter().map(|k| k.key()).collect();
/// assert!(run.expression_programs().iter().all(|k| keys.contains(&k.key())));
/// ```
pub fn kernel_programs(p: &Program) -> Result<Vec<expr::CompiledExpr>> {
    let mut found = Found::default();
    if let Some(first) = p.functions.first() {
        for decide in Decide::FORCED {
            Prepared::deciding(p, &first.name, true, decide)?.collect_programs(&mut found);
        }
    }
    Ok(found.programs)
}
