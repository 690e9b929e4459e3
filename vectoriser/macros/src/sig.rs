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
}

/// What the macro supports, said in every type error.
const SUPPORTED: &str = "supported types: i64, f64, bool, tuples of 2 to 4 of them, &[T], &Vec<T>, \
                         Vec<T> (any supported T) and &Nested<i64> / &Nested<f64> (parameters only)";

/// The IR type and the way of passing of a parameter type.
pub(crate) fn param(ty: &syn::Type, v: &TokenStream) -> syn::Result<(Type, Passing)> {
    if let syn::Type::Reference(r) = ty {
        if r.mutability.is_some() {
            return Err(unsupported(ty, "mutable references are not supported"));
        }
        match &*r.elem {
            syn::Type::Slice(s) => {
                let (t, d) = value(&s.elem, v)?;
                return Ok((
                    Type::array(t),
                    Passing::Ty {
                        dsl: quote!(#v::dsl::Arr<#d>),
                        owned: false,
                    },
                ));
            }
            syn::Type::Path(p) if last_ident(p).as_deref() == Some("Nested") => {
                let arg = single_generic(p, ty)?;
                let is_f64 = match scalar_name(arg).as_deref() {
                    Some("i64") => false,
                    Some("f64") => true,
                    _ => {
                        return Err(unsupported(
                            arg,
                            "&Nested<T> parameters support T = i64 or f64 only",
                        ));
                    }
                };
                let t = if is_f64 { Type::F64 } else { Type::I64 };
                return Ok((Type::array(Type::array(t)), Passing::Nested { f64: is_f64 }));
            }
            inner => {
                let (t, d) = value(inner, v)?;
                if !matches!(t, Type::Array(_)) {
                    return Err(unsupported(
                        ty,
                        "references are supported to slices, Vec and Nested only",
                    ));
                }
                return Ok((
                    t,
                    Passing::Ty {
                        dsl: d,
                        owned: false,
                    },
                ));
            }
        }
    }
    let (t, d) = value(ty, v)?;
    Ok((
        t,
        Passing::Ty {
            dsl: d,
            owned: true,
        },
    ))
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

/// The expression that converts parameter `name` to one lane of the executor's columnar form.
pub(crate) fn to_lanes(name: &syn::Ident, p: &Passing, v: &TokenStream) -> TokenStream {
    match p {
        Passing::Ty { dsl, owned } => {
            let val = rust_value(name, *owned);
            quote!(<#dsl as #v::dsl::Ty>::to_lanes(::std::vec![#val]))
        }
        Passing::Nested { f64: true } => quote!(#v::exec::Arg::nested_f64(#name)?),
        Passing::Nested { f64: false } => quote!(#v::exec::Arg::nested_i64(#name)?),
    }
}

/// The expression that converts parameter `name` to a value of the reference interpreter.
pub(crate) fn to_value(name: &syn::Ident, p: &Passing, v: &TokenStream) -> TokenStream {
    match p {
        Passing::Ty { dsl, owned } => {
            let val = rust_value(name, *owned);
            quote!(<#dsl as #v::dsl::Ty>::to_value(#val))
        }
        Passing::Nested { f64 } => {
            let t = if *f64 { quote!(f64) } else { quote!(i64) };
            quote!(<#v::dsl::Arr<#v::dsl::Arr<#t>> as #v::dsl::Ty>::to_value(#name.to_vec()))
        }
    }
}

fn rust_value(name: &syn::Ident, owned: bool) -> TokenStream {
    if owned {
        quote!(#name)
    } else {
        quote!(::std::borrow::ToOwned::to_owned(#name))
    }
}
