//! Flattening: every IR construct in its *lifted* form, run over all the lanes of a context at
//! once with runtime bulk operations (Blelloch; Keller and Chakravarty; DPH; DESIGN.md
//! section 4).
//!
//! A context is a number of lanes (the flattened iteration space of the enclosing maps) and, for
//! error messages, each lane's position in its innermost map. Every variable is bound to a lifted
//! value ([`LVal`]) with one value per lane. The lifting rules:
//!
//! - scalar operator trees compile to one [`flatland_runtime::expr`] program run over all lanes
//!   (no per-element interpretation);
//! - `map` adds a segment level: the arrays' elements become the lanes of a new context (a
//!   contiguous descriptor), and the lambda's free variables are replicated into it with
//!   `replicate_s`, which for arrays only replicates *virtual segments* (no element copies);
//! - `index` becomes `seg::index_l` on the virtual descriptor (reads from the one physical copy);
//! - `if` evaluates its condition, packs the lanes of each branch (and the branch's free
//!   variables), runs each branch only on its lanes (a branch with no lanes is skipped, which is
//!   what ends lifted recursion) and combines the results by the condition;
//! - `reduce`/`scan` become segmented folds/scans (`seg::fold_vs`, `seg::scan_s`) with the
//!   canonical association; lambda operators and per-lane identities run the same association as
//!   bulk steps over all segments ([`chains`]);
//! - `filter`/`partition` compute class keys lifted (predicates lazily, if-elif) and permute with
//!   one `seg::partition_s`; the classes are virtual segments of the permuted block. One class
//!   of a filter (`filter(ps, a).i`) is a mask and one pack of that class's elements; with
//!   fusion, the predicates run as one expression-machine pass over all the elements (free
//!   scalars repeated per segment, free arrays gathered), kept where it meets no error that
//!   an element's class depends on;
//! - array literals of arrays and `append` chains copy their parts once, into lane order;
//! - a call evaluates the callee's body in the caller's context (lifted call); recursion proceeds
//!   on the packed active lanes until none remain. The native stack grows on the heap
//!   (`stacker`); the depth of lifted calls that have lanes is bounded by [`crate::limits`] (the
//!   interpreter's call depth: a lifted call at depth `d` runs the interpreter's calls at `d`).
//!
//! A runtime error unwinds with the lane it failed at, kept in its context, so that the error
//! the executor reports is the interpreter's first without rerunning the program (the module
//! `errors`, `flatten/errors.rs`; the rule is [`crate::exec`]'s).
//!
//! The lifting runs as the program runs: each node's lifted form is one or a few bulk runtime
//! calls over the current lanes (the lanes of a recursive call are only known at run time).
//! Fusion (issue 5) fits at the same place: the bulk calls a node issues (`index_l` feeding the
//! multiply feeding `fold_vs` in smvm) are the vertices of its dependency graph, so a node's
//! lifted form can be fused before it runs.

use crate::check::{Types, node_key};
use crate::env::{Env, lookup};
use crate::error::{Error, Result};
use crate::ir::{BinaryOp, Expr, Lambda, Program, ReduceOp, Scalar, Type};
use crate::kernels::combine::Combine;
use crate::liveness;
use crate::lval::{Col, LVal, adopt, internal, uniform, vsegd_of_segd};
use crate::scalar_tree::{self, pair_tree, selectable};
use bitvec::prelude::*;
use flatland_runtime::expr::native::Kernels;
use flatland_runtime::expr::op::{float, int};
use flatland_runtime::{Error as RtError, assoc, expr, seg};
use flatland_segd::{SSegd, Segd, VSegd};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

mod arrays;
mod errors;
mod fused;
mod hist;
mod looping;
mod sort;

/// Each lane's position in its innermost map (only read to name lanes in errors, so nothing
/// per lane is computed until an error needs it).
#[derive(Clone, Debug)]
enum Lanes {
    /// Listed.
    Ids(Arc<Vec<usize>>),
    /// The lanes are the elements of these segments: a lane's position is its offset in its
    /// segment (computed on demand, so entering a map costs no per-lane work).
    Local(Segd),
    /// Lane `i` is element `idx[i]` of these segments (a subset of a [`Lanes::Local`] context,
    /// kept unresolved: resolving would search the segments once per lane).
    Picked(Segd, Arc<Vec<usize>>),
}

impl Lanes {
    fn get(&self, i: usize) -> usize {
        let local = |s: &Segd, e: usize| s.try_segment_of_element(e).map_or(e, |(_, off)| off);
        match self {
            Lanes::Ids(v) => v.get(i).copied().unwrap_or(i),
            Lanes::Local(s) => local(s, i),
            Lanes::Picked(s, idx) => idx.get(i).map_or(i, |&e| local(s, e)),
        }
    }

    /// The lanes `idx` of these, in that order: O(`idx`), with no search.
    fn gather(&self, idx: &[usize]) -> Lanes {
        let pick = |v: &[usize]| {
            idx.iter()
                .map(|&i| v.get(i).copied().unwrap_or(i))
                .collect()
        };
        match self {
            Lanes::Ids(v) => Lanes::Ids(Arc::new(pick(v))),
            Lanes::Local(s) => Lanes::Picked(s.clone(), Arc::new(idx.to_vec())),
            Lanes::Picked(s, v) => Lanes::Picked(s.clone(), Arc::new(pick(v))),
        }
    }
}

/// The lanes of a lifted evaluation: how many, and each one's position in its innermost map.
#[derive(Clone, Debug)]
pub(crate) struct Ctx {
    n: usize,
    lanes: Lanes,
    /// The runtime error a step over these lanes met, while it unwinds ([`errors::Fault`]).
    fault: Rc<RefCell<Option<errors::Fault>>>,
}

impl Ctx {
    /// The top-level context: one lane, lane 0.
    pub(crate) fn top() -> Ctx {
        Ctx {
            n: 1,
            lanes: Lanes::Ids(Arc::new(vec![0])),
            fault: Rc::default(),
        }
    }

    /// The context whose lanes are the elements of `segd`'s segments.
    fn inner(segd: &Segd) -> Ctx {
        Ctx {
            n: segd.elements(),
            lanes: Lanes::Local(segd.clone()),
            fault: Rc::default(),
        }
    }

    fn gather(&self, idx: &[usize]) -> Ctx {
        Ctx {
            n: idx.len(),
            lanes: self.lanes.gather(idx),
            fault: Rc::default(),
        }
    }

    fn lane(&self, i: usize) -> usize {
        self.lanes.get(i)
    }

    /// Rewrites the lane of a runtime error raised by a primitive over this context's lanes
    /// (the lowest failing lane of its step), and keeps that lane for the error's way up.
    fn fix(&self, e: RtError) -> Error {
        let lane = match &e {
            RtError::IndexOutOfRange { lane, .. }
            | RtError::DivisionByZero { lane, .. }
            | RtError::Domain { lane, .. }
            | RtError::ClassOutOfRange { lane, .. } => Some(*lane),
            _ => None,
        };
        let err = self.rename(e);
        match lane {
            Some(l) => self.fail(l, err),
            None => err,
        }
    }

    fn rename(&self, e: RtError) -> Error {
        let map = |l: usize| self.lanes.get(l);
        Error::Runtime(match e {
            RtError::IndexOutOfRange {
                op,
                lane,
                index,
                len,
            } => {
                let op = if op.starts_with("index_l") || op == "gather" {
                    "index"
                } else {
                    op
                };
                RtError::IndexOutOfRange {
                    op,
                    lane: map(lane),
                    index,
                    len,
                }
            }
            RtError::DivisionByZero { op, lane } => RtError::DivisionByZero {
                op,
                lane: map(lane),
            },
            RtError::Domain { op, lane, detail } => RtError::Domain {
                op,
                lane: map(lane),
                detail,
            },
            RtError::ClassOutOfRange {
                op,
                lane,
                class,
                classes,
            } => RtError::ClassOutOfRange {
                op,
                lane: map(lane),
                class,
                classes,
            },
            other => other,
        })
    }
}

