//! The signatures `#[vectorise]` generates: `f` as written (a runtime error panics, naming the
//! operation and the lane) and `try_f` returning the error.

use flatland::prelude::*;

#[vectorise]
mod k {
    pub fn pick(xs: &[i64], i: i64) -> i64 {
        xs[i]
    }

    pub fn ratios(xs: &[i64], d: i64) -> Vec<i64> {
        xs.map(|x| x / d)
    }
}

#[test]
fn f_returns_the_value_as_written() {
    let v: i64 = k::pick(&[4, 5, 6], 2);
    assert_eq!(v, 6);
    let r: Vec<i64> = k::ratios(&[4, 6], 2);
    assert_eq!(r, vec![2, 3]);
}

#[test]
fn try_f_returns_the_error_of_the_reference_interpreter() {
    let e = k::try_pick(&[4, 5, 6], 3).unwrap_err();
    assert_eq!(e, k::plan::pick::reference(&[4, 5, 6], 3).unwrap_err());
    let e = k::try_ratios(&[4, 6], 0).unwrap_err();
    assert_eq!(e, k::plan::ratios::reference(&[4, 6], 0).unwrap_err());
    assert!(e.to_string().contains("division by zero"), "{e}");
}

#[test]
fn f_panics_with_the_operation_and_the_lane() {
    let e = k::try_ratios(&[4, 6, 8], 0).unwrap_err().to_string();
    let caught = std::panic::catch_unwind(|| k::ratios(&[4, 6, 8], 0)).unwrap_err();
    let message = caught
        .downcast_ref::<String>()
        .expect("a formatted panic message");
    assert_eq!(message, &format!("ratios: {e}"));
    assert!(message.contains("lane"), "{message}");
}
