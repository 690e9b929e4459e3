//! Elementwise primitives: map, zip_with, redomap, iota, replicate.

use super::Step;
use crate::assoc::{self, LEAF};
use crate::cost::ElemCost;
use crate::sched::{self, build_vec_tasks};
use crate::{Error, Result, stats};

/// One op, one read and one write per element.
const MAP: ElemCost = ElemCost::new(1.0, 2.0);
/// One op, two reads and one write per element.
const ZIP: ElemCost = ElemCost::new(1.0, 3.0);
/// A write per element.
const FILL: ElemCost = ElemCost::new(1.0, 1.0);

/// `[f(x) for x in xs]`. Counts `n` read, `n` written, `n` elements of `U` allocated.
///
/// ```
/// assert_eq!(flatland_runtime::flat::map(&[1, 2, 3], |x| x * 10), vec![10, 20, 30]);
/// ```
pub fn map<T, U>(xs: &[T], f: impl Fn(T) -> U + Sync) -> Vec<U>
where
    T: Copy + Sync,
    U: Copy + Send,
{
    let n = xs.len();
    stats::record_read(n as u64);
    stats::record_written(n as u64);
    stats::record_alloc::<U>(n);
    let (s, _timing) = sched::plan_op(sched::Op::of("flat::map", &f), n, MAP);
    build_vec_tasks(&s, |_, r, out| out.fill(xs[r].iter().map(|&x| f(x))))
}

/// `[f(x, y) for (x, y) in zip(xs, ys)]`; the lengths must agree.
/// Counts `2n` read, `n` written, `n` elements of `V` allocated.
///
/// # Errors
/// [`Error::LengthMismatch`] when the lengths differ.
///
/// ```
/// use flatland_runtime::{flat::zip_with, Error};
/// assert_eq!(zip_with(&[1, 2], &[10, 20], |a, b| a + b).unwrap(), vec![11, 22]);
/// assert!(matches!(zip_with(&[1], &[1, 2], |a: i32, b: i32| a + b), Err(Error::LengthMismatch { .. })));
/// ```
pub fn zip_with<T, U, V>(xs: &[T], ys: &[U], f: impl Fn(T, U) -> V + Sync) -> Result<Vec<V>>
where
    T: Copy + Sync,
    U: Copy + Sync,
    V: Copy + Send,
{
    let n = xs.len();
    if ys.len() != n {
        return Err(Error::LengthMismatch {
            op: "zip_with",
            expected: n,
            found: ys.len(),
        });
    }
    stats::record_read(2 * n as u64);
    stats::record_written(n as u64);
    stats::record_alloc::<V>(n);
    let (s, _timing) = sched::plan_op(sched::Op::of("flat::zip_with", &f), n, ZIP);
    Ok(build_vec_tasks(&s, |_, r, out| {
        out.fill(xs[r.clone()].iter().zip(&ys[r]).map(|(&x, &y)| f(x, y)));
    }))
}

/// Map and reduce in one pass: `f(x) = (u, r)` for every element; returns the `u`s and the
/// reduction of the `r`s with `op` and `identity`, in the canonical association (bitwise equal to
/// `assoc::fold` over the `r`s). Counts `n` read, `n` written, `n` elements of `U` allocated.
///
/// ```
/// use flatland_runtime::{assoc, flat::redomap};
/// let xs: Vec<f64> = (0..10_000).map(|i| i as f64 * 0.5).collect();
/// let (squares, sum) = redomap(&xs, |x| (x * x, x * x), 0.0, |a, b| a + b);
/// assert_eq!(sum.to_bits(), assoc::fold(&squares, 0.0, |a, b| a + b).to_bits());
/// ```
pub fn redomap<T, U, R>(
    xs: &[T],
    f: impl Fn(T) -> (U, R) + Sync,
    identity: R,
    op: impl Fn(R, R) -> R + Sync,
) -> (Vec<U>, R)
where
    T: Copy + Sync,
    U: Copy + Send,
    R: Copy + Send + Sync,
{
    let n = xs.len();
    stats::record_read(n as u64);
    stats::record_written(n as u64);
    stats::record_alloc::<U>(n);
    let (s, _timing) = sched::plan_op(
        sched::Op::of("flat::redomap", &f),
        n,
        ElemCost::new(2.0, 2.0),
    );
    let Ok((mapped, leaves)) = sched::try_build_vec_tasks(&s, |_, r, out| {
        let mut rs: Vec<R> = Vec::with_capacity(LEAF.min(r.len()));
        let leaves: Vec<R> = xs[r]
            .chunks(LEAF)
            .map(|leaf| {
                rs.clear();
                out.fill(leaf.iter().map(|&x| {
                    let (u, r) = f(x);
                    rs.push(r);
                    u
                }));
                assoc::leaf_fold(&rs, identity, &op)
            })
            .collect();
        Ok::<_, std::convert::Infallible>(leaves)
    });
    (
        mapped,
        assoc::combine_leaves(identity, leaves.into_iter().flatten(), &op),
    )
}

/// `[start + i * step for i in 0..n]` (see [`Step`]). Counts `n` written and allocated.
///
/// ```
/// use flatland_runtime::flat::iota;
/// assert_eq!(iota(5i64, -2, 4), vec![5, 3, 1, -1]);
/// assert_eq!(iota(0.0f64, 0.5, 3), vec![0.0, 0.5, 1.0]);
/// ```
pub fn iota<T: Step>(start: T, step: T, n: usize) -> Vec<T> {
    stats::record_written(n as u64);
    stats::record_alloc::<T>(n);
    let (s, _timing) = sched::plan_op(sched::Op::new("flat::iota"), n, FILL);
    build_vec_tasks(&s, |_, r, out| out.fill(r.map(|i| T::nth(start, step, i))))
}

/// `n` copies of `x`. Counts `n` written and allocated.
///
/// ```
/// assert_eq!(flatland_runtime::flat::replicate(7u8, 3), vec![7, 7, 7]);
/// ```
pub fn replicate<T: Copy + Send + Sync>(x: T, n: usize) -> Vec<T> {
    stats::record_written(n as u64);
    stats::record_alloc::<T>(n);
    let (s, _timing) = sched::plan_op(sched::Op::new("flat::replicate"), n, FILL);
    build_vec_tasks(&s, |_, r, out| out.fill(std::iter::repeat_n(x, r.len())))
}
