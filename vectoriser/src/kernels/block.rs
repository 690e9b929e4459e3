//! Block assembly: the columns a kernel's programs read for one block of whole leaves
//! ([`fused::Piece`]s, at most [`fused::BLOCK`] elements): array elements taken in place when
//! the pieces are contiguous in memory (borrowed, no copy) or copied otherwise, free scalars
//! repeated over their lane's elements, gathers `v[i]` read lane by lane, then the programs of
//! the outputs that are not sources themselves. The element loops are the runtime's
//! ([`fused::take_pieces`], [`fused::repeat_pieces`], [`fused::gather_pieces`]); this file
//! resolves a kernel's sources to typed columns and runs them.
//!
//! Cost per block: one copy of each non-contiguous input and each repeated scalar, one read per
//! gathered element, one expression-machine run per output program; buffers are block-sized.

use super::lambda::{LambdaCompiler, Source, field};
use crate::env::{Env, lookup};
use crate::ir::ScalarType;
use crate::lval::{LVal, LaneColumn};
use flatland_runtime::expr::{self, ColumnMut, ColumnRef, CompiledExpr, Node, Parallelism};
use flatland_runtime::fused::{self, Piece};
use flatland_runtime::{Error as RtError, Result as RtResult, stats};
use flatland_segd::{Segd, VSegd};
use std::borrow::Cow;

/// A source resolved to its data. A gather whose index is a source itself reads that column in
/// place.
pub(super) enum SourceData<'a> {
    Param(&'a VSegd, &'a LaneColumn),
    Free(&'a LaneColumn),
    Gather(&'a VSegd, &'a LaneColumn, &'a CompiledExpr, Option<usize>),
}

/// A block's column: borrowed in place when contiguous, else block-sized and owned.
pub(crate) enum BlockColumn<'a> {
    I64(Cow<'a, [i64]>),
    F64(Cow<'a, [f64]>),
    Bool(Cow<'a, [bool]>),
}

impl BlockColumn<'_> {
    pub(super) fn as_ref(&self) -> ColumnRef<'_> {
        match self {
            BlockColumn::I64(v) => ColumnRef::I64(v),
            BlockColumn::F64(v) => ColumnRef::F64(v),
            BlockColumn::Bool(v) => ColumnRef::Bool(v),
        }
    }
}

/// The elements of `pieces` taken from `col` at `at(piece)` (a start in `col`), borrowed when
/// they are consecutive: the runtime's [`fused::take_pieces`] on the column's type.
fn take<'a>(
    col: &'a LaneColumn,
    pieces: &[Piece],
    at: impl Fn(&Piece) -> usize,
) -> BlockColumn<'a> {
    use fused::take_pieces as go;
    match col {
        LaneColumn::I64(v) => BlockColumn::I64(go(v, pieces, at)),
        LaneColumn::F64(v) => BlockColumn::F64(go(v, pieces, at)),
        LaneColumn::Bool(v) => BlockColumn::Bool(go(v, pieces, at)),
    }
}

/// One value per lane, repeated over the lane's elements in the block: the runtime's
/// [`fused::repeat_pieces`] on the column's type.
pub(super) fn repeat(col: &LaneColumn, pieces: &[Piece]) -> BlockColumn<'static> {
    use fused::repeat_pieces as go;
    match col {
        LaneColumn::I64(v) => BlockColumn::I64(Cow::Owned(go(v, pieces))),
        LaneColumn::F64(v) => BlockColumn::F64(Cow::Owned(go(v, pieces))),
        LaneColumn::Bool(v) => BlockColumn::Bool(Cow::Owned(go(v, pieces))),
    }
}

pub(super) fn eval(
    p: &CompiledExpr,
    inputs: &[BlockColumn<'_>],
    len: usize,
) -> RtResult<BlockColumn<'static>> {
    let refs: Vec<ColumnRef<'_>> = inputs.iter().map(BlockColumn::as_ref).collect();
    Ok(match p.output_type() {
        ScalarType::I64 => {
            let mut out = vec![0i64; len];
            p.eval_into(&refs, ColumnMut::I64(&mut out))?;
            BlockColumn::I64(Cow::Owned(out))
        }
        ScalarType::F64 => {
            let mut out = vec![0f64; len];
            p.eval_into(&refs, ColumnMut::F64(&mut out))?;
            BlockColumn::F64(Cow::Owned(out))
        }
        ScalarType::Bool => {
            let mut out = vec![false; len];
            p.eval_into(&refs, ColumnMut::Bool(&mut out))?;
            BlockColumn::Bool(Cow::Owned(out))
        }
    })
}

