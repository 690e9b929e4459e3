//! Lifted values: the executor's representation of one IR value per lane, as flat columns and
//! segment descriptors (the "lifted values" of "One value, three representations" in
//! `docs/ARCHITECTURE.md`).
//!
//! - a scalar per lane is a [`LaneColumn`] (a shared `i64`/`f64`/`bool` buffer);
//! - a tuple per lane is a tuple of lifted values (struct of arrays);
//! - an array per lane is a [`VSegd`] with one virtual segment per lane over a *single* data
//!   block, the lifted value of the physical elements. Replicating an array (a free variable
//!   entering a `map`) only replicates descriptor entries; element data are never copied.
//!
//! Every bulk operation here calls a runtime primitive (`flat::gather`/`pack`/`combine`,
//! `seg::extracts`/`replicate_s`, the `VSegd` methods); the only logic of its own is the
//! descriptor bookkeeping that keeps arrays in one data block.

use crate::error::{Error, Result};
use crate::ir::{Scalar, ScalarType, Type};
use crate::value::Value;
use bitvec::prelude::*;
use flatland_runtime::elt::Buffer;
use flatland_runtime::expr::{Column, ColumnRef};
use flatland_runtime::{Error as RtError, flat, seg};
use flatland_segd::{PSeg, SSegd, Segd, VSegd};
use std::borrow::Cow;
use std::sync::Arc;

/// A column of scalars, one per lane.
#[derive(Clone, Debug)]
pub(crate) enum LaneColumn {
    I64(Buffer<i64>),
    F64(Buffer<f64>),
    Bool(Buffer<bool>),
}

macro_rules! col_map {
    ($c:expr, $v:ident => $e:expr) => {
        match $c {
            LaneColumn::I64($v) => LaneColumn::I64(adopt($e)),
            LaneColumn::F64($v) => LaneColumn::F64(adopt($e)),
            LaneColumn::Bool($v) => LaneColumn::Bool(adopt($e)),
        }
    };
}

macro_rules! col_zip {
    ($a:expr, $b:expr, $x:ident, $y:ident => $e:expr) => {
        match ($a, $b) {
            (LaneColumn::I64($x), LaneColumn::I64($y)) => LaneColumn::I64(adopt($e)),
            (LaneColumn::F64($x), LaneColumn::F64($y)) => LaneColumn::F64(adopt($e)),
            (LaneColumn::Bool($x), LaneColumn::Bool($y)) => LaneColumn::Bool(adopt($e)),
            _ => unreachable!("columns of one type"),
        }
    };
}

/// A column's buffer adopting `v` (no copy).
pub(crate) fn adopt<T>(v: Vec<T>) -> Buffer<T> {
    Buffer::from(v)
}

pub(crate) fn internal(detail: String) -> Error {
    Error::Runtime(RtError::Invalid { op: "exec", detail })
}

impl LaneColumn {
    pub(crate) fn len(&self) -> usize {
        match self {
            LaneColumn::I64(v) => v.len(),
            LaneColumn::F64(v) => v.len(),
            LaneColumn::Bool(v) => v.len(),
        }
    }

    pub(crate) fn ty(&self) -> ScalarType {
        match self {
            LaneColumn::I64(_) => ScalarType::I64,
            LaneColumn::F64(_) => ScalarType::F64,
            LaneColumn::Bool(_) => ScalarType::Bool,
        }
    }

    pub(crate) fn empty(t: ScalarType) -> LaneColumn {
        match t {
            ScalarType::I64 => LaneColumn::I64(adopt(Vec::new())),
            ScalarType::F64 => LaneColumn::F64(adopt(Vec::new())),
            ScalarType::Bool => LaneColumn::Bool(adopt(Vec::new())),
        }
    }

    pub(crate) fn get(&self, i: usize) -> Scalar {
        match self {
            LaneColumn::I64(v) => Scalar::I64(v[i]),
            LaneColumn::F64(v) => Scalar::F64(v[i]),
            LaneColumn::Bool(v) => Scalar::Bool(v[i]),
        }
    }

