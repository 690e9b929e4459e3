//! The two ways to run a lifted `if` whose branches are scalar code that cannot fail: as a
//! *select* (both branches computed on every lane, the condition picks: no lanes move) or by
//! *packing* (the lanes split by the condition, each branch computed on its own lanes, whose
//! inputs are gathered first, and the results combined). A select wastes the branch a lane
//! does not take; packing moves every lane's inputs and result. [`Machine::select_pays`]
//! compares the two predictions, knowing nothing of the condition (half the lanes on each
//! side):
//!
//! - select: `(then_ops + else_ops + 1) * op_ns` per lane;
//! - packing: `(then_ops + else_ops) / 2 * op_ns` for the branches, plus
//!   `(20 + 3 * (then_inputs + else_inputs)) * transfer_ns` for the lanes' moves: the
//!   condition read and the lanes split, each branch's input columns gathered for its lanes,
//!   the results combined into place. The constants are measured, not derived: on the 2-core
//!   development machine the executor's packed `if` cost about 22 ns per lane plus about 3 ns
//!   per input column more than its select (10^6 lanes of `if d == 0 { 0 } else { 100 / d }`
//!   against `100 * d`, and with two more inputs), where the reference profile's transfer is
//!   1 ns.
//!
//! So a select pays while half the branches' work stays under what packing moves: on
//! [`Machine::REFERENCE`], about 78 simple operations plus 12 per input column (ten
//! transcendental functions and more).
//!
//! ```
//! use flatland_runtime::cost::{Branches, Machine};
//! // `if n == 0 { 0.0 } else { s / n }`: one division, two inputs.
//! let cheap = Branches { then_ops: 0.0, else_ops: 4.0, then_inputs: 0, else_inputs: 2 };
//! assert!(Machine::REFERENCE.select_pays(&cheap));
//! // Ten transcendental functions of `x` and `y` on each side.
//! let dear = Branches { then_ops: 89.0, else_ops: 89.0, then_inputs: 2, else_inputs: 2 };
//! assert!(!Machine::REFERENCE.select_pays(&dear));
//! ```

use super::{ElemCost, Machine};

/// The per-lane work of the two branches of a lifted `if`: their simple operations (weighted:
/// [`crate::expr::op::UnaryOp::work`] and the binary and ternary operators' `work`) and the
/// input columns each reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Branches {
    /// Simple operations of the `then` branch.
    pub then_ops: f64,
    /// Simple operations of the `else` branch.
    pub else_ops: f64,
    /// Input columns the `then` branch reads.
    pub then_inputs: usize,
    /// Input columns the `else` branch reads.
    pub else_inputs: usize,
}

/// Transfers per lane of packing besides the inputs (measured: see the module documentation).
const PACK_TRANSFERS: f64 = 20.0;

/// Transfers per lane and input column of packing (measured).
const INPUT_TRANSFERS: f64 = 3.0;

impl Machine {
    /// Predicted nanoseconds per lane of the `if` run as a select.
    ///
    /// ```
    /// use flatland_runtime::cost::{Branches, Machine};
    /// let b = Branches { then_ops: 1.0, else_ops: 2.0, then_inputs: 1, else_inputs: 1 };
    /// assert_eq!(Machine::REFERENCE.select_ns(&b), 2.0);
    /// ```
    pub fn select_ns(&self, b: &Branches) -> f64 {
        self.elem_ns(ElemCost::new(b.then_ops + b.else_ops + 1.0, 0.0))
    }

    /// Predicted nanoseconds per lane of the `if` run by packing lanes.
    ///
    /// ```
    /// use flatland_runtime::cost::{Branches, Machine};
    /// let b = Branches { then_ops: 1.0, else_ops: 3.0, then_inputs: 1, else_inputs: 1 };
    /// assert_eq!(Machine::REFERENCE.pack_ns(&b), 1.0 + 26.0);
    /// ```
    pub fn pack_ns(&self, b: &Branches) -> f64 {
        let moved = PACK_TRANSFERS + INPUT_TRANSFERS * (b.then_inputs + b.else_inputs) as f64;
        self.elem_ns(ElemCost::new(0.5 * (b.then_ops + b.else_ops), moved))
    }

    /// Whether the select is predicted no slower than packing (see the module documentation).
    ///
    /// ```
    /// use flatland_runtime::cost::{Branches, Machine};
    /// let b = Branches { then_ops: 1.0, else_ops: 1.0, then_inputs: 1, else_inputs: 1 };
    /// assert!(Machine::REFERENCE.select_pays(&b));
    /// ```
    pub fn select_pays(&self, b: &Branches) -> bool {
        self.select_ns(b) <= self.pack_ns(b)
    }
}
