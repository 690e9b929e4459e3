//! What NaN does, and what is dropped on purpose. Documentation only.
//!
//! **NaN has one meaning.** Every operation of the library and of the command line that orders
//! floats follows one of three rules, listed below: the IEEE 754 rules of the IR's operators (NaN
//! propagates through `minimum`/`maximum`, every comparison with NaN is false), `std`'s rule
//! where the code is written as the `std` method (`x.min(y)`/`x.max(y)` ignore a NaN operand),
//! or a typed error that
//! names the offending lane, index or line. No operation drops an element silently: the drops
//! that exist are the ones a program asks for (a filter's rejected elements, the classes of a
//! partition it does not ask for), listed in the second table.
//!
//! # Ordering operations and NaN
//!
//! | operation | where | NaN |
//! | --- | --- | --- |
//! | `<` `<=` `>` `>=` `==` `!=` on `f64` | IR [`BinaryOp`](crate::vectoriser::ir::BinaryOp), `#[vectorise]` comparisons, [`runtime::expr`](crate::runtime::expr) | IEEE: `false` when either side is NaN, except `!=` (`true`); `-0.0 == 0.0` |
//! | `minimum` / `maximum` of two `f64` | IR `BinaryOp::Min`/`Max`, `x.minimum(y)` / `x.maximum(y)` in `#[vectorise]` code, the dsl's `min`/`max`/`minimum`/`maximum`, [`float::min`](crate::runtime::expr::op::float::min) / [`float::max`](crate::runtime::expr::op::float::max) | IEEE 754-2019 `minimum` / `maximum`: NaN when either is NaN; `-0.0 < 0.0` |
//! | `min` / `max` of two `f64` | IR `BinaryOp::MinNum`/`MaxNum`, `x.min(y)` / `x.max(y)` in `#[vectorise]` code (as in Rust), the dsl's `min_num`/`max_num`, [`float::min_num`](crate::runtime::expr::op::float::min_num) / [`float::max_num`](crate::runtime::expr::op::float::max_num) | Rust's `f64::min` / `max`: a NaN operand is ignored (NaN only when both are); where Rust leaves the zero of `min(-0.0, 0.0)` unspecified, Flatland orders `-0.0 < 0.0` |
//! | `min` / `max` reductions and scans | [`ReduceOp::Min`](crate::vectoriser::ir::ReduceOp::Min) / `Max`, `.min()` / `.max()` on arrays in `#[vectorise]` code, `reduce(.., \|a, b\| a.minimum(b))` | IEEE `minimum` / `maximum`: one NaN element makes the result (and every later scan element) NaN; the empty array gives the identity `inf` / `-inf` |
//! | `std`-style reductions | `reduce(z, \|a, b\| a.min(b))` / `a.max(b)` on `f64` in `#[vectorise]` code (a lambda reduction over `MinNum` / `MaxNum`) | NaN elements are skipped; the result is NaN only if `z` and every element are NaN |
//! | other math (`exp`, `ln`, `powf`, `powi`, `atan2`, `floor`, `signum`, ...) | IR `UnaryOp` / `BinaryOp`, the methods of the same name in `#[vectorise]` code and the dsl, [`runtime::expr::op`](crate::runtime::expr::op) | as Rust's `std` method of the same name (same bits, or both NaN); `is_nan` / `is_finite` / `is_infinite` are `bool` |
//! | `clamp` | IR [`TernaryOp::Clamp`](crate::vectoriser::ir::TernaryOp::Clamp), `x.clamp(lo, hi)` on `i64` / `f64` in `#[vectorise]` code and the dsl | as Rust's `clamp` (a NaN `x` stays NaN, `-0.0` is kept); where Rust panics (`lo > hi`, or a NaN bound) the program stops with [`Error::Domain`](crate::runtime::Error::Domain) naming `clamp` and the lane |
//! | arg-min / arg-max | `a.argmin()` / `a.argmax()` in `#[vectorise]` code and the dsl ([`vectoriser::derived`](crate::vectoriser::derived)); user code such as the `arg_min` / `arg_max` / `lex_min` / `lex_max` of `flatland_cli::kernels` | built-in: the index of the first NaN if there is one (as `.min()` / `.max()` are NaN then), else of the first least / greatest element by `<` / `>` (`-0.0` and `0.0` tie); `-1` for the empty array. User code: what its comparisons say (by `<` / `>` a NaN value never replaces the current best) |
//! | filter by comparison | IR [`Expr::Filter`](crate::vectoriser::ir::Expr::Filter) (`k` predicates, `k + 1` classes), `#[vectorise]` `.filter(p)` | a NaN key fails IEEE comparisons, so it goes to the class of the first predicate it passes, or the last class (elements no predicate accepts): nothing is lost by the IR; `.filter(p)` keeps the accepted class only (an intended drop, below) |
//! | partition by key | IR `Expr::Partition`, [`flat::partition`](crate::runtime::flat::partition), [`seg::partition_s`](crate::runtime::seg::partition_s) | keys are integers: a key out of `0..classes` is [`Error::ClassOutOfRange`](crate::runtime::Error::ClassOutOfRange) (negative: `Error::Invalid`) naming its lane; a float compared into a key follows the comparison row |
//! | `f64 as i64` | IR [`UnaryOp::Cast`](crate::vectoriser::ir::UnaryOp::Cast)`(I64)`, `as i64` in `#[vectorise]` code | NaN becomes `0` (saturating; `±inf` become `i64::MIN` / `MAX`) |
//! | sort | IR [`Expr::Sort`](crate::vectoriser::ir::Expr::Sort) (`sort`, `argsort`), `.sort()` / `.argsort()` / `.sort_by_key(f)` in `#[vectorise]` code and the dsl, [`flat::sort_f64`](crate::runtime::flat::sort_f64), [`seg::sort_f64_s`](crate::runtime::seg::sort_f64_s) and their `argsort` forms | `f64::total_cmp` order: `-NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN`; nothing is dropped; `argsort` and `sort_by_key` are stable |
//! | user sort | `flatland_cli::kernels::quicksort_f64` (user code: three IEEE filters around a pivot) | a NaN key is in none of its filters and is **dropped**; a NaN pivot drops its whole part (`quicksort_f64(&[2.0, NaN, 1.0])` is `[]`); `-inf` / `inf` sort first / last |
//! | checked sort | `flatland_cli::harness::compute::try_quicksort` (`compute::quicksort` panics with the same message) | error `NanKey { index }` for the first NaN key, before sorting |
//! | convex hull | `flatland_cli::kernels::{hull, convex_hull, hsplit}` (user code: cross products `> 0.0`, extremes by `<` / `>`) | a point with a NaN coordinate is never a vertex (its cross products are NaN); a NaN first point is taken as both extremes |
//! | checked hull | `flatland_cli::harness::compute::try_quickhull` (`compute::quickhull` panics with the same message), what `flatland run quickhull` computes with | error `NonFinitePoint { index, point }` for the first point with a NaN or infinite coordinate, before the kernel runs |
//! | number / point / matrix readers | `flatland_cli::io::{parse_numbers, parse_points, parse_matrix_market}` (`flatland run quicksort`, `quickhull`, `smvm`) | `NaN`, `nan`, `inf`, `-inf`, `infinity` (any spelling Rust parses) and overflowing literals (`1e400`) are refused: `FILE:LINE: 'nan' is not a finite number` |
//! | result comparison | [`float::same`](crate::runtime::expr::op::float::same); the benchmark harness's answer check | identity, not order: equal bits, or both NaN (any sign and payload); the harness: `==` (so `-0.0` is `0.0`) or both NaN |
//! | recursion depth | [`vectoriser::limits`](crate::vectoriser::limits) | (not NaN) a call past the limit is [`Error::RecursionLimit`](crate::vectoriser::Error::RecursionLimit), alike from the interpreter, the executor and `#[vectorise]` code |
//!
//! # Intended drops
//!
//! | operation | what is left out |
//! | --- | --- |
//! | `#[vectorise]` `.filter(p)`, IR `filter(ps, a).i` | the elements outside the class asked for (under IEEE comparisons, NaN keys are outside every `<`/`>`/`==` class) |
//! | IR `Expr::Partition { interest, .. }`, `flat::partition(.., Some(interest))` | the elements of the classes not in `interest` (neither counted nor copied) |
//! | `scatter` | an earlier value at an index written again (last index wins); an index out of range is an error, not a drop |
//! | `kernels::quicksort_f64`, `kernels::hull` / `convex_hull` | NaN keys / points, as the first table says (user semantics; the checked forms refuse them) |
//! | reduction by index: IR [`Expr::Hist`](crate::vectoriser::ir::Expr::Hist), `hist(..)` / `count_by_index(..)` and `for k in keys { c[k] += v }` in `#[vectorise]` code, [`flat::hist`](crate::runtime::flat::hist), [`seg::hist_s`](crate::runtime::seg::hist_s) | the values whose index is outside `0..bins` (Futhark's `reduce_by_index` rule, the way to leave an element out, e.g. index `-1`); plain Rust's `c[k] += v` would panic there |
//!
//! Apart from the reduction by index, no operation skips out-of-range indices: every other
//! index is checked ([`Error::IndexOutOfRange`](crate::runtime::Error::IndexOutOfRange)
//! naming the operation and lane).
//!
//! ```
//! use flatland::vectoriser::{eval, ir::{Expr, Function, Program, ReduceOp, Type}, value::Value};
//! // A NaN element makes the built-in minimum NaN (IEEE 754-2019 `minimum`).
//! let body = Expr::reduce(ReduceOp::Min, Expr::f64(f64::INFINITY), Expr::var("xs"));
//! let p = Program::new(vec![Function::new("m", vec![("xs".into(), Type::array(Type::F64))], Type::F64, body)]);
//! let xs = Value::array(vec![Value::F64(1.0), Value::F64(f64::NAN), Value::F64(0.0)]);
//! let Value::F64(m) = eval::run(&p, "m", vec![xs]).unwrap() else { unreachable!() };
//! assert!(m.is_nan());
//! // Rust's own `f64::min` would have skipped it.
//! assert_eq!([1.0, f64::NAN, 0.0].into_iter().fold(f64::INFINITY, f64::min), 0.0);
//! ```