pub(super) fn gather(
    v: &VSegd,
    data: &LaneColumn,
    idx: &[i64],
    pieces: &[Piece],
) -> RtResult<BlockColumn<'static>> {
    let fail = |p: &Piece, i: i64, len: usize, _| {
        Err(RtError::IndexOutOfRange {
            op: "index",
            lane: p.segment,
            index: i,
            len,
        })
    };
    gather_with(v, data, idx, pieces, fail)
}

/// [`gather`] that forgives indices out of range: those elements get a default value and their
/// positions are listed (the caller decides whether they were needed).
pub(super) fn gather_lenient(
    v: &VSegd,
    data: &LaneColumn,
    idx: &[i64],
    pieces: &[Piece],
) -> (BlockColumn<'static>, Vec<usize>) {
    let mut bad = Vec::new();
    let note = |_: &Piece, _, _, at: usize| {
        bad.push(at);
        Ok(())
    };
    let Ok(col) = gather_with(v, data, idx, pieces, note) else {
        unreachable!("a lenient gather does not fail")
    };
    (col, bad)
}

/// `data` of each piece's lane at `idx` (one index per element of the pieces, in order);
/// `bad(piece, index, lane length, position)` decides about each index out of range (an error
/// stops the gather; otherwise the element gets the type's default value): the runtime's
/// [`fused::gather_pieces`] on the column's type.
fn gather_with(
    v: &VSegd,
    data: &LaneColumn,
    idx: &[i64],
    pieces: &[Piece],
    mut bad: impl FnMut(&Piece, i64, usize, usize) -> RtResult<()>,
) -> RtResult<BlockColumn<'static>> {
    use fused::gather_pieces as go;
    Ok(match data {
        LaneColumn::I64(d) => BlockColumn::I64(Cow::Owned(go(v, d, idx, pieces, &mut bad)?)),
        LaneColumn::F64(d) => BlockColumn::F64(Cow::Owned(go(v, d, idx, pieces, &mut bad)?)),
        LaneColumn::Bool(d) => BlockColumn::Bool(Cow::Owned(go(v, d, idx, pieces, &mut bad)?)),
    })
}

/// The columns of a block: the sources of a compiled body resolved to their data, then the
/// programs of the outputs that are not sources themselves.
pub(super) struct BlockPlan<'a> {
    pub(super) data: Vec<SourceData<'a>>,
    /// Sources read in place by an output or a gather: their reads are counted per block.
    direct: Vec<bool>,
    programs: Vec<CompiledExpr>,
}

/// The block programs of `outs` (compiled by `c`) and the column of each output: an output that
/// is a source itself is read in place; the others are programs whose columns follow the
/// sources' in each block.
pub(super) fn out_programs(
    c: &LambdaCompiler<'_>,
    outs: &[expr::ColumnExpr],
) -> Option<(Vec<CompiledExpr>, Vec<usize>)> {
    let mut programs: Vec<CompiledExpr> = Vec::new();
    let mut out_pos = Vec::with_capacity(outs.len());
    for t in outs {
        if let Node::Input(k) = t.node() {
            out_pos.push(*k);
        } else {
            let p = CompiledExpr::compile(t, &c.types)
                .ok()?
                .with_kernels(c.kernels)
                .with_parallelism(Parallelism::Sequential);
            out_pos.push(c.srcs.len() + programs.len());
            programs.push(p);
        }
    }
    Some((programs, out_pos))
}

