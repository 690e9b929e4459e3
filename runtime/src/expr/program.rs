//! Compiling an expression tree into a register-machine program: type checking, common
//! subexpressions, register allocation.
//!
//! The program is a straight-line list of [`Instr`]uctions in post-order (children before
//! parents, left before right). Every instruction works on a whole block: its operands are
//! [`Src`]s (a register, or a window of an input column read in place: loading an input copies
//! nothing) and its result goes to a [`Dst`] (a register, or the output column itself for the root
//! of an `i64` / `f64` expression). Registers are typed (one pool per [`ScalarType`]), a register
//! is freed after the last use of the value it holds and reused by later instructions, and a
//! destination never aliases its operands. Constants live in registers filled once per worker.

use super::native::{Kernel, Kernels};
use super::op::{BinaryOp, Scalar, ScalarType, TernaryOp, UnaryOp, select_type};
use super::tree::{ColumnExpr, Node};
use crate::{Error, Result};
use std::collections::HashMap;
use std::fmt;

/// Where an instruction reads an operand.
///
/// ```
/// use flatland_runtime::expr::Src;
/// assert_eq!(Src::Input(1).to_string(), "x1");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Src {
    /// A register of the instruction's operand type.
    Reg(u32),
    /// The current block of input column `k`, read in place.
    Input(u32),
}

/// Where an instruction writes its result.
///
/// ```
/// use flatland_runtime::expr::Dst;
/// assert_eq!(Dst::Out.to_string(), "out");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dst {
    /// A register of the instruction's result type.
    Reg(u32),
    /// The current block of the output column.
    Out,
}

/// One instruction of a [`CompiledExpr`]; it processes one block of lanes.
///
/// ```
/// use flatland_runtime::expr::{ColumnExpr, Instr, CompiledExpr, ScalarType};
/// let p = CompiledExpr::compile(&ColumnExpr::index(), &[]).unwrap();
/// assert!(matches!(p.instructions()[0], Instr::Iota { start: 0, step: 1, .. }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Instr {
    /// `dst[lane] = start + step * lane` (wrapping `i64`).
    Iota {
        /// The result (`i64`).
        dst: Dst,
        /// The value at lane 0.
        start: i64,
        /// The increment per lane.
        step: i64,
    },
    /// `dst = op(a)`, `a` of type `ty`.
    Unary {
        /// The operator.
        op: UnaryOp,
        /// The operand type.
        ty: ScalarType,
        /// The result.
        dst: Dst,
        /// The operand.
        a: Src,
    },
    /// `dst = op(a, b)`, operands of type `ty`.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// The operand type.
        ty: ScalarType,
        /// The result.
        dst: Dst,
        /// The left operand.
        a: Src,
        /// The right operand.
        b: Src,
    },
    /// `t = op1(a, b)`, then `dst = op2(t, c)` (or `op2(c, t)` when `swap`), all of type `ty`:
    /// two arithmetic operators in one pass over the block, each rounded as on its own. The
    /// compiler folds a [`Binary`](Instr::Binary) into its only consumer when both are `add`,
    /// `sub` or `mul` on `i64` or `f64`.
    Binary2 {
        /// The inner operator.
        op1: BinaryOp,
        /// The outer operator.
        op2: BinaryOp,
        /// The operand type.
        ty: ScalarType,
        /// The result.
        dst: Dst,
        /// The inner left operand.
        a: Src,
        /// The inner right operand.
        b: Src,
        /// The outer operand that is not the inner result.
        c: Src,
        /// Whether the inner result is the outer right operand.
        swap: bool,
    },
    /// `dst = op(a, b, c)`, operands of type `ty`.
    Ternary {
        /// The operator.
        op: TernaryOp,
        /// The operand type.
        ty: ScalarType,
        /// The result.
        dst: Dst,
        /// The first operand.
        a: Src,
        /// The second operand.
        b: Src,
        /// The third operand.
        c: Src,
    },
    /// `dst = c ? a : b`, arms of type `ty`.
    Select {
        /// The arm type.
        ty: ScalarType,
        /// The result.
        dst: Dst,
        /// The condition (`bool`).
        c: Src,
        /// Taken where `c` is true.
        a: Src,
        /// Taken where `c` is false.
        b: Src,
    },
}

