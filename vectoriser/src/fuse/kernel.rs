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
//! blocks: [`seg::fold_s_by`] folds each segment straight from the columns, with no buffer at
//! all and the same association (so the same bits). On an index out of range it hands over to
//! the block path, which gives up in turn, and the unfused steps report the error.

use super::rules::componentwise;
use crate::flatten::{Env, lookup, uniform};
use crate::ir::{BinaryOp, Expr, Lambda, ReduceOp, Scalar, ScalarType};
use crate::lval::{Col, LVal, adopt};
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
enum Src {
    /// Field `path` of the elements of array argument `arg`.
    Param(usize, Vec<usize>),
    /// Field `path` of a free variable, one value per lane (repeated over the lane's elements).
    Free(String, Vec<usize>),
    /// `arr[index]`, `arr` a free array of scalars (field `path` of a free variable), `index` a
    /// program over the sources before this one.
    Gather(String, Vec<usize>, Arc<Program>, Option<usize>),
}

impl PartialEq for Src {
    /// Equal sources share one column; gathers are never merged (their programs differ).
    fn eq(&self, other: &Src) -> bool {
        match (self, other) {
            (Src::Param(a, p), Src::Param(b, q)) => a == b && p == q,
            (Src::Free(a, p), Src::Free(b, q)) => a == b && p == q,
            _ => false,
        }
    }
}

/// A compiled value: a scalar tree, a tuple of values, or a reference to a free array.
#[derive(Clone)]
enum Cv {
    T(expr::Expr),
    Tup(Vec<Cv>),
    Arr(String, Vec<usize>),
}

struct Compiler<'a> {
    env: &'a Env,
    params: Vec<String>,
    args: Vec<&'a LVal>,
    srcs: Vec<Src>,
    types: Vec<ScalarType>,
    scope: Vec<(String, Cv)>,
}

fn field<'v>(v: &'v LVal, path: &[usize]) -> Option<&'v LVal> {
    path.iter().try_fold(v, |v, &i| match v {
        LVal::Tuple(fs) => fs.get(i),
        _ => None,
    })
}

/// Whether evaluating `e` for lanes that do not need it is harmless (no failing operator, no
/// indexing), so an `if` over it may evaluate both branches.
fn safe(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) | Expr::Var(_) => true,
        Expr::Proj(a, _) | Expr::Unary(_, a) => safe(a),
        Expr::Binary(op, a, b) => !op.can_fail() && safe(a) && safe(b),
        Expr::Tuple(es) => es.iter().all(safe),
        Expr::Let(_, a, b) => safe(a) && safe(b),
        Expr::If(a, b, c) => safe(a) && safe(b) && safe(c),
        _ => false,
    }
}

