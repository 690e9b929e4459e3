//! Flatland's vectoriser: a small typed nested data-parallel language ([`ir`]), its type checker
//! ([`check`]), its meaning ([`eval`]), and the staged front-end that builds programs from Rust
//! closures ([`dsl`]). DESIGN.md section 4.
//!
//! ```
//! use flatland_vectoriser::dsl::{Program, Arr};
//! let mut p = Program::new();
//! let dot = p.function2("dot", |_, a: flatland_vectoriser::dsl::Ex<Arr<f64>>, b| a.zip_map(&b, |x, y| x * y).sum());
//! assert_eq!(p.eval2(&dot, vec![1.0, 2.0], vec![3.0, 4.0]).unwrap(), 11.0);
//! ```

pub mod check;
pub mod dsl;
mod error;
pub mod eval;
pub mod exec;
mod flatten;
pub mod fuse;
pub mod ir;
mod lval;
mod pretty;
pub mod programs;
pub mod value;

pub use error::{Error, Result};
