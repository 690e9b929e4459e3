//! The single-pass redomap kernel: a map body compiled to expression-machine programs over
//! blocks of whole leaves, folded straight into the canonical per-leaf accumulators with
//! [`fused::fold_blocks`]. Only block-sized buffers are allocated (inputs that are not
//! contiguous in memory, gathered `v[i]`, the mapped values of one block).
//!
//! Accepted: a built-in operator (or the component-wise operator of horizontal fusion) with an
//! identity equal on every lane, and a body made of constants, the parameters (and fields of
//! tuple parameters), free scalars, `let`, tuples, projections, scalar operators, `if` whose
//! branches cannot fail (as a select), and `index` of a free array of scalars. Anything else
//! keeps the unfused steps.
//!
//! The direct path: a single `f64` redomap with `+`, `min` or `max` whose body is one column of
//! the arrays, one gather `v[i]` (index read in place, `v` one free array), or one `+ - *` of two
//! such leaves, over arrays that lie in place in their block (smvm's `x * v[c]`), skips the
//! blocks: [`seg::fold_s_leaves_split`] folds each segment straight from the columns, sliced once
//! per leaf, with gathers prefetched when the vector is out of cache (module `reads`), with no
//! buffer at all and the same association (so the same bits). On an index out of range it hands over to
//! the block path, which gives up in turn, and the unfused steps report the error.

use super::reads::{ColRead, GatherRead, fold_reads};
use super::rules::componentwise;
use crate::env::{Env, lookup};
use crate::ir::{BinaryOp, Classes, Expr, FusedForm, Lambda, ReduceOp, Scalar, ScalarType};
use crate::lval::{Col, LVal, adopt, uniform};
use flatland_runtime::expr::native::Kernels;
use flatland_runtime::expr::op::{float, int};
use flatland_runtime::expr::{self, ColumnMut, ColumnRef, Node, Parallelism, Program};
use flatland_runtime::fused::{self, Piece};
use flatland_runtime::{Error as RtError, Result as RtResult, assoc, seg, stats};
use flatland_segd::{Segd, VSegd};
use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Where one input column of a block comes from.
#[derive(Clone, Debug)]
pub(super) enum Src {
    /// Field `path` of the elements of array argument `arg`.
    Param(usize, Vec<usize>),
    /// Field `path` of a free variable, one value per lane (repeated over the lane's elements).
    Free(String, Vec<usize>),
    /// `arr[index]`, `arr` a free array of scalars (field `path` of a free variable), `index` a
    /// program over the sources before this one.
    Gather(String, Vec<usize>, Arc<Program>, Option<usize>),
    /// The length of each lane's array (field `path` of a free variable), repeated over the
    /// lane's elements.
    Len(String, Vec<usize>),
}

impl PartialEq for Src {
    /// Equal sources share one column; gathers are merged only when both read one array at
    /// one source column (`a[x]` written twice), otherwise their programs differ.
    fn eq(&self, other: &Src) -> bool {
        match (self, other) {
            (Src::Gather(a, p, _, Some(i)), Src::Gather(b, q, _, Some(j))) => {
                a == b && p == q && i == j
            }
            (Src::Param(a, p), Src::Param(b, q)) => a == b && p == q,
            (Src::Free(a, p), Src::Free(b, q)) | (Src::Len(a, p), Src::Len(b, q)) => {
                a == b && p == q
            }
            _ => false,
        }
    }
}

/// A compiled value: a scalar tree, a tuple of values, or a reference to a free array.
#[derive(Clone)]
pub(super) enum Cv {
    T(expr::Expr),
    Tup(Vec<Cv>),
    Arr(String, Vec<usize>),
}

pub(super) struct Compiler<'a> {
    env: &'a Env,
    /// The native kernels of the program being run (attached to the programs compiled here).
    kernels: &'a Kernels,
    params: Vec<String>,
    args: Vec<&'a LVal>,
    pub(super) srcs: Vec<Src>,
    pub(super) types: Vec<ScalarType>,
    scope: Vec<(String, Cv)>,
    /// Whether an `if` whose branches read free arrays compiles to a select (both branches
    /// computed on every element): only where a failure makes the kernel give up, and a gather
    /// out of range on an element whose branch is not taken is forgiven (`eval_on_elements`).
    /// Branches with operators that can fail (division) are still not compiled: computing them
    /// where they are not taken would fail, and the kernel would give up every time.
    speculative: bool,
    /// The index tree of each gather source, by source.
    index_trees: Vec<(usize, expr::Expr)>,
}

pub(super) fn field<'v>(v: &'v LVal, path: &[usize]) -> Option<&'v LVal> {
    path.iter().try_fold(v, |v, &i| match v {
        LVal::Tuple(fs) => fs.get(i),
        _ => None,
    })
}

/// Whether evaluating `e` for lanes that do not need it is harmless (no failing operator, no
/// indexing), so an `if` over it may evaluate both branches.
fn safe(e: &Expr) -> bool {
    harmless(e, false)
}

/// [`safe`], or with `reads` also reading free arrays (`a[i]`, `a.len()`): a speculative
/// compiler's gathers forgive an index out of range where no result depends on it.
fn harmless(e: &Expr, reads: bool) -> bool {
    let h = |e: &Expr| harmless(e, reads);
    match e {
        Expr::Lit(_) | Expr::Var(_) => true,
        Expr::Proj(a, _) | Expr::Unary(_, a) => h(a),
        Expr::Binary(op, a, b) => !op.can_fail() && h(a) && h(b),
        Expr::Ternary(op, a, b, c) => !op.can_fail() && h(a) && h(b) && h(c),
        Expr::Tuple(es) => es.iter().all(h),
        Expr::Let(_, a, b) => h(a) && h(b),
        Expr::If(a, b, c) => h(a) && h(b) && h(c),
        Expr::Index(a, i) => reads && matches!(**a, Expr::Var(_)) && h(i),
        Expr::Length(a) => reads && matches!(**a, Expr::Var(_)),
        _ => false,
    }
}

