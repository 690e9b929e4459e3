//! Reduction and scan operators written as lambdas (`reduce(z, |a, b| ..)`), compiled once to
//! expression-machine programs: one per scalar field of the result, over the fields of the two
//! operands and free scalars.
//!
//! The executor folds with the canonical association as bulk steps (`flatten::fold_chains`):
//! every step applies the operator to a column of pairs, and a leaf of [`assoc::LEAF`]
//! elements takes hundreds of steps. Unfused, each step walks the lambda's body lifted (a node
//! at a time, its free variables moved into the step's lanes). Compiled, a step is one program
//! run per field (a native kernel under `#[vectorise]`): the same operators on the same lanes
//! in the same order, so the same bits and the same errors.
//!
//! Where the operands are scalars or tuples of them, [`Combine::chains`] runs the fold's chains
//! of steps itself, with a column per field that every step updates in place: a step costs one
//! program run per field over the chains still going, and allocates nothing.
//!
//! [`assoc::LEAF`]: flatland_runtime::assoc::LEAF

use super::lambda::{CompiledValue, LambdaCompiler, Source, field};
use crate::env::{Env, lookup};
use crate::ir::{Lambda, ScalarType};
use crate::lval::{LVal, LaneColumn, adopt};
use flatland_runtime::Result as RtResult;
use flatland_runtime::cost::ElemCost;
use flatland_runtime::expr::native::Kernels;
use flatland_runtime::expr::{self, ColumnMut, ColumnRef, CompiledExpr};
use flatland_runtime::sched;
use std::borrow::Cow;

/// Where a compiled field's value goes in the result.
enum Shape {
    /// The output of program `k`.
    Field(usize),
    Tuple(Vec<Shape>),
}

/// Where an input column of the programs comes from.
enum Input {
    /// Field `path` of operand `0` (the accumulator) or `1`.
    Operand(usize, Vec<usize>),
    /// Field `path` of a free variable, one value per lane of the enclosing context.
    Free(String, Vec<usize>),
}

/// A lambda operator compiled to one program per scalar field of its result.
pub(crate) struct Combine {
    inputs: Vec<Input>,
    programs: Vec<CompiledExpr>,
    shape: Shape,
}

/// The trees of `cv` in field order, and the shape that puts them back together.
fn flatten_compiled(cv: CompiledValue, trees: &mut Vec<expr::ColumnExpr>) -> Option<Shape> {
    Some(match cv {
        CompiledValue::Tree(t) => {
            trees.push(t);
            Shape::Field(trees.len() - 1)
        }
        CompiledValue::Tuple(vs) => Shape::Tuple(
            vs.into_iter()
                .map(|v| flatten_compiled(v, trees))
                .collect::<Option<_>>()?,
        ),
        CompiledValue::Array(..) => return None,
    })
}

/// The trees and inputs of the operator `l` on operands shaped like `operand` (scalars and
/// tuples of them), or `None` when its body is more than scalar operators, `let`, tuples,
/// projections, free scalars and `if`s whose branches cannot fail.
fn compiled<'a>(
    l: &Lambda,
    operand: &'a LVal,
    env: &'a Env,
    kernels: &'a Kernels,
) -> Option<(LambdaCompiler<'a>, Vec<expr::ColumnExpr>, Shape)> {
    let [(a, _), (b, _)] = &l.params[..] else {
        return None;
    };
    let mut c = LambdaCompiler::new(
        env,
        vec![a.clone(), b.clone()],
        vec![operand, operand],
        kernels,
    );
    let cv = c.compile(&l.body)?;
    let mut trees = Vec::new();
    let shape = flatten_compiled(cv, &mut trees)?;
    // Gathers and lengths read free arrays per element: left to the lifted steps.
    if !c
        .srcs
        .iter()
        .all(|s| matches!(s, Source::Param(..) | Source::Free(..)))
    {
        return None;
    }
    Some((c, trees, shape))
}

impl Combine {
    /// The operator `l` compiled for operands shaped like `operand` (see [`compiled`]).
    pub(crate) fn new(l: &Lambda, operand: &LVal, env: &Env, kernels: &Kernels) -> Option<Combine> {
        let (c, trees, shape) = compiled(l, operand, env, kernels)?;
        let programs = trees
            .iter()
            .map(|t| {
                Some(
                    CompiledExpr::compile(t, &c.types)
                        .ok()?
                        .with_kernels(kernels),
                )
            })
            .collect::<Option<_>>()?;
        let inputs = c
            .srcs
            .into_iter()
            .map(|s| match s {
                Source::Param(k, path) => Some(Input::Operand(k, path)),
                Source::Free(n, path) => Some(Input::Free(n, path)),
                _ => None,
            })
            .collect::<Option<_>>()?;
        Some(Combine {
            inputs,
            programs,
            shape,
        })
    }

