//! Sizes a program computes go through the memory budget before they are allocated: an `iota`
//! or `vec![x; n]` of 10^12 elements is a typed error on every path (the reference interpreter,
//! the executor and the code `#[vectorise]` generates), never an abort or the OOM killer.

use flatland::prelude::*;
use flatland::runtime;

#[vectorise]
mod k {
    pub fn ramp(n: i64) -> Vec<i64> {
        (0..n).map(|i| i + 1)
    }

    pub fn ones(n: i64) -> Vec<f64> {
        vec![1.0; n]
    }
}

fn is_budget(r: &Result<impl std::fmt::Debug>) -> bool {
    matches!(r, Err(Error::Runtime(runtime::Error::MemoryBudget { .. })))
}

#[test]
fn a_trillion_elements_are_refused_on_every_path() {
    let n = 1_000_000_000_000;
    for (what, r) in [
        ("ramp", k::try_ramp(n)),
        ("ramp_executor", k::plan::ramp::executor(n)),
        ("ramp_reference", k::plan::ramp::reference(n)),
    ] {
        assert!(is_budget(&r), "{what}: {r:?}");
    }
    for (what, r) in [
        ("ones", k::try_ones(n)),
        ("ones_executor", k::plan::ones::executor(n)),
        ("ones_reference", k::plan::ones::reference(n)),
    ] {
        assert!(is_budget(&r), "{what}: {r:?}");
    }
    // Sizes that fit run as before.
    assert_eq!(k::ramp(3), vec![1, 2, 3]);
    assert_eq!(k::plan::ones::reference(2).unwrap(), vec![1.0, 1.0]);
}
