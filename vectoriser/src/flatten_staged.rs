//! What the code `#[vectorise]` generates calls: the lifting transformation's steps on
//! evaluated values, so that a vectorised function's lifted control flow (`let`, lifted `if`,
//! `map`, calls and recursion) is Rust that rustc compiles, not a walk over the IR. Hidden from
//! the docs: only generated code uses it, and it may change with the macro.
//!
//! At compile time the macro prepares the program as the executor does ([`Plan`]: checked,
//! fused, typed, its last uses analysed) and emits one Rust function per IR function, whose
//! body evaluates the nodes in the executor's order through a [`Stage`]: each node is named by
//! its position in [`Plan::preorder`], which the run-time side recomputes on the program it
//! prepares from the same IR. A fingerprint of the fused program guards the correspondence: if
//! it differs, the generated function is not used and the executor runs instead.
//!
//! Reductions, scans, filters and partitions are steps on operands the generated code
//! evaluated; their lambdas run as expression-machine programs (native kernels), or lifted by
//! the flattener when no kernel accepts them. A redomap runs its kernel, or (when the kernel
//! declines) the generated code of its map and then its reduction. A fused node runs its kernel
//! ([`Stage::fused`]) or, when the kernel declines, the generated code of the expression it
//! replaced. No node is handed to the flattener whole.
//!
//! What the macro emits for `fn inc(xs: [i64]) -> [i64] = map(|x| x + 1, xs)`, written out:
//!
//! ```
//! use flatland_vectoriser::dsl::{Arr, Ty};
//! use flatland_vectoriser::exec::{ExecOptions, Prepared};
//! use flatland_vectoriser::ir::{BinaryOp, Expr, Function, Lambda, Program, Type};
//! use flatland_vectoriser::staged::{self, Plan};
//!
//! let body = Expr::binary(BinaryOp::Add, Expr::var("x"), Expr::i64(1));
//! let map = Expr::map(Lambda::new(&["x"], body), vec![Expr::var("xs")]);
//! let ints = Type::array(Type::I64);
//! let p = Program::new(vec![Function::new("inc", vec![("xs".into(), ints.clone())], ints, map)]);
//!
//! // Compile time: the nodes in the order generated code numbers them.
//! let plan = Plan::new(&p).unwrap();
//! let nodes: Vec<String> = plan.preorder().iter().map(|e| e.kind().to_string()).collect();
//! assert_eq!(nodes[0], "map");
//! let add = nodes.iter().position(|k| k == "binary operator").unwrap();
//!
//! // Run time: the same program prepared, then the generated body.
//! let prepared = Prepared::new(&p, "inc", &ExecOptions::default()).unwrap();
//! assert!(staged::generated_from(&prepared, plan.fingerprint()));
//! let args = vec![<Arr<i64> as Ty>::to_lanes(vec![vec![1, 2, 3]])];
//! let out = staged::run(&prepared, args, |st, lanes, mut args| {
//!     let mut entered = st.enter("map", vec![args.remove(0)], lanes)?;
//!     let x = entered.param()?;
//!     let inner = entered.lanes().clone();
//!     let body = st.scalar(add, vec![x], &inner)?;
//!     Ok(entered.finish(body))
//! })
//! .unwrap();
//! assert_eq!(<Arr<i64> as Ty>::into_lanes(out), Some(vec![vec![2, 3, 4]]));
//! ```

use super::arrays::{self, Values};
use super::{
    Branches, Ctx, Env, Flattener, Redomapped, Split, elements_of_all, free_vars, pack_class,
    redomap_op, selectable,
};
use crate::check::{Types, node_key};
use crate::error::Result;
use crate::exec::{Arg, Prepared};
use crate::ir::{Expr, Program};
use crate::lval::{LVal, internal, vsegd_of_segd};
use crate::native;
use flatland_segd::Segd;
use std::sync::Arc;

/// A lifted value: one value per lane of a context.
#[derive(Clone, Debug)]
pub struct Val(LVal);

/// The lanes of a lifted evaluation.
#[derive(Clone, Debug)]
pub struct Lanes(Ctx);

