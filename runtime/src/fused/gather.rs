//! Gathers for the blocks of a fused kernel: the values `v[i]` of each lane's array at the
//! indices of the elements of a block's [`Piece`]s, with a caller's decision on each index out
//! of range (fail, or forgive it with a default value).

use super::Piece;
use crate::{Result, stats};
use flatland_segd::VSegd;

/// `data` of each piece's lane at `idx`: for every piece, in order, the lane `piece.segment` of
/// `v` (a row of `data`, read through its physical segment, so virtual segments sharing one row
/// read it in place) indexed by the next `piece.len` entries of `idx`. `bad(piece, index, lane
/// length, position in idx)` decides about each index out of range: an error stops the gather
/// and is returned; otherwise that element gets `T::default()`.
///
/// Cost: one pass over `idx` checking a piece's indices, then one read per element (no branch
/// per element where all of a piece's indices are in range); `idx.len()` reads are counted in
/// [`stats`]. `idx` must hold the pieces' elements (`sum(piece.len) == idx.len()`).
///
/// # Errors
/// The first error `bad` returns (for the first index out of range it refuses).
///
/// ```
/// use flatland_runtime::fused::{Piece, gather_pieces};
/// use flatland_segd::{Segd, VSegd};
/// // Two lanes sharing nothing: [10, 11, 12] and [20, 21].
/// let v = VSegd::from_segd(&Segd::from_lengths(vec![3, 2]).unwrap());
/// let data = [10, 11, 12, 20, 21];
/// let pieces = [Piece { segment: 0, offset: 0, len: 2 }, Piece { segment: 1, offset: 0, len: 2 }];
/// let mut out_of_range = Vec::new();
/// let got = gather_pieces(&v, &data, &[2, 0, 1, 5], &pieces, |_, i, _, at| {
///     out_of_range.push((i, at));
///     Ok(())
/// });
/// assert_eq!(got.unwrap(), vec![12, 10, 21, 0]);
/// assert_eq!(out_of_range, vec![(5, 3)]);
/// ```
pub fn gather_pieces<T: Copy + Default>(
    v: &VSegd,
    data: &[T],
    idx: &[i64],
    pieces: &[Piece],
    mut bad: impl FnMut(&Piece, i64, usize, usize) -> Result<()>,
) -> Result<Vec<T>> {
    stats::record_read(idx.len() as u64);
    let mut out = Vec::with_capacity(idx.len());
    let mut at = 0;
    for p in pieces {
        let ps = v.physical(p.segment);
        let lane = &data[ps.start..ps.start + ps.len];
        let ix = &idx[at..at + p.len];
        // One pass checks the piece's indices, the next loads without branches.
        if ix.iter().all(|&i| i >= 0 && (i as usize) < lane.len()) {
            out.extend(ix.iter().map(|&i| lane[i as usize]));
        } else {
            for (k, &i) in ix.iter().enumerate() {
                let x = usize::try_from(i).ok().and_then(|i| lane.get(i));
                if x.is_none() {
                    bad(p, i, ps.len, at + k)?;
                }
                out.push(x.copied().unwrap_or_default());
            }
        }
        at += p.len;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;
    use flatland_segd::Segd;
    use quickcheck::quickcheck;

    /// The naive meaning: element by element, lane `p.segment` of `rows`.
    fn reference(rows: &[Vec<i64>], idx: &[i64], pieces: &[Piece]) -> (Vec<i64>, Vec<usize>) {
        let (mut out, mut bad) = (Vec::new(), Vec::new());
        let mut at = 0;
        for p in pieces {
            for &i in &idx[at..at + p.len] {
                if let Some(&x) = usize::try_from(i).ok().and_then(|i| rows[p.segment].get(i)) {
                    out.push(x);
                } else {
                    bad.push(out.len());
                    out.push(0);
                }
            }
            at += p.len;
        }
        (out, bad)
    }

    quickcheck! {
        fn agrees_with_the_naive_gather(lens: Vec<u8>, picks: Vec<(u8, u8, i8)>) -> bool {
            let lens: Vec<usize> = lens.into_iter().map(|l| l as usize % 6).take(8).collect();
            if lens.is_empty() {
                return true;
            }
            let rows: Vec<Vec<i64>> = (lens.iter().enumerate())
                .map(|(s, &l)| (0..l as i64).map(|k| 100 * s as i64 + k).collect())
                .collect();
            let data: Vec<i64> = rows.concat();
            // Every lane twice, as virtual segments of one physical copy.
            let v = VSegd::from_segd(&Segd::from_lengths(lens.clone()).unwrap())
                .replicate_s(&vec![2; lens.len()])
                .unwrap();
            let mut pieces = Vec::new();
            let mut idx = Vec::new();
            for (seg, len, first) in picks.into_iter().take(10) {
                let segment = seg as usize % v.len();
                let len = len as usize % 4;
                pieces.push(Piece { segment, offset: 0, len });
                idx.extend((0..len as i64).map(|k| first as i64 % 8 + k));
            }
            let virt: Vec<Vec<i64>> = (0..v.len()).map(|s| rows[s / 2].clone()).collect();
            let (want, want_bad) = reference(&virt, &idx, &pieces);
            let mut got_bad = Vec::new();
            let got = gather_pieces(&v, &data, &idx, &pieces, |_, _, _, at| {
                got_bad.push(at);
                Ok(())
            })
            .unwrap();
            let failing = gather_pieces(&v, &data, &idx, &pieces, |p, index, len, _| {
                Err(Error::IndexOutOfRange { op: "index", lane: p.segment, index, len })
            });
            got == want && got_bad == want_bad && failing.is_err() != want_bad.is_empty()
        }
    }
}
