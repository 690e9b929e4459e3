//! The reference interpreter: the meaning of a program, written for obviousness, not speed.
//!
//! Values are boxed ([`Value`]); `map` applies its lambda lane by lane, `if` evaluates only the
//! taken branch, every `reduce`/`scan`/`redomap` goes through the runtime's canonical association
//! ([`flatland_runtime::assoc::fold`] / [`flatland_runtime::assoc::scan_inclusive`]) so floating
//! point results are bitwise those of the flattened executor. Runtime errors name the operation
//! and the lane: the position in the innermost enclosing `map` (or `filter`, `partition`,
//! `redomap` lambda), 0 outside any. Deep recursion grows the stack on the heap (`stacker`), and
//! its depth is bounded by [`crate::limits`] (a call past the limit is an
//! [`Error::RecursionLimit`]), not by the native stack.
//!
//! ```
//! use flatland_vectoriser::{eval, ir::{Expr, Function, Program, ReduceOp, Type}, value::Value};
//! let body = Expr::reduce(ReduceOp::Add, Expr::i64(0), Expr::var("xs"));
//! let p = Program::new(vec![Function::new("sum", vec![("xs".into(), Type::array(Type::I64))], Type::I64, body)]);
//! let xs = Value::array((1..=4).map(Value::I64).collect());
//! assert_eq!(eval::run(&p, "sum", vec![xs]).unwrap(), Value::I64(10));
//! ```

use crate::check;
use crate::error::{Error, Result};
use crate::ir::{Expr, Lambda, Program, ReduceOp, Scalar, SortOp};
use crate::limits::Depth;
use crate::value::Value;
use flatland_runtime::{Error as RtError, assoc, budget};
use std::cell::RefCell;
use std::cmp::Ordering;

/// Checks `p`, checks the arguments against `function`'s parameters, and evaluates the call.
///
/// # Errors
/// A type error in the program, arguments that do not fit, or a runtime error naming the
/// operation and lane.
///
/// ```
/// use flatland_vectoriser::{eval, ir::{Expr, Function, Program, Type}, value::Value};
/// let p = Program::new(vec![Function::new("div", vec![("a".into(), Type::I64), ("b".into(), Type::I64)], Type::I64, Expr::var("a") / Expr::var("b"))]);
/// assert_eq!(eval::run(&p, "div", vec![Value::I64(7), Value::I64(2)]).unwrap(), Value::I64(3));
/// assert_eq!(eval::run(&p, "div", vec![Value::I64(7), Value::I64(0)]).unwrap_err().to_string(), "div: lane 0: division by zero");
/// ```
pub fn run(p: &Program, function: &str, args: Vec<Value>) -> Result<Value> {
    check::check_program(p)?;
    check_args(p, function, &args)?;
    Interp {
        program: p,
        depth: Depth::new(),
    }
    .call(function, args, 0)
}

/// Evaluates `e` for one lane of the executor's: `env` holds its free variables, `lane` is the
/// lane's position in its innermost map and `depth` the call depth and limit of the run it
/// belongs to ([`crate::limits`]). The executor asks this for the first error of one lane
/// ([`crate::exec`], "Errors").
pub(crate) fn at_lane(
    p: &Program,
    e: &Expr,
    mut env: Vec<(String, Value)>,
    lane: usize,
    (depth, limit): (usize, usize),
) -> Result<Value> {
    Interp {
        program: p,
        depth: Depth::at(depth, limit),
    }
    .expr(e, &mut env, lane)
}

/// Checks that `args` fit the parameters of `function` in `p`.
///
/// # Errors
/// An unknown function, a wrong number of arguments or an argument of the wrong type.
///
/// ```
/// use flatland_vectoriser::{eval, ir::{Expr, Function, Program, Type}, value::Value};
/// let p = Program::new(vec![Function::new("id", vec![("x".into(), Type::I64)], Type::I64, Expr::var("x"))]);
/// assert!(eval::check_args(&p, "id", &[Value::Bool(true)]).is_err());
/// ```
pub fn check_args(p: &Program, function: &str, args: &[Value]) -> Result<()> {
    let f = p.function(function).ok_or_else(|| Error::Input {
        detail: format!("no function `{function}`"),
    })?;
    if f.params.len() != args.len() {
        return Err(Error::Input {
            detail: format!(
                "`{function}` takes {} arguments, given {}",
                f.params.len(),
                args.len()
            ),
        });
    }
    for ((n, t), a) in f.params.iter().zip(args) {
        if !a.has_type(t) {
            return Err(Error::Input {
                detail: format!("argument `{n}` of `{function}` must be {t}"),
            });
        }
    }
    Ok(())
}

