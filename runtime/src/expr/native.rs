//! Native kernels: programs compiled ahead of time to Rust that rustc optimises (at build time, by
//! the `#[vectorise]` macro: `vectoriser/macros/src/native.rs`).
//!
//! A [`Kernel`] computes a lane range of one [`CompiledExpr`](super::CompiledExpr)'s output with a loop
//! that rustc compiled from the program's instructions. A module's kernels form a table
//! ([`Kernels`]) keyed by the program's [`key`](super::CompiledExpr::key) (its instructions, types and
//! constants, exactly); [`CompiledExpr::with_kernels`](super::CompiledExpr::with_kernels) attaches the
//! table's kernel for the program, and [`CompiledExpr::eval`](super::CompiledExpr::eval) /
//! [`CompiledExpr::eval_into`](super::CompiledExpr::eval_into) then run it instead of the register machine.
//! Nothing else changes:
//! - a kernel never reports errors itself: when a lane fails (an `i64` division by zero) it
//!   returns `false`, and the machine recomputes that task's lanes, so errors (and the lowest
//!   failing lane) are the machine's;
//! - the schedule (sequential or tasks of whole leaves, from the cost model) is the machine's;
//! - the work counters record the same reads and writes, plus
//!   [`Work::lanes_native`](crate::stats::Work::lanes_native) instead of
//!   [`Work::lanes_interpreted`](crate::stats::Work::lanes_interpreted), so tests can assert that
//!   no lane went through the machine.
//!
//! Kernels are plain functions over an [`Inputs`] view and an [`Out`] range; the generated code
//! slices each input to the output's lanes ([`Inputs::f64s_at`] and friends: equal lengths, so
//! rustc drops the bounds checks), fills the output with the helpers on [`Out`] (which pass the
//! position in the range) and computes with the operator functions of [`super::op`], so every
//! value is the one the machine computes.
//!
//! ```
//! use flatland_runtime::expr::{native, ColumnRef, ColumnExpr, CompiledExpr, ScalarType};
//! // out = x0 * 2 + 1, compiled by hand the way the macro generates it.
//! fn kernel(inputs: native::Inputs<'_, '_>, out: native::Out<'_>) -> bool {
//!     let x0 = inputs.i64s_at(0, out.lanes());
//!     out.fill_i64(|i| x0[i].wrapping_mul(2).wrapping_add(1))
//! }
//! let e = ColumnExpr::input(0) * ColumnExpr::constant(2i64) + ColumnExpr::constant(1i64);
//! let p = CompiledExpr::compile(&e, &[ScalarType::I64]).unwrap();
//! let kernels = native::Kernels::from_entries(&[(&p.key(), kernel)]);
//! let p = p.with_kernels(&kernels);
//! assert!(p.is_native());
//! let out = p.eval(&[ColumnRef::I64(&[1, 2, 3])], 3).unwrap();
//! assert_eq!(out.as_i64().unwrap(), &[3, 5, 7]);
//! ```

use super::column::ColumnRef;
use bitvec::slice::BitSlice;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

const WORD_BITS: usize = usize::BITS as usize;

/// A native kernel: computes the lanes of `out` (its [`Out::lanes`]) from the full input columns;
/// `false` if a lane failed (the machine then recomputes the range and reports the error).
///
/// ```
/// use flatland_runtime::expr::native::{Inputs, Kernel, Out};
/// fn ones(_: Inputs<'_, '_>, out: Out<'_>) -> bool {
///     out.fill_i64(|_| 1)
/// }
/// let k: Kernel = ones;
/// let mut o = [0; 2];
/// assert!(k(Inputs::new(&[]), Out::I64(0, &mut o)) && o == [1, 1]);
/// ```
pub type Kernel = fn(Inputs<'_, '_>, Out<'_>) -> bool;

/// Whether attached kernels run (see [`set_enabled`]).
static ENABLED: AtomicBool = AtomicBool::new(true);

/// Turns native kernels on or off for the whole process (on by default): off, every program runs
/// on the register machine. For benchmarks that compare the two; results are the same either
/// way.
///
/// ```
/// use flatland_runtime::expr::native;
/// native::set_enabled(false);
/// assert!(!native::enabled());
/// native::set_enabled(true);
/// ```
pub fn set_enabled(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
}

/// Whether native kernels run ([`set_enabled`]).
///
/// ```
/// assert!(flatland_runtime::expr::native::enabled());
/// ```
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// A table of native kernels by program [`key`](super::CompiledExpr::key): the kernels one
/// `#[vectorise]` module compiled, carried by the programs prepared from it. There is no
/// process-wide registry: a program runs a kernel only when the table it was compiled with
/// ([`CompiledExpr::with_kernels`](super::CompiledExpr::with_kernels)) holds one for its key, so a program
/// never picks up kernels that
/// another module compiled.
///
/// ```
/// use flatland_runtime::expr::{native::{Inputs, Kernels, Out}, ColumnExpr, CompiledExpr, ScalarType};
/// fn not(inputs: Inputs<'_, '_>, out: Out<'_>) -> bool {
///     let x = inputs.bools_at(0, out.lanes());
///     out.fill_bool(|i| !x.get(i))
/// }
/// let e = ColumnExpr::input(0).logical_not();
/// let p = CompiledExpr::compile(&e, &[ScalarType::Bool]).unwrap();
/// let kernels = Kernels::from_entries(&[(&p.key(), not)]);
/// assert!(!p.is_native());
/// assert!(p.with_kernels(&kernels).is_native());
/// assert!(!CompiledExpr::compile(&e, &[ScalarType::Bool]).unwrap().is_native());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Kernels {
    by_key: HashMap<String, Kernel>,
}