impl Lanes {
    /// How many lanes.
    pub fn len(&self) -> usize {
        self.0.n
    }

    /// Whether there is no lane.
    pub fn is_empty(&self) -> bool {
        self.0.n == 0
    }
}

/// Every node of `program`'s function bodies, each function in order, parents before
/// children, children in evaluation order before lambda bodies (the numbering generated code
/// names nodes by).
fn preorder(program: &Program) -> Vec<&Expr> {
    fn walk<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
        out.push(e);
        let (cs, ls) = crate::liveness::children(e);
        for c in cs {
            walk(c, out);
        }
        for l in ls {
            walk(&l.body, out);
        }
    }
    let mut out = Vec::new();
    for f in &program.functions {
        walk(&f.body, &mut out);
    }
    out
}

/// FNV-1a of the fused program's printed form.
fn fingerprint(program: &Program) -> u64 {
    program
        .to_string()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
}

/// The compile-time side: the program prepared as the executor prepares it, and what the
/// generated code needs to know about its nodes.
pub struct Plan {
    prepared: Prepared,
}

impl Plan {
    /// Prepares `program` (checked and fused, as [`crate::exec::ExecOptions::default`]).
    ///
    /// # Errors
    /// A type error, or a program without functions.
    pub fn new(program: &Program) -> Result<Plan> {
        let first = program
            .functions
            .first()
            .ok_or_else(|| internal("a program without functions".into()))?;
        let prepared = Prepared::new(program, &first.name, &crate::exec::ExecOptions::default())?;
        Ok(Plan { prepared })
    }

    /// The program that runs (fused).
    pub fn program(&self) -> &Program {
        self.prepared.fused_program()
    }

    /// The fingerprint the run-time side compares.
    pub fn fingerprint(&self) -> u64 {
        fingerprint(self.program())
    }

    /// The nodes in the order generated code numbers them.
    pub fn preorder(&self) -> Vec<&Expr> {
        preorder(self.program())
    }

    fn types(&self) -> &Types {
        self.prepared.node_types()
    }

    /// Whether the executor evaluates `e` as the root of a scalar operator tree.
    pub fn scalar_root(&self, e: &Expr) -> bool {
        matches!(e, Expr::Lit(_) | Expr::Unary(..) | Expr::Binary(..))
            || selectable(self.types(), e)
    }

    /// The input nodes of the scalar operator tree rooted at `e`, in evaluation order.
    pub fn scalar_inputs<'e>(&self, e: &'e Expr) -> Vec<&'e Expr> {
        let mut inputs = Vec::new();
        native::scalar_shape(self.types(), e, &mut inputs);
        inputs
    }

    /// Whether `e` has a scalar type.
    pub fn is_scalar(&self, e: &Expr) -> bool {
        self.types()
            .get(&node_key(e))
            .is_some_and(|t| t.scalar().is_some())
    }

    /// The releases after `e` (the executor's liveness analysis).
    fn releases(&self, e: &Expr) -> &[crate::liveness::Kill] {
        self.prepared
            .liveness()
            .kills
            .get(&node_key(e))
            .map_or(&[], Vec::as_slice)
    }

    /// The bindings (whole values) whose last use is `e`, released after it.
    pub fn kills(&self, e: &Expr) -> Vec<String> {
        self.releases(e)
            .iter()
            .filter(|(_, keep)| keep.is_none())
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// The free variables of `e` when `params` are bound, in order of first use.
    pub fn free_vars(&self, e: &Expr, params: &[String]) -> Vec<String> {
        let mut bound = params.to_vec();
        let mut out = Vec::new();
        free_vars(e, &mut bound, &mut out);
        out
    }

    /// The tuples whose components are read last by `e` (as `t.i`), each with the components
    /// still read after it: the others are emptied after `e`.
    pub fn partial_kills(&self, e: &Expr) -> Vec<(String, Vec<usize>)> {
        self.releases(e)
            .iter()
            .filter_map(|(n, keep)| Some((n.clone(), keep.clone()?)))
            .collect()
    }

    /// The free variables of the lambdas of `e` (its predicates, key or operator), in order of
    /// first use.
    pub fn lambda_free_vars(&self, e: &Expr) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let (_, lambdas) = crate::liveness::children(e);
        for l in lambdas {
            let params: Vec<String> = l.params.iter().map(|(n, _)| n.clone()).collect();
            for n in self.free_vars(&l.body, &params) {
                if !out.contains(&n) {
                    out.push(n);
                }
            }
        }
        out
    }

    /// Whether a user function is called under `e` (values kept across it are compacted).
    pub fn calls_under(&self, e: &Expr) -> bool {
        self.prepared.liveness().calls.contains(&node_key(e))
    }
}

