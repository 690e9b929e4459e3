//! Fused segmented reductions (what the vectoriser's fusion of a map into a segmented reduction,
//! a redomap, runs on): a producer computes the mapped
//! values of a block of elements on demand, and each leaf of the block is folded straight into
//! its segment's canonical accumulator. No array of the mapped values ever exists beyond one
//! block (at most [`BLOCK`] elements per task), which is what makes a fused redomap single-pass.
//!
//! The association is exactly [`crate::assoc`]'s: leaves of at most [`LEAF`] elements counted
//! from each segment's start, folded by the caller's leaf function (normally
//! [`crate::assoc::leaf_fold`]), and leaf results combined left to right from the identity
//! ([`crate::assoc::combine_leaves`]), whatever the number of tasks.
//!
//! ```
//! use flatland_runtime::{assoc, fused};
//! use flatland_segd::Segd;
//! let segd = Segd::from_lengths(vec![3, 0, 2]).unwrap();
//! let xs = [1.0, 2.0, 3.0, 4.0, 5.0];
//! // The producer squares the elements of each piece; nothing of nnz size is allocated.
//! let sums = fused::fold_blocks(
//!     &segd,
//!     0.0,
//!     |pieces: &[fused::Piece]| -> flatland_runtime::Result<Vec<f64>> {
//!         Ok(pieces.iter().flat_map(|p| {
//!             let s = segd.start(p.segment) + p.offset;
//!             xs[s..s + p.len].iter().map(|x| x * x)
//!         }).collect())
//!     },
//!     |block: &Vec<f64>, r| assoc::leaf_fold(&block[r], 0.0, |a, b| a + b),
//!     |a, b| a + b,
//! )
//! .unwrap();
//! assert_eq!(sums, vec![14.0, 0.0, 41.0]);
//! ```

mod gather;
mod pieces;
mod progressions;

pub use gather::gather_pieces;
pub use pieces::{repeat_pieces, take_pieces};
pub use progressions::{
    Progression, StoreCell, scatter_progressions, scatter_progressions_into, scatter_progressions_s,
};

use crate::assoc::LEAF;
use crate::{Result, stats};
use flatland_segd::Segd;
use rayon::prelude::*;
use std::ops::Range;

/// Elements per producer call: whole leaves are grouped until this many elements (a leaf is
/// never split, so a block holds at least one leaf).
pub const BLOCK: usize = LEAF;

/// Below this many elements the fold runs as one task.
const SEQUENTIAL_BELOW: usize = 8 * LEAF;

/// A piece of one leaf handed to the producer: `len` elements of `segment` from `offset` (a
/// multiple of [`LEAF`]), in element order.
///
/// ```
/// let p = flatland_runtime::fused::Piece { segment: 2, offset: 4096, len: 7 };
/// assert_eq!(p.offset % flatland_runtime::assoc::LEAF, 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// The segment the leaf belongs to.
    pub segment: usize,
    /// Position of the leaf's first element inside its segment.
    pub offset: usize,
    /// Elements of the leaf.
    pub len: usize,
}

/// The leaves of every segment of `segd` (counted from each segment's start), in order, cut into
/// blocks of whole leaves of at most [`BLOCK`] elements (a longer leaf than that never occurs:
/// `LEAF <= BLOCK`); `visit` is called per block, sequentially, and its first error stops the walk
/// and is returned. The sequential form of the blocks [`fold_blocks`] computes, for kernels that
/// consume their blocks in order (a scan carrying its prefix, a partition writing its classes).
///
/// ```
/// use flatland_runtime::fused::{self, Piece};
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![2, 0, 5_000]).unwrap();
/// let mut seen = Vec::new();
/// fused::for_each_block(&segd, |b: &[Piece]| -> Result<(), ()> {
///     seen.extend(b.iter().map(|p| (p.segment, p.offset, p.len)));
///     Ok(())
/// })
/// .unwrap();
/// assert_eq!(seen, [(0, 0, 2), (2, 0, 4096), (2, 4096, 904)]);
/// ```
///
/// # Errors
/// The first error `visit` returns.
pub fn for_each_block<E>(
    segd: &Segd,
    visit: impl FnMut(&[Piece]) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    blocks(segd, (0, 0), (segd.len(), 0), visit)
}