fn invalid(op: &'static str, lane: usize, detail: String) -> Error {
    Error::Runtime(RtError::Invalid {
        op,
        detail: format!("lane {lane}: {detail}"),
    })
}

fn rt(e: RtError) -> Error {
    Error::Runtime(e)
}

/// Position of each element inside its segment (`0, 1, .., len - 1` per segment).
fn counts(op: &'static str, col: &Col, ctx: &Ctx) -> Result<Vec<usize>> {
    col.i64s()?
        .iter()
        .enumerate()
        .map(|(j, &n)| {
            usize::try_from(n)
                .map_err(|_| ctx.fail(j, invalid(op, ctx.lane(j), format!("negative length {n}"))))
        })
        .collect()
}

fn segd_of(lens: Vec<usize>) -> Result<Segd> {
    Segd::from_lengths(lens).map_err(|e| rt(e.into()))
}

/// Lifted values with the positions they belong at.
type Parts = Vec<(Vec<usize>, LVal)>;

/// Values of `parts` (positions, values) placed at their positions; the positions of all parts
/// together are `0..total`, each once.
fn assemble(parts: Parts, total: usize) -> Result<LVal> {
    let mut inv = vec![0usize; total];
    let mut k = 0;
    let mut all: Option<LVal> = None;
    for (pos, vals) in parts {
        for p in pos {
            inv[p] = k;
            k += 1;
        }
        all = Some(match all {
            None => vals,
            Some(a) => LVal::append(&a, &vals)?,
        });
    }
    let all = all.ok_or_else(|| internal("assemble of nothing".into()))?;
    if k != total {
        return Err(internal(format!(
            "assemble: {k} values for {total} positions"
        )));
    }
    all.gather(&inv)
}

/// The binary function of a reduction, applied lane by lane to two lifted values; `segs` names
/// the lane of the enclosing context each pair belongs to.
type Apply<'a> = dyn FnMut(&LVal, &LVal, &[usize]) -> Result<LVal> + 'a;

/// Runs left-to-right chains of `apply` side by side: chain `c` starts from lane `c` of `init`
/// and folds in lanes `starts[c] .. starts[c] + counts[c]` of `xs`, one per step; step `t`
/// applies `apply` once to every chain longer than `t`. Returns the final value of each chain
/// and, if `keep`, the value after every step at its element position.
fn chains(
    init: &LVal,
    xs: &LVal,
    starts: &[usize],
    lens: &[usize],
    segs: &[usize],
    keep: bool,
    apply: &mut Apply<'_>,
) -> Result<(LVal, Parts)> {
    let nc = init.lanes();
    let mut order: Vec<usize> = (0..nc).collect();
    order.sort_by_key(|&c| std::cmp::Reverse(lens[c]));
    let mut head = init.gather(&order)?;
    let mut active = nc;
    let mut done = Vec::new();
    let mut kept = Vec::new();
    let mut t = 0;
    loop {
        let k = order[..active].partition_point(|&c| lens[c] > t);
        if k < active {
            let ids: Vec<usize> = (k..active).collect();
            done.push((order[k..active].to_vec(), head.gather(&ids)?));
            if k == 0 {
                break;
            }
            head = head.gather(&(0..k).collect::<Vec<_>>())?;
            active = k;
        }
        if active == 0 {
            break;
        }
        let pos: Vec<usize> = order[..active].iter().map(|&c| starts[c] + t).collect();
        let chain_segs: Vec<usize> = order[..active].iter().map(|&c| segs[c]).collect();
        let x = xs.gather(&pos)?;
        head = apply(&head, &x, &chain_segs)?;
        if keep {
            kept.push((pos, head.clone()));
        }
        t += 1;
    }
    Ok((
        if nc == 0 {
            init.clone()
        } else {
            assemble(done, nc)?
        },
        kept,
    ))
}

const SHORT: usize = 2 * assoc::LANES;

/// The final values of [`chains`] (no step kept): by the compiled operator's own step loop where
/// `fast` gives one and it takes the values, else by `apply`.
fn chain_finals(
    init: &LVal,
    xs: &LVal,
    (starts, lens, segs): (&[usize], &[usize], &[usize]),
    apply: &mut Apply<'_>,
    fast: Option<(&Combine, &Env)>,
) -> Result<LVal> {
    if let Some((c, env)) = fast
        && let Some(v) = c.chains(init, xs, starts, lens, segs, env)
    {
        return Ok(v);
    }
    Ok(chains(init, xs, starts, lens, segs, false, apply)?.0)
}

/// Each segment of `xs` (contiguous, `segd`) folded from `z` (one lane per segment) with the
/// canonical association of [`assoc::fold`], as bulk steps of `apply` (the chains of steps by
/// `fast`'s compiled operator where it can).
fn fold_chains(
    segd: &Segd,
    xs: &LVal,
    z: &LVal,
    apply: &mut Apply<'_>,
    fast: Option<(&Combine, &Env)>,
) -> Result<LVal> {
    let nseg = segd.len();
    let zx = LVal::append(z, xs)?;
    let (mut init, mut starts, mut lens, mut csegs) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    // Leaves in order: Ok(chain) for a short leaf, Err(k) for the k-th long leaf.
    let mut leaves: Vec<std::result::Result<usize, usize>> = Vec::new();
    let mut long_first = Vec::new();
    let mut leaf_first = vec![0; nseg];
    let mut leaf_count = vec![0; nseg];
    for (s, (start, len)) in segd.iter().enumerate() {
        leaf_first[s] = leaves.len();
        for l in (0..len).step_by(assoc::LEAF) {
            let (ls, ll) = (start + l, assoc::LEAF.min(len - l));
            leaf_count[s] += 1;
            if ll < SHORT {
                leaves.push(Ok(init.len()));
                init.push(s);
                starts.push(ls);
                lens.push(ll);
                csegs.push(s);
            } else {
                leaves.push(Err(long_first.len()));
                long_first.push(init.len());
                let lane = ll / assoc::LANES;
                for j in 0..assoc::LANES {
                    init.push(nseg + ls + j * lane);
                    starts.push(ls + j * lane + 1);
                    lens.push(if j + 1 < assoc::LANES {
                        lane - 1
                    } else {
                        ll - j * lane - 1
                    });
                    csegs.push(s);
                }
            }
        }
    }
    let finals = chain_finals(
        &zx.gather(&init)?,
        xs,
        (&starts, &lens, &csegs),
        apply,
        fast,
    )?;
    // Long leaves: ((l0 l1) (l2 l3)) ((l4 l5) (l6 l7)).
    let mut level = finals.gather(
        &long_first
            .iter()
            .flat_map(|&f| f..f + assoc::LANES)
            .collect::<Vec<_>>(),
    )?;
    let long_segs: Vec<usize> = long_first.iter().map(|&f| csegs[f]).collect();
    let mut width = assoc::LANES;
    while width > 1 {
        let half = width / 2;
        let nl = long_first.len();
        let left: Vec<usize> = (0..nl)
            .flat_map(|i| (0..half).map(move |j| i * width + 2 * j))
            .collect();
        let right: Vec<usize> = left.iter().map(|i| i + 1).collect();
        let segs: Vec<usize> = (0..nl)
            .flat_map(|i| std::iter::repeat_n(long_segs[i], half))
            .collect();
        level = apply(&level.gather(&left)?, &level.gather(&right)?, &segs)?;
        width = half;
    }
    let nshort = finals.lanes();
    let both = LVal::append(&finals, &level)?;
    let leaf_idx: Vec<usize> = leaves
        .iter()
        .map(|l| match l {
            Ok(c) => *c,
            Err(k) => nshort + k,
        })
        .collect();
    let leaf_vals = both.gather(&leaf_idx)?;
    let segs: Vec<usize> = (0..nseg).collect();
    chain_finals(
        z,
        &leaf_vals,
        (&leaf_first, &leaf_count, &segs),
        apply,
        fast,
    )
}