/// Whether `prepared` runs the program whose fingerprint is `expected` (the one the generated
/// code was generated from); if not, the caller runs the executor instead.
pub fn generated_from(prepared: &Prepared, expected: u64) -> bool {
    fingerprint(prepared.fused_program()) == expected
}

/// Runs `prepared`'s function on `args` through generated code: `body` gets the stage, the
/// top-level context and one value per argument.
///
/// # Errors
/// As [`Prepared::run_args`]: bad arguments, or the reference interpreter's error for a run
/// that fails.
pub fn run(
    prepared: &Prepared,
    args: Vec<Arg>,
    body: impl FnOnce(&Stage<'_>, &Lanes, Vec<Val>) -> Result<Val>,
) -> Result<Arg> {
    prepared.run_args_by(args, |largs| {
        let _forget = crate::fuse::repeat::Forget;
        let stage = Stage {
            fl: prepared.flattener(),
            nodes: preorder(prepared.fused_program()),
        };
        let vals = largs.into_iter().map(Val).collect();
        body(&stage, &Lanes(Ctx::top()), vals).map(|v| v.0)
    })
}

/// The lanes of a lifted `if`, by its condition.
pub enum Branch {
    /// Every lane takes the first branch.
    Then,
    /// Every lane takes the second branch.
    Else,
    /// Each branch has lanes.
    Both(Lifted),
}

/// The lanes of each branch of a lifted `if` whose branches both have lanes.
pub struct Lifted(Split);

impl Lifted {
    /// The lanes of `v` the first branch runs on.
    ///
    /// # Errors
    /// An internal error when `v` is not a value of the `if`'s context.
    pub fn pack_then(&self, v: &Val) -> Result<Val> {
        self.0.pack_then(&v.0).map(Val)
    }

    /// The lanes of `v` the second branch runs on.
    ///
    /// # Errors
    /// As [`Lifted::pack_then`].
    pub fn pack_else(&self, v: &Val) -> Result<Val> {
        self.0.pack_else(&v.0).map(Val)
    }

    /// The first branch's lanes.
    pub fn then_lanes(&self, ctx: &Lanes) -> Lanes {
        Lanes(self.0.then_ctx(&ctx.0))
    }

    /// The second branch's lanes.
    pub fn else_lanes(&self, ctx: &Lanes) -> Lanes {
        Lanes(self.0.else_ctx(&ctx.0))
    }

    /// Both branches' results, one value per lane of the `if`'s context.
    ///
    /// # Errors
    /// An internal error when the results do not fit the branches' lanes.
    pub fn combine(&self, then: &Val, other: &Val) -> Result<Val> {
        self.0.combine(&then.0, &other.0).map(Val)
    }
}

/// A redomap's kernel run ([`Stage::redomap`]).
pub enum Redomap {
    /// The kernel's result.
    Done(Val),
    /// The kernel declined: the identity (one per lane) and the arrays, for the generated map
    /// and [`Stage::reduce_mapped`].
    Declined {
        /// The identity.
        z: Val,
        /// The mapped arrays.
        arrays: Vec<Val>,
    },
}

/// The context a `map` enters: its lanes are the elements of the mapped arrays.
pub struct Entered {
    segd: Segd,
    lanes: Lanes,
    params: Vec<Val>,
}

impl Entered {
    /// The lanes of the lambda's body.
    pub fn lanes(&self) -> &Lanes {
        &self.lanes
    }

    /// The lambda's next parameter (the elements of the next array).
    ///
    /// # Errors
    /// An internal error when every parameter has been taken.
    pub fn param(&mut self) -> Result<Val> {
        if self.params.is_empty() {
            return Err(internal("a lambda parameter without an array".into()));
        }
        Ok(self.params.remove(0))
    }

    /// A free variable `v` of the caller's context replicated into the body's.
    ///
    /// # Errors
    /// A descriptor that does not fit `v` (an internal error).
    pub fn replicate(&self, v: &Val) -> Result<Val> {
        v.0.replicate_s(&self.segd).map(Val)
    }

    /// The body's result (one value per element) as one array per lane of the caller.
    pub fn finish(self, body: Val) -> Val {
        Val(LVal::Array(vsegd_of_segd(&self.segd), Arc::new(body.0)))
    }
}

/// The run-time side: a flattener over the prepared program and its nodes by number.
pub struct Stage<'p> {
    fl: Flattener<'p>,
    nodes: Vec<&'p Expr>,
}

