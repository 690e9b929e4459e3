//! The flattened executor: runs a program through the lifting transformation
//! (the private `flatten` module) on the runtime's bulk primitives, from the top-level context of one lane.
//!
//! Results are bitwise those of [`crate::eval`] (floats included: every reduction and scan uses
//! the canonical association), and runtime errors name the same operation and lane.
//!
//! # Errors
//!
//! A failing run reports the reference interpreter's first error, found without rerunning the
//! program.
//!
//! Lifted execution runs one bulk step at a time over all lanes of a context, so when several
//! lanes fail it can meet the failures in another order than the lane-by-lane interpreter,
//! which defines the meaning of a program, its first error included. The rule:
//!
//! - A failing step reports its lowest failing lane `L` and, for that lane, the interpreter's
//!   error (the expression machine and the lifted primitives report exactly that). An earlier
//!   error in the interpreter's order can only come from parts the executor had not run yet:
//!   parts after the failing one, on the lanes below `L` (the interpreter finishes lanes
//!   `0..L` before lane `L`), and, at lane `L` itself, steps the executor defers (a scalar
//!   tree's operators run after all its inputs); recursively the same in the enclosing
//!   contexts, which `map` and `if` carry the lane into (a body's lane `j` is its segment's
//!   lane, a branch's lane its position among the `if`'s).
//! - A static analysis computed once per [`Prepared`] (the crate's `fallible` module) says which
//!   nodes may fail (integer division by a divisor that is not a non-zero constant, indexing,
//!   slices, `iota`/`replicate` of lengths that are not non-negative constants, arrays of
//!   different lengths, scatters, histograms, partitions, calls (the recursion limit), and
//!   anything holding one). When nothing that had not run may fail, the error is the
//!   interpreter's with no rerun at all (smvm's bad column index).
//! - Otherwise the nearest *root* settles it: a map's body (which keeps its environment while
//!   it runs, where it may fail), or a node whose parts the executor runs in another order
//!   (reductions and scans with a lambda, redomaps, filters, partitions, histograms, loops,
//!   scatters, fused forms, scalar trees whose operators may fail after an input that may),
//!   which keeps its free variables. It reruns itself lifted on its lanes below `L` only (by
//!   halves where no lane is known, as errors inside a lambda operator's bulk steps are), takes
//!   the lowest error found there, recursively, and asks the reference interpreter for one
//!   lane only: the lane it ends on, where the executor's error there may not be the first.
//!   The cost is bounded by the failing context's lanes. A root whose node calls a function
//!   keeps nothing (its values would live through the recursion, and lifted recursion's peak
//!   memory must stay linear in its depth): its faults go up to the enclosing root, and a
//!   fault no root settled is asked of the interpreter on the whole program (below), as
//!   before.
//! - Errors of the whole run keep the executor's: a memory budget refusal (sizes over all
//!   lanes), internal errors. A rerun meeting the recursion limit reports it, as the
//!   interpreter does when it meets the limit before the runtime error.
//!
//! Below, the executor's division fails first (at lane 1), but the interpreter finishes lane 0,
//! whose index fails, before it reaches lane 1:
//!
//! ```
//! use flatland_vectoriser::{exec, ir::{Expr, Function, Lambda, Program, Type}, value::Value};
//! let body = Expr::let_("y", Expr::i64(10) / Expr::var("x"), Expr::index(Expr::var("xs"), Expr::var("y")));
//! let f = Expr::map(Lambda::new(&["x"], body), vec![Expr::var("xs")]);
//! let p = Program::new(vec![Function::new("f", vec![("xs".into(), Type::array(Type::I64))], Type::array(Type::I64), f)]);
//! let xs = Value::array(vec![Value::I64(1), Value::I64(0)]);
//! let e = exec::run(&p, "f", vec![xs]).unwrap_err();
//! assert_eq!(e.to_string(), "index: lane 0: index 10 out of range for length 2");
//! ```
//!
//! ```
//! use flatland_vectoriser::{exec, eval, programs, value::Value};
//! let (p, _) = programs::smvm();
//! let rows = Value::array(vec![Value::array(vec![Value::Tuple(vec![Value::I64(1), Value::F64(2.0)])]), Value::array(vec![])]);
//! let v = Value::array(vec![Value::F64(1.0), Value::F64(5.0)]);
//! let flat = exec::run(p.ir(), "smvm", vec![rows.clone(), v.clone()]).unwrap();
//! assert_eq!(flat, eval::run(p.ir(), "smvm", vec![rows, v]).unwrap());
//! ```

