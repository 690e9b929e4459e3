//! The canonical folds of values that may fail to compute ([`try_fold_by`],
//! [`try_leaf_fold_by`]): the association of [`super::fold_by`] and [`super::leaf_fold_by`],
//! stopping at the first failure met.
//!
//! The association is written a second time here, beside the folds that cannot fail, on
//! purpose. One definition generic over the error (`E = Infallible` for the folds that cannot
//! fail) gave the same bits, but changed how rustc compiled the folds that cannot fail: a
//! per-row arg-max and a nearest-of-16 assignment, both best-of folds with selects, ran 1.1-1.8x
//! slower (suite kernels `row_argmax` and `nearest_centre`, two threads). The quickcheck
//! property in `assoc`'s tests keeps the two definitions' bits equal.

use super::{LANES, LEAF, SHORT};

/// [`leaf_fold_by`](super::leaf_fold_by) of values that may fail to compute: the leaf's
/// fold, or the error of a failing `get` (the first one met, in an unspecified order; the
/// others are not called). The same association and bits as
/// [`leaf_fold_by`](super::leaf_fold_by) where nothing fails.
///
/// Stopping at the failure leaves the loops without a path that rejoins them, so the values
/// they read stay in registers: a flag for "some element failed", set in memory or carried
/// beside the accumulators, cost a fold of gathered rows (`row.map(|(c, x)| x * v[c]).sum()`,
/// `v[c]` checked) 1.5-2x the time of the same fold that cannot fail (one thread; rows of 20
/// values: 48 and 35 against 23 ms).
///
/// # Errors
/// The error of a failing `get`.
///
/// ```
/// use flatland_runtime::assoc::{leaf_fold_by, try_leaf_fold_by};
/// let xs: Vec<f64> = (0..100).map(|i| f64::from(i) * 0.1).collect();
/// let ok = try_leaf_fold_by(xs.len(), |i| Ok::<_, ()>(xs[i]), 0.0, |a, b| a + b);
/// assert_eq!(ok.unwrap().to_bits(), leaf_fold_by(xs.len(), |i| xs[i], 0.0, |a, b| a + b).to_bits());
/// let failing = try_leaf_fold_by(xs.len(), |i| if i == 42 { Err(i) } else { Ok(xs[i]) }, 0.0, |a, b| a + b);
/// assert_eq!(failing, Err(42));
/// ```
#[inline]
pub fn try_leaf_fold_by<T: Clone, E>(
    len: usize,
    get: impl Fn(usize) -> Result<T, E>,
    identity: T,
    op: impl Fn(T, T) -> T,
) -> Result<T, E> {
    try_leaf_fold_in::<{ LANES / 2 }, T, E>(len, get, identity, op)
}

/// [`try_leaf_fold_by`] running `GROUP` lanes side by side ([`try_lanes_fold`]).
#[inline]
fn try_leaf_fold_in<const GROUP: usize, T: Clone, E>(
    len: usize,
    get: impl Fn(usize) -> Result<T, E>,
    identity: T,
    op: impl Fn(T, T) -> T,
) -> Result<T, E> {
    if len < SHORT {
        // Kept small so that it inlines into per-segment loops (most segments are short).
        let mut acc = identity;
        for i in 0..len {
            acc = op(acc, get(i)?);
        }
        Ok(acc)
    } else {
        try_lanes_fold::<GROUP, T, E>(len, get, op)
    }
}

/// [`super::lanes_fold`] of values that may fail: the same association, stopping at the
/// first failure met.
#[inline(never)]
fn try_lanes_fold<const GROUP: usize, T: Clone, E>(
    len: usize,
    get: impl Fn(usize) -> Result<T, E>,
    op: impl Fn(T, T) -> T,
) -> Result<T, E> {
    let lane = len / LANES;
    match lane {
        2 => return try_short_lanes_fold::<2, T, E>(len, get, op),
        3 => return try_short_lanes_fold::<3, T, E>(len, get, op),
        4 => return try_short_lanes_fold::<4, T, E>(len, get, op),
        _ => {}
    }
    let mut acc: [T; LANES] = try_from_fn(|j| get(j * lane))?;
    for (g, acc) in acc.chunks_exact_mut(GROUP).enumerate() {
        for i in 1..lane {
            for (j, a) in acc.iter_mut().enumerate() {
                *a = op(a.clone(), get((g * GROUP + j) * lane + i)?);
            }
        }
    }
    for i in LANES * lane..len {
        acc[LANES - 1] = op(acc[LANES - 1].clone(), get(i)?);
    }
    let [l0, l1, l2, l3, l4, l5, l6, l7] = acc;
    Ok(op(op(op(l0, l1), op(l2, l3)), op(op(l4, l5), op(l6, l7))))
}

