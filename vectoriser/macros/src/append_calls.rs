//! Destination passing in the per-lane form: the functions that also get an *append form*
//! (`a_<name>`, which appends its array result to the caller's buffer, a `lane::Pieces`,
//! instead of returning a `Vec`).
//!
//! A lane of a `concat` of a `map` appends its array to its task's buffer (`lane.rs`
//! `Emitter::append`). Where that array is a call's result, the callee's append form writes
//! it there itself, and so on down a recursion whose result is the `concat` of its calls
//! (DPH's treeLookup, `[lo, hi].map(f).concat()`): every level's elements are written once,
//! into the outermost buffer, instead of one array per call copied into its caller's.

use crate::last_use::unfused;
use crate::map_parts::map_parts;
use flatland_vectoriser::ir::{Expr, Program, Type, for_each_node};
use std::collections::BTreeSet;

/// The functions called in an appending position ([`calls_in_append_position`]) of the lane
/// of some `concat` of a `map` of the program, or of the body of such a function.
pub(crate) fn appending(p: &Program) -> BTreeSet<String> {
    let mut todo = Vec::new();
    for f in &p.functions {
        for_each_node(&f.body, &mut |e| {
            if let Expr::Concat(a) = e
                && let Expr::Map(g, _) = unfused(a)
            {
                calls_in_append_position(p, &g.body, &mut todo);
            }
            // The lanes of a map whose values are only concatenated (`map_parts.rs`).
            if let Some(mp) = map_parts(e) {
                calls_in_append_position(p, &mp.f.body, &mut todo);
            }
        });
    }
    let mut found = BTreeSet::new();
    while let Some(name) = todo.pop() {
        if found.insert(name.clone())
            && let Some(f) = p.function(&name)
        {
            calls_in_append_position(p, &f.body, &mut todo);
        }
    }
    found
}

/// The calls of functions returning arrays whose value the code appending `e` to a buffer
/// appends as it is (`Emitter::append`): `e` itself, either branch of an `if`, either part of
/// an `append`, the body of a `let`, the lanes of a `concat` of a `map` or of a map whose
/// lanes are concatenated with other parts (`map_parts.rs`).
pub(crate) fn calls_in_append_position(p: &Program, e: &Expr, out: &mut Vec<String>) {
    match unfused(e) {
        Expr::Call(name, _)
            if p.function(name)
                .is_some_and(|f| matches!(f.ret, Type::Array(_))) =>
        {
            out.push(name.clone());
        }
        Expr::If(_, a, b) | Expr::Append(a, b) => {
            calls_in_append_position(p, a, out);
            calls_in_append_position(p, b, out);
        }
        Expr::Let(..) if let Some(mp) = map_parts(e) => {
            calls_in_append_position(p, &mp.f.body, out);
        }
        Expr::Let(_, _, b) => calls_in_append_position(p, b, out),
        Expr::Concat(a) => {
            if let Expr::Map(g, _) = unfused(a) {
                calls_in_append_position(p, &g.body, out);
            }
        }
        _ => {}
    }
}
