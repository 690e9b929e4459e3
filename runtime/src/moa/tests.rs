//! Tests of the MoA module: every worked example of the paper, the limit cases, the algebra's
//! laws as quickcheck properties, and agreement with naive references and `assoc::fold`.

use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult, quickcheck};

use super::*;
use crate::{Error, assoc};

fn arr<T>(shape: &[usize], content: Vec<T>) -> Array<T> {
    Array::from_vec(shape.to_vec(), content).unwrap()
}

fn iota_i64(n: usize) -> Array<i64> {
    iota(n).map(|&x| x as i64)
}

/// A random array of dimensionality 0..=4 with extents 0..=4 (empty arrays included).
#[derive(Clone, Debug)]
struct Any(Array<i64>);

impl Arbitrary for Any {
    fn arbitrary(g: &mut Gen) -> Self {
        let d = usize::arbitrary(g) % 5;
        let shape: Vec<usize> = (0..d).map(|_| usize::arbitrary(g) % 5).collect();
        let n = shape.iter().product();
        let content = (0..n).map(|_| i64::arbitrary(g) % 1000).collect();
        Any(arr(&shape, content))
    }
}

/// Like [`Any`] but with dimensionality >= 1 and non-zero extents.
#[derive(Clone, Debug)]
struct Full(Array<i64>);

impl Arbitrary for Full {
    fn arbitrary(g: &mut Gen) -> Self {
        let d = 1 + usize::arbitrary(g) % 4;
        let shape: Vec<usize> = (0..d).map(|_| 1 + usize::arbitrary(g) % 4).collect();
        let n = shape.iter().product();
        let content = (0..n).map(|_| i64::arbitrary(g)).collect();
        Full(arr(&shape, content))
    }
}

/// Every full index of a shape, in row-major order (the naive enumeration).
fn all_indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new()];
    for &n in shape {
        out = out
            .into_iter()
            .flat_map(|p| (0..n).map(move |i| [p.clone(), vec![i]].concat()))
            .collect();
    }
    out
}

// ---- The paper's worked examples ----

#[test]
fn paper_matmul_3x4_by_4x3() {
    let a = iota_i64(12).reshape(&[3, 4]).unwrap();
    let b = iota_i64(12).map(|x| x + 12).reshape(&[4, 3]).unwrap();
    let expected = [114, 120, 126, 378, 400, 422, 642, 680, 718];
    let c = matmul(&a, &b).unwrap();
    assert_eq!((c.shape(), c.as_slice()), (&[3, 3][..], &expected[..]));
    let cf = matmul(&a.map(|&x| x as f64), &b.map(|&x| x as f64)).unwrap();
    assert_eq!(cf.as_slice(), &expected.map(|x| x as f64)[..]);
    // Row 0 is (0 x <12,13,14>) + (1 x <15,16,17>) + (2 x <18,19,20>) + (3 x <21,22,23>).
    let row0 = (0..4).fold(Array::filled(vec![3], 0).unwrap(), |acc, k| {
        let scaled = b.psi(&[k]).unwrap().map(|&x| x * *a.get(&[0, k]).unwrap());
        acc.zip_with(&scaled, |x, y| x + y).unwrap()
    });
    assert_eq!(row0, c.psi(&[0]).unwrap());
    assert_eq!(matmul_mr(&a, &b).unwrap(), c);
}

#[test]
fn paper_psi_1_0_of_5_5_2() {
    let xi = iota(50).reshape(&[5, 5, 2]).unwrap();
    let r = xi.psi(&[1, 0]).unwrap();
    assert_eq!((r.shape(), r.as_slice()), (&[2][..], &[10, 11][..]));
    // Proposition 1 on this example: <1, 0> Ψ ξ = <0> Ψ (<1> Ψ ξ).
    assert_eq!(xi.psi(&[1]).unwrap().psi(&[0]).unwrap(), r);
    // Full index gives a scalar, the empty index the array itself.
    assert_eq!(xi.psi(&[1, 0, 1]).unwrap(), Array::scalar(11));
    assert_eq!(xi.psi(&[]).unwrap(), xi);
}

#[test]
fn paper_take_and_drop_of_3_4_5() {
    let xi = iota(60).reshape(&[3, 4, 5]).unwrap();
    let k = xi.as_slice();
    let t2 = xi.take(2).unwrap();
    assert_eq!((t2.shape(), t2.as_slice()), (&[2, 4, 5][..], &k[..40]));
    let tm2 = xi.take(-2).unwrap();
    assert_eq!((tm2.shape(), tm2.as_slice()), (&[2, 4, 5][..], &k[20..]));
    let t0 = xi.take(0).unwrap();
    assert_eq!((t0.shape(), t0.as_slice()), (&[0, 4, 5][..], &[][..]));
    assert_eq!(xi.take(3).unwrap(), xi);
    assert_eq!(xi.take(-3).unwrap(), xi);
    let d2 = xi.drop(2).unwrap();
    assert_eq!((d2.shape(), d2.as_slice()), (&[1, 4, 5][..], &k[40..]));
    let dm2 = xi.drop(-2).unwrap();
    assert_eq!((dm2.shape(), dm2.as_slice()), (&[1, 4, 5][..], &k[..20]));
    assert_eq!(xi.drop(0).unwrap(), xi);
    assert_eq!(xi.drop(3).unwrap().shape(), &[0, 4, 5]);
    for s in [4, -4, i64::MIN, i64::MAX] {
        assert!(
            matches!(xi.take(s), Err(Error::Shape { op: "take", .. })),
            "take {s}"
        );
        assert!(
            matches!(xi.drop(s), Err(Error::Shape { op: "drop", .. })),
            "drop {s}"
        );
    }
    // A scalar has no first axis.
    assert!(Array::scalar(1).take(0).is_err());
    assert!(Array::scalar(1).drop(0).is_err());
}

#[test]
fn paper_iota() {
    let i = iota_shape(&[3, 4]).unwrap();
    assert_eq!(i.shape(), &[3, 4, 2]);
    let expected: Vec<usize> = (0..3)
        .flat_map(|a| (0..4).flat_map(move |b| [a, b]))
        .collect();
    assert_eq!(i.as_slice(), &expected[..]);
    assert_eq!(iota(3).as_slice(), &[0, 1, 2]);
    assert_eq!(iota(1), Array::vector(vec![0]));
    assert_eq!(iota(0).shape(), &[0]);
    // ι <> = <>, and a shape with a 0 gives <>.
    assert_eq!(iota_shape(&[]).unwrap(), iota(0));
    assert_eq!(iota_shape(&[3, 0]).unwrap(), iota(0));
    assert_eq!(iota_of(&Array::scalar(3)).unwrap(), iota(3));
    assert_eq!(iota_of(&Array::vector(vec![3, 4])).unwrap(), i);
}

