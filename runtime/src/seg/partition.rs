//! Segmented stable partition.

use super::fold::check_len;
use crate::{Error, Result, stats};
use flatland_segd::Segd;

/// The most classes a partition supports (keys `0..15`).
pub const MAX_CLASSES: usize = 15;

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

/// Segmented stable partition: inside each segment, the elements of class 0 (in input order),
/// then class 1, and so on; `keys[j]` is the class of `data[j]`, at most [`MAX_CLASSES`] classes.
///
/// # Errors
/// [`Error::TooManyClasses`] above 15 classes; [`Error::LengthMismatch`] when `data`, `keys` and
/// `segd` disagree; [`Error::ClassOutOfRange`] naming the lane of a key outside `0..classes`.
///
/// ```
/// use flatland_runtime::seg::partition_s;
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![4, 2]).unwrap();
/// let p = partition_s(&segd, &[10, 11, 12, 13, 14, 15], &[1u8, 0, 1, 0, 1, 1], 2).unwrap();
/// assert_eq!(p.data, vec![11, 13, 10, 12, 14, 15]);
/// assert_eq!(p.segd.lengths().as_ref(), &[2, 2, 0, 2]);
/// ```
pub fn partition_s<T: Clone, K: Copy + TryInto<usize>>(
    segd: &Segd,
    data: &[T],
    keys: &[K],
    classes: usize,
) -> Result<PartitionS<T>> {
    const OP: &str = "partition_s";
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
    let mut class_of = Vec::with_capacity(keys.len());
    for (lane, &k) in keys.iter().enumerate() {
        match k.try_into() {
            Ok(c) if c < classes => class_of.push(c as u8),
            Ok(c) => {
                return Err(Error::ClassOutOfRange {
                    op: OP,
                    lane,
                    class: c,
                    classes,
                });
            }
            Err(_) => {
                return Err(Error::Invalid {
                    op: OP,
                    detail: format!("lane {lane}: key is not a class number"),
                });
            }
        }
    }
    stats::record_read(2 * data.len() as u64);
    stats::record_written(data.len() as u64);
    stats::record_descriptor((segd.len() * (classes + 1)) as u64);
    stats::record_alloc::<T>(data.len());
    let mut lengths = Vec::with_capacity(segd.len() * classes);
    let mut out = data.to_vec();
    for (start, len) in segd.iter() {
        let cls = &class_of[start..start + len];
        let mut counts = [0usize; MAX_CLASSES];
        for &c in cls {
            counts[c as usize] += 1;
        }
        let mut next = [0usize; MAX_CLASSES];
        let mut at = start;
        for c in 0..classes {
            next[c] = at;
            at += counts[c];
            lengths.push(counts[c]);
        }
        for (x, &c) in data[start..start + len].iter().zip(cls) {
            out[next[c as usize]] = x.clone();
            next[c as usize] += 1;
        }
    }
    Ok(PartitionS {
        segd: Segd::from_lengths(lengths)?,
        data: out,
        classes,
    })
}
