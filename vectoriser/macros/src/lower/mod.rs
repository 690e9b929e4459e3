//! Lowering of the supported Rust subset of function bodies to the vectoriser's IR.
//!
//! Every node is type-checked with [`check::type_of`] as soon as it is built, so a type error is
//! reported at the span of the innermost Rust expression that is ill-typed; closure parameters get
//! the element types of the arrays (or the identity) they are applied to.

use flatland_vectoriser::check;
use flatland_vectoriser::ir::{BinaryOp, Expr, Lambda, Program, ReduceOp, Scalar, Type, UnaryOp};
use std::sync::Arc;
use syn::spanned::Spanned;

mod loops;
mod math;
mod select;

/// What the macro supports, said in every "unsupported" error.
pub(crate) const SUBSET: &str = "supported: literals, variables, `let` (names and tuple patterns), \
`if`/`else`, tuples and `.0`, arithmetic, comparisons, `&&`, `||`, `!`, `as i64`/`as f64`, \
indexing `a[i]`, slicing `a[s..e]`, ranges `(a..b)` and `.step_by(s)`, `[a, b]`, `vec![x; n]`, \
`Vec::<T>::new()`, `let mut` state reassigned in `for`/`while` loops, `a[k] op= v` in a loop, \
calls of functions of the module, the functions `hist` and `count_by_index`, and the methods \
map, filter, zip (of up to four arrays), sum, product, min, max, reduce, scan, fold, len, \
is_empty, concat, scatter, any, all, count, first, last, argmin, argmax, rev, enumerate, take, \
skip, sort, argsort, sort_by_key, and the math methods of `f64` and `i64` (abs, sqrt, exp, ln, powi, powf, sin, atan2, floor, is_nan, pow, rem_euclid, count_ones, \
minimum, maximum, ...; see the flatland-macros docs)";

type R<T> = syn::Result<T>;

fn unsupported(at: &impl Spanned, what: &str) -> syn::Error {
    syn::Error::new(
        at.span(),
        format!("#[vectorise]: {what} is not supported; {SUBSET}"),
    )
}

/// Lowers one function body, given the module's signatures (for calls) and the parameters.
pub(crate) struct Lower<'a> {
    program: &'a Program,
    env: Vec<(String, Type)>,
    fresh: usize,
    /// The `let mut` variables in scope, innermost last, each with the closure depth it was
    /// bound at (only the current closure's may be assigned).
    mutable: Vec<(String, usize)>,
    /// How many closures the code being lowered is nested in.
    closures: usize,
}

impl<'a> Lower<'a> {
    pub(crate) fn new(program: &'a Program, params: Vec<(String, Type)>) -> Self {
        Lower {
            program,
            env: params,
            fresh: 0,
            mutable: Vec::new(),
            closures: 0,
        }
    }

    fn fresh(&mut self, what: &str) -> String {
        self.fresh += 1;
        format!("__{what}{}", self.fresh)
    }

    /// Type-checks a freshly built node, reporting errors at `at`.
    fn typed(&self, at: &impl Spanned, e: Expr) -> R<(Expr, Type)> {
        match check::type_of(self.program, &self.env, &e) {
            Ok(t) => Ok((e, t)),
            Err(err) => {
                let msg = match &err {
                    flatland_vectoriser::Error::Type { node, detail, .. } => {
                        format!("#[vectorise]: type error: {detail} (in `{node}`)")
                    }
                    other => format!("#[vectorise]: {other}"),
                };
                Err(syn::Error::new(at.span(), msg))
            }
        }
    }

    /// Lowers a function body block.
    pub(crate) fn block(&mut self, b: &syn::Block) -> R<(Expr, Type)> {
        self.stmts(&b.stmts, b)
    }

    fn stmts(&mut self, stmts: &[syn::Stmt], at: &impl Spanned) -> R<(Expr, Type)> {
        let Some((first, rest)) = stmts.split_first() else {
            return Err(unsupported(
                at,
                "an empty block (a block must end in a value)",
            ));
        };
        match first {
            syn::Stmt::Local(l) => {
                let Some(init) = &l.init else {
                    return Err(unsupported(l, "`let` without a value"));
                };
                if init.diverge.is_some() {
                    return Err(unsupported(l, "`let ... else`"));
                }
                if rest.is_empty() {
                    return Err(unsupported(
                        l,
                        "a block ending in `let` (a block must end in a value)",
                    ));
                }
                let (value, t) = self.expr(&init.expr)?;
                let depth = self.env.len();
                let mut binds = Vec::new();
                self.bind_pat(&l.pat, value, t, &mut binds)?;
                let body = self.stmts(rest, at);
                self.env.truncate(depth);
                let (body, t) = body?;
                Ok((wrap_lets(binds, body), t))
            }
            syn::Stmt::Expr(e, _)
                if loops::imperative(e) || (!rest.is_empty() && matches!(e, syn::Expr::If(_))) =>
            {
                self.imperative_then(e, rest, at)
            }
            syn::Stmt::Expr(e, None) if rest.is_empty() => self.expr(e),
            syn::Stmt::Expr(e, _) => Err(unsupported(
                e,
                "a statement (a block is `let`s followed by one value)",
            )),
            syn::Stmt::Item(i) => Err(unsupported(i, "an item inside a function")),
            syn::Stmt::Macro(m) => Err(unsupported(m, "a macro statement")),
        }
    }

