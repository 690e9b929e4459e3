//! The generator of the random `#[vectorise]` corpus (`corpus_*.rs`): random functions drawn
//! as typed expressions, each written twice at once, as Rust source in the macro's subset and as
//! the IR that source means (built here with `flatland::vectoriser::{ir, derived}`, not by the
//! macro), with a fixed seed so that the files are reproducible.
//! `tests/vectorise_random_corpus.rs` checks the committed files against this generator and
//! runs every function's `try_` code against `eval` on the IR built here.
//!
//! What is drawn: nested `map`s (over parameters, ranges, zips of two and three arrays,
//! `enumerate`), `filter`, `sum`/`product`/`min`/`max`, `reduce` and `scan` (built-in operators
//! and closures), `fold`, `for` loops over ranges and arrays, `while` loops, histograms (`hist`,
//! `count_by_index` and `h[i] += v` in a loop), `sort`, `argsort`, `sort_by_key`, the selection
//! methods, slices, `concat`, `scatter`, `vec![x; n]`, literals, `if`, `let` (tuple patterns
//! included), tuples, calls of a helper function and of a recursive one, every operator and
//! math method of the subset, and some bodies of the shapes the macro's four (since deleted)
//! direct patterns matched. Function `fK` has
//! theme `K % THEMES` ([`G::theme`]): one construct as its outermost, so that each is drawn
//! whatever the dice say elsewhere. Sizes stay small
//! (counts and bins reduced with `rem_euclid`), but indices, slices, divisors and steps are
//! sometimes left unguarded so that runtime errors are compared too.

use std::collections::BTreeMap;
use std::fmt::Write;

use flatland::vectoriser::derived;
use flatland::vectoriser::ir::{
    BinaryOp as B, Expr, Function, Lambda, Program, ReduceOp, ScalarType, SortOp, TernaryOp, Type,
    UnaryOp,
};
use flatland_cli::harness::inputs::Rng;

/// An expression as Rust source and as IR.
#[derive(Clone)]
struct Code {
    src: String,
    ir: Expr,
}

fn code(src: impl Into<String>, ir: Expr) -> Code {
    Code {
        src: src.into(),
        ir,
    }
}

type Env = Vec<(String, Type)>;

fn arr(t: Type) -> Type {
    Type::array(t)
}

fn depth_of(t: &Type) -> usize {
    match t {
        Type::Array(e) => 1 + depth_of(e),
        _ => 0,
    }
}

/// The Rust spelling of a value type (`Vec` for arrays).
fn rust_type(t: &Type) -> String {
    match t {
        Type::I64 => "i64".into(),
        Type::F64 => "f64".into(),
        Type::Bool => "bool".into(),
        Type::Array(e) => format!("Vec<{}>", rust_type(e)),
        Type::Tuple(ts) => {
            let fs: Vec<String> = ts.iter().map(rust_type).collect();
            format!("({})", fs.join(", "))
        }
    }
}

/// The parameters every generated function takes (in the IR; `n` is a `&Nested<f64>` in Rust).
pub(crate) fn params() -> Vec<(String, Type)> {
    vec![
        ("a".into(), arr(Type::I64)),
        ("b".into(), arr(Type::F64)),
        ("c".into(), arr(Type::Bool)),
        ("m".into(), arr(arr(Type::I64))),
        ("n".into(), arr(arr(Type::F64))),
        ("k".into(), Type::I64),
        ("x".into(), Type::F64),
    ]
}

/// The Rust type of each of [`params`] and the test's argument for it.
const RUST_PARAMS: [(&str, &str); 7] = [
    ("&[i64]", "&i.a"),
    ("&[f64]", "&i.b"),
    ("&[bool]", "&i.c"),
    ("&[Vec<i64>]", "&i.m"),
    ("&Nested<f64>", "&i.n"),
    ("i64", "i.k"),
    ("f64", "i.x"),
];

/// Whether the source `src` mentions the variable `name` (as a whole identifier).
fn mentions(src: &str, name: &str) -> bool {
    src.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| w == name)
}

/// How many modules the corpus has, for [`G::in_turn`] to spread their draws.
const SPREAD: usize = 12;

/// The most elements the recursive function passes to its next level.
const REC_MAX: i64 = 16;

struct G {
    r: Rng,
    fresh: usize,
    /// The constructs drawn for the function being generated.
    used: BTreeMap<&'static str, usize>,
    /// Whether the module's `helper` and `rec` may be called.
    calls: bool,
    /// Inside a loop's body (outside any closure): no loop may be drawn there, as the macro
    /// would take its `let mut` variables for the outer loop's state.
    in_loop: bool,
    /// The module's number, and how many methods of each list of math methods it has drawn:
    /// they are drawn in turn, each module starting at its own place, so that every one is
    /// drawn.
    module: usize,
    turns: BTreeMap<usize, usize>,
}

