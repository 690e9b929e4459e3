//! The `#[vectorise]` attribute: nested data-parallel functions written as ordinary-looking Rust
//! (`docs/ARCHITECTURE.md`, "Paths a `#[vectorise]` function can take"), re-exported as
//! `flatland::vectorise`.
//!
//! Put it on a module; every function of the module is parsed (at compile time) into the
//! vectoriser's IR ([`flatland_vectoriser::ir`]) and type-checked with
//! [`flatland_vectoriser::check`]. Anything outside the supported subset, and every type error, is
//! a compile error at the offending span that says what is supported: there is no silent fallback.
//!
//! # What it compiles to (honestly)
//! For each function `f(args) -> T` the module gets
//! - `pub fn f(args) -> T`, the signature as written: it returns the value of `try_f` and panics
//!   on a runtime error, as the same Rust code would (`v[i]` out of range, `x / 0`), with the
//!   message `f: ` followed by the error, which names the operation and the lane.
//! - `pub fn try_f(args) -> flatland_vectoriser::Result<T>`: the same code, returning the error
//!   (the arrow-rs convention of `unary` / `try_unary`). What it runs is described next.
//! - `try_f`'s body: the **strategy the run chooses** ([`flatland_vectoriser::strategy`]): the
//!   function's **per-lane form** (`plan::f::per_lane`, below) or the flattening **executor**
//!   (`plan::f::executor`), whichever the first calls of that input size measured faster (the
//!   executor alone where the function has no per-lane form or reaches a recursion that may
//!   keep a dead array alive across its recursive calls); a test forces either with
//!   `strategy::with_strategy`, and `plan::f::explain()` counts the calls of each and gives the
//!   measured times (`plan::f::ROUTES`). (Four hand-matched direct patterns, one runtime
//!   primitive with the element body as a closure, came before the per-lane form and were
//!   deleted once it ran their workloads at least as fast.)
//! - The module `plan` holds everything else the macro generates, so that the module's own
//!   namespace holds only `f` and `try_f` beside the user's items:
//!   - `plan::f::executor(args) -> flatland_vectoriser::Result<T>`: converts the arguments to
//!     the executor's columnar values, runs the **flattening executor** on
//!     `plan::f::prepared()` ([`flatland_vectoriser::exec::Prepared`], made once on the first
//!     call: the program is checked and fused by `flatland_vectoriser::fuse`, deciding the
//!     size-dependent fusions on the running machine's profile, then run by the lifting
//!     transformation on the runtime's segmented bulk primitives) and converts the result back.
//!     Runtime errors (index out of range, division by zero) come back as `Err`, naming the
//!     operation and lane.
//!   - `plan::kernels()`: the module's **native kernels**. At build time the macro lists every
//!     expression program the executor may compile for the module
//!     ([`flatland_vectoriser::native::kernel_programs`]: the scalar operator trees, the steps
//!     of built-in reductions, ranges, and the bodies of the single-pass fusion kernels, under
//!     both outcomes of every size-dependent fusion, so that the build reads no machine
//!     profile) and emits each as a Rust loop; `kernels()` is their table by program key
//!     ([`flatland_runtime::expr::native::Kernels`]), which the module's prepared programs
//!     carry (no process-wide registry: a program built elsewhere never runs these). The
//!     executor's programs run those loops instead of the expression machine, with its
//!     schedule, its errors (a failing lane hands the range back to the machine) and its bits.
//!     With the runtime's `stats` feature, `Work::lanes_interpreted` counts what still ran on
//!     the machine.
//!   - `plan::f::reference(args)`: the same IR through the reference interpreter
//!     ([`flatland_vectoriser::eval`]).
//!   - `plan::f::per_lane(args)`: the function's **per-lane form**: its IR transcribed into
//!     plain sequential Rust over slices (`plan::lanes::l_f`), with the interpreter's results
//!     and errors bit for bit, each `map`'s lanes run in parallel over element-balanced ranges
//!     where their work pays and a heavy lane's filters and folds split across the pool
//!     ([`flatland_vectoriser::lane`]). Functions whose boundary types are converted (narrow
//!     types, `Nested` of other element types than `i64`/`f64`) have `NO_PER_LANE_FORM`
//!     instead.
//!   - `plan::f::explain()` and `plan::explain()`: which code `try_f` runs (`per-lane` or
//!     `flatten`) and how many calls took each strategy, one line per function.
//!   - `plan::program() -> &'static flatland_vectoriser::ir::Program`: the module's IR, built
//!     once (a `OnceLock`) from code the macro emits.
//!
//! The expansion depends on the module's source alone: it reads no machine profile or cache
//! (a test expands one module under two profiles and compares the tokens). A module whose
//! functions are named `f` and `try_f` is a compile error (the macro generates `try_f`).
//!
//! Slice and `Vec` arguments are copied once into the executor's columns (`&Nested` arguments
//! keep their virtual segments).

