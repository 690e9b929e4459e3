//! Spare buffers: large allocations kept for reuse instead of being returned to the allocator.
//!
//! A flattened program runs as a sequence of bulk steps, and every step writes a fresh output of
//! about the size of its input (quickhull and the sieve make dozens per recursion level). With
//! glibc, a large block that is freed is unmapped (or trimmed from the heap's top), so the next
//! step's output is mapped again and faulted in page by page: a quarter to a half of such a
//! program's time went to the kernel. Here the buffers the runtime's containers drop
//! ([`crate::elt::Buffer`]) are kept, up to a limit, and the outputs the runtime builds
//! ([`crate::sched::try_build_vec`]) take one of fitting size first, so their pages are already
//! mapped.
//!
//! **Off by default**: a library should not hold memory its caller gave back, so the limit is 0
//! until a program opts in with [`set_limit`] (the `flatland` command keeps up to
//! [`SUGGESTED_LIMIT`], 256 MiB). Then only blocks of at least [`MIN_BYTES`] are kept (smaller
//! ones the allocator serves from its free lists without faults), at most [`limit`] bytes in all
//! (the oldest go first), and only while they are in recent use: a block kept for more than
//! [`IDLE`] without being taken is freed at the next keep or take, so what stays is bounded by
//! what the process used recently. [`clear`] returns every kept block to the allocator. Kept
//! bytes count as live memory in the budget ([`crate::budget`], which clears them before it
//! refuses an allocation), and the bytes of outputs built in kept blocks are counted by the
//! work counters ([`crate::stats::Work::bytes_reused`]).
//! Fresh blocks of at least [`HUGE_BYTES`] are advised to the kernel as transparent huge pages,
//! so that a fresh output faults in 2 MiB at a time rather than 4 KiB.
//! A block is reused as a vector of any element type with the same alignment whose size
//! divides the block's, so that dropping that vector frees it with the layout it was allocated
//! with.
//!
//! ```
//! use flatland_runtime::spare;
//! spare::set_limit(spare::SUGGESTED_LIMIT);
//! let v: Vec<f64> = Vec::with_capacity(1 << 20);
//! let p = v.as_ptr() as usize;
//! spare::give_back(v);
//! // The same memory comes back as a vector of another type of the same alignment.
//! let w: Vec<i64> = spare::vec_with_capacity(1 << 20);
//! assert_eq!(w.as_ptr() as usize, p);
//! assert!(w.is_empty() && w.capacity() >= 1 << 20);
//! ```

use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Blocks smaller than this are never kept.
pub const MIN_BYTES: usize = 256 << 10;

/// A limit for programs that run flattened code in a loop (the `flatland` command's): 256 MiB.
pub const SUGGESTED_LIMIT: usize = 256 << 20;

/// A block kept this long without being taken is freed at the next keep or take.
pub const IDLE: Duration = Duration::from_secs(2);

/// The default for [`limit`]: nothing is kept until a program asks for it.
const DEFAULT_LIMIT: usize = 0;

/// A kept block: memory allocated by the global allocator with `layout`, owned by the store,
/// and when it was kept.
struct Block {
    ptr: NonNull<u8>,
    layout: Layout,
    kept: Instant,
}

// SAFETY: a block is an allocation no one else refers to (it was given up by its vector); moving
// that ownership between threads is sound.
unsafe impl Send for Block {}

impl Drop for Block {
    fn drop(&mut self) {
        // SAFETY: `ptr` was allocated by the global allocator with `layout` (it was a vector's
        // buffer of that layout), and the block owns it: it is freed once, here.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

/// The kept blocks, oldest first, and their total size.
struct Store {
    blocks: Vec<Block>,
    bytes: usize,
}

/// A store of spare blocks and its limit (the runtime has one, [`GLOBAL`]; tests make their own).
struct Spares {
    store: Mutex<Store>,
    limit: AtomicUsize,
    /// `store.bytes` as of the last release of the lock, so that reading it (the budget does
    /// on every check) takes no lock.
    kept: AtomicUsize,
}

/// The locked store; releasing it publishes its total size to [`Spares::kept`].
struct Locked<'a> {
    guard: std::sync::MutexGuard<'a, Store>,
    kept: &'a AtomicUsize,
}

impl std::ops::Deref for Locked<'_> {
    type Target = Store;
    fn deref(&self) -> &Store {
        &self.guard
    }
}

