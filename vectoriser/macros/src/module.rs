//! Expansion of `#[vectorise] mod m { .. }`: signatures, lowering, checking, code generation.

use crate::lower::Lower;
use crate::{emit, lane, native, recursion, sig};
use flatland_vectoriser::check;
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
        if names.contains(&format!("try_{n}")) {
            push(
                &mut errors,
                syn::Error::new(
                    s.item.sig.ident.span(),
                    format!(
                        "#[vectorise]: the macro generates `try_{n}` beside `{n}`; rename the \
                         function that collides"
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
    // The expression programs the executor may run, compiled here to native kernels: under
    // both outcomes of each size-dependent fusion, which the run decides on its machine (the
    // build reads no machine profile).
    let programs = flatland_vectoriser::native::kernel_programs(&program)
        .map_err(|e| syn::Error::new(m.ident.span(), format!("#[vectorise]: {e}")))?;
    let natives = native::table(&programs, &rt);
    // Per-lane code takes the one fusion that keeps its lane-by-lane order of evaluation.
    let lanes = lane::module(&flatland_vectoriser::fuse::per_lane(&program), &v, &rt);
    let generated: Vec<Generated> = sigs.iter().map(|s| wrappers(s, &program, &v)).collect();
    let fns = generated.iter().map(|g| &g.user);
    let plans = generated.iter().map(|g| &g.plan);
    let fn_names = sigs.iter().map(|s| &s.item.sig.ident);
    let (attrs, vis, name) = (&m.attrs, &m.vis, &m.ident);
    let plan_doc = format!(
        "What `#[vectorise]` generated for the functions of `{name}` besides the functions as \
         written (`f` and `try_f`): the module's program, [`explain`], and one module per \
         function `f` with `f::executor`, `f::per_lane`, `f::reference`, `f::prepared`, `f::trace` \
         and `f::explain`; \
         [`kernels`] is the table of native kernels every prepared program of the module carries."
    );
    Ok(quote! {
        #(#attrs)*
        #vis mod #name {
            #(#uses)*

            #(#fns)*

            #[doc = #plan_doc]
            #[allow(dead_code, private_interfaces)]
            pub mod plan {
                /// The IR of this module's functions (built once; lowered and checked at
                /// compile time by `#[vectorise]`).
                pub fn program() -> &'static #v::ir::Program {
                    static PROGRAM: ::std::sync::OnceLock<#v::ir::Program> =
                        ::std::sync::OnceLock::new();
                    PROGRAM.get_or_init(|| #build)
                }

                /// Which code each function of this module runs, one line per function:
                /// `per-lane` (the function's sequential form compiled by rustc, maps' lanes in
                /// parallel where their work pays) or `flatten` (the flattening executor runs
                /// the fused program, its elementwise steps this module's native kernels), and
                /// why.
                pub fn explain() -> ::std::string::String {
                    let mut out = ::std::string::String::new();
                    #(
                        out.push_str(&#fn_names::explain());
                        out.push('\n');
                    )*
                    out
                }

                #natives

                #lanes

                #(#plans)*
            }
        }
    })
}

/// What the macro generates for one function: the user's `f` and `try_f`, and the module
/// `plan::f` of the other entry points.
struct Generated {
    user: TokenStream,
    plan: TokenStream,
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

/// The functions generated for one vectorised function: `f` and `try_f` beside the user's
/// code, and `plan::f::{executor, reference, prepared, explain}`.
fn wrappers(s: &Sig, program: &Program, v: &TokenStream) -> Generated {
    let f = s.item;
    let (attrs, vis, name) = (&f.attrs, &f.vis, &f.sig.ident);
    let name_str = name.to_string();
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
    let fallback = {
        let names = s.params.iter().map(|(n, _, _)| n);
        quote!(plan::#name::executor(#(#names),*))
    };
    let route_executor = format!(
        "{name_str}: flatten: the flattening executor runs the fused program with this module's native kernels (the function has no per-lane form)"
    );
    let route_per_lane = format!(
        "{name_str}: per-lane: the function's sequential form compiled by rustc, maps' lanes and heavy bulk operations in parallel where their work pays; the flattening executor where it measured faster for a size, or forced"
    );
    let names: Vec<&syn::Ident> = s.params.iter().map(|(n, _, _)| n).collect();
    let (per_lane, has_per_lane) = per_lane(s, &v.clone(), &name_str);
    let route_recursive = format!(
        "{name_str}: flatten (recursive): it reaches a recursion that may keep a dead array alive across its recursive calls; the flattening executor releases each level's arrays before them (the per-lane form when forced)"
    );
    let is_recursive = recursion::recursion_holds_arrays(program, &name_str);
    let (route, runs_executor) = match has_per_lane {
        true if is_recursive => (route_recursive, true),
        true => (route_per_lane, false),
        false => (route_executor, true),
    };
    let main = {
        let strategy = quote!(#v::strategy::Strategy);
        let forms = if is_recursive {
            quote!(#v::strategy::Forms::Recursive)
        } else {
            quote!(#v::strategy::Forms::Both)
        };
        let dispatch = if has_per_lane {
            quote! {
                let __size = 0usize #(+ #v::strategy::Size::size(&#names))*;
                let __strategy = plan::#name::ROUTES.choose(#forms, __size);
                let __start = ::std::time::Instant::now();
                let __out = match __strategy {
                    #strategy::PerLane => plan::#name::per_lane(#(#names),*),
                    #strategy::Flatten => #fallback,
                };
                if __out.is_ok() {
                    plan::#name::ROUTES.measured(__strategy, __size, __start.elapsed());
                }
                __out
            }
        } else {
            quote! {
                plan::#name::ROUTES.choose(#v::strategy::Forms::ExecutorOnly, 0);
                #fallback
            }
        };
        quote! {
            #(#attrs)*
            ///
            /// Generated by `#[vectorise]`: runs the strategy the run chooses
            /// (`flatland::vectoriser::strategy`: the per-lane form or the flattening executor,
            /// whichever this function's calls of this size measured faster; the executor
            /// where the function has no per-lane form); runtime errors (index out of range,
            /// division by zero) are returned, naming the operation and lane.
            #[allow(dead_code, clippy::missing_errors_doc)]
            #vis fn #try_name #generics (#inputs) -> #v::Result<#ret> {
                #dispatch
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
    let user = quote! {
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
    };
    let doc_explain = format!(
        "Which code `{try_str}` runs and why (this function's line of the module's \
         `plan::explain()`); for the executor, the size-dependent fusions its prepared program \
         decided on this machine, with the cost model's predictions."
    );
    let doc_mod = format!(
        "The generated entry points of `{name_str}` other than `{name_str}` and `{try_str}`."
    );
    let plan = quote! {
        #[doc = #doc_mod]
        pub mod #name {
            #[allow(unused_imports)]
            use super::super::*;

            #[doc = #doc_exec]
            #[allow(clippy::missing_errors_doc)]
            pub fn executor #generics (#inputs) -> #v::Result<#ret> {
                let args = ::std::vec![#(#lanes),*];
                let out = prepared()?.run_args(args)?;
                #out_lanes
            }

            /// The program prepared to run this function (checked, fused and analysed once,
            /// on the first call).
            ///
            /// # Errors
            /// If the program does not prepare (it was checked when the macro expanded).
            pub fn prepared() -> #v::Result<&'static #v::exec::Prepared> {
                static PREPARED: ::std::sync::OnceLock<#v::exec::Prepared> =
                    ::std::sync::OnceLock::new();
                Ok(match PREPARED.get() {
                    Some(p) => p,
                    None => {
                        let p = #v::exec::Prepared::new(
                            super::program(),
                            #name_str,
                            &#v::exec::ExecOptions::default(),
                        )?
                        .with_kernels(super::kernels());
                        PREPARED.get_or_init(|| p)
                    }
                })
            }

            /// The routes the single-pass steps of this function's executor runs took since
            /// the first call (kernel runs and declines, by kind of step).
            ///
            /// # Errors
            /// If the program does not prepare (it was checked when the macro expanded).
            pub fn trace() -> #v::Result<&'static #v::trace::Trace> {
                Ok(prepared()?.trace())
            }

            #per_lane

            /// How many calls of the function took each strategy (`explain` reports them).
            pub static ROUTES: #v::strategy::Routes = #v::strategy::Routes::new();

            #[doc = #doc_ref]
            #[allow(clippy::missing_errors_doc)]
            pub fn reference #generics (#inputs) -> #v::Result<#ret> {
                let out = #v::eval::run(super::program(), #name_str, ::std::vec![#(#values),*])?;
                #out_value
            }

            #[doc = #doc_explain]
            pub fn explain() -> ::std::string::String {
                let mut out = ::std::string::String::from(#route);
                out.push_str(&::std::format!("; calls so far: {}", ROUTES));
                if #runs_executor {
                    match prepared() {
                        Ok(p) => {
                            for d in p.decisions() {
                                out.push_str("; decided when prepared: ");
                                out.push_str(d);
                            }
                        }
                        Err(e) => out.push_str(&::std::format!("; does not prepare: {e}")),
                    }
                }
                out
            }
        }
    };
    Generated { user, plan }
}

/// `plan::f::per_lane`: the per-lane form of `f` (`lane.rs`) on the arguments as written, its
/// maps' lanes in parallel where the run decides they pay (`flatland_vectoriser::lane::Lanes`).
/// Parameters reach it without a copy (a `Nested` one is read in place, `lane::Rows`); narrow
/// and `Nested` results and parameters of other element types have none yet, which the doc of
/// `plan::f` says.
fn per_lane(s: &Sig, v: &TokenStream, name_str: &str) -> (TokenStream, bool) {
    let f = s.item;
    let (generics, inputs) = (&f.sig.generics, &f.sig.inputs);
    let ret = match &f.sig.output {
        syn::ReturnType::Type(_, t) => quote!(#t),
        syn::ReturnType::Default => quote!(()),
    };
    let args: Option<Vec<TokenStream>> = s
        .params
        .iter()
        .map(|(n, _, p)| match p {
            sig::Passing::Ty { .. } => Some(quote!(#v::lane::IntoLane::into_lane(#n))),
            sig::Passing::Nested { .. } => Some(quote!(#v::lane::Rows::new(#n))),
            sig::Passing::Store { .. } | sig::Passing::Narrow { .. } => None,
        })
        .collect();
    let (Some(args), sig::Returning::Ty { .. }) = (args, &s.returning) else {
        let doc = format!(
            "`{name_str}` has no per-lane form yet: it takes or returns a narrow type or a \
             `Nested` of another element type than `i64` and `f64`."
        );
        return (
            quote!(#[doc = #doc] pub const NO_PER_LANE_FORM: () = ();),
            false,
        );
    };
    let l = lane::function_ident(name_str);
    let doc = format!(
        "`{name_str}` run by its per-lane form: plain Rust transcribed from the IR (the \
         reference interpreter's results and errors, bit for bit), the lanes of each `map` one \
         after another or in parallel on the pool as `flatland_vectoriser::lane::Lanes` decides."
    );
    let code = quote! {
        #[doc = #doc]
        #[allow(clippy::missing_errors_doc)]
        pub fn per_lane #generics (#inputs) -> #v::Result<#ret> {
            let ctx = #v::lane::Ctx::new();
            super::lanes::#l(&ctx, 0, #(#args),*)
        }
    };
    (code, true)
}

#[cfg(test)]
mod tests {
    //! The expansion is hermetic: it depends on the source alone, never on the machine profile
    //! (the run decides size-dependent fusions on its own machine).

    use super::expand;
    use flatland_vectoriser::runtime::cost::{Machine, profile_reads};
    use quote::quote;
    use std::process::Command;

    /// A module with a cluster that the "mega" fusion may take or decline (two filters of one
    /// array, reduced and mapped), so a profile-dependent build would differ here first.
    const SOURCE: &str = "mod k {
        pub fn split(xs: &[f64]) -> (f64, f64, Vec<f64>) {
            let lo = xs.filter(|x| x < 1.0);
            let hi = xs.filter(|x| x >= 1.0);
            (lo.sum(), hi.map(|x| x * 2.0).sum(), hi.map(|x| x + 1.0))
        }
    }";

    const CHILD: &str = "FLATLAND_TEST_PRINT_EXPANSION";

    /// The expansion, and how many times it read the machine profile.
    fn expansion() -> (String, u64) {
        let before = profile_reads().expect("tests build with debug assertions");
        let out = expand(
            quote!(vectoriser = ::flatland_vectoriser),
            SOURCE.parse().expect("the source parses"),
        )
        .expect("the module expands")
        .to_string();
        (out, profile_reads().expect("debug") - before)
    }

    #[test]
    #[cfg_attr(
        not(debug_assertions),
        ignore = "the profile reads are counted only with debug assertions"
    )]
    fn expansion_is_the_same_under_any_machine_profile_and_reads_none() {
        if let Some(path) = std::env::var_os(CHILD) {
            // The child: expand once, in a process of its own (the profile is read once per
            // process, and the read counter is process-wide).
            let (out, reads) = expansion();
            std::fs::write(path, format!("profile reads: {reads}\n{out}")).expect("write");
            return;
        }
        let dir = std::env::temp_dir().join(format!("flatland-hermetic-{}", std::process::id()));
        let profiles = [
            ("0", Machine::new(0.05, 40.0, 1.0, 64)),
            ("1", Machine::new(40.0, 0.05, 900.0, 1)),
        ];
        let outputs: Vec<String> = profiles
            .iter()
            .enumerate()
            .map(|(i, (calibrate, machine))| {
                let cache = dir.join(format!("cache-{i}"));
                machine
                    .save(&cache.join("flatland").join("machine.txt"))
                    .expect("save the profile");
                let out = dir.join(format!("expansion-{i}.txt"));
                let status = Command::new(std::env::current_exe().expect("the test binary"))
                    .args([
                        "--exact",
                        "module::tests::expansion_is_the_same_under_any_machine_profile_and_reads_none",
                        "--test-threads=1",
                        "--nocapture",
                    ])
                    .env(CHILD, &out)
                    .env("FLATLAND_CALIBRATE", calibrate)
                    .env("XDG_CACHE_HOME", &cache)
                    .status()
                    .expect("run the child");
                assert!(status.success(), "child {i}: {status}");
                std::fs::read_to_string(&out).expect("the child's expansion")
            })
            .collect();
        std::fs::remove_dir_all(&dir).expect("clean up");
        assert!(
            outputs[0].starts_with("profile reads: 0\n"),
            "{}",
            &outputs[0][..40]
        );
        assert!(outputs[0].len() > 1000 && outputs[0].contains("fn split"));
        assert!(outputs[0] == outputs[1], "the expansions differ by profile");
    }
}