#[test]
fn paper_gamma_row_and_column_major() {
    assert_eq!(
        gamma_row(&[1, 2, 3], &[5, 10, 20]).unwrap(),
        10 * 20 + 2 * 20 + 3
    );
    assert_eq!(
        gamma_col(&[1, 2, 3], &[5, 10, 20]).unwrap(),
        1 + 5 * (2 + 10 * 3)
    );
    assert_eq!(gamma_row(&[7], &[9]).unwrap(), 7);
    assert_eq!(gamma_col(&[7], &[9]).unwrap(), 7);
    assert_eq!(
        (gamma_row(&[], &[]).unwrap(), gamma_col(&[], &[]).unwrap()),
        (0, 0)
    );
    // A 2 x 3 matrix: row-major walks rows, column-major walks columns.
    let row: Vec<usize> = all_indices(&[2, 3])
        .iter()
        .map(|i| gamma_row(i, &[2, 3]).unwrap())
        .collect();
    let col: Vec<usize> = all_indices(&[2, 3])
        .iter()
        .map(|i| gamma_col(i, &[2, 3]).unwrap())
        .collect();
    assert_eq!(row, vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(col, vec![0, 2, 4, 1, 3, 5]);
    assert!(gamma_row(&[1, 2], &[3]).is_err());
    assert!(gamma_col(&[1], &[3, 3]).is_err());
    assert!(gamma_row(&[usize::MAX, 1], &[1, usize::MAX]).is_err());
}

#[test]
fn paper_reduction_examples() {
    let add = |x: i64, y: i64| x + y;
    let xi15 = Array::scalar(1i64).reshape(&[1, 5]).unwrap();
    assert_eq!(xi15.reduce(0, add).unwrap(), Array::vector(vec![1; 5]));
    assert_eq!(
        xi15.drop(1).unwrap().reduce(0, add).unwrap(),
        Array::vector(vec![0; 5])
    );
    let xi25 = Array::scalar(1i64).reshape(&[2, 5]).unwrap();
    assert_eq!(xi25.reduce(0, add).unwrap(), Array::vector(vec![2; 5]));
    // Θ_[0,4,5] reduces to a [4,5] array of the identity; Θ_[0] to the scalar identity.
    let e045 = arr::<i64>(&[0, 4, 5], vec![]);
    assert_eq!(
        e045.reduce(1, |x, y| x * y).unwrap(),
        arr(&[4, 5], vec![1; 20])
    );
    assert_eq!(
        arr::<i64>(&[0], vec![]).reduce(0, add).unwrap(),
        Array::scalar(0)
    );
    assert_eq!(
        arr::<i64>(&[0, 4, 0], vec![])
            .reduce(0, add)
            .unwrap()
            .shape(),
        &[4, 0]
    );
    assert_eq!(
        arr::<i64>(&[3, 0], vec![]).reduce(0, add).unwrap().shape(),
        &[0]
    );
    // max over (N ∪ {∞}, max, 0) and min with identity ∞.
    let v = Array::vector(vec![3u64, 9, 4]);
    assert_eq!(v.reduce(0, u64::max).unwrap(), Array::scalar(9));
    assert_eq!(
        arr::<u64>(&[0], vec![]).reduce(u64::MAX, u64::min).unwrap(),
        Array::scalar(u64::MAX)
    );
    assert!(Array::scalar(1i64).reduce(0, add).is_err());
}

#[test]
fn paper_rav_and_reshape_limit_cases() {
    assert_eq!(Array::scalar(5).rav(), Array::vector(vec![5]));
    assert_eq!(arr::<i64>(&[2, 0, 3], vec![]).rav(), arr(&[0], vec![]));
    assert_eq!(iota(4).rav(), iota(4));
    // <> ρ̂ ξ is the scalar holding the first element; undefined for an empty array.
    assert_eq!(
        iota(4).map(|x| x + 7).reshape(&[]).unwrap(),
        Array::scalar(7)
    );
    assert!(iota(0).reshape(&[]).is_err());
    assert!(matches!(
        iota(0).reshape(&[1, 1]),
        Err(Error::Shape { op: "reshape", .. })
    ));
    assert_eq!(iota(0).reshape(&[3, 0]).unwrap().shape(), &[3, 0]);
    // Cyclic fill and prefix.
    assert_eq!(
        iota(3).reshape(&[7]).unwrap().as_slice(),
        &[0, 1, 2, 0, 1, 2, 0]
    );
    assert_eq!(iota(6).reshape(&[2, 2]).unwrap().as_slice(), &[0, 1, 2, 3]);
    assert_eq!(
        Array::scalar(9).reshape(&[2, 2]).unwrap().as_slice(),
        &[9; 4]
    );
}

#[test]
fn scalars_one_element_arrays_and_empty_arrays_are_distinct() {
    let s = Array::scalar(1i64);
    let v1 = Array::vector(vec![1i64]);
    let m11 = arr(&[1, 1], vec![1i64]);
    assert_ne!(s, v1);
    assert_ne!(v1, m11);
    assert_eq!((s.dim(), v1.dim(), m11.dim()), (0, 1, 2));
    assert_eq!((s.size(), v1.size(), m11.size()), (1, 1, 1));
    // Scalar extension extends scalars only.
    let v3 = Array::vector(vec![1i64, 2, 3]);
    assert_eq!(
        v3.zip_with(&s, |a, b| a + b).unwrap().as_slice(),
        &[2, 3, 4]
    );
    assert_eq!(
        s.zip_with(&v3, |a, b| a - b).unwrap().as_slice(),
        &[0, -1, -2]
    );
    assert!(matches!(
        v3.zip_with(&v1, |a, b| a + b),
        Err(Error::Shape { op: "zip_with", .. })
    ));
    assert_eq!(s.zip_with(&s, |a, b| a + b).unwrap(), Array::scalar(2));
    // Empty arrays of distinct shapes differ; ops on empty arrays give empty arrays of that shape.
    let e20 = arr::<i64>(&[2, 0], vec![]);
    let e0 = arr::<i64>(&[0], vec![]);
    assert_ne!(e20, e0);
    assert_eq!(e20.map(|x| x + 1), e20);
    assert_eq!(e20.zip_with(&e20, |a, b| a + b).unwrap(), e20);
    assert_eq!(e20.zip_with(&s, |a, b| a + b).unwrap(), e20);
    assert!(e20.zip_with(&e0, |a, b| a + b).is_err());
    // Ψ on an empty array is the identity (the paper's rule), but the index must not be too long.
    assert_eq!(e20.psi(&[1]).unwrap(), e20);
    assert!(e20.psi(&[0, 0, 0]).is_err());
    // Ψ on a scalar: only <> is valid.
    assert_eq!(s.psi(&[]).unwrap(), s);
    assert!(s.psi(&[0]).is_err());
    let err = iota(3).psi(&[3]).unwrap_err();
    assert_eq!(
        err,
        Error::IndexOutOfRange {
            op: "psi",
            lane: 0,
            index: 3,
            len: 3
        }
    );
}

#[test]
fn outer_product_shapes_and_limits() {
    let a = iota_i64(3);
    let b = iota_i64(4).reshape(&[2, 2]).unwrap();
    let o = a.outer(&b, |x, y| x * 10 + y);
    assert_eq!(o.shape(), &[3, 2, 2]);
    for i in all_indices(o.shape()) {
        assert_eq!(
            *o.get(&i).unwrap(),
            *a.get(&i[..1]).unwrap() * 10 + *b.get(&i[1..]).unwrap()
        );
    }
    assert_eq!(
        Array::scalar(2).outer(&Array::scalar(3), |x, y| x * y),
        Array::scalar(6)
    );
    assert_eq!(
        a.outer(&arr::<i64>(&[0, 2], vec![]), |x, y| x + y).shape(),
        &[3, 0, 2]
    );
}

// ---- Inner products against naive references ----

fn naive_inner<T: Clone>(
    a: &Array<T>,
    b: &Array<T>,
    id: T,
    plus: impl Fn(T, T) -> T,
    times: impl Fn(T, T) -> T,
) -> Vec<T> {
    let n = *a.shape().last().unwrap();
    let rows = a.size() / n.max(1);
    let rows = if n == 0 {
        a.shape()[..a.dim() - 1].iter().product()
    } else {
        rows
    };
    let cols: usize = b.shape()[1..].iter().product();
    let (x, y) = (a.as_slice(), b.as_slice());
    let mut out = Vec::new();
    for i in 0..rows {
        for j in 0..cols {
            let products: Vec<T> = (0..n)
                .map(|k| times(x[i * n + k].clone(), y[k * cols + j].clone()))
                .collect();
            out.push(assoc::fold(&products, id.clone(), &plus));
        }
    }
    out
}

#[test]
fn inner_product_float_bits_match_canonical_fold() {
    // Lengths around the short-leaf bound, lanes, leaves; widths across the column panel; and a
    // size large enough to run row blocks in parallel.
    for (m, n, p) in [
        (1, 0, 3),
        (2, 1, 1),
        (3, 15, 2),
        (2, 16, 5),
        (3, 17, 130),
        (2, 4097, 3),
        (70, 40, 300),
    ] {
        let a = iota(m * n)
            .map(|&x| ((x * 7919) % 1000) as f64 / 7.0 - 50.0)
            .reshape(&[m, n])
            .unwrap();
        let b = iota(n * p)
            .map(|&x| ((x * 104_729) % 977) as f64 / 3.0 - 100.0)
            .reshape(&[n, p])
            .unwrap();
        let c = matmul(&a, &b).unwrap();
        assert_eq!(c.shape(), &[m, p]);
        let expected = naive_inner(&a, &b, 0.0, |x, y| x + y, |x, y| x * y);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(c.as_slice()), bits(&expected), "m={m} n={n} p={p}");
    }
}