impl std::ops::DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut Store {
        &mut self.guard
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        self.kept.store(self.guard.bytes, Ordering::Relaxed);
    }
}

static GLOBAL: Spares = Spares::new(DEFAULT_LIMIT);

impl Spares {
    const fn new(limit: usize) -> Spares {
        Spares {
            store: Mutex::new(Store {
                blocks: Vec::new(),
                bytes: 0,
            }),
            limit: AtomicUsize::new(limit),
            kept: AtomicUsize::new(0),
        }
    }

    fn store(&self) -> Locked<'_> {
        // A panic while the lock is held leaves the list consistent (pushes and removes only).
        Locked {
            guard: self
                .store
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
            kept: &self.kept,
        }
    }

    fn limit(&self) -> usize {
        self.limit.load(Ordering::Relaxed)
    }

    fn set_limit(&self, bytes: usize) {
        self.limit.store(bytes, Ordering::Relaxed);
        let freed = evict(&mut self.store(), bytes);
        drop(freed);
    }

    fn kept_bytes(&self) -> usize {
        self.kept.load(Ordering::Relaxed)
    }

    fn clear(&self) {
        let freed = {
            let mut s = self.store();
            s.bytes = 0;
            std::mem::take(&mut s.blocks)
        };
        drop(freed);
    }

    fn give_back<T>(&self, mut v: Vec<T>) {
        let Ok(layout) = Layout::array::<T>(v.capacity()) else {
            return;
        };
        if layout.size() < MIN_BYTES || layout.size() > self.limit() {
            return;
        }
        v.clear();
        let mut v = std::mem::ManuallyDrop::new(v);
        let ptr = NonNull::new(v.as_mut_ptr().cast::<u8>()).expect("a vector's buffer is not null");
        // From here the block owns the allocation (`v` is never dropped).
        let block = Block {
            ptr,
            layout,
            kept: Instant::now(),
        };
        let freed = {
            let mut s = self.store();
            let room = self.limit().saturating_sub(layout.size());
            let mut freed = evict(&mut s, room);
            freed.extend(evict_idle(&mut s));
            s.bytes += layout.size();
            s.blocks.push(block);
            freed
        };
        drop(freed);
    }

    fn take<T>(&self, n: usize) -> Option<Vec<T>> {
        let size = std::mem::size_of::<T>();
        let need = n.saturating_mul(size);
        if size == 0 || need < MIN_BYTES {
            return None;
        }
        let align = std::mem::align_of::<T>();
        let (taken, freed) = {
            let mut s = self.store();
            let freed = evict_idle(&mut s);
            let best = (s.blocks.iter().enumerate())
                .filter(|(_, b)| {
                    let bytes = b.layout.size();
                    b.layout.align() == align
                        && bytes >= need
                        && bytes / 2 <= need
                        && bytes % size == 0
                })
                .min_by_key(|(_, b)| b.layout.size())
                .map(|(k, _)| k);
            let taken = best.map(|k| {
                let b = s.blocks.remove(k);
                s.bytes -= b.layout.size();
                b
            });
            (taken, freed)
        };
        drop(freed);
        let block = std::mem::ManuallyDrop::new(taken?);
        crate::stats::record_bytes_reused(block.layout.size() as u64);
        // SAFETY: the block's memory was allocated by the global allocator with `block.layout`,
        // whose alignment is `align_of::<T>()` and whose size is `cap * size_of::<T>()` for the
        // capacity below (checked above), which is the layout a `Vec<T>` of that capacity
        // frees with; the length is 0, so no element needs to be initialised; the block is not
        // dropped (`ManuallyDrop`), so the vector is the memory's only owner.
        Some(unsafe {
            Vec::from_raw_parts(
                block.ptr.as_ptr().cast::<T>(),
                0,
                block.layout.size() / size,
            )
        })
    }

    fn vec_with_capacity<T>(&self, n: usize) -> Vec<T> {
        self.take(n)
            .unwrap_or_else(|| advised(Vec::with_capacity(n)))
    }
}