impl G {
    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.r.below(n as u64)).expect("below n")
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())].clone()
    }

    /// The next of `xs` in turn (see [`G::turns`]; lists are told apart by their lengths):
    /// module `i` starts at `i / SPREAD` of the list.
    fn in_turn<T: Clone>(&mut self, xs: &[T]) -> T {
        let n = self.turns.entry(xs.len()).or_default();
        let k = (self.module * xs.len().div_ceil(SPREAD) + *n) % xs.len();
        *n += 1;
        xs[k].clone()
    }

    fn name(&mut self, p: &str) -> String {
        self.fresh += 1;
        format!("{p}{}", self.fresh)
    }

    fn note(&mut self, what: &'static str) {
        *self.used.entry(what).or_default() += 1;
    }

    fn scalar_type(&mut self) -> Type {
        self.pick(&[Type::I64, Type::F64, Type::Bool])
    }

    fn lit(&mut self, t: &Type) -> Code {
        match t {
            Type::I64 => {
                let v = self.pick(&[0, 1, 2, 3, 5, -1, -7, 63, 64, i64::MAX, i64::MIN]);
                match v {
                    i64::MAX => code("i64::MAX", Expr::i64(v)),
                    i64::MIN => code("i64::MIN", Expr::i64(v)),
                    v if v < 0 => code(
                        format!("(-{})", -v),
                        Expr::unary(UnaryOp::Neg, Expr::i64(-v)),
                    ),
                    v => code(v.to_string(), Expr::i64(v)),
                }
            }
            Type::F64 => {
                let v = self.pick(&[
                    0.5,
                    0.0,
                    -0.0,
                    2.0,
                    -2.5,
                    0.25,
                    1e300,
                    f64::NAN,
                    f64::INFINITY,
                ]);
                if v.is_nan() {
                    code("f64::NAN", Expr::f64(v))
                } else if v.is_infinite() {
                    code("f64::INFINITY", Expr::f64(v))
                } else if v.is_sign_negative() {
                    code(
                        format!("(-{:?})", -v),
                        Expr::unary(UnaryOp::Neg, Expr::f64(-v)),
                    )
                } else {
                    code(format!("{v:?}"), Expr::f64(v))
                }
            }
            Type::Bool => {
                let b = self.chance(50);
                code(b.to_string(), Expr::bool(b))
            }
            Type::Array(e) => {
                let n = self.below(3);
                if n == 0 {
                    return code(
                        format!("Vec::<{}>::new()", rust_type(e)),
                        Expr::ArrayLit((**e).clone(), vec![]),
                    );
                }
                let es: Vec<Code> = (0..n).map(|_| self.lit(e)).collect();
                self.array_lit(e, es)
            }
            Type::Tuple(ts) => {
                let fs: Vec<Code> = ts.iter().map(|t| self.lit(t)).collect();
                tuple(fs)
            }
        }
    }

    fn array_lit(&mut self, e: &Type, es: Vec<Code>) -> Code {
        let srcs: Vec<&str> = es.iter().map(|c| c.src.as_str()).collect();
        let open = if self.chance(50) { "vec![" } else { "[" };
        code(
            format!("{open}{}]", srcs.join(", ")),
            Expr::ArrayLit(e.clone(), es.into_iter().map(|c| c.ir).collect()),
        )
    }

    fn var(&mut self, t: &Type, env: &Env) -> Option<Code> {
        let vs: Vec<String> = env
            .iter()
            .filter(|(_, u)| u == t)
            .map(|(n, _)| n.clone())
            .collect();
        if vs.is_empty() {
            return None;
        }
        // The innermost binding often (closure parameters, loop states), any one otherwise.
        let v = if self.chance(40) {
            vs[vs.len() - 1].clone()
        } else {
            self.pick(&vs)
        };
        Some(code(v.clone(), Expr::var(&v)))
    }

    fn leaf(&mut self, t: &Type, env: &Env) -> Code {
        if self.chance(75)
            && let Some(v) = self.var(t, env)
        {
            return v;
        }
        self.lit(t)
    }

    /// A closure `|p, ..| body` over parameters of types `ps`: its source, and the lambda.
    fn lambda(&mut self, ps: &[Type], ret: &Type, env: &Env, d: u32) -> (String, Lambda) {
        let names: Vec<String> = ps.iter().map(|_| self.name("p")).collect();
        let mut inner = env.clone();
        inner.extend(names.iter().cloned().zip(ps.iter().cloned()));
        let was = std::mem::replace(&mut self.in_loop, false);
        let body = self.expr(ret, &inner, d);
        self.in_loop = was;
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        (
            format!("|{}| {}", names.join(", "), body.src),
            Lambda::new(&refs, body.ir),
        )
    }

    /// `(e).rem_euclid(m)`: a count in `0..m`.
    fn small(&mut self, env: &Env, d: u32, m: i64) -> Code {
        let e = self.expr(&Type::I64, env, d.min(2));
        code(
            format!("({}).rem_euclid({m})", e.src),
            Expr::binary(B::RemEuclid, e.ir, Expr::i64(m)),
        )
    }

    /// An array type to draw a source of: one present in `env` (mostly), or a random one.
    fn array_source_type(&mut self, env: &Env, max_depth: usize) -> Type {
        let vs: Vec<Type> = env
            .iter()
            .filter(|(_, t)| matches!(t, Type::Array(_)) && depth_of(t) <= max_depth)
            .map(|(_, t)| t.clone())
            .collect();
        if !vs.is_empty() && self.chance(80) {
            return self.pick(&vs);
        }
        arr(self.scalar_type())
    }

    fn expr(&mut self, t: &Type, env: &Env, d: u32) -> Code {
        if d == 0 || self.chance(10) {
            return self.leaf(t, env);
        }
        let d = d - 1;
        match self.below(14) {
            0 => {
                self.note("if");
                let c = self.expr(&Type::Bool, env, d);
                let (x, y) = (self.expr(t, env, d), self.expr(t, env, d));
                return if_code(c, x, y);
            }
            1 => return self.gen_let(t, env, d),
            2 => return self.element(t, env, d),
            3 if !self.in_loop && self.chance(60) => return self.gen_loop(t, env, d),
            4 if self.chance(30) => return self.projection(t, env, d),
            _ => {}
        }
        match t {
            Type::Array(e) => self.gen_array(e, env, d),
            Type::Tuple(ts) => {
                self.note("tuple");
                let fs: Vec<Code> = ts.iter().map(|t| self.expr(t, env, d)).collect();
                tuple(fs)
            }
            _ => self.gen_scalar(t, env, d),
        }
    }

    /// `{ let v = e; body }`, or `{ let (p, q) = (e1, e2); body }`.
    fn gen_let(&mut self, t: &Type, env: &Env, d: u32) -> Code {
        let mut inner = env.clone();
        let u = if self.chance(50) {
            self.scalar_type()
        } else {
            self.array_source_type(env, 2)
        };
        if self.chance(25) {
            self.note("let (tuple pattern)");
            let w = self.scalar_type();
            let (p, q) = (self.name("v"), self.name("v"));
            let (x, y) = (self.expr(&u, env, d), self.expr(&w, env, d));
            inner.push((p.clone(), u.clone()));
            inner.push((q.clone(), w.clone()));
            let body = self.expr(t, &inner, d);
            let tn = self.name("t");
            let ir = Expr::let_(
                &tn,
                Expr::Tuple(vec![x.ir, y.ir]),
                Expr::let_(
                    &p,
                    Expr::proj(Expr::var(&tn), 0),
                    Expr::let_(&q, Expr::proj(Expr::var(&tn), 1), body.ir),
                ),
            );
            return code(
                format!(
                    "{{ let ({p}, {q}) = ({}, {}); {} }}",
                    x.src, y.src, body.src
                ),
                ir,
            );
        }
        self.note("let");
        let v = self.expr(&u, env, d);
        let n = self.name("v");
        inner.push((n.clone(), u));
        let body = self.expr(t, &inner, d);
        code(
            format!("{{ let {n} = {}; {} }}", v.src, body.src),
            Expr::let_(&n, v.ir, body.ir),
        )
    }

    /// Field `.0` or `.1` of a tuple whose other field is drawn at random.
    fn projection(&mut self, t: &Type, env: &Env, d: u32) -> Code {
        self.note("tuple");
        let other = self.scalar_type();
        let first = self.chance(50);
        let (x, y) = if first {
            (self.expr(t, env, d), self.expr(&other, env, d))
        } else {
            (self.expr(&other, env, d), self.expr(t, env, d))
        };
        let i = usize::from(!first);
        code(
            format!("({}, {}).{i}", x.src, y.src),
            Expr::proj(Expr::Tuple(vec![x.ir, y.ir]), i),
        )
    }

    /// An element of an array of `t`: an index kept in range (the empty array guarded), an
    /// index left as drawn (an error when out of range), or `first()`/`last()`.
    fn element(&mut self, t: &Type, env: &Env, d: u32) -> Code {
        let a = self.expr(&arr(t.clone()), env, d);
        match self.below(10) {
            0 | 1 => {
                self.note("index (unguarded)");
                let i = self.expr(&Type::I64, env, d);
                code(format!("({})[{}]", a.src, i.src), Expr::index(a.ir, i.ir))
            }
            2 => {
                self.note("first/last");
                if self.chance(50) {
                    code(format!("({}).first()", a.src), derived::first(a.ir))
                } else {
                    code(format!("({}).last()", a.src), derived::last(a.ir))
                }
            }
            _ => {
                self.note("index");
                let i = self.expr(&Type::I64, env, d);
                let z = self.lit(t);
                let w = self.name("w");
                let len = Expr::length(Expr::var(&w));
                let ir = Expr::let_(
                    &w,
                    a.ir,
                    Expr::if_(
                        Expr::binary(B::Eq, len.clone(), Expr::i64(0)),
                        z.ir,
                        Expr::index(Expr::var(&w), Expr::binary(B::RemEuclid, i.ir, len)),
                    ),
                );
                code(
                    format!(
                        "{{ let {w} = {}; if {w}.is_empty() {{ {} }} else {{ {w}[({}).rem_euclid({w}.len())] }} }}",
                        a.src, z.src, i.src
                    ),
                    ir,
                )
            }
        }
    }

    fn gen_scalar(&mut self, t: &Type, env: &Env, d: u32) -> Code {
        match self.below(10) {
            0 | 1 => self.reduction(t, env, d),
            2 if self.chance(50) => self.select_scalar(t, env, d),
            3 if *t == Type::I64 => {
                self.note("len");
                let u = self.array_source_type(env, 3);
                let a = self.expr(&u, env, d);
                code(format!("({}).len()", a.src), Expr::length(a.ir))
            }
            4 if *t == Type::I64 && self.calls => {
                self.note("call");
                let (p, q) = (
                    self.expr(&Type::I64, env, d),
                    self.expr(&arr(Type::I64), env, d),
                );
                code(
                    format!("helper({}, {})", p.src, q.src),
                    Expr::call("helper", vec![p.ir, q.ir]),
                )
            }
            5 | 6 => self.math(t, env, d),
            _ => self.scalar_op(t, env, d),
        }
    }

    /// `a.sum()`, `product`, `min`, `max`, `reduce` (built-in operators with their identities,
    /// or closures), the same over a `map` (a redomap), and `fold`.
    fn reduction(&mut self, t: &Type, env: &Env, d: u32) -> Code {
        if self.chance(20) {
            return self.fold(t, env, d);
        }
        let a = if self.chance(35) {
            self.note("redomap");
            let u = self.array_source_type(env, 3);
            let src = self.expr(&u, env, d);
            let (f, l) = self.lambda(&[u.elem().expect("array").clone()], t, env, d);
            code(
                format!("({}).map({f})", src.src),
                Expr::map(l, vec![src.ir]),
            )
        } else {
            self.expr(&arr(t.clone()), env, d)
        };
        if matches!(t, Type::I64 | Type::F64) && self.chance(40) {
            self.note("sum/product/min/max");
            let name = self.pick(&["sum", "product", "min", "max"]);
            let (op, z) = identity(name, t);
            return code(format!("({}).{name}()", a.src), Expr::reduce(op, z, a.ir));
        }
        self.reduce_or_scan(t, env, d, a, false)
    }

    /// The operator of a reduction or scan of `t`: a built-in one (`|p, q| p + q`, ...) or a
    /// closure; the source and the IR operator.
    fn reduce_op(&mut self, t: &Type, env: &Env, d: u32) -> (String, ReduceOp) {
        let (p, q) = (self.name("p"), self.name("q"));
        let builtin: &[(&str, ReduceOp)] = match t {
            Type::Bool => &[("&&", ReduceOp::And), ("||", ReduceOp::Or)],
            Type::I64 | Type::F64 => &[
                ("+", ReduceOp::Add),
                ("*", ReduceOp::Mul),
                ("minimum", ReduceOp::Min),
                ("maximum", ReduceOp::Max),
            ],
            _ => &[],
        };
        let roll = self.below(100);
        if !builtin.is_empty() && roll < 60 {
            self.note("reduce/scan (built-in operator)");
            let (s, op) = self.pick(builtin);
            let body = match s {
                "minimum" | "maximum" if *t == Type::I64 => {
                    // `min`/`max` on i64 are the built-in operators too.
                    let m = if s == "minimum" { "min" } else { "max" };
                    format!("{p}.{m}({q})")
                }
                "minimum" | "maximum" => format!("{p}.{s}({q})"),
                _ => format!("{p} {s} {q}"),
            };
            return (format!("|{p}, {q}| {body}"), op);
        }
        if *t == Type::F64 && roll < 80 {
            // `std`'s NaN-ignoring `f64::min`/`max`: a closure, not the built-in operators.
            self.note("reduce/scan (f64 min/max closure)");
            let (m, op) = self.pick(&[("min", B::MinNum), ("max", B::MaxNum)]);
            let l = Lambda::new(&[&p, &q], Expr::binary(op, Expr::var(&p), Expr::var(&q)));
            return (format!("|{p}, {q}| {p}.{m}({q})"), ReduceOp::Lambda(l));
        }
        self.note("reduce/scan (closure)");
        let mut inner = env.clone();
        inner.push((p.clone(), t.clone()));
        inner.push((q.clone(), t.clone()));
        let was = std::mem::replace(&mut self.in_loop, false);
        let body = self.expr(t, &inner, d.min(2));
        self.in_loop = was;
        (
            format!("|{p}, {q}| {}", body.src),
            ReduceOp::Lambda(Lambda::new(&[&p, &q], body.ir)),
        )
    }

    fn reduce_or_scan(&mut self, t: &Type, env: &Env, d: u32, a: Code, scan: bool) -> Code {
        let z = if self.chance(50) {
            self.lit(t)
        } else {
            self.expr(t, env, d.min(2))
        };
        let (f, op) = self.reduce_op(t, env, d);
        if scan {
            code(
                format!("({}).scan({}, {f})", a.src, z.src),
                Expr::scan(op, z.ir, a.ir),
            )
        } else {
            code(
                format!("({}).reduce({}, {f})", a.src, z.src),
                Expr::reduce(op, z.ir, a.ir),
            )
        }
    }

    /// `a.fold(init, |acc, v| ..)`: a sequential loop over the elements, or (a built-in operator
    /// from its identity) a reduction.
    fn fold(&mut self, t: &Type, env: &Env, d: u32) -> Code {
        let u = if matches!(t, Type::I64 | Type::F64) && self.chance(40) {
            arr(t.clone())
        } else {
            self.array_source_type(env, 2)
        };
        let el = u.elem().expect("array").clone();
        let a = self.expr(&u, env, d);
        if el == *t && matches!(t, Type::I64 | Type::F64) && self.chance(50) {
            self.note("fold (built-in operator)");
            let (name, sym) = self.pick(&[("sum", "+"), ("product", "*")]);
            let (op, z) = identity(name, t);
            let zs = match (name, t) {
                ("sum", Type::I64) => "0",
                ("sum", _) => "0.0",
                (_, Type::I64) => "1",
                _ => "1.0",
            };
            let (p, q) = (self.name("p"), self.name("q"));
            return code(
                format!("({}).fold({zs}, |{p}, {q}| {p} {sym} {q})", a.src),
                Expr::reduce(op, z, a.ir),
            );
        }
        self.note("fold (loop)");
        let z = self.expr(t, env, d.min(2));
        let (acc, v) = (self.name("acc"), self.name("p"));
        let mut inner = env.clone();
        inner.push((acc.clone(), t.clone()));
        inner.push((v.clone(), el));
        let was = std::mem::replace(&mut self.in_loop, false);
        let body = self.expr(t, &inner, d.min(3));
        self.in_loop = was;
        let (xs, i) = (self.name("xs"), self.name("i"));
        let ir = Expr::let_(
            &xs,
            a.ir,
            Expr::loop_for(
                z.ir,
                Expr::length(Expr::var(&xs)),
                Lambda::new(
                    &[&acc, &i],
                    Expr::let_(&v, Expr::index(Expr::var(&xs), Expr::var(&i)), body.ir),
                ),
            ),
        );
        // The body in braces: never taken for a built-in operator.
        code(
            format!(
                "({}).fold({}, |{acc}, {v}| {{ {} }})",
                a.src, z.src, body.src
            ),
            ir,
        )
    }

    fn select_scalar(&mut self, t: &Type, env: &Env, d: u32) -> Code {
        match t {
            Type::Bool => {
                self.note("any/all");
                let el = self.scalar_type();
                let a = self.expr(&arr(el.clone()), env, d);
                let (p, l) = self.lambda(&[el], &Type::Bool, env, d.min(2));
                if self.chance(50) {
                    code(format!("({}).any({p})", a.src), derived::any(l, a.ir))
                } else {
                    code(format!("({}).all({p})", a.src), derived::all(l, a.ir))
                }
            }
            Type::I64 => match self.below(3) {
                0 => {
                    self.note("filter().count()");
                    let el = self.scalar_type();
                    let a = self.expr(&arr(el.clone()), env, d);
                    let (p, l) = self.lambda(&[el], &Type::Bool, env, d.min(2));
                    code(
                        format!("({}).filter({p}).count()", a.src),
                        derived::count(l, a.ir),
                    )
                }
                k => {
                    self.note("argmin/argmax");
                    let el = self.pick(&[Type::I64, Type::F64]);
                    let a = self.expr(&arr(el.clone()), env, d);
                    let (name, e) = if k == 1 {
                        ("argmin", derived::argmin(a.ir, &el))
                    } else {
                        ("argmax", derived::argmax(a.ir, &el))
                    };
                    code(format!("({}).{name}()", a.src), e.expect("numbers"))
                }
            },
            _ => {
                self.note("argmin/argmax");
                // The element at the argmin of a float array, or 0 when it is empty.
                let a = self.expr(&arr(Type::F64), env, d);
                let w = self.name("w");
                let i = derived::argmin(Expr::var(&w), &Type::F64).expect("numbers");
                let ir = Expr::let_(
                    &w,
                    a.ir,
                    Expr::if_(
                        i.clone().lt(Expr::i64(0)),
                        Expr::f64(0.0),
                        Expr::index(Expr::var(&w), i),
                    ),
                );
                code(
                    format!(
                        "{{ let {w} = {}; if {w}.argmin() < 0 {{ 0.0 }} else {{ {w}[{w}.argmin()] }} }}",
                        a.src
                    ),
                    ir,
                )
            }
        }
    }

    /// A math method of `f64` or `i64` (every one of the runtime's table).
    fn math(&mut self, t: &Type, env: &Env, d: u32) -> Code {
        self.note("math method");
        match t {
            Type::Bool => {
                let op = self.pick(&[UnaryOp::IsNan, UnaryOp::IsFinite, UnaryOp::IsInfinite]);
                let a = self.expr(&Type::F64, env, d);
                method0(&a, op)
            }
            Type::I64 => match self.below(4) {
                0 => {
                    let op = self.in_turn(&math_unary(ScalarType::I64));
                    let a = self.expr(t, env, d);
                    method0(&a, op)
                }
                1 => {
                    let (a, e) = (self.expr(t, env, d), self.expr(t, env, d));
                    if self.chance(80) {
                        code(
                            format!("({}).pow(({}) & 15)", a.src, e.src),
                            Expr::binary(
                                B::Pow,
                                a.ir,
                                Expr::binary(B::BitAnd, e.ir, Expr::i64(15)),
                            ),
                        )
                    } else {
                        method1(&a, "pow", B::Pow, &e)
                    }
                }
                2 => {
                    let (name, op) =
                        self.pick(&[("rem_euclid", B::RemEuclid), ("div_euclid", B::DivEuclid)]);
                    let den = self.divisor(env, d);
                    let a = self.expr(t, env, d);
                    method1(&a, name, op, &den)
                }
                _ if self.chance(30) => self.clamp(t, env, d),
                _ => {
                    let (name, op) = self.pick(&[("min", B::Min), ("max", B::Max)]);
                    let (a, b) = (self.expr(t, env, d), self.expr(t, env, d));
                    method1(&a, name, op, &b)
                }
            },
            _ => match self.below(5) {
                4 if self.chance(50) => self.clamp(t, env, d),
                4 => {
                    let (a, b, c) = (
                        self.expr(t, env, d),
                        self.expr(t, env, d),
                        self.expr(t, env, d),
                    );
                    method2(&a, "mul_add", TernaryOp::MulAdd, &b, &c)
                }
                0 | 1 => {
                    let op = self.in_turn(&math_unary(ScalarType::F64));
                    let a = self.expr(t, env, d);
                    method0(&a, op)
                }
                2 => {
                    let a = self.expr(t, env, d);
                    let n = self.expr(&Type::I64, env, d);
                    method1(&a, "powi", B::Powi, &n)
                }
                _ => {
                    let (name, op) = self.in_turn(&[
                        ("powf", B::Powf),
                        ("atan2", B::Atan2),
                        ("hypot", B::Hypot),
                        ("copysign", B::Copysign),
                        ("rem_euclid", B::RemEuclid),
                        ("div_euclid", B::DivEuclid),
                        ("min", B::MinNum),
                        ("max", B::MaxNum),
                        ("minimum", B::Min),
                        ("maximum", B::Max),
                    ]);
                    let (a, b) = (self.expr(t, env, d), self.expr(t, env, d));
                    method1(&a, name, op, &b)
                }
            },
        }
    }

    /// `x.clamp(a.min(b), a.max(b))`: bounds in order, so that most lanes succeed (a NaN
    /// bound, from two NaN, still fails, as in `std`).
    fn clamp(&mut self, t: &Type, env: &Env, d: u32) -> Code {
        let (min, max) = if *t == Type::F64 {
            (B::MinNum, B::MaxNum)
        } else {
            (B::Min, B::Max)
        };
        let x = self.expr(t, env, d);
        let (a, b) = (self.expr(t, env, d), self.expr(t, env, d));
        let (lo, hi) = (method1(&a, "min", min, &b), method1(&a, "max", max, &b));
        method2(&x, "clamp", TernaryOp::Clamp, &lo, &hi)
    }

    /// An `i64` divisor: mostly `(e | 1)`, which is never zero; sometimes as drawn.
    fn divisor(&mut self, env: &Env, d: u32) -> Code {
        let e = self.expr(&Type::I64, env, d);
        if self.chance(35) {
            self.note("division (unguarded)");
            return e;
        }
        code(
            format!("(({}) | 1)", e.src),
            Expr::binary(B::BitOr, e.ir, Expr::i64(1)),
        )
    }

    fn scalar_op(&mut self, t: &Type, env: &Env, d: u32) -> Code {
        self.note("operators");
        let bin = |me: &mut Self, s: &str, op: B, a: &Type| {
            let (x, y) = (me.expr(a, env, d), me.expr(a, env, d));
            infix(x, s, op, y)
        };
        match t {
            Type::Bool => match self.below(7) {
                0 => {
                    let a = self.expr(t, env, d);
                    code(format!("!{}", a.src), Expr::unary(UnaryOp::Not, a.ir))
                }
                1 => {
                    let (s, op) = self.pick(&[
                        ("&", B::BitAnd),
                        ("|", B::BitOr),
                        ("^", B::BitXor),
                        ("==", B::Eq),
                        ("!=", B::Ne),
                    ]);
                    bin(self, s, op, t)
                }
                2 => {
                    // `&&` and `||` short-circuit: `if`s in the IR.
                    let (x, y) = (self.expr(t, env, d), self.expr(t, env, d));
                    if self.chance(50) {
                        code(
                            format!("({} && {})", x.src, y.src),
                            Expr::if_(x.ir, y.ir, Expr::bool(false)),
                        )
                    } else {
                        code(
                            format!("({} || {})", x.src, y.src),
                            Expr::if_(x.ir, Expr::bool(true), y.ir),
                        )
                    }
                }
                3 => {
                    self.note("cast");
                    let from = self.pick(&[Type::I64, Type::F64]);
                    let a = self.expr(&from, env, d);
                    cast(a, ScalarType::Bool)
                }
                4 => {
                    self.note("is_empty");
                    let u = self.array_source_type(env, 3);
                    let a = self.expr(&u, env, d);
                    code(
                        format!("({}).is_empty()", a.src),
                        Expr::binary(B::Eq, Expr::length(a.ir), Expr::i64(0)),
                    )
                }
                _ => {
                    let u = self.pick(&[Type::I64, Type::F64]);
                    let (s, op) = self.pick(&[
                        ("<", B::Lt),
                        ("<=", B::Le),
                        (">", B::Gt),
                        (">=", B::Ge),
                        ("==", B::Eq),
                        ("!=", B::Ne),
                    ]);
                    bin(self, s, op, &u)
                }
            },
            Type::I64 => match self.below(8) {
                0 => {
                    let a = self.expr(t, env, d);
                    if self.chance(50) {
                        prefix("-", UnaryOp::Neg, a)
                    } else {
                        prefix("!", UnaryOp::BitNot, a)
                    }
                }
                1 => {
                    self.note("cast");
                    let from = self.pick(&[Type::F64, Type::Bool]);
                    let a = self.expr(&from, env, d);
                    cast(a, ScalarType::I64)
                }
                2 => {
                    let (s, op) = self.pick(&[("/", B::Div), ("%", B::Rem)]);
                    let num = self.expr(t, env, d);
                    let den = self.divisor(env, d);
                    infix(num, s, op, den)
                }
                3 => {
                    let (s, op) = self.pick(&[("<<", B::Shl), (">>", B::Shr)]);
                    bin(self, s, op, t)
                }
                _ => {
                    let (s, op) = self.pick(&[
                        ("+", B::Add),
                        ("-", B::Sub),
                        ("*", B::Mul),
                        ("&", B::BitAnd),
                        ("|", B::BitOr),
                        ("^", B::BitXor),
                    ]);
                    bin(self, s, op, t)
                }
            },
            _ => match self.below(6) {
                0 => {
                    let a = self.expr(t, env, d);
                    prefix("-", UnaryOp::Neg, a)
                }
                1 => {
                    self.note("cast");
                    let from = self.pick(&[Type::I64, Type::Bool]);
                    let a = self.expr(&from, env, d);
                    cast(a, ScalarType::F64)
                }
                _ => {
                    let (s, op) = self.pick(&[
                        ("+", B::Add),
                        ("-", B::Sub),
                        ("*", B::Mul),
                        ("/", B::Div),
                        ("%", B::Rem),
                    ]);
                    bin(self, s, op, t)
                }
            },
        }
    }

    /// A source array to map over: an array expression (a parameter mostly) or a range.
    fn map_source(&mut self, env: &Env, d: u32) -> (Code, Type) {
        if self.chance(20) {
            let r = self.range(env, d);
            return (r, Type::I64);
        }
        let u = self.array_source_type(env, 2);
        let a = self.expr(&u, env, d);
        (a, u.elem().expect("array").clone())
    }

    /// `(lo..hi)`, sometimes `.step_by(s)` (a step of 0 is an error).
    fn range(&mut self, env: &Env, d: u32) -> Code {
        self.note("range");
        let lo = self.small(env, d, 4);
        let hi = self.small(env, d, 7);
        let (l, h) = (self.name("lo"), self.name("hi"));
        let span = Expr::var(&h) - Expr::var(&l);
        if self.chance(25) {
            self.note("step_by");
            let s = self.small(env, d, 3);
            let sv = self.name("st");
            let len = (span + Expr::var(&sv) - Expr::i64(1)) / Expr::var(&sv);
            let body = Expr::let_(
                &sv,
                s.ir,
                Expr::iota(
                    Expr::binary(B::Max, len, Expr::i64(0)),
                    Expr::var(&l),
                    Expr::var(&sv),
                ),
            );
            return code(
                format!("(({})..({})).step_by({})", lo.src, hi.src, s.src),
                Expr::let_(&l, lo.ir, Expr::let_(&h, hi.ir, body)),
            );
        }
        let body = Expr::iota(
            Expr::binary(B::Max, span, Expr::i64(0)),
            Expr::var(&l),
            Expr::i64(1),
        );
        code(
            format!("(({})..({}))", lo.src, hi.src),
            Expr::let_(&l, lo.ir, Expr::let_(&h, hi.ir, body)),
        )
    }

    /// A map of one, two or three arrays (zips), or of an `enumerate`.
    fn gen_map(&mut self, e: &Type, env: &Env, d: u32) -> Code {
        let kind = match self.below(10) {
            0..=5 => 0,
            6 | 7 => 1,
            8 => 2,
            _ => 3,
        };
        self.map_kind(e, env, d, kind)
    }

    /// A map (`kind` 0), a zip of two arrays (1) or three (2), or an `enumerate` (3).
    fn map_kind(&mut self, e: &Type, env: &Env, d: u32, kind: usize) -> Code {
        let (first, el) = self.map_source(env, d);
        match kind {
            0 => {
                self.note("map");
                let (f, l) = self.lambda(&[el], e, env, d);
                code(
                    format!("({}).map({f})", first.src),
                    Expr::map(l, vec![first.ir]),
                )
            }
            1 => {
                // a zip with a map of the same array (same length), or with another array
                self.note("zip");
                let w = self.name("w");
                let mut inner = env.clone();
                inner.push((w.clone(), arr(el.clone())));
                let (second, el2) = if self.chance(75) {
                    let u = self.scalar_type();
                    let (f, l) = self.lambda(std::slice::from_ref(&el), &u, &inner, d.min(1));
                    (
                        code(format!("{w}.map({f})"), Expr::map(l, vec![Expr::var(&w)])),
                        u,
                    )
                } else {
                    let (s, u) = self.map_source(env, d);
                    (s, u)
                };
                let (p, q) = (self.name("p"), self.name("q"));
                let mut body_env = env.clone();
                body_env.push((p.clone(), el));
                body_env.push((q.clone(), el2));
                let was = std::mem::replace(&mut self.in_loop, false);
                let body = self.expr(e, &body_env, d);
                self.in_loop = was;
                let map = Expr::map(
                    Lambda::new(&[&p, &q], body.ir),
                    vec![Expr::var(&w), second.ir],
                );
                code(
                    format!(
                        "{{ let {w} = {}; {w}.zip({}).map(|({p}, {q})| {}) }}",
                        first.src, second.src, body.src
                    ),
                    Expr::let_(&w, first.ir, map),
                )
            }
            2 => {
                self.note("zip3");
                let w = self.name("w");
                let mut inner = env.clone();
                inner.push((w.clone(), arr(el.clone())));
                let (u, v) = (self.scalar_type(), self.scalar_type());
                let (f, lf) = self.lambda(std::slice::from_ref(&el), &u, &inner, d.min(1));
                let (g, lg) = self.lambda(std::slice::from_ref(&el), &v, &inner, d.min(1));
                let (p, q, s) = (self.name("p"), self.name("q"), self.name("s"));
                let mut body_env = env.clone();
                body_env.push((p.clone(), el));
                body_env.push((q.clone(), u));
                body_env.push((s.clone(), v));
                let was = std::mem::replace(&mut self.in_loop, false);
                let body = self.expr(e, &body_env, d);
                self.in_loop = was;
                let map = Expr::map(
                    Lambda::new(&[&p, &q, &s], body.ir),
                    vec![
                        Expr::var(&w),
                        Expr::map(lf, vec![Expr::var(&w)]),
                        Expr::map(lg, vec![Expr::var(&w)]),
                    ],
                );
                code(
                    format!(
                        "{{ let {w} = {}; {w}.zip({w}.map({f})).zip({w}.map({g})).map(|(({p}, {q}), {s})| {}) }}",
                        first.src, body.src
                    ),
                    Expr::let_(&w, first.ir, map),
                )
            }
            _ => {
                self.note("enumerate");
                let (i, v, t) = (self.name("i"), self.name("p"), self.name("t"));
                let mut body_env = env.clone();
                body_env.push((i.clone(), Type::I64));
                body_env.push((v.clone(), el));
                let was = std::mem::replace(&mut self.in_loop, false);
                let body = self.expr(e, &body_env, d);
                self.in_loop = was;
                let l = Lambda::new(
                    &[&t],
                    Expr::let_(
                        &i,
                        Expr::proj(Expr::var(&t), 0),
                        Expr::let_(&v, Expr::proj(Expr::var(&t), 1), body.ir),
                    ),
                );
                code(
                    format!("({}).enumerate().map(|({i}, {v})| {})", first.src, body.src),
                    Expr::map(l, vec![derived::enumerate(first.ir)]),
                )
            }
        }
    }

    fn gen_array(&mut self, e: &Type, env: &Env, d: u32) -> Code {
        let case = self.below(18);
        self.array_case(e, env, d, case)
    }

    /// An array of `e` made by construct `case` (or a literal where `case` does not apply).
    fn array_case(&mut self, e: &Type, env: &Env, d: u32, case: usize) -> Code {
        let t = arr(e.clone());
        let scalar = matches!(e, Type::I64 | Type::F64 | Type::Bool);
        let num = matches!(e, Type::I64 | Type::F64);
        match case {
            0..=3 => self.gen_map(e, env, d),
            4 => {
                self.note("filter");
                let a = self.expr(&t, env, d);
                let (p, l) = self.lambda(std::slice::from_ref(e), &Type::Bool, env, d.min(2));
                code(
                    format!("({}).filter({p})", a.src),
                    Expr::proj(Expr::filter(vec![l], a.ir), 0),
                )
            }
            5 if scalar => {
                self.note("scan");
                let a = self.expr(&t, env, d);
                self.reduce_or_scan(e, env, d, a, true)
            }
            6 if num => {
                self.note("sort/argsort");
                if *e == Type::I64 && self.chance(40) {
                    let u = self.pick(&[Type::I64, Type::F64]);
                    let a = self.expr(&arr(u), env, d);
                    code(
                        format!("({}).argsort()", a.src),
                        Expr::sort(SortOp::Indices, a.ir),
                    )
                } else {
                    let a = self.expr(&t, env, d);
                    code(
                        format!("({}).sort()", a.src),
                        Expr::sort(SortOp::Values, a.ir),
                    )
                }
            }
            7 => {
                let a = self.expr(&t, env, d);
                match self.below(4) {
                    0 => {
                        self.note("sort_by_key");
                        let kt = self.pick(&[Type::I64, Type::F64]);
                        let (f, l) = self.lambda(std::slice::from_ref(e), &kt, env, d.min(2));
                        code(
                            format!("({}).sort_by_key({f})", a.src),
                            derived::sort_by_key(l, a.ir),
                        )
                    }
                    1 => {
                        self.note("rev");
                        code(format!("({}).rev()", a.src), derived::rev(a.ir))
                    }
                    k => {
                        self.note("take/skip");
                        let n = self.expr(&Type::I64, env, d.min(2));
                        if k == 2 {
                            code(
                                format!("({}).take({})", a.src, n.src),
                                derived::take(a.ir, n.ir),
                            )
                        } else {
                            code(
                                format!("({}).skip({})", a.src, n.src),
                                derived::skip(a.ir, n.ir),
                            )
                        }
                    }
                }
            }
            8 => {
                self.note("vec![x; n]");
                let n = self.small(env, d, 4);
                let x = self.expr(e, env, d);
                code(
                    format!("vec![{}; {}]", x.src, n.src),
                    Expr::replicate(n.ir, x.ir),
                )
            }
            9 => self.slice(&t, env, d),
            10 => {
                self.note("concat");
                if depth_of(&t) < 3 && self.chance(40) {
                    let a = self.expr(&arr(t.clone()), env, d);
                    code(format!("({}).concat()", a.src), Expr::concat(a.ir))
                } else {
                    let (x, y) = (self.expr(&t, env, d), self.expr(&t, env, d));
                    code(
                        format!("[{}, {}].concat()", x.src, y.src),
                        Expr::append(x.ir, y.ir),
                    )
                }
            }
            11 => self.scatter(e, env, d),
            12 if scalar => self.hist(e, env, d),
            13 if *e == Type::I64 && self.calls => {
                self.note("recursion");
                let n = self.small(env, d, 4);
                let q = self.expr(&t, env, d);
                code(
                    format!("rec({}, {})", n.src, q.src),
                    Expr::call("rec", vec![n.ir, q.ir]),
                )
            }
            14 if *e == Type::I64 => self.range(env, d),
            _ => {
                self.note("array literal");
                let n = self.below(3);
                if n == 0 {
                    return self.lit(&t);
                }
                let es: Vec<Code> = (0..n).map(|_| self.expr(e, env, d.min(1))).collect();
                self.array_lit(e, es)
            }
        }
    }

    /// `a[s..e]`, `a[s..]`, `a[..e]`: bounds kept in range, or as drawn (an error when out).
    fn slice(&mut self, t: &Type, env: &Env, d: u32) -> Code {
        let a = self.expr(t, env, d);
        let (w, lo) = (self.name("w"), self.name("lo"));
        let (lo_src, lo_ir, end_src, end_ir) = if self.chance(75) {
            self.note("slice");
            let s = self.expr(&Type::I64, env, d.min(2));
            let l = self.expr(&Type::I64, env, d.min(2));
            let len = Expr::length(Expr::var(&w));
            (
                format!("({}).rem_euclid({w}.len() + 1)", s.src),
                Expr::binary(B::RemEuclid, s.ir, len.clone() + Expr::i64(1)),
                format!("{lo} + ({}).rem_euclid({w}.len() - {lo} + 1)", l.src),
                Expr::var(&lo)
                    + Expr::binary(B::RemEuclid, l.ir, len - Expr::var(&lo) + Expr::i64(1)),
            )
        } else {
            self.note("slice (unguarded)");
            let s = self.expr(&Type::I64, env, d.min(2));
            let e = self.expr(&Type::I64, env, d.min(2));
            (s.src, s.ir, e.src, e.ir)
        };
        // The source: `w[lo..end]`, `w[lo..]` (when `end` is the length) or `w[..end]`.
        let (form, start_ir, stop_ir) = match self.below(4) {
            0 => (format!("{w}[..{end_src}]"), Expr::i64(0), end_ir),
            1 => (
                format!("{w}[{lo}..]"),
                Expr::var(&lo),
                Expr::length(Expr::var(&w)),
            ),
            _ => (format!("{w}[{lo}..{end_src}]"), Expr::var(&lo), end_ir),
        };
        let (sa, sl) = (self.name("sa"), self.name("sl"));
        // As the macro means `w[s..e]`: `slice(w, s, e - s)`, `s` evaluated first.
        let cut = Expr::let_(
            &sa,
            Expr::var(&w),
            Expr::let_(
                &sl,
                start_ir,
                Expr::slice(Expr::var(&sa), Expr::var(&sl), stop_ir - Expr::var(&sl)),
            ),
        );
        code(
            format!("{{ let {w} = {}; let {lo} = {lo_src}; {form} }}", a.src),
            Expr::let_(&w, a.ir, Expr::let_(&lo, lo_ir, cut)),
        )
    }

    /// `dest.scatter(indices, values)`: indices reduced into range, or as drawn.
    fn scatter(&mut self, e: &Type, env: &Env, d: u32) -> Code {
        let t = arr(e.clone());
        let dest = self.expr(&t, env, d);
        let raw = self.expr(&arr(Type::I64), env, d);
        let (w, ks, i) = (self.name("w"), self.name("ks"), self.name("i"));
        let mut inner = env.clone();
        inner.push((w.clone(), t.clone()));
        inner.push((ks.clone(), arr(Type::I64)));
        let (f, l) = self.lambda(&[Type::I64], e, &inner, d.min(1));
        let vals = Expr::map(l, vec![Expr::var(&ks)]);
        if self.chance(25) {
            self.note("scatter (unguarded)");
            return code(
                format!(
                    "{{ let {w} = {}; let {ks} = {}; {w}.scatter({ks}, {ks}.map({f})) }}",
                    dest.src, raw.src
                ),
                Expr::let_(
                    &w,
                    dest.ir,
                    Expr::let_(
                        &ks,
                        raw.ir,
                        Expr::scatter(Expr::var(&w), Expr::var(&ks), vals),
                    ),
                ),
            );
        }
        self.note("scatter");
        let len = Expr::length(Expr::var(&w));
        let idx = Expr::map(
            Lambda::new(
                &[&i],
                Expr::binary(B::RemEuclid, Expr::var(&i), len.clone()),
            ),
            vec![raw.ir],
        );
        let ir = Expr::let_(
            &w,
            dest.ir,
            Expr::if_(
                Expr::binary(B::Eq, len, Expr::i64(0)),
                Expr::var(&w),
                Expr::let_(&ks, idx, Expr::scatter(Expr::var(&w), Expr::var(&ks), vals)),
            ),
        );
        code(
            format!(
                "{{ let {w} = {}; if {w}.is_empty() {{ {w} }} else {{ let {ks} = ({}).map(|{i}| {i}.rem_euclid({w}.len())); {w}.scatter({ks}, {ks}.map({f})) }} }}",
                dest.src, raw.src
            ),
            ir,
        )
    }

    /// `hist(bins, z, op, ks, ks.map(..))`, `count_by_index(bins, ks)`, or a `for` loop of
    /// `h[i] op= v` on a `let mut h = vec![z; bins]`.
    fn hist(&mut self, e: &Type, env: &Env, d: u32) -> Code {
        self.hist_kind(e, env, d, usize::MAX)
    }

    /// `count_by_index` (`kind` 0, on `i64`), the loop form (1, 2), `hist` (3, 4), or one
    /// drawn at random (`usize::MAX`).
    fn hist_kind(&mut self, e: &Type, env: &Env, d: u32, kind: usize) -> Code {
        let bins = self.small(env, d, 6);
        let raw = self.expr(&arr(Type::I64), env, d);
        let (bn, ks) = (self.name("bins"), self.name("ks"));
        // Keys as drawn (many skipped: out of range) or mostly in `-1..bins`.
        let (keys_src, keys_ir) = if self.chance(50) {
            (raw.src, raw.ir)
        } else {
            let i = self.name("i");
            (
                format!("({}).map(|{i}| {i}.rem_euclid({bn} + 2) - 1)", raw.src),
                Expr::map(
                    Lambda::new(
                        &[&i],
                        Expr::binary(B::RemEuclid, Expr::var(&i), Expr::var(&bn) + Expr::i64(2))
                            - Expr::i64(1),
                    ),
                    vec![raw.ir],
                ),
            )
        };
        let mut inner = env.clone();
        inner.push((bn.clone(), Type::I64));
        inner.push((ks.clone(), arr(Type::I64)));
        let kind = if kind == usize::MAX {
            self.below(5)
        } else {
            kind
        };
        let wrap = |body_src: String, body_ir: Expr| {
            code(
                format!(
                    "{{ let {bn} = {}; let {ks} = {keys_src}; {body_src} }}",
                    bins.src
                ),
                Expr::let_(
                    &bn,
                    bins.ir.clone(),
                    Expr::let_(&ks, keys_ir.clone(), body_ir),
                ),
            )
        };
        match kind {
            0 if *e == Type::I64 => {
                self.note("count_by_index");
                wrap(
                    format!("count_by_index({bn}, {ks})"),
                    derived::count_by_index(Expr::var(&bn), Expr::var(&ks), "__corpus_k"),
                )
            }
            1 | 2 if !self.in_loop => {
                // the loop form: `h[idx] op= v` for each element of `ks`
                self.note("hist (loop h[i] op= v)");
                let ops: &[(&str, B)] = match e {
                    Type::I64 | Type::F64 => &[("+=", B::Add), ("*=", B::Mul)],
                    _ => &[("|=", B::BitOr), ("&=", B::BitAnd)],
                };
                let (s, bop) = self.pick(ops);
                // The operator's identity, and the array's first value (as the identity).
                let (rop, ident, init) = match (bop, e) {
                    (B::Add, Type::I64) => (ReduceOp::Add, Expr::i64(0), "0"),
                    (B::Add, _) => (ReduceOp::Add, Expr::f64(0.0), "0.0"),
                    (B::Mul, Type::I64) => (ReduceOp::Mul, Expr::i64(1), "1"),
                    (B::Mul, _) => (ReduceOp::Mul, Expr::f64(1.0), "1.0"),
                    (B::BitOr, _) => (ReduceOp::Or, Expr::bool(false), "false"),
                    _ => (ReduceOp::And, Expr::bool(true), "true"),
                };
                let init_ir = ident.clone();
                let (h, v, xs) = (self.name("h"), self.name("p"), self.name("xs"));
                let mut body_env = inner.clone();
                body_env.push((v.clone(), Type::I64));
                let was = std::mem::replace(&mut self.in_loop, true);
                let idx = self.expr(&Type::I64, &body_env, d.min(1));
                let val = self.expr(e, &body_env, d.min(1));
                self.in_loop = was;
                let per = |x: Expr| Expr::map(Lambda::new(&[&v], x), vec![Expr::var(&xs)]);
                let hist = Expr::hist(
                    Expr::length(Expr::var(&h)),
                    ident,
                    rop,
                    per(idx.ir),
                    per(val.ir),
                );
                let (x, y) = (self.name("x"), self.name("y"));
                let combine = Expr::map(
                    Lambda::new(&[&x, &y], Expr::binary(bop, Expr::var(&x), Expr::var(&y))),
                    vec![Expr::var(&h), hist],
                );
                let ir = Expr::let_(
                    &h,
                    Expr::replicate(Expr::var(&bn), init_ir),
                    Expr::let_(&xs, Expr::var(&ks), Expr::let_(&h, combine, Expr::var(&h))),
                );
                wrap(
                    format!(
                        "let mut {h} = vec![{init}; {bn}]; for {v} in {ks} {{ {h}[{}] {s} {}; }} {h}",
                        idx.src, val.src
                    ),
                    ir,
                )
            }
            _ => {
                self.note("hist");
                let z = if self.chance(50) {
                    self.lit(e)
                } else {
                    self.expr(e, &inner, d.min(1))
                };
                let (f, op) = self.reduce_op(e, &inner, d.min(1));
                let i = self.name("i");
                let (vf, vl) = {
                    let mut venv = inner.clone();
                    venv.push((i.clone(), Type::I64));
                    let was = std::mem::replace(&mut self.in_loop, false);
                    let v = self.expr(e, &venv, d.min(2));
                    self.in_loop = was;
                    (format!("|{i}| {}", v.src), Lambda::new(&[&i], v.ir))
                };
                wrap(
                    format!("hist({bn}, {}, {f}, {ks}, {ks}.map({vf}))", z.src),
                    Expr::hist(
                        Expr::var(&bn),
                        z.ir,
                        op,
                        Expr::var(&ks),
                        Expr::map(vl, vec![Expr::var(&ks)]),
                    ),
                )
            }
        }
    }

    /// A loop with state of type `t`: `for` over a range or the elements of an array, or
    /// `while` a condition holds and a counter stays below a bound of 0 to 4.
    fn gen_loop(&mut self, t: &Type, env: &Env, d: u32) -> Code {
        let kind = self.below(3);
        self.loop_kind(t, env, d, kind)
    }

    /// A `for` loop over a range (`kind` 0) or an array (1), or a `while` loop (2).
    fn loop_kind(&mut self, t: &Type, env: &Env, d: u32, kind: usize) -> Code {
        let init = self.expr(t, env, d);
        let s = self.name("s");
        let mut inner = env.clone();
        inner.push((s.clone(), t.clone()));
        match kind {
            0 => {
                self.note("for (range)");
                let lo = self.small(env, d, 3);
                let hi = self.small(&inner, d, 6);
                let (j, l, i) = (self.name("j"), self.name("lo"), self.name("i"));
                let mut body_env = inner.clone();
                body_env.push((j.clone(), Type::I64));
                let was = std::mem::replace(&mut self.in_loop, true);
                let body = self.expr(t, &body_env, d.min(3));
                self.in_loop = was;
                let lp = Expr::loop_for(
                    Expr::var(&s),
                    Expr::binary(B::Max, hi.ir - Expr::var(&l), Expr::i64(0)),
                    Lambda::new(
                        &[&s, &i],
                        Expr::let_(&j, Expr::var(&l) + Expr::var(&i), body.ir),
                    ),
                );
                code(
                    format!(
                        "{{ let mut {s} = {}; for {j} in ({})..({}) {{ {s} = {}; }} {s} }}",
                        init.src, lo.src, hi.src, body.src
                    ),
                    Expr::let_(&s, init.ir, Expr::let_(&l, lo.ir, lp)),
                )
            }
            1 => {
                self.note("for (elements)");
                let u = self.array_source_type(&inner, 2);
                let a = self.expr(&u, &inner, d);
                let (v, xs, i) = (self.name("p"), self.name("xs"), self.name("i"));
                let mut body_env = inner.clone();
                body_env.push((v.clone(), u.elem().expect("array").clone()));
                let was = std::mem::replace(&mut self.in_loop, true);
                let body = self.expr(t, &body_env, d.min(3));
                self.in_loop = was;
                let lp = Expr::loop_for(
                    Expr::var(&s),
                    Expr::length(Expr::var(&xs)),
                    Lambda::new(
                        &[&s, &i],
                        Expr::let_(&v, Expr::index(Expr::var(&xs), Expr::var(&i)), body.ir),
                    ),
                );
                code(
                    format!(
                        "{{ let mut {s} = {}; for {v} in {} {{ {s} = {}; }} {s} }}",
                        init.src, a.src, body.src
                    ),
                    Expr::let_(&s, init.ir, Expr::let_(&xs, a.ir, lp)),
                )
            }
            _ => {
                self.note("while");
                let j = self.name("j");
                let mut body_env = inner.clone();
                body_env.push((j.clone(), Type::I64));
                let was = std::mem::replace(&mut self.in_loop, true);
                let bound = self.small(&inner, d, 5);
                let cond = self.expr(&Type::Bool, &body_env, d.min(2));
                let step = self.expr(t, &body_env, d.min(3));
                self.in_loop = was;
                let st = self.name("st");
                let unpack = |body: Expr| {
                    Expr::let_(
                        &s,
                        Expr::proj(Expr::var(&st), 0),
                        Expr::let_(&j, Expr::proj(Expr::var(&st), 1), body),
                    )
                };
                let c = unpack(Expr::if_(
                    Expr::var(&j).lt(bound.ir),
                    cond.ir,
                    Expr::bool(false),
                ));
                let next = unpack(Expr::let_(
                    &s,
                    step.ir,
                    Expr::let_(
                        &j,
                        Expr::var(&j) + Expr::i64(1),
                        Expr::Tuple(vec![Expr::var(&s), Expr::var(&j)]),
                    ),
                ));
                let lp = Expr::loop_while(
                    Expr::Tuple(vec![Expr::var(&s), Expr::var(&j)]),
                    Lambda::new(&[&st], c),
                    Lambda::new(&[&st], next),
                );
                code(
                    format!(
                        "{{ let mut {s} = {}; let mut {j} = 0; while {j} < {} && {} {{ {s} = {}; {j} = {j} + 1; }} {s} }}",
                        init.src,
                        bound.src,
                        paren(&cond.src),
                        step.src
                    ),
                    Expr::let_(&s, init.ir, Expr::let_(&j, Expr::i64(0), Expr::proj(lp, 0))),
                )
            }
        }
    }

    /// A scalar body for the direct-pattern shapes: operators, math, casts, `if`, `let` and indexing
    /// of the scalar slices only.
    fn flat_scalar(&mut self, t: &Type, env: &Env, d: u32) -> Code {
        if d == 0 || self.chance(15) {
            return self.leaf(t, env);
        }
        let d = d - 1;
        let sub = |me: &mut Self, t: &Type| me.flat_scalar(t, env, d);
        let bin = |me: &mut Self, s: &str, op: B, a: &Type| {
            let (x, y) = (sub(me, a), sub(me, a));
            infix(x, s, op, y)
        };
        match (t, self.below(8)) {
            (_, 0) => {
                let c = sub(self, &Type::Bool);
                let (x, y) = (sub(self, t), sub(self, t));
                if_code(c, x, y)
            }
            (Type::I64 | Type::F64, 1) => {
                // a slice element by a guarded or raw index
                let s = if *t == Type::I64 { "a" } else { "b" };
                let i = sub(self, &Type::I64);
                if self.chance(70) {
                    code(
                        format!("{s}[({}).rem_euclid({s}.len() | 1)]", i.src),
                        Expr::index(
                            Expr::var(s),
                            Expr::binary(
                                B::RemEuclid,
                                i.ir,
                                Expr::binary(B::BitOr, Expr::length(Expr::var(s)), Expr::i64(1)),
                            ),
                        ),
                    )
                } else {
                    code(format!("{s}[{}]", i.src), Expr::index(Expr::var(s), i.ir))
                }
            }
            (Type::Bool, 1..=3) => {
                let u = self.pick(&[Type::I64, Type::F64]);
                let (s, op) = self.pick(&[
                    ("<", B::Lt),
                    ("<=", B::Le),
                    ("==", B::Eq),
                    ("!=", B::Ne),
                    (">", B::Gt),
                ]);
                bin(self, s, op, &u)
            }
            (Type::Bool, _) => {
                let (s, op) = self.pick(&[("&", B::BitAnd), ("|", B::BitOr), ("^", B::BitXor)]);
                bin(self, s, op, t)
            }
            (Type::I64, 2) => {
                let (s, op) = self.pick(&[("/", B::Div), ("%", B::Rem)]);
                let num = sub(self, t);
                let den = sub(self, t);
                if self.chance(70) {
                    code(
                        format!("({} {s} ({} | 1))", num.src, den.src),
                        Expr::binary(op, num.ir, Expr::binary(B::BitOr, den.ir, Expr::i64(1))),
                    )
                } else {
                    infix(num, s, op, den)
                }
            }
            (Type::I64, 3) => {
                let from = self.pick(&[Type::F64, Type::Bool]);
                let a = sub(self, &from);
                cast(a, ScalarType::I64)
            }
            (Type::F64, 3) => {
                let from = self.pick(&[Type::I64, Type::Bool]);
                let a = sub(self, &from);
                cast(a, ScalarType::F64)
            }
            (Type::I64, 4) => {
                let op = self.in_turn(&math_unary(ScalarType::I64));
                method0(&sub(self, t), op)
            }
            (Type::F64, 4) => {
                let op = self.in_turn(&math_unary(ScalarType::F64));
                method0(&sub(self, t), op)
            }
            (Type::F64, 5) => {
                let (name, op) = self.pick(&[
                    ("min", B::MinNum),
                    ("max", B::MaxNum),
                    ("hypot", B::Hypot),
                    ("powf", B::Powf),
                ]);
                let (x, y) = (sub(self, t), sub(self, t));
                method1(&x, name, op, &y)
            }
            (Type::I64, _) => {
                let (s, op) = self.pick(&[
                    ("+", B::Add),
                    ("-", B::Sub),
                    ("*", B::Mul),
                    ("&", B::BitAnd),
                    ("^", B::BitXor),
                    ("<<", B::Shl),
                    (">>", B::Shr),
                ]);
                bin(self, s, op, t)
            }
            _ => {
                let (s, op) = self.pick(&[
                    ("+", B::Add),
                    ("-", B::Sub),
                    ("*", B::Mul),
                    ("/", B::Div),
                    ("%", B::Rem),
                ]);
                bin(self, s, op, t)
            }
        }
    }

    /// A body of one of the four shapes the deleted direct patterns matched (a segmented or flat
    /// redomap, a flat map, a filter), with its result type.
    fn direct(&mut self, env: &Env) -> (Code, Type) {
        self.note("direct pattern");
        let d = 2 + self.below(3) as u32;
        let t = self.pick(&[Type::I64, Type::F64]);
        let (p, q) = (self.name("p"), self.name("q"));
        match self.below(4) {
            0 => {
                // a segmented redomap over the `Nested` rows
                let (r, v) = (self.name("r"), self.name("p"));
                let mut inner = env.clone();
                inner.push((v.clone(), Type::F64));
                let body = self.flat_scalar(&Type::F64, &inner, d);
                let red = self.pick(&["sum", "product", "min", "max"]);
                let (op, z) = identity(red, &Type::F64);
                let ir = Expr::map(
                    Lambda::new(
                        &[&r],
                        Expr::reduce(
                            op,
                            z,
                            Expr::map(Lambda::new(&[&v], body.ir), vec![Expr::var(&r)]),
                        ),
                    ),
                    vec![Expr::var("n")],
                );
                (
                    code(
                        format!("n.map(|{r}| {r}.map(|{v}| {}).{red}())", body.src),
                        ir,
                    ),
                    arr(Type::F64),
                )
            }
            1 => {
                // a flat redomap of the two zipped slices
                let mut inner = env.clone();
                inner.push((p.clone(), Type::I64));
                inner.push((q.clone(), Type::F64));
                let body = self.flat_scalar(&t, &inner, d);
                let red = self.pick(&["sum", "product", "min", "max"]);
                let (op, z) = identity(red, &t);
                let ir = Expr::reduce(
                    op,
                    z,
                    Expr::map(
                        Lambda::new(&[&p, &q], body.ir),
                        vec![Expr::var("a"), Expr::var("b")],
                    ),
                );
                (
                    code(
                        format!("a.zip(b).map(|({p}, {q})| {}).{red}()", body.src),
                        ir,
                    ),
                    t,
                )
            }
            2 => {
                // a flat map of one or two slices
                let ret = self.scalar_type();
                let mut inner = env.clone();
                inner.push((p.clone(), Type::I64));
                if self.chance(50) {
                    let body = self.flat_scalar(&ret, &inner, d);
                    let ir = Expr::map(Lambda::new(&[&p], body.ir), vec![Expr::var("a")]);
                    (code(format!("a.map(|{p}| {})", body.src), ir), arr(ret))
                } else {
                    inner.push((q.clone(), Type::F64));
                    let body = self.flat_scalar(&ret, &inner, d);
                    let ir = Expr::map(
                        Lambda::new(&[&p, &q], body.ir),
                        vec![Expr::var("a"), Expr::var("b")],
                    );
                    (
                        code(format!("a.zip(b).map(|({p}, {q})| {})", body.src), ir),
                        arr(ret),
                    )
                }
            }
            _ => {
                // a flat filter of a slice
                let mut inner = env.clone();
                inner.push((p.clone(), t.clone()));
                let body = self.flat_scalar(&Type::Bool, &inner, d);
                let s = if t == Type::I64 { "a" } else { "b" };
                let ir = Expr::proj(
                    Expr::filter(vec![Lambda::new(&[&p], body.ir)], Expr::var(s)),
                    0,
                );
                (code(format!("{s}.filter(|{p}| {})", body.src), ir), arr(t))
            }
        }
    }
}

