//! The class kernel (partition-reduce and the "mega" step, [`crate::ir::Classes`]): a
//! partition fused with the reductions and packed arrays of its classes, in one sequential
//! pass over the classified array. Each output of the form has a sink (a fold by class over the
//! class's packed elements, leaf by leaf, or the class's packed values).
//!
//! Cost: one pass over the elements computing every output's value on every element (the
//! divergence the cost model weighs before fusion takes the form, `crate::fuse`), one buffer
//! of [`flatland_runtime::assoc::LEAF`] elements per reduction (the runtime's [`RunningFold`]), the
//! packed arrays written once.

use super::block::{BlockColumn, BlockPlan, arrays_of, sequential_blocks};
use super::lambda::{LambdaCompiler, class_trees};
use super::operators::{ColumnScalar, accepts, identity, with_op};
use crate::env::Env;
use crate::ir::{BinaryOp, Classes, Scalar, ScalarType};
use crate::lval::{LVal, LaneColumn, adopt};
use flatland_runtime::assoc::RunningFold;
use flatland_runtime::expr::native::Kernels;
use flatland_runtime::fused;
use flatland_runtime::stats;
use flatland_segd::Segd;

/// A typed buffer of one output of the class kernel.
enum ClassBuffer {
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
}

impl ClassBuffer {
    fn new(t: ScalarType) -> ClassBuffer {
        match t {
            ScalarType::I64 => ClassBuffer::I64(Vec::new()),
            ScalarType::F64 => ClassBuffer::F64(Vec::new()),
            ScalarType::Bool => ClassBuffer::Bool(Vec::new()),
        }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            ClassBuffer::I64(v) => v.len(),
            ClassBuffer::F64(v) => v.len(),
            ClassBuffer::Bool(v) => v.len(),
        }
    }

    /// Appends `col[i]` for each `i` of `idx` (the column has the buffer's type, checked when
    /// the kernel was built).
    fn extend_from(&mut self, col: &BlockColumn<'_>, idx: &[u32]) {
        match (self, col) {
            (ClassBuffer::I64(b), BlockColumn::I64(c)) => {
                b.extend(idx.iter().map(|&i| c[i as usize]));
            }
            (ClassBuffer::F64(b), BlockColumn::F64(c)) => {
                b.extend(idx.iter().map(|&i| c[i as usize]));
            }
            (ClassBuffer::Bool(b), BlockColumn::Bool(c)) => {
                b.extend(idx.iter().map(|&i| c[i as usize]));
            }
            _ => unreachable!("column types checked when the kernel was built"),
        }
    }

    fn into_col(self) -> LaneColumn {
        match self {
            ClassBuffer::I64(v) => LaneColumn::I64(adopt(v)),
            ClassBuffer::F64(v) => LaneColumn::F64(adopt(v)),
            ClassBuffer::Bool(v) => LaneColumn::Bool(adopt(v)),
        }
    }
}

/// A reduction by class on values of type `T`: the runtime's running canonical fold of the
/// current lane's packed values (the bits of the unfused reduce of the packed class), and one
/// result per finished lane.
struct ClassFold<T> {
    running: RunningFold<T>,
    done: Vec<T>,
}

/// A [`ClassFold`] of one of the column types.
enum TypedFold {
    I64(ClassFold<i64>),
    F64(ClassFold<f64>),
    Bool(ClassFold<bool>),
}

/// The column types a [`TypedFold`] holds, for the typed steps [`with_op!`] instantiates.
trait FoldScalar: ColumnScalar {
    fn fold(f: &mut TypedFold) -> Option<&mut ClassFold<Self>>;
}

macro_rules! fold_scalar {
    ($t:ty, $ctor:ident) => {
        impl FoldScalar for $t {
            fn fold(f: &mut TypedFold) -> Option<&mut ClassFold<$t>> {
                match f {
                    TypedFold::$ctor(f) => Some(f),
                    _ => None,
                }
            }
        }
    };
}

fold_scalar!(i64, I64);

fold_scalar!(f64, F64);

fold_scalar!(bool, Bool);

impl TypedFold {
    fn new(z: Scalar) -> TypedFold {
        fn of<T: Clone>(z: T) -> ClassFold<T> {
            ClassFold {
                running: RunningFold::new(z),
                done: Vec::new(),
            }
        }
        match z {
            Scalar::I64(z) => TypedFold::I64(of(z)),
            Scalar::F64(z) => TypedFold::F64(of(z)),
            Scalar::Bool(z) => TypedFold::Bool(of(z)),
        }
    }

    fn ty(&self) -> ScalarType {
        match self {
            TypedFold::I64(_) => ScalarType::I64,
            TypedFold::F64(_) => ScalarType::F64,
            TypedFold::Bool(_) => ScalarType::Bool,
        }
    }

    fn into_col(self) -> LaneColumn {
        match self {
            TypedFold::I64(f) => LaneColumn::I64(adopt(f.done)),
            TypedFold::F64(f) => LaneColumn::F64(adopt(f.done)),
            TypedFold::Bool(f) => LaneColumn::Bool(adopt(f.done)),
        }
    }
}

/// The state of one output of the class kernel.
enum ClassOutput {
    /// A reduction by class with a built-in operator.
    Fold { op: BinaryOp, fold: TypedFold },
    /// The packed values of the class, and each lane's count.
    Keep {
        values: ClassBuffer,
        lens: Vec<usize>,
    },
}

impl ClassOutput {
    /// Takes `col[i]` for each `i` of `idx`, in order (the column has the output's type,
    /// checked when the kernel was built).
    pub(super) fn extend(&mut self, col: &BlockColumn<'_>, idx: &[u32]) {
        match self {
            ClassOutput::Fold { op, fold } => {
                let mut typed = || {
                    with_op!(*op, fold.ty(), |f: T| {
                        let (fold, c) = (T::fold(fold)?, T::slice(col)?);
                        fold.running.extend(idx.iter().map(|&i| c[i as usize]), f);
                        Some(())
                    })
                };
                typed().expect("column types checked when the kernel was built");
            }
            ClassOutput::Keep { values, .. } => values.extend_from(col, idx),
        }
    }

    /// Ends the current lane.
    fn finish_lane(&mut self, start: &mut usize) {
        match self {
            ClassOutput::Fold { op, fold } => {
                let mut typed = || {
                    with_op!(*op, fold.ty(), |f: T| {
                        let fold = T::fold(fold)?;
                        let r = fold.running.finish(f);
                        fold.done.push(r);
                        Some(())
                    })
                };
                typed().expect("operator and type checked when the kernel was built");
            }
            ClassOutput::Keep { values, lens } => {
                lens.push(values.len() - *start);
                *start = values.len();
            }
        }
    }

    fn into_lval(self) -> LVal {
        match self {
            ClassOutput::Fold { fold, .. } => LVal::Scalar(fold.into_col()),
            ClassOutput::Keep { values, lens } => {
                let n = values.len();
                stats::record_written(n as u64);
                stats::record_bytes(match &values {
                    ClassBuffer::Bool(_) => n,
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
    let mut c = LambdaCompiler::new(env, Vec::new(), vec![descs[0].1], kernels);
    let (trees, tree_of) = class_trees(&mut c, form)?;
    let (plan, pos) = BlockPlan::new(&c, &trees, &descs, env)?;
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
                ClassOutput::Fold {
                    op,
                    fold: TypedFold::new(z),
                }
            }
            None => ClassOutput::Keep {
                values: ClassBuffer::new(t),
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
        let BlockColumn::I64(keys) = &cols[pos[0]] else {
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
        sinks.into_iter().map(ClassOutput::into_lval).collect(),
    ))
}
