//! The canonical association of every reduction and scan.
//!
//! Floating-point addition is not associative, so a parallel sum that groups elements differently
//! on different machines gives different bits. Flatland fixes one association for every reduction
//! and scan, flat or segmented, whatever the thread count or machine (`docs/ARCHITECTURE.md`, "Contracts"):
//!
//! - a segment is cut into **leaves** of [`LEAF`] elements counted from the segment's start (the
//!   last leaf may be shorter);
//! - inside a leaf, [`leaf_fold`] splits the leaf into [`LANES`] contiguous lanes, folds each lane
//!   left to right (independent dependency chains, so the CPU overlaps them), and combines the lane
//!   results pairwise as a balanced tree. Lanes are contiguous, so the order of the operands is
//!   never changed: the operator must be associative, it need not be commutative;
//! - leaf results are combined strictly left to right, starting from the identity
//!   ([`combine_leaves`]).
//!
//! Scans use [`scan_inclusive`]: inside a leaf a plain left-to-right prefix; each leaf's prefix is
//! then combined with the carry of all earlier leaves (`out[i] = carry ⊕ prefix[i]`).
//! Every operation of that form is fixed, not its order: an implementation may fold a leaf's
//! total (its last prefix) in a pass of its own before the carries are known, or write the
//! carry-free prefixes first and combine them with the carry afterwards, and several leaves'
//! prefixes may be computed side by side; the bits are the same (the parallel scans do this,
//! `runtime/src/sched/leaves.rs`).
//!
//! Reductions by index (histograms, [`crate::flat::hist`], [`crate::seg::hist_s`]) use their own
//! association, [`hist`]:
//!
//! - the (index, value) pairs of a segment are cut into **blocks** of [`hist_block`]`(bins)`
//!   pairs counted from the segment's start ([`HIST_BLOCK`] = 2^16, or 16 pairs per bin when the
//!   histogram is larger, so the partial histograms stay small beside the input);
//! - each block's partial histogram starts from the identity in every bin and folds the block's
//!   values into their bins strictly left to right (`p[k] = p[k] ⊕ v`);
//! - the partials are combined bin by bin strictly left to right, in block order
//!   (`h[k] = p_0[k] ⊕ p_1[k] ⊕ ...`); no pair at all gives the identity in every bin.
//!
//! A pair whose index lies outside `0..bins` is skipped (Futhark's `reduce_by_index` rule, the
//! idiomatic way to leave an element out, e.g. index -1): it is not an error.
//!
//! A schedule only decides how leaves are grouped into tasks; tasks return per-leaf results and the
//! final combination is sequential, so results are bitwise identical for every pool size. The
//! vectoriser's reference interpreter calls these same functions.
//!
//! ```
//! use flatland_runtime::assoc;
//! let xs: Vec<f64> = (0..10_000).map(|i| i as f64 * 0.1).collect();
//! let s = assoc::fold(&xs, 0.0, |a, b| a + b);
//! // Same bits however the leaves are computed:
//! let leaves = xs.chunks(assoc::LEAF).map(|l| assoc::leaf_fold(l, 0.0, |a, b| a + b));
//! assert_eq!(s.to_bits(), assoc::combine_leaves(0.0, leaves, |a, b| a + b).to_bits());
//! ```

mod running_fold;
mod try_fold;

pub use running_fold::RunningFold;
pub use try_fold::{try_fold_by, try_leaf_fold_by};

/// Elements per leaf block, counted from the start of each segment.
pub const LEAF: usize = 4096;

/// Contiguous lanes folded side by side inside one leaf.
pub const LANES: usize = 8;

/// Leaves shorter than this are folded with a single left-to-right chain from the identity
/// (part of the canonical association: code that folds short leaves itself, like the loops
/// `#[vectorise]` emits, tests against it).
///
/// ```
/// use flatland_runtime::assoc::{SHORT, leaf_fold};
/// let xs = vec![0.1f64; SHORT - 1];
/// let chain = xs.iter().fold(0.0, |a, &b| a + b);
/// assert_eq!(leaf_fold(&xs, 0.0, |a, b| a + b).to_bits(), chain.to_bits());
/// ```
pub const SHORT: usize = 2 * LANES;

