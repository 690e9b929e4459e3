//! Machine parameters: where they come from (defaults, the cache file, a calibration) and which
//! profile the calling thread uses.

use super::{ElemCost, calibrate};
use std::cell::Cell;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Where a [`Machine`] profile came from.
///
/// ```
/// use flatland_runtime::cost::{Machine, Origin};
/// assert_eq!(Machine::defaults().origin, Origin::Defaults);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Built-in safe defaults.
    Defaults,
    /// Read from the cache file.
    Cache,
    /// Measured by [`Machine::calibrate`] in this process.
    Calibrated,
    /// Given by the caller ([`Machine::new`] or a file read with [`Machine::load`]).
    Custom,
}

/// The machine parameters the cost model predicts with.
///
/// Profiles are plain values: build one with [`Machine::new`], take [`Machine::defaults`], read
/// one with [`Machine::load`] or [`Machine::cached`], or measure one with [`Machine::calibrate`].
/// Bulk operations use [`current`]: the profile installed on the calling thread by
/// [`with_machine`], else the process-wide [`Machine::global`].
///
/// ```
/// use flatland_runtime::cost::Machine;
/// let m = Machine::new(0.5, 1.0, 5_000.0, 4);
/// assert_eq!(m.cores, 4);
/// let text = m.to_text();
/// assert_eq!(Machine::parse(&text).unwrap().task_ns, 5_000.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Machine {
    /// Nanoseconds per simple operation (an add) on an element in cache.
    pub op_ns: f64,
    /// Extra nanoseconds per element moved to or from main memory.
    pub transfer_ns: f64,
    /// Nanoseconds before another worker of the pool starts a task a worker spawned (the
    /// hand-off: the spawn, the steal, the thief still awake) and joins it: charged once per
    /// worker while the pool is warm ([`crate::sched::WARM_NS`]).
    pub task_ns: f64,
    /// Nanoseconds before another worker starts a task when the pool has been idle longer than
    /// [`crate::sched::WARM_NS`]: its workers have stopped looking for work and sleep, and
    /// waking one (on a virtual machine, a halted virtual CPU) takes far longer than handing a
    /// task to one that is still spinning. Charged instead of `task_ns` (when larger), and
    /// added to `inject_ns`. 0 in a profile that does not tell the two apart.
    pub wake_ns: f64,
    /// Nanoseconds more before a bulk operation called from a thread outside the pool starts at
    /// all: rayon injects the job into the pool, a worker wakes and takes it, and the caller
    /// sleeps until it is done (a split called on a worker, inside `ThreadPool::install` or
    /// under another split, pays none of this). 0 in a profile that does not tell the two apart.
    pub inject_ns: f64,
    /// Bytes of one core's own cache (L2 on most machines) that hold an operation's data
    /// between steps: an operation whose element traffic fits costs [`Machine::op_ns`] per
    /// operation only, and only the share beyond it pays [`Machine::transfer_ns`]
    /// ([`Machine::elem_ns_over`]). 0 in a profile that models no cache (every transfer pays).
    pub cache_bytes: usize,
    /// Hardware threads available for parallel work.
    pub cores: usize,
    /// Where the profile came from.
    pub origin: Origin,
}

/// Bounds a profile must satisfy to be used (anything else falls back to the defaults).
const OP_NS: (f64, f64) = (1e-3, 1e3);
const TRANSFER_NS: (f64, f64) = (0.0, 1e4);
const TASK_NS: (f64, f64) = (0.0, 1e9);
const MAX_CORES: usize = 1 << 16;
const MAX_CACHE_BYTES: usize = 1 << 40;

/// `x` within `(lo, hi)`, NaN taken as `lo`.
fn clamp(x: f64, (lo, hi): (f64, f64)) -> f64 {
    if x.is_nan() { lo } else { x.clamp(lo, hi) }
}

/// The first line of a profile file.
const HEADER: &str = "# flatland machine profile v1";

impl Machine {
    /// A custom profile (origin [`Origin::Custom`]). Values outside sane bounds are clamped
    /// (`op_ns` to 0.001..=1000, `transfer_ns` to 0..=10^4, `task_ns` to 0..=10^9, `cores` to at
    /// least 1).
    ///
    /// ```
    /// let m = flatland_runtime::cost::Machine::new(0.3, 0.0, 0.0, 0);
    /// assert_eq!(m.cores, 1);
    /// ```
    pub fn new(op_ns: f64, transfer_ns: f64, task_ns: f64, cores: usize) -> Machine {
        Machine {
            op_ns: clamp(op_ns, OP_NS),
            transfer_ns: clamp(transfer_ns, TRANSFER_NS),
            task_ns: clamp(task_ns, TASK_NS),
            wake_ns: 0.0,
            inject_ns: 0.0,
            cache_bytes: 0,
            cores: cores.clamp(1, MAX_CORES),
            origin: Origin::Custom,
        }
    }

