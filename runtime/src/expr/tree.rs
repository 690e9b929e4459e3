//! Expression trees: what the user (the vectoriser, MoA's lazy arrays) builds before compiling.
//!
//! An [`ColumnExpr`] is an immutable node behind an `Arc`, so cloning is cheap and a cloned subtree is
//! *shared*: the compiler evaluates a shared node once per block (common subexpressions are kept,
//! not recomputed). Types are checked when the tree is compiled into a
//! [`CompiledExpr`](super::CompiledExpr), which names the offending node.

use super::op::{BinaryOp, Scalar, ScalarType, TernaryOp, UnaryOp};
use std::fmt;
use std::sync::Arc;

/// One node of an expression tree.
///
/// ```
/// use flatland_runtime::expr::{ColumnExpr, Node};
/// assert!(matches!(ColumnExpr::input(2).node(), Node::Input(2)));
/// ```
#[derive(Clone, Debug)]
pub enum Node {
    /// The element of input column `k` at the current lane.
    Input(usize),
    /// A constant, the same in every lane.
    Const(Scalar),
    /// The index generator: `start + step * lane` (wrapping `i64`), `lane` counting from 0.
    Iota {
        /// The value at lane 0.
        start: i64,
        /// The increment per lane.
        step: i64,
    },
    /// A unary operator (or cast) applied to a subexpression.
    Unary(UnaryOp, ColumnExpr),
    /// A binary operator applied to two subexpressions.
    Binary(BinaryOp, ColumnExpr, ColumnExpr),
    /// `select(cond, then, else)`: `then` where `cond` is true, else `else`.
    Select(ColumnExpr, ColumnExpr, ColumnExpr),
    /// A ternary operator applied to three subexpressions.
    Ternary(TernaryOp, ColumnExpr, ColumnExpr, ColumnExpr),
}

/// An elementwise expression over input columns (a tree; clones share subtrees).
///
/// The arithmetic operators of Rust (`+ - * / % & | ^ << >>`, unary `-`) build the corresponding
/// [`BinaryOp`] / [`UnaryOp`] nodes; the other operators are methods.
///
/// ```
/// use flatland_runtime::expr::{ColumnExpr, ColumnRef};
/// let x = ColumnExpr::input(0);
/// let e = (x.clone() * x + ColumnExpr::constant(16.0)).sqrt();
/// let out = e.eval(&[ColumnRef::F64(&[0.0, 3.0])], 2).unwrap();
/// assert_eq!(out.as_f64().unwrap(), &[4.0, 5.0]);
/// ```
#[derive(Clone)]
pub struct ColumnExpr(Arc<Node>);