/// Folds one leaf (at most [`LEAF`] elements, not checked) with the canonical in-leaf association.
///
/// An empty leaf gives `identity`; a short leaf (< 16 elements) is `identity ⊕ x0 ⊕ x1 ⊕ ...` left
/// to right; a longer one is split into [`LANES`] contiguous lanes of `len / LANES` elements (the
/// last lane also takes the remainder), each folded left to right from its first element, and the
/// eight lane results are combined as `((l0⊕l1)⊕(l2⊕l3))⊕((l4⊕l5)⊕(l6⊕l7))`.
/// The same bits as [`leaf_fold_by`] over the slice's elements (one definition runs both).
///
/// ```
/// use flatland_runtime::assoc::leaf_fold;
/// assert_eq!(leaf_fold(&[1i64, 2, 3], 0, |a, b| a + b), 6);
/// let xs: Vec<i64> = (1..=100).collect();
/// assert_eq!(leaf_fold(&xs, 0, |a, b| a + b), 5050);
/// assert_eq!(leaf_fold(&[] as &[i64], 7, |a, b| a + b), 7);
/// ```
#[inline]
pub fn leaf_fold<T: Clone>(xs: &[T], identity: T, op: impl Fn(T, T) -> T) -> T {
    // In-cache slices gain from all eight chains side by side ([`lanes_fold`]).
    leaf_fold_in::<LANES, T>(
        xs.len(),
        // SAFETY: `leaf_fold_in` calls `get` only with indices below the length it is given
        // (`xs.len()`): the short chain runs `0..len`, `lanes_fold` its lanes' indices
        // `j * (len / LANES) + i` with `j < LANES`, `i < len / LANES`, and the remainder
        // `LANES * (len / LANES)..len`. A bounds check per element was a quarter of the
        // instructions of a fold of rows of 16 to 19 values.
        |i| unsafe { xs.get_unchecked(i) }.clone(),
        identity,
        op,
    )
}

/// [`leaf_fold`] of the leaf `get(0), get(1), ..., get(len - 1)` without materialising it: the
/// same association, so the same bits as `leaf_fold` of the collected values. `get` is called
/// exactly once per index (in an unspecified order), so a fused map or gather costs no buffer.
///
/// ```
/// use flatland_runtime::assoc::{leaf_fold, leaf_fold_by};
/// let xs: Vec<f64> = (0..100).map(|i| f64::from(i) * 0.1).collect();
/// let squares: Vec<f64> = xs.iter().map(|x| x * x).collect();
/// let fused = leaf_fold_by(xs.len(), |i| xs[i] * xs[i], 0.0, |a, b| a + b);
/// assert_eq!(fused.to_bits(), leaf_fold(&squares, 0.0, |a, b| a + b).to_bits());
/// ```
#[inline]
pub fn leaf_fold_by<T: Clone>(
    len: usize,
    get: impl Fn(usize) -> T,
    identity: T,
    op: impl Fn(T, T) -> T,
) -> T {
    // A computed leaf (often a gather) gains from fewer memory streams at a time.
    leaf_fold_in::<{ LANES / 2 }, T>(len, get, identity, op)
}

/// [`leaf_fold_by`] with the lanes folded one after another instead of side by side: the same
/// association and bits, one memory stream per array read. For leaves whose gathers the caller
/// prefetches ahead (the smvm loops `#[vectorise]` emits), where the prefetches already hide
/// the latency and extra streams only cost: on a power-law smvm with one thread it ran about
/// 1.2x faster than four lanes side by side.
///
/// ```
/// use flatland_runtime::assoc::{leaf_fold_by, leaf_fold_by_in_turn};
/// let xs: Vec<f64> = (0..1000).map(|i| f64::from(i) * 0.1).collect();
/// let a = leaf_fold_by(xs.len(), |i| xs[i], 0.0, |a, b| a + b);
/// let b = leaf_fold_by_in_turn(xs.len(), |i| xs[i], 0.0, |a, b| a + b);
/// assert_eq!(a.to_bits(), b.to_bits());
/// ```
#[inline]
pub fn leaf_fold_by_in_turn<T: Clone>(
    len: usize,
    get: impl Fn(usize) -> T,
    identity: T,
    op: impl Fn(T, T) -> T,
) -> T {
    leaf_fold_in::<1, T>(len, get, identity, op)
}

/// [`leaf_fold_by`] running `GROUP` lanes side by side ([`lanes_fold`]).
#[inline]
fn leaf_fold_in<const GROUP: usize, T: Clone>(
    len: usize,
    get: impl Fn(usize) -> T,
    identity: T,
    op: impl Fn(T, T) -> T,
) -> T {
    if len < SHORT {
        // Kept small so that it inlines into per-segment loops (most segments are short).
        (0..len).fold(identity, |acc, i| op(acc, get(i)))
    } else {
        lanes_fold::<GROUP, T>(len, get, op)
    }
}

