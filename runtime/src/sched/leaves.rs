//! Leaf walks shared by the flat and segmented scans: the leaves of a piece (leaves of
//! [`LEAF`] elements from its start, the last possibly shorter) totalled or scanned [`SIDE`] at a
//! time side by side, in the canonical association of [`crate::assoc::scan_inclusive_into`].

use crate::assoc::LEAF;

/// Leaves scanned (or totalled) side by side: independent dependency chains, so the CPU
/// overlaps the operator's latency (one chain per leaf ran the f64 scan at the add's latency).
pub(crate) const SIDE: usize = 8;

/// The totals of the leaves of `xs` (leaves of [`LEAF`] from its start, the last possibly
/// shorter): each leaf folded left to right from its first element, the total
/// [`crate::assoc::leaf_scan`] returns. Full groups of [`SIDE`] leaves are folded side by side.
pub(crate) fn leaf_totals<T: Clone>(xs: &[T], op: &impl Fn(T, T) -> T) -> Vec<T> {
    let mut totals = Vec::with_capacity(xs.len().div_ceil(LEAF));
    for group in xs.chunks(SIDE * LEAF) {
        if let Ok(group) = <&[T; SIDE * LEAF]>::try_from(group) {
            let leaves: [&[T; LEAF]; SIDE] = std::array::from_fn(|j| {
                group[j * LEAF..(j + 1) * LEAF]
                    .try_into()
                    .expect("a full group holds whole leaves")
            });
            let mut p: [T; SIDE] = std::array::from_fn(|j| leaves[j][0].clone());
            for i in 1..LEAF {
                for (p, leaf) in p.iter_mut().zip(&leaves) {
                    *p = op(p.clone(), leaf[i].clone());
                }
            }
            totals.extend(p);
        } else {
            totals.extend(group.chunks(LEAF).map(|leaf| {
                let (first, rest) = leaf.split_first().expect("chunks are non-empty");
                rest.iter().fold(first.clone(), |a, x| op(a, x.clone()))
            }));
        }
    }
    totals
}

/// Scans in place `out`, a copy of at most [`SIDE`] leaves (leaves of [`LEAF`] from its start,
/// the last possibly shorter), from `carry`, and returns the carry after them: leaf `b` with
/// carry `c_b` becomes `c_b ⊕ (x0 ⊕ ... ⊕ xi)` (exclusive: `c_b`, then `c_b ⊕ (x0 ⊕ ... ⊕
/// x(i-1))`), `c_{b+1} = c_b ⊕ total_b`: the bits of [`crate::assoc::scan_inclusive_into`]. The
/// carry-free prefixes of a full group are computed side by side, then every leaf is combined
/// with its carry; the copy stays in cache between the two, so memory sees one read and one write.
pub(crate) fn scan_leaves<T: Clone>(
    out: &mut [T],
    mut carry: T,
    exclusive: bool,
    op: &impl Fn(T, T) -> T,
) -> T {
    debug_assert!(out.len() <= SIDE * LEAF, "scan_leaves: more than a group");
    let mut totals: [Option<T>; SIDE] = std::array::from_fn(|_| None);
    if let Ok(group) = <&mut [T; SIDE * LEAF]>::try_from(&mut *out) {
        let mut leaves = group
            .chunks_exact_mut(LEAF)
            .map(|l| <&mut [T; LEAF]>::try_from(l).expect("a full group holds whole leaves"));
        let mut leaves: [&mut [T; LEAF]; SIDE] =
            std::array::from_fn(|_| leaves.next().expect("SIDE leaves"));
        let mut p: [T; SIDE] = std::array::from_fn(|j| leaves[j][0].clone());
        for i in 1..LEAF {
            for (p, leaf) in p.iter_mut().zip(leaves.iter_mut()) {
                *p = op(p.clone(), leaf[i].clone());
                leaf[i] = p.clone();
            }
        }
        for (t, p) in totals.iter_mut().zip(p) {
            *t = Some(p);
        }
    } else {
        for (t, leaf) in totals.iter_mut().zip(out.chunks_mut(LEAF)) {
            for i in 1..leaf.len() {
                leaf[i] = op(leaf[i - 1].clone(), leaf[i].clone());
            }
            *t = leaf.last().cloned();
        }
    }
    for (leaf, total) in out.chunks_mut(LEAF).zip(totals) {
        let total = total.expect("every leaf has a total");
        if exclusive {
            for i in (1..leaf.len()).rev() {
                leaf[i] = op(carry.clone(), leaf[i - 1].clone());
            }
            leaf[0] = carry.clone();
        } else {
            for x in leaf.iter_mut() {
                *x = op(carry.clone(), x.clone());
            }
        }
        carry = op(carry, total);
    }
    carry
}
