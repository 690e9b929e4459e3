//! Every flat primitive against a naive sequential reference, on random inputs with lengths
//! around leaf boundaries, in a random pool (1, 2, 3 or 8 threads) and machine profile.

mod flat_common;

use bitvec::prelude::*;
use flat_common::{Env, ID, Input, compose};
use flatland_runtime::{Error, assoc, flat};
use quickcheck::{Arbitrary, Gen, QuickCheck};

fn check<A: quickcheck::Testable>(prop: A) {
    QuickCheck::new().tests(60).quickcheck(prop);
}

#[test]
fn map_zip_with_iota_replicate() {
    fn prop(env: Env, Input(xs): Input<i64>) -> bool {
        env.run(|| {
            let ys: Vec<i64> = xs.iter().rev().copied().collect();
            let n = xs.len();
            flat::map(&xs, |x| x.wrapping_mul(3) ^ 5)
                == xs.iter().map(|x| x.wrapping_mul(3) ^ 5).collect::<Vec<_>>()
                && flat::zip_with(&xs, &ys, i64::wrapping_sub).unwrap()
                    == xs
                        .iter()
                        .zip(&ys)
                        .map(|(a, b)| a.wrapping_sub(*b))
                        .collect::<Vec<_>>()
                && flat::iota(7i64, -3, n) == (0..n as i64).map(|i| 7 - 3 * i).collect::<Vec<_>>()
                && flat::replicate(xs.first().copied().unwrap_or(1), n)
                    == vec![xs.first().copied().unwrap_or(1); n]
        })
    }
    check(prop as fn(Env, Input<i64>) -> bool);
}

#[test]
fn reduce_and_redomap_non_commutative() {
    fn prop(env: Env, Input(xs): Input<(u64, u64)>) -> bool {
        env.run(|| {
            let expected = xs.iter().fold(ID, |a, &b| compose(a, b));
            let (mapped, r) = flat::redomap(&xs, |x| (x.1, compose(x, (3, 1))), ID, compose);
            let expected_r = xs.iter().fold(ID, |a, &x| compose(a, compose(x, (3, 1))));
            flat::reduce(&xs, ID, compose) == expected
                && r == expected_r
                && mapped == xs.iter().map(|x| x.1).collect::<Vec<_>>()
        })
    }
    check(prop as fn(Env, Input<(u64, u64)>) -> bool);
}

#[test]
fn reduce_leaves_sees_each_leaf_once_in_order() {
    fn prop(env: Env, Input(xs): Input<u8>) -> bool {
        env.run(|| {
            let n = xs.len();
            let want: Vec<(usize, usize)> = (0..n)
                .step_by(assoc::LEAF)
                .map(|a| (a, (a + assoc::LEAF).min(n)))
                .collect();
            let cat = |mut a: Vec<(usize, usize)>, b: Vec<(usize, usize)>| {
                a.extend(b);
                a
            };
            flat::reduce_leaves(n, Vec::new(), |r| vec![(r.start, r.end)], cat) == want
        })
    }
    check(prop as fn(Env, Input<u8>) -> bool);
}

#[test]
fn scans_non_commutative() {
    fn prop(env: Env, Input(xs): Input<(u64, u64)>) -> bool {
        env.run(|| {
            let mut acc = ID;
            let inclusive: Vec<_> = xs
                .iter()
                .map(|&x| {
                    acc = compose(acc, x);
                    acc
                })
                .collect();
            let mut exclusive = vec![ID];
            exclusive.extend_from_slice(&inclusive);
            exclusive.pop();
            if xs.is_empty() {
                exclusive.clear();
            }
            let (ex, total) = flat::scan_exclusive_with_total(&xs, ID, compose);
            flat::scan_inclusive(&xs, ID, compose) == inclusive
                && flat::scan_exclusive(&xs, ID, compose) == exclusive
                && ex == exclusive
                && total == acc
        })
    }
    check(prop as fn(Env, Input<(u64, u64)>) -> bool);
}

#[test]
fn float_reduce_and_scans_match_assoc() {
    fn prop(env: Env, Input(xs): Input<i32>) -> bool {
        let xs: Vec<f64> = xs
            .iter()
            .map(|&x| f64::from(x) * 1e-3 + 1.0 / (1.0 + f64::from(x).abs()))
            .collect();
        let add = |a: f64, b: f64| a + b;
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        env.run(|| {
            flat::reduce(&xs, 0.0, add).to_bits() == assoc::fold(&xs, 0.0, add).to_bits()
                && bits(&flat::scan_inclusive(&xs, 0.0, add))
                    == bits(&assoc::scan_inclusive(&xs, 0.0, add))
                && bits(&flat::scan_exclusive(&xs, 0.0, add))
                    == bits(&assoc::scan_exclusive(&xs, 0.0, add))
        })
    }
    check(prop as fn(Env, Input<i32>) -> bool);
}

