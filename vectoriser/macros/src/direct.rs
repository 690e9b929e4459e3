//! Direct code for the simplest pattern: a segmented redomap over `&Nested` parameters,
//! `rows.map(|row| row.map(|x| BODY).sum())` (or `a.zip(b).map(|(r, s)| r.zip(s).map(..).sum())`),
//! where `BODY` is a scalar expression over the elements, scalar parameters and slice parameters
//! indexed. It compiles to one call of `flatland_runtime::seg::fold_s_leaves_split` with `BODY` in
//! a Rust closure over per-leaf slices (rustc compiles and inlines it; no interpreter on this
//! path; the slices let it drop the bounds checks on element reads), using the runtime's
//! scalar semantics (`expr::op`, called as `ops.rs` writes each operator) so the bits are the
//! executor's.
//! A failing element (index out of range, division by zero) or rows of different lengths make it
//! rerun the executor, which reports the canonical error.

use crate::ops::{self, Applied, literal, rust_ty};
use crate::sig::Passing;
use flatland_vectoriser::check;
use flatland_vectoriser::ir::{Expr, Program, ReduceOp, Scalar, ScalarType, Type};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// A parameter of the function as the pattern sees it.
pub(crate) struct Param<'a> {
    pub(crate) name: &'a syn::Ident,
    pub(crate) ty: &'a Type,
    pub(crate) passing: &'a Passing,
}

/// The direct body of `f` (returning `Result<_>`), or `None` when `f` is none of the patterns.
/// `fallback` is the expression that runs the executor on the same arguments.
pub(crate) fn body(
    program: &Program,
    f: &flatland_vectoriser::ir::Function,
    params: &[Param],
    rt: &TokenStream,
    fallback: &TokenStream,
) -> Option<TokenStream> {
    segmented(program, f, params, rt, fallback).or_else(|| flat(program, f, params, rt, fallback))
}

/// A scalar element body over the elements of equally long arrays: `elems[j] = (name, k)` binds
/// `name` to element `i` of array `k`.
struct Kernel<'a> {
    elems: Vec<(String, usize)>,
    body: &'a Expr,
}

