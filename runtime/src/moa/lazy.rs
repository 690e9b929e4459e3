//! Elementwise expressions over arrays, eager by default and lazy on request (an expression engine
//! with the eager default of Python's array libraries).
//!
//! `+ - * /` between arrays (or an array and a scalar of its element type) and the methods
//! `lt, le, gt, ge, eq_elem, ne_elem` and [`select`] return an [`ArrayExpr`]. Outside
//! [`lazy`], the operation is evaluated at once (the `ArrayExpr` holds its result). Inside
//! `lazy(|| ...)` (a switch on the calling thread, read when each operation is built) it holds an
//! expression tree over the input arrays instead; [`ArrayExpr::materialize`] then compiles the
//! whole tree to one [`expr::CompiledExpr`](crate::expr::CompiledExpr) and evaluates it fused, block by
//! block: no intermediate array is allocated, only the result. Both modes run every operation
//! through the same machine, so they give the same bits.
//!
//! Shapes follow MoA scalar extension: equal shapes, or a scalar (shape `[]`) operand extended to
//! the other's shape. A shape mismatch or a failing operation (integer division by zero) is a
//! typed error returned by `materialize`; an error stays in the expression that contains it.
//!
//! ```
//! use flatland_runtime::moa::{Array, lazy};
//! let a = Array::vector(vec![1.0, 2.0, 3.0]);
//! let b = Array::vector(vec![4.0, 5.0, 6.0]);
//! let eager = (&a + &b) * 2.0;
//! assert!(!eager.is_deferred());
//! let fused = lazy(|| (&a + &b) * 2.0);
//! assert!(fused.is_deferred());
//! assert_eq!(fused.materialize().unwrap(), eager.materialize().unwrap());
//! ```

use std::cell::Cell;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::ops::{Add, Div, Mul, Sub};

use super::array::{Array, shape_error};
use super::buffer;
use crate::expr::{
    BinaryOp, ColumnExpr, ColumnMut, ColumnRef, CompiledExpr, Node, Scalar, ScalarType,
};
use crate::{Error, Result};

thread_local! {
    /// How many `lazy` scopes are open on this thread.
    static LAZY: Cell<usize> = const { Cell::new(0) };
}

/// Runs `f` with lazy elementwise expressions on the calling thread: array operations built
/// inside `f` defer their evaluation until [`ArrayExpr::materialize`]. Scopes nest; the switch is
/// restored when `f` returns or panics. Operations built on other threads (rayon tasks started
/// in `f`) stay eager.
///
/// ```
/// use flatland_runtime::moa::{Array, is_lazy, lazy};
/// assert!(!is_lazy());
/// let x = Array::vector(vec![1i64, 2]);
/// let e = lazy(|| { assert!(is_lazy()); &x * &x + 1 });
/// assert!(!is_lazy());
/// assert_eq!(e.materialize().unwrap().as_slice(), &[2, 5]);
/// ```
pub fn lazy<R>(f: impl FnOnce() -> R) -> R {
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            LAZY.with(|l| l.set(l.get() - 1));
        }
    }
    LAZY.with(|l| l.set(l.get() + 1));
    let _restore = Restore;
    f()
}

/// Whether operations built now on this thread are lazy (inside [`lazy`]).
///
/// ```
/// assert!(flatland_runtime::moa::lazy(flatland_runtime::moa::is_lazy));
/// ```
pub fn is_lazy() -> bool {
    LAZY.with(Cell::get) > 0
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for i64 {}
    impl Sealed for f64 {}
    impl Sealed for bool {}
}

/// An element type of the expression machine: `i64`, `f64` or `bool`.
///
/// ```
/// use flatland_runtime::{expr::ScalarType, moa::Elem};
/// assert_eq!(<f64 as Elem>::TYPE, ScalarType::F64);
/// ```
pub trait Elem: sealed::Sealed + Copy + Default + Send + Sync + 'static {
    /// The machine's type.
    const TYPE: ScalarType;
    /// The value as a machine constant.
    fn scalar(self) -> Scalar;
    /// The array as an input of an expression.
    #[doc(hidden)]
    fn leaf(a: &Array<Self>) -> Leaf;
    /// A borrowed output column.
    #[doc(hidden)]
    fn column_mut(xs: &mut [Self]) -> ColumnMut<'_>;
    /// The array of a leaf of this element type.
    #[doc(hidden)]
    fn unleaf(leaf: &Leaf) -> Option<Array<Self>>;
}