/// The in-leaf association of a leaf of `len >= 2 * LANES` elements (see [`leaf_fold`]), the
/// one definition behind [`leaf_fold`] and [`leaf_fold_by`] (through `leaf_fold_in`).
///
/// The lanes are independent chains, so any evaluation order gives the same bits; they are run
/// in groups of `GROUP` (a divisor of [`LANES`]) side by side. Eight hide the operator's latency
/// best on a slice; on a fused gather (`get` reading several arrays, the smvm case of
/// `benches/seg.rs`) eight side by side were about 1.2x slower than four: each lane of a full
/// leaf is one page of each array read, so eight lanes are sixteen short memory streams.
///
/// Leaves whose lanes hold 2 to 4 elements (16 to 39 in all) run [`short_lanes_fold`], the same
/// association written out straight-line.
///
/// Kept out of line, so that the short-leaf chain of [`leaf_fold_by`] stays small enough to
/// inline into per-segment loops (most segments are short; a call per segment cost the smvm
/// of short rows 1.5x). Callers pass `get` closures that own their slices (`move`), so the
/// out-of-line loop reads them without an extra indirection.
#[inline(never)]
fn lanes_fold<const GROUP: usize, T: Clone>(
    len: usize,
    get: impl Fn(usize) -> T,
    op: impl Fn(T, T) -> T,
) -> T {
    let lane = len / LANES;
    match lane {
        2 => return short_lanes_fold::<2, T>(len, get, op),
        3 => return short_lanes_fold::<3, T>(len, get, op),
        4 => return short_lanes_fold::<4, T>(len, get, op),
        _ => {}
    }
    let mut acc: [T; LANES] = std::array::from_fn(|j| get(j * lane));
    for (g, acc) in acc.chunks_exact_mut(GROUP).enumerate() {
        for i in 1..lane {
            for (j, a) in acc.iter_mut().enumerate() {
                *a = op(a.clone(), get((g * GROUP + j) * lane + i));
            }
        }
    }
    for i in LANES * lane..len {
        acc[LANES - 1] = op(acc[LANES - 1].clone(), get(i));
    }
    let [l0, l1, l2, l3, l4, l5, l6, l7] = acc;
    op(op(op(l0, l1), op(l2, l3)), op(op(l4, l5), op(l6, l7)))
}

/// [`lanes_fold`] of a leaf whose lanes hold `LANE` elements each (`len / LANES == LANE`; the
/// last lane also takes the remainder): the same association, written out lane after lane with
/// the lane length known to rustc, so the whole leaf compiles to straight-line code.
///
/// Short leaves (rows of 16 to 39 values, a best-of over 16 candidates) are where the loop
/// above loses most: its lanes' accumulators live in memory and every step is a loop turn.
/// Straight-line, rustc keeps the accumulators in registers: a nearest-of-16 fold of
/// `(index, distance)` pairs ran 2.5-3.4x faster and an `f64` sum of rows of 16 to 45 values
/// 1.1-1.25x (standalone, one thread); the suite's per-lane `nearest_centre` went from 37.2 to
/// 32.7 ms and `row_argmax` from 3.40 to 2.74 ms (two threads). Where the operator's select
/// depends on an integer test rustc cannot decide (`best.0 < 0 || ...` with an index of
/// unknown sign), its `f64` half is a branch on x86-64's baseline target, mispredicted half
/// the time in these combines; `#[vectorise]` writes such selects with
/// [`crate::hint::select`], which stays branch-free.
#[inline(always)]
fn short_lanes_fold<const LANE: usize, T>(
    len: usize,
    get: impl Fn(usize) -> T,
    op: impl Fn(T, T) -> T,
) -> T {
    let lane = |j| short_lane_fold::<LANE, T>(j * LANE, &get, &op);
    let (l0, l1, l2, l3) = (lane(0), lane(1), lane(2), lane(3));
    let (l4, l5, l6) = (lane(4), lane(5), lane(6));
    let mut l7 = lane(7);
    for i in LANES * LANE..len {
        l7 = op(l7, get(i));
    }
    op(op(op(l0, l1), op(l2, l3)), op(op(l4, l5), op(l6, l7)))
}