impl<'a> Kernel<'a> {
    /// `map(|e..| body, arrays)` over the arrays `is_array` recognises (giving each one's
    /// position), or a bare array `xs` (the element itself).
    fn of(e: &'a Expr, mut is_array: impl FnMut(&str) -> Option<usize>) -> Option<Kernel<'a>> {
        match e {
            Expr::Map(elem, arrays) => {
                let mut elems = Vec::new();
                for (a, (name, _)) in arrays.iter().zip(&elem.params) {
                    let Expr::Var(a) = a else { return None };
                    elems.push((name.clone(), is_array(a)?));
                }
                Some(Kernel {
                    elems,
                    body: &elem.body,
                })
            }
            Expr::Var(a) => Some(Kernel {
                elems: vec![(a.clone(), is_array(a)?)],
                body: e,
            }),
            _ => None,
        }
    }

    /// The body's Rust code and scalar type, with the elements typed by `elem_ty`.
    fn compile(
        &self,
        program: &Program,
        params: &[Param],
        elem_ty: impl Fn(usize) -> Type,
    ) -> Option<(TokenStream, ScalarType)> {
        let mut env: Vec<(String, Type)> = params
            .iter()
            .map(|p| (p.name.to_string(), p.ty.clone()))
            .collect();
        env.extend(self.elems.iter().map(|(e, k)| (e.clone(), elem_ty(*k))));
        let st = check::type_of(program, &env, self.body).ok()?.scalar()?;
        let mut g = Gen {
            program,
            env,
            locals: self.elems.iter().map(|(e, _)| e.clone()).collect(),
            params,
        };
        Some((g.expr(self.body)?, st))
    }

    /// Reads per element: one of each array and one per gather (an upper bound when a gather
    /// sits in one branch of an `if`).
    fn reads(&self, arrays: usize) -> u64 {
        (arrays + gathers(self.body)) as u64
    }

    /// The gathers `p[e]` of the body from an `i64` slice parameter `p` at an element `e` of
    /// array `k`, as `(p, k)` (each once).
    fn prefetched(&self, params: &[Param]) -> Vec<(String, usize)> {
        let found = indexes(self.body)
            .into_iter()
            .filter_map(|(a, i)| match (a, i) {
                (Expr::Var(p), Expr::Var(x)) => Some((p.clone(), x.clone())),
                _ => None,
            });
        let mut out: Vec<(String, usize)> = Vec::new();
        for (p, x) in found {
            let slice = params
                .iter()
                .any(|q| q.name == p.as_str() && matches!(q.passing, Passing::Ty { .. }));
            let at = self.elems.iter().find(|(e, _)| *e == x).map(|(_, k)| *k);
            if let (true, Some(k)) = (slice, at)
                && !out.contains(&(p.clone(), k))
            {
                out.push((p, k));
            }
        }
        out
    }

    /// The parameters the body names (scalars, and slices it indexes), each once; not those an
    /// element's name hides.
    fn params_read<'p>(&self, params: &'p [Param<'p>]) -> Vec<&'p Param<'p>> {
        let mut named = Vec::new();
        visit(self.body, &mut |e| {
            if let Expr::Var(n) = e
                && !named.contains(&n)
                && !self.elems.iter().any(|(x, _)| x == n)
            {
                named.push(n);
            }
        });
        params
            .iter()
            .filter(|p| named.iter().any(|n| p.name == n.as_str()))
            .filter(|p| matches!(p.passing, Passing::Ty { .. }))
            .collect()
    }

    /// `let __prefetch = ..;`: whether the leaf closure prefetches its gathers, decided once per
    /// call from the arrays (`runtime::hint::prefetch_pays`).
    fn prefetch_decision(
        &self,
        params: &[Param],
        datas: &[proc_macro2::Ident],
        rt: &TokenStream,
    ) -> TokenStream {
        let pays = self.prefetched(params).into_iter().map(|(p, k)| {
            let (p, d) = (format_ident!("{}", p), &datas[k]);
            quote!(|| #rt::hint::prefetch_pays(&#p[..], #d))
        });
        quote!(let __prefetch: bool = false #(#pays)*;)
    }

    /// A leaf closure `|__r: Range<usize>| -> ty` folding the body over the elements at `__r` of
    /// the flat arrays `datas` with the canonical in-leaf association. Each array is sliced once
    /// per leaf, to the leaf's length, so the element reads need no bounds checks.
    fn leaf(
        &self,
        params: &[Param],
        datas: &[proc_macro2::Ident],
        body: &TokenStream,
        ty: &TokenStream,
        identity: &Identity,
        rt: &TokenStream,
    ) -> Leaf {
        let z = &identity.value;
        let leaf_slices: Vec<_> = (0..datas.len())
            .map(|k| format_ident!("__leaf{k}"))
            .collect();
        let slices = datas
            .iter()
            .zip(&leaf_slices)
            .map(|(d, l)| quote!(let #l = &#d[__r.start..__r.start + __n];));
        let binds: Vec<_> = self
            .elems
            .iter()
            .map(|(e, k)| {
                let e = format_ident!("{}", e);
                let l = &leaf_slices[*k];
                quote!(let #e = #l[__i];)
            })
            .collect();
        // Gathers `v[e]` whose index is an element of a flat array: ask for the element
        // `PREFETCH` positions ahead early (across segments: short rows wait on every gather).
        let prefetches: Vec<_> = self
            .prefetched(params)
            .into_iter()
            .map(|(p, k)| {
                let (p, d) = (format_ident!("{}", p), &datas[k]);
                quote! {
                    if let Some(&__c) = #d.get(__start + __i + PREFETCH) {
                        #rt::hint::prefetch(&#p[..], __c as u64 as usize);
                    }
                }
            })
            .collect();
        // With the gathers prefetched, lanes in turn (one stream per array) beat lanes side by
        // side; otherwise (nothing to prefetch, or `prefetch_pays` said no at run time: the
        // vector fits in cache) side by side hides the operator's latency.
        let lanes = |fold: TokenStream, prefetches: &[TokenStream]| {
            quote! {
                // `move`: the closure holds the slices themselves (not references to them), so
                // the out-of-line lane fold reads them with one indirection.
                #rt::assoc::#fold(
                    __n,
                    move |__i: usize| -> #ty {
                        #(#prefetches)*
                        #(#binds)*
                        #body
                    },
                    #z,
                    &__combine,
                )
            }
        };
        let long = if prefetches.is_empty() {
            lanes(quote!(leaf_fold_by), &[])
        } else {
            let (in_turn, side_by_side) = (
                lanes(quote!(leaf_fold_by_in_turn), &prefetches),
                lanes(quote!(leaf_fold_by), &[]),
            );
            quote!(if __prefetch { #in_turn } else { #side_by_side })
        };
        let prefetches = if prefetches.is_empty() {
            quote!()
        } else {
            quote!(if __prefetch { #(#prefetches)* })
        };
        // The parameters the body reads, rebound as locals of the leaf: captured by reference,
        // a slice's pointer and length (and `__prefetch`) would be reloaded from the closure's
        // environment at every element, since the failure flag's store may alias them.
        let locals = self.params_read(params).into_iter().map(|p| {
            let id = p.name;
            // A `let` of the body may hide the parameter everywhere it is named.
            if p.ty.scalar().is_some() {
                quote!(#[allow(unused_variables)] let #id = #id;)
            } else {
                quote!(#[allow(unused_variables)] let #id = &#id[..];)
            }
        });
        let prelude = quote! {
            /// Elements between a gather's prefetch and its read.
            const PREFETCH: usize = 24;
            #(#locals)*
            let __prefetch: bool = __prefetch;
            let (__n, __start) = (__r.len(), __r.start);
            #(#slices)*
        };
        // A short leaf is one chain from the identity (the canonical association), written out
        // here so that a short segment costs no call and no closure: fewer instructions per
        // row keep more gathers in flight.
        let chain = quote! {
            let mut __acc: #ty = #z;
            for __i in 0..__n {
                #prefetches
                #(#binds)*
                __acc = __combine(__acc, #body);
            }
            __acc
        };
        // The segment's result is `identity ⊕ chain`; where that step gives `chain` back, it
        // is left out (one operation less on every row's dependency chain).
        let finish = if identity.absorbs {
            quote!()
        } else {
            quote!(let __acc: #ty = __combine(#z, __acc);)
        };
        Leaf {
            short: quote! {
                |__r: ::std::ops::Range<usize>| -> #ty {
                    #prelude
                    let __acc: #ty = { #chain };
                    #finish
                    __acc
                }
            },
            any: quote! {
                |__r: ::std::ops::Range<usize>| -> #ty {
                    #prelude
                    if __n < #rt::assoc::SHORT {
                        #chain
                    } else {
                        #long
                    }
                }
            },
        }
    }
}

/// The leaf closures of a kernel: `short` gives the result of a whole segment of fewer than
/// `assoc::SHORT` elements (`identity ⊕ leaf`), `any` folds any leaf.
struct Leaf {
    short: TokenStream,
    any: TokenStream,
}

/// `rows.map(|row| row.map(|x| BODY).reduce(..))` over `&Nested` parameters: one
/// `seg::fold_s_leaves_split` (short rows one inlined chain each), returning `Vec<S>`.
fn segmented(
    program: &Program,
    f: &flatland_vectoriser::ir::Function,
    params: &[Param],
    rt: &TokenStream,
    fallback: &TokenStream,
) -> Option<TokenStream> {
    let Expr::Map(outer, rows) = &f.body else {
        return None;
    };
    // Each mapped array is a `&Nested` parameter.
    let mut nested = Vec::new();
    for r in rows {
        let Expr::Var(n) = r else { return None };
        let p = params.iter().find(|p| p.name == n.as_str())?;
        let Passing::Nested { f64 } = p.passing else {
            return None;
        };
        nested.push((p.name, *f64));
    }
    let Expr::Reduce(op, z, inner) = &*outer.body else {
        return None;
    };
    let Expr::Lit(z) = &**z else { return None };
    // The inner map's arrays are the outer lambda's parameters (the rows), in any order.
    let kernel = Kernel::of(inner, |a| outer.params.iter().position(|(n, _)| n == a))?;
    let elem_ty = |k: usize| if nested[k].1 { Type::F64 } else { Type::I64 };
    let (body, st) = kernel.compile(program, params, elem_ty)?;
    let reads = kernel.reads(nested.len());
    let combine = reduce(op, st, rt)?;
    let identity = Identity::of(op, *z);
    let z = &identity.value;

    let segds: Vec<_> = (0..nested.len())
        .map(|k| format_ident!("__segd{k}"))
        .collect();
    let datas: Vec<_> = (0..nested.len())
        .map(|k| format_ident!("__data{k}"))
        .collect();
    let views = nested
        .iter()
        .zip(segds.iter().zip(&datas))
        .map(|((n, _), (s, d))| {
            quote! {
                let __owned;
                // No copy when the rows are one flat array (O(1) to tell); else concatenate.
                let (#s, #d) = match #n.as_flat() {
                    Some((segd, flat)) => (segd.clone(), flat.as_slice()),
                    None => {
                        let (segd, flat) = #n.concat()?;
                        __owned = flat;
                        (segd, __owned.as_slice())
                    }
                };
            }
        });
    let s0 = &segds[0];
    let same = segds[1..].iter().map(|s| quote!(&& #s == #s0));
    let ty = rust_ty(st);
    let Leaf { short, any } = kernel.leaf(params, &datas, &body, &ty, &identity, rt);
    let decide = kernel.prefetch_decision(params, &datas, rt);
    let views = quote!(#(#views)*);
    let run = quote! {
        #rt::stats::record_read(#s0.elements() as u64 * #reads);
        let __combine = #combine;
        #decide
        let __out: ::std::vec::Vec<#ty> =
            #rt::seg::fold_s_leaves_split(&#s0, #z, #short, #any, &__combine);
    };
    Some(guarded(rt, &views, same, &run, fallback))
}

/// The body of a direct function: the argument `views`, then `run` (which binds `__out`) when
/// every `same` condition holds and no element fails (`__failed`); otherwise the `fallback`
/// (the executor), which returns the error.
fn guarded(
    rt: &TokenStream,
    views: &TokenStream,
    same: impl Iterator<Item = TokenStream>,
    run: &TokenStream,
    fallback: &TokenStream,
) -> TokenStream {
    quote! {
        use #rt::expr::op as __op;
        #views
        if !(true #(#same)*) {
            return #fallback;
        }
        let __failed = &::std::sync::atomic::AtomicBool::new(false);
        #run
        if __failed.load(::std::sync::atomic::Ordering::Relaxed) {
            return #fallback;
        }
        Ok(__out)
    }
}

/// Flat patterns over scalar slice parameters: `xs.zip(ys).map(|(x, y)| BODY).reduce(..)`
/// (one `flat::reduce_leaves`, returning `S`), `xs.map(|x| BODY)` /
/// `xs.zip(ys).map(|(x, y)| BODY)` (one `flat::map` / `flat::zip_with`, returning `Vec<S>`) and
/// `xs.filter(|x| PRED)` (one `flat::filter`, returning `Vec<S>`).
fn flat(
    program: &Program,
    f: &flatland_vectoriser::ir::Function,
    params: &[Param],
    rt: &TokenStream,
    fallback: &TokenStream,
) -> Option<TokenStream> {
    // The slice parameters the kernel reads as arrays, in order of first use.
    let mut arrays: Vec<&Param> = Vec::new();
    let mut is_array = |a: &str| {
        let p = params.iter().find(|p| p.name == a)?;
        p.ty.elem()?.scalar()?;
        if !matches!(p.passing, Passing::Ty { .. }) {
            return None;
        }
        if let Some(k) = arrays.iter().position(|q| q.name == a) {
            Some(k)
        } else {
            arrays.push(p);
            Some(arrays.len() - 1)
        }
    };
    // `xs.filter(|x| PRED)`: the first class of a one-predicate filter.
    if let Expr::Proj(filter, 0) = &f.body
        && let Expr::Filter(ps, xs) = &**filter
        && let ([p], Expr::Var(xs)) = (&ps[..], &**xs)
        && let [(x, _)] = &p.params[..]
    {
        let kernel = Kernel {
            elems: vec![(x.clone(), is_array(xs)?)],
            body: &p.body,
        };
        let el = arrays[0].ty.elem()?.clone();
        let (body, st) = kernel.compile(program, params, |_| el.clone())?;
        if st != ScalarType::Bool {
            return None;
        }
        let (name, d0) = (arrays[0].name, format_ident!("__data0"));
        let (x, t) = (format_ident!("{}", x), rust_ty(el.scalar()?));
        let run = quote! {
            let __out: ::std::vec::Vec<#t> = #rt::flat::filter(#d0, |#x: #t| -> bool { #body });
        };
        return Some(guarded(
            rt,
            &quote!(let #d0 = &#name[..];),
            std::iter::empty(),
            &run,
            fallback,
        ));
    }
    let (kernel, reduction) = match &f.body {
        Expr::Reduce(op, z, inner) => {
            let Expr::Lit(z) = &**z else { return None };
            (Kernel::of(inner, &mut is_array)?, Some((op, *z)))
        }
        e @ Expr::Map(..) => (Kernel::of(e, &mut is_array)?, None),
        _ => return None,
    };
    let elem_ty =
        |k: usize| (arrays[k].ty.elem().cloned()).expect("arrays holds array parameters only");
    let (body, st) = kernel.compile(program, params, elem_ty)?;
    let ty = rust_ty(st);
    let datas: Vec<_> = (0..arrays.len())
        .map(|k| format_ident!("__data{k}"))
        .collect();
    let views = arrays.iter().zip(&datas).map(|(p, d)| {
        let n = p.name;
        quote!(let #d = &#n[..];)
    });
    let d0 = &datas[0];
    let same = datas[1..].iter().map(|d| quote!(&& #d.len() == #d0.len()));
    let run = if let Some((op, z)) = reduction {
        let combine = reduce(op, st, rt)?;
        let identity = Identity::of(op, z);
        let z = &identity.value;
        let leaf = kernel.leaf(params, &datas, &body, &ty, &identity, rt).any;
        let reads = kernel.reads(arrays.len());
        let decide = kernel.prefetch_decision(params, &datas, rt);
        quote! {
            #rt::stats::record_read(#d0.len() as u64 * #reads);
            let __combine = #combine;
            #decide
            let __out: #ty = #rt::flat::reduce_leaves(#d0.len(), #z, #leaf, &__combine);
        }
    } else {
        // Each array once, as the map's parameters in order.
        let order: Vec<usize> = kernel.elems.iter().map(|(_, k)| *k).collect();
        if order != (0..arrays.len()).collect::<Vec<_>>() || order.len() > 2 {
            return None;
        }
        let names: Vec<_> = kernel
            .elems
            .iter()
            .map(|(e, _)| format_ident!("{}", e))
            .collect();
        let tys: Vec<_> = (0..arrays.len())
            .map(|k| rust_ty(elem_ty(k).scalar().expect("scalar elements")))
            .collect();
        let call = if let [d1] = &datas[1..] {
            let (n0, n1, t0, t1) = (&names[0], &names[1], &tys[0], &tys[1]);
            quote!(#rt::flat::zip_with(#d0, #d1, |#n0: #t0, #n1: #t1| -> #ty { #body })
                .expect("lengths checked"))
        } else {
            let (n0, t0) = (&names[0], &tys[0]);
            quote!(#rt::flat::map(#d0, |#n0: #t0| -> #ty { #body }))
        };
        quote! {
            let __out: ::std::vec::Vec<#ty> = #call;
        }
    };
    let views = quote!(#(#views)*);
    Some(guarded(rt, &views, same, &run, fallback))
}

/// The number of `index` nodes in `e`.
fn gathers(e: &Expr) -> usize {
    indexes(e).len()
}

/// Every `index(array, i)` node of the scalar body `e` (nested ones included), as
/// `(array, i)`, in evaluation order.
fn indexes(e: &Expr) -> Vec<(&Expr, &Expr)> {
    let mut out = Vec::new();
    visit(e, &mut |e| {
        if let Expr::Index(a, i) = e {
            out.push((&**a, &**i));
        }
    });
    out
}

/// Calls `f` on every node of the scalar body `e`, parents before children, in evaluation
/// order.
fn visit<'e>(e: &'e Expr, f: &mut impl FnMut(&'e Expr)) {
    f(e);
    match e {
        Expr::Unary(_, a) => visit(a, f),
        Expr::Index(a, b) | Expr::Binary(_, a, b) | Expr::Let(_, a, b) => {
            visit(a, f);
            visit(b, f);
        }
        Expr::If(c, a, b) => {
            visit(c, f);
            visit(a, f);
            visit(b, f);
        }
        _ => {}
    }
}

struct Gen<'a> {
    program: &'a Program,
    env: Vec<(String, Type)>,
    locals: Vec<String>,
    params: &'a [Param<'a>],
}

fn zero(t: ScalarType) -> TokenStream {
    match t {
        ScalarType::I64 => quote!(0i64),
        ScalarType::F64 => quote!(0.0f64),
        ScalarType::Bool => quote!(false),
    }
}

/// The identity of a reduction, as code.
struct Identity {
    value: TokenStream,
    /// Whether `z ⊕ x == x` bitwise for every result `x` of a chain `z ⊕ x0 ⊕ x1 ⊕ ...`: the
    /// integer identities, and a float sum from +0.0 (such a chain never ends in -0.0, and a
    /// NaN it ends in is already quiet).
    absorbs: bool,
}

impl Identity {
    fn of(op: &ReduceOp, z: Scalar) -> Identity {
        let absorbs = match (op, z) {
            (ReduceOp::Add, Scalar::I64(0))
            | (ReduceOp::Mul, Scalar::I64(1))
            | (ReduceOp::Min, Scalar::I64(i64::MAX))
            | (ReduceOp::Max, Scalar::I64(i64::MIN)) => true,
            (ReduceOp::Add, Scalar::F64(z)) => z.to_bits() == 0,
            _ => false,
        };
        Identity {
            value: literal(z),
            absorbs,
        }
    }
}

/// The step of the built-in reduction `op` on numbers of type `t`, as a closure
/// ([`ops::combine`]); `None` for a lambda and for `bool` (the reductions the direct patterns and
/// the per-lane histograms fold are the numeric ones).
pub(crate) fn reduce(op: &ReduceOp, t: ScalarType, rt: &TokenStream) -> Option<TokenStream> {
    if t == ScalarType::Bool {
        return None;
    }
    ops::combine(op.bin_op()?, t, &quote!(#rt::expr::op))
}

impl Gen<'_> {
    fn ty(&self, e: &Expr) -> Option<ScalarType> {
        check::type_of(self.program, &self.env, e).ok()?.scalar()
    }

    /// Rust code computing scalar `e` for element `__i`; failures set `__failed`.
    fn expr(&mut self, e: &Expr) -> Option<TokenStream> {
        let rt_op = quote!(__op);
        Some(match e {
            Expr::Lit(s) => literal(*s),
            Expr::Var(n) => {
                let id = format_ident!("{}", n);
                if self.locals.contains(n) {
                    quote!(#id)
                } else {
                    let p = self.params.iter().find(|p| p.name == n.as_str())?;
                    p.ty.scalar()?;
                    quote!(#id)
                }
            }
            Expr::Let(n, v, b) => {
                let t = self.ty(v)?;
                let v = self.expr(v)?;
                self.env.push((n.clone(), Type::of_scalar(t)));
                self.locals.push(n.clone());
                let b = self.expr(b);
                self.env.pop();
                self.locals.pop();
                let id = format_ident!("{}", n);
                let b = b?;
                quote!({ let #id = #v; #b })
            }
            Expr::If(c, a, b) => {
                let (c, a, b) = (self.expr(c)?, self.expr(a)?, self.expr(b)?);
                quote!(if #c { #a } else { #b })
            }
            Expr::Index(a, i) => {
                let Expr::Var(n) = &**a else { return None };
                if self.locals.contains(n) {
                    return None;
                }
                let p = self.params.iter().find(|p| p.name == n.as_str())?;
                let el = p.ty.elem()?.scalar()?;
                if !matches!(p.passing, Passing::Ty { .. }) {
                    return None;
                }
                let id = format_ident!("{}", n);
                let i = self.expr(i)?;
                let z = zero(el);
                // `as u64` sends a negative index past every length, so one unsigned comparison
                // checks both ends (fewer instructions per element keep more gathers in flight).
                quote!(match usize::try_from(#i as u64).ok().and_then(|k| #id.get(k)) {
                    Some(&x) => x,
                    None => {
                        __failed.store(true, ::std::sync::atomic::Ordering::Relaxed);
                        #z
                    }
                })
            }
            Expr::Unary(op, a) => {
                let t = self.ty(a)?;
                let a = self.expr(a)?;
                ops::unary(*op, t, &a, &rt_op)?
            }
            Expr::Binary(op, a, b) => {
                let t = self.ty(a)?;
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                match ops::binary(*op, t, &a, &b, &rt_op)? {
                    Applied::Total(x) => x,
                    Applied::Partial(x) => {
                        // A failing lane reruns the executor, which reports the error.
                        let z = zero(op.result_type(t, t)?);
                        quote!(match #x {
                            Some(x) => x,
                            None => {
                                __failed.store(true, ::std::sync::atomic::Ordering::Relaxed);
                                #z
                            }
                        })
                    }
                }
            }
            _ => return None,
        })
    }
}
