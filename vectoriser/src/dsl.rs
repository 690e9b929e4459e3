//! The staged front-end: build IR programs in Rust with typed expression handles ([`Ex`]) and
//! closures for lambdas, then run them on Rust values.
//!
//! A closure passed to [`Ex::map`] (and friends) is called once, at build time, with a handle
//! naming its parameter; what it returns becomes the lambda's body. Values used in a closure that
//! were built outside it are its free variables. Handles are expression trees: using one twice
//! computes it twice, so bind shared values with [`let_`]. Operators take handles by value or by
//! reference (`&x * &x`), so a handle is never cloned to be used twice.
//!
//! Functions have any number of parameters (up to six), named by the caller ([`ProgramBuilder::function`]);
//! a function is [`ProgramBuilder::prepare`]d once (checked, fused, analysed) and run many times.
//!
//! One idea per file: the dsl types and their conversions to Rust values are `dsl/types.rs`
//! ([`Ty`], [`Arr`]); the expression handles `dsl/handles.rs` ([`Ex`], [`let_`], [`if_`], ...),
//! their scalar operators `dsl/operators.rs` ([`Num`]) and array operations `dsl/arrays.rs`; the
//! math methods `dsl/builtins.rs`; loops and reductions by index `dsl/loops.rs`; the program
//! builder `dsl/program.rs` ([`ProgramBuilder`], [`Func`], [`Prepared`]); runtime stores as lifted
//! values `dsl/stores.rs` ([`Element`]).
//!
//! ```
//! use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder};
//! let mut p = ProgramBuilder::new();
//! // smvm: rows.map(|row| row.map(|(i, x)| x * v[i]).sum())
//! let smvm = p.function("smvm", ["rows", "v"], |_, (rows, v): (Ex<Arr<Arr<(i64, f64)>>>, Ex<Arr<f64>>)| {
//!     rows.map(move |row| row.map(|e| e.get1() * v.at(e.get0())).sum())
//! });
//! let rows = vec![vec![(0, 2.0), (1, 1.0)], vec![], vec![(1, 3.0)]];
//! assert_eq!(p.eval(&smvm, (rows.clone(), vec![10.0, 100.0])).unwrap(), vec![120.0, 0.0, 300.0]);
//! let smvm = p.prepare(&smvm).unwrap();
//! assert_eq!(smvm.call((rows, vec![10.0, 100.0])).unwrap(), vec![120.0, 0.0, 300.0]);
//! ```

mod arrays;
mod builtins;
mod handles;
mod loops;
mod operators;
mod program;
mod stores;
mod types;

pub use arrays::Predicate;
pub use handles::{Ex, array, if_, iota, iota_step, let_, pair, replicate};
pub use loops::{count_by_index, hist, hist_with, iterate_while, loop_n};
pub use operators::Num;
pub use program::{Func, Handles, Params, Prepared, ProgramBuilder};
pub use stores::Element;
pub use types::{Arr, Ty};
