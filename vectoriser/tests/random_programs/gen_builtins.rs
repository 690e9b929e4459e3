//! The generator's math operators (`exp` ... `is_nan`, `powi`, `pow`, the Euclidean operators,
//! `std`'s NaN-ignoring `min`/`max`, `mul_add`, `clamp`), drawn from the runtime's operator table so that every
//! operator it lists is generated; `sort` / `argsort`; and the selection operations of
//! `flatland_vectoriser::derived` (`any`, `all`, `count`, `argmin`, `argmax`, `rev`, `take`,
//! `skip`, `sort_by_key`).

use super::{B, Env, Expr, G, Type, UnaryOp, arr};
use flatland_vectoriser::derived;
use flatland_vectoriser::ir::{ScalarType, SortOp, TernaryOp};

impl G {
    /// A math operator producing `t`, on operands of the generator's own choosing. Integer
    /// operands that could fail are made safe (`b | 1` divisors, exponents in `0..16`), as
    /// `scalar_op` does for division.
    pub(super) fn math_op(&mut self, t: &Type, env: &Env, d: u32) -> Expr {
        match t {
            Type::Bool => {
                let op = *self.pick(&[UnaryOp::IsNan, UnaryOp::IsFinite, UnaryOp::IsInfinite]);
                Expr::unary(op, self.expr(&Type::F64, env, d))
            }
            Type::I64 => match self.rng.below(5) {
                4 => self.clamp(t, env, d),
                0 => {
                    let ops: Vec<UnaryOp> = unary_ops(ScalarType::I64);
                    let op = *self.pick(&ops);
                    Expr::unary(op, self.expr(t, env, d))
                }
                1 => {
                    let e = Expr::binary(B::BitAnd, self.expr(t, env, d), Expr::i64(15));
                    Expr::binary(B::Pow, self.expr(t, env, d), e)
                }
                2 => {
                    let op = *self.pick(&[B::RemEuclid, B::DivEuclid]);
                    let den = Expr::binary(B::BitOr, self.expr(t, env, d), Expr::i64(1));
                    Expr::binary(op, self.expr(t, env, d), den)
                }
                _ => {
                    let op = *self.pick(&[B::MinNum, B::MaxNum]);
                    Expr::binary(op, self.expr(t, env, d), self.expr(t, env, d))
                }
            },
            _ => match self.rng.below(5) {
                4 if self.rng.chance(50) => self.clamp(t, env, d),
                4 => Expr::ternary(
                    TernaryOp::MulAdd,
                    self.expr(t, env, d),
                    self.expr(t, env, d),
                    self.expr(t, env, d),
                ),
                0 | 1 => {
                    let ops: Vec<UnaryOp> = unary_ops(ScalarType::F64);
                    let op = *self.pick(&ops);
                    Expr::unary(op, self.expr(t, env, d))
                }
                2 => {
                    let n = Expr::binary(B::Rem, self.expr(&Type::I64, env, d), Expr::i64(9));
                    Expr::binary(B::Powi, self.expr(t, env, d), n)
                }
                _ => {
                    let op = *self.pick(&[
                        B::Powf,
                        B::Atan2,
                        B::Hypot,
                        B::Copysign,
                        B::RemEuclid,
                        B::DivEuclid,
                        B::MinNum,
                        B::MaxNum,
                    ]);
                    Expr::binary(op, self.expr(t, env, d), self.expr(t, env, d))
                }
            },
        }
    }
}

impl G {
    /// `x.clamp(lo, hi)` with bounds put in order (`min` and `max` of two drawn values), so
    /// that most lanes succeed; a NaN bound still fails, as in `std`.
    fn clamp(&mut self, t: &Type, env: &Env, d: u32) -> Expr {
        let x = self.expr(t, env, d);
        let (a, b) = (self.expr(t, env, d), self.expr(t, env, d));
        let lo = Expr::binary(B::Min, a.clone(), b.clone());
        let hi = Expr::binary(B::Max, a, b);
        Expr::ternary(TernaryOp::Clamp, x, lo, hi)
    }