    pub(crate) fn as_ref(&self) -> ColumnRef<'_> {
        match self {
            LaneColumn::I64(v) => ColumnRef::I64(v),
            LaneColumn::F64(v) => ColumnRef::F64(v),
            LaneColumn::Bool(v) => ColumnRef::Bool(v),
        }
    }

    pub(crate) fn from_column(c: Column) -> LaneColumn {
        match c {
            Column::I64(v) => LaneColumn::I64(adopt(v)),
            Column::F64(v) => LaneColumn::F64(adopt(v)),
            Column::Bool(b) => LaneColumn::Bool(adopt(b.iter().by_vals().collect())),
        }
    }

    pub(crate) fn i64s(&self) -> Result<&[i64]> {
        match self {
            LaneColumn::I64(v) => Ok(v),
            _ => Err(internal(format!(
                "expected an i64 column, found {}",
                self.ty()
            ))),
        }
    }

    pub(crate) fn bools(&self) -> Result<&[bool]> {
        match self {
            LaneColumn::Bool(v) => Ok(v),
            _ => Err(internal(format!(
                "expected a bool column, found {}",
                self.ty()
            ))),
        }
    }

    fn gather(&self, idx: &[usize]) -> Result<LaneColumn> {
        Ok(col_map!(self, v => flat::gather(v, idx)?))
    }

    fn pack(&self, mask: &BitSlice) -> Result<LaneColumn> {
        Ok(col_map!(self, v => flat::pack(v, mask)?))
    }

    fn combine(sel: &BitSlice, f: &LaneColumn, t: &LaneColumn) -> Result<LaneColumn> {
        Ok(col_zip!(f, t, x, y => flat::combine(sel, x, y)?))
    }

    fn extracts(&self, ranges: &[PSeg]) -> Result<LaneColumn> {
        Ok(col_map!(self, v => seg::extracts(&[&v[..]], ranges)?))
    }

    fn append(a: &LaneColumn, b: &LaneColumn) -> Result<LaneColumn> {
        let ranges = [
            PSeg {
                source: 0,
                start: 0,
                len: a.len(),
            },
            PSeg {
                source: 1,
                start: 0,
                len: b.len(),
            },
        ];
        Ok(col_zip!(a, b, x, y => seg::extracts(&[&x[..], &y[..]], &ranges)?))
    }

    /// For each live class (those in `wanted`, ascending, each once), the column's elements
    /// of that class in each segment of `segd`, packed, with their descriptor
    /// (`seg::split_s`).
    pub(crate) fn split_s(
        &self,
        segd: &Segd,
        keys: &[u8],
        classes: usize,
        wanted: &[usize],
    ) -> Result<Vec<(Segd, LaneColumn)>> {
        fn parts<T: Copy + Send + Sync>(
            v: &[T],
            (segd, keys, classes, wanted): (&Segd, &[u8], usize, &[usize]),
            wrap: fn(Buffer<T>) -> LaneColumn,
        ) -> Result<Vec<(Segd, LaneColumn)>> {
            let s = seg::split_s(segd, v, keys, classes, Some(wanted))?;
            Ok(s.parts
                .into_iter()
                .map(|(d, p)| (d, wrap(adopt(p))))
                .collect())
        }
        let args = (segd, keys, classes, wanted);
        match self {
            LaneColumn::I64(v) => parts(v, args, LaneColumn::I64),
            LaneColumn::F64(v) => parts(v, args, LaneColumn::F64),
            LaneColumn::Bool(v) => parts(v, args, LaneColumn::Bool),
        }
    }

    pub(crate) fn replicate_s(&self, segd: &Segd) -> Result<LaneColumn> {
        Ok(col_map!(self, v => seg::replicate_s(segd, v)?))
    }

    /// Whether both columns are views of the same memory (same type, address and length).
    pub(crate) fn same_buffer(&self, other: &LaneColumn) -> bool {
        fn same<T>(a: &[T], b: &[T]) -> bool {
            std::ptr::eq(a.as_ptr(), b.as_ptr()) && a.len() == b.len()
        }
        match (self, other) {
            (LaneColumn::I64(a), LaneColumn::I64(b)) => same(a, b),
            (LaneColumn::F64(a), LaneColumn::F64(b)) => same(a, b),
            (LaneColumn::Bool(a), LaneColumn::Bool(b)) => same(a, b),
            _ => false,
        }
    }
}

