//! The direct path of a segmented redomap whose map body is one float operator over two reads
//! (a column in place, or a gather `v[index[i]]` with the index column in place): smvm's
//! `x * v[c]`, or a plain sum of a column. The loops are the ones `#[vectorise]` emits for its
//! direct smvm, written once here for the executor: every leaf slices its columns once (no
//! bounds checks on the element reads), a whole short segment is one inline chain, and gathers
//! from a vector that does not stay in cache are prefetched a few elements ahead, with the
//! lanes of a long leaf folded one after another so that each array is one memory stream.
//!
//! A gather through an index column whose range is known to fit its vector
//! ([`TrustedGatherRead`], module `index_ranges`) reads without a bounds check.
//!
//! Results are the canonical association's bits ([`seg::fold_s_leaves_split`]'s contract).

use super::index_ranges::IndexRange;
use crate::ir::BinaryOp;
use flatland_runtime::{assoc, hint, seg};
use flatland_segd::Segd;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// Elements between a gather's prefetch and its read (as in the code `#[vectorise]` emits).
const PREFETCH: usize = 24;

/// One read of the map body, as its own type so that each shape of body gets a loop of its own.
pub(super) trait Read: Copy + Sync {
    /// This read restricted to the elements at `r` of the flat arrays (sliced once per leaf).
    fn cut(self, r: Range<usize>) -> Self;
    /// The value at element `i` (of the cut); an index out of range sets `bad` (the caller then
    /// gives up) and reads 0.
    fn at(self, i: usize, bad: &AtomicBool) -> f64;
    /// Asks the cache for what element `i` of the uncut read will load (gathers only).
    fn prefetch(self, _i: usize) {}
    /// Whether prefetching this read's loads pays (a gather from a vector out of cache).
    fn prefetch_pays(self) -> bool {
        false
    }
}

/// A column read in place.
#[derive(Clone, Copy)]
pub(super) struct ColRead<'a>(pub(super) &'a [f64]);

/// `values[index[i]]`, with `index` read in place.
#[derive(Clone, Copy)]
pub(super) struct GatherRead<'a>(pub(super) &'a [i64], pub(super) &'a [f64]);

/// `values[index[i]]` with `index` read in place and known to hold only indices of `values`
/// ([`IndexRange::holds`]): the gather reads without a bounds check.
#[derive(Clone, Copy)]
pub(super) struct TrustedGatherRead<'a>(&'a [i64], &'a [f64]);

impl<'a> TrustedGatherRead<'a> {
    /// The gather `values[index[i]]`, when `range` is `index`'s and holds every index in
    /// `0..values.len()`.
    pub(super) fn new(
        index: &'a [i64],
        values: &'a [f64],
        range: &IndexRange,
    ) -> Option<TrustedGatherRead<'a>> {
        range
            .holds(index, values.len())
            .then_some(TrustedGatherRead(index, values))
    }
}

/// No read (a body of one read).
#[derive(Clone, Copy)]
struct NoRead;

impl Read for ColRead<'_> {
    #[inline(always)]
    fn cut(self, r: Range<usize>) -> Self {
        ColRead(&self.0[r])
    }
    #[inline(always)]
    fn at(self, i: usize, _: &AtomicBool) -> f64 {
        self.0[i]
    }
}

impl Read for GatherRead<'_> {
    #[inline(always)]
    fn cut(self, r: Range<usize>) -> Self {
        GatherRead(&self.0[r], self.1)
    }
    #[inline(always)]
    fn at(self, i: usize, bad: &AtomicBool) -> f64 {
        // A negative index wraps to a huge one, out of range as well.
        if let Some(&x) = self.1.get(self.0[i] as usize) {
            x
        } else {
            bad.store(true, Ordering::Relaxed);
            0.0
        }
    }
    #[inline(always)]
    fn prefetch(self, i: usize) {
        if let Some(&c) = self.0.get(i + PREFETCH) {
            hint::prefetch(self.1, c as u64 as usize);
        }
    }
    fn prefetch_pays(self) -> bool {
        hint::prefetch_pays(self.1, self.0)
    }
}