#[test]
fn mask_pack_filter_combine() {
    fn prop(env: Env, Input(xs): Input<(i16, bool)>) -> bool {
        let vals: Vec<i16> = xs.iter().map(|x| x.0).collect();
        let bits: BitVec = xs.iter().map(|x| x.1).collect();
        env.run(|| {
            let kept: Vec<i16> = xs.iter().filter(|x| x.1).map(|x| x.0).collect();
            let dropped: Vec<i16> = xs.iter().filter(|x| !x.1).map(|x| x.0).collect();
            let m = flat::mask(&vals, |v| v % 3 == 0);
            m.len() == vals.len()
                && m.iter()
                    .by_vals()
                    .zip(&vals)
                    .all(|(b, v)| b == (v % 3 == 0))
                && flat::pack(&vals, &bits).unwrap() == kept
                && flat::filter(&vals, |v| v % 3 == 0)
                    == vals
                        .iter()
                        .copied()
                        .filter(|v| v % 3 == 0)
                        .collect::<Vec<_>>()
                && flat::combine(&bits, &dropped, &kept).unwrap() == vals
        })
    }
    check(prop as fn(Env, Input<(i16, bool)>) -> bool);
}

/// Indices, some possibly out of range, into an array of `len`.
#[derive(Clone, Debug)]
struct Perm {
    src: Vec<u32>,
    idx: Vec<i64>,
}

impl Arbitrary for Perm {
    fn arbitrary(g: &mut Gen) -> Self {
        let len = flat_common::length(g);
        let n = flat_common::length(g);
        let bad = u8::arbitrary(g) % 4 == 0;
        let idx = (0..n)
            .map(|_| {
                let i = u64::arbitrary(g);
                if bad && i % 997 == 0 {
                    *g.choose(&[len as i64, len as i64 + 5, -1, i64::MIN])
                        .expect("non-empty")
                } else if len == 0 {
                    0
                } else {
                    (i % len as u64) as i64
                }
            })
            .collect();
        Perm {
            src: (0..len).map(|_| u32::arbitrary(g)).collect(),
            idx,
        }
    }
}

fn first_bad(idx: &[i64], len: usize) -> Option<usize> {
    idx.iter().position(|&i| i < 0 || i as usize >= len)
}

#[test]
fn gather_and_scatter() {
    fn prop(env: Env, p: Perm) -> bool {
        let len = p.src.len();
        env.run(|| {
            let g = flat::gather(&p.src, &p.idx);
            let gather_ok = match first_bad(&p.idx, len) {
                Some(lane) => {
                    g == Err(Error::IndexOutOfRange {
                        op: "gather",
                        lane,
                        index: p.idx[lane],
                        len,
                    })
                }
                None => g.unwrap() == p.idx.iter().map(|&i| p.src[i as usize]).collect::<Vec<_>>(),
            };
            let vals: Vec<u32> = (0..p.idx.len() as u32).collect();
            let sevens = vec![7u32; p.idx.len()];
            let scattered = |vals: &[u32], s: Result<Vec<u32>, Error>| {
                if let Some(lane) = first_bad(&p.idx, len) {
                    s == Err(Error::IndexOutOfRange {
                        op: "scatter",
                        lane,
                        index: p.idx[lane],
                        len,
                    })
                } else {
                    let mut expected = p.src.clone();
                    for (&i, &v) in p.idx.iter().zip(vals) {
                        expected[i as usize] = v;
                    }
                    s.unwrap() == expected
                }
            };
            gather_ok
                && scattered(&vals, flat::scatter(&p.src, &p.idx, &vals))
                && scattered(&sevens, flat::scatter_value(&p.src, &p.idx, 7))
        })
    }
    check(prop as fn(Env, Perm) -> bool);
}

