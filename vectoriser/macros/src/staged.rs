//! The staged backend: every function of the module as Rust code that runs its lifted form.
//!
//! The module's program is prepared at compile time as the executor prepares it
//! (`flatland_vectoriser::staged::Plan`: checked, fused, typed, last uses analysed), and each
//! IR function `f` becomes `fn __staged_f(stage, lanes, args..) -> Result<Val>`, whose body
//! evaluates `f`'s nodes in the executor's order with the lifting steps of
//! `flatland_vectoriser::staged`: `let` is a Rust `let`; a lifted `if` splits its lanes and runs
//! each branch (a closure over its free variables, packed to its lanes) only where it has lanes;
//! `map` enters the context of the arrays' elements, replicating the body's free variables; a
//! call (recursion included) is a Rust call of the callee's generated function on the caller's
//! lanes; scalar operator trees, the array operations, reductions, scans, redomaps, filters
//! and partitions are one step each, on operands the generated code evaluates (their lambdas
//! run as expression-machine programs, compiled to native kernels); a fused node runs its
//! single-pass kernel, or the generated code of the expression it replaced when the kernel
//! declines, and a redomap's map runs as generated code when its kernel declines. What the
//! flattener still walks: a reduction or scan operator, a filter predicate or a partition key
//! that no compiled form accepts, run lifted as in the executor.
//!
//! Bindings are released where the executor releases them (after their last use, before a
//! branch or a map body runs), and values kept across lifted recursion are compacted as it
//! compacts them, so memory is the executor's.

use flatland_vectoriser::ir::{Expr, Function};
use flatland_vectoriser::staged::Plan;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::HashMap;

/// The generated functions of a program, and the fingerprint their run-time side checks.
pub(crate) struct Staged {
    pub(crate) functions: TokenStream,
    pub(crate) fingerprint: u64,
}

/// The name of `f`'s generated function.
pub(crate) fn name(f: &str) -> Ident {
    format_ident!("__staged_{}", f)
}

/// The staged functions of every function of the (checked) program `plan` prepared, or a
/// reason why the program cannot be staged.
pub(crate) fn generate(plan: &Plan, v: &TokenStream) -> Result<Staged, String> {
    let index: HashMap<usize, usize> = {
        let mut m = HashMap::new();
        for (i, e) in plan.preorder().into_iter().enumerate() {
            m.entry(std::ptr::from_ref(e) as usize).or_insert(i);
        }
        m
    };
    let mut g = Gen {
        plan,
        index,
        v: v.clone(),
        scope: Vec::new(),
        dropped: Vec::new(),
        hollowed: Vec::new(),
        fresh: 0,
    };
    let mut fns = Vec::new();
    for f in &plan.program().functions {
        fns.push(g.function(f)?);
    }
    Ok(Staged {
        functions: quote!(#(#fns)*),
        fingerprint: plan.fingerprint(),
    })
}

struct Gen<'a> {
    plan: &'a Plan,
    /// Each node's number (its first position in `plan.preorder()`).
    index: HashMap<usize, usize>,
    v: TokenStream,
    /// The bindings in scope, innermost last: IR name and Rust local.
    scope: Vec<(String, Ident)>,
    /// The locals released so far (in the function or closure being generated), and the
    /// tuples emptied but for some components (each once for the same components).
    dropped: Vec<Ident>,
    hollowed: Vec<(Ident, Vec<usize>)>,
    fresh: usize,
}

