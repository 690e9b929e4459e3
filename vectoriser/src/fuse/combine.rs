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
//! [`assoc::LEAF`]: flatland_runtime::assoc::LEAF

use super::kernel::{Compiler, Cv, Src, field};
use crate::flatten::{Env, lookup};
use crate::ir::Lambda;
use crate::lval::{Col, LVal};
use flatland_runtime::Result as RtResult;
use flatland_runtime::expr::{self, ColumnRef, Program};
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
    programs: Vec<Program>,
    shape: Shape,
}

/// The trees of `cv` in field order, and the shape that puts them back together.
fn flatten_cv(cv: Cv, trees: &mut Vec<expr::Expr>) -> Option<Shape> {
    Some(match cv {
        Cv::T(t) => {
            trees.push(t);
            Shape::Field(trees.len() - 1)
        }
        Cv::Tup(vs) => Shape::Tuple(
            vs.into_iter()
                .map(|v| flatten_cv(v, trees))
                .collect::<Option<_>>()?,
        ),
        Cv::Arr(..) => return None,
    })
}

/// The trees and inputs of the operator `l` on operands shaped like `operand` (scalars and
/// tuples of them), or `None` when its body is more than scalar operators, `let`, tuples,
/// projections, free scalars and `if`s whose branches cannot fail.
fn compiled<'a>(
    l: &Lambda,
    operand: &'a LVal,
    env: &'a Env,
) -> Option<(Compiler<'a>, Vec<expr::Expr>, Shape)> {
    let [(a, _), (b, _)] = &l.params[..] else {
        return None;
    };
    let mut c = Compiler::new(env, vec![a.clone(), b.clone()], vec![operand, operand]);
    let cv = c.compile(&l.body)?;
    let mut trees = Vec::new();
    let shape = flatten_cv(cv, &mut trees)?;
    // Gathers and lengths read free arrays per element: left to the lifted steps.
    if !c
        .srcs
        .iter()
        .all(|s| matches!(s, Src::Param(..) | Src::Free(..)))
    {
        return None;
    }
    Some((c, trees, shape))
}

impl Combine {
    /// The operator `l` compiled for operands shaped like `operand` (see [`compiled`]).
    pub(crate) fn new(l: &Lambda, operand: &LVal, env: &Env) -> Option<Combine> {
        let (c, trees, shape) = compiled(l, operand, env)?;
        let programs = trees
            .iter()
            .map(|t| Program::compile(t, &c.types).ok())
            .collect::<Option<_>>()?;
        let inputs = c
            .srcs
            .into_iter()
            .map(|s| match s {
                Src::Param(k, path) => Some(Input::Operand(k, path)),
                Src::Free(n, path) => Some(Input::Free(n, path)),
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
        let cols: Vec<Cow<'_, Col>> = self
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
        let refs: Vec<ColumnRef<'_>> = cols.iter().map(|c| Col::as_ref(c)).collect();
        let mut outs = Vec::with_capacity(self.programs.len());
        for p in &self.programs {
            match p.eval(&refs, segs.len()) {
                Ok(c) => outs.push(Some(Col::from_column(c))),
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok(rebuild(&self.shape, &mut outs)))
    }
}

fn rebuild(shape: &Shape, outs: &mut [Option<Col>]) -> LVal {
    match shape {
        Shape::Field(k) => LVal::Scalar(outs[*k].take().expect("each field is used once")),
        Shape::Tuple(s) => LVal::Tuple(s.iter().map(|s| rebuild(s, outs)).collect()),
    }
}

/// The programs [`Combine::new`] compiles for `l` on operands shaped like `operand`.
pub(crate) fn programs(l: &Lambda, operand: &LVal, env: &Env) -> Vec<Program> {
    Combine::new(l, operand, env).map_or_else(Vec::new, |c| c.programs)
}
