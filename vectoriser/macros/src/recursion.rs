//! The call graph of a module, for the run's choice of strategy: which functions recurse, and
//! whether a recursion keeps arrays that nothing reads any more alive across its recursive
//! calls in the per-lane form.
//!
//! The per-lane form (`lane.rs`) is plain Rust: a level's values live until their last read,
//! which moves them (`last_use.rs`): into the filter that reads an array last, into the call
//! that takes it, into the lanes of a `map` whose lanes call a recursive function (each lane
//! takes its own array, `lane::Owning`); and a recursive call drops the dead arrays still held
//! ([`drops_before_calls`]). A recursion whose every recursive call is reached
//! with only live values held (the values read after the call) holds what the flattening
//! executor holds, level by level: quicksort's three parts handed down, its input freed
//! before its calls. One that may keep a dead array alive across its recursive calls (an
//! array read in place by the call, a tuple of arrays, a call under a loop or a fold)
//! would hold one per level (up to `depth * n` elements: quadratic on a quicksort of sorted
//! keys); such functions take the executor unless forced (`strategy::Forms::Recursive`). A
//! recursion whose calls keep only scalars alive (NESL's primes) holds nothing per level.

use crate::last_use::{destructuring, holds_array, may_borrow, moving_reads, node, reads, unfused};
use flatland_vectoriser::check;
use flatland_vectoriser::ir::{Expr, Function, FusedForm, Lambda, Program, Type, children};
use std::cell::RefCell;

/// Whether the per-lane form of `name` (and of every function it reaches through its calls)
/// may keep a dead array alive across a recursive call: some recursive function it reaches
/// has a recursive call that [`Spine::holds`] finds so.
pub(crate) fn recursion_holds_arrays(p: &Program, name: &str) -> bool {
    reachable(p, name)
        .iter()
        .filter_map(|g| p.function(g))
        .any(|f| calls_itself(p, &f.name) && judge(p, f).0)
}

/// The variables the per-lane form of `f` drops before its recursive calls: at a recursive
/// call that is a statement of the function's spine (or of a recursive map's lanes), each
/// array in scope that nothing reads after the call, that no earlier read moved, that no
/// argument and no `let` of the function borrows (list ranking's `next` and `rank` before its
/// tail call). Each is the call's [`node`] and the variable's name.
pub(crate) fn drops_before_calls(p: &Program, f: &Function) -> Vec<(usize, String)> {
    if calls_itself(p, &f.name) {
        judge(p, f).1
    } else {
        Vec::new()
    }
}

/// [`Spine::holds`] of the recursive function `f`'s body against the functions of its cycle,
/// and the drops it found.
fn judge(p: &Program, f: &Function) -> (bool, Vec<(usize, String)>) {
    let cycle: Vec<String> = reachable(p, &f.name)
        .into_iter()
        .filter(|h| reachable(p, h).contains(&f.name))
        .collect();
    let mut env = f.params.clone();
    let mut scope = bound_params(p, &env, &f.params, &f.body);
    let spine = Spine::new(p, &cycle, &f.body);
    let held = spine.holds(
        &mut env,
        &f.body,
        &mut scope,
        &mut Vec::new(),
        &mut Vec::new(),
    );
    (held, spine.drops.into_inner())
}

/// Whether a `map` of `f` over `arrays` (in scope `env`) hands each lane its element by value
/// (`lane::Owning`): its one array is an array of arrays that it computed (owned, not read in
/// place), and `f` calls a recursive function, which would otherwise hold the lane's array
/// borrowed from the map until every lane returns.
pub(crate) fn owning_map(p: &Program, env: &[(String, Type)], f: &Lambda, arrays: &[Expr]) -> bool {
    let [a] = arrays else {
        return false;
    };
    if may_borrow(a, &|_| true) {
        return false;
    }
    let arrays_of_arrays = matches!(check::type_of(p, env, a),
        Ok(Type::Array(e)) if matches!(*e, Type::Array(_)));
    let mut called = Vec::new();
    calls_in(&f.body, &mut called);
    arrays_of_arrays && called.iter().any(|c| calls_itself(p, c))
}