impl Stage<'_> {
    fn node(&self, i: usize) -> Result<&Expr> {
        self.nodes
            .get(i)
            .copied()
            .ok_or_else(|| internal(format!("no node {i}")))
    }

    /// Runs `body`, the body of the generated function `function` (node `node`), on `ctx`: with
    /// no lane, the body's empty value and no call; otherwise one call level deeper (past the
    /// recursion depth limit, the [`crate::Error::RecursionLimit`] the executor and the
    /// interpreter give) on a stack with room for it ([`grow`]).
    ///
    /// # Errors
    /// The recursion limit, or the body's error.
    pub fn call(
        &self,
        function: &str,
        node: usize,
        ctx: &Lanes,
        body: impl FnOnce() -> Result<Val>,
    ) -> Result<Val> {
        if ctx.is_empty() {
            return self.empty(node);
        }
        self.fl.depth().call(function, || grow(body))
    }

    /// The empty value of node `node`'s type (what every node gives in a context of no lane).
    ///
    /// # Errors
    /// An internal error for an unknown node.
    pub fn empty(&self, node: usize) -> Result<Val> {
        Ok(Val(LVal::empty(self.fl.ty(self.node(node)?)?)))
    }

    /// The scalar operator tree `node` run on its evaluated inputs.
    ///
    /// # Errors
    /// A failing operator (division by zero), naming its lane.
    pub fn scalar(&self, node: usize, inputs: Vec<Val>, ctx: &Lanes) -> Result<Val> {
        let cols = inputs
            .iter()
            .map(|v| Ok(v.0.col()?.clone()))
            .collect::<Result<Vec<_>>>()?;
        self.fl.scalar_of(self.node(node)?, &cols, &ctx.0).map(Val)
    }

    /// The lambdas' environment `env` (their free variables) as the flattener's.
    fn env(env: Vec<(&str, Val)>) -> Env {
        env.into_iter()
            .map(|(n, v)| (n.to_string(), Some(v.0)))
            .collect()
    }

    /// The filter or partition operand `a`, contiguous: its descriptor and elements, and the
    /// same arrays as one value (for the binding it came from, so that the next filter of it
    /// copies nothing).
    fn operand(a: Val) -> Result<(Segd, LVal, Val)> {
        let (segd, xs) = a.0.elements()?;
        let same = Val(LVal::Array(vsegd_of_segd(&segd), Arc::new(xs.clone())));
        Ok((segd, xs, same))
    }

    /// `filter(ps, a)` (node `node`) on the evaluated `a`, every class; and `a` contiguous.
    ///
    /// # Errors
    /// A predicate's runtime error.
    pub fn filter(&self, node: usize, a: Val, env: Vec<(&str, Val)>) -> Result<(Val, Val)> {
        let Expr::Filter(ps, _) = self.node(node)? else {
            return Err(internal(format!("node {node} is not a filter")));
        };
        let (segd, xs, same) = Self::operand(a)?;
        let r = self.fl.filter_all(ps, &segd, &xs, &Self::env(env))?;
        Ok((Val(r), same))
    }

    /// `filter(ps, a).i` (node `node`) on the evaluated `a`: only class `i` is built; and `a`
    /// contiguous.
    ///
    /// # Errors
    /// A predicate's runtime error.
    pub fn filter_class(&self, node: usize, a: Val, env: Vec<(&str, Val)>) -> Result<(Val, Val)> {
        let Expr::Proj(t, i) = self.node(node)? else {
            return Err(internal(format!("node {node} is not a projection")));
        };
        let Expr::Filter(ps, _) = &**t else {
            return Err(internal(format!("node {node} is not a filter class")));
        };
        if *i > ps.len() {
            return Err(internal("projection of a non-tuple".into()));
        }
        let (segd, xs, same) = Self::operand(a)?;
        let mask = self.fl.class_mask(ps, *i, &segd, &xs, &Self::env(env))?;
        Ok((Val(pack_class(&segd, &xs, &mask)?), same))
    }

    /// `partition(..)` (node `node`) on the evaluated array; and the array contiguous.
    ///
    /// # Errors
    /// A key's runtime error, or a key out of range.
    pub fn partition(&self, node: usize, a: Val, env: Vec<(&str, Val)>) -> Result<(Val, Val)> {
        let Expr::Partition {
            classes,
            interest,
            key,
            ..
        } = self.node(node)?
        else {
            return Err(internal(format!("node {node} is not a partition")));
        };
        let (segd, xs, same) = Self::operand(a)?;
        let r = self
            .fl
            .partition_of(*classes, interest, key, &segd, &xs, &Self::env(env))?;
        Ok((Val(r), same))
    }

    /// The single-pass kernel of the redomap `node` over the evaluated `arrays` and identity
    /// `z` (`None` for a literal identity, which the step evaluates), its lambdas' free
    /// variables in `env`; when the kernel declines, what the generated map and reduction take.
    ///
    /// # Errors
    /// The identity's runtime errors.
    pub fn redomap(
        &self,
        node: usize,
        z: Option<Val>,
        arrays: Vec<Val>,
        env: Vec<(&str, Val)>,
        ctx: &Lanes,
    ) -> Result<Redomap> {
        let Expr::Redomap(op, z0, f, _) = self.node(node)? else {
            return Err(internal(format!("node {node} is not a redomap")));
        };
        let vals = arrays.into_iter().map(|v| v.0).collect();
        let env = Self::env(env);
        Ok(
            match self
                .fl
                .redomap_kernel(op, z0, z.map(|z| z.0), f, vals, &env, &ctx.0)?
            {
                Redomapped::Done(r) => Redomap::Done(Val(r)),
                Redomapped::Declined { z, arrays } => Redomap::Declined {
                    z: Val(z),
                    arrays: arrays.into_iter().map(Val).collect(),
                },
            },
        )
    }

    /// Enters the map of the redomap `node` (its kernel declined) over `arrays`.
    ///
    /// # Errors
    /// Arrays of different lengths on a lane.
    pub fn enter_redomap(&self, node: usize, arrays: Vec<Val>, ctx: &Lanes) -> Result<Entered> {
        let Expr::Redomap(_, _, f, _) = self.node(node)? else {
            return Err(internal(format!("node {node} is not a redomap")));
        };
        self.enter(redomap_op(f), arrays, ctx)
    }

    /// The single-pass kernel of the fused node `node` on its free variables `env`, when the
    /// kernel accepts them; `None` when the expression it replaced must run instead.
    ///
    /// # Errors
    /// An internal error when `node` is not a fused node.
    pub fn fused(&self, node: usize, env: Vec<(&str, Val)>) -> Result<Option<Val>> {
        let Expr::Fused(f) = self.node(node)? else {
            return Err(internal(format!("node {node} is not a fused node")));
        };
        Ok(self.fl.fused_kernel(f, &Self::env(env)).map(Val))
    }

    /// The reduction of the redomap `node` (its kernel declined) over the mapped values.
    ///
    /// # Errors
    /// The operator's runtime errors.
    pub fn reduce_mapped(
        &self,
        node: usize,
        z: Val,
        mapped: Val,
        env: Vec<(&str, Val)>,
        ctx: &Lanes,
    ) -> Result<Val> {
        let Expr::Redomap(op, ..) = self.node(node)? else {
            return Err(internal(format!("node {node} is not a redomap")));
        };
        self.fl
            .lifted_reduce(op, &z.0, &mapped.0, &Self::env(env), &ctx.0)
            .map(Val)
    }

    /// The reduction (or, with `scan`, the inclusive scan) of node `node` over the evaluated
    /// identity `z` and arrays `a`, its operator's free variables in `env`.
    ///
    /// # Errors
    /// The operator's runtime errors.
    pub fn fold(
        &self,
        node: usize,
        z: Val,
        a: Val,
        env: Vec<(&str, Val)>,
        ctx: &Lanes,
    ) -> Result<Val> {
        let env = Self::env(env);
        match self.node(node)? {
            Expr::Reduce(op, ..) => self.fl.lifted_reduce(op, &z.0, &a.0, &env, &ctx.0),
            Expr::Scan(op, ..) => self.fl.lifted_scan(op, &z.0, &a.0, &env, &ctx.0),
            _ => Err(internal(format!("node {node} is not a reduce or scan"))),
        }
        .map(Val)
    }

    /// `v` compacted to the elements it reaches (a value kept across lifted recursion).
    ///
    /// # Errors
    /// A descriptor that does not fit (an internal error).
    pub fn compact(&self, v: Val) -> Result<Val> {
        crate::liveness::compact(&v.0).map(Val)
    }

    /// The tuple `t` with every component but `keep` emptied (their last use has passed).
    pub fn hollow(&self, t: Val, keep: &[usize]) -> Val {
        match t.0 {
            LVal::Tuple(vs) => Val(LVal::Tuple(
                vs.iter()
                    .enumerate()
                    .map(|(i, v)| {
                        if keep.contains(&i) {
                            v.clone()
                        } else {
                            crate::liveness::hollow(v)
                        }
                    })
                    .collect(),
            )),
            other => Val(other),
        }
    }

    /// The error for arguments that do not match the generated function's parameters.
    pub fn arity(&self, function: &str) -> crate::Error {
        internal(format!(
            "the generated `{function}` got the wrong number of arguments"
        ))
    }

    /// The branches the condition `cond` sends the lanes of `ctx` to.
    ///
    /// # Errors
    /// A condition that is not one `bool` per lane (an internal error).
    pub fn branches(&self, cond: Val, ctx: &Lanes) -> Result<Branch> {
        Ok(match Branches::of(&cond.0, ctx.0.n)? {
            Branches::Then => Branch::Then,
            Branches::Else => Branch::Else,
            Branches::Both(s) => Branch::Both(Lifted(s)),
        })
    }

    /// Enters a `map` (called `op` in errors) over `arrays`.
    ///
    /// # Errors
    /// Arrays of different lengths on a lane.
    pub fn enter(&self, op: &'static str, arrays: Vec<Val>, ctx: &Lanes) -> Result<Entered> {
        let (segd, params) =
            elements_of_all(op, arrays.into_iter().map(|v| v.0).collect(), &ctx.0)?;
        Ok(Entered {
            lanes: Lanes(Ctx::inner(&segd)),
            segd,
            params: params.into_iter().map(Val).collect(),
        })
    }

    /// A tuple of values.
    pub fn tuple(&self, fields: Vec<Val>) -> Val {
        Val(LVal::Tuple(fields.into_iter().map(|v| v.0).collect()))
    }

    /// Field `i` of tuple `t`.
    ///
    /// # Errors
    /// A value that is not a tuple of more than `i` fields (an internal error).
    pub fn proj(&self, t: Val, i: usize) -> Result<Val> {
        match t.0 {
            LVal::Tuple(mut vs) if i < vs.len() => Ok(Val(vs.swap_remove(i))),
            _ => Err(internal("projection of a non-tuple".into())),
        }
    }

    /// The array literal `node` of the values `vals`.
    ///
    /// # Errors
    /// An internal error when `node` is not an array literal.
    pub fn array_lit(&self, node: usize, vals: Vec<Val>, ctx: &Lanes) -> Result<Val> {
        let Expr::ArrayLit(t, _) = self.node(node)? else {
            return Err(internal(format!("node {node} is not an array literal")));
        };
        arrays::array_lit(t, vals.into_iter().map(|v| v.0).collect(), &ctx.0).map(Val)
    }

    /// `a[i]` on every lane.
    ///
    /// # Errors
    /// An index out of range, naming its lane.
    pub fn index(&self, a: &Val, i: &Val, ctx: &Lanes) -> Result<Val> {
        arrays::index(&a.0, &i.0, &ctx.0).map(Val)
    }

    /// The length of every lane's array.
    ///
    /// # Errors
    /// A value that is not an array (an internal error).
    pub fn length(&self, a: &Val) -> Result<Val> {
        arrays::length(&a.0).map(Val)
    }

    /// `iota(len, start, step)` on every lane.
    ///
    /// # Errors
    /// A negative length, naming its lane.
    pub fn iota(&self, len: &Val, start: &Val, step: &Val, ctx: &Lanes) -> Result<Val> {
        arrays::iota(&len.0, &start.0, &step.0, &ctx.0).map(Val)
    }

    /// `replicate(count, x)` on every lane.
    ///
    /// # Errors
    /// A negative count, naming its lane.
    pub fn replicate(&self, count: &Val, x: &Val, ctx: &Lanes) -> Result<Val> {
        arrays::replicate(&count.0, &x.0, &ctx.0).map(Val)
    }

    /// `slice(a, start, len)` on every lane.
    ///
    /// # Errors
    /// A slice out of range, naming its lane.
    pub fn slice(&self, a: &Val, start: &Val, len: &Val, ctx: &Lanes) -> Result<Val> {
        arrays::slice(&a.0, &start.0, &len.0, &ctx.0).map(Val)
    }

    /// The arrays of `parts` appended lane by lane.
    ///
    /// # Errors
    /// Parts that are not arrays of one type (an internal error).
    pub fn append(&self, parts: Vec<Val>) -> Result<Val> {
        arrays::append(parts.into_iter().map(|v| v.0).collect()).map(Val)
    }

    /// `concat(a)` on every lane.
    ///
    /// # Errors
    /// A value that is not an array of arrays (an internal error).
    pub fn concat(&self, a: &Val) -> Result<Val> {
        arrays::concat(&a.0).map(Val)
    }

    /// `sort(a)` (`indices` false) or `argsort(a)` (`indices` true) on every lane.
    ///
    /// # Errors
    /// A value that is not an array of numbers (an internal error), or a work space over the
    /// memory budget.
    pub fn sort(&self, indices: bool, a: &Val) -> Result<Val> {
        let op = if indices {
            crate::ir::SortOp::Indices
        } else {
            crate::ir::SortOp::Values
        };
        crate::flatten_sort::sort(op, &a.0).map(Val)
    }

    /// `scatter(dest, idx, values)` on every lane.
    ///
    /// # Errors
    /// An index out of range or arrays of different lengths, naming the lane.
    pub fn scatter(&self, dest: &Val, idx: &Val, values: Val, ctx: &Lanes) -> Result<Val> {
        arrays::scatter(&dest.0, &idx.0, Values::Arrays(values.0), &ctx.0).map(Val)
    }

    /// `scatter(dest, idx, replicate(count, x))` of a scalar `x` on every lane, `x` kept as one
    /// value per lane.
    ///
    /// # Errors
    /// As [`Stage::scatter`], or a negative count.
    pub fn scatter_replicated(
        &self,
        dest: &Val,
        idx: &Val,
        count: Val,
        x: Val,
        ctx: &Lanes,
    ) -> Result<Val> {
        let values = Values::Replicated {
            count: count.0,
            x: x.0,
        };
        arrays::scatter(&dest.0, &idx.0, values, &ctx.0).map(Val)
    }
}