#[test]
fn inner_product_semirings_and_shapes() {
    // max-plus over a 3-d by 2-d product, and-or reachability, and vector forms.
    let a = iota_i64(24)
        .map(|x| (x * 37) % 11 - 5)
        .reshape(&[2, 3, 4])
        .unwrap();
    let b = iota_i64(20)
        .map(|x| (x * 13) % 7 - 3)
        .reshape(&[4, 5])
        .unwrap();
    let mp = a
        .inner(&b, i64::MIN, i64::max, i64::saturating_add)
        .unwrap();
    assert_eq!(mp.shape(), &[2, 3, 5]);
    assert_eq!(
        mp.to_vec(),
        naive_inner(&a, &b, i64::MIN, i64::max, i64::saturating_add)
    );
    let g = iota(16).map(|&x| x % 5 == 0).reshape(&[4, 4]).unwrap();
    let r = g.inner(&g, false, |x, y| x || y, |x, y| x && y).unwrap();
    assert_eq!(
        r.to_vec(),
        naive_inner(&g, &g, false, |x, y| x || y, |x, y| x && y)
    );
    let v = iota_i64(4);
    assert_eq!(
        v.inner(&v, 0, |x, y| x + y, |x, y| x * y).unwrap(),
        Array::scalar(14)
    );
    assert_eq!(
        b.psi(&[0])
            .unwrap()
            .inner(
                &b.transpose(&[1, 0]).unwrap(),
                0,
                |x, y| x + y,
                |x, y| x * y
            )
            .unwrap()
            .shape(),
        &[4]
    );
    // Empty inner axis: the identity everywhere; empty outer axis: an empty result.
    let e = arr::<i64>(&[3, 0], vec![]);
    let f = arr::<i64>(&[0, 2], vec![]);
    assert_eq!(
        e.inner(&f, 0, |x, y| x + y, |x, y| x * y).unwrap(),
        arr(&[3, 2], vec![0; 6])
    );
    assert_eq!(
        f.inner(
            &arr::<i64>(&[2, 4], vec![1; 8]),
            0,
            |x, y| x + y,
            |x, y| x * y
        )
        .unwrap()
        .shape(),
        &[0, 4]
    );
    assert!(matches!(
        a.inner(&a, 0, |x, y| x + y, |x, y| x * y),
        Err(Error::Shape { op: "inner", .. })
    ));
    assert!(
        Array::scalar(1)
            .inner(&v, 0, |x, y| x + y, |x, y| x * y)
            .is_err()
    );
    assert!(matmul(&v, &v).is_err());
}

// ---- Reduction: canonical association, any axis ----

#[test]
fn reduce_float_bits_match_canonical_fold_per_column() {
    for (n, m) in [
        (1, 1),
        (15, 3),
        (16, 2),
        (17, 600),
        (4095, 2),
        (4096, 1),
        (4097, 3),
        (9000, 1),
        (40_000, 1),
        (300, 1100),
    ] {
        let a = iota(n * m)
            .map(|&x| 1.0 / (1.0 + ((x * 31) % 977) as f64))
            .reshape(&[n, m])
            .unwrap();
        let r = a.reduce(0.0, |x, y| x + y).unwrap();
        for c in 0..m {
            let column: Vec<f64> = (0..n).map(|k| a.as_slice()[k * m + c]).collect();
            let expected = assoc::fold(&column, 0.0, |x, y| x + y);
            assert_eq!(
                r.as_slice()[c].to_bits(),
                expected.to_bits(),
                "n={n} m={m} c={c}"
            );
        }
    }
}

#[test]
fn reduce_preserves_operand_order_for_non_commutative_ops() {
    let a = iota(40 * 3)
        .map(std::string::ToString::to_string)
        .reshape(&[40, 3])
        .unwrap();
    let r = a.reduce(String::new(), |x, y| x + &y + ",").unwrap();
    for c in 0..3 {
        let column: Vec<String> = (0..40).map(|k| a.as_slice()[k * 3 + c].clone()).collect();
        assert_eq!(
            r.as_slice()[c],
            assoc::fold(&column, String::new(), |x, y| x + &y + ",")
        );
    }
}

#[test]
fn reduce_any_axis_matches_naive() {
    let a = iota_i64(60)
        .map(|x| (x * 17) % 23)
        .reshape(&[3, 4, 5])
        .unwrap();
    for axis in 0..3 {
        let r = a.reduce_axis(axis, 0, |x, y| x + y).unwrap();
        let mut shape = a.shape().to_vec();
        let n = shape.remove(axis);
        assert_eq!(r.shape(), &shape[..]);
        for i in all_indices(&shape) {
            let sum: i64 = (0..n)
                .map(|k| {
                    let mut full = i.clone();
                    full.insert(axis, k);
                    *a.get(&full).unwrap()
                })
                .sum();
            assert_eq!(*r.get(&i).unwrap(), sum, "axis {axis} index {i:?}");
        }
    }
}