impl Kernels {
    /// An empty table.
    ///
    /// ```
    /// assert!(flatland_runtime::expr::native::Kernels::new().is_empty());
    /// ```
    #[must_use]
    pub fn new() -> Kernels {
        Kernels::default()
    }

    /// A table of `(key, kernel)` entries (a later entry for a key replaces an earlier one;
    /// generated kernels for one key compute the same values).
    ///
    /// ```
    /// use flatland_runtime::expr::native::{Inputs, Kernels, Out};
    /// fn ones(_: Inputs<'_, '_>, out: Out<'_>) -> bool {
    ///     out.fill_i64(|_| 1)
    /// }
    /// let t = Kernels::from_entries(&[("a", ones), ("b", ones)]);
    /// assert_eq!(t.len(), 2);
    /// ```
    #[must_use]
    pub fn from_entries(entries: &[(&str, Kernel)]) -> Kernels {
        let mut t = Kernels::new();
        for &(key, kernel) in entries {
            t.insert(key, kernel);
        }
        t
    }

    /// Adds (or replaces) the kernel for `key`.
    pub fn insert(&mut self, key: &str, kernel: Kernel) {
        self.by_key.insert(key.to_owned(), kernel);
    }

    /// The kernel for `key`, if any.
    ///
    /// ```
    /// assert!(flatland_runtime::expr::native::Kernels::new().get("no such program").is_none());
    /// ```
    #[must_use]
    pub fn get(&self, key: &str) -> Option<Kernel> {
        self.by_key.get(key).copied()
    }

    /// How many kernels the table holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    /// Whether the table holds no kernel.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }
}

/// The input columns of a kernel, typed at the program's input types.
///
/// ```
/// use flatland_runtime::expr::{native::Inputs, ColumnRef};
/// let cols = [ColumnRef::F64(&[1.5]), ColumnRef::Bool(&[true])];
/// let inputs = Inputs::new(&cols);
/// assert_eq!(inputs.f64s(0), &[1.5]);
/// assert!(inputs.bools(1).get(0));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Inputs<'c, 'a> {
    cols: &'c [ColumnRef<'a>],
}

