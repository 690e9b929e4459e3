//! Building shared content buffers (`Arc<[T]>`) in place: `Arc::<[T]>::from(Vec<T>)` would copy
//! every element into a second allocation, so computed results are written straight into the
//! buffer the array keeps.

use std::mem::MaybeUninit;
use std::sync::Arc;

use rayon::prelude::*;

use super::PAR_ELEMENTS;

/// Elements written per parallel task by [`tabulate`].
const CHUNK: usize = 4096;

/// Writes the elements of a buffer under construction, in order.
pub(crate) struct Filler<'a, T> {
    slots: &'a mut [MaybeUninit<T>],
    len: usize,
}

impl<T> Filler<'_, T> {
    /// Appends `x`; more pushes than the buffer's length is an internal bug (panics).
    #[inline]
    pub(crate) fn push(&mut self, x: T) {
        self.slots[self.len].write(x);
        self.len += 1;
    }

    /// Appends clones of `xs`.
    #[inline]
    pub(crate) fn extend_from_slice(&mut self, xs: &[T])
    where
        T: Clone,
    {
        for x in xs {
            self.push(x.clone());
        }
    }
}

/// A buffer of exactly `n` elements written by `fill` through [`Filler::push`]; `fill` must push
/// exactly `n` elements (an internal invariant, checked). If `fill` panics, the elements written so
/// far are leaked, never read.
pub(crate) fn collect<T>(n: usize, fill: impl FnOnce(&mut Filler<'_, T>)) -> Arc<[T]> {
    let mut buf: Arc<[MaybeUninit<T>]> = Arc::new_uninit_slice(n);
    let slots = Arc::get_mut(&mut buf).expect("a fresh buffer is unique");
    let mut filler = Filler { slots, len: 0 };
    fill(&mut filler);
    assert_eq!(
        filler.len, n,
        "buffer::collect: wrote {} of {n} elements",
        filler.len
    );
    // SAFETY: `filler` wrote slots 0..len in order and len == n, so every element is initialised.
    unsafe { buf.assume_init() }
}

/// The buffer `[f(0), f(1), ..., f(n - 1)]`, computed in parallel chunks when `n` is large.
pub(crate) fn tabulate<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Arc<[T]> {
    let mut buf: Arc<[MaybeUninit<T>]> = Arc::new_uninit_slice(n);
    let slots = Arc::get_mut(&mut buf).expect("a fresh buffer is unique");
    let fill = |(c, chunk): (usize, &mut [MaybeUninit<T>])| {
        for (j, slot) in chunk.iter_mut().enumerate() {
            slot.write(f(c * CHUNK + j));
        }
    };
    if n >= PAR_ELEMENTS {
        slots.par_chunks_mut(CHUNK).enumerate().for_each(fill);
    } else {
        slots.chunks_mut(CHUNK).enumerate().for_each(fill);
    }
    // SAFETY: the chunks cover all n slots and each chunk's loop wrote every slot of it; a panic in
    // `f` would have unwound out of this function before this point.
    unsafe { buf.assume_init() }
}

/// A buffer of `n` copies of `x`, written once (for results computed in place afterwards through
/// `Arc::get_mut`).
pub(crate) fn filled<T: Clone>(n: usize, x: &T) -> Arc<[T]> {
    std::iter::repeat_n(x.clone(), n).collect()
}