impl Gen<'_> {
    fn fresh(&mut self, hint: &str) -> Ident {
        self.fresh += 1;
        let clean: String = hint
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        format_ident!("__v{}_{}", self.fresh, clean)
    }

    fn node(&self, e: &Expr) -> Result<usize, String> {
        self.index
            .get(&(std::ptr::from_ref(e) as usize))
            .copied()
            .ok_or_else(|| "a node outside the prepared program".to_string())
    }

    fn local(&self, name: &str) -> Result<Ident, String> {
        self.scope
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, id)| id.clone())
            .ok_or_else(|| format!("`{name}` is not in scope"))
    }

    /// Reads of `name` (a clone of its value; values share their blocks).
    fn read(&self, name: &str) -> Result<TokenStream, String> {
        let id = self.local(name)?;
        if self.dropped.contains(&id) {
            return Err(format!("`{name}` read after its release"));
        }
        Ok(quote!(#id.clone()))
    }

    /// The releases after `e`: the bindings whose last use it is, not released yet, and the
    /// components of tuples read last by it.
    fn kills(&mut self, e: &Expr) -> Result<TokenStream, String> {
        let mut out = Vec::new();
        for n in self.plan.kills(e) {
            let id = self.local(&n)?;
            if !self.dropped.contains(&id) {
                self.dropped.push(id.clone());
                out.push(quote!(::std::mem::drop(#id);));
            }
        }
        for (n, keep) in self.plan.partial_kills(e) {
            let id = self.local(&n)?;
            let done = (id.clone(), keep.clone());
            if !self.dropped.contains(&id) && !self.hollowed.contains(&done) {
                self.hollowed.push(done);
                out.push(quote!(#id = __st.hollow(#id, &[#(#keep),*]);));
            }
        }
        Ok(quote!(#(#out)*))
    }

    fn function(&mut self, f: &Function) -> Result<TokenStream, String> {
        let v = self.v.clone();
        let fname = name(&f.name);
        let fstr = f.name.as_str();
        let params: Vec<Ident> = f.params.iter().map(|(n, _)| self.fresh(n)).collect();
        self.scope = f
            .params
            .iter()
            .map(|(n, _)| n.clone())
            .zip(params.iter().cloned())
            .collect();
        self.dropped.clear();
        self.hollowed.clear();
        let body_node = self.node(&f.body)?;
        let body = self.expr(&f.body)?;
        Ok(quote! {
            #[allow(non_snake_case, unused_mut, unused_variables, clippy::all)]
            fn #fname(
                __st: &#v::staged::Stage<'_>,
                __ctx: &#v::staged::Lanes,
                #(mut #params: #v::staged::Val),*
            ) -> #v::Result<#v::staged::Val> {
                __st.call(#fstr, #body_node, __ctx, move || Ok(#body))
            }
        })
    }

    /// Code giving the value of `e` (a `Val`; `?` returns the error from the enclosing
    /// function or closure), followed by the releases after it.
    fn expr(&mut self, e: &Expr) -> Result<TokenStream, String> {
        let code = self.expr_inner(e)?;
        let kills = self.kills(e)?;
        if kills.is_empty() {
            Ok(code)
        } else {
            Ok(quote!({ let __r = #code; #kills __r }))
        }
    }

    fn exprs(&mut self, es: &[&Expr]) -> Result<Vec<TokenStream>, String> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    fn expr_inner(&mut self, e: &Expr) -> Result<TokenStream, String> {
        let idx = self.node(e)?;
        Ok(match e {
            Expr::Lit(_) | Expr::Unary(..) | Expr::Binary(..) => self.scalar(e, idx)?,
            Expr::If(..) if self.plan.scalar_root(e) => self.scalar(e, idx)?,
            Expr::Var(n) => self.read(n)?,
            Expr::Let(n, val, body) => {
                let val = self.expr(val)?;
                let id = self.fresh(n);
                self.scope.push((n.clone(), id.clone()));
                let body = self.expr(body);
                self.scope.pop();
                let body = body?;
                quote!({ let mut #id = #val; #body })
            }
            Expr::Tuple(es) => {
                let es = self.exprs(&es.iter().collect::<Vec<_>>())?;
                quote!(__st.tuple(::std::vec![#(#es),*]))
            }
            Expr::Proj(t, _) if matches!(**t, Expr::Filter(..)) => {
                let Expr::Filter(_, a) = &**t else {
                    unreachable!("matched a filter")
                };
                let code = self.classes(quote!(filter_class), t, a, idx)?;
                // The filter's own releases follow its class.
                let kills = self.kills(t)?;
                quote!({ let __r = #code; #kills __r })
            }
            Expr::Proj(t, i) => {
                let t = self.expr(t)?;
                quote!(__st.proj(#t, #i)?)
            }
            Expr::Filter(_, a) => self.classes(quote!(filter), e, a, idx)?,
            Expr::Partition { array, .. } => self.classes(quote!(partition), e, array, idx)?,
            Expr::Redomap(_, z, f, arrays) => {
                let v = self.v.clone();
                let z = if matches!(**z, Expr::Lit(_)) {
                    quote!(::std::option::Option::None)
                } else {
                    let z = self.expr(z)?;
                    quote!(::std::option::Option::Some(#z))
                };
                let arrays = self.exprs(&arrays.iter().collect::<Vec<_>>())?;
                let env = self.lambda_env(e)?;
                // When the kernel declines: the map (its body generated), then the reduction.
                let params: Vec<String> = f.params.iter().map(|(n, _)| n.clone()).collect();
                let enter = quote!(__st.enter_redomap(#idx, __arrays, __ctx)?);
                let mapped = self.enter_body(enter, None, &f.body, &params, quote!())?;
                quote!({
                    let __z = #z;
                    let __arrays = ::std::vec![#(#arrays),*];
                    match __st.redomap(#idx, __z, __arrays, #env, __ctx)? {
                        #v::staged::Redomap::Done(__r) => __r,
                        #v::staged::Redomap::Declined { z: __z, arrays: __arrays } => {
                            let __mapped = #mapped;
                            __st.reduce_mapped(#idx, __z, __mapped, #env, __ctx)?
                        }
                    }
                })
            }
            Expr::Reduce(_, z, a) | Expr::Scan(_, z, a) => {
                let (z, a) = (self.expr(z)?, self.expr(a)?);
                let env = self.lambda_env(e)?;
                quote!({ let __z = #z; let __a = #a; __st.fold(#idx, __z, __a, #env, __ctx)? })
            }
            Expr::Hist {
                bins,
                identity,
                indices,
                values,
                ..
            } => {
                let bins = self.expr(bins)?;
                let (z, ks, vs) = (
                    self.expr(identity)?,
                    self.expr(indices)?,
                    self.expr(values)?,
                );
                let env = self.lambda_env(e)?;
                quote!({
                    let __b = #bins;
                    let __n = __st.hist_bins(&__b, __ctx)?;
                    ::std::mem::drop(__b);
                    let __z = #z; let __k = #ks; let __v = #vs;
                    __st.hist(#idx, &__n, __z, (__k, __v), #env, __ctx)?
                })
            }
            Expr::Loop { init, form, body } => self.lifted_loop(e, init, form, body)?,
            Expr::If(c, a, b) => self.lifted_if(e, c, a, b)?,
            Expr::Call(name, args) => {
                let args = self.exprs(&args.iter().collect::<Vec<_>>())?;
                let f = self::name(name);
                quote!(#f(__st, __ctx, #(#args),*)?)
            }
            Expr::Map(f, arrays) => {
                let arrays = self.exprs(&arrays.iter().collect::<Vec<_>>())?;
                let params: Vec<String> = f.params.iter().map(|(n, _)| n.clone()).collect();
                let enter = quote!(__st.enter("map", __arrays, __ctx)?);
                let arrays = quote!(let __arrays = ::std::vec![#(#arrays),*];);
                self.enter_body(enter, Some(e), &f.body, &params, arrays)?
            }
            Expr::ArrayLit(_, es) => {
                let es = self.exprs(&es.iter().collect::<Vec<_>>())?;
                quote!(__st.array_lit(#idx, ::std::vec![#(#es),*], __ctx)?)
            }
            Expr::Index(a, i) => {
                let (a, i) = (self.expr(a)?, self.expr(i)?);
                quote!({ let __a = #a; let __i = #i; __st.index(&__a, &__i, __ctx)? })
            }
            Expr::Length(a) => {
                let a = self.expr(a)?;
                quote!(__st.length(&#a)?)
            }
            Expr::Iota { len, start, step } => {
                let (l, s, d) = (self.expr(len)?, self.expr(start)?, self.expr(step)?);
                quote!({ let __l = #l; let __s = #s; let __d = #d; __st.iota(&__l, &__s, &__d, __ctx)? })
            }
            Expr::Replicate(c, x) => {
                let (c, x) = (self.expr(c)?, self.expr(x)?);
                quote!({ let __c = #c; let __x = #x; __st.replicate(&__c, &__x, __ctx)? })
            }
            Expr::Slice(a, s, l) => {
                let (a, s, l) = (self.expr(a)?, self.expr(s)?, self.expr(l)?);
                quote!({ let __a = #a; let __s = #s; let __l = #l; __st.slice(&__a, &__s, &__l, __ctx)? })
            }
            Expr::Append(..) => {
                let mut parts = Vec::new();
                self.append_parts(e, &mut parts)?;
                quote!(__st.append(::std::vec![#(#parts),*])?)
            }
            Expr::Concat(a) => {
                let a = self.expr(a)?;
                quote!(__st.concat(&#a)?)
            }
            Expr::Sort(op, a) => {
                let a = self.expr(a)?;
                let indices = *op == flatland_vectoriser::ir::SortOp::Indices;
                quote!(__st.sort(#indices, &#a)?)
            }
            Expr::Scatter(d, i, vals) => {
                let (d, i) = (self.expr(d)?, self.expr(i)?);
                match &**vals {
                    Expr::Replicate(c, x) if self.plan.is_scalar(x) => {
                        let (c, x) = (self.expr(c)?, self.expr(x)?);
                        let kills = self.kills(vals)?;
                        quote!({
                            let __d = #d; let __i = #i; let __c = #c; let __x = #x; #kills
                            __st.scatter_replicated(&__d, &__i, __c, __x, __ctx)?
                        })
                    }
                    _ => {
                        let vals = self.expr(vals)?;
                        quote!({ let __d = #d; let __i = #i; let __v = #vals; __st.scatter(&__d, &__i, __v, __ctx)? })
                    }
                }
            }
            Expr::Fused(fz) => {
                // The kernel, or (when it declines) the code of the expression it replaced;
                // either way the same bindings are released after it.
                let env = self.env_of(&self.plan.free_vars(e, &[]))?;
                let (d, h) = (self.dropped.len(), self.hollowed.len());
                // Only the bindings in scope here: those the replaced expression binds itself
                // (a partition-reduce's `let p = partition(..) in ..`) do not exist beside the
                // kernel.
                let outer: Vec<Ident> = self.scope.iter().map(|(_, id)| id.clone()).collect();
                let original = self.expr(&fz.original)?;
                let drops = self.dropped[d..]
                    .iter()
                    .filter(|id| outer.contains(id))
                    .map(|id| quote!(::std::mem::drop(#id);));
                let hollows = self.hollowed[h..]
                    .iter()
                    .filter(|(id, _)| outer.contains(id))
                    .map(|(id, keep)| quote!(#id = __st.hollow(#id, &[#(#keep),*]);));
                let released = quote!(#(#drops)* #(#hollows)*);
                quote!(match __st.fused(#idx, #env)? {
                    ::std::option::Option::Some(__r) => { #released __r }
                    ::std::option::Option::None => #original,
                })
            }
        })
    }

    /// A scalar operator tree: its inputs evaluated in order, then one expression program.
    fn scalar(&mut self, e: &Expr, idx: usize) -> Result<TokenStream, String> {
        let inputs = self.plan.scalar_inputs(e);
        let ins = self.exprs(&inputs)?;
        Ok(quote!(__st.scalar(#idx, ::std::vec![#(#ins),*], __ctx)?))
    }

    /// The free variables of `e`'s lambdas, as the environment the stage's steps take.
    fn lambda_env(&self, e: &Expr) -> Result<TokenStream, String> {
        self.env_of(&self.plan.lambda_free_vars(e))
    }

    /// The bindings `names` as an environment the stage's steps take (`(name, value)` pairs).
    fn env_of(&self, names: &[String]) -> Result<TokenStream, String> {
        let mut env = Vec::new();
        for n in names {
            let read = self.read(n)?;
            env.push(quote!((#n, #read)));
        }
        Ok(quote!(::std::vec![#(#env),*]))
    }

    /// A filter, one class of a filter (`idx` the projection's number) or a partition (`node`,
    /// whose lambdas' free variables are passed), by the stage's `step`, on the evaluated array
    /// `a`: when `a` is a binding still live afterwards, it
    /// becomes the contiguous form of the same arrays (the next filter of it copies nothing).
    fn classes(
        &mut self,
        step: TokenStream,
        node: &Expr,
        a: &Expr,
        idx: usize,
    ) -> Result<TokenStream, String> {
        let code = self.expr(a)?;
        let env = self.lambda_env(node)?;
        let back = match a {
            Expr::Var(n) => {
                let id = self.local(n)?;
                if self.dropped.contains(&id) {
                    quote!()
                } else {
                    quote!(#id = __same;)
                }
            }
            _ => quote!(),
        };
        Ok(quote!({
            let __a = #code;
            let (__r, __same) = __st.#step(#idx, __a, #env)?;
            #back
            __r
        }))
    }

    /// The operands of an `append` chain, nested appends' operands in their place (the
    /// releases after a nested append follow its operands, as the executor releases them).
    fn append_parts(&mut self, e: &Expr, out: &mut Vec<TokenStream>) -> Result<(), String> {
        let Expr::Append(a, b) = e else {
            out.push(self.expr(e)?);
            return Ok(());
        };
        for x in [a, b] {
            if matches!(**x, Expr::Append(..)) {
                self.append_parts(x, out)?;
                let kills = self.kills(x)?;
                if let Some(last) = out.pop() {
                    out.push(quote!({ let __r = #last; #kills __r }));
                }
            } else {
                out.push(self.expr(x)?);
            }
        }
        Ok(())
    }

    /// A closure running `body` in a scope of its own: its free variables (when `params` are
    /// bound) come in as arguments, `params` after them. Returns the closure's code and the
    /// free variables it takes, in order.
    fn closure(
        &mut self,
        body: &Expr,
        params: &[String],
    ) -> Result<(TokenStream, Vec<String>), String> {
        let v = self.v.clone();
        let free = self.plan.free_vars(body, params);
        let saved = (
            std::mem::take(&mut self.scope),
            std::mem::take(&mut self.dropped),
            std::mem::take(&mut self.hollowed),
        );
        let mut args = Vec::new();
        for n in free.iter().chain(params) {
            let id = self.fresh(n);
            self.scope.push((n.clone(), id.clone()));
            args.push(id);
        }
        let body_node = self.node(body);
        let code = self.expr(body);
        (self.scope, self.dropped, self.hollowed) = saved;
        let (body_node, code) = (body_node?, code?);
        Ok((
            quote! {
                |__ctx: &#v::staged::Lanes, #(mut #args: #v::staged::Val),*| -> #v::Result<#v::staged::Val> {
                    if __ctx.is_empty() {
                        return __st.empty(#body_node);
                    }
                    Ok(#code)
                }
            },
            free,
        ))
    }

    /// A lifted `if`: each branch a closure over its free variables, run on the lanes that
    /// take it (the values packed to them); the `if`'s last uses are released before the
    /// branches run.
    fn lifted_if(&mut self, e: &Expr, c: &Expr, a: &Expr, b: &Expr) -> Result<TokenStream, String> {
        let v = self.v.clone();
        let cond = self.expr(c)?;
        let (then_f, then_free) = self.closure(a, &[])?;
        let (else_f, else_free) = self.closure(b, &[])?;
        // The first branch's result waits while the second runs: with a call under the second
        // (lifted recursion), it keeps only the elements it reaches.
        let settle = if self.plan.calls_under(b) {
            quote!(let __ra = __st.compact(__ra)?;)
        } else {
            quote!()
        };
        let reads = |g: &Gen, free: &[String]| -> Result<Vec<Ident>, String> {
            free.iter().map(|n| g.local(n)).collect()
        };
        let (ta, ea) = (reads(self, &then_free)?, reads(self, &else_free)?);
        let kills = self.kills(e)?;
        Ok(quote!({
            let __cond = #cond;
            let __then = #then_f;
            let __else = #else_f;
            match __st.branches(__cond, __ctx)? {
                #v::staged::Branch::Then => {
                    let __args = (#(#ta.clone(),)*);
                    #kills
                    let (#(#ta,)*) = __args;
                    __then(__ctx, #(#ta),*)?
                }
                #v::staged::Branch::Else => {
                    let __args = (#(#ea.clone(),)*);
                    #kills
                    let (#(#ea,)*) = __args;
                    __else(__ctx, #(#ea),*)?
                }
                #v::staged::Branch::Both(__s) => {
                    let __ta = (#(__s.pack_then(&#ta)?,)*);
                    let __ea = (#(__s.pack_else(&#ea)?,)*);
                    #kills
                    let (#(#ta,)*) = __ta;
                    let __ra = __then(&__s.then_lanes(__ctx), #(#ta),*)?;
                    #settle
                    let (#(#ea,)*) = __ea;
                    let __rb = __else(&__s.else_lanes(__ctx), #(#ea),*)?;
                    __s.combine(&__ra, &__rb)?
                }
            }
        }))
    }

    /// A lifted loop: the body (and a `while` condition) closures over their free variables,
    /// run once per iteration on the lanes still active; the free variables are packed only
    /// where lanes leave. The loop's last uses are released before it runs, as in the executor.
    fn lifted_loop(
        &mut self,
        e: &Expr,
        init: &Expr,
        form: &flatland_vectoriser::ir::LoopForm,
        body: &flatland_vectoriser::ir::Lambda,
    ) -> Result<TokenStream, String> {
        use flatland_vectoriser::ir::LoopForm;
        let names = |l: &flatland_vectoriser::ir::Lambda| -> Vec<String> {
            l.params.iter().map(|(n, _)| n.clone()).collect()
        };
        let init = self.expr(init)?;
        let counts = match form {
            LoopForm::For(n) => {
                let n = self.expr(n)?;
                quote!(::std::option::Option::Some(#n))
            }
            LoopForm::While(_) => quote!(::std::option::Option::None),
        };
        let (body_f, body_free) = self.closure(&body.body, &names(body))?;
        let cond = match form {
            LoopForm::While(c) => Some(self.closure(&c.body, &names(c))?),
            LoopForm::For(_) => None,
        };
        let mut free = body_free.clone();
        for n in cond.iter().flat_map(|c| &c.1) {
            if !free.contains(n) {
                free.push(n.clone());
            }
        }
        let reads = |g: &Gen, free: &[String]| -> Result<Vec<Ident>, String> {
            free.iter().map(|n| g.local(n)).collect()
        };
        let (outer, bf) = (reads(self, &free)?, reads(self, &body_free)?);
        let kills = self.kills(e)?;
        let (cond_f, settle) = match &cond {
            Some((f, cfree)) => {
                let cf = reads(self, cfree)?;
                (
                    quote!(let __cond = #f;),
                    quote!({
                        let __c = __cond(&__lp.lanes(), #(#cf.clone(),)* __lp.state())?;
                        __lp.settle_while(__c)?
                    }),
                )
            }
            None => (quote!(), quote!(__lp.settle_for()?)),
        };
        let index = match form {
            LoopForm::For(_) => quote!(, __lp.index()),
            LoopForm::While(_) => quote!(),
        };
        Ok(quote!({
            let __init = #init;
            let __counts = #counts;
            let mut __lp = __st.loop_start(__init, __counts, __ctx)?;
            let __body = #body_f;
            #cond_f
            let __args = (#(#outer.clone(),)*);
            #kills
            let (#(mut #outer,)*) = __args;
            loop {
                if let ::std::option::Option::Some(__m) = #settle {
                    #(#outer = __m.pack(&#outer)?;)*
                }
                if !__lp.active() {
                    break;
                }
                let __next = __body(&__lp.lanes(), #(#bf.clone(),)* __lp.state() #index)?;
                __lp.step(__next);
            }
            __lp.finish()?
        }))
    }

    /// A map of `body` (parameters `params`) over `__arrays` (bound by `arrays`, code run
    /// first), entered by `enter`: the body runs on the elements' lanes, its free variables
    /// replicated into them. For a `map` node `e`, its last uses are released first and values
    /// kept across a call under it compacted (a redomap's map, `None`, does neither, as in the
    /// executor).
    fn enter_body(
        &mut self,
        enter: TokenStream,
        e: Option<&Expr>,
        body: &Expr,
        params: &[String],
        arrays: TokenStream,
    ) -> Result<TokenStream, String> {
        let (f, free) = self.closure(body, params)?;
        let outer: Vec<Ident> = free
            .iter()
            .map(|n| self.local(n))
            .collect::<Result<_, _>>()?;
        let (kills, compact) = match e {
            Some(e) => {
                let kills = self.kills(e)?;
                let compact = if self.plan.calls_under(e) {
                    let live: Vec<Ident> = self
                        .scope
                        .iter()
                        .map(|(_, id)| id.clone())
                        .filter(|id| !self.dropped.contains(id))
                        .collect();
                    quote!(#(#live = __st.compact(#live)?;)*)
                } else {
                    quote!()
                };
                (kills, compact)
            }
            None => (quote!(), quote!()),
        };
        let ps = params.iter().map(|_| quote!(__in.param()?));
        Ok(quote!({
            #arrays
            let mut __in = #enter;
            let __free = (#(__in.replicate(&#outer)?,)*);
            #kills
            #compact
            let __body = #f;
            let (#(#outer,)*) = __free;
            let __lanes = __in.lanes().clone();
            let __r = __body(&__lanes, #(#outer,)* #(#ps),*)?;
            __in.finish(__r)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flatland_vectoriser::programs::{self, Pivot};

    /// Every reference program stages: each of its functions becomes a Rust function, and the
    /// code is Rust (it parses as items).
    #[test]
    fn reference_programs_stage_to_rust_items() {
        let programs = [
            programs::dot().0,
            programs::sum_squares().0,
            programs::smvm().0,
            programs::primes().0,
            programs::quicksort(Pivot::Middle).0,
            programs::quickhull().0,
            programs::tree_lookup().0,
            programs::indices().0,
            programs::futhark_filter().0,
            programs::nested3().0,
        ];
        for p in programs {
            let plan = Plan::new(p.ir()).expect("the program checks");
            let staged = generate(&plan, &quote!(v)).expect("every node kind stages");
            let file: syn::File = syn::parse2(staged.functions).expect("the code parses");
            assert_eq!(file.items.len(), plan.program().functions.len());
            assert_eq!(staged.fingerprint, plan.fingerprint());
        }
    }

    /// Fused forms (a scan of a map, the "fusion 2.0" partition with its reductions) run their
    /// kernel, with the code of the expression each replaced as the way when it declines.
    #[test]
    fn fused_forms_have_their_kernel_and_the_replaced_code() {
        use flatland_vectoriser::ir::{Expr, Function, Lambda, Program, ReduceOp, Type};
        let doubled = Expr::map(
            Lambda::new(
                &["x"],
                Expr::binary(
                    flatland_vectoriser::ir::BinaryOp::Mul,
                    Expr::var("x"),
                    Expr::f64(2.0),
                ),
            ),
            vec![Expr::var("xs")],
        );
        let scanomap = Program::new(vec![Function::new(
            "s",
            vec![("xs".into(), Type::array(Type::F64))],
            Type::array(Type::F64),
            Expr::scan(ReduceOp::Add, Expr::f64(0.0), doubled),
        )]);
        for p in [scanomap, flatland_vectoriser::fuse::fusion2()] {
            let plan = Plan::new(&p).unwrap();
            let code = generate(&plan, &quote!(v)).unwrap().functions.to_string();
            assert!(code.contains("__st . fused"), "no kernel in {code}");
            assert!(
                code.contains("Option :: None =>"),
                "no replaced code in {code}"
            );
        }
    }

    /// Lifted control flow is Rust: a lifted `if` splits lanes, `map` enters the elements'
    /// context and a recursive call is a call of the generated function; the filter is one
    /// step on its evaluated array.
    #[test]
    fn quicksort_control_flow_is_emitted() {
        let (p, _) = programs::quicksort(Pivot::Middle);
        let plan = Plan::new(p.ir()).unwrap();
        let code = generate(&plan, &quote!(v)).unwrap().functions.to_string();
        for part in [
            "__st . branches",
            "Branch :: Both",
            "__st . enter",
            "__staged_quicksort (__st , __ctx",
            "__st . filter",
            "__st . append",
        ] {
            assert!(code.contains(part), "no `{part}` in {code}");
        }
    }
}
