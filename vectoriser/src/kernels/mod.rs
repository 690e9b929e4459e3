//! The executor's kernel library: the single-pass kernels that run a fused form
//! ([`crate::ir::Expr::Fused`], a redomap, the keys of a filter or partition) over all the lanes
//! of a context, where [`crate::fuse`] decided (IR in, IR out) that a node may run fused. Every
//! kernel either accepts the values and returns the node's lifted value, with the bits of the
//! unfused steps, or gives up (`None`: a body it cannot compile, an error met), and the
//! executor then runs the unfused steps, which report the error as the unfused program does.
//!
//! One file per kernel family:
//!
//! - `lambda`: the lambda compiler (IR bodies to expression-machine trees over the block's
//!   sources);
//! - `block`: block assembly (a block's input columns, taken in place, repeated or gathered,
//!   and the output programs);
//! - `operators`: the built-in reduction operators on block columns;
//! - `redomap`, with its direct path `redomap_direct`, the direct path's loops `reads` and the
//!   ranges of the index columns its gathers went through before, `index_ranges`;
//! - `scanomap`;
//! - `compare_keys`: the keys of a filter whose predicates compare the element with one
//!   operand, one comparison per element straight into byte keys;
//! - `filter_keys` and `partition_keys`: the keys of a filter or partition in one pass, over all
//!   the elements at once (`elements`), with poison tracking for speculative gathers (`poison`)
//!   and free scalars remembered between sibling filters (`repeat`);
//! - `classes`: the class kernel (partition-reduce, the "mega" step);
//! - `combine`: reduction and scan operators written as lambdas, compiled to one program per
//!   field of the result;
//! - `programs`: the programs every kernel compiles for a node, listed ahead of time for the
//!   native kernels ([`crate::native`]).

mod block;
mod classes;
pub(crate) mod combine;
mod compare_keys;
mod elements;
mod filter_keys;
mod index_ranges;
mod lambda;
pub(crate) mod operators;
mod partition_keys;
mod poison;
mod programs;
mod reads;
mod redomap;
mod redomap_direct;
pub(crate) mod repeat;
mod scanomap;

pub(crate) use classes::classes;
pub(crate) use compare_keys::compare_keys;
pub(crate) use filter_keys::{filter_keys, filter_mask};
pub(crate) use index_ranges::IndexRanges;
pub(crate) use partition_keys::partition_keys;
pub(crate) use programs::programs_for;
pub(crate) use redomap::redomap;
pub(crate) use scanomap::scanomap;
