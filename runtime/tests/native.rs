//! Native kernels attached to expression programs (`expr::native`): the machine's schedule, its
//! errors and its bits, whoever computes the lanes. The kernels here are written by hand the way
//! `#[vectorise]` generates them; the generated ones are tested in the workspace's
//! `tests/vectorise_native.rs`.

use flatland_runtime::expr::{
    BinaryOp, ColumnExpr, ColumnRef, CompiledExpr, Parallelism, ScalarType, native,
};
use flatland_runtime::{Error, stats};

/// `x0 / x1 + 1` on `i64`, failing (like the generated code) where `x1` is zero.
fn div_plus_one(inputs: native::Inputs<'_, '_>, out: native::Out<'_>) -> bool {
    let (a, b) = (
        inputs.i64s_at(0, out.lanes()),
        inputs.i64s_at(1, out.lanes()),
    );
    out.try_fill_i64(|i| Some(BinaryOp::Div.on_i64(a[i], b[i])?.wrapping_add(1)))
}

/// `x0 > 0.5` on `f64`, a `bool` output (bit-packed by `eval`).
fn above_half(inputs: native::Inputs<'_, '_>, out: native::Out<'_>) -> bool {
    let x = inputs.f64s_at(0, out.lanes());
    out.fill_bool(|i| x[i] > 0.5)
}

fn div_tree() -> ColumnExpr {
    ColumnExpr::input(0) / ColumnExpr::input(1) + ColumnExpr::constant(1i64)
}

fn above_tree() -> ColumnExpr {
    ColumnExpr::input(0).gt(ColumnExpr::constant(0.5))
}

/// The table of this file's kernels.
fn kernels() -> native::Kernels {
    let key = |e: &ColumnExpr, t: &[ScalarType]| CompiledExpr::compile(e, t).unwrap().key();
    native::Kernels::from_entries(&[
        (&key(&div_tree(), &[ScalarType::I64; 2]), div_plus_one),
        (&key(&above_tree(), &[ScalarType::F64]), above_half),
    ])
}

/// `e` compiled for `types`, with this file's kernels attached.
fn compile(e: &ColumnExpr, types: &[ScalarType]) -> CompiledExpr {
    CompiledExpr::compile(e, types)
        .unwrap()
        .with_kernels(&kernels())
}

const SCHEDULES: [Parallelism; 3] = [
    Parallelism::Sequential,
    Parallelism::PerBlock,
    Parallelism::Auto,
];

#[test]
fn kernels_attach_by_key_only() {
    assert!(compile(&div_tree(), &[ScalarType::I64; 2]).is_native());
    // Not attached by compiling alone, nor from another table.
    assert!(
        !CompiledExpr::compile(&div_tree(), &[ScalarType::I64; 2])
            .unwrap()
            .is_native()
    );
    assert!(
        !CompiledExpr::compile(&div_tree(), &[ScalarType::I64; 2])
            .unwrap()
            .with_kernels(&native::Kernels::new())
            .is_native()
    );
    // Another constant, or other input types: another program, no kernel.
    let other = ColumnExpr::input(0) / ColumnExpr::input(1) + ColumnExpr::constant(2i64);
    assert!(!compile(&other, &[ScalarType::I64; 2]).is_native());
    let floats = ColumnExpr::input(0).gt(ColumnExpr::constant(0.25));
    assert!(!compile(&floats, &[ScalarType::F64]).is_native());
    assert!(
        !compile(&div_tree(), &[ScalarType::I64; 2])
            .interpreted()
            .is_native()
    );
}

#[test]
fn native_and_interpreted_agree_on_every_schedule_and_length() {
    for n in [0, 1, 63, 64, 65, 1023, 1024, 1025, 4096 * 3 + 17, 100_000] {
        let a: Vec<i64> = (0..n as i64).map(|i| i * 37 - 1_000).collect();
        let b: Vec<i64> = (0..n as i64).map(|i| i % 11 - 20).collect();
        let x: Vec<f64> = (0..n).map(|i| (i % 7) as f64 / 6.0).collect();
        for s in SCHEDULES {
            let p = compile(&div_tree(), &[ScalarType::I64; 2]).with_parallelism(s);
            let args = [ColumnRef::I64(&a), ColumnRef::I64(&b)];
            let (got, w) = stats::measure(|| p.eval(&args, n).unwrap());
            assert_eq!(
                got,
                p.clone().interpreted().eval(&args, n).unwrap(),
                "n {n}, {s:?}"
            );
            if stats::ENABLED {
                assert_eq!((w.lanes_native, w.lanes_interpreted), (n as u64, 0));
            }
            let q = compile(&above_tree(), &[ScalarType::F64]).with_parallelism(s);
            let args = [ColumnRef::F64(&x)];
            assert_eq!(
                q.eval(&args, n).unwrap(),
                q.clone().interpreted().eval(&args, n).unwrap(),
                "n {n}, {s:?}"
            );
        }
    }
}

/// A lane that fails in the kernel: the machine recomputes and reports the lowest failing lane,
/// as it does alone, whatever the schedule.
#[test]
fn a_failing_kernel_hands_over_to_the_machine() {
    let n = 20_000;
    let a: Vec<i64> = (0..n as i64).collect();
    let mut b = vec![3i64; n];
    b[19_000] = 0;
    b[5_001] = 0;
    for s in SCHEDULES {
        let p = compile(&div_tree(), &[ScalarType::I64; 2]).with_parallelism(s);
        let args = [ColumnRef::I64(&a), ColumnRef::I64(&b)];
        let (got, w) = stats::measure(|| p.eval(&args, n));
        assert_eq!(
            got,
            Err(Error::DivisionByZero {
                op: "div",
                lane: 5_001
            }),
            "{s:?}"
        );
        assert_eq!(got, p.clone().interpreted().eval(&args, n), "{s:?}");
        if stats::ENABLED {
            assert!(w.lanes_interpreted > 0, "{s:?}: {w:?}");
        }
    }
}
