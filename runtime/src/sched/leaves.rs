//! Leaf walks shared by the flat and segmented scans: the leaves of a piece (leaves of
//! [`LEAF`] elements from its start, the last possibly shorter) totalled or scanned [`SIDE`] at a
//! time side by side, in the canonical association of [`crate::assoc::scan_inclusive_into`].

use crate::assoc::LEAF;

/// Leaves scanned (or totalled) side by side: independent dependency chains, so the CPU
/// overlaps the operator's latency (one chain per leaf ran the f64 scan at the add's latency).
pub(crate) const SIDE: usize = 8;

/// Runs `$side::<T, W>` on the next `W = min(whole, SIDE)` whole leaves of `$piece`, extending
/// `$totals` with their totals, and gives `W`. Every width has its own monomorphic loop, so the
/// chains stay in registers: a task's piece rarely holds a multiple of [`SIDE`] leaves (a
/// 10^5-element scan in 4 tasks gives each 6), and walking the rest one chain at a time ran those
/// tasks at the operator's latency, 3x slower than the sequential scan.
macro_rules! side_by_side {
    ($side:ident, $piece:expr, $whole:expr, $op:expr, $totals:expr) => {
        side_by_side!(@widths $side, $piece, $whole, $op, $totals; 1 2 3 4 5 6 7)
    };
    (@widths $side:ident, $piece:expr, $whole:expr, $op:expr, $totals:expr; $($w:literal)*) => {
        match $whole.min(SIDE) {
            $($w => {
                $totals.extend($side::<T, $w>($piece, $op));
                $w
            })*
            _ => {
                $totals.extend($side::<T, SIDE>($piece, $op));
                SIDE
            }
        }
    };
}

/// The totals of the first `W` leaves of `xs` (which holds at least `W` whole leaves), each
/// folded left to right from its first element, side by side.
fn fold_side<T: Clone, const W: usize>(xs: &[T], op: &impl Fn(T, T) -> T) -> [T; W] {
    let leaves: [&[T; LEAF]; W] = std::array::from_fn(|j| {
        xs[j * LEAF..(j + 1) * LEAF]
            .try_into()
            .expect("the piece holds W whole leaves")
    });
    let mut p: [T; W] = std::array::from_fn(|j| leaves[j][0].clone());
    for i in 1..LEAF {
        for (p, leaf) in p.iter_mut().zip(&leaves) {
            *p = op(p.clone(), leaf[i].clone());
        }
    }
    p
}

/// The carry-free inclusive prefixes of the first `W` leaves of `out` (which holds at least `W`
/// whole leaves), computed in place side by side; returns their totals.
fn prefix_side<T: Clone, const W: usize>(out: &mut [T], op: &impl Fn(T, T) -> T) -> [T; W] {
    let mut leaves = out[..W * LEAF]
        .chunks_exact_mut(LEAF)
        .map(|l| <&mut [T; LEAF]>::try_from(l).expect("whole leaves"));
    let mut leaves: [&mut [T; LEAF]; W] =
        std::array::from_fn(|_| leaves.next().expect("the piece holds W whole leaves"));
    let mut p: [T; W] = std::array::from_fn(|j| leaves[j][0].clone());
    for i in 1..LEAF {
        for (p, leaf) in p.iter_mut().zip(leaves.iter_mut()) {
            *p = op(p.clone(), leaf[i].clone());
            leaf[i] = p.clone();
        }
    }
    p
}

/// The totals of the leaves of `xs` (leaves of [`LEAF`] from its start, the last possibly
/// shorter): each leaf folded left to right from its first element, the total
/// [`crate::assoc::leaf_scan`] returns. Whole leaves are folded up to [`SIDE`] side by side.
pub(crate) fn leaf_totals<T: Clone>(xs: &[T], op: &impl Fn(T, T) -> T) -> Vec<T> {
    let mut totals = Vec::with_capacity(xs.len().div_ceil(LEAF));
    let mut rest = xs;
    while !rest.is_empty() {
        let whole = rest.len() / LEAF;
        if whole == 0 {
            let (first, tail) = rest.split_first().expect("the rest is non-empty");
            totals.push(tail.iter().fold(first.clone(), |a, x| op(a, x.clone())));
            break;
        }
        let w = side_by_side!(fold_side, rest, whole, op, totals);
        rest = &rest[w * LEAF..];
    }
    totals
}

/// Scans in place `out`, a copy of at most [`SIDE`] leaves (leaves of [`LEAF`] from its start,
/// the last possibly shorter), from `carry`, and returns the carry after them: leaf `b` with
/// carry `c_b` becomes `c_b ⊕ (x0 ⊕ ... ⊕ xi)` (exclusive: `c_b`, then `c_b ⊕ (x0 ⊕ ... ⊕
/// x(i-1))`), `c_{b+1} = c_b ⊕ total_b`: the bits of [`crate::assoc::scan_inclusive_into`]. The
/// carry-free prefixes of whole leaves are computed up to [`SIDE`] side by side, then every leaf
/// is combined with its carry; the copy stays in cache between the two, so memory sees one read
/// and one write.
pub(crate) fn scan_leaves<T: Clone>(
    out: &mut [T],
    mut carry: T,
    exclusive: bool,
    op: &impl Fn(T, T) -> T,
) -> T {
    debug_assert!(out.len() <= SIDE * LEAF, "scan_leaves: more than a group");
    let mut totals: Vec<T> = Vec::with_capacity(SIDE);
    let mut done = 0;
    while done < out.len() {
        let rest = &mut out[done..];
        let whole = rest.len() / LEAF;
        if whole == 0 {
            for i in 1..rest.len() {
                rest[i] = op(rest[i - 1].clone(), rest[i].clone());
            }
            totals.push(rest.last().expect("the rest is non-empty").clone());
            break;
        }
        let w = side_by_side!(prefix_side, rest, whole, op, totals);
        done += w * LEAF;
    }
    for (leaf, total) in out.chunks_mut(LEAF).zip(totals) {
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
