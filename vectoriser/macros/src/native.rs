//! Native kernels: every expression-machine program the executor may run for the module
//! ([`flatland_vectoriser::native::kernel_programs`], under both outcomes of each size-dependent
//! fusion), compiled at build time to a Rust loop that rustc optimises, and gathered in the
//! module's table ([`flatland_runtime::expr::native::Kernels`], `plan::kernels()`) that its
//! prepared programs carry.
//!
//! A program is straight-line code over typed registers; its kernel computes, for each lane, one
//! `let` per instruction (inputs sliced to the task's lanes, so indexing them needs no bounds
//! check) with the runtime's operator functions (`BinaryOp::on_i64` and friends,
//! `op::int`, `op::float`, `op::conv`), so the values are the machine's bit for bit. A program
//! with an operator that can fail (an `i64` division) returns `None` for a failing lane and the
//! kernel reports failure; the machine then reruns those lanes and reports the error.

use crate::ops::{self, Applied, literal, rust_ty};
use flatland_runtime::expr::{BinaryOp, CompiledExpr, Dst, Instr, ScalarType, Src};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::HashMap;

/// The module's kernel table for `programs`: `plan::kernels()`, built once, which every
/// function's prepared program carries.
pub(crate) fn table(programs: &[CompiledExpr], rt: &TokenStream) -> TokenStream {
    let (fns, entries): (Vec<_>, Vec<_>) = programs
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let name = format_ident!("__kernel_{}", i);
            let body = Kernel::new(p, rt).body()?;
            let key = p.key();
            Some((
                quote! {
                    fn #name(
                        inputs: #rt::expr::native::Inputs<'_, '_>,
                        out: #rt::expr::native::Out<'_>,
                    ) -> bool {
                        #body
                    }
                },
                quote!((#key, #name as #rt::expr::native::Kernel)),
            ))
        })
        .unzip();
    quote! {
        /// The native kernels of this module's expression programs (compiled by rustc from
        /// the programs at build time), by program key; the prepared programs of this module
        /// carry this table, and no other program sees it.
        pub fn kernels() -> ::std::sync::Arc<#rt::expr::native::Kernels> {
            static KERNELS: ::std::sync::OnceLock<::std::sync::Arc<#rt::expr::native::Kernels>> =
                ::std::sync::OnceLock::new();
            KERNELS
                .get_or_init(|| {
                    ::std::sync::Arc::new(#rt::expr::native::Kernels::from_entries(&[#(#entries),*]))
                })
                .clone()
        }

        #(
            #[allow(clippy::all, clippy::pedantic, unused_parens, unused_variables)]
            #fns
        )*
    }
}

struct Kernel<'a> {
    p: &'a CompiledExpr,
    rt: &'a TokenStream,
    /// The current value of each register, by (type, register).
    regs: HashMap<(ScalarType, u32), TokenStream>,
    fallible: bool,
}

