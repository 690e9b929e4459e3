//! The gathering operations: lifted indexing, extracts, concat, lifted append, expansion.

use super::check_blocks;
use crate::cost::ElemCost;
use crate::elt::{Elt, Nested, check_ranges};
use crate::{Error, Result, sched, stats};
use flatland_segd::{PSeg, Segd, VSegd};

/// Where lane `lane` of a lifted index reads: `(data block, position)`, validated.
fn locate(vsegd: &VSegd, lane: usize, seg: usize, i: i64) -> Result<(usize, usize)> {
    if seg >= vsegd.len() {
        return Err(Error::IndexOutOfRange {
            op: "index_l (segment)",
            lane,
            index: seg as i64,
            len: vsegd.len(),
        });
    }
    let p = vsegd.physical(seg);
    match usize::try_from(i) {
        Ok(k) if k < p.len => Ok((p.source, p.start + k)),
        _ => Err(Error::IndexOutOfRange {
            op: "index_l",
            lane,
            index: i,
            len: p.len,
        }),
    }
}

fn check_lanes(segs: &[usize], idx: &[i64]) -> Result<()> {
    if segs.len() == idx.len() {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            op: "index_l",
            expected: segs.len(),
            found: idx.len(),
        })
    }
}

/// Where each lane of a lifted index reads: `(data block, position)`, validated.
pub(crate) fn locate_lanes(
    vsegd: &VSegd,
    segs: &[usize],
    idx: &[i64],
) -> Result<Vec<(usize, usize)>> {
    check_lanes(segs, idx)?;
    stats::record_descriptor(segs.len() as u64);
    segs.iter()
        .zip(idx)
        .enumerate()
        .map(|(lane, (&s, &i))| locate(vsegd, lane, s, i))
        .collect()
}

/// Copies `ranges` of `blocks` into one vector, recording the copy; large outputs are split by
/// elements between tasks (a range may span tasks). Ranges must be valid.
pub(crate) fn gather_slices<T: Copy + Send + Sync, B: AsRef<[T]> + Sync>(
    blocks: &[B],
    ranges: &[PSeg],
) -> Vec<T> {
    let total = crate::elt::ranges_total(ranges);
    stats::record_copied(total as u64);
    stats::record_descriptor(ranges.len() as u64);
    stats::record_alloc::<T>(total);
    let (s, _timing) = sched::plan_op(
        sched::Op::new("seg::gather"),
        total,
        ElemCost::new(1.0, 1.0),
    );
    // Ranges of a few elements on average: finding each task's first range (a pass over the
    // ranges) costs about what copying them does, so one thread copies them all.
    if s.num_tasks() <= 1 || total < 4 * ranges.len() {
        let mut out = crate::spare::vec_with_capacity(total);
        for r in ranges {
            out.extend_from_slice(&blocks[r.source].as_ref()[r.start..r.start + r.len]);
        }
        return out;
    }
    // Tasks split the output by elements (a long range is shared between tasks); each finds
    // the range its first element falls in and copies range after range from there. No
    // descriptor is built for the ranges: deep in a recursion there is one for every element
    // or two, and building one (a scan and a plan entry per range) cost five times the copy.
    let mut ends = Vec::with_capacity(ranges.len());
    let mut end = 0usize;
    for r in ranges {
        end += r.len;
        ends.push(end);
    }
    let regions: Vec<(usize, usize)> = (0..s.num_tasks())
        .map(|t| (s.element_range(t).len(), t))
        .collect();
    sched::build_vec(total, &regions, s.num_tasks(), |t, slots| {
        let want = s.element_range(t);
        // The first range that ends after the task's first element.
        let mut i = ends.partition_point(|&e| e <= want.start);
        let mut at = want.start;
        while at < want.end {
            let r = &ranges[i];
            let skip = at - (ends[i] - r.len);
            let take = (r.len - skip).min(want.end - at);
            let from = r.start + skip;
            slots[0].copy_from(&blocks[r.source].as_ref()[from..from + take]);
            at += take;
            i += 1;
        }
    })
}

