//! The single-pass redomap kernel: a map body compiled to expression-machine programs over
//! blocks of whole leaves, folded straight into the canonical per-leaf accumulators with
//! [`fused::fold_blocks`]. Only block-sized buffers are allocated (inputs that are not
//! contiguous in memory, gathered `v[i]`, the mapped values of one block).
//!
//! Accepted: a built-in operator (or the component-wise operator of horizontal fusion) with an
//! identity equal on every lane, and a body made of constants, the parameters (and fields of
//! tuple parameters), free scalars, `let`, tuples, projections, scalar operators, `if` whose
//! branches cannot fail (as a select), and `index` of a free array of scalars. Anything else
//! keeps the unfused steps.
//!
//! The direct path (module `redomap_direct`) is tried first for a single `f64` fold. On an
//! index out of range it hands over to the block path, which gives up in turn, and the unfused
//! steps report the error.
//!
//! Cost: one pass over the elements (the block assembly's per block, module `block`), one leaf
//! fold per leaf, one combination per leaf; no array of mapped values.

use super::block::{BlockColumn, BlockPlan};
use super::index_ranges::IndexRanges;
use super::lambda::{LambdaCompiler, body_outs};
use super::operators::{accepts, column, combine, leaf};
use super::redomap_direct::direct_fold;
use crate::env::Env;
use crate::fuse::rules::componentwise;
use crate::ir::{Lambda, ReduceOp, Scalar};
use crate::lval::{LVal, uniform};
use flatland_runtime::expr::native::Kernels;
use flatland_runtime::fused::{self, Piece};
use flatland_segd::{Segd, VSegd};

/// `redomap(op, z, f, arrays)` over the lanes of the context in one pass, or `None` when the
/// kernel does not accept it or meets an error (the caller then runs the unfused steps, which
/// report the error as the unfused program does).
pub(crate) fn redomap(
    op: &ReduceOp,
    z: &LVal,
    f: &Lambda,
    arrays: &[LVal],
    env: &Env,
    kernels: &Kernels,
    ranges: &IndexRanges,
) -> Option<LVal> {
    let (ops, tuple) = match op.bin_op() {
        Some(b) => (vec![b], false),
        None => (componentwise(op)?, true),
    };
    let zs: Vec<Scalar> = match (z, tuple) {
        (LVal::Scalar(c), false) => vec![uniform(c)?],
        (LVal::Tuple(fs), true) if fs.len() == ops.len() => fs
            .iter()
            .map(|f| match f {
                LVal::Scalar(c) => uniform(c),
                _ => None,
            })
            .collect::<Option<_>>()?,
        _ => return None,
    };
    if zs.iter().zip(&ops).any(|(z, &o)| !accepts(o, z.ty())) || arrays.len() != f.params.len() {
        return None;
    }
    let descs: Vec<(&VSegd, &LVal)> = arrays
        .iter()
        .map(|a| match a {
            LVal::Array(v, e) => Some((v, &**e)),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let first = descs.first()?.0;
    if !descs[1..].iter().all(|(v, _)| v.same_lengths(first)) {
        return None;
    }
    let mut c = LambdaCompiler::new(
        env,
        f.params.iter().map(|(n, _)| n.clone()).collect(),
        descs.iter().map(|(_, e)| *e).collect(),
        kernels,
    );
    let outs = body_outs(&mut c, &f.body, tuple.then_some(ops.len()))?;
    let (plan, out_pos) = BlockPlan::new(&c, &outs, &descs, env)?;
    if out_pos
        .iter()
        .zip(&zs)
        .any(|(&k, z)| plan.ty(&c, k) != z.ty())
    {
        return None;
    }
    if !tuple
        && let Some(r) = direct_fold(
            descs[0].0, &outs[0], ops[0], zs[0], &c.srcs, &plan.data, ranges,
        )
    {
        return Some(r);
    }
    let segd = Segd::from_lengths(first.lengths()).ok()?;
    let produce = |pieces: &[Piece]| plan.produce(pieces);
    let results: Vec<Vec<Scalar>> = if tuple {
        let per_seg = fused::fold_blocks(
            &segd,
            zs.clone(),
            produce,
            |b: &Vec<BlockColumn<'_>>, r| {
                ops.iter()
                    .zip(&zs)
                    .zip(&out_pos)
                    .map(|((&o, &z), &k)| leaf(o, z, &b[k], r.clone()))
                    .collect()
            },
            |a: Vec<Scalar>, b: Vec<Scalar>| {
                a.into_iter()
                    .zip(b)
                    .zip(&ops)
                    .map(|((x, y), &o)| combine(o, x, y))
                    .collect()
            },
        )
        .ok()?;
        (0..ops.len())
            .map(|k| per_seg.iter().map(|v| v[k]).collect())
            .collect()
    } else {
        let (o, z, k) = (ops[0], zs[0], out_pos[0]);
        vec![
            fused::fold_blocks(
                &segd,
                z,
                produce,
                |b: &Vec<BlockColumn<'_>>, r| leaf(o, z, &b[k], r),
                |x, y| combine(o, x, y),
            )
            .ok()?,
        ]
    };
    let mut cols = results
        .into_iter()
        .zip(&zs)
        .map(|(vals, z)| LVal::Scalar(column(z.ty(), vals.into_iter())));
    Some(if tuple {
        LVal::Tuple(cols.collect())
    } else {
        cols.next()?
    })
}
