//! The register machine: evaluates a [`CompiledExpr`] block by block.
//!
//! Each worker owns a register file of `registers × BLOCK` elements (a few KiB per register,
//! reused for every block it evaluates); inputs are read in place, and the only allocation
//! proportional to the length is the output column. Large evaluations run rayon tasks of whole
//! blocks; small ones run on the calling thread.
//!
//! Errors are deterministic: the machine reports the lowest failing lane (and, for that lane, the
//! first failing operation in evaluation order, as a lane-by-lane interpreter would), whatever
//! the schedule. A block that fails at lane `l` is re-run on its lanes before `l` until no earlier
//! failure remains; a task skips the blocks after a failure already found at a lower lane.

use super::BLOCK;
use super::column::{Column, ColumnMut, ColumnRef};
use super::kernel;
use super::native;
use super::op::{BinaryOp, Scalar, ScalarType, TernaryOp, UnaryOp};
use super::program::{CompiledExpr, Dst, Instr, Parallelism, Src, type_index};
use crate::cost::ElemCost;
use crate::{Error, Result, sched, stats};
use bitvec::vec::BitVec;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

const WORD_BITS: usize = usize::BITS as usize;

// Tasks start on leaf boundaries (the scheduler) or block boundaries (`PerBlock`): both must be
// whole words of a bit-packed output.
const _: () = assert!(crate::assoc::LEAF % BLOCK == 0 && BLOCK % WORD_BITS == 0);

/// A failing lane found by the machine: an `i64` division by zero, or a ternary operator's
/// operands outside its domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fail {
    op: &'static str,
    lane: usize,
    ternary: Option<TernaryOp>,
}

impl Fail {
    fn error(self) -> Error {
        match self.ternary {
            Some(t) => t.failure(self.lane),
            None => Error::DivisionByZero {
                op: self.op,
                lane: self.lane,
            },
        }
    }
}

/// One worker's registers.
#[derive(Default)]
struct Regs {
    i: Vec<Vec<i64>>,
    f: Vec<Vec<f64>>,
    b: Vec<Vec<bool>>,
}

/// The element types registers can hold.
trait Lane: Copy + Default + Send + Sync + 'static {
    fn pool(r: &Regs) -> &Vec<Vec<Self>>;
    fn pool_mut(r: &mut Regs) -> &mut Vec<Vec<Self>>;
    /// Input column `k` over the block.
    fn view<'a>(blk: &Block<'a>, k: usize) -> &'a [Self];
    /// The output column, for instructions that write it directly (`i64` and `f64` only).
    fn out<'s>(sink: &'s mut Sink<'_>) -> &'s mut [Self];
}

impl Lane for i64 {
    fn out<'s>(sink: &'s mut Sink<'_>) -> &'s mut [Self] {
        match sink {
            Sink::I64(x) => x,
            _ => unreachable!("internal error: direct output of the wrong type"),
        }
    }
    fn pool(r: &Regs) -> &Vec<Vec<Self>> {
        &r.i
    }
    fn pool_mut(r: &mut Regs) -> &mut Vec<Vec<Self>> {
        &mut r.i
    }
    fn view<'a>(blk: &Block<'a>, k: usize) -> &'a [Self] {
        match blk.inputs[k] {
            ColumnRef::I64(x) => &x[blk.first..blk.first + blk.len],
            _ => unreachable!("internal error: input type checked at entry"),
        }
    }
}

impl Lane for f64 {
    fn out<'s>(sink: &'s mut Sink<'_>) -> &'s mut [Self] {
        match sink {
            Sink::F64(x) => x,
            _ => unreachable!("internal error: direct output of the wrong type"),
        }
    }
    fn pool(r: &Regs) -> &Vec<Vec<Self>> {
        &r.f
    }
    fn pool_mut(r: &mut Regs) -> &mut Vec<Vec<Self>> {
        &mut r.f
    }
    fn view<'a>(blk: &Block<'a>, k: usize) -> &'a [Self] {
        match blk.inputs[k] {
            ColumnRef::F64(x) => &x[blk.first..blk.first + blk.len],
            _ => unreachable!("internal error: input type checked at entry"),
        }
    }
}

