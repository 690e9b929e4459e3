//! Permutations by index: gather (backwards permute) and scatter.

use super::Index;
use crate::cost::ElemCost;
use crate::sched;
use crate::{Error, Result, stats};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

/// An index read, a random read and a write per element.
const GATHER: ElemCost = ElemCost::new(1.0, 3.0);
/// An index and a value read, a random read-modify-write per element.
const SCATTER: ElemCost = ElemCost::new(2.0, 4.0);

/// `[xs[i] for i in idx]` (a backwards permute). The first out-of-range index (lowest lane) is
/// [`Error::IndexOutOfRange`] naming its lane. Counts `len(idx)` read (indices), `len(idx)`
/// copied and allocated. Also exported as `bpermute`.
///
/// # Errors
/// [`Error::IndexOutOfRange`] for the lowest lane holding a negative or too large index.
///
/// ```
/// use flatland_runtime::{flat::gather, Error};
/// assert_eq!(gather(&[10, 20, 30], &[2usize, 0, 2]).unwrap(), vec![30, 10, 30]);
/// let e = gather(&[10, 20, 30], &[0i64, -1]).unwrap_err();
/// assert_eq!(e, Error::IndexOutOfRange { op: "gather", lane: 1, index: -1, len: 3 });
/// ```
pub fn gather<T: Copy + Send + Sync, I: Index>(xs: &[T], idx: &[I]) -> Result<Vec<T>> {
    let n = idx.len();
    let len = xs.len();
    stats::record_read(n as u64);
    stats::record_copied(n as u64);
    stats::record_alloc::<T>(n);
    let (s, _timing) = sched::plan_op(sched::Op::new("flat::gather"), n, GATHER);
    let (out, _) = sched::try_build_vec_tasks(&s, |_, r, out| {
        for (lane, &i) in r.clone().zip(&idx[r]) {
            match i.to_index().and_then(|j| xs.get(j)) {
                Some(&x) => out.push(x),
                None => return Err(out_of_range("gather", lane, i, len)),
            }
        }
        Ok(())
    })?;
    Ok(out)
}

/// A copy of `base` with `base[idx[k]] = vals[k]` for every lane `k`; when several lanes write one
/// position the last (highest) lane wins, in parallel too. `idx` and `vals` must have equal
/// lengths; the first out-of-range index (lowest lane) is [`Error::IndexOutOfRange`]. Counts
/// `len(idx)` read (indices), `len(base)` copied and allocated.
///
/// In parallel, tasks over the lanes record the highest lane per position (atomic max), then
/// tasks over the positions copy the winner or the base element.
///
/// # Errors
/// [`Error::LengthMismatch`] when `vals` and `idx` differ in length, else
/// [`Error::IndexOutOfRange`] for the lowest lane holding a bad index.
///
/// ```
/// use flatland_runtime::{flat::scatter, Error};
/// assert_eq!(scatter(&[0; 4], &[3usize, 1, 3], &[7, 8, 9]).unwrap(), vec![0, 8, 0, 9]);
/// assert!(matches!(scatter(&[0; 4], &[4usize], &[1]), Err(Error::IndexOutOfRange { lane: 0, .. })));
/// assert!(matches!(scatter(&[0; 4], &[1usize], &[1, 2]), Err(Error::LengthMismatch { .. })));
/// ```
pub fn scatter<T: Copy + Send + Sync, I: Index>(
    base: &[T],
    idx: &[I],
    vals: &[T],
) -> Result<Vec<T>> {
    let (n, m) = (idx.len(), base.len());
    if vals.len() != n {
        return Err(Error::LengthMismatch {
            op: "scatter",
            expected: n,
            found: vals.len(),
        });
    }
    stats::record_read(n as u64);
    stats::record_copied(m as u64);
    stats::record_alloc::<T>(m);
    let (lanes, _timing) = sched::plan_op(sched::Op::new("flat::scatter"), n, SCATTER);
    let positions = sched::plan(m, ElemCost::new(1.0, 3.0));
    if lanes.is_sequential() && positions.is_sequential() {
        let mut out = base.to_vec();
        for (lane, (&i, &v)) in idx.iter().zip(vals).enumerate() {
            match i.to_index().filter(|&j| j < m) {
                Some(j) => out[j] = v,
                None => return Err(out_of_range("scatter", lane, i, m)),
            }
        }
        return Ok(out);
    }
    // winner[j] = 1 + the highest lane writing position j, or 0.
    let winner: Vec<AtomicUsize> = std::iter::repeat_with(|| AtomicUsize::new(0))
        .take(m)
        .collect();
    let checked = sched::run(&lanes, |_, r| {
        for (lane, &i) in r.clone().zip(&idx[r]) {
            match i.to_index().filter(|&j| j < m) {
                Some(j) => {
                    winner[j].fetch_max(lane + 1, Relaxed);
                }
                None => return Err(out_of_range("scatter", lane, i, m)),
            }
        }
        Ok(())
    });
    checked.into_iter().collect::<Result<Vec<()>>>()?;
    Ok(sched::build_vec_tasks(&positions, |_, r, out| {
        out.fill(r.map(|j| match winner[j].load(Relaxed) {
            0 => base[j],
            w => vals[w - 1],
        }));
    }))
}

