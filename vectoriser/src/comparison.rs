//! Predicates that compare an element with one operand (`|x| x < p`, `|x| p == x`): their
//! form read off the IR, and the class table of a filter whose predicates are all such
//! comparisons with the same operand.
//!
//! Used by the sibling-filters rule (`fuse::siblings`: filters whose comparisons exclude each
//! other become one filter) and by the executor's comparison keys
//! (`kernels::compare_keys`: the class of every element from one comparison with its lane's
//! operand, with no expression-machine program and no repeated operand column).

use crate::ir::{BinaryOp, Expr, Lambda};

/// A predicate of one parameter that compares the element (the parameter, or a `let`
/// renaming of it) with `operand` (a literal, or a variable bound outside the predicate):
/// true for the outcomes in `accepts` (bits [`LESS`], [`EQUAL`], [`GREATER`], [`UNORDERED`]
/// of the element against the operand). Such a predicate cannot fail.
#[derive(Debug, PartialEq)]
pub(crate) struct Comparison {
    pub(crate) operand: Expr,
    pub(crate) accepts: u8,
}

/// The element is less than the operand.
pub(crate) const LESS: u8 = 1;
/// The element equals the operand.
pub(crate) const EQUAL: u8 = 2;
/// The element is greater than the operand.
pub(crate) const GREATER: u8 = 4;
/// The element and the operand are unordered (a float NaN on either side).
pub(crate) const UNORDERED: u8 = 8;

/// The outcomes for which `element op operand` is true.
fn accepts(op: BinaryOp) -> Option<u8> {
    Some(match op {
        BinaryOp::Lt => LESS,
        BinaryOp::Le => LESS | EQUAL,
        BinaryOp::Eq => EQUAL,
        BinaryOp::Ne => LESS | GREATER | UNORDERED,
        BinaryOp::Gt => GREATER,
        BinaryOp::Ge => GREATER | EQUAL,
        _ => return None,
    })
}

/// The outcomes of `operand op element` seen from the element: less and greater swap.
fn mirrored(outcomes: u8) -> u8 {
    let less = if outcomes & LESS != 0 { GREATER } else { 0 };
    let greater = if outcomes & GREATER != 0 { LESS } else { 0 };
    less | greater | (outcomes & (EQUAL | UNORDERED))
}

impl Comparison {
    /// `p` as a comparison of its one parameter with an operand, if it is one.
    pub(crate) fn of(p: &Lambda) -> Option<Comparison> {
        let [(param, _)] = p.params.as_slice() else {
            return None;
        };
        // The names the element goes by: the parameter and its renamings.
        let mut element = vec![param.as_str()];
        let mut body = &*p.body;
        while let Expr::Let(name, value, rest) = body {
            match &**value {
                Expr::Var(v) if element.contains(&v.as_str()) => element.push(name),
                _ => return None,
            }
            body = rest;
        }
        let Expr::Binary(op, a, b) = body else {
            return None;
        };
        let is_element = |e: &Expr| matches!(e, Expr::Var(v) if element.contains(&v.as_str()));
        // The operand: a literal, or a variable bound outside the predicate.
        let is_operand = |e: &Expr| {
            matches!(e, Expr::Lit(_)) || matches!(e, Expr::Var(v) if !element.contains(&v.as_str()))
        };
        let outcomes = accepts(*op)?;
        if is_element(a) && is_operand(b) {
            Some(Comparison {
                operand: (**b).clone(),
                accepts: outcomes,
            })
        } else if is_operand(a) && is_element(b) {
            Some(Comparison {
                operand: (**a).clone(),
                accepts: mirrored(outcomes),
            })
        } else {
            None
        }
    }

    /// Whether no element satisfies both (a NaN operand literal compares unequal to itself,
    /// so it never counts as the same operand).
    pub(crate) fn excludes(&self, other: &Comparison) -> bool {
        self.operand == other.operand && self.accepts & other.accepts == 0
    }
}

/// The if-elif predicates `ps` of a filter as comparisons with one operand, and the class of
/// each outcome: entry `o` is the class (the first predicate true, `ps.len()` for none) of an
/// element whose comparison with the operand has outcome `o` (0 less, 1 equal, 2 greater,
/// 3 unordered; [`outcome`]). `None` unless every predicate is a [`Comparison`] with the same
/// operand.
pub(crate) fn class_table(ps: &[Lambda]) -> Option<(Expr, [u8; 4])> {
    let cmps: Vec<Comparison> = ps.iter().map(Comparison::of).collect::<Option<_>>()?;
    let operand = cmps.first()?.operand.clone();
    if cmps.iter().any(|c| c.operand != operand) || ps.len() > usize::from(u8::MAX) {
        return None;
    }
    let mut table = [0u8; 4];
    for (o, class) in table.iter_mut().enumerate() {
        let first = cmps.iter().position(|c| c.accepts & (1 << o) != 0);
        *class = u8::try_from(first.unwrap_or(ps.len())).ok()?;
    }
    Some((operand, table))
}

