//! Scalar operator trees: which IR nodes the executor evaluates as ONE expression-machine
//! program over all lanes (literals, unary, binary and ternary operators, and `if`s whose
//! branches cannot fail, as selects), and the expression tree of such a node. The executor
//! (`flatten`) compiles these trees as it meets them, the fallibility analysis (`fallible`)
//! reads an `if` that becomes a select as one tree, and `native` lists the same trees ahead of
//! time for the native kernels. Each function walks the tree once (linear in its nodes).

use crate::check::{Types, node_key};
use crate::ir::{BinaryOp, Expr, Program, ScalarType, for_each_node};
use flatland_runtime::cost::{Branches, Machine};
use flatland_runtime::expr;

/// The per-lane work of the branches of `e` when `e` is an `if` on scalars whose branches are
/// trees of operators that cannot fail (`f64` division included): evaluating both branches on
/// every lane is then unobservable, and the `if` may become the expression machine's `select`
/// instead of packing lanes ([`selectable`]).
pub(crate) fn if_branches(types: &Types, e: &Expr) -> Option<Branches> {
    /// Work and input variables of a branch, when it cannot fail.
    fn branch<'e>(types: &Types, e: &'e Expr, inputs: &mut Vec<&'e str>) -> Option<f64> {
        Some(match e {
            Expr::Lit(_) => 0.0,
            Expr::Var(n) => {
                if !inputs.contains(&n.as_str()) {
                    inputs.push(n);
                }
                0.0
            }
            Expr::Unary(op, a) => op.work() + branch(types, a, inputs)?,
            Expr::Binary(op, a, b) => {
                let float = || matches!(scalar_of(types, a), Some(ScalarType::F64));
                if op.can_fail() && !float() {
                    return None;
                }
                op.work() + branch(types, a, inputs)? + branch(types, b, inputs)?
            }
            Expr::Ternary(op, a, b, c) if !op.can_fail() => {
                op.work()
                    + branch(types, a, inputs)?
                    + branch(types, b, inputs)?
                    + branch(types, c, inputs)?
            }
            _ => return None,
        })
    }
    let Expr::If(_, a, b) = e else { return None };
    scalar_of(types, e)?;
    let (mut then_inputs, mut else_inputs) = (Vec::new(), Vec::new());
    Some(Branches {
        then_ops: branch(types, a, &mut then_inputs)?,
        else_ops: branch(types, b, &mut else_inputs)?,
        then_inputs: then_inputs.len(),
        else_inputs: else_inputs.len(),
    })
}

/// Whether the `if` `e` becomes a select: its branches cannot fail ([`if_branches`]) and the
/// cost model predicts the select no slower than packing ([`Machine::select_pays`], on the
/// reference profile, so that a build lists the same expression programs as the run uses).
pub(crate) fn selectable(types: &Types, e: &Expr) -> bool {
    if_branches(types, e).is_some_and(|b| Machine::REFERENCE.select_pays(&b))
}

/// The if-conversion decided for every `if` of `p` whose branches cannot fail, in order, with
/// the cost model's predictions (what [`crate::exec::Prepared::decisions`] reports).
pub(crate) fn if_conversions(p: &Program, types: &Types) -> Vec<String> {
    let mut out = Vec::new();
    for f in &p.functions {
        for_each_node(&f.body, &mut |e| {
            let Some(b) = if_branches(types, e) else {
                return;
            };
            let m = Machine::REFERENCE;
            let (select, pack) = (m.select_ns(&b), m.pack_ns(&b));
            let how = if select <= pack {
                "a select"
            } else {
                "packed lanes"
            };
            let mut text = e.to_string().replace('\n', " ");
            if text.len() > 72 {
                let cut = (0..=69)
                    .rev()
                    .find(|&i| text.is_char_boundary(i))
                    .unwrap_or(0);
                text.truncate(cut);
                text.push_str("...");
            }
            out.push(format!(
                "if-conversion: `{text}` runs as {how} (predicted per lane: select {select:.1} ns, \
                 packing {pack:.1} ns)"
            ));
        });
    }
    out
}

fn scalar_of(types: &Types, e: &Expr) -> Option<ScalarType> {
    types.get(&node_key(e))?.scalar()
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
