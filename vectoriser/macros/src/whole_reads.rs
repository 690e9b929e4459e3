//! Which arrays a piece of code reads *whole* (iterates, copies, hands to an operation over all
//! its elements) rather than only indexing or measuring them: the weight of a per-lane map's
//! lane counts the arrays in scope that its body reads whole (`lane.rs`).
//!
//! A call reads an argument whole only where the callee reads that parameter whole, found for
//! every function of the module at once by a fixpoint (a recursion that only passes an array on
//! and indexes it, DPH's treeLookup, does not read it whole).

use flatland_vectoriser::ir::{Expr, Program};
use std::collections::HashMap;

/// For every function of a program, which of its parameters its body reads whole.
pub(crate) struct WholeReads {
    params: HashMap<String, Vec<bool>>,
}

impl WholeReads {
    /// The least fixpoint over the program's functions: every parameter starts as not read
    /// whole and becomes so when its function's body reads it whole, calls included. The
    /// flags only ever turn on, so the iteration ends (after at most one round per parameter).
    pub(crate) fn of(p: &Program) -> WholeReads {
        let mut w = WholeReads {
            params: p
                .functions
                .iter()
                .map(|f| (f.name.clone(), vec![false; f.params.len()]))
                .collect(),
        };
        loop {
            let mut changed = false;
            for f in &p.functions {
                for (k, (n, _)) in f.params.iter().enumerate() {
                    if !w.params[&f.name][k] && w.reads(&f.body, n) {
                        w.params.get_mut(&f.name).expect("every function")[k] = true;
                        changed = true;
                    }
                }
            }
            if !changed {
                return w;
            }
        }
    }

    /// Whether `e` reads the array variable `n` whole: anything but indexing it, taking its
    /// length, or passing it to a parameter that its function does not read whole.
    pub(crate) fn reads(&self, e: &Expr, n: &str) -> bool {
        let is_n = |x: &Expr| matches!(x, Expr::Var(m) if m == n);
        match e {
            Expr::Var(m) => m == n,
            Expr::Index(a, i) if is_n(a) => self.reads(i, n),
            Expr::Length(a) if is_n(a) => false,
            Expr::Let(m, x, b) => self.reads(x, n) || (m != n && self.reads(b, n)),
            Expr::Call(f, args) if self.params.contains_key(f) => {
                args.iter().enumerate().any(|(k, a)| {
                    if is_n(a) {
                        self.params[f].get(k).copied().unwrap_or(true)
                    } else {
                        self.reads(a, n)
                    }
                })
            }
            _ => {
                let (exprs, lambdas) = flatland_vectoriser::ir::children(e);
                exprs.into_iter().any(|c| self.reads(c, n))
                    || lambdas
                        .into_iter()
                        .any(|l| l.params.iter().all(|(p, _)| p != n) && self.reads(&l.body, n))
            }
        }
    }
}