/// The arithmetic element types, `i64` and `f64`.
///
/// ```
/// fn double<T: flatland_runtime::moa::Num>(a: &flatland_runtime::moa::Array<T>) -> flatland_runtime::moa::ArrayExpr<T> {
///     a + a
/// }
/// assert_eq!(double(&flatland_runtime::moa::Array::scalar(2i64)).materialize().unwrap().as_slice(), &[4]);
/// ```
pub trait Num: Elem {}
impl Num for i64 {}
impl Num for f64 {}

/// An input array of an expression, whatever its element type.
#[doc(hidden)]
#[derive(Clone, Debug)]
pub enum Leaf {
    /// `i64` elements.
    I64(Array<i64>),
    /// `f64` elements.
    F64(Array<f64>),
    /// `bool` elements.
    Bool(Array<bool>),
}

impl Leaf {
    fn column(&self) -> ColumnRef<'_> {
        match self {
            Leaf::I64(a) => ColumnRef::I64(a.as_slice()),
            Leaf::F64(a) => ColumnRef::F64(a.as_slice()),
            Leaf::Bool(a) => ColumnRef::Bool(a.as_slice()),
        }
    }

    fn ty(&self) -> ScalarType {
        self.column().ty()
    }

    /// Whether both leaves are the same elements of the same buffer (one input column).
    fn same(&self, other: &Leaf) -> bool {
        fn same_array<T>(a: &Array<T>, b: &Array<T>) -> bool {
            a.shape() == b.shape() && std::ptr::eq(a.as_slice(), b.as_slice())
        }
        match (self, other) {
            (Leaf::I64(a), Leaf::I64(b)) => same_array(a, b),
            (Leaf::F64(a), Leaf::F64(b)) => same_array(a, b),
            (Leaf::Bool(a), Leaf::Bool(b)) => same_array(a, b),
            _ => false,
        }
    }
}

macro_rules! elem {
    ($t:ty, $ty:ident, $leaf:ident) => {
        impl Elem for $t {
            const TYPE: ScalarType = ScalarType::$ty;
            fn scalar(self) -> Scalar {
                Scalar::from(self)
            }
            fn leaf(a: &Array<Self>) -> Leaf {
                Leaf::$leaf(a.clone())
            }
            fn column_mut(xs: &mut [Self]) -> ColumnMut<'_> {
                ColumnMut::$leaf(xs)
            }
            fn unleaf(leaf: &Leaf) -> Option<Array<Self>> {
                match leaf {
                    Leaf::$leaf(a) => Some(a.clone()),
                    _ => None,
                }
            }
        }
    };
}
elem!(i64, I64, I64);
elem!(f64, F64, F64);
elem!(bool, Bool, Bool);

/// A deferred expression: a tree whose `Input(k)` reads `leaves[k]`, all of shape `shape`.
#[derive(Clone, Debug)]
struct Deferred {
    shape: Vec<usize>,
    tree: ColumnExpr,
    leaves: Vec<Leaf>,
}

/// The result of an elementwise operation on arrays: an evaluated array (eager mode), a deferred
/// expression (inside [`lazy`]), or the error that building it met. Element type `T`.
///
/// ```
/// use flatland_runtime::moa::{Array, lazy};
/// let a = Array::vector(vec![1i64, 2, 3]);
/// let e = lazy(|| (&a * 10).gt(&a + 15));
/// assert_eq!(e.materialize().unwrap().as_slice(), &[false, true, true]);
/// let bad = &a + &Array::vector(vec![1i64]);
/// assert!(bad.materialize().is_err());
/// ```
#[derive(Clone, Debug)]
pub struct ArrayExpr<T> {
    state: State,
    ty: PhantomData<T>,
}

#[derive(Clone, Debug)]
enum State {
    Ready(Leaf),
    Deferred(Deferred),
    Failed(Error),
}