impl<'a> BlockPlan<'a> {
    /// The plan computing `outs` (compiled by `c` over the arrays `descs`), and the column of
    /// each output.
    pub(super) fn new(
        c: &'a LambdaCompiler<'a>,
        outs: &[expr::ColumnExpr],
        descs: &[(&'a VSegd, &'a LVal)],
        env: &'a Env,
    ) -> Option<(BlockPlan<'a>, Vec<usize>)> {
        let (programs, out_pos) = out_programs(c, outs)?;
        let data: Vec<SourceData<'a>> = c
            .srcs
            .iter()
            .map(|s| {
                Some(match s {
                    Source::Param(a, path) => {
                        SourceData::Param(descs[*a].0, field(descs[*a].1, path)?.col().ok()?)
                    }
                    Source::Free(n, path) => {
                        SourceData::Free(field(lookup(env, n).ok()?, path)?.col().ok()?)
                    }
                    Source::Gather(n, path, p, direct) => {
                        let (v, el) = field(lookup(env, n).ok()?, path)?.array().ok()?;
                        SourceData::Gather(v, el.col().ok()?, p, *direct)
                    }
                    Source::Len(..) => return None,
                })
            })
            .collect::<Option<_>>()?;
        let mut direct = vec![false; data.len()];
        for &k in &out_pos {
            if k < direct.len() {
                direct[k] = true;
            }
        }
        for d in &data {
            if let SourceData::Gather(_, _, _, Some(k)) = d {
                direct[*k] = true;
            }
        }
        Some((
            BlockPlan {
                data,
                direct,
                programs,
            },
            out_pos,
        ))
    }

    /// The number of sources read from the arrays' elements.
    pub(super) fn params(&self) -> usize {
        self.data
            .iter()
            .filter(|d| matches!(d, SourceData::Param(..)))
            .count()
    }

    /// The type of column `k`.
    pub(super) fn ty(&self, c: &LambdaCompiler<'_>, k: usize) -> ScalarType {
        match k.checked_sub(c.types.len()) {
            None => c.types[k],
            Some(p) => self.programs[p].output_type(),
        }
    }

    /// The columns of the elements of `pieces`: sources, then program outputs.
    pub(super) fn produce(&self, pieces: &[Piece]) -> RtResult<Vec<BlockColumn<'a>>> {
        let len: usize = pieces.iter().map(|p| p.len).sum();
        let mut cols: Vec<BlockColumn<'a>> =
            Vec::with_capacity(self.data.len() + self.programs.len());
        for (d, &counted) in self.data.iter().zip(&self.direct) {
            let col = match d {
                SourceData::Param(v, col) => {
                    take(col, pieces, |p| v.physical(p.segment).start + p.offset)
                }
                SourceData::Free(col) => repeat(col, pieces),
                SourceData::Gather(v, el, p, at) => {
                    let computed;
                    let idx = if let Some(k) = at {
                        &cols[*k]
                    } else {
                        computed = eval(p, &cols, len)?;
                        &computed
                    };
                    let BlockColumn::I64(idx) = idx else {
                        unreachable!("index programs yield i64")
                    };
                    gather(v, el, idx, pieces)?
                }
            };
            if counted {
                stats::record_read(len as u64);
            }
            cols.push(col);
        }
        // Programs read the sources only (they were compiled over the sources' types).
        let sources = cols.len();
        for p in &self.programs {
            let out = eval(p, &cols[..sources], len)?;
            cols.push(out);
        }
        Ok(cols)
    }
}

/// [`fused::for_each_block`] for visitors that give up with `None`.
pub(super) fn sequential_blocks(
    segd: &Segd,
    mut visit: impl FnMut(&[Piece]) -> Option<()>,
) -> Option<()> {
    fused::for_each_block(segd, |b| visit(b).ok_or(())).ok()
}

/// The arrays named `names` (variables of the environment), one per lane each, with equal
/// lengths lane by lane.
pub(super) fn arrays_of<'e>(names: &[String], env: &'e Env) -> Option<Vec<(&'e VSegd, &'e LVal)>> {
    let descs: Vec<(&VSegd, &LVal)> = names
        .iter()
        .map(|n| match lookup(env, n).ok()? {
            LVal::Array(v, e) => Some((v, &**e)),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let first = descs.first()?.0;
    descs
        .iter()
        .all(|(v, _)| v.same_lengths(first))
        .then_some(descs)
}

/// A whole column, borrowed.
pub(super) fn whole(col: &LaneColumn) -> BlockColumn<'_> {
    match col {
        LaneColumn::I64(v) => BlockColumn::I64(Cow::Borrowed(v)),
        LaneColumn::F64(v) => BlockColumn::F64(Cow::Borrowed(v)),
        LaneColumn::Bool(v) => BlockColumn::Bool(Cow::Borrowed(v)),
    }
}
