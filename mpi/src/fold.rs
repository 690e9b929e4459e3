//! Distributed segmented reduction.

use crate::boundary::{Boundary, Split, continuation, piece_leaves};
use crate::comm::{Comm, Elem};
use crate::dist_array::DistArray;
use crate::dist_nested::DistNested;
use crate::partition::Layout;
use flatland_runtime::{assoc, seg};
use flatland_segd::Segd;
use std::ops::Range;

impl<T: Elem> DistNested<T> {
    /// Folds every segment with `op` from `identity`: segment `s`'s result, held by its home
    /// rank ([`crate::Layout::owned`]), is bitwise equal to `flatland_runtime::seg::fold_s` of
    /// the whole array on one process (the canonical association, [`assoc::fold`]) for every
    /// number of ranks.
    ///
    /// Each rank folds the segments it holds whole with `seg::fold_s_leaves` (so in parallel
    /// on its rayon pool) and the leaves of its split pieces one by one; the split pieces'
    /// leaf results are then gathered to every rank and each home combines its segment's
    /// leaves strictly left to right in rank order, as one process does.
    ///
    /// Cost: no communication when no segment spans ranks; otherwise two gathers of a count
    /// and one gather of the split pieces' leaf results (at most `elements / 4096 + 2 * ranks`
    /// values received per rank, none of the elements themselves).
    ///
    /// ```
    /// use flatland_mpi::{Comm, DistNested};
    /// use flatland_segd::Segd;
    /// let universe = mpi::initialize().unwrap();
    /// let comm = Comm::new(universe.world());
    /// let part = Segd::from_lengths(vec![2, 0]).unwrap();
    /// let xs = DistNested::from_parts(&comm, part, vec![1.5, 2.5]).unwrap();
    /// let sums = xs.fold_s(0.0, |a, b| a + b);
    /// assert_eq!(sums.len(), 2 * comm.size());
    /// assert_eq!(&sums.gather_all()[..2], &[4.0, 0.0]);
    /// ```
    pub fn fold_s(&self, identity: T, op: impl Fn(T, T) -> T + Sync) -> DistArray<T> {
        let data = &self.data;
        let leaf = |r: Range<usize>| assoc::leaf_fold(&data[r], identity, &op);
        fold_leaves(&self.comm, &self.layout, &self.segd, identity, leaf, &op)
    }
}

/// The distributed segmented reduction with the leaves folded by `leaf` (given local element
/// ranges; it must equal [`assoc::leaf_fold`] from `identity` for the canonical bits).
pub(crate) fn fold_leaves<A: Elem>(
    comm: &Comm,
    layout: &Layout,
    segd: &Segd,
    identity: A,
    leaf: impl Fn(Range<usize>) -> A + Sync,
    op: impl Fn(A, A) -> A + Sync,
) -> DistArray<A> {
    let me = comm.rank();
    let sp = Split::of(layout, me, segd.len());
    let lengths = segd.lengths();
    let whole = Segd::from_lengths(lengths[sp.whole.clone()].to_vec())
        .expect("a sub-range of a valid descriptor");
    let base = if sp.whole.is_empty() {
        0
    } else {
        segd.start(sp.whole.start)
    };
    let mut out = seg::fold_s_leaves(
        &whole,
        identity,
        |r| leaf(base + r.start..base + r.end),
        &op,
    );
    if layout.has_split() {
        let head = if sp.head {
            piece_leaves(segd, 0, &leaf)
        } else {
            Vec::new()
        };
        let tail = if sp.tail {
            piece_leaves(segd, segd.len() - 1, &leaf)
        } else {
            Vec::new()
        };
        let b = Boundary::exchange(comm, &head, &tail);
        if sp.tail {
            let mut acc = assoc::combine_leaves(identity, tail, &op);
            for q in continuation(layout, me) {
                acc = assoc::combine_leaves(acc, b.head(q).iter().copied(), &op);
            }
            out.push(acc);
        }
    }
    debug_assert_eq!(out.len(), layout.owned(me).len());
    DistArray {
        comm: comm.clone(),
        offsets: layout.owned_offsets(),
        data: out,
    }
}