impl<T: Elem> ArrayExpr<T> {
    fn from_state(state: State) -> Self {
        ArrayExpr {
            state,
            ty: PhantomData,
        }
    }

    /// Whether this is an unevaluated expression (built inside [`lazy`]).
    ///
    /// ```
    /// use flatland_runtime::moa::{Array, lazy};
    /// let a = Array::scalar(1.0);
    /// assert!(lazy(|| &a + 1.0).is_deferred());
    /// assert!(!(&a + 1.0).is_deferred());
    /// ```
    pub fn is_deferred(&self) -> bool {
        matches!(self.state, State::Deferred(_))
    }

    /// The shape of the result, or the error building it met.
    ///
    /// # Errors
    /// The error that building the expression met (a shape mismatch, or in eager mode a failed
    /// evaluation).
    ///
    /// ```
    /// use flatland_runtime::moa::{Array, lazy};
    /// let a = Array::filled(vec![2, 3], 1.0).unwrap();
    /// assert_eq!(lazy(|| &a * 2.0).shape().unwrap(), vec![2, 3]);
    /// ```
    pub fn shape(&self) -> Result<Vec<usize>> {
        match &self.state {
            State::Ready(leaf) => Ok(match leaf {
                Leaf::I64(a) => a.shape().to_vec(),
                Leaf::F64(a) => a.shape().to_vec(),
                Leaf::Bool(a) => a.shape().to_vec(),
            }),
            State::Deferred(d) => Ok(d.shape.clone()),
            State::Failed(e) => Err(e.clone()),
        }
    }

    /// Evaluates the expression (all of it, fused, in one pass that allocates only the result) or
    /// returns the array already evaluated. Works in both modes.
    ///
    /// # Errors
    /// [`Error::Shape`] for operands whose shapes differ (neither a scalar),
    /// [`Error::DivisionByZero`] (naming the lowest failing lane) for integer division by zero.
    ///
    /// ```
    /// use flatland_runtime::{Error, moa::{Array, lazy}};
    /// let a = Array::vector(vec![6i64, 7]);
    /// let z = Array::vector(vec![1i64, 0]);
    /// let e = lazy(|| &a / &z + 1);
    /// assert!(matches!(e.materialize(), Err(Error::DivisionByZero { lane: 1, .. })));
    /// ```
    pub fn materialize(&self) -> Result<Array<T>> {
        match &self.state {
            State::Ready(leaf) => {
                Ok(T::unleaf(leaf).expect("an ArrayExpr's type parameter is its result type"))
            }
            State::Deferred(d) => evaluate(d),
            State::Failed(e) => Err(e.clone()),
        }
    }
}

fn evaluate<T: Elem>(d: &Deferred) -> Result<Array<T>> {
    let types: Vec<ScalarType> = d.leaves.iter().map(Leaf::ty).collect();
    let program = CompiledExpr::compile(&d.tree, &types)?;
    let n: usize = d.shape.iter().product();
    let columns: Vec<ColumnRef<'_>> = d.leaves.iter().map(Leaf::column).collect();
    let mut out = buffer::filled(n, &T::default());
    let slots = std::sync::Arc::get_mut(&mut out).expect("a fresh buffer is unique");
    program.eval_into(&columns, T::column_mut(slots))?;
    Ok(Array::from_arc(d.shape.clone(), out))
}

/// An operand of an elementwise operation: an array, an expression, or a scalar of the element
/// type (extended to the other operand's shape).
///
/// ```
/// use flatland_runtime::moa::{Array, IntoArrayExpr};
/// let e = 2.5.into_array_expr();
/// assert_eq!(e.materialize().unwrap(), Array::scalar(2.5));
/// ```
pub trait IntoArrayExpr<T> {
    /// The operand as an expression.
    fn into_array_expr(self) -> ArrayExpr<T>;
}

impl<T: Elem> IntoArrayExpr<T> for T {
    fn into_array_expr(self) -> ArrayExpr<T> {
        Array::scalar(self).into_array_expr()
    }
}

impl<T: Elem> IntoArrayExpr<T> for &Array<T> {
    fn into_array_expr(self) -> ArrayExpr<T> {
        ArrayExpr::from_state(State::Ready(T::leaf(self)))
    }
}