/// One lane of [`short_lanes_fold`]: `get(start) ⊕ ... ⊕ get(start + LANE - 1)`. A function
/// that always inlines (a closure called eight times was kept out of line, a call per lane).
#[inline(always)]
fn short_lane_fold<const LANE: usize, T>(
    start: usize,
    get: &impl Fn(usize) -> T,
    op: &impl Fn(T, T) -> T,
) -> T {
    let mut acc = get(start);
    for i in 1..LANE {
        acc = op(acc, get(start + i));
    }
    acc
}

/// Combines leaf results strictly left to right, starting from `identity`.
///
/// ```
/// use flatland_runtime::assoc::combine_leaves;
/// assert_eq!(combine_leaves(0, [1, 2, 3], |a, b| a + b), 6);
/// ```
#[inline]
pub fn combine_leaves<T>(
    identity: T,
    leaves: impl IntoIterator<Item = T>,
    op: impl Fn(T, T) -> T,
) -> T {
    leaves.into_iter().fold(identity, op)
}

/// The canonical fold of one whole segment, computed sequentially.
///
/// Every parallel or segmented reduction in Flatland returns exactly these bits.
///
/// ```
/// use flatland_runtime::assoc::fold;
/// let xs: Vec<i64> = (0..10_000).collect();
/// assert_eq!(fold(&xs, 0, |a, b| a + b), 49_995_000);
/// assert_eq!(fold(&[] as &[f64], 0.0, |a, b| a + b), 0.0);
/// ```
pub fn fold<T: Clone>(xs: &[T], identity: T, op: impl Fn(T, T) -> T) -> T {
    // One leaf (most segments): as below, without the walk over leaves ([`fold_by`]).
    if let [_, ..] = xs
        && xs.len() <= LEAF
    {
        let leaf = leaf_fold(xs, identity.clone(), &op);
        return op(identity, leaf);
    }
    combine_leaves(
        identity.clone(),
        xs.chunks(LEAF)
            .map(|leaf| leaf_fold(leaf, identity.clone(), &op)),
        &op,
    )
}

/// [`fold`] of the values `get(0), ..., get(len - 1)` without materialising them: the same
/// association and bits. `get` is called exactly once per index.
///
/// ```
/// use flatland_runtime::assoc::{fold, fold_by};
/// let xs: Vec<f64> = (0..10_000).map(|i| f64::from(i) * 0.1).collect();
/// let squares: Vec<f64> = xs.iter().map(|x| x * x).collect();
/// let fused = fold_by(xs.len(), |i| xs[i] * xs[i], 0.0, |a, b| a + b);
/// assert_eq!(fused.to_bits(), fold(&squares, 0.0, |a, b| a + b).to_bits());
/// ```
pub fn fold_by<T: Clone>(
    len: usize,
    get: impl Fn(usize) -> T,
    identity: T,
    op: impl Fn(T, T) -> T,
) -> T {
    // One leaf (most segments): the same fold as below without the walk over leaves, which
    // cost short gathered rows (PageRank's) about 1.15x their time.
    if len <= LEAF {
        return if len == 0 {
            identity
        } else {
            let leaf = leaf_fold_by(len, get, identity.clone(), &op);
            op(identity, leaf)
        };
    }
    combine_leaves(
        identity.clone(),
        (0..len).step_by(LEAF).map(|start| {
            let n = LEAF.min(len - start);
            leaf_fold_by(n, |i| get(start + i), identity.clone(), &op)
        }),
        &op,
    )
}

/// Writes the in-leaf prefix of `leaf` combined with `carry` into `out` and returns the leaf's
/// sequential total (the carry for the next leaf is `carry ⊕ total`).
///
/// `out[i] = carry ⊕ (x0 ⊕ x1 ⊕ ... ⊕ xi)`, where the parenthesised prefix is folded left to right
/// from `x0`. `out` must have the leaf's length. Returns `None` for an empty leaf.
///
/// ```
/// use flatland_runtime::assoc::leaf_scan;
/// let mut out = [0; 3];
/// let total = leaf_scan(&[1, 2, 3], 10, &mut out, |a, b| a + b);
/// assert_eq!(out, [11, 13, 16]);
/// assert_eq!(total, Some(6));
/// ```
#[inline]
pub fn leaf_scan<T: Clone>(
    leaf: &[T],
    carry: T,
    out: &mut [T],
    op: impl Fn(T, T) -> T,
) -> Option<T> {
    assert_eq!(leaf.len(), out.len(), "leaf_scan: output length");
    let mut it = leaf.iter();
    let mut prefix = it.next()?.clone();
    out[0] = op(carry.clone(), prefix.clone());
    for (x, o) in it.zip(&mut out[1..]) {
        prefix = op(prefix, x.clone());
        *o = op(carry.clone(), prefix.clone());
    }
    Some(prefix)
}