#[test]
fn partition_matches_stable_filtering() {
    fn prop(env: Env, Input(xs): Input<(u32, u8)>, classes: u8, interest: Option<Vec<u8>>) -> bool {
        let classes = usize::from(classes % 16).max(1);
        let vals: Vec<u32> = xs.iter().map(|x| x.0).collect();
        let keys: Vec<u8> = xs.iter().map(|x| x.1 % classes as u8).collect();
        let interest: Option<Vec<usize>> =
            interest.map(|cs| cs.iter().map(|&c| usize::from(c) % classes).collect());
        let mut live: Vec<usize> = interest.clone().unwrap_or_else(|| (0..classes).collect());
        live.sort_unstable();
        live.dedup();
        let mut data = Vec::new();
        let mut sizes = Vec::new();
        for &c in &live {
            let class: Vec<u32> = vals
                .iter()
                .zip(&keys)
                .filter(|(_, k)| usize::from(**k) == c)
                .map(|(v, _)| *v)
                .collect();
            sizes.push(class.len());
            data.extend(class);
        }
        env.run(|| {
            let p = flat::partition(&vals, &keys, classes, interest.as_deref()).unwrap();
            let q = flat::partition_by(&xs, classes, interest.as_deref(), |x| {
                usize::from(x.1 % classes as u8)
            })
            .unwrap();
            let offsets_ok = p
                .offsets
                .windows(2)
                .zip(&p.sizes)
                .all(|(w, s)| w[1] - w[0] == *s);
            // The split: the same classes, each in an array of its own.
            let s = flat::split(&vals, &keys, classes, interest.as_deref()).unwrap();
            let split_ok = s.classes == live
                && s.parts.iter().map(Vec::len).collect::<Vec<_>>() == sizes
                && s.parts.concat() == data;
            split_ok
                && p.classes == live
                && p.sizes == sizes
                && p.data == data
                && offsets_ok
                && q.sizes == sizes
                && q.data.iter().map(|x| x.0).collect::<Vec<_>>() == data
        })
    }
    check(prop as fn(Env, Input<(u32, u8)>, u8, Option<Vec<u8>>) -> bool);
}

#[test]
fn partition_by_reports_the_first_key_out_of_range() {
    fn prop(env: Env, Input(xs): Input<(u32, u8)>, classes: u8) -> bool {
        let classes = usize::from(classes % 15) + 1;
        // Mostly in range; some just past it, some near usize::MAX (MAX_CLASSES and beyond
        // must not alias a live slot).
        let key = move |x: (u32, u8)| match x.1 {
            250.. => usize::MAX - usize::from(x.1 - 250),
            k => usize::from(k) % (classes + 2),
        };
        let expected = match xs.iter().position(|&x| key(x) >= classes) {
            Some(lane) => Err(Error::ClassOutOfRange {
                op: "partition_by",
                lane,
                class: key(xs[lane]),
                classes,
            }),
            None => Ok((0..classes)
                .flat_map(|c| xs.iter().filter(move |&&x| key(x) == c).copied())
                .collect::<Vec<_>>()),
        };
        env.run(|| flat::partition_by(&xs, classes, None, key).map(|p| p.data) == expected)
    }
    check(prop as fn(Env, Input<(u32, u8)>, u8) -> bool);
}

#[test]
fn typed_errors() {
    let xs: Vec<u64> = (0..20_000).collect();
    for env in flat_common::profiles() {
        flatland_runtime::cost::with_machine(env, || {
            assert_eq!(
                flat::zip_with(&xs, &xs[1..], |a, b| a + b),
                Err(Error::LengthMismatch {
                    op: "zip_with",
                    expected: 20_000,
                    found: 19_999
                })
            );
            // The lowest bad lane is reported even when later tasks also fail.
            let mut idx: Vec<usize> = (0..20_000).collect();
            idx[19_000] = 20_000;
            idx[9_000] = 30_000;
            assert_eq!(
                flat::gather(&xs, &idx),
                Err(Error::IndexOutOfRange {
                    op: "gather",
                    lane: 9_000,
                    index: 30_000,
                    len: 20_000
                })
            );
            let keys = vec![0u8; 20_000];
            assert_eq!(
                flat::partition(&xs, &keys, 16, None),
                Err(Error::TooManyClasses {
                    op: "partition",
                    classes: 16,
                    max: 15
                })
            );
            assert!(matches!(
                flat::partition_by(&xs, 40, None, |_| 0),
                Err(Error::TooManyClasses { classes: 40, .. })
            ));
            let mut keys = vec![1u8; 20_000];
            keys[12_345] = 2;
            keys[19_999] = 9;
            assert_eq!(
                flat::partition(&xs, &keys, 2, None),
                Err(Error::ClassOutOfRange {
                    op: "partition",
                    lane: 12_345,
                    class: 2,
                    classes: 2
                })
            );
            assert!(matches!(
                flat::partition_by(&xs, 3, None, |x| if x == 17_000 { 3 } else { 0 }),
                Err(Error::ClassOutOfRange {
                    lane: 17_000,
                    class: 3,
                    ..
                })
            ));
            assert!(matches!(
                flat::partition(&xs, &keys[1..], 2, None),
                Err(Error::LengthMismatch { .. })
            ));
            assert!(matches!(
                flat::partition(&xs, &vec![-1i64; 20_000], 2, None),
                Err(Error::Invalid { .. })
            ));
            assert!(matches!(
                flat::partition(&xs, &keys, 3, Some(&[5])),
                Err(Error::Invalid { .. })
            ));
            // The split checks its keys as the partition does, naming itself.
            assert_eq!(
                flat::split(&xs, &keys, 2, None),
                Err(Error::ClassOutOfRange {
                    op: "split",
                    lane: 12_345,
                    class: 2,
                    classes: 2
                })
            );
            let mut negative = vec![0i64; 20_000];
            negative[15_000] = -3;
            negative[16_000] = 7;
            assert!(matches!(
                flat::split(&xs, &negative, 2, None),
                Err(Error::Invalid { .. })
            ));
            assert!(matches!(
                flat::split(&xs, &keys, 16, None),
                Err(Error::TooManyClasses { classes: 16, .. })
            ));
            assert!(matches!(
                flat::split(&xs, &keys[1..], 2, None),
                Err(Error::LengthMismatch { .. })
            ));
            assert!(matches!(
                flat::pack(&xs, &bitvec![0; 3]),
                Err(Error::LengthMismatch { .. })
            ));
            assert!(matches!(
                flat::combine(&bitvec![1; 10], &xs[..0], &xs[..9]),
                Err(Error::LengthMismatch { .. })
            ));
            assert!(matches!(
                flat::scatter(&xs, &[1usize, 2], &[1]),
                Err(Error::LengthMismatch { .. })
            ));
            let e = flat::gather(&xs, &[-5i32]).unwrap_err();
            assert_eq!(
                e.to_string(),
                "gather: lane 0: index -5 out of range for length 20000"
            );
        });
    }
}

