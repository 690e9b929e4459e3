//! Code that rebuilds an IR program at run time: the macro embeds the lowered and checked IR as
//! the Rust expressions that construct it.

use flatland_vectoriser::ir::{
    BinaryOp, Expr, Function, Lambda, Program, ReduceOp, Scalar, ScalarType, Type, UnaryOp,
};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The expression that builds program `p` (`v` is the path of the vectoriser crate).
pub(crate) fn program(p: &Program, v: &TokenStream) -> TokenStream {
    let fs = p.functions.iter().map(|f| function(f, v));
    quote!(#v::ir::Program::new(::std::vec![#(#fs),*]))
}

fn function(f: &Function, v: &TokenStream) -> TokenStream {
    let name = &f.name;
    let params = f.params.iter().map(|(n, t)| {
        let t = ty(t, v);
        quote!((::std::string::String::from(#n), #t))
    });
    let ret = ty(&f.ret, v);
    let body = expr(&f.body, v);
    quote!(#v::ir::Function::new(#name, ::std::vec![#(#params),*], #ret, #body))
}

pub(crate) fn ty(t: &Type, v: &TokenStream) -> TokenStream {
    match t {
        Type::I64 => quote!(#v::ir::Type::I64),
        Type::F64 => quote!(#v::ir::Type::F64),
        Type::Bool => quote!(#v::ir::Type::Bool),
        Type::Array(e) => {
            let e = ty(e, v);
            quote!(#v::ir::Type::array(#e))
        }
        Type::Tuple(ts) => {
            let ts = ts.iter().map(|t| ty(t, v));
            quote!(#v::ir::Type::Tuple(::std::vec![#(#ts),*]))
        }
    }
}

fn scalar_type(t: ScalarType, v: &TokenStream) -> TokenStream {
    match t {
        ScalarType::I64 => quote!(#v::ir::ScalarType::I64),
        ScalarType::F64 => quote!(#v::ir::ScalarType::F64),
        ScalarType::Bool => quote!(#v::ir::ScalarType::Bool),
    }
}

fn unary(op: UnaryOp, v: &TokenStream) -> TokenStream {
    match op {
        UnaryOp::Cast(t) => {
            let t = scalar_type(t, v);
            quote!(#v::ir::UnaryOp::Cast(#t))
        }
        other => {
            let id = format_ident!("{}", format!("{other:?}"));
            quote!(#v::ir::UnaryOp::#id)
        }
    }
}

fn binary(op: BinaryOp, v: &TokenStream) -> TokenStream {
    let id = format_ident!("{}", format!("{op:?}"));
    quote!(#v::ir::BinaryOp::#id)
}

fn lambda(l: &Lambda, v: &TokenStream) -> TokenStream {
    let names = l.params.iter().map(|(n, _)| n);
    let body = expr(&l.body, v);
    quote!(#v::ir::Lambda::new(&[#(#names),*], #body))
}

fn reduce_op(op: &ReduceOp, v: &TokenStream) -> TokenStream {
    match op {
        ReduceOp::Add => quote!(#v::ir::ReduceOp::Add),
        ReduceOp::Mul => quote!(#v::ir::ReduceOp::Mul),
        ReduceOp::Min => quote!(#v::ir::ReduceOp::Min),
        ReduceOp::Max => quote!(#v::ir::ReduceOp::Max),
        ReduceOp::And => quote!(#v::ir::ReduceOp::And),
        ReduceOp::Or => quote!(#v::ir::ReduceOp::Or),
        ReduceOp::Lambda(l) => {
            let l = lambda(l, v);
            quote!(#v::ir::ReduceOp::Lambda(#l))
        }
    }
}

fn exprs(es: &[Expr], v: &TokenStream) -> TokenStream {
    let es = es.iter().map(|e| expr(e, v));
    quote!(::std::vec![#(#es),*])
}

/// The expression that builds `e`.
pub(crate) fn expr(e: &Expr, v: &TokenStream) -> TokenStream {
    let x = |e: &Expr| expr(e, v);
    let ir = quote!(#v::ir::Expr);
    match e {
        Expr::Var(n) => quote!(#ir::var(#n)),
        Expr::Lit(Scalar::I64(i)) => quote!(#ir::i64(#i)),
        // Bits, so that NaN payloads, -0.0 and infinities survive exactly.
        Expr::Lit(Scalar::F64(f)) => {
            let bits = f.to_bits();
            quote!(#ir::f64(f64::from_bits(#bits)))
        }
        Expr::Lit(Scalar::Bool(b)) => quote!(#ir::bool(#b)),
        Expr::Tuple(es) => {
            let es = exprs(es, v);
            quote!(#ir::Tuple(#es))
        }
        Expr::Proj(t, i) => {
            let t = x(t);
            quote!(#ir::proj(#t, #i))
        }
        Expr::Let(n, a, b) => {
            let (a, b) = (x(a), x(b));
            quote!(#ir::let_(#n, #a, #b))
        }
        Expr::If(c, a, b) => {
            let (c, a, b) = (x(c), x(a), x(b));
            quote!(#ir::if_(#c, #a, #b))
        }
        Expr::Unary(op, a) => {
            let (op, a) = (unary(*op, v), x(a));
            quote!(#ir::unary(#op, #a))
        }
        Expr::Binary(op, a, b) => {
            let (op, a, b) = (binary(*op, v), x(a), x(b));
            quote!(#ir::binary(#op, #a, #b))
        }
        Expr::Ternary(op, a, b, c) => {
            let id = format_ident!("{}", format!("{op:?}"));
            let (a, b, c) = (x(a), x(b), x(c));
            quote!(#ir::ternary(#v::ir::TernaryOp::#id, #a, #b, #c))
        }
        Expr::ArrayLit(t, es) => {
            let (t, es) = (ty(t, v), exprs(es, v));
            quote!(#ir::ArrayLit(#t, #es))
        }
        Expr::Index(a, i) => {
            let (a, i) = (x(a), x(i));
            quote!(#ir::index(#a, #i))
        }
        Expr::Length(a) => {
            let a = x(a);
            quote!(#ir::length(#a))
        }
        Expr::Iota { len, start, step } => {
            let (l, s, st) = (x(len), x(start), x(step));
            quote!(#ir::iota(#l, #s, #st))
        }
        Expr::Replicate(n, a) => {
            let (n, a) = (x(n), x(a));
            quote!(#ir::replicate(#n, #a))
        }
        Expr::Slice(a, s, l) => {
            let (a, s, l) = (x(a), x(s), x(l));
            quote!(#ir::slice(#a, #s, #l))
        }
        Expr::Append(a, b) => {
            let (a, b) = (x(a), x(b));
            quote!(#ir::append(#a, #b))
        }
        Expr::Concat(a) => {
            let a = x(a);
            quote!(#ir::concat(#a))
        }
        Expr::Sort(op, a) => {
            let a = x(a);
            let op = format_ident!("{}", format!("{op:?}"));
            quote!(#ir::sort(#v::ir::SortOp::#op, #a))
        }
        Expr::Scatter(d, i, a) => {
            let (d, i, a) = (x(d), x(i), x(a));
            quote!(#ir::scatter(#d, #i, #a))
        }
        Expr::Map(f, arrays) => {
            let (f, a) = (lambda(f, v), exprs(arrays, v));
            quote!(#ir::map(#f, #a))
        }
        Expr::Reduce(op, z, a) => {
            let (op, z, a) = (reduce_op(op, v), x(z), x(a));
            quote!(#ir::reduce(#op, #z, #a))
        }
        Expr::Scan(op, z, a) => {
            let (op, z, a) = (reduce_op(op, v), x(z), x(a));
            quote!(#ir::scan(#op, #z, #a))
        }
        Expr::Filter(ps, a) => {
            let ps = ps.iter().map(|p| lambda(p, v));
            let a = x(a);
            quote!(#ir::filter(::std::vec![#(#ps),*], #a))
        }
        Expr::Partition {
            classes,
            interest,
            key,
            array,
        } => {
            let (k, a) = (lambda(key, v), x(array));
            quote!(#ir::partition(#classes, ::std::vec![#(#interest),*], #k, #a))
        }
        Expr::Redomap(op, z, f, arrays) => {
            let (op, z, f, a) = (reduce_op(op, v), x(z), lambda(f, v), exprs(arrays, v));
            quote!(#ir::redomap(#op, #z, #f, #a))
        }
        Expr::Hist {
            bins,
            op,
            identity,
            indices,
            values,
        } => {
            let (b, op, z) = (x(bins), reduce_op(op, v), x(identity));
            let (k, vs) = (x(indices), x(values));
            quote!(#ir::hist(#b, #z, #op, #k, #vs))
        }
        Expr::Loop { init, form, body } => {
            let (init, body) = (x(init), lambda(body, v));
            match form {
                flatland_vectoriser::ir::LoopForm::For(n) => {
                    let n = x(n);
                    quote!(#ir::loop_for(#init, #n, #body))
                }
                flatland_vectoriser::ir::LoopForm::While(c) => {
                    let c = lambda(c, v);
                    quote!(#ir::loop_while(#init, #c, #body))
                }
            }
        }
        Expr::Call(n, args) => {
            let a = exprs(args, v);
            quote!(#ir::call(#n, #a))
        }
        Expr::Fused(f) => expr(&f.original, v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant of the IR round-trips through the emitted constructor code: its printed
    /// form is what the IR's own pretty-printer prints.
    #[test]
    fn emitted_code_names_every_part() {
        let e = Expr::let_(
            "a",
            Expr::iota(Expr::i64(3), Expr::i64(0), Expr::i64(1)),
            Expr::reduce(ReduceOp::Max, Expr::f64(-0.0), Expr::var("a")),
        );
        let s = expr(&e, &quote!(v)).to_string();
        assert!(s.contains("let_"), "{s}");
        assert!(s.contains("iota"), "{s}");
        assert!(s.contains("ReduceOp :: Max"), "{s}");
        assert!(s.contains(&(-0.0f64).to_bits().to_string()), "{s}");
    }
}