/// A value per lane.
#[derive(Clone, Debug)]
pub(crate) enum LVal {
    Scalar(LaneColumn),
    Tuple(Vec<LVal>),
    /// One virtual segment per lane, over the physical elements (a single data block).
    Array(VSegd, Arc<LVal>),
}

/// Lane by lane, the arrays of `parts` (over the same lanes) one after another (lane 0 of every
/// part, then lane 1, ..), copied into one block by one `seg::extracts` per scalar column: the
/// length of each copied segment (lane-major) and the block. `None` unless the parts' elements
/// are scalars, or tuples (nested) of scalar columns, of one shape and type.
pub(crate) fn extracts_by_lane(parts: &[LVal]) -> Result<Option<(Vec<usize>, LVal)>> {
    let mut descs = Vec::with_capacity(parts.len());
    let mut elems = Vec::with_capacity(parts.len());
    for p in parts {
        let LVal::Array(v, e) = p else {
            return Ok(None);
        };
        if elems.first().is_some_and(|f: &&LVal| !same_columns(f, e)) || !same_columns(e, e) {
            return Ok(None);
        }
        descs.push(v);
        elems.push(&**e);
    }
    let Some(n) = descs.first().map(|v| v.len()) else {
        return Ok(None);
    };
    let per_part = starts_lens(&descs, n)?;
    let mut plan = Vec::with_capacity(n * parts.len());
    for j in 0..n {
        for (source, (s, l)) in per_part.iter().enumerate() {
            plan.push(PSeg {
                source,
                start: s[j],
                len: l[j],
            });
        }
    }
    let block = extract_columns(&elems, &plan)?;
    Ok(Some((plan.iter().map(|p| p.len).collect(), block)))
}

/// Whether `a` and `b` are scalar columns of one type, or tuples of such of one shape.
fn same_columns(a: &LVal, b: &LVal) -> bool {
    match (a, b) {
        (LVal::Scalar(x), LVal::Scalar(y)) => x.ty() == y.ty(),
        (LVal::Tuple(xs), LVal::Tuple(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same_columns(x, y))
        }
        _ => false,
    }
}

/// The ranges `plan` of the element blocks `elems` (`plan[i].source` indexes `elems`, all of
/// one shape: [`same_columns`]) copied into one block, column by column.
fn extract_columns(elems: &[&LVal], plan: &[PSeg]) -> Result<LVal> {
    match elems[0] {
        LVal::Tuple(fields) => Ok(LVal::Tuple(
            (0..fields.len())
                .map(|k| {
                    let field: Vec<&LVal> = elems
                        .iter()
                        .map(|e| match e {
                            LVal::Tuple(fs) => Ok(&fs[k]),
                            _ => Err(internal("extracts of elements of different shapes".into())),
                        })
                        .collect::<Result<_>>()?;
                    extract_columns(&field, plan)
                })
                .collect::<Result<_>>()?,
        )),
        LVal::Scalar(first) => {
            macro_rules! blocks {
                ($ctor:ident) => {{
                    let blocks = elems
                        .iter()
                        .map(|c| match c {
                            LVal::Scalar(LaneColumn::$ctor(b)) => Ok(&b[..]),
                            _ => Err(internal("extracts of columns of different types".into())),
                        })
                        .collect::<Result<Vec<_>>>()?;
                    LaneColumn::$ctor(adopt(seg::extracts(&blocks, plan)?))
                }};
            }
            Ok(LVal::Scalar(match first {
                LaneColumn::I64(_) => blocks!(I64),
                LaneColumn::F64(_) => blocks!(F64),
                LaneColumn::Bool(_) => blocks!(Bool),
            }))
        }
        LVal::Array(..) => Err(internal("extracts of nested arrays".into())),
    }
}

