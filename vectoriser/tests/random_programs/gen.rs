//! The random well-typed programs of `random.rs` (and of the fuzz target `eval_exec`, which
//! includes this file): nested maps to depth 3 with free variables from every level, `if` under
//! `map`, reductions, scans, redomaps, filters, partitions, indexing, slices, iota, replicate,
//! append, concat, scatter, reductions by index (`hist`, `count_by_index`), sequential loops
//! (`for` and `while`, under maps with a different trip count per lane), literals, `let`, a
//! helper and a recursive function, and every math operator of the runtime's table
//! (`gen_builtins.rs`).

#![allow(dead_code, unreachable_pub)]

use flatland_vectoriser::ir::{
    BinaryOp as B, Expr, Function, Lambda, Program, ReduceOp, ScalarType, Type, UnaryOp,
};
use flatland_vectoriser::value::Value;
use std::sync::Arc;

/// The generator's choices: splitmix64 from a seed, or (for a fuzzer) the bytes of an input
/// first, so that a small change of the input is a small change of the program.
pub struct Rng {
    state: u64,
    bytes: Vec<u8>,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng {
            state: seed,
            bytes: Vec::new(),
        }
    }

    /// Choices read from `data` (one byte each) until it runs out, then from a seed made of it.
    pub fn from_bytes(data: &[u8]) -> Rng {
        let seed = data.iter().fold(0xCBF2_9CE4_8422_2325_u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01B3)
        });
        let mut bytes = data.to_vec();
        bytes.reverse();
        Rng { state: seed, bytes }
    }

    pub fn next(&mut self) -> u64 {
        if let Some(b) = self.bytes.pop() {
            return u64::from(b);
        }
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

type Env = Vec<(String, Type)>;

#[path = "gen_builtins.rs"]
mod gen_builtins;

struct G {
    rng: Rng,
    fresh: usize,
    with_helpers: bool,
    /// Leave some indices and divisors unguarded, so that runs fail, often on several lanes
    /// and at several steps ([`failing_program`]).
    failing: bool,
}

fn arr(t: Type) -> Type {
    Type::array(t)
}

fn depth_of(t: &Type) -> usize {
    match t {
        Type::Array(e) => 1 + depth_of(e),
        _ => 0,
    }
}

fn modulo(e: Expr, m: Expr) -> Expr {
    // ((e % m) + m) % m, in 0..m for m > 0
    Expr::binary(B::Rem, Expr::binary(B::Rem, e, m.clone()) + m.clone(), m)
}

fn small_count(e: Expr, m: i64) -> Expr {
    modulo(e, Expr::i64(m))
}

impl G {
    fn name(&mut self, p: &str) -> String {
        self.fresh += 1;
        format!("{p}{}", self.fresh)
    }

    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.rng.below(xs.len())]
    }

    fn lit(&mut self, t: &Type) -> Expr {
        match t {
            Type::I64 => Expr::i64(self.rng.below(21) as i64 - 10),
            Type::F64 => Expr::f64((self.rng.below(41) as f64 - 20.0) * 0.25),
            Type::Bool => Expr::bool(self.rng.chance(50)),
            Type::Array(e) => {
                let n = self.rng.below(3);
                let es = (0..n).map(|_| self.lit(e)).collect();
                Expr::ArrayLit((**e).clone(), es)
            }
            Type::Tuple(ts) => Expr::Tuple(ts.iter().map(|t| self.lit(t)).collect()),
        }
    }

    fn var(&mut self, t: &Type, env: &Env) -> Option<Expr> {
        let vs: Vec<&String> = env.iter().filter(|(_, u)| u == t).map(|(n, _)| n).collect();
        if vs.is_empty() {
            None
        } else {
            let v: &&String = self.pick(&vs);
            Some(Expr::var(v))
        }
    }

    fn leaf(&mut self, t: &Type, env: &Env) -> Expr {
        if self.rng.chance(75)
            && let Some(v) = self.var(t, env)
        {
            return v;
        }
        self.lit(t)
    }

    fn scalar_type(&mut self) -> Type {
        self.pick(&[Type::I64, Type::F64, Type::Bool]).clone()
    }

    /// An array type present in the environment (to map over), or a random one.
    fn array_source(&mut self, env: &Env, max_depth: usize) -> Type {
        let vs: Vec<Type> = env
            .iter()
            .filter(|(_, t)| matches!(t, Type::Array(_)) && depth_of(t) <= max_depth)
            .map(|(_, t)| t.clone())
            .collect();
        if !vs.is_empty() && self.rng.chance(80) {
            return self.pick(&vs).clone();
        }
        arr(self.scalar_type())
    }

    fn lambda(&mut self, params: &[Type], ret: &Type, env: &Env, depth: u32) -> Lambda {
        let names: Vec<String> = params.iter().map(|_| self.name("p")).collect();
        let mut inner = env.clone();
        inner.extend(names.iter().cloned().zip(params.iter().cloned()));
        let body = self.expr(ret, &inner, depth);
        Lambda {
            params: names.into_iter().map(|n| (n, None)).collect(),
            body: body.into(),
        }
    }

    fn reduce_op(&mut self, t: &Type, env: &Env) -> ReduceOp {
        if self.rng.chance(25) {
            // Any body will do: eval and exec follow the same association.
            return ReduceOp::Lambda(self.lambda(&[t.clone(), t.clone()], t, env, 1));
        }
        match t {
            Type::Bool => self.pick(&[ReduceOp::And, ReduceOp::Or]).clone(),
            _ => self
                .pick(&[ReduceOp::Add, ReduceOp::Mul, ReduceOp::Min, ReduceOp::Max])
                .clone(),
        }
    }

    fn expr(&mut self, t: &Type, env: &Env, depth: u32) -> Expr {
        if depth == 0 || self.rng.chance(10) {
            return self.leaf(t, env);
        }
        let d = depth - 1;
        // Choices open to every type.
        match self.rng.below(10) {
            0 => {
                let c = self.expr(&Type::Bool, env, d);
                return Expr::if_(c, self.expr(t, env, d), self.expr(t, env, d));
            }
            1 => {
                let u = if self.rng.chance(50) {
                    self.scalar_type()
                } else {
                    self.array_source(env, 2)
                };
                let v = self.expr(&u, env, d);
                let n = self.name("v");
                let mut inner = env.clone();
                inner.push((n.clone(), u));
                return Expr::let_(&n, v, self.expr(t, &inner, d));
            }
            2 => {
                // index with an in-range index, a guarded empty case (unguarded, one time in
                // three, in a failing program)
                let a = self.expr(&arr(t.clone()), env, d);
                let i = self.expr(&Type::I64, env, d);
                if self.failing && self.rng.chance(35) {
                    return Expr::index(a, i);
                }
                let n = self.name("a");
                let len = Expr::length(Expr::var(&n));
                let body = Expr::if_(
                    Expr::binary(B::Eq, len.clone(), Expr::i64(0)),
                    self.lit(t),
                    Expr::index(Expr::var(&n), modulo(i, len)),
                );
                return Expr::let_(&n, a, body);
            }
            3 if self.rng.chance(40) => return self.gen_loop(t, env, d),
            _ => {}
        }
        match t {
            Type::Array(e) => self.gen_array(e, env, d),
            _ => self.gen_scalar(t, env, d),
        }
    }

    fn gen_scalar(&mut self, t: &Type, env: &Env, d: u32) -> Expr {
        match self.rng.below(8) {
            2 => {
                let op = self.reduce_op(t, env);
                let z = if self.rng.chance(50) {
                    self.lit(t)
                } else {
                    self.expr(t, env, d)
                };
                Expr::reduce(op, z, self.expr(&arr(t.clone()), env, d))
            }
            3 => {
                let u = self.array_source(env, 3);
                let a = self.expr(&u, env, d);
                let op = self.reduce_op(t, env);
                let f = self.lambda(&[u.elem().expect("array").clone()], t, env, d);
                Expr::redomap(op, self.lit(t), f, vec![a])
            }
            4 if *t == Type::I64 => {
                let u = self.array_source(env, 3);
                Expr::length(self.expr(&u, env, d))
            }
            6 => self.class_reductions(t, env, d),
            5 if *t == Type::I64 && self.with_helpers => Expr::call(
                "helper",
                vec![
                    self.expr(&Type::I64, env, d),
                    self.expr(&arr(Type::I64), env, d),
                ],
            ),
            _ => self.scalar_op(t, env, d),
        }
    }

    /// A built-in reduction with a literal identity (what partition-reduce fuses).
    fn builtin_reduction(&mut self, t: &Type) -> (ReduceOp, Expr) {
        let op = match t {
            Type::Bool => self.pick(&[ReduceOp::And, ReduceOp::Or]).clone(),
            _ => self
                .pick(&[ReduceOp::Add, ReduceOp::Mul, ReduceOp::Min, ReduceOp::Max])
                .clone(),
        };
        (op, self.lit(t))
    }

    /// A filter or partition of a one-dimensional array whose classes feed reductions (and,
    /// sometimes, a nested filter and a use of a class elsewhere): partition-reduce and the
    /// mega step. `let p = filter(..) in let r1 = reduce(.., p.i) in let r2 = reduce(..,
    /// map(f, p.j)) in r1 op r2`, with variations.
    fn class_reductions(&mut self, t: &Type, env: &Env, d: u32) -> Expr {
        let e = self.scalar_type();
        // Shallow lambdas often compile to the single-pass kernel; deeper ones test its
        // fallback to the unfused steps.
        let ld = if self.rng.chance(60) { 1 } else { d.min(2) };
        let src = self.expr(&arr(e.clone()), env, d);
        let pn = self.name("p");
        let (part, classes) = if self.rng.chance(50) {
            let k = 1 + self.rng.below(3);
            let preds = (0..k)
                .map(|_| self.lambda(std::slice::from_ref(&e), &Type::Bool, env, ld))
                .collect();
            (Expr::filter(preds, src), k + 1)
        } else {
            let classes = 1 + self.rng.below(4);
            let kn = self.name("k");
            let mut inner = env.clone();
            inner.push((kn.clone(), e.clone()));
            let key_body = small_count(self.expr(&Type::I64, &inner, ld), classes as i64);
            let interest: Vec<usize> = (0..classes).rev().collect();
            (
                Expr::partition(classes, interest, Lambda::new(&[&kn], key_body), src),
                classes,
            )
        };
        let mut binds: Vec<(String, Expr)> = vec![(pn.clone(), part)];
        let mut results = Vec::new();
        for _ in 0..=self.rng.below(3) {
            let mut class = Expr::proj(Expr::var(&pn), self.rng.below(classes));
            if self.rng.chance(30) {
                // a nested filter of the class
                let qn = self.name("q");
                let pred = self.lambda(std::slice::from_ref(&e), &Type::Bool, env, ld);
                binds.push((qn.clone(), Expr::filter(vec![pred], class)));
                class = Expr::proj(Expr::var(&qn), self.rng.below(2));
            }
            let (op, z) = self.builtin_reduction(t);
            let r = if e == *t && self.rng.chance(40) {
                Expr::reduce(op, z, class)
            } else {
                let f = self.lambda(std::slice::from_ref(&e), t, env, ld);
                if self.rng.chance(50) {
                    Expr::redomap(op, z, f, vec![class])
                } else {
                    let mn = self.name("y");
                    binds.push((mn.clone(), Expr::map(f, vec![class])));
                    Expr::reduce(op, z, Expr::var(&mn))
                }
            };
            let rn = self.name("r");
            binds.push((rn.clone(), r));
            results.push(Expr::var(&rn));
        }
        if *t == Type::I64 && self.rng.chance(40) {
            // a class used elsewhere too: its packed array is an output
            let c = Expr::proj(Expr::var(&pn), self.rng.below(classes));
            results.push(Expr::length(c));
        }
        let combine = match t {
            Type::Bool => B::Or,
            Type::I64 => B::Add,
            _ => B::Max,
        };
        let first = results.remove(0);
        let body = results
            .into_iter()
            .fold(first, |a, b| Expr::binary(combine, a, b));
        let_chain(binds, body)
    }

    fn scalar_op(&mut self, t: &Type, env: &Env, d: u32) -> Expr {
        if self.rng.chance(20) {
            return self.math_op(t, env, d);
        }
        if self.rng.chance(5) {
            return self.select_scalar(t, env, d);
        }
        match t {
            Type::Bool => match self.rng.below(4) {
                0 => Expr::unary(UnaryOp::Not, self.expr(t, env, d)),
                1 => {
                    let op = *self.pick(&[B::And, B::Or, B::BitXor, B::Eq]);
                    Expr::binary(op, self.expr(t, env, d), self.expr(t, env, d))
                }
                _ => {
                    let u = if self.rng.chance(50) {
                        Type::I64
                    } else {
                        Type::F64
                    };
                    let op = *self.pick(&[B::Lt, B::Le, B::Gt, B::Ge, B::Eq, B::Ne]);
                    Expr::binary(op, self.expr(&u, env, d), self.expr(&u, env, d))
                }
            },
            Type::I64 => match self.rng.below(6) {
                0 => Expr::unary(
                    *self.pick(&[UnaryOp::Neg, UnaryOp::Abs, UnaryOp::BitNot]),
                    self.expr(t, env, d),
                ),
                1 => {
                    let from = self.pick(&[Type::F64, Type::Bool]).clone();
                    Expr::unary(UnaryOp::Cast(ScalarType::I64), self.expr(&from, env, d))
                }
                2 => {
                    let op = *self.pick(&[B::Div, B::Rem, B::FloorDiv, B::Mod]);
                    let den = self.expr(t, env, d);
                    let den = if self.failing && self.rng.chance(50) {
                        den
                    } else {
                        Expr::binary(B::BitOr, den, Expr::i64(1))
                    };
                    Expr::binary(op, self.expr(t, env, d), den)
                }
                3 => Expr::binary(
                    *self.pick(&[B::Shl, B::Shr]),
                    self.expr(t, env, d),
                    self.expr(t, env, d),
                ),
                _ => {
                    let op =
                        *self.pick(&[B::Add, B::Sub, B::Mul, B::Min, B::Max, B::BitAnd, B::BitXor]);
                    Expr::binary(op, self.expr(t, env, d), self.expr(t, env, d))
                }
            },
            _ => match self.rng.below(5) {
                0 => Expr::unary(
                    *self.pick(&[UnaryOp::Neg, UnaryOp::Abs]),
                    self.expr(t, env, d),
                ),
                1 => Expr::unary(
                    UnaryOp::Sqrt,
                    Expr::unary(UnaryOp::Abs, self.expr(t, env, d)),
                ),
                2 => {
                    // keep floats finite: casts of small integers only
                    let i = small_count(self.expr(&Type::I64, env, d), 100);
                    Expr::unary(UnaryOp::Cast(ScalarType::F64), i)
                }
                _ => {
                    let op = *self.pick(&[B::Add, B::Sub, B::Mul, B::Min, B::Max]);
                    let a = self.expr(t, env, d);
                    let b = self.expr(t, env, d);
                    // bound magnitudes so products stay finite
                    Expr::binary(
                        B::Min,
                        Expr::binary(B::Max, Expr::binary(op, a, b), Expr::f64(-1e6)),
                        Expr::f64(1e6),
                    )
                }
            },
        }
    }

    /// A loop with state of type `t`: `for` a count of 0 to 4 iterations, or `while` a
    /// predicate of the state holds and a counter stays below a bound of 0 to 4 (so it ends);
    /// under maps the counts and bounds differ per lane.
    fn gen_loop(&mut self, t: &Type, env: &Env, d: u32) -> Expr {
        let init = self.expr(t, env, d);
        let bn = self.name("lb");
        let bound = small_count(self.expr(&Type::I64, env, d), 5);
        let mut inner = env.clone();
        inner.push((bn.clone(), Type::I64));
        let body = if self.rng.chance(50) {
            let body = self.lambda(&[t.clone(), Type::I64], t, &inner, d.min(2));
            Expr::loop_for(init, Expr::var(&bn), body)
        } else {
            let st = Type::Tuple(vec![t.clone(), Type::I64]);
            let (c, s) = (self.name("ls"), self.name("ls"));
            let mut cenv = inner.clone();
            cenv.push((c.clone(), st.clone()));
            let pred = self.lambda(std::slice::from_ref(t), &Type::Bool, &cenv, d.min(1));
            let under = Expr::proj(Expr::var(&c), 1).lt(Expr::var(&bn));
            let cond = Expr::binary(
                B::And,
                under,
                Expr::let_(
                    &pred.params[0].0,
                    Expr::proj(Expr::var(&c), 0),
                    (*pred.body).clone(),
                ),
            );
            let step = self.lambda(std::slice::from_ref(t), t, &inner, d.min(2));
            let next = Expr::Tuple(vec![
                Expr::let_(
                    &step.params[0].0,
                    Expr::proj(Expr::var(&s), 0),
                    (*step.body).clone(),
                ),
                Expr::proj(Expr::var(&s), 1) + Expr::i64(1),
            ]);
            Expr::proj(
                Expr::loop_while(
                    Expr::Tuple(vec![init, Expr::i64(0)]),
                    Lambda::new(&[&c], cond),
                    Lambda::new(&[&s], next),
                ),
                0,
            )
        };
        Expr::let_(&bn, bound, body)
    }

    /// `hist(bins, z, op, ks, map(f, ks))`: the keys raw (many out of range, skipped) or
    /// mostly in `-1..bins`, under maps the bins and keys differ per lane; a built-in operator
    /// or a lambda, with a literal or computed identity; sometimes `count_by_index`.
    fn hist(&mut self, e: &Type, env: &Env, d: u32) -> Expr {
        let bn = self.name("hb");
        let bins = small_count(self.expr(&Type::I64, env, d), 6);
        let raw = self.expr(&arr(Type::I64), env, d);
        let kn = self.name("hk");
        let keys = if self.rng.chance(50) {
            raw
        } else {
            let i = self.name("i");
            let hit = modulo(Expr::var(&i), Expr::var(&bn) + Expr::i64(2)) - Expr::i64(1);
            Expr::map(Lambda::new(&[&i], hit), vec![raw])
        };
        let mut inner = env.clone();
        inner.push((bn.clone(), Type::I64));
        inner.push((kn.clone(), arr(Type::I64)));
        let body = if *e == Type::I64 && self.rng.chance(20) {
            flatland_vectoriser::derived::count_by_index(
                Expr::var(&bn),
                Expr::var(&kn),
                &self.name("ck"),
            )
        } else {
            let (op, z) = if self.rng.chance(50) {
                self.builtin_reduction(e)
            } else {
                let op = self.reduce_op(e, &inner);
                (op, self.expr(e, &inner, d.min(1)))
            };
            let vf = self.lambda(&[Type::I64], e, &inner, d.min(2));
            let vals = Expr::map(vf, vec![Expr::var(&kn)]);
            Expr::hist(Expr::var(&bn), z, op, Expr::var(&kn), vals)
        };
        Expr::let_(&bn, bins, Expr::let_(&kn, keys, body))
    }

    /// Filters of one array around one operand, appended (quicksort's parts): `let s = .. in
    /// let o = .. in let a = filter([|x| x < o], s).0 in .. in append(a, ..)`, the comparisons
    /// drawn so that they sometimes exclude each other (the sibling-filters rule then merges
    /// them into one filter) and sometimes not, either way round, against a lane's scalar or a
    /// literal.
    fn sibling_parts(&mut self, e: &Type, env: &Env, d: u32) -> Expr {
        let (sn, on) = (self.name("s"), self.name("o"));
        let mut binds = vec![
            (sn.clone(), self.expr(&arr(e.clone()), env, d)),
            (on.clone(), self.expr(e, env, d)),
        ];
        let operand = if self.rng.chance(30) {
            self.lit(e)
        } else {
            Expr::var(&on)
        };
        let ops = if self.rng.chance(60) {
            vec![B::Lt, B::Eq, B::Gt]
        } else {
            let all = [B::Lt, B::Le, B::Eq, B::Ne, B::Gt, B::Ge];
            (0..2 + self.rng.below(2))
                .map(|_| *self.pick(&all))
                .collect()
        };
        let mut parts = Vec::new();
        for op in ops {
            let x = self.name("x");
            let body = if self.rng.chance(50) {
                Expr::binary(op, Expr::var(&x), operand.clone())
            } else {
                let mirrored = match op {
                    B::Lt => B::Gt,
                    B::Le => B::Ge,
                    B::Gt => B::Lt,
                    B::Ge => B::Le,
                    other => other,
                };
                Expr::binary(mirrored, operand.clone(), Expr::var(&x))
            };
            let part = self.name("part");
            let filter = Expr::filter(vec![Lambda::new(&[&x], body)], Expr::var(&sn));
            binds.push((part.clone(), Expr::proj(filter, 0)));
            parts.push(Expr::var(&part));
        }
        let last = parts.pop().expect("two parts or more");
        let body = parts
            .into_iter()
            .rev()
            .fold(last, |acc, p| Expr::append(p, acc));
        let_chain(binds, body)
    }

    fn gen_array(&mut self, e: &Type, env: &Env, d: u32) -> Expr {
        if self.rng.chance(6) {
            return self.select_array(e, env, d);
        }
        let t = arr(e.clone());
        let depth = depth_of(&t);
        match self.rng.below(14) {
            0..=2 => {
                // map over one or two arrays: their elements become the lambda's parameters
                let k = 1 + usize::from(self.rng.chance(30));
                let srcs: Vec<Type> = (0..k).map(|_| self.array_source(env, 3)).collect();
                let first = self.expr(&srcs[0], env, d);
                let n = self.name("m");
                let mut arrays = vec![Expr::var(&n)];
                let mut inner = env.clone();
                inner.push((n.clone(), srcs[0].clone()));
                if k == 2 {
                    // a second array of the same length: a map over the first
                    let f = self.lambda(
                        &[srcs[0].elem().expect("array").clone()],
                        srcs[1].elem().expect("array"),
                        &inner,
                        d.min(1),
                    );
                    arrays.push(Expr::map(f, vec![Expr::var(&n)]));
                }
                let params: Vec<Type> = srcs
                    .iter()
                    .map(|s| s.elem().expect("array").clone())
                    .collect();
                let f = self.lambda(&params, e, &inner, d);
                Expr::let_(&n, first, Expr::map(f, arrays))
            }
            3 if *e == Type::I64 => {
                let len = small_count(self.expr(&Type::I64, env, d), 5);
                Expr::iota(
                    len,
                    self.expr(&Type::I64, env, d),
                    self.expr(&Type::I64, env, d),
                )
            }
            4 => Expr::replicate(
                small_count(self.expr(&Type::I64, env, d), 4),
                self.expr(e, env, d),
            ),
            5 => {
                let a = self.expr(&t, env, d);
                let n = self.name("s");
                let len = Expr::length(Expr::var(&n));
                let start = modulo(self.expr(&Type::I64, env, d), len.clone() + Expr::i64(1));
                let sn = self.name("st");
                let rest = len - Expr::var(&sn) + Expr::i64(1);
                let l = modulo(self.expr(&Type::I64, env, d), rest);
                Expr::let_(
                    &n,
                    a,
                    Expr::let_(&sn, start, Expr::slice(Expr::var(&n), Expr::var(&sn), l)),
                )
            }
            6 => Expr::append(self.expr(&t, env, d), self.expr(&t, env, d)),
            7 if depth < 3 => Expr::concat(self.expr(&arr(t.clone()), env, d)),
            8 if e.scalar().is_some() && self.rng.chance(40) => {
                // NESL's sieve: a scatter of one value at the concat of mapped progressions
                // (fused by `scatter-progressions`), every position inside the destination.
                let dest = self.expr(&t, env, d);
                let n = self.name("d");
                let len = Expr::length(Expr::var(&n));
                let raw = self.expr(&arr(Type::I64), env, d);
                let (q, st, sp) = (self.name("q"), self.name("st"), self.name("sp"));
                let mut outer = env.clone();
                outer.push((n.clone(), t.clone()));
                let mut inner = outer.clone();
                inner.push((q.clone(), Type::I64));
                let start = modulo(
                    Expr::var(&q) + self.expr(&Type::I64, &inner, d.min(1)),
                    len.clone(),
                );
                let step = small_count(self.expr(&Type::I64, &inner, d.min(1)), 3);
                let count = small_count(self.expr(&Type::I64, &inner, d.min(1)), 6);
                // At most the positions left before the end, unless the step is 0.
                let fits = Expr::if_(
                    Expr::binary(B::Eq, Expr::var(&sp), Expr::i64(0)),
                    count.clone(),
                    Expr::binary(
                        B::Min,
                        count,
                        Expr::binary(
                            B::Div,
                            len.clone() - Expr::i64(1) - Expr::var(&st),
                            Expr::var(&sp),
                        ) + Expr::i64(1),
                    ),
                );
                let body = Expr::let_(
                    &st,
                    start,
                    Expr::let_(&sp, step, Expr::iota(fits, Expr::var(&st), Expr::var(&sp))),
                );
                let indices = Expr::concat(Expr::map(Lambda::new(&[&q], body), vec![raw]));
                let xn = self.name("ix");
                let value = self.expr(e, &outer, d.min(1));
                let vals = Expr::replicate(Expr::length(Expr::var(&xn)), value);
                let body = Expr::if_(
                    Expr::binary(B::Eq, len, Expr::i64(0)),
                    Expr::var(&n),
                    Expr::let_(
                        &xn,
                        indices,
                        Expr::scatter(Expr::var(&n), Expr::var(&xn), vals),
                    ),
                );
                Expr::let_(&n, dest, body)
            }
            8 => {
                let dest = self.expr(&t, env, d);
                let n = self.name("d");
                let len = Expr::length(Expr::var(&n));
                let raw = self.expr(&arr(Type::I64), env, d);
                let i = self.name("i");
                let mut inner = env.clone();
                inner.push((n.clone(), t.clone()));
                let idx = Expr::map(
                    Lambda::new(&[&i], modulo(Expr::var(&i), len.clone())),
                    vec![raw],
                );
                let xn = self.name("ix");
                let mut inner2 = inner.clone();
                inner2.push((xn.clone(), arr(Type::I64)));
                let vf = self.lambda(&[Type::I64], e, &inner2, d.min(1));
                let vals = Expr::map(vf, vec![Expr::var(&xn)]);
                let body = Expr::if_(
                    Expr::binary(B::Eq, len, Expr::i64(0)),
                    Expr::var(&n),
                    Expr::let_(&xn, idx, Expr::scatter(Expr::var(&n), Expr::var(&xn), vals)),
                );
                Expr::let_(&n, dest, body)
            }
            9 => {
                let k = 1 + self.rng.below(3);
                let preds = (0..k)
                    .map(|_| self.lambda(std::slice::from_ref(e), &Type::Bool, env, d.min(2)))
                    .collect();
                let class = self.rng.below(k + 1);
                Expr::proj(Expr::filter(preds, self.expr(&t, env, d)), class)
            }
            10 => {
                let classes = 1 + self.rng.below(4);
                let interest: Vec<usize> = (0..classes).filter(|_| self.rng.chance(60)).collect();
                let interest = if interest.is_empty() {
                    vec![classes - 1]
                } else {
                    interest
                };
                let kn = self.name("k");
                let mut inner = env.clone();
                inner.push((kn.clone(), e.clone()));
                let key_body = small_count(self.expr(&Type::I64, &inner, d.min(2)), classes as i64);
                let key = Lambda::new(&[&kn], key_body);
                let j = self.rng.below(interest.len());
                Expr::proj(
                    Expr::partition(classes, interest, key, self.expr(&t, env, d)),
                    j,
                )
            }
            11 if matches!(e, Type::I64 | Type::F64 | Type::Bool) => {
                let op = self.reduce_op(e, env);
                let z = if self.rng.chance(50) {
                    self.lit(e)
                } else {
                    self.expr(e, env, d)
                };
                if self.rng.chance(40) {
                    // a scan of a mapped array (map into scan: scanomap)
                    let u = self.array_source(env, 1);
                    let a = self.expr(&u, env, d);
                    let f = self.lambda(&[u.elem().expect("array").clone()], e, env, d.min(2));
                    Expr::scan(op, z, Expr::map(f, vec![a]))
                } else {
                    Expr::scan(op, z, self.expr(&t, env, d))
                }
            }
            // Sibling filters at odd depths, histograms at even ones (no draw decides, so that
            // the programs of other seeds stay as they were).
            13 if matches!(e, Type::I64 | Type::F64) && d % 2 == 1 => self.sibling_parts(e, env, d),
            13 if matches!(e, Type::I64 | Type::F64 | Type::Bool) => self.hist(e, env, d),
            12 if *e == Type::I64 && self.with_helpers => {
                let n = small_count(self.expr(&Type::I64, env, d), 4);
                Expr::call("rec", vec![n, self.expr(&t, env, d)])
            }
            _ => {
                let n = self.rng.below(3);
                Expr::ArrayLit(
                    e.clone(),
                    (0..n).map(|_| self.expr(e, env, d.min(1))).collect(),
                )
            }
        }
    }
}