impl<'a> Kernel<'a> {
    fn new(p: &'a CompiledExpr, rt: &'a TokenStream) -> Kernel<'a> {
        let regs = p
            .constants()
            .iter()
            .map(|&(r, c)| ((c.ty(), r), literal(c)))
            .collect();
        let fallible = p.instructions().iter().any(|i| match *i {
            Instr::Binary { op, ty, .. } => ops::binary_can_fail(op, ty) == Some(true),
            Instr::Ternary { op, .. } => op.can_fail(),
            _ => false,
        });
        Kernel {
            p,
            rt,
            regs,
            fallible,
        }
    }

    fn input(k: u32) -> Ident {
        format_ident!("x{}", k)
    }

    /// The value of operand `s` of type `t` at lane `i`.
    fn src(&self, s: Src, t: ScalarType) -> Option<TokenStream> {
        Some(match s {
            Src::Reg(r) => self.regs.get(&(t, r))?.clone(),
            Src::Input(k) => {
                let x = Self::input(k);
                if t == ScalarType::Bool {
                    quote!(#x.get(i))
                } else {
                    quote!(#x[i])
                }
            }
        })
    }

    /// `op` applied to `a` and `b` of type `t` ([`ops::binary`]); a failing lane makes the kernel
    /// report failure.
    fn binary(
        &self,
        op: BinaryOp,
        t: ScalarType,
        a: &TokenStream,
        b: &TokenStream,
    ) -> Option<TokenStream> {
        let rt = self.rt;
        ops::binary(op, t, a, b, &quote!(#rt::expr::op)).map(fail_with_none)
    }

    /// The kernel's body, or `None` for a program it cannot translate (left to the machine).
    fn body(mut self) -> Option<TokenStream> {
        let mut steps = Vec::new();
        let mut last = None;
        for (n, instr) in self.p.instructions().iter().enumerate() {
            let v = format_ident!("v{}", n);
            let (dst, ty, value) = match *instr {
                Instr::Iota { dst, start, step } => {
                    let rt = self.rt;
                    let o = quote!(#rt::expr::op::int);
                    (
                        dst,
                        ScalarType::I64,
                        quote!(#o::add(#start, #o::mul(#step, (__first + i) as i64))),
                    )
                }
                Instr::Unary { op, ty, dst, a } => {
                    let a = self.src(a, ty)?;
                    let rt = self.rt;
                    (
                        dst,
                        op.result_type(ty)?,
                        ops::unary(op, ty, &a, &quote!(#rt::expr::op))?,
                    )
                }
                Instr::Binary {
                    op: BinaryOp::Powi,
                    dst,
                    a,
                    b,
                    ..
                } => {
                    let (a, b) = (self.src(a, ScalarType::F64)?, self.src(b, ScalarType::I64)?);
                    (
                        dst,
                        ScalarType::F64,
                        self.binary(BinaryOp::Powi, ScalarType::F64, &a, &b)?,
                    )
                }
                Instr::Binary { op, ty, dst, a, b } => {
                    let (a, b) = (self.src(a, ty)?, self.src(b, ty)?);
                    (dst, op.result_type(ty, ty)?, self.binary(op, ty, &a, &b)?)
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
                } => {
                    let (a, b, c) = (self.src(a, ty)?, self.src(b, ty)?, self.src(c, ty)?);
                    let t = self.binary(op1, ty, &a, &b)?;
                    let value = if swap {
                        self.binary(op2, ty, &c, &quote!((#t)))?
                    } else {
                        self.binary(op2, ty, &quote!((#t)), &c)?
                    };
                    (dst, op2.result_type(ty, ty)?, value)
                }
                Instr::Ternary {
                    op,
                    ty,
                    dst,
                    a,
                    b,
                    c,
                } => {
                    let (a, b, c) = (self.src(a, ty)?, self.src(b, ty)?, self.src(c, ty)?);
                    let rt = self.rt;
                    let value =
                        fail_with_none(ops::ternary(op, ty, [&a, &b, &c], &quote!(#rt::expr::op))?);
                    (dst, op.result_type(ty, ty, ty)?, value)
                }
                Instr::Select { ty, dst, c, a, b } => {
                    let (c, a, b) = (
                        self.src(c, ScalarType::Bool)?,
                        self.src(a, ty)?,
                        self.src(b, ty)?,
                    );
                    (dst, ty, quote!(if #c { #a } else { #b }))
                }
            };
            let rty = rust_ty(ty);
            steps.push(quote!(let #v: #rty = #value;));
            match dst {
                Dst::Reg(r) => {
                    self.regs.insert((ty, r), quote!(#v));
                }
                Dst::Out => last = Some(quote!(#v)),
            }
        }
        let out_ty = self.p.output_type();
        let result = match self.p.result() {
            Some(s) => self.src(s, out_ty)?,
            None => last?,
        };
        let inputs = self.p.input_types().iter().enumerate().map(|(k, t)| {
            let x = Self::input(u32::try_from(k).unwrap_or(u32::MAX));
            match t {
                ScalarType::I64 => quote!(let #x = inputs.i64s_at(#k, __lanes.clone());),
                ScalarType::F64 => quote!(let #x = inputs.f64s_at(#k, __lanes.clone());),
                ScalarType::Bool => quote!(let #x = inputs.bools_at(#k, __lanes.clone());),
            }
        });
        let fill = match (out_ty, self.fallible) {
            (ScalarType::I64, false) => quote!(fill_i64),
            (ScalarType::F64, false) => quote!(fill_f64),
            (ScalarType::Bool, false) => quote!(fill_bool),
            (ScalarType::I64, true) => quote!(try_fill_i64),
            (ScalarType::F64, true) => quote!(try_fill_f64),
            (ScalarType::Bool, true) => quote!(try_fill_bool),
        };
        let value = if self.fallible {
            quote!(Some(#result))
        } else {
            result
        };
        Some(quote! {
            let __lanes = out.lanes();
            let __first = __lanes.start;
            #(#inputs)*
            out.#fill(|i: usize| {
                #(#steps)*
                #value
            })
        })
    }
}

/// The code of an applied operator in a kernel's lane closure, which returns `None` for a failing
/// lane when the program has an operator that can fail.
fn fail_with_none(v: Applied) -> TokenStream {
    match v {
        Applied::Total(x) => x,
        Applied::Partial(x) => quote!(#x?),
    }
}
