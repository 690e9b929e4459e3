//! Scalar operators as code, for every emitter (the native kernels, `native.rs`; the per-lane
//! form, `lane.rs`).
//!
//! The macro has no table of its own mapping operators to Rust: an operator becomes a call of its
//! one definition in the runtime, `flatland_runtime::expr::op`, with the operator a constant
//! (`op::BinaryOp::Add.on_f64(a, b)`, `op::compare(op::BinaryOp::Lt, a, b)`,
//! `op::TernaryOp::Clamp.on_i64(x, lo, hi)`, `op::UnaryOp::Neg.on_i64(a)`). Those functions are
//! `#[inline(always)]`, so once rustc inlines them the match on the constant operator, and the
//! `Option` of an operator that cannot fail, fold away: the optimised code is the one a
//! hand-written `a + b` gives. An operator that can fail on its operands (an `i64` division by
//! zero, `clamp`'s bounds out of order) comes back as an `Option` ([`Applied::Partial`]), and each
//! emitter handles a failing lane its own way (a kernel reports it, the per-lane form returns the
//! runtime's error).

use flatland_runtime::expr::{BinaryOp, OpKind, Scalar, ScalarType, TernaryOp, UnaryOp};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// An operator applied to operands, as code.
pub(crate) enum Applied {
    /// A value of the result type: the operator cannot fail on these operand types.
    Total(TokenStream),
    /// An `Option` of the result type, `None` at a lane where the operator fails.
    Partial(TokenStream),
}

/// Whether binary `op` can fail on operands of type `t` (the first operand's: `powi` takes an
/// `f64` and an `i64`); `None` when it does not take `t`.
pub(crate) fn binary_can_fail(op: BinaryOp, t: ScalarType) -> Option<bool> {
    if op == BinaryOp::Powi {
        return (t == ScalarType::F64).then_some(false);
    }
    op.result_type(t, t)?;
    // Only the `i64` divisions (and `pow` of zero to a negative power) fail; on `f64` they are
    // IEEE.
    Some(t == ScalarType::I64 && op.can_fail())
}