/// `let binds.. in body`.
fn let_chain(binds: Vec<(String, Expr)>, body: Expr) -> Expr {
    binds
        .into_iter()
        .rev()
        .fold(body, |b, (n, v)| Expr::let_(&n, v, b))
}

pub fn params() -> Vec<(String, Type)> {
    let i = Type::I64;
    let f = Type::F64;
    vec![
        ("a".into(), arr(i.clone())),
        ("b".into(), arr(f.clone())),
        ("c".into(), arr(Type::Bool)),
        ("m".into(), arr(arr(i.clone()))),
        ("n".into(), arr(arr(f.clone()))),
        ("t".into(), arr(arr(arr(i.clone())))),
        ("k".into(), i),
        ("x".into(), f),
    ]
}

/// The most elements the recursive function passes to its next level.
const REC_MAX: i64 = 16;

pub fn program(seed: u64, budget: u32) -> Program {
    program_from(Rng::new(seed), budget)
}

/// A random program as [`program`], but with some indices and integer divisors unguarded: it
/// often fails at run time, on several lanes and at several steps.
pub fn failing_program(seed: u64, budget: u32) -> Program {
    generate(Rng::new(seed), budget, true)
}

/// A random well-typed program of about `budget` nodes per expression, its choices from `rng`.
pub fn program_from(rng: Rng, budget: u32) -> Program {
    generate(rng, budget, false)
}