/// Each segment of `xs` scanned (inclusive) from `z` with the canonical association of
/// [`assoc::scan_inclusive`], as bulk steps.
fn scan_chains(segd: &Segd, xs: &LVal, z: &LVal, apply: &mut Apply<'_>) -> Result<LVal> {
    let total = xs.lanes();
    if total == 0 {
        return Ok(xs.clone());
    }
    let (mut lstart, mut starts, mut lens, mut lsegs) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut leaf_of = vec![0; total];
    let mut carry_first = Vec::new();
    let mut carry_len = Vec::new();
    let mut carry_segs = Vec::new();
    for (s, (start, len)) in segd.iter().enumerate() {
        if len == 0 {
            continue;
        }
        carry_first.push(lstart.len());
        carry_segs.push(s);
        let mut nleaves = 0;
        for l in (0..len).step_by(assoc::LEAF) {
            let (ls, ll) = (start + l, assoc::LEAF.min(len - l));
            leaf_of[ls..ls + ll].fill(lstart.len());
            lstart.push(ls);
            starts.push(ls + 1);
            lens.push(ll - 1);
            lsegs.push(s);
            nleaves += 1;
        }
        carry_len.push(nleaves - 1);
    }
    let firsts = xs.gather(&lstart)?;
    let (totals, kept) = chains(&firsts, xs, &starts, &lens, &lsegs, true, apply)?;
    let mut parts = vec![(lstart.clone(), firsts)];
    parts.extend(kept);
    let prefix = assemble(parts, total)?;
    let zc = z.gather(&carry_segs)?;
    let (_, kept) = chains(
        &zc,
        &totals,
        &carry_first,
        &carry_len,
        &carry_segs,
        true,
        apply,
    )?;
    let mut parts = vec![(carry_first.clone(), zc)];
    parts.extend(
        kept.into_iter()
            .map(|(pos, v)| (pos.into_iter().map(|p| p + 1).collect(), v)),
    );
    let carries = assemble(parts, lstart.len())?;
    let pos_segs: Vec<usize> = leaf_of.iter().map(|&l| lsegs[l]).collect();
    apply(&carries.gather(&leaf_of)?, &prefix, &pos_segs)
}

macro_rules! builtin {
    ($op:expr, $col:expr, $z:expr, |$f:ident, $v:ident, $zz:ident| $call:expr) => {{
        use BinaryOp as B;
        match ($op, $col, $z) {
            (B::Add, Col::I64($v), Scalar::I64($zz)) => { let $f = int::add; Col::I64(adopt($call)) }
            (B::Mul, Col::I64($v), Scalar::I64($zz)) => { let $f = int::mul; Col::I64(adopt($call)) }
            (B::Min, Col::I64($v), Scalar::I64($zz)) => { let $f = int::min; Col::I64(adopt($call)) }
            (B::Max, Col::I64($v), Scalar::I64($zz)) => { let $f = int::max; Col::I64(adopt($call)) }
            (B::Add, Col::F64($v), Scalar::F64($zz)) => { let $f = |a: f64, b: f64| a + b; Col::F64(adopt($call)) }
            (B::Mul, Col::F64($v), Scalar::F64($zz)) => { let $f = |a: f64, b: f64| a * b; Col::F64(adopt($call)) }
            (B::Min, Col::F64($v), Scalar::F64($zz)) => { let $f = float::min; Col::F64(adopt($call)) }
            (B::Max, Col::F64($v), Scalar::F64($zz)) => { let $f = float::max; Col::F64(adopt($call)) }
            (B::And, Col::Bool($v), Scalar::Bool($zz)) => { let $f = |a: bool, b: bool| a & b; Col::Bool(adopt($call)) }
            (B::Or, Col::Bool($v), Scalar::Bool($zz)) => { let $f = |a: bool, b: bool| a | b; Col::Bool(adopt($call)) }
            _ => return Err(internal("built-in reduction on an unsupported type".into())),
        }
    }};
}

/// The lifting transformation, run over a checked program.
pub(crate) struct Flattener<'p> {
    program: &'p Program,
    types: Arc<Types>,
    free: RefCell<HashMap<usize, Arc<Vec<String>>>>,
    /// Compiled scalar trees, per node (a node's tree and input types never change).
    compiled: RefCell<HashMap<usize, Arc<expr::Program>>>,
    /// Whether redomaps may run as single-pass kernels ([`crate::fuse`]).
    fuse: bool,
    /// Where each variable is used last (computed once for the whole program).
    live: Arc<liveness::Liveness>,
    /// The run's call depth, against its limit ([`crate::limits`]).
    depth: crate::limits::Depth,
    /// The program's native kernels (attached to every expression program compiled here).
    kernels: Arc<Kernels>,
    /// Where the single-pass steps record their routes.
    trace: Arc<crate::trace::Trace>,
    /// Which nodes may fail (computed once for the whole program).
    fallible: Arc<crate::fallible::Fallible>,
    /// The free variables of the roots that settle errors ([`errors`]), per node.
    root_free: RefCell<HashMap<usize, Arc<Vec<String>>>>,
}

fn free_vars(e: &Expr, bound: &mut Vec<String>, out: &mut Vec<String>) {
    let lam = |l: &Lambda, bound: &mut Vec<String>, out: &mut Vec<String>| {
        let depth = bound.len();
        bound.extend(l.params.iter().map(|(n, _)| n.clone()));
        free_vars(&l.body, bound, out);
        bound.truncate(depth);
    };
    match e {
        Expr::Var(n) => {
            if !bound.contains(n) && !out.contains(n) {
                out.push(n.clone());
            }
        }
        Expr::Lit(_) => {}
        Expr::Let(n, v, b) => {
            free_vars(v, bound, out);
            bound.push(n.clone());
            free_vars(b, bound, out);
            bound.pop();
        }
        Expr::Map(f, arrays) => {
            for a in arrays {
                free_vars(a, bound, out);
            }
            lam(f, bound, out);
        }
        Expr::Reduce(op, z, a) | Expr::Scan(op, z, a) => {
            free_vars(z, bound, out);
            free_vars(a, bound, out);
            if let ReduceOp::Lambda(l) = op {
                lam(l, bound, out);
            }
        }
        Expr::Redomap(op, z, f, arrays) => {
            free_vars(z, bound, out);
            for a in arrays {
                free_vars(a, bound, out);
            }
            lam(f, bound, out);
            if let ReduceOp::Lambda(l) = op {
                lam(l, bound, out);
            }
        }
        Expr::Hist {
            bins,
            op,
            identity,
            indices,
            values,
        } => {
            for x in [bins, identity, indices, values] {
                free_vars(x, bound, out);
            }
            if let ReduceOp::Lambda(l) = op {
                lam(l, bound, out);
            }
        }
        Expr::Loop { init, form, body } => {
            free_vars(init, bound, out);
            match form {
                crate::ir::LoopForm::For(n) => free_vars(n, bound, out),
                crate::ir::LoopForm::While(c) => lam(c, bound, out),
            }
            lam(body, bound, out);
        }
        Expr::Filter(ps, a) => {
            free_vars(a, bound, out);
            for p in ps {
                lam(p, bound, out);
            }
        }
        Expr::Partition { key, array, .. } => {
            free_vars(array, bound, out);
            lam(key, bound, out);
        }
        Expr::Tuple(es) | Expr::ArrayLit(_, es) | Expr::Call(_, es) => {
            for x in es {
                free_vars(x, bound, out);
            }
        }
        Expr::Proj(a, _)
        | Expr::Unary(_, a)
        | Expr::Length(a)
        | Expr::Concat(a)
        | Expr::Sort(_, a) => {
            free_vars(a, bound, out);
        }
        Expr::Binary(_, a, b) | Expr::Index(a, b) | Expr::Replicate(a, b) | Expr::Append(a, b) => {
            free_vars(a, bound, out);
            free_vars(b, bound, out);
        }
        Expr::If(a, b, c)
        | Expr::Slice(a, b, c)
        | Expr::Scatter(a, b, c)
        | Expr::Ternary(_, a, b, c) => {
            free_vars(a, bound, out);
            free_vars(b, bound, out);
            free_vars(c, bound, out);
        }
        Expr::Iota { len, start, step } => {
            free_vars(len, bound, out);
            free_vars(start, bound, out);
            free_vars(step, bound, out);
        }
        Expr::Fused(f) => free_vars(&f.original, bound, out),
    }
}