    /// `a ⊕ b` lane by lane, where lane `j` belongs to lane `segs[j]` of the enclosing context
    /// (whose free variables are in `env`). `None` when a value is not shaped as compiled; an
    /// operator's error is the expression machine's (its lane one of `segs`' positions).
    pub(crate) fn apply(
        &self,
        a: &LVal,
        b: &LVal,
        segs: &[usize],
        env: &Env,
    ) -> Option<RtResult<LVal>> {
        let cols: Vec<Cow<'_, LaneColumn>> = self
            .inputs
            .iter()
            .map(|i| {
                Some(match i {
                    Input::Operand(k, path) => Cow::Borrowed(field([a, b][*k], path)?.col().ok()?),
                    Input::Free(n, path) => {
                        let v = field(lookup(env, n).ok()?, path)?;
                        Cow::Owned(v.gather(segs).ok()?.col().ok()?.clone())
                    }
                })
            })
            .collect::<Option<_>>()?;
        let refs: Vec<ColumnRef<'_>> = cols.iter().map(|c| LaneColumn::as_ref(c)).collect();
        let mut outs = Vec::with_capacity(self.programs.len());
        for p in &self.programs {
            match p.eval(&refs, segs.len()) {
                Ok(c) => outs.push(Some(LaneColumn::from_column(c))),
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok(rebuild(&self.shape, &mut outs)))
    }
}

/// The scalar columns of `v` (a scalar or nested tuples of them) with their field paths, in
/// order; `None` for an array.
fn leaves<'v>(
    v: &'v LVal,
    path: &mut Vec<usize>,
    out: &mut Vec<(Vec<usize>, &'v LaneColumn)>,
) -> Option<()> {
    match v {
        LVal::Scalar(c) => out.push((path.clone(), c)),
        LVal::Tuple(fs) => {
            for (i, f) in fs.iter().enumerate() {
                path.push(i);
                leaves(f, path, out)?;
                path.pop();
            }
        }
        LVal::Array(..) => return None,
    }
    Some(())
}

/// `template`'s shape with its scalar columns replaced, in order, by `cols`.
fn like(template: &LVal, cols: &mut impl Iterator<Item = LaneColumn>) -> Option<LVal> {
    Some(match template {
        LVal::Scalar(_) => LVal::Scalar(cols.next()?),
        LVal::Tuple(fs) => LVal::Tuple(fs.iter().map(|f| like(f, cols)).collect::<Option<_>>()?),
        LVal::Array(..) => return None,
    })
}

/// The program that computes field `path` of the result.
fn program_of(shape: &Shape, path: &[usize]) -> Option<usize> {
    match (shape, path) {
        (Shape::Field(k), []) => Some(*k),
        (Shape::Tuple(s), [i, rest @ ..]) => program_of(s.get(*i)?, rest),
        _ => None,
    }
}

/// One field's values, one per chain (in the order the chains are stepped), writable.
enum FieldColumn {
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
}

impl FieldColumn {
    /// `col` at the positions `idx`.
    fn gathered(col: &LaneColumn, idx: impl Iterator<Item = usize>) -> FieldColumn {
        match col {
            LaneColumn::I64(v) => FieldColumn::I64(idx.map(|i| v[i]).collect()),
            LaneColumn::F64(v) => FieldColumn::F64(idx.map(|i| v[i]).collect()),
            LaneColumn::Bool(v) => FieldColumn::Bool(idx.map(|i| v[i]).collect()),
        }
    }

    fn zeros(t: ScalarType, n: usize) -> FieldColumn {
        match t {
            ScalarType::I64 => FieldColumn::I64(vec![0; n]),
            ScalarType::F64 => FieldColumn::F64(vec![0.0; n]),
            ScalarType::Bool => FieldColumn::Bool(vec![false; n]),
        }
    }

    /// The first `first.len()` values become `col` at `first[j] + t`.
    fn step_from(&mut self, col: &LaneColumn, first: &[usize], t: usize) -> Option<()> {
        fn go<T: Copy>(out: &mut [T], v: &[T], first: &[usize], t: usize) {
            for (o, &f) in out.iter_mut().zip(first) {
                *o = v[f + t];
            }
        }
        match (self, col) {
            (FieldColumn::I64(b), LaneColumn::I64(v)) => go(b, v, first, t),
            (FieldColumn::F64(b), LaneColumn::F64(v)) => go(b, v, first, t),
            (FieldColumn::Bool(b), LaneColumn::Bool(v)) => go(b, v, first, t),
            _ => return None,
        }
        Some(())
    }

