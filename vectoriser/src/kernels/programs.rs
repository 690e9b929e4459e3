//! The expression-machine programs the kernels compile for a node, listed without running it,
//! so that `#[vectorise]` can compile them ahead of time to native kernels ([`crate::native`]).
//!
//! Cost: one compilation per node, no lanes.

use super::block::{arrays_of, out_programs};
use super::filter_keys::{filter_key_tree, filter_mask_tree};
use super::lambda::{LambdaCompiler, Source, body_outs, class_trees};
use super::poison::filter_extras;
use crate::env::Env;
use crate::fuse::rules::componentwise;
use crate::ir::{Expr, FusedForm, Lambda};
use crate::lval::LVal;
use flatland_runtime::expr::native::Kernels;
use flatland_runtime::expr::{self, CompiledExpr};

/// The expression-machine programs the kernels above compile for node `e` (a redomap, a filter,
/// a partition or a fused form), found without running anything: `env` binds every variable
/// `e` reads to a value of its type (with no lanes: the kernels read only shapes before they
/// compile) and `elems(a)` gives the elements of array expression `a` likewise. The native
/// kernels of `#[vectorise]` are compiled from these ([`crate::native`]).
pub(crate) fn programs_for(
    e: &Expr,
    env: &Env,
    elems: &dyn Fn(&Expr) -> Option<LVal>,
) -> Vec<CompiledExpr> {
    let mut out = Vec::new();
    // Programs are listed by key: no kernels attached.
    let none = Kernels::new();
    // Block programs of `outs` and the index programs of gathers.
    let blocks =
        |c: &LambdaCompiler<'_>, outs: &[expr::ColumnExpr], out: &mut Vec<CompiledExpr>| {
            for s in &c.srcs {
                if let Source::Gather(_, _, p, _) = s {
                    out.push((**p).clone());
                }
            }
            if let Some((ps, _)) = out_programs(c, outs) {
                out.extend(ps);
            }
        };
    let params = |f: &Lambda| f.params.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    match e {
        Expr::Redomap(op, _, f, arrays) => {
            let fields = op
                .bin_op()
                .map_or_else(|| componentwise(op).map(|o| o.len()), |_| None);
            let args: Option<Vec<LVal>> = arrays.iter().map(elems).collect();
            if let Some(args) = args {
                let mut c = LambdaCompiler::new(env, params(f), args.iter().collect(), &none);
                if let Some(outs) = body_outs(&mut c, &f.body, fields) {
                    blocks(&c, &outs, &mut out);
                }
            }
        }
        Expr::Filter(ps, a) => {
            if let Some(xs) = elems(a) {
                // The keys of every class, and each class's own mask.
                let trees = std::iter::once(filter_key_tree(ps, &xs, env, &none))
                    .chain((0..=ps.len()).map(|k| filter_mask_tree(ps, k, &xs, env, &none)));
                for (c, t) in trees.flatten() {
                    out.extend(CompiledExpr::compile(&t, &c.types));
                    filter_extras(&c, &t, &mut out);
                }
            }
        }
        Expr::Partition { key, array, .. } => {
            if let (Some(xs), [(p, _)]) = (elems(array), &key.params[..]) {
                let mut c = LambdaCompiler::new(env, vec![p.clone()], vec![&xs], &none);
                if let Some(t) = c.tree(&key.body) {
                    out.extend(CompiledExpr::compile(&t, &c.types));
                }
            }
        }
        Expr::Fused(fu) => match &fu.form {
            FusedForm::Scanomap { f, arrays, .. } => {
                if let Some(descs) = arrays_of(arrays, env) {
                    let mut c = LambdaCompiler::new(
                        env,
                        params(f),
                        descs.iter().map(|(_, e)| *e).collect(),
                        &none,
                    );
                    if let Some(outs) = body_outs(&mut c, &f.body, None) {
                        blocks(&c, &outs, &mut out);
                    }
                }
            }
            // The progressions are a lifted map: no kernel of their own.
            FusedForm::ScatterProgressions { .. } => {}
            FusedForm::Classes(form) => {
                if let Some(descs) = arrays_of(std::slice::from_ref(&form.array), env) {
                    let mut c = LambdaCompiler::new(env, Vec::new(), vec![descs[0].1], &none);
                    if let Some((trees, _)) = class_trees(&mut c, form) {
                        blocks(&c, &trees, &mut out);
                    }
                }
            }
        },
        _ => {}
    }
    out
}
