//! The columns of a block of [`Piece`]s that a fused kernel reads besides its gathers: an
//! array's elements taken from where each piece starts ([`take_pieces`], borrowed in place when
//! the pieces lie end to end), and one value per lane repeated over the lane's elements
//! ([`repeat_pieces`], a free scalar of a lifted body).

use super::Piece;
use std::borrow::Cow;

/// The elements of `pieces` from `data`, piece by piece, each piece's `len` elements from
/// `at(piece)` (its start in `data`). Borrowed when every piece starts where the one before it
/// ends (the common case: the leaves of one array in order), else copied into one block-sized
/// buffer.
///
/// Cost: O(pieces) to find out whether they are contiguous, then nothing (borrowed) or one copy
/// of the elements.
///
/// # Panics
/// When a piece reaches past the end of `data`, or `pieces` is empty (a block holds at least
/// one piece).
///
/// ```
/// use flatland_runtime::fused::{Piece, take_pieces};
/// use std::borrow::Cow;
/// let data = [1, 2, 3, 4, 5, 6];
/// let p = |segment, len| Piece { segment, offset: 0, len };
/// // Lanes [1, 2] and [3, 4, 5] lie end to end: borrowed.
/// let starts = [0, 2, 5];
/// let got = take_pieces(&data, &[p(0, 2), p(1, 3)], |q| starts[q.segment]);
/// assert!(matches!(got, Cow::Borrowed([1, 2, 3, 4, 5])));
/// // Lane 0 then lane 2 skip lane 1: copied.
/// let got = take_pieces(&data, &[p(0, 2), p(2, 1)], |q| starts[q.segment]);
/// assert_eq!(got.into_owned(), vec![1, 2, 6]);
/// ```
pub fn take_pieces<'a, T: Copy>(
    data: &'a [T],
    pieces: &[Piece],
    at: impl Fn(&Piece) -> usize,
) -> Cow<'a, [T]> {
    let first = at(&pieces[0]);
    let mut next = first;
    let contiguous = pieces.iter().all(|p| {
        let ok = at(p) == next;
        next += p.len;
        ok
    });
    if contiguous {
        return Cow::Borrowed(&data[first..next]);
    }
    let mut out = Vec::with_capacity(pieces.iter().map(|p| p.len).sum());
    for p in pieces {
        out.extend_from_slice(&data[at(p)..at(p) + p.len]);
    }
    Cow::Owned(out)
}

/// `values[piece.segment]` repeated `piece.len` times for each piece, in order: a per-lane value
/// laid out beside the lane's elements in the block.
///
/// Cost: one write per element of the pieces.
///
/// # Panics
/// When a piece's segment is not an index of `values`.
///
/// ```
/// use flatland_runtime::fused::{Piece, repeat_pieces};
/// let pieces = [Piece { segment: 0, offset: 0, len: 2 }, Piece { segment: 2, offset: 4096, len: 3 }];
/// assert_eq!(repeat_pieces(&[0.5, 1.0, 2.0], &pieces), vec![0.5, 0.5, 2.0, 2.0, 2.0]);
/// ```
pub fn repeat_pieces<T: Copy>(values: &[T], pieces: &[Piece]) -> Vec<T> {
    let mut out = Vec::with_capacity(pieces.iter().map(|p| p.len).sum());
    for p in pieces {
        out.extend(std::iter::repeat_n(values[p.segment], p.len));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    /// Pieces of `lanes` (lane lengths) in lane order, every `skip`-th lane left out, laid out
    /// end to end in a data array: each piece's start.
    fn layout(lanes: &[u8], skip: usize) -> (Vec<Piece>, Vec<usize>) {
        let mut starts = Vec::new();
        let mut at = 0;
        for &l in lanes {
            starts.push(at);
            at += usize::from(l % 16);
        }
        let pieces = lanes
            .iter()
            .enumerate()
            .filter(|(i, _)| skip == 0 || i % skip != 0)
            .map(|(segment, &l)| Piece {
                segment,
                offset: 0,
                len: usize::from(l % 16),
            })
            .collect();
        (pieces, starts)
    }

    quickcheck! {
        fn take_is_the_pieces_elements_in_order(lanes: Vec<u8>, skip: u8) -> bool {
            let (pieces, starts) = layout(&lanes, usize::from(skip % 4));
            if pieces.is_empty() {
                return true;
            }
            let data: Vec<u32> = (0..starts.last().copied().unwrap_or(0) + 16).map(|i| i as u32).collect();
            let naive: Vec<u32> = pieces
                .iter()
                .flat_map(|p| data[starts[p.segment]..starts[p.segment] + p.len].iter().copied())
                .collect();
            let got = take_pieces(&data, &pieces, |p| starts[p.segment]);
            // Lanes in order with none left out lie end to end: never copied.
            let borrowed_when_contiguous = skip % 4 != 0 || matches!(got, Cow::Borrowed(_));
            got.into_owned() == naive && borrowed_when_contiguous
        }

        fn repeat_is_each_lanes_value_len_times(lanes: Vec<u8>, skip: u8) -> bool {
            let (pieces, _) = layout(&lanes, usize::from(skip % 4));
            let values: Vec<i64> = (0..lanes.len() as i64).map(|i| i * 7 - 3).collect();
            let naive: Vec<i64> = pieces
                .iter()
                .flat_map(|p| std::iter::repeat_n(values[p.segment], p.len))
                .collect();
            repeat_pieces(&values, &pieces) == naive
        }
    }

    #[test]
    fn one_huge_piece_is_borrowed_whole() {
        let data = vec![1u8; 1 << 20];
        let pieces = [Piece {
            segment: 0,
            offset: 0,
            len: 1 << 20,
        }];
        assert!(
            matches!(take_pieces(&data, &pieces, |_| 0), Cow::Borrowed(d) if d.len() == 1 << 20)
        );
        assert_eq!(repeat_pieces(&[9u8], &pieces).len(), 1 << 20);
    }

    #[test]
    fn empty_pieces_take_nothing() {
        let pieces = [Piece {
            segment: 1,
            offset: 0,
            len: 0,
        }];
        assert!(take_pieces(&[1, 2], &pieces, |_| 2).is_empty());
        assert!(repeat_pieces(&[1, 2], &pieces).is_empty());
    }
}