#[test]
fn transpose_matches_naive_and_rewrite() {
    let a = iota_i64(120).reshape(&[2, 3, 4, 5]).unwrap();
    for perm in [
        [0, 1, 2, 3],
        [3, 2, 1, 0],
        [1, 0, 3, 2],
        [2, 3, 0, 1],
        [0, 2, 1, 3],
    ] {
        let t = a.transpose(&perm).unwrap();
        for j in all_indices(t.shape()) {
            let mut k = [0; 4];
            for (i, &p) in perm.iter().enumerate() {
                k[p] = j[i];
            }
            assert_eq!(t.get(&j).unwrap(), a.get(&k).unwrap());
        }
        assert_eq!(transpose_mr(&a, &perm).unwrap(), t);
    }
    assert_eq!(Array::scalar(3).transpose(&[]).unwrap(), Array::scalar(3));
    assert_eq!(
        arr::<i64>(&[2, 0], vec![])
            .transpose(&[1, 0])
            .unwrap()
            .shape(),
        &[0, 2]
    );
    assert!(a.transpose(&[0, 1, 2]).is_err());
    assert!(a.transpose(&[0, 1, 2, 4]).is_err());
    assert!(transpose_mr(&a, &[1, 1, 2, 3]).is_err());
}

// ---- map_reduce ----

#[test]
fn map_reduce_rewrites_agree_with_direct_forms() {
    for (m, n, p) in [
        (0, 3, 2),
        (3, 0, 2),
        (2, 3, 0),
        (1, 1, 1),
        (5, 7, 3),
        (9, 33, 17),
        // These run the outer output axis in parallel blocks (more than 2^15 points).
        (64, 20, 64),
        (301, 1, 203),
    ] {
        let a = iota_i64(m * n)
            .map(|x| (x * 31) % 17 - 8)
            .reshape(&[m, n])
            .unwrap();
        let b = iota_i64(n * p)
            .map(|x| (x * 7) % 13 - 6)
            .reshape(&[n, p])
            .unwrap();
        assert_eq!(
            matmul_mr(&a, &b).unwrap(),
            matmul(&a, &b).unwrap(),
            "{m}x{n}x{p}"
        );
        assert_eq!(
            transpose_mr(&a, &[1, 0]).unwrap(),
            a.transpose(&[1, 0]).unwrap()
        );
        let direct = a.rav().reduce(0, |x, y| x + y).unwrap();
        assert_eq!(sum_mr(&a).unwrap(), direct);
        let twice = a
            .reduce(0, |x, y| x + y)
            .unwrap()
            .reduce(0, |x, y| x + y)
            .unwrap();
        assert_eq!(sum_mr(&a).unwrap(), twice);
    }
    assert_eq!(sum_mr(&Array::scalar(4)).unwrap(), Array::scalar(4));
}

