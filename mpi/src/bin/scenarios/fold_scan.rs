//! Distributed fold and scans against `flatland_runtime::seg` on one process, bit for bit.

use crate::{build, for_each_case, same_bits};
use flatland_mpi::Comm;
use flatland_runtime::seg;

/// A named binary operator on floats.
type Op = (&'static str, fn(f64, f64) -> f64);

/// An associative operator, and a non-associative one (any misplaced parenthesis shows).
const OPS: [Op; 2] = [
    ("add", |a, b| a + b),
    ("skewed", |a, b| a.mul_add(0.999, b)),
];

pub(crate) fn fold(comm: &Comm) {
    for_each_case(comm, |name, segd, data| {
        for (how, d) in build(comm, segd, data) {
            for (op_name, op) in OPS {
                let got = d.fold_s(-0.0, op).gather_all();
                let want = seg::fold_s(segd, data, -0.0, op).unwrap();
                same_bits(&got, &want, &format!("fold_s {op_name} {name} ({how})"));
            }
        }
    });
}

pub(crate) fn scan(comm: &Comm) {
    for_each_case(comm, |name, segd, data| {
        for (how, d) in build(comm, segd, data) {
            for (op_name, op) in OPS {
                let (s, got) = d.scan_s(0.5, op).gather_all();
                assert_eq!(&s, segd, "scan_s keeps the descriptor");
                let want = seg::scan_s(segd, data, 0.5, op).unwrap();
                same_bits(&got, &want, &format!("scan_s {op_name} {name} ({how})"));
                let (_, got) = d.scan_s_exclusive(0.5, op).gather_all();
                let want = seg::scan_s_exclusive(segd, data, 0.5, op).unwrap();
                same_bits(
                    &got,
                    &want,
                    &format!("scan_s_exclusive {op_name} {name} ({how})"),
                );
            }
        }
    });
}
