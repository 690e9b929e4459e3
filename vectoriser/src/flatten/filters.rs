//! `filter` and `partition`, lifted: the class key of every element computed lifted (predicates
//! lazily, if-elif) or in one pass by the key kernels (`crate::kernels::filter_keys`,
//! `crate::kernels::partition_keys`), then one `seg::split_s`, which packs each class in an
//! array of its own. One class of a filter is a mask and one pack of its elements.
//!
//! Cost: one key pass and one partition pass over the elements (a mask and a pack for one
//! class).

use super::context::Ctx;
use super::iota_filter::RangeFilter;
use super::{Flattener, invalid, rt, segd_of};
use crate::env::Env;
use crate::error::Result;
use crate::ir::{Expr, Lambda};
use crate::lval::{LVal, internal, vsegd_of_segd};
use bitvec::prelude::*;
use flatland_runtime::{Error as RtError, seg};
use flatland_segd::Segd;
use std::sync::Arc;

/// The elements `xs` (the segments of `segd`) that `mask` selects, as one array per segment.
fn pack_class(segd: &Segd, xs: &LVal, mask: &BitSlice) -> Result<LVal> {
    let lens = seg::count_s_bits(segd, mask).map_err(rt)?;
    Ok(LVal::Array(
        vsegd_of_segd(&segd_of(lens)?),
        Arc::new(xs.pack(mask)?),
    ))
}

impl Flattener<'_> {
    /// Regroups the elements of each lane's array by class (`keys`, stable) and returns, for
    /// each class asked for, an array per lane: each class packed in an array of its own, as
    /// its pack would be, from one count pass and one write pass (`seg::split_s`).
    fn classes(
        segd: &Segd,
        xs: &LVal,
        keys: &[u8],
        classes: usize,
        wanted: &[usize],
    ) -> Result<LVal> {
        let mut live = wanted.to_vec();
        live.sort_unstable();
        live.dedup();
        // A column of scalars is split itself; other elements through the indices of each class.
        let parts: Vec<(Segd, LVal)> = if let LVal::Scalar(c) = xs {
            c.split_s(segd, keys, classes, &live)?
                .into_iter()
                .map(|(d, c)| (d, LVal::Scalar(c)))
                .collect()
        } else {
            let idx: Vec<usize> = (0..xs.lanes()).collect();
            let s = seg::split_s(segd, &idx, keys, classes, Some(&live)).map_err(rt)?;
            s.parts
                .into_iter()
                .map(|(d, idx)| Ok((d, xs.gather(&idx)?)))
                .collect::<Result<_>>()?
        };
        // Each class handed over whole (shared only where `wanted` names it twice).
        let mut parts: Vec<Option<LVal>> = parts
            .into_iter()
            .map(|(d, elems)| Some(LVal::Array(vsegd_of_segd(&d), Arc::new(elems))))
            .collect();
        let mut out = vec![None; wanted.len()];
        for (i, c) in wanted.iter().enumerate().rev() {
            let slot = &mut parts[live.binary_search(c).expect("a live class")];
            out[i] = if wanted[..i].contains(c) {
                slot.clone()
            } else {
                slot.take()
            };
        }
        Ok(LVal::Tuple(out.into_iter().flatten().collect()))
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
            if let Some(keys) = crate::kernels::compare_keys(ps, xs, segd, env) {
                self.trace.record("comparison keys", true);
                return Ok(keys);
            }
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
    pub(super) fn elements_of(&self, a: &Expr, env: &mut Env, ctx: &Ctx) -> Result<(Segd, LVal)> {
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
    pub(super) fn filter_class(
        &self,
        filter: &Expr,
        i: usize,
        env: &mut Env,
        ctx: &Ctx,
    ) -> Result<LVal> {
        let Expr::Filter(ps, a) = filter else {
            return Err(internal("filter class of a non-filter".into()));
        };
        if i > ps.len() {
            return Err(internal("projection of a non-tuple".into()));
        }
        let (segd, xs) = match self.iota_filter_class(ps, i, a, env, ctx) {
            Some(RangeFilter::Class(r)) => {
                self.release(filter, env);
                return Ok(r);
            }
            Some(RangeFilter::Elements(segd, xs)) => (segd, xs),
            None => self.elements_of(a, env, ctx)?,
        };
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

    /// `filter(ps, a)` on the elements `xs` of `a` (the segments of `segd`): every class.
    pub(super) fn filter_all(
        &self,
        ps: &[Lambda],
        segd: &Segd,
        xs: &LVal,
        env: &Env,
    ) -> Result<LVal> {
        let keys = self.filter_keys(ps, segd, xs, env)?;
        let all: Vec<usize> = (0..=ps.len()).collect();
        Self::classes(segd, xs, &keys, ps.len() + 1, &all)
    }

    /// `partition(classes, interest, key, a)` on the elements `xs` of `a` (the segments of
    /// `segd`): each class asked for, from the keys of [`Flattener::partition_keys`].
    pub(super) fn partition_of(
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
}