impl G {
    /// This module's share of every list of math methods (one function of theme 22 per module:
    /// together they draw them all), applied in a chain to a random `f64`: unary `f64`
    /// methods, a binary one, then on the value `as i64` the `i64` ones, and a test of the
    /// value choosing between the two.
    fn math_share(&mut self, env: &Env, d: u32) -> Code {
        self.note("math method");
        let module = self.module;
        let share = |n: usize, j: usize| (module * n.div_ceil(SPREAD) + j) % n;
        let mut f = self.expr(&Type::F64, env, d);
        let unary = math_unary(ScalarType::F64);
        for j in 0..unary.len().div_ceil(SPREAD) {
            f = method0(&f, unary[share(unary.len(), j)]);
        }
        let (name, op, arg) = F64_BINARY[share(F64_BINARY.len(), 0)].clone();
        let y = self.expr(&arg, env, d.min(1));
        f = method1(&f, name, op, &y);
        let mut i = code(
            format!("(({}) as i64)", f.src),
            Expr::unary(UnaryOp::Cast(ScalarType::I64), f.ir.clone()),
        );
        let int_unary = math_unary(ScalarType::I64);
        i = method0(&i, int_unary[share(int_unary.len(), 0)]);
        let (name, op) = I64_BINARY[share(I64_BINARY.len(), 0)];
        let y = self.expr(&Type::I64, env, d.min(1));
        let y = if name == "pow" {
            code(
                format!("(({}) & 15)", y.src),
                Expr::binary(B::BitAnd, y.ir, Expr::i64(15)),
            )
        } else {
            y
        };
        i = method1(&i, name, op, &y);
        let tests = [UnaryOp::IsNan, UnaryOp::IsFinite, UnaryOp::IsInfinite];
        let c = method0(&f, tests[share(tests.len(), 0)]);
        code(
            format!(
                "(if {} {{ (({}) as f64) }} else {{ {} }})",
                c.src, i.src, f.src
            ),
            Expr::if_(
                c.ir,
                Expr::unary(UnaryOp::Cast(ScalarType::F64), i.ir),
                f.ir,
            ),
        )
    }
}

