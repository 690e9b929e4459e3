//! Every boundary type of `#[vectorise]` through a kernel and back: `Nested<T>` parameters and
//! results of every element type of the IR (bool and tuples included) and deeper
//! (`Nested<Vec<T>>`), converted without `Vec<Vec<_>>`; the narrow types `u32`, `i32`, `usize`,
//! `f32` as scalars, slices, `Vec`s, `&[Vec<_>]` and `Nested`, with the conversion errors at
//! the edges of each type. `try_f`, the executor and the reference interpreter agree.

use flatland::Error;
use flatland::prelude::*;
use flatland::runtime::elt::{Elt, Store};
use flatland::runtime::stats;

#[vectorise]
mod k {
    use flatland::prelude::Nested;

    pub fn not_all(n: &Nested<bool>) -> Nested<bool> {
        n.map(|r| r.map(|x| !x))
    }

    pub fn swap(n: &Nested<(i64, f64)>) -> Nested<(f64, i64)> {
        n.map(|r| r.map(|(a, b)| (b, a)))
    }

    pub fn shift(n: &Nested<i64>, by: i64) -> Nested<i64> {
        n.map(|r| r.map(|x| x + by))
    }

    pub fn halves(n: &Nested<f64>) -> Nested<f64> {
        n.map(|r| r.map(|x| x / 2.0))
    }

    pub fn deeper(n: &Nested<Vec<i64>>) -> Nested<Vec<i64>> {
        n.map(|r| r.map(|s| s.map(|x| x * 10)))
    }

    pub fn deep_sums(n: &Nested<Vec<f64>>) -> Vec<Vec<f64>> {
        n.map(|r| r.map(|s| s.sum()))
    }

    pub fn add_u32(xs: &[u32], k: u32) -> Vec<u32> {
        xs.map(|x| x + k)
    }

    pub fn negate_i32(xs: Vec<i32>) -> Vec<i32> {
        xs.map(|x| -x)
    }

    pub fn less_one(xs: &[usize]) -> Vec<usize> {
        xs.map(|x| x - 1)
    }

    pub fn scale_f32(xs: &[f32], k: f32) -> Vec<f32> {
        xs.map(|x| x * k)
    }

    pub fn lengths(rows: &[Vec<usize>]) -> Vec<usize> {
        rows.map(|r| r.len())
    }

    pub fn row_sums(rows: &Nested<usize>) -> Vec<usize> {
        rows.map(|r| r.sum())
    }

    pub fn doubled(rows: &Nested<u32>) -> Nested<u32> {
        rows.map(|r| r.map(|x| x * 2))
    }

    pub fn weighted(rows: &Nested<(usize, f32)>) -> Nested<(f32, usize)> {
        rows.map(|r| r.map(|(i, w)| (w * 2.0, i + 1)))
    }

    pub fn mixed(n: usize, x: f32, i: i32) -> f32 {
        (n as f64 + x) * i as f64
    }
}

fn nested<T: Elt>(rows: Vec<Vec<T>>) -> Nested<T> {
    let mut offsets = vec![0];
    for r in &rows {
        offsets.push(offsets.last().unwrap() + r.len());
    }
    let flat: Vec<T> = rows.into_iter().flatten().collect();
    Nested::from_offsets(offsets, T::Store::from_vec(flat)).unwrap()
}