/// Lifted indexing: lane `j` reads element `idx[j]` of virtual segment `segs[j]`, from the one
/// physical copy the descriptor names (`blocks[i]` is data block `i`). O(lanes) work, however
/// often the segments were replicated.
///
/// # Errors
/// [`Error::LengthMismatch`] when `segs` and `idx` differ in length, [`Error::IndexOutOfRange`]
/// naming the lane of a bad segment or element index, [`Error::Invalid`] when the blocks do not
/// match the descriptor.
///
/// ```
/// use flatland_runtime::seg::index_l;
/// use flatland_segd::{Segd, VSegd};
/// // One copy of v = [10, 20, 30] replicated for 1000 lanes:
/// let v = VSegd::from_segd(&Segd::from_lengths(vec![3]).unwrap()).replicate(1000).unwrap();
/// assert_eq!(index_l(&v, &[vec![10, 20, 30]], &[0, 999], &[2, 1]).unwrap(), vec![30, 20]);
/// assert!(index_l(&v, &[vec![10, 20, 30]], &[0], &[-1]).is_err());
/// ```
pub fn index_l<T: Copy + Send + Sync, B: AsRef<[T]> + Sync>(
    vsegd: &VSegd,
    blocks: &[B],
    segs: &[usize],
    idx: &[i64],
) -> Result<Vec<T>> {
    check_blocks("index_l", vsegd, blocks)?;
    check_lanes(segs, idx)?;
    let n = segs.len();
    stats::record_descriptor(n as u64);
    stats::record_read(n as u64);
    stats::record_written(n as u64);
    stats::record_alloc::<T>(n);
    let (s, _timing) = sched::plan_op(sched::Op::new("seg::index_l"), n, ElemCost::new(2.0, 2.0));
    let regions: Vec<(usize, usize)> = (0..s.num_tasks())
        .map(|t| (s.element_range(t).len(), t))
        .collect();
    let (out, _) = sched::try_build_vec(n, &regions, s.num_tasks(), |t, slots| {
        for lane in s.element_range(t) {
            let (b, k) = locate(vsegd, lane, segs[lane], idx[lane])?;
            slots[0].push(blocks[b].as_ref()[k]);
        }
        Ok::<(), Error>(())
    })?;
    Ok(out)
}

/// Copies the given ranges of the data blocks, in order, into one flat vector (DPH's
/// `extracts`): the copying step behind [`concat_vs`] and [`append_vs`].
///
/// # Errors
/// [`Error::Invalid`] naming the first range outside its block.
///
/// ```
/// use flatland_runtime::seg::extracts;
/// use flatland_segd::PSeg;
/// let blocks = [vec![1, 2, 3], vec![7, 8]];
/// let r = [PSeg { source: 1, start: 1, len: 1 }, PSeg { source: 0, start: 0, len: 2 }];
/// assert_eq!(extracts(&blocks, &r).unwrap(), vec![8, 1, 2]);
/// ```
pub fn extracts<T: Copy + Send + Sync, B: AsRef<[T]> + Sync>(
    blocks: &[B],
    ranges: &[PSeg],
) -> Result<Vec<T>> {
    let lens: Vec<usize> = blocks.iter().map(|b| b.as_ref().len()).collect();
    check_ranges("extracts", &lens, ranges)?;
    crate::budget::check_elements::<T>("extracts output", crate::elt::ranges_total(ranges))?;
    Ok(gather_slices(blocks, ranges))
}

/// Concatenates the virtual segments (demotion to a contiguous array): the result's descriptor
/// and elements. The one copying step: O(virtual elements).
///
/// # Errors
/// [`Error::Invalid`] when the blocks do not match the descriptor.
///
/// ```
/// use flatland_runtime::seg::concat_vs;
/// use flatland_segd::{Segd, VSegd};
/// let v = VSegd::from_segd(&Segd::from_lengths(vec![1, 2]).unwrap()).replicate(2).unwrap();
/// let (segd, flat) = concat_vs(&v, &[vec![5, 6, 7]]).unwrap();
/// assert_eq!(flat, vec![5, 6, 7, 5, 6, 7]);
/// assert_eq!(segd.lengths().as_ref(), &[1, 2, 1, 2]);
/// ```
pub fn concat_vs<T: Copy + Send + Sync, B: AsRef<[T]> + Sync>(
    vsegd: &VSegd,
    blocks: &[B],
) -> Result<(Segd, Vec<T>)> {
    check_blocks("concat_vs", vsegd, blocks)?;
    let (segd, plan) = vsegd.demote()?;
    stats::record_descriptor(plan.len() as u64);
    crate::budget::check_elements::<T>("concat output", segd.elements())?;
    Ok((segd, gather_slices(blocks, &plan)))
}

/// Gives flat `values` the segment structure of `segd` (the inverse of concat): no copy.
///
/// # Errors
/// [`Error::LengthMismatch`] when `segd.elements() != values.len()`.
///
/// ```
/// use flatland_runtime::seg::unconcat;
/// use flatland_segd::Segd;
/// let n = unconcat::<i64>(&Segd::from_lengths(vec![2, 1]).unwrap(), vec![1, 2, 3].into()).unwrap();
/// assert_eq!(n.to_vec(), vec![vec![1, 2], vec![3]]);
/// ```
pub fn unconcat<T: Elt>(segd: &Segd, values: T::Store) -> Result<Nested<T>> {
    Nested::from_segd(segd, values)
}