/// `op` applied to `a` and `b` of type `t` (the first operand's type) with the runtime's module
/// `o` (the path of `flatland_runtime::expr::op`); `None` for an operator that does not take `t`.
pub(crate) fn binary(
    op: BinaryOp,
    t: ScalarType,
    a: &TokenStream,
    b: &TokenStream,
    o: &TokenStream,
) -> Option<Applied> {
    let can_fail = binary_can_fail(op, t)?;
    if op == BinaryOp::Powi {
        // The one operator with two operand types: `BinaryOp::eval` calls `float::powi`.
        return Some(Applied::Total(quote!(#o::float::powi(#a, #b))));
    }
    let v = format_ident!("{}", format!("{op:?}"));
    let call = if op.kind() == OpKind::Comparison {
        quote!(#o::compare(#o::BinaryOp::#v, #a, #b))
    } else {
        let on = format_ident!("on_{}", t.name());
        quote!(#o::BinaryOp::#v.#on(#a, #b))
    };
    Some(if can_fail {
        Applied::Partial(call)
    } else {
        // Always `Some` for these operand types: the default is never taken.
        Applied::Total(quote!(#call.unwrap_or_default()))
    })
}

/// `op` applied to `a`, `b` and `c` of type `t` with the runtime's module `o` (as [`binary`]);
/// `None` for an operator that does not take `t`.
pub(crate) fn ternary(
    op: TernaryOp,
    t: ScalarType,
    [a, b, c]: [&TokenStream; 3],
    o: &TokenStream,
) -> Option<Applied> {
    op.result_type(t, t, t)?;
    let v = format_ident!("{}", format!("{op:?}"));
    let on = format_ident!("on_{}", t.name());
    let call = quote!(#o::TernaryOp::#v.#on(#a, #b, #c));
    Some(if op.can_fail() {
        Applied::Partial(call)
    } else {
        // Always `Some` for an operator that cannot fail on its types.
        Applied::Total(quote!(#call.unwrap_or_default()))
    })
}

/// The step of a built-in reduction with operator `op` on `t`, as a closure of two values
/// (`None` where `op` does not take `t` or can fail on it).
pub(crate) fn combine(op: BinaryOp, t: ScalarType, o: &TokenStream) -> Option<TokenStream> {
    let ty = rust_ty(t);
    match binary(op, t, &quote!(a), &quote!(b), o)? {
        Applied::Total(x) => Some(quote!(|a: #ty, b: #ty| #x)),
        Applied::Partial(_) => None,
    }
}

/// `op` applied to `a` of type `t`, with the runtime's module `o` (as [`binary`]): a call of
/// the operator's definition with the operator a constant (`op::UnaryOp::Sqrt.on_f64(a)`,
/// `op::UnaryOp::IsNan.test_f64(a)`), or of its conversion for a cast (`op::conv::i64_to_f64(a)`);
/// `None` for an operator that does not take `t`. No unary operator fails.
pub(crate) fn unary(
    op: UnaryOp,
    t: ScalarType,
    a: &TokenStream,
    o: &TokenStream,
) -> Option<TokenStream> {
    let to = op.result_type(t)?;
    if let UnaryOp::Cast(to) = op {
        if to == t {
            return Some(a.clone());
        }
        let f = format_ident!("{}_to_{}", t.name(), to.name());
        return Some(quote!(#o::conv::#f(#a)));
    }
    let v = format_ident!("{}", format!("{op:?}"));
    // `test_f64` for the operators from `f64` to `bool`, `on_<t>` for those from `t` to `t`.
    let on = if to == t {
        format_ident!("on_{}", t.name())
    } else {
        format_ident!("test_{}", t.name())
    };
    // Always `Some` for the operand type `result_type` accepts: the default is never taken.
    Some(quote!(#o::UnaryOp::#v.#on(#a).unwrap_or_default()))
}

/// The Rust type of scalar type `t`.
pub(crate) fn rust_ty(t: ScalarType) -> TokenStream {
    match t {
        ScalarType::I64 => quote!(i64),
        ScalarType::F64 => quote!(f64),
        ScalarType::Bool => quote!(bool),
    }
}

/// A constant as code, bit for bit (an `f64` by its bits, so `-0.0` and NaN payloads survive).
pub(crate) fn literal(s: Scalar) -> TokenStream {
    match s {
        Scalar::I64(v) => quote!(#v),
        Scalar::F64(v) => {
            let b = v.to_bits();
            quote!(f64::from_bits(#b))
        }
        Scalar::Bool(v) => quote!(#v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_calls_the_runtime_with_a_constant_operator() {
        let (a, b, o) = (quote!(x), quote!(y), quote!(op));
        let Some(Applied::Total(add)) = binary(BinaryOp::Add, ScalarType::F64, &a, &b, &o) else {
            panic!("f64 addition cannot fail")
        };
        assert_eq!(
            add.to_string(),
            quote!(op::BinaryOp::Add.on_f64(x, y).unwrap_or_default()).to_string()
        );
        let Some(Applied::Total(lt)) = binary(BinaryOp::Lt, ScalarType::Bool, &a, &b, &o) else {
            panic!("comparisons cannot fail")
        };
        assert_eq!(
            lt.to_string(),
            quote!(op::compare(op::BinaryOp::Lt, x, y).unwrap_or_default()).to_string()
        );
        assert!(matches!(
            binary(BinaryOp::Div, ScalarType::I64, &a, &b, &o),
            Some(Applied::Partial(_))
        ));
        assert!(binary(BinaryOp::Shl, ScalarType::F64, &a, &b, &o).is_none());
        assert_eq!(
            binary_can_fail(BinaryOp::Powi, ScalarType::F64),
            Some(false)
        );
        assert_eq!(binary_can_fail(BinaryOp::Div, ScalarType::F64), Some(false));
    }

    #[test]
    fn unary_calls_the_runtime_with_a_constant_operator() {
        let (a, o) = (quote!(x), quote!(op));
        let code = |op, t| unary(op, t, &a, &o).map(|c| c.to_string());
        assert_eq!(
            code(UnaryOp::Sqrt, ScalarType::F64),
            Some(quote!(op::UnaryOp::Sqrt.on_f64(x).unwrap_or_default()).to_string())
        );
        assert_eq!(
            code(UnaryOp::IsNan, ScalarType::F64),
            Some(quote!(op::UnaryOp::IsNan.test_f64(x).unwrap_or_default()).to_string())
        );
        assert_eq!(
            code(UnaryOp::Not, ScalarType::Bool),
            Some(quote!(op::UnaryOp::Not.on_bool(x).unwrap_or_default()).to_string())
        );
        assert_eq!(
            code(UnaryOp::Cast(ScalarType::F64), ScalarType::I64),
            Some(quote!(op::conv::i64_to_f64(x)).to_string())
        );
        assert_eq!(
            code(UnaryOp::Cast(ScalarType::I64), ScalarType::I64),
            Some("x".to_string())
        );
        assert_eq!(code(UnaryOp::Sqrt, ScalarType::I64), None);
        assert_eq!(code(UnaryOp::IsNan, ScalarType::I64), None);
        // Every operator on every type it takes has code.
        for op in UnaryOp::ALL {
            for t in [ScalarType::I64, ScalarType::F64, ScalarType::Bool] {
                assert_eq!(
                    code(op, t).is_some(),
                    op.result_type(t).is_some(),
                    "{op} on {t}"
                );
            }
        }
    }

    #[test]
    fn reductions_combine_only_with_operators_that_cannot_fail() {
        let o = quote!(op);
        assert!(combine(BinaryOp::Add, ScalarType::I64, &o).is_some());
        assert!(combine(BinaryOp::Div, ScalarType::I64, &o).is_none());
        assert!(combine(BinaryOp::Add, ScalarType::Bool, &o).is_none());
        let Some(Applied::Partial(_)) = ternary(
            TernaryOp::Clamp,
            ScalarType::F64,
            [&quote!(x), &quote!(lo), &quote!(hi)],
            &o,
        ) else {
            panic!("clamp can fail")
        };
    }
}