    /// This profile with [`Machine::inject_ns`] set (clamped as `task_ns` is).
    ///
    /// ```
    /// let m = flatland_runtime::cost::Machine::new(0.5, 1.0, 2_000.0, 2).with_inject_ns(20_000.0);
    /// assert_eq!((m.task_ns, m.inject_ns), (2_000.0, 20_000.0));
    /// ```
    pub fn with_inject_ns(self, inject_ns: f64) -> Machine {
        Machine {
            inject_ns: clamp(inject_ns, TASK_NS),
            ..self
        }
    }

    /// This profile with [`Machine::wake_ns`] set (clamped as `task_ns` is).
    ///
    /// ```
    /// let m = flatland_runtime::cost::Machine::new(0.5, 1.0, 2_000.0, 2).with_wake_ns(50_000.0);
    /// assert_eq!((m.task_ns, m.wake_ns), (2_000.0, 50_000.0));
    /// ```
    pub fn with_wake_ns(self, wake_ns: f64) -> Machine {
        Machine {
            wake_ns: clamp(wake_ns, TASK_NS),
            ..self
        }
    }

    /// This profile with [`Machine::cache_bytes`] set (at most 2^40).
    ///
    /// ```
    /// let m = flatland_runtime::cost::Machine::new(0.5, 1.0, 2_000.0, 2).with_cache_bytes(1 << 20);
    /// assert_eq!(m.cache_bytes, 1 << 20);
    /// ```
    pub fn with_cache_bytes(self, cache_bytes: usize) -> Machine {
        Machine {
            cache_bytes: cache_bytes.min(MAX_CACHE_BYTES),
            ..self
        }
    }

    /// Safe defaults: 0.5 ns per op, 1 ns per transfer beyond a 1 MiB cache, 6 µs per hand-off
    /// inside a warm pool, 30 µs to wake a sleeping one and 20 µs more for an operation called
    /// from outside it (pessimistic, so that small inputs stay sequential: measured on a 2-core
    /// VM, 1.3-1.9 µs, 17-60 µs and 14-25 µs), and the cores the OS reports.
    ///
    /// ```
    /// let m = flatland_runtime::cost::Machine::defaults();
    /// assert!(m.cores >= 1 && m.task_ns > 0.0);
    /// ```
    pub fn defaults() -> Machine {
        Machine {
            cores: std::thread::available_parallelism().map_or(1, usize::from),
            ..Machine::REFERENCE
        }
    }

    /// The defaults' costs on one core, the same on every machine: decisions that must not
    /// depend on where a program is built or run (the if-conversion of `select_pays`, which
    /// decides which expression programs a build compiles) are taken on this profile.
    ///
    /// ```
    /// use flatland_runtime::cost::Machine;
    /// assert_eq!(Machine::REFERENCE.op_ns, Machine::defaults().op_ns);
    /// assert_eq!(Machine::REFERENCE.cores, 1);
    /// ```
    pub const REFERENCE: Machine = Machine {
        op_ns: 0.5,
        transfer_ns: 1.0,
        task_ns: 6_000.0,
        wake_ns: 30_000.0,
        inject_ns: 20_000.0,
        cache_bytes: 1 << 20,
        cores: 1,
        origin: Origin::Defaults,
    };

    /// Measures this machine now (under a second; it uses rayon's global pool) and returns the
    /// profile. Does not touch the cache; see [`Machine::calibrated`].
    ///
    /// ```no_run
    /// let m = flatland_runtime::cost::Machine::calibrate();
    /// println!("{}", m.to_text());
    /// ```
    pub fn calibrate() -> Machine {
        let c = calibrate::measure();
        let mut m = Machine::new(c.op_ns, c.transfer_ns, c.task_ns, c.cores)
            .with_inject_ns(c.inject_ns)
            .with_wake_ns(c.wake_ns)
            .with_cache_bytes(c.cache_bytes);
        m.origin = Origin::Calibrated;
        m
    }

