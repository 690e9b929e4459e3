//! The scalar math methods of the subset: `x.exp()`, `x.powi(n)`, `a.atan2(b)`, `a.max(b)`,
//! `a.mul_add(b, c)`, `x.clamp(lo, hi)`, ..., each lowered to the runtime operator of the same name
//! (`flatland_runtime::expr::op`), whose result equals the `std` method's.

use super::{Lower, R};
use flatland_vectoriser::ir::{BinaryOp, Expr, TernaryOp, Type, UnaryOp};

/// The unary operators written as methods without arguments (`abs` and `sqrt` included): the
/// method's name is the operator's.
fn unary(name: &str) -> Option<UnaryOp> {
    UnaryOp::ALL
        .into_iter()
        .filter(|op| {
            !matches!(
                op,
                UnaryOp::Cast(_) | UnaryOp::Neg | UnaryOp::Not | UnaryOp::BitNot
            )
        })
        .find(|op| op.name() == name)
}

/// The binary operator of `a.name(b)` for an `a` of type `t`: `min`/`max` follow `std` (on `f64`
/// a NaN operand is ignored), `minimum`/`maximum` are IEEE 754-2019's (NaN propagates).
fn binary(name: &str, t: &Type) -> Option<BinaryOp> {
    use BinaryOp as B;
    Some(match (name, t) {
        ("min", Type::F64) => B::MinNum,
        ("max", Type::F64) => B::MaxNum,
        ("min" | "minimum", _) => B::Min,
        ("max" | "maximum", _) => B::Max,
        ("powf", _) => B::Powf,
        ("powi", _) => B::Powi,
        ("atan2", _) => B::Atan2,
        ("hypot", _) => B::Hypot,
        ("copysign", _) => B::Copysign,
        ("pow", _) => B::Pow,
        ("rem_euclid", _) => B::RemEuclid,
        ("div_euclid", _) => B::DivEuclid,
        _ => return None,
    })
}

/// The ternary operator of `a.name(b, c)`: `mul_add` and `clamp`, as `std` names them.
fn ternary(name: &str) -> Option<TernaryOp> {
    TernaryOp::ALL.into_iter().find(|op| op.name() == name)
}

impl Lower<'_> {
    /// `m` as a math method, or `None` if it is not one (the caller reports it unsupported).
    pub(super) fn math_method(&mut self, m: &syn::ExprMethodCall) -> Option<R<(Expr, Type)>> {
        let name = m.method.to_string();
        match m.args.len() {
            0 => {
                let op = unary(&name)?;
                Some(
                    self.expr(&m.receiver)
                        .and_then(|(a, _)| self.typed(m, Expr::unary(op, a))),
                )
            }
            1 => {
                let go = |me: &mut Self| {
                    let (a, ta) = me.expr(&m.receiver)?;
                    let Some(op) = binary(&name, &ta) else {
                        return Err(super::unsupported(m, &format!("the method `{name}`")));
                    };
                    let (b, _) = me.expr(&m.args[0])?;
                    me.typed(m, Expr::binary(op, a, b))
                };
                binary(&name, &Type::I64)?;
                Some(go(self))
            }
            2 => {
                let op = ternary(&name)?;
                let go = |me: &mut Self| {
                    let (a, _) = me.expr(&m.receiver)?;
                    let (b, _) = me.expr(&m.args[0])?;
                    let (c, _) = me.expr(&m.args[1])?;
                    me.typed(m, Expr::ternary(op, a, b, c))
                };
                Some(go(self))
            }
            _ => None,
        }
    }
}