//! # The supported subset
//! - Parameter types: `i64`, `f64`, `bool`, tuples of 2 to 4 supported types, `&[T]`, `&Vec<T>`,
//!   `Vec<T>` (any supported `T`, nested to any depth), and `&Nested<E>` (an array of arrays,
//!   `[[E]]` in the IR) for an element type `E` of `i64`, `f64`, `bool`, the narrow types below,
//!   tuples of 2 to 4 element types, or `Vec<E>` (`Nested<Vec<E>>` is `[[[E]]]`: its data block
//!   is itself a `Nested<E>`, so any depth is reached). Result types: the same without
//!   references, `Nested<E>` included. A `Nested` argument or result is converted directly
//!   between the runtime's store and the executor's columns, never through `Vec<Vec<_>>`:
//!   `i64`/`f64` blocks (and tuples of them) are shared, `bool` blocks unpacked from bits in one
//!   pass (`flatland_vectoriser::dsl::Element`).
//! - Narrow boundary types: `u32`, `i32`, `usize` (the IR's `i64`) and `f32` (`f64`), as scalars
//!   and in slices, `Vec`s (`&[Vec<usize>]` included) and `Nested` elements, in parameters and
//!   results. They are widened on entry and narrowed on exit in one parallel pass
//!   (`flatland_vectoriser::boundary`, counted in `runtime::stats::Work::elements_converted`);
//!   a value that does not fit (a `usize` above `i64::MAX` on entry, a negative `usize`, an
//!   `i64` beyond `u32`/`i32`, a finite `f64` beyond `f32::MAX` on exit) is
//!   `Error::DoesNotFit` naming the argument or result, the index and the value (`try_f`
//!   returns it, `f` panics with it). Inside the body they are `i64`/`f64`: arithmetic is the
//!   IR's. Not supported: narrow types inside tuples of slices or `Vec`s, other integer types.
//! - Bodies: `let` statements (names, `_`, tuple patterns) followed by one value; literals
//!   (`i64`, `f64`, `bool`), the constants `i64::MAX`/`MIN` and `f64::MAX`/`MIN`/`INFINITY`/
//!   `NEG_INFINITY`/`NAN`; `if`/`else` (both branches); tuples and `.0`, `.1`, ...; `+ - * / %`,
//!   comparisons, `& | ^ << >>`, `!`, unary `-`, `&&`/`||` (short-circuiting); `as i64`,
//!   `as f64`, `as bool`; `a[i]`; slices `a[s..e]`, `a[s..]`, `a[..e]`; ranges `(a..b)` (the
//!   array of `a..b`, empty when `b <= a`) and `(a..b).step_by(s)`; array literals `[a, b]` and
//!   `vec![a, b]`, `vec![x; n]`, `Vec::<T>::new()`; calls of the module's functions (recursion
//!   included).
//! - Methods on arrays: `map(|x| ..)`, `filter(|x| ..)`, `a.zip(b)` (consumed by `map` it costs
//!   nothing: `a.zip(b).map(|(x, y)| ..)` is a two-array map), `sum()`, `product()`, `min()`,
//!   `max()` (on `i64`/`f64`; the empty array gives the identity `0`, `1`, `MAX`/`INFINITY`,
//!   `MIN`/`NEG_INFINITY`, not `None`; on `f64` a NaN element makes the result NaN: IEEE
//!   754-2019 `minimum`/`maximum`, as `x.minimum(y)`/`x.maximum(y)` below, not Rust's
//!   NaN-skipping `f64::min`), `reduce(identity, |a, b| ..)` and `scan(identity, |a, b| ..)`
//!   (inclusive; the operator must be associative: `|a, b| a + b`, `a * b`, `a.minimum(b)`,
//!   `a.maximum(b)`, `a && b`, `a || b`, and `a.min(b)`, `a.max(b)` on `i64`, become the built-in
//!   operators; `a.min(b)`/`a.max(b)` on `f64` skip NaN as in Rust, a lambda reduction),
//!   `len()` (an `i64`), `concat()` (`[a, b, c].concat()` appends), `dest.scatter(indices,
//!   values)` (last index wins). On scalars: `x.min(y)`, `x.max(y)` (as Rust's: on `f64` a NaN
//!   operand is ignored), `x.minimum(y)`, `x.maximum(y)` (IEEE 754-2019: NaN if either is NaN),
//!   `x.abs()`, `x.sqrt()`, and the math methods of `f64` `exp`, `exp2`, `exp_m1`, `ln`, `ln_1p`,
//!   `log2`, `log10`, `sin`, `cos`, `tan`, `asin`, `acos`, `atan`, `sinh`, `cosh`, `tanh`,
//!   `floor`, `ceil`, `round`, `trunc`, `fract`, `recip`, `signum`, `is_nan`, `is_finite`,
//!   `is_infinite`, `powf(y)`, `powi(n)` (`n` an `i64`), `atan2(x)`, `hypot(y)`, `copysign(y)`,
//!   `rem_euclid(y)`, `div_euclid(y)`, `mul_add(a, b)` (one rounding) and of `i64` `signum`,
//!   `count_ones`, `leading_zeros`, `trailing_zeros`, `pow(n)` (wrapping; `n` an `i64`),
//!   `rem_euclid(y)`, `div_euclid(y)`, and `clamp(lo, hi)` of both: each gives the bits of Rust's
//!   method (`flatland_runtime::expr::op`), wrapping where Rust would overflow, a division by
//!   zero an error, and an error where Rust's `clamp` panics (`lo > hi` or a NaN bound). Comparisons are IEEE (false with NaN but `!=`), so a
//!   `filter` by comparison leaves NaN out (the table in `flatland::semantics`).
//!   `.min()`/`.max()` of an array use IEEE `minimum`/`maximum` (NaN propagates).
//! - Selection and sorting on arrays (their meaning in `flatland_vectoriser::derived`):
//!   `a.any(|x| ..)`, `a.all(|x| ..)`, `a.count()` (the length) and `a.filter(p).count()`
//!   (counted without building the filtered array), `a.first()` / `a.last()` (an index error on
//!   an empty array: there is no `Option`), `a.argmin()` / `a.argmax()` (`i64`/`f64`: the first
//!   least / greatest, the first NaN if any, `-1` when empty), `a.rev()`, `a.enumerate()` (pairs
//!   `(i, x)`), `a.take(n)` / `a.skip(n)` (`n` clamped to `0..=len`), `a.sort()` and
//!   `a.argsort()` (`i64`/`f64`; floats in `total_cmp` order; `argsort` stable) and
//!   `a.sort_by_key(|x| k)` (stable, `k` an `i64` or `f64`): each returns a new array (values are
//!   immutable). `a.zip(b).zip(c)` and `.zip(d)` zip three and four arrays (closures take
//!   `((x, y), z)` as in Rust; consumed by `map`, no tuple array is built).
//!   `iter()`, `into_iter()`, `copied()`, `cloned()`, `collect()`, `to_vec()`, `clone()` are
//!   accepted and do nothing (values are immutable). `*x` and `|&x|` are accepted likewise.
//! - Reductions by index (histograms): `hist(bins, identity, |a, b| .., indices, values)`, an
//!   array of `bins` values, bin `k` the fold from `identity` of the `values[j]` whose
//!   `indices[j] == k` (built-in operators as for `reduce`, or an associative closure; `i64`,
//!   `f64` or `bool` values); indices outside `0..bins` are skipped, so an index of `-1` leaves
//!   an element out. The association is fixed by blocks of the input
//!   (`flatland_runtime::assoc::hist`), the same bits for every thread count.
//!   `count_by_index(bins, indices)` counts each index. Under `map` each lane has its histogram.
//! - Closures are only arguments of `map`, `filter`, `reduce`, `scan`, `hist`, `any`, `all` and
//!   `sort_by_key`; their parameter types
//!   are inferred. Arithmetic follows the IR: `i64` wraps (no overflow panic), `/` and `%` by
//!   zero are runtime errors.
//!
//! # Options
//! `#[vectorise(vectoriser = path, runtime = path)]` name the vectoriser and runtime crates in the
//! generated code (defaults `::flatland::vectoriser` and the vectoriser's re-export
//! `VECTORISER::runtime`).
//!
//! ```
//! use flatland_macros::vectorise;
//!
//! #[vectorise(vectoriser = ::flatland_vectoriser)]
//! mod kernels {
//!     pub fn smvm(rows: &[Vec<(i64, f64)>], v: &[f64]) -> Vec<f64> {
//!         rows.map(|row| row.map(|(i, x)| x * v[i]).sum())
//!     }
//! }
//!
//! let rows = vec![vec![(0, 2.0), (1, 1.0)], vec![]];
//! assert_eq!(kernels::smvm(&rows, &[1.0, 3.0]), vec![5.0, 0.0]);
//! assert_eq!(kernels::plan::smvm::reference(&rows, &[1.0, 3.0]).unwrap(), vec![5.0, 0.0]);
//! // An index out of range: `try_smvm` returns the error, `smvm` would panic with it.
//! let e = kernels::try_smvm(&[vec![(5, 1.0)]], &[1.0]).unwrap_err();
//! assert!(e.to_string().contains("lane 0"), "{e}");
//! assert!(kernels::plan::explain().starts_with("smvm: per-lane"), "{}", kernels::plan::explain());
//! // Every strategy gives the same values and errors (a test override forces one).
//! use flatland_vectoriser::strategy::{Strategy, with_strategy};
//! let flat = with_strategy(Strategy::Flatten, || kernels::try_smvm(&rows, &[1.0, 3.0]));
//! assert_eq!(flat.unwrap(), vec![5.0, 0.0]);
//! assert!(kernels::plan::smvm::explain().contains("1 flatten"));
//! ```