impl<'a> Compiler<'a> {
    pub(super) fn new(
        env: &'a Env,
        params: Vec<String>,
        args: Vec<&'a LVal>,
        kernels: &'a Kernels,
    ) -> Compiler<'a> {
        Compiler {
            env,
            kernels,
            params,
            args,
            srcs: Vec::new(),
            types: Vec::new(),
            scope: Vec::new(),
            speculative: false,
            index_trees: Vec::new(),
        }
    }

    fn src(&mut self, s: Src, t: ScalarType) -> expr::Expr {
        let k = self.srcs.iter().position(|x| *x == s).unwrap_or_else(|| {
            self.srcs.push(s);
            self.types.push(t);
            self.srcs.len() - 1
        });
        expr::Expr::input(k)
    }

    /// The compiled form of a lifted value's shape; `free` names a free variable.
    fn of_lval(
        &mut self,
        v: &LVal,
        arg: Option<usize>,
        name: &str,
        path: &mut Vec<usize>,
    ) -> Option<Cv> {
        Some(match v {
            LVal::Scalar(c) => {
                let s = match arg {
                    Some(a) => Src::Param(a, path.clone()),
                    None => Src::Free(name.to_string(), path.clone()),
                };
                Cv::T(self.src(s, c.ty()))
            }
            LVal::Tuple(fs) => {
                let mut out = Vec::with_capacity(fs.len());
                for (i, f) in fs.iter().enumerate() {
                    path.push(i);
                    out.push(self.of_lval(f, arg, name, path)?);
                    path.pop();
                }
                Cv::Tup(out)
            }
            LVal::Array(..) if arg.is_none() => Cv::Arr(name.to_string(), path.clone()),
            LVal::Array(..) => return None,
        })
    }

    fn var(&mut self, n: &str) -> Option<Cv> {
        if let Some((_, cv)) = self.scope.iter().rev().find(|(m, _)| m == n) {
            return Some(cv.clone());
        }
        if let Some(k) = self.params.iter().position(|p| p == n) {
            let v = self.args[k];
            return self.of_lval(v, Some(k), n, &mut Vec::new());
        }
        let v = lookup(self.env, n).ok()?;
        self.of_lval(v, None, n, &mut Vec::new())
    }

    fn tree(&mut self, e: &Expr) -> Option<expr::Expr> {
        match self.compile(e)? {
            Cv::T(t) => Some(t),
            _ => None,
        }
    }

    pub(super) fn compile(&mut self, e: &Expr) -> Option<Cv> {
        Some(match e {
            Expr::Lit(s) => Cv::T(expr::Expr::constant(*s)),
            Expr::Var(n) => self.var(n)?,
            Expr::Proj(a, i) => match self.compile(a)? {
                Cv::Tup(mut vs) if *i < vs.len() => vs.swap_remove(*i),
                Cv::Arr(n, mut path) => {
                    path.push(*i);
                    Cv::Arr(n, path)
                }
                _ => return None,
            },
            Expr::Tuple(es) => Cv::Tup(es.iter().map(|x| self.compile(x)).collect::<Option<_>>()?),
            // A binding nothing reads that cannot fail (a fused body's renamed parameter
            // whose element is an array, say) need not compile.
            Expr::Let(n, v, b) if safe(v) && super::graph::uses(b, n) == 0 => self.compile(b)?,
            Expr::Let(n, v, b) => {
                let cv = self.compile(v)?;
                self.scope.push((n.clone(), cv));
                let r = self.compile(b);
                self.scope.pop();
                r?
            }
            Expr::Unary(op, a) => Cv::T(self.tree(a)?.unary(*op)),
            Expr::Binary(op, a, b) => {
                let x = self.tree(a)?;
                Cv::T(x.binary(*op, self.tree(b)?))
            }
            Expr::Ternary(op, a, b, c) => {
                let x = self.tree(a)?;
                let y = self.tree(b)?;
                Cv::T(x.ternary(*op, y, self.tree(c)?))
            }
            Expr::If(c, a, b) if harmless(a, self.speculative) && harmless(b, self.speculative) => {
                let c = self.tree(c)?;
                select(&c, self.compile(a)?, self.compile(b)?)?
            }
            Expr::Length(a) => {
                let Cv::Arr(n, path) = self.compile(a)? else {
                    return None;
                };
                Cv::T(self.src(Src::Len(n, path), ScalarType::I64))
            }
            Expr::Index(a, i) => {
                let Cv::Arr(n, path) = self.compile(a)? else {
                    return None;
                };
                let idx = self.tree(i)?;
                let arr = field(lookup(self.env, &n).ok()?, &path)?;
                let LVal::Array(_, el) = arr else { return None };
                let LVal::Scalar(c) = &**el else { return None };
                let t = c.ty();
                let program = Program::compile(&idx, &self.types)
                    .ok()?
                    .with_kernels(self.kernels)
                    .with_parallelism(Parallelism::Sequential);
                if program.output_type() != ScalarType::I64 {
                    return None;
                }
                let direct = match idx.node() {
                    Node::Input(k) => Some(*k),
                    _ => None,
                };
                let e = self.src(Src::Gather(n, path, Arc::new(program), direct), t);
                if let Node::Input(k) = e.node()
                    && !self.index_trees.iter().any(|(j, _)| j == k)
                {
                    self.index_trees.push((*k, idx));
                }
                Cv::T(e)
            }
            _ => return None,
        })
    }
}