    /// Binds the names of pattern `pat` to `value` (of type `t`): pushes them on the environment
    /// and records the `let`s to wrap around the scope.
    fn bind_pat(
        &mut self,
        pat: &syn::Pat,
        value: Expr,
        t: Type,
        binds: &mut Vec<(String, Expr)>,
    ) -> R<()> {
        match pat {
            syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                let name = i.ident.to_string();
                if i.mutability.is_some() {
                    self.mutable.push((name.clone(), self.closures));
                }
                binds.push((name.clone(), value));
                self.env.push((name, t));
                Ok(())
            }
            syn::Pat::Wild(_) => Ok(()),
            syn::Pat::Paren(p) => self.bind_pat(&p.pat, value, t, binds),
            // `|&x|`: values are not references, so the pattern binds the value itself.
            syn::Pat::Reference(r) if r.mutability.is_none() => {
                self.bind_pat(&r.pat, value, t, binds)
            }
            syn::Pat::Type(pt) => {
                let (want, _) = crate::sig::value(&pt.ty, &proc_macro2::TokenStream::new())?;
                if want != t {
                    return Err(syn::Error::new(
                        pt.ty.span(),
                        format!(
                            "#[vectorise]: type error: annotated {want}, the value has type {t}"
                        ),
                    ));
                }
                self.bind_pat(&pt.pat, value, t, binds)
            }
            syn::Pat::Tuple(tp) => {
                let Type::Tuple(ts) = &t else {
                    return Err(syn::Error::new(
                        tp.span(),
                        format!(
                            "#[vectorise]: type error: a tuple pattern for a value of type {t}"
                        ),
                    ));
                };
                if ts.len() != tp.elems.len() {
                    return Err(syn::Error::new(
                        tp.span(),
                        format!(
                            "#[vectorise]: type error: a pattern of {} fields for a value of type {t}",
                            tp.elems.len()
                        ),
                    ));
                }
                let tmp = if let Expr::Var(v) = &value {
                    v.clone()
                } else {
                    let tmp = self.fresh("t");
                    binds.push((tmp.clone(), value));
                    self.env.push((tmp.clone(), t.clone()));
                    tmp
                };
                for (k, (p, ft)) in tp.elems.iter().zip(ts.clone()).enumerate() {
                    self.bind_pat(p, Expr::proj(Expr::Var(tmp.clone()), k), ft, binds)?;
                }
                Ok(())
            }
            other => Err(unsupported(
                other,
                "this pattern (names, `_` and tuples of them are supported)",
            )),
        }
    }

    /// Lowers a closure applied to arguments of types `args`.
    fn lambda(&mut self, c: &syn::Expr, args: &[Type]) -> R<(Lambda, Type)> {
        let syn::Expr::Closure(c) = strip(c) else {
            return Err(unsupported(
                c,
                "a function argument that is not a closure `|x| ...`",
            ));
        };
        if c.inputs.len() != args.len() {
            return Err(syn::Error::new(
                c.inputs.span(),
                format!(
                    "#[vectorise]: this closure must take {} parameter(s), it takes {}",
                    args.len(),
                    c.inputs.len()
                ),
            ));
        }
        let depth = self.env.len();
        let mut params = Vec::new();
        let mut binds = Vec::new();
        let mut result = Ok(());
        for (p, t) in c.inputs.iter().zip(args) {
            let name = match p {
                syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                    i.ident.to_string()
                }
                _ => self.fresh("p"),
            };
            params.push(name.clone());
            self.env.push((name.clone(), t.clone()));
            if !matches!(p, syn::Pat::Ident(_))
                && let Err(e) = self.bind_pat(p, Expr::Var(name), t.clone(), &mut binds)
            {
                result = Err(e);
                break;
            }
        }
        self.closures += 1;
        let body = result.and_then(|()| self.expr(&c.body));
        self.closures -= 1;
        self.env.truncate(depth);
        let (body, t) = body?;
        let names: Vec<&str> = params.iter().map(String::as_str).collect();
        Ok((Lambda::new(&names, wrap_lets(binds, body)), t))
    }

    /// Lowers an expression.
    pub(crate) fn expr(&mut self, e: &syn::Expr) -> R<(Expr, Type)> {
        match e {
            syn::Expr::Paren(p) => self.expr(&p.expr),
            syn::Expr::Group(g) => self.expr(&g.expr),
            syn::Expr::Block(b) if b.label.is_none() => self.block(&b.block),
            syn::Expr::Lit(l) => Self::lit(&l.lit),
            syn::Expr::Path(p) => self.path(p),
            syn::Expr::Unary(u) => self.unary(u),
            syn::Expr::Binary(b) => self.binary(b),
            syn::Expr::If(i) => self.if_(i),
            syn::Expr::Tuple(t) => {
                if t.elems.len() < 2 {
                    return Err(unsupported(t, "a tuple of fewer than two fields"));
                }
                let es = t
                    .elems
                    .iter()
                    .map(|x| self.expr(x).map(|(e, _)| e))
                    .collect::<R<_>>()?;
                self.typed(t, Expr::Tuple(es))
            }
            syn::Expr::Field(f) => {
                let syn::Member::Unnamed(i) = &f.member else {
                    return Err(unsupported(
                        &f.member,
                        "a named field (tuples have `.0`, `.1`, ...)",
                    ));
                };
                let (b, _) = self.expr(&f.base)?;
                self.typed(f, Expr::proj(b, i.index as usize))
            }
            syn::Expr::Index(i) => self.index(i),
            syn::Expr::Cast(c) => {
                let (x, t) = self.expr(&c.expr)?;
                let (want, _) = crate::sig::value(&c.ty, &proc_macro2::TokenStream::new())?;
                let Some(st) = want.scalar() else {
                    return Err(unsupported(&c.ty, "a cast to a non-scalar type"));
                };
                if want == t {
                    return Ok((x, t));
                }
                self.typed(c, Expr::unary(UnaryOp::Cast(st), x))
            }
            syn::Expr::Range(r) => self.range(r, None, e),
            syn::Expr::Array(a) => self.array(a.elems.iter(), a),
            syn::Expr::Macro(m) => self.macro_(m),
            syn::Expr::Call(c) => self.call(c),
            syn::Expr::MethodCall(m) => self.method(m),
            syn::Expr::Closure(c) => Err(unsupported(
                c,
                "a closure outside the argument of map, filter, reduce or scan",
            )),
            syn::Expr::Reference(r) => Err(unsupported(
                r,
                "taking a reference (values are passed by value)",
            )),
            other => Err(unsupported(other, &format!("{} expression", kind(other)))),
        }
    }

    fn lit(l: &syn::Lit) -> R<(Expr, Type)> {
        match l {
            syn::Lit::Int(i) if matches!(i.suffix(), "" | "i64") => {
                let v: i64 = i.base10_parse()?;
                Ok((Expr::i64(v), Type::I64))
            }
            syn::Lit::Float(f) if matches!(f.suffix(), "" | "f64") => {
                let v: f64 = f.base10_parse()?;
                Ok((Expr::f64(v), Type::F64))
            }
            syn::Lit::Int(i) => {
                let v: f64 = if i.suffix() == "f64" {
                    i.base10_parse()?
                } else {
                    return Err(unsupported(
                        i,
                        "an integer literal of a type other than i64",
                    ));
                };
                Ok((Expr::f64(v), Type::F64))
            }
            syn::Lit::Bool(b) => Ok((Expr::bool(b.value), Type::Bool)),
            other => Err(unsupported(other, "this literal")),
        }
    }

    fn path(&mut self, p: &syn::ExprPath) -> R<(Expr, Type)> {
        if p.qself.is_none() {
            if let Some(id) = p.path.get_ident() {
                let name = id.to_string();
                return match self.env.iter().rev().find(|(n, _)| *n == name) {
                    Some((_, t)) => Ok((Expr::Var(name), t.clone())),
                    None => Err(syn::Error::new(
                        id.span(),
                        format!(
                            "#[vectorise]: unknown variable `{name}` (only parameters, `let`s and closure parameters are in scope)"
                        ),
                    )),
                };
            }
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            let c = match segs
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .as_slice()
            {
                ["i64", "MAX"] => Some(Expr::i64(i64::MAX)),
                ["i64", "MIN"] => Some(Expr::i64(i64::MIN)),
                ["f64", "MAX"] => Some(Expr::f64(f64::MAX)),
                ["f64", "MIN"] => Some(Expr::f64(f64::MIN)),
                ["f64", "INFINITY"] => Some(Expr::f64(f64::INFINITY)),
                ["f64", "NEG_INFINITY"] => Some(Expr::f64(f64::NEG_INFINITY)),
                ["f64", "NAN"] => Some(Expr::f64(f64::NAN)),
                ["f64", "EPSILON"] => Some(Expr::f64(f64::EPSILON)),
                _ => None,
            };
            if let Some(c) = c {
                return self.typed(p, c);
            }
        }
        Err(unsupported(
            p,
            "this path (variables and the constants i64::MAX/MIN, f64::MAX/MIN/INFINITY/NEG_INFINITY/NAN/EPSILON are supported)",
        ))
    }

    fn unary(&mut self, u: &syn::ExprUnary) -> R<(Expr, Type)> {
        let (x, t) = self.expr(&u.expr)?;
        let op = match u.op {
            syn::UnOp::Neg(_) => UnaryOp::Neg,
            syn::UnOp::Not(_) if t == Type::I64 => UnaryOp::BitNot,
            syn::UnOp::Not(_) => UnaryOp::Not,
            syn::UnOp::Deref(_) => return Ok((x, t)),
            _ => return Err(unsupported(u, "this unary operator")),
        };
        // A negated number is a literal, as rustc reads `-1`: the value `neg` gives, and an
        // identity (`(-1, f64::NEG_INFINITY)`) that the fusion rules see is a constant.
        if let (UnaryOp::Neg, Expr::Lit(l)) = (op, &x) {
            match *l {
                Scalar::I64(v) => return self.typed(u, Expr::i64(v.wrapping_neg())),
                Scalar::F64(v) => return self.typed(u, Expr::f64(-v)),
                Scalar::Bool(_) => {}
            }
        }
        self.typed(u, Expr::unary(op, x))
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> R<(Expr, Type)> {
        let (l, _) = self.expr(&b.left)?;
        let (r, _) = self.expr(&b.right)?;
        let op = match b.op {
            syn::BinOp::Add(_) => BinaryOp::Add,
            syn::BinOp::Sub(_) => BinaryOp::Sub,
            syn::BinOp::Mul(_) => BinaryOp::Mul,
            syn::BinOp::Div(_) => BinaryOp::Div,
            syn::BinOp::Rem(_) => BinaryOp::Rem,
            syn::BinOp::Eq(_) => BinaryOp::Eq,
            syn::BinOp::Ne(_) => BinaryOp::Ne,
            syn::BinOp::Lt(_) => BinaryOp::Lt,
            syn::BinOp::Le(_) => BinaryOp::Le,
            syn::BinOp::Gt(_) => BinaryOp::Gt,
            syn::BinOp::Ge(_) => BinaryOp::Ge,
            syn::BinOp::BitAnd(_) => BinaryOp::BitAnd,
            syn::BinOp::BitOr(_) => BinaryOp::BitOr,
            syn::BinOp::BitXor(_) => BinaryOp::BitXor,
            syn::BinOp::Shl(_) => BinaryOp::Shl,
            syn::BinOp::Shr(_) => BinaryOp::Shr,
            // Short-circuiting, as in Rust: the right operand runs only when it decides.
            syn::BinOp::And(_) => return self.typed(b, Expr::if_(l, r, Expr::bool(false))),
            syn::BinOp::Or(_) => return self.typed(b, Expr::if_(l, Expr::bool(true), r)),
            _ => {
                return Err(unsupported(
                    &b.op,
                    "this operator (assignment is not supported)",
                ));
            }
        };
        self.typed(b, Expr::binary(op, l, r))
    }

    fn if_(&mut self, i: &syn::ExprIf) -> R<(Expr, Type)> {
        let Some((_, els)) = &i.else_branch else {
            return Err(unsupported(i, "`if` without `else`"));
        };
        let (c, _) = self.expr(&i.cond)?;
        let (a, _) = self.block(&i.then_branch)?;
        let (b, _) = self.expr(els)?;
        self.typed(i, Expr::if_(c, a, b))
    }

    fn index(&mut self, i: &syn::ExprIndex) -> R<(Expr, Type)> {
        let (a, _) = self.expr(&i.expr)?;
        if let syn::Expr::Range(r) = strip(&i.index) {
            if !matches!(r.limits, syn::RangeLimits::HalfOpen(_)) {
                return Err(unsupported(r, "an inclusive range `..=`"));
            }
            let arr = self.fresh("a");
            let (start, _) = match &r.start {
                Some(s) => self.expr(s)?,
                None => (Expr::i64(0), Type::I64),
            };
            let (end, _) = match &r.end {
                Some(e) => self.expr(e)?,
                None => (Expr::length(Expr::var(&arr)), Type::I64),
            };
            let lo = self.fresh("lo");
            let body = Expr::slice(Expr::var(&arr), Expr::var(&lo), end - Expr::var(&lo));
            let e = Expr::let_(&arr, a, Expr::let_(&lo, start, body));
            return self.typed(i, e);
        }
        let (x, _) = self.expr(&i.index)?;
        self.typed(i, Expr::index(a, x))
    }

    /// `(a..b)` as the array `[a, a + 1, ..., b - 1]` (empty when `b <= a`), or with `step` the
    /// array `[a, a + step, ...]` below `b`.
    fn range(
        &mut self,
        r: &syn::ExprRange,
        step: Option<&syn::Expr>,
        at: &syn::Expr,
    ) -> R<(Expr, Type)> {
        let (Some(s), Some(e), syn::RangeLimits::HalfOpen(_)) = (&r.start, &r.end, &r.limits)
        else {
            return Err(unsupported(r, "a range that is not `start..end`"));
        };
        let (s, _) = self.expr(s)?;
        let (e, _) = self.expr(e)?;
        let (lo, hi) = (self.fresh("lo"), self.fresh("hi"));
        let span = Expr::var(&hi) - Expr::var(&lo);
        let (len, step_e, st) = match step {
            None => (span, Expr::i64(1), None),
            Some(st) => {
                let (st_e, _) = self.expr(st)?;
                let sv = self.fresh("step");
                let len = (span + Expr::var(&sv) - Expr::i64(1)) / Expr::var(&sv);
                (len, Expr::var(&sv), Some((sv, st_e)))
            }
        };
        let len = Expr::binary(BinaryOp::Max, len, Expr::i64(0));
        let mut body = Expr::iota(len, Expr::var(&lo), step_e);
        if let Some((sv, st_e)) = st {
            // A step of 0 or less would not terminate in Rust; the IR rejects it as a division
            // by zero (0) or yields the empty array (negative).
            body = Expr::let_(&sv, st_e, body);
        }
        let e = Expr::let_(&lo, s, Expr::let_(&hi, e, body));
        self.typed(at, e)
    }

    fn array<'e>(
        &mut self,
        elems: impl Iterator<Item = &'e syn::Expr>,
        at: &impl Spanned,
    ) -> R<(Expr, Type)> {
        let mut es = Vec::new();
        let mut t = None;
        for x in elems {
            let (e, tx) = self.expr(x)?;
            t.get_or_insert(tx);
            es.push(e);
        }
        let Some(t) = t else {
            return Err(unsupported(
                at,
                "an empty array literal without a type (write `Vec::<T>::new()`)",
            ));
        };
        self.typed(at, Expr::ArrayLit(t, es))
    }

    fn macro_(&mut self, m: &syn::ExprMacro) -> R<(Expr, Type)> {
        if !m.mac.path.is_ident("vec") {
            return Err(unsupported(m, "a macro other than `vec!`"));
        }
        if let Ok(arr) = m.mac.parse_body_with(|input: syn::parse::ParseStream| {
            let x: syn::Expr = input.parse()?;
            input.parse::<syn::Token![;]>()?;
            let n: syn::Expr = input.parse()?;
            Ok((x, n))
        }) {
            let (x, _) = self.expr(&arr.0)?;
            let (n, _) = self.expr(&arr.1)?;
            return self.typed(m, Expr::replicate(n, x));
        }
        let elems = m.mac.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        )?;
        self.array(elems.iter(), m)
    }

    fn call(&mut self, c: &syn::ExprCall) -> R<(Expr, Type)> {
        let syn::Expr::Path(p) = strip(&c.func) else {
            return Err(unsupported(&c.func, "calling a computed function"));
        };
        // `Vec::<T>::new()`: the empty array of `T`.
        let segs = &p.path.segments;
        if segs.len() == 2 && segs[0].ident == "Vec" && segs[1].ident == "new" && c.args.is_empty()
        {
            if let syn::PathArguments::AngleBracketed(a) = &segs[0].arguments
                && let Some(syn::GenericArgument::Type(t)) = a.args.first()
            {
                let (t, _) = crate::sig::value(t, &proc_macro2::TokenStream::new())?;
                return self.typed(c, Expr::ArrayLit(t, vec![]));
            }
            return Err(unsupported(
                c,
                "`Vec::new()` without its element type (write `Vec::<T>::new()`)",
            ));
        }
        let Some(id) = p.path.get_ident() else {
            return Err(unsupported(
                p,
                "a call of something other than a function of the module",
            ));
        };
        let name = id.to_string();
        if self.program.function(&name).is_none()
            && let Some(r) = self.by_index(&name, c)
        {
            return r;
        }
        if self.program.function(&name).is_none() {
            return Err(syn::Error::new(
                id.span(),
                format!(
                    "#[vectorise]: `{name}` is not a function of this module (only the module's functions can be called)"
                ),
            ));
        }
        let args = c
            .args
            .iter()
            .map(|a| self.expr(a).map(|(e, _)| e))
            .collect::<R<_>>()?;
        self.typed(c, Expr::call(&name, args))
    }

    /// The element type of an array type, or an error at `at`.
    fn elem_of(at: &impl Spanned, t: &Type, what: &str) -> R<Type> {
        t.elem().cloned().ok_or_else(|| {
            syn::Error::new(
                at.span(),
                format!("#[vectorise]: type error: `{what}` needs an array, found {t}"),
            )
        })
    }

    /// The arrays a `map`/`filter`/`reduce` receiver stands for: `a.zip(b)` is two arrays (no
    /// tuple array is built when the zip is consumed by `map`), anything else one.
    fn receiver(&mut self, r: &syn::Expr) -> R<Vec<(Expr, Type)>> {
        if let syn::Expr::MethodCall(m) = strip(r)
            && m.method == "zip"
        {
            if m.args.len() != 1 {
                return Err(unsupported(m, "`zip` without exactly one argument"));
            }
            // `a.zip(b).zip(c)` (and a fourth): one array each, no array of pairs built.
            let mut arrays = if let syn::Expr::MethodCall(inner) = strip(&m.receiver)
                && inner.method == "zip"
            {
                self.receiver(&m.receiver)?
            } else {
                vec![self.expr_array(&m.receiver)?]
            };
            if arrays.len() == 4 {
                return Err(select::too_many(m));
            }
            arrays.push(self.expr_array(&m.args[0])?);
            return Ok(arrays);
        }
        Ok(vec![self.expr_array(r)?])
    }

    fn expr_array(&mut self, r: &syn::Expr) -> R<(Expr, Type)> {
        let (e, t) = self.expr(r)?;
        let el = Self::elem_of(r, &t, "this method")?;
        Ok((e, el))
    }

    /// One array from a receiver: zips are materialised as arrays of pairs.
    fn one_array(&mut self, at: &syn::ExprMethodCall) -> R<(Expr, Type)> {
        let arrays = self.receiver(&at.receiver)?;
        if arrays.len() == 1 {
            let (e, el) = arrays.into_iter().next().expect("one array");
            return Ok((e, el));
        }
        if arrays.len() > 2 {
            return Ok(Self::zip_array_n(arrays));
        }
        let pair = Lambda::new(
            &["__x", "__y"],
            Expr::Tuple(vec![Expr::var("__x"), Expr::var("__y")]),
        );
        let el = Type::Tuple(arrays.iter().map(|(_, t)| t.clone()).collect());
        let e = Expr::map(pair, arrays.into_iter().map(|(e, _)| e).collect());
        Ok((e, el))
    }

    fn method(&mut self, m: &syn::ExprMethodCall) -> R<(Expr, Type)> {
        let name = m.method.to_string();
        let nargs = m.args.len();
        let arg = |k: usize| &m.args[k];
        match (name.as_str(), nargs) {
            // Values are immutable, so these Rust conversions are the identity.
            ("iter" | "into_iter" | "copied" | "cloned" | "collect" | "to_vec" | "clone", 0) => {
                self.expr(&m.receiver)
            }
            ("len", 0) => {
                let (a, _) = self.expr(&m.receiver)?;
                self.typed(m, Expr::length(a))
            }
            ("is_empty", 0) => {
                let (a, _) = self.expr(&m.receiver)?;
                self.typed(m, Expr::binary(BinaryOp::Eq, Expr::length(a), Expr::i64(0)))
            }
            ("fold", 2) => self.fold(m),
            ("step_by", 1) => match strip(&m.receiver) {
                syn::Expr::Range(r) => {
                    self.range(r, Some(arg(0)), &syn::Expr::MethodCall(m.clone()))
                }
                _ => Err(unsupported(m, "`step_by` on anything but a range `(a..b)`")),
            },
            ("map", 1) => {
                let arrays = self.receiver(&m.receiver)?;
                let elems: Vec<Type> = arrays.iter().map(|(_, t)| t.clone()).collect();
                let (f, _) = match elems.len() {
                    2 => self.zip_lambda(arg(0), &elems)?,
                    3.. => self.zip_lambda_n(arg(0), &elems)?,
                    _ => self.lambda(arg(0), &elems)?,
                };
                self.typed(
                    m,
                    Expr::map(f, arrays.into_iter().map(|(e, _)| e).collect()),
                )
            }
            ("zip", 1) if matches!(strip(&m.receiver), syn::Expr::MethodCall(r) if r.method == "zip") =>
            {
                let arrays = self.receiver(&syn::Expr::MethodCall(m.clone()))?;
                let (e, _) = Self::zip_array_n(arrays);
                self.typed(m, e)
            }
            ("zip", 1) => {
                let a = self.expr_array(&m.receiver)?;
                let b = self.expr_array(arg(0))?;
                let pair = Lambda::new(
                    &["__x", "__y"],
                    Expr::Tuple(vec![Expr::var("__x"), Expr::var("__y")]),
                );
                self.typed(m, Expr::map(pair, vec![a.0, b.0]))
            }
            ("filter", 1) => {
                let (a, el) = self.one_array(m)?;
                let (p, _) = self.lambda(arg(0), &[el])?;
                self.typed(m, Expr::proj(Expr::filter(vec![p], a), 0))
            }
            ("sum" | "product" | "min" | "max", 0) => {
                let (a, el) = self.one_array(m)?;
                let (op, z) = match (name.as_str(), &el) {
                    ("sum", Type::I64) => (ReduceOp::Add, Expr::i64(0)),
                    ("sum", Type::F64) => (ReduceOp::Add, Expr::f64(0.0)),
                    ("product", Type::I64) => (ReduceOp::Mul, Expr::i64(1)),
                    ("product", Type::F64) => (ReduceOp::Mul, Expr::f64(1.0)),
                    ("min", Type::I64) => (ReduceOp::Min, Expr::i64(i64::MAX)),
                    ("min", Type::F64) => (ReduceOp::Min, Expr::f64(f64::INFINITY)),
                    ("max", Type::I64) => (ReduceOp::Max, Expr::i64(i64::MIN)),
                    ("max", Type::F64) => (ReduceOp::Max, Expr::f64(f64::NEG_INFINITY)),
                    _ => {
                        return Err(syn::Error::new(
                            m.method.span(),
                            format!(
                                "#[vectorise]: type error: `{name}` needs an array of i64 or f64, found [{el}]"
                            ),
                        ));
                    }
                };
                self.typed(m, Expr::reduce(op, z, a))
            }
            ("reduce" | "scan", 2) => {
                let (a, el) = self.one_array(m)?;
                let (z, _) = self.expr(arg(0))?;
                let op = match builtin_for(arg(1), &el) {
                    Some(op) => op,
                    None => ReduceOp::Lambda(self.lambda(arg(1), &[el.clone(), el])?.0),
                };
                let e = if name == "reduce" {
                    Expr::reduce(op, z, a)
                } else {
                    Expr::scan(op, z, a)
                };
                self.typed(m, e)
            }
            ("concat", 0) => {
                // `[a, b, c].concat()` is `append(append(a, b), c)`: no array of arrays is built.
                if let syn::Expr::Array(lit) = strip(&m.receiver)
                    && lit.elems.len() >= 2
                {
                    let mut it = lit.elems.iter();
                    let (mut acc, _) = self.expr(it.next().expect("two elements"))?;
                    for x in it {
                        let (b, _) = self.expr(x)?;
                        acc = Expr::append(acc, b);
                        self.typed(x, acc.clone())?;
                    }
                    return self.typed(m, acc);
                }
                let (a, _) = self.expr(&m.receiver)?;
                self.typed(m, Expr::concat(a))
            }
            ("scatter", 2) => {
                let (d, _) = self.expr(&m.receiver)?;
                let (i, _) = self.expr(arg(0))?;
                let (v, _) = self.expr(arg(1))?;
                self.typed(m, Expr::scatter(d, i, v))
            }
            _ => self
                .math_method(m)
                .or_else(|| self.select_method(m))
                .unwrap_or_else(|| {
                    Err(unsupported(
                        &m.method,
                        &format!("the method `{name}` with {nargs} argument(s)"),
                    ))
                }),
        }
    }

    /// The closure of `a.zip(b).map(|(x, y)| ..)`: a two-parameter lambda when the closure
    /// destructures the pair, otherwise the pair is rebuilt for it.
    fn zip_lambda(&mut self, c: &syn::Expr, elems: &[Type]) -> R<(Lambda, Type)> {
        if let syn::Expr::Closure(cl) = strip(c)
            && cl.inputs.len() == 1
        {
            let pat = match cl.inputs.first() {
                Some(syn::Pat::Paren(p)) => &*p.pat,
                Some(p) => p,
                None => unreachable!("one input"),
            };
            if let syn::Pat::Tuple(tp) = pat
                && tp.elems.len() == 2
            {
                let mut two = (*cl).clone();
                two.inputs.clone_from(&tp.elems);
                return self.lambda(&syn::Expr::Closure(two), elems);
            }
            let (l, t) = self.lambda(c, &[Type::Tuple(elems.to_vec())])?;
            let param = l.params[0].0.clone();
            let body = Expr::let_(
                &param,
                Expr::Tuple(vec![Expr::var("__x"), Expr::var("__y")]),
                (*l.body).clone(),
            );
            return Ok((Lambda::new(&["__x", "__y"], body), t));
        }
        self.lambda(c, elems)
    }
}

