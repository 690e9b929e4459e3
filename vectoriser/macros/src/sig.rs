//! Signatures: the Rust parameter and result types the macro accepts, their IR types, and the
//! code that converts values between the two.

use flatland_vectoriser::ir::Type;
use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;

/// How a Rust parameter type is passed to the vectoriser.
#[derive(Clone)]
pub(crate) enum Passing {
    /// A value of a type the dsl's `Ty` converts (`dsl` is the `Ty` type, `owned` whether the
    /// Rust value is already the `Ty::Rust` value or must be copied with `to_vec`/`clone`).
    Ty { dsl: TokenStream, owned: bool },
    /// `&Nested<i64>` or `&Nested<f64>` (`f64` when the flag is set).
    Nested { f64: bool },
    /// `&Nested<T>` of any other element type `T` (`elem`), converted by `dsl::Element`.
    Store { elem: TokenStream },
    /// A narrow type (`u32`, `i32`, `usize`, `f32`, alone or in slices and `Vec`s), widened on
    /// entry by `boundary::Widen` to the Rust value of the dsl type `dsl`; `by_ref` when the
    /// parameter is a reference.
    Narrow { dsl: TokenStream, by_ref: bool },
}

/// How a result comes back from the vectoriser.
#[derive(Clone)]
pub(crate) enum Returning {
    /// A value of a type the dsl's `Ty` converts.
    Ty { dsl: TokenStream },
    /// `Nested<T>` (`elem` is `T`), converted by `dsl::Element`.
    Store { elem: TokenStream },
    /// A narrow type (the written type `rust`), narrowed on exit from the dsl type `dsl`.
    Narrow { rust: TokenStream, dsl: TokenStream },
}

/// What the macro supports, said in every type error.
const SUPPORTED: &str = "supported types: i64, f64, bool, tuples of 2 to 4 of them, &[T], &Vec<T>, \
                         Vec<T> (any supported T), &Nested<T> / Nested<T> (T one of those, a tuple \
                         or a Vec of them), and the narrow u32, i32, usize, f32 alone, in slices, \
                         Vecs and Nested";