struct Interp<'p> {
    program: &'p Program,
    /// The call depth, against the run's limit.
    depth: Depth,
}

type Env = Vec<(String, Value)>;

fn scalar_of(v: &Value) -> Scalar {
    match v {
        Value::I64(x) => Scalar::I64(*x),
        Value::F64(x) => Scalar::F64(*x),
        Value::Bool(x) => Scalar::Bool(*x),
        other => unreachable!("checked program: scalar expected, found {other}"),
    }
}

fn int(v: &Value) -> i64 {
    match v {
        Value::I64(x) => *x,
        other => unreachable!("checked program: i64 expected, found {other}"),
    }
}

fn arr(v: &Value) -> &[Value] {
    v.as_array()
        .unwrap_or_else(|| unreachable!("checked program: array expected, found {v}"))
}

fn invalid(op: &'static str, lane: usize, detail: String) -> Error {
    Error::Runtime(RtError::Invalid {
        op,
        detail: format!("lane {lane}: {detail}"),
    })
}

/// Checks a length argument (`iota`, `replicate`).
fn count(op: &'static str, n: i64, lane: usize) -> Result<usize> {
    usize::try_from(n).map_err(|_| invalid(op, lane, format!("negative length {n}")))
}

impl Interp<'_> {
    fn call(&self, name: &str, args: Vec<Value>, lane: usize) -> Result<Value> {
        let f = self
            .program
            .function(name)
            .unwrap_or_else(|| unreachable!("checked program: `{name}` exists"));
        let mut env: Env = f.params.iter().map(|(n, _)| n.clone()).zip(args).collect();
        self.depth.call(name, || self.expr(&f.body, &mut env, lane))
    }

    fn apply(&self, l: &Lambda, args: Vec<Value>, env: &mut Env, lane: usize) -> Result<Value> {
        let depth = env.len();
        env.extend(l.params.iter().map(|(n, _)| n.clone()).zip(args));
        let r = self.expr(&l.body, env, lane);
        env.truncate(depth);
        r
    }

    /// The elements of equally long arrays, lane by lane.
    fn zip(
        &self,
        arrays: &[Expr],
        env: &mut Env,
        lane: usize,
        op: &'static str,
    ) -> Result<Vec<Vec<Value>>> {
        let vals: Vec<Value> = arrays
            .iter()
            .map(|a| self.expr(a, env, lane))
            .collect::<Result<_>>()?;
        let n = arr(&vals[0]).len();
        if let Some(bad) = vals.iter().map(|v| arr(v).len()).find(|m| *m != n) {
            return Err(RtError::LengthMismatch {
                op,
                expected: n,
                found: bad,
            }
            .into());
        }
        Ok((0..n)
            .map(|i| vals.iter().map(|v| arr(v)[i].clone()).collect())
            .collect())
    }

    /// The binary function of a reduction operator; errors are kept in `fail` (first one wins)
    /// since the canonical fold takes an infallible operator.
    fn op<'a>(
        &'a self,
        op: &'a ReduceOp,
        env: &'a RefCell<&mut Env>,
        lane: usize,
        fail: &'a RefCell<Option<Error>>,
    ) -> impl Fn(Value, Value) -> Value + 'a {
        move |a: Value, b: Value| {
            if fail.borrow().is_some() {
                return a;
            }
            let r = match (op.bin_op(), op) {
                (Some(bop), _) => bop
                    .eval(scalar_of(&a), scalar_of(&b), lane)
                    .map(Value::from)
                    .map_err(Error::from),
                (None, ReduceOp::Lambda(l)) => {
                    self.apply(l, vec![a.clone(), b], &mut env.borrow_mut(), lane)
                }
                (None, _) => unreachable!("built-in operators have a scalar operator"),
            };
            r.unwrap_or_else(|e| {
                *fail.borrow_mut() = Some(e);
                a
            })
        }
    }

    fn fold(
        &self,
        op: &ReduceOp,
        z: Value,
        xs: &[Value],
        env: &mut Env,
        lane: usize,
    ) -> Result<Value> {
        let fail = RefCell::new(None);
        let cell = RefCell::new(env);
        let r = assoc::fold(xs, z, self.op(op, &cell, lane, &fail));
        fail.into_inner().map_or(Ok(r), Err)
    }

    fn expr(&self, e: &Expr, env: &mut Env, lane: usize) -> Result<Value> {
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.expr_inner(e, env, lane))
    }

    fn expr_inner(&self, e: &Expr, env: &mut Env, lane: usize) -> Result<Value> {
        Ok(match e {
            Expr::Var(n) => match env.iter().rev().find(|(m, _)| m == n) {
                Some((_, v)) => v.clone(),
                None => unreachable!("checked program: `{n}` bound"),
            },
            Expr::Lit(s) => Value::from(*s),
            Expr::Tuple(es) => Value::Tuple(
                es.iter()
                    .map(|x| self.expr(x, env, lane))
                    .collect::<Result<_>>()?,
            ),
            Expr::Proj(t, i) => match self.expr(t, env, lane)? {
                Value::Tuple(mut vs) => vs.swap_remove(*i),
                other => unreachable!("checked program: tuple expected, found {other}"),
            },
            Expr::Let(n, v, b) => {
                let v = self.expr(v, env, lane)?;
                env.push((n.clone(), v));
                let r = self.expr(b, env, lane);
                env.pop();
                r?
            }
            // A fused form means the expression it replaced.
            Expr::Fused(f) => self.expr(&f.original, env, lane)?,
            Expr::If(c, a, b) => match self.expr(c, env, lane)? {
                Value::Bool(true) => self.expr(a, env, lane)?,
                Value::Bool(false) => self.expr(b, env, lane)?,
                other => unreachable!("checked program: bool expected, found {other}"),
            },
            Expr::Unary(op, a) => Value::from(op.eval(scalar_of(&self.expr(a, env, lane)?))?),
            Expr::Binary(op, a, b) => {
                let x = scalar_of(&self.expr(a, env, lane)?);
                let y = scalar_of(&self.expr(b, env, lane)?);
                Value::from(op.eval(x, y, lane)?)
            }
            Expr::Ternary(op, a, b, c) => {
                let x = scalar_of(&self.expr(a, env, lane)?);
                let y = scalar_of(&self.expr(b, env, lane)?);
                let z = scalar_of(&self.expr(c, env, lane)?);
                Value::from(op.eval(x, y, z, lane)?)
            }
            Expr::Call(name, args) => {
                let args = args
                    .iter()
                    .map(|a| self.expr(a, env, lane))
                    .collect::<Result<_>>()?;
                self.call(name, args, lane)?
            }
            _ => self.array_expr(e, env, lane)?,
        })
    }

    /// The array operations, kept out of `expr_inner` so the frame that every recursion level
    /// pays stays small.
    #[inline(never)]
    fn array_expr(&self, e: &Expr, env: &mut Env, lane: usize) -> Result<Value> {
        Ok(match e {
            Expr::ArrayLit(_, es) => Value::array(
                es.iter()
                    .map(|x| self.expr(x, env, lane))
                    .collect::<Result<_>>()?,
            ),
            Expr::Index(a, i) => {
                let a = self.expr(a, env, lane)?;
                let i = int(&self.expr(i, env, lane)?);
                let xs = arr(&a);
                usize::try_from(i)
                    .ok()
                    .and_then(|k| xs.get(k))
                    .cloned()
                    .ok_or(RtError::IndexOutOfRange {
                        op: "index",
                        lane,
                        index: i,
                        len: xs.len(),
                    })?
            }
            Expr::Length(a) => Value::I64(arr(&self.expr(a, env, lane)?).len() as i64),
            Expr::Iota { len, start, step } => {
                let n = count("iota", int(&self.expr(len, env, lane)?), lane)?;
                budget::check_elements::<Value>("iota (reference interpreter)", n)?;
                let s = int(&self.expr(start, env, lane)?);
                let d = int(&self.expr(step, env, lane)?);
                Value::array(
                    (0..n as i64)
                        .map(|k| Value::I64(s.wrapping_add(k.wrapping_mul(d))))
                        .collect(),
                )
            }
            Expr::Replicate(n, x) => {
                let n = count("replicate", int(&self.expr(n, env, lane)?), lane)?;
                budget::check_elements::<Value>("replicate (reference interpreter)", n)?;
                let x = self.expr(x, env, lane)?;
                Value::array(vec![x; n])
            }
            Expr::Slice(a, s, l) => {
                let a = self.expr(a, env, lane)?;
                let s = int(&self.expr(s, env, lane)?);
                let l = int(&self.expr(l, env, lane)?);
                let xs = arr(&a);
                let end = s.checked_add(l);
                match (usize::try_from(s), usize::try_from(l), end) {
                    (Ok(su), Ok(lu), Some(_)) if su + lu <= xs.len() => {
                        Value::array(xs[su..su + lu].to_vec())
                    }
                    _ => {
                        return Err(invalid(
                            "slice",
                            lane,
                            format!(
                                "start {s} and length {l} out of range for length {}",
                                xs.len()
                            ),
                        ));
                    }
                }
            }
            Expr::Append(a, b) => {
                let a = self.expr(a, env, lane)?;
                let b = self.expr(b, env, lane)?;
                Value::array(arr(&a).iter().chain(arr(&b)).cloned().collect())
            }
            Expr::Sort(op, a) => sort_reference(*op, arr(&self.expr(a, env, lane)?)),
            Expr::Concat(a) => {
                let a = self.expr(a, env, lane)?;
                Value::array(
                    arr(&a)
                        .iter()
                        .flat_map(|x| arr(x).iter().cloned())
                        .collect(),
                )
            }
            Expr::Scatter(d, i, v) => {
                let mut out = arr(&self.expr(d, env, lane)?).to_vec();
                let idx = self.expr(i, env, lane)?;
                let vals = self.expr(v, env, lane)?;
                let (idx, vals) = (arr(&idx), arr(&vals));
                if idx.len() != vals.len() {
                    return Err(RtError::LengthMismatch {
                        op: "scatter",
                        expected: idx.len(),
                        found: vals.len(),
                    }
                    .into());
                }
                for (k, x) in idx.iter().zip(vals) {
                    let k = int(k);
                    let len = out.len();
                    let slot = usize::try_from(k).ok().and_then(|k| out.get_mut(k)).ok_or(
                        RtError::IndexOutOfRange {
                            op: "scatter",
                            lane,
                            index: k,
                            len,
                        },
                    )?;
                    *slot = x.clone();
                }
                Value::array(out)
            }
            Expr::Map(f, arrays) => {
                let lanes = self.zip(arrays, env, lane, "map")?;
                let out = lanes
                    .into_iter()
                    .enumerate()
                    .map(|(i, args)| self.apply(f, args, env, i));
                Value::array(out.collect::<Result<_>>()?)
            }
            Expr::Reduce(op, z, a) => {
                let z = self.expr(z, env, lane)?;
                let a = self.expr(a, env, lane)?;
                self.fold(op, z, arr(&a), env, lane)?
            }
            Expr::Scan(op, z, a) => {
                let z = self.expr(z, env, lane)?;
                let a = self.expr(a, env, lane)?;
                let fail = RefCell::new(None);
                let cell = RefCell::new(&mut *env);
                let r = assoc::scan_inclusive(arr(&a), z, self.op(op, &cell, lane, &fail));
                if let Some(e) = fail.into_inner() {
                    return Err(e);
                }
                Value::array(r)
            }
            Expr::Filter(ps, a) => {
                let a = self.expr(a, env, lane)?;
                let mut classes = vec![Vec::new(); ps.len() + 1];
                for (i, x) in arr(&a).iter().enumerate() {
                    let mut class = ps.len();
                    for (k, p) in ps.iter().enumerate() {
                        if let Value::Bool(true) = self.apply(p, vec![x.clone()], env, i)? {
                            class = k;
                            break;
                        }
                    }
                    classes[class].push(x.clone());
                }
                Value::Tuple(classes.into_iter().map(Value::array).collect())
            }
            Expr::Partition {
                classes,
                interest,
                key,
                array,
            } => {
                let a = self.expr(array, env, lane)?;
                let mut parts = vec![Vec::new(); *classes];
                for (i, x) in arr(&a).iter().enumerate() {
                    let k = int(&self.apply(key, vec![x.clone()], env, i)?);
                    match usize::try_from(k) {
                        Ok(c) if c < *classes => parts[c].push(x.clone()),
                        Ok(c) => {
                            return Err(RtError::ClassOutOfRange {
                                op: "partition",
                                lane: i,
                                class: c,
                                classes: *classes,
                            }
                            .into());
                        }
                        Err(_) => return Err(invalid("partition", i, format!("negative key {k}"))),
                    }
                }
                Value::Tuple(
                    interest
                        .iter()
                        .map(|c| Value::array(parts[*c].clone()))
                        .collect(),
                )
            }
            Expr::Hist {
                bins,
                op,
                identity,
                indices,
                values,
            } => {
                let bins = int(&self.expr(bins, env, lane)?);
                let bins = usize::try_from(bins).map_err(|_| {
                    invalid("hist", lane, format!("negative number of bins {bins}"))
                })?;
                budget::check_elements::<Value>("hist (reference interpreter)", bins)?;
                let z = self.expr(identity, env, lane)?;
                let ks = self.expr(indices, env, lane)?;
                let vs = self.expr(values, env, lane)?;
                let (ks, vs) = (arr(&ks), arr(&vs));
                if ks.len() != vs.len() {
                    return Err(RtError::LengthMismatch {
                        op: "hist",
                        expected: ks.len(),
                        found: vs.len(),
                    }
                    .into());
                }
                let ks: Vec<i64> = ks.iter().map(int).collect();
                let fail = RefCell::new(None);
                let cell = RefCell::new(&mut *env);
                let r = assoc::hist(bins, z, &ks, vs, self.op(op, &cell, lane, &fail));
                if let Some(e) = fail.into_inner() {
                    return Err(e);
                }
                Value::array(r)
            }
            Expr::Loop { init, form, body } => {
                let mut s = self.expr(init, env, lane)?;
                match form {
                    crate::ir::LoopForm::For(n) => {
                        for i in 0..int(&self.expr(n, env, lane)?) {
                            s = self.apply(body, vec![s, Value::I64(i)], env, lane)?;
                        }
                    }
                    crate::ir::LoopForm::While(c) => {
                        while let Value::Bool(true) = self.apply(c, vec![s.clone()], env, lane)? {
                            s = self.apply(body, vec![s], env, lane)?;
                        }
                    }
                }
                s
            }
            Expr::Redomap(op, z, f, arrays) => {
                let z = self.expr(z, env, lane)?;
                let lanes = self.zip(arrays, env, lane, "redomap")?;
                let mapped: Vec<Value> = lanes
                    .into_iter()
                    .enumerate()
                    .map(|(i, args)| self.apply(f, args, env, i))
                    .collect::<Result<_>>()?;
                self.fold(op, z, &mapped, env, lane)?
            }
            _ => unreachable!("handled by expr_inner"),
        })
    }
}

fn order(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::I64(x), Value::I64(y)) => x.cmp(y),
        (Value::F64(x), Value::F64(y)) => x.total_cmp(y),
        _ => unreachable!("checked program: numbers expected, found {a} and {b}"),
    }
}

/// The reference meaning of `op` on one array: a stable sort of its indices by the order.
fn sort_reference(op: SortOp, xs: &[Value]) -> Value {
    let mut idx: Vec<usize> = (0..xs.len()).collect();
    idx.sort_by(|&i, &j| order(&xs[i], &xs[j]));
    Value::array(match op {
        SortOp::Values => idx.into_iter().map(|i| xs[i].clone()).collect(),
        SortOp::Indices => idx.into_iter().map(|i| Value::I64(i as i64)).collect(),
    })
}
