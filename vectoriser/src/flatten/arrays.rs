//! The lifted array operations on evaluated operands: array literals, `index`, `length`,
//! `iota`, `replicate`, `slice`, `append`, `concat` and `scatter`, each over all the lanes of a
//! context at once. The flattener evaluates a node's operands (in the IR's order) and calls one
//! of these; none of them reads the IR.

use super::{Ctx, counts, invalid, rt, segd_of};
use crate::error::{Error, Result};
use crate::ir::{Scalar, Type};
use crate::lval::{
    LVal, LaneColumn, adopt, extracts_by_lane, internal, shared_by_lane, uniform, vsegd_of,
    vsegd_of_segd,
};
use flatland_runtime::{Error as RtError, flat, seg};
use flatland_segd::Segd;
use std::sync::Arc;

/// An array literal of element type `t` whose `k`-th element is `vals[k]` (one value per lane
/// of `ctx`): one array of `vals.len()` elements per lane.
pub(super) fn array_lit(t: &Type, vals: Vec<LVal>, ctx: &Ctx) -> Result<LVal> {
    let (n, k) = (ctx.n, vals.len());
    if k == 0 {
        return Ok(LVal::Array(
            vsegd_of_segd(&Segd::regular(n, 0)),
            Arc::new(LVal::empty(t)),
        ));
    }
    // Arrays that are segments of one shared block (slices of one array): a new descriptor of
    // that block, no element copied.
    if let Some(inner) = shared_by_lane(&vals)? {
        return Ok(LVal::Array(
            vsegd_of_segd(&Segd::regular(n, k)),
            Arc::new(inner),
        ));
    }
    // Arrays of scalars: their elements copied once, straight into lane order, so the literal's
    // elements (a map over it, say) are contiguous without a copy.
    if let Some((lens, block)) = extracts_by_lane(&vals)? {
        let inner = LVal::Array(vsegd_of_segd(&segd_of(lens)?), Arc::new(block));
        return Ok(LVal::Array(
            vsegd_of_segd(&Segd::regular(n, k)),
            Arc::new(inner),
        ));
    }
    let mut all: Option<LVal> = None;
    for v in vals {
        all = Some(match all {
            None => v,
            Some(a) => LVal::append(&a, &v)?,
        });
    }
    let all = all.ok_or_else(|| internal("array literal".into()))?;
    let idx: Vec<usize> = (0..n * k).map(|p| (p % k) * n + p / k).collect();
    Ok(LVal::Array(
        vsegd_of_segd(&Segd::regular(n, k)),
        Arc::new(all.gather(&idx)?),
    ))
}

/// `arr[i]` on every lane: a lifted gather.
pub(super) fn index(arr: &LVal, i: &LVal, ctx: &Ctx) -> Result<LVal> {
    let n = ctx.n;
    let idx = i.col()?.i64s()?;
    let (v, el) = arr.array()?;
    let LVal::Scalar(c) = &**el else {
        let mut pos = Vec::with_capacity(n);
        for (j, &x) in idx.iter().enumerate() {
            let p = v.physical(j);
            match usize::try_from(x) {
                Ok(k) if k < p.len => pos.push(p.start + k),
                _ => {
                    return Err(ctx.fail(
                        j,
                        rt(RtError::IndexOutOfRange {
                            op: "index",
                            lane: ctx.lane(j),
                            index: x,
                            len: p.len,
                        }),
                    ));
                }
            }
        }
        return el.gather(&pos);
    };
    let segs: Vec<usize> = (0..n).collect();
    // Every lane reading one physical segment (a replicated free array): a plain gather from
    // that segment, without locating each lane's segment.
    let one = (v.ssegd().len() == 1).then(|| v.ssegd().pseg(0));
    macro_rules! lifted_index {
        ($b:expr) => {
            match one {
                Some(p) => flat::gather(&$b[p.start..p.start + p.len], idx),
                None => seg::index_l(v, &[&$b[..]], &segs, idx),
            }
            .map_err(|e| ctx.fix(e))?
        };
    }
    Ok(LVal::Scalar(match c {
        LaneColumn::I64(b) => LaneColumn::I64(adopt(lifted_index!(b))),
        LaneColumn::F64(b) => LaneColumn::F64(adopt(lifted_index!(b))),
        LaneColumn::Bool(b) => LaneColumn::Bool(adopt(lifted_index!(b))),
    }))
}

/// The length of every lane's array.
pub(super) fn length(arr: &LVal) -> Result<LVal> {
    let lens = arr.array()?.0.lengths();
    Ok(LVal::Scalar(LaneColumn::I64(adopt(
        lens.into_iter().map(|l| l as i64).collect(),
    ))))
}

