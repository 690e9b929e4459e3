//! Fusion (Futhark's T2 graph reduction after Henriksen and Oancea, FHPC 2013; the `fuse` step
//! of the pipeline in `docs/ARCHITECTURE.md`): an IR → IR pass that removes the full-size
//! temporaries between bulk steps. It holds the fusion graph and the rules only; the
//! single-pass kernels that run the fused forms are the executor's (`crate::kernels`).
//!
//! - module `graph` (Futhark's `GraphRep`): let chains as dependency graphs, use counts,
//!   dependence between nodes;
//! - module `rules` (Futhark's `TryFusion`): map-map, map-reduce (redomap), map-redomap, vertical
//!   fusion through a let whose only user is the next node (lets around a producer float out of
//!   the consumer), horizontal fusion of reductions with built-in operators and constant
//!   identities over one array (side by side in a tuple, or adjacent independent lets) into a
//!   tuple-valued redomap with a component-wise operator;
//! - module `classes`: map into scan (a scanomap, [`crate::ir::FusedForm::Scanomap`]);
//!   filter/partition into a consuming reduce (partition-reduce) and the "mega" step (a
//!   partition fused with the maps, reductions and nested partitions of its classes,
//!   [`crate::ir::Classes`]), the latter taken only when the cost model predicts a gain
//!   ([`explain`] says why);
//! - module `siblings`: one-predicate filters of one array whose predicates exclude each other
//!   (quicksort's `x < p`, `x == p`, `x > p`) as one multi-predicate filter, one key pass and
//!   one split;
//! - module `scatter`: a scatter of one value at the `concat` of mapped `iota`s (NESL's sieve)
//!   as a scatter of progressions ([`crate::ir::FusedForm::ScatterProgressions`]), with no
//!   index array.
//!
//! The executor runs a redomap whose operator is built in (or component-wise built in) and
//! whose map body is a scalar tree over its parameters, free scalars and gathers `v[i]` in ONE
//! pass (no array of mapped values is built), computes the keys of a filter or partition in one
//! pass over the elements (map into the key computation), and compiles reduction operators
//! written as lambdas once; those are kernels, not rewrites, and live in `crate::kernels`.
//!
//! The scan and class forms are [`crate::ir::Expr::Fused`] nodes that keep the expression they
//! replace: the interpreter and the checker read that, and the executor runs it where the
//! single-pass kernel does not accept the values (a lambda operator, a body it cannot compile,
//! an error). [`fusion2`] runs in one pass over its input.
//!
//! Every rule keeps the canonical association and the order of the lifted bulk steps, so fused
//! and unfused runs give the same bits, errors included (a kernel that meets an error falls back
//! to the unfused steps, which report it exactly as before).
//!
//! ```
//! use flatland_vectoriser::{exec, fuse, programs, value::Value};
//! let (p, f) = programs::sum_squares();
//! let fused = fuse::fuse(p.ir());
//! assert!(fused.to_string().contains("redomap("));
//! let xs = Value::array(vec![Value::F64(1.5), Value::F64(2.0)]);
//! let on = exec::run(p.ir(), f.name(), vec![xs.clone()]).unwrap();
//! let off = exec::run_with(p.ir(), f.name(), vec![xs], &exec::ExecOptions { fuse: false }).unwrap();
//! assert_eq!(on, off);
//! ```

mod classes;
pub(crate) mod graph;
pub(crate) mod rules;
mod scatter;
mod siblings;

pub(crate) use rules::from_map;
pub use scatter::per_lane;

use crate::ir::{Function, Program};

/// `p` with every fusion rule applied (see the module documentation).
///
/// ```
/// use flatland_vectoriser::{fuse, programs};
/// let (p, _) = programs::smvm();
/// assert!(fuse::fuse(p.ir()).to_string().contains("redomap(+"));
/// ```
pub fn fuse(p: &Program) -> Program {
    fuse_reporting(p).0
}

