//! The memory budget: allocations whose size comes from input are checked before they are made.
//!
//! Under Linux's overcommit an allocation "succeeds" whatever its size, and the process dies to
//! the out-of-memory killer when the pages are touched, with no message. So the runtime keeps
//! count of the bytes it holds (**live** bytes: the vectors its [`Buffer`](crate::elt::Buffer)s
//! adopted, the [`spare`](crate::spare) blocks it keeps, and every [`Charge`] callers take for
//! memory of their own) and refuses an allocation that would take live plus new above the
//! **limit**, before making it, with [`Error::MemoryBudget`] naming what would have been
//! allocated.
//!
//! The limit defaults to 80% of the smallest of: the cgroup's `memory.max`, the machine's
//! `MemAvailable` (both read once, at first use) and the address-space limit (`ulimit -v`).
//! [`set_limit`] changes it (the command line's `--max-memory`).
//!
//! Every size that comes from input goes through [`check`] or [`charge`]: sizes declared by
//! files (the command line's readers), and the sizes the runtime's primitives compute from
//! descriptors (the outputs of `iota_s`, `replicate_s`, `concat`, `replicate` of a nested
//! array, ...). Outputs whose size is that of an input already in memory are not checked one by
//! one; they are counted once adopted.
//!
//! ```
//! use flatland_runtime::{Error, budget};
//! assert!(budget::check("a small table", 1 << 10).is_ok());
//! let e = budget::check("a table", usize::MAX).unwrap_err();
//! assert!(matches!(e, Error::MemoryBudget { what: "a table", .. }));
//! // Memory a caller holds itself counts once charged, until the charge is dropped:
//! let live = budget::live_bytes();
//! let c = budget::charge("my index", 1 << 20).unwrap();
//! assert!(budget::live_bytes() >= live + (1 << 20));
//! drop(c);
//! ```

use crate::{Error, Result};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Bytes charged and not yet released (adopted buffers and callers' charges; the kept spare
/// blocks are added by [`live_bytes`]).
static CHARGED: AtomicUsize = AtomicUsize::new(0);

/// The limit set with [`set_limit`]; `usize::MAX` means "not set" (the default applies).
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);

/// The default limit, computed once.
static DEFAULT: OnceLock<usize> = OnceLock::new();

/// The budget in bytes: what [`set_limit`] set, or [`default_limit`].
///
/// ```
/// assert!(flatland_runtime::budget::limit() > 0);
/// ```
pub fn limit() -> usize {
    match LIMIT.load(Ordering::Relaxed) {
        usize::MAX => default_limit(),
        set => set,
    }
}

/// Sets the budget to `bytes` (`None`: back to [`default_limit`]). Allocations already made are
/// kept; later ones are checked against the new limit.
///
/// ```
/// use flatland_runtime::budget;
/// budget::set_limit(Some(1 << 40));
/// assert_eq!(budget::limit(), 1 << 40);
/// budget::set_limit(None);
/// assert_eq!(budget::limit(), budget::default_limit());
/// ```
pub fn set_limit(bytes: Option<usize>) {
    LIMIT.store(bytes.unwrap_or(usize::MAX), Ordering::Relaxed);
}

/// 80% of the smallest of the cgroup's `memory.max`, the machine's `MemAvailable` and the
/// address-space limit, read once; `usize::MAX` where none can be read (not Linux).
///
/// ```
/// let d = flatland_runtime::budget::default_limit();
/// assert!(d > 0);
/// ```
pub fn default_limit() -> usize {
    *DEFAULT.get_or_init(|| {
        let smallest = [cgroup_max(), mem_available(), address_space_limit()]
            .into_iter()
            .flatten()
            .min();
        smallest.map_or(usize::MAX, |b| {
            usize::try_from(u128::from(b) * 4 / 5).unwrap_or(usize::MAX)
        })
    })
}

/// The bytes the runtime holds now: adopted buffers, kept spare blocks and callers' charges.
///
/// ```
/// let _ = flatland_runtime::budget::live_bytes();
/// ```
pub fn live_bytes() -> usize {
    CHARGED
        .load(Ordering::Relaxed)
        .saturating_add(crate::spare::kept_bytes())
}

