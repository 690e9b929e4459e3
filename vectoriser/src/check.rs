//! The type checker: infers the type of every expression (lambda parameters included, from the
//! arrays or identities they are applied to) and rejects ill-typed programs with an error naming
//! the function and the node.
//!
//! ```
//! use flatland_vectoriser::{check, ir::{Expr, Function, Lambda, Program, Type}};
//! let body = Expr::map(Lambda::new(&["x"], Expr::var("x") * Expr::f64(2.0)), vec![Expr::var("xs")]);
//! let f = Function::new("double", vec![("xs".into(), Type::array(Type::F64))], Type::array(Type::F64), body);
//! assert!(check::check_program(&Program::new(vec![f])).is_ok());
//!
//! let bad = Expr::map(Lambda::new(&["x"], Expr::var("x") * Expr::i64(2)), vec![Expr::var("xs")]);
//! let g = Function::new("bad", vec![("xs".into(), Type::array(Type::F64))], Type::array(Type::I64), bad);
//! let err = check::check_program(&Program::new(vec![g])).unwrap_err();
//! assert!(err.to_string().contains("(x * 2)"), "{err}");
//! ```

use crate::error::{Error, Result};
use crate::ir::{
    BinaryOp, Expr, Function, FusedForm, Lambda, MAX_CLASSES, MAX_PREDICATES, Program, ReduceOp,
    SortOp, Type,
};

/// Checks every function of a program.
///
/// # Errors
/// The first ill-typed node found, with its function.
///
/// ```
/// use flatland_vectoriser::{check, ir::{Expr, Function, Program, Type}};
/// let f = Function::new("f", vec![], Type::Bool, Expr::i64(1));
/// assert!(check::check_program(&Program::new(vec![f])).is_err());
/// ```
pub fn check_program(p: &Program) -> Result<()> {
    for (i, f) in p.functions.iter().enumerate() {
        if p.functions[..i].iter().any(|g| g.name == f.name) {
            return Err(Error::Type {
                function: f.name.clone(),
                node: f.name.clone(),
                detail: "function defined twice".into(),
            });
        }
        check_function(p, f)?;
    }
    Ok(())
}

/// Checks one function against its declared signature.
///
/// # Errors
/// The first ill-typed node found.
///
/// ```
/// use flatland_vectoriser::{check, ir::{Expr, Function, Program, Type}};
/// let f = Function::new("f", vec![("x".into(), Type::I64)], Type::I64, Expr::var("x"));
/// let p = Program::new(vec![f.clone()]);
/// assert!(check::check_function(&p, &f).is_ok());
/// ```
pub fn check_function(p: &Program, f: &Function) -> Result<()> {
    let mut c = Checker {
        program: p,
        function: &f.name,
        env: f.params.clone(),
        types: None,
    };
    let t = c.expr(&f.body)?;
    if t != f.ret {
        return Err(c.err(
            &f.body,
            format!("body has type {t}, the function returns {}", f.ret),
        ));
    }
    Ok(())
}

/// Infers the type of `e` in a function of `p` with the given variables in scope.
///
/// # Errors
/// The first ill-typed node found.
///
/// ```
/// use flatland_vectoriser::{check, ir::{Expr, Program, Type}};
/// let t = check::type_of(&Program::default(), &[("v".into(), Type::array(Type::I64))], &Expr::length(Expr::var("v")));
/// assert_eq!(t.unwrap(), Type::I64);
/// ```
pub fn type_of(p: &Program, env: &[(String, Type)], e: &Expr) -> Result<Type> {
    Checker {
        program: p,
        function: "<expr>",
        env: env.to_vec(),
        types: None,
    }
    .expr(e)
}

/// The type of every node of a checked program, keyed by the node's address (functions are
/// monomorphic, so each node has one type). The executor reads it to build empty values.
pub(crate) type Types = std::collections::HashMap<usize, Type>;

/// Checks `p` and records the type of every node.
pub(crate) fn annotate(p: &Program) -> Result<Types> {
    check_program(p)?;
    let mut types = Types::new();
    for f in &p.functions {
        let mut c = Checker {
            program: p,
            function: &f.name,
            env: f.params.clone(),
            types: Some(types),
        };
        c.expr(&f.body)?;
        types = c.types.take().unwrap_or_default();
    }
    Ok(types)
}

/// The key of a node in [`Types`].
pub(crate) fn node_key(e: &Expr) -> usize {
    std::ptr::from_ref(e) as usize
}

struct Checker<'a> {
    program: &'a Program,
    function: &'a str,
    env: Vec<(String, Type)>,
    types: Option<Types>,
}

