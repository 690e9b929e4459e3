//! The lifted reduction by index (`hist`): one histogram per lane, each with the canonical
//! block association of [`flatland_runtime::assoc::hist`].
//!
//! A built-in operator runs [`seg::hist_s`] over all the lanes' pairs at once. A lambda
//! operator runs as bulk steps of the lifted lambda: the pairs of each (lane, block, bin) are
//! one left-to-right chain from the lane's identity ([`chain_finals`], all chains side by side),
//! and the partials of a lane's blocks are combined bin by bin in block order as a second set of
//! chains.

use super::chains::chain_finals;
use super::{Ctx, Flattener, invalid, rt};
use crate::env::Env;
use crate::error::Result;
use crate::ir::ReduceOp;
use crate::lval::{LVal, LaneColumn, vsegd_of_segd};
use flatland_runtime::assoc::hist_block;
use flatland_runtime::{Error as RtError, seg};
use flatland_segd::Segd;
use std::collections::HashMap;
use std::sync::Arc;

/// Each lane's number of bins, checked (a negative count is an error naming its lane).
pub(super) fn bin_counts(bins: &LVal, ctx: &Ctx) -> Result<Vec<usize>> {
    bins.col()?
        .i64s()?
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            usize::try_from(b)
                .map_err(|_| invalid("hist", ctx.lane(i), format!("negative number of bins {b}")))
        })
        .collect()
}

impl Flattener<'_> {
    /// `hist(bins, z, op, ks, vs)` over the lanes of `ctx` (`bins` already checked, one count
    /// per lane); the lambda operator's free variables are in `env`.
    pub(crate) fn lifted_hist(
        &self,
        op: &ReduceOp,
        bins: &[usize],
        z: &LVal,
        (ks, vs): (&LVal, &LVal),
        env: &Env,
        ctx: &Ctx,
    ) -> Result<LVal> {
        let (segd, keys) = ks.elements()?;
        let (vsegd, vals) = vs.elements()?;
        if let Some(i) = (0..segd.len()).find(|&i| segd.length(i) != vsegd.length(i)) {
            return Err(RtError::LengthMismatch {
                op: "hist",
                expected: segd.length(i),
                found: vsegd.length(i),
            }
            .into());
        }
        if segd.starts() == vsegd.starts() {
            return self.lifted_hist_in(op, bins, z, (&segd, &keys, &vals), env, ctx);
        }
        // Both laid out by one contiguous descriptor (the lengths are the same).
        let compact = |segd: &Segd, xs: &LVal| {
            let idx: Vec<usize> = segd.iter().flat_map(|(s, l)| s..s + l).collect();
            xs.gather(&idx)
        };
        let (keys, vals) = (compact(&segd, &keys)?, compact(&vsegd, &vals)?);
        let segd = Segd::from_lengths(segd.lengths().into_owned()).map_err(RtError::from)?;
        self.lifted_hist_in(op, bins, z, (&segd, &keys, &vals), env, ctx)
    }

    /// [`Self::lifted_hist`] on keys and values laid out by `segd`.
    fn lifted_hist_in(
        &self,
        op: &ReduceOp,
        bins: &[usize],
        z: &LVal,
        (segd, keys, vals): (&Segd, &LVal, &LVal),
        env: &Env,
        ctx: &Ctx,
    ) -> Result<LVal> {
        let ks = keys.col()?.i64s()?;
        let out = match op.bin_op() {
            Some(bop) => {
                let zs = z.col()?;
                builtin!("hist", bop, vals.col()?, |f, v: T| {
                    seg::hist_s(segd, bins, T::lanes(zs)?, ks, v, f)
                })
            }
            None => self.lambda_hist(op, bins, z, (segd, ks, vals), env, ctx)?,
        };
        let rows = Segd::from_lengths(bins.to_vec()).map_err(RtError::from)?;
        Ok(LVal::Array(
            vsegd_of_segd(&rows),
            Arc::new(LVal::Scalar(out)),
        ))
    }

    /// The bins of every lane, one after another, for a lambda operator.
    fn lambda_hist(
        &self,
        op: &ReduceOp,
        bins: &[usize],
        z: &LVal,
        (segd, ks, vals): (&Segd, &[i64], &LVal),
        env: &Env,
        ctx: &Ctx,
    ) -> Result<LaneColumn> {
        let total = bins.iter().fold(0usize, |a, &b| a.saturating_add(b));
        flatland_runtime::budget::check_elements::<i64>("hist (bins)", total).map_err(rt)?;
        // The pairs that fall in a bin, keyed (lane, block, bin), in input order per key.
        let mut pairs: Vec<(usize, usize, usize, usize)> = Vec::new();
        for (s, (start, len)) in segd.iter().enumerate() {
            let block = hist_block(bins[s]);
            for (j, &key) in ks.iter().enumerate().skip(start).take(len) {
                if let Ok(k) = usize::try_from(key)
                    && k < bins[s]
                {
                    pairs.push((s, (j - start) / block, k, j));
                }
            }
        }
        pairs.sort_by_key(|&(s, q, k, _)| (s, q, k));
        // One chain per (lane, block, bin) that holds pairs.
        let (mut starts, mut lens, mut segs) = (Vec::new(), Vec::new(), Vec::new());
        let mut group: HashMap<(usize, usize, usize), usize> = HashMap::new();
        for (i, &(s, q, k, _)) in pairs.iter().enumerate() {
            if i == 0 || (pairs[i - 1].0, pairs[i - 1].1, pairs[i - 1].2) != (s, q, k) {
                group.insert((s, q, k), starts.len());
                starts.push(i);
                lens.push(0);
                segs.push(s);
            }
            if let Some(l) = lens.last_mut() {
                *l += 1;
            }
        }
        let order: Vec<usize> = pairs.iter().map(|p| p.3).collect();
        let xs = vals.gather(&order)?;
        let compiled = self.compiled_operator(op, z, env);
        let fast = compiled.as_ref().map(|c| (c, env));
        let mut apply = self.applier(op, compiled.as_ref(), env, ctx);
        let init = z.gather(&segs)?;
        let partials = chain_finals(&init, &xs, (&starts, &lens, &segs), &mut *apply, fast)?;
        // The partials, then each lane's identity (the partial of a bin no pair of a block hit).
        let groups = starts.len();
        let pool = LVal::append(&partials, z)?;
        let slot =
            |s: usize, q: usize, k: usize| group.get(&(s, q, k)).copied().unwrap_or(groups + s);
        let (mut first, mut rest) = (Vec::with_capacity(total), Vec::new());
        let (mut starts, mut lens, mut segs) = (Vec::new(), Vec::new(), Vec::new());
        for (s, &b) in bins.iter().enumerate() {
            let blocks = segd.length(s).div_ceil(hist_block(b));
            for k in 0..b {
                first.push(slot(s, 0, k));
                starts.push(rest.len());
                lens.push(blocks.saturating_sub(1));
                segs.push(s);
                rest.extend((1..blocks).map(|q| slot(s, q, k)));
            }
        }
        let init = pool.gather(&first)?;
        let out = if rest.is_empty() {
            init
        } else {
            let xs = pool.gather(&rest)?;
            chain_finals(&init, &xs, (&starts, &lens, &segs), &mut *apply, fast)?
        };
        Ok(out.col()?.clone())
    }
}