#[test]
fn map_reduce_edge_cases() {
    let a = iota_i64(9).reshape(&[3, 3]).unwrap();
    // Diagonal (an index repeated within one input) and trace.
    let diag = map_reduce(&Spec::parse("ii->i").unwrap(), 0, |_, e| e[0], &[&a]).unwrap();
    assert_eq!(diag.as_slice(), &[0, 4, 8]);
    let trace = map_reduce(&Spec::parse("ii->").unwrap(), 0, |acc, e| acc + e[0], &[&a]).unwrap();
    assert_eq!(trace, Array::scalar(12));
    // The fold order is the lexicographic order of the reduction indices (given explicitly).
    let s = iota(4)
        .map(std::string::ToString::to_string)
        .reshape(&[2, 2])
        .unwrap();
    let ij = map_reduce(
        &Spec::new(&["ij"], "", "ij").unwrap(),
        String::new(),
        |acc, e| acc + &e[0],
        &[&s],
    )
    .unwrap();
    let ji = map_reduce(
        &Spec::new(&["ij"], "", "ji").unwrap(),
        String::new(),
        |acc, e| acc + &e[0],
        &[&s],
    )
    .unwrap();
    assert_eq!(
        (ij.as_slice()[0].as_str(), ji.as_slice()[0].as_str()),
        ("0123", "0213")
    );
    // Outer product (no reduction), scalar inputs, no inputs.
    let v = iota_i64(3);
    let o = map_reduce(
        &Spec::parse("i,j->ij").unwrap(),
        0,
        |_, e| e[0] * 10 + e[1],
        &[&v, &v],
    )
    .unwrap();
    assert_eq!(o, v.outer(&v, |x, y| x * 10 + y));
    let sc = map_reduce(
        &Spec::parse(",i->i").unwrap(),
        0,
        |_, e| e[0] * e[1],
        &[&Array::scalar(5), &v],
    )
    .unwrap();
    assert_eq!(sc.as_slice(), &[0, 5, 10]);
    let none = map_reduce::<i64, i64>(
        &Spec::parse("->").unwrap(),
        1,
        |acc, e| acc + e.len() as i64 + 1,
        &[],
    )
    .unwrap();
    assert_eq!(none, Array::scalar(2));
    // Zero-sized outputs and reductions.
    let e = arr::<i64>(&[0, 4], vec![]);
    assert_eq!(
        map_reduce(
            &Spec::parse("ij->j").unwrap(),
            3,
            |acc, e| acc + e[0],
            &[&e]
        )
        .unwrap(),
        arr(&[4], vec![3; 4])
    );
    assert_eq!(
        map_reduce(
            &Spec::parse("ij->i").unwrap(),
            3,
            |acc, e| acc + e[0],
            &[&e]
        )
        .unwrap()
        .shape(),
        &[0]
    );
    assert_eq!(
        map_reduce(&Spec::parse("ij->ji").unwrap(), 3, |_, e| e[0], &[&e])
            .unwrap()
            .shape(),
        &[4, 0]
    );
    // Errors: input count, dimensionality, extents, bad specs.
    let mr = |spec: &str, ins: &[&Array<i64>]| {
        map_reduce(&Spec::parse(spec).unwrap(), 0, |acc, e| acc + e[0], ins)
    };
    assert!(matches!(
        mr("ij->i", &[&a, &a]),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(mr("i->i", &[&a]), Err(Error::Shape { .. })));
    assert!(matches!(
        mr("ij,jk->ik", &[&a, &v.reshape(&[1, 3]).unwrap()]),
        Err(Error::Shape { .. })
    ));
    for bad in ["ij->ii", "ij->k", "i j->i", "ij", "i->", "ij->i"] {
        let r = Spec::parse(bad);
        if bad == "i->" || bad == "ij->i" {
            assert!(r.is_ok(), "{bad}");
        } else {
            assert!(matches!(r, Err(Error::Invalid { .. })), "{bad}");
        }
    }
    assert!(Spec::new(&["ij"], "i", "jj").is_err());
    assert!(Spec::new(&["ij"], "ij", "j").is_err());
}

#[test]
fn map_reduce_loop_order_is_contiguous() {
    let order =
        |spec: &str, shapes: &[&[usize]]| Spec::parse(spec).unwrap().loop_order(shapes).unwrap();
    assert_eq!(order("ik,kj->ij", &[&[30, 40], &[40, 50]]), "ikj");
    assert_eq!(order("ij->", &[&[30, 40]]), "ij");
    assert_eq!(order("ij->j", &[&[30, 40]]), "ij");
    assert_eq!(order("ij->i", &[&[30, 40]]), "ij");
    // Reductions keep their order even when the other order would be more contiguous.
    assert_eq!(
        Spec::new(&["ij"], "", "ji")
            .unwrap()
            .loop_order(&[&[3, 4]])
            .unwrap(),
        "ji"
    );
}

// ---- Dimension lifting ----

#[test]
fn lift_blocks_cover_the_axis() {
    for n in [0, 1, 7, 8, 100] {
        for p in [1, 2, 3, 8, 13] {
            let l = Lift::new(n, p).unwrap();
            let ranges: Vec<_> = l.ranges().collect();
            assert_eq!(ranges.len(), p);
            assert_eq!(ranges.iter().map(ExactSizeIterator::len).sum::<usize>(), n);
            assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
            let (lo, hi) = (
                ranges
                    .iter()
                    .map(std::iter::ExactSizeIterator::len)
                    .min()
                    .unwrap(),
                ranges
                    .iter()
                    .map(std::iter::ExactSizeIterator::len)
                    .max()
                    .unwrap(),
            );
            assert!(hi - lo <= 1, "n={n} p={p}");
            for i in 0..n {
                let (b, o) = l.locate(i);
                assert_eq!(l.block(b).start + o, i);
            }
            let sums = l.par_map(std::iter::Iterator::sum::<usize>);
            assert_eq!(sums.iter().sum::<usize>(), n * n.saturating_sub(1) / 2);
        }
    }
    let mut data = vec![0u8; 5];
    assert!(
        Lift::new(2, 2)
            .unwrap()
            .par_rows_mut(&mut data, 2, |_, _| ())
            .is_err()
    );
}

#[test]
fn lift_axis_is_a_reshape_and_reduction_by_blocks_agrees() {
    // The paper's example: <i, j> Ψ ξ of an 8 x 16 array is <i', i'', j', j''> Ψ of its 2x4x2x8 lift.
    let xi = iota(128).reshape(&[8, 16]).unwrap();
    let l = xi.lift(0, 2).unwrap().lift(2, 2).unwrap();
    assert_eq!(l.shape(), &[2, 4, 2, 8]);
    for i in all_indices(l.shape()) {
        assert_eq!(
            l.psi(&i).unwrap(),
            xi.psi(&[i[0] * 4 + i[1], i[2] * 8 + i[3]]).unwrap()
        );
    }
    // Reducing the lifted axis in two steps gives the reduction (integers: exact).
    let a = iota_i64(24 * 3).reshape(&[24, 3]).unwrap();
    let two_step = a
        .lift(0, 4)
        .unwrap()
        .reduce_axis(1, 0, |x, y| x + y)
        .unwrap()
        .reduce(0, |x, y| x + y)
        .unwrap();
    assert_eq!(two_step, a.reduce(0, |x, y| x + y).unwrap());
    assert!(a.lift(0, 5).is_err());
    assert!(a.lift(0, 0).is_err());
    assert!(a.lift(2, 1).is_err());
}

// ---- Properties of the algebra ----

fn prop_iota_rho_psi_is_identity(Any(a): Any) -> bool {
    a.psi_array(&iota_shape(a.shape()).unwrap()).unwrap() == a
}

fn prop_psi_distributes_over_concatenation(
    Full(a): Full,
    seed: Vec<usize>,
    split: usize,
) -> TestResult {
    let d = a.dim();
    let len = seed.len().min(d);
    let index: Vec<usize> = seed[..len]
        .iter()
        .zip(a.shape())
        .map(|(&x, &n)| x % n)
        .collect();
    let (u, v) = index.split_at(split % (len + 1));
    TestResult::from_bool(a.psi(&index).unwrap() == a.psi(u).unwrap().psi(v).unwrap())
}

fn prop_rav_and_gamma_agree_with_psi(Full(a): Full) -> bool {
    let rav = a.rav();
    // Column-major layout: the content of the transpose by the reversed axes.
    let rev: Vec<usize> = (0..a.dim()).rev().collect();
    let col = a.transpose(&rev).unwrap().rav();
    all_indices(a.shape()).iter().all(|i| {
        let x = a.psi(i).unwrap();
        x.is_scalar()
            && x == rav.psi(&[gamma_row(i, a.shape()).unwrap()]).unwrap()
            && x == col.psi(&[gamma_col(i, a.shape()).unwrap()]).unwrap()
            && gamma_row_inverse(gamma_row(i, a.shape()).unwrap(), a.shape()).unwrap() == *i
    })
}

fn prop_reduce_shape_is_one_drop_rho(Any(a): Any) -> TestResult {
    if a.dim() == 0 {
        return TestResult::discard();
    }
    let r = a.reduce(0, i64::wrapping_add).unwrap();
    TestResult::from_bool(
        r.shape() == &a.shape()[1..] && r.shape() == a.rho().drop(1).unwrap().as_slice(),
    )
}

fn prop_reduce_by_halves(Any(a): Any, k: usize) -> TestResult {
    // Proposition 4 for every split point, with + (wrapping) and max.
    if a.dim() == 0 {
        return TestResult::discard();
    }
    let k = (k % (a.shape()[0] + 1)) as i64;
    let (head, tail) = (a.take(k).unwrap(), a.drop(k).unwrap());
    let add = |x: i64, y: i64| x.wrapping_add(y);
    let whole = a.reduce(0, add).unwrap();
    let halves = head
        .reduce(0, add)
        .unwrap()
        .zip_with(&tail.reduce(0, add).unwrap(), |x, y| add(*x, *y))
        .unwrap();
    let max_whole = a.reduce(i64::MIN, i64::max).unwrap();
    let max_halves = head
        .reduce(i64::MIN, i64::max)
        .unwrap()
        .zip_with(&tail.reduce(i64::MIN, i64::max).unwrap(), |x, y| *x.max(y))
        .unwrap();
    TestResult::from_bool(whole == halves && max_whole == max_halves)
}

fn prop_reduce_matches_naive(Any(a): Any) -> TestResult {
    let Some((&n, rest)) = a.shape().split_first() else {
        return TestResult::discard();
    };
    let m: usize = rest.iter().product();
    let naive: Vec<i64> = (0..m)
        .map(|c| (0..n).fold(0i64, |acc, k| acc.wrapping_add(a.as_slice()[k * m + c])))
        .collect();
    TestResult::from_bool(a.reduce(0, i64::wrapping_add).unwrap().as_slice() == &naive[..])
}

fn prop_take_drop_partition(Any(a): Any, k: usize, negative: bool) -> TestResult {
    if a.dim() == 0 {
        return TestResult::discard();
    }
    let k = (k % (a.shape()[0] + 1)) as i64;
    let k = if negative { -k } else { k };
    let (t, d) = (a.take(k).unwrap(), a.drop(k).unwrap());
    let joined: Vec<i64> = if k >= 0 {
        [t.to_vec(), d.to_vec()].concat()
    } else {
        [d.to_vec(), t.to_vec()].concat()
    };
    TestResult::from_bool(joined == a.to_vec() && t.shape()[0] + d.shape()[0] == a.shape()[0])
}

fn prop_reshape_roundtrip_and_cyclic(Any(a): Any, extra: usize) -> TestResult {
    if a.is_empty() {
        return TestResult::discard();
    }
    let back = a.rav().reshape(a.shape()).unwrap();
    let n = a.size() + extra % 7;
    let cyc = a.reshape(&[n]).unwrap();
    TestResult::from_bool(
        back == a && (0..n).all(|i| cyc.as_slice()[i] == a.as_slice()[i % a.size()]),
    )
}

fn prop_transpose_mr_agrees(Any(a): Any, seed: Vec<u8>) -> bool {
    let mut perm: Vec<usize> = (0..a.dim()).collect();
    for (i, s) in seed.iter().enumerate().take(a.dim()) {
        perm.swap(i, *s as usize % a.dim());
    }
    let inverse: Vec<usize> = (0..a.dim())
        .map(|x| perm.iter().position(|&p| p == x).unwrap())
        .collect();
    let t = a.transpose(&perm).unwrap();
    transpose_mr(&a, &perm).unwrap() == t && t.transpose(&inverse).unwrap() == a
}

#[test]
fn properties_of_the_algebra() {
    let mut qc = QuickCheck::new().tests(300);
    qc.quickcheck(prop_iota_rho_psi_is_identity as fn(Any) -> bool);
    qc.quickcheck(
        prop_psi_distributes_over_concatenation as fn(Full, Vec<usize>, usize) -> TestResult,
    );
    qc.quickcheck(prop_rav_and_gamma_agree_with_psi as fn(Full) -> bool);
    qc.quickcheck(prop_reduce_shape_is_one_drop_rho as fn(Any) -> TestResult);
    qc.quickcheck(prop_reduce_by_halves as fn(Any, usize) -> TestResult);
    qc.quickcheck(prop_reduce_matches_naive as fn(Any) -> TestResult);
    qc.quickcheck(prop_take_drop_partition as fn(Any, usize, bool) -> TestResult);
    qc.quickcheck(prop_reshape_roundtrip_and_cyclic as fn(Any, usize) -> TestResult);
    qc.quickcheck(prop_transpose_mr_agrees as fn(Any, Vec<u8>) -> bool);
}

quickcheck! {
    fn matmul_agrees_with_naive_and_rewrite(m: u8, n: u8, p: u8, seed: i64) -> bool {
        let (m, n, p) = (m as usize % 9, n as usize % 20, p as usize % 9);
        let a = iota_i64(m * n).map(|x| (x ^ seed) % 100).reshape(&[m, n]).unwrap();
        let b = iota_i64(n * p).map(|x| (x.wrapping_mul(seed)) % 100).reshape(&[n, p]).unwrap();
        let c = matmul(&a, &b).unwrap();
        c.to_vec() == naive_inner(&a, &b, 0, |x, y| x + y, |x, y| x * y) && matmul_mr(&a, &b).unwrap() == c
    }
}

// ---- Work counters ----

#[cfg(feature = "stats")]
#[test]
fn views_copy_nothing() {
    use crate::stats;
    let a = iota_i64(60).reshape(&[3, 4, 5]).unwrap();
    let ((), w) = stats::measure(|| {
        let _ = a.psi(&[1, 2]).unwrap();
        let _ = a.take(-2).unwrap();
        let _ = a.drop(1).unwrap();
        let _ = a.rav();
        let _ = a.reshape(&[6, 10]).unwrap();
        let _ = a.lift(1, 2).unwrap();
        let _ = a.transpose(&[0, 1, 2]).unwrap();
    });
    assert_eq!((w.bytes_allocated, w.elements_copied), (0, 0));
    let (_, w) = stats::measure(|| a.reshape(&[2, 60]).unwrap());
    assert_eq!((w.bytes_allocated, w.elements_copied), (120 * 8, 120));
    let (_, w) = stats::measure(|| a.reduce(0, |x, y| x + y).unwrap());
    assert_eq!(
        (w.elements_read, w.elements_written, w.bytes_allocated),
        (60, 20, 20 * 8)
    );
}

// ---- Lazy elementwise expressions ----

fn five<T: Num>(
    a: &Array<T>,
    b: &Array<T>,
    c: &Array<T>,
    d: &Array<T>,
    e: &Array<T>,
) -> ArrayExpr<T> {
    (a + b) * c - d / e
}

fn floats(n: usize, salt: usize) -> Array<f64> {
    iota(n).map(|&x| ((x * 7919 + salt * 104_729) % 1013) as f64 / 17.0 - 20.0)
}

#[test]
fn lazy_equals_eager_bitwise() {
    for n in [0, 1, 1023, 1025, 70_000] {
        let xs: Vec<Array<f64>> = (0..5).map(|s| floats(n, s)).collect();
        let eager = five(&xs[0], &xs[1], &xs[2], &xs[3], &xs[4]);
        assert!(!eager.is_deferred());
        let deferred = lazy(|| five(&xs[0], &xs[1], &xs[2], &xs[3], &xs[4]));
        assert!(deferred.is_deferred());
        let (e, l) = (
            eager.materialize().unwrap(),
            deferred.materialize().unwrap(),
        );
        assert_eq!(e.shape(), l.shape());
        let bits = |a: &Array<f64>| a.as_slice().iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&e), bits(&l), "n = {n}");
        // Against a plain loop.
        let naive: Vec<f64> = (0..n)
            .map(|i| {
                let x = |k: usize| xs[k].as_slice()[i];
                (x(0) + x(1)) * x(2) - x(3) / x(4)
            })
            .collect();
        assert_eq!(
            bits(&l),
            naive.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }
}

