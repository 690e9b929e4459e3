//! Hints to the processor that change no result: prefetching the element a gather will read,
//! and choosing between two values without a branch ([`select`]).
//!
//! A gather `v[c[i]]` over short segments (smvm on rows of a few entries) waits on memory for
//! every element, and the processor can only look a few segments ahead on its own. Code that
//! knows the index of a gather some elements ahead (the loops `#[vectorise]` emits read the
//! index array itself) asks for that element early with [`prefetch`]; on the 2-core development
//! machine a sequential CSR loop prefetching 24 entries ahead ran 1.4x faster than without on a
//! 10^7-entry matrix whose vector does not fit in cache.

/// Asks the processor to start loading `xs[i]` into the cache; does nothing when `i` is out of
/// range, or on targets without a prefetch instruction. Never reads the element itself, never
/// faults, and changes no result.
///
/// ```
/// use flatland_runtime::hint::prefetch;
/// let v = vec![1.0f64; 1000];
/// prefetch(&v, 500);
/// prefetch(&v, usize::MAX); // out of range: nothing happens
/// ```
#[inline(always)]
pub fn prefetch<T>(xs: &[T], i: usize) {
    if let Some(x) = xs.get(i) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `_mm_prefetch` only hints the cache; SSE is part of the x86_64 baseline, and the
        // pointer is that of an element in bounds (a prefetch never faults in any case).
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(x).cast::<i8>());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = x;
    }
}

/// How many of its first indices [`prefetch_pays`] reads: a caller that gathers its indices
/// from rows builds a sample this long at most.
pub const PREFETCH_SAMPLE: usize = 1024;

/// Whether prefetching the gathers `xs[index[i]]` is likely to pay: `xs` is larger than the
/// caches hold ([`beyond_cache`]: `BIG` bytes) and the first indices (up to 1,024) jump by more than a cache line on
/// average, so the processor's own prefetcher cannot follow them. A banded matrix (indices
/// nearly consecutive) or a vector that fits in cache gets `false`: there the prefetches only
/// cost instructions (1.3x on a banded 10^7-entry smvm). A heuristic: it changes no result.
///
/// `BIG` is 32 MiB: gathers from a vector of 8 MiB (PageRank's and the power-law smvm's on
/// 10^6 nodes) stay in the last-level cache, where the processor keeps enough of them in
/// flight on its own (with prefetches PageRank ran 1.2x slower, on two threads), while
/// gathers from 80 MiB (the smvm `skewed-many` of 10^7 columns) go to memory, where the
/// prefetches gained 1.1-1.25x.
///
/// ```
/// use flatland_runtime::hint::prefetch_pays;
/// let big = vec![0.0f64; 1 << 23];
/// let random: Vec<i64> = (0..1024).map(|i| (i * 7919 % 1_000_003) % (1 << 23)).collect();
/// let banded: Vec<i64> = (0..1024).collect();
/// assert!(prefetch_pays(&big, &random));
/// assert!(!prefetch_pays(&big, &banded));
/// assert!(!prefetch_pays(&big[..1000], &random));
/// ```
pub fn prefetch_pays<T>(xs: &[T], index: &[i64]) -> bool {
    /// Average jump (in elements) above which consecutive gathers leave the cache line.
    const LINE: u64 = 64;
    if !beyond_cache(xs) {
        return false;
    }
    let sample = &index[..index.len().min(PREFETCH_SAMPLE)];
    let jumps: u64 = sample
        .windows(2)
        .map(|w| w[1].wrapping_sub(w[0]).unsigned_abs())
        .fold(0u64, u64::saturating_add);
    let bytes = std::mem::size_of::<T>() as u64;
    sample.len() > 1 && jumps.saturating_mul(bytes) / (sample.len() as u64 - 1) > LINE
}

/// Whether gathers from `xs` are taken to go to memory: `xs` is larger than the caches hold
/// (32 MiB; [`prefetch_pays`] says why that bound). The first half of [`prefetch_pays`], for a
/// caller that must build its sample of indices first and need not where this says no.
///
/// ```
/// use flatland_runtime::hint::beyond_cache;
/// assert!(beyond_cache(&vec![0.0f64; 1 << 23]));
/// assert!(!beyond_cache(&vec![0.0f64; 1 << 20]));
/// ```
#[inline]
pub fn beyond_cache<T>(xs: &[T]) -> bool {
    /// Bytes above which a gathered array is taken not to stay in cache.
    const BIG: usize = 32 << 20;
    std::mem::size_of_val(xs) >= BIG
}