/// The starts and lengths of a descriptor's segments, borrowed where stored.
type StartsLens<'a> = (Cow<'a, [usize]>, Cow<'a, [usize]>);

/// The start and length of every virtual segment of each of `descs` (`n` each, else an
/// internal error), so that walking them lane by lane reads slices: borrowed from a manifest
/// descriptor, listed once (one lookup per segment) otherwise.
fn starts_lens<'a>(descs: &[&'a VSegd], n: usize) -> Result<Vec<StartsLens<'a>>> {
    descs
        .iter()
        .map(|v| {
            if v.len() != n {
                return Err(internal("arrays over different lanes side by side".into()));
            }
            Ok(if v.is_manifest() {
                (v.ssegd().starts(), v.ssegd().segd().lengths())
            } else {
                let (s, l) = v.iter().map(|p| (p.start, p.len)).unzip();
                (Cow::Owned(s), Cow::Owned(l))
            })
        })
        .collect()
}

/// Lane by lane, the arrays of `parts` (over the same lanes) one after another, as segments of
/// the one element block they all share (`Arc::ptr_eq`: slices of one array, say): the
/// descriptor of the inner arrays of an array literal `[a, b, ..]`, with no element copied.
/// When those segments tile the block in order (`[xs[..h], xs[h..]]` over contiguous `xs`) the
/// descriptor is the contiguous one, so a map over the literal reads the block in place.
/// `None` unless every part is an array over one single-block descriptor of that shared block.
pub(crate) fn shared_by_lane(parts: &[LVal]) -> Result<Option<LVal>> {
    let mut descs = Vec::with_capacity(parts.len());
    let mut block: Option<&Arc<LVal>> = None;
    for p in parts {
        let LVal::Array(v, e) = p else {
            return Ok(None);
        };
        if v.ssegd().num_blocks() != 1 || block.is_some_and(|b| !Arc::ptr_eq(b, e)) {
            return Ok(None);
        }
        block = Some(e);
        descs.push(v);
    }
    let (Some(block), Some(n)) = (block, descs.first().map(|v| v.len())) else {
        return Ok(None);
    };
    let per_part = starts_lens(&descs, n)?;
    let mut starts = Vec::with_capacity(n * parts.len());
    let mut lens = Vec::with_capacity(n * parts.len());
    let mut next = 0;
    let mut tiled = true;
    for j in 0..n {
        for (s, l) in &per_part {
            let (s, l) = (s[j], l[j]);
            tiled &= s == next;
            next = s + l;
            starts.push(s);
            lens.push(l);
        }
    }
    let total = block.lanes();
    let inner = if tiled && next == total {
        vsegd_of_segd(&Segd::from_lengths(lens).map_err(RtError::from)?)
    } else {
        vsegd_of(starts, lens, total)?
    };
    Ok(Some(LVal::Array(inner, block.clone())))
}

/// A descriptor of one segment per lane in one data block of `block` elements.
pub(crate) fn vsegd_of(starts: Vec<usize>, lens: Vec<usize>, block: usize) -> Result<VSegd> {
    let ssegd = SSegd::try_in_block(starts, lens, block).map_err(RtError::from)?;
    Ok(VSegd::manifest(ssegd))
}

/// The contiguous descriptor `segd` over a block of its elements (O(1): the descriptor is
/// shared, no per-segment array is built).
pub(crate) fn vsegd_of_segd(segd: &Segd) -> VSegd {
    VSegd::manifest(SSegd::from_segd(segd))
}

impl LVal {
    pub(crate) fn lanes(&self) -> usize {
        match self {
            LVal::Scalar(c) => c.len(),
            LVal::Tuple(vs) => vs.first().map_or(0, LVal::lanes),
            LVal::Array(v, _) => v.len(),
        }
    }

    pub(crate) fn col(&self) -> Result<&LaneColumn> {
        match self {
            LVal::Scalar(c) => Ok(c),
            _ => Err(internal("expected a scalar value".into())),
        }
    }

    pub(crate) fn array(&self) -> Result<(&VSegd, &Arc<LVal>)> {
        match self {
            LVal::Array(v, e) => Ok((v, e)),
            _ => Err(internal("expected an array value".into())),
        }
    }