fn select(c: &expr::Expr, a: Cv, b: Cv) -> Option<Cv> {
    Some(match (a, b) {
        (Cv::T(x), Cv::T(y)) => Cv::T(c.clone().select(x, y)),
        (Cv::Tup(xs), Cv::Tup(ys)) if xs.len() == ys.len() => Cv::Tup(
            xs.into_iter()
                .zip(ys)
                .map(|(x, y)| select(c, x, y))
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

/// A source resolved to its data. A gather whose index is a source itself reads that column in
/// place.
enum Data<'a> {
    Param(&'a VSegd, &'a Col),
    Free(&'a Col),
    Gather(&'a VSegd, &'a Col, &'a Program, Option<usize>),
}

/// A block's column: borrowed in place when contiguous, else block-sized and owned.
enum BCol<'a> {
    I64(Cow<'a, [i64]>),
    F64(Cow<'a, [f64]>),
    Bool(Cow<'a, [bool]>),
}

impl BCol<'_> {
    fn as_ref(&self) -> ColumnRef<'_> {
        match self {
            BCol::I64(v) => ColumnRef::I64(v),
            BCol::F64(v) => ColumnRef::F64(v),
            BCol::Bool(v) => ColumnRef::Bool(v),
        }
    }
}

/// The elements of `pieces` taken from `col` at `at(piece)` (a start in `col`), borrowed when
/// they are consecutive.
fn take<'a>(col: &'a Col, pieces: &[Piece], at: impl Fn(&Piece) -> usize) -> BCol<'a> {
    let first = at(&pieces[0]);
    let mut next = first;
    let contiguous = pieces.iter().all(|p| {
        let ok = at(p) == next;
        next += p.len;
        ok
    });
    macro_rules! go {
        ($v:expr, $ctor:ident) => {
            BCol::$ctor(if contiguous {
                Cow::Borrowed(&$v[first..next])
            } else {
                let mut out = Vec::with_capacity(next - first);
                for p in pieces {
                    out.extend_from_slice(&$v[at(p)..at(p) + p.len]);
                }
                Cow::Owned(out)
            })
        };
    }
    match col {
        Col::I64(v) => go!(v, I64),
        Col::F64(v) => go!(v, F64),
        Col::Bool(v) => go!(v, Bool),
    }
}

/// One value per lane, repeated over the lane's elements in the block.
fn repeat(col: &Col, pieces: &[Piece]) -> BCol<'static> {
    macro_rules! go {
        ($v:expr, $ctor:ident) => {
            BCol::$ctor(Cow::Owned(
                pieces
                    .iter()
                    .flat_map(|p| std::iter::repeat_n($v[p.segment], p.len))
                    .collect(),
            ))
        };
    }
    match col {
        Col::I64(v) => go!(v, I64),
        Col::F64(v) => go!(v, F64),
        Col::Bool(v) => go!(v, Bool),
    }
}

fn eval(p: &Program, inputs: &[BCol<'_>], len: usize) -> RtResult<BCol<'static>> {
    let refs: Vec<ColumnRef<'_>> = inputs.iter().map(BCol::as_ref).collect();
    Ok(match p.output_type() {
        ScalarType::I64 => {
            let mut out = vec![0i64; len];
            p.eval_into(&refs, ColumnMut::I64(&mut out))?;
            BCol::I64(Cow::Owned(out))
        }
        ScalarType::F64 => {
            let mut out = vec![0f64; len];
            p.eval_into(&refs, ColumnMut::F64(&mut out))?;
            BCol::F64(Cow::Owned(out))
        }
        ScalarType::Bool => {
            let mut out = vec![false; len];
            p.eval_into(&refs, ColumnMut::Bool(&mut out))?;
            BCol::Bool(Cow::Owned(out))
        }
    })
}

fn gather(v: &VSegd, data: &Col, idx: &[i64], pieces: &[Piece]) -> RtResult<BCol<'static>> {
    let fail = |p: &Piece, i: i64, len: usize, _| {
        Err(RtError::IndexOutOfRange {
            op: "index",
            lane: p.segment,
            index: i,
            len,
        })
    };
    gather_with(v, data, idx, pieces, fail)
}

/// [`gather`] that forgives indices out of range: those elements get a default value and their
/// positions are listed (the caller decides whether they were needed).
fn gather_lenient(
    v: &VSegd,
    data: &Col,
    idx: &[i64],
    pieces: &[Piece],
) -> (BCol<'static>, Vec<usize>) {
    let mut bad = Vec::new();
    let note = |_: &Piece, _, _, at: usize| {
        bad.push(at);
        Ok(())
    };
    let Ok(col) = gather_with(v, data, idx, pieces, note) else {
        unreachable!("a lenient gather does not fail")
    };
    (col, bad)
}

/// `data` of each piece's lane at `idx` (one index per element of the pieces, in order);
/// `bad(piece, index, lane length, position)` decides about each index out of range (an error
/// stops the gather; otherwise the element gets the type's default value).
fn gather_with(
    v: &VSegd,
    data: &Col,
    idx: &[i64],
    pieces: &[Piece],
    mut bad: impl FnMut(&Piece, i64, usize, usize) -> RtResult<()>,
) -> RtResult<BCol<'static>> {
    fn go<T: Copy + Default>(
        v: &VSegd,
        data: &[T],
        idx: &[i64],
        pieces: &[Piece],
        bad: &mut impl FnMut(&Piece, i64, usize, usize) -> RtResult<()>,
    ) -> RtResult<Vec<T>> {
        let mut out = Vec::with_capacity(idx.len());
        let mut at = 0;
        for p in pieces {
            let ps = v.physical(p.segment);
            let lane = &data[ps.start..ps.start + ps.len];
            let ix = &idx[at..at + p.len];
            // One pass checks the piece's indices, the next loads without branches.
            if ix.iter().all(|&i| i >= 0 && (i as usize) < lane.len()) {
                out.extend(ix.iter().map(|&i| lane[i as usize]));
            } else {
                for (k, &i) in ix.iter().enumerate() {
                    let x = usize::try_from(i).ok().and_then(|i| lane.get(i));
                    if x.is_none() {
                        bad(p, i, ps.len, at + k)?;
                    }
                    out.push(x.copied().unwrap_or_default());
                }
            }
            at += p.len;
        }
        Ok(out)
    }
    stats::record_read(idx.len() as u64);
    Ok(match data {
        Col::I64(d) => BCol::I64(Cow::Owned(go(v, d, idx, pieces, &mut bad)?)),
        Col::F64(d) => BCol::F64(Cow::Owned(go(v, d, idx, pieces, &mut bad)?)),
        Col::Bool(d) => BCol::Bool(Cow::Owned(go(v, d, idx, pieces, &mut bad)?)),
    })
}

/// The scalar types of block columns, for the typed loops of the scan and class kernels.
trait Lane: Copy + Send + Sync {
    fn of(s: Scalar) -> Option<Self>;
    fn scalar(self) -> Scalar;
    fn slice<'b>(c: &'b BCol<'_>) -> Option<&'b [Self]>;
    fn col(v: Vec<Self>) -> Col;
}

macro_rules! lane {
    ($t:ty, $ctor:ident, $get:ident) => {
        impl Lane for $t {
            fn of(s: Scalar) -> Option<$t> {
                s.$get()
            }
            fn scalar(self) -> Scalar {
                Scalar::$ctor(self)
            }
            fn slice<'b>(c: &'b BCol<'_>) -> Option<&'b [$t]> {
                match c {
                    BCol::$ctor(v) => Some(v),
                    _ => None,
                }
            }
            fn col(v: Vec<$t>) -> Col {
                Col::$ctor(adopt(v))
            }
        }
    };
}
lane!(i64, I64, as_i64);
lane!(f64, F64, as_f64);
lane!(bool, Bool, as_bool);

/// Runs `$body` with `$f` the function of built-in operator `$op` on type `$t` and `$T` its
/// Rust type (`None` for a combination the kernels do not accept).
#[rustfmt::skip]
macro_rules! with_op {
    ($op:expr, $t:expr, |$f:ident: $T:ident| $body:expr) => {{
        use BinaryOp as B;
        use ScalarType as S;
        match ($op, $t) {
            (B::Add, S::I64) => { type $T = i64; let $f = int::add; $body }
            (B::Mul, S::I64) => { type $T = i64; let $f = int::mul; $body }
            (B::Min, S::I64) => { type $T = i64; let $f = int::min; $body }
            (B::Max, S::I64) => { type $T = i64; let $f = int::max; $body }
            (B::Add, S::F64) => { type $T = f64; let $f = |a: f64, b: f64| a + b; $body }
            (B::Mul, S::F64) => { type $T = f64; let $f = |a: f64, b: f64| a * b; $body }
            (B::Min, S::F64) => { type $T = f64; let $f = float::min; $body }
            (B::Max, S::F64) => { type $T = f64; let $f = float::max; $body }
            (B::And, S::Bool) => { type $T = bool; let $f = |a: bool, b: bool| a & b; $body }
            (B::Or, S::Bool) => { type $T = bool; let $f = |a: bool, b: bool| a | b; $body }
            _ => None,
        }
    }};
}

/// The canonical fold of `col[r]` (one leaf) from `z`.
fn leaf(op: BinaryOp, z: Scalar, col: &BCol<'_>, r: Range<usize>) -> Scalar {
    let go = || {
        with_op!(op, z.ty(), |f: T| {
            Some(T::scalar(assoc::leaf_fold(
                &T::slice(col)?[r],
                T::of(z)?,
                f,
            )))
        })
    };
    go().expect("operator and types checked when the kernel was built")
}

/// `a op b`.
fn combine(op: BinaryOp, a: Scalar, b: Scalar) -> Scalar {
    let go = || with_op!(op, a.ty(), |f: T| Some(T::scalar(f(T::of(a)?, T::of(b)?))));
    go().expect("operator and types checked when the kernel was built")
}

fn accepts(op: BinaryOp, t: ScalarType) -> bool {
    use BinaryOp as B;
    match t {
        ScalarType::Bool => matches!(op, B::And | B::Or),
        _ => matches!(op, B::Add | B::Mul | B::Min | B::Max),
    }
}

fn column(t: ScalarType, vals: impl Iterator<Item = Scalar>) -> Col {
    match t {
        ScalarType::I64 => Col::I64(adopt(vals.map(|s| s.as_i64().unwrap_or(0)).collect())),
        ScalarType::F64 => Col::F64(adopt(vals.map(|s| s.as_f64().unwrap_or(0.0)).collect())),
        ScalarType::Bool => Col::Bool(adopt(vals.map(|s| s.as_bool().unwrap_or(false)).collect())),
    }
}

/// The columns of a block: the sources of a compiled body resolved to their data, then the
/// programs of the outputs that are not sources themselves.
struct Plan<'a> {
    data: Vec<Data<'a>>,
    /// Sources read in place by an output or a gather: their reads are counted per block.
    direct: Vec<bool>,
    programs: Vec<Program>,
}

/// The block programs of `outs` (compiled by `c`) and the column of each output: an output that
/// is a source itself is read in place; the others are programs whose columns follow the
/// sources' in each block.
fn out_programs(c: &Compiler<'_>, outs: &[expr::Expr]) -> Option<(Vec<Program>, Vec<usize>)> {
    let mut programs: Vec<Program> = Vec::new();
    let mut out_pos = Vec::with_capacity(outs.len());
    for t in outs {
        if let Node::Input(k) = t.node() {
            out_pos.push(*k);
        } else {
            let p = Program::compile(t, &c.types)
                .ok()?
                .with_kernels(c.kernels)
                .with_parallelism(Parallelism::Sequential);
            out_pos.push(c.srcs.len() + programs.len());
            programs.push(p);
        }
    }
    Some((programs, out_pos))
}

impl<'a> Plan<'a> {
    /// The plan computing `outs` (compiled by `c` over the arrays `descs`), and the column of
    /// each output.
    fn new(
        c: &'a Compiler<'a>,
        outs: &[expr::Expr],
        descs: &[(&'a VSegd, &'a LVal)],
        env: &'a Env,
    ) -> Option<(Plan<'a>, Vec<usize>)> {
        let (programs, out_pos) = out_programs(c, outs)?;
        let data: Vec<Data<'a>> = c
            .srcs
            .iter()
            .map(|s| {
                Some(match s {
                    Src::Param(a, path) => {
                        Data::Param(descs[*a].0, field(descs[*a].1, path)?.col().ok()?)
                    }
                    Src::Free(n, path) => {
                        Data::Free(field(lookup(env, n).ok()?, path)?.col().ok()?)
                    }
                    Src::Gather(n, path, p, direct) => {
                        let (v, el) = field(lookup(env, n).ok()?, path)?.array().ok()?;
                        Data::Gather(v, el.col().ok()?, p, *direct)
                    }
                    Src::Len(..) => return None,
                })
            })
            .collect::<Option<_>>()?;
        let mut direct = vec![false; data.len()];
        for &k in &out_pos {
            if k < direct.len() {
                direct[k] = true;
            }
        }
        for d in &data {
            if let Data::Gather(_, _, _, Some(k)) = d {
                direct[*k] = true;
            }
        }
        Some((
            Plan {
                data,
                direct,
                programs,
            },
            out_pos,
        ))
    }

    /// The number of sources read from the arrays' elements.
    fn params(&self) -> usize {
        self.data
            .iter()
            .filter(|d| matches!(d, Data::Param(..)))
            .count()
    }

    /// The type of column `k`.
    fn ty(&self, c: &Compiler<'_>, k: usize) -> ScalarType {
        match k.checked_sub(c.types.len()) {
            None => c.types[k],
            Some(p) => self.programs[p].output_type(),
        }
    }

    /// The columns of the elements of `pieces`: sources, then program outputs.
    fn produce(&self, pieces: &[Piece]) -> RtResult<Vec<BCol<'a>>> {
        let len: usize = pieces.iter().map(|p| p.len).sum();
        let mut cols: Vec<BCol<'a>> = Vec::with_capacity(self.data.len() + self.programs.len());
        for (d, &counted) in self.data.iter().zip(&self.direct) {
            let col = match d {
                Data::Param(v, col) => {
                    take(col, pieces, |p| v.physical(p.segment).start + p.offset)
                }
                Data::Free(col) => repeat(col, pieces),
                Data::Gather(v, el, p, at) => {
                    let computed;
                    let idx = if let Some(k) = at {
                        &cols[*k]
                    } else {
                        computed = eval(p, &cols, len)?;
                        &computed
                    };
                    let BCol::I64(idx) = idx else {
                        unreachable!("index programs yield i64")
                    };
                    gather(v, el, idx, pieces)?
                }
            };
            if counted {
                stats::record_read(len as u64);
            }
            cols.push(col);
        }
        // Programs read the sources only (they were compiled over the sources' types).
        let sources = cols.len();
        for p in &self.programs {
            let out = eval(p, &cols[..sources], len)?;
            cols.push(out);
        }
        Ok(cols)
    }
}