    /// A scalar of type `t` computed by a selection operation over a generated array.
    pub(super) fn select_scalar(&mut self, t: &Type, env: &Env, d: u32) -> Expr {
        let el = self.pick(&[Type::I64, Type::F64, Type::Bool]).clone();
        let a = self.expr(&arr(el.clone()), env, d);
        match t {
            Type::Bool => {
                let p = self.lambda(std::slice::from_ref(&el), &Type::Bool, env, d);
                if self.rng.chance(50) {
                    derived::any(p, a)
                } else {
                    derived::all(p, a)
                }
            }
            Type::I64 => match self.rng.below(3) {
                0 => {
                    let p = self.lambda(std::slice::from_ref(&el), &Type::Bool, env, d);
                    derived::count(p, a)
                }
                k => {
                    let num = self.pick(&[Type::I64, Type::F64]).clone();
                    let a = self.expr(&arr(num.clone()), env, d);
                    let best = if k == 1 {
                        derived::argmin(a, &num)
                    } else {
                        derived::argmax(a, &num)
                    };
                    best.expect("numbers")
                }
            },
            _ => {
                // The element at the argmax of a float array, or 0 when it is empty.
                let a = self.expr(&arr(Type::F64), env, d);
                let i = derived::argmax(Expr::var("__g_sel"), &Type::F64).expect("numbers");
                let at = Expr::index(Expr::var("__g_sel"), i.clone());
                Expr::let_(
                    "__g_sel",
                    a,
                    Expr::if_(i.lt(Expr::i64(0)), Expr::f64(0.0), at),
                )
            }
        }
    }

    /// An array of `e` made by `sort` / `argsort`, `rev`, `take`, `skip` or `sort_by_key`.
    pub(super) fn select_array(&mut self, e: &Type, env: &Env, d: u32) -> Expr {
        let a = self.expr(&arr(e.clone()), env, d);
        match self.rng.below(5) {
            0 if matches!(e, Type::I64 | Type::F64) => Expr::sort(SortOp::Values, a),
            0 if *e == Type::I64 => {
                let num = self.pick(&[Type::I64, Type::F64]).clone();
                Expr::sort(SortOp::Indices, self.expr(&arr(num), env, d))
            }
            1 => derived::rev(a),
            2 => {
                let n = self.expr(&Type::I64, env, d);
                derived::take(a, n)
            }
            3 => {
                let n = self.expr(&Type::I64, env, d);
                derived::skip(a, n)
            }
            _ => {
                let kt = self.pick(&[Type::I64, Type::F64]).clone();
                let k = self.lambda(std::slice::from_ref(e), &kt, env, d);
                derived::sort_by_key(k, a)
            }
        }
    }
}

/// The unary operators from `t` to `t` other than the casts.
fn unary_ops(t: ScalarType) -> Vec<UnaryOp> {
    UnaryOp::ALL
        .into_iter()
        .filter(|o| !matches!(o, UnaryOp::Cast(_)) && o.result_type(t) == Some(t))
        .collect()
}

#[cfg(test)]
#[test]
fn the_generator_draws_every_math_and_sort_operator() {
    let mut text = String::new();
    for seed in 0..2000 {
        text.push_str(&super::program(seed, 5).to_string());
    }
    let mut missing: Vec<&str> = UnaryOp::ALL
        .into_iter()
        .filter(|o| !matches!(o, UnaryOp::Cast(_)) && o.name().len() > 3)
        .map(UnaryOp::name)
        .chain(
            [B::Powf, B::Powi, B::Atan2, B::Hypot, B::Copysign, B::Pow]
                .into_iter()
                .chain([B::RemEuclid, B::DivEuclid, B::MinNum, B::MaxNum])
                .map(B::name),
        )
        .chain(TernaryOp::ALL.into_iter().map(TernaryOp::name))
        .filter(|name| !text.contains(&format!("{name}(")))
        .collect();
    missing.sort_unstable();
    assert!(
        missing.is_empty(),
        "math operators never generated: {missing:?}"
    );
}