#[test]
fn lazy_comparisons_select_scalars_and_shapes() {
    let a = iota_i64(12).map(|x| x - 6).reshape(&[3, 4]).unwrap();
    let b = iota_i64(12).map(|x| 5 - x).reshape(&[3, 4]).unwrap();
    for deferred in [false, true] {
        let run = |f: &dyn Fn() -> ArrayExpr<i64>| if deferred { lazy(f) } else { f() };
        let relu = run(&|| a.gt(0).select(&a, 0));
        assert_eq!(relu.is_deferred(), deferred);
        assert_eq!(relu.materialize().unwrap(), a.map(|&x| x.max(0)));
        let m = run(&|| select(a.le(&b), &a, &b) * 2 + 1);
        assert_eq!(
            m.materialize().unwrap(),
            a.zip_with(&b, |x, y| 2 * x.min(y) + 1).unwrap()
        );
        let cmp = |e: ArrayExpr<bool>| e.materialize().unwrap().to_vec();
        let truth = |f: fn(&i64, &i64) -> bool| a.zip_with(&b, f).unwrap().to_vec();
        assert_eq!(cmp(a.lt(&b)), truth(|x, y| x < y));
        assert_eq!(cmp(a.ge(&b)), truth(|x, y| x >= y));
        assert_eq!(cmp(a.eq_elem(&b)), truth(|x, y| x == y));
        assert_eq!(cmp(a.ne_elem(&b)), truth(|x, y| x != y));
        // Scalar extension on either side; a one-element vector is not a scalar.
        let s = run(&|| 10 - &a);
        assert_eq!(s.materialize().unwrap(), a.map(|x| 10 - x));
        let bad = run(&|| &a + &Array::vector(vec![1i64]));
        assert!(matches!(bad.materialize(), Err(Error::Shape { .. })));
        // The error stays in every expression built on it.
        let worse = run(&|| (&a + &Array::vector(vec![1i64])) * 2);
        assert!(worse.materialize().is_err());
        // Integer division by zero is a typed error naming the lowest lane.
        let z = run(&|| &a / &b.map(|&x| x % 3));
        assert!(
            matches!(z.materialize(), Err(Error::DivisionByZero { lane: 2, .. })),
            "{z:?}"
        );
        // Empty arrays of a given shape, and scalars.
        let e = arr::<i64>(&[2, 0], vec![]);
        assert_eq!(run(&|| &e * 3 + &e).materialize().unwrap(), e);
        assert_eq!(
            run(&|| &Array::scalar(2i64) * 3).materialize().unwrap(),
            Array::scalar(6)
        );
    }
}

