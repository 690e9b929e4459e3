//! Scalar operator trees: which IR nodes the executor evaluates as ONE expression-machine
//! program over all lanes (literals, unary, binary and ternary operators, and `if`s whose
//! branches cannot fail, as selects), and the expression tree of such a node. The executor
//! (`flatten`) compiles these trees as it meets them, the fallibility analysis (`fallible`)
//! reads an `if` that becomes a select as one tree, and `native` lists the same trees ahead of
//! time for the native kernels. Each function walks the tree once (linear in its nodes).

use crate::check::{Types, node_key};
use crate::ir::{BinaryOp, Expr};
use flatland_runtime::expr;

/// Whether `e` is an `if` on scalars whose branches are trees of operators that cannot fail:
/// evaluating both branches on every lane is then unobservable, and the `if` becomes the
/// expression machine's `select` instead of packing lanes.
pub(crate) fn selectable(types: &Types, e: &Expr) -> bool {
    fn pure(e: &Expr) -> bool {
        match e {
            Expr::Lit(_) | Expr::Var(_) => true,
            Expr::Unary(_, a) => pure(a),
            Expr::Binary(op, a, b) => !op.can_fail() && pure(a) && pure(b),
            Expr::Ternary(op, a, b, c) => !op.can_fail() && pure(a) && pure(b) && pure(c),
            _ => false,
        }
    }
    match e {
        Expr::If(_, a, b) => {
            types
                .get(&node_key(e))
                .is_some_and(|t| t.scalar().is_some())
                && pure(a)
                && pure(b)
        }
        _ => false,
    }
}

/// The expression-machine tree of the scalar operator tree rooted at `e` (literals, unary,
/// binary and ternary operators, `if`s that become selects), with every other node under it appended to
/// `inputs` in evaluation order: input `k` of the tree is the lifted value of `inputs[k]`.
pub(crate) fn scalar_shape<'e>(
    types: &Types,
    e: &'e Expr,
    inputs: &mut Vec<&'e Expr>,
) -> expr::ColumnExpr {
    match e {
        Expr::Lit(s) => expr::ColumnExpr::constant(*s),
        Expr::If(c, a, b) if selectable(types, e) => {
            let c = scalar_shape(types, c, inputs);
            let a = scalar_shape(types, a, inputs);
            let b = scalar_shape(types, b, inputs);
            c.select(a, b)
        }
        Expr::Unary(op, a) => scalar_shape(types, a, inputs).unary(*op),
        Expr::Binary(op, a, b) => {
            let x = scalar_shape(types, a, inputs);
            let y = scalar_shape(types, b, inputs);
            x.binary(*op, y)
        }
        Expr::Ternary(op, a, b, c) => {
            let x = scalar_shape(types, a, inputs);
            let y = scalar_shape(types, b, inputs);
            let z = scalar_shape(types, c, inputs);
            x.ternary(*op, y, z)
        }
        other => {
            inputs.push(other);
            expr::ColumnExpr::input(inputs.len() - 1)
        }
    }
}

/// `x0 op x1`: one step of a built-in reduction or scan, over pairs of lanes.
pub(crate) fn pair_tree(op: BinaryOp) -> expr::ColumnExpr {
    expr::ColumnExpr::input(0).binary(op, expr::ColumnExpr::input(1))
}