/// The binary math methods of `f64`, with the type of their argument.
const F64_BINARY: [(&str, B, Type); 11] = [
    ("powf", B::Powf, Type::F64),
    ("powi", B::Powi, Type::I64),
    ("atan2", B::Atan2, Type::F64),
    ("hypot", B::Hypot, Type::F64),
    ("copysign", B::Copysign, Type::F64),
    ("rem_euclid", B::RemEuclid, Type::F64),
    ("div_euclid", B::DivEuclid, Type::F64),
    ("min", B::MinNum, Type::F64),
    ("max", B::MaxNum, Type::F64),
    ("minimum", B::Min, Type::F64),
    ("maximum", B::Max, Type::F64),
];

/// The binary math methods of `i64` (a divisor of 0 is an error).
const I64_BINARY: [(&str, B); 5] = [
    ("pow", B::Pow),
    ("rem_euclid", B::RemEuclid),
    ("div_euclid", B::DivEuclid),
    ("min", B::Min),
    ("max", B::Max),
];

/// How many themes [`G::theme`] has: function `fK` has theme `K % THEMES`.
const THEMES: usize = 24;

impl G {
    /// The body of a function of theme `theme` (each construct of the corpus is the outermost
    /// one of some functions, its operands drawn at random), and its result type.
    fn theme(&mut self, theme: usize, env: &Env) -> (Code, Type) {
        let d = 2 + self.below(2) as u32;
        let scalar = self.scalar_type();
        let elem = self.pick(&[
            Type::I64,
            Type::F64,
            Type::Bool,
            Type::I64,
            Type::F64,
            arr(Type::I64),
            arr(Type::F64),
        ]);
        let num = self.pick(&[Type::I64, Type::F64]);
        let any = self.pick(&[
            Type::I64,
            Type::F64,
            Type::Bool,
            arr(Type::I64),
            arr(Type::F64),
            arr(arr(Type::I64)),
            Type::Tuple(vec![Type::I64, arr(Type::F64)]),
        ]);
        let array =
            |me: &mut Self, e: &Type, case: usize| (me.array_case(e, env, d, case), arr(e.clone()));
        match theme % THEMES {
            0 => self.direct(env),
            k @ 1..=3 => (self.map_kind(&elem, env, d, k), arr(elem)),
            4 => (self.map_kind(&elem, env, d, 0), arr(elem)),
            5 => array(self, &elem, 4),
            6 => array(self, &scalar, 5),
            7 => array(self, &num, 6),
            8 => array(self, &elem, 7),
            9 => array(self, &elem, 9),
            10 => array(self, &elem, 10),
            11 => array(self, &elem, 11),
            12 => (self.hist_kind(&scalar, env, d, 3), arr(scalar)),
            13 => {
                if self.chance(40) {
                    (self.hist_kind(&Type::I64, env, d, 0), arr(Type::I64))
                } else {
                    (self.hist_kind(&scalar, env, d, 1), arr(scalar))
                }
            }
            14 => array(self, &Type::I64, 13),
            15 => array(self, &Type::I64, 14),
            k @ 16..=18 => (self.loop_kind(&any, env, d, k - 16), any),
            19 => (self.fold(&scalar, env, d), scalar),
            20 => (self.reduction(&scalar, env, d), scalar),
            21 => (self.select_scalar(&scalar, env, d), scalar),
            22 => (self.math_share(env, d), Type::F64),
            _ => {
                let t = any;
                if self.chance(50) {
                    (self.element(&t, env, d), t)
                } else {
                    (self.gen_let(&t, env, d), t)
                }
            }
        }
    }
}