/// The canonical inclusive scan of one segment, computed sequentially.
///
/// Leaf `b` has carry `c_b` (`c_0 = identity`, `c_{b+1} = c_b ⊕ total_b`, `total_b` the leaf's
/// left-to-right fold) and its outputs are `c_b ⊕ prefix`, as [`leaf_scan`] computes.
///
/// ```
/// use flatland_runtime::assoc::scan_inclusive;
/// assert_eq!(scan_inclusive(&[1, 2, 3, 4], 0, |a, b| a + b), vec![1, 3, 6, 10]);
/// ```
pub fn scan_inclusive<T: Clone>(xs: &[T], identity: T, op: impl Fn(T, T) -> T) -> Vec<T> {
    // Each output written once, as it is computed ([`leaf_scan`]'s values): a copy of the
    // input overwritten by the scan read and wrote every output twice, which cost a per-row
    // prefix sum of rows of 0-19 values about 10% of its time.
    let mut out = crate::spare::vec_with_capacity(xs.len());
    let mut carry = identity;
    for leaf in xs.chunks(LEAF) {
        let (first, rest) = leaf.split_first().expect("chunks are not empty");
        let mut prefix = first.clone();
        out.push(op(carry.clone(), prefix.clone()));
        out.extend(rest.iter().map(|x| {
            prefix = op(prefix.clone(), x.clone());
            op(carry.clone(), prefix.clone())
        }));
        carry = op(carry, prefix);
    }
    out
}

/// [`scan_inclusive`] into a caller's buffer of the same length; returns the total
/// (`identity` for an empty input).
///
/// ```
/// use flatland_runtime::assoc::scan_inclusive_into;
/// let mut out = [0; 3];
/// assert_eq!(scan_inclusive_into(&[5, 6, 7], 0, &mut out, |a, b| a + b), 18);
/// assert_eq!(out, [5, 11, 18]);
/// ```
pub fn scan_inclusive_into<T: Clone>(
    xs: &[T],
    identity: T,
    out: &mut [T],
    op: impl Fn(T, T) -> T,
) -> T {
    assert_eq!(xs.len(), out.len(), "scan_inclusive_into: output length");
    let mut carry = identity;
    for (leaf, o) in xs.chunks(LEAF).zip(out.chunks_mut(LEAF)) {
        if let Some(total) = leaf_scan(leaf, carry.clone(), o, &op) {
            carry = op(carry, total);
        }
    }
    carry
}

/// The canonical exclusive scan: `out[0] = identity`, `out[i] = inclusive[i - 1]`.
///
/// ```
/// use flatland_runtime::assoc::scan_exclusive;
/// assert_eq!(scan_exclusive(&[1, 2, 3, 4], 0, |a, b| a + b), vec![0, 1, 3, 6]);
/// assert!(scan_exclusive(&[] as &[i64], 0, |a, b| a + b).is_empty());
/// ```
pub fn scan_exclusive<T: Clone>(xs: &[T], identity: T, op: impl Fn(T, T) -> T) -> Vec<T> {
    let mut out = scan_inclusive(xs, identity.clone(), op);
    if !out.is_empty() {
        out.pop();
        out.insert(0, identity);
    }
    out
}

/// Pairs per block of a histogram's canonical association (see the module docs and [`hist`]).
pub const HIST_BLOCK: usize = 1 << 16;

/// The block length of a histogram of `bins` bins: [`HIST_BLOCK`] pairs, or `16 * bins` when
/// that is more (a function of `bins` only, never of the thread count).
///
/// ```
/// use flatland_runtime::assoc::{HIST_BLOCK, hist_block};
/// assert_eq!(hist_block(256), HIST_BLOCK);
/// assert_eq!(hist_block(100_000), 1_600_000);
/// ```
#[inline]
pub fn hist_block(bins: usize) -> usize {
    HIST_BLOCK.max(bins.saturating_mul(16))
}

