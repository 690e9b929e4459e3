//! The vectoriser's intermediate language: a small typed nested data-parallel language
//! (the `ir::Program` of "The pipeline of a program" in `docs/ARCHITECTURE.md`).
//!
//! Programs are trees of [`Expr`] inside top-level [`Function`]s collected in a [`Program`]. The
//! [`crate::dsl`] builds them from Rust closures; [`crate::check`] infers their types and
//! [`crate::eval`] gives them their meaning.
//!
//! ```
//! use flatland_vectoriser::ir::{Expr, Function, Program, Type, ReduceOp};
//! // fn sum(xs: [i64]) -> i64 = reduce(+, 0, xs)
//! let body = Expr::reduce(ReduceOp::Add, Expr::i64(0), Expr::var("xs"));
//! let f = Function::new("sum", vec![("xs".into(), Type::array(Type::I64))], Type::I64, body);
//! let p = Program::new(vec![f]);
//! assert!(p.to_string().contains("reduce(+, 0, xs)"));
//! ```

use std::fmt;
use std::sync::Arc;

/// The scalar operators, constants and scalar types are the runtime's, so the interpreter and
/// the expression machine share one arithmetic semantics ([`flatland_runtime::expr::op`]).
pub use flatland_runtime::expr::op::{BinaryOp, Scalar, ScalarType, TernaryOp, UnaryOp};

/// The most predicates a `filter` may take (15 result classes).
pub const MAX_PREDICATES: usize = 14;

/// The most classes a `partition` may distinguish.
pub const MAX_CLASSES: usize = 15;

/// A type of the IR.
///
/// ```
/// use flatland_vectoriser::ir::Type;
/// let t = Type::array(Type::Tuple(vec![Type::I64, Type::F64]));
/// assert_eq!(t.to_string(), "[(i64, f64)]");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// 64-bit signed integers (also the index type); arithmetic wraps.
    I64,
    /// IEEE double precision.
    F64,
    /// Booleans.
    Bool,
    /// A tuple of values (the unit type is the empty tuple).
    Tuple(Vec<Type>),
    /// An array of elements of any type, arrays included (any depth).
    Array(Box<Type>),
}

impl Type {
    /// The array type with elements of type `elem`.
    ///
    /// ```
    /// use flatland_vectoriser::ir::Type;
    /// assert_eq!(Type::array(Type::I64).to_string(), "[i64]");
    /// ```
    pub fn array(elem: Type) -> Type {
        Type::Array(Box::new(elem))
    }

    /// The element type, if this is an array.
    ///
    /// ```
    /// use flatland_vectoriser::ir::Type;
    /// assert_eq!(Type::array(Type::F64).elem(), Some(&Type::F64));
    /// assert_eq!(Type::F64.elem(), None);
    /// ```
    pub fn elem(&self) -> Option<&Type> {
        match self {
            Type::Array(e) => Some(e),
            _ => None,
        }
    }

    /// The scalar type, if this is `i64`, `f64` or `bool`.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{ScalarType, Type};
    /// assert_eq!(Type::Bool.scalar(), Some(ScalarType::Bool));
    /// assert_eq!(Type::array(Type::Bool).scalar(), None);
    /// ```
    pub fn scalar(&self) -> Option<ScalarType> {
        match self {
            Type::I64 => Some(ScalarType::I64),
            Type::F64 => Some(ScalarType::F64),
            Type::Bool => Some(ScalarType::Bool),
            _ => None,
        }
    }

    /// The IR type of a scalar type.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{ScalarType, Type};
    /// assert_eq!(Type::of_scalar(ScalarType::F64), Type::F64);
    /// ```
    pub fn of_scalar(t: ScalarType) -> Type {
        match t {
            ScalarType::I64 => Type::I64,
            ScalarType::F64 => Type::F64,
            ScalarType::Bool => Type::Bool,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::I64 => write!(f, "i64"),
            Type::F64 => write!(f, "f64"),
            Type::Bool => write!(f, "bool"),
            Type::Array(e) => write!(f, "[{e}]"),
            Type::Tuple(ts) => {
                write!(f, "(")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{t}")?;
                }
                if ts.len() == 1 {
                    write!(f, ",")?;
                }
                write!(f, ")")
            }
        }
    }
}

/// An anonymous function: parameters (types optional, inferred by [`crate::check`]) and a body
/// that may mention free variables of the enclosing scope.
///
/// ```
/// use flatland_vectoriser::ir::{Expr, Lambda};
/// let l = Lambda::new(&["x"], Expr::var("x") * Expr::var("k"));
/// assert_eq!(l.to_string(), "|x| (x * k)");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Lambda {
    /// Parameter names and (optional) annotated types.
    pub params: Vec<(String, Option<Type>)>,
    /// The body.
    pub body: Arc<Expr>,
}

impl Lambda {
    /// A lambda with unannotated parameters.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{Expr, Lambda};
    /// assert_eq!(Lambda::new(&["a", "b"], Expr::var("a")).params.len(), 2);
    /// ```
    pub fn new(params: &[&str], body: Expr) -> Lambda {
        Lambda {
            params: params.iter().map(|p| ((*p).to_string(), None)).collect(),
            body: Arc::new(body),
        }
    }

