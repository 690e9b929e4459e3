//! Lifted filtering: masks counted and packed per segment.

use super::fold::check_len;
use crate::{Error, Result, flat, stats};
use bitvec::slice::BitSlice;
use flatland_segd::Segd;

/// Counts the set bits of `mask` in each segment (a bool column's per-segment true count).
///
/// # Errors
/// [`Error::LengthMismatch`] when `segd.elements() != mask.len()`.
///
/// ```
/// use bitvec::prelude::*;
/// use flatland_runtime::seg::count_s_bits;
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![3, 0, 2]).unwrap();
/// assert_eq!(count_s_bits(&segd, bits![1, 0, 1, 1, 1]).unwrap(), vec![2, 0, 2]);
/// ```
pub fn count_s_bits(segd: &Segd, mask: &BitSlice) -> Result<Vec<usize>> {
    check_len("count_s_bits", segd, mask.len())?;
    stats::record_read(mask.len() as u64);
    stats::record_descriptor(segd.len() as u64);
    stats::record_written(segd.len() as u64);
    Ok(segd
        .iter()
        .map(|(s, l)| mask[s..s + l].count_ones())
        .collect())
}

/// Lifted filter: the elements whose mask bit is set, kept in order inside their segments, with
/// the descriptor of the packed segments.
///
/// # Errors
/// [`Error::LengthMismatch`] when the descriptor, data and mask lengths disagree.
///
/// ```
/// use bitvec::prelude::*;
/// use flatland_runtime::seg::pack_s;
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![3, 2]).unwrap();
/// let (packed, data) = pack_s(&segd, &[1, 2, 3, 4, 5], bits![1, 0, 1, 0, 0]).unwrap();
/// assert_eq!(data, vec![1, 3]);
/// assert_eq!(packed.lengths().as_ref(), &[2, 0]);
/// ```
pub fn pack_s<T: Copy + Send + Sync>(
    segd: &Segd,
    data: &[T],
    mask: &BitSlice,
) -> Result<(Segd, Vec<T>)> {
    check_len("pack_s", segd, data.len())?;
    if mask.len() != data.len() {
        return Err(Error::LengthMismatch {
            op: "pack_s",
            expected: data.len(),
            found: mask.len(),
        });
    }
    let lengths = count_s_bits(segd, mask)?;
    Ok((Segd::from_lengths(lengths)?, flat::pack(data, mask)?))
}