#[test]
fn lazy_switch_is_scoped_to_the_thread_and_restored_on_panic() {
    let a = Array::vector(vec![1.0, 2.0]);
    assert!(!is_lazy());
    let r = std::panic::catch_unwind(|| lazy(|| panic!("inside lazy")));
    assert!(r.is_err());
    assert!(!is_lazy());
    let on_other_thread =
        lazy(|| std::thread::scope(|s| s.spawn(|| (&a + 1.0).is_deferred()).join().unwrap()));
    assert!(!on_other_thread);
    let nested = lazy(|| {
        let inner = lazy(|| &a * 2.0);
        (inner.is_deferred(), is_lazy())
    });
    assert_eq!(nested, (true, true));
    assert!(!is_lazy());
}

#[cfg(feature = "stats")]
#[test]
fn lazy_allocates_only_the_result() {
    use crate::stats;
    let n = 50_000;
    let xs: Vec<Array<f64>> = (0..5).map(|s| floats(n, s)).collect();
    let (_, eager) = stats::measure(|| {
        five(&xs[0], &xs[1], &xs[2], &xs[3], &xs[4])
            .materialize()
            .unwrap()
    });
    let (_, fused) = stats::measure(|| {
        lazy(|| five(&xs[0], &xs[1], &xs[2], &xs[3], &xs[4]))
            .materialize()
            .unwrap()
    });
    let bytes = (n * 8) as u64;
    assert_eq!(
        fused.bytes_allocated, bytes,
        "lazy: one output, no intermediates"
    );
    assert_eq!(
        eager.bytes_allocated,
        4 * bytes,
        "eager: one array per operation"
    );
    assert_eq!(
        (fused.elements_read, fused.elements_written),
        (5 * n as u64, n as u64)
    );
    // An array used twice is read as one input column.
    let (_, sq) = stats::measure(|| lazy(|| &xs[0] * &xs[0] + &xs[0]).materialize().unwrap());
    assert_eq!((sq.elements_read, sq.bytes_allocated), (n as u64, bytes));
}

quickcheck! {
    fn lazy_equals_eager_on_random_arrays(a: Any, seed: i64) -> bool {
        let a = a.0;
        let b = a.map(|x| x.wrapping_mul(seed) % 97);
        let c = a.map(|x| (x ^ seed) % 13 + 20);
        let build = || ((&a - &b) * &c + 3).gt(&b).select(&a / &c, &b - 1);
        let (e, l) = (build(), lazy(build));
        l.is_deferred() && e.materialize().unwrap() == l.materialize().unwrap()
    }
}

// ---- The regular descriptor view ----

fn prop_segd_levels_roundtrip(Any(a): Any) -> TestResult {
    if a.is_scalar() {
        return TestResult::from_bool(a.segd_view().is_err() && a.segd_levels().is_err());
    }
    let (_, content) = a.to_parts();
    let levels = a.segd_levels().unwrap();
    let back = Array::from_segd_levels(&levels, content.clone()).unwrap();
    let (_, again) = back.to_parts();
    let outer = a.segd_view().unwrap();
    let rows_ok = (0..a.shape()[0]).all(|i| {
        &a.as_slice()[outer.start(i)..outer.start(i) + outer.length(i)]
            == a.psi(&[i]).unwrap().as_slice()
    });
    TestResult::from_bool(back == a && std::sync::Arc::ptr_eq(&content, &again) && rows_ok)
}

#[test]
fn segd_view_roundtrips_without_copying() {
    QuickCheck::new()
        .tests(300)
        .quickcheck(prop_segd_levels_roundtrip as fn(Any) -> TestResult);
    let content: std::sync::Arc<[i64]> = vec![1, 2, 3, 4, 5, 6].into();
    let irregular = flatland_segd::Segd::from_lengths(vec![2, 4]).unwrap();
    assert!(Array::from_segd_levels(&[irregular], content.clone()).is_err());
    let short = flatland_segd::Segd::regular(2, 2);
    assert!(Array::from_segd_levels(&[short], content.clone()).is_err());
    let mismatch = [
        flatland_segd::Segd::regular(2, 3),
        flatland_segd::Segd::regular(5, 1),
    ];
    assert!(Array::from_segd_levels(&mismatch, content).is_err());
}

// ---- Thread counts and panics ----

#[test]
fn float_results_are_the_same_bits_for_every_pool_size() {
    let a = floats(40 * 70, 1).reshape(&[40, 70]).unwrap();
    let b = floats(70 * 90, 2).reshape(&[70, 90]).unwrap();
    let big = floats(5 * 40_000, 3).reshape(&[40_000, 5]).unwrap();
    let run = || {
        let c = matmul(&a, &b).unwrap();
        let r = big.reduce(0.0, |x, y| x + y).unwrap();
        let v = big.rav().reduce(0.0, |x, y| x + y).unwrap();
        [c.to_vec(), r.to_vec(), v.to_vec()]
            .concat()
            .iter()
            .map(|x| x.to_bits())
            .collect::<Vec<_>>()
    };
    let reference = run();
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        assert_eq!(pool.install(run), reference, "{threads} threads");
    }
}

#[test]
fn a_panicking_closure_leaves_the_pool_usable() {
    let a = iota_i64(200_000);
    let m = iota_i64(120 * 120).reshape(&[120, 120]).unwrap();
    let boom = |x: i64| {
        if x == 123_456 {
            panic!("user closure")
        } else {
            x
        }
    };
    assert!(std::panic::catch_unwind(|| a.map(|&x| boom(x))).is_err());
    assert!(std::panic::catch_unwind(|| a.reduce(0, |x, y| x + boom(y))).is_err());
    let r = std::panic::catch_unwind(|| {
        m.inner(
            &m,
            0,
            |x, y| x + y,
            |x, y| {
                if x == 14_399 { panic!("times") } else { x * y }
            },
        )
    });
    assert!(r.is_err());
    // The pool still runs parallel work.
    assert_eq!(a.map(|&x| x + 1).as_slice()[199_999], 200_000);
    assert_eq!(
        a.reduce(0, |x, y| x + y).unwrap(),
        Array::scalar(199_999 * 200_000 / 2)
    );
}

