//! Segmented stable partition.

use super::fold::check_len;
use super::plan::{Bounds, Task, plan, task_count};
use crate::flat::MAX_CLASSES;
use crate::sched::{Slots, try_build_vec};
use crate::{Error, Result, sched, stats};
use flatland_segd::Segd;

/// The result of [`partition_s`]: elements regrouped by class inside each segment.
///
/// ```
/// use flatland_runtime::seg::partition_s;
/// use flatland_segd::Segd;
/// let p = partition_s(&Segd::from_lengths(vec![2]).unwrap(), &['a', 'b'], &[1u8, 0], 2).unwrap();
/// assert_eq!(p.data, vec!['b', 'a']);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct PartitionS<T> {
    /// Class `c` of segment `i` is segment `i * classes + c` of this descriptor.
    pub segd: Segd,
    /// The elements: each segment's class 0 elements, then class 1, ..., each in input order.
    pub data: Vec<T>,
    /// The number of classes.
    pub classes: usize,
}

const OP: &str = "partition_s";

/// Per-class counts of one piece of a segment.
type Counts = [usize; MAX_CLASSES];

/// The class of key `k` at `lane`, checked.
fn class_of<K: Copy + TryInto<usize>>(k: K, lane: usize, classes: usize) -> Result<usize> {
    match k.try_into() {
        Ok(c) if c < classes => Ok(c),
        Ok(c) => Err(Error::ClassOutOfRange {
            op: OP,
            lane,
            class: c,
            classes,
        }),
        Err(_) => Err(Error::Invalid {
            op: OP,
            detail: format!("lane {lane}: key is not a class number"),
        }),
    }
}

/// The class of a key already checked.
fn class_unchecked<K: Copy + TryInto<usize>>(k: K) -> usize {
    k.try_into().ok().unwrap_or(0)
}

/// Stable partition of one segment into `out` (its output range), from its keys.
fn partition_into<T: Copy, K: Copy + TryInto<usize>>(
    xs: &[T],
    keys: &[K],
    classes: usize,
    out: &mut [T],
) -> Counts {
    let mut counts = [0usize; MAX_CLASSES];
    for &k in keys {
        counts[class_unchecked(k)] += 1;
    }
    let mut next = [0usize; MAX_CLASSES];
    let mut at = 0;
    for c in 0..classes {
        next[c] = at;
        at += counts[c];
    }
    for (&x, &k) in xs.iter().zip(keys) {
        let c = class_unchecked(k);
        out[next[c]] = x;
        next[c] += 1;
    }
    counts
}

/// Segmented stable partition: inside each segment, the elements of class 0 (in input order),
/// then class 1, and so on; `keys[j]` is the class of `data[j]`, at most
/// [`MAX_CLASSES`](crate::flat::MAX_CLASSES) classes.
///
/// Large inputs are split by elements: segments inside one task are partitioned in place in
/// their output range; a segment spanning tasks has its per-class counts totalled first, then
/// every task writes its piece of each class into its own region of the output.
///
/// # Errors
/// [`Error::TooManyClasses`] above 15 classes; [`Error::LengthMismatch`] when `data`, `keys` and
/// `segd` disagree; [`Error::ClassOutOfRange`] naming the first lane whose key is outside
/// `0..classes` ([`Error::Invalid`] for a key that is no class number, such as a negative one).
///
/// ```
/// use flatland_runtime::seg::partition_s;
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![4, 2]).unwrap();
/// let p = partition_s(&segd, &[10, 11, 12, 13, 14, 15], &[1u8, 0, 1, 0, 1, 1], 2).unwrap();
/// assert_eq!(p.data, vec![11, 13, 10, 12, 14, 15]);
/// assert_eq!(p.segd.lengths().as_ref(), &[2, 2, 0, 2]);
/// ```
pub fn partition_s<T, K>(
    segd: &Segd,
    data: &[T],
    keys: &[K],
    classes: usize,
) -> Result<PartitionS<T>>
where
    T: Copy + Send + Sync,
    K: Copy + TryInto<usize> + Sync,
{
    if classes > MAX_CLASSES {
        return Err(Error::TooManyClasses {
            op: OP,
            classes,
            max: MAX_CLASSES,
        });
    }
    check_len(OP, segd, data.len())?;
    if keys.len() != data.len() {
        return Err(Error::LengthMismatch {
            op: OP,
            expected: data.len(),
            found: keys.len(),
        });
    }
    stats::record_read(2 * data.len() as u64);
    stats::record_written(data.len() as u64);
    stats::record_descriptor((segd.len() * (classes + 1)) as u64);
    stats::record_alloc::<T>(data.len());
    let (k, _timing) = task_count(segd.elements(), sched::Op::new("seg::partition_s"));
    let tasks = plan(segd, k);
    let (data_out, lengths) = if tasks.len() == 1 {
        sequential(segd, data, keys, classes)?
    } else {
        parallel(segd, data, keys, classes, &tasks)?
    };
    Ok(PartitionS {
        segd: Segd::from_lengths(lengths)?,
        data: data_out,
        classes,
    })
}