fn tuple(fs: Vec<Code>) -> Code {
    let srcs: Vec<&str> = fs.iter().map(|c| c.src.as_str()).collect();
    code(
        format!("({})", srcs.join(", ")),
        Expr::Tuple(fs.into_iter().map(|c| c.ir).collect()),
    )
}

/// `(if (c) { x } else { y })`.
fn if_code(c: Code, x: Code, y: Code) -> Code {
    code(
        format!("(if ({}) {{ {} }} else {{ {} }})", c.src, x.src, y.src),
        Expr::if_(c.ir, x.ir, y.ir),
    )
}

/// `((a) as t)`.
fn cast(a: Code, to: ScalarType) -> Code {
    code(
        format!("(({}) as {})", a.src, to.name()),
        Expr::unary(UnaryOp::Cast(to), a.ir),
    )
}

/// `-a` or `!a`.
fn prefix(sym: &str, op: UnaryOp, a: Code) -> Code {
    code(format!("{sym}{}", paren(&a.src)), Expr::unary(op, a.ir))
}

/// `(x s y)` for the operator `op`.
fn infix(x: Code, s: &str, op: B, y: Code) -> Code {
    code(
        format!("({} {s} {})", x.src, y.src),
        Expr::binary(op, x.ir, y.ir),
    )
}

