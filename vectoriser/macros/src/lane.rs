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

use crate::direct;
use flatland_vectoriser::check;
use flatland_vectoriser::ir::{
    BinaryOp, Expr, Function, Lambda, LoopForm, Program, ReduceOp, ScalarType, SortOp, Type,
};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The module `lanes`: one function `l_<name>` per function of `p`, taking the run's context,
/// the caller's lane and the parameters in per-lane form, returning the result in owned form.
pub(crate) fn module(p: &Program, v: &TokenStream, rt: &TokenStream) -> TokenStream {
    let fns = p.functions.iter().map(|f| {
        Emitter {
            program: p,
            v,
            rt,
            env: f.params.clone(),
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

/// A Rust identifier for an IR name (which the lowering and the derived forms may spell with
/// characters Rust does not allow): letters, digits and `_` are kept, any other character is
/// written as its code.
fn mangle(n: &str) -> String {
    let mut out = String::new();
    for c in n.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else {
            out.push_str(&format!("_x{:x}_", u32::from(c)));
        }
    }
    out
}

fn var(n: &str) -> proc_macro2::Ident {
    format_ident!("v_{}", mangle(n))
}

struct Emitter<'a> {
    program: &'a Program,
    v: &'a TokenStream,
    rt: &'a TokenStream,
    /// The types of the variables in scope (innermost last).
    env: Vec<(String, Type)>,
}

impl Emitter<'_> {
    fn function(&mut self, f: &Function) -> TokenStream {
        let v = self.v;
        let name = function_ident(&f.name);
        let name_str = &f.name;
        let lt = quote!('a);
        let params: Vec<TokenStream> = f
            .params
            .iter()
            .map(|(n, t)| {
                let id = var(n);
                let t = self.vty(t, &lt);
                quote!(#id: #t)
            })
            .collect();
        let ret = self.oty(&f.ret);
        let body = self.val(&f.body);
        let body = self.own(&f.ret, &body);
        quote! {
            pub(crate) fn #name<'a>(
                __ctx: &#v::lane::Ctx,
                __lane: usize,
                #(#params),*
            ) -> #v::Result<#ret> {
                __ctx.call(#name_str, || ::std::result::Result::Ok(#body))
            }
        }
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
                let e = self.oty(e);
                quote!(#v::lane::Cow<#lt, [#e]>)
            }
            Type::Tuple(ts) => {
                let ts = ts.iter().map(|t| self.vty(t, lt));
                quote!((#(#ts,)*))
            }
            scalar => self.oty(scalar),
        }
    }

    /// The Rust type of an owned value of type `t`.
    fn oty(&self, t: &Type) -> TokenStream {
        match t {
            Type::I64 => quote!(i64),
            Type::F64 => quote!(f64),
            Type::Bool => quote!(bool),
            Type::Array(e) => {
                let e = self.oty(e);
                quote!(::std::vec::Vec<#e>)
            }
            Type::Tuple(ts) => {
                let ts = ts.iter().map(|t| self.oty(t));
                quote!((#(#ts,)*))
            }
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

    /// The owned form of the value `x` of type `t` (a copy only of what `x` borrows).
    fn own(&self, t: &Type, x: &TokenStream) -> TokenStream {
        match t {
            Type::Array(_) => quote!((#x).into_owned()),
            Type::Tuple(ts) => {
                let fields = ts.iter().enumerate().map(|(i, t)| {
                    let i = syn::Index::from(i);
                    self.own(t, &quote!(__t.#i))
                });
                quote!({ let __t = #x; (#(#fields,)*) })
            }
            _ => x.clone(),
        }
    }

    /// The value of the owned `x` of type `t` (no copy).
    fn lift(&self, t: &Type, x: &TokenStream) -> TokenStream {
        let v = self.v;
        match t {
            Type::Array(e) => {
                let e = self.oty(e);
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
        let body = self.val(&l.body);
        let body = self.own(&t, &body);
        self.env.truncate(depth);
        (quote!({ #(#binds)* #body }), t)
    }

    /// The value of `e`.
    fn val(&mut self, e: &Expr) -> TokenStream {
        match e {
            Expr::Var(n) => {
                let t = self.ty(e);
                let id = var(n);
                self.reborrow(&t, &quote!(&#id))
            }
            Expr::Lit(s) => direct::lit(*s),
            Expr::Tuple(es) => {
                let es = es.iter().map(|x| self.val(x));
                quote!((#(#es,)*))
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
            Expr::Let(n, x, b) => {
                let tx = self.ty(x);
                let x = self.val(x);
                let id = var(n);
                self.env.push((n.clone(), tx));
                let tb = self.ty(b);
                let r = if matches!(&**b, Expr::Var(m) if m == n) {
                    // `let x = .. in x` hands its value over.
                    quote!({ let #id = #x; #id })
                } else {
                    let body = self.val(b);
                    let body = self.own(&tb, &body);
                    let block = quote!({ let #id = #x; #body });
                    self.lift(&tb, &block)
                };
                self.env.pop();
                r
            }
            Expr::Fused(f) => self.val(&f.original),
            Expr::If(c, a, b) => {
                let (c, a, b) = (self.val(c), self.val(a), self.val(b));
                quote!(if #c { #a } else { #b })
            }
            Expr::Unary(op, a) => {
                let t = self.scalar(a);
                let a = self.val(a);
                let o = self.rt;
                let o = quote!(#o::expr::op);
                crate::native::unary(*op, t, &quote!((#a)), &o)
                    .unwrap_or_else(|| unreachable!("checked program: {op:?} on {t:?}"))
            }
            Expr::Binary(op, a, b) => self.binary(*op, e, a, b),
            Expr::Call(name, args) => {
                let f = function_ident(name);
                let ret = self
                    .program
                    .function(name)
                    .map(|f| f.ret.clone())
                    .unwrap_or_else(|| unreachable!("checked program: `{name}` exists"));
                let args: Vec<TokenStream> = args.iter().map(|a| self.val(a)).collect();
                self.lift(&ret, &quote!(#f(__ctx, __lane, #(#args),*)?))
            }
            _ => self.array(e),
        }
    }

    fn scalar(&self, e: &Expr) -> ScalarType {
        self.ty(e)
            .scalar()
            .unwrap_or_else(|| unreachable!("checked program: scalar expected"))
    }

    fn binary(&mut self, op: BinaryOp, e: &Expr, a: &Expr, b: &Expr) -> TokenStream {
        use ScalarType::{Bool, F64, I64};
        let v = self.v;
        let rt = self.rt;
        let o = quote!(#rt::expr::op);
        let t = self.scalar(a);
        let (a, b) = (self.val(a), self.val(b));
        let infix = |x: TokenStream| quote!(((#a) #x (#b)));
        match (op, t) {
            (BinaryOp::Eq, _) => infix(quote!(==)),
            (BinaryOp::Ne, _) => infix(quote!(!=)),
            (BinaryOp::Lt, I64 | F64) => infix(quote!(<)),
            (BinaryOp::Le, I64 | F64) => infix(quote!(<=)),
            (BinaryOp::Gt, I64 | F64) => infix(quote!(>)),
            (BinaryOp::Ge, I64 | F64) => infix(quote!(>=)),
            // Both operands are evaluated, as the IR's operators always are.
            (BinaryOp::And, Bool) => infix(quote!(&)),
            (BinaryOp::Or, Bool) => infix(quote!(|)),
            (BinaryOp::Add, F64) => infix(quote!(+)),
            (BinaryOp::Sub, F64) => infix(quote!(-)),
            (BinaryOp::Mul, F64) => infix(quote!(*)),
            (BinaryOp::Div, F64) => infix(quote!(/)),
            (BinaryOp::Min, F64) => quote!(#o::float::min(#a, #b)),
            (BinaryOp::Max, F64) => quote!(#o::float::max(#a, #b)),
            (BinaryOp::Powi, F64) => quote!(#o::float::powi(#a, #b)),
            (BinaryOp::Add, I64) => quote!(#o::int::add(#a, #b)),
            (BinaryOp::Sub, I64) => quote!(#o::int::sub(#a, #b)),
            (BinaryOp::Mul, I64) => quote!(#o::int::mul(#a, #b)),
            (BinaryOp::Min, I64) => quote!(#o::int::min(#a, #b)),
            (BinaryOp::Max, I64) => quote!(#o::int::max(#a, #b)),
            _ => {
                // The operators that may fail, and the rare ones: the runtime's definition.
                let name = format_ident!("{}", format!("{op:?}"));
                let c = scalar_ctor(t);
                let to = as_scalar(self.scalar(e));
                quote!(#v::lane::#to(#v::lane::binary(
                    #v::ir::BinaryOp::#name,
                    #v::ir::Scalar::#c(#a),
                    #v::ir::Scalar::#c(#b),
                    __lane,
                )?))
            }
        }
    }

    /// The array operations.
    fn array(&mut self, e: &Expr) -> TokenStream {
        let v = self.v;
        let cow = quote!(#v::lane::Cow);
        // A computed array, owned (its element type named: `Cow` does not infer it).
        let owned = match self.ty(e) {
            Type::Array(el) => {
                let et = self.oty(&el);
                quote!(#v::lane::Cow::<[#et]>::Owned)
            }
            _ => quote!(#v::lane::Cow::Owned),
        };
        match e {
            Expr::ArrayLit(t, es) => {
                let et = self.oty(t);
                let es: Vec<TokenStream> = es
                    .iter()
                    .map(|x| {
                        let x = self.val(x);
                        self.own(t, &x)
                    })
                    .collect();
                quote!(#owned(::std::vec::Vec::<#et>::from([#(#es),*])))
            }
            Expr::Index(a, i) => {
                let et = self.elem(a);
                let i = self.val(i);
                if let Expr::Var(n) = &**a {
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
                let ot = self.oty(&t);
                let n = self.val(n);
                let x = self.val(x);
                let x = self.own(&t, &x);
                quote!({
                    let __n = #v::lane::count::<#ot>("replicate", #n, __lane)?;
                    let __x: #ot = #x;
                    #owned(::std::vec![__x; __n])
                })
            }
            Expr::Slice(a, s, l) => {
                let (s, l) = (self.val(s), self.val(l));
                if let Expr::Var(n) = &**a {
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
                        #owned(#v::lane::slice(&__a[..], __s, __l, __lane)?.to_vec())
                    })
                }
            }
            Expr::Append(a, b) => {
                let (a, b) = (self.val(a), self.val(b));
                quote!({
                    let __a = #a;
                    let __b = #b;
                    #owned(#v::lane::append(&__a[..], &__b[..]))
                })
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
                    #owned(#v::lane::scatter(&__d[..], &__i[..], &__v[..], __lane)?)
                })
            }
            Expr::Sort(op, a) => {
                let a = self.val(a);
                let f = match op {
                    SortOp::Values => quote!(sort),
                    SortOp::Indices => quote!(argsort),
                };
                quote!(#owned(#v::lane::#f(&(#a)[..])))
            }
            Expr::Map(f, arrays) => {
                let out = self.map("map", f, arrays);
                quote!(#owned(#out))
            }
            Expr::Redomap(op, z, f, arrays) => {
                let t = self.ty(z);
                let z = self.val(z);
                let z = self.own(&t, &z);
                let mapped = self.map("redomap", f, arrays);
                let r = self.fold(op, &t, &quote!(__z), &quote!(&__m[..]), Fold::Reduce);
                let r = quote!({ let __z = #z; let __m = #mapped; #r });
                self.lift(&t, &r)
            }
            Expr::Reduce(op, z, a) | Expr::Scan(op, z, a) => {
                let t = self.ty(z);
                let z = self.val(z);
                let z = self.own(&t, &z);
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
                let ot = self.oty(&t);
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
            Expr::Filter(ps, a) => self.filter(ps, a),
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

    /// `f` over the elements of equally long `arrays` (`op` names the operation in a length
    /// error): an expression of the `Vec` of owned results, each element's lane its position.
    /// The lanes run one after another or in parallel as the run decides (`lane::Ctx::map`).
    fn map(&mut self, op: &str, f: &Lambda, arrays: &[Expr]) -> TokenStream {
        let v = self.v;
        let elems: Vec<Type> = arrays.iter().map(|a| self.elem(a)).collect();
        let names: Vec<proc_macro2::Ident> =
            (0..arrays.len()).map(|k| format_ident!("__a{}", k)).collect();
        let vals: Vec<TokenStream> = arrays.iter().map(|a| self.val(a)).collect();
        let args: Vec<(Type, TokenStream)> = elems
            .iter()
            .zip(&names)
            .map(|(t, n)| (t.clone(), self.borrow(t, &quote!(&#n[__i]))))
            .collect();
        let (body, tb) = self.apply(f, &args);
        let ot = self.oty(&tb);
        let first = &names[0];
        let check = (arrays.len() > 1).then(|| {
            quote!(#v::lane::same_lengths(#op, &[#(#names.len()),*])?;)
        });
        // The work of a lane, for the choice of parallel lanes and their balance: the elements
        // of its first array's element when that is an array.
        let weight = if matches!(elems[0], Type::Array(_)) {
            quote!(|__i: usize| #first[__i].len())
        } else {
            quote!(|_: usize| 0)
        };
        quote!({
            #(let #names = #vals;)*
            #check
            __ctx.map(#first.len(), #weight, |__ctx: &#v::lane::Ctx, __i: usize| -> #v::Result<#ot> {
                let __lane = __i;
                ::std::result::Result::Ok(#body)
            })?
        })
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
        let builtin = t.scalar().and_then(|s| match (op, s) {
            (ReduceOp::And, ScalarType::Bool) => Some(quote!(|a: bool, b: bool| a & b)),
            (ReduceOp::Or, ScalarType::Bool) => Some(quote!(|a: bool, b: bool| a | b)),
            _ => direct::reduce(op, s, rt),
        });
        if let Some(f) = builtin {
            return match kind {
                Fold::Reduce => quote!(#assoc::fold(#xs, #z, #f)),
                Fold::Scan => quote!(#assoc::scan_inclusive(#xs, #z, #f)),
                Fold::Hist(bins, ks) => quote!(#assoc::hist(#bins, #z, #ks, #xs, #f)),
            };
        }
        let ReduceOp::Lambda(l) = op else {
            unreachable!("checked program: a built-in operator of its type")
        };
        let ot = self.oty(t);
        let args = [
            (t.clone(), self.lift(t, &quote!(__x))),
            (t.clone(), self.lift(t, &quote!(__y))),
        ];
        let (body, _) = self.apply(l, &args);
        let f = quote!(|__x: #ot, __y: #ot| -> #v::Result<#ot> {
            ::std::result::Result::Ok(#body)
        });
        match kind {
            Fold::Reduce => quote!(#v::lane::try_fold(#xs, #z, #f)?),
            Fold::Scan => quote!(#v::lane::try_scan(#xs, #z, #f)?),
            Fold::Hist(bins, ks) => quote!(#v::lane::try_hist(#bins, #z, #ks, #xs, #f)?),
        }
    }

    /// `filter(ps, a)`: element `x` goes to the first class whose predicate holds (each
    /// predicate's lane the element's position), the last class takes the rest.
    fn filter(&mut self, ps: &[Lambda], a: &Expr) -> TokenStream {
        let v = self.v;
        let t = self.elem(a);
        let a = self.val(a);
        let classes: Vec<proc_macro2::Ident> =
            (0..=ps.len()).map(|k| format_ident!("__c{}", k)).collect();
        let et = self.oty(&t);
        let x = self.borrow(&t, &quote!(__x));
        let mut chain = {
            let last = &classes[ps.len()];
            quote!({ #last.push(__x.clone()); })
        };
        for (k, p) in ps.iter().enumerate().rev() {
            let (test, _) = self.apply(p, &[(t.clone(), x.clone())]);
            let c = &classes[k];
            chain = quote!(if #test { #c.push(__x.clone()); } else #chain);
        }
        quote!({
            let __a = #a;
            #(let mut #classes = ::std::vec::Vec::new();)*
            for __i in 0..__a.len() {
                let __lane = __i;
                let __x = &__a[__i];
                #chain
            }
            (#(#v::lane::Cow::<[#et]>::Owned(#classes),)*)
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
        let et = self.oty(&t);
        let x = self.borrow(&t, &quote!(__x));
        let (k, _) = self.apply(key, &[(t, x)]);
        quote!({
            let __a = #a;
            let mut __parts: ::std::vec::Vec<::std::vec::Vec<#et>> = ::std::vec![::std::vec::Vec::new(); #classes];
            for __i in 0..__a.len() {
                let __lane = __i;
                let __x = &__a[__i];
                let __k = #v::lane::class(#k, #classes, __i)?;
                __parts[__k].push(__x.clone());
            }
            (#(#v::lane::Cow::<[#et]>::Owned(__parts[#interest].clone()),)*)
        })
    }

    /// A sequential loop: the state (owned) replaced by the body's value each iteration.
    fn looping(&mut self, init: &Expr, form: &LoopForm, body: &Lambda) -> TokenStream {
        let st = self.ty(init);
        let ot = self.oty(&st);
        let init = self.val(init);
        let init = self.own(&st, &init);
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

/// What [`Emitter::fold`] computes.
enum Fold {
    Reduce,
    Scan,
    /// A reduction by index into the given number of bins, with the given indices.
    Hist(TokenStream, TokenStream),
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
