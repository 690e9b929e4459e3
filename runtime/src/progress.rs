//! Progress of long work: loops that run many bulk steps report the steps done against the
//! steps predicted, and a program installs one hook to show them (the `flatland` command draws
//! a progress bar on a terminal). Without a hook a report costs one atomic load.
//!
//! ```
//! use flatland_runtime::progress;
//! use std::sync::{Arc, Mutex};
//! let seen = Arc::new(Mutex::new(Vec::new()));
//! let log = Arc::clone(&seen);
//! progress::set_hook(Some(Box::new(move |p: progress::Progress| {
//!     log.lock().unwrap().push((p.done, p.total));
//! })));
//! for done in 1..=3 {
//!     progress::report("windows", done, 3);
//! }
//! progress::set_hook(None);
//! progress::report("windows", 4, 4); // no hook: nothing happens
//! assert_eq!(*seen.lock().unwrap(), vec![(1, 3), (2, 3), (3, 3)]);
//! ```

use std::sync::RwLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// One report: `done` of `total` steps of `what`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// What the steps are (for example "sieve windows").
    pub what: &'static str,
    /// Steps done.
    pub done: u64,
    /// Steps predicted in all.
    pub total: u64,
}

/// The function that receives reports.
pub type Hook = Box<dyn Fn(Progress) + Send + Sync>;

static HOOK: RwLock<Option<Hook>> = RwLock::new(None);
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Installs `hook` (or removes the one installed, with `None`); reports from any thread go to it.
pub fn set_hook(hook: Option<Hook>) {
    let mut h = HOOK
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    INSTALLED.store(hook.is_some(), Ordering::Release);
    *h = hook;
}

/// Reports `done` of `total` steps of `what` to the installed hook, if any.
pub fn report(what: &'static str, done: u64, total: u64) {
    if !INSTALLED.load(Ordering::Acquire) {
        return;
    }
    let h = HOOK
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(hook) = h.as_ref() {
        hook(Progress { what, done, total });
    }
}
