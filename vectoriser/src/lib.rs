//! Flatland's vectoriser (DESIGN.md section 4):
//!
//! - [`ir`]: a small typed nested data-parallel language (pretty-printed by `Display`);
//! - [`check`]: type inference, lambda parameters included, errors naming the node;
//! - [`eval`]: the reference interpreter, the meaning of a program;
//! - [`exec`]: the flattened executor: every construct lifted over segment descriptors and run
//!   on the runtime's bulk primitives and expression machine (the lifting rules are in the
//!   private `flatten` module, the columnar values in `lval`);
//! - [`dsl`]: the staged front-end that builds programs from Rust closures;
//! - [`programs`]: the reference programs (dot, smvm, primes, quicksort, quickhull, treeLookup...).
//!
//! ```
//! use flatland_vectoriser::dsl::{Program, Arr};
//! let mut p = Program::new();
//! let dot = p.function2("dot", |_, a: flatland_vectoriser::dsl::Ex<Arr<f64>>, b| a.zip_map(&b, |x, y| x * y).sum());
//! assert_eq!(p.eval2(&dot, vec![1.0, 2.0], vec![3.0, 4.0]).unwrap(), 11.0);
//! assert_eq!(p.exec2(&dot, vec![1.0, 2.0], vec![3.0, 4.0]).unwrap(), 11.0);
//! ```

pub mod check;
pub mod dsl;
mod error;
pub mod eval;
pub mod exec;
mod flatten;
pub mod fuse;
pub mod ir;
mod liveness;
mod lval;
mod pretty;
pub mod programs;
pub mod value;

pub use error::{Error, Result};