/// Pretty-prints a node for an error message, shortened to one readable line.
pub(crate) fn short(e: &impl std::fmt::Display) -> String {
    let s: String = e
        .to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if s.chars().count() > 100 {
        s.chars().take(97).chain("...".chars()).collect()
    } else {
        s
    }
}

impl Checker<'_> {
    fn err(&self, e: &Expr, detail: String) -> Error {
        Error::Type {
            function: self.function.to_string(),
            node: short(e),
            detail,
        }
    }

    fn elem(&self, e: &Expr, t: Type, what: &str) -> Result<Type> {
        match t {
            Type::Array(el) => Ok(*el),
            other => Err(self.err(e, format!("{what} must be an array, found {other}"))),
        }
    }

    fn expect(&self, e: &Expr, found: &Type, want: &Type, what: &str) -> Result<()> {
        if found == want {
            Ok(())
        } else {
            Err(self.err(e, format!("{what} must be {want}, found {found}")))
        }
    }

    fn lambda(&mut self, at: &Expr, l: &Lambda, args: &[Type], what: &str) -> Result<Type> {
        if l.params.len() != args.len() {
            return Err(self.err(
                at,
                format!(
                    "{what} takes {} parameters, applied to {}",
                    l.params.len(),
                    args.len()
                ),
            ));
        }
        for ((name, ann), t) in l.params.iter().zip(args) {
            if let Some(a) = ann
                && a != t
            {
                return Err(self.err(
                    at,
                    format!("{what}: parameter `{name}` annotated {a}, applied to {t}"),
                ));
            }
        }
        let depth = self.env.len();
        self.env.extend(
            l.params
                .iter()
                .map(|(n, _)| n.clone())
                .zip(args.iter().cloned()),
        );
        let r = self.expr(&l.body);
        self.env.truncate(depth);
        r
    }

    fn reduce_op(&mut self, at: &Expr, op: &ReduceOp, t: &Type) -> Result<()> {
        let ok = match op {
            ReduceOp::Add | ReduceOp::Mul | ReduceOp::Min | ReduceOp::Max => {
                matches!(t, Type::I64 | Type::F64)
            }
            ReduceOp::And | ReduceOp::Or => *t == Type::Bool,
            ReduceOp::Lambda(l) => {
                let r = self.lambda(at, l, &[t.clone(), t.clone()], "the operator")?;
                return self.expect(at, &r, t, "the operator's result");
            }
        };
        if ok {
            Ok(())
        } else {
            Err(self.err(at, format!("operator {op} is not defined on {t}")))
        }
    }

    fn arrays(&mut self, at: &Expr, arrays: &[Expr]) -> Result<Vec<Type>> {
        if arrays.is_empty() {
            return Err(self.err(at, "needs at least one array".into()));
        }
        arrays
            .iter()
            .map(|a| self.expr(a).and_then(|t| self.elem(at, t, "each argument")))
            .collect()
    }

    fn expr(&mut self, e: &Expr) -> Result<Type> {
        let t = self.expr_inner(e)?;
        if let Some(types) = &mut self.types {
            types.insert(node_key(e), t.clone());
        }
        Ok(t)
    }

    fn expr_inner(&mut self, e: &Expr) -> Result<Type> {
        let i64_arg = |c: &mut Self, x: &Expr, what: &str| -> Result<()> {
            let t = c.expr(x)?;
            c.expect(e, &t, &Type::I64, what)
        };
        Ok(match e {
            Expr::Var(n) => match self.env.iter().rev().find(|(m, _)| m == n) {
                Some((_, t)) => t.clone(),
                None => return Err(self.err(e, format!("unbound variable `{n}`"))),
            },
            Expr::Lit(s) => Type::of_scalar(s.ty()),
            Expr::Tuple(es) => Type::Tuple(es.iter().map(|x| self.expr(x)).collect::<Result<_>>()?),
            Expr::Proj(t, i) => match self.expr(t)? {
                Type::Tuple(ts) if *i < ts.len() => ts[*i].clone(),
                other => return Err(self.err(e, format!("no field {i} in {other}"))),
            },
            Expr::Let(n, v, b) => {
                let t = self.expr(v)?;
                self.env.push((n.clone(), t));
                let r = self.expr(b);
                self.env.pop();
                r?
            }
            Expr::If(c, a, b) => {
                let tc = self.expr(c)?;
                self.expect(e, &tc, &Type::Bool, "the condition")?;
                let ta = self.expr(a)?;
                let tb = self.expr(b)?;
                if ta != tb {
                    return Err(self.err(e, format!("branches differ: {ta} and {tb}")));
                }
                ta
            }
            Expr::Unary(op, a) => {
                let t = self.expr(a)?;
                match t.scalar().and_then(|st| op.result_type(st)) {
                    Some(r) => Type::of_scalar(r),
                    None => return Err(self.err(e, format!("{} is not defined on {t}", op.name()))),
                }
            }
            Expr::Binary(op, a, b) => {
                let ta = self.expr(a)?;
                let tb = self.expr(b)?;
                // `powi` alone takes two types (an `f64` base, an `i64` exponent).
                if ta != tb && *op != BinaryOp::Powi {
                    return Err(self.err(e, format!("operands differ: {ta} and {tb}")));
                }
                match ta
                    .scalar()
                    .zip(tb.scalar())
                    .and_then(|(sa, sb)| op.result_type(sa, sb))
                {
                    Some(r) => Type::of_scalar(r),
                    None => {
                        return Err(self.err(e, format!("{} is not defined on {ta}", op.name())));
                    }
                }
            }
            Expr::Ternary(op, a, b, c) => {
                let ts = [self.expr(a)?, self.expr(b)?, self.expr(c)?];
                if ts[0] != ts[1] || ts[0] != ts[2] {
                    let [ta, tb, tc] = &ts;
                    return Err(self.err(e, format!("operands differ: {ta}, {tb} and {tc}")));
                }
                let Some(r) = ts[0].scalar().and_then(|s| op.result_type(s, s, s)) else {
                    let t = &ts[0];
                    return Err(self.err(e, format!("{} is not defined on {t}", op.name())));
                };
                Type::of_scalar(r)
            }
            Expr::ArrayLit(t, es) => {
                for x in es {
                    let tx = self.expr(x)?;
                    self.expect(x, &tx, t, "an element")?;
                }
                Type::array(t.clone())
            }
            Expr::Index(a, i) => {
                let ta = self.expr(a)?;
                let el = self.elem(e, ta, "the indexed value")?;
                i64_arg(self, i, "the index")?;
                el
            }
            Expr::Length(a) => {
                let ta = self.expr(a)?;
                self.elem(e, ta, "the argument")?;
                Type::I64
            }
            Expr::Iota { len, start, step } => {
                i64_arg(self, len, "the length")?;
                i64_arg(self, start, "the start")?;
                i64_arg(self, step, "the step")?;
                Type::array(Type::I64)
            }
            Expr::Replicate(n, x) => {
                i64_arg(self, n, "the count")?;
                Type::array(self.expr(x)?)
            }
            Expr::Slice(a, s, l) => {
                let ta = self.expr(a)?;
                self.elem(e, ta.clone(), "the sliced value")?;
                i64_arg(self, s, "the start")?;
                i64_arg(self, l, "the length")?;
                ta
            }
            Expr::Append(a, b) => {
                let ta = self.expr(a)?;
                self.elem(e, ta.clone(), "the first argument")?;
                let tb = self.expr(b)?;
                self.expect(e, &tb, &ta, "the second argument")?;
                ta
            }
            Expr::Sort(op, a) => {
                let ta = self.expr(a)?;
                let el = self.elem(e, ta.clone(), "the argument")?;
                if !matches!(el, Type::I64 | Type::F64) {
                    return Err(self.err(
                        e,
                        format!("{} needs an array of i64 or f64, found {ta}", op.name()),
                    ));
                }
                match op {
                    SortOp::Values => ta,
                    SortOp::Indices => Type::array(Type::I64),
                }
            }
            Expr::Concat(a) => {
                let ta = self.expr(a)?;
                let inner = self.elem(e, ta, "the argument")?;
                self.elem(e, inner.clone(), "each element")?;
                inner
            }
            Expr::Scatter(d, i, v) => {
                let td = self.expr(d)?;
                self.elem(e, td.clone(), "the destination")?;
                let ti = self.expr(i)?;
                self.expect(e, &ti, &Type::array(Type::I64), "the indices")?;
                let tv = self.expr(v)?;
                self.expect(e, &tv, &td, "the values")?;
                td
            }
            Expr::Map(f, arrays) => {
                let elems = self.arrays(e, arrays)?;
                Type::array(self.lambda(e, f, &elems, "the mapped function")?)
            }
            Expr::Reduce(op, z, a) | Expr::Scan(op, z, a) => {
                let ta = self.expr(a)?;
                let el = self.elem(e, ta.clone(), "the reduced value")?;
                let tz = self.expr(z)?;
                self.expect(e, &tz, &el, "the identity")?;
                self.reduce_op(e, op, &el)?;
                if matches!(e, Expr::Reduce(..)) {
                    el
                } else {
                    ta
                }
            }
            Expr::Filter(ps, a) => {
                if ps.len() > MAX_PREDICATES {
                    return Err(self.err(
                        e,
                        format!("{} predicates, at most {MAX_PREDICATES} allowed", ps.len()),
                    ));
                }
                let ta = self.expr(a)?;
                let el = self.elem(e, ta.clone(), "the filtered value")?;
                for p in ps {
                    let r = self.lambda(e, p, std::slice::from_ref(&el), "a predicate")?;
                    self.expect(e, &r, &Type::Bool, "a predicate's result")?;
                }
                Type::Tuple(vec![ta; ps.len() + 1])
            }
            Expr::Partition {
                classes,
                interest,
                key,
                array,
            } => {
                if *classes == 0 || *classes > MAX_CLASSES {
                    return Err(
                        self.err(e, format!("{classes} classes, must be 1..={MAX_CLASSES}"))
                    );
                }
                if let Some(c) = interest.iter().find(|c| **c >= *classes) {
                    return Err(self.err(
                        e,
                        format!("class of interest {c} out of range 0..{classes}"),
                    ));
                }
                let ta = self.expr(array)?;
                let el = self.elem(e, ta.clone(), "the partitioned value")?;
                let r = self.lambda(e, key, &[el], "the key function")?;
                self.expect(e, &r, &Type::I64, "the key")?;
                Type::Tuple(vec![ta; interest.len()])
            }
            Expr::Redomap(op, z, f, arrays) => {
                let elems = self.arrays(e, arrays)?;
                let r = self.lambda(e, f, &elems, "the mapped function")?;
                let tz = self.expr(z)?;
                self.expect(e, &tz, &r, "the identity")?;
                self.reduce_op(e, op, &r)?;
                r
            }
            Expr::Hist { .. } | Expr::Loop { .. } => self.by_index_or_loop(e)?,
            // The form's lambdas run only in the kernel, which compiles them from the values;
            // the progressions of a fused scatter are evaluated by the executor, so typed here.
            Expr::Fused(f) => {
                let t = self.expr(&f.original)?;
                if let FusedForm::ScatterProgressions { progressions, .. } = &f.form {
                    let tp = self.expr(progressions)?;
                    let want = Type::array(Type::Tuple(vec![Type::I64; 3]));
                    self.expect(e, &tp, &want, "the progressions")?;
                }
                t
            }
            Expr::Call(name, args) => {
                let Some(f) = self.program.function(name) else {
                    return Err(self.err(e, format!("unknown function `{name}`")));
                };
                if f.params.len() != args.len() {
                    return Err(self.err(
                        e,
                        format!(
                            "`{name}` takes {} arguments, given {}",
                            f.params.len(),
                            args.len()
                        ),
                    ));
                }
                for (a, (pn, pt)) in args.iter().zip(&f.params) {
                    let ta = self.expr(a)?;
                    self.expect(e, &ta, pt, &format!("argument `{pn}`"))?;
                }
                f.ret.clone()
            }
        })
    }
}