    /// A lambda with annotated parameters.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{Expr, Lambda, Type};
    /// let l = Lambda::typed(vec![("x".into(), Type::I64)], Expr::var("x"));
    /// assert_eq!(l.to_string(), "|x: i64| x");
    /// ```
    pub fn typed(params: Vec<(String, Type)>, body: Expr) -> Lambda {
        Lambda {
            params: params.into_iter().map(|(n, t)| (n, Some(t))).collect(),
            body: Arc::new(body),
        }
    }
}

/// The associative operator of a `reduce`, `scan` or `redomap`.
///
/// ```
/// use flatland_vectoriser::ir::ReduceOp;
/// assert_eq!(ReduceOp::Min.to_string(), "min");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum ReduceOp {
    /// `+` on `i64` or `f64`.
    Add,
    /// `*` on `i64` or `f64`.
    Mul,
    /// `min` on `i64` or `f64`; on `f64` IEEE 754-2019 `minimum`: a NaN element makes the result
    /// NaN (not Rust's `f64::min`, [`BinaryOp::MinNum`], which skips it), `-0.0 < 0.0`
    /// (`flatland::semantics`).
    Min,
    /// `max` on `i64` or `f64`; on `f64` IEEE 754-2019 `maximum`: a NaN element makes the result
    /// NaN, `-0.0 < 0.0`.
    Max,
    /// `and` on `bool`.
    And,
    /// `or` on `bool`.
    Or,
    /// A user lambda of two parameters; it must be associative (not checked).
    Lambda(Lambda),
}

impl ReduceOp {
    /// The scalar operator of a built-in reduction, `None` for a lambda.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{BinaryOp, ReduceOp};
    /// assert_eq!(ReduceOp::And.bin_op(), Some(BinaryOp::And));
    /// ```
    pub fn bin_op(&self) -> Option<BinaryOp> {
        Some(match self {
            ReduceOp::Add => BinaryOp::Add,
            ReduceOp::Mul => BinaryOp::Mul,
            ReduceOp::Min => BinaryOp::Min,
            ReduceOp::Max => BinaryOp::Max,
            ReduceOp::And => BinaryOp::And,
            ReduceOp::Or => BinaryOp::Or,
            ReduceOp::Lambda(_) => return None,
        })
    }
}

impl fmt::Display for ReduceOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReduceOp::Add => write!(f, "+"),
            ReduceOp::Mul => write!(f, "*"),
            ReduceOp::Min => write!(f, "min"),
            ReduceOp::Max => write!(f, "max"),
            ReduceOp::And => write!(f, "and"),
            ReduceOp::Or => write!(f, "or"),
            ReduceOp::Lambda(l) => write!(f, "{l}"),
        }
    }
}

