//! Sibling filters (`sibling-filters`): one-predicate filters of one array whose predicates
//! exclude each other become one multi-predicate filter, which the executor runs as one key
//! pass and one split of the array into its classes:
//!
//! ```text
//! let less = filter([|x| x < p], xs).0 in
//! let equal = filter([|x| x == p], xs).0 in
//! let greater = filter([|x| x > p], xs).0 in ..
//! ```
//!
//! becomes
//!
//! ```text
//! let s = filter([|x| x < p, |x| x == p, |x| x > p], xs) in
//! let less = s.0 in let equal = s.1 in let greater = s.2 in ..
//! ```
//!
//! (quicksort's three parts). A multi-predicate filter puts each element in the class of the
//! first predicate it satisfies; when no element can satisfy two of them, class `k` holds
//! exactly the elements of predicate `k`, in input order, which is what the `k`-th filter
//! gave. The rule proves that from the predicates' form: each compares the element (its
//! parameter, possibly renamed by `let`s) with one operand, the same variable or literal in
//! every predicate, and the outcomes each accepts (less, equal, greater, unordered: a NaN
//! compares unordered, and only `!=` accepts it) are disjoint. Such a predicate cannot fail,
//! so evaluating the predicates in one pass instead of one filter after another reports the
//! same errors (none). The filters need not be adjacent: any bindings may come between them
//! as long as none rebinds the array or a predicate's operand before the later filter.

use super::graph::Chain;
use super::rules::Fuser;
use crate::comparison::Comparison;
use crate::ir::{Expr, Lambda};
use std::sync::Arc;

/// `filter([p], xs).0` with `xs` a variable: the array's name and the predicate.
fn single_filter(e: &Expr) -> Option<(&str, &Lambda)> {
    let Expr::Proj(f, 0) = e else {
        return None;
    };
    let Expr::Filter(ps, a) = &**f else {
        return None;
    };
    match (ps.as_slice(), &**a) {
        ([p], Expr::Var(xs)) => Some((xs, p)),
        _ => None,
    }
}

impl Fuser {
    /// Merges, for each filter of the chain in turn, the later sibling filters that exclude
    /// it and each other (see the module documentation).
    pub(super) fn sibling_filters(&mut self, c: &mut Chain) {
        let mut i = 0;
        while i < c.binds.len() {
            self.siblings_from(c, i);
            i += 1;
        }
    }

    /// Merges the filter bound at node `i` with its later siblings; returns whether it did.
    fn siblings_from(&mut self, c: &mut Chain, i: usize) -> bool {
        let Some((xs, first)) = single_filter(&c.binds[i].1) else {
            return false;
        };
        let Some(head) = Comparison::of(first) else {
            return false;
        };
        let xs = xs.to_string();
        if c.binds[i].0 == xs {
            return false;
        }
        let mut group: Vec<(usize, Lambda, Comparison)> = vec![(i, first.clone(), head)];
        for j in i + 1..c.binds.len() {
            if let Some((ys, p)) = single_filter(&c.binds[j].1)
                && ys == xs
                && let Some(cmp) = Comparison::of(p)
                && group.iter().all(|(_, _, g)| g.excludes(&cmp))
                && !rebound(c, i, j, &cmp.operand)
            {
                group.push((j, p.clone(), cmp));
            }
            if c.binds[j].0 == xs {
                break;
            }
        }
        if group.len() < 2 {
            return false;
        }
        let fresh = self.fresh("siblings");
        for (k, (j, _, _)) in group.iter().enumerate() {
            c.binds[*j].1 = Expr::Proj(Arc::new(Expr::Var(fresh.clone())), k);
        }
        let preds = group.into_iter().map(|(_, p, _)| p).collect();
        let merged = Expr::Filter(preds, Arc::new(Expr::Var(xs)));
        c.binds.insert(i, (fresh, merged));
        self.applied.push("sibling-filters");
        true
    }
}

/// Whether a binding from node `i` up to (not including) node `j` rebinds the variable
/// `operand` (a literal is never rebound), so that the filter at `j` would read another value
/// than at `i`.
fn rebound(c: &Chain, i: usize, j: usize, operand: &Expr) -> bool {
    match operand {
        Expr::Var(v) => c.binds[i..j].iter().any(|(name, _)| name == v),
        _ => false,
    }
}
