//! The pretty-printer: programs as readable text (failing random programs are shown with it).
//!
//! Expressions print on one line except `let`, whose body starts on a new line at the same
//! indentation, and lambdas whose bodies contain a `let`, which indent their body.
//!
//! ```
//! use flatland_vectoriser::ir::{Expr, Lambda};
//! let e = Expr::map(
//!     Lambda::new(&["x"], Expr::let_("y", Expr::var("x") * Expr::i64(2), Expr::var("y"))),
//!     vec![Expr::var("xs")],
//! );
//! assert_eq!(e.to_string(), "map(|x|\n  let y = (x * 2) in\n  y, xs)");
//! ```

use crate::ir::{BinaryOp, Expr, Function, FusedForm, Lambda, Program};
use std::fmt::{self, Write};

/// The infix symbol of a binary operator; `None` for those written as calls (`min(a, b)`).
fn infix(op: BinaryOp) -> Option<&'static str> {
    use BinaryOp as B;
    Some(match op {
        B::Add => "+",
        B::Sub => "-",
        B::Mul => "*",
        B::Div => "/",
        B::Rem => "%",
        B::Eq => "==",
        B::Ne => "!=",
        B::Lt => "<",
        B::Le => "<=",
        B::Gt => ">",
        B::Ge => ">=",
        B::And => "&&",
        B::Or => "||",
        B::BitAnd => "&",
        B::BitOr => "|",
        B::BitXor => "^",
        B::Shl => "<<",
        B::Shr => ">>",
        B::FloorDiv
        | B::Mod
        | B::Min
        | B::Max
        | B::Powf
        | B::Powi
        | B::Atan2
        | B::Hypot
        | B::Copysign
        | B::Pow
        | B::RemEuclid
        | B::DivEuclid
        | B::MinNum
        | B::MaxNum => return None,
    })
}

fn has_let(e: &Expr) -> bool {
    matches!(e, Expr::Let(..))
}

fn list(out: &mut String, items: &[Expr], indent: usize) -> fmt::Result {
    for (i, e) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        expr(out, e, indent)?;
    }
    Ok(())
}

fn lambda(out: &mut String, l: &Lambda, indent: usize) -> fmt::Result {
    out.push('|');
    for (i, (n, t)) in l.params.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(n);
        if let Some(t) = t {
            write!(out, ": {t}")?;
        }
    }
    out.push('|');
    if has_let(&l.body) {
        let inner = indent + 2;
        write!(out, "\n{:inner$}", "")?;
        expr(out, &l.body, inner)
    } else {
        out.push(' ');
        expr(out, &l.body, indent)
    }
}

fn call(out: &mut String, name: &str, args: &[&Expr], indent: usize) -> fmt::Result {
    write!(out, "{name}(")?;
    for (i, e) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        expr(out, e, indent)?;
    }
    out.push(')');
    Ok(())
}

