//! The call graph of a module, for the run's choice of strategy: which functions recurse, and
//! whether a recursion keeps arrays alive across its recursive calls in the per-lane form.
//!
//! The per-lane form (`lane.rs`) is plain Rust: a level's arrays (its array parameters, what
//! its `let`s bound and the operands computed before the call) live until the level returns.
//! A recursion that keeps any across its recursive calls holds one set per level (up to
//! `depth * n` elements: quadratic on a quicksort of sorted keys), where the flattening
//! executor releases them level by level; such functions take the executor unless forced
//! (`strategy::Forms::Recursive`). A recursion whose calls keep only scalars alive (NESL's
//! primes: `primes(isqrt(n) + 1)` first, on a scalar) holds nothing per level, and runs per-lane
//! like any other function.

use flatland_vectoriser::check;
use flatland_vectoriser::ir::{Expr, Program, Type, children};

/// Whether the per-lane form of `name` (and of every function it reaches through its calls)
/// may keep arrays alive across a recursive call: some recursive function it reaches has a
/// recursive call site where [`holds_arrays`] says so.
pub(crate) fn recursion_holds_arrays(p: &Program, name: &str) -> bool {
    reachable(p, name).iter().any(|g| {
        let cycle: Vec<String> = reachable(p, g)
            .into_iter()
            .filter(|h| reachable(p, h).contains(g))
            .collect();
        calls_itself(p, g)
            && p.function(g).is_some_and(|f| {
                holds_arrays(
                    p,
                    &mut f.params.clone(),
                    &f.body,
                    arrays_in_params(&f.params),
                    &cycle,
                )
            })
    })
}

/// Whether the function `name` of `p` calls itself, directly or through other functions.
pub(crate) fn calls_itself(p: &Program, name: &str) -> bool {
    p.function(name).is_some_and(|f| {
        let mut called = Vec::new();
        calls_in(&f.body, &mut called);
        called
            .iter()
            .any(|c| reachable(p, c).iter().any(|r| r == name))
    })
}

/// `name` and every function it reaches through its calls, each once.
fn reachable(p: &Program, name: &str) -> Vec<String> {
    let mut seen = vec![name.to_string()];
    let mut i = 0;
    while i < seen.len() {
        if let Some(f) = p.function(&seen[i]) {
            let mut called = Vec::new();
            calls_in(&f.body, &mut called);
            for c in called {
                if !seen.contains(&c) {
                    seen.push(c);
                }
            }
        }
        i += 1;
    }
    seen
}

/// The names of the functions `e` calls, each once.
fn calls_in(e: &Expr, out: &mut Vec<String>) {
    if let Expr::Call(f, _) = e
        && !out.contains(f)
    {
        out.push(f.clone());
    }
    let (exprs, lambdas) = children(e);
    for c in exprs {
        calls_in(c, out);
    }
    for l in lambdas {
        calls_in(&l.body, out);
    }
}

/// Whether a parameter holds an array (the caller's, alive while the level runs).
fn arrays_in_params(params: &[(String, Type)]) -> bool {
    params.iter().any(|(_, t)| has_array(t))
}

/// Whether a value of type `t` holds an array.
fn has_array(t: &Type) -> bool {
    match t {
        Type::Array(_) => true,
        Type::Tuple(ts) => ts.iter().any(has_array),
        Type::I64 | Type::F64 | Type::Bool => false,
    }
}

/// Whether a value of `e` (in scope `env`) may hold an array; an expression whose type cannot
/// be told here counts as one.
fn may_hold_array(p: &Program, env: &[(String, Type)], e: &Expr) -> bool {
    check::type_of(p, env, e).map_or(true, |t| has_array(&t))
}