use crate::check;
use crate::error::{Error, Result};
use crate::eval;
use crate::flatten::{Ctx, Flattener};
use crate::ir::Program;
use crate::lval::{LVal, LaneColumn, adopt};
use crate::value::Value;
use flatland_runtime::elt::{Buffer, Nested};
use flatland_runtime::expr::native::Kernels;
use std::sync::Arc;

/// Checks `p` and the arguments, then runs `function` flattened.
///
/// # Errors
/// A type error in the program, arguments that do not fit, or a runtime error naming the
/// operation and lane (as [`eval::run`] names them).
///
/// ```
/// use flatland_vectoriser::{exec, ir::{Expr, Function, Lambda, Program, Type}, value::Value};
/// let body = Expr::map(Lambda::new(&["x"], Expr::i64(10) / Expr::var("x")), vec![Expr::var("xs")]);
/// let p = Program::new(vec![Function::new("f", vec![("xs".into(), Type::array(Type::I64))], Type::array(Type::I64), body)]);
/// let xs = Value::array(vec![Value::I64(5), Value::I64(0)]);
/// assert_eq!(exec::run(&p, "f", vec![xs]).unwrap_err().to_string(), "div: lane 1: division by zero");
/// ```
pub fn run(p: &Program, function: &str, args: Vec<Value>) -> Result<Value> {
    run_with(p, function, args, &ExecOptions::default())
}

/// How the executor runs a program.
///
/// ```
/// use flatland_vectoriser::exec::ExecOptions;
/// assert!(ExecOptions::default().fuse);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecOptions {
    /// Apply [`crate::fuse`] (the IR rules and the single-pass redomap kernels); on by default.
    /// Off, the program runs exactly as written, one bulk step per construct.
    pub fuse: bool,
}

impl Default for ExecOptions {
    fn default() -> ExecOptions {
        ExecOptions { fuse: true }
    }
}

/// A program checked, fused (under its options) and analysed once, ready to run one of its
/// functions any number of times: [`run_with`] and [`run_args_with`] prepare on every call, a
/// `Prepared` keeps that work (type check, fusion, node types, liveness) out of the runs.
///
/// ```
/// use flatland_vectoriser::{dsl::{Arr, Ty}, exec::{ExecOptions, Prepared}, programs};
/// let (p, f) = programs::dot();
/// let dot = Prepared::new(p.ir(), f.name(), &ExecOptions::default()).unwrap();
/// for k in 1..3 {
///     let args = vec![<Arr<f64>>::to_lanes(vec![vec![1.0, 2.0]]), <Arr<f64>>::to_lanes(vec![vec![3.0, k as f64]])];
///     assert_eq!(<f64 as Ty>::from_lanes(&dot.run_args(args).unwrap()), Some(vec![3.0 + 2.0 * k as f64]));
/// }
/// ```
pub struct Prepared {
    /// The program as written: a failing run asks the reference interpreter for its error.
    written: Program,
    /// The program that runs (`written` fused, or a copy of it); `types` and `live` are keyed by
    /// its nodes' addresses, which stay put since the program is never changed or moved out.
    program: Box<Program>,
    types: Arc<check::Types>,
    live: Arc<crate::liveness::Liveness>,
    /// Which nodes of `program` may fail ([`crate::fallible`]).
    fallible: Arc<crate::fallible::Fallible>,
    function: String,
    fuse: bool,
    /// The native kernels its expression programs run ([`Prepared::with_kernels`]).
    kernels: Arc<Kernels>,
    /// The size-dependent fusions decided when it was prepared, with the cost model's reasons.
    decisions: Vec<String>,
    /// The routes its single-pass steps took ([`Prepared::trace`]).
    trace: Arc<crate::trace::Trace>,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("function", &self.function)
            .field("fuse", &self.fuse)
            .finish_non_exhaustive()
    }
}