fn sequential<T: Copy, K: Copy + TryInto<usize>>(
    segd: &Segd,
    data: &[T],
    keys: &[K],
    classes: usize,
) -> Result<(Vec<T>, Vec<usize>)> {
    for (lane, &k) in keys.iter().enumerate() {
        class_of(k, lane, classes)?;
    }
    let mut out = data.to_vec();
    let mut lengths = Vec::with_capacity(segd.len() * classes);
    for (start, len) in segd.iter() {
        let r = start..start + len;
        let counts = partition_into(&data[r.clone()], &keys[r.clone()], classes, &mut out[r]);
        lengths.extend_from_slice(&counts[..classes]);
    }
    Ok((out, lengths))
}

fn parallel<T, K>(
    segd: &Segd,
    data: &[T],
    keys: &[K],
    classes: usize,
    tasks: &[Task],
) -> Result<(Vec<T>, Vec<usize>)>
where
    T: Copy + Send + Sync,
    K: Copy + TryInto<usize> + Sync,
{
    let b = Bounds::of(segd);
    // Pass 1: check every key; count the classes of the pieces of segments that span tasks.
    let partials: Vec<Result<Vec<(usize, Counts)>>> =
        sched::run_parts(tasks.iter().collect(), |_, t| {
            for (lane, &k) in keys[t.elems.clone()].iter().enumerate() {
                class_of(k, t.elems.start + lane, classes)?;
            }
            let mut out = Vec::new();
            for s in t.touched().filter(|&s| t.is_partial(&b, s)) {
                let (start, end) = (segd.start(s), segd.start(s) + segd.length(s));
                let mut counts = [0usize; MAX_CLASSES];
                for &k in &keys[t.elems.start.max(start)..t.elems.end.min(end)] {
                    counts[class_unchecked(k)] += 1;
                }
                out.push((s, counts));
            }
            Ok(out)
        });
    // Output regions in output order: a run of whole segments per task, and for a spanning
    // segment one region per (class, piece), classes outermost.
    let mut regions: Vec<(usize, usize)> = Vec::new();
    let mut lengths = vec![0usize; segd.len() * classes];
    let mut pending: Vec<(usize, usize, Counts)> = Vec::new(); // (segment, task, counts)
    let flush = |pending: &mut Vec<(usize, usize, Counts)>,
                 regions: &mut Vec<(usize, usize)>,
                 lengths: &mut [usize]| {
        for c in 0..classes {
            for &(s, task, counts) in pending.iter() {
                regions.push((counts[c], task));
                lengths[s * classes + c] += counts[c];
            }
        }
        pending.clear();
    };
    for (ti, (t, p)) in tasks.iter().zip(partials).enumerate() {
        let mut p = p?.into_iter().peekable();
        let mut run: Option<usize> = None;
        for s in t.touched() {
            if t.is_partial(&b, s) {
                let (ps, counts) = p.next().expect("a count per partial piece");
                debug_assert_eq!(ps, s);
                if pending.first().is_some_and(|&(q, _, _)| q != s) {
                    flush(&mut pending, &mut regions, &mut lengths);
                }
                pending.push((s, ti, counts));
            } else {
                flush(&mut pending, &mut regions, &mut lengths);
                *run.get_or_insert(0) += b.len(s);
            }
            // A run ends before the task's tail piece (or at the task's end).
            if let Some(len) = run
                && (s + 1 == t.touched().end || t.is_partial(&b, s + 1))
            {
                regions.push((len, ti));
                run = None;
            }
        }
    }
    flush(&mut pending, &mut regions, &mut lengths);
    // Pass 2: every task fills its regions; whole segments are partitioned in place.
    let (out, whole) = try_build_vec(
        data.len(),
        &regions,
        tasks.len(),
        |ti, slots: &mut [Slots<'_, T>]| {
            let t = &tasks[ti];
            let mut k = 0;
            let mut counted: Vec<(usize, Counts)> = Vec::new();
            let mut in_run = false;
            for s in t.touched() {
                let (start, end) = (segd.start(s), segd.start(s) + segd.length(s));
                if t.is_partial(&b, s) {
                    if in_run {
                        k += 1;
                        in_run = false;
                    }
                    for j in t.piece(&b, s) {
                        slots[k + class_unchecked(keys[j])].push(data[j]);
                    }
                    k += classes;
                } else {
                    in_run = true;
                    let out = slots[k].copy_from(&data[start..end]);
                    counted.push((
                        s,
                        partition_into(&data[start..end], &keys[start..end], classes, out),
                    ));
                }
            }
            Ok::<_, Error>(counted)
        },
    )?;
    for (s, counts) in whole.into_iter().flatten() {
        lengths[s * classes..(s + 1) * classes].copy_from_slice(&counts[..classes]);
    }
    Ok((out, lengths))
}