impl<'c, 'a> Inputs<'c, 'a> {
    /// A view of `cols` (checked against the program's input types before a kernel runs).
    ///
    /// ```
    /// use flatland_runtime::expr::{native::Inputs, ColumnRef};
    /// assert_eq!(Inputs::new(&[ColumnRef::F64(&[2.0])]).f64s(0), &[2.0]);
    /// ```
    pub fn new(cols: &'c [ColumnRef<'a>]) -> Self {
        Inputs { cols }
    }

    /// Lanes `lanes` of input `k` as `i64` (empty if it is not an `i64` column or is shorter; the
    /// machine checks types and lengths before a kernel runs).
    ///
    /// ```
    /// use flatland_runtime::expr::{native::Inputs, ColumnRef};
    /// assert_eq!(Inputs::new(&[ColumnRef::I64(&[1, 2, 3])]).i64s_at(0, 1..3), &[2, 3]);
    /// ```
    pub fn i64s_at(&self, k: usize, lanes: Range<usize>) -> &'a [i64] {
        self.i64s(k).get(lanes).unwrap_or_default()
    }

    /// Lanes `lanes` of input `k` as `f64` (see [`Inputs::i64s_at`]).
    ///
    /// ```
    /// use flatland_runtime::expr::{native::Inputs, ColumnRef};
    /// assert_eq!(Inputs::new(&[ColumnRef::F64(&[1.0, 2.0])]).f64s_at(0, 1..2), &[2.0]);
    /// assert!(Inputs::new(&[ColumnRef::F64(&[1.0])]).f64s_at(0, 0..5).is_empty());
    /// ```
    pub fn f64s_at(&self, k: usize, lanes: Range<usize>) -> &'a [f64] {
        self.f64s(k).get(lanes).unwrap_or_default()
    }

    /// Lanes `lanes` of input `k` as `bool` (see [`Inputs::i64s_at`]).
    ///
    /// ```
    /// use flatland_runtime::expr::{native::Inputs, ColumnRef};
    /// assert!(Inputs::new(&[ColumnRef::Bool(&[false, true])]).bools_at(0, 1..2).get(0));
    /// ```
    pub fn bools_at(&self, k: usize, lanes: Range<usize>) -> Bools<'a> {
        match self.bools(k) {
            Bools::Bytes(x) => Bools::Bytes(x.get(lanes).unwrap_or_default()),
            Bools::Bits(x) => Bools::Bits(x.get(lanes).unwrap_or_default()),
        }
    }

    /// Input `k` as `i64` (empty if it is not an `i64` column; the machine checks types first).
    ///
    /// ```
    /// use flatland_runtime::expr::{native::Inputs, ColumnRef};
    /// let cols = [ColumnRef::I64(&[4]), ColumnRef::F64(&[4.0])];
    /// assert_eq!((Inputs::new(&cols).i64s(0), Inputs::new(&cols).i64s(1)), (&[4][..], &[][..]));
    /// ```
    pub fn i64s(&self, k: usize) -> &'a [i64] {
        match self.cols.get(k) {
            Some(ColumnRef::I64(x)) => x,
            _ => &[],
        }
    }

    /// Input `k` as `f64` (empty if it is not an `f64` column).
    ///
    /// ```
    /// use flatland_runtime::expr::{native::Inputs, ColumnRef};
    /// assert!(Inputs::new(&[ColumnRef::I64(&[4])]).f64s(0).is_empty());
    /// ```
    pub fn f64s(&self, k: usize) -> &'a [f64] {
        match self.cols.get(k) {
            Some(ColumnRef::F64(x)) => x,
            _ => &[],
        }
    }

    /// Input `k` as `bool`, unpacked or bit-packed (empty if it is not a `bool` column).
    ///
    /// ```
    /// use bitvec::prelude::*;
    /// use flatland_runtime::expr::{native::Inputs, ColumnRef};
    /// let bits = bitvec![1, 0];
    /// assert!(Inputs::new(&[ColumnRef::Bits(&bits)]).bools(0).get(0));
    /// ```
    pub fn bools(&self, k: usize) -> Bools<'a> {
        match self.cols.get(k) {
            Some(ColumnRef::Bool(x)) => Bools::Bytes(x),
            Some(ColumnRef::Bits(x)) => Bools::Bits(x),
            _ => Bools::Bytes(&[]),
        }
    }
}

/// A `bool` input column, in either layout.
///
/// ```
/// use bitvec::prelude::*;
/// use flatland_runtime::expr::native::Bools;
/// let bits = bitvec![0, 1];
/// assert!(Bools::Bits(&bits).get(1) && !Bools::Bytes(&[false]).get(0));
/// ```
#[derive(Clone, Copy, Debug)]
pub enum Bools<'a> {
    /// One `bool` per lane.
    Bytes(&'a [bool]),
    /// One bit per lane.
    Bits(&'a BitSlice),
}

impl Bools<'_> {
    /// Lane `i` (panics past the end, as slice indexing does).
    ///
    /// ```
    /// assert!(flatland_runtime::expr::native::Bools::Bytes(&[true]).get(0));
    /// ```
    #[inline(always)]
    pub fn get(&self, i: usize) -> bool {
        match self {
            Bools::Bytes(x) => x[i],
            Bools::Bits(x) => x[i],
        }
    }
}