/// An expression of the IR.
///
/// Children are shared (`Arc`), so cloning an expression is cheap.
///
/// ```
/// use flatland_vectoriser::ir::Expr;
/// let e = Expr::let_("x", Expr::i64(2), Expr::var("x") + Expr::i64(1));
/// assert_eq!(e.to_string(), "let x = 2 in\n(x + 1)");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A variable (let-bound, a lambda or function parameter).
    Var(String),
    /// A scalar constant.
    Lit(Scalar),
    /// A tuple.
    Tuple(Vec<Expr>),
    /// Field `.1` of a tuple.
    Proj(Arc<Expr>, usize),
    /// `let name = value in body`.
    Let(String, Arc<Expr>, Arc<Expr>),
    /// `if cond then a else b` (only the taken branch is evaluated).
    If(Arc<Expr>, Arc<Expr>, Arc<Expr>),
    /// A unary scalar operator.
    Unary(UnaryOp, Arc<Expr>),
    /// A binary scalar operator (both operands evaluated).
    Binary(BinaryOp, Arc<Expr>, Arc<Expr>),
    /// A ternary scalar operator (`mul_add`, `clamp`; every operand evaluated).
    Ternary(TernaryOp, Arc<Expr>, Arc<Expr>, Arc<Expr>),
    /// An array literal with its element type (needed when empty).
    ArrayLit(Type, Vec<Expr>),
    /// `index(array, i)`.
    Index(Arc<Expr>, Arc<Expr>),
    /// `length(array)` as `i64`.
    Length(Arc<Expr>),
    /// `iota(len, start, step)`: `[start, start + step, ..., start + (len - 1) * step]` (wrapping).
    Iota {
        /// Number of elements (a negative length is an error).
        len: Arc<Expr>,
        /// First element.
        start: Arc<Expr>,
        /// Difference between neighbours.
        step: Arc<Expr>,
    },
    /// `replicate(n, x)`: `n` copies of `x` (any type).
    Replicate(Arc<Expr>, Arc<Expr>),
    /// `slice(array, start, len)`.
    Slice(Arc<Expr>, Arc<Expr>, Arc<Expr>),
    /// `append(a, b)`: `a` followed by `b`.
    Append(Arc<Expr>, Arc<Expr>),
    /// `concat(arrays)`: one level of nesting removed.
    Concat(Arc<Expr>),
    /// `scatter(dest, indices, values)`: a copy of `dest` with `dest[indices[j]] = values[j]`,
    /// in increasing `j` (the last index wins on collisions).
    Scatter(Arc<Expr>, Arc<Expr>, Arc<Expr>),
    /// `map(lambda, arrays)`: the lambda applied to the elements of equally long arrays.
    Map(Lambda, Vec<Expr>),
    /// `reduce(op, identity, array)` with the canonical association.
    Reduce(ReduceOp, Arc<Expr>, Arc<Expr>),
    /// `scan(op, identity, array)`: inclusive scan with the canonical association.
    Scan(ReduceOp, Arc<Expr>, Arc<Expr>),
    /// `filter(predicates, array)`: a tuple of `predicates.len() + 1` arrays; element `x` goes to
    /// the first class whose predicate holds, the last class takes the rest (if-elif semantics).
    /// Each class keeps the input order.
    Filter(Vec<Lambda>, Arc<Expr>),
    /// `partition(classes, interest, key, array)`: the lambda computes an `i64` key in
    /// `0..classes` for each element; the result is a tuple of one array per class of
    /// interest (in the order given), each keeping the input order.
    Partition {
        /// The number of classes (keys range over `0..classes`).
        classes: usize,
        /// The classes returned, in this order.
        interest: Vec<usize>,
        /// The key function.
        key: Lambda,
        /// The array partitioned.
        array: Arc<Expr>,
    },
    /// `redomap(op, identity, f, arrays)`: `reduce(op, identity, map(f, arrays))` in one pass.
    Redomap(ReduceOp, Arc<Expr>, Lambda, Vec<Expr>),
    /// `hist(bins, identity, op, indices, values)`: reduction by index, an array of `bins`
    /// values, bin `k` the fold with `op` from `identity` of the `values[j]` whose
    /// `indices[j] == k`, with the canonical block association
    /// ([`flatland_runtime::assoc::hist`]). Indices outside `0..bins` are skipped (documented
    /// semantics, Futhark's rule); a negative `bins` or arrays of different lengths are errors.
    /// The values are scalars.
    Hist {
        /// The number of bins (`i64`).
        bins: Arc<Expr>,
        /// The operator (associative).
        op: ReduceOp,
        /// Every bin's initial value, the operator's identity.
        identity: Arc<Expr>,
        /// The bin of each value (`[i64]`).
        indices: Arc<Expr>,
        /// The values.
        values: Arc<Expr>,
    },
    /// A sequential loop with carried state: the state starts as `init` and each iteration
    /// replaces it with `body` applied to it; the result is the last state. Under `map` each
    /// lane runs its own number of iterations.
    Loop {
        /// The state before the first iteration (any type).
        init: Arc<Expr>,
        /// How many iterations, or while what.
        form: LoopForm,
        /// The next state: `|state, i|` (`i` the iteration, from 0) for [`LoopForm::For`],
        /// `|state|` for [`LoopForm::While`].
        body: Lambda,
    },
    /// A call of a top-level function.
    Call(String, Vec<Expr>),
    /// A fused form built by [`crate::fuse`]: what runs in one pass, with the expression it
    /// stands for (its meaning, and what runs where the single-pass kernel does not apply).
    Fused(Arc<Fused>),
    /// `sort(array)` / `argsort(array)` of an array of `i64` or `f64` ([`SortOp`]).
    Sort(SortOp, Arc<Expr>),
}

/// What [`Expr::Sort`] returns. The order is `i64`'s, or `f64::total_cmp`'s for `f64`
/// (`-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`).
///
/// ```
/// use flatland_vectoriser::ir::{Expr, SortOp};
/// assert_eq!(Expr::sort(SortOp::Indices, Expr::var("xs")).to_string(), "argsort(xs)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SortOp {
    /// The elements in ascending order.
    Values,
    /// The stable sorting permutation: element `k` is the index of the `k`-th smallest element
    /// (equal elements in input order).
    Indices,
}

impl SortOp {
    /// The operation's name: `sort` or `argsort`.
    ///
    /// ```
    /// assert_eq!(flatland_vectoriser::ir::SortOp::Values.name(), "sort");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            SortOp::Values => "sort",
            SortOp::Indices => "argsort",
        }
    }
}

/// How many times an [`Expr::Loop`] runs its body.
///
/// ```
/// use flatland_vectoriser::ir::{Expr, Lambda, LoopForm};
/// let f = LoopForm::While(Lambda::new(&["s"], Expr::var("s").lt(Expr::i64(10))));
/// assert!(matches!(f, LoopForm::While(_)));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum LoopForm {
    /// `count` iterations (an `i64`; none when it is 0 or negative, as `for i in 0..count`).
    For(Arc<Expr>),
    /// Iterations while the predicate `|state| ..` holds of the state (checked before each).
    While(Lambda),
}