impl ColumnExpr {
    /// Wraps a node.
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnExpr, Node};
    /// let e = ColumnExpr::new(Node::Input(0));
    /// assert!(matches!(e.node(), Node::Input(0)));
    /// ```
    pub fn new(node: Node) -> ColumnExpr {
        ColumnExpr(Arc::new(node))
    }

    /// The node at the root.
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnExpr, Node};
    /// assert!(matches!(ColumnExpr::index().node(), Node::Iota { start: 0, step: 1 }));
    /// ```
    pub fn node(&self) -> &Node {
        &self.0
    }

    /// Whether two handles share one node (so the compiler evaluates it once).
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnExpr;
    /// let a = ColumnExpr::input(0);
    /// assert!(a.ptr_eq(&a.clone()) && !a.ptr_eq(&ColumnExpr::input(0)));
    /// ```
    pub fn ptr_eq(&self, other: &ColumnExpr) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    pub(super) fn id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// The element of input column `k`.
    ///
    /// ```
    /// let x = flatland_runtime::expr::ColumnExpr::input(0);
    /// assert_eq!(x.to_string(), "x0");
    /// ```
    pub fn input(k: usize) -> ColumnExpr {
        ColumnExpr::new(Node::Input(k))
    }

    /// A constant (`i64`, `f64`, `bool` or a [`Scalar`]).
    ///
    /// ```
    /// let c = flatland_runtime::expr::ColumnExpr::constant(2i64);
    /// assert_eq!(c.to_string(), "2");
    /// ```
    pub fn constant(value: impl Into<Scalar>) -> ColumnExpr {
        ColumnExpr::new(Node::Const(value.into()))
    }

    /// The lane index as an `i64` (`0, 1, 2, ...`).
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnExpr;
    /// let out = ColumnExpr::index().eval(&[], 3).unwrap();
    /// assert_eq!(out.as_i64().unwrap(), &[0, 1, 2]);
    /// ```
    pub fn index() -> ColumnExpr {
        ColumnExpr::iota(0, 1)
    }

    /// The index generator `start + step * lane` (wrapping).
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnExpr;
    /// let out = ColumnExpr::iota(10, -2).eval(&[], 3).unwrap();
    /// assert_eq!(out.as_i64().unwrap(), &[10, 8, 6]);
    /// ```
    pub fn iota(start: i64, step: i64) -> ColumnExpr {
        ColumnExpr::new(Node::Iota { start, step })
    }

    /// Applies a unary operator.
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnExpr, UnaryOp};
    /// assert_eq!(ColumnExpr::input(0).unary(UnaryOp::Abs).to_string(), "abs(x0)");
    /// ```
    pub fn unary(self, op: UnaryOp) -> ColumnExpr {
        ColumnExpr::new(Node::Unary(op, self))
    }

    /// Applies a binary operator.
    ///
    /// ```
    /// use flatland_runtime::expr::{BinaryOp, ColumnExpr};
    /// let e = ColumnExpr::input(0).binary(BinaryOp::Max, ColumnExpr::input(1));
    /// assert_eq!(e.to_string(), "max(x0, x1)");
    /// ```
    pub fn binary(self, op: BinaryOp, rhs: ColumnExpr) -> ColumnExpr {
        ColumnExpr::new(Node::Binary(op, self, rhs))
    }

    /// Applies a ternary operator.
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnRef, ColumnExpr, TernaryOp};
    /// let e = ColumnExpr::input(0).ternary(TernaryOp::Clamp, ColumnExpr::constant(0i64), ColumnExpr::constant(9i64));
    /// assert_eq!(e.to_string(), "clamp(x0, 0, 9)");
    /// let out = e.eval(&[ColumnRef::I64(&[-3, 4, 12])], 3).unwrap();
    /// assert_eq!(out.as_i64().unwrap(), &[0, 4, 9]);
    /// ```
    pub fn ternary(self, op: TernaryOp, b: ColumnExpr, c: ColumnExpr) -> ColumnExpr {
        ColumnExpr::new(Node::Ternary(op, self, b, c))
    }

    /// `select(self, then, otherwise)`: `then` where `self` is true, else `otherwise`.
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnRef, ColumnExpr};
    /// let x = ColumnExpr::input(0);
    /// let e = x.clone().lt(ColumnExpr::constant(0i64)).select(-x.clone(), x);
    /// let out = e.eval(&[ColumnRef::I64(&[-3, 4])], 2).unwrap();
    /// assert_eq!(out.as_i64().unwrap(), &[3, 4]);
    /// ```
    pub fn select(self, then: ColumnExpr, otherwise: ColumnExpr) -> ColumnExpr {
        ColumnExpr::new(Node::Select(self, then, otherwise))
    }

    /// Conversion to `ty` ([`UnaryOp::Cast`]).
    ///
    /// ```
    /// use flatland_runtime::expr::{ColumnExpr, ScalarType};
    /// assert_eq!(ColumnExpr::index().cast(ScalarType::F64).to_string(), "cast_f64(iota(0, 1))");
    /// ```
    pub fn cast(self, ty: ScalarType) -> ColumnExpr {
        self.unary(UnaryOp::Cast(ty))
    }
}

macro_rules! unary_methods {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {
        impl ColumnExpr {
            $(
                $(#[$doc])*
                pub fn $name(self) -> ColumnExpr {
                    self.unary(UnaryOp::$op)
                }
            )*
        }
    };
}

unary_methods! {
    /// Absolute value. `ColumnExpr::input(0).abs()`
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::ColumnExpr::input(0).abs().to_string(), "abs(x0)");
    /// ```
    abs => Abs;
    /// Square root (`f64`).
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::ColumnExpr::input(0).sqrt().to_string(), "sqrt(x0)");
    /// ```
    sqrt => Sqrt;
    /// Logical not (`bool`).
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::ColumnExpr::input(0).logical_not().to_string(), "not(x0)");
    /// ```
    logical_not => Not;
    /// Bitwise not (`i64`).
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::ColumnExpr::input(0).bit_not().to_string(), "bit_not(x0)");
    /// ```
    bit_not => BitNot;
}