    /// Arrays of the given lengths over the lanes of `inner`, in order.
    pub(crate) fn array_of(lens: Vec<usize>, inner: LVal) -> LVal {
        let segd = Segd::from_lengths(lens).expect("lengths of Rust vectors fit usize");
        LVal::Array(vsegd_of_segd(&segd), Arc::new(inner))
    }

    /// Whether every lane has type `t`.
    pub(crate) fn has_type(&self, t: &Type) -> bool {
        match (self, t) {
            (LVal::Scalar(c), _) => t.scalar() == Some(c.ty()),
            (LVal::Tuple(vs), Type::Tuple(ts)) => {
                vs.len() == ts.len() && vs.iter().zip(ts).all(|(v, t)| v.has_type(t))
            }
            (LVal::Array(v, e), Type::Array(et)) => {
                v.ssegd().block_lens().iter().all(|&b| b == e.lanes()) && e.has_type(et)
            }
            _ => false,
        }
    }

    /// No lanes, of type `t`.
    pub(crate) fn empty(t: &Type) -> LVal {
        match t {
            Type::Tuple(ts) => LVal::Tuple(ts.iter().map(LVal::empty).collect()),
            Type::Array(e) => LVal::Array(
                vsegd_of_segd(&Segd::regular(0, 0)),
                Arc::new(LVal::empty(e)),
            ),
            scalar => LVal::Scalar(LaneColumn::empty(scalar.scalar().expect("scalar type"))),
        }
    }

    /// Lane `j` of the result is lane `idx[j]` of `self` (arrays: descriptor entries only).
    pub(crate) fn gather(&self, idx: &[usize]) -> Result<LVal> {
        Ok(match self {
            LVal::Scalar(c) => LVal::Scalar(c.gather(idx)?),
            LVal::Tuple(vs) => {
                LVal::Tuple(vs.iter().map(|v| v.gather(idx)).collect::<Result<_>>()?)
            }
            LVal::Array(v, e) => {
                let ids: Vec<usize> = idx.iter().map(|&i| v.vsegid(i)).collect();
                LVal::Array(
                    VSegd::try_new(ids, v.ssegd().clone()).map_err(RtError::from)?,
                    e.clone(),
                )
            }
        })
    }

    /// The lanes whose mask bit is set.
    pub(crate) fn pack(&self, mask: &BitSlice) -> Result<LVal> {
        Ok(match self {
            LVal::Scalar(c) => LVal::Scalar(c.pack(mask)?),
            LVal::Tuple(vs) => LVal::Tuple(vs.iter().map(|v| v.pack(mask)).collect::<Result<_>>()?),
            LVal::Array(v, e) => LVal::Array(
                v.pack(mask.iter().by_vals()).map_err(RtError::from)?,
                e.clone(),
            ),
        })
    }

    /// Merges by selector: lane `i` takes the next lane of `t` when `sel[i]`, else of `f`.
    pub(crate) fn combine(sel: &BitSlice, f: &LVal, t: &LVal) -> Result<LVal> {
        Ok(match (f, t) {
            (LVal::Scalar(a), LVal::Scalar(b)) => LVal::Scalar(LaneColumn::combine(sel, a, b)?),
            (LVal::Tuple(a), LVal::Tuple(b)) => LVal::Tuple(
                a.iter()
                    .zip(b)
                    .map(|(x, y)| LVal::combine(sel, x, y))
                    .collect::<Result<_>>()?,
            ),
            (LVal::Array(va, ea), LVal::Array(vb, eb)) => {
                // Both descriptors address one block each: b's physical segments move behind
                // a's, and b's block behind a's unless the two share their block (slices, classes
                // of one partition, replicated values), which is then kept without a copy.
                let shared = Arc::ptr_eq(ea, eb);
                let (pa, off) = (va.ssegd().len(), if shared { 0 } else { ea.lanes() });
                let (mut ia, mut ib) = (0, 0);
                let mut ids = Vec::with_capacity(sel.len());
                for pick in sel.iter().by_vals() {
                    if pick {
                        ids.push(pa + vb.vsegid(ib));
                        ib += 1;
                    } else {
                        ids.push(va.vsegid(ia));
                        ia += 1;
                    }
                }
                let (sa, sb) = (va.ssegd(), vb.ssegd());
                let starts: Vec<usize> = sa
                    .starts()
                    .iter()
                    .copied()
                    .chain(sb.starts().iter().map(|s| s + off))
                    .collect();
                let lens: Vec<usize> = sa
                    .segd()
                    .lengths()
                    .iter()
                    .chain(sb.segd().lengths().iter())
                    .copied()
                    .collect();
                let elems = if shared {
                    ea.clone()
                } else {
                    Arc::new(LVal::append(ea, eb)?)
                };
                let ssegd =
                    SSegd::try_in_block(starts, lens, elems.lanes()).map_err(RtError::from)?;
                LVal::Array(VSegd::try_new(ids, ssegd).map_err(RtError::from)?, elems)
            }
            _ => return Err(internal("combine of values of different shapes".into())),
        })
    }

