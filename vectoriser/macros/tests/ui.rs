//! Compile tests of `#[vectorise]`: unsupported syntax and type errors are compile errors at
//! the offending span that say what is supported (expected messages in `ui/*.stderr`), and the
//! generated signatures are the ones documented (`ui-pass/*.rs` compile and run).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui-pass/*.rs");
}