/// `p` fused, with the names of the rules applied, in order (`"map-map"`, `"map-reduce"`,
/// `"map-redomap"`, `"map-scan"`, `"partition-reduce"`, `"partition-map"`, `"mega"`,
/// `"mega-declined"`, `"horizontal"`, `"scatter-progressions"`, `"sibling-filters"`).
///
/// ```
/// use flatland_vectoriser::{fuse, programs};
/// let (p, _) = programs::dot();
/// assert_eq!(fuse::fuse_reporting(p.ir()).1, vec!["map-reduce"]);
/// ```
pub fn fuse_reporting(p: &Program) -> (Program, Vec<&'static str>) {
    fuse_deciding(p, Decide::Predict)
}

/// How a fusion whose gain depends on sizes and the machine (the "mega" step) is decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Decide {
    /// By the cost model's prediction on the current machine profile (at run time).
    #[default]
    Predict,
    /// Always taken.
    Take,
    /// Always declined.
    Decline,
}

impl Decide {
    /// The decisions that do not read the machine profile: a build (the `#[vectorise]` macro)
    /// prepares for each, so that whatever the run time predicts, its kernels exist.
    pub const FORCED: [Decide; 2] = [Decide::Take, Decide::Decline];
}

/// [`fuse_reporting`] with the size-dependent fusions decided by `decide`.
///
/// ```
/// use flatland_vectoriser::fuse::{self, Decide};
/// assert!(fuse::fuse_deciding(&fuse::fusion2(), Decide::Take).1.contains(&"mega"));
/// assert!(fuse::fuse_deciding(&fuse::fusion2(), Decide::Decline).1.contains(&"mega-declined"));
/// ```
pub fn fuse_deciding(p: &Program, decide: Decide) -> (Program, Vec<&'static str>) {
    let fused = fuse_explained(p, decide);
    (fused.program, fused.applied)
}

/// A fused program with the rules applied and the size-dependent decisions taken (each with
/// the cost model's prediction, as [`explain`] gives them).
pub(crate) struct Explained {
    pub(crate) program: Program,
    pub(crate) applied: Vec<&'static str>,
    pub(crate) decisions: Vec<String>,
}

pub(crate) fn fuse_explained(p: &Program, decide: Decide) -> Explained {
    let mut f = rules::Fuser::default();
    f.decide = decide;
    let functions = p
        .functions
        .iter()
        .map(|func| Function {
            body: f.expr(&func.body),
            ..func.clone()
        })
        .collect();
    Explained {
        program: Program::new(functions),
        applied: f.applied,
        decisions: f.explained,
    }
}

/// The cost model's predictions behind the size-dependent fusions of `p` (the "mega" step,
/// taken or declined; [`crate::ir::Classes::explain`]), in the order they were decided.
///
/// ```
/// use flatland_vectoriser::fuse;
/// let why = fuse::explain(&fuse::fusion2());
/// assert!(why.iter().any(|w| w.starts_with("mega")), "{why:?}");
/// ```
pub fn explain(p: &Program) -> Vec<String> {
    fuse_explained(p, Decide::Predict).decisions
}