impl Stage<'_> {
    /// The number of bins of a `hist` on each lane, checked (before its other operands are
    /// evaluated, as the executor checks them).
    ///
    /// # Errors
    /// A negative number of bins, naming its lane.
    pub fn hist_bins(&self, bins: &Val, ctx: &Lanes) -> Result<Vec<usize>> {
        super::hist::bin_counts(&bins.0, &ctx.0)
    }

    /// `hist` (node `node`) on its evaluated operands, one histogram per lane; a lambda
    /// operator's free variables in `env`.
    ///
    /// # Errors
    /// Indices and values of different lengths, bins over the memory budget, or the operator's
    /// runtime errors.
    pub fn hist(
        &self,
        node: usize,
        bins: &[usize],
        z: Val,
        (ks, vs): (Val, Val),
        env: Vec<(&str, Val)>,
        ctx: &Lanes,
    ) -> Result<Val> {
        let Expr::Hist { op, .. } = self.node(node)? else {
            return Err(internal(format!("node {node} is not a hist")));
        };
        self.fl
            .lifted_hist(op, bins, &z.0, (&ks.0, &vs.0), &Self::env(env), &ctx.0)
            .map(Val)
    }
}

/// A loop of generated code running over its lanes (the executor's lifted loop, one step at
/// a time): the generated code settles the lanes before each iteration, packs the body's free
/// variables where lanes left, and runs the body on the active lanes.
pub struct Loop(super::looping::Looping);