/// `s` in parentheses unless it is a name or already parenthesised.
fn paren(s: &str) -> String {
    if s.starts_with('(') || s.chars().all(|c| c.is_alphanumeric() || c == '_') {
        s.to_string()
    } else {
        format!("({s})")
    }
}

/// `(a).op()` for a unary operator named as its method.
fn method0(a: &Code, op: UnaryOp) -> Code {
    code(
        format!("({}).{}()", a.src, op.name()),
        Expr::unary(op, a.ir.clone()),
    )
}

/// `(a).name(b)` for the binary operator `op`.
fn method1(a: &Code, name: &str, op: B, b: &Code) -> Code {
    code(
        format!("({}).{name}({})", a.src, b.src),
        Expr::binary(op, a.ir.clone(), b.ir.clone()),
    )
}

fn method2(a: &Code, name: &str, op: TernaryOp, b: &Code, c: &Code) -> Code {
    code(
        format!("({}).{name}({}, {})", a.src, b.src, c.src),
        Expr::ternary(op, a.ir.clone(), b.ir.clone(), c.ir.clone()),
    )
}

/// The math methods from `t` to `t` (or `bool`), named as the operators (not the casts,
/// negation or `!`).
fn math_unary(t: ScalarType) -> Vec<UnaryOp> {
    UnaryOp::ALL
        .into_iter()
        .filter(|o| {
            !matches!(
                o,
                UnaryOp::Cast(_) | UnaryOp::Neg | UnaryOp::Not | UnaryOp::BitNot
            ) && o.result_type(t) == Some(t)
        })
        .collect()
}