impl<T: Elem> IntoArrayExpr<T> for Array<T> {
    fn into_array_expr(self) -> ArrayExpr<T> {
        (&self).into_array_expr()
    }
}

impl<T: Elem> IntoArrayExpr<T> for ArrayExpr<T> {
    fn into_array_expr(self) -> ArrayExpr<T> {
        self
    }
}

impl<T: Elem> IntoArrayExpr<T> for &ArrayExpr<T> {
    fn into_array_expr(self) -> ArrayExpr<T> {
        self.clone()
    }
}

/// An operand as a tree over its own leaves, with its shape.
fn operand(state: State) -> Result<Deferred> {
    match state {
        State::Failed(e) => Err(e),
        State::Deferred(d) => Ok(d),
        State::Ready(leaf) => {
            let (shape, scalar) = match &leaf {
                Leaf::I64(a) => (
                    a.shape().to_vec(),
                    a.is_scalar().then(|| Scalar::from(a.as_slice()[0])),
                ),
                Leaf::F64(a) => (
                    a.shape().to_vec(),
                    a.is_scalar().then(|| Scalar::from(a.as_slice()[0])),
                ),
                Leaf::Bool(a) => (
                    a.shape().to_vec(),
                    a.is_scalar().then(|| Scalar::from(a.as_slice()[0])),
                ),
            };
            Ok(match scalar {
                // A scalar is a constant of the machine, extended to every lane.
                Some(s) => Deferred {
                    shape,
                    tree: ColumnExpr::constant(s),
                    leaves: Vec::new(),
                },
                None => Deferred {
                    shape,
                    tree: ColumnExpr::input(0),
                    leaves: vec![leaf],
                },
            })
        }
    }
}

/// Rebuilds `tree` with input `k` read from `map[k]`, keeping shared subtrees shared.
fn renumber(
    tree: &ColumnExpr,
    map: &[usize],
    memo: &mut HashMap<*const Node, ColumnExpr>,
) -> ColumnExpr {
    let key: *const Node = tree.node();
    if let Some(e) = memo.get(&key) {
        return e.clone();
    }
    let e = match tree.node() {
        Node::Input(k) => ColumnExpr::input(map[*k]),
        Node::Const(_) | Node::Iota { .. } => tree.clone(),
        Node::Unary(op, a) => ColumnExpr::new(Node::Unary(*op, renumber(a, map, memo))),
        Node::Binary(op, a, b) => ColumnExpr::new(Node::Binary(
            *op,
            renumber(a, map, memo),
            renumber(b, map, memo),
        )),
        Node::Select(c, a, b) => ColumnExpr::new(Node::Select(
            renumber(c, map, memo),
            renumber(a, map, memo),
            renumber(b, map, memo),
        )),
        Node::Ternary(op, a, b, c) => ColumnExpr::new(Node::Ternary(
            *op,
            renumber(a, map, memo),
            renumber(b, map, memo),
            renumber(c, map, memo),
        )),
    };
    memo.insert(key, e.clone());
    e
}

/// Builds `build(trees)` over the operands: checks and extends shapes, merges the leaves (an
/// array used twice is one input), then evaluates at once unless the thread is lazy.
fn combine<U: Elem>(
    op: &'static str,
    operands: Vec<State>,
    build: impl FnOnce(Vec<ColumnExpr>) -> ColumnExpr,
) -> ArrayExpr<U> {
    let built = (|| {
        let operands: Vec<Deferred> = operands.into_iter().map(operand).collect::<Result<_>>()?;
        // Scalars (shape []) extend; every other operand must have one shape. A scalar-shaped
        // operand has no input column (its leaves are constants), so it is the same in every lane.
        let mut shape: Option<&[usize]> = None;
        for d in operands.iter().filter(|d| !d.shape.is_empty()) {
            match shape {
                Some(s) if s != d.shape.as_slice() => {
                    return Err(shape_error(
                        op,
                        format!(
                            "shapes {s:?} and {:?} differ and neither is a scalar",
                            d.shape
                        ),
                    ));
                }
                _ => shape = Some(&d.shape),
            }
        }
        let shape = shape.unwrap_or(&[]).to_vec();
        let mut leaves: Vec<Leaf> = Vec::new();
        let mut trees = Vec::with_capacity(operands.len());
        for d in &operands {
            let map: Vec<usize> = d
                .leaves
                .iter()
                .map(|leaf| {
                    leaves.iter().position(|l| l.same(leaf)).unwrap_or_else(|| {
                        leaves.push(leaf.clone());
                        leaves.len() - 1
                    })
                })
                .collect();
            let identity = map.iter().enumerate().all(|(i, &k)| i == k);
            trees.push(if identity {
                d.tree.clone()
            } else {
                renumber(&d.tree, &map, &mut HashMap::new())
            });
        }
        Ok(Deferred {
            shape,
            tree: build(trees),
            leaves,
        })
    })();
    let state = match built {
        Err(e) => State::Failed(e),
        Ok(d) if is_lazy() => State::Deferred(d),
        Ok(d) => match evaluate::<U>(&d) {
            Ok(a) => State::Ready(U::leaf(&a)),
            Err(e) => State::Failed(e),
        },
    };
    ArrayExpr::from_state(state)
}