/// The lanes that go on in a loop where some lanes left: packs the free variables to them.
pub struct Going(bitvec::vec::BitVec);

impl Going {
    /// `v` (one value per lane active before) on the lanes that go on.
    ///
    /// # Errors
    /// A descriptor that does not fit (an internal error).
    pub fn pack(&self, v: &Val) -> Result<Val> {
        v.0.pack(&self.0).map(Val)
    }
}

impl Stage<'_> {
    /// A loop over the lanes of `ctx` from the states `init`; `counts` for a `for` loop.
    ///
    /// # Errors
    /// Counts that are not `i64` (an internal error).
    pub fn loop_start(&self, init: Val, counts: Option<Val>, ctx: &Lanes) -> Result<Loop> {
        super::looping::Looping::new(init.0, counts.as_ref().map(|c| &c.0), &ctx.0).map(Loop)
    }
}

impl Loop {
    /// Before an iteration of a `for` loop: the lanes whose count is reached finish.
    ///
    /// # Errors
    /// A loop without counts (an internal error).
    pub fn settle_for(&mut self) -> Result<Option<Going>> {
        let go = self
            .0
            .counted()
            .ok_or_else(|| internal("a `for` loop without counts".into()))?;
        Ok(self.0.settle(&go)?.map(Going))
    }