/// Whether evaluating `e` (in scope `env`; `held`: arrays are alive already) reaches a call of
/// a function of `cycle` while an array is alive: an array in scope, an array argument, an
/// array operand computed beside it, or the call under a lambda (a map's lanes, a loop's
/// steps: their arrays are alive while they run).
fn holds_arrays(
    p: &Program,
    env: &mut Vec<(String, Type)>,
    e: &Expr,
    held: bool,
    cycle: &[String],
) -> bool {
    match e {
        Expr::Call(f, args) if cycle.contains(f) => {
            held || args.iter().any(|a| may_hold_array(p, env, a))
                || args.iter().any(|a| holds_arrays(p, env, a, held, cycle))
        }
        Expr::Let(n, x, b) => {
            if holds_arrays(p, env, x, held, cycle) {
                return true;
            }
            let t = check::type_of(p, env, x).ok();
            let bound = t.as_ref().is_none_or(has_array);
            env.push((n.clone(), t.unwrap_or_else(|| Type::array(Type::I64))));
            let out = holds_arrays(p, env, b, held || bound, cycle);
            env.pop();
            out
        }
        Expr::If(c, a, b) => {
            holds_arrays(p, env, c, held, cycle)
                || holds_arrays(p, env, a, held, cycle)
                || holds_arrays(p, env, b, held, cycle)
        }
        Expr::Fused(f) => holds_arrays(p, env, &f.original, held, cycle),
        _ => {
            let (exprs, lambdas) = children(e);
            let mut under = Vec::new();
            for l in lambdas {
                calls_in(&l.body, &mut under);
            }
            if under.iter().any(|f| cycle.contains(f)) {
                return true;
            }
            // An operand is computed while the others computed before it are alive; the
            // order is not assumed: any other operand holding an array counts.
            let arrays: Vec<bool> = exprs.iter().map(|x| may_hold_array(p, env, x)).collect();
            exprs.iter().enumerate().any(|(k, x)| {
                let beside = arrays.iter().enumerate().any(|(j, &a)| j != k && a);
                holds_arrays(p, env, x, held || beside, cycle)
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{calls_itself, recursion_holds_arrays};
    use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder, array, if_, iota, let_};
    use flatland_vectoriser::programs::{self, Pivot};

    #[test]
    fn a_recursion_on_scalars_holds_no_arrays() {
        // NESL's primes: the recursive call first, on a scalar.
        let (mut p, primes) = programs::primes();
        let twice = p.function("twice", ["n"], |_, n: Ex<i64>| {
            primes.call(n.clone()).append(&primes.call(n))
        });
        let p = p.ir();
        assert!(calls_itself(p, "primes"));
        assert!(!calls_itself(p, twice.name()));
        assert!(!recursion_holds_arrays(p, "primes"));
        // `twice` does not recurse, and the recursion it reaches holds no arrays.
        assert!(!recursion_holds_arrays(p, twice.name()));
        let (p, _) = programs::count_down();
        assert!(!recursion_holds_arrays(p.ir(), "count_down"));
        let (p, _) = programs::dot();
        assert!(!calls_itself(p.ir(), "dot"));
        assert!(!recursion_holds_arrays(p.ir(), "dot"));
    }

    #[test]
    fn arrays_alive_across_a_recursive_call_are_held() {
        // An array parameter, and the recursive call under a map.
        let (mut p, sort) = programs::quicksort(Pivot::Middle);
        let caller = p.function("caller", ["xs"], |_, xs: Ex<Arr<i64>>| sort.call(xs));
        assert!(recursion_holds_arrays(p.ir(), "quicksort"));
        // A caller of such a recursion would run it per-lane too.
        assert!(recursion_holds_arrays(p.ir(), caller.name()));
        let (p, _) = programs::quickhull();
        assert!(
            p.ir()
                .functions
                .iter()
                .any(|f| recursion_holds_arrays(p.ir(), &f.name))
        );

        let mut p = ProgramBuilder::new();
        // A `let`-bound array in scope of the recursive call.
        let bound = p.function("bound", ["n"], |me, n: Ex<i64>| {
            let rest = n.clone() - 1;
            if_(
                n.le(0),
                array::<i64>(vec![]),
                let_(iota(n), move |a| a.append(&me.call(rest))),
            )
        });
        // An operand computed beside the call, no `let`.
        let beside = p.function("beside", ["n"], |me, n: Ex<i64>| {
            if_(
                n.le(0),
                array::<i64>(vec![]),
                iota(n.clone()).append(&me.call(n - 1)),
            )
        });
        // A scalar in scope only.
        let scalar = p.function("scalar", ["n"], |me, n: Ex<i64>| {
            if_(
                n.le(0),
                array::<i64>(vec![]),
                let_(n.clone() * 2, move |m| me.call(m - n - 1)),
            )
        });
        assert!(recursion_holds_arrays(p.ir(), bound.name()));
        assert!(recursion_holds_arrays(p.ir(), beside.name()));
        assert!(!recursion_holds_arrays(p.ir(), scalar.name()));
    }
}