/// A compiled expression: typed, register-allocated, ready to evaluate over columns.
///
/// ```
/// use flatland_runtime::expr::{ColumnRef, ColumnExpr, CompiledExpr, ScalarType};
/// let e = ColumnExpr::input(0) * ColumnExpr::input(1) + ColumnExpr::constant(1i64);
/// let p = CompiledExpr::compile(&e, &[ScalarType::I64, ScalarType::I64]).unwrap();
/// assert_eq!(p.output_type(), ScalarType::I64);
/// let out = p.eval(&[ColumnRef::I64(&[1, 2]), ColumnRef::I64(&[3, 4])], 2).unwrap();
/// assert_eq!(out.as_i64().unwrap(), &[4, 9]);
/// ```
#[derive(Clone, Debug)]
pub struct CompiledExpr {
    pub(super) instrs: Vec<Instr>,
    pub(super) inputs: Vec<ScalarType>,
    /// Input columns the program reads.
    pub(super) used_inputs: Vec<u32>,
    pub(super) output: ScalarType,
    /// Where the result is when the last instruction did not write the output directly.
    pub(super) result: Src,
    /// Whether the last instruction writes the output column directly.
    pub(super) direct: bool,
    /// Registers per type, indexed by `type_index`.
    pub(super) regs: [u32; 3],
    /// Constant registers: filled once per worker.
    pub(super) consts: Vec<(u32, Scalar)>,
    pub(super) parallelism: Parallelism,
    /// The kernel registered for this program ([`super::native`]), if any.
    pub(super) native: Option<Kernel>,
}

/// How [`CompiledExpr::eval`] spreads its blocks over threads.
///
/// ```
/// use flatland_runtime::expr::{ColumnExpr, Parallelism, CompiledExpr};
/// let p = CompiledExpr::compile(&ColumnExpr::index(), &[]).unwrap().with_parallelism(Parallelism::Sequential);
/// assert_eq!(p.parallelism(), Parallelism::Sequential);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Parallelism {
    /// As [`crate::sched::plan`] decides from the cost model: sequential for small inputs,
    /// otherwise tasks of whole leaves ([`crate::assoc::LEAF`] lanes, a multiple of
    /// [`BLOCK`](super::BLOCK)).
    #[default]
    Auto,
    /// One thread, block after block.
    Sequential,
    /// One rayon task per block, whatever the size (for tests of the parallel path).
    PerBlock,
}

pub(super) fn type_index(t: ScalarType) -> usize {
    match t {
        ScalarType::I64 => 0,
        ScalarType::F64 => 1,
        ScalarType::Bool => 2,
    }
}

/// What the compiler knows of a node once it is compiled.
#[derive(Clone, Copy)]
struct Value {
    ty: ScalarType,
    src: Src,
}

#[derive(Default)]
struct Alloc {
    free: [Vec<u32>; 3],
    count: [u32; 3],
    /// Pending uses of each register (per type), `None` for constants (never freed).
    pending: [Vec<Option<u32>>; 3],
}

impl Alloc {
    /// A free register of type `ty` that is none of `avoid`, or a new one.
    fn alloc_avoiding(&mut self, ty: ScalarType, avoid: &[Src]) -> u32 {
        let t = type_index(ty);
        if let Some(i) = self.free[t]
            .iter()
            .rposition(|&r| !avoid.contains(&Src::Reg(r)))
        {
            return self.free[t].remove(i);
        }
        let r = self.count[t];
        self.count[t] += 1;
        self.pending[t].push(Some(0));
        r
    }

    /// Pending uses of the value in `v` (`None` for inputs and constants).
    fn pending_uses(&self, v: Value) -> Option<u32> {
        match v.src {
            Src::Reg(r) => self.pending[type_index(v.ty)][r as usize],
            Src::Input(_) => None,
        }
    }

    fn alloc_const(&mut self, ty: ScalarType) -> u32 {
        let t = type_index(ty);
        let r = self.count[t];
        self.count[t] += 1;
        self.pending[t].push(None);
        r
    }