impl Compiler<'_> {
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

    fn compile(&mut self, e: &Expr) -> Option<Cv> {
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
            Expr::If(c, a, b) if safe(a) && safe(b) => {
                let c = self.tree(c)?;
                select(&c, self.compile(a)?, self.compile(b)?)?
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
                    .with_parallelism(Parallelism::Sequential);
                if program.output_type() != ScalarType::I64 {
                    return None;
                }
                let direct = match idx.node() {
                    Node::Input(k) => Some(*k),
                    _ => None,
                };
                Cv::T(self.src(Src::Gather(n, path, Arc::new(program), direct), t))
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
    fn go<T: Copy>(v: &VSegd, data: &[T], idx: &[i64], pieces: &[Piece]) -> RtResult<Vec<T>> {
        let mut out = Vec::with_capacity(idx.len());
        let mut at = 0;
        for p in pieces {
            let ps = v.physical(p.segment);
            let lane = &data[ps.start..ps.start + ps.len];
            let ix = &idx[at..at + p.len];
            // One pass checks the piece's indices, the next loads without branches.
            if let Some(&i) = ix.iter().find(|&&i| i < 0 || i as usize >= lane.len()) {
                return Err(RtError::IndexOutOfRange {
                    op: "index",
                    lane: p.segment,
                    index: i,
                    len: ps.len,
                });
            }
            out.extend(ix.iter().map(|&i| lane[i as usize]));
            at += p.len;
        }
        Ok(out)
    }
    stats::record_read(idx.len() as u64);
    Ok(match data {
        Col::I64(d) => BCol::I64(Cow::Owned(go(v, d, idx, pieces)?)),
        Col::F64(d) => BCol::F64(Cow::Owned(go(v, d, idx, pieces)?)),
        Col::Bool(d) => BCol::Bool(Cow::Owned(go(v, d, idx, pieces)?)),
    })
}

macro_rules! by_op {
    ($op:expr, $z:expr, $col:expr, |$f:ident, $zz:ident, $v:ident| $body:expr) => {{
        use BinaryOp as B;
        match ($op, $z, $col) {
            (B::Add, Scalar::I64($zz), BCol::I64($v)) => { let $f = int::add; Scalar::I64($body) }
            (B::Mul, Scalar::I64($zz), BCol::I64($v)) => { let $f = int::mul; Scalar::I64($body) }
            (B::Min, Scalar::I64($zz), BCol::I64($v)) => { let $f = int::min; Scalar::I64($body) }
            (B::Max, Scalar::I64($zz), BCol::I64($v)) => { let $f = int::max; Scalar::I64($body) }
            (B::Add, Scalar::F64($zz), BCol::F64($v)) => { let $f = |a: f64, b: f64| a + b; Scalar::F64($body) }
            (B::Mul, Scalar::F64($zz), BCol::F64($v)) => { let $f = |a: f64, b: f64| a * b; Scalar::F64($body) }
            (B::Min, Scalar::F64($zz), BCol::F64($v)) => { let $f = float::min; Scalar::F64($body) }
            (B::Max, Scalar::F64($zz), BCol::F64($v)) => { let $f = float::max; Scalar::F64($body) }
            (B::And, Scalar::Bool($zz), BCol::Bool($v)) => { let $f = |a: bool, b: bool| a & b; Scalar::Bool($body) }
            (B::Or, Scalar::Bool($zz), BCol::Bool($v)) => { let $f = |a: bool, b: bool| a | b; Scalar::Bool($body) }
            _ => unreachable!("operator and types checked when the kernel was built"),
        }
    }};
}

fn leaf(op: BinaryOp, z: Scalar, col: &BCol<'_>, r: Range<usize>) -> Scalar {
    by_op!(op, z, col, |f, zz, v| assoc::leaf_fold(&v[r], zz, f))
}

fn combine(op: BinaryOp, a: Scalar, b: Scalar) -> Scalar {
    use BinaryOp as B;
    match (op, a, b) {
        (B::Add, Scalar::I64(x), Scalar::I64(y)) => Scalar::I64(int::add(x, y)),
        (B::Mul, Scalar::I64(x), Scalar::I64(y)) => Scalar::I64(int::mul(x, y)),
        (B::Min, Scalar::I64(x), Scalar::I64(y)) => Scalar::I64(int::min(x, y)),
        (B::Max, Scalar::I64(x), Scalar::I64(y)) => Scalar::I64(int::max(x, y)),
        (B::Add, Scalar::F64(x), Scalar::F64(y)) => Scalar::F64(x + y),
        (B::Mul, Scalar::F64(x), Scalar::F64(y)) => Scalar::F64(x * y),
        (B::Min, Scalar::F64(x), Scalar::F64(y)) => Scalar::F64(float::min(x, y)),
        (B::Max, Scalar::F64(x), Scalar::F64(y)) => Scalar::F64(float::max(x, y)),
        (B::And, Scalar::Bool(x), Scalar::Bool(y)) => Scalar::Bool(x & y),
        (B::Or, Scalar::Bool(x), Scalar::Bool(y)) => Scalar::Bool(x | y),
        _ => unreachable!("operator and types checked when the kernel was built"),
    }
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

/// `redomap(op, z, f, arrays)` over the lanes of the context in one pass, or `None` when the
/// kernel does not accept it or meets an error (the caller then runs the unfused steps, which
/// report the error as the unfused program does).
pub(crate) fn redomap(
    op: &ReduceOp,
    z: &LVal,
    f: &Lambda,
    arrays: &[LVal],
    env: &Env,
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
    let same =
        |v: &VSegd| v.len() == first.len() && (0..v.len()).all(|i| v.length(i) == first.length(i));
    if !descs[1..].iter().all(|(v, _)| same(v)) {
        return None;
    }
    let mut c = Compiler {
        env,
        params: f.params.iter().map(|(n, _)| n.clone()).collect(),
        args: descs.iter().map(|(_, e)| *e).collect(),
        srcs: Vec::new(),
        types: Vec::new(),
        scope: Vec::new(),
    };
    let outs: Vec<expr::Expr> = match (c.compile(&f.body)?, tuple) {
        (Cv::T(t), false) => vec![t],
        (Cv::Tup(ts), true) if ts.len() == ops.len() => ts
            .into_iter()
            .map(|t| match t {
                Cv::T(t) => Some(t),
                _ => None,
            })
            .collect::<Option<_>>()?,
        _ => return None,
    };
    // An output that is a source itself is folded in place; the others are programs whose
    // columns follow the sources' in each block.
    let mut programs: Vec<Program> = Vec::new();
    let mut out_pos = Vec::with_capacity(outs.len());
    for (t, z) in outs.iter().zip(&zs) {
        if let Node::Input(k) = t.node() {
            if c.types[*k] != z.ty() {
                return None;
            }
            out_pos.push(*k);
        } else {
            let p = Program::compile(t, &c.types)
                .ok()?
                .with_parallelism(Parallelism::Sequential);
            if p.output_type() != z.ty() {
                return None;
            }
            out_pos.push(c.srcs.len() + programs.len());
            programs.push(p);
        }
    }
    // Resolve every source to its data once.
    let data: Vec<Data<'_>> = c
        .srcs
        .iter()
        .map(|s| {
            Some(match s {
                Src::Param(a, path) => {
                    Data::Param(descs[*a].0, field(descs[*a].1, path)?.col().ok()?)
                }
                Src::Free(n, path) => Data::Free(field(lookup(env, n).ok()?, path)?.col().ok()?),
                Src::Gather(n, path, p, direct) => {
                    let (v, el) = field(lookup(env, n).ok()?, path)?.array().ok()?;
                    Data::Gather(v, el.col().ok()?, p, *direct)
                }
            })
        })
        .collect::<Option<_>>()?;
    // Sources read in place are counted once per block (the programs count their own reads).
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
    if !tuple && let Some(r) = direct_fold(descs[0].0, &outs[0], ops[0], zs[0], &c.srcs, &data) {
        return Some(r);
    }
    let segd = Segd::from_lengths(first.lengths()).ok()?;
    let produce = |pieces: &[Piece]| -> RtResult<Vec<BCol<'_>>> {
        let len: usize = pieces.iter().map(|p| p.len).sum();
        let mut cols: Vec<BCol<'_>> = Vec::with_capacity(data.len() + programs.len());
        for (d, &counted) in data.iter().zip(&direct) {
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
        for p in &programs {
            let out = eval(p, &cols, len)?;
            cols.push(out);
        }
        Ok(cols)
    };
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
/// elements `xs` (contiguous, in segment order), instead of one lazy pass per predicate over
/// the elements still unclassified. Taken only when no predicate can fail (so evaluating a later
/// predicate where an earlier one held is harmless) and the predicates read only their
/// parameter (its fields) and constants; `None` otherwise.
pub(crate) fn filter_keys(ps: &[Lambda], xs: &LVal, env: &Env) -> Option<Vec<u8>> {
    let mut c = Compiler {
        env,
        params: Vec::new(),
        args: vec![xs],
        srcs: Vec::new(),
        types: Vec::new(),
        scope: Vec::new(),
    };
    let mut tree = expr::Expr::constant(ps.len() as i64);
    let mut conds = Vec::with_capacity(ps.len());
    for p in ps {
        if !safe(&p.body) || p.params.len() != 1 {
            return None;
        }
        c.params = vec![p.params[0].0.clone()];
        conds.push(c.tree(&p.body)?);
    }
    for (k, cond) in conds.into_iter().enumerate().rev() {
        tree = cond.select(expr::Expr::constant(k as i64), tree);
    }
    let mut cols = Vec::with_capacity(c.srcs.len());
    for s in &c.srcs {
        let Src::Param(0, path) = s else { return None };
        cols.push(field(xs, path)?.col().ok()?.as_ref());
    }
    let program = Program::compile(&tree, &c.types).ok()?;
    let out = program.eval(&cols, xs.lanes()).ok()?;
    Some(out.as_i64()?.iter().map(|&k| k as u8).collect())
}

/// A leaf of a scalar map body read straight from memory at an element's index (the direct path
/// of [`redomap`]): a column read in place, or `data[index[i]]` with `index` read in place.
#[derive(Clone, Copy)]
enum Leaf<'a> {
    Col(&'a [f64]),
    Gather(&'a [i64], &'a [f64]),
}

/// A [`Leaf`] as its own type, so that each shape of body gets a loop of its own.
trait Read: Copy + Sync {
    /// The leaf at element `i`; an index out of range sets `bad` (the caller then gives up).
    fn at(self, i: usize, bad: &AtomicBool) -> f64;
}

#[derive(Clone, Copy)]
struct ColRead<'a>(&'a [f64]);

#[derive(Clone, Copy)]
struct GatherRead<'a>(&'a [i64], &'a [f64]);

impl Read for ColRead<'_> {
    #[inline(always)]
    fn at(self, i: usize, _: &AtomicBool) -> f64 {
        self.0[i]
    }
}

impl Read for GatherRead<'_> {
    #[inline(always)]
    fn at(self, i: usize, bad: &AtomicBool) -> f64 {
        // A negative index wraps to a huge one, out of range as well.
        if let Some(&x) = self.1.get(self.0[i] as usize) {
            x
        } else {
            bad.store(true, Ordering::Relaxed);
            0.0
        }
    }
}