/// The lanes' first values, `get(j)` for `j` in `0..LANES`, or the first error
/// (`std::array::try_from_fn` is not stable).
#[inline(always)]
fn try_from_fn<T, E>(get: impl Fn(usize) -> Result<T, E>) -> Result<[T; LANES], E> {
    Ok([
        get(0)?,
        get(1)?,
        get(2)?,
        get(3)?,
        get(4)?,
        get(5)?,
        get(6)?,
        get(7)?,
    ])
}

/// [`super::short_lanes_fold`] of values that may fail.
#[inline(always)]
fn try_short_lanes_fold<const LANE: usize, T, E>(
    len: usize,
    get: impl Fn(usize) -> Result<T, E>,
    op: impl Fn(T, T) -> T,
) -> Result<T, E> {
    let lane = |j| try_short_lane_fold::<LANE, T, E>(j * LANE, &get, &op);
    let (l0, l1, l2, l3) = (lane(0)?, lane(1)?, lane(2)?, lane(3)?);
    let (l4, l5, l6) = (lane(4)?, lane(5)?, lane(6)?);
    let mut l7 = lane(7)?;
    for i in LANES * LANE..len {
        l7 = op(l7, get(i)?);
    }
    Ok(op(op(op(l0, l1), op(l2, l3)), op(op(l4, l5), op(l6, l7))))
}

/// [`super::short_lane_fold`] of values that may fail.
#[inline(always)]
fn try_short_lane_fold<const LANE: usize, T, E>(
    start: usize,
    get: &impl Fn(usize) -> Result<T, E>,
    op: &impl Fn(T, T) -> T,
) -> Result<T, E> {
    let mut acc = get(start)?;
    for i in 1..LANE {
        acc = op(acc, get(start + i)?);
    }
    Ok(acc)
}

/// [`fold_by`](super::fold_by) of values that may fail to compute: the fold, or the error of
/// a failing `get` (the first one met, in an unspecified order; the indices after it are not
/// computed). The same association and bits as [`fold_by`](super::fold_by) where nothing
/// fails ([`try_leaf_fold_by`] says why it stops instead of flagging).
///
/// # Errors
/// The error of a failing `get`.
///
/// ```
/// use flatland_runtime::assoc::{fold_by, try_fold_by};
/// let xs: Vec<f64> = (0..10_000).map(|i| f64::from(i) * 0.1).collect();
/// let ok = try_fold_by(xs.len(), |i| Ok::<_, ()>(xs[i]), 0.0, |a, b| a + b);
/// assert_eq!(ok.unwrap().to_bits(), fold_by(xs.len(), |i| xs[i], 0.0, |a, b| a + b).to_bits());
/// assert_eq!(try_fold_by(10, |i| if i == 7 { Err(i) } else { Ok(1) }, 0, |a, b| a + b), Err(7));
/// ```
pub fn try_fold_by<T: Clone, E>(
    len: usize,
    get: impl Fn(usize) -> Result<T, E>,
    identity: T,
    op: impl Fn(T, T) -> T,
) -> Result<T, E> {
    // One leaf (most segments): the same fold as below without the walk over leaves, which
    // cost short gathered rows (PageRank's) about 1.15x their time.
    if len <= LEAF {
        return if len == 0 {
            Ok(identity)
        } else {
            let leaf = try_leaf_fold_by(len, get, identity.clone(), &op)?;
            Ok(op(identity, leaf))
        };
    }
    let mut acc = identity.clone();
    for start in (0..len).step_by(LEAF) {
        let n = LEAF.min(len - start);
        let leaf = try_leaf_fold_by(n, |i| get(start + i), identity.clone(), &op)?;
        acc = op(acc, leaf);
    }
    Ok(acc)
}