/// The IR type and the way of passing of a parameter type.
pub(crate) fn param(ty: &syn::Type, v: &TokenStream) -> syn::Result<(Type, Passing)> {
    if let syn::Type::Reference(r) = ty {
        if r.mutability.is_some() {
            return Err(unsupported(ty, "mutable references are not supported"));
        }
        match &*r.elem {
            syn::Type::Slice(s) => {
                let (t, d, narrow) = shape(&s.elem, v)?;
                return Ok((
                    Type::array(t),
                    by_value(quote!(#v::dsl::Arr<#d>), narrow, true),
                ));
            }
            syn::Type::Path(p) if last_ident(p).as_deref() == Some("Nested") => {
                let arg = single_generic(p, ty)?;
                let t = element(arg)?;
                let passing = match scalar_name(arg).as_deref() {
                    Some("i64") => Passing::Nested { f64: false },
                    Some("f64") => Passing::Nested { f64: true },
                    _ => Passing::Store { elem: quote!(#arg) },
                };
                return Ok((Type::array(Type::array(t)), passing));
            }
            inner => {
                let (t, d, narrow) = shape(inner, v)?;
                if !matches!(t, Type::Array(_)) {
                    return Err(unsupported(
                        ty,
                        "references are supported to slices, Vec and Nested only",
                    ));
                }
                return Ok((t, by_value(d, narrow, true)));
            }
        }
    }
    let (t, d, narrow) = shape(ty, v)?;
    Ok((t, by_value(d, narrow, false)))
}

/// The IR type and the dsl type of a value type, and whether it holds narrow types (converted
/// by `boundary`).
fn shape(ty: &syn::Type, v: &TokenStream) -> syn::Result<(Type, TokenStream, bool)> {
    if mentions_narrow(ty) {
        let (t, d) = narrow(ty, v)?;
        Ok((t, d, true))
    } else {
        let (t, d) = value(ty, v)?;
        Ok((t, d, false))
    }
}

/// The passing of a value of dsl type `dsl` (a reference when `by_ref`).
fn by_value(dsl: TokenStream, narrow: bool, by_ref: bool) -> Passing {
    if narrow {
        Passing::Narrow { dsl, by_ref }
    } else {
        Passing::Ty {
            dsl,
            owned: !by_ref,
        }
    }
}

/// The IR type and the way back of a result type.
pub(crate) fn result(ty: &syn::Type, v: &TokenStream) -> syn::Result<(Type, Returning)> {
    if let syn::Type::Path(p) = ty
        && last_ident(p).as_deref() == Some("Nested")
    {
        let arg = single_generic(p, ty)?;
        let t = element(arg)?;
        return Ok((
            Type::array(Type::array(t)),
            Returning::Store { elem: quote!(#arg) },
        ));
    }
    let (t, dsl, narrow) = shape(ty, v)?;
    let back = if narrow {
        Returning::Narrow {
            rust: quote!(#ty),
            dsl,
        }
    } else {
        Returning::Ty { dsl }
    };
    Ok((t, back))
}

/// The wide IR type of a narrow scalar type written as a bare path.
fn narrow_scalar(ty: &syn::Type) -> Option<Type> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => match p.path.get_ident()?.to_string().as_str() {
            "u32" | "i32" | "usize" => Some(Type::I64),
            "f32" => Some(Type::F64),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a narrow scalar type appears anywhere in `ty`.
fn mentions_narrow(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Paren(p) => mentions_narrow(&p.elem),
        syn::Type::Group(g) => mentions_narrow(&g.elem),
        syn::Type::Reference(r) => mentions_narrow(&r.elem),
        syn::Type::Slice(s) => mentions_narrow(&s.elem),
        syn::Type::Tuple(t) => t.elems.iter().any(mentions_narrow),
        syn::Type::Path(p) => {
            narrow_scalar(ty).is_some()
                || p.path.segments.iter().any(|s| match &s.arguments {
                    syn::PathArguments::AngleBracketed(a) => a
                        .args
                        .iter()
                        .any(|g| matches!(g, syn::GenericArgument::Type(t) if mentions_narrow(t))),
                    _ => false,
                })
        }
        _ => false,
    }
}

/// The wide IR type and dsl type of a narrow scalar or a `Vec` of narrow values.
fn narrow(ty: &syn::Type, v: &TokenStream) -> syn::Result<(Type, TokenStream)> {
    match ty {
        syn::Type::Paren(p) => narrow(&p.elem, v),
        syn::Type::Group(g) => narrow(&g.elem, v),
        _ if narrow_scalar(ty).is_some() => {
            let t = narrow_scalar(ty).expect("narrow");
            let d = if t == Type::I64 {
                quote!(i64)
            } else {
                quote!(f64)
            };
            Ok((t, d))
        }
        syn::Type::Path(p) if last_ident(p).as_deref() == Some("Vec") => {
            let (t, d) = narrow(single_generic(p, ty)?, v)?;
            Ok((Type::array(t), quote!(#v::dsl::Arr<#d>)))
        }
        _ => Err(unsupported(
            ty,
            "narrow types (u32, i32, usize, f32) are supported alone, in slices and Vec, and as \
             elements of Nested (tuples included), not in tuples of slices or Vec",
        )),
    }
}

/// The IR type of an element type of `Nested<T>`.
fn element(ty: &syn::Type) -> syn::Result<Type> {
    match ty {
        syn::Type::Paren(p) => element(&p.elem),
        syn::Type::Group(g) => element(&g.elem),
        syn::Type::Tuple(t) if (2..=4).contains(&t.elems.len()) => Ok(Type::Tuple(
            t.elems.iter().map(element).collect::<syn::Result<_>>()?,
        )),
        _ if narrow_scalar(ty).is_some() => Ok(narrow_scalar(ty).expect("narrow")),
        syn::Type::Path(p) => match scalar_name(ty).as_deref() {
            Some("i64") => Ok(Type::I64),
            Some("f64") => Ok(Type::F64),
            Some("bool") => Ok(Type::Bool),
            _ if last_ident(p).as_deref() == Some("Vec") => {
                Ok(Type::array(element(single_generic(p, ty)?)?))
            }
            _ => Err(unsupported(ty, "unsupported element type of Nested")),
        },
        _ => Err(unsupported(ty, "unsupported element type of Nested")),
    }
}

/// The IR type and the dsl `Ty` type of an owned value type (results, tuple fields, elements).
pub(crate) fn value(ty: &syn::Type, v: &TokenStream) -> syn::Result<(Type, TokenStream)> {
    match ty {
        syn::Type::Paren(p) => value(&p.elem, v),
        syn::Type::Group(g) => value(&g.elem, v),
        syn::Type::Tuple(t) if (2..=4).contains(&t.elems.len()) => {
            let mut ts = Vec::new();
            let mut ds = Vec::new();
            for e in &t.elems {
                let (t, d) = value(e, v)?;
                ts.push(t);
                ds.push(d);
            }
            Ok((Type::Tuple(ts), quote!((#(#ds,)*))))
        }
        syn::Type::Path(p) => match scalar_name(ty).as_deref() {
            Some("i64") => Ok((Type::I64, quote!(i64))),
            Some("f64") => Ok((Type::F64, quote!(f64))),
            Some("bool") => Ok((Type::Bool, quote!(bool))),
            _ if last_ident(p).as_deref() == Some("Vec") => {
                let (t, d) = value(single_generic(p, ty)?, v)?;
                Ok((Type::array(t), quote!(#v::dsl::Arr<#d>)))
            }
            _ if mentions_narrow(ty) => narrow(ty, v).and(Err(unsupported(
                ty,
                "narrow types (u32, i32, usize, f32) are supported alone, in slices and Vec, and as \
                 elements of Nested (tuples included), not in tuples of slices or Vec",
            ))),
            _ => Err(unsupported(ty, "unsupported type")),
        },
        _ => Err(unsupported(ty, "unsupported type")),
    }
}

fn unsupported(at: &impl Spanned, what: &str) -> syn::Error {
    syn::Error::new(at.span(), format!("#[vectorise]: {what}; {SUPPORTED}"))
}

fn last_ident(p: &syn::TypePath) -> Option<String> {
    if p.qself.is_some() {
        return None;
    }
    p.path.segments.last().map(|s| s.ident.to_string())
}

/// `i64`, `f64` or `bool` written as a bare path.
fn scalar_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let id = p.path.get_ident()?.to_string();
            matches!(id.as_str(), "i64" | "f64" | "bool").then_some(id)
        }
        _ => None,
    }
}

fn single_generic<'a>(p: &'a syn::TypePath, at: &syn::Type) -> syn::Result<&'a syn::Type> {
    if let Some(seg) = p.path.segments.last()
        && let syn::PathArguments::AngleBracketed(a) = &seg.arguments
        && a.args.len() == 1
        && let Some(syn::GenericArgument::Type(t)) = a.args.first()
    {
        return Ok(t);
    }
    Err(unsupported(at, "expected one type argument"))
}

/// The expression that converts parameter `name` to one lane of the executor's columnar form
/// (`place` names the parameter in conversion errors).
pub(crate) fn to_lanes(
    name: &syn::Ident,
    p: &Passing,
    place: &str,
    v: &TokenStream,
) -> TokenStream {
    match p {
        Passing::Ty { dsl, owned } => {
            let val = rust_value(name, *owned);
            quote!(<#dsl as #v::dsl::Ty>::to_lanes(::std::vec![#val]))
        }
        Passing::Nested { f64: true } => quote!(#v::exec::Arg::nested_f64(#name)?),
        Passing::Nested { f64: false } => quote!(#v::exec::Arg::nested_i64(#name)?),
        Passing::Store { elem } => quote!(#v::exec::Arg::nested::<#elem>(#name, #place)?),
        Passing::Narrow { dsl, by_ref } => {
            let wide = widen(name, *by_ref, place, v);
            quote!(<#dsl as #v::dsl::Ty>::to_lanes(::std::vec![#wide]))
        }
    }
}

/// The expression that converts parameter `name` to a value of the reference interpreter.
pub(crate) fn to_value(
    name: &syn::Ident,
    p: &Passing,
    place: &str,
    v: &TokenStream,
) -> TokenStream {
    match p {
        Passing::Ty { dsl, owned } => {
            let val = rust_value(name, *owned);
            quote!(<#dsl as #v::dsl::Ty>::to_value(#val))
        }
        Passing::Nested { f64 } => {
            let t = if *f64 { quote!(f64) } else { quote!(i64) };
            quote!(<#v::dsl::Arr<#v::dsl::Arr<#t>> as #v::dsl::Ty>::to_value(#name.to_vec()))
        }
        Passing::Store { elem } => {
            quote!(#v::exec::Arg::nested::<#elem>(#name, #place)?.into_value()?)
        }
        Passing::Narrow { dsl, by_ref } => {
            let wide = widen(name, *by_ref, place, v);
            quote!(<#dsl as #v::dsl::Ty>::to_value(#wide))
        }
    }
}

fn widen(name: &syn::Ident, by_ref: bool, place: &str, v: &TokenStream) -> TokenStream {
    let r = if by_ref {
        quote!(#name)
    } else {
        quote!(&#name)
    };
    quote!(#v::boundary::Widen::widen(#r, #place)?)
}

/// The expression (a `Result` of the result type) that converts the executor's one-lane result
/// `out` back (`place` names the result in errors).
pub(crate) fn from_lanes(
    r: &Returning,
    out: &TokenStream,
    place: &str,
    v: &TokenStream,
) -> TokenStream {
    back(
        r,
        place,
        v,
        |dsl| quote!(<#dsl as #v::dsl::Ty>::into_lanes(#out).and_then(|mut lanes| lanes.pop())),
        |elem| quote!(#out.into_nested::<#elem>(#place)),
    )
}

/// The expression (a `Result` of the result type) that converts the reference interpreter's
/// result `out` back.
pub(crate) fn from_value(
    r: &Returning,
    out: &TokenStream,
    place: &str,
    v: &TokenStream,
) -> TokenStream {
    back(
        r,
        place,
        v,
        |dsl| quote!(<#dsl as #v::dsl::Ty>::from_value(#out)),
        |elem| {
            quote!(
                #v::exec::Arg::of_value::<
                    #v::dsl::Arr<#v::dsl::Arr<<#elem as #v::dsl::Element>::Ty>>
                >(&#out)
                .and_then(|a| a.into_nested::<#elem>(#place))
            )
        },
    )
}

/// A result converted back: `take(dsl)` is the `Option` of the dsl type's Rust value,
/// `store(elem)` the `Result` of a `Nested` of `elem`.
fn back(
    r: &Returning,
    place: &str,
    v: &TokenStream,
    take: impl Fn(&TokenStream) -> TokenStream,
    store: impl Fn(&TokenStream) -> TokenStream,
) -> TokenStream {
    let bad = format!("{place} does not have the declared type");
    let wide = |dsl: &TokenStream| {
        let t = take(dsl);
        quote!(#t.ok_or_else(|| #v::Error::Input { detail: ::std::string::String::from(#bad) }))
    };
    match r {
        Returning::Ty { dsl } => wide(dsl),
        Returning::Narrow { rust, dsl } => {
            let w = wide(dsl);
            quote!(#w.and_then(|w| <#rust as #v::boundary::Narrow>::narrow(w, #place)))
        }
        Returning::Store { elem } => store(elem),
    }
}

fn rust_value(name: &syn::Ident, owned: bool) -> TokenStream {
    if owned {
        quote!(#name)
    } else {
        quote!(::std::borrow::ToOwned::to_owned(#name))
    }
}