    /// Before an iteration of a `while` loop: the lanes whose condition `cond` is false finish.
    ///
    /// # Errors
    /// A condition that is not `bool` (an internal error).
    pub fn settle_while(&mut self, cond: Val) -> Result<Option<Going>> {
        let go: bitvec::vec::BitVec = cond.0.col()?.bools()?.iter().collect();
        Ok(self.0.settle(&go)?.map(Going))
    }

    /// Whether any lane is still active.
    pub fn active(&self) -> bool {
        self.0.active()
    }

    /// The active lanes.
    pub fn lanes(&self) -> Lanes {
        Lanes(self.0.lanes().clone())
    }

    /// The active lanes' state.
    pub fn state(&self) -> Val {
        Val(self.0.state().clone())
    }

    /// The iteration number on every active lane.
    pub fn index(&self) -> Val {
        Val(self.0.index())
    }

    /// The active lanes' next state.
    pub fn step(&mut self, next: Val) {
        self.0.step(next.0);
    }

    /// Every lane's final state, in lane order.
    ///
    /// # Errors
    /// Lanes that do not fit together (an internal error).
    pub fn finish(self) -> Result<Val> {
        self.0.finish().map(Val)
    }
}

/// Runs `f` on a stack with room for it: generated functions recurse as the program does, and
/// deep recursion grows the stack on the heap instead of overflowing it (generated code enters
/// its calls through [`Stage::call`], which also counts their depth).
pub fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(128 * 1024, 4 * 1024 * 1024, f)
}