#[test]
fn nested_of_every_element_type_round_trips() {
    let b = nested(vec![vec![true, false], vec![], vec![true]]);
    let out = k::not_all(&b);
    assert_eq!(out.to_vec(), vec![vec![false, true], vec![], vec![false]]);
    assert_eq!(
        k::plan::not_all::reference(&b).unwrap().to_vec(),
        out.to_vec()
    );
    assert_eq!(
        k::plan::not_all::executor(&b).unwrap().to_vec(),
        out.to_vec()
    );

    let t = nested(vec![vec![(1, 0.5), (2, -0.0)], vec![(3, f64::NAN)]]);
    let out = k::swap(&t);
    let bits = |n: &Nested<(f64, i64)>| -> Vec<Vec<(u64, i64)>> {
        n.to_vec()
            .into_iter()
            .map(|r| r.into_iter().map(|(a, b)| (a.to_bits(), b)).collect())
            .collect()
    };
    assert_eq!(
        bits(&out),
        vec![
            vec![(0.5f64.to_bits(), 1), ((-0.0f64).to_bits(), 2)],
            vec![(f64::NAN.to_bits(), 3)]
        ]
    );
    assert_eq!(bits(&k::plan::swap::reference(&t).unwrap()), bits(&out));

    let i = nested(vec![vec![1i64, 2], vec![], vec![3]]);
    assert_eq!(
        k::shift(&i, 10).to_vec(),
        vec![vec![11, 12], vec![], vec![13]]
    );
    // Shared (replicated) rows are read through their virtual segments.
    let rep = i.replicate(2).unwrap();
    assert_eq!(
        k::shift(&rep, 1).to_vec(),
        k::plan::shift::reference(&rep, 1).unwrap().to_vec()
    );
    let f = nested(vec![vec![1.0, 3.0], vec![]]);
    assert_eq!(k::halves(&f).to_vec(), vec![vec![0.5, 1.5], vec![]]);
}

#[test]
fn nested_deeper_round_trips() {
    // Two rows of arrays of arrays: [[1, 2], []] and [[3]].
    let inner = nested(vec![vec![1i64, 2], vec![], vec![3]]);
    let deep: Nested<Vec<i64>> = Nested::from_offsets(vec![0, 2, 3], inner).unwrap();
    let out = k::deeper(&deep);
    assert_eq!(out.len(), 2);
    let rows: Vec<Vec<Vec<i64>>> = out.iter().map(|r| r.to_vec()).collect();
    assert_eq!(rows, vec![vec![vec![10, 20], vec![]], vec![vec![30]]]);
    let reference: Vec<Vec<Vec<i64>>> = k::plan::deeper::reference(&deep)
        .unwrap()
        .iter()
        .map(|r| r.to_vec())
        .collect();
    assert_eq!(reference, rows);

    let inner = nested(vec![vec![0.5f64, 0.25], vec![]]);
    let deep: Nested<Vec<f64>> = Nested::from_offsets(vec![0, 2], inner).unwrap();
    assert_eq!(k::deep_sums(&deep), vec![vec![0.75, 0.0]]);
}

#[test]
fn narrow_types_round_trip_and_are_counted() {
    let ((), work) = stats::measure(|| {
        assert_eq!(k::add_u32(&[0, u32::MAX - 1], 1), vec![1, u32::MAX]);
    });
    if stats::ENABLED {
        // Two elements and the scalar in, two elements out.
        assert_eq!(work.elements_converted, 5);
    }
    assert_eq!(k::negate_i32(vec![i32::MAX, -5]), vec![-i32::MAX, 5]);
    assert_eq!(k::less_one(&[1, 10]), vec![0, 9]);
    assert_eq!(k::scale_f32(&[1.5, -0.0], 2.0), vec![3.0, -0.0]);
    assert!(k::scale_f32(&[f32::NAN], 1.0)[0].is_nan());
    assert_eq!(k::lengths(&[vec![1, 2, 3], vec![]]), vec![3, 0]);
    assert_eq!(
        k::row_sums(&nested(vec![vec![1usize, 2], vec![7]])),
        vec![3, 7]
    );
    let d = k::doubled(&nested(vec![vec![1u32, 2], vec![]]));
    assert_eq!(d.to_vec(), vec![vec![2u32, 4], vec![]]);
    let w = k::weighted(&nested(vec![
        vec![(0usize, 0.5f32)],
        vec![],
        vec![(7, -1.0)],
    ]));
    assert_eq!(
        w.to_vec(),
        vec![vec![(1.0f32, 1usize)], vec![], vec![(-2.0, 8)]]
    );
    assert_eq!(k::mixed(2, 0.5, -2), -5.0);
    assert_eq!(k::plan::mixed::reference(2, 0.5, -2).unwrap(), -5.0);
}

