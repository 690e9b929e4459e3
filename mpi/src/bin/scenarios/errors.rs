//! Errors agree: a failure on one rank makes every rank return the same `Error::OnRank`,
//! and the ranks stay in step for the next collective.

use crate::inputs::floats;
use crate::same_bits;
use flatland_mpi::{Comm, DistArray, DistCsr, DistNested, Error};
use flatland_runtime::{assoc::LEAF, flat, seg};
use flatland_segd::{Segd, VSegd};

/// Asserts that `got` is `Error::OnRank { rank, error }` with `error` equal to `local`.
fn expect<X>(got: Result<X, Error>, rank: usize, local: &Error, what: &str) {
    match got {
        Err(Error::OnRank { rank: r, error }) => {
            assert_eq!((r, &*error), (rank, local), "{what}");
        }
        Err(e) => panic!("{what}: not agreed: {e}"),
        Ok(_) => panic!("{what}: succeeded"),
    }
}

/// The ranks are still in step: a collective after the error works.
fn still_in_step(comm: &Comm) {
    let xs: Vec<f64> = floats(3, 5 * LEAF);
    let segd = Segd::from_lengths(vec![5 * LEAF]).unwrap();
    let root = (comm.rank() == 0).then_some((&segd, &xs[..]));
    let d = DistNested::scatter(comm, 0, root).unwrap();
    let want = seg::fold_s(&segd, &xs, 0.0, |a, b| a + b).unwrap();
    same_bits(
        &d.fold_s(0.0, |a, b| a + b).gather_all(),
        &want,
        "fold after an error",
    );
}

pub(crate) fn errors(comm: &Comm) {
    let (me, p) = (comm.rank(), comm.size());
    let last = p - 1;

    // The root gives no array.
    let got = DistNested::<f64>::scatter(comm, 0, None);
    let e = Error::Invalid {
        op: "DistNested::scatter".into(),
        detail: "the root gave no array".into(),
    };
    expect(got, 0, &e, "scatter without an array");
    still_in_step(comm);

    // A root that is no rank.
    let got = DistNested::<f64>::scatter(comm, p, None);
    let e = Error::Invalid {
        op: "DistNested::scatter".into(),
        detail: format!("root {p} out of range for {p} ranks"),
    };
    expect(got, 0, &e, "scatter from a root that is no rank");
    assert!(DistArray::<f64>::scatter(comm, p + 3, None).is_err());

    // The root's descriptor and data disagree.
    let segd = Segd::from_lengths(vec![2, 3]).unwrap();
    let short = [1.0; 4];
    let got = DistNested::scatter(comm, 0, (me == 0).then_some((&segd, &short[..])));
    let e = Error::LengthMismatch {
        op: "DistNested::scatter".into(),
        expected: 5,
        found: 4,
    };
    expect(got, 0, &e, "scatter with short data");

    // Bad parts on the last rank and, with three ranks, on rank 1 too: the lowest one wins.
    let bad = me == last || (p == 3 && me == 1);
    let part = Segd::from_lengths(vec![3]).unwrap();
    let data = if bad { vec![0.0; 2] } else { vec![0.0; 3] };
    let got = DistNested::from_parts(comm, part, data);
    let lowest = if p == 3 { 1 } else { last };
    let e = Error::LengthMismatch {
        op: "DistNested::from_parts".into(),
        expected: 3,
        found: 2,
    };
    expect(got, lowest, &e, "from_parts with bad parts");
    still_in_step(comm);

    // An index out of range on the last rank only.
    let xs = floats(1, 100);
    let arr = DistArray::scatter(comm, 0, (me == 0).then_some(&xs[..])).unwrap();
    let idx: Vec<i64> = if me == last {
        vec![3, 99, 100, 7]
    } else {
        vec![0, 1]
    };
    let got = arr.gather(&idx);
    let e = flatland_mpi::Error::from(flat::gather(&xs, &[3i64, 99, 100, 7]).unwrap_err());
    expect(got, last, &e, "gather out of range");

    // A class out of range: the error names the global lane, as one process does.
    let o = arr.offsets().to_vec();
    let mut keys: Vec<u8> = vec![0; 100];
    keys[97] = 5;
    let got = arr.partition(&keys[o[me]..o[me + 1]], 2);
    let e = Error::from(flat::partition(&xs, &keys, 2, None).unwrap_err());
    expect(
        got,
        arr.offsets()[1..].partition_point(|&x| x <= 97),
        &e,
        "partition key",
    );
    still_in_step(comm);

    // Lifted index: a segment out of range, an index past a long segment spanning ranks, and
    // a negative index, on different ranks; the lowest failing rank's first bad lane wins.
    let segd = Segd::from_lengths(vec![4, 9 * LEAF + 3, 0, 2]).unwrap();
    let data = floats(2, segd.elements());
    let d = DistNested::scatter(comm, 0, (me == 0).then_some((&segd, &data[..]))).unwrap();
    let long = 9 * LEAF as i64;
    let lanes: [(Vec<usize>, Vec<i64>); 3] = [
        (vec![0, 1, 1], vec![3, long + 3, 5]),
        (vec![1, 3, 7], vec![long + 2, 1, 0]),
        (vec![3, 0], vec![-1, 0]),
    ];
    // A negative index into the long segment names its whole length, as one process does.
    let got = d.index_l(&[1], &[-3]);
    let e = Error::from(seg::index_l(&VSegd::from_segd(&segd), &[&data], &[1], &[-3]).unwrap_err());
    expect(got, 0, &e, "index_l negative into a spanning segment");
    let fails = |r: usize| r == last || r < 2;
    let lowest = (0..p).find(|&r| fails(r)).unwrap();
    let pick = |r: usize| lanes[if r == last { 2 } else { r.min(1) }].clone();
    let (segs, idx) = if fails(me) {
        pick(me)
    } else {
        (vec![0], vec![0])
    };
    let got = d.index_l(&segs, &idx);
    let (s0, i0) = pick(lowest);
    let e = Error::from(seg::index_l(&VSegd::from_segd(&segd), &[&data], &s0, &i0).unwrap_err());
    expect(got, lowest, &e, "index_l out of range");
    still_in_step(comm);

    // smvm with a wrong vector length on the last rank.
    let rows = Segd::from_lengths(vec![2, 1]).unwrap();
    let (cols, vals) = (vec![0, 2, 1], vec![1.0, 2.0, 3.0]);
    let m = DistCsr::scatter(
        comm,
        0,
        (me == 0).then_some((&rows, &cols[..], &vals[..])),
        3,
    )
    .unwrap();
    let x = if me == last {
        vec![1.0; 2]
    } else {
        vec![1.0; 3]
    };
    let e = Error::LengthMismatch {
        op: "smvm".into(),
        expected: 3,
        found: 2,
    };
    expect(m.smvm(&x), last, &e, "smvm vector length");
    // A column out of range on the root.
    let bad_cols = [0, 3, 1];
    let got = DistCsr::scatter(
        comm,
        0,
        (me == 0).then_some((&rows, &bad_cols[..], &vals[..])),
        3,
    );
    let e = Error::IndexOutOfRange {
        op: "DistCsr::scatter".into(),
        lane: 1,
        index: 3,
        len: 3,
    };
    expect(got, 0, &e, "smvm column out of range");
    still_in_step(comm);
}