fn binary<T: Elem, U: Elem>(op: BinaryOp, lhs: ArrayExpr<T>, rhs: ArrayExpr<T>) -> ArrayExpr<U> {
    combine(op.name(), vec![lhs.state, rhs.state], |mut t| {
        let b = t.pop().expect("two operands");
        let a = t.pop().expect("two operands");
        a.binary(op, b)
    })
}

/// `select(cond, then, otherwise)` elementwise: `then` where `cond` is true, else `otherwise`
/// (scalars extend to the others' shape).
///
/// ```
/// use flatland_runtime::moa::{Array, select};
/// let x = Array::vector(vec![-1.0, 2.0, -3.0]);
/// let abs = select(x.lt(0.0), -1.0 * &x, &x);
/// assert_eq!(abs.materialize().unwrap().as_slice(), &[1.0, 2.0, 3.0]);
/// ```
pub fn select<T: Elem>(
    cond: impl IntoArrayExpr<bool>,
    then: impl IntoArrayExpr<T>,
    otherwise: impl IntoArrayExpr<T>,
) -> ArrayExpr<T> {
    let operands = vec![
        cond.into_array_expr().state,
        then.into_array_expr().state,
        otherwise.into_array_expr().state,
    ];
    combine("select", operands, |mut t| {
        let b = t.pop().expect("three operands");
        let a = t.pop().expect("three operands");
        t.pop().expect("three operands").select(a, b)
    })
}

macro_rules! arith {
    ($($trait:ident $method:ident $op:ident;)*) => {$(
        impl<T: Num, R: IntoArrayExpr<T>> $trait<R> for &Array<T> {
            type Output = ArrayExpr<T>;
            fn $method(self, rhs: R) -> ArrayExpr<T> {
                binary(BinaryOp::$op, self.into_array_expr(), rhs.into_array_expr())
            }
        }
        impl<T: Num, R: IntoArrayExpr<T>> $trait<R> for Array<T> {
            type Output = ArrayExpr<T>;
            fn $method(self, rhs: R) -> ArrayExpr<T> {
                binary(BinaryOp::$op, self.into_array_expr(), rhs.into_array_expr())
            }
        }
        impl<T: Num, R: IntoArrayExpr<T>> $trait<R> for ArrayExpr<T> {
            type Output = ArrayExpr<T>;
            fn $method(self, rhs: R) -> ArrayExpr<T> {
                binary(BinaryOp::$op, self, rhs.into_array_expr())
            }
        }
        impl<T: Num, R: IntoArrayExpr<T>> $trait<R> for &ArrayExpr<T> {
            type Output = ArrayExpr<T>;
            fn $method(self, rhs: R) -> ArrayExpr<T> {
                binary(BinaryOp::$op, self.clone(), rhs.into_array_expr())
            }
        }
        impl $trait<&Array<f64>> for f64 {
            type Output = ArrayExpr<f64>;
            fn $method(self, rhs: &Array<f64>) -> ArrayExpr<f64> {
                binary(BinaryOp::$op, self.into_array_expr(), rhs.into_array_expr())
            }
        }
        impl $trait<&Array<i64>> for i64 {
            type Output = ArrayExpr<i64>;
            fn $method(self, rhs: &Array<i64>) -> ArrayExpr<i64> {
                binary(BinaryOp::$op, self.into_array_expr(), rhs.into_array_expr())
            }
        }
    )*};
}

