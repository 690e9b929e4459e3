//! Expansion of `#[vectorise] mod m { .. }`: signatures, lowering, checking, code generation.

use crate::lower::Lower;
use crate::{direct, emit, native, sig, staged};
use flatland_vectoriser::check;
use flatland_vectoriser::exec::{ExecOptions, Prepared};
use flatland_vectoriser::ir::{Expr, Function, Program, Type};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;

struct Sig<'a> {
    item: &'a syn::ItemFn,
    params: Vec<(syn::Ident, Type, sig::Passing)>,
    ret: Type,
    returning: sig::Returning,
}

/// Expands the attribute on `item` with arguments `attr`.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let mut v: TokenStream = quote!(::flatland::vectoriser);
    let mut rt: Option<TokenStream> = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("vectoriser") {
            let p: syn::Path = meta.value()?.parse()?;
            v = quote!(#p);
            Ok(())
        } else if meta.path.is_ident("runtime") {
            let p: syn::Path = meta.value()?.parse()?;
            rt = Some(quote!(#p));
            Ok(())
        } else {
            Err(meta.error(
                "#[vectorise]: unknown option (supported: `vectoriser = path`, `runtime = path`)",
            ))
        }
    });
    syn::parse::Parser::parse2(parser, attr)?;
    let rt = rt.unwrap_or_else(|| quote!(#v::runtime));
    let m: syn::ItemMod = syn::parse2(item).map_err(|e| {
        syn::Error::new(
            e.span(),
            "#[vectorise] goes on a module: `#[vectorise] mod kernels { fn f(..) -> T { .. } }`",
        )
    })?;
    let Some((_, items)) = &m.content else {
        return Err(syn::Error::new(
            m.span(),
            "#[vectorise] needs the module's body inline (`mod kernels { .. }`)",
        ));
    };

    let mut errors: Option<syn::Error> = None;
    let mut uses = Vec::new();
    let mut sigs = Vec::new();
    for it in items {
        match it {
            syn::Item::Use(u) => uses.push(u),
            syn::Item::Fn(f) => match signature(f, &v) {
                Ok(s) => sigs.push(s),
                Err(e) => push(&mut errors, e),
            },
            other => push(
                &mut errors,
                syn::Error::new(
                    other.span(),
                    "#[vectorise]: a vectorised module holds only functions and `use` items",
                ),
            ),
        }
    }
    // The generated names must not collide with the user's.
    let names: Vec<String> = sigs.iter().map(|s| s.item.sig.ident.to_string()).collect();
    for s in &sigs {
        let n = s.item.sig.ident.to_string();
        let taken = n == "program"
            || n == "explain"
            || names.contains(&format!("{n}_reference"))
            || names.contains(&format!("{n}_executor"))
            || names.contains(&format!("try_{n}"));
        if taken {
            push(
                &mut errors,
                syn::Error::new(
                    s.item.sig.ident.span(),
                    format!(
                        "#[vectorise]: the macro generates `program`, `explain`, `try_{n}`, \
                         `{n}_executor` and `{n}_reference`; rename the function that collides"
                    ),
                ),
            );
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }

    // The signatures, with placeholder bodies, type the calls while lowering.
    let placeholder = |s: &Sig| {
        Function::new(
            &s.item.sig.ident.to_string(),
            s.params
                .iter()
                .map(|(n, t, _)| (n.to_string(), t.clone()))
                .collect(),
            s.ret.clone(),
            Expr::i64(0),
        )
    };
    let mut program = Program::new(sigs.iter().map(placeholder).collect());
    let mut bodies = Vec::new();
    for s in &sigs {
        let params = s
            .params
            .iter()
            .map(|(n, t, _)| (n.to_string(), t.clone()))
            .collect();
        let mut l = Lower::new(&program, params);
        match l.block(&s.item.block) {
            Ok((body, t)) if t == s.ret => bodies.push(body),
            Ok((_, t)) => push(
                &mut errors,
                syn::Error::new(
                    body_span(&s.item.block),
                    format!(
                        "#[vectorise]: type error: the body has type {t}, `{}` returns {}",
                        s.item.sig.ident, s.ret
                    ),
                ),
            ),
            Err(e) => push(&mut errors, e),
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }
    for (f, body) in program.functions.iter_mut().zip(bodies) {
        f.body = body;
    }
    if let Err(e) = check::check_program(&program) {
        return Err(syn::Error::new(
            m.ident.span(),
            format!("#[vectorise]: {e}"),
        ));
    }

    let build = emit::program(&program, &v);
    // The expression programs the executor will run, compiled here to native kernels.
    let programs = program
        .functions
        .first()
        .and_then(|f| Prepared::new(&program, &f.name, &ExecOptions::default()).ok())
        .map(|p| p.expression_programs())
        .unwrap_or_default();
    let natives = native::registration(&programs, &rt);
    // The lifted control flow as Rust (a program the plan cannot stage runs on the executor).
    let staged = flatland_vectoriser::staged::Plan::new(&program)
        .map_err(|e| e.to_string())
        .and_then(|plan| staged::generate(&plan, &v))
        .ok();
    let fingerprint = staged.as_ref().map(|st| st.fingerprint);
    let (fns, routes): (Vec<_>, Vec<_>) = sigs
        .iter()
        .zip(&program.functions)
        .map(|(s, f)| wrappers(s, f, &program, &v, &rt, fingerprint))
        .unzip();
    let staged_fns = staged.map(|st| st.functions);
    let (attrs, vis, name) = (&m.attrs, &m.vis, &m.ident);
    Ok(quote! {
        #(#attrs)*
        #vis mod #name {
            #(#uses)*

            /// The IR of this module's functions (built once; lowered and checked at compile
            /// time by `#[vectorise]`).
            #[allow(dead_code)]
            pub fn program() -> &'static #v::ir::Program {
                static PROGRAM: ::std::sync::OnceLock<#v::ir::Program> = ::std::sync::OnceLock::new();
                PROGRAM.get_or_init(|| {
                    __register_native_kernels();
                    #build
                })
            }

            /// Which code each function of this module runs, one line per function: `direct`
            /// (one runtime primitive with the element body compiled by rustc), `staged` (the
            /// lifted function compiled to Rust, its bulk steps runtime calls) or `executor`
            /// (the flattened executor walks the fused IR), and why.
            #[allow(dead_code)]
            pub fn explain() -> ::std::string::String {
                let mut out = ::std::string::String::new();
                #(
                    out.push_str(&#routes);
                    out.push('\n');
                )*
                out
            }

            #natives

            #staged_fns

            #(#fns)*
        }
    })
}

fn push(errors: &mut Option<syn::Error>, e: syn::Error) {
    match errors {
        Some(all) => all.combine(e),
        None => *errors = Some(e),
    }
}

fn body_span(b: &syn::Block) -> proc_macro2::Span {
    match b.stmts.last() {
        Some(s) => s.span(),
        None => b.span(),
    }
}

fn signature<'a>(f: &'a syn::ItemFn, v: &TokenStream) -> syn::Result<Sig<'a>> {
    let s = &f.sig;
    if let Some(x) = s
        .constness
        .as_ref()
        .map(Spanned::span)
        .or(s.asyncness.as_ref().map(Spanned::span))
        .or(s.unsafety.as_ref().map(Spanned::span))
        .or(s.abi.as_ref().map(Spanned::span))
        .or(s.variadic.as_ref().map(Spanned::span))
    {
        return Err(syn::Error::new(
            x,
            "#[vectorise]: const, async, unsafe, extern and variadic functions are not supported",
        ));
    }
    if !s.generics.params.is_empty() {
        let lifetimes_only = s
            .generics
            .params
            .iter()
            .all(|p| matches!(p, syn::GenericParam::Lifetime(_)));
        if !lifetimes_only {
            return Err(syn::Error::new(
                s.generics.span(),
                "#[vectorise]: generic functions are not supported (only lifetimes)",
            ));
        }
    }
    let mut params = Vec::new();
    for input in &s.inputs {
        let syn::FnArg::Typed(pt) = input else {
            return Err(syn::Error::new(
                input.span(),
                "#[vectorise]: methods (`self`) are not supported",
            ));
        };
        let syn::Pat::Ident(id) = &*pt.pat else {
            return Err(syn::Error::new(
                pt.pat.span(),
                "#[vectorise]: parameters must be plain names",
            ));
        };
        if id.by_ref.is_some() || id.mutability.is_some() || id.subpat.is_some() {
            return Err(syn::Error::new(
                pt.pat.span(),
                "#[vectorise]: parameters must be plain names",
            ));
        }
        let (t, passing) = sig::param(&pt.ty, v)?;
        params.push((id.ident.clone(), t, passing));
    }
    let syn::ReturnType::Type(_, rt) = &s.output else {
        return Err(syn::Error::new(
            s.ident.span(),
            "#[vectorise]: a vectorised function must return a value (`-> T`)",
        ));
    };
    let (ret, returning) = sig::result(rt, v)?;
    Ok(Sig {
        item: f,
        params,
        ret,
        returning,
    })
}