mod append_calls;
mod emit;
mod lane;
mod last_use;
mod lower;
mod map_parts;
mod module;
mod native;
mod ops;
#[cfg(test)]
mod per_lane_tests;
mod recursion;
mod row_gathers;
mod sig;
mod whole_reads;

use proc_macro::TokenStream;

/// Vectorises the functions of a module (see the [crate docs](crate) for the supported subset
/// and what is generated).
///
/// ```
/// #[flatland_macros::vectorise(vectoriser = ::flatland_vectoriser)]
/// mod k {
///     pub fn squares(n: i64) -> Vec<i64> {
///         (0..n).map(|i| i * i)
///     }
/// }
/// assert_eq!(k::squares(4), vec![0, 1, 4, 9]);
/// assert_eq!(k::try_squares(2)?, vec![0, 1]);
/// # Ok::<(), flatland_vectoriser::Error>(())
/// ```
///
/// A runtime error panics in `f`, with the operation and the lane in the message:
///
/// ```should_panic
/// #[flatland_macros::vectorise(vectoriser = ::flatland_vectoriser)]
/// mod k {
///     pub fn pick(xs: &[i64], i: i64) -> i64 {
///         xs[i]
///     }
/// }
/// k::pick(&[1, 2], 7);
/// ```
#[proc_macro_attribute]
pub fn vectorise(attr: TokenStream, item: TokenStream) -> TokenStream {
    match module::expand(attr.into(), item.into()) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}