/// A fused form and the expression it replaces ([`Expr::Fused`]). [`crate::eval`] and
/// [`crate::check`] read `original`; the executor runs `form` in one pass when its kernel
/// accepts the values, else `original`.
///
/// ```
/// use flatland_vectoriser::ir::{Expr, Fused, FusedForm, Lambda, ReduceOp};
/// let f = Lambda::new(&["x"], Expr::var("x") * Expr::var("x"));
/// let original = Expr::scan(ReduceOp::Add, Expr::i64(0), Expr::map(f.clone(), vec![Expr::var("xs")]));
/// let form = FusedForm::Scanomap { op: ReduceOp::Add, identity: Expr::i64(0), f, arrays: vec!["xs".into()] };
/// let e = Expr::Fused(std::sync::Arc::new(Fused { form, original }));
/// assert_eq!(e.to_string(), "scanomap(+, 0, |x| (x * x), xs)");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Fused {
    /// What runs in one pass.
    pub form: FusedForm,
    /// The expression the form stands for.
    pub original: Expr,
}

/// The single-pass forms of [`Fused`].
///
/// ```
/// use flatland_vectoriser::ir::{Expr, FusedForm, Lambda, ReduceOp};
/// let f = FusedForm::Scanomap { op: ReduceOp::Max, identity: Expr::i64(0), f: Lambda::new(&["x"], Expr::var("x")), arrays: vec!["a".into()] };
/// assert!(matches!(f, FusedForm::Scanomap { .. }));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum FusedForm {
    /// `scan(op, identity, map(f, arrays))` without the array of mapped values (the arrays are
    /// variables; the identity is a literal or a variable).
    Scanomap {
        /// The scan's operator.
        op: ReduceOp,
        /// The scan's identity.
        identity: Expr,
        /// The mapped function.
        f: Lambda,
        /// The mapped arrays (variables).
        arrays: Vec<String>,
    },
    /// A partition fused with the maps, reductions and partitions of its classes (partition-reduce
    /// and the "mega" step, [`crate::fuse`]).
    Classes(Classes),
    /// `let x = concat(map(|p..| .. iota(len, start, step), arrays..)) in scatter(dest, x,
    /// replicate(length(x), value))` without the array of indices: each lane's progression
    /// `(len, start, step)` written straight into the destination
    /// ([`flatland_runtime::fused::scatter_progressions_s`]), in parallel over progressions.
    ScatterProgressions {
        /// The destination (evaluated after the progressions, as in the original).
        dest: Arc<Expr>,
        /// `map(|p..| .. (len, start, step), arrays..)`: the mapped function with its `iota`
        /// replaced by the tuple of its operands.
        progressions: Expr,
        /// The scalar written at every position.
        value: Arc<Expr>,
    },
}

/// One pass over `array` that computes each element's class with `key` and feeds the outputs
/// ([`ClassOut`]): a reduction accumulated by class (partition-reduce), or the packed array of a
/// class (partitioning at the end). The result is a tuple with one value per output.
///
/// ```
/// use flatland_vectoriser::ir::{ClassOut, Classes, Expr, Lambda, ReduceOp};
/// let c = Classes {
///     array: "a".into(),
///     key: Lambda::new(&["x"], Expr::i64(0)),
///     classes: 1,
///     outs: vec![ClassOut { classes: vec![0], value: Lambda::new(&["x"], Expr::var("x")), fold: Some((ReduceOp::Add, Expr::i64(0))) }],
///     explain: String::new(),
/// };
/// assert_eq!(c.outs.len(), 1);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Classes {
    /// The array classified (a variable).
    pub array: String,
    /// The class of an element, in `0..classes` (another key is an error of the original).
    pub key: Lambda,
    /// The number of classes.
    pub classes: usize,
    /// The outputs, in the result tuple's order.
    pub outs: Vec<ClassOut>,
    /// Why the fusion was taken (the cost model's prediction for the "mega" step).
    pub explain: String,
}

/// One output of [`Classes`]: the values `value(x)` of the elements `x` whose class is in
/// `classes`, in input order, reduced by `fold` (operator and identity) or returned as an array.
///
/// ```
/// use flatland_vectoriser::ir::{ClassOut, Expr, Lambda};
/// let o = ClassOut { classes: vec![2], value: Lambda::new(&["x"], Expr::var("x")), fold: None };
/// assert!(o.fold.is_none());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ClassOut {
    /// The classes taken.
    pub classes: Vec<usize>,
    /// The value of an element.
    pub value: Lambda,
    /// The reduction of the values, or `None` for the array of values.
    pub fold: Option<(ReduceOp, Expr)>,
}