/// `if c { a } else { b }`, computed without a branch.
///
/// For the selects of a best-of operator (`if best.0 < 0 || next.1 < best.1 { next } else
/// { best }`) folded with the canonical association: the combines of independent partial
/// results go either way at random, and a mispredicted branch costs more than computing both
/// sides. On x86-64's baseline target (no `blendv`) LLVM compiles a select of `f64` whose
/// condition is not a single float comparison into a branch, and folds a select of the values'
/// bits back into that branch; [`Select`] for `f64` hides the bits from the optimiser, so the
/// select stays a `cmov`. A nearest-of-16 fold of `(index, distance)` pairs over 10^6 points
/// (standalone, one thread) took 26 ms this way against 56 ms with the branch, and a
/// sequential chain of 8 such selects 23 ms against 34 ms.
///
/// ```
/// use flatland_runtime::hint::select;
/// assert_eq!(select(true, (1i64, 2.5), (0, 0.5)), (1, 2.5));
/// assert_eq!(select(false, (1i64, 2.5), (0, 0.5)), (0, 0.5));
/// assert!(select(false, 1.0, f64::NAN).is_nan());
/// assert_eq!(select(true, -0.0f64, 0.0).to_bits(), (-0.0f64).to_bits());
/// ```
#[inline(always)]
pub fn select<T: Select>(c: bool, a: T, b: T) -> T {
    T::select(c, a, b)
}

/// Values [`select`] chooses between without a branch: `i64`, `f64`, `bool` and tuples of up
/// to twelve of them (nested tuples included), the scalar values of `#[vectorise]` code.
pub trait Select: Copy {
    /// `if c { a } else { b }`.
    fn select(c: bool, a: Self, b: Self) -> Self;
}

/// Integers and booleans: a select of them already compiles without a branch (a `cmov`, or
/// `and`/`or`).
macro_rules! select_plainly {
    ($($t:ty),*) => {$(
        impl Select for $t {
            #[inline(always)]
            fn select(c: bool, a: Self, b: Self) -> Self {
                if c { a } else { b }
            }
        }
    )*};
}

select_plainly!(i64, bool);

impl Select for f64 {
    #[inline(always)]
    fn select(c: bool, a: Self, b: Self) -> Self {
        let (a, b) = (opaque_bits(a), opaque_bits(b));
        f64::from_bits(if c { a } else { b })
    }
}

/// The bits of `x`, which the optimiser cannot trace back to a float: a select of them stays
/// an integer select (a `cmov` on x86-64) instead of being folded into a select of `f64`.
#[inline(always)]
fn opaque_bits(x: f64) -> u64 {
    #[allow(unused_mut)]
    let mut bits = x.to_bits();
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the assembly is empty (a comment naming the register): it reads and writes no
    // memory, no flags and no other register, and leaves `bits` as it was.
    unsafe {
        std::arch::asm!("/* {0} */", inout(reg) bits, options(nomem, nostack, preserves_flags));
    }
    bits
}

/// [`Select`] for tuples, field by field with the one condition.
macro_rules! select_tuples {
    ($(($($t:ident $i:tt),*)),* $(,)?) => {$(
        impl<$($t: Select),*> Select for ($($t,)*) {
            #[inline(always)]
            fn select(c: bool, a: Self, b: Self) -> Self {
                ($($t::select(c, a.$i, b.$i),)*)
            }
        }
    )*};
}

impl Select for () {
    #[inline(always)]
    fn select(_: bool, (): Self, (): Self) -> Self {}
}

select_tuples!(
    (A 0),
    (A 0, B 1),
    (A 0, B 1, C 2),
    (A 0, B 1, C 2, D 3),
    (A 0, B 1, C 2, D 3, E 4),
    (A 0, B 1, C 2, D 3, E 4, F 5),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11),
);

#[cfg(test)]
mod tests {
    use super::select;

    #[test]
    fn select_keeps_every_bit_of_the_chosen_value() {
        let floats = [
            0.0,
            -0.0,
            1.5,
            -2.25,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
        ];
        let nan = f64::from_bits(0x7ff8_0000_dead_beef);
        for &a in floats.iter().chain([&nan]) {
            for &b in floats.iter().chain([&nan]) {
                assert_eq!(select(true, a, b).to_bits(), a.to_bits());
                assert_eq!(select(false, a, b).to_bits(), b.to_bits());
            }
        }
        for (a, b) in [(i64::MIN, i64::MAX), (0, -1), (7, 7)] {
            assert_eq!(select(true, a, b), a);
            assert_eq!(select(false, a, b), b);
        }
        for a in [false, true] {
            for b in [false, true] {
                assert_eq!(select(true, a, b), a);
                assert_eq!(select(false, a, b), b);
            }
        }
        let (x, y) = ((1i64, (2.5, true), ()), (3i64, (-0.0, false), ()));
        assert_eq!(select(true, x, y), x);
        assert_eq!(select(false, x, y).1.0.to_bits(), (-0.0f64).to_bits());
        let wide = (
            1i64, 2i64, 3i64, 4i64, 5i64, 6i64, 7i64, 8i64, 9i64, 10i64, 11i64, 12.0,
        );
        let zero = (
            0i64, 0i64, 0i64, 0i64, 0i64, 0i64, 0i64, 0i64, 0i64, 0i64, 0i64, 0.0,
        );
        assert_eq!(select(true, wide, zero), wide);
        assert_eq!(select(false, wide, zero), zero);
    }
}