/// Removes the blocks kept longer than [`IDLE`] (the oldest are first); returns them.
fn evict_idle(s: &mut Store) -> Vec<Block> {
    let fresh = s
        .blocks
        .iter()
        .position(|b| b.kept.elapsed() <= IDLE)
        .unwrap_or(s.blocks.len());
    let old: Vec<Block> = s.blocks.drain(..fresh).collect();
    s.bytes -= old.iter().map(|b| b.layout.size()).sum::<usize>();
    old
}

/// Removes the oldest blocks until at most `bytes` are kept; returns them (to be freed outside
/// the lock).
fn evict(s: &mut Store, bytes: usize) -> Vec<Block> {
    let mut k = 0;
    let mut kept = s.bytes;
    while kept > bytes && k < s.blocks.len() {
        kept -= s.blocks[k].layout.size();
        k += 1;
    }
    s.bytes = kept;
    s.blocks.drain(..k).collect()
}

/// The most bytes kept at once (0, nothing kept, unless [`set_limit`] changed it).
///
/// ```
/// let _ = flatland_runtime::spare::limit();
/// ```
pub fn limit() -> usize {
    GLOBAL.limit()
}

/// Sets [`limit`]; blocks kept beyond the new limit are freed (oldest first). `0` keeps nothing.
///
/// ```
/// use flatland_runtime::spare;
/// let old = spare::limit();
/// spare::set_limit(0);
/// spare::give_back(Vec::<u8>::with_capacity(1 << 20));
/// assert_eq!(spare::kept_bytes(), 0);
/// spare::set_limit(old);
/// ```
pub fn set_limit(bytes: usize) {
    GLOBAL.set_limit(bytes);
}

/// The bytes of the blocks kept now.
///
/// ```
/// use flatland_runtime::spare;
/// spare::clear();
/// assert_eq!(spare::kept_bytes(), 0);
/// ```
pub fn kept_bytes() -> usize {
    GLOBAL.kept_bytes()
}

/// Frees every kept block.
///
/// ```
/// use flatland_runtime::spare;
/// spare::set_limit(spare::SUGGESTED_LIMIT);
/// spare::give_back(Vec::<u64>::with_capacity(1 << 18));
/// spare::clear();
/// assert_eq!(spare::kept_bytes(), 0);
/// ```
pub fn clear() {
    GLOBAL.clear();
}

/// Keeps the allocation of `v` for reuse when it is large enough and the limit allows (its
/// elements are dropped first); otherwise frees it as dropping `v` would.
///
/// ```
/// use flatland_runtime::spare;
/// spare::give_back(vec![1u8, 2, 3]); // small: freed at once
/// ```
pub fn give_back<T>(v: Vec<T>) {
    GLOBAL.give_back(v);
}

/// An empty vector with room for at least `n` elements: a kept block when one fits (its size
/// at least `n` elements and at most twice that, the alignment of `T`, a whole number of
/// elements), else a new allocation as [`Vec::with_capacity`].
///
/// ```
/// let v: Vec<u32> = flatland_runtime::spare::vec_with_capacity(10);
/// assert!(v.capacity() >= 10 && v.is_empty());
/// ```
#[inline]
pub fn vec_with_capacity<T>(n: usize) -> Vec<T> {
    // Inline up to here: a small vector (most of per-lane code's, once per call of a
    // recursion) costs one comparison more than `Vec::with_capacity`.
    if n.saturating_mul(std::mem::size_of::<T>()) < MIN_BYTES {
        return Vec::with_capacity(n);
    }
    large_vec_with_capacity(n)
}

/// [`vec_with_capacity`] of at least [`MIN_BYTES`]: a kept block, or a fresh one advised.
#[inline(never)]
fn large_vec_with_capacity<T>(n: usize) -> Vec<T> {
    GLOBAL.vec_with_capacity(n)
}

