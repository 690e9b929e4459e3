//! Reductions and scans in the canonical association.

use crate::assoc::{self, LEAF};
use crate::cost::ElemCost;
use crate::{sched, stats};

/// One op and one read per element.
const REDUCE: ElemCost = ElemCost::new(1.0, 1.0);
/// Two ops (totals, then prefixes), two reads and a write per element.
const SCAN: ElemCost = ElemCost::new(2.0, 3.0);

/// The reduction of `xs` with an associative `op` and its `identity`, bitwise equal to
/// [`assoc::fold`] for every pool size and machine profile: tasks fold their leaves with
/// [`assoc::leaf_fold`], and the leaf results are combined left to right on the calling thread.
/// Counts `n` read.
///
/// ```
/// use flatland_runtime::{assoc, flat::reduce};
/// let xs: Vec<f64> = (0..100_000).map(|i| 1.0 / (1.0 + i as f64)).collect();
/// let s = reduce(&xs, 0.0, |a, b| a + b);
/// assert_eq!(s.to_bits(), assoc::fold(&xs, 0.0, |a, b| a + b).to_bits());
/// // Strings: associative, not commutative.
/// let words = ["a", "b", "c"].map(String::from);
/// assert_eq!(reduce(&words, String::new(), |a, b| a + &b), "abc");
/// ```
pub fn reduce<T>(xs: &[T], identity: T, op: impl Fn(T, T) -> T + Sync) -> T
where
    T: Clone + Send + Sync,
{
    stats::record_read(xs.len() as u64);
    let s = sched::plan(xs.len(), REDUCE);
    if s.is_sequential() {
        return assoc::fold(xs, identity, op);
    }
    let leaves = sched::run(&s, |_, r| {
        xs[r]
            .chunks(LEAF)
            .map(|leaf| assoc::leaf_fold(leaf, identity.clone(), &op))
            .collect::<Vec<T>>()
    });
    assoc::combine_leaves(identity, leaves.into_iter().flatten(), &op)
}

/// The inclusive scan of `xs` with an associative `op` and its `identity`, bitwise equal to
/// [`assoc::scan_inclusive`]. Counts `n` read, `n` written and allocated.
///
/// In parallel it makes three passes: tasks compute their leaves' totals; the calling thread
/// chains the leaf carries left to right; tasks scan their leaves from their first carry.
///
/// ```
/// use flatland_runtime::flat::scan_inclusive;
/// assert_eq!(scan_inclusive(&[1, 2, 3, 4], 0, |a, b| a + b), vec![1, 3, 6, 10]);
/// ```
pub fn scan_inclusive<T>(xs: &[T], identity: T, op: impl Fn(T, T) -> T + Sync) -> Vec<T>
where
    T: Copy + Send + Sync,
{
    scan(xs, identity, op, false).0
}

/// The exclusive scan of `xs` (`out[0] = identity`, `out[i] = inclusive[i - 1]`), bitwise equal
/// to [`assoc::scan_exclusive`]. Counts `n` read, `n` written and allocated.
///
/// ```
/// use flatland_runtime::flat::scan_exclusive;
/// assert_eq!(scan_exclusive(&[1, 2, 3, 4], 0, |a, b| a + b), vec![0, 1, 3, 6]);
/// ```
pub fn scan_exclusive<T>(xs: &[T], identity: T, op: impl Fn(T, T) -> T + Sync) -> Vec<T>
where
    T: Copy + Send + Sync,
{
    scan(xs, identity, op, true).0
}

/// [`scan_exclusive`] and the total (the inclusive scan's last element, `identity` when empty):
/// offsets from lengths in one call.
///
/// ```
/// use flatland_runtime::flat::scan_exclusive_with_total;
/// let (offsets, total) = scan_exclusive_with_total(&[3usize, 0, 2], 0, |a, b| a + b);
/// assert_eq!((offsets, total), (vec![0, 3, 3], 5));
/// ```
pub fn scan_exclusive_with_total<T>(
    xs: &[T],
    identity: T,
    op: impl Fn(T, T) -> T + Sync,
) -> (Vec<T>, T)
where
    T: Copy + Send + Sync,
{
    scan(xs, identity, op, true)
}

fn scan<T>(xs: &[T], identity: T, op: impl Fn(T, T) -> T + Sync, exclusive: bool) -> (Vec<T>, T)
where
    T: Copy + Send + Sync,
{
    let n = xs.len();
    stats::record_read(n as u64);
    stats::record_written(n as u64);
    stats::record_alloc::<T>(n);
    let s = sched::plan(n, SCAN);
    // The carry entering each task's first leaf: c_0 = identity, c_{b+1} = c_b ⊕ total_b.
    let firsts: Vec<T> = if s.is_sequential() {
        vec![identity]
    } else {
        let totals = sched::run(&s, |_, r| {
            xs[r]
                .chunks(LEAF)
                .map(|leaf| left_fold(leaf, &op))
                .collect::<Vec<T>>()
        });
        let mut carry = identity;
        totals
            .iter()
            .map(|task| {
                let first = carry;
                carry = task.iter().fold(carry, |c, &t| op(c, t));
                first
            })
            .collect()
    };
    let Ok((out, lasts)) = sched::try_build_vec_tasks(&s, |t, r, out| {
        let mut carry = firsts[t];
        for leaf in xs[r].chunks(LEAF) {
            let o = out.copy_from(leaf);
            let total = if exclusive {
                // out[0] = carry; out[i] = carry ⊕ (x0 ⊕ ... ⊕ x(i-1)).
                o[0] = carry;
                let (init, last) = (&leaf[..leaf.len() - 1], leaf[leaf.len() - 1]);
                match assoc::leaf_scan(init, carry, &mut o[1..], &op) {
                    Some(prefix) => op(prefix, last),
                    None => last,
                }
            } else {
                assoc::leaf_scan(leaf, carry, o, &op).expect("leaves are not empty")
            };
            carry = op(carry, total);
        }
        Ok::<_, std::convert::Infallible>(carry)
    });
    let total = lasts.last().copied().unwrap_or(identity);
    (out, total)
}

/// `x0 ⊕ x1 ⊕ ... ⊕ xk` left to right from `x0` (a leaf's total, as [`assoc::leaf_scan`] returns
/// it); `leaf` is not empty.
fn left_fold<T: Copy>(leaf: &[T], op: impl Fn(T, T) -> T) -> T {
    leaf[1..].iter().fold(leaf[0], |a, &b| op(a, b))
}
