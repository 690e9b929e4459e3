//! Element stores and `Nested` against naive `Vec<Vec<T>>` references.

use super::*;
use crate::Error;
use quickcheck::{Gen, QuickCheck, TestResult};

fn qc<A: quickcheck::Testable>(f: A) {
    QuickCheck::new().tests(80).quickcheck(f);
}

/// Smaller generated sizes for properties over three-level arrays.
fn qc_small<A: quickcheck::Testable>(f: A) {
    QuickCheck::new().tests(80).rng(Gen::new(24)).quickcheck(f);
}

#[test]
fn round_trips() {
    fn prop(
        rows: Vec<Vec<i64>>,
        b: Vec<Vec<bool>>,
        t: Vec<Vec<(u32, f64)>>,
        n: Vec<Vec<Vec<i32>>>,
    ) -> bool {
        Nested::from(rows.clone()).to_vec() == rows
            && Nested::from(b.clone()).to_vec() == b
            && Nested::from(t.clone())
                .to_vec()
                .iter()
                .flatten()
                .map(|x| x.0)
                .eq(t.iter().flatten().map(|x| x.0))
            && Nested::from(n.clone()).to_vec() == n
            && Nested::from(rows.clone()).lengths() == rows.iter().map(Vec::len).collect::<Vec<_>>()
    }
    qc_small(
        prop as fn(Vec<Vec<i64>>, Vec<Vec<bool>>, Vec<Vec<(u32, f64)>>, Vec<Vec<Vec<i32>>>) -> bool,
    );
}

#[test]
fn descriptor_ops_match_reference() {
    fn prop(
        rows: Vec<Vec<i64>>,
        counts: Vec<u8>,
        mask: Vec<bool>,
        other: Vec<Vec<i64>>,
    ) -> TestResult {
        let n = Nested::from(rows.clone());
        let counts: Vec<usize> = (0..rows.len())
            .map(|i| counts.get(i).map_or(2, |c| usize::from(c % 4)))
            .collect();
        let rep: Vec<Vec<i64>> = rows
            .iter()
            .zip(&counts)
            .flat_map(|(r, &c)| std::iter::repeat_n(r.clone(), c))
            .collect();
        let r = n.replicate_s(&counts).unwrap();
        if r.to_vec() != rep {
            return TestResult::failed();
        }
        // pack the replicated array (heavy sharing), then append, combine, extract, concat.
        let mask: Vec<bool> = (0..rep.len())
            .map(|i| mask.get(i % mask.len().max(1)).copied().unwrap_or(true))
            .collect();
        let packed: Vec<Vec<i64>> = rep
            .iter()
            .zip(&mask)
            .filter(|(_, m)| **m)
            .map(|(r, _)| r.clone())
            .collect();
        let p = r.pack(mask.iter().copied()).unwrap();
        let o = Nested::from(other.clone());
        let app = p.append(&o).unwrap();
        let sel: Vec<bool> = (0..packed.len() + other.len())
            .map(|i| i % 2 == 1 && (i / 2) < other.len() || i / 2 >= packed.len())
            .collect();
        let ok_combine = {
            let fixed: Vec<bool> = {
                // A valid selector: `packed.len()` falses and `other.len()` trues.
                let mut f = vec![false; packed.len()];
                f.extend(std::iter::repeat_n(true, other.len()));
                let mut s = sel.clone();
                s.sort_unstable();
                if s == f { sel.clone() } else { f }
            };
            let (mut a, mut b) = (packed.iter(), other.iter());
            let want: Vec<Vec<i64>> = fixed
                .iter()
                .map(|&t| if t { b.next() } else { a.next() }.unwrap().clone())
                .collect();
            p.combine(&o, fixed.iter().copied()).unwrap().to_vec() == want
        };
        let (segd, flat) = app.concat().unwrap();
        let all: Vec<Vec<i64>> = packed.iter().chain(&other).cloned().collect();
        let mid = all.len() / 2;
        TestResult::from_bool(
            p.to_vec() == packed
                && app.to_vec() == all
                && ok_combine
                && flat.to_vec() == all.concat()
                && segd.lengths().into_owned() == all.iter().map(Vec::len).collect::<Vec<_>>()
                && app.extract(mid..all.len()).unwrap().to_vec() == all[mid..]
                && app.cull().to_vec() == all
                && app.iter().map(<[i64]>::to_vec).collect::<Vec<_>>() == all,
        )
    }
    qc(prop as fn(Vec<Vec<i64>>, Vec<u8>, Vec<bool>, Vec<Vec<i64>>) -> TestResult);
}