    /// The lanes of `a` followed by those of `b` (copies scalar leaves of the physical data).
    pub(crate) fn append(a: &LVal, b: &LVal) -> Result<LVal> {
        Ok(match (a, b) {
            (LVal::Scalar(x), LVal::Scalar(y)) => LVal::Scalar(LaneColumn::append(x, y)?),
            (LVal::Tuple(x), LVal::Tuple(y)) => LVal::Tuple(
                x.iter()
                    .zip(y)
                    .map(|(p, q)| LVal::append(p, q))
                    .collect::<Result<_>>()?,
            ),
            (LVal::Array(..), LVal::Array(..)) => {
                let n = a.lanes();
                let sel: BitVec = (0..n + b.lanes()).map(|i| i >= n).collect();
                LVal::combine(&sel, a, b)?
            }
            _ => return Err(internal("append of values of different shapes".into())),
        })
    }

    /// Lane `i` repeated `segd.length(i)` times (arrays: descriptor entries only).
    pub(crate) fn replicate_s(&self, segd: &Segd) -> Result<LVal> {
        Ok(match self {
            LVal::Scalar(c) => LVal::Scalar(c.replicate_s(segd)?),
            LVal::Tuple(vs) => LVal::Tuple(
                vs.iter()
                    .map(|v| v.replicate_s(segd))
                    .collect::<Result<_>>()?,
            ),
            // One lane (a free array entering a top-level map): its segment repeated, which
            // the descriptor keeps in O(1) for a manifest or cyclic one.
            LVal::Array(v, e) if v.len() == 1 && segd.len() == 1 => LVal::Array(
                v.replicate(segd.length(0)).map_err(RtError::from)?,
                e.clone(),
            ),
            LVal::Array(v, e) => LVal::Array(
                v.replicate_s(&segd.lengths()).map_err(RtError::from)?,
                e.clone(),
            ),
        })
    }

    /// The lanes of the given ranges, in order (arrays: descriptor entries only).
    pub(crate) fn ranges(&self, plan: &[PSeg]) -> Result<LVal> {
        let n = self.lanes();
        let mut next = 0;
        let contiguous = plan.iter().all(|p| {
            let ok = p.start == next || p.len == 0;
            next = if p.len == 0 { next } else { p.start + p.len };
            ok
        }) && next == n;
        if contiguous {
            return Ok(self.clone());
        }
        Ok(match self {
            LVal::Scalar(c) => LVal::Scalar(c.extracts(plan)?),
            LVal::Tuple(vs) => {
                LVal::Tuple(vs.iter().map(|v| v.ranges(plan)).collect::<Result<_>>()?)
            }
            LVal::Array(..) => {
                let idx: Vec<usize> = plan.iter().flat_map(|p| p.start..p.start + p.len).collect();
                self.gather(&idx)?
            }
        })
    }