/// The elements of equally long arrays (`arrays`, one array per lane of `ctx` each), in lane
/// order, and their contiguous descriptor: the lanes of the context a `map` over them enters.
///
/// # Errors
/// A [`RtError::LengthMismatch`] naming the first lane whose arrays differ in length.
fn elements_of_all(op: &'static str, arrays: Vec<LVal>, ctx: &Ctx) -> Result<(Segd, Vec<LVal>)> {
    let first = arrays
        .first()
        .ok_or_else(|| internal(format!("{op} of no arrays")))?
        .array()?
        .0;
    for a in &arrays[1..] {
        let v = a.array()?.0;
        if v.same_lengths(first) {
            continue;
        }
        let (lens0, lens) = (first.lengths(), v.lengths());
        if let Some(j) = (0..ctx.n).find(|&j| lens[j] != lens0[j]) {
            return Err(ctx.fail(
                j,
                rt(RtError::LengthMismatch {
                    op,
                    expected: lens0[j],
                    found: lens[j],
                }),
            ));
        }
    }
    let mut segd = None;
    let mut elems = Vec::with_capacity(arrays.len());
    for a in arrays {
        let (s, e) = a.elements()?;
        segd = Some(s);
        elems.push(e);
    }
    let segd = segd.ok_or_else(|| internal(format!("{op} of no arrays")))?;
    Ok((segd, elems))
}

/// The elements `xs` (the segments of `segd`) that `mask` selects, as one array per segment.
fn pack_class(segd: &Segd, xs: &LVal, mask: &BitSlice) -> Result<LVal> {
    let lens = seg::count_s_bits(segd, mask).map_err(rt)?;
    Ok(LVal::Array(
        vsegd_of_segd(&segd_of(lens)?),
        Arc::new(xs.pack(mask)?),
    ))
}

/// A redomap's kernel run, or what its unfused steps need when the kernel declines.
enum Redomapped {
    /// The kernel's result.
    Done(LVal),
    /// The identity (one per lane) and the arrays, for the map and the reduction.
    Declined { z: LVal, arrays: Vec<LVal> },
}

/// The name a redomap's map goes by in errors: `map` when it was one before fusion.
fn redomap_op(f: &Lambda) -> &'static str {
    if crate::fuse::from_map(f) {
        "map"
    } else {
        "redomap"
    }
}

/// The lanes of a lifted `if`, by its condition.
enum Branches {
    /// Every lane takes the first branch.
    Then,
    /// Every lane takes the second branch.
    Else,
    /// Each branch has lanes.
    Both(Split),
}

/// The lanes of each branch of a lifted `if` whose branches both have lanes.
struct Split {
    /// The lanes of the first branch.
    then: BitVec,
    /// The lanes of the second branch.
    other: BitVec,
}

impl Branches {
    /// The branches the condition `cond` (one `bool` per lane of a context of `n` lanes) sends
    /// lanes to.
    fn of(cond: &LVal, n: usize) -> Result<Branches> {
        let bits = cond.col()?.bools()?;
        let t = bits.iter().filter(|b| **b).count();
        Ok(if t == n {
            Branches::Then
        } else if t == 0 {
            Branches::Else
        } else {
            Branches::Both(Split {
                then: bits.iter().copied().collect(),
                other: bits.iter().map(|b| !b).collect(),
            })
        })
    }
}

impl Split {
    /// The lanes of `v` (a value of the `if`'s context) the first branch runs on.
    fn pack_then(&self, v: &LVal) -> Result<LVal> {
        v.pack(&self.then)
    }

    /// The lanes of `v` (a value of the `if`'s context) the second branch runs on.
    fn pack_else(&self, v: &LVal) -> Result<LVal> {
        v.pack(&self.other)
    }

    /// The context of the first branch, within `ctx` (the `if`'s).
    fn then_ctx(&self, ctx: &Ctx) -> Ctx {
        ctx.gather(&self.then.iter_ones().collect::<Vec<_>>())
    }

    /// The context of the second branch, within `ctx` (the `if`'s).
    fn else_ctx(&self, ctx: &Ctx) -> Ctx {
        ctx.gather(&self.other.iter_ones().collect::<Vec<_>>())
    }

    /// The results of the branches (`then` on the first branch's lanes, `other` on the
    /// second's) merged into one value per lane of the `if`'s context.
    fn combine(&self, then: &LVal, other: &LVal) -> Result<LVal> {
        LVal::combine(&self.then, other, then)
    }
}

/// The last uses of variables in `program` (whose node types are `types`).
pub(crate) fn analyse(program: &Program, types: &Types) -> liveness::Liveness {
    liveness::Liveness::of(program, &|e| !selectable(types, e))
}

