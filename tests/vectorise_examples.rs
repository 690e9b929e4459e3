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

/// The direct path of `smvm_csr` is one segmented fold over the rows in place: it reads each
/// nonzero's column, value and vector entry once, writes one result per row and copies nothing,
/// where the executor path materialises more.
#[cfg(feature = "stats")]
#[test]
fn smvm_csr_direct_path_is_one_fold() {
    let (direct, exec) = smvm::csr_work(1000, 7);
    assert_eq!(direct.elements_read, 3 * 7000, "{direct:?}");
    assert_eq!(direct.elements_written, 1000, "{direct:?}");
    assert_eq!(direct.elements_copied, 0, "{direct:?}");
    assert!(
        exec.elements_written + exec.elements_copied > 1000,
        "{exec:?}"
    );
}