    /// `n` more uses of the value in `v` are pending.
    fn add_uses(&mut self, v: Value, n: u32) {
        if let Src::Reg(r) = v.src {
            if let Some(p) = &mut self.pending[type_index(v.ty)][r as usize] {
                *p += n;
            }
        }
    }

    /// One use of `v` has been emitted; frees its register after the last one.
    fn consume(&mut self, v: Value) {
        if let Src::Reg(r) = v.src {
            let t = type_index(v.ty);
            if let Some(p) = &mut self.pending[t][r as usize] {
                *p -= 1;
                if *p == 0 {
                    self.free[t].push(r);
                }
            }
        }
    }
}

/// The operators [`Instr::Binary2`] combines (total, on `i64` and `f64`).
pub(super) fn foldable(op: BinaryOp, ty: ScalarType) -> bool {
    matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul)
        && matches!(ty, ScalarType::I64 | ScalarType::F64)
}

/// Whether the last instruction can be folded into `op` applied to `kids`: it is a foldable
/// [`Instr::Binary`] of the same type whose result is one of the operands and used only there.
/// Returns which operand (0 or 1) and the folded instruction's operator and operands.
fn fold_candidate(
    instrs: &[Instr],
    alloc: &Alloc,
    op: BinaryOp,
    kids: &[Value],
) -> Option<(usize, BinaryOp, Src, Src)> {
    let Some(&Instr::Binary {
        op: op1,
        ty,
        dst: Dst::Reg(r),
        a,
        b,
    }) = instrs.last()
    else {
        return None;
    };
    if !foldable(op, ty) || !foldable(op1, ty) || kids.iter().any(|k| k.ty != ty) {
        return None;
    }
    let side = kids.iter().position(|k| k.src == Src::Reg(r))?;
    (alloc.pending_uses(kids[side]) == Some(1)).then_some((side, op1, a, b))
}

fn children(e: &ColumnExpr) -> Vec<&ColumnExpr> {
    match e.node() {
        Node::Input(_) | Node::Const(_) | Node::Iota { .. } => vec![],
        Node::Unary(_, a) => vec![a],
        Node::Binary(_, a, b) => vec![a, b],
        Node::Select(c, a, b) => vec![c, a, b],
        Node::Ternary(_, a, b, c) => vec![a, b, c],
    }
}

fn type_error(e: &ColumnExpr, what: &str, types: &[ScalarType]) -> Error {
    let list: Vec<&str> = types.iter().map(|t| t.name()).collect();
    Error::Invalid {
        op: "expr",
        detail: format!(
            "node `{e}`: {what} does not accept operands of type ({})",
            list.join(", ")
        ),
    }
}

