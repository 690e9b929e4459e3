//! The gathers a map's lanes make at the elements of their rows: `v[c]` for the elements `c`
//! of a lane's row of an array of arrays (smvm's `x * v[c]` over a sparse row's columns).
//! Per-lane code asks for them lanes ahead where they go to memory
//! (`lane::prefetch_row_gathers`, decided once per map by `lane::gathers_pay`).

use flatland_vectoriser::ir::{Expr, Lambda, for_each_node};

/// The arrays that `f`'s body indexes by an element of its parameter `row`, an element bound
/// by a map or fused reduction over `row` (alone or zipped with other arrays), each once in
/// the order found, kept where `free` says the array is one the lanes read from scope. A
/// name that an inner binding hides may be taken for the element: the result only decides
/// which loads are asked for early, never what is computed.
pub(crate) fn gathered_by(f: &Lambda, row: &str, free: impl Fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    maps_over(&f.body, row, &mut |elem, body| {
        indexed_by(body, elem, &mut |p| {
            if p != row && p != elem && free(p) && !out.iter().any(|q| q == p) {
                out.push(p.to_string());
            }
        });
    });
    out
}

/// Calls `found(elem, body)` for every map or fused reduction in `e` whose lambda binds
/// `elem` to the elements of the array variable `row`.
fn maps_over<'e>(e: &'e Expr, row: &str, found: &mut impl FnMut(&'e str, &'e Expr)) {
    for_each_node(e, &mut |e| {
        if let Expr::Map(g, arrays) | Expr::Redomap(_, _, g, arrays) = e {
            for (a, (elem, _)) in arrays.iter().zip(&g.params) {
                if matches!(a, Expr::Var(r) if r == row) {
                    found(elem, &g.body);
                }
            }
        }
    });
}

/// Calls `found(p)` for every `p[elem]` in `e` whose array is a variable.
fn indexed_by<'e>(e: &'e Expr, elem: &str, found: &mut impl FnMut(&'e str)) {
    for_each_node(e, &mut |e| {
        if let Expr::Index(a, i) = e
            && let (Expr::Var(p), Expr::Var(x)) = (&**a, &**i)
            && x == elem
        {
            found(p);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::gathered_by;
    use flatland_vectoriser::ir::{Expr, Lambda, ReduceOp, Type};
    use std::sync::Arc;

    fn var(n: &str) -> Expr {
        Expr::Var(n.to_string())
    }

    /// `|cs, xs| reduce(+, 0, map(|c, x| x * v[c], cs, xs))`, smvm's lane.
    fn smvm_lane() -> Lambda {
        let product = Lambda {
            params: vec![("c".into(), None), ("x".into(), None)],
            body: Arc::new(Expr::Binary(
                flatland_vectoriser::ir::BinaryOp::Mul,
                Arc::new(var("x")),
                Arc::new(Expr::Index(Arc::new(var("v")), Arc::new(var("c")))),
            )),
        };
        let arr = |t| Some(Type::Array(Box::new(t)));
        Lambda {
            params: vec![("cs".into(), arr(Type::I64)), ("xs".into(), arr(Type::F64))],
            body: Arc::new(Expr::Reduce(
                ReduceOp::Add,
                Arc::new(Expr::Lit(flatland_vectoriser::ir::Scalar::F64(0.0))),
                Arc::new(Expr::Map(product, vec![var("cs"), var("xs")])),
            )),
        }
    }

    #[test]
    fn finds_a_gather_at_the_elements_of_a_row() {
        let f = smvm_lane();
        assert_eq!(gathered_by(&f, "cs", |_| true), vec!["v".to_string()]);
        // Not at the elements of the other array, nor from an array the lanes do not read
        // from scope.
        assert!(gathered_by(&f, "xs", |_| true).is_empty());
        assert!(gathered_by(&f, "cs", |p| p != "v").is_empty());
    }
}