impl Prepared {
    /// Checks `p`, fuses it when `opts.fuse`, and prepares `function` to run.
    ///
    /// # Errors
    /// A type error in the program, or no function `function`.
    ///
    /// ```
    /// use flatland_vectoriser::{exec::{ExecOptions, Prepared}, programs};
    /// let (p, _) = programs::smvm();
    /// assert!(Prepared::new(p.ir(), "smvm", &ExecOptions::default()).is_ok());
    /// let e = Prepared::new(p.ir(), "nope", &ExecOptions { fuse: false }).unwrap_err();
    /// assert_eq!(e.to_string(), "bad input: no function `nope`");
    /// ```
    pub fn new(p: &Program, function: &str, opts: &ExecOptions) -> Result<Prepared> {
        Prepared::deciding(p, function, opts.fuse, crate::fuse::Decide::Predict)
    }

    /// [`Prepared::new`] with the size-dependent fusions decided by `decide`.
    pub(crate) fn deciding(
        p: &Program,
        function: &str,
        fuse: bool,
        decide: crate::fuse::Decide,
    ) -> Result<Prepared> {
        flatland_runtime::stats::record_programs_prepared(1);
        check::check_program(p)?;
        let (program, decisions) = if fuse {
            let fused = crate::fuse::fuse_explained(p, decide);
            (fused.program, fused.decisions)
        } else {
            (p.clone(), Vec::new())
        };
        let program = Box::new(program);
        let types = check::annotate(&program)?;
        let mut decisions = decisions;
        decisions.extend(crate::scalar_tree::if_conversions(&program, &types));
        if program.function(function).is_none() {
            return Err(Error::Input {
                detail: format!("no function `{function}`"),
            });
        }
        let live = Arc::new(crate::flatten::analyse(&program, &types));
        let fallible = Arc::new(crate::fallible::Fallible::of(&program, &types));
        Ok(Prepared {
            written: p.clone(),
            program,
            types: Arc::new(types),
            live,
            fallible,
            function: function.to_string(),
            fuse,
            kernels: Arc::default(),
            decisions,
            trace: Arc::default(),
        })
    }

    /// The prepared program with `kernels` as the native kernels of its expression programs
    /// (the table `#[vectorise]` compiled for its module; a prepared program has none
    /// otherwise, so the expression machine runs them). Kernels are found by program key in
    /// this table only, never in another module's.
    ///
    /// ```
    /// use flatland_vectoriser::{exec::{ExecOptions, Prepared}, programs, runtime::expr::native::Kernels};
    /// let (p, f) = programs::sum_squares();
    /// let prepared = Prepared::new(p.ir(), f.name(), &ExecOptions::default()).unwrap();
    /// assert_eq!(prepared.kernels().len(), 0);
    /// let prepared = prepared.with_kernels(std::sync::Arc::new(Kernels::new()));
    /// assert!(prepared.kernels().is_empty());
    /// ```
    #[must_use]
    pub fn with_kernels(mut self, kernels: Arc<Kernels>) -> Prepared {
        self.kernels = kernels;
        self
    }

    /// The native kernels of this prepared program.
    pub fn kernels(&self) -> &Kernels {
        &self.kernels
    }

    /// The routes the single-pass steps of this program's runs took: each kind of step's runs
    /// of its kernel and the runs where the kernel declined and the unfused steps ran.
    pub fn trace(&self) -> &crate::trace::Trace {
        &self.trace
    }

    /// The decisions taken when this program was prepared, each with the cost model's
    /// prediction: the size-dependent fusions (the "mega" step), on the running machine's
    /// profile ([`crate::fuse::explain`] gives the same for any program), then the
    /// if-conversions: each `if` whose branches cannot fail runs as a select or by packing
    /// lanes, decided on the reference profile ([`flatland_runtime::cost::Machine::REFERENCE`]).
    ///
    /// ```
    /// use flatland_vectoriser::{exec::{ExecOptions, Prepared}, fuse};
    /// let p = Prepared::new(&fuse::fusion2(), "fusion2", &ExecOptions::default()).unwrap();
    /// assert!(p.decisions().iter().any(|d| d.starts_with("mega")), "{:?}", p.decisions());
    /// let p = Prepared::new(&fuse::fusion2(), "fusion2", &ExecOptions { fuse: false }).unwrap();
    /// assert!(p.decisions().is_empty());
    /// ```
    pub fn decisions(&self) -> &[String] {
        &self.decisions
    }

