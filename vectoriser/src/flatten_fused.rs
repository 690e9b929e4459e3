//! The executor's side of fusion ([`crate::fuse`]): a fused form ([`crate::ir::Expr::Fused`])
//! runs as its single-pass kernel ([`crate::fuse::kernel`]) where the kernel accepts the values,
//! else as the expression it replaced; a partition's keys are computed in one pass.

use super::{Ctx, Env, Flattener};
use crate::error::Result;
use crate::fuse::kernel;
use crate::ir::{Fused, FusedForm, Lambda};
use crate::lval::LVal;
use flatland_segd::Segd;

impl Flattener<'_> {
    /// A fused form: its kernel when fusion is on and the kernel accepts it, else the original.
    pub(super) fn fused(&self, f: &Fused, env: &mut Env, ctx: &Ctx) -> Result<LVal> {
        if self.fuse {
            let r = match &f.form {
                FusedForm::Scanomap {
                    op,
                    identity,
                    f,
                    arrays,
                } => kernel::scanomap(op, identity, f, arrays, env),
                FusedForm::Classes(c) => kernel::classes(c, env),
            };
            if let Some(r) = r {
                return Ok(r);
            }
        }
        self.eval(&f.original, env, ctx)
    }

    /// `partition(classes, interest, key, xs)` with the keys computed in one expression-machine
    /// pass, when fusion is on and the key compiles; `None` leaves it to the unfused steps (which
    /// also report a key out of range).
    pub(super) fn fused_partition(
        &self,
        classes: usize,
        interest: &[usize],
        key: &Lambda,
        segd: &Segd,
        xs: &LVal,
        env: &Env,
    ) -> Result<Option<LVal>> {
        if !self.fuse {
            return Ok(None);
        }
        let Some(keys) = kernel::partition_keys(key, classes, xs, env) else {
            return Ok(None);
        };
        Self::classes(segd, xs, &keys, classes, interest).map(Some)
    }
}