/// [`scatter`] of one value to every lane's position: a copy of `base` with
/// `base[idx[k]] = value` for every lane `k`. The same result as `scatter` with `value`
/// repeated, computed without deciding which lane writes last (they all write the same): in
/// parallel, tasks over the lanes mark positions with plain atomic stores (one byte per
/// position) instead of an atomic maximum of lane numbers, and no array of values is read.
/// The first out-of-range index (lowest lane) is [`Error::IndexOutOfRange`]. Counts
/// `len(idx)` read, `len(base)` copied and allocated.
///
/// # Errors
/// [`Error::IndexOutOfRange`] for the lowest lane holding a bad index.
///
/// ```
/// use flatland_runtime::flat::{scatter, scatter_value};
/// let sieve = scatter_value(&[true; 10], &[4usize, 6, 8, 6, 9], false).unwrap();
/// assert_eq!(sieve, scatter(&[true; 10], &[4usize, 6, 8, 6, 9], &[false; 5]).unwrap());
/// assert!(scatter_value(&[0; 3], &[1usize, 3], 7).is_err());
/// ```
pub fn scatter_value<T: Copy + Send + Sync, I: Index>(
    base: &[T],
    idx: &[I],
    value: T,
) -> Result<Vec<T>> {
    let (n, m) = (idx.len(), base.len());
    stats::record_read(n as u64);
    stats::record_copied(m as u64);
    stats::record_alloc::<T>(m);
    let (lanes, _timing) = sched::plan_op(sched::Op::new("flat::scatter_value"), n, SCATTER);
    let positions = sched::plan(m, ElemCost::new(1.0, 3.0));
    let at = |lane: usize, i: I| {
        i.to_index()
            .filter(|&j| j < m)
            .ok_or_else(|| out_of_range("scatter", lane, i, m))
    };
    if lanes.is_sequential() && positions.is_sequential() {
        let mut out = base.to_vec();
        for (lane, &i) in idx.iter().enumerate() {
            out[at(lane, i)?] = value;
        }
        return Ok(out);
    }
    let marked: Vec<AtomicBool> = std::iter::repeat_with(|| AtomicBool::new(false))
        .take(m)
        .collect();
    let checked = sched::run(&lanes, |_, r| {
        for (lane, &i) in r.clone().zip(&idx[r]) {
            marked[at(lane, i)?].store(true, Relaxed);
        }
        Ok(())
    });
    checked.into_iter().collect::<Result<Vec<()>>>()?;
    Ok(sched::build_vec_tasks(&positions, |_, r, out| {
        out.fill(r.map(|j| {
            if marked[j].load(Relaxed) {
                value
            } else {
                base[j]
            }
        }));
    }))
}

fn out_of_range<I: Index>(op: &'static str, lane: usize, index: I, len: usize) -> Error {
    Error::IndexOutOfRange {
        op,
        lane,
        index: index.to_i64(),
        len,
    }
}