    /// The program that runs (fused when the options say so).
    pub(crate) fn fused_program(&self) -> &Program {
        &self.program
    }

    /// The types of the nodes of [`Prepared::fused_program`].
    pub(crate) fn node_types(&self) -> &check::Types {
        &self.types
    }

    /// A flattener over the program that runs, with this preparation's options.
    pub(crate) fn flattener(&self) -> Flattener<'_> {
        Flattener::planned(
            &self.program,
            self.types.clone(),
            self.live.clone(),
            self.kernels.clone(),
            self.trace.clone(),
            self.fallible.clone(),
        )
        .with_fuse(self.fuse)
    }

    /// Runs the function flattened from the top-level context; what the kernels kept for each
    /// other during the run is dropped at its end. An error comes with whether it is settled:
    /// known to be the interpreter's first (see [`interpreters_error`]).
    fn call(&self, args: Vec<LVal>) -> std::result::Result<LVal, (Error, bool)> {
        let _forget = crate::kernels::repeat::Forget;
        let top = Ctx::top();
        self.flattener()
            .call(&self.function, args, &top)
            .map_err(|e| {
                let settled = top.settled(&e);
                (e, settled)
            })
    }

    fn params(&self) -> &[(String, crate::ir::Type)] {
        &self
            .program
            .function(&self.function)
            .expect("checked when prepared")
            .params
    }

    /// Runs the function on one value per parameter (as [`run_with`]).
    ///
    /// # Errors
    /// As [`run`].
    ///
    /// ```
    /// use flatland_vectoriser::{exec::{ExecOptions, Prepared}, programs, value::Value};
    /// let (p, f) = programs::sum_squares();
    /// let sq = Prepared::new(p.ir(), f.name(), &ExecOptions::default()).unwrap();
    /// let xs = Value::array(vec![Value::F64(1.0), Value::F64(2.0)]);
    /// assert_eq!(sq.run(vec![xs]).unwrap(), Value::F64(5.0));
    /// ```
    pub fn run(&self, args: Vec<Value>) -> Result<Value> {
        eval::check_args(&self.program, &self.function, &args)?;
        let largs = args
            .iter()
            .zip(self.params())
            .map(|(a, (_, t))| LVal::from_values(std::slice::from_ref(a), t))
            .collect::<Result<_>>()?;
        let out = self.call(largs).map_err(|(e, settled)| {
            if settled {
                e
            } else {
                interpreters_error(&self.written, &self.function, || Ok(args), e)
            }
        })?;
        out.to_values().pop().ok_or_else(|| Error::Input {
            detail: "no result".into(),
        })
    }

    /// Runs the function on columnar arguments of one lane each (as [`run_args_with`]); the
    /// result has one lane.
    ///
    /// # Errors
    /// As [`run_args`].
    ///
    /// ```
    /// use flatland_vectoriser::{dsl::{Arr, Ty}, exec::{Arg, ExecOptions, Prepared}, programs};
    /// let (p, f) = programs::sum_squares();
    /// let sq = Prepared::new(p.ir(), f.name(), &ExecOptions::default()).unwrap();
    /// let e = sq.run_args(vec![Arg::i64s(vec![1])]).unwrap_err();
    /// assert_eq!(e.to_string(), "bad input: argument `xs` of `sum_squares` must be one [f64]");
    /// ```
    pub fn run_args(&self, args: Vec<Arg>) -> Result<Arg> {
        self.run_args_settled(args, |largs| self.call(largs))
    }

    /// [`Prepared::run_args`] with the run done by `run`, whose error says whether it is
    /// settled (the interpreter's first); an unsettled runtime error is asked of the
    /// interpreter ([`interpreters_error`]).
    fn run_args_settled(
        &self,
        args: Vec<Arg>,
        run: impl FnOnce(Vec<LVal>) -> std::result::Result<LVal, (Error, bool)>,
    ) -> Result<Arg> {
        let function = &self.function;
        let params = self.params();
        if params.len() != args.len() {
            return Err(Error::Input {
                detail: format!(
                    "`{function}` takes {} arguments, given {}",
                    params.len(),
                    args.len()
                ),
            });
        }
        for ((n, t), a) in params.iter().zip(&args) {
            if a.0.lanes() != 1 || !a.0.has_type(t) {
                return Err(Error::Input {
                    detail: format!("argument `{n}` of `{function}` must be one {t}"),
                });
            }
        }
        let largs: Vec<LVal> = args.into_iter().map(|a| a.0).collect();
        let kept = largs.clone();
        let out = run(largs).map_err(|(e, settled)| {
            if settled {
                return e;
            }
            let values = || {
                kept.iter()
                    .map(|a| {
                        a.to_values().pop().ok_or_else(|| Error::Input {
                            detail: "an argument with no lane".into(),
                        })
                    })
                    .collect()
            };
            interpreters_error(&self.written, function, values, e)
        })?;
        Ok(Arg(out))
    }
}