/// Every math method the generator draws, by name.
pub(crate) fn math_methods() -> Vec<&'static str> {
    let mut names: Vec<&str> = [ScalarType::I64, ScalarType::F64]
        .into_iter()
        .flat_map(math_unary)
        .chain([UnaryOp::IsNan, UnaryOp::IsFinite, UnaryOp::IsInfinite])
        .map(UnaryOp::name)
        .chain(F64_BINARY.iter().map(|(n, _, _)| *n))
        .chain(I64_BINARY.iter().map(|(n, _)| *n))
        .chain(TernaryOp::ALL.map(TernaryOp::name))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The operator and identity of `sum`, `product`, `min`, `max` on `t`.
fn identity(name: &str, t: &Type) -> (ReduceOp, Expr) {
    let int = *t == Type::I64;
    match name {
        "sum" if int => (ReduceOp::Add, Expr::i64(0)),
        "sum" => (ReduceOp::Add, Expr::f64(0.0)),
        "product" if int => (ReduceOp::Mul, Expr::i64(1)),
        "product" => (ReduceOp::Mul, Expr::f64(1.0)),
        "min" if int => (ReduceOp::Min, Expr::i64(i64::MAX)),
        "min" => (ReduceOp::Min, Expr::f64(f64::INFINITY)),
        "max" if int => (ReduceOp::Max, Expr::i64(i64::MIN)),
        _ => (ReduceOp::Max, Expr::f64(f64::NEG_INFINITY)),
    }
}

