//! A concatenation of a map's lanes with other arrays between them, in the per-lane form:
//!
//! ```text
//! let sorted = map(|part| quicksort(part), [less, greater]) in
//! append(append(sorted[0], equal), sorted[1])
//! ```
//!
//! (`[sorted[0], equal, sorted[1]].concat()`: divide and conquer's combine). Emitted as
//! written, the map builds an array of its lanes' results and the concatenation copies them
//! into a new array, at every call of a recursion. The per-lane form instead has each lane
//! append its value to the concatenation's destination (the callee's append form,
//! `append_calls.rs`), the other parts between them (`lane::Ctx::parts_owning_into`), so a
//! recursion writes each element once, into its outermost destination.
//!
//! The form is taken where it changes nothing the program can observe: every lane's value
//! appears once, in lane order, so the lanes still run (and fail) in the map's order, each
//! with its own lane number; the other parts are variables, which cannot fail and are read
//! whichever runs first; the map's result has no other use.

use crate::last_use::{appended, unfused};
use flatland_vectoriser::ir::{Expr, Lambda, Scalar};

/// A part of the concatenation: the value of the map's lane `k`, or another array.
pub(crate) enum Leaf<'e> {
    Lane(usize),
    Other(&'e Expr),
}

/// `let s = map(f, [a_0, .., a_r]) in` an `append` of the parts `s[0]`, .., `s[r]` (each once,
/// in order) and variables other than `s`.
pub(crate) struct MapParts<'e> {
    /// The map's function.
    pub(crate) f: &'e Lambda,
    /// The map's array (the one array literal of its lanes' arrays).
    pub(crate) arrays: &'e [Expr],
    /// The parts, in order.
    pub(crate) parts: Vec<Leaf<'e>>,
}

/// The [`MapParts`] form of `e`, if it has it.
pub(crate) fn map_parts(e: &Expr) -> Option<MapParts<'_>> {
    let Expr::Let(s, x, body) = unfused(e) else {
        return None;
    };
    let Expr::Map(f, arrays) = unfused(x) else {
        return None;
    };
    let [array] = arrays.as_slice() else {
        return None;
    };
    let Expr::ArrayLit(_, lanes) = unfused(array) else {
        return None;
    };
    if !matches!(unfused(body), Expr::Append(..)) {
        return None;
    }
    let mut leaves = Vec::new();
    appended(unfused(body), &mut leaves);
    let mut parts = Vec::with_capacity(leaves.len());
    for leaf in leaves {
        match unfused(leaf) {
            Expr::Index(a, i) if matches!(&**a, Expr::Var(n) if n == s) => {
                let Expr::Lit(Scalar::I64(k)) = &**i else {
                    return None;
                };
                let lane = parts.iter().filter(|p| matches!(p, Leaf::Lane(_))).count();
                // Each lane once, in order.
                if usize::try_from(*k).ok()? != lane {
                    return None;
                }
                parts.push(Leaf::Lane(lane));
            }
            Expr::Var(n) if n != s => parts.push(Leaf::Other(leaf)),
            _ => return None,
        }
    }
    let named = parts.iter().filter(|p| matches!(p, Leaf::Lane(_))).count();
    (named == lanes.len()).then_some(MapParts {
        f,
        arrays: arrays.as_slice(),
        parts,
    })
}

#[cfg(test)]
mod tests {
    use super::{Leaf, map_parts};
    use flatland_vectoriser::ir::{Expr, Lambda, Scalar, Type};
    use std::sync::Arc;

    fn at(s: &str, k: i64) -> Expr {
        Expr::Index(Arc::new(Expr::var(s)), Arc::new(Expr::Lit(Scalar::I64(k))))
    }

    fn append(a: Expr, b: Expr) -> Expr {
        Expr::Append(Arc::new(a), Arc::new(b))
    }

    fn sorted_then(body: Expr) -> Expr {
        let f = Lambda::new(&["p"], Expr::Call("qs".into(), vec![Expr::var("p")]));
        let lanes = Expr::ArrayLit(
            Type::Array(Box::new(Type::I64)),
            vec![Expr::var("less"), Expr::var("greater")],
        );
        Expr::Let(
            "s".into(),
            Arc::new(Expr::Map(f, vec![lanes])),
            Arc::new(body),
        )
    }

    #[test]
    fn quicksorts_combine_is_two_lanes_around_a_variable() {
        let e = sorted_then(append(append(at("s", 0), Expr::var("equal")), at("s", 1)));
        let mp = map_parts(&e).expect("the form");
        let shape: Vec<String> = mp
            .parts
            .iter()
            .map(|p| match p {
                Leaf::Lane(k) => format!("lane {k}"),
                Leaf::Other(x) => format!("{x}"),
            })
            .collect();
        assert_eq!(shape, ["lane 0", "equal", "lane 1"]);
    }

    #[test]
    fn lanes_out_of_order_missing_repeated_or_used_elsewhere_are_not_the_form() {
        for body in [
            append(at("s", 1), at("s", 0)),
            append(at("s", 0), Expr::var("equal")),
            append(append(at("s", 0), at("s", 0)), at("s", 1)),
            append(append(at("s", 0), Expr::var("s")), at("s", 1)),
            append(at("s", 0), Expr::Length(Arc::new(Expr::var("s")))),
            at("s", 0),
        ] {
            assert!(map_parts(&sorted_then(body.clone())).is_none(), "{body}");
        }
    }
}