    /// The cached profile if there is a valid one, else a fresh calibration, which is then saved to
    /// the cache (errors writing the cache are ignored: the profile is still returned).
    ///
    /// ```no_run
    /// let m = flatland_runtime::cost::Machine::calibrated();
    /// assert!(m.op_ns > 0.0);
    /// ```
    pub fn calibrated() -> Machine {
        if let Some(m) = Machine::cached() {
            return m;
        }
        let m = Machine::calibrate();
        if let Some(path) = cache_path() {
            let _ = m.save(&path);
        }
        m
    }

    /// The profile in the cache file ([`cache_path`]), if it exists and is valid.
    ///
    /// ```
    /// if let Some(m) = flatland_runtime::cost::Machine::cached() {
    ///     assert!(m.cores >= 1);
    /// }
    /// ```
    pub fn cached() -> Option<Machine> {
        let mut m = Machine::load(&cache_path()?).ok()?;
        m.origin = Origin::Cache;
        Some(m)
    }

    /// The process-wide profile, decided once on first use:
    /// - if the environment variable `FLATLAND_CALIBRATE` is `1`, [`Machine::calibrated`] (the
    ///   cache, else a calibration that is then cached);
    /// - otherwise the cache file if it holds a valid profile, else [`Machine::defaults`].
    ///
    /// So nothing is ever measured unless asked for; tests run with the cache or the defaults.
    ///
    /// ```
    /// let m = flatland_runtime::cost::Machine::global();
    /// assert!(m.cores >= 1);
    /// ```
    pub fn global() -> Machine {
        static GLOBAL: OnceLock<Machine> = OnceLock::new();
        *GLOBAL.get_or_init(|| {
            if std::env::var_os("FLATLAND_CALIBRATE").is_some_and(|v| v == "1") {
                Machine::calibrated()
            } else {
                Machine::cached().unwrap_or_else(Machine::defaults)
            }
        })
    }

