//! Distributed segmented scans.

use crate::boundary::{Boundary, Split, continuation, piece_leaves};
use crate::comm::Elem;
use crate::dist_nested::DistNested;
use flatland_runtime::assoc::{self, LEAF};
use flatland_runtime::seg;
use flatland_segd::Segd;

#[derive(Clone, Copy)]
enum Kind {
    Inclusive,
    Exclusive,
}

/// The left-to-right fold of a leaf from its first element (the leaf total of a scan).
fn leaf_total<T: Copy>(leaf: &[T], op: &impl Fn(T, T) -> T) -> T {
    leaf[1..].iter().fold(leaf[0], |a, &x| op(a, x))
}

/// Scans a piece starting on a leaf boundary of its segment from `carry`, the combined totals
/// of the segment's earlier leaves, as `flatland_runtime`'s segmented scans do.
fn scan_piece<T: Copy>(kind: Kind, xs: &[T], mut carry: T, out: &mut [T], op: &impl Fn(T, T) -> T) {
    match kind {
        Kind::Inclusive => {
            assoc::scan_inclusive_into(xs, carry, out, op);
        }
        Kind::Exclusive => {
            for (leaf, o) in xs.chunks(LEAF).zip(out.chunks_mut(LEAF)) {
                o[0] = carry;
                let mut prefix = leaf[0];
                for (&x, slot) in leaf[1..].iter().zip(&mut o[1..]) {
                    *slot = op(carry, prefix);
                    prefix = op(prefix, x);
                }
                carry = op(carry, prefix);
            }
        }
    }
}

impl<T: Elem> DistNested<T> {
    /// Segmented inclusive scan, in the same layout: bitwise equal, element for element, to
    /// `flatland_runtime::seg::scan_s` of the whole array on one process, for every number of
    /// ranks.
    ///
    /// Each rank scans the segments it starts with `seg::scan_s`; a piece continuing a segment
    /// from earlier ranks starts from the carry of all the segment's earlier leaves, their
    /// totals combined left to right in rank order (the exclusive scan of the boundary carries).
    ///
    /// Cost: no communication when no segment spans ranks; otherwise two gathers of a count
    /// and one gather of the split pieces' leaf totals (at most `elements / 4096 + 2 * ranks`
    /// values received per rank).
    ///
    /// ```
    /// use flatland_mpi::{Comm, DistNested};
    /// use flatland_segd::Segd;
    /// let universe = mpi::initialize().unwrap();
    /// let comm = Comm::new(universe.world());
    /// let part = Segd::from_lengths(vec![3]).unwrap();
    /// let xs = DistNested::from_parts(&comm, part, vec![1, 2, 3]).unwrap();
    /// assert_eq!(xs.scan_s(0, |a, b| a + b).data(), &[1, 3, 6]);
    /// assert_eq!(xs.scan_s_exclusive(0, |a, b| a + b).data(), &[0, 1, 3]);
    /// ```
    pub fn scan_s(&self, identity: T, op: impl Fn(T, T) -> T + Sync) -> DistNested<T> {
        self.scan(Kind::Inclusive, identity, op)
    }

    /// Segmented exclusive scan (`out[start] = identity`), bitwise equal to
    /// `flatland_runtime::seg::scan_s_exclusive` on one process; costs as [`DistNested::scan_s`].
    pub fn scan_s_exclusive(&self, identity: T, op: impl Fn(T, T) -> T + Sync) -> DistNested<T> {
        self.scan(Kind::Exclusive, identity, op)
    }

    fn scan(&self, kind: Kind, identity: T, op: impl Fn(T, T) -> T + Sync) -> DistNested<T> {
        let (segd, data, layout) = (&self.segd, &self.data, &self.layout);
        let me = self.comm.rank();
        let m = segd.len();
        let sp = Split::of(layout, me, m);
        let mut out = vec![identity; data.len()];
        // The segments this rank starts (its whole ones and its tail), from the identity.
        let from = usize::from(sp.head).min(m);
        let started = Segd::from_lengths(segd.lengths()[from..].to_vec())
            .expect("a sub-range of a valid descriptor");
        let base = if from < m {
            segd.start(from)
        } else {
            data.len()
        };
        let scanned = match kind {
            Kind::Inclusive => seg::scan_s(&started, &data[base..], identity, &op),
            Kind::Exclusive => seg::scan_s_exclusive(&started, &data[base..], identity, &op),
        }
        .expect("lengths agree");
        out[base..].copy_from_slice(&scanned);
        if layout.has_split() {
            let totals = |k: usize| piece_leaves(segd, k, |r| leaf_total(&data[r], &op));
            let head = if sp.head { totals(0) } else { Vec::new() };
            let tail = if sp.tail { totals(m - 1) } else { Vec::new() };
            let b = Boundary::exchange(&self.comm, &head, &tail);
            if sp.head {
                let home = layout.home(layout.segments_of(me).start);
                let mut carry = b.tail(home).iter().fold(identity, |c, &t| op(c, t));
                for q in continuation(layout, home).take_while(|&q| q < me) {
                    carry = b.head(q).iter().fold(carry, |c, &t| op(c, t));
                }
                let n = segd.length(0);
                scan_piece(kind, &data[..n], carry, &mut out[..n], &op);
            }
        }
        DistNested {
            comm: self.comm.clone(),
            layout: self.layout.clone(),
            segd: self.segd.clone(),
            data: out,
        }
    }
}
