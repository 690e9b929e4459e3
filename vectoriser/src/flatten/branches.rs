//! The lifted `if`: the condition evaluated on every lane, the lanes of each branch packed (and
//! the branch's free variables with them), each branch run only on its lanes (a branch with no
//! lanes is skipped, which is what ends lifted recursion) and the results combined by the
//! condition.
//!
//! Cost: one pack per branch of each free variable the branch reads, and one combination of
//! the results, all O(lanes + elements of the packed arrays).

use super::Flattener;
use super::context::Ctx;
use crate::check::node_key;
use crate::env::Env;
use crate::error::Result;
use crate::ir::Expr;
use crate::liveness;
use crate::lval::LVal;
use bitvec::prelude::*;

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

impl Flattener<'_> {
    /// Each branch runs in its own environment (its free variables, packed to its lanes), so
    /// the caller's bindings the `if` uses last are released before the branches run.
    pub(super) fn lifted_if(
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lval::{LaneColumn, adopt};
    use flatland_segd::Segd;

    fn ints(v: &LVal) -> Vec<i64> {
        v.col().unwrap().i64s().unwrap().to_vec()
    }

    #[test]
    fn branches_split_the_lanes_and_combine_them_back() {
        let bools = |b: &[bool]| LVal::Scalar(LaneColumn::Bool(adopt(b.to_vec())));
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
        let xs = LVal::Scalar(LaneColumn::I64(adopt(vec![10, 20, 30])));
        let (t, o) = (split.pack_then(&xs).unwrap(), split.pack_else(&xs).unwrap());
        assert_eq!((ints(&t), ints(&o)), (vec![20], vec![10, 30]));
        let doubled = LVal::Scalar(LaneColumn::I64(adopt(vec![40])));
        assert_eq!(
            ints(&split.combine(&doubled, &o).unwrap()),
            vec![10, 40, 30]
        );
    }
}