/// The outcome of comparing an element with an operand: 0 less, 1 equal, 2 greater,
/// 3 unordered (the bit of [`LESS`], [`EQUAL`], [`GREATER`], [`UNORDERED`]), without a branch.
pub(crate) trait Outcome: Copy {
    fn outcome(self, p: Self) -> usize;
}

impl Outcome for i64 {
    #[inline]
    fn outcome(self, p: i64) -> usize {
        2 * usize::from(self > p) + usize::from(self == p)
    }
}

impl Outcome for f64 {
    #[inline]
    fn outcome(self, p: f64) -> usize {
        3 - 3 * usize::from(self < p) - 2 * usize::from(self == p) - usize::from(self > p)
    }
}

/// [`Outcome::outcome`] of `x` against `p`.
#[inline]
pub(crate) fn outcome<T: Outcome>(x: T, p: T) -> usize {
    x.outcome(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(body: Expr) -> Option<Comparison> {
        Comparison::of(&Lambda::new(&["e"], body))
    }

    fn v(n: &str) -> Expr {
        Expr::var(n)
    }

    #[test]
    fn comparisons_are_read_from_either_side_and_through_renamings() {
        let lt = cmp(Expr::binary(BinaryOp::Lt, v("e"), v("p"))).unwrap();
        assert_eq!((lt.operand.clone(), lt.accepts), (v("p"), LESS));
        // `p > e` is `e < p`.
        let gt = cmp(Expr::binary(BinaryOp::Gt, v("p"), v("e"))).unwrap();
        assert_eq!(gt, lt);
        let renamed = cmp(Expr::let_(
            "x",
            v("e"),
            Expr::binary(BinaryOp::Ge, v("x"), Expr::i64(3)),
        ))
        .unwrap();
        assert_eq!(renamed.accepts, GREATER | EQUAL);
        assert_eq!(mirrored(LESS | EQUAL), GREATER | EQUAL);
        assert_eq!(mirrored(UNORDERED | GREATER), UNORDERED | LESS);
    }

    #[test]
    fn other_predicates_are_not_comparisons() {
        // The element on both sides, an operand computed, an arithmetic operator, a `let`
        // that computes.
        assert!(cmp(Expr::binary(BinaryOp::Lt, v("e"), v("e"))).is_none());
        assert!(cmp(Expr::binary(BinaryOp::Lt, v("e"), v("p") + Expr::i64(1))).is_none());
        assert!(cmp(Expr::binary(BinaryOp::Add, v("e"), v("p"))).is_none());
        assert!(
            cmp(Expr::let_(
                "x",
                v("e") + Expr::i64(1),
                Expr::binary(BinaryOp::Lt, v("x"), v("p"))
            ))
            .is_none()
        );
    }

    #[test]
    fn exclusion_needs_one_operand_and_disjoint_outcomes() {
        let c = |op, operand| cmp(Expr::binary(op, v("e"), operand)).unwrap();
        let p = || v("p");
        assert!(c(BinaryOp::Lt, p()).excludes(&c(BinaryOp::Eq, p())));
        assert!(c(BinaryOp::Lt, p()).excludes(&c(BinaryOp::Ge, p())));
        assert!(c(BinaryOp::Eq, p()).excludes(&c(BinaryOp::Ne, p())));
        assert!(!c(BinaryOp::Le, p()).excludes(&c(BinaryOp::Ge, p())));
        // `!=` accepts a NaN element, so it overlaps `<` and `>`.
        assert!(!c(BinaryOp::Ne, p()).excludes(&c(BinaryOp::Gt, p())));
        assert!(!c(BinaryOp::Lt, p()).excludes(&c(BinaryOp::Gt, v("q"))));
        let nan = || Expr::f64(f64::NAN);
        assert!(!c(BinaryOp::Lt, nan()).excludes(&c(BinaryOp::Gt, nan())));
    }

    #[test]
    fn the_class_table_is_the_first_predicate_true_for_each_outcome() {
        let p = |op| Lambda::new(&["e"], Expr::binary(op, v("e"), v("p")));
        // Quicksort's three parts: a NaN element is in none of them.
        let (operand, t) =
            class_table(&[p(BinaryOp::Lt), p(BinaryOp::Eq), p(BinaryOp::Gt)]).unwrap();
        assert_eq!((operand, t), (v("p"), [0, 1, 2, 3]));
        // Overlapping predicates: the first one true wins, as in the filter.
        let (_, t) = class_table(&[p(BinaryOp::Le), p(BinaryOp::Ne)]).unwrap();
        assert_eq!(t, [0, 0, 1, 1]);
        // Two operands, or a predicate that is not a comparison: no table.
        let q = Lambda::new(&["e"], Expr::binary(BinaryOp::Lt, v("e"), v("q")));
        assert!(class_table(&[p(BinaryOp::Lt), q]).is_none());
        assert!(class_table(&[]).is_none());
        for (x, y, o) in [
            (1.0, 2.0, 0),
            (2.0, 2.0, 1),
            (3.0, 2.0, 2),
            (f64::NAN, 2.0, 3),
        ] {
            assert_eq!(outcome(x, y), o);
        }
        assert_eq!(
            [outcome(-1, 0), outcome(0, 0), outcome(i64::MAX, 0)],
            [0, 1, 2]
        );
    }
}