/// The canonical reduction by index of one segment, computed sequentially: `bins` bins, each
/// the fold of the values whose index names it, with the block association of the module docs.
/// Indices outside `0..bins` are skipped; pairs beyond the shorter of `indices` and `values`
/// are ignored (callers check the lengths).
///
/// Every parallel or segmented histogram in Flatland returns exactly these bits.
///
/// ```
/// use flatland_runtime::assoc::hist;
/// assert_eq!(hist(3, 0, &[0, 2, 2, -1, 7], &[1, 1, 1, 1, 1], |a, b| a + b), vec![1, 0, 2]);
/// assert_eq!(hist(2, f64::INFINITY, &[], &[], f64::min), vec![f64::INFINITY; 2]);
/// ```
pub fn hist<T: Clone>(
    bins: usize,
    identity: T,
    indices: &[i64],
    values: &[T],
    op: impl Fn(T, T) -> T,
) -> Vec<T> {
    let block = hist_block(bins);
    let mut out: Option<Vec<T>> = None;
    for (ks, vs) in indices.chunks(block).zip(values.chunks(block)) {
        let mut p = vec![identity.clone(); bins];
        hist_block_into(&mut p, ks, vs, &op);
        out = Some(match out {
            None => p,
            Some(mut h) => {
                combine_hist(&mut h, p, &op);
                h
            }
        });
    }
    out.unwrap_or_else(|| vec![identity; bins])
}

/// The bin of index `k` among `bins`, or `None` for an index outside `0..bins.len()`: the one
/// definition of which pairs a reduction by index skips (Futhark's rule), for [`hist`] and
/// every loop that computes its bits.
///
/// ```
/// use flatland_runtime::assoc::bin_mut;
/// let mut p = [0, 0];
/// assert!(bin_mut(&mut p, 1).is_some());
/// assert!(bin_mut(&mut p, 2).is_none() && bin_mut(&mut p, -1).is_none());
/// assert!(bin_mut(&mut p, i64::MIN).is_none());
/// ```
#[inline(always)]
pub fn bin_mut<T>(bins: &mut [T], k: i64) -> Option<&mut T> {
    // A negative index wraps to at least 2^63, past any histogram: one unsigned comparison
    // tests both ends (`usize::try_from(i64)` compiled to two tests in the per-lane loop).
    #[allow(clippy::cast_sign_loss)]
    let k = k as u64;
    usize::try_from(k).ok().and_then(|k| bins.get_mut(k))
}

/// Folds one block's pairs into the partial histogram `p` left to right (indices outside
/// `0..p.len()` skipped): the in-block step of [`hist`].
///
/// ```
/// use flatland_runtime::assoc::hist_block_into;
/// let mut p = vec![0; 2];
/// hist_block_into(&mut p, &[1, 1, 5], &[3, 4, 9], |a, b| a + b);
/// assert_eq!(p, vec![0, 7]);
/// ```
#[inline]
pub fn hist_block_into<T: Clone>(
    p: &mut [T],
    indices: &[i64],
    values: &[T],
    op: impl Fn(T, T) -> T,
) {
    for (&k, v) in indices.iter().zip(values) {
        if let Some(slot) = bin_mut(p, k) {
            *slot = op(slot.clone(), v.clone());
        }
    }
}