/// The plan of a lifted append: the result's contiguous descriptor and the ranges to copy
/// (segment `i` of `a`, then segment `i` of `b`; `b`'s blocks numbered after `a`'s).
///
/// # Errors
/// [`Error::LengthMismatch`] when `a` and `b` have different numbers of segments.
///
/// ```
/// use flatland_runtime::seg::append_plan;
/// use flatland_segd::{Segd, VSegd};
/// let a = VSegd::from_segd(&Segd::from_lengths(vec![1, 2]).unwrap());
/// let (segd, plan) = append_plan(&a, &a).unwrap();
/// assert_eq!(segd.lengths().as_ref(), &[2, 4]);
/// assert_eq!(plan[1].source, 1);
/// ```
pub fn append_plan(a: &VSegd, b: &VSegd) -> Result<(Segd, Vec<PSeg>)> {
    if a.len() != b.len() {
        return Err(Error::LengthMismatch {
            op: "append_s",
            expected: a.len(),
            found: b.len(),
        });
    }
    let base = a.ssegd().num_blocks();
    let mut plan = Vec::with_capacity(2 * a.len());
    let mut lengths = Vec::with_capacity(a.len());
    for i in 0..a.len() {
        let (pa, mut pb) = (a.physical(i), b.physical(i));
        pb.source += base;
        lengths.push(pa.len + pb.len);
        plan.push(pa);
        plan.push(pb);
    }
    stats::record_descriptor(3 * a.len() as u64);
    Ok((Segd::from_lengths(lengths)?, plan))
}

/// Lifted append over virtual segments: segment `i` of the result is segment `i` of `a`
/// followed by segment `i` of `b`, as a contiguous array. Copies O(virtual elements).
///
/// # Errors
/// [`Error::LengthMismatch`] when the segment counts differ; [`Error::Invalid`] when blocks do
/// not match their descriptors.
///
/// ```
/// use flatland_runtime::seg::append_vs;
/// use flatland_segd::{Segd, VSegd};
/// let a = VSegd::from_segd(&Segd::from_lengths(vec![1, 0]).unwrap());
/// let b = VSegd::from_segd(&Segd::from_lengths(vec![1, 1]).unwrap());
/// let (segd, flat) = append_vs(&a, &[vec![1]], &b, &[vec![2, 3]]).unwrap();
/// assert_eq!((segd.lengths().into_owned(), flat), (vec![2, 1], vec![1, 2, 3]));
/// ```
pub fn append_vs<T: Copy + Send + Sync, B: AsRef<[T]> + Sync>(
    a: &VSegd,
    blocks_a: &[B],
    b: &VSegd,
    blocks_b: &[B],
) -> Result<(Segd, Vec<T>)> {
    check_blocks("append_vs", a, blocks_a)?;
    check_blocks("append_vs", b, blocks_b)?;
    let (segd, plan) = append_plan(a, b)?;
    crate::budget::check_elements::<T>("append output", segd.elements())?;
    let blocks: Vec<&[T]> = blocks_a.iter().chain(blocks_b).map(AsRef::as_ref).collect();
    Ok((segd, gather_slices(&blocks, &plan)))
}

/// Lifted append over contiguous segments ([`append_vs`] for two flat arrays).
///
/// # Errors
/// [`Error::LengthMismatch`] when segment counts or data lengths disagree.
///
/// ```
/// use flatland_runtime::seg::append_s;
/// use flatland_segd::Segd;
/// let s = Segd::from_lengths(vec![1, 1]).unwrap();
/// let (segd, flat) = append_s(&s, &[1, 2], &s, &[3, 4]).unwrap();
/// assert_eq!(flat, vec![1, 3, 2, 4]);
/// assert_eq!(segd.lengths().as_ref(), &[2, 2]);
/// ```
pub fn append_s<T: Copy + Send + Sync>(
    segd_a: &Segd,
    a: &[T],
    segd_b: &Segd,
    b: &[T],
) -> Result<(Segd, Vec<T>)> {
    super::fold::check_len("append_s", segd_a, a.len())?;
    super::fold::check_len("append_s", segd_b, b.len())?;
    append_vs(
        &VSegd::from_segd(segd_a),
        &[a],
        &VSegd::from_segd(segd_b),
        &[b],
    )
}
