//! The direct path of the redomap kernel: a single `f64` redomap with `+`, `min` or `max` whose
//! body is one column of the arrays, one gather `v[i]` (index read in place, `v` one free
//! array), or one `+ - *` of two such leaves, over arrays that lie in place in their block
//! (smvm's `x * v[c]`), skips the blocks: [`seg::fold_s_leaves_split`] folds each segment
//! straight from the columns, sliced once per leaf, with gathers prefetched when the vector is
//! out of cache (module `reads`), with no buffer at all and the same association (so the same
//! bits).
//!
//! Cost: one read per element and per gather, no allocation but the result column.

use super::block::SourceData;
use super::index_ranges::IndexRanges;
use super::lambda::Source;
use super::reads::{ColRead, GatherRead, TrustedGatherRead, fold_reads};
use crate::ir::{BinaryOp, Scalar};
use crate::lval::{LVal, LaneColumn, adopt};
use flatland_runtime::expr::{self, Node};
use flatland_runtime::stats;
use flatland_segd::VSegd;
use std::sync::atomic::{AtomicBool, Ordering};

/// A leaf of a scalar map body read straight from memory at an element's index (the direct path
/// of [`redomap`]): a column read in place, or `data[index[i]]` with `index` read in place.
#[derive(Clone, Copy)]
enum DirectLeaf<'a> {
    InPlace(&'a [f64]),
    Gather(&'a [i64], &'a [f64]),
    /// A gather through an index column this run has gathered through before, whose range fits
    /// the vector.
    Trusted(TrustedGatherRead<'a>),
}

/// `$body` with `$r` bound to the [`Read`](super::reads::Read) of leaf `$leaf`: one copy of
/// `$body` per kind of read, so that each gets its own loop.
macro_rules! with_read {
    ($leaf:expr, |$r:ident| $body:expr) => {
        match $leaf {
            DirectLeaf::InPlace(x) => {
                let $r = ColRead(x);
                $body
            }
            DirectLeaf::Gather(i, x) => {
                let $r = GatherRead(i, x);
                $body
            }
            DirectLeaf::Trusted(g) => {
                let $r = g;
                $body
            }
        }
    };
}

/// Whether the elements of the arrays described by `v` lie in their block in segment order from
/// position 0, so that element `i` of `v`'s contiguous descriptor is at position `i`.
fn in_place(v: &VSegd) -> bool {
    let ss = v.ssegd();
    if !v.is_manifest() {
        return false;
    }
    let (a, b) = (ss.starts(), ss.segd().starts());
    // Starts shared with the descriptor (the usual case) need no comparison.
    (std::ptr::eq(a.as_ptr(), b.as_ptr()) && a.len() == b.len()) || a == b
}

/// The leaf that expression-machine leaf `t` reads, if the direct path can read it.
/// `v` is the first array's descriptor, known to lie in place.
fn direct_leaf<'a>(
    t: &expr::ColumnExpr,
    v: &VSegd,
    srcs: &[Source],
    data: &[SourceData<'a>],
    used: &mut Vec<usize>,
    ranges: &IndexRanges,
) -> Option<DirectLeaf<'a>> {
    let param = |k: usize, used: &mut Vec<usize>| -> Option<&'a LaneColumn> {
        match data.get(k)? {
            SourceData::Param(w, col) if std::ptr::eq(*w, v) || in_place(w) => {
                if !used.contains(&k) {
                    used.push(k);
                }
                Some(*col)
            }
            _ => None,
        }
    };
    Some(match t.node() {
        Node::Input(k) => match (&srcs[*k], &data[*k]) {
            (Source::Param(..), _) => match param(*k, used)? {
                LaneColumn::F64(c) => DirectLeaf::InPlace(c),
                _ => return None,
            },
            (Source::Gather(..), SourceData::Gather(v, LaneColumn::F64(el), _, Some(j)))
                if v.ssegd().len() == 1 =>
            {
                let LaneColumn::I64(idx) = param(*j, used)? else {
                    return None;
                };
                let ps = v.ssegd().pseg(0);
                let values = &el[ps.start..ps.start + ps.len];
                let trusted = ranges
                    .range(idx)
                    .and_then(|r| TrustedGatherRead::new(idx, values, &r));
                trusted.map_or(DirectLeaf::Gather(idx, values), DirectLeaf::Trusted)
            }
            _ => return None,
        },
        _ => return None,
    })
}

/// The direct path of a single `f64` redomap: when the map body is a leaf or one `+ - *` of two
/// leaves ([`DirectLeaf`]) and the arrays lie in place, each segment is folded with
/// [`seg::fold_s_leaves_split`] straight from the columns (gathers included): no block buffer, no
/// expression machine, the same association and the same bits as the block path. `None` when
/// the shape does not fit or an index is out of range (the block path then takes over).
pub(super) fn direct_fold(
    v: &VSegd,
    out: &expr::ColumnExpr,
    op: BinaryOp,
    z: Scalar,
    srcs: &[Source],
    data: &[SourceData<'_>],
    ranges: &IndexRanges,
) -> Option<LVal> {
    use BinaryOp as B;
    let Scalar::F64(z) = z else { return None };
    if !matches!(op, B::Add | B::Min | B::Max) || !in_place(v) {
        return None;
    }
    let segd = v.ssegd().segd();
    let mut used = Vec::new();
    let (body, a, b) = if let Node::Binary(o @ (B::Add | B::Sub | B::Mul), x, y) = out.node() {
        (
            Some(*o),
            direct_leaf(x, v, srcs, data, &mut used, ranges)?,
            direct_leaf(y, v, srcs, data, &mut used, ranges)?,
        )
    } else {
        let a = direct_leaf(out, v, srcs, data, &mut used, ranges)?;
        (None, a, a)
    };
    let n = segd.elements() as u64;
    // Each column read in place once, each gathered element once.
    let gathers = [a, b][..if body.is_some() { 2 } else { 1 }]
        .iter()
        .filter(|l| matches!(l, DirectLeaf::Gather(..) | DirectLeaf::Trusted(..)))
        .count();
    stats::record_read(n * (used.len() + gathers) as u64);
    let bad = AtomicBool::new(false);
    let sums = with_read!(a, |ra| with_read!(b, |rb| fold_reads(
        segd,
        body,
        (ra, rb),
        op,
        z,
        &bad
    )))?;
    if bad.load(Ordering::Relaxed) {
        return None;
    }
    Some(LVal::Scalar(LaneColumn::F64(adopt(sums))))
}