/// A copy of `xs` in a vector from [`vec_with_capacity`] (a kept block, or huge pages for a
/// large fresh one), where `xs.to_vec()` would fault a large copy in 4 KiB at a time.
///
/// ```
/// let v = flatland_runtime::spare::vec_from_slice(&[1, 2, 3]);
/// assert_eq!(v, [1, 2, 3]);
/// ```
#[inline]
pub fn vec_from_slice<T: Clone>(xs: &[T]) -> Vec<T> {
    let mut v = vec_with_capacity(xs.len());
    v.extend_from_slice(xs);
    v
}

/// `n` copies of `T::default()`: in a kept block when one fits (see [`vec_with_capacity`]),
/// else as `vec![T::default(); n]`, which for zero bits asks the allocator for zeroed memory
/// (fresh pages come zeroed, unwritten).
///
/// ```
/// let v: Vec<f64> = flatland_runtime::spare::vec_default(3);
/// assert_eq!(v, [0.0; 3]);
/// ```
pub fn vec_default<T: Clone + Default>(n: usize) -> Vec<T> {
    vec_filled(T::default(), n)
}

/// `n` clones of `value`: in a kept block when one fits (see [`vec_with_capacity`]), else as
/// `vec![value; n]` with [`vec_with_capacity`]'s huge page advice.
///
/// ```
/// let v: Vec<f64> = flatland_runtime::spare::vec_filled(-0.0, 3);
/// assert_eq!(v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), [(-0.0f64).to_bits(); 3]);
/// ```
#[inline]
pub fn vec_filled<T: Clone>(value: T, n: usize) -> Vec<T> {
    if n.saturating_mul(std::mem::size_of::<T>()) < MIN_BYTES {
        return vec![value; n];
    }
    match GLOBAL.take(n) {
        Some(mut v) => {
            v.resize(n, value);
            v
        }
        None => advised(vec![value; n]),
    }
}

/// Fresh blocks of at least this size are backed by huge pages where the kernel allows it
/// (see [`vec_with_capacity`]).
pub const HUGE_BYTES: usize = 4 << 20;

/// The huge page size the advice is aligned to (x86-64 and aarch64 Linux with 4 KiB pages).
const HUGE_PAGE: usize = 2 << 20;

/// `v` (freshly allocated, its pages not yet touched), with the whole huge pages inside its
/// buffer advised to the kernel as transparent huge pages when it holds at least
/// [`HUGE_BYTES`]. A fresh output is otherwise faulted in 4 KiB at a time on its first write:
/// on the benchmark machine (transparent huge pages on `madvise`) a scan of 10^7 f64 into a
/// fresh output spent about three quarters of its time in those faults. The advice changes how
/// the pages are backed, never their contents; a kernel that refuses it (no transparent huge
/// pages) leaves the 4 KiB pages, and [`huge_advice_refused`] says so.
fn advised<T>(v: Vec<T>) -> Vec<T> {
    let bytes = v.capacity().saturating_mul(std::mem::size_of::<T>());
    if bytes >= HUGE_BYTES {
        advise_huge_pages(v.as_ptr() as usize, bytes);
    }
    v
}

/// Whether the kernel refused a huge page advice of [`vec_with_capacity`] (fresh outputs then
/// fault in 4 KiB pages).
///
/// ```
/// let _ = flatland_runtime::spare::huge_advice_refused();
/// ```
pub fn huge_advice_refused() -> bool {
    HUGE_REFUSED.load(Ordering::Relaxed)
}

