//! The elementwise expression engine: scalar operator trees compiled to a register machine that
//! runs over blocks of lanes.
//!
//! - [`op`]: the operator set and THE scalar semantics of Flatland (wrapping `i64`, division by
//!   zero as an error naming the lane, low-6-bit shifts, IEEE `f64`); everything that evaluates a
//!   scalar operator calls it.
//! - [`ColumnExpr`]: expression trees over input columns, constants and an index generator.
//! - [`CompiledExpr`]: a tree compiled (type-checked, common subexpressions shared, registers
//!   allocated and reused) into straight-line [`Instr`]uctions of a register machine; an
//!   `add`/`sub`/`mul` whose only consumer is another one is folded into it
//!   ([`Instr::Binary2`], one pass, separate roundings).
//! - The machine evaluates a program over blocks of [`BLOCK`] lanes: each instruction is one
//!   tight loop over a block, inputs are read in place, and the only full-length allocation is the
//!   output column. The scheduler ([`crate::sched::plan`], asking the cost model) decides whether
//!   to run sequentially or as tasks of whole leaves on rayon's current pool (the global one, or
//!   the caller's `ThreadPool::install`).
//!
//! ```
//! use flatland_runtime::expr::{ColumnRef, ColumnExpr, CompiledExpr, ScalarType};
//! let (a, b, c) = (ColumnExpr::input(0), ColumnExpr::input(1), ColumnExpr::input(2));
//! let e = (a.clone() * b + c).max(a);
//! let p = CompiledExpr::compile(&e, &[ScalarType::F64; 3]).unwrap();
//! let xs = [1.0, -2.0, 3.0];
//! let out = p
//!     .eval(&[ColumnRef::F64(&xs), ColumnRef::F64(&[2.0; 3]), ColumnRef::F64(&[0.5; 3])], 3)
//!     .unwrap();
//! assert_eq!(out.as_f64().unwrap(), &[2.5, -2.0, 6.5]);
//! ```

mod column;
mod kernel;
mod math;
pub mod native;
pub mod op;
mod program;
mod scalar;
mod ternary;
mod tree;
mod vm;

#[cfg(test)]
mod math_tests;
#[cfg(test)]
mod tests;

pub use column::{Column, ColumnMut, ColumnRef};
pub use op::{BinaryOp, OpKind, Scalar, ScalarType, TernaryOp, UnaryOp};
pub use program::{CompiledExpr, Dst, Instr, Parallelism, Src};
pub use tree::{ColumnExpr, Node};

/// Lanes per block: every instruction processes this many lanes at a time (the last block of an
/// evaluation may be shorter), so registers stay in the L1/L2 cache.
///
/// ```
/// assert_eq!(flatland_runtime::expr::BLOCK, 1024);
/// ```
pub const BLOCK: usize = 1024;

impl ColumnExpr {
    /// Compiles the expression for the types of `inputs` and evaluates it over `len` lanes.
    ///
    /// # Errors
    /// As [`CompiledExpr::compile`] and [`CompiledExpr::eval`].
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnRef, ColumnExpr};
    /// let e = ColumnExpr::input(0).floor_div(ColumnExpr::constant(2i64));
    /// let out = e.eval(&[ColumnRef::I64(&[-3, 3])], 2).unwrap();
    /// assert_eq!(out.as_i64().unwrap(), &[-2, 1]);
    /// ```
    pub fn eval(&self, inputs: &[ColumnRef<'_>], len: usize) -> crate::Result<Column> {
        let types: Vec<ScalarType> = inputs.iter().map(ColumnRef::ty).collect();
        CompiledExpr::compile(self, &types)?.eval(inputs, len)
    }
}