/// `iota(len, start, step)` on every lane: `start, start + step, ..` (`len` of them).
pub(super) fn iota(len: &LVal, start: &LVal, step: &LVal, ctx: &Ctx) -> Result<LVal> {
    let segd = segd_of(counts("iota", len.col()?, ctx)?)?;
    let out = seg::iota_s(&segd, start.col()?.i64s()?, step.col()?.i64s()?).map_err(rt)?;
    Ok(LVal::Array(
        vsegd_of_segd(&segd),
        Arc::new(LVal::Scalar(LaneColumn::I64(adopt(out)))),
    ))
}

/// `replicate(count, x)` on every lane: `count` copies of `x` (virtual for arrays).
pub(super) fn replicate(count: &LVal, x: &LVal, ctx: &Ctx) -> Result<LVal> {
    let segd = segd_of(counts("replicate", count.col()?, ctx)?)?;
    Ok(LVal::Array(
        vsegd_of_segd(&segd),
        Arc::new(x.replicate_s(&segd)?),
    ))
}

/// `slice(arr, start, len)` on every lane: a new descriptor of the same elements.
pub(super) fn slice(arr: &LVal, start: &LVal, len: &LVal, ctx: &Ctx) -> Result<LVal> {
    let n = ctx.n;
    let (v, el) = arr.array()?;
    let (s, l) = (start.col()?.i64s()?, len.col()?.i64s()?);
    let mut starts = Vec::with_capacity(n);
    let mut lens = Vec::with_capacity(n);
    for j in 0..n {
        let p = v.physical(j);
        match (usize::try_from(s[j]), usize::try_from(l[j])) {
            (Ok(su), Ok(lu)) if su + lu <= p.len => {
                starts.push(p.start + su);
                lens.push(lu);
            }
            _ => {
                return Err(ctx.fail(
                    j,
                    invalid(
                        "slice",
                        ctx.lane(j),
                        format!(
                            "start {} and length {} out of range for length {}",
                            s[j], l[j], p.len
                        ),
                    ),
                ));
            }
        }
    }
    Ok(LVal::Array(vsegd_of(starts, lens, el.lanes())?, el.clone()))
}

/// The arrays of `parts` appended lane by lane (a chain `append(append(a, b), c)` as its
/// parts `[a, b, c]`), their elements copied once, into lane order.
pub(super) fn append(parts: Vec<LVal>) -> Result<LVal> {
    if let Some((lens, block)) = extracts_by_lane(&parts)? {
        let k = parts.len();
        let lens = lens.chunks(k).map(|c| c.iter().sum()).collect();
        return Ok(LVal::Array(vsegd_of_segd(&segd_of(lens)?), Arc::new(block)));
    }
    let mut parts = parts.into_iter();
    let first = parts
        .next()
        .ok_or_else(|| internal("append of nothing".into()))?;
    parts.try_fold(first, |x, y| append_two(&x, &y))
}

/// The arrays of `x` and `y` appended lane by lane (arrays of any element type; arrays of
/// scalars and tuples of scalars are appended by [`extracts_by_lane`]).
fn append_two(x: &LVal, y: &LVal) -> Result<LVal> {
    let ((va, ea), (vb, eb)) = (x.array()?, y.array()?);
    let (sa, pa) = va.demote().map_err(|e| rt(e.into()))?;
    let (sb, pb) = vb.demote().map_err(|e| rt(e.into()))?;
    let all = LVal::append(ea, eb)?;
    let off = ea.lanes();
    let idx: Vec<usize> = pa
        .iter()
        .zip(&pb)
        .flat_map(|(p, q)| (p.start..p.start + p.len).chain(off + q.start..off + q.start + q.len))
        .collect();
    let lens = sa
        .lengths()
        .iter()
        .zip(sb.lengths().iter())
        .map(|(x, y)| x + y)
        .collect();
    Ok(LVal::Array(
        vsegd_of_segd(&segd_of(lens)?),
        Arc::new(all.gather(&idx)?),
    ))
}

/// `concat(arr)` on every lane: the arrays of each lane's array of arrays, one after another.
pub(super) fn concat(arr: &LVal) -> Result<LVal> {
    let (so, outer) = arr.elements()?;
    let inner_lens: Vec<usize> = outer.array()?.0.lengths();
    let (_, inner) = outer.elements()?;
    let lens = seg::fold_s(&so, &inner_lens, 0usize, |x, y| x + y).map_err(rt)?;
    Ok(LVal::Array(vsegd_of_segd(&segd_of(lens)?), Arc::new(inner)))
}

/// The values of a `scatter`.
pub(super) enum Values {
    /// An array of values per lane.
    Arrays(LVal),
    /// `replicate(count, x)` of a scalar `x`, kept as one `x` per lane (`per_lane`) until it is
    /// known to differ between lanes (the sieve's `vec![false; m]` is one value for all).
    Replicated { count: LVal, x: LVal },
}

