//! Sorting every segment of a nested array of numbers: values in total order and stable
//! per-segment `argsort` (the order and uniqueness of [`crate::flat::sort_f64`] and
//! [`crate::flat::argsort_f64`], segment by segment).
//!
//! The work is balanced by elements, not segments: consecutive segments are grouped into tasks
//! of about `elements / (4 * threads)` elements each, sorted one after another by a task; a
//! segment of at least that many elements (and at least [`crate::flat`]'s parallel threshold) is
//! a task of its own, sorted by rayon's parallel sort. Values sort in place (no work space). A million rows of twenty and one row of
//! ten million are both spread over the pool. Results are unique, hence the same for every
//! thread count.
//!
//! ```
//! use flatland_runtime::seg;
//! use flatland_segd::Segd;
//! let segd = Segd::from_lengths(vec![3, 0, 2]).unwrap();
//! let mut xs = [3.0, 1.0, 2.0, 0.0, -0.0];
//! seg::sort_f64_s(&segd, &mut xs).unwrap();
//! assert_eq!(xs.map(f64::to_bits), [1.0, 2.0, 3.0, -0.0, 0.0].map(f64::to_bits));
//! assert_eq!(seg::argsort_i64_s(&segd, &[5, 5, 4, 9, 8]).unwrap(), vec![2, 0, 1, 1, 0]);
//! ```

use super::fold::check_len;
use crate::cost::ElemCost;
use crate::flat::sort::{PARALLEL_SORT, key};
use crate::{Result, budget, sched};
use flatland_segd::Segd;
use rayon::prelude::*;

/// A sort's cost per element for the scheduler: about log2 of a row's length in compares and
/// moves (a handful of operations), a read and a write.
const SORT: ElemCost = ElemCost::new(8.0, 2.0);

/// One task: consecutive small segments, or one large segment.
enum Task<'a, T> {
    Small(Vec<&'a mut [T]>),
    Large(&'a mut [T]),
}

/// Applies `small` to every segment of `data` (sequentially within a task) and `large` to the
/// segments big enough to be a parallel task of their own; the task count is the cost model's
/// ([`sched::plan`]), the tasks run on the runtime's pool ([`sched::run_parts`]).
fn for_each_segment<T: Send>(
    segd: &Segd,
    data: &mut [T],
    small: impl Fn(&mut [T]) + Sync,
    large: impl Fn(&mut [T]) + Sync,
) {
    let n = data.len();
    let lens = segd.lengths();
    let (s, _timing) = sched::plan_op(sched::Op::of("seg::sort", &small), n, SORT);
    let k = s.num_tasks();
    if n < PARALLEL_SORT || k <= 1 {
        let mut rest = data;
        for &l in lens.iter() {
            let (seg, tail) = rest.split_at_mut(l);
            small(seg);
            rest = tail;
        }
        return;
    }
    let target = (n / (4 * k)).max(PARALLEL_SORT);
    let mut tasks: Vec<Task<'_, T>> = Vec::new();
    let mut group: Vec<&mut [T]> = Vec::new();
    let mut group_len = 0;
    let mut rest = data;
    for &l in lens.iter() {
        let (seg, tail) = rest.split_at_mut(l);
        rest = tail;
        if l >= target {
            tasks.push(Task::Large(seg));
            continue;
        }
        group_len += l;
        group.push(seg);
        if group_len >= target {
            tasks.push(Task::Small(std::mem::take(&mut group)));
            group_len = 0;
        }
    }
    if !group.is_empty() {
        tasks.push(Task::Small(group));
    }
    sched::run_parts(tasks, |_, t| match t {
        Task::Small(segs) => segs.into_iter().for_each(&small),
        Task::Large(seg) => large(seg),
    });
}

/// Sorts every segment of `xs` in place by `f64::total_cmp`.
///
/// # Errors
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch) if `segd` does not describe `xs.len()` elements.
///
/// ```
/// use flatland_segd::Segd;
/// let mut xs = [f64::NAN, 1.0, 0.5];
/// flatland_runtime::seg::sort_f64_s(&Segd::from_lengths(vec![2, 1]).unwrap(), &mut xs).unwrap();
/// assert!(xs[0] == 1.0 && xs[1].is_nan() && xs[2] == 0.5);
/// ```
pub fn sort_f64_s(segd: &Segd, xs: &mut [f64]) -> Result<()> {
    check_len("sort_s", segd, xs.len())?;
    for_each_segment(
        segd,
        xs,
        |s| s.sort_unstable_by(f64::total_cmp),
        |s| s.par_sort_unstable_by(f64::total_cmp),
    );
    Ok(())
}