/// The trees of a map body compiled by `c`: one scalar, or a tuple of `fields` scalars.
fn body_outs(c: &mut Compiler<'_>, body: &Expr, fields: Option<usize>) -> Option<Vec<expr::Expr>> {
    Some(match (c.compile(body)?, fields) {
        (Cv::T(t), None) => vec![t],
        (Cv::Tup(ts), Some(n)) if ts.len() == n => ts
            .into_iter()
            .map(|t| match t {
                Cv::T(t) => Some(t),
                _ => None,
            })
            .collect::<Option<_>>()?,
        _ => return None,
    })
}

/// The trees of a class form compiled by `c`: the key's tree, then one tree per distinct output
/// value (outputs with equal values, a reduction and the packed array of one class, share a
/// column), and the tree of each output.
fn class_trees(c: &mut Compiler<'_>, form: &Classes) -> Option<(Vec<expr::Expr>, Vec<usize>)> {
    let mut trees = Vec::with_capacity(form.outs.len() + 1);
    let mut tree_of = Vec::with_capacity(form.outs.len());
    for (o, l) in std::iter::once(&form.key)
        .chain(form.outs.iter().map(|o| &o.value))
        .enumerate()
    {
        if o > 0
            && let Some(q) = form.outs[..o - 1].iter().position(|q| q.value == *l)
        {
            tree_of.push(tree_of[q]);
            continue;
        }
        let [(p, _)] = &l.params[..] else {
            return None;
        };
        c.params = vec![p.clone()];
        let Cv::T(t) = c.compile(&l.body)? else {
            return None;
        };
        if o > 0 {
            tree_of.push(trees.len());
        }
        trees.push(t);
    }
    if c.srcs
        .iter()
        .any(|s| !matches!(s, Src::Param(..) | Src::Free(..)))
    {
        return None;
    }
    Some((trees, tree_of))
}

/// `redomap(op, z, f, arrays)` over the lanes of the context in one pass, or `None` when the
/// kernel does not accept it or meets an error (the caller then runs the unfused steps, which
/// report the error as the unfused program does).
pub(crate) fn redomap(
    op: &ReduceOp,
    z: &LVal,
    f: &Lambda,
    arrays: &[LVal],
    env: &Env,
    kernels: &Kernels,
) -> Option<LVal> {
    let (ops, tuple) = match op.bin_op() {
        Some(b) => (vec![b], false),
        None => (componentwise(op)?, true),
    };
    let zs: Vec<Scalar> = match (z, tuple) {
        (LVal::Scalar(c), false) => vec![uniform(c)?],
        (LVal::Tuple(fs), true) if fs.len() == ops.len() => fs
            .iter()
            .map(|f| match f {
                LVal::Scalar(c) => uniform(c),
                _ => None,
            })
            .collect::<Option<_>>()?,
        _ => return None,
    };
    if zs.iter().zip(&ops).any(|(z, &o)| !accepts(o, z.ty())) || arrays.len() != f.params.len() {
        return None;
    }
    let descs: Vec<(&VSegd, &LVal)> = arrays
        .iter()
        .map(|a| match a {
            LVal::Array(v, e) => Some((v, &**e)),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let first = descs.first()?.0;
    if !descs[1..].iter().all(|(v, _)| v.same_lengths(first)) {
        return None;
    }
    let mut c = Compiler::new(
        env,
        f.params.iter().map(|(n, _)| n.clone()).collect(),
        descs.iter().map(|(_, e)| *e).collect(),
        kernels,
    );
    let outs = body_outs(&mut c, &f.body, tuple.then_some(ops.len()))?;
    let (plan, out_pos) = Plan::new(&c, &outs, &descs, env)?;
    if out_pos
        .iter()
        .zip(&zs)
        .any(|(&k, z)| plan.ty(&c, k) != z.ty())
    {
        return None;
    }
    if !tuple && let Some(r) = direct_fold(descs[0].0, &outs[0], ops[0], zs[0], &c.srcs, &plan.data)
    {
        return Some(r);
    }
    let segd = Segd::from_lengths(first.lengths()).ok()?;
    let produce = |pieces: &[Piece]| plan.produce(pieces);
    let results: Vec<Vec<Scalar>> = if tuple {
        let per_seg = fused::fold_blocks(
            &segd,
            zs.clone(),
            produce,
            |b: &Vec<BCol<'_>>, r| {
                ops.iter()
                    .zip(&zs)
                    .zip(&out_pos)
                    .map(|((&o, &z), &k)| leaf(o, z, &b[k], r.clone()))
                    .collect()
            },
            |a: Vec<Scalar>, b: Vec<Scalar>| {
                a.into_iter()
                    .zip(b)
                    .zip(&ops)
                    .map(|((x, y), &o)| combine(o, x, y))
                    .collect()
            },
        )
        .ok()?;
        (0..ops.len())
            .map(|k| per_seg.iter().map(|v| v[k]).collect())
            .collect()
    } else {
        let (o, z, k) = (ops[0], zs[0], out_pos[0]);
        vec![
            fused::fold_blocks(
                &segd,
                z,
                produce,
                |b: &Vec<BCol<'_>>, r| leaf(o, z, &b[k], r),
                |x, y| combine(o, x, y),
            )
            .ok()?,
        ]
    };
    let mut cols = results
        .into_iter()
        .zip(&zs)
        .map(|(vals, z)| LVal::Scalar(column(z.ty(), vals.into_iter())));
    Some(if tuple {
        LVal::Tuple(cols.collect())
    } else {
        cols.next()?
    })
}

/// The class keys of `filter(ps, xs)` in one pass ("map into the key computation"): the
/// predicates become one expression-machine program `p0 ? 0 : p1 ? 1 : .. : n` over the
/// elements `xs` (contiguous, in segment order, the segments of `segd`), instead of one lazy
/// pass per predicate over the elements still unclassified. Every predicate is computed on
/// every element (`if`s, `&&` and `||` as selects, when their branches cannot fail but by
/// reading a free array), so this gives up (`None`) where one fails: an operator error, or an
/// index out of range whose value an element's class depends on (the lazy steps then report
/// the error, or skip the reads that are not needed).
/// The predicates read their parameter (its fields), free scalars (one value per segment,
/// repeated over its elements), constants and free arrays indexed (`flags[i]`); `None`
/// otherwise.
pub(crate) fn filter_keys(
    ps: &[Lambda],
    xs: &LVal,
    segd: &Segd,
    env: &Env,
    kernels: &Kernels,
) -> Option<Vec<u8>> {
    let (c, tree) = filter_key_tree(ps, xs, env, kernels)?;
    let out = eval_on_elements(&c, &tree, xs, segd)?;
    Some(out.as_i64()?.iter().map(|&k| k as u8).collect())
}

/// The tree of [`filter_keys`], `p0 ? 0 : p1 ? 1 : .. : n`, and its compiler.
fn filter_key_tree<'a>(
    ps: &[Lambda],
    xs: &'a LVal,
    env: &'a Env,
    kernels: &'a Kernels,
) -> Option<(Compiler<'a>, expr::Expr)> {
    let (c, conds) = predicates(ps, ps.len(), xs, env, kernels)?;
    let mut tree = expr::Expr::constant(ps.len() as i64);
    for (k, cond) in conds.into_iter().enumerate().rev() {
        tree = cond.select(expr::Expr::constant(k as i64), tree);
    }
    Some((c, tree))
}

