//! A module's native kernels belong to its prepared programs only: a dsl program with the very
//! same expression program, run after the module's kernels were built, runs it on the
//! expression machine (there is no process-wide registry a string match could find them in).

#![cfg(feature = "stats")]

use flatland::runtime::stats;
use flatland::vectorise;
use flatland::vectoriser::dsl::{Arr, Ex, ProgramBuilder};
use flatland::vectoriser::exec::{ExecOptions, Prepared};
use flatland::vectoriser::ir::ReduceOp;

#[vectorise]
mod k {
    /// A map whose body is one expression program (`x * 3 + 1`) and a scan, so that the
    /// function runs on the executor with this module's kernels.
    pub fn affine_prefix(xs: &[i64]) -> Vec<i64> {
        xs.map(|x| x * 3 + 1).scan(0, |a, b| a + b)
    }
}

#[test]
fn a_dsl_program_never_runs_a_modules_kernels() {
    let xs: Vec<i64> = (0..10_000).collect();
    let (want, module) = stats::measure(|| k::plan::affine_prefix::executor(&xs).unwrap());
    assert!(module.lanes_native > 0, "{module:?}");
    assert!(!k::plan::kernels().is_empty());

    let mut p = ProgramBuilder::new();
    let f = p.function("affine_prefix", ["xs"], |_, xs: Ex<Arr<i64>>| {
        xs.map(|x| x * 3 + 1).scan(ReduceOp::Add, 0)
    });
    // The dsl program compiles expression programs the module has kernels for (same keys).
    let prepared = Prepared::new(p.ir(), f.name(), &ExecOptions::default()).unwrap();
    let shared = (prepared.expression_programs().iter())
        .filter(|e| k::plan::kernels().get(&e.key()).is_some())
        .count();
    assert!(shared > 0);
    let (got, dsl) = stats::measure(|| p.exec(&f, xs.clone()).unwrap());
    assert_eq!(got, want);
    assert_eq!(dsl.lanes_native, 0, "{dsl:?}");
    assert!(dsl.lanes_interpreted > 0, "{dsl:?}");
}
