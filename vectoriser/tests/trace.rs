//! The trace of a prepared program counts each single-pass step's route: its kernel, or the
//! unfused steps after the kernel declined (here forced by a gather out of range, which the
//! kernel gives up on so that the lifted steps name the failing lane).

use flatland_vectoriser::exec::{ExecOptions, Prepared};
use flatland_vectoriser::programs;
use flatland_vectoriser::value::Value;

fn rows(col: i64) -> Value {
    let row = |c: i64| Value::array(vec![Value::Tuple(vec![Value::I64(c), Value::F64(2.0)])]);
    Value::array(vec![row(0), row(col), Value::array(vec![])])
}

#[test]
fn a_declined_kernel_is_counted_and_a_taken_one_too() {
    let (p, f) = programs::smvm();
    let smvm = Prepared::new(p.ir(), f.name(), &ExecOptions::default()).unwrap();
    let v = Value::array(vec![Value::F64(1.0), Value::F64(3.0)]);
    smvm.run(vec![rows(1), v.clone()]).unwrap();
    let routes = smvm.trace().routes();
    assert_eq!(routes["redomap"].kernel, 1, "{}", smvm.trace());
    assert_eq!(smvm.trace().declined(), 0, "{}", smvm.trace());
    // Column 7 of a 2-vector: the kernel declines, the unfused steps report the error.
    let e = smvm.run(vec![rows(7), v.clone()]).unwrap_err();
    assert!(e.to_string().contains("index 7 out of range"), "{e}");
    let routes = smvm.trace().routes();
    assert_eq!(routes["redomap"].kernel, 1, "{}", smvm.trace());
    assert_eq!(routes["redomap"].declined, 1, "{}", smvm.trace());
    assert!(
        smvm.trace()
            .to_string()
            .contains("redomap: 1 by its kernel, 1 declined"),
        "{}",
        smvm.trace()
    );
    smvm.trace().reset();
    assert!(smvm.trace().routes().is_empty());
    // Without fusion there is no single-pass step to record.
    let plain = Prepared::new(p.ir(), f.name(), &ExecOptions { fuse: false }).unwrap();
    plain.run(vec![rows(1), v]).unwrap();
    assert!(plain.trace().routes().is_empty(), "{}", plain.trace());
}