fn generate(rng: Rng, budget: u32, failing: bool) -> Program {
    let mut g = G {
        rng,
        fresh: 0,
        with_helpers: false,
        failing,
    };
    let ia = arr(Type::I64);
    let henv: Env = vec![("hp".into(), Type::I64), ("hq".into(), ia.clone())];
    let helper = Function::new(
        "helper",
        henv.clone(),
        Type::I64,
        g.expr(&Type::I64, &henv, 2),
    );
    let renv: Env = vec![("rn".into(), Type::I64), ("rq".into(), ia.clone())];
    // Each level keeps at most REC_MAX elements: a step such as `concat(map(|_| rq, rq))`
    // squares the length (4, 16, 256, 65,536), and a map over the result with it free then
    // holds 4 * 10^9 elements (found by the eval_exec fuzz target).
    let step = Expr::let_(
        "rs",
        g.expr(&ia, &renv, 2),
        Expr::slice(
            Expr::var("rs"),
            Expr::i64(0),
            Expr::binary(
                B::Min,
                Expr::Length(Arc::new(Expr::var("rs"))),
                Expr::i64(REC_MAX),
            ),
        ),
    );
    let rec_body = Expr::if_(
        Expr::binary(B::Le, Expr::var("rn"), Expr::i64(0)),
        Expr::var("rq"),
        Expr::call("rec", vec![Expr::var("rn") - Expr::i64(1), step]),
    );
    let rec = Function::new("rec", renv, ia, rec_body);
    g.with_helpers = true;
    let ret = if g.rng.chance(50) {
        g.scalar_type()
    } else {
        arr(g.array_source(&params(), 2))
    };
    let ret = if depth_of(&ret) > 3 { Type::I64 } else { ret };
    let body = g.expr(&ret, &params(), budget);
    Program::new(vec![
        helper,
        rec,
        Function::new("main", params(), ret, body),
    ])
}