/// Where a kernel writes: the output lanes `first..first + len` of one task, in the output
/// column's layout.
///
/// ```
/// use flatland_runtime::expr::native::Out;
/// let mut o = [0.0; 3];
/// assert!(Out::F64(2, &mut o).fill_f64(|i| i as f64 * 10.0)); // i: the position in lanes 2..5
/// assert_eq!(o, [0.0, 10.0, 20.0]);
/// ```
#[derive(Debug)]
pub enum Out<'a> {
    /// `i64` lanes from the first (the lane number of element 0).
    I64(usize, &'a mut [i64]),
    /// `f64` lanes from the first.
    F64(usize, &'a mut [f64]),
    /// `bool` lanes, one per element, from the first.
    Bool(usize, &'a mut [bool]),
    /// `bool` lanes bit-packed from the first (a multiple of the word size); `len` lanes.
    Words(usize, usize, &'a mut [usize]),
}

impl Out<'_> {
    /// The lanes this output covers.
    ///
    /// ```
    /// use flatland_runtime::expr::native::Out;
    /// assert_eq!(Out::I64(4, &mut [0; 2]).lanes(), 4..6);
    /// ```
    pub fn lanes(&self) -> Range<usize> {
        match self {
            Out::I64(f, x) => *f..*f + x.len(),
            Out::F64(f, x) => *f..*f + x.len(),
            Out::Bool(f, x) => *f..*f + x.len(),
            Out::Words(f, n, _) => *f..*f + n,
        }
    }

    /// Writes `f(i)` to the `i`-th lane of the range (lane `lanes().start + i`); `false` (and
    /// nothing more written) at the first lane where `f` fails, or if this is not an `i64`
    /// output.
    ///
    /// ```
    /// use flatland_runtime::expr::native::Out;
    /// assert!(!Out::I64(0, &mut [0; 2]).try_fill_i64(|i| 1i64.checked_div(i as i64)));
    /// ```
    #[inline(always)]
    pub fn try_fill_i64(self, f: impl Fn(usize) -> Option<i64>) -> bool {
        match self {
            Out::I64(_, x) => try_fill(x, f),
            _ => false,
        }
    }

    /// [`Out::try_fill_i64`] for a computation that cannot fail (a loop rustc can vectorise).
    ///
    /// ```
    /// use flatland_runtime::expr::native::Out;
    /// let mut o = [0; 2];
    /// assert!(Out::I64(1, &mut o).fill_i64(|i| i as i64 * 10));
    /// assert_eq!(o, [0, 10]);
    /// ```
    #[inline(always)]
    pub fn fill_i64(self, f: impl Fn(usize) -> i64) -> bool {
        match self {
            Out::I64(_, x) => fill(x, f),
            _ => false,
        }
    }

    /// As [`Out::try_fill_i64`], for an `f64` output.
    ///
    /// ```
    /// use flatland_runtime::expr::native::Out;
    /// assert!(Out::F64(0, &mut [0.0]).try_fill_f64(|_| Some(1.0)));
    /// ```
    #[inline(always)]
    pub fn try_fill_f64(self, f: impl Fn(usize) -> Option<f64>) -> bool {
        match self {
            Out::F64(_, x) => try_fill(x, f),
            _ => false,
        }
    }

    /// As [`Out::fill_i64`], for an `f64` output.
    ///
    /// ```
    /// use flatland_runtime::expr::native::Out;
    /// assert!(!Out::I64(0, &mut [0]).fill_f64(|_| 1.0)); // wrong output type
    /// ```
    #[inline(always)]
    pub fn fill_f64(self, f: impl Fn(usize) -> f64) -> bool {
        match self {
            Out::F64(_, x) => fill(x, f),
            _ => false,
        }
    }

    /// As [`Out::try_fill_i64`], for a `bool` output in either layout.
    ///
    /// ```
    /// use flatland_runtime::expr::native::Out;
    /// let mut words = [0usize; 1];
    /// assert!(Out::Words(0, 3, &mut words).try_fill_bool(|i| Some(i != 1)));
    /// assert_eq!(words[0], 0b101);
    /// ```
    #[inline(always)]
    pub fn try_fill_bool(self, f: impl Fn(usize) -> Option<bool>) -> bool {
        match self {
            Out::Bool(_, x) => try_fill(x, f),
            Out::Words(_, len, words) => {
                for (w, word) in words.iter_mut().enumerate() {
                    let base = w * WORD_BITS;
                    let mut bits = 0usize;
                    for b in 0..WORD_BITS.min(len - base) {
                        match f(base + b) {
                            Some(v) => bits |= usize::from(v) << b,
                            None => return false,
                        }
                    }
                    *word = bits;
                }
                true
            }
            _ => false,
        }
    }

    /// As [`Out::fill_i64`], for a `bool` output in either layout.
    ///
    /// ```
    /// use flatland_runtime::expr::native::Out;
    /// let mut o = [false; 2];
    /// assert!(Out::Bool(0, &mut o).fill_bool(|i| i == 1));
    /// assert_eq!(o, [false, true]);
    /// ```
    #[inline(always)]
    pub fn fill_bool(self, f: impl Fn(usize) -> bool) -> bool {
        self.try_fill_bool(|i| Some(f(i)))
    }
}

#[inline(always)]
fn fill<T>(out: &mut [T], f: impl Fn(usize) -> T) -> bool {
    for (i, o) in out.iter_mut().enumerate() {
        *o = f(i);
    }
    true
}

#[inline(always)]
fn try_fill<T>(out: &mut [T], f: impl Fn(usize) -> Option<T>) -> bool {
    for (i, o) in out.iter_mut().enumerate() {
        match f(i) {
            Some(v) => *o = v,
            None => return false,
        }
    }
    true
}
