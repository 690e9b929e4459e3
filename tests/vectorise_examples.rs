//! The `#[vectorise]` examples (`examples/vectorise_*.rs`) as tests: each checks the macro's
//! executor path, its `NAME_reference`, the dsl program and plain Rust against each other
//! bitwise on degenerate and generated inputs.

#[allow(dead_code)]
#[path = "../examples/vectorise_smvm.rs"]
mod smvm;

#[allow(dead_code)]
#[path = "../examples/vectorise_quicksort.rs"]
mod quicksort;

#[allow(dead_code)]
#[path = "../examples/vectorise_primes.rs"]
mod primes;

#[allow(dead_code)]
#[path = "../examples/vectorise_quickhull.rs"]
mod quickhull;

#[test]
fn smvm_agrees() {
    smvm::check();
}

#[test]
fn quicksort_agrees() {
    quicksort::check();
}

#[test]
fn primes_agree() {
    primes::check();
}

#[test]
fn quickhull_agrees() {
    quickhull::check();
}