macro_rules! ctor {
    ($(#[$m:meta])* $name:ident($($a:ident),*) => $variant:ident) => {
        $(#[$m])*
        pub fn $name($($a: Expr),*) -> Expr {
            Expr::$variant($(Arc::new($a)),*)
        }
    };
}

/// The children of `e` in evaluation order, and its lambdas (applied after all of them): the
/// one walk of the tree every analysis builds on.
///
/// ```
/// use flatland_vectoriser::ir::{children, Expr};
/// let e = Expr::Length(std::sync::Arc::new(Expr::var("xs")));
/// let (exprs, lambdas) = children(&e);
/// assert_eq!((exprs.len(), lambdas.len()), (1, 0));
/// ```
pub fn children(e: &Expr) -> (Vec<&Expr>, Vec<&Lambda>) {
    fn op(op: &ReduceOp) -> Option<&Lambda> {
        match op {
            ReduceOp::Lambda(l) => Some(l),
            _ => None,
        }
    }
    match e {
        Expr::Var(_) | Expr::Lit(_) => (vec![], vec![]),
        Expr::Let(_, v, b) => (vec![&**v, &**b], vec![]),
        Expr::Map(f, arrays) => (arrays.iter().collect(), vec![f]),
        Expr::Reduce(o, z, a) | Expr::Scan(o, z, a) => {
            (vec![&**z, &**a], op(o).into_iter().collect())
        }
        Expr::Redomap(o, z, f, arrays) => (
            std::iter::once(&**z).chain(arrays).collect(),
            std::iter::once(f).chain(op(o)).collect(),
        ),
        Expr::Filter(ps, a) => (vec![&**a], ps.iter().collect()),
        Expr::Loop { init, form, body } => match form {
            LoopForm::For(n) => (vec![&**init, &**n], vec![body]),
            LoopForm::While(c) => (vec![&**init], vec![c, body]),
        },
        Expr::Hist {
            bins,
            op: o,
            identity,
            indices,
            values,
        } => (
            vec![&**bins, &**identity, &**indices, &**values],
            op(o).into_iter().collect(),
        ),
        Expr::Partition { key, array, .. } => (vec![&**array], vec![key]),
        Expr::Tuple(es) | Expr::ArrayLit(_, es) | Expr::Call(_, es) => {
            (es.iter().collect(), vec![])
        }
        Expr::Proj(a, _)
        | Expr::Unary(_, a)
        | Expr::Length(a)
        | Expr::Concat(a)
        | Expr::Sort(_, a) => (vec![&**a], vec![]),
        Expr::Binary(_, a, b) | Expr::Index(a, b) | Expr::Replicate(a, b) | Expr::Append(a, b) => {
            (vec![&**a, &**b], vec![])
        }
        Expr::If(a, b, c)
        | Expr::Slice(a, b, c)
        | Expr::Scatter(a, b, c)
        | Expr::Ternary(_, a, b, c) => (vec![&**a, &**b, &**c], vec![]),
        Expr::Iota { len, start, step } => (vec![&**len, &**start, &**step], vec![]),
        Expr::Fused(f) => (vec![&f.original], vec![]),
    }
}

/// Calls `f` on `e` and on every node under it, lambda bodies included, in preorder: each
/// node before its [`children`], then the bodies of its lambdas.
///
/// ```
/// use flatland_vectoriser::ir::{for_each_node, Expr, Lambda};
/// let e = Expr::map(Lambda::new(&["x"], Expr::var("x")), vec![Expr::var("xs")]);
/// let mut vars = Vec::new();
/// for_each_node(&e, &mut |n| if let Expr::Var(v) = n { vars.push(v.clone()) });
/// assert_eq!(vars, ["xs", "x"]);
/// ```
pub fn for_each_node<'e>(e: &'e Expr, f: &mut impl FnMut(&'e Expr)) {
    f(e);
    let (exprs, lambdas) = children(e);
    for x in exprs {
        for_each_node(x, f);
    }
    for l in lambdas {
        for_each_node(&l.body, f);
    }
}

impl Expr {
    /// A variable.
    ///
    /// ```
    /// assert_eq!(flatland_vectoriser::ir::Expr::var("v").to_string(), "v");
    /// ```
    pub fn var(name: &str) -> Expr {
        Expr::Var(name.to_string())
    }

    /// An `i64` constant.
    ///
    /// ```
    /// assert_eq!(flatland_vectoriser::ir::Expr::i64(-3).to_string(), "-3");
    /// ```
    pub fn i64(v: i64) -> Expr {
        Expr::Lit(Scalar::I64(v))
    }

    /// An `f64` constant.
    ///
    /// ```
    /// assert_eq!(flatland_vectoriser::ir::Expr::f64(2.0).to_string(), "2.0");
    /// ```
    pub fn f64(v: f64) -> Expr {
        Expr::Lit(Scalar::F64(v))
    }

    /// A `bool` constant.
    ///
    /// ```
    /// assert_eq!(flatland_vectoriser::ir::Expr::bool(true).to_string(), "true");
    /// ```
    pub fn bool(v: bool) -> Expr {
        Expr::Lit(Scalar::Bool(v))
    }

    /// `let name = value in body`.
    ///
    /// ```
    /// use flatland_vectoriser::ir::Expr;
    /// assert_eq!(Expr::let_("a", Expr::i64(1), Expr::var("a")).to_string(), "let a = 1 in\na");
    /// ```
    pub fn let_(name: &str, value: Expr, body: Expr) -> Expr {
        Expr::Let(name.to_string(), Arc::new(value), Arc::new(body))
    }

    /// Field `i` of a tuple.
    ///
    /// ```
    /// use flatland_vectoriser::ir::Expr;
    /// assert_eq!(Expr::proj(Expr::var("t"), 1).to_string(), "t.1");
    /// ```
    pub fn proj(tuple: Expr, i: usize) -> Expr {
        Expr::Proj(Arc::new(tuple), i)
    }

    ctor!(
        /// `if c then a else b`.
        ///
        /// ```
        /// use flatland_vectoriser::ir::Expr;
        /// let e = Expr::if_(Expr::bool(true), Expr::i64(1), Expr::i64(2));
        /// assert_eq!(e.to_string(), "if true then 1 else 2");
        /// ```
        if_(c, a, b) => If
    );

    ctor!(
        /// `index(array, i)`.
        ///
        /// ```
        /// use flatland_vectoriser::ir::Expr;
        /// assert_eq!(Expr::index(Expr::var("a"), Expr::i64(0)).to_string(), "a[0]");
        /// ```
        index(array, i) => Index
    );

    ctor!(
        /// `length(array)`.
        ///
        /// ```
        /// use flatland_vectoriser::ir::Expr;
        /// assert_eq!(Expr::length(Expr::var("a")).to_string(), "length(a)");
        /// ```
        length(array) => Length
    );

    ctor!(
        /// `replicate(n, x)`.
        ///
        /// ```
        /// use flatland_vectoriser::ir::Expr;
        /// assert_eq!(Expr::replicate(Expr::i64(3), Expr::var("x")).to_string(), "replicate(3, x)");
        /// ```
        replicate(n, x) => Replicate
    );

    ctor!(
        /// `slice(array, start, len)`.
        ///
        /// ```
        /// use flatland_vectoriser::ir::Expr;
        /// let e = Expr::slice(Expr::var("a"), Expr::i64(1), Expr::i64(2));
        /// assert_eq!(e.to_string(), "slice(a, 1, 2)");
        /// ```
        slice(array, start, len) => Slice
    );

    ctor!(
        /// `append(a, b)`.
        ///
        /// ```
        /// use flatland_vectoriser::ir::Expr;
        /// assert_eq!(Expr::append(Expr::var("a"), Expr::var("b")).to_string(), "append(a, b)");
        /// ```
        append(a, b) => Append
    );

    ctor!(
        /// `concat(arrays)`.
        ///
        /// ```
        /// use flatland_vectoriser::ir::Expr;
        /// assert_eq!(Expr::concat(Expr::var("xss")).to_string(), "concat(xss)");
        /// ```
        concat(arrays) => Concat
    );

    ctor!(
        /// `scatter(dest, indices, values)`.
        ///
        /// ```
        /// use flatland_vectoriser::ir::Expr;
        /// let e = Expr::scatter(Expr::var("d"), Expr::var("i"), Expr::var("v"));
        /// assert_eq!(e.to_string(), "scatter(d, i, v)");
        /// ```
        scatter(dest, indices, values) => Scatter
    );

    /// `iota(len, start, step)`.
    ///
    /// ```
    /// use flatland_vectoriser::ir::Expr;
    /// let e = Expr::iota(Expr::var("n"), Expr::i64(0), Expr::i64(1));
    /// assert_eq!(e.to_string(), "iota(n, 0, 1)");
    /// ```
    pub fn iota(len: Expr, start: Expr, step: Expr) -> Expr {
        Expr::Iota {
            len: Arc::new(len),
            start: Arc::new(start),
            step: Arc::new(step),
        }
    }

    /// A unary operator.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{Expr, UnaryOp};
    /// assert_eq!(Expr::unary(UnaryOp::Abs, Expr::var("x")).to_string(), "abs(x)");
    /// ```
    pub fn unary(op: UnaryOp, a: Expr) -> Expr {
        Expr::Unary(op, Arc::new(a))
    }

    /// A binary operator.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{BinaryOp, Expr};
    /// assert_eq!(Expr::binary(BinaryOp::Max, Expr::var("x"), Expr::i64(0)).to_string(), "max(x, 0)");
    /// ```
    pub fn binary(op: BinaryOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Arc::new(a), Arc::new(b))
    }

    /// A ternary operator.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{Expr, TernaryOp};
    /// let e = Expr::ternary(TernaryOp::Clamp, Expr::var("x"), Expr::f64(0.0), Expr::f64(1.0));
    /// assert_eq!(e.to_string(), "clamp(x, 0.0, 1.0)");
    /// ```
    pub fn ternary(op: TernaryOp, a: Expr, b: Expr, c: Expr) -> Expr {
        Expr::Ternary(op, Arc::new(a), Arc::new(b), Arc::new(c))
    }

    /// `map(lambda, arrays)`.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{Expr, Lambda};
    /// let e = Expr::map(Lambda::new(&["x"], Expr::var("x")), vec![Expr::var("xs")]);
    /// assert_eq!(e.to_string(), "map(|x| x, xs)");
    /// ```
    pub fn map(f: Lambda, arrays: Vec<Expr>) -> Expr {
        Expr::Map(f, arrays)
    }

    /// `reduce(op, identity, array)`.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{Expr, ReduceOp};
    /// let e = Expr::reduce(ReduceOp::Mul, Expr::i64(1), Expr::var("xs"));
    /// assert_eq!(e.to_string(), "reduce(*, 1, xs)");
    /// ```
    pub fn reduce(op: ReduceOp, identity: Expr, array: Expr) -> Expr {
        Expr::Reduce(op, Arc::new(identity), Arc::new(array))
    }

    /// `scan(op, identity, array)`.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{Expr, ReduceOp};
    /// let e = Expr::scan(ReduceOp::Add, Expr::i64(0), Expr::var("xs"));
    /// assert_eq!(e.to_string(), "scan(+, 0, xs)");
    /// ```
    pub fn scan(op: ReduceOp, identity: Expr, array: Expr) -> Expr {
        Expr::Scan(op, Arc::new(identity), Arc::new(array))
    }

    /// `filter(predicates, array)`.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{Expr, Lambda};
    /// let p = Lambda::new(&["x"], Expr::var("x").lt(Expr::i64(0)));
    /// assert_eq!(Expr::filter(vec![p], Expr::var("xs")).to_string(), "filter([|x| (x < 0)], xs)");
    /// ```
    pub fn filter(predicates: Vec<Lambda>, array: Expr) -> Expr {
        Expr::Filter(predicates, Arc::new(array))
    }

    /// `partition(classes, interest, key, array)`.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{Expr, Lambda};
    /// let k = Lambda::new(&["x"], Expr::var("x") % Expr::i64(3));
    /// let e = Expr::partition(3, vec![0, 2], k, Expr::var("xs"));
    /// assert_eq!(e.to_string(), "partition(3, {0, 2}, |x| (x % 3), xs)");
    /// ```
    pub fn partition(classes: usize, interest: Vec<usize>, key: Lambda, array: Expr) -> Expr {
        Expr::Partition {
            classes,
            interest,
            key,
            array: Arc::new(array),
        }
    }

    /// `redomap(op, identity, f, arrays)`.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{Expr, Lambda, ReduceOp};
    /// let f = Lambda::new(&["x"], Expr::var("x") * Expr::var("x"));
    /// let e = Expr::redomap(ReduceOp::Add, Expr::i64(0), f, vec![Expr::var("xs")]);
    /// assert_eq!(e.to_string(), "redomap(+, 0, |x| (x * x), xs)");
    /// ```
    pub fn redomap(op: ReduceOp, identity: Expr, f: Lambda, arrays: Vec<Expr>) -> Expr {
        Expr::Redomap(op, Arc::new(identity), f, arrays)
    }

    /// `sort(array)` or `argsort(array)`.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{Expr, SortOp};
    /// assert_eq!(Expr::sort(SortOp::Values, Expr::var("xs")).to_string(), "sort(xs)");
    /// ```
    pub fn sort(op: SortOp, array: Expr) -> Expr {
        Expr::Sort(op, Arc::new(array))
    }

    /// `hist(bins, identity, op, indices, values)`.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{Expr, ReduceOp};
    /// let e = Expr::hist(Expr::i64(4), Expr::i64(0), ReduceOp::Add, Expr::var("ks"), Expr::var("vs"));
    /// assert_eq!(e.to_string(), "hist(4, 0, +, ks, vs)");
    /// ```
    pub fn hist(bins: Expr, identity: Expr, op: ReduceOp, indices: Expr, values: Expr) -> Expr {
        Expr::Hist {
            bins: Arc::new(bins),
            op,
            identity: Arc::new(identity),
            indices: Arc::new(indices),
            values: Arc::new(values),
        }
    }

    /// `loop(init, for count, |state, i| body)`: `count` iterations.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{Expr, Lambda};
    /// let body = Lambda::new(&["s", "i"], Expr::var("s") + Expr::var("i"));
    /// let e = Expr::loop_for(Expr::i64(0), Expr::i64(4), body);
    /// assert_eq!(e.to_string(), "loop(0, for 4, |s, i| (s + i))");
    /// ```
    pub fn loop_for(init: Expr, count: Expr, body: Lambda) -> Expr {
        Expr::Loop {
            init: Arc::new(init),
            form: LoopForm::For(Arc::new(count)),
            body,
        }
    }

    /// `loop(init, while |state| cond, |state| body)`.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{Expr, Lambda};
    /// let cond = Lambda::new(&["s"], Expr::var("s").lt(Expr::i64(100)));
    /// let e = Expr::loop_while(Expr::i64(1), cond, Lambda::new(&["s"], Expr::var("s") * Expr::i64(2)));
    /// assert_eq!(e.to_string(), "loop(1, while |s| (s < 100), |s| (s * 2))");
    /// ```
    pub fn loop_while(init: Expr, cond: Lambda, body: Lambda) -> Expr {
        Expr::Loop {
            init: Arc::new(init),
            form: LoopForm::While(cond),
            body,
        }
    }

    /// A call of a top-level function.
    ///
    /// ```
    /// use flatland_vectoriser::ir::Expr;
    /// assert_eq!(Expr::call("f", vec![Expr::i64(1)]).to_string(), "f(1)");
    /// ```
    pub fn call(name: &str, args: Vec<Expr>) -> Expr {
        Expr::Call(name.to_string(), args)
    }

    /// `self < other`.
    ///
    /// ```
    /// use flatland_vectoriser::ir::Expr;
    /// assert_eq!(Expr::var("a").lt(Expr::var("b")).to_string(), "(a < b)");
    /// ```
    #[allow(clippy::should_implement_trait)]
    pub fn lt(self, other: Expr) -> Expr {
        Expr::binary(BinaryOp::Lt, self, other)
    }

    /// A short name of the node's kind, used in error messages.
    ///
    /// ```
    /// use flatland_vectoriser::ir::Expr;
    /// assert_eq!(Expr::length(Expr::var("a")).kind(), "length");
    /// ```
    pub fn kind(&self) -> &'static str {
        match self {
            Expr::Var(_) => "variable",
            Expr::Lit(_) => "literal",
            Expr::Tuple(_) => "tuple",
            Expr::Proj(..) => "projection",
            Expr::Let(..) => "let",
            Expr::If(..) => "if",
            Expr::Unary(..) => "unary operator",
            Expr::Binary(..) => "binary operator",
            Expr::Ternary(..) => "ternary operator",
            Expr::ArrayLit(..) => "array literal",
            Expr::Index(..) => "index",
            Expr::Length(_) => "length",
            Expr::Iota { .. } => "iota",
            Expr::Replicate(..) => "replicate",
            Expr::Slice(..) => "slice",
            Expr::Append(..) => "append",
            Expr::Concat(_) => "concat",
            Expr::Scatter(..) => "scatter",
            Expr::Map(..) => "map",
            Expr::Reduce(..) => "reduce",
            Expr::Scan(..) => "scan",
            Expr::Filter(..) => "filter",
            Expr::Partition { .. } => "partition",
            Expr::Redomap(..) => "redomap",
            Expr::Hist { .. } => "hist",
            Expr::Loop { .. } => "loop",
            Expr::Call(..) => "call",
            Expr::Fused(_) => "fused",
            Expr::Sort(op, _) => op.name(),
        }
    }
}