fn does_not_fit(e: Error) -> (String, Vec<usize>, String, &'static str) {
    match e {
        Error::DoesNotFit {
            place,
            index,
            value,
            ty,
        } => (place.into(), index.into(), value.into(), ty),
        other => panic!("not a conversion error: {other}"),
    }
}

#[test]
fn values_that_do_not_fit_are_typed_errors_at_each_edge() {
    // u32: the result one past the top.
    let e = does_not_fit(k::try_add_u32(&[1, u32::MAX], 1).unwrap_err());
    let want = (
        "the result of `add_u32`".to_string(),
        vec![1],
        "4294967296".to_string(),
        "u32",
    );
    assert_eq!(e, want);
    assert_eq!(
        does_not_fit(k::plan::add_u32::reference(&[1, u32::MAX], 1).unwrap_err()),
        want
    );
    // i32: -i32::MIN does not fit; i32::MIN itself does.
    assert_eq!(k::negate_i32(vec![i32::MIN + 1]), vec![i32::MAX]);
    let e = does_not_fit(k::try_negate_i32(vec![0, 1, i32::MIN]).unwrap_err());
    assert_eq!(e.1, vec![2]);
    assert_eq!(e.2, "2147483648");
    // usize: below zero on exit, above i64::MAX on entry (naming the argument).
    let e = does_not_fit(k::try_less_one(&[3, 0]).unwrap_err());
    assert_eq!((e.1, e.2.as_str(), e.3), (vec![1], "-1", "usize"));
    let big = i64::MAX as usize + 1;
    let e = does_not_fit(k::try_less_one(&[1, 2, big]).unwrap_err());
    assert_eq!(e.0, "argument `xs` of `less_one`");
    assert_eq!((e.1, e.3), (vec![2], "usize"));
    assert_eq!(
        k::less_one(&[i64::MAX as usize]),
        vec![i64::MAX as usize - 1]
    );
    // Rows of usize: the row and the position in it.
    let e = does_not_fit(k::try_lengths(&[vec![], vec![0, big]]).unwrap_err());
    assert_eq!(
        (e.0.as_str(), e.1),
        ("argument `rows` of `lengths`", vec![1, 1])
    );
    // Nested<usize>: the position among the stored elements.
    let e = does_not_fit(k::try_row_sums(&nested(vec![vec![1], vec![big]])).unwrap_err());
    assert_eq!(
        (e.0.as_str(), e.1),
        ("argument `rows` of `row_sums`", vec![1])
    );
    // f32: the largest finite value fits, twice it does not; infinities and NaN pass.
    assert_eq!(k::scale_f32(&[f32::MAX], 1.0), vec![f32::MAX]);
    let e = does_not_fit(k::try_scale_f32(&[f32::MAX], 2.0).unwrap_err());
    assert_eq!((e.1, e.3), (vec![0], "f32"));
    assert_eq!(k::scale_f32(&[f32::INFINITY], 2.0), vec![f32::INFINITY]);
    // A scalar result has no index.
    let e = does_not_fit(k::try_mixed(0, f32::MAX, 2).unwrap_err());
    assert_eq!((e.0.as_str(), e.1), ("the result of `mixed`", vec![]));
    assert!(k::try_mixed(usize::MAX, 0.0, 1).is_err());
}

#[test]
fn converted_kernels_say_which_code_runs() {
    let explain = k::plan::explain();
    for line in explain.lines() {
        // Converted boundary types have no per-lane form yet: the flattening executor runs them.
        assert!(line.contains(": flatten:"), "{explain}");
        assert!(line.contains("no per-lane form"), "{explain}");
    }
}