macro_rules! binary_methods {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {
        impl ColumnExpr {
            $(
                $(#[$doc])*
                pub fn $name(self, rhs: ColumnExpr) -> ColumnExpr {
                    self.binary(BinaryOp::$op, rhs)
                }
            )*
        }
    };
}

binary_methods! {
    /// Floor division (see [`BinaryOp::FloorDiv`]).
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnExpr;
    /// assert_eq!(ColumnExpr::input(0).floor_div(ColumnExpr::input(1)).to_string(), "floor_div(x0, x1)");
    /// ```
    floor_div => FloorDiv;
    /// Modulo with the sign of the divisor (see [`BinaryOp::Mod`]).
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnExpr;
    /// assert_eq!(ColumnExpr::input(0).modulo(ColumnExpr::input(1)).to_string(), "mod(x0, x1)");
    /// ```
    modulo => Mod;
    /// Minimum.
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnExpr;
    /// assert_eq!(ColumnExpr::input(0).min(ColumnExpr::input(1)).to_string(), "min(x0, x1)");
    /// ```
    min => Min;
    /// Maximum.
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnExpr;
    /// assert_eq!(ColumnExpr::input(0).max(ColumnExpr::input(1)).to_string(), "max(x0, x1)");
    /// ```
    max => Max;
    /// `==`.
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnExpr;
    /// assert_eq!(ColumnExpr::input(0).eq(ColumnExpr::input(1)).to_string(), "eq(x0, x1)");
    /// ```
    eq => Eq;
    /// `!=`.
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnExpr;
    /// assert_eq!(ColumnExpr::input(0).ne(ColumnExpr::input(1)).to_string(), "ne(x0, x1)");
    /// ```
    ne => Ne;
    /// `<`.
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnExpr;
    /// assert_eq!(ColumnExpr::input(0).lt(ColumnExpr::input(1)).to_string(), "lt(x0, x1)");
    /// ```
    lt => Lt;
    /// `<=`.
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnExpr;
    /// assert_eq!(ColumnExpr::input(0).le(ColumnExpr::input(1)).to_string(), "le(x0, x1)");
    /// ```
    le => Le;
    /// `>`.
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnExpr;
    /// assert_eq!(ColumnExpr::input(0).gt(ColumnExpr::input(1)).to_string(), "gt(x0, x1)");
    /// ```
    gt => Gt;
    /// `>=`.
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnExpr;
    /// assert_eq!(ColumnExpr::input(0).ge(ColumnExpr::input(1)).to_string(), "ge(x0, x1)");
    /// ```
    ge => Ge;
    /// Logical and (`bool`).
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnExpr;
    /// assert_eq!(ColumnExpr::input(0).and(ColumnExpr::input(1)).to_string(), "and(x0, x1)");
    /// ```
    and => And;
    /// Logical or (`bool`).
    ///
    /// ```
    /// use flatland_runtime::expr::ColumnExpr;
    /// assert_eq!(ColumnExpr::input(0).or(ColumnExpr::input(1)).to_string(), "or(x0, x1)");
    /// ```
    or => Or;
}

macro_rules! std_ops {
    ($($trait:ident $method:ident => $op:ident;)*) => {
        $(
            impl std::ops::$trait for ColumnExpr {
                type Output = ColumnExpr;
                fn $method(self, rhs: ColumnExpr) -> ColumnExpr {
                    self.binary(BinaryOp::$op, rhs)
                }
            }
        )*
    };
}

std_ops! {
    Add add => Add;
    Sub sub => Sub;
    Mul mul => Mul;
    Div div => Div;
    Rem rem => Rem;
    BitAnd bitand => BitAnd;
    BitOr bitor => BitOr;
    BitXor bitxor => BitXor;
    Shl shl => Shl;
    Shr shr => Shr;
}

impl std::ops::Neg for ColumnExpr {
    type Output = ColumnExpr;
    fn neg(self) -> ColumnExpr {
        self.unary(UnaryOp::Neg)
    }
}

/// Moves the children of a node out when this handle is its last owner.
fn take_children(node: &mut Arc<Node>, out: &mut Vec<ColumnExpr>) {
    if let Some(n) = Arc::get_mut(node) {
        match std::mem::replace(n, Node::Input(0)) {
            Node::Input(_) | Node::Const(_) | Node::Iota { .. } => {}
            Node::Unary(_, a) => out.push(a),
            Node::Binary(_, a, b) => out.extend([a, b]),
            Node::Select(c, a, b) => out.extend([c, a, b]),
            Node::Ternary(_, a, b, c) => out.extend([a, b, c]),
        }
    }
}

/// Drops a tree with an explicit work list, so a very deep expression does not overflow the
/// native stack.
impl Drop for ColumnExpr {
    fn drop(&mut self) {
        let mut stack = Vec::new();
        take_children(&mut self.0, &mut stack);
        while let Some(mut e) = stack.pop() {
            take_children(&mut e.0, &mut stack);
        }
    }
}

/// Nodes deeper than this are printed as `...` (error messages stay short).
const SHOW_DEPTH: usize = 4;

fn show(e: &ColumnExpr, depth: usize, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if depth > SHOW_DEPTH {
        return f.write_str("...");
    }
    match e.node() {
        Node::Input(k) => write!(f, "x{k}"),
        Node::Const(c) => write!(f, "{c}"),
        Node::Iota { start, step } => write!(f, "iota({start}, {step})"),
        Node::Unary(op, a) => {
            write!(f, "{op}(")?;
            show(a, depth + 1, f)?;
            f.write_str(")")
        }
        Node::Binary(op, a, b) => {
            write!(f, "{op}(")?;
            show(a, depth + 1, f)?;
            f.write_str(", ")?;
            show(b, depth + 1, f)?;
            f.write_str(")")
        }
        Node::Select(c, a, b) => call(f, "select", [c, a, b], depth),
        Node::Ternary(op, a, b, c) => call(f, op.name(), [a, b, c], depth),
    }
}

/// `name(a, b, c)`, the operands one level deeper.
fn call(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    args: [&ColumnExpr; 3],
    depth: usize,
) -> fmt::Result {
    write!(f, "{name}(")?;
    for (k, a) in args.into_iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        show(a, depth + 1, f)?;
    }
    f.write_str(")")
}

/// Prints the expression in prefix form (`add(x0, mul(x1, 2.0))`), subtrees deeper than four
/// levels as `...`.
impl fmt::Display for ColumnExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        show(self, 0, f)
    }
}

impl fmt::Debug for ColumnExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