/// Checks that `bytes` more would fit in the budget, without reserving them (for an allocation
/// that is counted once adopted).
///
/// Kept spare blocks are freed first when that makes room.
///
/// # Errors
/// [`Error::MemoryBudget`] when live bytes plus `bytes` exceed [`limit`].
///
/// ```
/// assert!(flatland_runtime::budget::check("ok", 16).is_ok());
/// ```
pub fn check(what: &'static str, bytes: usize) -> Result<()> {
    let limit = limit();
    let mut live = live_bytes();
    if bytes > limit.saturating_sub(live) && crate::spare::kept_bytes() > 0 {
        // Kept spare blocks are the first to go.
        crate::spare::clear();
        live = live_bytes();
    }
    if bytes > limit.saturating_sub(live) {
        return Err(Error::MemoryBudget {
            what,
            bytes,
            live,
            limit,
        });
    }
    Ok(())
}

/// [`check`] for `n` elements of `T` (the size computed without overflow).
///
/// # Errors
/// [`Error::MemoryBudget`] when they do not fit (also when `n * size_of::<T>()` overflows).
///
/// ```
/// use flatland_runtime::budget;
/// assert!(budget::check_elements::<f64>("ok", 1024).is_ok());
/// assert!(budget::check_elements::<f64>("too many", usize::MAX / 2).is_err());
/// ```
pub fn check_elements<T>(what: &'static str, n: usize) -> Result<()> {
    check(what, n.saturating_mul(size_of::<T>()))
}

/// Checks `bytes` as [`check`] does and reserves them until the returned [`Charge`] is dropped:
/// for memory the caller allocates and holds itself.
///
/// # Errors
/// [`Error::MemoryBudget`] when they do not fit.
///
/// ```
/// let c = flatland_runtime::budget::charge("rows", 4096).unwrap();
/// assert_eq!(c.bytes(), 4096);
/// ```
pub fn charge(what: &'static str, bytes: usize) -> Result<Charge> {
    check(what, bytes)?;
    Ok(Charge::new(bytes))
}

/// Bytes counted as live until this value is dropped ([`charge`]).
#[derive(Debug)]
pub struct Charge {
    bytes: usize,
}

impl Charge {
    /// Counts `bytes` that are already allocated (no check: the memory exists).
    pub(crate) fn new(bytes: usize) -> Charge {
        CHARGED.fetch_add(bytes, Ordering::Relaxed);
        Charge { bytes }
    }

    /// The bytes counted.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::budget::charge("x", 8).unwrap().bytes(), 8);
    /// ```
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        CHARGED.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

/// The cgroup (v2, else v1) memory limit of this process, if one is set.
fn cgroup_max() -> Option<u64> {
    let v2 = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|c| {
            let path = c.lines().find_map(|l| l.strip_prefix("0::"))?.trim();
            let max = std::fs::read_to_string(format!("/sys/fs/cgroup{path}/memory.max")).ok()?;
            max.trim().parse::<u64>().ok()
        });
    v2.or_else(|| {
        let v1 = std::fs::read_to_string("/sys/fs/cgroup/memory/memory.limit_in_bytes").ok()?;
        // "No limit" reads as a number near 2^63.
        v1.trim().parse::<u64>().ok().filter(|&b| b < 1 << 60)
    })
}

/// `MemAvailable` of `/proc/meminfo`, in bytes.
fn mem_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib = info
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse::<u64>()
        .ok()?;
    kib.checked_mul(1024)
}

/// The soft address-space limit (`ulimit -v`) of this process, if one is set.
fn address_space_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let soft = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?
        .split_whitespace()
        .nth(3)?;
    soft.parse::<u64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_count_until_dropped() {
        let c = charge("t", 1 << 30).expect("fits");
        assert!(CHARGED.load(Ordering::Relaxed) >= 1 << 30);
        drop(c);
    }

    #[test]
    fn the_error_says_what_and_how_much() {
        let e = check("a declared matrix", usize::MAX).unwrap_err();
        let s = e.to_string();
        assert!(s.starts_with("a declared matrix: "), "{s}");
        assert!(s.contains("memory budget"), "{s}");
    }

    #[test]
    fn limits_are_read_where_linux_has_them() {
        if cfg!(target_os = "linux") {
            assert!(mem_available().is_some());
            assert!(default_limit() < usize::MAX);
        }
    }
}