impl Checker<'_> {
    /// The reductions by index and the loops, kept out of `expr_inner` so that the frame every
    /// level of a deep program pays stays small.
    #[inline(never)]
    fn by_index_or_loop(&mut self, e: &Expr) -> Result<Type> {
        let i64_arg = |c: &mut Self, x: &Expr, what: &str| -> Result<()> {
            let t = c.expr(x)?;
            c.expect(e, &t, &Type::I64, what)
        };
        Ok(match e {
            Expr::Hist {
                bins,
                op,
                identity,
                indices,
                values,
            } => {
                i64_arg(self, bins, "the number of bins")?;
                let tz = self.expr(identity)?;
                let ti = self.expr(indices)?;
                self.expect(e, &ti, &Type::array(Type::I64), "the indices")?;
                let tv = self.expr(values)?;
                let el = self.elem(e, tv.clone(), "the values")?;
                if el.scalar().is_none() {
                    return Err(self.err(e, format!("the values must be scalars, found {el}")));
                }
                self.expect(e, &tz, &el, "the identity")?;
                self.reduce_op(e, op, &el)?;
                tv
            }
            Expr::Loop { init, form, body } => {
                let ts = self.expr(init)?;
                let r = match form {
                    crate::ir::LoopForm::For(n) => {
                        i64_arg(self, n, "the number of iterations")?;
                        self.lambda(e, body, &[ts.clone(), Type::I64], "the loop body")?
                    }
                    crate::ir::LoopForm::While(c) => {
                        let tc =
                            self.lambda(e, c, std::slice::from_ref(&ts), "the loop condition")?;
                        self.expect(e, &tc, &Type::Bool, "the loop condition")?;
                        self.lambda(e, body, std::slice::from_ref(&ts), "the loop body")?
                    }
                };
                self.expect(e, &r, &ts, "the loop body's result (the next state)")?;
                ts
            }
            other => unreachable!("not a hist or loop: {}", other.kind()),
        })
    }
}
