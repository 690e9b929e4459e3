//! Compile-fail tests of `#[vectorise]`: unsupported syntax and type errors are compile errors at
//! the offending span that say what is supported (expected messages in `ui/*.stderr`).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