/// [`run`] under the given options.
///
/// # Errors
/// As [`run`].
///
/// ```
/// use flatland_vectoriser::{exec::{self, ExecOptions}, programs, value::Value};
/// let (p, f) = programs::dot();
/// let xs = Value::array(vec![Value::F64(0.1), Value::F64(0.2)]);
/// let on = exec::run_with(p.ir(), f.name(), vec![xs.clone(), xs.clone()], &ExecOptions { fuse: true });
/// let off = exec::run_with(p.ir(), f.name(), vec![xs.clone(), xs], &ExecOptions { fuse: false });
/// assert_eq!(on.unwrap(), off.unwrap());
/// ```
pub fn run_with(
    p: &Program,
    function: &str,
    args: Vec<Value>,
    opts: &ExecOptions,
) -> Result<Value> {
    Prepared::new(p, function, opts)?.run(args)
}

/// An argument or result in the executor's columnar form: one value per lane as flat columns and
/// segment descriptors (struct of arrays), built from Rust vectors without boxing each element
/// (see [`crate::dsl::Ty::to_lanes`]). The dsl's `Program::exec` and `Prepared::call` pass one lane per argument.
///
/// ```
/// use flatland_vectoriser::dsl::{Arr, Ty};
/// let a = <Arr<f64> as Ty>::to_lanes(vec![vec![1.0, 2.0], vec![]]);
/// assert_eq!(<Arr<f64> as Ty>::from_lanes(&a), Some(vec![vec![1.0, 2.0], vec![]]));
/// ```
#[derive(Clone, Debug)]
pub struct Arg(pub(crate) LVal);

impl Arg {
    /// One `i64` per lane, adopting the vector.
    ///
    /// ```
    /// use flatland_vectoriser::{dsl::Ty, exec::Arg};
    /// assert_eq!(<i64 as Ty>::from_lanes(&Arg::i64s(vec![4, 5])), Some(vec![4, 5]));
    /// ```
    pub fn i64s(xs: Vec<i64>) -> Arg {
        Arg(LVal::Scalar(LaneColumn::I64(adopt(xs))))
    }

    /// One `f64` per lane, adopting the vector.
    ///
    /// ```
    /// use flatland_vectoriser::{dsl::Ty, exec::Arg};
    /// assert_eq!(<f64 as Ty>::from_lanes(&Arg::f64s(vec![0.5])), Some(vec![0.5]));
    /// ```
    pub fn f64s(xs: Vec<f64>) -> Arg {
        Arg(LVal::Scalar(LaneColumn::F64(adopt(xs))))
    }

    /// One `bool` per lane, adopting the vector.
    ///
    /// ```
    /// use flatland_vectoriser::{dsl::Ty, exec::Arg};
    /// assert_eq!(<bool as Ty>::from_lanes(&Arg::bools(vec![true])), Some(vec![true]));
    /// ```
    pub fn bools(xs: Vec<bool>) -> Arg {
        Arg(LVal::Scalar(LaneColumn::Bool(adopt(xs))))
    }

    /// A tuple per lane from one argument per field (equal lane counts).
    ///
    /// # Errors
    /// Fields with different lane counts.
    ///
    /// ```
    /// use flatland_vectoriser::{dsl::Ty, exec::Arg};
    /// let t = Arg::tuple(vec![Arg::i64s(vec![1]), Arg::f64s(vec![2.0])]).unwrap();
    /// assert_eq!(<(i64, f64) as Ty>::from_lanes(&t), Some(vec![(1, 2.0)]));
    /// ```
    pub fn tuple(fields: Vec<Arg>) -> Result<Arg> {
        let n = fields.first().map_or(0, |f| f.0.lanes());
        if fields.iter().any(|f| f.0.lanes() != n) {
            return Err(Error::Input {
                detail: "tuple fields with different lane counts".into(),
            });
        }
        Ok(Arg(LVal::Tuple(fields.into_iter().map(|f| f.0).collect())))
    }