/// The "Fusion 2.0" program, a Futhark fusion example (a multi-way filter whose classes are
/// mapped, filtered again and reduced), with two mistakes of the version first written fixed:
///
/// ```text
/// fn fusion2(a: [f64]) -> (f64, f64, f64, [f64], [f64], [f64]) =
///   let xs = filter([|a| a < 1.0, |a| a < 10.0, |a| a <= 100.0], a) in  -- X0, X1, X2, X3
///   let y1 = map(|x| x * 10.0, xs.1) in                                 -- f1
///   let z = filter([|y| 50.0 < y], y1) in                                -- Z1 (dead), Z2
///   let y3 = map(|x| sqrt(x), xs.3) in                                   -- f3
///   let s1 = reduce(+, 0.0, z.1) in
///   let s2 = reduce(*, 1.0, xs.2) in
///   let s3 = reduce(min, inf, y3) in                                     -- min's identity is +inf
///   (s1, s2, s3, xs.0, z.1, y3)
/// ```
///
/// Fused (the "mega" step, when the cost model predicts a gain) it is one pass over `a`: a
/// combined key classifies each element (the classes of `xs.1` refined by the second filter),
/// `s1`, `s2`, `s3` accumulate by class in their classes' packed order, and `xs.0`, `z.1`, `y3`
/// are partitioned once, at the end.
///
/// Predicates `1.0 < a`, `10.0 < a`, `100.0 <= a` (as first written) make the second class
/// unreachable (every `a > 10` already has `a > 1`); increasing upper bounds keep its four
/// classes. The identity of `min` is `+inf` (`-INF`, as first written, would make every `s3`
/// `-inf`).
///
/// ```
/// use flatland_vectoriser::{eval, exec, fuse, value::Value};
/// let a = Value::array([0.5, 3.0, 7.0, 20.0, 400.0].map(Value::F64).to_vec());
/// let r = exec::run(&fuse::fusion2(), "fusion2", vec![a.clone()]).unwrap();
/// assert_eq!(r, eval::run(&fuse::fusion2(), "fusion2", vec![a]).unwrap());
/// let Value::Tuple(t) = r else { panic!("a tuple") };
/// assert_eq!(t[0], Value::F64(30.0)); // Z2 = [30.0]; 70.0 > 50 goes to Z1
/// ```
pub fn fusion2() -> Program {
    use crate::ir::{BinaryOp, Expr, Lambda, ReduceOp, Type, UnaryOp};
    let v = Expr::var;
    let lt = |a: Expr, b: Expr| Expr::binary(BinaryOp::Lt, a, b);
    let le = |a: Expr, b: Expr| Expr::binary(BinaryOp::Le, a, b);
    let preds = vec![
        Lambda::new(&["a"], lt(v("a"), Expr::f64(1.0))),
        Lambda::new(&["a"], lt(v("a"), Expr::f64(10.0))),
        Lambda::new(&["a"], le(v("a"), Expr::f64(100.0))),
    ];
    let body = Expr::let_(
        "xs",
        Expr::filter(preds, v("a")),
        Expr::let_(
            "y1",
            Expr::map(
                Lambda::new(&["x"], v("x") * Expr::f64(10.0)),
                vec![Expr::proj(v("xs"), 1)],
            ),
            Expr::let_(
                "z",
                Expr::filter(
                    vec![Lambda::new(&["y"], lt(Expr::f64(50.0), v("y")))],
                    v("y1"),
                ),
                Expr::let_(
                    "y3",
                    Expr::map(
                        Lambda::new(&["x"], Expr::unary(UnaryOp::Sqrt, v("x"))),
                        vec![Expr::proj(v("xs"), 3)],
                    ),
                    Expr::let_(
                        "s1",
                        Expr::reduce(ReduceOp::Add, Expr::f64(0.0), Expr::proj(v("z"), 1)),
                        Expr::let_(
                            "s2",
                            Expr::reduce(ReduceOp::Mul, Expr::f64(1.0), Expr::proj(v("xs"), 2)),
                            Expr::let_(
                                "s3",
                                Expr::reduce(ReduceOp::Min, Expr::f64(f64::INFINITY), v("y3")),
                                Expr::Tuple(vec![
                                    v("s1"),
                                    v("s2"),
                                    v("s3"),
                                    Expr::proj(v("xs"), 0),
                                    Expr::proj(v("z"), 1),
                                    v("y3"),
                                ]),
                            ),
                        ),
                    ),
                ),
            ),
        ),
    );
    let fa = Type::array(Type::F64);
    let ret = Type::Tuple(vec![
        Type::F64,
        Type::F64,
        Type::F64,
        fa.clone(),
        fa.clone(),
        fa.clone(),
    ]);
    Program::new(vec![Function::new(
        "fusion2",
        vec![("a".into(), fa)],
        ret,
        body,
    )])
}