    fn first(&self, n: usize) -> ColumnRef<'_> {
        match self {
            FieldColumn::I64(v) => ColumnRef::I64(&v[..n]),
            FieldColumn::F64(v) => ColumnRef::F64(&v[..n]),
            FieldColumn::Bool(v) => ColumnRef::Bool(&v[..n]),
        }
    }

    fn first_mut(&mut self, n: usize) -> ColumnMut<'_> {
        match self {
            FieldColumn::I64(v) => ColumnMut::I64(&mut v[..n]),
            FieldColumn::F64(v) => ColumnMut::F64(&mut v[..n]),
            FieldColumn::Bool(v) => ColumnMut::Bool(&mut v[..n]),
        }
    }

    /// The first `n` values become `from`'s.
    fn copy_first(&mut self, from: &FieldColumn, n: usize) -> Option<()> {
        match (self, from) {
            (FieldColumn::I64(a), FieldColumn::I64(b)) => a[..n].copy_from_slice(&b[..n]),
            (FieldColumn::F64(a), FieldColumn::F64(b)) => a[..n].copy_from_slice(&b[..n]),
            (FieldColumn::Bool(a), FieldColumn::Bool(b)) => a[..n].copy_from_slice(&b[..n]),
            _ => return None,
        }
        Some(())
    }

    /// Value `rank[c]` for each `c`: back to the chains' own order.
    fn into_col(self, rank: &[usize]) -> LaneColumn {
        match self {
            FieldColumn::I64(v) => LaneColumn::I64(adopt(rank.iter().map(|&r| v[r]).collect())),
            FieldColumn::F64(v) => LaneColumn::F64(adopt(rank.iter().map(|&r| v[r]).collect())),
            FieldColumn::Bool(v) => LaneColumn::Bool(adopt(rank.iter().map(|&r| v[r]).collect())),
        }
    }
}

/// Where a program's input comes from during [`Combine::chains`].
enum StepInput {
    /// The accumulators' field.
    Head(usize),
    /// The field of the elements folded in at this step.
    Next(usize),
    /// A free scalar, one value per chain.
    Free(FieldColumn),
}

impl Combine {
    /// Left-to-right chains of this operator, side by side: chain `c` starts from lane `c` of
    /// `init` and folds in lanes `starts[c] .. starts[c] + lens[c]` of `xs`, one per step; the
    /// free variables of chain `c` are those of lane `segs[c]` of `env`'s context. The final
    /// value of each chain, or `None` when a value is not a scalar or tuple of scalars or a
    /// program fails (the caller then takes the general steps, which report the error).
    ///
    /// The chains are split into groups of about equal total length, one task each, where the
    /// cost model splits that many steps ([`sched::plan`]); a step of a few hundred chains is
    /// too small to split, but the chains are independent, so the groups' results, put side
    /// by side, are the same bits.
    pub(crate) fn chains(
        &self,
        init: &LVal,
        xs: &LVal,
        starts: &[usize],
        lens: &[usize],
        segs: &[usize],
        env: &Env,
    ) -> Option<LVal> {
        let total: usize = lens.iter().sum();
        let ops: usize = self.programs.iter().map(|p| p.instructions().len()).sum();
        let (s, _timing) = sched::plan_op(
            sched::Op::new("vectoriser::combine_chains"),
            total,
            ElemCost::new(ops as f64 + 1.0, 2.0),
        );
        let k = s.num_tasks().min(lens.len());
        if k <= 1 {
            return self.chains_in_turn(init, xs, starts, lens, segs, env);
        }
        // Contiguous groups of chains, the `g`-th ending where the running length reaches
        // `(g + 1) / k` of the total.
        let mut groups = Vec::with_capacity(k);
        let (mut from, mut run) = (0, 0);
        for (c, &l) in lens.iter().enumerate() {
            run += l;
            if groups.len() + 1 < k && run * k >= total * (groups.len() + 1) {
                groups.push(from..c + 1);
                from = c + 1;
            }
        }
        if from < lens.len() {
            groups.push(from..lens.len());
        }
        let parts = sched::run_parts(groups, |_, g| {
            let sub = init.gather(&g.clone().collect::<Vec<_>>()).ok()?;
            self.chains_in_turn(
                &sub,
                xs,
                &starts[g.clone()],
                &lens[g.clone()],
                &segs[g],
                env,
            )
        });
        let mut parts = parts.into_iter();
        let first = parts.next()??;
        parts.try_fold(first, |all, p| LVal::append(&all, &p?).ok())
    }