/// A variable in scope that holds an array, with the reads that move it.
struct Bound {
    name: String,
    /// A tuple: its fields are read in place, so a live tuple may hold dead fields.
    tuple: bool,
    moves: Vec<usize>,
}

/// The parameters among `params` that hold arrays, as [`Bound`]s over `body`.
fn bound_params(
    p: &Program,
    env: &[(String, Type)],
    params: &[(String, Type)],
    body: &Expr,
) -> Vec<Bound> {
    params
        .iter()
        .filter(|(_, t)| holds_array(t))
        .map(|(n, t)| Bound {
            name: n.clone(),
            tuple: !matches!(t, Type::Array(_)),
            moves: moving_reads(p, env, n, body),
        })
        .collect()
}

/// The walk of a function's body along its `let`s and `if`s (the *spine*: what runs one
/// after another), each other node a *statement* whose recursive calls are judged with the
/// values in scope, those evaluated before it and those after it.
struct Spine<'a> {
    p: &'a Program,
    cycle: &'a [String],
    /// The body of the function walked (for [`has_alias`]).
    root: &'a Expr,
    /// The variables dropped before recursive calls ([`drops_before_calls`]).
    drops: RefCell<Vec<(usize, String)>>,
}

impl<'a> Spine<'a> {
    fn new(p: &'a Program, cycle: &'a [String], root: &'a Expr) -> Spine<'a> {
        Spine {
            p,
            cycle,
            root,
            drops: RefCell::new(Vec::new()),
        }
    }

    /// Whether evaluating `e` may reach a recursive call with a dead array alive: `scope` the
    /// array variables in scope, `before` the statements evaluated before `e` on its path,
    /// `after` those evaluated after it (each with the name its `let` binds there).
    fn holds(
        &self,
        env: &mut Vec<(String, Type)>,
        e: &'a Expr,
        scope: &mut Vec<Bound>,
        before: &mut Vec<&'a Expr>,
        after: &mut Vec<(&'a Expr, Option<&'a str>)>,
    ) -> bool {
        match e {
            Expr::Let(n, x, b) => {
                after.push((b, Some(n)));
                let held = self.holds(env, x, scope, before, after);
                after.pop();
                if held {
                    return true;
                }
                let t = check::type_of(self.p, env, x).ok();
                let hidden: Vec<Bound> = {
                    let (hidden, kept) = std::mem::take(scope)
                        .into_iter()
                        .partition(|u| u.name == *n);
                    *scope = kept;
                    hidden
                };
                env.push((
                    n.clone(),
                    t.clone().unwrap_or_else(|| Type::array(Type::I64)),
                ));
                let pushed = t.as_ref().is_none_or(holds_array);
                if pushed {
                    scope.push(Bound {
                        name: n.clone(),
                        tuple: !matches!(t, Some(Type::Array(_))),
                        // A tuple pattern's `let`s consume the tuple (`lane.rs` destructures it).
                        moves: destructuring(n, b)
                            .map_or_else(|| moving_reads(self.p, env, n, b), |d| vec![d.last]),
                    });
                }
                before.push(x);
                let held = self.holds(env, b, scope, before, after);
                before.pop();
                if pushed {
                    scope.pop();
                }
                scope.extend(hidden);
                env.pop();
                held
            }
            Expr::If(c, a, b) => {
                after.push((a, None));
                after.push((b, None));
                let held = self.holds(env, c, scope, before, after);
                after.truncate(after.len() - 2);
                if held {
                    return true;
                }
                before.push(c);
                let held = self.holds(env, a, scope, before, after)
                    || self.holds(env, b, scope, before, after);
                before.pop();
                held
            }
            Expr::Fused(f) if !matches!(f.form, FusedForm::ScatterProgressions { .. }) => {
                self.holds(env, &f.original, scope, before, after)
            }
            _ => self.statement(env, e, scope, before, after),
        }
    }

    /// [`Spine::holds`] of a statement: its recursive calls are either the statement itself,
    /// taking its array arguments handed over, or in the lanes of an owning `map` (the lane's
    /// own values judged in its body); and every array variable in scope is read after the
    /// statement or was moved before it (or by it).
    fn statement(
        &self,
        env: &mut Vec<(String, Type)>,
        s: &'a Expr,
        scope: &[Bound],
        before: &[&'a Expr],
        after: &[(&'a Expr, Option<&'a str>)],
    ) -> bool {
        if !self.calls_cycle(s) {
            return false;
        }
        let shape = match unfused(s) {
            Expr::Call(f, args) if self.cycle.contains(f) => args
                .iter()
                .all(|a| !self.calls_cycle(a) && self.handed_over(env, a, scope)),
            Expr::Map(l, arrays) => {
                !arrays.iter().any(|a| self.calls_cycle(a))
                    && self.lanes_hold_nothing_dead(env, l, arrays)
            }
            Expr::Concat(m) if matches!(unfused(m), Expr::Map(..)) => {
                let Expr::Map(l, arrays) = unfused(m) else {
                    unreachable!("matched above")
                };
                !arrays.iter().any(|a| self.calls_cycle(a))
                    && self.lanes_hold_nothing_dead(env, l, arrays)
            }
            // A call inside an expression: held while any array is in scope or beside it.
            _ => return !scope.is_empty() || self.beside_arrays(env, s),
        };
        if !shape {
            return true;
        }
        let call = match unfused(s) {
            Expr::Call(f, args) if self.cycle.contains(f) => Some(args),
            _ => None,
        };
        let mut held = false;
        for u in scope {
            let live = after
                .iter()
                .any(|(x, bound)| *bound != Some(u.name.as_str()) && reads(x, &u.name))
                || reads_under_lambdas(s, &u.name);
            let moved = u
                .moves
                .iter()
                .any(|&m| contains(s, m) || before.iter().any(|b| contains(b, m)));
            if moved || (live && !u.tuple) {
                continue;
            }
            // Dead and still held: a recursive call that is the statement drops it first
            // (its arguments computed), where nothing borrows it.
            if let Some(args) = call
                && !live
                && !args.iter().any(|a| may_borrow(a, &|m| m == u.name))
                && !has_alias(self.root, &u.name)
            {
                self.drops
                    .borrow_mut()
                    .push((node(unfused(s)), u.name.clone()));
                continue;
            }
            held = true;
        }
        held
    }

    /// Whether the lanes of a `map` of `l` over `arrays` (in scope `env`), whose body calls the
    /// cycle, hold no dead array across those calls: the lanes take their elements (an
    /// owning map) or the elements hold no array, and the body's own values are judged as a
    /// function body's are.
    fn lanes_hold_nothing_dead(
        &self,
        env: &mut Vec<(String, Type)>,
        l: &'a Lambda,
        arrays: &[Expr],
    ) -> bool {
        let mut params = Vec::new();
        for ((n, _), a) in l.params.iter().zip(arrays) {
            match check::type_of(self.p, env, a) {
                Ok(Type::Array(e)) => params.push((n.clone(), *e)),
                _ => return false,
            }
        }
        let owning = owning_map(self.p, env, l, arrays);
        if !owning && params.iter().any(|(_, t)| holds_array(t)) {
            return false;
        }
        let depth = env.len();
        env.extend(params.iter().cloned());
        let mut inner = bound_params(self.p, env, &params, &l.body);
        let held = self.holds(env, &l.body, &mut inner, &mut Vec::new(), &mut Vec::new());
        env.truncate(depth);
        !held
    }

    /// Whether the array argument `a` is handed over to the callee: a moving read of a
    /// variable, or a value computed for the call (not read in place).
    fn handed_over(&self, env: &[(String, Type)], a: &Expr, scope: &[Bound]) -> bool {
        if !check::type_of(self.p, env, a).map_or(true, |t| holds_array(&t)) {
            return true;
        }
        match a {
            // A variable of an enclosing scope (read by a map's lanes) is live there.
            Expr::Var(m) => scope
                .iter()
                .rev()
                .find(|u| u.name == *m)
                .is_none_or(|u| u.moves.contains(&node(a))),
            _ => !may_borrow(a, &|_| true),
        }
    }

    /// Whether evaluating `e` may hold an array: a value of an array type in it (a type it
    /// cannot tell counts as one), or a call of the cycle under one of its lambdas.
    fn beside_arrays(&self, env: &[(String, Type)], e: &Expr) -> bool {
        if check::type_of(self.p, env, e).map_or(true, |t| holds_array(&t)) {
            return true;
        }
        let (exprs, lambdas) = children(e);
        lambdas.iter().any(|l| self.calls_cycle(&l.body))
            || exprs.iter().any(|x| self.beside_arrays(env, x))
    }

    /// Whether `e` calls a function of the cycle anywhere (under its lambdas too).
    fn calls_cycle(&self, e: &Expr) -> bool {
        let mut called = Vec::new();
        calls_in(e, &mut called);
        called.iter().any(|c| self.cycle.contains(c))
    }
}

/// Whether a lambda of `e` reads the free variable `n` (a map's body reads it while its lanes,
/// and their recursive calls, run).
fn reads_under_lambdas(e: &Expr, n: &str) -> bool {
    if let Expr::Let(m, x, b) = e {
        return reads_under_lambdas(x, n) || (m != n && reads_under_lambdas(b, n));
    }
    let (exprs, lambdas) = children(e);
    lambdas
        .into_iter()
        .any(|l| l.params.iter().all(|(p, _)| p != n) && reads(&l.body, n))
        || exprs.into_iter().any(|x| reads_under_lambdas(x, n))
}

/// Whether a `let` of `e` (under its lambdas too) binds a value that may borrow the variable
/// `n` (of any binding of that name).
fn has_alias(e: &Expr, n: &str) -> bool {
    if let Expr::Let(_, x, _) = e
        && may_borrow(x, &|m| m == n)
    {
        return true;
    }
    let (exprs, lambdas) = children(e);
    exprs.into_iter().any(|x| has_alias(x, n)) || lambdas.into_iter().any(|l| has_alias(&l.body, n))
}

/// Whether the node `m` ([`node`]) is `e` or one of its descendants (under lambdas too).
fn contains(e: &Expr, m: usize) -> bool {
    if node(e) == m {
        return true;
    }
    let (exprs, lambdas) = children(e);
    exprs.into_iter().any(|x| contains(x, m)) || lambdas.into_iter().any(|l| contains(&l.body, m))
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
    fn a_recursion_that_hands_its_arrays_down_holds_only_live_ones() {
        // Quickhull: `pts` moves into its map, `packed` into the map of `pts_only`, and the
        // lanes of the recursive map (over lines: no arrays) read `pts_only`, live while they
        // run; the executor holds the same.
        let (p, _) = programs::quickhull();
        for f in &p.ir().functions {
            assert!(!recursion_holds_arrays(p.ir(), &f.name), "{}", f.name);
        }
        // A call inside an expression (here `+ 1`) while an array is in scope counts as
        // holding it: only a call that is a statement of the spine is judged finer.
        let mut p = ProgramBuilder::new();
        let tails = p.function("tails", ["xs"], |me, xs: Ex<Arr<i64>>| {
            let n = xs.len();
            if_(
                n.clone().le(0),
                Ex::from(0i64),
                me.call(xs.map(|x| x + 1).slice(1, n - 1)) + 1,
            )
        });
        assert!(recursion_holds_arrays(p.ir(), tails.name()));
    }

    #[test]
    fn arrays_alive_across_a_recursive_call_are_held() {
        // A tuple of arrays (the parts of a filter) across the recursive call under a map: its
        // fields are read in place.
        let (mut p, sort) = programs::quicksort(Pivot::Middle);
        let caller = p.function("caller", ["xs"], |_, xs: Ex<Arr<i64>>| sort.call(xs));
        assert!(recursion_holds_arrays(p.ir(), "quicksort"));
        // A caller of such a recursion would run it per-lane too.
        assert!(recursion_holds_arrays(p.ir(), caller.name()));

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
