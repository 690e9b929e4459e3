//! Hints to the processor that change no result: prefetching the element a gather will read.
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

/// Whether prefetching the gathers `xs[index[i]]` is likely to pay: `xs` is larger than the
/// caches hold (`BIG` bytes) and the first indices (up to 1,024) jump by more than a cache line on
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
    /// Bytes above which a gathered array is taken not to stay in cache.
    const BIG: usize = 32 << 20;
    /// Average jump (in elements) above which consecutive gathers leave the cache line.
    const LINE: u64 = 64;
    if std::mem::size_of_val(xs) < BIG {
        return false;
    }
    let sample = &index[..index.len().min(1024)];
    let jumps: u64 = sample
        .windows(2)
        .map(|w| w[1].wrapping_sub(w[0]).unsigned_abs())
        .fold(0u64, u64::saturating_add);
    let bytes = std::mem::size_of::<T>() as u64;
    sample.len() > 1 && jumps.saturating_mul(bytes) / (sample.len() as u64 - 1) > LINE
}