/// Folds every segment of `segd` over `body(a[i], b[i])` (`a[i]` alone when `body` is `None`)
/// with `op` from `z`; `None` for an operator the direct path does not take.
fn fold_reads<A: Read, B: Read>(
    segd: &Segd,
    body: Option<BinaryOp>,
    (a, b): (A, B),
    op: BinaryOp,
    z: f64,
    bad: &AtomicBool,
) -> Option<Vec<f64>> {
    use BinaryOp as B;
    macro_rules! fold {
        ($f:expr) => {
            match op {
                B::Add => seg::fold_s_by(segd, $f, z, |x, y| x + y),
                B::Max => seg::fold_s_by(segd, $f, z, float::max),
                B::Min => seg::fold_s_by(segd, $f, z, float::min),
                _ => return None,
            }
        };
    }
    Some(match body {
        None => fold!(|i| a.at(i, bad)),
        Some(B::Add) => fold!(|i| a.at(i, bad) + b.at(i, bad)),
        Some(B::Sub) => fold!(|i| a.at(i, bad) - b.at(i, bad)),
        Some(B::Mul) => fold!(|i| a.at(i, bad) * b.at(i, bad)),
        Some(_) => return None,
    })
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
/// [`seg::fold_s_by`] straight from the columns (gathers included): no block buffer, no
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