    /// [`Combine::chains`] on the calling thread: every step over all the chains still going.
    fn chains_in_turn(
        &self,
        init: &LVal,
        xs: &LVal,
        starts: &[usize],
        lens: &[usize],
        segs: &[usize],
        env: &Env,
    ) -> Option<LVal> {
        let nc = init.lanes();
        let (mut heads, mut nexts) = (Vec::new(), Vec::new());
        leaves(init, &mut Vec::new(), &mut heads)?;
        leaves(xs, &mut Vec::new(), &mut nexts)?;
        let same = heads.len() == nexts.len()
            && (heads.iter().zip(&nexts)).all(|((p, a), (q, b))| p == q && a.ty() == b.ty());
        if !same {
            return None;
        }
        // Longest chains first, so that the chains still going are always a prefix.
        let mut order: Vec<usize> = (0..nc).collect();
        order.sort_by_key(|&c| std::cmp::Reverse(lens[c]));
        let first: Vec<usize> = order.iter().map(|&c| starts[c]).collect();
        let inputs: Vec<StepInput> = (self.inputs.iter())
            .map(|i| {
                let at = |fields: &[(Vec<usize>, &LaneColumn)], path: &Vec<usize>| {
                    fields.iter().position(|(p, _)| p == path)
                };
                Some(match i {
                    Input::Operand(0, path) => StepInput::Head(at(&heads, path)?),
                    Input::Operand(_, path) => StepInput::Next(at(&nexts, path)?),
                    Input::Free(n, path) => {
                        let col = field(lookup(env, n).ok()?, path)?.col().ok()?;
                        StepInput::Free(FieldColumn::gathered(col, order.iter().map(|&c| segs[c])))
                    }
                })
            })
            .collect::<Option<_>>()?;
        let program_for: Vec<usize> = (heads.iter())
            .map(|(p, _)| program_of(&self.shape, p))
            .collect::<Option<_>>()?;
        let mut head: Vec<FieldColumn> = (heads.iter())
            .map(|(_, c)| FieldColumn::gathered(c, order.iter().copied()))
            .collect();
        let mut next: Vec<FieldColumn> = nexts
            .iter()
            .map(|(_, c)| FieldColumn::zeros(c.ty(), nc))
            .collect();
        let mut outs: Vec<FieldColumn> = (self.programs.iter())
            .map(|p| FieldColumn::zeros(p.output_type(), nc))
            .collect();
        let mut active = nc;
        for t in 0.. {
            while active > 0 && lens[order[active - 1]] <= t {
                active -= 1;
            }
            if active == 0 {
                break;
            }
            for (b, (_, col)) in next.iter_mut().zip(&nexts) {
                b.step_from(col, &first[..active], t)?;
            }
            for (p, out) in self.programs.iter().zip(outs.iter_mut()) {
                let refs: Vec<ColumnRef<'_>> = (inputs.iter())
                    .map(|i| match i {
                        StepInput::Head(f) => head[*f].first(active),
                        StepInput::Next(f) => next[*f].first(active),
                        StepInput::Free(b) => b.first(active),
                    })
                    .collect();
                p.eval_into(&refs, out.first_mut(active)).ok()?;
            }
            for (h, &k) in head.iter_mut().zip(&program_for) {
                h.copy_first(&outs[k], active)?;
            }
        }
        let mut rank = vec![0; nc];
        for (i, &c) in order.iter().enumerate() {
            rank[c] = i;
        }
        like(init, &mut head.into_iter().map(|b| b.into_col(&rank)))
    }
}

fn rebuild(shape: &Shape, outs: &mut [Option<LaneColumn>]) -> LVal {
    match shape {
        Shape::Field(k) => LVal::Scalar(outs[*k].take().expect("each field is used once")),
        Shape::Tuple(s) => LVal::Tuple(s.iter().map(|s| rebuild(s, outs)).collect()),
    }
}

/// The programs [`Combine::new`] compiles for `l` on operands shaped like `operand`.
pub(crate) fn programs(l: &Lambda, operand: &LVal, env: &Env) -> Vec<CompiledExpr> {
    Combine::new(l, operand, env, &Kernels::new()).map_or_else(Vec::new, |c| c.programs)
}