/// The executor and reference functions of one vectorised function, and an expression that
/// says which code it runs (a line of the module's `explain()`).
fn wrappers(
    s: &Sig,
    ir: &Function,
    program: &Program,
    v: &TokenStream,
    rt: &TokenStream,
    fingerprint: Option<u64>,
) -> (TokenStream, TokenStream) {
    let f = s.item;
    let (attrs, vis, name) = (&f.attrs, &f.vis, &f.sig.ident);
    let name_str = name.to_string();
    let reference = format_ident!("{}_reference", name);
    let try_name = format_ident!("try_{}", name);
    let try_str = try_name.to_string();
    let generics = &f.sig.generics;
    let inputs = &f.sig.inputs;
    let ret = match &f.sig.output {
        syn::ReturnType::Type(_, t) => quote!(#t),
        syn::ReturnType::Default => quote!(()),
    };
    let place = |n: &syn::Ident| format!("argument `{n}` of `{name_str}`");
    let result_place = format!("the result of `{name_str}`");
    let lanes: Vec<_> = s
        .params
        .iter()
        .map(|(n, _, p)| sig::to_lanes(n, p, &place(n), v))
        .collect();
    let values = s
        .params
        .iter()
        .map(|(n, _, p)| sig::to_value(n, p, &place(n), v));
    let out_lanes = sig::from_lanes(&s.returning, &quote!(out), &result_place, v);
    let out_value = sig::from_value(&s.returning, &quote!(out), &result_place, v);
    let doc_ref = format!(
        "`{name_str}` evaluated by the reference interpreter (`eval`) on the same IR, for testing."
    );
    let executor = format_ident!("{}_executor", name);
    let names = s.params.iter().map(|(n, _, _)| n);
    let fallback = quote!(#executor(#(#names),*));
    let dparams: Vec<direct::Param> = s
        .params
        .iter()
        .map(|(name, ty, passing)| direct::Param { name, ty, passing })
        .collect();
    let prepared = format_ident!("__prepared_{}", name);
    let route_direct = format!(
        "{name_str}: direct: one runtime primitive with the element body compiled by rustc"
    );
    let route_staged = format!(
        "{name_str}: staged: the lifted function compiled to Rust; its bulk steps call the runtime"
    );
    let route_changed = format!(
        "{name_str}: executor: the run-time program differs from the one the staged code was generated from"
    );
    let route_executor = format!(
        "{name_str}: executor: the flattened executor walks the fused IR (the macro could not stage this module)"
    );
    let mut route = quote!(::std::string::String::from(#route_executor));
    // The direct patterns read `i64`/`f64` slices and `Nested` arrays in place and build `Vec`
    // results: converted parameters and results take the staged code.
    let plain = matches!(s.returning, sig::Returning::Ty { .. })
        && s.params
            .iter()
            .all(|(_, _, p)| matches!(p, sig::Passing::Ty { .. } | sig::Passing::Nested { .. }));
    let direct = if plain {
        direct::body(program, ir, &dparams, rt, &fallback)
    } else {
        None
    };
    let main = if let Some(body) = direct {
        route = quote!(::std::string::String::from(#route_direct));
        quote! {
            #(#attrs)*
            ///
            /// Generated by `#[vectorise]`: direct code (one runtime primitive with the element
            /// body compiled by rustc as a closure); on a failing element it reruns the executor,
            /// which returns the error.
            #[allow(dead_code, clippy::missing_errors_doc)]
            #vis fn #try_name #generics (#inputs) -> #v::Result<#ret> {
                #body
            }
        }
    } else if let Some(fingerprint) = fingerprint {
        route = quote!(match #prepared() {
            Ok(p) if #v::staged::generated_from(p, #fingerprint) => {
                ::std::string::String::from(#route_staged)
            }
            Ok(_) => ::std::string::String::from(#route_changed),
            Err(e) => ::std::format!("{}: does not prepare: {}", #name_str, e),
        });
        let staged = staged::name(&name_str);
        let args: Vec<_> = (0..s.params.len())
            .map(|k| format_ident!("__a{k}"))
            .collect();
        quote! {
            #(#attrs)*
            ///
            /// Generated by `#[vectorise]`: the flattened (lifted) function as Rust code that
            /// calls the lifting steps and runtime primitives; runtime errors (index out of range,
            /// division by zero) are returned, naming the operation and lane.
            #[allow(dead_code, clippy::missing_errors_doc)]
            #vis fn #try_name #generics (#inputs) -> #v::Result<#ret> {
                let prepared = #prepared()?;
                // Checked once: the prepared program never changes.
                static SAME: ::std::sync::OnceLock<bool> = ::std::sync::OnceLock::new();
                if !*SAME.get_or_init(|| #v::staged::generated_from(prepared, #fingerprint)) {
                    // Not the program the code was generated from: the executor runs it.
                    return #fallback;
                }
                let args = ::std::vec![#(#lanes),*];
                let out = #v::staged::run(prepared, args, |__st, __ctx, __args| {
                    let [#(#args),*]: [#v::staged::Val; _] =
                        __args.try_into().map_err(|_| __st.arity(#name_str))?;
                    #staged(__st, __ctx, #(#args),*)
                })?;
                #out_lanes
            }
        }
    } else {
        quote! {
            #(#attrs)*
            ///
            /// Generated by `#[vectorise]`: runs the flattened executor; runtime errors (index
            /// out of range, division by zero) are returned, naming the operation and lane.
            #[allow(dead_code, clippy::missing_errors_doc)]
            #vis fn #try_name #generics (#inputs) -> #v::Result<#ret> {
                #fallback
            }
        }
    };
    let doc_exec = format!("`{name_str}` run by the flattened executor (with fusion).");
    let doc_panics = format!(
        "`{name_str}` as written: the value of [`{try_str}`], which runs the same code.\n\n\
         # Panics\n\
         On a runtime error (index out of range, division by zero, a recursion too deep, an \
         argument that does not fit), as the same Rust code would; the message is \
         `{name_str}: ` followed by the error, which names the operation and the lane. \
         [`{try_str}`] returns the error instead."
    );
    let forward = s.params.iter().map(|(n, _, _)| n);
    let code = quote! {
        #(#attrs)*
        ///
        #[doc = #doc_panics]
        #[allow(dead_code)]
        #[track_caller]
        #vis fn #name #generics (#inputs) -> #ret {
            match #try_name(#(#forward),*) {
                ::std::result::Result::Ok(out) => out,
                ::std::result::Result::Err(e) => ::std::panic!("{}: {}", #name_str, e),
            }
        }

        #main

        #[doc = #doc_exec]
        #[allow(dead_code, clippy::missing_errors_doc)]
        #vis fn #executor #generics (#inputs) -> #v::Result<#ret> {
            let args = ::std::vec![#(#lanes),*];
            let out = #prepared()?.run_args(args)?;
            #out_lanes
        }

        /// The program prepared to run this function (checked, fused and analysed once, on the
        /// first call).
        #[allow(dead_code, non_snake_case)]
        fn #prepared() -> #v::Result<&'static #v::exec::Prepared> {
            static PREPARED: ::std::sync::OnceLock<#v::exec::Prepared> =
                ::std::sync::OnceLock::new();
            Ok(match PREPARED.get() {
                Some(p) => p,
                None => {
                    let p = #v::exec::Prepared::new(
                        program(),
                        #name_str,
                        &#v::exec::ExecOptions::default(),
                    )?;
                    PREPARED.get_or_init(|| p)
                }
            })
        }

        #[doc = #doc_ref]
        #[allow(dead_code, clippy::missing_errors_doc)]
        #vis fn #reference #generics (#inputs) -> #v::Result<#ret> {
            let out = #v::eval::run(program(), #name_str, ::std::vec![#(#values),*])?;
            #out_value
        }
    };
    (code, route)
}
