//! Segmented stable split: a lifted filter's classes, each packed in an array of its own.

use super::fold::check_len;
use crate::cost::ElemCost;
use crate::flat::{Index, MAX_CLASSES, split::split_named};
use crate::{Result, sched, stats};
use flatland_segd::Segd;

/// The result of [`split_s`]: for each live class, its elements in every segment.
#[derive(Clone, Debug, PartialEq)]
pub struct SplitS<T> {
    /// The live classes (of interest), ascending.
    pub classes: Vec<usize>,
    /// For `classes[i]`: the descriptor of its elements in each segment, and the elements.
    pub parts: Vec<(Segd, Vec<T>)>,
}

const OP: &str = "split_s";

/// The most live classes [`segment_counts`] counts in one register of 16-bit lanes.
const PACKED: usize = 4;

/// A key read and a counter added to, per element.
const COUNT: ElemCost = ElemCost::new(2.0, 1.0);

/// Segmented stable split: for every live class (all of `0..classes`, or those in
/// `interest`), the elements of that class in each segment of `segd`, in input order, as one
/// array with its descriptor: what one [`pack_s`](super::pack_s) per class gives, from one
/// pass that checks and counts the keys, one pass that writes every live element once (the
/// flat [`split`](crate::flat::split): the elements of a class in input order are already
/// grouped by segment) and one pass counting each segment's keys per class. `keys[j]` is the
/// class of `data[j]`, at most [`MAX_CLASSES`](crate::flat::MAX_CLASSES) classes.
///
/// Counts, besides the flat split's, `n` read (keys) and each class's segment lengths
/// written.
///
/// # Errors
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch) when `data`, `keys` and `segd`
/// disagree; otherwise the flat split's, naming `split_s` and the lowest bad lane.
///
/// ```
/// use flatland_runtime::seg::split_s;
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![4, 0, 2]).unwrap();
/// let s = split_s(&segd, &[10, 11, 12, 13, 14, 15], &[1u8, 0, 2, 0, 1, 1], 3, Some(&[0, 1])).unwrap();
/// assert_eq!(s.classes, vec![0, 1]);
/// assert_eq!(s.parts[0].0.lengths().as_ref(), &[2, 0, 0]);
/// assert_eq!(s.parts[0].1, vec![11, 13]);
/// assert_eq!(s.parts[1].0.lengths().as_ref(), &[1, 0, 2]);
/// assert_eq!(s.parts[1].1, vec![10, 14, 15]);
/// ```
pub fn split_s<T, K>(
    segd: &Segd,
    data: &[T],
    keys: &[K],
    classes: usize,
    interest: Option<&[usize]>,
) -> Result<SplitS<T>>
where
    T: Copy + Send + Sync,
    K: Index,
{
    check_len(OP, segd, data.len())?;
    let split = split_named(OP, data, keys, classes, interest)?;
    let live = split.classes.len();
    let lengths = if segd.len() == 1 {
        split.parts.iter().map(|p| vec![p.len()]).collect()
    } else {
        segment_counts(segd, keys, &split.classes)
    };
    stats::record_descriptor((segd.len() * live) as u64);
    let parts = lengths
        .into_iter()
        .zip(split.parts)
        .map(|(lengths, part)| Ok((Segd::from_lengths(lengths)?, part)))
        .collect::<Result<_>>()?;
    Ok(SplitS {
        classes: split.classes,
        parts,
    })
}

/// For each class of `live`, its number of elements in each segment (`keys` checked already:
/// every key is a class number below [`MAX_CLASSES`]). In parallel over runs of segments.
///
/// Up to [`PACKED`] live classes are counted in one register: each key adds the 16-bit lane of
/// its class's slot, a table lookup and an add per element with no counter store to wait on
/// and one pass whatever the number of classes; more classes take a compare-and-add pass each.
fn segment_counts<K: Index>(segd: &Segd, keys: &[K], live: &[usize]) -> Vec<Vec<usize>> {
    stats::record_read(keys.len() as u64);
    // What each class adds to the packed counters: the 16-bit lane of its slot (0 if dead).
    let mut lane_of = [0u64; MAX_CLASSES];
    for (slot, &c) in live.iter().enumerate().take(PACKED) {
        lane_of[c] = 1 << (16 * slot);
    }
    let (s, _timing) = sched::plan_op(sched::Op::new("seg::split_s (counts)"), segd.len(), COUNT);
    let runs = sched::run(&s, |_, segments| {
        let mut out: Vec<Vec<usize>> = (0..live.len())
            .map(|_| Vec::with_capacity(segments.len()))
            .collect();
        let pieces = segments.map(|seg| {
            let start = segd.start(seg);
            &keys[start..start + segd.length(seg)]
        });
        // Which way to count depends on the classes only: decided once, not per segment.
        if live.len() <= PACKED {
            for keys in pieces {
                for (lens, n) in out.iter_mut().zip(packed_counts(keys, &lane_of)) {
                    lens.push(n);
                }
            }
        } else {
            for keys in pieces {
                for (lens, &c) in out.iter_mut().zip(live) {
                    lens.push(keys.iter().filter(|k| k.to_index() == Some(c)).count());
                }
            }
        }
        out
    });
    (0..live.len())
        .map(|slot| runs.iter().flat_map(|r| r[slot].iter().copied()).collect())
        .collect()
}

/// The number of `keys` in each of the first [`PACKED`] slots, `lane_of[c]` being the 16-bit
/// lane that class `c` adds to (0 for a class not counted).
fn packed_counts<K: Index>(keys: &[K], lane_of: &[u64; MAX_CLASSES]) -> [usize; PACKED] {
    let mut counts = [0usize; PACKED];
    // At most 2^16 - 1 keys per sum, so no lane carries into the next.
    for chunk in keys.chunks(usize::from(u16::MAX)) {
        // (Every key is a class below MAX_CLASSES, so `% MAX_CLASSES` changes none: it only
        // spares the lookup a bounds check.)
        let packed: u64 = chunk
            .iter()
            .map(|k| k.to_index().map_or(0, |c| lane_of[c % MAX_CLASSES]))
            .sum();
        for (slot, n) in counts.iter_mut().enumerate() {
            *n += ((packed >> (16 * slot)) & 0xffff) as usize;
        }
    }
    counts
}