    /// A runtime [`Nested`] array of `i64` as one `[[i64]]` argument. A single-block array is
    /// adopted without a copy: its block is shared and its virtual segments kept (replicated
    /// rows stay shared). Several blocks are concatenated first.
    ///
    /// # Errors
    /// A virtual element count that does not fit in `usize`.
    ///
    /// ```
    /// use flatland_runtime::elt::Nested;
    /// use flatland_vectoriser::{dsl::{Arr, Ty}, exec::Arg};
    /// let n = Nested::<i64>::from_offsets(vec![0, 2, 2, 3], vec![1, 2, 3]).unwrap();
    /// let a = Arg::nested_i64(&n).unwrap();
    /// assert_eq!(<Arr<Arr<i64>> as Ty>::from_lanes(&a), Some(vec![vec![vec![1, 2], vec![], vec![3]]]));
    /// ```
    pub fn nested_i64(n: &Nested<i64>) -> Result<Arg> {
        nested(n, LaneColumn::I64)
    }

    /// A runtime [`Nested`] array of `f64` as one `[[f64]]` argument (as [`Arg::nested_i64`]).
    ///
    /// # Errors
    /// A virtual element count that does not fit in `usize`.
    ///
    /// ```
    /// use flatland_runtime::elt::Nested;
    /// use flatland_vectoriser::{dsl::{Arr, Ty}, exec::Arg};
    /// let n = Nested::<f64>::from_offsets(vec![0, 1], vec![0.5]).unwrap().replicate(2).unwrap();
    /// let a = Arg::nested_f64(&n).unwrap();
    /// assert_eq!(<Arr<Arr<f64>> as Ty>::from_lanes(&a), Some(vec![vec![vec![0.5], vec![0.5]]]));
    /// ```
    pub fn nested_f64(n: &Nested<f64>) -> Result<Arg> {
        nested(n, LaneColumn::F64)
    }

    /// Arrays of the given lengths over the lanes of `inner`, in order (CSR-style adoption: no
    /// element is copied).
    ///
    /// # Errors
    /// Lengths that do not add up to `inner`'s lane count.
    ///
    /// ```
    /// use flatland_vectoriser::{dsl::{Arr, Ty}, exec::Arg};
    /// let a = Arg::arrays(vec![2, 0, 1], Arg::i64s(vec![7, 8, 9])).unwrap();
    /// assert_eq!(<Arr<i64> as Ty>::from_lanes(&a), Some(vec![vec![7, 8], vec![], vec![9]]));
    /// ```
    pub fn arrays(lengths: Vec<usize>, inner: Arg) -> Result<Arg> {
        let total = lengths.iter().try_fold(0usize, |a, &l| a.checked_add(l));
        if total != Some(inner.0.lanes()) {
            return Err(Error::Input {
                detail: format!(
                    "array lengths do not add up to {} elements",
                    inner.0.lanes()
                ),
            });
        }
        Ok(Arg(LVal::array_of(lengths, inner.0)))
    }
}

fn nested<T>(n: &Nested<T>, col: impl Fn(Buffer<T>) -> LaneColumn) -> Result<Arg>
where
    T: flatland_runtime::elt::Elt<Store = Buffer<T>> + flatland_runtime::elt::Prim,
{
    let inner = if let [block] = n.blocks() {
        LVal::Array(
            n.vsegd().clone(),
            Arc::new(LVal::Scalar(col(block.clone()))),
        )
    } else {
        let (segd, flat) = n.concat()?;
        LVal::array_of(segd.lengths().into_owned(), LVal::Scalar(col(flat)))
    };
    Ok(Arg(LVal::Array(
        crate::lval::vsegd_of_segd(&flatland_segd::Segd::regular(1, n.len())),
        Arc::new(inner),
    )))
}