impl Read for TrustedGatherRead<'_> {
    #[inline(always)]
    fn cut(self, r: Range<usize>) -> Self {
        // A part of the index keeps the constructor's guarantee.
        TrustedGatherRead(&self.0[r], self.1)
    }
    #[inline(always)]
    fn at(self, i: usize, _: &AtomicBool) -> f64 {
        let k = self.0[i] as usize;
        debug_assert!(k < self.1.len());
        // SAFETY: every index in `self.0` lies in `0..self.1.len()`: `new` checked it for the
        // whole index column (`IndexRange::holds`), `cut` only takes parts of that column,
        // and the slices are shared borrows, so nothing changes them meanwhile.
        unsafe { *self.1.get_unchecked(k) }
    }
    #[inline(always)]
    fn prefetch(self, i: usize) {
        GatherRead(self.0, self.1).prefetch(i);
    }
    fn prefetch_pays(self) -> bool {
        hint::prefetch_pays(self.1, self.0)
    }
}

impl Read for NoRead {
    #[inline(always)]
    fn cut(self, _: Range<usize>) -> Self {
        self
    }
    #[inline(always)]
    fn at(self, _: usize, _: &AtomicBool) -> f64 {
        0.0
    }
}

/// Folds every segment of `segd` over `body(a[i], b[i])` (`a[i]` alone when `body` is `None`)
/// with `op` from `z`; `None` for an operator or body the direct path does not take.
pub(super) fn fold_reads<A: Read, B: Read>(
    segd: &Segd,
    body: Option<BinaryOp>,
    (a, b): (A, B),
    op: BinaryOp,
    z: f64,
    bad: &AtomicBool,
) -> Option<Vec<f64>> {
    use flatland_runtime::expr::op::fixed::Fixed as _;
    use flatland_runtime::with_fixed_op;
    // The fold's operator and the body's, each one of the runtime's operator types.
    macro_rules! fold_with {
        ($a:expr, $b:expr, $f:expr) => {
            with_fixed_op!(
                op,
                [Add, Max, Min],
                |O| { fold_leaves(segd, ($a, $b), $f, O::apply::<f64>, z, bad) },
                return None
            )
        };
    }
    Some(match body {
        None => fold_with!(a, NoRead, |x, _| x),
        Some(body) => with_fixed_op!(
            body,
            [Add, Sub, Mul],
            |P| fold_with!(a, b, P::apply::<f64>),
            return None
        ),
    })
}

/// [`fold_reads`] for one body `f` and operator `op`.
fn fold_leaves<A: Read, B: Read>(
    segd: &Segd,
    (a, b): (A, B),
    f: impl Fn(f64, f64) -> f64 + Copy + Sync,
    op: impl Fn(f64, f64) -> f64 + Copy + Sync,
    z: f64,
    bad: &AtomicBool,
) -> Vec<f64> {
    let prefetch = a.prefetch_pays() || b.prefetch_pays();
    // One chain from the identity over a leaf (the canonical association of a short leaf),
    // small enough to inline into the loop over short segments.
    let chain = move |r: Range<usize>| {
        let start = r.start;
        let (ca, cb) = (a.cut(r.clone()), b.cut(r.clone()));
        let mut acc = z;
        for i in 0..r.len() {
            if prefetch {
                a.prefetch(start + i);
                b.prefetch(start + i);
            }
            acc = op(acc, f(ca.at(i, bad), cb.at(i, bad)));
        }
        acc
    };
    let short = move |r: Range<usize>| op(z, chain(r));
    let any = move |r: Range<usize>| {
        let n = r.len();
        if n < assoc::SHORT {
            return chain(r);
        }
        let start = r.start;
        let (ca, cb) = (a.cut(r.clone()), b.cut(r));
        if prefetch {
            let get = move |i: usize| {
                a.prefetch(start + i);
                b.prefetch(start + i);
                f(ca.at(i, bad), cb.at(i, bad))
            };
            assoc::leaf_fold_by_in_turn(n, get, z, op)
        } else {
            assoc::leaf_fold_by(n, move |i| f(ca.at(i, bad), cb.at(i, bad)), z, op)
        }
    };
    seg::fold_s_leaves_split(segd, z, short, any, op)
}