/// The leaves of segments `segs` restricted to elements from `(first, first_off)` on, cut into
/// blocks of whole leaves; `visit` is called per block.
fn blocks<E>(
    segd: &Segd,
    from: (usize, usize),
    to: (usize, usize),
    mut visit: impl FnMut(&[Piece]) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    let mut block: Vec<Piece> = Vec::new();
    let mut filled = 0;
    let (mut s, mut off) = from;
    while (s, off) < to {
        let len = segd.length(s);
        if off >= len {
            s += 1;
            off = 0;
            continue;
        }
        let end = if s == to.0 { to.1.min(len) } else { len };
        while off < end {
            let l = LEAF.min(len - off).min(end - off);
            if filled + l > BLOCK && !block.is_empty() {
                visit(&block)?;
                block.clear();
                filled = 0;
            }
            block.push(Piece {
                segment: s,
                offset: off,
                len: l,
            });
            filled += l;
            off += l;
        }
        s += 1;
        off = 0;
    }
    if !block.is_empty() {
        visit(&block)?;
    }
    Ok(())
}

/// Task boundaries `(segment, offset)` at leaf starts, about equal in elements.
fn task_bounds(segd: &Segd) -> Vec<(usize, usize)> {
    let n = segd.elements();
    let end = (segd.len(), 0);
    if n < SEQUENTIAL_BELOW {
        return vec![(0, 0), end];
    }
    let tasks = (n / (2 * LEAF)).clamp(1, 4 * rayon::current_num_threads());
    let mut bounds = vec![(0, 0)];
    for t in 1..tasks {
        let (s, off) = segd.segment_of_element(n / tasks * t);
        let b = (s, off / LEAF * LEAF);
        if b > *bounds.last().expect("non-empty") {
            bounds.push(b);
        }
    }
    bounds.push(end);
    bounds
}

/// Folds every segment of `segd` over values that `produce` computes block by block: the result
/// of segment `s` is `combine_leaves(identity, [leaf(block, range of leaf) for each leaf of s])`
/// with leaves counted from the segment's start, that is [`crate::assoc::fold`]'s association when
/// `leaf` is [`crate::assoc::leaf_fold`] with the same operator.
///
/// `produce` receives whole leaves (at most [`BLOCK`] elements in all) and returns the block's
/// mapped values, in piece order; `leaf` gets the block and the positions of one piece in it.
/// Tasks split the elements at leaf boundaries; the per-leaf results are combined in order.
///
/// # Errors
/// The first error `produce` returns (in element order among the tasks that failed).
///
/// ```
/// use flatland_runtime::{assoc, fused};
/// use flatland_segd::Segd;
/// let segd = Segd::from_lengths(vec![10_000]).unwrap();
/// let xs: Vec<i64> = (0..10_000).collect();
/// let r = fused::fold_blocks(&segd, 0i64,
///     |ps: &[fused::Piece]| -> flatland_runtime::Result<&[i64]> { let p = ps[0]; Ok(&xs[p.offset..p.offset + p.len]) },
///     |b: &&[i64], r| assoc::leaf_fold(&b[r], 0, |a, b| a + b), |a, b| a + b).unwrap();
/// assert_eq!(r, vec![assoc::fold(&xs, 0, |a, b| a + b)]);
/// ```
pub fn fold_blocks<A, B>(
    segd: &Segd,
    identity: A,
    produce: impl Fn(&[Piece]) -> Result<B> + Sync,
    leaf: impl Fn(&B, Range<usize>) -> A + Sync,
    op: impl Fn(A, A) -> A + Sync,
) -> Result<Vec<A>>
where
    A: Clone + Send + Sync,
{
    stats::record_descriptor(segd.len() as u64);
    stats::record_alloc::<A>(segd.len());
    let bounds = task_bounds(segd);
    let scope = stats::current();
    // A task folds, from the identity, every segment that starts inside it (a segment running
    // on into the next task yields the prefix of its leaves, which is where the next task's
    // leaves continue); the leaves of a segment that started in an earlier task come back raw.
    let task = |w: &[(usize, usize)]| -> Result<Part<A>> {
        scope.enter(|| {
            let mut part = Part {
                carried: Vec::new(),
                folded: Vec::new(),
            };
            let carried_seg = (w[0].1 > 0).then_some(w[0].0);
            blocks(segd, w[0], w[1], |pieces| {
                let b = produce(pieces)?;
                let mut at = 0;
                for p in pieces {
                    let l = leaf(&b, at..at + p.len);
                    at += p.len;
                    if Some(p.segment) == carried_seg {
                        part.carried.push(l);
                    } else if let Some((s, acc)) = part.folded.last_mut()
                        && *s == p.segment
                    {
                        *acc = op(acc.clone(), l);
                    } else {
                        part.folded.push((p.segment, op(identity.clone(), l)));
                    }
                }
                Ok::<(), crate::Error>(())
            })?;
            Ok(part)
        })
    };
    let parts: Vec<Result<Part<A>>> = if bounds.len() == 2 {
        vec![task(&bounds)]
    } else {
        bounds.par_windows(2).map(task).collect()
    };
    let mut out = vec![identity.clone(); segd.len()];
    for (w, part) in bounds.windows(2).zip(parts) {
        let part = part?;
        if !part.carried.is_empty() {
            let s = w[0].0;
            out[s] = part.carried.into_iter().fold(out[s].clone(), &op);
        }
        for (s, acc) in part.folded {
            out[s] = acc;
        }
    }
    Ok(out)
}