/// Arguments for [`params`] drawn from `rng`: small values, empty arrays and empty segments
/// likely (the distribution of `random.rs`'s quickcheck inputs).
pub fn inputs_from(rng: &mut Rng) -> Vec<Value> {
    fn small<T>(rng: &mut Rng, max: usize, f: &mut dyn FnMut(&mut Rng) -> T) -> Vec<T> {
        let len = rng.below(max + 1);
        (0..len).map(|_| f(rng)).collect()
    }
    let int = |r: &mut Rng| Value::I64(r.below(39) as i64 - 19);
    let flt = |r: &mut Rng| Value::F64((r.below(39) as f64 - 19.0) * 0.25);
    let arr = Value::array;
    vec![
        arr(small(rng, 6, &mut { int })),
        arr(small(rng, 6, &mut { flt })),
        arr(small(rng, 6, &mut |r| Value::Bool(r.chance(50)))),
        arr(small(rng, 4, &mut |r| arr(small(r, 4, &mut { int })))),
        arr(small(rng, 4, &mut |r| arr(small(r, 4, &mut { flt })))),
        arr(small(rng, 3, &mut |r| {
            arr(small(r, 3, &mut |r| arr(small(r, 3, &mut { int }))))
        })),
        int(rng),
        flt(rng),
    ]
}
