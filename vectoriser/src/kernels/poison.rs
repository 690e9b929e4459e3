//! Poison tracking for speculative gathers: which elements' values depend on a read out of
//! range, as an expression-machine tree over flag columns (a select depends on the branch it
//! takes only; a gather on its own flags and on its index), and the poison programs a filter's
//! tree may need ahead of time (for the native kernels).
//!
//! Cost: the tree is built by one walk of the compiled tree; running it is one pass over the
//! elements, only when some gather read out of range.

use super::lambda::{LambdaCompiler, Source};
use crate::ir::{BinaryOp, ScalarType};
use flatland_runtime::expr::{self, CompiledExpr, Node};

/// The other programs a filter's key or mask tree `t` may run: the index programs of its
/// gathers, and its poison programs for every set of gathers that may read out of range (all
/// of them up to three gathers; more are left to the expression machine).
pub(super) fn filter_extras(
    c: &LambdaCompiler<'_>,
    t: &expr::ColumnExpr,
    out: &mut Vec<CompiledExpr>,
) {
    let gathers: Vec<usize> = (0..c.srcs.len())
        .filter(|&k| matches!(c.srcs[k], Source::Gather(..)))
        .collect();
    for &k in &gathers {
        if let Source::Gather(_, _, p, None) = &c.srcs[k] {
            out.push((**p).clone());
        }
    }
    if gathers.len() > 3 {
        return;
    }
    for set in 1..1usize << gathers.len() {
        let flagged: Vec<usize> = (gathers.iter().enumerate())
            .filter(|(j, _)| set >> j & 1 == 1)
            .map(|(_, &k)| k)
            .collect();
        if let Some((p, types)) = poison_program(c, t, &flagged) {
            out.extend(CompiledExpr::compile(&p, &types));
        }
    }
}

/// The poison tree of `tree` (see [`poison`]) when the sources `flagged` (in order) had reads
/// out of range, their flag columns being the inputs after the sources, with the input types;
/// `None` when no element's value can depend on them.
pub(super) fn poison_program(
    c: &LambdaCompiler<'_>,
    tree: &expr::ColumnExpr,
    flagged: &[usize],
) -> Option<(expr::ColumnExpr, Vec<ScalarType>)> {
    let mut flags = vec![None; c.srcs.len()];
    for (j, &k) in flagged.iter().enumerate() {
        flags[k] = Some(c.types.len() + j);
    }
    let p = poison(tree, &flags, &c.index_trees)?;
    let mut types = c.types.clone();
    types.extend(flagged.iter().map(|_| ScalarType::Bool));
    Some((p, types))
}

/// Whether `tree`'s value on an element depends on a read flagged in its input column
/// `flags[k]` (for source `k`), as a tree; `None` where it never does. A select depends on the
/// branch it takes only; a gather on its own flags and on its index (`index_trees`: an index
/// computed from a flagged read may be anything).
fn poison(
    tree: &expr::ColumnExpr,
    flags: &[Option<usize>],
    index_trees: &[(usize, expr::ColumnExpr)],
) -> Option<expr::ColumnExpr> {
    let poison = |t: &expr::ColumnExpr| poison(t, flags, index_trees);
    let or = |a: Option<expr::ColumnExpr>, b: Option<expr::ColumnExpr>| match (a, b) {
        (Some(a), Some(b)) => Some(a.binary(BinaryOp::Or, b)),
        (a, b) => a.or(b),
    };
    match tree.node() {
        Node::Input(k) => {
            let own = flags
                .get(*k)
                .copied()
                .flatten()
                .map(expr::ColumnExpr::input);
            let index = index_trees.iter().find(|(j, _)| j == k);
            or(own, index.and_then(|(_, t)| poison(t)))
        }
        Node::Const(_) | Node::Iota { .. } => None,
        Node::Unary(_, a) => poison(a),
        Node::Binary(_, a, b) => or(poison(a), poison(b)),
        Node::Ternary(_, a, b, c) => or(or(poison(a), poison(b)), poison(c)),
        Node::Select(c, a, b) => {
            let taken = match (poison(a), poison(b)) {
                (None, None) => None,
                (a, b) => {
                    let no = || expr::ColumnExpr::constant(false);
                    Some(c.clone().select(a.unwrap_or_else(no), b.unwrap_or_else(no)))
                }
            };
            or(poison(c), taken)
        }
    }
}