#[test]
fn nested_elements_concat_and_index() {
    fn prop(rows: Vec<Vec<Vec<i64>>>, lanes: Vec<(usize, usize)>) -> bool {
        let n: Nested<Vec<i64>> = Nested::from(rows.clone()).replicate(2).unwrap();
        let want: Vec<Vec<Vec<i64>>> = [rows.clone(), rows.clone()].concat();
        let (_, inner) = n.concat().unwrap();
        let valid: Vec<(usize, usize)> = lanes
            .iter()
            .filter_map(|&(s, i)| {
                let s = s % want.len().max(1);
                let len = want.get(s)?.len();
                (len > 0).then(|| (s, i % len))
            })
            .collect();
        let segs: Vec<usize> = valid.iter().map(|v| v.0).collect();
        let idx: Vec<i64> = valid.iter().map(|v| v.1 as i64).collect();
        let got = n.index_l(&segs, &idx).unwrap().to_vec();
        let app = n.append_s(&n).unwrap().to_vec();
        n.to_vec() == want
            && inner.to_vec() == want.concat()
            && got
                == valid
                    .iter()
                    .map(|&(s, i)| want[s][i].clone())
                    .collect::<Vec<_>>()
            && app
                == want
                    .iter()
                    .map(|r| [r.clone(), r.clone()].concat())
                    .collect::<Vec<_>>()
    }
    qc_small(prop as fn(Vec<Vec<Vec<i64>>>, Vec<(usize, usize)>) -> bool);
}

#[test]
fn tuples_and_bools_through_gathers() {
    let n = Nested::from(vec![vec![(1i64, true), (2, false)], vec![(3, true)]]);
    let r = n.replicate_s(&[1, 2]).unwrap();
    assert_eq!(
        r.concat().unwrap().1.to_vec(),
        vec![(1, true), (2, false), (3, true), (3, true)]
    );
    assert_eq!(
        r.index_l(&[2, 0], &[0, 1]).unwrap().to_vec(),
        vec![(3, true), (2, false)]
    );
    assert_eq!(
        r.append_s(&r).unwrap().get_vec(1),
        Some(vec![(3, true), (3, true)])
    );
    let t = <(i64, f64, bool, u8) as Elt>::Store::from_vec(vec![(1, 0.5, true, 7)]);
    assert_eq!(t.replicate_each(&[2]).to_vec(), vec![(1, 0.5, true, 7); 2]);
    let b = Bits::from_vec(vec![true, false]);
    assert_eq!(
        b.replicate_each(&[3, 1]).to_vec(),
        vec![true, true, true, false]
    );
    assert!(matches!(
        Soa::try_new((Buffer::from(vec![1i64]), Bits::from_vec(vec![]))),
        Err(Error::LengthMismatch { .. })
    ));
}

#[test]
fn from_offsets_adopts_and_validates() {
    let values = vec![1.0f64, 2.0, 3.0, 4.0];
    let ptr = values.as_ptr();
    let n = Nested::<f64>::from_offsets(vec![0, 1, 1, 4], values).unwrap();
    assert_eq!(
        n.segment(2).as_ptr(),
        ptr.wrapping_add(1),
        "values adopted, not copied"
    );
    assert_eq!(n.to_vec(), vec![vec![1.0], vec![], vec![2.0, 3.0, 4.0]]);
    let err =
        |o: Vec<usize>, v: Vec<i64>| Nested::<i64>::from_offsets(o, v).unwrap_err().to_string();
    assert_eq!(
        err(vec![], vec![]),
        "Nested::from_offsets: offsets are empty; they need at least the entry 0"
    );
    assert_eq!(
        err(vec![1, 2], vec![1, 2]),
        "Nested::from_offsets: offset 0 is 1, must be 0"
    );
    assert_eq!(
        err(vec![0, 3], vec![1, 2]),
        "Nested::from_offsets: last offset 3 differs from the number of values 2"
    );
    assert!(
        Nested::<i64>::from_offsets(vec![0], Vec::new())
            .unwrap()
            .is_empty()
    );
    // from_parts checks the blocks against the descriptor.
    let v = n.vsegd().clone();
    assert!(matches!(
        Nested::<f64>::from_parts(v.clone(), vec![]),
        Err(Error::Invalid { .. })
    ));
    assert!(Nested::<f64>::from_parts(v, vec![Buffer::from(vec![0.0; 4])]).is_ok());
    // Errors from descriptor operations are typed.
    assert!(matches!(n.replicate_s(&[1]), Err(Error::Segd(_))));
    assert!(matches!(n.pack([true]), Err(Error::Segd(_))));
    assert!(matches!(n.extract(2..9), Err(Error::Segd(_))));
    assert!(matches!(
        n.index_l(&[1], &[0]),
        Err(Error::IndexOutOfRange {
            lane: 0,
            index: 0,
            len: 0,
            ..
        })
    ));
    assert!(matches!(
        n.append_s(&Nested::from(vec![vec![1.0]])),
        Err(Error::LengthMismatch { .. })
    ));
    assert_eq!(n.get(3), None);
}