impl CompiledExpr {
    /// Compiles `expr` for input columns of the given types (`x{k}` has type `inputs[k]`).
    ///
    /// Shared subtrees (clones of one [`ColumnExpr`]) are computed once per block; an identity cast
    /// emits nothing.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the first ill-typed node (in evaluation order) and the types it
    /// was given, or an input index without a type.
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnExpr, CompiledExpr, ScalarType};
    /// let bad = ColumnExpr::input(0) + ColumnExpr::constant(1.5);
    /// let err = CompiledExpr::compile(&bad, &[ScalarType::I64]).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "expr: node `add(x0, 1.5)`: add does not accept operands of type (i64, f64)"
    /// );
    /// ```
    pub fn compile(expr: &ColumnExpr, inputs: &[ScalarType]) -> Result<CompiledExpr> {
        // Pass 1: how many parents use each node (the tree is a DAG when subtrees are shared).
        let mut uses: HashMap<usize, u32> = HashMap::new();
        let mut stack = vec![expr];
        uses.insert(expr.id(), 0);
        while let Some(e) = stack.pop() {
            for c in children(e) {
                let n = uses.entry(c.id()).or_insert(0);
                *n += 1;
                if *n == 1 {
                    stack.push(c);
                }
            }
        }

        // Pass 2: post-order emission.
        let mut alloc = Alloc::default();
        let mut instrs = Vec::new();
        let mut done: HashMap<usize, Value> = HashMap::new();
        let mut consts: Vec<(u32, Scalar)> = Vec::new();
        let mut used_inputs: Vec<u32> = Vec::new();
        let mut stack: Vec<(&ColumnExpr, bool)> = vec![(expr, false)];
        while let Some((e, expanded)) = stack.pop() {
            if done.contains_key(&e.id()) {
                continue;
            }
            if !expanded {
                stack.push((e, true));
                for c in children(e).into_iter().rev() {
                    if !done.contains_key(&c.id()) {
                        stack.push((c, false));
                    }
                }
                continue;
            }
            let is_root = e.ptr_eq(expr);
            let kids: Vec<Value> = children(e).iter().map(|c| done[&c.id()]).collect();
            let types: Vec<ScalarType> = kids.iter().map(|v| v.ty).collect();
            // The result type, or the error naming this node.
            let ty = match e.node() {
                Node::Input(k) => *inputs.get(*k).ok_or_else(|| Error::Invalid {
                    op: "expr",
                    detail: format!(
                        "node `{e}`: input {k} out of range ({} input types given)",
                        inputs.len()
                    ),
                })?,
                Node::Const(c) => c.ty(),
                Node::Iota { .. } => ScalarType::I64,
                Node::Unary(op, _) => op
                    .result_type(types[0])
                    .ok_or_else(|| type_error(e, op.name(), &types))?,
                Node::Binary(op, _, _) => op
                    .result_type(types[0], types[1])
                    .ok_or_else(|| type_error(e, op.name(), &types))?,
                Node::Select(..) => select_type(types[0], types[1], types[2])
                    .ok_or_else(|| type_error(e, "select", &types))?,
                Node::Ternary(op, ..) => op
                    .result_type(types[0], types[1], types[2])
                    .ok_or_else(|| type_error(e, op.name(), &types))?,
            };
            let uses_here = uses[&e.id()] + u32::from(is_root);
            let direct = is_root && ty != ScalarType::Bool;
            let dst = |alloc: &mut Alloc, avoid: &[Src]| {
                if direct {
                    Dst::Out
                } else {
                    Dst::Reg(alloc.alloc_avoiding(ty, avoid))
                }
            };
            let value = match e.node() {
                Node::Input(k) => {
                    let k = *k as u32;
                    if !used_inputs.contains(&k) {
                        used_inputs.push(k);
                    }
                    Value {
                        ty,
                        src: Src::Input(k),
                    }
                }
                Node::Const(c) => {
                    let r = if let Some((r, _)) = consts.iter().find(|(_, v)| v.same(*c)) {
                        *r
                    } else {
                        let r = alloc.alloc_const(ty);
                        consts.push((r, *c));
                        r
                    };
                    Value {
                        ty,
                        src: Src::Reg(r),
                    }
                }
                Node::Unary(UnaryOp::Cast(to), _) if *to == types[0] => {
                    // Identity cast: the value itself. Count this node's uses before
                    // releasing the child's, so the register is not freed in between.
                    alloc.add_uses(kids[0], uses_here);
                    alloc.consume(kids[0]);
                    done.insert(e.id(), kids[0]);
                    continue;
                }
                Node::Iota { start, step } => {
                    let d = dst(&mut alloc, &[]);
                    instrs.push(Instr::Iota {
                        dst: d,
                        start: *start,
                        step: *step,
                    });
                    value_of(ty, d)
                }
                Node::Unary(op, _) => {
                    let d = dst(&mut alloc, &[]);
                    instrs.push(Instr::Unary {
                        op: *op,
                        ty: types[0],
                        dst: d,
                        a: kids[0].src,
                    });
                    for k in &kids {
                        alloc.consume(*k);
                    }
                    value_of(ty, d)
                }
                Node::Binary(op, _, _) => {
                    if let Some((side, op1, a, b)) = fold_candidate(&instrs, &alloc, *op, &kids) {
                        // The previous instruction computed one operand for this one alone: do
                        // both in one pass. Its result register is never written (release it
                        // first, so the result may take it); its operands stay live until this
                        // one runs.
                        instrs.pop();
                        alloc.consume(kids[side]);
                        let d = dst(&mut alloc, &[a, b]);
                        instrs.push(Instr::Binary2 {
                            op1,
                            op2: *op,
                            ty: types[0],
                            dst: d,
                            a,
                            b,
                            c: kids[1 - side].src,
                            swap: side == 1,
                        });
                        alloc.consume(kids[1 - side]);
                        done.insert(e.id(), value_of(ty, d));
                        alloc.add_uses(value_of(ty, d), uses_here);
                        continue;
                    }
                    let d = dst(&mut alloc, &[]);
                    instrs.push(Instr::Binary {
                        op: *op,
                        ty: types[0],
                        dst: d,
                        a: kids[0].src,
                        b: kids[1].src,
                    });
                    for k in &kids {
                        alloc.consume(*k);
                    }
                    value_of(ty, d)
                }
                Node::Select(..) | Node::Ternary(..) => {
                    let d = dst(&mut alloc, &[]);
                    let (a, b, c) = (kids[0].src, kids[1].src, kids[2].src);
                    instrs.push(match e.node() {
                        Node::Ternary(op, ..) => Instr::Ternary {
                            op: *op,
                            ty,
                            dst: d,
                            a,
                            b,
                            c,
                        },
                        _ => Instr::Select {
                            ty,
                            dst: d,
                            c: a,
                            a: b,
                            b: c,
                        },
                    });
                    for k in &kids {
                        alloc.consume(*k);
                    }
                    value_of(ty, d)
                }
            };
            alloc.add_uses(value, uses_here);
            done.insert(e.id(), value);
        }
        let root = done[&expr.id()];
        let direct = matches!(
            instrs.last(),
            Some(
                Instr::Iota { dst: Dst::Out, .. }
                    | Instr::Unary { dst: Dst::Out, .. }
                    | Instr::Binary { dst: Dst::Out, .. }
                    | Instr::Binary2 { dst: Dst::Out, .. }
                    | Instr::Select { dst: Dst::Out, .. }
                    | Instr::Ternary { dst: Dst::Out, .. }
            )
        );
        let p = CompiledExpr {
            instrs,
            inputs: inputs.to_vec(),
            used_inputs,
            output: root.ty,
            result: root.src,
            direct,
            regs: alloc.count,
            consts,
            parallelism: Parallelism::Auto,
            native: None,
        };
        Ok(p)
    }

    /// The instructions, in execution order.
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnExpr, CompiledExpr, ScalarType};
    /// let p = CompiledExpr::compile(&(ColumnExpr::input(0) + ColumnExpr::input(0)), &[ScalarType::F64]).unwrap();
    /// assert_eq!(p.instructions().len(), 1);
    /// ```
    pub fn instructions(&self) -> &[Instr] {
        &self.instrs
    }

    /// The input types the program was compiled for.
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnExpr, CompiledExpr, ScalarType};
    /// let p = CompiledExpr::compile(&ColumnExpr::input(0), &[ScalarType::Bool]).unwrap();
    /// assert_eq!(p.input_types(), &[ScalarType::Bool]);
    /// ```
    pub fn input_types(&self) -> &[ScalarType] {
        &self.inputs
    }

    /// The type of the result column.
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnExpr, CompiledExpr, ScalarType};
    /// let p = CompiledExpr::compile(&ColumnExpr::input(0).lt(ColumnExpr::input(0)), &[ScalarType::F64]).unwrap();
    /// assert_eq!(p.output_type(), ScalarType::Bool);
    /// ```
    pub fn output_type(&self) -> ScalarType {
        self.output
    }

    /// Registers used (all types, constants included); each holds one block.
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnExpr, CompiledExpr, ScalarType};
    /// // A chain of ten additions needs two registers: the running sum alternates between them.
    /// let mut e = ColumnExpr::input(0);
    /// for _ in 0..10 {
    ///     e = e + ColumnExpr::input(0);
    /// }
    /// let p = CompiledExpr::compile(&(e * ColumnExpr::input(0)), &[ScalarType::I64]).unwrap();
    /// assert_eq!(p.registers(), 2);
    /// ```
    pub fn registers(&self) -> usize {
        self.regs.iter().map(|&r| r as usize).sum()
    }

    /// The same program evaluated with the given [`Parallelism`].
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnExpr, Parallelism, CompiledExpr};
    /// let p = CompiledExpr::compile(&ColumnExpr::index(), &[]).unwrap().with_parallelism(Parallelism::PerBlock);
    /// assert_eq!(p.eval(&[], 5000).unwrap().as_i64().unwrap()[4999], 4999);
    /// ```
    pub fn with_parallelism(mut self, parallelism: Parallelism) -> CompiledExpr {
        self.parallelism = parallelism;
        self
    }

    /// The program's [`Parallelism`].
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnExpr, Parallelism, CompiledExpr};
    /// assert_eq!(CompiledExpr::compile(&ColumnExpr::index(), &[]).unwrap().parallelism(), Parallelism::Auto);
    /// ```
    pub fn parallelism(&self) -> Parallelism {
        self.parallelism
    }
}