macro_rules! infix {
    ($tr:ident, $m:ident, $op:ident) => {
        impl std::ops::$tr for Expr {
            type Output = Expr;
            fn $m(self, rhs: Expr) -> Expr {
                Expr::binary(BinaryOp::$op, self, rhs)
            }
        }
    };
}
infix!(Add, add, Add);
infix!(Sub, sub, Sub);
infix!(Mul, mul, Mul);
infix!(Div, div, Div);
infix!(Rem, rem, Rem);

/// A top-level function: named, with typed parameters and result; it may call itself and the
/// other functions of its program.
///
/// ```
/// use flatland_vectoriser::ir::{Expr, Function, Type};
/// let f = Function::new("id", vec![("x".into(), Type::I64)], Type::I64, Expr::var("x"));
/// assert_eq!(f.to_string(), "fn id(x: i64) -> i64 =\n  x\n");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The function's name.
    pub name: String,
    /// Parameter names and types.
    pub params: Vec<(String, Type)>,
    /// The result type.
    pub ret: Type,
    /// The body.
    pub body: Expr,
}

impl Function {
    /// A function from its parts.
    ///
    /// ```
    /// use flatland_vectoriser::ir::{Expr, Function, Type};
    /// let f = Function::new("one", vec![], Type::I64, Expr::i64(1));
    /// assert_eq!(f.name, "one");
    /// ```
    pub fn new(name: &str, params: Vec<(String, Type)>, ret: Type, body: Expr) -> Function {
        Function {
            name: name.to_string(),
            params,
            ret,
            body,
        }
    }
}

/// A program: a set of top-level functions.
///
/// ```
/// use flatland_vectoriser::ir::{Expr, Function, Program, Type};
/// let p = Program::new(vec![Function::new("one", vec![], Type::I64, Expr::i64(1))]);
/// assert!(p.function("one").is_some());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Program {
    /// The functions, in definition order.
    pub functions: Vec<Function>,
}

impl Program {
    /// A program of the given functions.
    ///
    /// ```
    /// use flatland_vectoriser::ir::Program;
    /// assert!(Program::new(vec![]).functions.is_empty());
    /// ```
    pub fn new(functions: Vec<Function>) -> Program {
        Program { functions }
    }

    /// The function called `name`.
    ///
    /// ```
    /// use flatland_vectoriser::ir::Program;
    /// assert!(Program::default().function("main").is_none());
    /// ```
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
}
