//! Which route the executor's single-pass steps took at run time: a cheap count per kind of
//! step (a mutex taken once per bulk step, never per element), kept by each prepared program
//! and available without the `stats` feature.
//!
//! A fused step runs its single-pass kernel where the kernel accepts the values, and otherwise
//! the unfused steps it replaced (the same values and errors, more passes over memory); a
//! decline is never silent: it is counted here, under the step's kind.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Mutex;

/// The routes taken by one kind of step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Routes {
    /// Runs of the single-pass kernel.
    pub kernel: u64,
    /// Runs where the kernel declined and the unfused steps ran instead.
    pub declined: u64,
}

/// The routes taken by the single-pass steps of a prepared program since it was prepared (or
/// last [`Trace::reset`]), by kind of step.
///
/// ```
/// use flatland_vectoriser::{exec::{ExecOptions, Prepared}, programs, value::Value};
/// let (p, f) = programs::dot();
/// let dot = Prepared::new(p.ir(), f.name(), &ExecOptions::default()).unwrap();
/// let xs = Value::array(vec![Value::F64(1.0), Value::F64(2.0)]);
/// dot.run(vec![xs.clone(), xs]).unwrap();
/// let routes = dot.trace().routes();
/// assert_eq!(routes["redomap"].kernel, 1, "{}", dot.trace());
/// assert_eq!(dot.trace().declined(), 0);
/// ```
#[derive(Debug, Default)]
pub struct Trace {
    routes: Mutex<BTreeMap<&'static str, Routes>>,
}

impl Trace {
    /// Counts one run of a step of kind `kind`: its kernel, or (`kernel == false`) the unfused
    /// steps after the kernel declined.
    pub(crate) fn record(&self, kind: &'static str, kernel: bool) {
        let mut routes = self
            .routes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let r = routes.entry(kind).or_default();
        if kernel {
            r.kernel += 1;
        } else {
            r.declined += 1;
        }
    }

    /// The routes so far, by kind of step (`"redomap"`, `"scanomap"`, `"classes"`,
    /// `"filter keys"`, `"filter mask"`, `"partition keys"`, `"operator"`).
    pub fn routes(&self) -> BTreeMap<&'static str, Routes> {
        self.routes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// How many step runs declined their kernel, over every kind.
    pub fn declined(&self) -> u64 {
        self.routes().values().map(|r| r.declined).sum()
    }

    /// Forgets the counts.
    pub fn reset(&self) {
        self.routes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clear();
    }
}

impl fmt::Display for Trace {
    /// One line per kind of step: `redomap: 3 by its kernel, 1 declined (the unfused steps ran)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (kind, r) in self.routes() {
            writeln!(
                f,
                "{kind}: {} by its kernel, {} declined (the unfused steps ran)",
                r.kernel, r.declined
            )?;
        }
        Ok(())
    }
}
