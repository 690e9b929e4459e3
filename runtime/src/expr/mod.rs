//! The elementwise expression engine (DESIGN.md section 3, the ncarray seed): an operator set with
//! one scalar semantics ([`op`]), and a register machine that evaluates a fused expression over
//! blocks of elements.

pub mod op;

pub use op::{BinaryOp, OpKind, Scalar, ScalarType, UnaryOp};