impl<'p> Flattener<'p> {
    /// A flattener over a checked program, its node types, its liveness ([`analyse`]) and
    /// which of its nodes may fail, computed once per prepared program.
    pub(crate) fn planned(
        program: &'p Program,
        types: Arc<Types>,
        live: Arc<liveness::Liveness>,
        kernels: Arc<Kernels>,
        trace: Arc<crate::trace::Trace>,
        fallible: Arc<crate::fallible::Fallible>,
    ) -> Flattener<'p> {
        Flattener {
            program,
            live,
            types,
            kernels,
            trace,
            free: RefCell::default(),
            compiled: RefCell::default(),
            fuse: false,
            depth: crate::limits::Depth::new(),
            fallible,
            root_free: RefCell::default(),
        }
    }

    /// Lets redomaps run as single-pass kernels where [`crate::fuse`] accepts them.
    pub(crate) fn with_fuse(mut self, fuse: bool) -> Flattener<'p> {
        self.fuse = fuse;
        self
    }

    fn ty(&self, e: &Expr) -> Result<&Type> {
        self.types
            .get(&node_key(e))
            .ok_or_else(|| internal(format!("no type for `{}`", crate::check::short(e))))
    }

    /// The free variables of `e` when `params` are bound (cached per node).
    fn free_of(&self, e: &Expr, params: &[(String, Option<Type>)]) -> Arc<Vec<String>> {
        let key = node_key(e);
        if let Some(f) = self.free.borrow().get(&key) {
            return f.clone();
        }
        let mut bound: Vec<String> = params.iter().map(|(n, _)| n.clone()).collect();
        let mut out = Vec::new();
        free_vars(e, &mut bound, &mut out);
        let out = Arc::new(out);
        self.free.borrow_mut().insert(key, out.clone());
        out
    }

    /// The environment of `e` moved into a new context by `f` (replicate, pack, gather).
    fn move_env(
        &self,
        e: &Expr,
        params: &[(String, Option<Type>)],
        env: &Env,
        f: impl Fn(&LVal) -> Result<LVal>,
    ) -> Result<Env> {
        self.free_of(e, params)
            .iter()
            .map(|n| Ok((n.clone(), Some(f(lookup(env, n)?)?))))
            .collect()
    }

    /// Calls `name` lifted over the lanes of `ctx`.
    pub(crate) fn call(&self, name: &str, args: Vec<LVal>, ctx: &Ctx) -> Result<LVal> {
        let f = self
            .program
            .function(name)
            .ok_or_else(|| internal(format!("no function `{name}`")))?;
        let mut env: Env = f
            .params
            .iter()
            .map(|(n, _)| n.clone())
            .zip(args.into_iter().map(Some))
            .collect();
        if ctx.n == 0 {
            // No lane calls: nothing to count.
            return self.eval(&f.body, &mut env, ctx);
        }
        self.depth.call(name, || self.eval(&f.body, &mut env, ctx))
    }

    fn eval(&self, e: &Expr, env: &mut Env, ctx: &Ctx) -> Result<LVal> {
        if ctx.n == 0 {
            return Ok(LVal::empty(self.ty(e)?));
        }
        flatland_runtime::stats::record_nodes_walked(1);
        let root = self.root_env(e, env)?;
        let r = stacker::maybe_grow(128 * 1024, 4 * 1024 * 1024, || self.eval_inner(e, env, ctx));
        self.release(e, env);
        r.map_err(|err| self.unwound(e, err, ctx, root))
    }

    /// Releases the variables (or tuple components) whose last use is `e`.
    fn release(&self, e: &Expr, env: &mut Env) {
        let Some(ks) = self.live.kills.get(&node_key(e)) else {
            return;
        };
        for (n, keep) in ks {
            let Some((_, slot)) = env.iter_mut().rev().find(|(m, _)| m == n) else {
                continue;
            };
            match (keep, slot) {
                (None, slot) => *slot = None,
                (Some(keep), Some(LVal::Tuple(vs))) => {
                    for (i, v) in vs.iter_mut().enumerate() {
                        if !keep.contains(&i) {
                            *v = liveness::hollow(v);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn eval_inner(&self, e: &Expr, env: &mut Env, ctx: &Ctx) -> Result<LVal> {
        Ok(match e {
            Expr::Var(n) => lookup(env, n)?.clone(),
            Expr::Lit(_) | Expr::Unary(..) | Expr::Binary(..) | Expr::Ternary(..) => {
                self.scalar(e, env, ctx)?
            }
            Expr::Tuple(es) => LVal::Tuple(
                es.iter()
                    .map(|x| self.eval(x, env, ctx))
                    .collect::<Result<_>>()?,
            ),
            Expr::Proj(t, i) if matches!(**t, Expr::Filter(..)) => {
                self.filter_class(t, *i, env, ctx)?
            }
            Expr::Proj(t, i) => match self.eval(t, env, ctx)? {
                LVal::Tuple(mut vs) if *i < vs.len() => vs.swap_remove(*i),
                _ => return Err(internal("projection of a non-tuple".into())),
            },
            Expr::Let(n, v, b) => {
                let v = self.eval(v, env, ctx)?;
                env.push((n.clone(), Some(v)));
                let r = self.eval(b, env, ctx);
                env.pop();
                r?
            }
            Expr::If(..) if self.selectable(e) => self.scalar(e, env, ctx)?,
            Expr::If(c, a, b) => self.lifted_if(e, c, a, b, env, ctx)?,
            Expr::Call(name, args) => {
                let args = args
                    .iter()
                    .map(|a| self.eval(a, env, ctx))
                    .collect::<Result<_>>()?;
                self.call(name, args, ctx)?
            }
            Expr::Fused(f) => self.fused(f, env, ctx)?,
            _ => self.array_op(e, env, ctx)?,
        })
    }

    /// Whether `e` is an `if` on scalars whose branches are trees of operators that cannot fail:
    /// evaluating both branches on every lane is then unobservable, and the `if` becomes the
    /// expression machine's `select` instead of packing lanes.
    fn selectable(&self, e: &Expr) -> bool {
        selectable(&self.types, e)
    }

    /// A tree of scalar operators, compiled to one expression-machine program over all lanes;
    /// the other nodes under it are evaluated lifted (in order) and become its input columns.
    fn scalar(&self, e: &Expr, env: &mut Env, ctx: &Ctx) -> Result<LVal> {
        let mut nodes = Vec::new();
        scalar_tree::scalar_shape(&self.types, e, &mut nodes);
        let inputs = nodes
            .iter()
            .map(|n| Ok(self.eval(n, env, ctx)?.col()?.clone()))
            .collect::<Result<Vec<Col>>>()?;
        self.scalar_of(e, &inputs, ctx)
    }

    /// The scalar operator tree `e` run over all lanes of `ctx` on its evaluated input columns
    /// (the nodes [`scalar_tree::scalar_shape`] lists, in order); compiled once per node.
    fn scalar_of(&self, e: &Expr, inputs: &[Col], ctx: &Ctx) -> Result<LVal> {
        let key = node_key(e);
        let cached = self.compiled.borrow().get(&key).cloned();
        let program = if let Some(p) = cached {
            p
        } else {
            let tree = scalar_tree::scalar_shape(&self.types, e, &mut Vec::new());
            let types: Vec<_> = inputs.iter().map(Col::ty).collect();
            let p = Arc::new(
                (expr::Program::compile(&tree, &types).map_err(rt)?).with_kernels(&self.kernels),
            );
            self.compiled.borrow_mut().insert(key, p.clone());
            p
        };
        let refs: Vec<_> = inputs.iter().map(Col::as_ref).collect();
        let out = program.eval(&refs, ctx.n).map_err(|e| ctx.fix(e))?;
        Ok(LVal::Scalar(Col::from_column(out)))
    }

    /// Each branch runs in its own environment (its free variables, packed to its lanes), so
    /// the caller's bindings the `if` uses last are released before the branches run.
    fn lifted_if(
        &self,
        e: &Expr,
        c: &Expr,
        a: &Expr,
        b: &Expr,
        env: &mut Env,
        ctx: &Ctx,
    ) -> Result<LVal> {
        let cond = self.eval(c, env, ctx)?;
        let branches = Branches::of(&cond, ctx.n)?;
        drop(cond);
        let keep = |x: &Expr| self.move_env(x, &[], env, |v| Ok(v.clone()));
        let split = match branches {
            Branches::Then => {
                let mut ea = keep(a)?;
                self.release(e, env);
                return self.eval(a, &mut ea, ctx);
            }
            Branches::Else => {
                let mut eb = keep(b)?;
                self.release(e, env);
                return self.eval(b, &mut eb, ctx);
            }
            Branches::Both(split) => split,
        };
        let mut ea = self.move_env(a, &[], env, |v| split.pack_then(v))?;
        let mut eb = self.move_env(b, &[], env, |v| split.pack_else(v))?;
        self.release(e, env);
        let then_ctx = split.then_ctx(ctx);
        let mut ra = self.eval(a, &mut ea, &then_ctx).map_err(|err| {
            ctx.lift(&then_ctx, err, |k| {
                split.then.iter_ones().nth(k).unwrap_or(k)
            })
        })?;
        drop(ea);
        // The first branch's result waits while the second runs (lifted recursion): keep only
        // the elements it reaches.
        if self.live.calls.contains(&node_key(b)) {
            ra = liveness::compact(&ra)?;
        }
        let else_ctx = split.else_ctx(ctx);
        let rb = self.eval(b, &mut eb, &else_ctx).map_err(|err| {
            ctx.lift(&else_ctx, err, |k| {
                split.other.iter_ones().nth(k).unwrap_or(k)
            })
        })?;
        drop(eb);
        split.combine(&ra, &rb)
    }

    /// Enters a lambda applied to the elements of `arrays` (one array per lane): the new
    /// context's lanes are the elements, the lambda's free variables are replicated into it.
    fn enter(
        &self,
        op: &'static str,
        f: &Lambda,
        arrays: Vec<LVal>,
        env: &mut Env,
        ctx: &Ctx,
        node: Option<&Expr>,
    ) -> Result<(Segd, LVal)> {
        let (segd, params) = elements_of_all(op, arrays, ctx)?;
        let params = params.into_iter().map(Some);
        let inner = Ctx::inner(&segd);
        let mut benv = self.move_env(&f.body, &f.params, env, |v| v.replicate_s(&segd))?;
        benv.extend(f.params.iter().map(|(n, _)| n.clone()).zip(params));
        if let Some(e) = node {
            // The caller's bindings the map uses last are released before the body runs; those
            // still needed afterwards keep only the elements they reach while it runs (lifted
            // recursion keeps them alive for as long as it goes).
            self.release(e, env);
            if self.live.calls.contains(&node_key(e)) {
                for (_, v) in env.iter_mut() {
                    if let Some(v) = v {
                        *v = liveness::compact(v)?;
                    }
                }
            }
        }
        // A body that may fail keeps its environment, to settle which lane fails first; not a
        // body that calls a function: the kept values would live through the recursion.
        let kept = (self.fallible.may_fail(&f.body)
            && !self.live.calls.contains(&node_key(&f.body)))
        .then(|| benv.clone());
        let r = self.eval(&f.body, &mut benv, &inner);
        drop(benv);
        let r = r.map_err(|err| self.settle_body(f, err, kept, &inner, (&segd, ctx)))?;
        Ok((segd, r))
    }

    fn lifted_map(
        &self,
        f: &Lambda,
        arrays: &[Expr],
        env: &mut Env,
        ctx: &Ctx,
        op: &'static str,
        node: Option<&Expr>,
    ) -> Result<LVal> {
        let vals: Vec<LVal> = arrays
            .iter()
            .map(|a| self.eval(a, env, ctx))
            .collect::<Result<_>>()?;
        let (segd, r) = self.enter(op, f, vals, env, ctx, node)?;
        Ok(LVal::Array(vsegd_of_segd(&segd), Arc::new(r)))
    }

    /// The bulk application of a reduction operator to pairs of lanes.
    fn applier<'a>(
        &'a self,
        op: &'a ReduceOp,
        compiled: Option<&'a Combine>,
        env: &'a Env,
        ctx: &'a Ctx,
    ) -> Box<Apply<'a>> {
        match (op.bin_op(), op) {
            (Some(bop), _) => {
                // Compiled at the first step (the operands' types are the same at every step).
                let mut compiled: Option<expr::Program> = None;
                let kernels = &self.kernels;
                Box::new(move |a: &LVal, b: &LVal, segs: &[usize]| {
                    let (x, y) = (a.col()?, b.col()?);
                    let program = match compiled {
                        Some(ref p) => p,
                        None => compiled.insert(
                            expr::Program::compile(&pair_tree(bop), &[x.ty(), y.ty()])
                                .map_err(rt)?
                                .with_kernels(kernels),
                        ),
                    };
                    let out = program
                        .eval(&[x.as_ref(), y.as_ref()], segs.len())
                        .map_err(|e| ctx.gather(segs).fix(e))?;
                    Ok(LVal::Scalar(Col::from_column(out)))
                })
            }
            (None, ReduceOp::Lambda(l)) => {
                // A step the compiled operator cannot take, or one that fails, runs lifted
                // (which reports the error).
                Box::new(move |a: &LVal, b: &LVal, segs: &[usize]| {
                    if let Some(Some(Ok(r))) = compiled.map(|c| c.apply(a, b, segs, env)) {
                        return Ok(r);
                    }
                    let args = vec![a.clone(), b.clone()];
                    self.apply_lambda(l, args, env, segs, &ctx.gather(segs))
                })
            }
            (None, _) => unreachable!("built-in operators have a scalar operator"),
        }
    }

    /// A lambda operator compiled once for a whole fold or scan, where its body allows (fusion
    /// on; [`crate::kernels::combine`]).
    fn compiled_operator(&self, op: &ReduceOp, z: &LVal, env: &Env) -> Option<Combine> {
        match op {
            ReduceOp::Lambda(l) if self.fuse => {
                let c = Combine::new(l, z, env, &self.kernels);
                self.trace.record("operator", c.is_some());
                c
            }
            _ => None,
        }
    }

    /// `l` applied lifted to `args` (one value per lane of `sub`), lane `j` belonging to lane
    /// `segs[j]` of the context whose variables are `env` (the lambda's free variables are
    /// gathered from there).
    fn apply_lambda(
        &self,
        l: &Lambda,
        args: Vec<LVal>,
        env: &Env,
        segs: &[usize],
        sub: &Ctx,
    ) -> Result<LVal> {
        let mut benv = self.move_env(&l.body, &l.params, env, |v| v.gather(segs))?;
        benv.extend(
            l.params
                .iter()
                .map(|(n, _)| n.clone())
                .zip(args.into_iter().map(Some)),
        );
        self.eval(&l.body, &mut benv, sub)
    }

    fn lifted_reduce(
        &self,
        op: &ReduceOp,
        z: &LVal,
        arr: &LVal,
        env: &Env,
        ctx: &Ctx,
    ) -> Result<LVal> {
        let (v, el) = arr.array()?;
        if let (Some(bop), LVal::Scalar(block), LVal::Scalar(zc)) = (op.bin_op(), &**el, z)
            && let Some(z0) = uniform(zc)
        {
            return Ok(LVal::Scalar(builtin!(bop, block, z0, |f, b, z| {
                seg::fold_vs(v, &[&b[..]], z, f).map_err(rt)?
            })));
        }
        let (segd, xs) = arr.elements()?;
        let compiled = self.compiled_operator(op, z, env);
        let fast = compiled.as_ref().map(|c| (c, env));
        let mut apply = self.applier(op, compiled.as_ref(), env, ctx);
        fold_chains(&segd, &xs, z, &mut *apply, fast)
    }

    fn lifted_scan(
        &self,
        op: &ReduceOp,
        z: &LVal,
        arr: &LVal,
        env: &Env,
        ctx: &Ctx,
    ) -> Result<LVal> {
        let (segd, xs) = arr.elements()?;
        let out = if let (Some(bop), LVal::Scalar(data), LVal::Scalar(zc)) = (op.bin_op(), &xs, z)
            && let Some(z0) = uniform(zc)
        {
            LVal::Scalar(builtin!(bop, data, z0, |f, d, z| seg::scan_s(
                &segd, d, z, f
            )
            .map_err(rt)?))
        } else {
            let compiled = self.compiled_operator(op, z, env);
            scan_chains(
                &segd,
                &xs,
                z,
                &mut *self.applier(op, compiled.as_ref(), env, ctx),
            )?
        };
        Ok(LVal::Array(vsegd_of_segd(&segd), Arc::new(out)))
    }

    /// Regroups the elements of each lane's array by class (`keys`, stable) and returns, for
    /// each class asked for, an array per lane: virtual segments of the one permuted block.
    fn classes(
        segd: &Segd,
        xs: &LVal,
        keys: &[u8],
        classes: usize,
        wanted: &[usize],
    ) -> Result<LVal> {
        // A column of scalars is partitioned itself; other elements through a permutation.
        let (class_segd, elems) = if let LVal::Scalar(c) = xs {
            let (class_segd, c) = c.partition_s(segd, keys, classes)?;
            (class_segd, LVal::Scalar(c))
        } else {
            let idx: Vec<usize> = (0..xs.lanes()).collect();
            let p = seg::partition_s(segd, &idx, keys, classes).map_err(rt)?;
            (p.segd, xs.gather(&p.data)?)
        };
        let elems = Arc::new(elems);
        let ssegd = SSegd::from_segd(&class_segd);
        let n = segd.len();
        let parts = wanted
            .iter()
            .map(|&c| {
                let ids = (0..n).map(|j| j * classes + c).collect();
                Ok(LVal::Array(
                    VSegd::try_new(ids, ssegd.clone()).map_err(|e| rt(e.into()))?,
                    elems.clone(),
                ))
            })
            .collect::<Result<_>>()?;
        Ok(LVal::Tuple(parts))
    }

    /// A predicate or key lambda applied to the lanes `idx` of the elements only.
    fn apply_on(
        &self,
        f: &Lambda,
        xs: &LVal,
        segd: &Segd,
        idx: &[usize],
        inner: &Ctx,
        env: &Env,
    ) -> Result<LVal> {
        let seg_of = segd.segments_of_elements(idx).map_err(|e| rt(e.into()))?;
        self.apply_lambda(f, vec![xs.gather(idx)?], env, &seg_of, &inner.gather(idx))
    }

    /// The class of each element `xs` (the segments of `segd`) under the if-elif predicates
    /// `ps` (`ps.len()` for none): one expression-machine pass when fusion is on and the pass
    /// meets no error (`kernels::filter_keys`), else each predicate applied lazily to the
    /// elements still unclassified.
    fn filter_keys(&self, ps: &[Lambda], segd: &Segd, xs: &LVal, env: &Env) -> Result<Vec<u8>> {
        if self.fuse {
            let keys = crate::kernels::filter_keys(ps, xs, segd, env, &self.kernels);
            self.trace.record("filter keys", keys.is_some());
            if let Some(keys) = keys {
                return Ok(keys);
            }
        }
        let m = xs.lanes();
        let inner = Ctx::inner(segd);
        let mut keys = vec![ps.len() as u8; m];
        let mut remaining: Vec<usize> = (0..m).collect();
        for (k, p) in ps.iter().enumerate() {
            if remaining.is_empty() {
                break;
            }
            let r = self.apply_on(p, xs, segd, &remaining, &inner, env)?;
            let bits = r.col()?.bools()?;
            let mut next = Vec::with_capacity(remaining.len());
            for (&pos, &b) in remaining.iter().zip(bits) {
                if b {
                    keys[pos] = k as u8;
                } else {
                    next.push(pos);
                }
            }
            remaining = next;
        }
        Ok(keys)
    }

    /// The elements of the arrays `a` evaluates to, in lane order, with their contiguous
    /// descriptor. When `a` is a variable still bound afterwards, the binding becomes the
    /// contiguous form (the same arrays), so that the next filter or partition of it (three
    /// in quicksort) finds its elements in order instead of copying them again.
    fn elements_of(&self, a: &Expr, env: &mut Env, ctx: &Ctx) -> Result<(Segd, LVal)> {
        let (segd, xs) = self.eval(a, env, ctx)?.elements()?;
        if let Expr::Var(n) = a
            && let Some((_, Some(slot))) = env.iter_mut().rev().find(|(m, _)| m == n)
        {
            *slot = LVal::Array(vsegd_of_segd(&segd), Arc::new(xs.clone()));
        }
        Ok((segd, xs))
    }

    /// `filter(ps, a).i`, one class of a filter: the keys as for the whole filter (a mask of
    /// class `i` straight from one expression-machine pass where fusion allows), then only the
    /// elements of that class packed (`seg::count_s_bits`, `flat::pack`); the other classes
    /// are never built.
    fn filter_class(&self, filter: &Expr, i: usize, env: &mut Env, ctx: &Ctx) -> Result<LVal> {
        let Expr::Filter(ps, a) = filter else {
            return Err(internal("filter class of a non-filter".into()));
        };
        if i > ps.len() {
            return Err(internal("projection of a non-tuple".into()));
        }
        let (segd, xs) = self.elements_of(a, env, ctx)?;
        let mask = self.class_mask(ps, i, &segd, &xs, env)?;
        self.release(filter, env);
        pack_class(&segd, &xs, &mask)
    }

    /// Which elements `xs` (the segments of `segd`) are in class `i` of the if-elif
    /// predicates `ps`: a mask straight from one expression-machine pass where fusion allows,
    /// else from the classes of all elements.
    fn class_mask(
        &self,
        ps: &[Lambda],
        i: usize,
        segd: &Segd,
        xs: &LVal,
        env: &Env,
    ) -> Result<BitVec> {
        let fused = if self.fuse {
            let mask = crate::kernels::filter_mask(ps, i, xs, segd, env, &self.kernels);
            self.trace.record("filter mask", mask.is_some());
            mask
        } else {
            None
        };
        Ok(if let Some(mask) = fused {
            mask
        } else {
            let keys = self.filter_keys(ps, segd, xs, env)?;
            keys.iter().map(|&k| usize::from(k) == i).collect()
        })
    }

    /// `redomap(op, z0, f, arrays)` on the evaluated `arrays` and identity `z` (`None` when
    /// `z0` is a literal, which this evaluates): one single-pass kernel where fusion accepts it,
    /// else `f` mapped lifted and the results reduced.
    #[allow(clippy::too_many_arguments)]
    fn redomap_of(
        &self,
        op: &ReduceOp,
        z0: &Expr,
        z: Option<LVal>,
        f: &Lambda,
        vals: Vec<LVal>,
        env: &mut Env,
        ctx: &Ctx,
    ) -> Result<LVal> {
        let (z, vals) = match self.redomap_kernel(op, z0, z, f, vals, env, ctx)? {
            Redomapped::Done(r) => return Ok(r),
            Redomapped::Declined { z, arrays } => (z, arrays),
        };
        let (segd, r) = self.enter(redomap_op(f), f, vals, env, ctx, None)?;
        let mapped = LVal::Array(vsegd_of_segd(&segd), Arc::new(r));
        self.lifted_reduce(op, &z, &mapped, env, ctx)
    }

    /// The single-pass kernel of `redomap(op, z0, f, arrays)` where fusion accepts it; else the
    /// identity for the unfused steps (a literal built for every lane of `ctx`) and the arrays
    /// back.
    #[allow(clippy::too_many_arguments)]
    fn redomap_kernel(
        &self,
        op: &ReduceOp,
        z0: &Expr,
        z: Option<LVal>,
        f: &Lambda,
        vals: Vec<LVal>,
        env: &Env,
        ctx: &Ctx,
    ) -> Result<Redomapped> {
        // A literal identity is the same on every lane: the kernel gets it as one lane, and
        // only the unfused steps build it for every lane (a literal cannot fail, so evaluating
        // it after the arrays is unobservable).
        let lit = z.is_none();
        let top = Ctx::top();
        let z = match z {
            Some(z) => z,
            None => self.scalar_of(z0, &[], if self.fuse { &top } else { ctx })?,
        };
        if self.fuse {
            let r = crate::kernels::redomap(op, &z, f, &vals, env, &self.kernels);
            self.trace.record("redomap", r.is_some());
            if let Some(r) = r {
                return Ok(Redomapped::Done(r));
            }
        }
        let z = if lit && self.fuse {
            self.scalar_of(z0, &[], ctx)?
        } else {
            z
        };
        Ok(Redomapped::Declined { z, arrays: vals })
    }

    /// `filter(ps, a)` on the elements `xs` of `a` (the segments of `segd`): every class.
    fn filter_all(&self, ps: &[Lambda], segd: &Segd, xs: &LVal, env: &Env) -> Result<LVal> {
        let keys = self.filter_keys(ps, segd, xs, env)?;
        let all: Vec<usize> = (0..=ps.len()).collect();
        Self::classes(segd, xs, &keys, ps.len() + 1, &all)
    }

    /// `partition(classes, interest, key, a)` on the elements `xs` of `a` (the segments of
    /// `segd`): each class asked for, from the keys of [`Flattener::partition_keys`].
    fn partition_of(
        &self,
        classes: usize,
        interest: &[usize],
        key: &Lambda,
        segd: &Segd,
        xs: &LVal,
        env: &Env,
    ) -> Result<LVal> {
        let keys = self.partition_keys(classes, key, segd, xs, env)?;
        Self::classes(segd, xs, &keys, classes, interest)
    }

    /// The class of each element `xs` (the segments of `segd`) under the key lambda `key`: one
    /// expression-machine pass when fusion is on and the key compiles, else the key applied
    /// lifted (a key out of range is an error naming its lane).
    fn partition_keys(
        &self,
        classes: usize,
        key: &Lambda,
        segd: &Segd,
        xs: &LVal,
        env: &Env,
    ) -> Result<Vec<u8>> {
        if self.fuse {
            let keys = crate::kernels::partition_keys(key, classes, xs, segd, env, &self.kernels);
            self.trace.record("partition keys", keys.is_some());
            if let Some(keys) = keys {
                return Ok(keys);
            }
        }
        let m = xs.lanes();
        let inner = Ctx::inner(segd);
        let all: Vec<usize> = (0..m).collect();
        let kv = self.apply_on(key, xs, segd, &all, &inner, env)?;
        let mut keys = Vec::with_capacity(m);
        for (j, &k) in kv.col()?.i64s()?.iter().enumerate() {
            match usize::try_from(k) {
                Ok(c) if c < classes => keys.push(c as u8),
                Ok(c) => {
                    return Err(rt(RtError::ClassOutOfRange {
                        op: "partition",
                        lane: inner.lane(j),
                        class: c,
                        classes,
                    }));
                }
                Err(_) => {
                    return Err(invalid(
                        "partition",
                        inner.lane(j),
                        format!("negative key {k}"),
                    ));
                }
            }
        }
        Ok(keys)
    }

    /// The parts of an `append` chain (its operands, through nested appends, in order),
    /// evaluated in the order the nested appends would evaluate them; a nested append's
    /// bindings used last are released once its operands are evaluated, as it would release
    /// them.
    fn append_parts(&self, e: &Expr, env: &mut Env, ctx: &Ctx, out: &mut Vec<LVal>) -> Result<()> {
        let Expr::Append(a, b) = e else {
            out.push(self.eval(e, env, ctx)?);
            return Ok(());
        };
        for x in [a, b] {
            if matches!(**x, Expr::Append(..)) {
                self.append_parts(x, env, ctx, out)?;
                self.release(x, env);
            } else {
                out.push(self.eval(x, env, ctx)?);
            }
        }
        Ok(())
    }

    fn array_op(&self, e: &Expr, env: &mut Env, ctx: &Ctx) -> Result<LVal> {
        let mut ev = |x: &Expr| self.eval(x, env, ctx);
        Ok(match e {
            Expr::ArrayLit(t, es) => {
                let vals = es.iter().map(&mut ev).collect::<Result<Vec<_>>>()?;
                arrays::array_lit(t, vals, ctx)?
            }
            Expr::Index(a, i) => {
                let (a, i) = (ev(a)?, ev(i)?);
                arrays::index(&a, &i, ctx)?
            }
            Expr::Length(a) => arrays::length(&ev(a)?)?,
            Expr::Iota { len, start, step } => {
                let (l, s, d) = (ev(len)?, ev(start)?, ev(step)?);
                arrays::iota(&l, &s, &d, ctx)?
            }
            Expr::Replicate(c, x) => {
                let (c, x) = (ev(c)?, ev(x)?);
                arrays::replicate(&c, &x, ctx)?
            }
            Expr::Slice(a, s, l) => {
                let (a, s, l) = (ev(a)?, ev(s)?, ev(l)?);
                arrays::slice(&a, &s, &l, ctx)?
            }
            Expr::Append(..) => {
                // A chain `append(append(a, b), c)` copies its parts once, into lane order.
                let mut parts = Vec::new();
                self.append_parts(e, env, ctx, &mut parts)?;
                arrays::append(parts)?
            }
            Expr::Concat(a) => arrays::concat(&ev(a)?)?,
            Expr::Sort(op, a) => sort::sort(*op, &ev(a)?)?,
            Expr::Scatter(d, i, v) => {
                let (d, i) = (ev(d)?, ev(i)?);
                let values = match &**v {
                    Expr::Replicate(c, x) if self.ty(x)?.scalar().is_some() => {
                        let (count, x) = (self.eval(c, env, ctx)?, self.eval(x, env, ctx)?);
                        self.release(v, env);
                        arrays::Values::Replicated { count, x }
                    }
                    _ => arrays::Values::Arrays(self.eval(v, env, ctx)?),
                };
                arrays::scatter(&d, &i, values, ctx)?
            }
            Expr::Map(f, arrays) => self.lifted_map(f, arrays, env, ctx, "map", Some(e))?,
            Expr::Reduce(op, z, a) => {
                let z = self.eval(z, env, ctx)?;
                let a = self.eval(a, env, ctx)?;
                self.lifted_reduce(op, &z, &a, env, ctx)?
            }
            Expr::Scan(op, z, a) => {
                let z = self.eval(z, env, ctx)?;
                let a = self.eval(a, env, ctx)?;
                self.lifted_scan(op, &z, &a, env, ctx)?
            }
            Expr::Redomap(op, z0, f, arrays) => {
                let z = if matches!(**z0, Expr::Lit(_)) {
                    None
                } else {
                    Some(self.eval(z0, env, ctx)?)
                };
                let vals: Vec<LVal> = arrays
                    .iter()
                    .map(|a| self.eval(a, env, ctx))
                    .collect::<Result<_>>()?;
                self.redomap_of(op, z0, z, f, vals, env, ctx)?
            }
            Expr::Hist {
                bins,
                op,
                identity,
                indices,
                values,
            } => {
                let counts = hist::bin_counts(&self.eval(bins, env, ctx)?, ctx)?;
                let z = self.eval(identity, env, ctx)?;
                let ks = self.eval(indices, env, ctx)?;
                let vs = self.eval(values, env, ctx)?;
                self.lifted_hist(op, &counts, &z, (&ks, &vs), env, ctx)?
            }
            Expr::Loop { init, form, body } => self.lifted_loop(e, (init, form, body), env, ctx)?,
            Expr::Filter(ps, a) => {
                let (segd, xs) = self.elements_of(a, env, ctx)?;
                self.filter_all(ps, &segd, &xs, env)?
            }
            Expr::Partition {
                classes,
                interest,
                key,
                array,
            } => {
                let (segd, xs) = self.elements_of(array, env, ctx)?;
                self.partition_of(*classes, interest, key, &segd, &xs, env)?
            }
            other => {
                return Err(internal(format!(
                    "not an array operation: {}",
                    other.kind()
                )));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &LVal) -> Vec<i64> {
        v.col().unwrap().i64s().unwrap().to_vec()
    }

    #[test]
    fn branches_split_the_lanes_and_combine_them_back() {
        let bools = |b: &[bool]| LVal::Scalar(Col::Bool(adopt(b.to_vec())));
        let all = Branches::of(&bools(&[true, true]), 2).unwrap();
        assert!(matches!(all, Branches::Then));
        assert!(matches!(
            Branches::of(&bools(&[false]), 1).unwrap(),
            Branches::Else
        ));
        let Branches::Both(split) = Branches::of(&bools(&[false, true, false]), 3).unwrap() else {
            panic!("both branches have lanes");
        };
        let ctx = Ctx::inner(&Segd::regular(1, 3));
        let (then_ctx, else_ctx) = (split.then_ctx(&ctx), split.else_ctx(&ctx));
        assert_eq!((then_ctx.n, then_ctx.lane(0)), (1, 1));
        assert_eq!((else_ctx.n, else_ctx.lane(1)), (2, 2));
        let xs = LVal::Scalar(Col::I64(adopt(vec![10, 20, 30])));
        let (t, o) = (split.pack_then(&xs).unwrap(), split.pack_else(&xs).unwrap());
        assert_eq!((ints(&t), ints(&o)), (vec![20], vec![10, 30]));
        let doubled = LVal::Scalar(Col::I64(adopt(vec![40])));
        assert_eq!(
            ints(&split.combine(&doubled, &o).unwrap()),
            vec![10, 40, 30]
        );
    }
}