/// Recognises `|a, b| a + b` (and `*`, `.min(b)`, `.max(b)`, `&&`, `||`) as a built-in operator.
fn builtin_op(c: &syn::Expr) -> Option<ReduceOp> {
    let syn::Expr::Closure(c) = strip(c) else {
        return None;
    };
    let names: Vec<String> = c
        .inputs
        .iter()
        .map(|p| match p {
            syn::Pat::Ident(i) => Some(i.ident.to_string()),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let [a, b] = names.as_slice() else {
        return None;
    };
    let is = |e: &syn::Expr, n: &str| matches!(strip(e), syn::Expr::Path(p) if p.path.is_ident(n));
    match strip(&c.body) {
        syn::Expr::Binary(x) if is(&x.left, a) && is(&x.right, b) => match x.op {
            syn::BinOp::Add(_) => Some(ReduceOp::Add),
            syn::BinOp::Mul(_) => Some(ReduceOp::Mul),
            syn::BinOp::And(_) => Some(ReduceOp::And),
            syn::BinOp::Or(_) => Some(ReduceOp::Or),
            _ => None,
        },
        syn::Expr::MethodCall(m)
            if m.args.len() == 1 && is(&m.receiver, a) && is(&m.args[0], b) =>
        {
            match m.method.to_string().as_str() {
                "min" | "minimum" => Some(ReduceOp::Min),
                "max" | "maximum" => Some(ReduceOp::Max),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether the closure `|a, b| ..` is `a.min(b)` or `a.max(b)` (`std`'s, which ignore a NaN on
/// `f64`) rather than `a.minimum(b)` / `a.maximum(b)`.
fn nan_ignoring(c: &syn::Expr) -> bool {
    matches!(strip(c), syn::Expr::Closure(c)
        if matches!(strip(&c.body), syn::Expr::MethodCall(m) if m.method == "min" || m.method == "max"))
}

/// A name for an unsupported expression's kind.
fn kind(e: &syn::Expr) -> &'static str {
    match e {
        syn::Expr::Match(_) => "a `match`",
        syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_) => "a loop",
        syn::Expr::Assign(_) => "an assignment",
        syn::Expr::Return(_) => "a `return`",
        syn::Expr::Break(_) | syn::Expr::Continue(_) => "a `break`/`continue`",
        syn::Expr::Struct(_) => "a struct",
        syn::Expr::Unsafe(_) => "an `unsafe` block",
        syn::Expr::Async(_) | syn::Expr::Await(_) => "an async",
        syn::Expr::Try(_) => "a `?`",
        syn::Expr::Let(_) => "an `if let`/`let` condition",
        _ => "this",
    }
}

/// Removes parentheses and invisible groups.
fn strip(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip(&p.expr),
        syn::Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

fn wrap_lets(binds: Vec<(String, Expr)>, body: Expr) -> Expr {
    binds
        .into_iter()
        .rev()
        .fold(body, |b, (n, v)| Expr::Let(n, Arc::new(v), Arc::new(b)))
}

/// The reductions by index, written as calls of free functions (a function of the module of the
/// same name is called instead).
impl Lower<'_> {
    /// `hist(bins, identity, op, indices, values)` or `count_by_index(bins, indices)`, if `name`
    /// is one of them.
    fn by_index(&mut self, name: &str, c: &syn::ExprCall) -> Option<R<(Expr, Type)>> {
        let arity = match name {
            "hist" => 5,
            "count_by_index" => 2,
            _ => return None,
        };
        if c.args.len() != arity {
            return Some(Err(syn::Error::new(
                c.span(),
                format!(
                    "#[vectorise]: `{name}` takes {arity} arguments ({}), given {}",
                    if arity == 5 {
                        "bins, identity, |a, b| .., indices, values"
                    } else {
                        "bins, indices"
                    },
                    c.args.len()
                ),
            )));
        }
        Some(if arity == 5 {
            self.hist(c)
        } else {
            self.count_by_index(c)
        })
    }

    fn hist(&mut self, c: &syn::ExprCall) -> R<(Expr, Type)> {
        let arg = |k: usize| &c.args[k];
        let (bins, _) = self.expr(arg(0))?;
        let (z, _) = self.expr(arg(1))?;
        let (ks, _) = self.expr(arg(3))?;
        let (vs, vt) = self.expr(arg(4))?;
        let el = Self::elem_of(arg(4), &vt, "hist")?;
        let op = match builtin_for(arg(2), &el) {
            Some(op) => op,
            None => ReduceOp::Lambda(self.lambda(arg(2), &[el.clone(), el])?.0),
        };
        self.typed(c, Expr::hist(bins, z, op, ks, vs))
    }

    fn count_by_index(&mut self, c: &syn::ExprCall) -> R<(Expr, Type)> {
        let (bins, _) = self.expr(&c.args[0])?;
        let (ks, _) = self.expr(&c.args[1])?;
        let name = self.fresh("k");
        let e = flatland_vectoriser::derived::count_by_index(bins, ks, &name);
        self.typed(c, e)
    }
}

/// The built-in operator the closure `c` of a reduction, scan, fold or histogram of `el`
/// elements stands for, if any: `std`'s `f64::min`/`max` ignore a NaN, so on `f64` they are
/// closures, not the built-in `minimum`/`maximum`.
fn builtin_for(c: &syn::Expr, el: &Type) -> Option<ReduceOp> {
    let op = builtin_op(c)?;
    let nan_skipping = *el == Type::F64 && nan_ignoring(c);
    (builtin_fits(&op, el) && !nan_skipping).then_some(op)
}

/// Whether the built-in operator `op` is defined on elements of type `el`.
fn builtin_fits(op: &ReduceOp, el: &Type) -> bool {
    matches!(
        (op, el),
        (ReduceOp::And | ReduceOp::Or, Type::Bool)
            | (
                ReduceOp::Add | ReduceOp::Mul | ReduceOp::Min | ReduceOp::Max,
                Type::I64 | Type::F64
            )
    )
}