/// Which elements of `xs` (the segments of `segd`) fall in class `class` of `filter(ps, xs)`,
/// as a mask computed in one expression-machine pass: `p0 ? c == 0 : p1 ? c == 1 : ..`, only
/// the predicates up to `class` compiled, under the conditions of [`filter_keys`]. The later
/// predicates are not computed, so they must be ones that cannot fail (not computing them is
/// then unobservable).
pub(crate) fn filter_mask(
    ps: &[Lambda],
    class: usize,
    xs: &LVal,
    segd: &Segd,
    env: &Env,
    kernels: &Kernels,
) -> Option<bitvec::vec::BitVec> {
    let (c, tree) = filter_mask_tree(ps, class, xs, env, kernels)?;
    match eval_on_elements(&c, &tree, xs, segd)? {
        expr::Column::Bool(bits) => Some(bits),
        _ => None,
    }
}

/// The tree of [`filter_mask`] and its compiler.
fn filter_mask_tree<'a>(
    ps: &[Lambda],
    class: usize,
    xs: &'a LVal,
    env: &'a Env,
    kernels: &'a Kernels,
) -> Option<(Compiler<'a>, expr::Expr)> {
    // The predicates after `class` are not evaluated: they must not be able to fail (the lazy
    // steps would report their error).
    if class > ps.len()
        || !ps[(class + 1).min(ps.len())..]
            .iter()
            .all(|p| safe(&p.body))
    {
        return None;
    }
    let (c, mut conds) = predicates(ps, (class + 1).min(ps.len()), xs, env, kernels)?;
    // Class `class`'s own predicate is the innermost condition; the earlier ones exclude.
    let mut tree = if class < ps.len() {
        conds.pop()?
    } else {
        expr::Expr::constant(true)
    };
    for cond in conds.into_iter().rev() {
        tree = cond.select(expr::Expr::constant(false), tree);
    }
    Some((c, tree))
}

/// The first `count` predicates of `ps` compiled over the elements `xs` by a speculative
/// compiler, when every one of them takes one parameter.
fn predicates<'a>(
    ps: &[Lambda],
    count: usize,
    xs: &'a LVal,
    env: &'a Env,
    kernels: &'a Kernels,
) -> Option<(Compiler<'a>, Vec<expr::Expr>)> {
    let mut c = Compiler::new(env, Vec::new(), vec![xs], kernels);
    c.speculative = true;
    let mut conds = Vec::with_capacity(count);
    for p in &ps[..count] {
        if p.params.len() != 1 {
            return None;
        }
        c.params = vec![p.params[0].0.clone()];
        conds.push(c.tree(&p.body)?);
    }
    Some((c, conds))
}

/// [`fused::for_each_block`] for visitors that give up with `None`.
fn sequential_blocks(segd: &Segd, mut visit: impl FnMut(&[Piece]) -> Option<()>) -> Option<()> {
    fused::for_each_block(segd, |b| visit(b).ok_or(())).ok()
}