/// The program's identity and its native kernel ([`super::native`]).
impl CompiledExpr {
    /// The program's identity in a [`Kernels`] table: its instructions, input and output types,
    /// result and constants (bit patterns), as text. Two programs with one key compute the same
    /// function; [`CompiledExpr::compile`] is deterministic, so compiling one tree for one set of input
    /// types gives one key in every process (the macro computes keys at build time).
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnExpr, CompiledExpr, ScalarType};
    /// let k = |c: f64| CompiledExpr::compile(&(ColumnExpr::input(0) + ColumnExpr::constant(c)), &[ScalarType::F64]).unwrap().key();
    /// assert_eq!(k(1.0), k(1.0));
    /// assert_ne!(k(0.0), k(-0.0));
    /// ```
    pub fn key(&self) -> String {
        use std::fmt::Write;
        let mut k = format!(
            "{:?};{:?};{:?};{:?};{}",
            self.instrs, self.inputs, self.output, self.result, self.direct
        );
        for (r, c) in &self.consts {
            let bits = match *c {
                Scalar::I64(v) => format!("i{v}"),
                Scalar::F64(v) => format!("f{:#x}", v.to_bits()),
                Scalar::Bool(v) => format!("b{v}"),
            };
            let _ = write!(k, ";r{r}={bits}");
        }
        k
    }

    /// The constant registers and their values (filled once per worker before the instructions
    /// run).
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnExpr, CompiledExpr, Scalar, ScalarType};
    /// let p = CompiledExpr::compile(&(ColumnExpr::input(0) * ColumnExpr::constant(3i64)), &[ScalarType::I64]).unwrap();
    /// assert_eq!(p.constants(), &[(0, Scalar::I64(3))]);
    /// ```
    pub fn constants(&self) -> &[(u32, Scalar)] {
        &self.consts
    }

    /// Where the value is when the last instruction does not write the output column itself
    /// (`None` when it does): a register of the output type or an input column.
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnExpr, CompiledExpr, ScalarType, Src};
    /// let p = CompiledExpr::compile(&ColumnExpr::input(1), &[ScalarType::I64, ScalarType::F64]).unwrap();
    /// assert_eq!(p.result(), Some(Src::Input(1)));
    /// ```
    pub fn result(&self) -> Option<Src> {
        (!self.direct).then_some(self.result)
    }

    /// Whether a native kernel is attached (see [`super::native`]).
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnExpr, CompiledExpr, ScalarType};
    /// let p = CompiledExpr::compile(&(ColumnExpr::input(0) - ColumnExpr::constant(7i64)), &[ScalarType::I64]).unwrap();
    /// assert!(!p.is_native()); // compiling attaches nothing: see `with_kernels`
    /// ```
    pub fn is_native(&self) -> bool {
        self.native.is_some()
    }

    /// The program with the kernel that `kernels` holds for its [`key`](CompiledExpr::key)
    /// attached (none when the table has none for it).
    ///
    /// ```
    /// use flatland_runtime::expr::{native::{Inputs, Kernels, Out}, ColumnExpr, CompiledExpr, ScalarType};
    /// fn minus_seven(inputs: Inputs<'_, '_>, out: Out<'_>) -> bool {
    ///     let x = inputs.i64s_at(0, out.lanes());
    ///     out.fill_i64(|i| x[i].wrapping_sub(7))
    /// }
    /// let p = CompiledExpr::compile(&(ColumnExpr::input(0) - ColumnExpr::constant(7i64)), &[ScalarType::I64]).unwrap();
    /// let mine = Kernels::from_entries(&[(&p.key(), minus_seven)]);
    /// assert!(p.clone().with_kernels(&mine).is_native());
    /// assert!(!p.with_kernels(&Kernels::new()).is_native());
    /// ```
    #[must_use]
    pub fn with_kernels(mut self, kernels: &Kernels) -> CompiledExpr {
        self.native = if kernels.is_empty() {
            None
        } else {
            kernels.get(&self.key())
        };
        self
    }

    /// The same program without its native kernel: always run by the register machine (to
    /// compare the two).
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnExpr, CompiledExpr, ScalarType};
    /// let p = CompiledExpr::compile(&ColumnExpr::index(), &[]).unwrap().interpreted();
    /// assert!(!p.is_native());
    /// ```
    #[must_use]
    pub fn interpreted(mut self) -> CompiledExpr {
        self.native = None;
        self
    }
}

