//! The per-lane form of a module's functions: each IR function transcribed into plain
//! sequential Rust (`plan::lanes`), which rustc compiles and inlines, with the reference
//! interpreter's semantics: wrapping `i64`, the same errors naming the operation and the lane,
//! every reduction and scan through the canonical association, evaluation in the interpreter's
//! order (so the first error is the interpreter's). Recursion is ordinary recursion, bounded by
//! the run's recursion limit (`lane::Ctx`).
//!
//! Values (see `flatland_vectoriser::lane`): a scalar is itself; an array is a
//! `Cow<[E]>` whose elements `E` are in *owned* form (scalars, `Vec`s, tuples of them); a tuple
//! is a Rust tuple of values. A variable, a parameter and a lambda's element are read in place
//! (a borrowed `Cow`); what an operation computes is owned. Only named variables are borrowed
//! from, so a value never outlives what it borrows: a `let` (whose body may borrow its
//! variable) and an element taken out of a computed array are made owned.

use crate::append_calls;
use crate::last_use::{
    appended, destructuring, holds_array, moving_reads, node, taken_row, unfused,
};
use crate::map_parts::{Leaf, MapParts, map_parts};
use crate::ops::{self, Applied};
use crate::recursion::{calls_itself, drops_before_calls, owning_map};
use crate::row_gathers;
use crate::whole_reads::WholeReads;
use flatland_vectoriser::check;
use flatland_vectoriser::ir::{
    BinaryOp, Expr, Function, FusedForm, Lambda, LoopForm, Program, ReduceOp, ScalarType, SortOp,
    Type,
};
use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote};
use std::collections::{BTreeSet, HashSet};
use std::fmt::Write as _;
use std::sync::Arc;

/// The module `lanes`: one function `l_<name>` per function of `p`, taking the run's context,
/// the caller's lane and the parameters in per-lane form, returning the result in owned form.
pub(crate) fn module(p: &Program, v: &TokenStream, rt: &TokenStream) -> TokenStream {
    let whole = WholeReads::of(p);
    let appending = append_calls::appending(p);
    let fns = p.functions.iter().map(|f| {
        Emitter {
            program: p,
            whole: &whole,
            appending: &appending,
            v,
            rt,
            env: f.params.clone(),
            moving: HashSet::new(),
            drops: drops_before_calls(p, f),
            rows: Vec::new(),
            operator: false,
        }
        .function(f)
    });
    quote! {
        /// The per-lane (sequential) form of every function of the module, transcribed from
        /// its IR by `#[vectorise]`.
        #[allow(unused, clippy::all, clippy::pedantic)]
        pub(crate) mod lanes {
            #(#fns)*
        }
    }
}

/// The name of the per-lane function of `f`.
pub(crate) fn function_ident(f: &str) -> proc_macro2::Ident {
    format_ident!("l_{}", mangle(f))
}

/// The name of the append form of `f` (`append_calls.rs`) in the module `lanes`.
fn append_ident(f: &str) -> proc_macro2::Ident {
    format_ident!("a_{}", mangle(f))
}

/// A Rust identifier for an IR name (which the lowering and the derived forms may spell with
/// characters Rust does not allow): letters, digits and `_` are kept, any other character is
/// written as its code.
fn mangle(n: &str) -> String {
    let mut out = String::new();
    for c in n.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else {
            let _ = write!(out, "_x{:x}_", u32::from(c));
        }
    }
    out
}

fn var(n: &str) -> proc_macro2::Ident {
    format_ident!("v_{}", mangle(n))
}

struct Emitter<'a> {
    program: &'a Program,
    /// Which parameters of each function its body reads whole (a lane's weight counts them).
    whole: &'a WholeReads,
    /// The functions that also get an append form (`append_calls.rs`).
    appending: &'a BTreeSet<String>,
    v: &'a TokenStream,
    rt: &'a TokenStream,
    /// The types of the variables in scope (innermost last).
    env: Vec<(String, Type)>,
    /// The reads of variables that move their values ([`node`]s of `Expr::Var`): each the
    /// last read of its variable on its path (`last_use.rs`).
    moving: HashSet<usize>,
    /// The variables dropped before a recursive call (the call's [`node`], the name):
    /// `recursion::drops_before_calls`.
    drops: Vec<(usize, String)>,
    /// The parameters of the function being emitted that stay a `lane::RowsOf` (read only as
    /// the array of a map or for their length).
    rows: Vec<String>,
    /// Whether a reduction's or scan's operator is being emitted: its conditionals between
    /// plain values are selects without a branch ([`Emitter::select`]).
    operator: bool,
}