/// One generated module: its Rust source, its IR (the helpers and every `fK`), the names of
/// the `fK` with the positions in [`params`] of the parameters each takes, and the constructs
/// they drew.
pub(crate) struct Module {
    pub(crate) source: String,
    pub(crate) program: Program,
    pub(crate) functions: Vec<(String, Vec<usize>)>,
    pub(crate) constructs: BTreeMap<&'static str, usize>,
}

/// Module `index` of the corpus: `helper`, `rec` and `count` functions `f{first}..`.
pub(crate) fn module(seed: u64, index: usize, first: usize, count: usize) -> Module {
    let mut g = G {
        r: Rng::new(seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        fresh: 0,
        used: BTreeMap::new(),
        calls: false,
        in_loop: false,
        module: index,
        turns: BTreeMap::new(),
    };
    let ia = arr(Type::I64);
    let henv: Env = vec![("hp".into(), Type::I64), ("hq".into(), ia.clone())];
    let helper = g.expr(&Type::I64, &henv, 3);
    let renv: Env = vec![("rn".into(), Type::I64), ("rq".into(), ia.clone())];
    let step = g.expr(&ia, &renv, 2);
    g.used.clear();
    // Each level keeps at most REC_MAX elements, so that no level squares the sizes.
    let (sa, sl) = ("__rs_a", "__rs_lo");
    let cut = Expr::let_(
        sa,
        Expr::var("rs"),
        Expr::let_(
            sl,
            Expr::i64(0),
            Expr::slice(
                Expr::var(sa),
                Expr::var(sl),
                Expr::binary(B::Min, Expr::length(Expr::var("rs")), Expr::i64(REC_MAX))
                    - Expr::var(sl),
            ),
        ),
    );
    let rec_ir = Expr::if_(
        Expr::binary(B::Le, Expr::var("rn"), Expr::i64(0)),
        Expr::var("rq"),
        Expr::call(
            "rec",
            vec![
                Expr::var("rn") - Expr::i64(1),
                Expr::let_("rs", step.ir, cut),
            ],
        ),
    );
    let mut src = String::new();
    let _ = write!(
        src,
        "    pub fn helper(hp: i64, hq: &[i64]) -> i64 {{\n        {}\n    }}\n\n    pub fn rec(rn: i64, rq: Vec<i64>) -> Vec<i64> {{\n        if rn <= 0 {{ rq }} else {{ rec(rn - 1, {{ let rs = {}; rs[..rs.len().min({REC_MAX})] }}) }}\n    }}\n",
        helper.src, step.src
    );
    let mut fns = vec![
        Function::new("helper", henv, Type::I64, helper.ir),
        Function::new("rec", renv, ia, rec_ir),
    ];
    g.calls = true;
    let mut functions = Vec::new();
    let mut constructs = BTreeMap::new();
    for k in first..first + count {
        g.used.clear();
        g.fresh = 0;
        let all = params();
        let (body, ret) = g.theme(k, &all);
        // The function takes the parameters its body reads (`k` if none).
        let mut used: Vec<usize> = (0..all.len())
            .filter(|&p| mentions(&body.src, &all[p].0))
            .collect();
        if used.is_empty() {
            used.push(5);
        }
        let signature: Vec<String> = used
            .iter()
            .map(|&p| format!("{}: {}", all[p].0, RUST_PARAMS[p].0))
            .collect();
        let name = format!("f{k}");
        let _ = write!(
            src,
            "\n    pub fn {name}({}) -> {} {{\n        {}\n    }}\n",
            signature.join(", "),
            rust_type(&ret),
            body.src
        );
        let env = used.iter().map(|&p| all[p].clone()).collect();
        fns.push(Function::new(&name, env, ret, body.ir));
        functions.push((name, used));
        for (c, _) in std::mem::take(&mut g.used) {
            *constructs.entry(c).or_default() += 1;
        }
    }
    Module {
        source: src,
        program: Program::new(fns),
        functions,
        constructs,
    }
}

/// The text of `corpus_{index}.rs`: the module `rnd{index}` and its table of cases.
pub(crate) fn file(m: &Module, seed: u64, index: usize) -> String {
    let mut cases = String::new();
    for (name, used) in &m.functions {
        let args: Vec<&str> = used.iter().map(|&p| RUST_PARAMS[p].1).collect();
        let args = args.join(", ");
        let _ = writeln!(
            cases,
            "    (\n        \"{name}\",\n        |i| value(rnd{index}::try_{name}({args})),\n        \
             |i| value(rnd{index}::plan::{name}::per_lane({args})),\n    ),"
        );
    }
    let counts: Vec<String> = m
        .constructs
        .iter()
        .map(|(c, n)| format!("{c} {n}"))
        .collect();
    format!(
        "// @generated by tests/random_corpus/gen.rs (seed {seed}, module {index}); do not edit: see \
         tests/vectorise_random_corpus.rs.\n// Functions drawing each construct: {}.\n\n\
         #[flatland::vectorise]\n#[allow(unused_parens)]\nmod rnd{index} {{\n    use flatland::runtime::elt::Nested;\n\n{}}}\n\n\
         const CASES_{index}: &[Case] = &[\n{cases}];\n",
        counts.join(", "),
        m.source
    )
}
