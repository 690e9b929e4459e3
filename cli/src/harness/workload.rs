//! What a workload is: generated inputs at several sizes, a flatland implementation, baselines.

use super::answer::Answer;
use crate::io::Csr;
use std::sync::Arc;

/// How big the inputs are.
///
/// ```
/// use flatland_cli::harness::workload::Scale;
/// assert_ne!(Scale::Check, Scale::Quick);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Tiny inputs, one run each: the correctness check (`flatland bench --check`).
    Check,
    /// The `--quick` suite (under two minutes on two cores).
    Quick,
    /// The full suite.
    Full,
}

/// Inputs from outside that some workloads use (`flatland bench --matrix FILE.mtx`).
///
/// ```
/// use flatland_cli::harness::workload::Extra;
/// assert!(Extra::default().matrix.is_none());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Extra {
    /// A user's matrix and its file name.
    pub matrix: Option<(String, Arc<Csr>)>,
}

/// One input of a workload: a family of generated inputs (or a file) and a size.
///
/// ```
/// use flatland_cli::harness::workload::Case;
/// let c = Case::new("power-law", 1_000_000);
/// assert_eq!(c.size_label(), "10^6");
/// assert_eq!(Case::new("x", 1 << 20).size_label(), "2^20");
/// assert_eq!(Case::new("x", 12_345).size_label(), "12345");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The input family, e.g. `power-law` or a file name.
    pub input: String,
    /// The size parameter (elements, rows, points, n).
    pub size: usize,
    /// At most this many timed repetitions (fewer than the run's for a slow case); `Some(0)`
    /// times the warm-up run itself. `None`: the run's count.
    pub reps: Option<usize>,
}

impl Case {
    /// A case of `input` at `size`.
    ///
    /// ```
    /// # use flatland_cli::harness::workload::Case;
    /// assert_eq!(Case::new("disc", 10).size, 10);
    /// ```
    pub fn new(input: &str, size: usize) -> Self {
        Self {
            input: input.to_owned(),
            size,
            reps: None,
        }
    }

    /// The same case with at most `reps` timed repetitions (0: the warm-up run is the one timed).
    ///
    /// ```
    /// # use flatland_cli::harness::workload::Case;
    /// assert_eq!(Case::new("random", 10_000_000).with_reps(0).reps, Some(0));
    /// ```
    #[must_use]
    pub fn with_reps(mut self, reps: usize) -> Self {
        self.reps = Some(reps);
        self
    }

    /// The size as `10^k` or `2^k` when it is such a power, else the number.
    ///
    /// ```
    /// # use flatland_cli::harness::workload::Case;
    /// assert_eq!(Case::new("a", 100).size_label(), "10^2");
    /// ```
    pub fn size_label(&self) -> String {
        let n = self.size;
        if n >= 100 {
            let k = n.ilog10();
            if 10usize.pow(k) == n {
                return format!("10^{k}");
            }
            if n.is_power_of_two() {
                return format!("2^{}", n.trailing_zeros());
            }
        }
        n.to_string()
    }
}

/// Whether a variant is a flatland implementation or a baseline to compare it with.
///
/// ```
/// use flatland_cli::harness::workload::Role;
/// assert_eq!(Role::Flatland.to_string(), "flatland");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Flatland code (runtime primitives, later the dsl and `#[vectorise]` paths).
    Flatland,
    /// A baseline (sequential loop, hand-written rayon, a library).
    Baseline,
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Role::Flatland => "flatland",
            Role::Baseline => "baseline",
        })
    }
}

/// A runnable implementation over a prepared input.
pub struct Variant {
    /// Short name shown in the table (`flatland`, `seq`, `rayon`, `sprs`).
    pub name: &'static str,
    /// Flatland or baseline.
    pub role: Role,
    /// Whether it uses more than one thread (only those are run in the threads sweep).
    pub parallel: bool,
    /// Computes the answer; called repeatedly, must not change the input.
    pub run: Box<dyn Fn() -> Answer + Send + Sync>,
}

impl Variant {
    /// A variant from its name, role, parallelism and code.
    ///
    /// ```
    /// use flatland_cli::harness::{answer::Answer, workload::{Role, Variant}};
    /// let v = Variant::new("seq", Role::Baseline, false, || Answer::Ints(vec![1]));
    /// assert_eq!((v.run)(), Answer::Ints(vec![1]));
    /// ```
    pub fn new(
        name: &'static str,
        role: Role,
        parallel: bool,
        run: impl Fn() -> Answer + Send + Sync + 'static,
    ) -> Self {
        Self {
            name,
            role,
            parallel,
            run: Box::new(run),
        }
    }
}

/// A prepared input with the variants that run over it.
pub struct Instance {
    /// Elements processed by one run (for elements per second).
    pub elements: u64,
    /// Bytes the minimal algorithm must read and write (for GB/s); 0 when not meaningful.
    pub bytes: u64,
    /// Flatland variants first, then baselines.
    pub variants: Vec<Variant>,
}

/// A benchmark workload.
pub trait Workload: Sync {
    /// Name used by `--only` and in the table.
    fn name(&self) -> &'static str;
    /// One line: what is computed and which code path the flatland variant takes.
    fn about(&self) -> &'static str;
    /// The inputs to run at `scale`.
    fn cases(&self, scale: Scale, extra: &Extra) -> Vec<Case>;
    /// Generates (or adopts) the input of `case` and returns the variants over it.
    fn prepare(&self, case: &Case, extra: &Extra) -> Instance;
    /// The case whose parallel variants the thread sweep runs at each thread count: by default
    /// the largest of [`Workload::cases`].
    fn sweep_case(&self, scale: Scale, extra: &Extra) -> Option<Case> {
        self.cases(scale, extra).into_iter().max_by_key(|c| c.size)
    }
}