#[test]
fn buffers_share_memory() {
    let b = Buffer::from(vec![1u64, 2, 3]);
    let c = b.clone();
    assert_eq!(b.as_ptr(), c.as_ptr());
    let s = b.slice(1..3).unwrap();
    assert_eq!(s.as_ptr(), b.as_ptr().wrapping_add(1));
    let a: std::sync::Arc<[u64]> = vec![4, 5].into();
    assert_eq!(Buffer::from(a.clone()).as_ptr(), a.as_ptr());
    assert!(b.slice(2..4).is_err());
    assert_eq!(
        Buffer::<u64>::gather_ranges(
            &[b, s],
            &[flatland_segd::PSeg {
                source: 1,
                start: 1,
                len: 1
            }]
        )
        .to_vec(),
        vec![3]
    );
}

#[cfg(feature = "stats")]
mod work {
    use super::*;
    use crate::stats;

    #[test]
    fn descriptor_ops_copy_no_element() {
        let n = Nested::from(vec![vec![1i64; 1000], vec![2; 10], vec![]]);
        let (r, w) = stats::measure(|| n.replicate(1000).unwrap());
        assert_eq!(
            (w.elements_copied, w.elements_read, w.elements_written),
            (0, 0, 0)
        );
        let (r, w) = stats::measure(|| r.replicate_s(&vec![2; 3000]).unwrap());
        assert_eq!(w.elements_copied, 0);
        let mask: Vec<bool> = (0..r.len()).map(|i| i % 3 == 0).collect();
        let (p, w) = stats::measure(|| r.pack(mask).unwrap());
        assert_eq!(w.elements_copied, 0);
        let (a, w) = stats::measure(|| p.append(&n).unwrap());
        assert_eq!(w.elements_copied, 0);
        let (_, w) = stats::measure(|| {
            a.combine(&n, (0..a.len() + n.len()).map(|i| i >= a.len()))
                .unwrap()
        });
        assert_eq!(w.elements_copied, 0);
        let (_, w) = stats::measure(|| a.extract(5..50).unwrap().cull());
        assert_eq!(w.elements_copied, 0);
        let (c, w) = stats::measure(|| a.concat().unwrap().1);
        assert_eq!(w.elements_copied as usize, c.len());
        assert_eq!(c.len(), a.lengths().iter().sum::<usize>());
    }

    #[test]
    fn inner_arrays_move_by_descriptor() {
        let n: Nested<Vec<f64>> = Nested::from(vec![
            vec![vec![1.0; 500], vec![2.0; 500]],
            vec![vec![3.0; 100]],
        ]);
        let (r, w) = stats::measure(|| n.replicate(100).unwrap());
        assert_eq!(w.elements_copied, 0);
        let ((_, inner), w) = stats::measure(|| r.concat().unwrap());
        assert_eq!(inner.len(), 300);
        assert_eq!(
            w.elements_copied, 0,
            "concat of arrays of arrays copies descriptors only"
        );
        let (_, w) = stats::measure(|| r.append_s(&r).unwrap());
        assert_eq!(w.elements_copied, 0);
        let (_, w) = stats::measure(|| Store::replicate_each(&inner, &vec![3; 300]));
        assert_eq!(w.elements_copied, 0);
    }
}