impl Lane for bool {
    fn out<'s>(_: &'s mut Sink<'_>) -> &'s mut [Self] {
        unreachable!("internal error: bool results are never written directly")
    }
    fn pool(r: &Regs) -> &Vec<Vec<Self>> {
        &r.b
    }
    fn pool_mut(r: &mut Regs) -> &mut Vec<Vec<Self>> {
        &mut r.b
    }
    fn view<'a>(blk: &Block<'a>, k: usize) -> &'a [Self] {
        match blk.inputs[k] {
            ColumnRef::Bool(x) => &x[blk.first..blk.first + blk.len],
            ColumnRef::Bits(_) => &blk.staging[k][..blk.len],
            _ => unreachable!("internal error: input type checked at entry"),
        }
    }
}

/// The lanes `first..first + len` of the inputs (bit-packed inputs unpacked into `staging`).
#[derive(Clone, Copy)]
struct Block<'a> {
    inputs: &'a [ColumnRef<'a>],
    staging: &'a [Vec<bool>],
    first: usize,
    len: usize,
}

/// A worker's state: registers, and staging buffers for bit-packed `bool` inputs.
struct Frame {
    regs: Regs,
    staging: Vec<Vec<bool>>,
}

impl Frame {
    /// A frame for blocks of at most `cap` lanes (`BLOCK`, or less for a short evaluation).
    fn new(p: &CompiledExpr, inputs: &[ColumnRef<'_>], cap: usize) -> Frame {
        let mut regs = Regs {
            i: vec![Vec::new(); p.regs[type_index(ScalarType::I64)] as usize],
            f: vec![Vec::new(); p.regs[type_index(ScalarType::F64)] as usize],
            b: vec![Vec::new(); p.regs[type_index(ScalarType::Bool)] as usize],
        };
        regs.i.iter_mut().for_each(|r| r.resize(cap, 0));
        regs.f.iter_mut().for_each(|r| r.resize(cap, 0.0));
        regs.b.iter_mut().for_each(|r| r.resize(cap, false));
        for &(r, c) in &p.consts {
            let r = r as usize;
            match c {
                Scalar::I64(x) => regs.i[r].fill(x),
                Scalar::F64(x) => regs.f[r].fill(x),
                Scalar::Bool(x) => regs.b[r].fill(x),
            }
        }
        let staging = inputs
            .iter()
            .map(|c| {
                if matches!(c, ColumnRef::Bits(_)) {
                    vec![false; cap]
                } else {
                    Vec::new()
                }
            })
            .collect();
        Frame { regs, staging }
    }
}

/// Where a task writes its part of the output.
enum Sink<'a> {
    I64(&'a mut [i64]),
    F64(&'a mut [f64]),
    Bool(&'a mut [bool]),
    /// Bit-packed `bool`, `WORD_BITS` lanes per word; tasks start on word boundaries.
    Words(&'a mut [usize]),
}

impl<'a> Sink<'a> {
    /// Cuts the sink into the given consecutive lane ranges (each starting on a multiple of
    /// `WORD_BITS`).
    fn split(self, ranges: &[Range<usize>]) -> Vec<Sink<'a>> {
        fn cut<T>(mut x: &mut [T], lens: impl Iterator<Item = usize>) -> Vec<&mut [T]> {
            lens.map(|n| {
                let rest = std::mem::take(&mut x);
                let (head, tail) = rest.split_at_mut(n.min(rest.len()));
                x = tail;
                head
            })
            .collect()
        }
        let lens = ranges.iter().map(ExactSizeIterator::len);
        match self {
            Sink::I64(x) => cut(x, lens).into_iter().map(Sink::I64).collect(),
            Sink::F64(x) => cut(x, lens).into_iter().map(Sink::F64).collect(),
            Sink::Bool(x) => cut(x, lens).into_iter().map(Sink::Bool).collect(),
            Sink::Words(x) => cut(x, lens.map(|n| n.div_ceil(WORD_BITS)))
                .into_iter()
                .map(Sink::Words)
                .collect(),
        }
    }
}

fn src<'a, T: Lane>(regs: &'a Regs, blk: &Block<'a>, s: Src, len: usize) -> &'a [T] {
    match s {
        Src::Reg(r) => &T::pool(regs)[r as usize][..len],
        Src::Input(k) => T::view(blk, k as usize),
    }
}

/// Runs `f` on the destination block (a register taken out of its pool for the duration, or the
/// output block) and the remaining registers.
fn with_dst<T: Lane, R>(
    regs: &mut Regs,
    out: &mut Sink<'_>,
    off: usize,
    d: Dst,
    len: usize,
    f: impl FnOnce(&mut [T], &Regs) -> R,
) -> R {
    match d {
        Dst::Reg(r) => {
            let mut buf = std::mem::take(&mut T::pool_mut(regs)[r as usize]);
            let res = f(&mut buf[..len], regs);
            T::pool_mut(regs)[r as usize] = buf;
            res
        }
        Dst::Out => {
            let slice = T::out(out);
            f(&mut slice[off..off + len], regs)
        }
    }
}

impl CompiledExpr {
    /// Checks the inputs against the compiled signature and `len`.
    fn check_inputs(&self, inputs: &[ColumnRef<'_>], len: usize) -> Result<()> {
        if inputs.len() != self.inputs.len() {
            return Err(Error::Invalid {
                op: "expr",
                detail: format!(
                    "program compiled for {} inputs, given {}",
                    self.inputs.len(),
                    inputs.len()
                ),
            });
        }
        for (k, (c, &t)) in inputs.iter().zip(&self.inputs).enumerate() {
            if c.ty() != t {
                return Err(Error::Invalid {
                    op: "expr",
                    detail: format!("input {k}: expected {t}, found {}", c.ty()),
                });
            }
            if c.len() != len {
                return Err(Error::LengthMismatch {
                    op: "expr",
                    expected: len,
                    found: c.len(),
                });
            }
        }
        Ok(())
    }

    /// Evaluates the program over `len` lanes; every input column must have `len` elements.
    /// Allocates the output column and nothing else proportional to `len`.
    ///
    /// # Errors
    /// [`Error::Invalid`] for the wrong number or types of inputs, [`Error::LengthMismatch`] for
    /// an input whose length is not `len`, [`Error::DivisionByZero`] naming the operation and the
    /// lowest failing lane.
    ///
    /// ```
    /// use flatland_runtime::{Error, expr::{ColumnRef, ColumnExpr, CompiledExpr, ScalarType}};
    /// let e = ColumnExpr::input(0) / ColumnExpr::input(1);
    /// let p = CompiledExpr::compile(&e, &[ScalarType::I64; 2]).unwrap();
    /// let out = p.eval(&[ColumnRef::I64(&[7, -7]), ColumnRef::I64(&[2, 2])], 2).unwrap();
    /// assert_eq!(out.as_i64().unwrap(), &[3, -3]);
    /// let err = p.eval(&[ColumnRef::I64(&[1, 2, 3]), ColumnRef::I64(&[1, 0, 0])], 3);
    /// assert_eq!(err, Err(Error::DivisionByZero { op: "div", lane: 1 }));
    /// ```
    pub fn eval(&self, inputs: &[ColumnRef<'_>], len: usize) -> Result<Column> {
        self.check_inputs(inputs, len)?;
        self.record(len);
        Ok(match self.output {
            ScalarType::I64 => {
                stats::record_alloc::<i64>(len);
                let mut out = crate::spare::vec_default(len);
                self.run(inputs, len, Sink::I64(&mut out))?;
                Column::I64(out)
            }
            ScalarType::F64 => {
                stats::record_alloc::<f64>(len);
                let mut out = crate::spare::vec_default(len);
                self.run(inputs, len, Sink::F64(&mut out))?;
                Column::F64(out)
            }
            ScalarType::Bool => {
                let words = len.div_ceil(WORD_BITS);
                stats::record_alloc::<usize>(words);
                let mut out = crate::spare::vec_default(words);
                self.run(inputs, len, Sink::Words(&mut out))?;
                let mut bits = BitVec::from_vec(out);
                bits.truncate(len);
                Column::Bool(bits)
            }
        })
    }

    /// Evaluates the program into `out` (its length is the number of lanes); allocates nothing
    /// proportional to the length. On error, `out` holds unspecified values.
    ///
    /// # Errors
    /// As [`CompiledExpr::eval`], and [`Error::Invalid`] if `out` is not of the output type.
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnMut, ColumnRef, ColumnExpr, CompiledExpr, ScalarType};
    /// let p = CompiledExpr::compile(&ColumnExpr::input(0).gt(ColumnExpr::constant(0.0)), &[ScalarType::F64]).unwrap();
    /// let mut out = [false; 3];
    /// p.eval_into(&[ColumnRef::F64(&[1.0, -1.0, f64::NAN])], ColumnMut::Bool(&mut out)).unwrap();
    /// assert_eq!(out, [true, false, false]);
    /// ```
    pub fn eval_into(&self, inputs: &[ColumnRef<'_>], out: ColumnMut<'_>) -> Result<()> {
        let len = out.len();
        if out.ty() != self.output {
            return Err(Error::Invalid {
                op: "expr",
                detail: format!(
                    "output column of type {}, program yields {}",
                    out.ty(),
                    self.output
                ),
            });
        }
        self.check_inputs(inputs, len)?;
        self.record(len);
        let sink = match out {
            ColumnMut::I64(x) => Sink::I64(x),
            ColumnMut::F64(x) => Sink::F64(x),
            ColumnMut::Bool(x) => Sink::Bool(x),
        };
        self.run(inputs, len, sink)
    }

    fn record(&self, len: usize) {
        stats::record_read((len * self.used_inputs.len()) as u64);
        stats::record_written(len as u64);
    }

    /// The lane ranges of the tasks (one range: sequential on the calling thread).
    /// With the clock of the program's run where the cost model chose them ([`sched::audit`]).
    fn ranges(&self, len: usize) -> (Vec<Range<usize>>, sched::audit::Timing) {
        match self.parallelism {
            Parallelism::Sequential => (
                std::iter::once(0..len).collect(),
                sched::audit::Timing::off(),
            ),
            Parallelism::PerBlock => (
                (0..len.div_ceil(BLOCK).max(1))
                    .map(|b| b * BLOCK..((b + 1) * BLOCK).min(len))
                    .collect(),
                sched::audit::Timing::off(),
            ),
            Parallelism::Auto => {
                let (s, timing) =
                    sched::plan_op(sched::Op::new("expr::program"), len, self.elem_cost());
                (s.element_ranges().collect(), timing)
            }
        }
    }

    /// The work per lane for the cost model: one simple operation per instruction (plus the
    /// final copy when the result is not written directly), one transfer per input read and one
    /// for the output.
    pub(super) fn elem_cost(&self) -> ElemCost {
        let ops = self.instrs.len() + usize::from(!self.direct);
        ElemCost::new(ops as f64, (self.used_inputs.len() + 1) as f64)
    }

    fn run(&self, inputs: &[ColumnRef<'_>], len: usize, sink: Sink<'_>) -> Result<()> {
        let to_error = Fail::error;
        let (ranges, _timing) = self.ranges(len);
        let lowest = AtomicUsize::new(usize::MAX);
        if ranges.len() <= 1 {
            let mut sink = sink;
            if self.run_native(inputs, 0..len, &mut sink) {
                return Ok(());
            }
            let mut frame = Frame::new(self, inputs, len.min(BLOCK));
            return self
                .run_task(&mut frame, inputs, 0, len, sink, &lowest)
                .map_err(to_error);
        }
        let parts: Vec<(Range<usize>, Sink<'_>)> =
            ranges.iter().cloned().zip(sink.split(&ranges)).collect();
        let results = sched::run_parts(parts, |_, (r, mut piece)| {
            if self.run_native(inputs, r.clone(), &mut piece) {
                return Ok(());
            }
            let mut frame = Frame::new(self, inputs, r.len().min(BLOCK));
            let res = self.run_task(&mut frame, inputs, r.start, r.end, piece, &lowest);
            if let Err(f) = res {
                lowest.fetch_min(f.lane, Relaxed);
            }
            res
        });
        match results
            .into_iter()
            .filter_map(Result::err)
            .min_by_key(|f| f.lane)
        {
            Some(f) => Err(to_error(f)),
            None => Ok(()),
        }
    }

    /// Evaluates `lanes` into `sink` (which starts at the first lane) with the native kernel;
    /// `false` if there is none or a lane failed (the machine then evaluates the lanes).
    fn run_native(
        &self,
        inputs: &[ColumnRef<'_>],
        lanes: Range<usize>,
        sink: &mut Sink<'_>,
    ) -> bool {
        let n = lanes.len() as u64;
        let done = self
            .native
            .filter(|_| native::enabled())
            .is_some_and(|kernel| {
                let first = lanes.start;
                let out = match sink {
                    Sink::I64(x) => native::Out::I64(first, x),
                    Sink::F64(x) => native::Out::F64(first, x),
                    Sink::Bool(x) => native::Out::Bool(first, x),
                    Sink::Words(x) => native::Out::Words(first, lanes.len(), x),
                };
                kernel(native::Inputs::new(inputs), out)
            });
        if done {
            stats::record_lanes_native(n);
        } else {
            stats::record_lanes_interpreted(n);
        }
        done
    }

    /// Evaluates lanes `lo..hi` block by block into `sink` (which starts at lane `lo`); stops
    /// early when a failure below the next block is already known.
    fn run_task(
        &self,
        frame: &mut Frame,
        inputs: &[ColumnRef<'_>],
        lo: usize,
        hi: usize,
        mut sink: Sink<'_>,
        lowest: &AtomicUsize,
    ) -> Result<(), Fail> {
        let mut start = lo;
        while start < hi {
            if lowest.load(Relaxed) < start {
                return Ok(());
            }
            let n = BLOCK.min(hi - start);
            if let Err(mut f) = self.run_block(frame, inputs, start, n, &mut sink, start - lo) {
                // Find the lowest failing lane of this block: re-run the lanes before it.
                while let Err(g) =
                    self.run_block(frame, inputs, start, f.lane - start, &mut sink, start - lo)
                {
                    f = g;
                }
                return Err(f);
            }
            start += n;
        }
        Ok(())
    }

    /// Evaluates lanes `first..first + len` (`len <= BLOCK`) into `sink` at offset `off`.
    fn run_block(
        &self,
        frame: &mut Frame,
        inputs: &[ColumnRef<'_>],
        first: usize,
        len: usize,
        sink: &mut Sink<'_>,
        off: usize,
    ) -> Result<(), Fail> {
        if len == 0 {
            return Ok(());
        }
        let Frame { regs, staging } = frame;
        for &k in &self.used_inputs {
            if let ColumnRef::Bits(bits) = inputs[k as usize] {
                let st = &mut staging[k as usize][..len];
                for (d, b) in st.iter_mut().zip(bits[first..first + len].iter().by_vals()) {
                    *d = b;
                }
            }
        }
        let blk = Block {
            inputs,
            staging,
            first,
            len,
        };
        for instr in &self.instrs {
            exec(instr, regs, &blk, sink, off, first, len)?;
        }
        if !self.direct {
            finish(self.output, self.result, regs, &blk, sink, off, len);
        }
        Ok(())
    }
}

/// Executes one instruction on one block.
fn exec(
    instr: &Instr,
    regs: &mut Regs,
    blk: &Block<'_>,
    sink: &mut Sink<'_>,
    off: usize,
    first: usize,
    len: usize,
) -> Result<(), Fail> {
    use ScalarType::{Bool, F64, I64};
    match *instr {
        Instr::Iota { dst, start, step } => {
            with_dst(regs, sink, off, dst, len, |o: &mut [i64], _| {
                kernel::iota(o, start, step, first);
            });
        }
        Instr::Binary {
            op: BinaryOp::Powi,
            dst,
            a,
            b,
            ..
        } => with_dst(regs, sink, off, dst, len, |o: &mut [f64], r| {
            kernel::powi(o, src(r, blk, a, len), src(r, blk, b, len));
        }),
        Instr::Binary { op, ty, dst, a, b } => {
            let comparison = op.kind() == super::op::OpKind::Comparison;
            match ty {
                I64 if comparison => with_dst(regs, sink, off, dst, len, |o: &mut [bool], r| {
                    kernel::cmp::<i64>(op, o, src(r, blk, a, len), src(r, blk, b, len));
                }),
                F64 if comparison => with_dst(regs, sink, off, dst, len, |o: &mut [bool], r| {
                    kernel::cmp::<f64>(op, o, src(r, blk, a, len), src(r, blk, b, len));
                }),
                Bool if comparison => with_dst(regs, sink, off, dst, len, |o: &mut [bool], r| {
                    kernel::cmp::<bool>(op, o, src(r, blk, a, len), src(r, blk, b, len));
                }),
                I64 => with_dst(regs, sink, off, dst, len, |o: &mut [i64], r| {
                    kernel::int(op, o, src(r, blk, a, len), src(r, blk, b, len))
                })
                .map_err(|p| Fail {
                    op: op.name(),
                    lane: first + p,
                    ternary: None,
                })?,
                F64 => with_dst(regs, sink, off, dst, len, |o: &mut [f64], r| {
                    kernel::float(op, o, src(r, blk, a, len), src(r, blk, b, len));
                }),
                Bool => with_dst(regs, sink, off, dst, len, |o: &mut [bool], r| {
                    kernel::boolean(op, o, src(r, blk, a, len), src(r, blk, b, len));
                }),
            }
        }
        Instr::Binary2 {
            op1,
            op2,
            ty,
            dst,
            a,
            b,
            c,
            swap,
        } => match ty {
            I64 => with_dst(regs, sink, off, dst, len, |o: &mut [i64], r| {
                let (a, b, c) = (
                    src(r, blk, a, len),
                    src(r, blk, b, len),
                    src(r, blk, c, len),
                );
                kernel::arith2(op1, op2, swap, o, a, b, c);
            }),
            F64 => with_dst(regs, sink, off, dst, len, |o: &mut [f64], r| {
                let (a, b, c) = (
                    src(r, blk, a, len),
                    src(r, blk, b, len),
                    src(r, blk, c, len),
                );
                kernel::arith2(op1, op2, swap, o, a, b, c);
            }),
            Bool => unreachable!("internal error: folded pair on bool"),
        },
        Instr::Unary { op, ty, dst, a } => match (op, ty) {
            (UnaryOp::Cast(F64), I64) => with_dst(regs, sink, off, dst, len, |o, r| {
                kernel::i64_to_f64(o, src(r, blk, a, len));
            }),
            (UnaryOp::Cast(Bool), I64) => with_dst(regs, sink, off, dst, len, |o, r| {
                kernel::i64_to_bool(o, src(r, blk, a, len));
            }),
            (UnaryOp::Cast(I64), F64) => with_dst(regs, sink, off, dst, len, |o, r| {
                kernel::f64_to_i64(o, src(r, blk, a, len));
            }),
            (UnaryOp::Cast(Bool), F64) => with_dst(regs, sink, off, dst, len, |o, r| {
                kernel::f64_to_bool(o, src(r, blk, a, len));
            }),
            (UnaryOp::Cast(I64), Bool) => with_dst(regs, sink, off, dst, len, |o, r| {
                kernel::bool_to_i64(o, src(r, blk, a, len));
            }),
            (UnaryOp::Cast(F64), Bool) => with_dst(regs, sink, off, dst, len, |o, r| {
                kernel::bool_to_f64(o, src(r, blk, a, len));
            }),
            (UnaryOp::IsNan | UnaryOp::IsFinite | UnaryOp::IsInfinite, F64) => {
                with_dst(regs, sink, off, dst, len, |o, r| {
                    kernel::float_test(op, o, src(r, blk, a, len));
                });
            }
            (_, I64) => with_dst(regs, sink, off, dst, len, |o, r| {
                kernel::int_unary(op, o, src(r, blk, a, len));
            }),
            (_, F64) => with_dst(regs, sink, off, dst, len, |o, r| {
                kernel::float_unary(op, o, src(r, blk, a, len));
            }),
            (_, Bool) => with_dst(regs, sink, off, dst, len, |o, r| {
                kernel::bool_unary(op, o, src(r, blk, a, len));
            }),
        },
        Instr::Ternary {
            op,
            ty,
            dst,
            a,
            b,
            c,
        } => {
            let fail = |p: usize| Fail {
                op: op.name(),
                lane: first + p,
                ternary: Some(op),
            };
            let args = (a, b, c);
            match ty {
                I64 => with_dst(regs, sink, off, dst, len, |o: &mut [i64], r| {
                    ternary_block(o, r, blk, args, |x, y, z| op.on_i64(x, y, z))
                })
                .map_err(fail)?,
                F64 => with_dst(regs, sink, off, dst, len, |o: &mut [f64], r| {
                    ternary_block(o, r, blk, args, |x, y, z| op.on_f64(x, y, z))
                })
                .map_err(fail)?,
                Bool => unreachable!("internal error: a ternary operator on bool"),
            }
        }
        Instr::Select { ty, dst, c, a, b } => match ty {
            I64 => with_dst(regs, sink, off, dst, len, |o: &mut [i64], r| {
                kernel::select(
                    o,
                    src(r, blk, c, len),
                    src(r, blk, a, len),
                    src(r, blk, b, len),
                );
            }),
            F64 => with_dst(regs, sink, off, dst, len, |o: &mut [f64], r| {
                kernel::select(
                    o,
                    src(r, blk, c, len),
                    src(r, blk, a, len),
                    src(r, blk, b, len),
                );
            }),
            Bool => with_dst(regs, sink, off, dst, len, |o: &mut [bool], r| {
                kernel::select(
                    o,
                    src(r, blk, c, len),
                    src(r, blk, a, len),
                    src(r, blk, b, len),
                );
            }),
        },
    }
    Ok(())
}

/// `o[i] = f(a[i], b[i], c[i])` over the block's operands, or the position of the first lane
/// where `f` fails.
fn ternary_block<T: Lane>(
    o: &mut [T],
    regs: &Regs,
    blk: &Block<'_>,
    (a, b, c): (Src, Src, Src),
    f: impl Fn(T, T, T) -> Option<T>,
) -> Result<(), usize> {
    let len = o.len();
    let (a, b, c) = (
        src(regs, blk, a, len),
        src(regs, blk, b, len),
        src(regs, blk, c, len),
    );
    kernel::ternary(o, a, b, c, f)
}

/// Moves the result from its register or input into the output block.
fn finish(
    ty: ScalarType,
    result: Src,
    regs: &Regs,
    blk: &Block<'_>,
    sink: &mut Sink<'_>,
    off: usize,
    len: usize,
) {
    match (ty, sink) {
        (ScalarType::I64, Sink::I64(o)) => {
            o[off..off + len].copy_from_slice(src::<i64>(regs, blk, result, len));
        }
        (ScalarType::F64, Sink::F64(o)) => {
            o[off..off + len].copy_from_slice(src::<f64>(regs, blk, result, len));
        }
        (ScalarType::Bool, Sink::Bool(o)) => {
            o[off..off + len].copy_from_slice(src::<bool>(regs, blk, result, len));
        }
        (ScalarType::Bool, Sink::Words(o)) => {
            // `off` is a multiple of BLOCK, hence of WORD_BITS.
            let bits = src::<bool>(regs, blk, result, len);
            for (w, chunk) in o[off / WORD_BITS..].iter_mut().zip(bits.chunks(WORD_BITS)) {
                *w = chunk
                    .iter()
                    .enumerate()
                    .fold(0, |acc, (j, &b)| acc | (usize::from(b) << j));
            }
        }
        _ => unreachable!("internal error: output sink of the wrong type"),
    }
}