impl Emitter<'_> {
    fn function(&mut self, f: &Function) -> TokenStream {
        let v = self.v;
        let name = function_ident(&f.name);
        let name_str = &f.name;
        let lt = quote!('a);
        // An array of arrays is any `lane::RowsOf` (a `Nested` argument read in place); one
        // read other than as a map's array (or for its length) is turned into a `Cow` first.
        let mut generics = Vec::new();
        let mut prelude = Vec::new();
        self.rows.clear();
        let params: Vec<TokenStream> = f
            .params
            .iter()
            .enumerate()
            .map(|(k, (n, t))| {
                let id = var(n);
                if let Type::Array(row) = t
                    && let Type::Array(e) = &**row
                {
                    let g = format_ident!("__R{}", k);
                    let et = oty(e);
                    generics.push(quote!(#g: #v::lane::RowsOf<#et>));
                    if only_mapped(&f.body, n) {
                        self.rows.push(n.clone());
                    } else {
                        prelude.push(quote!(let #id = #v::lane::RowsOf::into_cow(#id);));
                    }
                    return quote!(#id: #g);
                }
                let t = self.vty(t, &lt);
                quote!(#id: #t)
            })
            .collect();
        let ret = oty(&f.ret);
        self.moving.clear();
        for (n, t) in &f.params {
            self.bind_moves(n, t, &f.body);
        }
        let body = self.val(&f.body);
        let body = own(self.v, &f.ret, &body);
        // A function outside every cycle of calls needs no stack check: its frames and those
        // of the non-recursive functions it calls are bounded by the module's call graph,
        // within the red zone the nearest recursive call left (`lane::CALL_RED_ZONE`). Reading
        // the stack's bounds was a twentieth of a merge sort's time, whose binary search is a
        // function called per element. A recursive one checks first and, short of stack, calls
        // itself again on a new segment.
        let recursive = calls_itself(self.program, &f.name);
        let args: Vec<proc_macro2::Ident> = f.params.iter().map(|(n, _)| var(n)).collect();
        let stack_check = |name: &proc_macro2::Ident, out: Option<TokenStream>| {
            recursive.then(|| {
                quote! {
                    if !__ctx.has_stack_room() {
                        return __ctx.on_new_stack(move || #name(__ctx, __lane, #(#args,)* #out));
                    }
                }
            })
        };
        let append_form = match &f.ret {
            Type::Array(el) if self.appending.contains(&f.name) => {
                let (a_name, et) = (append_ident(&f.name), oty(el));
                let body = self.append(&f.body, &quote!(__out));
                let check = stack_check(&a_name, Some(quote!(__out)));
                quote! {
                    pub(crate) fn #a_name<'a, #(#generics),*>(
                        __ctx: &#v::lane::Ctx,
                        __lane: usize,
                        #(#params,)*
                        __out: &mut #v::lane::Pieces<#et>,
                    ) -> #v::Result<()> {
                        #check
                        let __level = __ctx.enter(#name_str)?;
                        #(#prelude)*
                        let __lanes: #v::lane::Lanes = __ctx.lanes();
                        #body;
                        ::std::result::Result::Ok(())
                    }
                }
            }
            _ => quote!(),
        };
        let check = stack_check(&name, None);
        // A function outside every cycle is offered to rustc for inlining: merge sort's binary
        // search, called per element, stayed a call of its own once its level guard (and the
        // guard's unwind path) sat in its body (+5% of the sort's instructions).
        let inline = (!recursive).then(|| quote!(#[inline]));
        quote! {
            #inline
            pub(crate) fn #name<'a, #(#generics),*>(
                __ctx: &#v::lane::Ctx,
                __lane: usize,
                #(#params),*
            ) -> #v::Result<#ret> {
                #check
                // The call's level, left when this is dropped as the function returns.
                let __level = __ctx.enter(#name_str)?;
                #(#prelude)*
                // The run's choice of parallel lanes and splits, copied so that closures
                // passed to the pool need not capture the context.
                let __lanes: #v::lane::Lanes = __ctx.lanes();
                ::std::result::Result::Ok(#body)
            }
            #append_form
        }
    }

    /// The call `e` of a function with arguments `args`, written by `call` from the arguments'
    /// code: the arguments evaluated first, then the arrays dead at the call dropped
    /// (`recursion::drops_before_calls`), then the call.
    fn call(
        &mut self,
        e: &Expr,
        args: &[Expr],
        call: impl FnOnce(&Self, &[TokenStream]) -> TokenStream,
    ) -> TokenStream {
        let args: Vec<TokenStream> = args.iter().map(|a| self.val(a)).collect();
        let dropped: Vec<proc_macro2::Ident> = self
            .drops
            .iter()
            .filter(|(at, _)| *at == node(e))
            .map(|(_, n)| var(n))
            .collect();
        if dropped.is_empty() {
            return call(self, &args);
        }
        let tmps: Vec<TokenStream> = (0..args.len())
            .map(|k| format_ident!("__c{}", k).into_token_stream())
            .collect();
        let call = call(self, &tmps);
        quote!({
            #(let #tmps = #args;)*
            #(::std::mem::drop(#dropped);)*
            #call
        })
    }

    /// The owned values of a literal's parts (of type `t`), evaluated in order.
    fn owned_parts(&mut self, t: &Type, es: &[Expr]) -> Vec<TokenStream> {
        es.iter()
            .map(|x| {
                let x = self.val(x);
                own(self.v, t, &x)
            })
            .collect()
    }

    /// The concatenation of a literal's parts, in order, each read in place; an owned first
    /// part is grown into the output ([`lane::concat_reusing_first`]). The rows a part names
    /// of an array at its last read (`[sorted[0], equal, sorted[1]]`, `last_use::taken_row`)
    /// are taken out of it by value ([`lane::TakenRows`]), not borrowed and copied.
    fn concat_literal(&mut self, owned: &TokenStream, es: &[&Expr]) -> TokenStream {
        let v = self.v;
        let mut taking: Vec<String> = Vec::new();
        let parts: Vec<TokenStream> = es
            .iter()
            .map(|x| match taken_row(x) {
                Some((n, k, read)) if self.moving.contains(&read) => {
                    let rows = format_ident!("__taken_{}", mangle(n));
                    if !taking.iter().any(|t| t == n) {
                        taking.push(n.to_string());
                    }
                    quote!(#rows.take(#k, __lane)?)
                }
                _ => self.val(x),
            })
            .collect();
        let held = taking.iter().map(|n| {
            let rows = format_ident!("__taken_{}", mangle(n));
            let id = var(n);
            quote!(let mut #rows = #v::lane::TakenRows::new(#id);)
        });
        quote!({
            #(#held)*
            #owned(#v::lane::concat_reusing_first([#(#parts),*]))
        })
    }

    /// Records the reads of `n` (of type `t`, in scope in `env`) in `body` that move its value:
    /// its last reads, where they may move (only values holding arrays are worth it).
    fn bind_moves(&mut self, n: &str, t: &Type, body: &Expr) {
        if holds_array(t) {
            self.moving
                .extend(moving_reads(self.program, &self.env, n, body));
        }
    }

    /// Brings the variable `n` of type `tx`, bound by a `let` whose body is `b`, into scope
    /// (moved by its last reads in `b`); pop the scope after the body.
    fn enter_let(&mut self, n: &str, tx: Type, b: &Expr) {
        self.env.push((n.to_string(), tx.clone()));
        self.bind_moves(n, &tx, b);
    }

    fn ty(&self, e: &Expr) -> Type {
        check::type_of(self.program, &self.env, e)
            .unwrap_or_else(|err| unreachable!("checked program: {err}"))
    }

    fn elem(&self, e: &Expr) -> Type {
        match self.ty(e) {
            Type::Array(t) => *t,
            other => unreachable!("checked program: array expected, found {other}"),
        }
    }

    /// The Rust type of a value of type `t` (arrays borrowed for `lt`).
    fn vty(&self, t: &Type, lt: &TokenStream) -> TokenStream {
        let v = self.v;
        match t {
            Type::Array(e) => {
                let e = oty(e);
                quote!(#v::lane::Cow<#lt, [#e]>)
            }
            Type::Tuple(ts) => {
                let ts = ts.iter().map(|t| self.vty(t, lt));
                quote!((#(#ts,)*))
            }
            scalar => oty(scalar),
        }
    }

    /// The value of type `t` read in place from `r`, a `&` of its owned form.
    fn borrow(&self, t: &Type, r: &TokenStream) -> TokenStream {
        let v = self.v;
        match t {
            Type::Array(_) => quote!(#v::lane::Cow::Borrowed((#r).as_slice())),
            Type::Tuple(ts) => {
                let fields = ts.iter().enumerate().map(|(i, t)| {
                    let i = syn::Index::from(i);
                    self.borrow(t, &quote!(&__r.#i))
                });
                quote!({ let __r = #r; (#(#fields,)*) })
            }
            _ => quote!(*(#r)),
        }
    }

    /// The value of type `t` read in place from `r`, a `&` of a value.
    fn reborrow(&self, t: &Type, r: &TokenStream) -> TokenStream {
        let v = self.v;
        match t {
            Type::Array(_) => quote!(#v::lane::Cow::Borrowed(&(#r)[..])),
            Type::Tuple(ts) => {
                let fields = ts.iter().enumerate().map(|(i, t)| {
                    let i = syn::Index::from(i);
                    self.reborrow(t, &quote!(&__r.#i))
                });
                quote!({ let __r = #r; (#(#fields,)*) })
            }
            _ => quote!(*(#r)),
        }
    }

    /// The value of the owned `x` of type `t` (no copy).
    fn lift(&self, t: &Type, x: &TokenStream) -> TokenStream {
        let v = self.v;
        match t {
            Type::Array(e) => {
                let e = oty(e);
                quote!(#v::lane::Cow::<[#e]>::Owned(#x))
            }
            Type::Tuple(ts) => {
                let fields = ts.iter().enumerate().map(|(i, t)| {
                    let i = syn::Index::from(i);
                    self.lift(t, &quote!(__t.#i))
                });
                quote!({ let __t = #x; (#(#fields,)*) })
            }
            _ => x.clone(),
        }
    }

    /// The owned value of the lambda's body with its parameters bound to `args` (each a value
    /// of its type; the body may borrow from the bindings, so its value is made owned inside
    /// their scope), and the body's type.
    fn apply(&mut self, l: &Lambda, args: &[(Type, TokenStream)]) -> (TokenStream, Type) {
        let b = l.body.clone();
        self.apply_with(l, args, |em| em.owned(&b))
    }

    /// [`Emitter::apply`] of a reduction's or scan's operator `l` (see [`Emitter::select`]).
    fn apply_operator(&mut self, l: &Lambda, args: &[(Type, TokenStream)]) -> (TokenStream, Type) {
        let outer = std::mem::replace(&mut self.operator, true);
        let r = self.apply(l, args);
        self.operator = outer;
        r
    }

    /// Whether the conditional `e`, its arms `a` and `b`, is emitted as a select without a
    /// branch (`runtime::hint::select`): inside an operator ([`Emitter::apply_operator`]),
    /// between plain values (variables, literals, their fields and tuples, which cannot fail and
    /// cost nothing to compute both), of a type of scalars with an `f64` among them. A best-of
    /// operator (`if best.0 < 0 || next.1 < best.1 { next } else { best }`) folded with the
    /// canonical association combines independent partial results that go either way at
    /// random, where the branch rustc would emit for the `f64` half is mispredicted half the
    /// time. Selects of integers alone are already branch-free.
    fn select(&self, e: &Expr, a: &Expr, b: &Expr) -> bool {
        fn plain(e: &Expr) -> bool {
            match e {
                Expr::Var(_) | Expr::Lit(_) => true,
                Expr::Proj(t, _) => plain(t),
                Expr::Tuple(es) => es.iter().all(plain),
                _ => false,
            }
        }
        /// Whether `runtime::hint::Select` takes `t` (tuples of up to twelve fields), and
        /// whether an `f64` is among its scalars.
        fn selectable(t: &Type) -> Option<bool> {
            match t {
                Type::F64 => Some(true),
                Type::I64 | Type::Bool => Some(false),
                Type::Tuple(ts) if ts.len() <= 12 => ts
                    .iter()
                    .map(selectable)
                    .try_fold(false, |any, f| Some(any | f?)),
                Type::Tuple(_) | Type::Array(_) => None,
            }
        }
        self.operator && plain(a) && plain(b) && selectable(&self.ty(e)) == Some(true)
    }

    /// The owned value of `e`.
    fn owned(&mut self, e: &Expr) -> TokenStream {
        let t = self.ty(e);
        let x = self.val(e);
        own(self.v, &t, &x)
    }

    /// [`Emitter::apply`] with the code in the bindings' scope written by `body` (called with
    /// the parameters in scope), and the type of the lambda's body.
    fn apply_with(
        &mut self,
        l: &Lambda,
        args: &[(Type, TokenStream)],
        body: impl FnOnce(&mut Self) -> TokenStream,
    ) -> (TokenStream, Type) {
        let binds: Vec<TokenStream> = l
            .params
            .iter()
            .zip(args)
            .map(|((n, _), (_, a))| {
                let id = var(n);
                quote!(let #id = #a;)
            })
            .collect();
        let depth = self.env.len();
        self.env.extend(
            l.params
                .iter()
                .zip(args)
                .map(|((n, _), (t, _))| (n.clone(), t.clone())),
        );
        let t = self.ty(&l.body);
        // A lambda may run many times: only what it binds moves in it (`last_use.rs` never
        // moves a variable of its scope by a read under it).
        for ((n, _), (ta, _)) in l.params.iter().zip(args) {
            self.bind_moves(n, ta, &l.body);
        }
        let body = body(self);
        self.env.truncate(depth);
        (quote!({ #(#binds)* #body }), t)
    }

    /// The value of `e`.
    fn val(&mut self, e: &Expr) -> TokenStream {
        match e {
            Expr::Var(n) => {
                let t = self.ty(e);
                let id = var(n);
                if self.moving.contains(&node(e)) {
                    quote!(#id)
                } else {
                    self.reborrow(&t, &quote!(&#id))
                }
            }
            Expr::Lit(s) => ops::literal(*s),
            Expr::Tuple(es) => {
                let es = es.iter().map(|x| self.val(x));
                quote!((#(#es,)*))
            }
            // One class of a filter: only that class is built.
            Expr::Proj(t, i) if matches!(unfused(t), Expr::Filter(..)) => {
                let Expr::Filter(ps, a) = unfused(t) else {
                    unreachable!("matched above")
                };
                self.filter(ps, a, Some(*i))
            }
            Expr::Proj(t, i) => {
                let idx = syn::Index::from(*i);
                if let Expr::Var(n) = &**t {
                    let ti = self.ty(e);
                    let id = var(n);
                    self.reborrow(&ti, &quote!(&#id.#idx))
                } else {
                    let t = self.val(t);
                    quote!((#t).#idx)
                }
            }
            // A map whose lanes are only concatenated, with other parts between: the lanes
            // append to one buffer (`map_parts.rs`).
            Expr::Let(..) if let Some(mp) = self.owning_map_parts(e) => {
                let v = self.v;
                let et = oty(&self.elem(e));
                let appended = self.map_parts(&mp, &quote!(&mut __o));
                quote!({
                    let mut __o = #v::lane::Pieces::<#et>::new();
                    #appended
                    #v::lane::Cow::<[#et]>::Owned(__o.into_vec()?)
                })
            }
            Expr::Let(n, x, b) if let Some((fields, entered, rest)) = self.destructure(n, x, b) => {
                let tb = self.ty(rest);
                let body = self.val(rest);
                let body = own(self.v, &tb, &body);
                self.env.truncate(self.env.len() - entered);
                self.lift(&tb, &quote!({ #fields #body }))
            }
            Expr::Let(n, x, b) => {
                let tx = self.ty(x);
                let x = self.val(x);
                let id = var(n);
                self.enter_let(n, tx, b);
                let tb = self.ty(b);
                let r = if matches!(&**b, Expr::Var(m) if m == n) {
                    // `let x = .. in x` hands its value over.
                    quote!({ let #id = #x; #id })
                } else {
                    let body = self.val(b);
                    let body = own(self.v, &tb, &body);
                    let block = quote!({ let #id = #x; #body });
                    self.lift(&tb, &block)
                };
                self.env.pop();
                r
            }
            Expr::Fused(f) => match &f.form {
                FusedForm::ScatterProgressions {
                    dest,
                    progressions: Expr::Map(p, arrays),
                    value,
                } => self.scatter_progressions(e, dest, p, arrays, value),
                _ => self.val(&f.original),
            },
            Expr::If(c, a, b) => {
                let select = self.select(e, a, b);
                let (c, a, b) = (self.val(c), self.val(a), self.val(b));
                if select {
                    let rt = self.rt;
                    quote!(#rt::hint::select(#c, #a, #b))
                } else {
                    quote!(if #c { #a } else { #b })
                }
            }
            Expr::Unary(op, a) => {
                let t = self.scalar(a);
                let a = self.val(a);
                let o = self.rt;
                let o = quote!(#o::expr::op);
                ops::unary(*op, t, &quote!((#a)), &o)
                    .unwrap_or_else(|| unreachable!("checked program: {op:?} on {t:?}"))
            }
            Expr::Binary(op, a, b) => self.binary(*op, e, a, b),
            Expr::Ternary(op, a, b, c) => {
                let v = self.v;
                let t = self.scalar(a);
                let (a, b, c) = (self.val(a), self.val(b), self.val(c));
                let rt = self.rt;
                if let Some(Applied::Total(x)) =
                    ops::ternary(*op, t, [&a, &b, &c], &quote!(#rt::expr::op))
                {
                    return x;
                }
                // An operator that may fail: the runtime's definition with its error.
                let name = format_ident!("{}", format!("{op:?}"));
                let (k, to) = (scalar_ctor(t), as_scalar(t));
                quote!(#v::lane::#to(#v::lane::ternary(
                    #v::ir::TernaryOp::#name,
                    #v::ir::Scalar::#k(#a),
                    #v::ir::Scalar::#k(#b),
                    #v::ir::Scalar::#k(#c),
                    __lane,
                )?))
            }
            Expr::Call(name, args) => {
                let ret = self.program.function(name).map_or_else(
                    || unreachable!("checked program: `{name}` exists"),
                    |f| f.ret.clone(),
                );
                let f = function_ident(name);
                self.call(e, args, |em, args| {
                    em.lift(&ret, &quote!(#f(__ctx, __lane, #(#args),*)?))
                })
            }
            _ => self.array(e),
        }
    }

    /// The fusion `scatter-progressions` (`scatter(dest, concat(map(|..| iota(len, start, step),
    /// arrays..)), replicate(_, value))`, [`FusedForm::ScatterProgressions`]): each lane's
    /// progression computed by `f` (the mapped function with its `iota` replaced by the tuple of
    /// its operands) and checked as that `iota` checks its length, in the same lane; then the
    /// destination and the value, in the original's order; then every position written in place.
    /// The array of indices is never built.
    fn scatter_progressions(
        &mut self,
        e: &Expr,
        dest: &Expr,
        f: &Lambda,
        arrays: &[Expr],
        value: &Expr,
    ) -> TokenStream {
        let v = self.v;
        let m = self.lanes_with("map", f, arrays, false, |em| {
            let triple = em.owned(&f.body);
            quote!({
                let (__l, __s, __d): (i64, i64, i64) = #triple;
                #v::lane::progression(__l, __s, __d, __lane)?
            })
        });
        let (binds, check, n, weight, body) = (&m.binds, &m.check, &m.len, &m.weight, &m.body);
        let (d, x) = (self.val(dest), self.val(value));
        let et = match self.ty(e) {
            Type::Array(el) => oty(&el),
            other => unreachable!("checked program: a scatter gives an array, not {other}"),
        };
        quote!({
            let __p = {
                #(#binds)*
                #check
                __ctx.map(#n, #weight, |__ctx: &#v::lane::Ctx, __i: usize| -> #v::Result<#v::lane::Progression> {
                    let __lane = __i;
                    ::std::result::Result::Ok(#body)
                })?
            };
            let __d = #d;
            let __x = #x;
            #v::lane::Cow::<[#et]>::Owned(#v::lane::scatter_progressions(__d, &__p, __x, __lane)?)
        })
    }

    fn scalar(&self, e: &Expr) -> ScalarType {
        self.ty(e)
            .scalar()
            .unwrap_or_else(|| unreachable!("checked program: scalar expected"))
    }

    fn binary(&mut self, op: BinaryOp, e: &Expr, a: &Expr, b: &Expr) -> TokenStream {
        let v = self.v;
        let rt = self.rt;
        let t = self.scalar(a);
        // Both operands are evaluated, as the IR's operators always are.
        let (a, b) = (self.val(a), self.val(b));
        let (ta, tb) = (quote!(__a), quote!(__b));
        let typed = match ops::binary(op, t, &ta, &tb, &quote!(#rt::expr::op)) {
            Some(Applied::Total(x)) => {
                return quote!({ let (__a, __b) = (#a, #b); #x });
            }
            Some(Applied::Partial(x)) => Some(x),
            None => None,
        };
        // An operator that may fail: the runtime's definition with its error, which the typed
        // operator (inlined, the operator constant) leaves to the general one when it fails.
        let name = format_ident!("{}", format!("{op:?}"));
        let c = scalar_ctor(t);
        let to = as_scalar(self.scalar(e));
        let general = quote!(#v::lane::#to(#v::lane::binary(
            #v::ir::BinaryOp::#name,
            #v::ir::Scalar::#c(__a),
            #v::ir::Scalar::#c(__b),
            __lane,
        )?));
        let value = typed.map_or(general.clone(), |x| {
            quote!(match #x {
                ::std::option::Option::Some(__v) => __v,
                ::std::option::Option::None => #general,
            })
        });
        quote!({ let (__a, __b) = (#a, #b); #value })
    }

    /// The array operations.
    fn array(&mut self, e: &Expr) -> TokenStream {
        let v = self.v;
        let cow = quote!(#v::lane::Cow);
        // A computed array, owned (its element type named: `Cow` does not infer it).
        let owned = if let Type::Array(el) = self.ty(e) {
            let et = oty(&el);
            quote!(#v::lane::Cow::<[#et]>::Owned)
        } else {
            quote!(#v::lane::Cow::Owned)
        };
        match e {
            Expr::ArrayLit(t, es) => {
                let et = oty(t);
                let es = self.owned_parts(t, es);
                quote!(#owned(::std::vec::Vec::<#et>::from([#(#es),*])))
            }
            Expr::Index(a, i) => {
                let et = self.elem(a);
                let i = self.val(i);
                if let Expr::Var(n) = &**a
                    && self.moving.contains(&node(a))
                {
                    // The array's last read: the element (no array in it) copied out, the
                    // array freed.
                    let id = var(n);
                    let x = quote!({
                        let __i = #i;
                        let __a = #id;
                        ::std::clone::Clone::clone(#v::lane::index(&__a[..], __i, __lane)?)
                    });
                    self.lift(&et, &x)
                } else if let Expr::Var(n) = &**a {
                    let id = var(n);
                    self.borrow(&et, &quote!(#v::lane::index(&#id[..], #i, __lane)?))
                } else {
                    let a = self.val(a);
                    let x = quote!({
                        let __a = #a;
                        let __i = #i;
                        #v::lane::index(&__a[..], __i, __lane)?.clone()
                    });
                    self.lift(&et, &x)
                }
            }
            // The length of a filter's class is a count: nothing is copied.
            Expr::Length(a) if matches!(unfused(a), Expr::Proj(f, _) if matches!(unfused(f), Expr::Filter(..))) =>
            {
                let Expr::Proj(f, class) = unfused(a) else {
                    unreachable!("matched above")
                };
                let Expr::Filter(ps, arr) = unfused(f) else {
                    unreachable!("matched above")
                };
                let (arr, chain) = self.classify(ps, arr);
                quote!({
                    let __a = #arr;
                    let mut __n: i64 = 0;
                    for __i in 0..__a.len() {
                        let __lane = __i;
                        let __x = &__a[__i];
                        let __k: usize = #chain;
                        __n += i64::from(__k == #class);
                    }
                    __n
                })
            }
            Expr::Length(a) if matches!(&**a, Expr::Var(r) if self.rows.contains(r)) => {
                let Expr::Var(r) = &**a else {
                    unreachable!("matched above")
                };
                let id = var(r);
                quote!((#v::lane::RowsOf::count(&#id) as i64))
            }
            Expr::Length(a) => {
                let a = self.val(a);
                quote!(((#a).len() as i64))
            }
            Expr::Iota { len, start, step } => {
                let (n, s, d) = (self.val(len), self.val(start), self.val(step));
                quote!({
                    let __n = #v::lane::count::<i64>("iota", #n, __lane)?;
                    let __s = #s;
                    let __d = #d;
                    #owned(#v::lane::iota(__n, __s, __d))
                })
            }
            Expr::Replicate(n, x) => {
                let t = self.ty(x);
                let ot = oty(&t);
                let n = self.val(n);
                let x = self.val(x);
                let x = own(self.v, &t, &x);
                quote!({
                    let __n = #v::lane::count::<#ot>("replicate", #n, __lane)?;
                    let __x: #ot = #x;
                    #owned(#v::lane::filled(__x, __n))
                })
            }
            Expr::Slice(a, s, l) => {
                let (s, l) = (self.val(s), self.val(l));
                if let Expr::Var(n) = &**a
                    && self.moving.contains(&node(a))
                {
                    // The array's last read, where the part is made owned: the part copied
                    // out (as making it owned would), the rest freed.
                    let id = var(n);
                    quote!({
                        let __s = #s;
                        let __l = #l;
                        let __a = #id;
                        #owned(#v::lane::copied(#v::lane::slice(&__a[..], __s, __l, __lane)?))
                    })
                } else if let Expr::Var(n) = &**a {
                    let id = var(n);
                    quote!({
                        let __s = #s;
                        let __l = #l;
                        #cow::Borrowed(#v::lane::slice(&#id[..], __s, __l, __lane)?)
                    })
                } else {
                    let a = self.val(a);
                    quote!({
                        let __a = #a;
                        let __s = #s;
                        let __l = #l;
                        #owned(#v::lane::copied(#v::lane::slice(&__a[..], __s, __l, __lane)?))
                    })
                }
            }
            // A chain of appends (`[a, b, c].concat()` is `(a ++ b) ++ c`) is the concat of a
            // literal of its operands, in order (below): each element copied once into an output
            // allocated at its length, where appending pairwise copied the left part again at
            // every link.
            Expr::Append(..) => {
                let mut parts = Vec::new();
                appended(e, &mut parts);
                self.concat_literal(&owned, &parts)
            }
            // The parts of a literal are read in place, not copied into an array first.
            Expr::Concat(a) if matches!(unfused(a), Expr::ArrayLit(_, es) if !es.is_empty()) => {
                let Expr::ArrayLit(_, es) = unfused(a) else {
                    unreachable!("matched above")
                };
                let parts: Vec<&Expr> = es.iter().collect();
                self.concat_literal(&owned, &parts)
            }
            Expr::Concat(a) if matches!(unfused(a), Expr::Map(..)) => {
                let Expr::Map(f, arrays) = unfused(a) else {
                    unreachable!("matched above")
                };
                let out = self.flat_map(e, f, arrays);
                quote!(#owned(#out))
            }
            Expr::Concat(a) => {
                let a = self.val(a);
                quote!(#owned(#v::lane::concat(&(#a)[..])))
            }
            Expr::Scatter(d, i, x) => {
                let (d, i, x) = (self.val(d), self.val(i), self.val(x));
                quote!({
                    let __d = #d;
                    let __i = #i;
                    let __v = #x;
                    #owned(#v::lane::scatter(__d, &__i[..], &__v[..], __lane)?)
                })
            }
            Expr::Sort(op, a) => {
                let a = self.val(a);
                let sorted = match op {
                    SortOp::Values => quote!(#v::lane::sort_in(__lanes, &(#a)[..])),
                    SortOp::Indices => quote!(#v::lane::argsort_in(__lanes, &(#a)[..])?),
                };
                quote!(#owned(#sorted))
            }
            Expr::Map(f, arrays) => {
                let out = self.map("map", f, arrays);
                quote!(#owned(#out))
            }
            Expr::Redomap(op, z, f, arrays) => self.redomap("redomap", op, z, f, arrays),
            // A reduction of a map folds the mapped values as they are computed.
            Expr::Reduce(op, z, a) if matches!(unfused(a), Expr::Map(..)) => {
                let Expr::Map(f, arrays) = unfused(a) else {
                    unreachable!("matched above")
                };
                self.redomap("map", op, z, f, arrays)
            }
            // The same under lets (`enumerate()` binds its array): the lets first.
            Expr::Reduce(op, z, a) if let Some(e) = self.reduce_under_lets(op, z, a) => {
                self.val(&e)
            }
            Expr::Reduce(op, z, a) | Expr::Scan(op, z, a) => {
                let t = self.ty(z);
                let z = self.val(z);
                let z = own(self.v, &t, &z);
                let a = self.val(a);
                let reduce = matches!(e, Expr::Reduce(..));
                let kind = if reduce { Fold::Reduce } else { Fold::Scan };
                let r = self.fold(op, &t, &quote!(__z), &quote!(&__a[..]), kind);
                let r = quote!({ let __z = #z; let __a = #a; #r });
                if reduce {
                    self.lift(&t, &r)
                } else {
                    quote!(#owned(#r))
                }
            }
            Expr::Hist {
                bins,
                op,
                identity,
                indices,
                values,
            } => {
                let t = self.ty(identity);
                let ot = oty(&t);
                if let Some(fused) = self.hist_of_maps(&t, bins, op, identity, indices, values) {
                    return quote!(#owned(#fused));
                }
                let bins = self.val(bins);
                let z = self.val(identity);
                let (k, x) = (self.val(indices), self.val(values));
                let r = self.fold(
                    op,
                    &t,
                    &quote!(__z),
                    &quote!(&__v[..]),
                    Fold::Hist(quote!(__bins), quote!(&__k[..])),
                );
                quote!({
                    let __bins = #v::lane::bins::<#ot>(#bins, __lane)?;
                    let __z = #z;
                    let __k = #k;
                    let __v = #x;
                    #v::lane::same_lengths("hist", &[__k.len(), __v.len()])?;
                    #owned(#r)
                })
            }
            Expr::Filter(ps, a) => self.filter(ps, a, None),
            Expr::Partition {
                classes,
                interest,
                key,
                array,
            } => self.partition(*classes, interest, key, array),
            Expr::Loop { init, form, body } => self.looping(init, form, body),
            other => unreachable!("handled by val: {}", other.kind()),
        }
    }

    /// A reduction by index whose indices and values are maps of one array each with bodies
    /// that cannot fail (what a `for &k in keys { c[k] += v }` loop lowers to), with a built-in
    /// operator: each index and value computed as it is folded in (no array of either), the
    /// blocks of the canonical association split across the pool when heavy
    /// (`lane::hist_by_in`). `None` for any other reduction by index.
    fn hist_of_maps(
        &mut self,
        t: &Type,
        bins: &Expr,
        op: &ReduceOp,
        identity: &Expr,
        indices: &Expr,
        values: &Expr,
    ) -> Option<TokenStream> {
        let v = self.v;
        let (Expr::Map(fk, ka), Expr::Map(fv, va)) = (unfused(indices), unfused(values)) else {
            return None;
        };
        let ([ka], [va]) = (&ka[..], &va[..]) else {
            return None;
        };
        let f = t.scalar().and_then(|s| numeric_step(op, s, self.rt))?;
        let (ek, ev) = (self.elem(ka), self.elem(va));
        if !self.infallible_lambda(fk, &ek) || !self.infallible_lambda(fv, &ev) {
            return None;
        }
        let ot = oty(t);
        let bins = self.val(bins);
        let z = self.val(identity);
        let (ka, va) = (self.val(ka), self.val(va));
        let (key, _) = self.apply(fk, &[(ek.clone(), self.borrow(&ek, &quote!(__x)))]);
        let (value, _) = self.apply(fv, &[(ev.clone(), self.borrow(&ev, &quote!(__x)))]);
        let (tk, tv) = (oty(&ek), oty(&ev));
        Some(quote!({
            let __bins = #v::lane::bins::<#ot>(#bins, __lane)?;
            let __z = #z;
            let __ka = #ka;
            let __va = #va;
            #v::lane::same_lengths("hist", &[__ka.len(), __va.len()])?;
            #v::lane::hist_by_in(
                __lanes,
                __bins,
                __z,
                &__ka[..],
                &__va[..],
                |__x: &#tk| #key,
                |__x: &#tv| #value,
                #f,
            )
        }))
    }

    /// `redomap(op, z, f, arrays)`: the values of `f` over `arrays` folded as they are
    /// computed (no array in between), the canonical association's bits.
    /// `name` is the operation a length error names.
    fn redomap(
        &mut self,
        name: &str,
        op: &ReduceOp,
        z: &Expr,
        f: &Lambda,
        arrays: &[Expr],
    ) -> TokenStream {
        let t = self.ty(z);
        let z = self.val(z);
        let z = own(self.v, &t, &z);
        let elems: Vec<Type> = arrays.iter().map(|a| self.elem(a)).collect();
        let total = self.infallible_with(f, &elems);
        // The mapped values are folded as they are computed (no array in between).
        let m = self.lanes(name, f, arrays);
        let (binds, check, n, body, ot) = (&m.binds, &m.check, &m.len, &m.body, &m.ty);
        let v = self.v;
        let splits = !uses_ctx(&f.body);
        let kind = if total {
            // No value can fail: each is itself, not a result.
            let get = quote!(|__i: usize| -> #ot { #body });
            Fold::Total(n.clone(), get, splits)
        } else {
            let get = quote!(|__i: usize| -> #v::Result<#ot> {
                let __lane = __i;
                ::std::result::Result::Ok(#body)
            });
            Fold::Mapped(n.clone(), get, splits)
        };
        let r = self.fold(op, &t, &quote!(__z), &quote!(()), kind);
        let r = quote!({ let __z = #z; #(#binds)* #check #r });
        self.lift(&t, &r)
    }

    /// `f` over the elements of equally long `arrays` (`op` names the operation in a length
    /// error): an expression of the `Vec` of owned results, each element's lane its position.
    /// The lanes run one after another or in parallel as the run decides (`lane::Ctx::map`).
    fn map(&mut self, op: &str, f: &Lambda, arrays: &[Expr]) -> TokenStream {
        let v = self.v;
        let elems: Vec<Type> = arrays.iter().map(|a| self.elem(a)).collect();
        let total = self.infallible_with(f, &elems);
        // Lanes that call a recursive function take their arrays (`recursion.rs`).
        let owning = owning_map(self.program, &self.env, f, arrays);
        let m = self.lanes_with(op, f, arrays, owning, |em| em.owned(&f.body));
        let (binds, check, n, weight, body, ot) =
            (&m.binds, &m.check, &m.len, &m.weight, &m.body, &m.ty);
        if m.owning.is_some() {
            let into = self.map_into(&m, &quote!(&mut __o));
            return quote!({
                #(#binds)*
                #check
                let mut __o = #v::lane::Pieces::new();
                #into;
                __o.into_vec()?
            });
        }
        if total && let Some(slices) = &m.sliced {
            // No lane can fail, and the lanes read their slices by `__i` only: each block of
            // lanes indexes the slices cut to it, which rustc vectorises.
            return quote!({
                #(#binds)*
                #check
                __ctx.map_total_blocks(
                    #n,
                    #weight,
                    |__start: usize, __len: usize| (#(&#slices[__start..][..__len],)*),
                    |&(#(#slices,)*), __i: usize| -> #ot { #body },
                )
            });
        }
        if total {
            // No lane can fail: a plain collect, no result per lane.
            return quote!({
                #(#binds)*
                #check
                __ctx.map_total(#n, #weight, |__i: usize| -> #ot { #body })
            });
        }
        quote!({
            #(#binds)*
            #check
            __ctx.map(#n, #weight, |__ctx: &#v::lane::Ctx, __i: usize| -> #v::Result<#ot> {
                let __lane = __i;
                ::std::result::Result::Ok(#body)
            })?
        })
    }

    /// The parts of `f` over the elements of `arrays` that a map and a fused reduction share:
    /// the arrays bound (a range as a `lane::Iota`, never materialised), their length check,
    /// the number of lanes, each lane's weight and the body of lane `__i`.
    fn lanes(&mut self, op: &str, f: &Lambda, arrays: &[Expr]) -> Lanes {
        self.lanes_with(op, f, arrays, false, |em| em.owned(&f.body))
    }

    /// [`Emitter::lanes`] with the lane's code written by `body` (called with the lambda's
    /// parameters bound and in scope) instead of the owned value of `f`'s body.
    ///
    /// With `owning` (one array, of arrays, computed: [`owning_map`]), each lane takes its
    /// element by value (`lane::Owning`) instead of borrowing it from the array.
    fn lanes_with(
        &mut self,
        op: &str,
        f: &Lambda,
        arrays: &[Expr],
        owning: bool,
        body: impl FnOnce(&mut Self) -> TokenStream,
    ) -> Lanes {
        let v = self.v;
        let elems: Vec<Type> = arrays.iter().map(|a| self.elem(a)).collect();
        let names: Vec<proc_macro2::Ident> = (0..arrays.len())
            .map(|k| format_ident!("__a{}", k))
            .collect();
        let mut binds = Vec::new();
        let mut args = Vec::new();
        let mut lens = Vec::new();
        let mut rows_first = false;
        // Whether every array is a slice held whole, each lane its element `__aK[__i]`.
        let mut slices = true;
        // Names the lanes' code reads: a `let` peeled off a fused array must not shadow them.
        let mut read = Vec::new();
        free_vars(
            &f.body,
            &mut f.params.iter().map(|(n, _)| n.clone()).collect(),
            &mut read,
        );
        let free_in_f = read.len();
        let mut reads = read.clone();
        for a in arrays {
            free_vars(a, &mut Vec::new(), &mut reads);
        }
        let mut index_rows = Vec::new();
        // The slices after the first, cut to the first's length once the check passed: a
        // fold's loop over `0..__a0.len()` then reads them without a bounds check per element
        // (smvm's `cs.zip(xs)`: one check fewer for each of a row's elements).
        let mut cut = Vec::new();
        for (k, ((a, t), n)) in arrays.iter().zip(&elems).zip(&names).enumerate() {
            let (arg, len, source) = self.lane_array(n, a, t, owning, &reads, &mut binds);
            args.push((t.clone(), arg));
            lens.push(len);
            let rows = source == Source::Rows;
            slices &= source == Source::Slice;
            if k > 0 && source == Source::Slice {
                cut.push(n.clone());
            }
            rows_first |= rows && k == 0;
            if rows && *t == Type::Array(Box::new(Type::I64)) {
                index_rows.push(k);
            }
        }
        let (body, tb) = self.apply_with(f, &args, body);
        let first = &names[0];
        let len0 = &lens[0];
        let check = (arrays.len() > 1).then(|| {
            quote! {
                #v::lane::same_lengths(#op, &[#(#lens),*])?;
                #(let #cut = &#cut[..#len0];)*
            }
        });
        // The work of a lane, for the choice of parallel lanes and their balance: the elements
        // of its first array's element when that is an array, plus those of the arrays in
        // scope that the body reads whole (iterates: a free array only indexed costs a read
        // per index, which the lane's own elements count).
        let arrays: Vec<(&String, &Type)> = read[..free_in_f]
            .iter()
            .filter_map(|n| match self.env.iter().rev().find(|(m, _)| m == n) {
                Some((_, Type::Array(el))) => Some((n, &**el)),
                _ => None,
            })
            .collect();
        let free: Vec<TokenStream> = arrays
            .iter()
            .filter(|(n, _)| self.whole.reads(&f.body, n))
            .map(|(n, _)| {
                let id = var(n);
                if self.rows.contains(n) {
                    quote!(#v::lane::RowsOf::count(&#id))
                } else {
                    quote!(#id.len())
                }
            })
            .collect();
        // The arrays in scope that the lanes read, as slices taken once here: the lanes then
        // index a slice, not a `Cow` whose variant every read would test again.
        for (n, el) in &arrays {
            if !self.rows.contains(n) {
                let (id, et) = (var(n), oty(el));
                binds.push(quote!(let #id: &[#et] = &#id[..];));
            }
        }
        let shared = quote!((0usize #(+ #free)*));
        // Gathers from an array in scope at the elements of a lane's row of indices (smvm's
        // `v[c]`): asked for `lane::LANES_AHEAD` lanes early where `lane::gathers_pay` says,
        // once per map, that they go to memory (`row_gathers.rs`).
        let mut prefetches = Vec::new();
        for &k in &index_rows {
            let Some((row, _)) = f.params.get(k) else {
                continue;
            };
            let scalars_in_scope = |p: &str| {
                !self.rows.iter().any(|r| r == p)
                    && arrays
                        .iter()
                        .any(|(n, el)| n.as_str() == p && !matches!(el, Type::Array(_)))
            };
            for p in row_gathers::gathered_by(f, row, scalars_in_scope) {
                let pays = format_ident!("__prefetch{}", prefetches.len());
                let (p, rows) = (var(&p), &names[k]);
                binds.push(quote!(let #pays = #v::lane::gathers_pay(#p, #rows);));
                prefetches.push(quote!(if #pays {
                    #v::lane::prefetch_row_gathers(#p, #rows, __i + #v::lane::LANES_AHEAD);
                }));
            }
        }
        let sliced = (slices && prefetches.is_empty()).then(|| names.clone());
        let body = if prefetches.is_empty() {
            body
        } else {
            quote!({ #(#prefetches)* #body })
        };
        // Rows of a `Nested` and lanes of scalars know their weights' sums without a walk
        // (`lane::Weights`).
        let weight = if rows_first {
            quote!(#v::lane::RowWeights::new(#first, #shared))
        } else if owning {
            quote!(|__i: usize| #first.len_at(__i) + #shared)
        } else if matches!(elems[0], Type::Array(_)) {
            quote!(|__i: usize| #first[__i].len() + #shared)
        } else {
            quote!(#v::lane::Uniform(#shared))
        };
        Lanes {
            binds,
            check,
            len: lens[0].clone(),
            weight,
            owning: owning.then(|| (first.clone(), shared)),
            sliced,
            body,
            ty: oty(&tb),
        }
    }

    /// Binds the array `a` (elements of type `t`) of a map's lanes as `n` (its code pushed to
    /// `binds`) and gives the value of lane `__i`'s element, the number of lanes, and where
    /// the elements come from ([`Source`]). A range is a `lane::Iota`, never
    /// materialised; with `owning`, each lane takes its element by value (`lane::Owning`).
    /// A map whose lambda cannot fail and makes no array ([`Emitter::fusible_map`]) is not
    /// materialised either: its arrays are bound in its place and each lane computes its own
    /// element (the pairs of an `enumerate()` read in place; a map per lane of a nearest-of-k
    /// search built 16 pairs per point first). `read` are the names the lanes' code reads.
    fn lane_array(
        &mut self,
        n: &proc_macro2::Ident,
        a: &Expr,
        t: &Type,
        owning: bool,
        read: &[String],
        binds: &mut Vec<TokenStream>,
    ) -> (TokenStream, TokenStream, Source) {
        let v = self.v;
        if let Expr::Iota { len, start, step } = a {
            let (l, s, d) = (self.val(len), self.val(start), self.val(step));
            binds.push(quote!(let #n = #v::lane::Iota::new(
                #v::lane::count::<i64>("iota", #l, __lane)?, #s, #d);));
            return (quote!(#n.at(__i)), quote!(#n.len()), Source::Other);
        }
        if let Expr::Var(r) = a
            && self.rows.contains(r)
        {
            let id = var(r);
            binds.push(quote!(let #n = &#id;));
            return (
                quote!(#v::lane::Cow::Borrowed(#v::lane::RowsOf::row(#n, __i))),
                quote!(#v::lane::RowsOf::count(#n)),
                Source::Rows,
            );
        }
        if owning {
            // A literal's parts handed over as they are (no `Vec` of them first): slices of
            // arrays in scope borrowed where every part is one, the others owned.
            if let Expr::ArrayLit(et, es) = unfused(a) {
                let borrowed: Option<Vec<TokenStream>> =
                    es.iter().map(|x| self.borrowed_slice(x)).collect();
                let es = if let Some(borrowed) = borrowed {
                    borrowed
                } else {
                    let Type::Array(inner) = et else {
                        unreachable!("an owning map's parts are arrays")
                    };
                    let ot = oty(inner);
                    let owned = self.owned_parts(et, es);
                    owned
                        .iter()
                        .map(|x| quote!(#v::lane::Cow::<[#ot]>::Owned(#x)))
                        .collect()
                };
                binds.push(quote!(let #n = #v::lane::Owning::new([#(#es),*]);));
                return (quote!(__item), quote!(#n.len()), Source::Other);
            }
            let x = self.val(a);
            binds.push(quote!(let #n = #v::lane::Owning::new(#v::lane::owned(#x));));
            return (quote!(__item), quote!(#n.len()), Source::Other);
        }
        if !holds_array(t) && self.fusible_map(a, read, &mut Vec::new()) {
            return self.fused_lane_array(n, a, read, binds);
        }
        // The array held once, its lanes read through a slice (not a `Cow` whose variant
        // every element's read would test again).
        let x = self.val(a);
        let held = format_ident!("{}_held", n);
        binds.push(quote!(let #held = #x; let #n = &#held[..];));
        (
            self.borrow(t, &quote!(&#n[__i])),
            quote!(#n.len()),
            Source::Slice,
        )
    }

    /// A part of an owning map's literal that is a slice of an array variable in scope
    /// (`xs[..half]` of a divide and conquer), as a `Cow` borrowed from the variable: the
    /// lane hands the slice down without a copy. The `let`s that the slicing syntax binds
    /// around it (scalars, and other names for array variables, bound as slices) are kept;
    /// anything else, or a `let` whose value moves an array, gives `None`.
    fn borrowed_slice(&mut self, e: &Expr) -> Option<TokenStream> {
        let v = self.v;
        match e {
            Expr::Let(m, x, b) => {
                let tx = self.ty(x);
                let id = var(m);
                let bind = match (&tx, &**x) {
                    (Type::Array(el), Expr::Var(n)) if self.array_var(n) => {
                        let (from, et) = (var(n), oty(el));
                        quote!(let #id: &[#et] = &#from[..];)
                    }
                    _ if !holds_array(&tx) && !self.moves_an_array(x) => {
                        let x = self.val(x);
                        quote!(let #id = #x;)
                    }
                    _ => return None,
                };
                self.env.push((m.clone(), tx));
                let rest = self.borrowed_slice(b);
                self.env.pop();
                let rest = rest?;
                Some(quote!({ #bind #rest }))
            }
            Expr::Slice(a, s, l) => {
                let Expr::Var(n) = &**a else {
                    return None;
                };
                if !self.array_var(n) || self.moves_an_array(s) || self.moves_an_array(l) {
                    return None;
                }
                let (id, s, l) = (var(n), self.val(s), self.val(l));
                Some(quote!({
                    let __s = #s;
                    let __l = #l;
                    #v::lane::Cow::Borrowed(#v::lane::slice(&#id[..], __s, __l, __lane)?)
                }))
            }
            _ => None,
        }
    }

    /// Whether `n` names an array (of scalars or tuples read as a slice: not the rows of a
    /// `Nested` parameter) in scope.
    fn array_var(&self, n: &str) -> bool {
        !self.rows.iter().any(|r| r == n)
            && self
                .env
                .iter()
                .rev()
                .find(|(m, _)| m == n)
                .is_some_and(|(_, t)| matches!(t, Type::Array(_)))
    }

    /// Whether the code of `e` moves an array variable (one of its reads is the last).
    fn moves_an_array(&self, e: &Expr) -> bool {
        if let Expr::Var(n) = e {
            return self.moving.contains(&node(e)) && self.array_var(n);
        }
        let (exprs, lambdas) = flatland_vectoriser::ir::children(e);
        exprs.into_iter().any(|c| self.moves_an_array(c))
            || lambdas.into_iter().any(|l| self.moves_an_array(&l.body))
    }

    /// Whether `a` is a map whose lambda cannot fail and calls nothing (or a range), so that a
    /// lane may compute its element in place of the array ([`Emitter::lane_array`]), under `let`s
    /// (`peeled`, outermost first) that the fused code may bind in the lanes' scope: none binds
    /// a name in `read` (what the lanes' code and the map's arrays read from outside them) or
    /// one bound by a `let` around it, and the map's lambda reads none of them (it runs in the
    /// lanes, after every array is bound).
    fn fusible_map(&mut self, a: &Expr, read: &[String], peeled: &mut Vec<String>) -> bool {
        match unfused(a) {
            Expr::Let(n, x, b) if !read.contains(n) && !peeled.contains(n) => {
                let tx = self.ty(x);
                self.env.push((n.clone(), tx));
                peeled.push(n.clone());
                let ok = self.fusible_map(b, read, peeled);
                peeled.pop();
                self.env.pop();
                ok
            }
            Expr::Map(g, arrays) if !arrays.is_empty() && !uses_ctx(&g.body) => {
                let mut by_g = Vec::new();
                free_vars(
                    &g.body,
                    &mut g.params.iter().map(|(n, _)| n.clone()).collect(),
                    &mut by_g,
                );
                if by_g.iter().any(|n| peeled.contains(n)) {
                    return false;
                }
                let elems: Vec<Type> = arrays.iter().map(|x| self.elem(x)).collect();
                self.infallible_with(g, &elems)
            }
            // A range under lets (`(lo..hi)` binds its bounds): a `lane::Iota` after them.
            Expr::Iota { .. } => !peeled.is_empty(),
            _ => false,
        }
    }

    /// [`Emitter::lane_array`] of a map that [`Emitter::fusible_map`] accepts: its `let`s and
    /// arrays bound (in the order the map would evaluate them, its length check included),
    /// and lane `__i`'s element the map's lambda applied to theirs.
    fn fused_lane_array(
        &mut self,
        n: &proc_macro2::Ident,
        a: &Expr,
        read: &[String],
        binds: &mut Vec<TokenStream>,
    ) -> (TokenStream, TokenStream, Source) {
        let v = self.v;
        match unfused(a) {
            Expr::Let(m, x, b) => {
                let tx = self.ty(x);
                let x = self.val(x);
                let id = var(m);
                binds.push(quote!(let #id = #x;));
                self.enter_let(m, tx, b);
                let r = self.fused_lane_array(n, b, read, binds);
                self.env.pop();
                r
            }
            Expr::Map(g, arrays) => {
                // A `let` peeled off an inner array must not shadow what the lambda or the
                // other arrays read either.
                let mut inner_read = read.to_vec();
                free_vars(
                    &g.body,
                    &mut g.params.iter().map(|(n, _)| n.clone()).collect(),
                    &mut inner_read,
                );
                for x in arrays {
                    free_vars(x, &mut Vec::new(), &mut inner_read);
                }
                let mut args = Vec::new();
                let mut lens = Vec::new();
                for (k, x) in arrays.iter().enumerate() {
                    let t = self.elem(x);
                    let m = format_ident!("{}_{}", n, k);
                    let (arg, len, _) = self.lane_array(&m, x, &t, false, &inner_read, binds);
                    args.push((t, arg));
                    lens.push(len);
                }
                if lens.len() > 1 {
                    binds.push(quote!(#v::lane::same_lengths("map", &[#(#lens),*])?;));
                }
                let (value, _) = self.apply(g, &args);
                (value, lens[0].clone(), Source::Other)
            }
            Expr::Iota { .. } => self.lane_array(n, a, &Type::I64, false, read, binds),
            _ => unreachable!("fusible_map accepted a map or a range"),
        }
    }

    /// `let x = v.. in reduce(op, z, map(..))` for `reduce(op, z, let x = v.. in map(..))`,
    /// where that evaluates in the same order as far as anyone can tell: `z` cannot fail and
    /// neither it nor `op` reads a name the lets bind. A reduction of an `enumerate()` (a map
    /// under the `let` of its array) then folds its pairs as they are computed, instead of
    /// building them in an array first.
    fn reduce_under_lets(&mut self, op: &ReduceOp, z: &Expr, a: &Expr) -> Option<Expr> {
        let mut binds = Vec::new();
        let mut inner = a;
        while let Expr::Let(n, x, b) = inner {
            binds.push((n, x));
            inner = b;
        }
        if binds.is_empty() || !matches!(unfused(inner), Expr::Map(..)) || !self.infallible(z) {
            return None;
        }
        let mut read = Vec::new();
        free_vars(z, &mut Vec::new(), &mut read);
        if let ReduceOp::Lambda(l) = op {
            let mut bound = l.params.iter().map(|(n, _)| n.clone()).collect();
            free_vars(&l.body, &mut bound, &mut read);
        }
        if binds.iter().any(|(n, _)| read.contains(n)) {
            return None;
        }
        let reduce = Expr::Reduce(op.clone(), Arc::new(z.clone()), Arc::new(inner.clone()));
        Some(binds.into_iter().rev().fold(reduce, |body, (n, x)| {
            Expr::Let(n.clone(), x.clone(), Arc::new(body))
        }))
    }

    /// The canonical fold, scan or reduction by index with `op` of the owned elements `xs`
    /// (a `&[E]`) from the owned identity `z`: an expression of the owned result.
    fn fold(
        &mut self,
        op: &ReduceOp,
        t: &Type,
        z: &TokenStream,
        xs: &TokenStream,
        kind: Fold,
    ) -> TokenStream {
        let v = self.v;
        let rt = self.rt;
        let assoc = quote!(#rt::assoc);
        let builtin = self.builtin_op(op, t);
        let cheap = builtin.is_some();
        // A lambda that cannot fail (its body emits no `?`) is folded as a built-in operator:
        // no error recording per application, and split across the pool when heavy.
        let builtin = builtin.or_else(|| match op {
            ReduceOp::Lambda(l) if self.infallible_lambda(l, t) => {
                let ot = oty(t);
                let args = [
                    (t.clone(), self.lift(t, &quote!(__x))),
                    (t.clone(), self.lift(t, &quote!(__y))),
                ];
                let (body, _) = self.apply_operator(l, &args);
                Some(quote!(|__x: #ot, __y: #ot| -> #ot { #body }))
            }
            _ => None,
        });
        // `all` and `any`: stopped at the first value that decides them.
        let decided = match (op, t) {
            (ReduceOp::And, Type::Bool) => Some(false),
            (ReduceOp::Or, Type::Bool) => Some(true),
            _ => None,
        };
        match (decided, &kind) {
            (Some(or), Fold::Total(n, get, true)) => {
                return quote!(#v::lane::decided_fold_total_in(__lanes, #n, #get, #z, #or));
            }
            // A closure that reads the context stays on this thread (the same stop).
            (Some(or), Fold::Total(n, get, false)) => {
                return quote!(#v::lane::decided_fold(#n, #get, #z, #or));
            }
            _ => {}
        }
        if let Some(f) = builtin {
            return match kind {
                Fold::Reduce => {
                    if let Some(id) = exact_identity(op, t) {
                        quote!(#v::lane::exact_fold_in(__lanes, #xs, #z, #id, #f))
                    } else {
                        quote!(#v::lane::fold_in(__lanes, #xs, #z, #f))
                    }
                }
                // A heavy lane's scan of values without arrays (`Copy` in Rust) across the
                // pool; one of arrays on this thread.
                Fold::Scan if !holds_array(t) => quote!(#v::lane::scan_in(__lanes, #xs, #z, #f)),
                Fold::Scan => quote!(#assoc::scan_inclusive(#xs, #z, #f)),
                Fold::Hist(bins, ks) => quote!(#assoc::hist(#bins, #z, #ks, #xs, #f)),
                Fold::Mapped(n, get, splits) if splits => {
                    quote!(#v::lane::fold_mapped_in(__lanes, #n, #get, #z, #f)?)
                }
                Fold::Mapped(n, get, _) => quote!(#v::lane::fold_mapped(#n, #get, #z, #f)?),
                // A built-in operator's short chain is inlined into the loop over rows; a
                // lambda's stays behind a call (`lane::fold_cheap_total_in`).
                Fold::Total(n, get, true) if cheap => {
                    quote!(#v::lane::fold_cheap_total_in(__lanes, #n, #get, #z, #f))
                }
                Fold::Total(n, get, true) => {
                    quote!(#v::lane::fold_total_in(__lanes, #n, #get, #z, #f))
                }
                Fold::Total(n, get, false) => quote!(#assoc::fold_by(#n, #get, #z, #f)),
            };
        }
        let ReduceOp::Lambda(l) = op else {
            unreachable!("checked program: a built-in operator of its type")
        };
        let ot = oty(t);
        let args = [
            (t.clone(), self.lift(t, &quote!(__x))),
            (t.clone(), self.lift(t, &quote!(__y))),
        ];
        let (body, _) = self.apply_operator(l, &args);
        let f = quote!(|__x: #ot, __y: #ot| -> #v::Result<#ot> {
            ::std::result::Result::Ok(#body)
        });
        match kind {
            Fold::Reduce => quote!(#v::lane::try_fold(#xs, #z, #f)?),
            Fold::Scan => quote!(#v::lane::try_scan(#xs, #z, #f)?),
            Fold::Hist(bins, ks) => quote!(#v::lane::try_hist(#bins, #z, #ks, #xs, #f)?),
            Fold::Mapped(n, get, _) => quote!(#v::lane::try_fold_mapped(#n, #get, #z, #f)?),
            Fold::Total(n, get, _) => {
                quote!(#v::lane::try_fold_mapped(#n, |__i: usize| ::std::result::Result::Ok((#get)(__i)), #z, #f)?)
            }
        }
    }

    /// The code of `op` on two values of type `t` when it is a built-in operator (`None` for a
    /// lambda, or a type the operator does not take).
    fn builtin_op(&self, op: &ReduceOp, t: &Type) -> Option<TokenStream> {
        let rt = self.rt;
        ops::combine(op.bin_op()?, t.scalar()?, &quote!(#rt::expr::op))
    }

    /// Whether the lambda `l`, every parameter of type `t` (an operator's two values, a map's
    /// element), can never fail.
    fn infallible_lambda(&mut self, l: &Lambda, t: &Type) -> bool {
        self.infallible_with(l, &vec![t.clone(); l.params.len()])
    }

    /// Whether the lambda `l`, its parameters of types `ts`, can never fail.
    fn infallible_with(&mut self, l: &Lambda, ts: &[Type]) -> bool {
        if l.params.len() != ts.len() {
            return false;
        }
        let depth = self.env.len();
        self.env.extend(
            l.params
                .iter()
                .zip(ts)
                .map(|((n, _), t)| (n.clone(), t.clone())),
        );
        let ok = self.infallible(&l.body);
        self.env.truncate(depth);
        ok
    }

    /// Whether the code emitted for `e` can never fail (it emits no `?`): scalars, tuples,
    /// `let`, `if`, the operators that cannot fail on their operands ([`ops::binary_can_fail`]),
    /// and the length and the built-in reductions of a variable.
    fn infallible(&mut self, e: &Expr) -> bool {
        match e {
            Expr::Var(_) | Expr::Lit(_) => true,
            Expr::Tuple(es) => es.iter().all(|x| self.infallible(x)),
            Expr::Proj(t, _) => !matches!(unfused(t), Expr::Filter(..)) && self.infallible(t),
            Expr::If(c, a, b) => self.infallible(c) && self.infallible(a) && self.infallible(b),
            Expr::Unary(_, a) => self.infallible(a),
            // The length of a variable, and a built-in reduction of one (`lane::fold_in`).
            Expr::Length(a) => matches!(**a, Expr::Var(_)),
            Expr::Reduce(op, z, a) if matches!(**a, Expr::Var(_)) => {
                let t = self.ty(z);
                self.builtin_op(op, &t).is_some() && self.infallible(z)
            }
            Expr::Ternary(op, a, b, c) => {
                !op.can_fail() && self.infallible(a) && self.infallible(b) && self.infallible(c)
            }
            Expr::Let(n, x, b) => {
                if !self.infallible(x) {
                    return false;
                }
                let tx = self.ty(x);
                self.env.push((n.clone(), tx));
                let ok = self.infallible(b);
                self.env.pop();
                ok
            }
            Expr::Binary(op, a, b) => {
                ops::binary_can_fail(*op, self.scalar(a)) == Some(false)
                    && self.infallible(a)
                    && self.infallible(b)
            }
            _ => false,
        }
    }

    /// `e`, a `concat(map(f, arrays))`, written into its destination: each lane appends its array to
    /// the buffer of its task of lanes (`lane::Ctx::flat_map`), no array per lane where the
    /// lane's value is a filter, a conditional or a `let` of them.
    fn flat_map(&mut self, e: &Expr, f: &Lambda, arrays: &[Expr]) -> TokenStream {
        self.flat_map_with(e, f, arrays, None)
    }

    /// [`Emitter::flat_map`], its lanes appending to the buffer `into` where given
    /// (`lane::Ctx::flat_map_into`: statements) instead of a new array.
    fn flat_map_with(
        &mut self,
        e: &Expr,
        f: &Lambda,
        arrays: &[Expr],
        into: Option<&TokenStream>,
    ) -> TokenStream {
        let v = self.v;
        let et = oty(&self.elem(e));
        let body = f.body.clone();
        // Lanes that call a recursive function take their arrays (`recursion.rs`).
        let owning = owning_map(self.program, &self.env, f, arrays);
        let m = self.lanes_with("map", f, arrays, owning, |em| {
            em.append(&body, &quote!(__out))
        });
        let (binds, check, n, weight, body) = (&m.binds, &m.check, &m.len, &m.weight, &m.body);
        if let Some((arrays, shared)) = &m.owning {
            // The lanes take their arrays by value, as the map hands them over.
            let lane = self.owning_append_lane(body);
            let run = |out: &TokenStream| quote!(__ctx.flat_map_owning_into(#arrays, #shared, #lane, #out)?);
            return if let Some(out) = into {
                let run = run(out);
                quote!({ #(#binds)* #check #run })
            } else {
                let run = run(&quote!(&mut __o));
                quote!({
                    #(#binds)*
                    #check
                    let mut __o = #v::lane::Pieces::new();
                    #run;
                    __o.into_vec()?
                })
            };
        }
        let lane = quote!(|__ctx: &#v::lane::Ctx, __i: usize, __out: &mut #v::lane::Pieces<#et>| -> #v::Result<()> {
            let __lane = __i;
            #body;
            ::std::result::Result::Ok(())
        });
        let run = if let Some(out) = into {
            quote!(__ctx.flat_map_into(#n, #weight, #lane, #out)?)
        } else {
            quote!(__ctx.flat_map(#n, #weight, #lane)?)
        };
        quote!({
            #(#binds)*
            #check
            #run
        })
    }

    /// The [`MapParts`] form of `e` where the map's lanes take their arrays by value (they
    /// call a recursive function: `recursion::owning_map`), the form's only use.
    fn owning_map_parts<'e>(&self, e: &'e Expr) -> Option<MapParts<'e>> {
        let mp = map_parts(e)?;
        owning_map(self.program, &self.env, mp.f, mp.arrays).then_some(mp)
    }

    /// The statement appending the parts of `mp` to `out` (a `&mut lane::Pieces`): each lane
    /// its value, by its append form (`lane::Ctx::parts_owning_into`).
    fn map_parts(&mut self, mp: &MapParts<'_>, out: &TokenStream) -> TokenStream {
        let v = self.v;
        let (mut others, mut parts) = (Vec::new(), Vec::new());
        for p in &mp.parts {
            parts.push(match p {
                Leaf::Lane(k) => quote!(#v::lane::Part::Lane(#k)),
                Leaf::Other(x) => {
                    let j = others.len();
                    others.push(self.val(x));
                    quote!(#v::lane::Part::Other(#j))
                }
            });
        }
        let body = mp.f.body.clone();
        let m = self.lanes_with("map", mp.f, mp.arrays, true, |em| {
            em.append(&body, &quote!(__out))
        });
        let (binds, body) = (&m.binds, &m.body);
        let Some((arrays, shared)) = &m.owning else {
            unreachable!("the lanes take their arrays (`owning_map_parts`)")
        };
        let lane = self.owning_append_lane(body);
        quote!({
            #(#binds)*
            let __others = [#(#others),*];
            __ctx.parts_owning_into(#arrays, #shared, &[#(#parts),*], __others, #lane, #out)?;
        })
    }

    /// The closure of a lane that takes its array by value (`__item`) and appends to its
    /// buffer (`__out`) by the statements `body`.
    fn owning_append_lane(&self, body: &TokenStream) -> TokenStream {
        let v = self.v;
        quote!(|__ctx: &#v::lane::Ctx, __i: usize, __item: #v::lane::Cow<'_, [_]>, __out: &mut #v::lane::Pieces<_>| -> #v::Result<()> {
            let __lane = __i;
            #body;
            ::std::result::Result::Ok(())
        })
    }

    /// The statement pushing the values of the lanes `m` to the buffer `out` (a `&mut
    /// lane::Pieces`), the lanes taking their arrays by value where `m` says so.
    fn map_into(&self, m: &Lanes, out: &TokenStream) -> TokenStream {
        let v = self.v;
        let (n, weight, body, ot) = (&m.len, &m.weight, &m.body, &m.ty);
        if let Some((arrays, shared)) = &m.owning {
            return quote!(__ctx.map_owning_into(#arrays, #shared, |__ctx: &#v::lane::Ctx, __i: usize, __item: #v::lane::Cow<'_, [_]>| -> #v::Result<#ot> {
                let __lane = __i;
                ::std::result::Result::Ok(#body)
            }, #out)?);
        }
        quote!(__ctx.map_into(#n, #weight, |__ctx: &#v::lane::Ctx, __i: usize| -> #v::Result<#ot> {
            let __lane = __i;
            ::std::result::Result::Ok(#body)
        }, #out)?)
    }

    /// Statements appending the elements of the array `e` to `out` (a `&mut Vec` of owned
    /// elements): a filter's kept class pushed element by element, a conditional or a `let`
    /// appending from its body, any other array extended by its value.
    fn append(&mut self, e: &Expr, out: &TokenStream) -> TokenStream {
        let v = self.v;
        match unfused(e) {
            Expr::Proj(t, c) if matches!(unfused(t), Expr::Filter(..)) => {
                let Expr::Filter(ps, a) = unfused(t) else {
                    unreachable!("matched above")
                };
                // A class of a filter of a range (the sieve's `(lo..hi).filter(..)`): the
                // value's form, which never builds the range and tests a word of elements at a
                // time, appended. Pushed element by element from the range built, the kept
                // element and the buffer's length went through memory at every element.
                if range_class_form(ps, a) {
                    let class = self.filter(ps, a, Some(*c));
                    return quote!(#v::lane::extend(#out, #class));
                }
                let (a, chain) = self.classify(ps, a);
                quote!({
                    let __a = #a;
                    #out.extend_kept(__a.len(), |__i: usize| {
                        let __lane = __i;
                        let __x = &__a[__i];
                        let __k: usize = #chain;
                        ::std::result::Result::Ok((::std::clone::Clone::clone(__x), __k == #c))
                    })?;
                })
            }
            Expr::Iota { len, start, step } => {
                let (n, st, d) = (self.val(len), self.val(start), self.val(step));
                quote!({
                    let __r = #v::lane::Iota::new(#v::lane::count::<i64>("iota", #n, __lane)?, #st, #d);
                    #out.extend((0..__r.len()).map(|__k| __r.at(__k)));
                })
            }
            Expr::If(c, a, b) => {
                let c = self.val(c);
                let (a, b) = (self.append(a, out), self.append(b, out));
                quote!(if #c { #a } else { #b })
            }
            // The parts of a concatenation appended in turn, in order (a call among them by its
            // append form), instead of a new array of them all copied here.
            Expr::Append(..) => {
                let mut parts = Vec::new();
                appended(unfused(e), &mut parts);
                let parts: Vec<TokenStream> = parts.iter().map(|p| self.append(p, out)).collect();
                quote!({ #(#parts;)* })
            }
            // A call whose value is appended as it is: its append form writes it here.
            Expr::Call(name, args) if self.appending.contains(name) => {
                let f = append_ident(name);
                self.call(
                    e,
                    args,
                    |_, args| quote!(#f(__ctx, __lane, #(#args,)* #out)?),
                )
            }
            // The lanes of a nested `concat` of a `map` append to this buffer too.
            Expr::Concat(a) if matches!(unfused(a), Expr::Map(..)) => {
                let Expr::Map(f, arrays) = unfused(a) else {
                    unreachable!("matched above")
                };
                self.flat_map_with(e, f, arrays, Some(out))
            }
            // A map's values pushed as the lanes compute them (no array of their own).
            Expr::Map(f, arrays) => {
                let owning = owning_map(self.program, &self.env, f, arrays);
                let m = self.lanes_with("map", f, arrays, owning, |em| em.owned(&f.body));
                let (binds, check) = (&m.binds, &m.check);
                let into = self.map_into(&m, out);
                quote!({
                    #(#binds)*
                    #check
                    #into
                })
            }
            Expr::Let(..) if let Some(mp) = self.owning_map_parts(e) => self.map_parts(&mp, out),
            Expr::Let(n, x, b) if let Some((fields, entered, rest)) = self.destructure(n, x, b) => {
                let body = self.append(rest, out);
                self.env.truncate(self.env.len() - entered);
                quote!({ #fields #body })
            }
            Expr::Let(n, x, b) => {
                let tx = self.ty(x);
                let x = self.val(x);
                let id = var(n);
                self.enter_let(n, tx, b);
                let body = self.append(b, out);
                self.env.pop();
                quote!({ let #id = #x; #body })
            }
            _ => {
                let x = self.val(e);
                quote!(#v::lane::extend(#out, #x))
            }
        }
    }

    /// `let t = x in ..` where the body begins with `let`s that destructure `t`
    /// ([`destructuring`]: what a tuple pattern lowers to): the statement that moves the
    /// fields they name into their names (`let (v_a, _, v_b,) = x;`), with those names in
    /// scope (how many entered), and the body after them. A field read in place would be
    /// copied wherever it moves on (the parts of a quicksort, each handed to a recursive
    /// call). `None` for any other `let`.
    fn destructure<'e>(
        &mut self,
        t: &str,
        x: &Expr,
        b: &'e Expr,
    ) -> Option<(TokenStream, usize, &'e Expr)> {
        let Type::Tuple(types) = self.ty(x) else {
            return None;
        };
        let d = destructuring(t, b)?;
        let value = self.val(x);
        let pats = (0..types.len()).map(|i| {
            d.lets
                .iter()
                .find(|l| l.1 == i)
                .map_or_else(|| quote!(_), |(n, _, _)| var(n).into_token_stream())
        });
        let statement = quote!(let (#(#pats,)*) = #value;);
        for (n, i, body) in &d.lets {
            self.enter_let(n, types[*i].clone(), body);
        }
        Some((statement, d.lets.len(), d.rest))
    }

    /// `filter(ps, a)`: element `x` goes to the first class whose predicate holds (each
    /// predicate's lane the element's position), the last class takes the rest
    /// (`lane::split`). With `only`, the value is that class alone and no other is built.
    fn filter(&mut self, ps: &[Lambda], a: &Expr, only: Option<usize>) -> TokenStream {
        let v = self.v;
        // One class of a filter of a range: its elements computed, the range never built.
        if let (Some(c), Expr::Iota { len, start, step }) = (only, unfused(a))
            && range_class_form(ps, a)
        {
            let (n, st, d) = (self.val(len), self.val(start), self.val(step));
            let chain = self.class_chain(ps, &Type::I64);
            // The arrays the predicates only index, bound as slices once per word: in the
            // loop they stay in registers (behind a capture, a test's loads are repeated at
            // every element when a condition guards them, as in `i >= 2 && flags[i]`).
            let slices = self.indexed_arrays(ps).into_iter().map(|n| var(&n));
            return quote!({
                let __r = #v::lane::Iota::new(#v::lane::count::<i64>("iota", #n, __lane)?, #st, #d);
                #v::lane::Cow::<[i64]>::Owned(#v::lane::select_iota_in(__lanes, __r, |__w: ::std::ops::Range<usize>| {
                    #(let #slices = &#slices[..];)*
                    let mut __bits = 0u64;
                    for __i in __w.clone() {
                        let __lane = __i;
                        let __x = &__r.at(__i);
                        __bits |= u64::from((#chain) == #c) << (__i - __w.start);
                    }
                    ::std::result::Result::Ok(__bits)
                })?)
            });
        }
        // A range under lets (`(lo..hi)` binds its bounds first): the lets, then the range's
        // filter, where no predicate reads a name they bind.
        if let (Some(_), Expr::Let(n, x, b)) = (only, unfused(a))
            && range_class_form(ps, a)
        {
            let tx = self.ty(x);
            let x = self.val(x);
            let id = var(n);
            self.enter_let(n, tx, b);
            let inner = self.filter(ps, b, only);
            self.env.pop();
            return quote!({ let #id = #x; #inner });
        }
        let et = oty(&self.elem(a));
        let handed_down =
            matches!(unfused(a), Expr::Var(_)) && self.moving.contains(&node(unfused(a)));
        let (a, chain) = self.classify(ps, a);
        let k = ps.len() + 1;
        // One class of a variable's array at its last read (a lane's part handed down a
        // recursion): filtered in place where it is owned; the predicates see each element as
        // `__x`. A just-computed array takes the split below: shrinking a large block in place
        // returns its pages to the system, and the next large array faults them in again
        // (quickhull's `pts.map(..).filter(..)`, disc 10^5 per-lane, one thread: 6.7 -> 10.5 ms
        // in place).
        let reads_ctx = ps.iter().any(|p| uses_ctx(&p.body));
        // The class of element `__i` of `__a`, and of `__x`, element `__i` of an array taken.
        let class = quote!(|__i: usize| {
            let __lane = __i;
            let __x = &__a[__i];
            ::std::result::Result::Ok(#chain)
        });
        let class_of_element = quote!(|__i: usize, __x: &#et| {
            let __lane = __i;
            ::std::result::Result::Ok(#chain)
        });
        // Two classes across the pool test a word of elements at a time, over a slice of them
        // (`lane::split_two_in`).
        let word = (k == 2 && !reads_ctx).then(|| self.class_word(ps, &chain, &et));
        if let Some(c) = only
            && !reads_ctx
            && handed_down
        {
            let filtered = if let Some(word) = &word {
                quote!(#v::lane::filter_two_in(__lanes, __a, #c, #class_of_element, #word))
            } else {
                quote!(#v::lane::filter_class_in::<_, #k>(__lanes, __a, #c, #class_of_element))
            };
            return quote!({
                let __a = #a;
                #v::lane::Cow::<[#et]>::Owned(#filtered?)
            });
        }
        let wanted = (0..k).map(|c| only.is_none_or(|o| o == c));
        let split = if let Some(word) = &word {
            quote!(#v::lane::split_two_in(__lanes, &__a[..], [#(#wanted),*], #class, #word)?)
        } else if reads_ctx {
            // On this thread: the predicates read the context.
            quote!(#v::lane::split(&__a[..], [#(#wanted),*], #class)?)
        } else {
            // Split across the pool when heavy.
            quote!(#v::lane::split_in::<_, #k>(__lanes, &__a[..], [#(#wanted),*], #class)?)
        };
        let value = if let Some(c) = only {
            quote!({
                let mut __classes = #split;
                #v::lane::Cow::<[#et]>::Owned(::std::mem::take(&mut __classes[#c]))
            })
        } else {
            let classes: Vec<proc_macro2::Ident> =
                (0..k).map(|c| format_ident!("__c{}", c)).collect();
            quote!({
                let [#(#classes),*] = #split;
                (#(#v::lane::Cow::<[#et]>::Owned(#classes),)*)
            })
        };
        quote!({
            let __a = #a;
            #value
        })
    }

    /// The array of `filter(ps, a)` and the expression of the class of its element `__x` (the
    /// first class whose predicate holds, the last for the rest; lane `__lane`).
    fn classify(&mut self, ps: &[Lambda], a: &Expr) -> (TokenStream, TokenStream) {
        let t = self.elem(a);
        let a = self.val(a);
        (a, self.class_chain(ps, &t))
    }

    /// The expression of the class of the element `__x` (a `&` of type `t`) of a filter by
    /// `ps` (lane `__lane`).
    fn class_chain(&mut self, ps: &[Lambda], t: &Type) -> TokenStream {
        let t = t.clone();
        let x = self.borrow(&t, &quote!(__x));
        let last = ps.len();
        let mut chain = quote!(#last);
        for (c, p) in ps.iter().enumerate().rev() {
            let (test, _) = self.apply(p, &[(t.clone(), x.clone())]);
            chain = quote!(if #test { #c } else { #chain });
        }
        chain
    }

    /// The variables of array type in scope that the predicates `ps` read only by indexing them
    /// or taking their length (see [`WholeReads::reads`]): code that binds them as slices compiles.
    fn indexed_arrays(&self, ps: &[Lambda]) -> Vec<String> {
        let mut free = predicates_free_vars(ps);
        free.retain(|n| {
            let array = self
                .env
                .iter()
                .rev()
                .find(|(m, _)| m == n)
                .is_some_and(|(_, t)| matches!(t, Type::Array(_)));
            array && !ps.iter().any(|p| self.whole.reads(&p.body, n))
        });
        free
    }

    /// The word form of a two-class filter's test (`lane::split_two_in`): a closure of the
    /// first element's index and a slice of at most 64 elements (`et`), giving bit `j` set
    /// where element `j` is of class 1 by `chain` (over `__x`). The scalars the predicates
    /// read are copied and the arrays they only index bound as slices once per word, so that
    /// the loop keeps them in registers instead of loading them through the closure's
    /// captures at every element.
    fn class_word(&self, ps: &[Lambda], chain: &TokenStream, et: &TokenStream) -> TokenStream {
        let free = predicates_free_vars(ps);
        let scalars = free.iter().filter(|n| {
            self.env
                .iter()
                .rev()
                .find(|(m, _)| m == *n)
                .is_some_and(|(_, t)| !holds_array(t))
        });
        let scalars = scalars.map(|n| var(n));
        let slices = self.indexed_arrays(ps).into_iter().map(|n| var(&n));
        quote!(|__first: usize, __s: &[#et]| {
            #(let #scalars = #scalars;)*
            #(let #slices = &#slices[..];)*
            let mut __bits = 0u64;
            for (__j, __x) in __s.iter().enumerate() {
                let __lane = __first + __j;
                __bits |= u64::from((#chain) == 1) << __j;
            }
            ::std::result::Result::Ok(__bits)
        })
    }

    /// `partition(classes, interest, key, array)`: each element's class by `key` (its lane
    /// its position), the arrays of the classes of interest.
    fn partition(
        &mut self,
        classes: usize,
        interest: &[usize],
        key: &Lambda,
        array: &Expr,
    ) -> TokenStream {
        let v = self.v;
        let t = self.elem(array);
        let a = self.val(array);
        let et = oty(&t);
        let x = self.borrow(&t, &quote!(__x));
        let (k, _) = self.apply(key, &[(t, x)]);
        // Each class of interest moved out of the parts (copied where it is named again later).
        let taken = interest.iter().enumerate().map(|(j, c)| {
            if interest[j + 1..].contains(c) {
                quote!(__parts[#c].clone())
            } else {
                quote!(::std::mem::take(&mut __parts[#c]))
            }
        });
        quote!({
            let __a = #a;
            let mut __parts: ::std::vec::Vec<::std::vec::Vec<#et>> = ::std::vec![::std::vec::Vec::new(); #classes];
            for __i in 0..__a.len() {
                let __lane = __i;
                let __x = &__a[__i];
                let __k = #v::lane::class(#k, #classes, __i)?;
                __parts[__k].push(__x.clone());
            }
            (#(#v::lane::Cow::<[#et]>::Owned(#taken),)*)
        })
    }

    /// A sequential loop: the state (owned) replaced by the body's value each iteration.
    fn looping(&mut self, init: &Expr, form: &LoopForm, body: &Lambda) -> TokenStream {
        let st = self.ty(init);
        let ot = oty(&st);
        let init = self.val(init);
        let init = own(self.v, &st, &init);
        let state = self.lift(&st, &quote!(__s));
        let r = match form {
            LoopForm::For(n) => {
                let n = self.val(n);
                let (b, _) = self.apply(body, &[(st.clone(), state), (Type::I64, quote!(__it))]);
                quote!({
                    let mut __s: #ot = #init;
                    let __n: i64 = #n;
                    for __it in 0..__n {
                        __s = #b;
                    }
                    __s
                })
            }
            LoopForm::While(c) => {
                let peek = self.borrow(&st, &quote!(&__s));
                let (test, _) = self.apply(c, &[(st.clone(), peek)]);
                let (b, _) = self.apply(body, &[(st.clone(), state)]);
                quote!({
                    let mut __s: #ot = #init;
                    while #test {
                        __s = #b;
                    }
                    __s
                })
            }
        };
        self.lift(&st, &r)
    }
}

/// Whether every read of the variable `n` in `e` is as an array of a map (or a fused map and
/// reduction) or for its length, with no binding of another `n` in between.
fn only_mapped(e: &Expr, n: &str) -> bool {
    let direct = |x: &Expr| matches!(x, Expr::Var(m) if m == n);
    match e {
        Expr::Var(m) => m != n,
        Expr::Length(a) if direct(a) => true,
        Expr::Let(m, _, _) if m == n => false,
        _ => {
            let arrays: &[Expr] = match e {
                Expr::Map(_, a) | Expr::Redomap(_, _, _, a) => a,
                _ => &[],
            };
            let (exprs, lambdas) = flatland_vectoriser::ir::children(e);
            exprs.iter().all(|c| {
                (direct(c) && arrays.iter().any(|a| std::ptr::eq(a, *c))) || only_mapped(c, n)
            }) && lambdas
                .iter()
                .all(|l| l.params.iter().all(|(p, _)| p != n) && only_mapped(&l.body, n))
        }
    }
}

/// The variables `e` reads that `bound` does not bind, each once, in order of first read.
fn free_vars(e: &Expr, bound: &mut Vec<String>, out: &mut Vec<String>) {
    match e {
        Expr::Var(n) => {
            if !bound.contains(n) && !out.contains(n) {
                out.push(n.clone());
            }
        }
        Expr::Let(n, x, b) => {
            free_vars(x, bound, out);
            bound.push(n.clone());
            free_vars(b, bound, out);
            bound.pop();
        }
        _ => {
            let (exprs, lambdas) = flatland_vectoriser::ir::children(e);
            for c in exprs {
                free_vars(c, bound, out);
            }
            for l in lambdas {
                let depth = bound.len();
                bound.extend(l.params.iter().map(|(n, _)| n.clone()));
                free_vars(&l.body, bound, out);
                bound.truncate(depth);
            }
        }
    }
}

/// Whether the code emitted for `e` reads the run's context `__ctx` (a call, or a map whose
/// lanes the context runs): a closure of such code cannot be run on the pool's other threads.
/// The names the predicates `ps` read from outside them, in order of first read.
fn predicates_free_vars(ps: &[Lambda]) -> Vec<String> {
    let mut free = Vec::new();
    for p in ps {
        let mut bound = p.params.iter().map(|(m, _)| m.clone()).collect();
        free_vars(&p.body, &mut bound, &mut free);
    }
    free
}

fn uses_ctx(e: &Expr) -> bool {
    if matches!(e, Expr::Call(..) | Expr::Map(..)) {
        return true;
    }
    let (exprs, lambdas) = flatland_vectoriser::ir::children(e);
    exprs.into_iter().any(uses_ctx) || lambdas.into_iter().any(|l| uses_ctx(&l.body))
}

/// Whether one class of `filter(ps, a)` takes the value form that never builds the filtered
/// array ([`Emitter::filter`] with `only`), which [`Emitter::append`] then appends: `a` is a
/// range under zero or more lets whose names no predicate reads, and no predicate reads the
/// lane's context.
fn range_class_form(ps: &[Lambda], a: &Expr) -> bool {
    match unfused(a) {
        Expr::Iota { .. } => !ps.iter().any(|p| uses_ctx(&p.body)),
        Expr::Let(n, _, b) => {
            !ps.iter().any(|p| {
                let mut free = Vec::new();
                free_vars(
                    &p.body,
                    &mut p.params.iter().map(|(m, _)| m.clone()).collect(),
                    &mut free,
                );
                free.contains(n)
            }) && range_class_form(ps, b)
        }
        _ => false,
    }
}

/// The Rust type of an owned value of type `t`.
fn oty(t: &Type) -> TokenStream {
    match t {
        Type::I64 => quote!(i64),
        Type::F64 => quote!(f64),
        Type::Bool => quote!(bool),
        Type::Array(e) => {
            let e = oty(e);
            quote!(::std::vec::Vec<#e>)
        }
        Type::Tuple(ts) => {
            let ts = ts.iter().map(oty);
            quote!((#(#ts,)*))
        }
    }
}

/// The owned form of the value `x` of type `t` (a copy only of what `x` borrows).
fn own(v: &TokenStream, t: &Type, x: &TokenStream) -> TokenStream {
    match t {
        Type::Array(_) => quote!(#v::lane::owned(#x)),
        Type::Tuple(ts) => {
            let fields = ts.iter().enumerate().map(|(i, t)| {
                let i = syn::Index::from(i);
                own(v, t, &quote!(__t.#i))
            });
            quote!({ let __t = #x; (#(#fields,)*) })
        }
        _ => x.clone(),
    }
}

/// What [`Emitter::fold`] computes.
enum Fold {
    Reduce,
    Scan,
    /// A reduction by index into the given number of bins, with the given indices.
    Hist(TokenStream, TokenStream),
    /// A reduction of the given number of values, each computed by the given `get` closure
    /// (`Fn(usize) -> Result<E>`) as it is folded; the flag says the closure reads no context
    /// (so a heavy one may be folded across the pool).
    Mapped(TokenStream, TokenStream, bool),
    /// [`Fold::Mapped`] of values that cannot fail: `get` is `Fn(usize) -> E`.
    Total(TokenStream, TokenStream, bool),
}

/// The identity of `op` on `t` where the operator is associative exactly on its values
/// (wrapping `i64` `+` and `*`, `i64` `min` and `max`, `bool` `and` and `or`): a fold under it
/// from that identity gives the canonical fold's value in any association
/// (`lane::exact_fold_in`). `None` for floats, whose operators round, and for lambdas.
fn exact_identity(op: &ReduceOp, t: &Type) -> Option<TokenStream> {
    Some(match (op, t) {
        (ReduceOp::Add, Type::I64) => quote!(0i64),
        (ReduceOp::Mul, Type::I64) => quote!(1i64),
        (ReduceOp::Min, Type::I64) => quote!(i64::MAX),
        (ReduceOp::Max, Type::I64) => quote!(i64::MIN),
        (ReduceOp::And, Type::Bool) => quote!(true),
        (ReduceOp::Or, Type::Bool) => quote!(false),
        _ => return None,
    })
}

/// What [`Emitter::lanes`] gives: the parts of a map over arrays.
struct Lanes {
    /// The arrays' bindings, `__a0, __a1, ..`.
    binds: Vec<TokenStream>,
    /// Their length check (more than one array).
    check: Option<TokenStream>,
    /// The number of lanes.
    len: TokenStream,
    /// Each lane's weight, a `lane::Weights`.
    weight: TokenStream,
    /// For lanes that take their arrays by value (`lane::Owning`, each lane's array bound to
    /// `__item`): the `Owning`'s name and the weight each lane adds to its array's length.
    owning: Option<(proc_macro2::Ident, TokenStream)>,
    /// Where every array is a slice held whole ([`Source::Slice`]) and the lanes read nothing
    /// else by `__i`: the slices' names (a block of lanes cuts them, `Ctx::map_total_blocks`).
    sliced: Option<Vec<proc_macro2::Ident>>,
    /// The owned value of lane `__i`.
    body: TokenStream,
    /// Its Rust type.
    ty: TokenStream,
}

/// The step of the built-in reduction `op` on numbers of type `t`, as a closure
/// ([`ops::combine`]); `None` for a lambda and for `bool` (a per-lane histogram folds the
/// numeric ones).
fn numeric_step(op: &ReduceOp, t: ScalarType, rt: &TokenStream) -> Option<TokenStream> {
    if t == ScalarType::Bool {
        return None;
    }
    ops::combine(op.bin_op()?, t, &quote!(#rt::expr::op))
}

/// Where the elements of a map's array come from ([`Emitter::lane_array`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    /// The rows of a `Nested` argument.
    Rows,
    /// A slice held whole, lane `__i` reading `__aK[__i]`.
    Slice,
    /// Anything else: a range, a fused map, the arrays an owning map takes.
    Other,
}

fn scalar_ctor(t: ScalarType) -> proc_macro2::Ident {
    format_ident!("{}", format!("{t:?}"))
}

fn as_scalar(t: ScalarType) -> proc_macro2::Ident {
    match t {
        ScalarType::I64 => format_ident!("as_i64"),
        ScalarType::F64 => format_ident!("as_f64"),
        ScalarType::Bool => format_ident!("as_bool"),
    }
}