/// Combines the next block's partial histogram `p` into `h`, bin by bin (`h[k] = h[k] ⊕ p[k]`):
/// the between-block step of [`hist`].
///
/// ```
/// use flatland_runtime::assoc::combine_hist;
/// let mut h = vec![1, 2];
/// combine_hist(&mut h, vec![10, 20], |a, b| a + b);
/// assert_eq!(h, vec![11, 22]);
/// ```
#[inline]
pub fn combine_hist<T: Clone>(h: &mut [T], p: impl IntoIterator<Item = T>, op: impl Fn(T, T) -> T) {
    for (a, b) in h.iter_mut().zip(p) {
        *a = op(a.clone(), b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    /// The in-leaf association spelt out on a slice (as documented on [`leaf_fold`]), written
    /// independently of [`leaf_fold_by`].
    fn reference_leaf_fold<T: Clone>(xs: &[T], identity: T, op: impl Fn(T, T) -> T) -> T {
        if xs.len() < SHORT {
            return xs.iter().cloned().fold(identity, &op);
        }
        let lane = xs.len() / LANES;
        let l: Vec<T> = (0..LANES)
            .map(|j| {
                let end = if j == LANES - 1 {
                    xs.len()
                } else {
                    (j + 1) * lane
                };
                let first = xs[j * lane].clone();
                xs[j * lane + 1..end].iter().cloned().fold(first, &op)
            })
            .collect();
        let c = |a: usize, b: usize| op(l[a].clone(), l[b].clone());
        op(op(c(0, 1), c(2, 3)), op(c(4, 5), c(6, 7)))
    }

    fn seq_fold(xs: &[i64]) -> i64 {
        xs.iter().fold(0i64, |a, &b| a.wrapping_add(b))
    }

    /// Where nothing fails, the try folds give the bits of the folds that cannot fail; where
    /// the indices `fails` (modulo the length) fail, the error of one of them and no value.
    fn try_folds_agree(v: &[f64], fails: &[usize]) -> bool {
        let add = |a: f64, b: f64| a + b;
        let same = crate::expr::op::float::same;
        let n = v.len();
        let failing: Vec<usize> = fails.iter().filter(|_| n > 0).map(|f| f % n).collect();
        let get = |i: usize| {
            if failing.contains(&i) {
                Err(i)
            } else {
                Ok(v[i])
            }
        };
        let folded = try_fold_by(n, get, -0.0, add);
        let leaf = (n <= LEAF).then(|| try_leaf_fold_by(n, get, -0.0, add));
        if failing.is_empty() {
            let whole = fold_by(n, |i| v[i], -0.0, add);
            let in_leaf = leaf_fold_by(n, |i| v[i], -0.0, add);
            matches!(folded, Ok(x) if same(x, whole))
                && leaf.is_none_or(|l| matches!(l, Ok(x) if same(x, in_leaf)))
        } else {
            matches!(folded, Err(i) if failing.contains(&i))
                && leaf.is_none_or(|l| matches!(l, Err(i) if failing.contains(&i)))
        }
    }

    quickcheck! {
        fn fold_matches_sequential_for_associative_ops(xs: Vec<i64>) -> bool {
            fold(&xs, 0, i64::wrapping_add) == seq_fold(&xs)
        }
        fn fold_preserves_operand_order(xs: Vec<u8>) -> bool {
            // String concatenation is associative but not commutative.
            let strs: Vec<String> = xs.iter().map(|b| format!("{b},")).collect();
            let expected: String = strs.concat();
            fold(&strs, String::new(), |a, b| a + &b) == expected
        }
        fn leaf_fold_by_is_leaf_fold_bitwise(xs: Vec<f64>) -> bool {
            // Floats (rounding makes the association visible) and a non-commutative op on
            // strings; quickcheck's lengths cross the short-leaf threshold.
            let add = |a: f64, b: f64| a + b;
            let sq = |i: usize| xs[i] * xs[i] - 0.5;
            let squares: Vec<f64> = (0..xs.len()).map(sq).collect();
            let strs: Vec<String> = xs.iter().map(|x| format!("{x},")).collect();
            let cat = |a: String, b: String| a + &b;
            // Bit for bit up to NaN bits, which Rust leaves unspecified (`inf + -inf`).
            let same = crate::expr::op::float::same;
            same(leaf_fold(&xs, -0.0, add), reference_leaf_fold(&xs, -0.0, add))
                && same(leaf_fold_by(xs.len(), |i| xs[i], -0.0, add), reference_leaf_fold(&xs, -0.0, add))
                && same(leaf_fold_by(xs.len(), sq, 0.0, add), reference_leaf_fold(&squares, 0.0, add))
                && leaf_fold_by(xs.len(), |i| strs[i].clone(), String::new(), cat)
                    == reference_leaf_fold(&strs, String::new(), cat)
                && leaf_fold(&strs, String::new(), cat) == strs.concat()
        }
        fn try_folds_are_the_folds_or_a_failing_index(xs: Vec<f64>, fails: Vec<usize>) -> bool {
            // Lengths across a leaf come from repeating the input.
            let long: Vec<f64> = xs.iter().cycle().take(xs.len() * 97).copied().collect();
            try_folds_agree(&xs, &fails) && try_folds_agree(&long, &fails)
        }
        fn scan_matches_sequential(xs: Vec<i64>) -> bool {
            let mut acc = 0i64;
            let expected: Vec<i64> = xs.iter().map(|&x| { acc = acc.wrapping_add(x); acc }).collect();
            scan_inclusive(&xs, 0, i64::wrapping_add) == expected
        }
    }

    #[test]
    fn every_short_leaf_length_has_the_reference_association() {
        // Every length through the straight-line leaves (lanes of 2 to 4 values) and past
        // them, with floats whose sums show any change of association in their bits, and a
        // selecting operator (the first largest, as an arg-max's `if` picks it).
        for n in 0..=6 * LANES {
            let xs: Vec<f64> = (0..n)
                .map(|i| 1.0 / (3.0 + i as f64) * if i % 3 == 0 { -1e3 } else { 1.0 })
                .collect();
            let add = |a: f64, b: f64| a + b;
            let want = reference_leaf_fold(&xs, 0.5, add).to_bits();
            assert_eq!(leaf_fold(&xs, 0.5, add).to_bits(), want, "n = {n}");
            assert_eq!(
                leaf_fold_by(n, |i| xs[i], 0.5, add).to_bits(),
                want,
                "n = {n}"
            );
            let in_turn = leaf_fold_by_in_turn(n, |i| xs[i], 0.5, add);
            assert_eq!(in_turn.to_bits(), want, "n = {n}");
            let pairs: Vec<(i64, f64)> = xs.iter().map(|&x| ((x * 7.0) as i64, x)).collect();
            let best = |a: (i64, f64), b: (i64, f64)| if b.0 > a.0 { b } else { a };
            let z = (i64::MIN, 0.0);
            let want = reference_leaf_fold(&pairs, z, best);
            assert_eq!(leaf_fold(&pairs, z, best), want, "n = {n}");
        }
    }

    #[test]
    fn scan_inclusive_has_the_bits_of_its_leaves_with_their_carries() {
        // `scan_inclusive` builds its output as it goes; `scan_inclusive_into` writes a buffer
        // through `leaf_scan`: the same outputs bit for bit, floats and -0.0 included (the
        // identity is combined into every output), on one leaf and across leaves.
        for n in [0, 1, 2, 17, LEAF - 1, LEAF, LEAF + 1, 2 * LEAF + 3] {
            let xs: Vec<f64> = (0..n)
                .map(|i| {
                    if i % 5 == 0 {
                        -0.0
                    } else {
                        1.0 / (1.0 + i as f64)
                    }
                })
                .collect();
            let add = |a: f64, b: f64| a + b;
            let mut want = vec![f64::NAN; n];
            scan_inclusive_into(&xs, -0.0, &mut want, add);
            let got = scan_inclusive(&xs, -0.0, add);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&want), "n = {n}");
        }
    }

    #[test]
    fn long_inputs_cross_leaves() {
        for n in [0, 1, 15, 16, 17, LEAF - 1, LEAF, LEAF + 1, 3 * LEAF + 7] {
            let xs: Vec<i64> = (0..n as i64).collect();
            assert_eq!(fold(&xs, 0, |a, b| a + b), seq_fold(&xs), "n = {n}");
            let strs: Vec<String> = (0..n).map(|i| i.to_string()).collect();
            assert_eq!(
                fold(&strs, String::new(), |a, b| a + &b),
                strs.concat(),
                "n = {n}"
            );
            let sc = scan_inclusive(&xs, 0, |a, b| a + b);
            assert_eq!(sc.last().copied().unwrap_or(0), seq_fold(&xs));
            let ex = scan_exclusive(&xs, 0, |a, b| a + b);
            assert_eq!(ex.len(), n);
        }
    }

    #[test]
    fn fold_and_fold_by_are_their_leaves_combined_at_every_length() {
        // A non-neutral identity and a non-commutative operator show where the identity goes
        // (into every leaf, and once in front of the leaves), on one leaf and on several.
        let cat = |a: String, b: String| a + &b;
        for n in [0, 1, 15, 16, 17, LEAF - 1, LEAF, LEAF + 1, 2 * LEAF + 5] {
            let strs: Vec<String> = (0..n).map(|i| format!("{i},")).collect();
            let z = String::from("z;");
            let want = combine_leaves(
                z.clone(),
                strs.chunks(LEAF)
                    .map(|l| reference_leaf_fold(l, z.clone(), cat)),
                cat,
            );
            assert_eq!(fold(&strs, z.clone(), cat), want, "n = {n}");
            assert_eq!(
                fold_by(n, |i| strs[i].clone(), z.clone(), cat),
                want,
                "n = {n}"
            );
        }
    }

    #[test]
    fn float_fold_differs_from_naive_but_is_fixed() {
        let xs: Vec<f64> = (0..50_000).map(|i| 1.0 / (1.0 + i as f64)).collect();
        let a = fold(&xs, 0.0, |a, b| a + b);
        let b = fold(&xs, 0.0, |a, b| a + b);
        assert_eq!(a.to_bits(), b.to_bits());
        assert!((a - xs.iter().sum::<f64>()).abs() < 1e-9);
    }
}