fn expr(out: &mut String, e: &Expr, indent: usize) -> fmt::Result {
    match e {
        Expr::Var(n) => out.push_str(n),
        Expr::Lit(s) => write!(out, "{s}")?,
        Expr::Tuple(es) => {
            out.push('(');
            list(out, es, indent)?;
            if es.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        Expr::Proj(t, i) => {
            expr(out, t, indent)?;
            write!(out, ".{i}")?;
        }
        Expr::Let(n, v, b) => {
            write!(out, "let {n} = ")?;
            expr(out, v, indent + 2)?;
            write!(out, " in\n{:indent$}", "")?;
            expr(out, b, indent)?;
        }
        Expr::If(c, a, b) => {
            out.push_str("if ");
            expr(out, c, indent)?;
            out.push_str(" then ");
            expr(out, a, indent)?;
            out.push_str(" else ");
            expr(out, b, indent)?;
        }
        Expr::Unary(op, a) => call(out, op.name(), &[a], indent)?,
        Expr::Ternary(op, a, b, c) => call(out, op.name(), &[a, b, c], indent)?,
        Expr::Binary(op, a, b) => match infix(*op) {
            None => call(out, op.name(), &[a, b], indent)?,
            Some(sym) => {
                out.push('(');
                expr(out, a, indent)?;
                write!(out, " {sym} ")?;
                expr(out, b, indent)?;
                out.push(')');
            }
        },
        Expr::ArrayLit(t, es) => {
            out.push('[');
            list(out, es, indent)?;
            write!(out, "]: [{t}]")?;
        }
        Expr::Index(a, i) => {
            expr(out, a, indent)?;
            out.push('[');
            expr(out, i, indent)?;
            out.push(']');
        }
        Expr::Length(a) => call(out, "length", &[a], indent)?,
        Expr::Iota { len, start, step } => call(out, "iota", &[len, start, step], indent)?,
        Expr::Replicate(n, x) => call(out, "replicate", &[n, x], indent)?,
        Expr::Slice(a, s, l) => call(out, "slice", &[a, s, l], indent)?,
        Expr::Append(a, b) => call(out, "append", &[a, b], indent)?,
        Expr::Concat(a) => call(out, "concat", &[a], indent)?,
        Expr::Sort(op, a) => call(out, op.name(), &[a], indent)?,
        Expr::Scatter(d, i, v) => call(out, "scatter", &[d, i, v], indent)?,
        Expr::Map(f, arrays) => {
            out.push_str("map(");
            lambda(out, f, indent)?;
            out.push_str(", ");
            list(out, arrays, indent)?;
            out.push(')');
        }
        Expr::Reduce(op, z, a) | Expr::Scan(op, z, a) => {
            write!(
                out,
                "{}(",
                if matches!(e, Expr::Reduce(..)) {
                    "reduce"
                } else {
                    "scan"
                }
            )?;
            reduce_op(out, op, indent)?;
            out.push_str(", ");
            expr(out, z, indent)?;
            out.push_str(", ");
            expr(out, a, indent)?;
            out.push(')');
        }
        Expr::Hist {
            bins,
            op,
            identity,
            indices,
            values,
        } => {
            out.push_str("hist(");
            expr(out, bins, indent)?;
            out.push_str(", ");
            expr(out, identity, indent)?;
            out.push_str(", ");
            reduce_op(out, op, indent)?;
            out.push_str(", ");
            expr(out, indices, indent)?;
            out.push_str(", ");
            expr(out, values, indent)?;
            out.push(')');
        }
        Expr::Loop { init, form, body } => {
            out.push_str("loop(");
            expr(out, init, indent)?;
            match form {
                crate::ir::LoopForm::For(n) => {
                    out.push_str(", for ");
                    expr(out, n, indent)?;
                }
                crate::ir::LoopForm::While(c) => {
                    out.push_str(", while ");
                    lambda(out, c, indent)?;
                }
            }
            out.push_str(", ");
            lambda(out, body, indent)?;
            out.push(')');
        }
        Expr::Filter(ps, a) => {
            out.push_str("filter([");
            for (i, p) in ps.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                lambda(out, p, indent)?;
            }
            out.push_str("], ");
            expr(out, a, indent)?;
            out.push(')');
        }
        Expr::Partition {
            classes,
            interest,
            key,
            array,
        } => {
            write!(out, "partition({classes}, {{")?;
            for (i, c) in interest.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write!(out, "{c}")?;
            }
            out.push_str("}, ");
            lambda(out, key, indent)?;
            out.push_str(", ");
            expr(out, array, indent)?;
            out.push(')');
        }
        Expr::Redomap(op, z, f, arrays) => {
            out.push_str("redomap(");
            reduce_op(out, op, indent)?;
            out.push_str(", ");
            expr(out, z, indent)?;
            out.push_str(", ");
            lambda(out, f, indent)?;
            out.push_str(", ");
            list(out, arrays, indent)?;
            out.push(')');
        }
        Expr::Call(name, args) => {
            write!(out, "{name}(")?;
            list(out, args, indent)?;
            out.push(')');
        }
        Expr::Fused(f) => fused(out, &f.form, indent)?,
    }
    Ok(())
}

/// `scanomap(op, z, f, arrays)` or `classes(array, key, n, [{classes}: fold(op, z, value) |
/// value, ...])`.
fn fused(out: &mut String, form: &FusedForm, indent: usize) -> fmt::Result {
    match form {
        FusedForm::Scanomap {
            op,
            identity,
            f,
            arrays,
        } => {
            out.push_str("scanomap(");
            reduce_op(out, op, indent)?;
            out.push_str(", ");
            expr(out, identity, indent)?;
            out.push_str(", ");
            lambda(out, f, indent)?;
            write!(out, ", {})", arrays.join(", "))
        }
        FusedForm::ScatterProgressions {
            dest,
            progressions,
            value,
        } => call(
            out,
            "scatter_progressions",
            &[dest, progressions, value],
            indent,
        ),
        FusedForm::Classes(c) => {
            write!(out, "classes({}, ", c.array)?;
            lambda(out, &c.key, indent)?;
            write!(out, ", {}, [", c.classes)?;
            for (i, o) in c.outs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let cs: Vec<String> = o.classes.iter().map(ToString::to_string).collect();
                write!(out, "{{{}}}: ", cs.join(", "))?;
                if let Some((op, z)) = &o.fold {
                    out.push_str("fold(");
                    reduce_op(out, op, indent)?;
                    out.push_str(", ");
                    expr(out, z, indent)?;
                    out.push_str(", ");
                    lambda(out, &o.value, indent)?;
                    out.push(')');
                } else {
                    lambda(out, &o.value, indent)?;
                }
            }
            out.push_str("])");
            Ok(())
        }
    }
}

fn reduce_op(out: &mut String, op: &crate::ir::ReduceOp, indent: usize) -> fmt::Result {
    match op {
        crate::ir::ReduceOp::Lambda(l) => lambda(out, l, indent),
        other => write!(out, "{other}"),
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        expr(&mut s, self, 0)?;
        f.write_str(&s)
    }
}

impl fmt::Display for Lambda {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        lambda(&mut s, self, 0)?;
        f.write_str(&s)
    }
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fn {}(", self.name)?;
        for (i, (n, t)) in self.params.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{n}: {t}")?;
        }
        let mut s = String::new();
        expr(&mut s, &self.body, 2)?;
        writeln!(f, ") -> {} =\n  {s}", self.ret)
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, func) in self.functions.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{func}")?;
        }
        Ok(())
    }
}