/// The arrays named `names` (variables of the environment), one per lane each, with equal
/// lengths lane by lane.
fn arrays_of<'e>(names: &[String], env: &'e Env) -> Option<Vec<(&'e VSegd, &'e LVal)>> {
    let descs: Vec<(&VSegd, &LVal)> = names
        .iter()
        .map(|n| match lookup(env, n).ok()? {
            LVal::Array(v, e) => Some((v, &**e)),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let first = descs.first()?.0;
    descs
        .iter()
        .all(|(v, _)| v.same_lengths(first))
        .then_some(descs)
}

/// A literal identity, or a variable holding one value on every lane.
fn identity(z: &Expr, env: &Env) -> Option<Scalar> {
    match z {
        Expr::Lit(s) => Some(*s),
        Expr::Var(n) => uniform(lookup(env, n).ok()?.col().ok()?),
        _ => None,
    }
}

/// `scan(op, z, map(f, arrays))` over the lanes of the context in one pass ("scanomap"): each
/// block of mapped values (at most [`fused::BLOCK`], whole leaves of the segments) is computed
/// with the expression machine and scanned straight into the result with the canonical
/// association ([`assoc::leaf_scan`] per leaf, carried left to right along each segment); no
/// array of mapped values exists. `None` when the kernel does not accept the scan or meets an
/// error (the caller runs the unfused steps, which report it).
pub(crate) fn scanomap(
    op: &ReduceOp,
    z: &Expr,
    f: &Lambda,
    arrays: &[String],
    env: &Env,
    kernels: &Kernels,
) -> Option<LVal> {
    let bop = op.bin_op()?;
    let z = identity(z, env)?;
    if arrays.len() != f.params.len() || !accepts(bop, z.ty()) {
        return None;
    }
    let descs = arrays_of(arrays, env)?;
    let mut c = Compiler::new(
        env,
        f.params.iter().map(|(n, _)| n.clone()).collect(),
        descs.iter().map(|(_, e)| *e).collect(),
        kernels,
    );
    let outs = body_outs(&mut c, &f.body, None)?;
    let (plan, pos) = Plan::new(&c, &outs, &descs, env)?;
    let k = pos[0];
    if plan.ty(&c, k) != z.ty() {
        return None;
    }
    let segd = Segd::from_lengths(descs[0].0.lengths()).ok()?;
    with_op!(bop, z.ty(), |f: T| {
        let z = T::of(z)?;
        let n = segd.elements();
        stats::record_alloc::<T>(n);
        stats::record_written(n as u64);
        let mut out: Vec<T> = vec![z; n];
        let mut carry = z;
        let mut seg = usize::MAX;
        sequential_blocks(&segd, |pieces| {
            let cols = plan.produce(pieces).ok()?;
            let vals = T::slice(&cols[k])?;
            let mut at = 0;
            for p in pieces {
                if p.segment != seg {
                    seg = p.segment;
                    carry = z;
                }
                let start = segd.start(p.segment) + p.offset;
                let leaf = &vals[at..at + p.len];
                if let Some(total) =
                    assoc::leaf_scan(leaf, carry, &mut out[start..start + p.len], f)
                {
                    carry = f(carry, total);
                }
                at += p.len;
            }
            Some(())
        })?;
        Some(LVal::Array(
            crate::lval::vsegd_of_segd(&segd),
            Arc::new(LVal::Scalar(T::col(out))),
        ))
    })
}

/// A typed buffer of one output of the class kernel.
enum Buf {
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
}

impl Buf {
    fn new(t: ScalarType, cap: usize) -> Buf {
        match t {
            ScalarType::I64 => Buf::I64(Vec::with_capacity(cap)),
            ScalarType::F64 => Buf::F64(Vec::with_capacity(cap)),
            ScalarType::Bool => Buf::Bool(Vec::with_capacity(cap)),
        }
    }

    fn len(&self) -> usize {
        match self {
            Buf::I64(v) => v.len(),
            Buf::F64(v) => v.len(),
            Buf::Bool(v) => v.len(),
        }
    }

    /// Appends `col[i]` for each `i` of `idx` (the column has the buffer's type, checked when
    /// the kernel was built).
    fn extend_from(&mut self, col: &BCol<'_>, idx: &[u32]) {
        match (self, col) {
            (Buf::I64(b), BCol::I64(c)) => b.extend(idx.iter().map(|&i| c[i as usize])),
            (Buf::F64(b), BCol::F64(c)) => b.extend(idx.iter().map(|&i| c[i as usize])),
            (Buf::Bool(b), BCol::Bool(c)) => b.extend(idx.iter().map(|&i| c[i as usize])),
            _ => unreachable!("column types checked when the kernel was built"),
        }
    }

    /// The canonical fold of the buffer as one leaf.
    fn leaf(&mut self, op: BinaryOp, z: Scalar) -> Scalar {
        let n = self.len();
        let col = match &*self {
            Buf::I64(v) => BCol::I64(Cow::Borrowed(v)),
            Buf::F64(v) => BCol::F64(Cow::Borrowed(v)),
            Buf::Bool(v) => BCol::Bool(Cow::Borrowed(v)),
        };
        let r = leaf(op, z, &col, 0..n);
        self.clear();
        r
    }

    fn clear(&mut self) {
        match self {
            Buf::I64(v) => v.clear(),
            Buf::F64(v) => v.clear(),
            Buf::Bool(v) => v.clear(),
        }
    }

    fn into_col(self) -> Col {
        match self {
            Buf::I64(v) => Col::I64(adopt(v)),
            Buf::F64(v) => Col::F64(adopt(v)),
            Buf::Bool(v) => Col::Bool(adopt(v)),
        }
    }
}

/// The state of one output of the class kernel.
enum Sink {
    /// A reduction by class: the current leaf of the class's packed elements (at most
    /// [`assoc::LEAF`]), the fold of the leaves before it, and one result per finished lane.
    Fold {
        op: BinaryOp,
        z: Scalar,
        leaf: Buf,
        acc: Scalar,
        done: Vec<Scalar>,
    },
    /// The packed values of the class, and each lane's count.
    Keep { values: Buf, lens: Vec<usize> },
}

impl Sink {
    /// Takes `col[i]` for each `i` of `idx`, in order.
    fn extend(&mut self, col: &BCol<'_>, idx: &[u32]) {
        match self {
            Sink::Fold {
                op, z, leaf, acc, ..
            } => {
                let mut rest = idx;
                while !rest.is_empty() {
                    let (now, later) = rest.split_at((assoc::LEAF - leaf.len()).min(rest.len()));
                    leaf.extend_from(col, now);
                    if leaf.len() == assoc::LEAF {
                        *acc = combine(*op, *acc, leaf.leaf(*op, *z));
                    }
                    rest = later;
                }
            }
            Sink::Keep { values, .. } => values.extend_from(col, idx),
        }
    }

    /// Ends the current lane.
    fn finish_lane(&mut self, start: &mut usize) {
        match self {
            Sink::Fold {
                op,
                z,
                leaf,
                acc,
                done,
            } => {
                let mut r = *acc;
                if leaf.len() > 0 {
                    r = combine(*op, r, leaf.leaf(*op, *z));
                }
                done.push(r);
                *acc = *z;
            }
            Sink::Keep { values, lens } => {
                lens.push(values.len() - *start);
                *start = values.len();
            }
        }
    }

    fn into_lval(self) -> LVal {
        match self {
            Sink::Fold { z, done, .. } => LVal::Scalar(column(z.ty(), done.into_iter())),
            Sink::Keep { values, lens } => {
                let n = values.len();
                stats::record_written(n as u64);
                stats::record_bytes(match &values {
                    Buf::Bool(_) => n,
                    _ => 8 * n,
                } as u64);
                LVal::array_of(lens, LVal::Scalar(values.into_col()))
            }
        }
    }
}

/// A partition fused with the reductions and packed arrays of its classes
/// ([`crate::ir::Classes`]), over the lanes of the context in ONE sequential pass over the
/// classified array: each block's keys and output values are computed with the expression
/// machine (every output's value on every element of the block: the divergence the cost model
/// weighs), then each element goes to the outputs of its class. A reduction keeps the current
/// leaf of its class's packed elements (block-sized) and folds it when full, so it gets the
/// canonical association of the packed class, the bits of the unfused reduce; a packed array
/// is appended to in input order (the stable partition, done at the end).
///
/// The reads of the classified array are counted once per element (the programs run on the
/// block's columns, in cache, uncounted). `None` when the kernel does not accept the form or
/// meets an error, a key out of range included: the caller then runs the original steps,
/// which report it.
pub(crate) fn classes(form: &Classes, env: &Env, kernels: &Kernels) -> Option<LVal> {
    let descs = arrays_of(std::slice::from_ref(&form.array), env)?;
    let mut c = Compiler::new(env, Vec::new(), vec![descs[0].1], kernels);
    let (trees, tree_of) = class_trees(&mut c, form)?;
    let (plan, pos) = Plan::new(&c, &trees, &descs, env)?;
    if plan.ty(&c, pos[0]) != ScalarType::I64 {
        return None;
    }
    let mut sinks = Vec::with_capacity(form.outs.len());
    let mut by_class: Vec<Vec<usize>> = vec![Vec::new(); form.classes];
    let col_of: Vec<usize> = tree_of.iter().map(|&t| pos[t]).collect();
    for (o, out) in form.outs.iter().enumerate() {
        let t = plan.ty(&c, col_of[o]);
        sinks.push(match &out.fold {
            Some((op, z)) => {
                let op = op.bin_op()?;
                let z = identity(z, env)?;
                if z.ty() != t || !accepts(op, t) {
                    return None;
                }
                Sink::Fold {
                    op,
                    z,
                    leaf: Buf::new(t, assoc::LEAF),
                    acc: z,
                    done: Vec::new(),
                }
            }
            None => Sink::Keep {
                values: Buf::new(t, 0),
                lens: Vec::new(),
            },
        });
        for &k in &out.classes {
            by_class.get_mut(k)?.push(o);
        }
    }
    let segd = Segd::from_lengths(descs[0].0.lengths()).ok()?;
    let mut starts = vec![0usize; sinks.len()];
    let mut idx: Vec<Vec<u32>> = vec![Vec::with_capacity(fused::BLOCK); sinks.len()];
    let mut lane = 0;
    let scope = stats::Scope::default();
    sequential_blocks(&segd, |pieces| {
        let len: usize = pieces.iter().map(|p| p.len).sum();
        // The classified array's elements are read once; the block programs re-read the
        // block's columns in cache (not counted).
        stats::record_read(len as u64 * plan.params() as u64);
        let cols = scope.enter(|| plan.produce(pieces)).ok()?;
        let BCol::I64(keys) = &cols[pos[0]] else {
            return None;
        };
        let mut at = 0;
        for p in pieces {
            while lane < p.segment {
                for (s, st) in sinks.iter_mut().zip(&mut starts) {
                    s.finish_lane(st);
                }
                lane += 1;
            }
            // The piece's positions of each output's classes, then each output takes them.
            for v in &mut idx {
                v.clear();
            }
            for (i, &k) in keys[at..at + p.len].iter().enumerate() {
                let outs = usize::try_from(k).ok().and_then(|k| by_class.get(k))?;
                for &o in outs {
                    idx[o].push((at + i) as u32);
                }
            }
            for ((s, v), &c) in sinks.iter_mut().zip(&idx).zip(&col_of) {
                if !v.is_empty() {
                    s.extend(&cols[c], v);
                }
            }
            at += p.len;
        }
        Some(())
    })?;
    while lane < segd.len() {
        for (s, st) in sinks.iter_mut().zip(&mut starts) {
            s.finish_lane(st);
        }
        lane += 1;
    }
    Some(LVal::Tuple(
        sinks.into_iter().map(Sink::into_lval).collect(),
    ))
}

/// The class keys of `partition(classes, _, key, xs)` in one expression-machine pass over the
/// elements ("map into the key computation"), or `None` when the key does not compile (it
/// reads only its parameter's fields, free scalars and constants) or some key is out of range (the unfused
/// steps then report it).
pub(crate) fn partition_keys(
    key: &Lambda,
    classes: usize,
    xs: &LVal,
    segd: &Segd,
    env: &Env,
    kernels: &Kernels,
) -> Option<Vec<u8>> {
    let [(p, _)] = &key.params[..] else {
        return None;
    };
    let mut c = Compiler::new(env, vec![p.clone()], vec![xs], kernels);
    let tree = c.tree(&key.body)?;
    let out = eval_on_elements(&c, &tree, xs, segd)?;
    out.as_i64()?
        .iter()
        .map(|&k| {
            usize::try_from(k)
                .ok()
                .filter(|&k| k < classes)
                .map(|k| k as u8)
        })
        .collect()
}

/// `tree` (compiled by `c` over one parameter, the elements `xs` in the segments of `segd`,
/// free scalars and gathers from free arrays) on every element; `None` where it fails. A
/// speculative compiler's gathers forgive indices out of range; the result then stands only if
/// no element's value depends on one (its poison, see [`poison`], is false everywhere).
fn eval_on_elements(
    c: &Compiler<'_>,
    tree: &expr::Expr,
    xs: &LVal,
    segd: &Segd,
) -> Option<expr::Column> {
    let n = segd.elements();
    // Gathers read lane by lane: one piece per segment, built only for them (deep in a
    // recursion there can be a segment for every other element).
    let pieces: Vec<Piece> = if c.srcs.iter().any(|s| matches!(s, Src::Gather(..))) {
        (segd.iter().enumerate())
            .map(|(segment, (_, len))| Piece {
                segment,
                offset: 0,
                len,
            })
            .collect()
    } else {
        Vec::new()
    };
    // Free scalars and lengths, one value per segment, repeated over its elements (in bulk).
    let repeated: Vec<Option<Col>> = (c.srcs.iter())
        .map(|s| {
            Some(match s {
                Src::Free(name, path) => {
                    let v = field(lookup(c.env, name).ok()?, path)?;
                    Some(super::repeat::repeated(v.col().ok()?, segd)?)
                }
                Src::Len(name, path) => {
                    let (v, _) = field(lookup(c.env, name).ok()?, path)?.array().ok()?;
                    let lens: Vec<i64> = v.lengths().into_iter().map(|l| l as i64).collect();
                    Some(Col::I64(seg::replicate_s(segd, &lens).ok()?.into()))
                }
                _ => None,
            })
        })
        .collect::<Option<_>>()?;
    let mut cols: Vec<BCol<'_>> = Vec::with_capacity(c.srcs.len());
    // Per source, the positions of its elements read out of range (gathers only).
    let mut bad: Vec<Vec<usize>> = Vec::with_capacity(c.srcs.len());
    for (s, rep) in c.srcs.iter().zip(&repeated) {
        let (col, out_of_range) = match s {
            Src::Param(0, path) => (whole(field(xs, path)?.col().ok()?), Vec::new()),
            Src::Free(..) | Src::Len(..) => (whole(rep.as_ref()?), Vec::new()),
            Src::Gather(name, path, p, at) => {
                let (v, el) = field(lookup(c.env, name).ok()?, path)?.array().ok()?;
                let computed;
                let idx = if let Some(k) = at {
                    &cols[*k]
                } else {
                    computed = eval(p, &cols, n).ok()?;
                    &computed
                };
                let BCol::I64(idx) = idx else { return None };
                if c.speculative {
                    gather_lenient(v, el.col().ok()?, idx, &pieces)
                } else {
                    (gather(v, el.col().ok()?, idx, &pieces).ok()?, Vec::new())
                }
            }
            Src::Param(..) => return None,
        };
        cols.push(col);
        bad.push(out_of_range);
    }
    let refs: Vec<ColumnRef<'_>> = cols.iter().map(BCol::as_ref).collect();
    let out = (Program::compile(tree, &c.types).ok()?)
        .with_kernels(c.kernels)
        .eval(&refs, n)
        .ok()?;
    if bad.iter().all(Vec::is_empty) {
        return Some(out);
    }
    // Some gathers read out of range: one flag column per such source, and the result stands
    // where no element's value depends on a flagged read.
    let flagged: Vec<usize> = (0..bad.len()).filter(|&k| !bad[k].is_empty()).collect();
    let Some((p, types)) = poison_program(c, tree, &flagged) else {
        return Some(out);
    };
    let flag_cols: Vec<Vec<bool>> = (flagged.iter())
        .map(|&k| {
            let mut f = vec![false; n];
            for &i in &bad[k] {
                f[i] = true;
            }
            f
        })
        .collect();
    let mut refs = refs;
    refs.extend(flag_cols.iter().map(|f| ColumnRef::Bool(f)));
    let poisoned = (Program::compile(&p, &types).ok()?)
        .with_kernels(c.kernels)
        .eval(&refs, n)
        .ok()?;
    match poisoned {
        expr::Column::Bool(bits) if bits.not_any() => Some(out),
        _ => None,
    }
}

/// The other programs a filter's key or mask tree `t` may run: the index programs of its
/// gathers, and its poison programs for every set of gathers that may read out of range (all
/// of them up to three gathers; more are left to the expression machine).
fn filter_extras(c: &Compiler<'_>, t: &expr::Expr, out: &mut Vec<Program>) {
    let gathers: Vec<usize> = (0..c.srcs.len())
        .filter(|&k| matches!(c.srcs[k], Src::Gather(..)))
        .collect();
    for &k in &gathers {
        if let Src::Gather(_, _, p, None) = &c.srcs[k] {
            out.push((**p).clone());
        }
    }
    if gathers.len() > 3 {
        return;
    }
    for set in 1..1usize << gathers.len() {
        let flagged: Vec<usize> = (gathers.iter().enumerate())
            .filter(|(j, _)| set >> j & 1 == 1)
            .map(|(_, &k)| k)
            .collect();
        if let Some((p, types)) = poison_program(c, t, &flagged) {
            out.extend(Program::compile(&p, &types));
        }
    }
}

/// The poison tree of `tree` (see [`poison`]) when the sources `flagged` (in order) had reads
/// out of range, their flag columns being the inputs after the sources, with the input types;
/// `None` when no element's value can depend on them.
fn poison_program(
    c: &Compiler<'_>,
    tree: &expr::Expr,
    flagged: &[usize],
) -> Option<(expr::Expr, Vec<ScalarType>)> {
    let mut flags = vec![None; c.srcs.len()];
    for (j, &k) in flagged.iter().enumerate() {
        flags[k] = Some(c.types.len() + j);
    }
    let p = poison(tree, &flags, &c.index_trees)?;
    let mut types = c.types.clone();
    types.extend(flagged.iter().map(|_| ScalarType::Bool));
    Some((p, types))
}

/// Whether `tree`'s value on an element depends on a read flagged in its input column
/// `flags[k]` (for source `k`), as a tree; `None` where it never does. A select depends on the
/// branch it takes only; a gather on its own flags and on its index (`index_trees`: an index
/// computed from a flagged read may be anything).
fn poison(
    tree: &expr::Expr,
    flags: &[Option<usize>],
    index_trees: &[(usize, expr::Expr)],
) -> Option<expr::Expr> {
    let poison = |t: &expr::Expr| poison(t, flags, index_trees);
    let or = |a: Option<expr::Expr>, b: Option<expr::Expr>| match (a, b) {
        (Some(a), Some(b)) => Some(a.binary(BinaryOp::Or, b)),
        (a, b) => a.or(b),
    };
    match tree.node() {
        Node::Input(k) => {
            let own = flags.get(*k).copied().flatten().map(expr::Expr::input);
            let index = index_trees.iter().find(|(j, _)| j == k);
            or(own, index.and_then(|(_, t)| poison(t)))
        }
        Node::Const(_) | Node::Iota { .. } => None,
        Node::Unary(_, a) => poison(a),
        Node::Binary(_, a, b) => or(poison(a), poison(b)),
        Node::Ternary(_, a, b, c) => or(or(poison(a), poison(b)), poison(c)),
        Node::Select(c, a, b) => {
            let taken = match (poison(a), poison(b)) {
                (None, None) => None,
                (a, b) => {
                    let no = || expr::Expr::constant(false);
                    Some(c.clone().select(a.unwrap_or_else(no), b.unwrap_or_else(no)))
                }
            };
            or(poison(c), taken)
        }
    }
}

/// A whole column, borrowed.
fn whole(col: &Col) -> BCol<'_> {
    match col {
        Col::I64(v) => BCol::I64(Cow::Borrowed(v)),
        Col::F64(v) => BCol::F64(Cow::Borrowed(v)),
        Col::Bool(v) => BCol::Bool(Cow::Borrowed(v)),
    }
}

/// A leaf of a scalar map body read straight from memory at an element's index (the direct path
/// of [`redomap`]): a column read in place, or `data[index[i]]` with `index` read in place.
#[derive(Clone, Copy)]
enum Leaf<'a> {
    Col(&'a [f64]),
    Gather(&'a [i64], &'a [f64]),
}

/// Whether the elements of the arrays described by `v` lie in their block in segment order from
/// position 0, so that element `i` of `v`'s contiguous descriptor is at position `i`.
fn in_place(v: &VSegd) -> bool {
    let ss = v.ssegd();
    if !v.is_manifest() {
        return false;
    }
    let (a, b) = (ss.starts(), ss.segd().starts());
    // Starts shared with the descriptor (the usual case) need no comparison.
    (std::ptr::eq(a.as_ptr(), b.as_ptr()) && a.len() == b.len()) || a == b
}

/// The leaf that expression-machine leaf `t` reads, if the direct path can read it.
/// `v` is the first array's descriptor, known to lie in place.
fn direct_leaf<'a>(
    t: &expr::Expr,
    v: &VSegd,
    srcs: &[Src],
    data: &[Data<'a>],
    used: &mut Vec<usize>,
) -> Option<Leaf<'a>> {
    let param = |k: usize, used: &mut Vec<usize>| -> Option<&'a Col> {
        match data.get(k)? {
            Data::Param(w, col) if std::ptr::eq(*w, v) || in_place(w) => {
                if !used.contains(&k) {
                    used.push(k);
                }
                Some(*col)
            }
            _ => None,
        }
    };
    Some(match t.node() {
        Node::Input(k) => match (&srcs[*k], &data[*k]) {
            (Src::Param(..), _) => match param(*k, used)? {
                Col::F64(c) => Leaf::Col(c),
                _ => return None,
            },
            (Src::Gather(..), Data::Gather(v, Col::F64(el), _, Some(j)))
                if v.ssegd().len() == 1 =>
            {
                let Col::I64(idx) = param(*j, used)? else {
                    return None;
                };
                let ps = v.ssegd().pseg(0);
                Leaf::Gather(idx, &el[ps.start..ps.start + ps.len])
            }
            _ => return None,
        },
        _ => return None,
    })
}

