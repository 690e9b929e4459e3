//! Selection by bit masks: mask, pack, filter, combine.

use crate::cost::ElemCost;
use crate::sched::{self, Schedule, build_vec, build_vec_tasks};
use crate::{Error, Result, stats};
use bitvec::field::BitField;
use bitvec::prelude::{BitSlice, BitVec};

/// A mask bit, a read and a write per element.
const PACK: ElemCost = ElemCost::new(1.0, 2.0);
/// A predicate and a read per element.
const MASK: ElemCost = ElemCost::new(1.0, 1.0);

/// Bits per mask word.
const WORD: usize = usize::BITS as usize;

/// The bit mask `[pred(x) for x in xs]`. Counts `n` read and written, `n / 8` bytes allocated.
///
/// ```
/// let m = flatland_runtime::flat::mask(&[1, 2, 3, 4], |x| x > 2);
/// assert_eq!(m.iter().by_vals().collect::<Vec<_>>(), [false, false, true, true]);
/// ```
pub fn mask<T: Copy + Sync>(xs: &[T], pred: impl Fn(T) -> bool + Sync) -> BitVec {
    let n = xs.len();
    stats::record_read(n as u64);
    stats::record_written(n as u64);
    stats::record_alloc::<usize>(n.div_ceil(WORD));
    let (s, _timing) = sched::plan_op(sched::Op::of("flat::mask", &pred), n, MASK);
    // Tasks are whole leaves, so every task but the last covers whole words.
    let regions: Vec<(usize, usize)> = s
        .element_ranges()
        .map(|r| r.len().div_ceil(WORD))
        .zip(0..)
        .collect();
    let words = build_vec(n.div_ceil(WORD), &regions, s.num_tasks(), |t, slots| {
        let r = s.element_range(t);
        slots[0].fill(xs[r].chunks(WORD).map(|chunk| {
            chunk
                .iter()
                .enumerate()
                .fold(0usize, |w, (i, &x)| w | (usize::from(pred(x)) << i))
        }));
    });
    let mut bits = BitVec::from_vec(words);
    bits.truncate(n);
    bits
}

/// The elements of `xs` whose mask bit is set, in order; the mask must have `xs`'s length.
/// Counts `n` read (mask bits), the kept elements copied and allocated.
///
/// # Errors
/// [`Error::LengthMismatch`] when the mask's length differs from `xs`'s.
///
/// ```
/// use bitvec::prelude::*;
/// use flatland_runtime::flat::pack;
/// assert_eq!(pack(&[1, 2, 3], bits![1, 0, 1]).unwrap(), vec![1, 3]);
/// assert!(pack(&[1, 2, 3], bits![1]).is_err());
/// ```
pub fn pack<T: Copy + Send + Sync>(xs: &[T], mask: &BitSlice) -> Result<Vec<T>> {
    let n = xs.len();
    if mask.len() != n {
        return Err(Error::LengthMismatch {
            op: "pack",
            expected: n,
            found: mask.len(),
        });
    }
    let (s, _timing) = sched::plan_op(sched::Op::new("flat::pack"), n, PACK);
    let counts = ones_per_task(&s, mask);
    let kept: usize = counts.iter().sum();
    stats::record_read(n as u64);
    stats::record_copied(kept as u64);
    stats::record_alloc::<T>(kept);
    let regions: Vec<(usize, usize)> = counts.into_iter().zip(0..).collect();
    Ok(build_vec(kept, &regions, s.num_tasks(), |t, slots| {
        let r = s.element_range(t);
        // The set bits found a word at a time (`BitSlice::iter_ones` searches an unaligned
        // slice bit by bit); a full word copies its 64 elements at once.
        let slot = &mut slots[0];
        for (c, chunk) in mask[r.clone()].chunks(WORD).enumerate() {
            let base = r.start + c * WORD;
            let mut w: usize = chunk.load_le();
            if w == usize::MAX {
                slot.copy_from(&xs[base..base + WORD]);
                continue;
            }
            while w != 0 {
                slot.push(xs[base + w.trailing_zeros() as usize]);
                w &= w - 1;
            }
        }
    }))
}

/// The elements for which `pred` holds, in order: [`mask`] then [`pack`] (`pred` runs once per
/// element).
///
/// ```
/// assert_eq!(flatland_runtime::flat::filter(&[5, 6, 7, 8], |x| x % 2 == 1), vec![5, 7]);
/// ```
pub fn filter<T: Copy + Send + Sync>(xs: &[T], pred: impl Fn(T) -> bool + Sync) -> Vec<T> {
    let m = mask(xs, pred);
    pack(xs, &m).expect("mask has the input's length")
}

/// Merges two arrays by a selector: position `i` takes the next element of `if_true` when
/// `selector[i]` is set, else the next of `if_false`. The selector's zeros must number
/// `if_false.len()` and its ones `if_true.len()`. Counts `n` read (selector), `n` copied and
/// allocated.
///
/// # Errors
/// [`Error::LengthMismatch`] when the selector's ones or zeros do not match the two sides.
///
/// ```
/// use bitvec::prelude::*;
/// use flatland_runtime::flat::combine;
/// assert_eq!(combine(bits![0, 1, 1, 0], &[1, 4], &[2, 3]).unwrap(), vec![1, 2, 3, 4]);
/// assert!(combine(bits![0, 1], &[1, 4], &[2]).is_err());
/// ```
pub fn combine<T: Copy + Send + Sync>(
    selector: &BitSlice,
    if_false: &[T],
    if_true: &[T],
) -> Result<Vec<T>> {
    let n = selector.len();
    let (s, _timing) = sched::plan_op(sched::Op::new("flat::combine"), n, PACK);
    let ones = ones_per_task(&s, selector);
    let total_ones: usize = ones.iter().sum();
    if total_ones != if_true.len() {
        return Err(Error::LengthMismatch {
            op: "combine (true side)",
            expected: total_ones,
            found: if_true.len(),
        });
    }
    if n - total_ones != if_false.len() {
        return Err(Error::LengthMismatch {
            op: "combine (false side)",
            expected: n - total_ones,
            found: if_false.len(),
        });
    }
    stats::record_read(n as u64);
    stats::record_copied(n as u64);
    stats::record_alloc::<T>(n);
    // Where each task starts reading each side.
    let mut starts = Vec::with_capacity(ones.len());
    let (mut t_at, mut f_at) = (0, 0);
    for (r, o) in s.element_ranges().zip(&ones) {
        starts.push((f_at, t_at));
        t_at += o;
        f_at += r.len() - o;
    }
    Ok(build_vec_tasks(&s, |t, r, out| {
        let (mut f_at, mut t_at) = starts[t];
        out.fill(selector[r].iter().by_vals().map(|b| {
            if b {
                t_at += 1;
                if_true[t_at - 1]
            } else {
                f_at += 1;
                if_false[f_at - 1]
            }
        }));
    }))
}

/// Set bits of `bits` in each task's element range of `s`.
fn ones_per_task(s: &Schedule, bits: &BitSlice) -> Vec<usize> {
    if s.is_sequential() {
        return vec![bits.count_ones()];
    }
    sched::run(s, |_, r| bits[r].count_ones())
}