    /// Reads a profile file written by [`Machine::save`] (origin [`Origin::Custom`]).
    ///
    /// # Errors
    /// The file cannot be read, or does not hold a valid profile (`InvalidData`).
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("flatland-doc-load-{}.txt", std::process::id()));
    /// let m = flatland_runtime::cost::Machine::new(1.0, 2.0, 3.0, 4);
    /// m.save(&path).unwrap();
    /// assert_eq!(flatland_runtime::cost::Machine::load(&path).unwrap(), m);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn load(path: &Path) -> std::io::Result<Machine> {
        let text = std::fs::read_to_string(path)?;
        Machine::parse(&text).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{}: not a valid flatland machine profile", path.display()),
            )
        })
    }

    /// Writes the profile as plain text, creating the parent directory.
    ///
    /// # Errors
    /// The directory or file cannot be written.
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("flatland-doc-save-{}.txt", std::process::id()));
    /// flatland_runtime::cost::Machine::defaults().save(&path).unwrap();
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, self.to_text())
    }

    /// The profile as `key = value` lines under a header line.
    ///
    /// ```
    /// let t = flatland_runtime::cost::Machine::new(0.5, 1.0, 100.0, 2).to_text();
    /// assert!(t.contains("cores = 2"));
    /// ```
    pub fn to_text(&self) -> String {
        format!(
            "{HEADER}\nop_ns = {}\ntransfer_ns = {}\ntask_ns = {}\nwake_ns = {}\ninject_ns = {}\n\
             cache_bytes = {}\ncores = {}\n",
            self.op_ns,
            self.transfer_ns,
            self.task_ns,
            self.wake_ns,
            self.inject_ns,
            self.cache_bytes,
            self.cores
        )
    }

    /// Parses [`Machine::to_text`]'s format: the header line, then `op_ns`, `transfer_ns`,
    /// `task_ns` and `cores`, each exactly once and within bounds, and `wake_ns`, `inject_ns`
    /// and `cache_bytes` at most once (0 when absent: profiles written before they were
    /// measured). `None` for anything else.
    ///
    /// ```
    /// use flatland_runtime::cost::Machine;
    /// assert!(Machine::parse("garbage").is_none());
    /// let t = "# flatland machine profile v1\nop_ns = 0.4\ntransfer_ns = 0.9\ntask_ns = 8000\ncores = 2\n";
    /// assert_eq!(Machine::parse(t).unwrap().op_ns, 0.4);
    /// ```
    pub fn parse(text: &str) -> Option<Machine> {
        let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
        if lines.next()? != HEADER {
            return None;
        }
        let (mut op, mut transfer, mut task, mut wake, mut inject) = (None, None, None, None, None);
        let (mut cache, mut cores) = (None, None);
        for line in lines {
            let (key, value) = line.split_once('=')?;
            let value = value.trim();
            let slot = match key.trim() {
                "op_ns" => &mut op,
                "transfer_ns" => &mut transfer,
                "task_ns" => &mut task,
                "wake_ns" => &mut wake,
                "inject_ns" => &mut inject,
                count @ ("cores" | "cache_bytes") => {
                    let slot = if count == "cores" {
                        &mut cores
                    } else {
                        &mut cache
                    };
                    if slot.replace(value.parse::<usize>().ok()?).is_some() {
                        return None;
                    }
                    continue;
                }
                _ => return None,
            };
            if slot.replace(value.parse::<f64>().ok()?).is_some() {
                return None;
            }
        }
        let within = |x: f64, (lo, hi): (f64, f64)| x.is_finite() && (lo..=hi).contains(&x);
        let (op, transfer, task, cores) = (op?, transfer?, task?, cores?);
        let (wake, inject, cache) = (
            wake.unwrap_or(0.0),
            inject.unwrap_or(0.0),
            cache.unwrap_or(0),
        );
        (within(op, OP_NS)
            && within(transfer, TRANSFER_NS)
            && within(task, TASK_NS)
            && within(wake, TASK_NS)
            && within(inject, TASK_NS)
            && cache <= MAX_CACHE_BYTES
            && (1..=MAX_CORES).contains(&cores))
        .then(|| {
            Machine::new(op, transfer, task, cores)
                .with_wake_ns(wake)
                .with_inject_ns(inject)
                .with_cache_bytes(cache)
        })
    }

    /// Predicted nanoseconds per element of an operation with per-element work `e`.
    ///
    /// ```
    /// use flatland_runtime::cost::{ElemCost, Machine};
    /// let m = Machine::new(0.5, 1.0, 0.0, 1);
    /// assert_eq!(m.elem_ns(ElemCost::new(2.0, 3.0)), 4.0);
    /// ```
    pub fn elem_ns(&self, e: ElemCost) -> f64 {
        e.ops * self.op_ns + e.transfers * self.transfer_ns
    }

    /// Predicted nanoseconds per element of an operation with per-element work `e` whose data
    /// (what it reads and writes) is `bytes` long, in cache as far as it fits: only the share of
    /// its transfers beyond [`Machine::cache_bytes`] pays [`Machine::transfer_ns`] (an
    /// operation's input was most often written just before, by the step that produced it).
    /// Passes that read the data again (a split scan's first pass) move no more bytes beyond the
    /// cache than the first: the share is the data's, whatever the transfers. Without a cache in
    /// the profile, [`Machine::elem_ns`].
    ///
    /// ```
    /// use flatland_runtime::cost::{ElemCost, Machine};
    /// let m = Machine::new(0.5, 1.0, 0.0, 1).with_cache_bytes(8 << 10);
    /// let sum = ElemCost::new(1.0, 1.0);
    /// assert_eq!(m.elem_ns_over(sum, 8192.0), 0.5); // all in cache
    /// assert_eq!(m.elem_ns_over(sum, 16384.0), 0.5 + 0.5 * 1.0); // half of it beyond
    /// assert_eq!(Machine::new(0.5, 1.0, 0.0, 1).elem_ns_over(sum, 8192.0), m.elem_ns(sum));
    /// ```
    pub fn elem_ns_over(&self, e: ElemCost, bytes: f64) -> f64 {
        let beyond = if bytes > 0.0 {
            (1.0 - self.cache_bytes as f64 / bytes).max(0.0)
        } else {
            0.0
        };
        e.ops * self.op_ns + e.transfers * self.transfer_ns * beyond
    }
}

impl fmt::Display for Machine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} machine: {:.3} ns/op, {:.3} ns/transfer beyond {} KiB of cache, {:.1} µs/task \
             ({:.1} µs waking a sleeping worker), {:.1} µs/injection, {} cores",
            self.origin,
            self.op_ns,
            self.transfer_ns,
            self.cache_bytes >> 10,
            self.task_ns / 1e3,
            self.wake_ns.max(self.task_ns) / 1e3,
            self.inject_ns / 1e3,
            self.cores
        )
    }
}