/// Sorts every segment of `xs` in place.
///
/// # Errors
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch) if `segd` does not describe `xs.len()` elements.
///
/// ```
/// use flatland_segd::Segd;
/// let mut xs = [3, 2, 1];
/// flatland_runtime::seg::sort_i64_s(&Segd::from_lengths(vec![2, 1]).unwrap(), &mut xs).unwrap();
/// assert_eq!(xs, [2, 3, 1]);
/// ```
pub fn sort_i64_s(segd: &Segd, xs: &mut [i64]) -> Result<()> {
    check_len("sort_s", segd, xs.len())?;
    for_each_segment(segd, xs, <[i64]>::sort_unstable, <[i64]>::par_sort_unstable);
    Ok(())
}

fn argsort_s<T: Copy>(segd: &Segd, xs: &[T], key: impl Fn(T) -> i64) -> Result<Vec<i64>> {
    check_len("argsort_s", segd, xs.len())?;
    budget::check_elements::<(i64, u64)>("argsort_s", xs.len())?;
    let mut pairs: Vec<(i64, u64)> = Vec::with_capacity(xs.len());
    let mut start = 0;
    for &l in segd.lengths().iter() {
        pairs.extend(
            xs[start..start + l]
                .iter()
                .enumerate()
                .map(|(i, &x)| (key(x), i as u64)),
        );
        start += l;
    }
    for_each_segment(
        segd,
        &mut pairs,
        <[(i64, u64)]>::sort_unstable,
        <[(i64, u64)]>::par_sort_unstable,
    );
    Ok(pairs.into_iter().map(|(_, i)| i as i64).collect())
}

/// The stable sorting permutation of every segment of `xs` by `f64::total_cmp`, as indices
/// within the segment.
///
/// # Errors
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch) if `segd` does not describe `xs.len()` elements;
/// [`Error::MemoryBudget`](crate::Error::MemoryBudget) if the work space does not fit.
///
/// ```
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![2, 2]).unwrap();
/// assert_eq!(flatland_runtime::seg::argsort_f64_s(&segd, &[1.0, 0.0, 0.0, -0.0]).unwrap(), vec![1, 0, 1, 0]);
/// ```
pub fn argsort_f64_s(segd: &Segd, xs: &[f64]) -> Result<Vec<i64>> {
    argsort_s(segd, xs, key)
}

