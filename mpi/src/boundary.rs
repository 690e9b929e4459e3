//! The exchange of per-leaf results of the pieces of segments that span ranks: what makes a
//! distributed reduction or scan return the bits of one process.

use crate::comm::{Comm, Elem};
use crate::partition::Layout;
use flatland_runtime::assoc::LEAF;
use flatland_segd::Segd;
use rayon::prelude::*;
use std::ops::Range;

/// Which of a rank's pieces belong to segments that span ranks.
#[derive(Clone, Debug)]
pub(crate) struct Split {
    /// The first piece continues a segment from the previous rank.
    pub(crate) head: bool,
    /// The last piece is the start of a segment (this rank its home) continuing on the next.
    pub(crate) tail: bool,
    /// The pieces of whole segments (neither), as local segment indices.
    pub(crate) whole: Range<usize>,
}

impl Split {
    /// Rank `rank`'s split pieces under `layout`, with `m` local segments.
    pub(crate) fn of(layout: &Layout, rank: usize, m: usize) -> Split {
        let head = layout.continues_left(rank);
        // A middle piece (one piece, continued both ways) counts as a head only.
        let tail = layout.continues_right(rank) && !(head && m == 1);
        let lo = usize::from(head);
        let hi = (m - usize::from(tail)).max(lo);
        Split {
            head,
            tail,
            whole: lo..hi,
        }
    }
}

/// `f(leaf)` for the leaves of local segment `k` of `segd` (a piece starting on a leaf boundary
/// of its segment), as local element ranges; the leaves of a long piece run on rayon's pool.
pub(crate) fn piece_leaves<A: Send>(
    segd: &Segd,
    k: usize,
    f: impl Fn(Range<usize>) -> A + Sync,
) -> Vec<A> {
    let (st, n) = (segd.start(k), segd.length(k));
    let leaf = |b: usize| {
        let lo = st + b * LEAF;
        f(lo..(lo + LEAF).min(st + n))
    };
    let leaves = n.div_ceil(LEAF);
    if leaves < 4 {
        (0..leaves).map(leaf).collect()
    } else {
        (0..leaves).into_par_iter().map(leaf).collect()
    }
}

/// Every rank's head and tail leaf results, in rank order.
pub(crate) struct Boundary<A> {
    values: Vec<A>,
    /// Where rank `q`'s values start, and how many of them are its head's.
    start: Vec<usize>,
    heads: Vec<usize>,
}

impl<A: Elem> Boundary<A> {
    /// Gathers every rank's `head` and `tail` leaf results to every rank.
    ///
    /// Cost: two gathers of a count and one of the values to every rank: each rank receives
    /// the leaf results of every split piece, at most `elements / LEAF + 2 * ranks` values.
    pub(crate) fn exchange(comm: &Comm, head: &[A], tail: &[A]) -> Boundary<A> {
        let heads = comm.all_gather(head.len());
        let (values, counts) = comm.all_gather_v(&[head, tail].concat());
        let mut start = vec![0];
        let mut acc = 0;
        for c in counts {
            acc += c;
            start.push(acc);
        }
        Boundary {
            values,
            start,
            heads,
        }
    }

    /// Rank `q`'s head leaf results.
    pub(crate) fn head(&self, q: usize) -> &[A] {
        &self.values[self.start[q]..self.start[q] + self.heads[q]]
    }

    /// Rank `q`'s tail leaf results.
    pub(crate) fn tail(&self, q: usize) -> &[A] {
        &self.values[self.start[q] + self.heads[q]..self.start[q + 1]]
    }
}

/// The ranks after `home` holding pieces of the segment that `home`'s tail starts, in order.
pub(crate) fn continuation(layout: &Layout, home: usize) -> impl Iterator<Item = usize> + '_ {
    let mut more = true;
    (home + 1..layout.ranks()).take_while(move |&q| {
        let go = more;
        more = layout.continues_right(q) && layout.segments_of(q).len() == 1;
        go
    })
}