/// The cache file for the calibrated profile: `$XDG_CACHE_HOME/flatland/machine.txt` when
/// `XDG_CACHE_HOME` is an absolute path, else `$HOME/.cache/flatland/machine.txt`; `None` when
/// neither is set.
///
/// ```
/// if let Some(p) = flatland_runtime::cost::cache_path() {
///     assert!(p.ends_with("flatland/machine.txt"));
/// }
/// ```
pub fn cache_path() -> Option<PathBuf> {
    cache_path_from(std::env::var_os("XDG_CACHE_HOME"), std::env::var_os("HOME"))
}

fn cache_path_from(
    xdg: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
) -> Option<PathBuf> {
    let base = match xdg.map(PathBuf::from) {
        Some(x) if x.is_absolute() => x,
        _ => PathBuf::from(home.filter(|h| !h.is_empty())?).join(".cache"),
    };
    Some(base.join("flatland").join("machine.txt"))
}

thread_local! {
    static OVERRIDE: Cell<Option<Machine>> = const { Cell::new(None) };
}

/// The profile bulk operations called on this thread plan with: the one installed by
/// [`with_machine`], else [`Machine::global`].
///
/// ```
/// use flatland_runtime::cost::{Machine, current, with_machine};
/// let m = Machine::new(1.0, 1.0, 1.0, 3);
/// assert_eq!(with_machine(m, current).cores, 3);
/// ```
pub fn current() -> Machine {
    #[cfg(debug_assertions)]
    PROFILE_READS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    OVERRIDE.with(Cell::get).unwrap_or_else(Machine::global)
}

/// Whether a profile is installed on this thread by [`with_machine`] (else bulk operations
/// plan on [`Machine::global`], and learn their costs, `crate::sched::learned`).
pub(crate) fn installed() -> bool {
    OVERRIDE.with(|o| o.get().is_some())
}

#[cfg(debug_assertions)]
static PROFILE_READS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many times this process has asked for the machine profile ([`current`]), counted in
/// debug builds only (`None` in a release build): tests use it to show that a step reads no
/// profile, such as the expansion of `#[vectorise]`, whose output must depend on the source
/// alone.
///
/// ```
/// use flatland_runtime::cost::{current, profile_reads};
/// let before = profile_reads();
/// let _ = current();
/// if let (Some(a), Some(b)) = (before, profile_reads()) {
///     assert!(b > a);
/// }
/// ```
#[must_use]
pub fn profile_reads() -> Option<u64> {
    #[cfg(debug_assertions)]
    return Some(PROFILE_READS.load(std::sync::atomic::Ordering::Relaxed));
    #[cfg(not(debug_assertions))]
    None
}