static HUGE_REFUSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(target_os = "linux")]
fn advise_huge_pages(addr: usize, bytes: usize) {
    use std::ffi::{c_int, c_void};
    const MADV_HUGEPAGE: c_int = 14;
    unsafe extern "C" {
        fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
    }
    let start = addr.next_multiple_of(HUGE_PAGE);
    let end = (addr + bytes) / HUGE_PAGE * HUGE_PAGE;
    if end <= start {
        return;
    }
    // SAFETY: `start..end` lies inside the buffer of `bytes` bytes at `addr`, which the caller's
    // vector owns and no one has written yet; MADV_HUGEPAGE only changes how the kernel backs
    // those pages (their contents stay), and on failure it changes nothing.
    if unsafe { madvise(start as *mut c_void, end - start, MADV_HUGEPAGE) } != 0 {
        HUGE_REFUSED.store(true, Ordering::Relaxed);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_: usize, _: usize) {
    HUGE_REFUSED.store(true, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_block_is_taken_again_by_a_type_of_the_same_alignment() {
        let sp = Spares::new(SUGGESTED_LIMIT);
        let v: Vec<f64> = vec![1.5; 100_000];
        let p = v.as_ptr() as usize;
        sp.give_back(v);
        assert_eq!(sp.kept_bytes(), 800_000);
        let mut w: Vec<i64> = sp.vec_with_capacity(90_000);
        assert_eq!(w.as_ptr() as usize, p);
        assert_eq!(w.capacity(), 100_000);
        assert_eq!(sp.kept_bytes(), 0);
        w.extend(0..100_000);
        assert_eq!(w.iter().sum::<i64>(), 4_999_950_000);
    }

    #[test]
    fn blocks_that_do_not_fit_are_left() {
        let sp = Spares::new(SUGGESTED_LIMIT);
        sp.give_back(Vec::<u64>::with_capacity(100_000));
        // Other alignment, too small, more than twice the need, not a whole number of elements.
        let a: Vec<u8> = sp.vec_with_capacity(800_000);
        let b: Vec<u64> = sp.vec_with_capacity(100_001);
        let c: Vec<u64> = sp.vec_with_capacity(40_000);
        let d: Vec<[u64; 3]> = sp.vec_with_capacity(33_000);
        assert_eq!(sp.kept_bytes(), 800_000);
        for (cap, want) in [(a.capacity(), 800_000), (b.capacity(), 100_001)] {
            assert_eq!(cap, want);
        }
        assert_eq!((c.capacity(), d.capacity()), (40_000, 33_000));
        assert!(sp.take::<u64>(40_000).is_none());
        // Small blocks are never kept.
        sp.give_back(Vec::<u64>::with_capacity(100));
        assert_eq!(sp.kept_bytes(), 800_000);
        sp.clear();
    }

    #[test]
    fn the_limit_drops_the_oldest_blocks() {
        let sp = Spares::new(SUGGESTED_LIMIT);
        sp.set_limit(3 * MIN_BYTES);
        let firsts: Vec<usize> = (0..4)
            .map(|_| {
                let v = Vec::<u8>::with_capacity(MIN_BYTES);
                let p = v.as_ptr() as usize;
                sp.give_back(v);
                p
            })
            .collect();
        assert_eq!(sp.kept_bytes(), 3 * MIN_BYTES);
        // The three youngest come back (held, so that none is taken twice); the oldest was freed.
        let back: Vec<Vec<u8>> = (0..3).map(|_| sp.vec_with_capacity(MIN_BYTES)).collect();
        let mut got: Vec<usize> = back.iter().map(|v| v.as_ptr() as usize).collect();
        got.sort_unstable();
        let mut want = firsts[1..].to_vec();
        want.sort_unstable();
        assert_eq!(got, want);
        assert_eq!(sp.kept_bytes(), 0);

        sp.set_limit(0);
        assert_eq!(sp.kept_bytes(), 0);
    }

    #[test]
    fn threads_give_and_take_concurrently() {
        let sp = Spares::new(SUGGESTED_LIMIT);
        let sp = &sp;
        std::thread::scope(|s| {
            for t in 0..4u64 {
                s.spawn(move || {
                    for i in 0..50 {
                        let mut v: Vec<u64> = sp.vec_with_capacity(40_000 + (i % 3) * 1000);
                        v.extend((0..40_000).map(|k| k * t));
                        assert_eq!(v[39_999], 39_999 * t);
                        sp.give_back(v);
                    }
                });
            }
        });
        assert!(sp.kept_bytes() <= sp.limit());
        sp.clear();
    }
}