/// What one task of [`fold_blocks`] computed: the leaves of the segment it continues (if its
/// first segment started in an earlier task), then each segment it starts, folded from the
/// identity over the leaves it holds.
struct Part<A> {
    carried: Vec<A>,
    folded: Vec<(usize, A)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assoc;
    use quickcheck::quickcheck;

    fn check(lens: Vec<usize>) -> bool {
        let segd = Segd::from_lengths(lens).unwrap();
        let xs: Vec<f64> = (0..segd.elements()).map(|i| (i as f64).sin()).collect();
        let got = fold_blocks(
            &segd,
            0.0,
            |ps: &[Piece]| -> Result<Vec<f64>> {
                assert!(ps.iter().map(|p| p.len).sum::<usize>() <= BLOCK);
                Ok(ps
                    .iter()
                    .flat_map(|p| {
                        let s = segd.start(p.segment) + p.offset;
                        xs[s..s + p.len].iter().map(|x| x * 3.0)
                    })
                    .collect())
            },
            |b: &Vec<f64>, r| assoc::leaf_fold(&b[r], 0.0, |a, b| a + b),
            |a, b| a + b,
        )
        .unwrap();
        segd.iter().zip(&got).all(|((s, l), g)| {
            let m: Vec<f64> = xs[s..s + l].iter().map(|x| x * 3.0).collect();
            assoc::fold(&m, 0.0, |a, b| a + b).to_bits() == g.to_bits()
        })
    }

    quickcheck! {
        fn matches_assoc_fold(lens: Vec<u16>) -> bool {
            check(lens.into_iter().map(|l| usize::from(l) % 9000).collect())
        }
    }

    #[test]
    fn huge_and_empty_segments() {
        assert!(check(vec![]));
        assert!(check(vec![0, 0]));
        assert!(check(vec![200_000, 0, 3, 70_001]));
        assert!(check(vec![1; 50_000]));
    }

    #[test]
    fn errors_come_back() {
        let segd = Segd::from_lengths(vec![100_000]).unwrap();
        let r = fold_blocks(
            &segd,
            0i64,
            |ps: &[Piece]| -> Result<i64> {
                if ps[0].offset >= 50_000 {
                    Err(crate::Error::DivisionByZero {
                        op: "div",
                        lane: ps[0].offset,
                    })
                } else {
                    Ok(1)
                }
            },
            |b, _| *b,
            |a, b| a + b,
        );
        assert!(matches!(r, Err(crate::Error::DivisionByZero { .. })));
    }
}