/// Runs `f` with `machine` as the calling thread's profile (restored afterwards, also on panic).
///
/// Schedules are decided on the calling thread before work fans out, and tasks run by
/// [`crate::sched::run_parts`] carry the profile along, so every bulk operation `f` runs, also
/// from inside user closures running on pool threads, plans with `machine`.
///
/// ```
/// use flatland_runtime::cost::{Machine, with_machine};
/// use flatland_runtime::flat;
/// let xs: Vec<f64> = (0..100_000).map(f64::from).collect();
/// let eager = Machine::new(0.5, 1.0, 0.0, 64);
/// let a = with_machine(eager, || flat::reduce(&xs, 0.0, |a, b| a + b));
/// let b = with_machine(Machine::defaults(), || flat::reduce(&xs, 0.0, |a, b| a + b));
/// assert_eq!(a.to_bits(), b.to_bits());
/// ```
pub fn with_machine<R>(machine: Machine, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Machine>);
    impl Drop for Restore {
        fn drop(&mut self) {
            OVERRIDE.with(|o| o.set(self.0));
        }
    }
    let _restore = Restore(OVERRIDE.with(|o| o.replace(Some(machine))));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips() {
        let m = Machine::new(0.37, 1.25, 12_345.5, 6);
        assert_eq!(Machine::parse(&m.to_text()), Some(m));
        let injected = m.with_inject_ns(20_000.5);
        assert_eq!(Machine::parse(&injected.to_text()), Some(injected));
        let full = injected.with_wake_ns(70_000.25).with_cache_bytes(3 << 20);
        assert_eq!(Machine::parse(&full.to_text()), Some(full));
        assert_eq!(
            Machine::parse(&Machine::defaults().to_text()).map(|m| m.to_text()),
            Some(Machine::defaults().to_text())
        );
    }

    #[test]
    fn profiles_without_injection_read_as_zero() {
        let old = "# flatland machine profile v1\nop_ns = 0.4\ntransfer_ns = 0.9\ntask_ns = 8000\ncores = 2\n";
        assert_eq!(Machine::parse(old).unwrap().inject_ns, 0.0);
        let twice = format!("{old}inject_ns = 1\ninject_ns = 2\n");
        assert_eq!(Machine::parse(&twice), None);
        let huge = format!("{old}inject_ns = 1e12\n");
        assert_eq!(Machine::parse(&huge), None);
        let old = Machine::parse(old).unwrap();
        assert_eq!((old.wake_ns, old.cache_bytes), (0.0, 0));
        for bad in [
            "wake_ns = -1",
            "wake_ns = 1e12",
            "cache_bytes = -1",
            "cache_bytes = 1.5",
        ] {
            assert_eq!(
                Machine::parse(&format!(
                    "{}{bad}\n",
                    Machine::new(0.4, 0.9, 8000.0, 2)
                        .to_text()
                        .replace("wake_ns = 0\n", "")
                        .replace("cache_bytes = 0\n", "")
                )),
                None,
                "{bad}"
            );
        }
    }

    #[test]
    fn bad_profiles_are_rejected() {
        let good = Machine::new(0.5, 1.0, 100.0, 2).to_text();
        assert!(Machine::parse(&good).is_some());
        for bad in [
            String::new(),
            good.replace(HEADER, "# something else"),
            good.replace("cores = 2", "cores = 0"),
            good.replace("cores = 2", "cores = two"),
            good.replace("op_ns = 0.5", "op_ns = NaN"),
            good.replace("op_ns = 0.5", "op_ns = -1"),
            good.replace("task_ns = 100", "task_ns = 1e12"),
            good.replace("transfer_ns = 1\n", ""),
            format!("{good}cores = 3\n"),
            format!("{good}colour = blue\n"),
            format!("{good}no equals sign\n"),
        ] {
            assert_eq!(Machine::parse(&bad), None, "{bad:?}");
        }
    }

    #[test]
    fn unreadable_file_is_an_error() {
        let dir = std::env::temp_dir().join(format!("flatland-cost-test-{}", std::process::id()));
        let path = dir.join("machine.txt");
        assert!(Machine::load(&path).is_err());
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&path, "# flatland machine profile v1\nop_ns = x\n").unwrap();
        assert!(Machine::load(&path).is_err());
        let m = Machine::new(2.0, 3.0, 4.0, 5);
        m.save(&path).unwrap();
        assert_eq!(Machine::load(&path).unwrap(), m);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn cache_path_prefers_absolute_xdg() {
        let p = cache_path_from(Some("/x/cache".into()), Some("/home/u".into()));
        assert_eq!(p, Some(PathBuf::from("/x/cache/flatland/machine.txt")));
        let p = cache_path_from(Some("relative".into()), Some("/home/u".into()));
        assert_eq!(
            p,
            Some(PathBuf::from("/home/u/.cache/flatland/machine.txt"))
        );
        assert_eq!(cache_path_from(None, None), None);
        assert_eq!(
            cache_path_from(Some(String::new().into()), Some(String::new().into())),
            None
        );
    }

    #[test]
    fn override_is_restored_after_panic() {
        let m = Machine::new(1.0, 1.0, 1.0, 7);
        let before = current();
        let r = std::panic::catch_unwind(|| with_machine(m, || panic!("inside")));
        assert!(r.is_err());
        assert_eq!(current(), before);
        assert_eq!(
            with_machine(m, || with_machine(Machine::defaults(), current).origin),
            Origin::Defaults
        );
        assert_eq!(with_machine(m, current), m);
    }

    /// Calibration only runs when asked: `cargo test -p flatland-runtime -- --ignored calibration`.
    #[test]
    #[ignore = "measures the machine (under a second); run explicitly"]
    fn calibration_gives_a_usable_profile() {
        let t = std::time::Instant::now();
        let m = Machine::calibrate();
        let took = t.elapsed();
        println!("{m} (calibrated in {took:?})");
        assert_eq!(m.origin, Origin::Calibrated);
        assert!(m.op_ns > 0.0 && m.cores >= 1);
        assert_eq!(
            Machine::parse(&m.to_text()).map(|p| p.to_text()),
            Some(m.to_text())
        );
    }

    #[test]
    fn new_clamps() {
        let m = Machine::new(f64::NAN, -5.0, f64::INFINITY, 0);
        assert_eq!(
            (m.op_ns, m.transfer_ns, m.task_ns, m.cores),
            (OP_NS.0, 0.0, TASK_NS.1, 1)
        );
        assert!(Machine::parse(&m.to_text()).is_some());
    }
}