    /// The elements of each lane's array, in lane order, with their contiguous descriptor.
    pub(crate) fn elements(&self) -> Result<(Segd, LVal)> {
        let (v, e) = self.array()?;
        // Already the elements in lane order, as one block (O(1) to tell for a descriptor
        // promoted from a contiguous one): no plan, no new descriptor, no copy.
        if let Some(segd) = v.as_contiguous()
            && e.lanes() == segd.elements()
        {
            return Ok((segd.clone(), (**e).clone()));
        }
        let (segd, plan) = v.demote().map_err(RtError::from)?;
        Ok((segd, e.ranges(&plan)?))
    }

    /// Lifted values from one value per lane.
    pub(crate) fn from_values(vals: &[Value], t: &Type) -> Result<LVal> {
        Ok(match t {
            Type::I64 => LVal::Scalar(LaneColumn::I64(adopt(
                vals.iter()
                    .map(|v| match v {
                        Value::I64(x) => Ok(*x),
                        _ => Err(bad_input(t)),
                    })
                    .collect::<Result<_>>()?,
            ))),
            Type::F64 => LVal::Scalar(LaneColumn::F64(adopt(
                vals.iter()
                    .map(|v| match v {
                        Value::F64(x) => Ok(*x),
                        _ => Err(bad_input(t)),
                    })
                    .collect::<Result<_>>()?,
            ))),
            Type::Bool => LVal::Scalar(LaneColumn::Bool(adopt(
                vals.iter()
                    .map(|v| match v {
                        Value::Bool(x) => Ok(*x),
                        _ => Err(bad_input(t)),
                    })
                    .collect::<Result<_>>()?,
            ))),
            Type::Tuple(ts) => {
                let mut fields = Vec::with_capacity(ts.len());
                for (k, tk) in ts.iter().enumerate() {
                    let col: Vec<Value> = vals
                        .iter()
                        .map(|v| match v {
                            Value::Tuple(xs) if xs.len() == ts.len() => Ok(xs[k].clone()),
                            _ => Err(bad_input(t)),
                        })
                        .collect::<Result<_>>()?;
                    fields.push(LVal::from_values(&col, tk)?);
                }
                LVal::Tuple(fields)
            }
            Type::Array(et) => {
                let mut lens = Vec::with_capacity(vals.len());
                let mut all = Vec::new();
                for v in vals {
                    let xs = v.as_array().ok_or_else(|| bad_input(t))?;
                    lens.push(xs.len());
                    all.extend(xs.iter().cloned());
                }
                let segd = Segd::from_lengths(lens).map_err(RtError::from)?;
                LVal::Array(vsegd_of_segd(&segd), Arc::new(LVal::from_values(&all, et)?))
            }
        })
    }

    /// One value per lane.
    pub(crate) fn to_values(&self) -> Vec<Value> {
        match self {
            LVal::Scalar(c) => (0..c.len()).map(|i| Value::from(c.get(i))).collect(),
            LVal::Tuple(vs) => {
                let cols: Vec<Vec<Value>> = vs.iter().map(LVal::to_values).collect();
                (0..self.lanes())
                    .map(|i| Value::Tuple(cols.iter().map(|c| c[i].clone()).collect()))
                    .collect()
            }
            LVal::Array(v, e) => {
                let elems = e.to_values();
                v.iter()
                    .map(|p| Value::array(elems[p.start..p.start + p.len].to_vec()))
                    .collect()
            }
        }
    }
}

fn bad_input(t: &Type) -> Error {
    Error::Input {
        detail: format!("a value is not of type {t}"),
    }
}

/// The one value every lane of `c` holds (floats compared bit for bit); `None` when they differ
/// or there is no lane.
pub(crate) fn uniform(c: &LaneColumn) -> Option<Scalar> {
    let same = match c {
        LaneColumn::I64(v) => v.first().is_some_and(|a| v.iter().all(|b| a == b)),
        LaneColumn::F64(v) => {
            (v.first()).is_some_and(|a| v.iter().all(|b| a.to_bits() == b.to_bits()))
        }
        LaneColumn::Bool(v) => v.first().is_some_and(|a| v.iter().all(|b| a == b)),
    };
    same.then(|| c.get(0))
}