/// `scatter(dest, idx, values)` on every lane: `dest` with `dest[idx[k]] = values[k]`, the
/// last write to a position winning.
pub(super) fn scatter(dest: &LVal, idx: &LVal, values: Values, ctx: &Ctx) -> Result<LVal> {
    let n = ctx.n;
    let (sd, ed) = dest.elements()?;
    let (si, ei) = idx.elements()?;
    let (sv, ev, per_lane) = match values {
        Values::Replicated { count, x } => {
            let lens = counts("replicate", count.col()?, ctx)?;
            (segd_of(lens)?, x, true)
        }
        Values::Arrays(v) => {
            let (sv, ev) = v.elements()?;
            (sv, ev, false)
        }
    };
    if let Some(j) = (0..n).find(|&j| si.length(j) != sv.length(j)) {
        return Err(ctx.fail(
            j,
            rt(RtError::LengthMismatch {
                op: "scatter",
                expected: si.length(j),
                found: sv.length(j),
            }),
        ));
    }
    let idx = ei.col()?.i64s()?;
    let out = if n == 1 {
        // One lane writing into its whole destination (the sieve's top level): its indices are
        // already positions in the flat destination. An error names the lane, not the index's
        // position.
        scatter_into(&ed, ev, &sv, per_lane, idx).map_err(|e| match e {
            Error::Runtime(RtError::IndexOutOfRange { index, len, .. }) => ctx.fail(
                0,
                rt(RtError::IndexOutOfRange {
                    op: "scatter",
                    lane: ctx.lane(0),
                    index,
                    len,
                }),
            ),
            e => e,
        })?
    } else {
        // Each lane's indices as positions in the flat destination (in parallel); the first
        // index out of range in order is the error, named after its lane.
        let global = seg::positions_l(&si, idx, &sd).map_err(|e| match e {
            RtError::IndexOutOfRange {
                lane, index, len, ..
            } => ctx.fail(
                lane,
                rt(RtError::IndexOutOfRange {
                    op: "scatter",
                    lane: ctx.lane(lane),
                    index,
                    len,
                }),
            ),
            e => rt(e),
        })?;
        scatter_into(&ed, ev, &sv, per_lane, &global)?
    };
    Ok(LVal::Array(vsegd_of_segd(&sd), Arc::new(out)))
}

/// `base` with the positions `global` set to the one value every element of `vals` holds
/// (`flat::scatter_value`: no lane order to settle, no array of winners), when both are
/// scalar columns and `vals` is uniform (the sieve's `replicate(m, false)`); `None` otherwise.
fn scatter_value<I: flat::Index>(base: &LVal, vals: &LVal, global: &[I]) -> Result<Option<LVal>> {
    let (LVal::Scalar(b), LVal::Scalar(v)) = (base, vals) else {
        return Ok(None);
    };
    let Some(value) = uniform(v) else {
        return Ok(None);
    };
    let col = match (b, value) {
        (LaneColumn::I64(b), Scalar::I64(x)) => {
            LaneColumn::I64(adopt(flat::scatter_value(b, global, x).map_err(rt)?))
        }
        (LaneColumn::F64(b), Scalar::F64(x)) => {
            LaneColumn::F64(adopt(flat::scatter_value(b, global, x).map_err(rt)?))
        }
        (LaneColumn::Bool(b), Scalar::Bool(x)) => {
            LaneColumn::Bool(adopt(flat::scatter_value(b, global, x).map_err(rt)?))
        }
        _ => return Ok(None),
    };
    Ok(Some(LVal::Scalar(col)))
}