/// The stable sorting permutation of every segment of `xs`, as indices within the segment.
///
/// # Errors
/// As [`argsort_f64_s`].
///
/// ```
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![3]).unwrap();
/// assert_eq!(flatland_runtime::seg::argsort_i64_s(&segd, &[1, 0, 1]).unwrap(), vec![1, 0, 2]);
/// ```
pub fn argsort_i64_s(segd: &Segd, xs: &[i64]) -> Result<Vec<i64>> {
    argsort_s(segd, xs, |x| x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::{Arbitrary, Gen, quickcheck};

    /// Segment lengths (empty segments and one huge one among them) and values.
    #[derive(Clone, Debug)]
    struct Case {
        lens: Vec<usize>,
        xs: Vec<f64>,
    }

    impl Arbitrary for Case {
        fn arbitrary(g: &mut Gen) -> Case {
            let mut lens: Vec<usize> = (0..usize::arbitrary(g) % 40)
                .map(|_| match u8::arbitrary(g) % 5 {
                    0 => 0,
                    1 => usize::arbitrary(g) % 3,
                    _ => usize::arbitrary(g) % 30,
                })
                .collect();
            if bool::arbitrary(g) && bool::arbitrary(g) {
                lens.push(PARALLEL_SORT + usize::arbitrary(g) % 5000);
            }
            let n = lens.iter().sum();
            let vals = [f64::NAN, -f64::NAN, -0.0, 0.0, f64::INFINITY, 1.0, 5e-324];
            let xs = (0..n)
                .map(|_| match u8::arbitrary(g) % 4 {
                    0 => vals[usize::arbitrary(g) % vals.len()],
                    _ => f64::from(i16::arbitrary(g) % 50),
                })
                .collect();
            Case { lens, xs }
        }
    }

    /// The naive reference: each segment on its own, a stable sort of its indices.
    fn naive(lens: &[usize], xs: &[f64]) -> (Vec<f64>, Vec<i64>) {
        let (mut vals, mut idx) = (Vec::new(), Vec::new());
        let mut start = 0;
        for &l in lens {
            let seg = &xs[start..start + l];
            let mut p: Vec<usize> = (0..l).collect();
            p.sort_by(|&a, &b| seg[a].total_cmp(&seg[b]));
            vals.extend(p.iter().map(|&i| seg[i]));
            idx.extend(p.iter().map(|&i| i as i64));
            start += l;
        }
        (vals, idx)
    }

    fn run(c: &Case) -> (Vec<f64>, Vec<i64>) {
        let segd = Segd::from_lengths(c.lens.clone()).unwrap();
        let mut v = c.xs.clone();
        sort_f64_s(&segd, &mut v).unwrap();
        (v, argsort_f64_s(&segd, &c.xs).unwrap())
    }

    fn bits(xs: &[f64]) -> Vec<u64> {
        xs.iter().map(|x| x.to_bits()).collect()
    }

    quickcheck! {
        fn segmented_sort_is_the_reference_for_any_pool(c: Case) -> bool {
            let (want_v, want_i) = naive(&c.lens, &c.xs);
            [1, 2, 3].into_iter().all(|t| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap();
                let (v, i) = pool.install(|| run(&c));
                bits(&v) == bits(&want_v) && i == want_i
            })
        }

        fn segmented_i64(lens: Vec<u8>, seed: i64) -> bool {
            let lens: Vec<usize> = lens.into_iter().map(usize::from).collect();
            let n: usize = lens.iter().sum();
            let xs: Vec<i64> = (0..n as i64).map(|i| (i * 7 + seed % 100) % 11 - 5).collect();
            let segd = Segd::from_lengths(lens.clone()).unwrap();
            let mut v = xs.clone();
            sort_i64_s(&segd, &mut v).unwrap();
            let fx: Vec<f64> = xs.iter().map(|&x| x as f64).collect();
            let (want_v, want_i) = naive(&lens, &fx);
            v.iter().map(|&x| x as f64).collect::<Vec<_>>() == want_v
                && argsort_i64_s(&segd, &xs).unwrap() == want_i
        }
    }

    #[test]
    fn many_small_rows_and_empty_input() {
        let lens: Vec<usize> = (0..20_000).map(|i| i % 21).collect();
        let n = lens.iter().sum();
        let xs: Vec<f64> = (0..n).map(|i| ((i * 31) % 17) as f64 - 8.0).collect();
        let c = Case { lens, xs };
        let (v, i) = run(&c);
        let (want_v, want_i) = naive(&c.lens, &c.xs);
        assert_eq!(bits(&v), bits(&want_v));
        assert_eq!(i, want_i);
        let empty = Segd::from_lengths(vec![]).unwrap();
        sort_f64_s(&empty, &mut []).unwrap();
        assert!(argsort_f64_s(&empty, &[]).unwrap().is_empty());
        assert!(sort_f64_s(&empty, &mut [1.0]).is_err());
    }
}
