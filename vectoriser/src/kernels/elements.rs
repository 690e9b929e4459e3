//! One compiled tree over all the elements of a filter or partition at once (not block by
//! block): free scalars and lengths repeated over the elements (module `repeat` keeps the last
//! repetition for sibling filters), gathers read lane by lane, leniently under a speculative
//! compiler, and the result kept only where no element's value depends on a read out of range
//! (module `poison`).
//!
//! Cost: one expression-machine run over the elements, one full-size column per free scalar
//! (unless remembered) and per gather; a poison run only when some gather read out of range.

use super::block::{BlockColumn, eval, gather, gather_lenient, whole};
use super::lambda::{LambdaCompiler, Source, field};
use super::poison::poison_program;
use crate::env::lookup;
use crate::lval::{LVal, LaneColumn};
use flatland_runtime::expr::{self, ColumnRef, CompiledExpr};
use flatland_runtime::fused::Piece;
use flatland_runtime::seg;
use flatland_segd::Segd;

/// `tree` (compiled by `c` over one parameter, the elements `xs` in the segments of `segd`,
/// free scalars and gathers from free arrays) on every element; `None` where it fails. A
/// speculative compiler's gathers forgive indices out of range; the result then stands only if
/// no element's value depends on one (its poison, see [`poison`], is false everywhere).
pub(super) fn eval_on_elements(
    c: &LambdaCompiler<'_>,
    tree: &expr::ColumnExpr,
    xs: &LVal,
    segd: &Segd,
) -> Option<expr::Column> {
    let n = segd.elements();
    // Gathers read lane by lane: one piece per segment, built only for them (deep in a
    // recursion there can be a segment for every other element).
    let pieces: Vec<Piece> = if c.srcs.iter().any(|s| matches!(s, Source::Gather(..))) {
        (segd.iter().enumerate())
            .map(|(segment, (_, len))| Piece {
                segment,
                offset: 0,
                len,
            })
            .collect()
    } else {
        Vec::new()
    };
    // Free scalars and lengths, one value per segment, repeated over its elements (in bulk).
    let repeated: Vec<Option<LaneColumn>> = (c.srcs.iter())
        .map(|s| {
            Some(match s {
                Source::Free(name, path) => {
                    let v = field(lookup(c.env, name).ok()?, path)?;
                    Some(super::repeat::repeated(v.col().ok()?, segd)?)
                }
                Source::Len(name, path) => {
                    let (v, _) = field(lookup(c.env, name).ok()?, path)?.array().ok()?;
                    let lens: Vec<i64> = v.lengths().into_iter().map(|l| l as i64).collect();
                    Some(LaneColumn::I64(seg::replicate_s(segd, &lens).ok()?.into()))
                }
                _ => None,
            })
        })
        .collect::<Option<_>>()?;
    let mut cols: Vec<BlockColumn<'_>> = Vec::with_capacity(c.srcs.len());
    // Per source, the positions of its elements read out of range (gathers only).
    let mut bad: Vec<Vec<usize>> = Vec::with_capacity(c.srcs.len());
    for (s, rep) in c.srcs.iter().zip(&repeated) {
        let (col, out_of_range) = match s {
            Source::Param(0, path) => (whole(field(xs, path)?.col().ok()?), Vec::new()),
            Source::Free(..) | Source::Len(..) => (whole(rep.as_ref()?), Vec::new()),
            Source::Gather(name, path, p, at) => {
                let (v, el) = field(lookup(c.env, name).ok()?, path)?.array().ok()?;
                let computed;
                let idx = if let Some(k) = at {
                    &cols[*k]
                } else {
                    computed = eval(p, &cols, n).ok()?;
                    &computed
                };
                let BlockColumn::I64(idx) = idx else {
                    return None;
                };
                if c.speculative {
                    gather_lenient(v, el.col().ok()?, idx, &pieces)
                } else {
                    (gather(v, el.col().ok()?, idx, &pieces).ok()?, Vec::new())
                }
            }
            Source::Param(..) => return None,
        };
        cols.push(col);
        bad.push(out_of_range);
    }
    let refs: Vec<ColumnRef<'_>> = cols.iter().map(BlockColumn::as_ref).collect();
    let out = (CompiledExpr::compile(tree, &c.types).ok()?)
        .with_kernels(c.kernels)
        .eval(&refs, n)
        .ok()?;
    if bad.iter().all(Vec::is_empty) {
        return Some(out);
    }
    // Some gathers read out of range: one flag column per such source, and the result stands
    // where no element's value depends on a flagged read.
    let flagged: Vec<usize> = (0..bad.len()).filter(|&k| !bad[k].is_empty()).collect();
    let Some((p, types)) = poison_program(c, tree, &flagged) else {
        return Some(out);
    };
    let flag_cols: Vec<Vec<bool>> = (flagged.iter())
        .map(|&k| {
            let mut f = vec![false; n];
            for &i in &bad[k] {
                f[i] = true;
            }
            f
        })
        .collect();
    let mut refs = refs;
    refs.extend(flag_cols.iter().map(|f| ColumnRef::Bool(f)));
    let poisoned = (CompiledExpr::compile(&p, &types).ok()?)
        .with_kernels(c.kernels)
        .eval(&refs, n)
        .ok()?;
    match poisoned {
        expr::Column::Bool(bits) if bits.not_any() => Some(out),
        _ => None,
    }
}
