//! Filter keys and masks in one pass ("map into the key computation"): the predicates of a
//! `filter` become one expression-machine tree over the elements (`p0 ? 0 : p1 ? 1 : .. : n`,
//! or one class's mask), computed speculatively on every element (module `elements`) instead
//! of one lazy pass per predicate over the elements still unclassified.
//!
//! Cost: one pass over the elements, every predicate computed on every element; it gives up
//! (`None`) where a predicate fails on an element whose class depends on it.

use super::elements::eval_on_elements;
use super::lambda::{LambdaCompiler, safe};
use crate::env::Env;
use crate::ir::Lambda;
use crate::lval::LVal;
use flatland_runtime::expr;
use flatland_runtime::expr::native::Kernels;
use flatland_segd::Segd;

/// The class keys of `filter(ps, xs)` in one pass ("map into the key computation"): the
/// predicates become one expression-machine program `p0 ? 0 : p1 ? 1 : .. : n` over the
/// elements `xs` (contiguous, in segment order, the segments of `segd`), instead of one lazy
/// pass per predicate over the elements still unclassified. Every predicate is computed on
/// every element (`if`s, `&&` and `||` as selects, when their branches cannot fail but by
/// reading a free array), so this gives up (`None`) where one fails: an operator error, or an
/// index out of range whose value an element's class depends on (the lazy steps then report
/// the error, or skip the reads that are not needed).
/// The predicates read their parameter (its fields), free scalars (one value per segment,
/// repeated over its elements), constants and free arrays indexed (`flags[i]`); `None`
/// otherwise.
pub(crate) fn filter_keys(
    ps: &[Lambda],
    xs: &LVal,
    segd: &Segd,
    env: &Env,
    kernels: &Kernels,
) -> Option<Vec<u8>> {
    let (c, tree) = filter_key_tree(ps, xs, env, kernels)?;
    let out = eval_on_elements(&c, &tree, xs, segd)?;
    Some(out.as_i64()?.iter().map(|&k| k as u8).collect())
}

/// The tree of [`filter_keys`], `p0 ? 0 : p1 ? 1 : .. : n`, and its compiler.
pub(super) fn filter_key_tree<'a>(
    ps: &[Lambda],
    xs: &'a LVal,
    env: &'a Env,
    kernels: &'a Kernels,
) -> Option<(LambdaCompiler<'a>, expr::ColumnExpr)> {
    let (c, conds) = predicates(ps, ps.len(), xs, env, kernels)?;
    let mut tree = expr::ColumnExpr::constant(ps.len() as i64);
    for (k, cond) in conds.into_iter().enumerate().rev() {
        tree = cond.select(expr::ColumnExpr::constant(k as i64), tree);
    }
    Some((c, tree))
}

/// Which elements of `xs` (the segments of `segd`) fall in class `class` of `filter(ps, xs)`,
/// as a mask computed in one expression-machine pass: `p0 ? c == 0 : p1 ? c == 1 : ..`, only
/// the predicates up to `class` compiled, under the conditions of [`filter_keys`]. The later
/// predicates are not computed, so they must be ones that cannot fail (not computing them is
/// then unobservable).
pub(crate) fn filter_mask(
    ps: &[Lambda],
    class: usize,
    xs: &LVal,
    segd: &Segd,
    env: &Env,
    kernels: &Kernels,
) -> Option<bitvec::vec::BitVec> {
    let (c, tree) = filter_mask_tree(ps, class, xs, env, kernels)?;
    match eval_on_elements(&c, &tree, xs, segd)? {
        expr::Column::Bool(bits) => Some(bits),
        _ => None,
    }
}

/// The tree of [`filter_mask`] and its compiler.
pub(super) fn filter_mask_tree<'a>(
    ps: &[Lambda],
    class: usize,
    xs: &'a LVal,
    env: &'a Env,
    kernels: &'a Kernels,
) -> Option<(LambdaCompiler<'a>, expr::ColumnExpr)> {
    // The predicates after `class` are not evaluated: they must not be able to fail (the lazy
    // steps would report their error).
    if class > ps.len()
        || !ps[(class + 1).min(ps.len())..]
            .iter()
            .all(|p| safe(&p.body))
    {
        return None;
    }
    let (c, mut conds) = predicates(ps, (class + 1).min(ps.len()), xs, env, kernels)?;
    // Class `class`'s own predicate is the innermost condition; the earlier ones exclude.
    let mut tree = if class < ps.len() {
        conds.pop()?
    } else {
        expr::ColumnExpr::constant(true)
    };
    for cond in conds.into_iter().rev() {
        tree = cond.select(expr::ColumnExpr::constant(false), tree);
    }
    Some((c, tree))
}

/// The first `count` predicates of `ps` compiled over the elements `xs` by a speculative
/// compiler, when every one of them takes one parameter.
fn predicates<'a>(
    ps: &[Lambda],
    count: usize,
    xs: &'a LVal,
    env: &'a Env,
    kernels: &'a Kernels,
) -> Option<(LambdaCompiler<'a>, Vec<expr::ColumnExpr>)> {
    let mut c = LambdaCompiler::new(env, Vec::new(), vec![xs], kernels);
    c.speculative = true;
    let mut conds = Vec::with_capacity(count);
    for p in &ps[..count] {
        if p.params.len() != 1 {
            return None;
        }
        c.params = vec![p.params[0].0.clone()];
        conds.push(c.tree(&p.body)?);
    }
    Some((c, conds))
}