#[test]
fn scatter_collisions_last_lane_wins_in_parallel() {
    let base = vec![0u64; 10];
    let n = 200_000;
    let idx: Vec<usize> = (0..n).map(|i| i % 10).collect();
    let vals: Vec<u64> = (0..n as u64).collect();
    for (label, out) in flat_common::everywhere(|| flat::scatter(&base, &idx, &vals).unwrap()) {
        assert_eq!(
            out,
            ((n - 10) as u64..n as u64).collect::<Vec<_>>(),
            "{label}"
        );
    }
}

#[test]
fn empty_and_one_element() {
    let e: [f64; 0] = [];
    assert!(flat::map(&e, |x| x).is_empty());
    assert_eq!(flat::reduce(&e, 5.0, |a, b| a + b), 5.0);
    assert!(flat::scan_inclusive(&e, 0.0, |a, b| a + b).is_empty());
    assert_eq!(
        flat::scan_exclusive_with_total(&e, 3.0, |a, b| a + b),
        (vec![], 3.0)
    );
    assert_eq!(flat::reduce(&[2.0], 1.0, |a, b| a * b), 2.0);
    assert_eq!(flat::scan_exclusive(&[2.0], 1.0, |a, b| a * b), vec![1.0]);
    let p = flat::partition(&e, &[0u8; 0], 0, None).unwrap();
    assert_eq!(
        (p.classes.len(), p.offsets.clone(), p.data.len()),
        (0, vec![0], 0)
    );
    assert_eq!(flat::gather(&e, &[0usize; 0]).unwrap(), Vec::<f64>::new());
}

#[test]
fn large_inputs_in_parallel() {
    let n = (1 << 20) + 3;
    let xs: Vec<u64> = (0..n as u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40)
        .collect();
    let env_pool = &flat_common::pools()[2]; // three threads
    env_pool.install(|| {
        flatland_runtime::cost::with_machine(flat_common::profiles()[1], || {
            let keys: Vec<u8> = xs.iter().map(|x| (x % 5) as u8).collect();
            let p = flat::partition(&xs, &keys, 5, Some(&[4, 1])).unwrap();
            let expected: Vec<u64> = [1, 4]
                .iter()
                .flat_map(|&c| {
                    xs.iter()
                        .zip(&keys)
                        .filter(move |(_, k)| **k == c)
                        .map(|(x, _)| *x)
                })
                .collect();
            assert_eq!(p.data, expected);
            let sums = flat::scan_inclusive(&xs, 0, u64::wrapping_add);
            assert_eq!(sums[n - 1], xs.iter().fold(0u64, |a, &b| a.wrapping_add(b)));
            assert_eq!(
                flat::filter(&xs, |x| x % 7 == 0),
                xs.iter()
                    .copied()
                    .filter(|x| x % 7 == 0)
                    .collect::<Vec<_>>()
            );
            let rev: Vec<usize> = (0..n).rev().collect();
            let g = flat::gather(&xs, &rev).unwrap();
            assert!(g.iter().zip(xs.iter().rev()).all(|(a, b)| a == b));
            assert_eq!(flat::scatter(&g, &rev, &xs).unwrap(), g);
            // Every other position, in parallel: marked ones take the value, the rest stay.
            let evens: Vec<usize> = (0..n).step_by(2).rev().collect();
            let marked = flat::scatter_value(&xs, &evens, u64::MAX).unwrap();
            assert!(
                marked
                    .iter()
                    .enumerate()
                    .all(|(i, &x)| { x == if i % 2 == 0 { u64::MAX } else { xs[i] } })
            );
        });
    });
}
