//! The cost model: predicted execution times of seq/par execution graphs on a [`Machine`].
//!
//! Following the MoA cost structure (Definitions 24 and 25 of the MoA paper cited in
//! [`crate::moa`]), costs live in a [`Semiring`]: `seq` (⊙) combines steps that run one after the
//! other and `par` (⊕) combines branches that run side by side. The default semiring is max-plus over predicted
//! nanoseconds ([`Cost`]): a sequence costs the sum of its steps, a parallel fork the maximum of its
//! branches. A [`Graph`] of `Seq`/`Par`/`Step` nodes is evaluated bottom up.
//!
//! The scheduler ([`crate::sched`]) uses a [`Machine`] (per-element op cost, per-element transfer
//! cost, task overhead, cores) to predict the time of a bulk operation run sequentially and split
//! into `t` tasks ("dimension lifting": `n` elements become `t` blocks of `n / t`), and picks the
//! cheapest plan.
//!
//! Which profile: [`with_machine`] installs one for a closure (tests use two); otherwise the
//! process-wide [`Machine::global`] is, decided once: with `FLATLAND_CALIBRATE=1` in the
//! environment, the cached profile or a fresh calibration (under a second, then cached in
//! [`cache_path`], `$XDG_CACHE_HOME/flatland/machine.txt` or `~/.cache/flatland/machine.txt`);
//! without it, the cached profile if valid, else [`Machine::defaults`]. Nothing is measured unless
//! asked. Calibrate from an optimised build: a debug build measures (and caches) debug speeds.
//!
//! ```
//! use flatland_runtime::cost::{Cost, Graph};
//! // Two parallel branches of 3 and 5 ns after a 1 ns fork: 1 + max(3, 5) = 6 ns.
//! let g = Graph::Seq(vec![
//!     Graph::Step(Cost::ns(1.0)),
//!     Graph::Par(vec![Graph::Step(Cost::ns(3.0)), Graph::Step(Cost::ns(5.0))]),
//! ]);
//! assert_eq!(g.cost(), Cost::ns(6.0));
//! ```

mod branches;
mod calibrate;
mod machine;

pub use branches::Branches;
pub(crate) use machine::installed;
pub use machine::{Machine, Origin, cache_path, current, profile_reads, with_machine};

use std::fmt;

/// An idempotent cost semiring `(C, par = ⊕, seq = ⊙, none, unit)`.
///
/// `par` is the cost of branches run side by side, `seq` of steps run one after the other; both
/// must be increasing (`x <= x.par(y)`, `x <= x.seq(y)`), so shortening sequential chains
/// ("dimension lifting") never raises a cost.
///
/// ```
/// use flatland_runtime::cost::{Cost, Semiring};
/// let (a, b) = (Cost::ns(2.0), Cost::ns(3.0));
/// assert_eq!(a.par(&b), Cost::ns(3.0));
/// assert_eq!(a.seq(&b), Cost::ns(5.0));
/// assert_eq!(a.seq(&Cost::unit()), a);
/// ```
pub trait Semiring: Clone + PartialOrd {
    /// The identity of `par` (an absent branch).
    fn none() -> Self;
    /// The identity of `seq` (an empty step).
    fn unit() -> Self;
    /// Branches run in parallel (⊕).
    fn par(&self, other: &Self) -> Self;
    /// Steps run in sequence (⊙).
    fn seq(&self, other: &Self) -> Self;
}

/// A predicted time in nanoseconds, in the max-plus semiring (`par` = max, `seq` = plus).
///
/// ```
/// use flatland_runtime::cost::Cost;
/// let c = Cost::ns(1500.0);
/// assert_eq!(c.as_ns(), 1500.0);
/// assert_eq!(c.to_string(), "1.50 µs");
/// assert_eq!(Cost::ns(0.44).to_string(), "0.44 ns");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
pub struct Cost(f64);

impl Cost {
    /// No time.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::cost::Cost::ZERO.as_ns(), 0.0);
    /// ```
    pub const ZERO: Cost = Cost(0.0);

    /// A cost of `ns` nanoseconds (negative or NaN values are clamped to zero).
    ///
    /// ```
    /// assert_eq!(flatland_runtime::cost::Cost::ns(-1.0).as_ns(), 0.0);
    /// ```
    pub fn ns(ns: f64) -> Cost {
        Cost(if ns > 0.0 { ns } else { 0.0 })
    }

    /// The cost in nanoseconds.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::cost::Cost::ns(2.5).as_ns(), 2.5);
    /// ```
    pub fn as_ns(self) -> f64 {
        self.0
    }
}

impl Semiring for Cost {
    fn none() -> Self {
        Cost::ZERO
    }
    fn unit() -> Self {
        Cost::ZERO
    }
    fn par(&self, other: &Self) -> Self {
        Cost(self.0.max(other.0))
    }
    fn seq(&self, other: &Self) -> Self {
        Cost(self.0 + other.0)
    }
}

impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        if ns < 10.0 {
            write!(f, "{ns:.2} ns")
        } else if ns < 1e3 {
            write!(f, "{ns:.0} ns")
        } else if ns < 1e6 {
            write!(f, "{:.2} µs", ns / 1e3)
        } else if ns < 1e9 {
            write!(f, "{:.2} ms", ns / 1e6)
        } else {
            write!(f, "{:.2} s", ns / 1e9)
        }
    }
}

/// A seq/par execution graph with costs at its steps (Definition 25 of the MoA cost structure).
///
/// ```
/// use flatland_runtime::cost::{Cost, Graph};
/// let task = |ns| Graph::Step(Cost::ns(ns));
/// let g = Graph::Par(vec![Graph::Seq(vec![task(1.0), task(2.0)]), task(4.0)]);
/// assert_eq!(g.cost(), Cost::ns(4.0));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Graph<C = Cost> {
    /// One sequential block of work.
    Step(C),
    /// Sub-graphs run one after the other.
    Seq(Vec<Graph<C>>),
    /// Sub-graphs run side by side.
    Par(Vec<Graph<C>>),
}

impl<C: Semiring> Graph<C> {
    /// The cost of the graph: `seq` along sequences, `par` across parallel branches.
    ///
    /// ```
    /// use flatland_runtime::cost::{Cost, Graph};
    /// assert_eq!(Graph::<Cost>::Seq(vec![]).cost(), Cost::ZERO);
    /// ```
    pub fn cost(&self) -> C {
        match self {
            Graph::Step(c) => c.clone(),
            Graph::Seq(gs) => gs.iter().fold(C::unit(), |acc, g| acc.seq(&g.cost())),
            Graph::Par(gs) => gs.iter().fold(C::none(), |acc, g| acc.par(&g.cost())),
        }
    }
}

/// The estimated work per element of a bulk operation: simple operations and element transfers
/// (reads plus writes of memory).
///
/// ```
/// use flatland_runtime::cost::ElemCost;
/// let sum = ElemCost::new(1.0, 1.0); // one add, one read per element
/// assert_eq!(sum.ops, 1.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ElemCost {
    /// Simple operations (an add, a compare) per element.
    pub ops: f64,
    /// Elements moved to or from memory per element.
    pub transfers: f64,
}

impl ElemCost {
    /// `ops` simple operations and `transfers` element transfers per element.
    ///
    /// ```
    /// let map = flatland_runtime::cost::ElemCost::new(1.0, 2.0);
    /// assert_eq!(map.transfers, 2.0);
    /// ```
    pub const fn new(ops: f64, transfers: f64) -> ElemCost {
        ElemCost { ops, transfers }
    }
}