/// The direct path of a single `f64` redomap: when the map body is a leaf or one `+ - *` of two
/// leaves ([`Leaf`]) and the arrays lie in place, each segment is folded with
/// [`seg::fold_s_leaves_split`] straight from the columns (gathers included): no block buffer, no
/// expression machine, the same association and the same bits as the block path. `None` when
/// the shape does not fit or an index is out of range (the block path then takes over).
fn direct_fold(
    v: &VSegd,
    out: &expr::Expr,
    op: BinaryOp,
    z: Scalar,
    srcs: &[Src],
    data: &[Data<'_>],
) -> Option<LVal> {
    use BinaryOp as B;
    let Scalar::F64(z) = z else { return None };
    if !matches!(op, B::Add | B::Min | B::Max) || !in_place(v) {
        return None;
    }
    let segd = v.ssegd().segd();
    let mut used = Vec::new();
    let (body, a, b) = if let Node::Binary(o @ (B::Add | B::Sub | B::Mul), x, y) = out.node() {
        (
            Some(*o),
            direct_leaf(x, v, srcs, data, &mut used)?,
            direct_leaf(y, v, srcs, data, &mut used)?,
        )
    } else {
        let a = direct_leaf(out, v, srcs, data, &mut used)?;
        (None, a, a)
    };
    let n = segd.elements() as u64;
    // Each column read in place once, each gathered element once.
    let gathers = [a, b][..if body.is_some() { 2 } else { 1 }]
        .iter()
        .filter(|l| matches!(l, Leaf::Gather(..)))
        .count();
    stats::record_read(n * (used.len() + gathers) as u64);
    let bad = AtomicBool::new(false);
    let sums = match (a, b) {
        (Leaf::Col(x), Leaf::Col(y)) => {
            fold_reads(segd, body, (ColRead(x), ColRead(y)), op, z, &bad)
        }
        (Leaf::Col(x), Leaf::Gather(i, y)) => {
            fold_reads(segd, body, (ColRead(x), GatherRead(i, y)), op, z, &bad)
        }
        (Leaf::Gather(i, x), Leaf::Col(y)) => {
            fold_reads(segd, body, (GatherRead(i, x), ColRead(y)), op, z, &bad)
        }
        (Leaf::Gather(i, x), Leaf::Gather(j, y)) => fold_reads(
            segd,
            body,
            (GatherRead(i, x), GatherRead(j, y)),
            op,
            z,
            &bad,
        ),
    }?;
    if bad.load(Ordering::Relaxed) {
        return None;
    }
    Some(LVal::Scalar(Col::F64(adopt(sums))))
}

/// The expression-machine programs the kernels above compile for node `e` (a redomap, a filter,
/// a partition or a fused form), found without running anything: `env` binds every variable
/// `e` reads to a value of its type (with no lanes: the kernels read only shapes before they
/// compile) and `elems(a)` gives the elements of array expression `a` likewise. The native
/// kernels of `#[vectorise]` are compiled from these ([`crate::native`]).
pub(crate) fn programs_for(
    e: &Expr,
    env: &Env,
    elems: &dyn Fn(&Expr) -> Option<LVal>,
) -> Vec<Program> {
    let mut out = Vec::new();
    // Programs are listed by key: no kernels attached.
    let none = Kernels::new();
    // Block programs of `outs` and the index programs of gathers.
    let blocks = |c: &Compiler<'_>, outs: &[expr::Expr], out: &mut Vec<Program>| {
        for s in &c.srcs {
            if let Src::Gather(_, _, p, _) = s {
                out.push((**p).clone());
            }
        }
        if let Some((ps, _)) = out_programs(c, outs) {
            out.extend(ps);
        }
    };
    let params = |f: &Lambda| f.params.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    match e {
        Expr::Redomap(op, _, f, arrays) => {
            let fields = op
                .bin_op()
                .map_or_else(|| componentwise(op).map(|o| o.len()), |_| None);
            let args: Option<Vec<LVal>> = arrays.iter().map(elems).collect();
            if let Some(args) = args {
                let mut c = Compiler::new(env, params(f), args.iter().collect(), &none);
                if let Some(outs) = body_outs(&mut c, &f.body, fields) {
                    blocks(&c, &outs, &mut out);
                }
            }
        }
        Expr::Filter(ps, a) => {
            if let Some(xs) = elems(a) {
                // The keys of every class, and each class's own mask.
                let trees = std::iter::once(filter_key_tree(ps, &xs, env, &none))
                    .chain((0..=ps.len()).map(|k| filter_mask_tree(ps, k, &xs, env, &none)));
                for (c, t) in trees.flatten() {
                    out.extend(Program::compile(&t, &c.types));
                    filter_extras(&c, &t, &mut out);
                }
            }
        }
        Expr::Partition { key, array, .. } => {
            if let (Some(xs), [(p, _)]) = (elems(array), &key.params[..]) {
                let mut c = Compiler::new(env, vec![p.clone()], vec![&xs], &none);
                if let Some(t) = c.tree(&key.body) {
                    out.extend(Program::compile(&t, &c.types));
                }
            }
        }
        Expr::Fused(fu) => match &fu.form {
            FusedForm::Scanomap { f, arrays, .. } => {
                if let Some(descs) = arrays_of(arrays, env) {
                    let mut c = Compiler::new(
                        env,
                        params(f),
                        descs.iter().map(|(_, e)| *e).collect(),
                        &none,
                    );
                    if let Some(outs) = body_outs(&mut c, &f.body, None) {
                        blocks(&c, &outs, &mut out);
                    }
                }
            }
            FusedForm::Classes(form) => {
                if let Some(descs) = arrays_of(std::slice::from_ref(&form.array), env) {
                    let mut c = Compiler::new(env, Vec::new(), vec![descs[0].1], &none);
                    if let Some((trees, _)) = class_trees(&mut c, form) {
                        blocks(&c, &trees, &mut out);
                    }
                }
            }
        },
        _ => {}
    }
    out
}