arith! {
    Add add Add;
    Sub sub Sub;
    Mul mul Mul;
    Div div Div;
}

macro_rules! comparisons {
    ($($(#[$doc:meta])* $name:ident $op:ident;)*) => {
        impl<T: Num> Array<T> {
            $(
                $(#[$doc])*
                pub fn $name(&self, rhs: impl IntoArrayExpr<T>) -> ArrayExpr<bool> {
                    binary(BinaryOp::$op, self.into_array_expr(), rhs.into_array_expr())
                }
            )*
        }
        impl<T: Num> ArrayExpr<T> {
            $(
                $(#[$doc])*
                pub fn $name(&self, rhs: impl IntoArrayExpr<T>) -> ArrayExpr<bool> {
                    binary(BinaryOp::$op, self.clone(), rhs.into_array_expr())
                }
            )*
        }
    };
}

comparisons! {
    /// Elementwise `<` (a `bool` array).
    ///
    /// ```
    /// let a = flatland_runtime::moa::Array::vector(vec![1, 5]);
    /// assert_eq!(a.lt(3).materialize().unwrap().as_slice(), &[true, false]);
    /// ```
    lt Lt;
    /// Elementwise `<=`.
    ///
    /// ```
    /// let a = flatland_runtime::moa::Array::vector(vec![1, 3]);
    /// assert_eq!(a.le(3).materialize().unwrap().as_slice(), &[true, true]);
    /// ```
    le Le;
    /// Elementwise `>`.
    ///
    /// ```
    /// let a = flatland_runtime::moa::Array::vector(vec![1.0, 5.0]);
    /// assert_eq!(a.gt(3.0).materialize().unwrap().as_slice(), &[false, true]);
    /// ```
    gt Gt;
    /// Elementwise `>=`.
    ///
    /// ```
    /// let a = flatland_runtime::moa::Array::vector(vec![1.0, 3.0]);
    /// assert_eq!(a.ge(3.0).materialize().unwrap().as_slice(), &[false, true]);
    /// ```
    ge Ge;
    /// Elementwise `==` (IEEE: NaN is not equal to itself).
    ///
    /// ```
    /// let a = flatland_runtime::moa::Array::vector(vec![1.0, f64::NAN]);
    /// assert_eq!(a.eq_elem(&a).materialize().unwrap().as_slice(), &[true, false]);
    /// ```
    eq_elem Eq;
    /// Elementwise `!=`.
    ///
    /// ```
    /// let a = flatland_runtime::moa::Array::vector(vec![1, 2]);
    /// assert_eq!(a.ne_elem(2).materialize().unwrap().as_slice(), &[true, false]);
    /// ```
    ne_elem Ne;
}

impl Array<bool> {
    /// `select(self, then, otherwise)`: see [`select`].
    ///
    /// ```
    /// use flatland_runtime::moa::Array;
    /// let c = Array::vector(vec![true, false]);
    /// assert_eq!(c.select(1i64, 2i64).materialize().unwrap().as_slice(), &[1, 2]);
    /// ```
    pub fn select<T: Elem>(
        &self,
        then: impl IntoArrayExpr<T>,
        otherwise: impl IntoArrayExpr<T>,
    ) -> ArrayExpr<T> {
        select(self, then, otherwise)
    }
}

impl ArrayExpr<bool> {
    /// `select(self, then, otherwise)`: see [`select`].
    ///
    /// ```
    /// use flatland_runtime::moa::{Array, lazy};
    /// let x = Array::vector(vec![3i64, -4]);
    /// let relu = lazy(|| x.gt(0).select(&x, 0));
    /// assert_eq!(relu.materialize().unwrap().as_slice(), &[3, 0]);
    /// ```
    pub fn select<T: Elem>(
        &self,
        then: impl IntoArrayExpr<T>,
        otherwise: impl IntoArrayExpr<T>,
    ) -> ArrayExpr<T> {
        select(self, then, otherwise)
    }
}