/// Runs `function` flattened on columnar arguments of one lane each; the result has one lane.
///
/// # Errors
/// As [`run`]; an argument of the wrong type or lane count is an [`Error::Input`].
///
/// ```
/// use flatland_vectoriser::{dsl::{Arr, Ty}, exec, programs};
/// let (p, f) = programs::dot();
/// let args = vec![<Arr<f64>>::to_lanes(vec![vec![1.0, 2.0]]), <Arr<f64>>::to_lanes(vec![vec![3.0, 4.0]])];
/// let out = exec::run_args(p.ir(), f.name(), args).unwrap();
/// assert_eq!(<f64 as Ty>::from_lanes(&out), Some(vec![11.0]));
/// ```
pub fn run_args(p: &Program, function: &str, args: Vec<Arg>) -> Result<Arg> {
    run_args_with(p, function, args, &ExecOptions::default())
}

/// [`run_args`] under the given options.
///
/// # Errors
/// As [`run_args`].
///
/// ```
/// use flatland_vectoriser::{dsl::{Arr, Ty}, exec::{self, ExecOptions}, programs};
/// let (p, f) = programs::sum_squares();
/// let args = vec![<Arr<f64>>::to_lanes(vec![vec![1.0, 2.0]])];
/// let out = exec::run_args_with(p.ir(), f.name(), args, &ExecOptions { fuse: false }).unwrap();
/// assert_eq!(<f64 as Ty>::from_lanes(&out), Some(vec![5.0]));
/// ```
pub fn run_args_with(
    p: &Program,
    function: &str,
    args: Vec<Arg>,
    opts: &ExecOptions,
) -> Result<Arg> {
    Prepared::new(p, function, opts)?.run_args(args)
}

/// The reference interpreter's error for a run that failed with `found`, asked of it on the
/// whole program: the executor's errors are settled without it (the module doc, "Errors").
///
/// This is what remains of the old rule, for a fault no root settled (none is known): it runs the
/// reference interpreter once on the program as written and reports the error it names.
/// Errors that are not runtime errors, and the (internal-bug) case of the interpreter
/// succeeding, keep the executor's error; the interpreter meeting the recursion limit
/// ([`crate::limits`]) before the runtime error is its error.
///
/// A recursion past the limit is not rerun: the interpreter holds every level's values where
/// the executor releases them after their last use, so rerunning a recursion the executor took
/// to the limit could take far more memory than the run did. The executor's
/// [`Error::RecursionLimit`] is the interpreter's whenever the two meet it first (no other lane
/// fails before it) and one function is called at the limit depth (every self-recursive
/// function; mutual recursion that alternates by depth): lifted calls at depth `d` are exactly
/// the interpreter's calls at depth `d`, so the depth and limit always agree.
fn interpreters_error(
    written: &Program,
    function: &str,
    args: impl FnOnce() -> Result<Vec<Value>>,
    found: Error,
) -> Error {
    if !matches!(found, Error::Runtime(_)) {
        return found;
    }
    match args().and_then(|a| eval::run(written, function, a)) {
        Err(e @ (Error::Runtime(_) | Error::RecursionLimit { .. })) => e,
        _ => found,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The leaf column of a `[[T]]` argument.
    fn leaf(a: &Arg) -> &LaneColumn {
        let LVal::Array(_, rows) = &a.0 else {
            panic!("an array")
        };
        let LVal::Array(_, leaf) = &**rows else {
            panic!("an array of arrays")
        };
        leaf.col().expect("scalars")
    }

    #[test]
    fn a_single_block_nested_argument_is_adopted_without_a_copy() {
        let n = Nested::<f64>::from_offsets(vec![0, 2, 3], vec![1.0, 2.0, 3.0]).unwrap();
        let LaneColumn::F64(b) = leaf(&Arg::nested_f64(&n).unwrap()).clone() else {
            panic!("f64")
        };
        assert_eq!(b.as_ptr(), n.blocks()[0].as_ptr());
        let n = Nested::<i64>::from_offsets(vec![0, 1, 3], vec![4, 5, 6]).unwrap();
        let LaneColumn::I64(b) = leaf(&Arg::nested_i64(&n).unwrap()).clone() else {
            panic!("i64")
        };
        assert_eq!(b.as_ptr(), n.blocks()[0].as_ptr());
    }
}