#[test]
fn sizes_near_the_limits_are_errors_or_exact() {
    // Shapes whose size overflows usize are typed errors, never panics or wraparound.
    assert!(matches!(
        Array::filled(vec![usize::MAX, 2], 0u8),
        Err(Error::Shape { .. })
    ));
    assert!(matches!(
        iota_shape(&[usize::MAX, 2]),
        Err(Error::Shape { .. })
    ));
    assert!(matches!(
        iota(2).reshape(&[usize::MAX, 3]),
        Err(Error::Shape { .. })
    ));
    assert!(Array::from_vec(vec![1 << 40, 1 << 40], vec![0u8]).is_err());
    // An empty shape with a huge extent is fine: no element is needed.
    let e = iota(2).reshape(&[usize::MAX, 0]).unwrap();
    assert_eq!((e.shape(), e.size()), (&[usize::MAX, 0][..], 0));
    assert_eq!(e.take(-5).unwrap().shape(), &[5, 0]);
    assert_eq!(e.drop(i64::MAX).unwrap().shape(), &[1 << 63, 0]);
    assert_eq!(e.drop(-1).unwrap().shape(), &[usize::MAX - 1, 0]);
    assert_eq!(e.take(i64::MIN).unwrap().shape(), &[1 << 63, 0]);
    // Lifting an axis of usize::MAX elements (lengths beyond u32::MAX) stays exact.
    for p in [1, 2, 3, 7, 1 << 33] {
        let l = Lift::new(usize::MAX, p).unwrap();
        let last = l.block(p - 1);
        assert_eq!(last.end, usize::MAX);
        for i in [0, 1, u32::MAX as usize + 5, usize::MAX / 2, usize::MAX - 1] {
            let (b, o) = l.locate(i);
            assert_eq!(l.block(b).start + o, i, "p={p} i={i}");
        }
    }
    assert_eq!(
        gamma_row_inverse(u32::MAX as usize + 1, &[2, 1 << 32]).unwrap(),
        vec![1, 0]
    );
}

fn prop_outer_matches_naive(Any(a): Any, Any(b): Any) -> bool {
    let o = a.outer(&b, |x, y| x.wrapping_mul(31).wrapping_add(*y));
    let mut shape = a.shape().to_vec();
    shape.extend_from_slice(b.shape());
    o.shape() == &shape[..]
        && all_indices(&shape).iter().all(|i| {
            let (x, y) = (a.get(&i[..a.dim()]).unwrap(), b.get(&i[a.dim()..]).unwrap());
            *o.get(i).unwrap() == x.wrapping_mul(31).wrapping_add(*y)
        })
}

fn prop_inner_matches_naive(Any(a): Any, extra: Vec<u8>) -> TestResult {
    // b has shape <last extent of a> ++ (up to two more axes), so the product is defined.
    let Some(&n) = a.shape().last() else {
        return TestResult::discard();
    };
    let mut shape = vec![n];
    shape.extend(extra.iter().take(2).map(|&e| e as usize % 4));
    let size: usize = shape.iter().product();
    let b = arr(&shape, (0..size as i64).map(|x| x % 7 - 3).collect());
    let c = a
        .inner(&b, 0, i64::wrapping_add, i64::wrapping_mul)
        .unwrap();
    let mut expected_shape = a.shape()[..a.dim() - 1].to_vec();
    expected_shape.extend_from_slice(&shape[1..]);
    TestResult::from_bool(
        c.shape() == &expected_shape[..]
            && c.to_vec() == naive_inner(&a, &b, 0, i64::wrapping_add, i64::wrapping_mul),
    )
}

#[test]
fn products_match_naive_on_random_shapes() {
    let mut qc = QuickCheck::new().tests(300);
    qc.quickcheck(prop_outer_matches_naive as fn(Any, Any) -> bool);
    qc.quickcheck(prop_inner_matches_naive as fn(Any, Vec<u8>) -> TestResult);
}

#[test]
fn map_reduce_parallel_blocks_agree_with_sequential_order() {
    // A non-commutative combine shows the fold order; big enough for the parallel path.
    let a = iota(300 * 150)
        .map(|&x| (x % 10) as u8)
        .reshape(&[300, 150])
        .unwrap();
    let spec = Spec::parse("ij->i").unwrap();
    assert_eq!(spec.loop_order(&[a.shape()]).unwrap(), "ij");
    let step = |acc: u64, x: u8| acc.wrapping_mul(31).wrapping_add(u64::from(x));
    let r = map_reduce(&spec, 0u64, |acc, e| step(acc, e[0]), &[&a]).unwrap();
    for i in [0, 1, 149, 299] {
        let expected = a
            .psi(&[i])
            .unwrap()
            .as_slice()
            .iter()
            .fold(0u64, |acc, &x| step(acc, x));
        assert_eq!(r.as_slice()[i], expected, "row {i}");
    }
}

#[cfg(feature = "stats")]
#[test]
fn nested_bridge_copies_nothing_both_ways() {
    use crate::stats;
    let a = Array::from_vec(vec![4, 3], (0..12i64).collect()).unwrap();
    let view = a.psi(&[1]).unwrap().reshape(&[1, 3]).unwrap();
    let ((n, back), work) = stats::measure(|| {
        let n = a.to_nested().unwrap();
        let back = Array::from_nested(&n, 3).unwrap();
        (n, back)
    });
    assert_eq!(work.elements_copied, 0);
    assert_eq!(work.bytes_allocated, 0);
    assert_eq!(back, a);
    assert_eq!(n.segment(2), &[6, 7, 8]);
    // A view of the middle of a buffer keeps its offset.
    let v = view.to_nested().unwrap();
    assert_eq!(v.to_vec(), vec![vec![3, 4, 5]]);
    assert_eq!(Array::from_nested(&v, 3).unwrap(), view);
}

#[test]
fn nested_bridge_copies_scattered_segments_in_order() {
    use crate::elt::Nested;
    let n = Nested::from(vec![vec![1.0f64, 2.0], vec![3.0, 4.0]]);
    let picked = n.pack([false, true]).unwrap();
    let a = Array::from_nested(&picked, 2).unwrap();
    assert_eq!((a.shape(), a.as_slice()), (&[1, 2][..], &[3.0, 4.0][..]));
    let empty = Array::from_nested(&Nested::<f64>::from(Vec::<Vec<f64>>::new()), 5).unwrap();
    assert_eq!(empty.shape(), &[0, 5]);
    let e = Array::from_nested(&Nested::from(vec![vec![1.0f64], vec![]]), 1).unwrap_err();
    assert!(e.to_string().contains("segment 1 has length 0"), "{e}");
}