/// The destination elements `ed` with the positions `at` (in the flat destination) written
/// from the values `ev` (one per lane when `per_lane`, else one per index, as `sv` describes).
/// One value for every write is written without settling which write lands last; otherwise
/// the last write per position wins. Values per lane are checked as they are, not expanded:
/// lanes that differ only where nothing is written take the general way, to the same result.
fn scatter_into<I: flat::Index>(
    ed: &LVal,
    ev: LVal,
    sv: &Segd,
    per_lane: bool,
    at: &[I],
) -> Result<LVal> {
    if let Some(out) = scatter_value(ed, &ev, at)? {
        return Ok(out);
    }
    let ev = if per_lane { ev.replicate_s(sv)? } else { ev };
    let nd = ed.lanes();
    let base: Vec<usize> = (0..nd).collect();
    let vals: Vec<usize> = (nd..nd + ev.lanes()).collect();
    let winners = flat::scatter(&base, at, &vals).map_err(rt)?;
    LVal::append(ed, &ev)?.gather(&winners)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    /// One array of `i64` per lane.
    fn rows(rs: &[&[i64]]) -> LVal {
        let vals: Vec<Value> = rs
            .iter()
            .map(|r| Value::Array(Arc::new(r.iter().map(|&x| Value::I64(x)).collect())))
            .collect();
        LVal::from_values(&vals, &Type::array(Type::I64)).expect("arrays of i64")
    }

    /// One `i64` per lane.
    fn ints(xs: &[i64]) -> LVal {
        LVal::Scalar(LaneColumn::I64(adopt(xs.to_vec())))
    }

    /// A context of `n` lanes: the elements of one map over an array of `n`, lane `i` its
    /// element `i`.
    fn lanes(n: usize) -> Ctx {
        Ctx::inner(&Segd::regular(1, n))
    }

    /// The arrays of an array-typed value, as plain vectors.
    fn plain(v: &LVal) -> Vec<Vec<i64>> {
        v.to_values()
            .into_iter()
            .map(|a| match a {
                Value::Array(xs) => xs
                    .iter()
                    .map(|x| match x {
                        Value::I64(i) => *i,
                        other => panic!("not an i64: {other:?}"),
                    })
                    .collect(),
                other => panic!("not an array: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn append_copies_parts_in_lane_order_whatever_the_path() {
        let (a, b, c) = (
            rows(&[&[1, 2], &[], &[3]]),
            rows(&[&[], &[4], &[5, 6]]),
            rows(&[&[7], &[8, 9], &[]]),
        );
        let want = vec![vec![1, 2, 7], vec![4, 8, 9], vec![3, 5, 6]];
        // One copy of all parts (scalar elements), and the pairwise general way.
        let once = append(vec![a.clone(), b.clone(), c.clone()]).unwrap();
        let pairwise = append_two(&append_two(&a, &b).unwrap(), &c).unwrap();
        assert_eq!(plain(&once), want);
        assert_eq!(plain(&pairwise), want);
    }

    #[test]
    fn slice_and_index_name_the_failing_lane() {
        let a = rows(&[&[1, 2, 3], &[4]]);
        let ctx = lanes(2);
        let s = slice(&a, &ints(&[1, 0]), &ints(&[2, 1]), &ctx).unwrap();
        assert_eq!(plain(&s), vec![vec![2, 3], vec![4]]);
        let e = slice(&a, &ints(&[0, 1]), &ints(&[1, 1]), &ctx).unwrap_err();
        assert!(e.to_string().contains("lane 1"), "{e}");
        let got = index(&a, &ints(&[2, 0]), &ctx).unwrap();
        assert_eq!(got.col().unwrap().i64s().unwrap(), &[3, 4]);
        assert!(index(&a, &ints(&[0, 1]), &ctx).is_err());
    }

    #[test]
    fn scatter_of_replicated_values_equals_scatter_of_arrays() {
        let dest = rows(&[&[0, 0, 0], &[0, 0]]);
        let idx = rows(&[&[2, 0, 2], &[1]]);
        let ctx = lanes(2);
        let replicated = Values::Replicated {
            count: ints(&[3, 1]),
            x: ints(&[7, 9]),
        };
        let arrays = Values::Arrays(rows(&[&[7, 7, 7], &[9]]));
        let a = scatter(&dest, &idx, replicated, &ctx).unwrap();
        let b = scatter(&dest, &idx, arrays, &ctx).unwrap();
        assert_eq!(plain(&a), vec![vec![7, 0, 7], vec![0, 9]]);
        assert_eq!(plain(&a), plain(&b));
        let short = Values::Arrays(rows(&[&[7, 7], &[9]]));
        assert!(scatter(&dest, &idx, short, &ctx).is_err());
    }

    #[test]
    fn array_literals_concat_and_lengths() {
        let ctx = lanes(2);
        let lit = array_lit(
            &Type::array(Type::I64),
            vec![rows(&[&[1], &[2, 3]]), rows(&[&[], &[4]])],
            &ctx,
        )
        .unwrap();
        assert_eq!(
            length(&lit).unwrap().col().unwrap().i64s().unwrap(),
            &[2, 2]
        );
        assert_eq!(plain(&concat(&lit).unwrap()), vec![vec![1], vec![2, 3, 4]]);
        let empty = array_lit(&Type::I64, Vec::new(), &ctx).unwrap();
        assert_eq!(plain(&empty), vec![Vec::<i64>::new(), Vec::new()]);
        let r = iota(&ints(&[3, 0]), &ints(&[5, 1]), &ints(&[-2, 1]), &ctx).unwrap();
        assert_eq!(plain(&r), vec![vec![5, 3, 1], vec![]]);
        assert!(replicate(&ints(&[1, -1]), &ints(&[0, 0]), &ctx).is_err());
    }
}