fn value_of(ty: ScalarType, d: Dst) -> Value {
    let src = match d {
        Dst::Reg(r) => Src::Reg(r),
        // The root written to the output: no instruction reads it, and `CompiledExpr::result` is
        // unused when `direct`; an input source holds no register to count uses of.
        Dst::Out => Src::Input(u32::MAX),
    };
    Value { ty, src }
}

impl fmt::Display for Src {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Src::Reg(r) => write!(f, "r{r}"),
            Src::Input(k) => write!(f, "x{k}"),
        }
    }
}

impl fmt::Display for Dst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dst::Reg(r) => write!(f, "r{r}"),
            Dst::Out => f.write_str("out"),
        }
    }
}

impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Instr::Iota { dst, start, step } => write!(f, "{dst} = iota.i64 {start}, {step}"),
            Instr::Unary { op, ty, dst, a } => write!(f, "{dst} = {op}.{ty} {a}"),
            Instr::Binary { op, ty, dst, a, b } => write!(f, "{dst} = {op}.{ty} {a}, {b}"),
            Instr::Binary2 {
                op1,
                op2,
                ty,
                dst,
                a,
                b,
                c,
                swap: false,
            } => {
                write!(f, "{dst} = {op2}.{ty} ({op1} {a}, {b}), {c}")
            }
            Instr::Binary2 {
                op1,
                op2,
                ty,
                dst,
                a,
                b,
                c,
                swap: true,
            } => {
                write!(f, "{dst} = {op2}.{ty} {c}, ({op1} {a}, {b})")
            }
            Instr::Select { ty, dst, c, a, b } => write!(f, "{dst} = select.{ty} {c}, {a}, {b}"),
            Instr::Ternary {
                op,
                ty,
                dst,
                a,
                b,
                c,
            } => write!(f, "{dst} = {op}.{ty} {a}, {b}, {c}"),
        }
    }
}

/// A listing: constants, then one instruction per line, then where the result is.
///
/// ```
/// use flatland_runtime::expr::{ColumnExpr, CompiledExpr, ScalarType};
/// let p = CompiledExpr::compile(&(ColumnExpr::input(0) * ColumnExpr::constant(2.0)), &[ScalarType::F64]).unwrap();
/// assert_eq!(p.to_string(), "r0.f64 = 2.0\nout = mul.f64 x0, r0\n");
/// ```
impl fmt::Display for CompiledExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (r, c) in &self.consts {
            writeln!(f, "r{r}.{} = {c}", c.ty())?;
        }
        for i in &self.instrs {
            writeln!(f, "{i}")?;
        }
        if !self.direct {
            writeln!(f, "out = {}.{}", self.result, self.output)?;
        }
        Ok(())
    }
}
