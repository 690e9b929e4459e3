//! Segmented operations against naive sequential references over `Vec<Vec<T>>`.

use super::*;
use crate::assoc::{self, LEAF};
use crate::cost::{Machine, with_machine};
use crate::elt::{Nested, Store};
use crate::sched::with_task_count;
use flatland_segd::{PSeg, SSegd, Segd, VSegd};
use quickcheck::{Arbitrary, Gen, QuickCheck};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Rows of varied shapes: empty, empty segments, one segment holding everything, many tiny
/// segments, and a mix with segments longer than a leaf.
#[derive(Clone, Debug)]
struct Rows(Vec<Vec<i64>>);

fn row(g: &mut Gen, len: usize) -> Vec<i64> {
    (0..len).map(|_| i64::arbitrary(g) % 1000).collect()
}

impl Arbitrary for Rows {
    fn arbitrary(g: &mut Gen) -> Self {
        let n = usize::arbitrary(g) % 40;
        let rows = match u8::arbitrary(g) % 6 {
            0 => Vec::new(),
            1 => (0..n).map(|_| Vec::new()).collect(),
            2 => {
                let l = usize::arbitrary(g) % (3 * LEAF);
                vec![row(g, l)]
            }
            3 => (0..n * 20)
                .map(|_| {
                    let l = usize::arbitrary(g) % 2;
                    row(g, l)
                })
                .collect(),
            4 => (0..n)
                .map(|_| {
                    let l = usize::arbitrary(g) % 9;
                    row(g, l)
                })
                .collect(),
            _ => (0..n.min(6))
                .map(|i| {
                    let l = if i % 2 == 0 {
                        usize::arbitrary(g) % (2 * LEAF + 50)
                    } else {
                        usize::arbitrary(g) % 3
                    };
                    row(g, l)
                })
                .collect(),
        };
        Rows(rows)
    }
}

fn flat(rows: &[Vec<i64>]) -> (Segd, Vec<i64>) {
    let segd = Segd::from_lengths(rows.iter().map(Vec::len).collect()).unwrap();
    (segd, rows.concat())
}

/// A virtual descriptor over `rows` (split into up to 3 blocks) with vsegids from `picks`.
fn virtual_rows(rows: &[Vec<i64>], picks: &[usize]) -> (VSegd, Vec<Vec<i64>>, Vec<Vec<i64>>) {
    let nblocks = 3.min(rows.len()).max(1);
    let mut blocks: Vec<Vec<i64>> = vec![Vec::new(); nblocks];
    let (mut sources, mut starts, mut lengths) = (Vec::new(), Vec::new(), Vec::new());
    for (i, r) in rows.iter().enumerate() {
        let b = i % nblocks;
        sources.push(b);
        starts.push(blocks[b].len());
        lengths.push(r.len());
        blocks[b].extend_from_slice(r);
    }
    let block_lens = blocks.iter().map(Vec::len).collect();
    let ssegd = SSegd::try_new(sources, starts, lengths, block_lens).unwrap();
    let vsegids: Vec<usize> = if rows.is_empty() {
        Vec::new()
    } else {
        picks.iter().map(|p| p % rows.len()).collect()
    };
    let expected = vsegids.iter().map(|&p| rows[p].clone()).collect();
    (VSegd::try_new(vsegids, ssegd).unwrap(), blocks, expected)
}

const TASKS: [usize; 4] = [1, 2, 3, 7];

fn qc<A: quickcheck::Testable>(f: A) {
    QuickCheck::new().tests(60).quickcheck(f);
}

#[test]
fn fold_s_matches_reference() {
    fn prop(r: Rows) -> bool {
        let (segd, data) = flat(&r.0);
        let naive: Vec<i64> =
            r.0.iter()
                .map(|row| row.iter().fold(0i64, |a, &b| a.wrapping_add(b)))
                .collect();
        TASKS.iter().all(|&k| {
            with_task_count(k, || fold_s(&segd, &data, 0, i64::wrapping_add).unwrap()) == naive
        })
    }
    qc(prop as fn(Rows) -> bool);
}

#[test]
fn fold_s_by_matches_materialised_fold() {
    fn prop(r: Rows) -> bool {
        let (segd, data) = flat(&r.0);
        // A gather fused into the fold: element i is data[(i * 7) % n] as f64 / 3.
        let n = data.len().max(1);
        let f = |i: usize| data.get((i * 7) % n).map_or(0.0, |&x| x as f64 / 3.0);
        let want: Vec<u64> = segd
            .iter()
            .map(|(s, l)| {
                assoc::fold(&(s..s + l).map(f).collect::<Vec<_>>(), 0.0, |a, b| a + b).to_bits()
            })
            .collect();
        TASKS.iter().all(|&k| {
            with_task_count(k, || fold_s_by(&segd, f, 0.0, |a, b| a + b))
                .into_iter()
                .map(f64::to_bits)
                .collect::<Vec<_>>()
                == want
        })
    }
    qc(prop as fn(Rows) -> bool);
}

#[test]
fn fold_s_leaves_sees_each_leaf_once_in_order() {
    // The leaf closure returns its range; concatenation (associative, not commutative) shows
    // each segment's leaves, in order, exactly as counted from the segment's start.
    fn prop(r: Rows) -> bool {
        let (segd, _) = flat(&r.0);
        let want: Vec<Vec<(usize, usize)>> = segd
            .iter()
            .map(|(s, l)| {
                (s..s + l)
                    .step_by(LEAF)
                    .map(|a| (a, (a + LEAF).min(s + l)))
                    .collect()
            })
            .collect();
        let cat = |mut a: Vec<(usize, usize)>, b: Vec<(usize, usize)>| {
            a.extend(b);
            a
        };
        TASKS.iter().all(|&k| {
            with_task_count(k, || {
                fold_s_leaves(&segd, Vec::new(), |r| vec![(r.start, r.end)], cat)
            }) == want
        })
    }
    qc(prop as fn(Rows) -> bool);
}

#[test]
fn fold_s_leaves_split_agrees_and_takes_short_segments_in_one_call() {
    // `short` gives the segment's whole result (`identity ⊕ leaf`), so the results must be
    // those of `fold_s_leaves`; on one task, every segment of 1..SHORT elements is one `short`
    // call and never a `leaf` call.
    fn prop(r: Rows) -> bool {
        let (segd, _) = flat(&r.0);
        let cat = |mut a: Vec<(usize, usize)>, b: Vec<(usize, usize)>| {
            a.extend(b);
            a
        };
        let leaf = |r: std::ops::Range<usize>| vec![(r.start, r.end)];
        let want = fold_s_leaves(&segd, Vec::new(), leaf, cat);
        let agree = TASKS.iter().all(|&k| {
            let short = |r: std::ops::Range<usize>| cat(Vec::new(), leaf(r));
            with_task_count(k, || {
                fold_s_leaves_split(&segd, Vec::new(), short, leaf, cat)
            }) == want
        });
        let (shorts, leaves) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let counted = |n: &AtomicUsize, r: std::ops::Range<usize>| {
            n.fetch_add(1, Ordering::Relaxed);
            vec![(r.start, r.end)]
        };
        let one = with_task_count(1, || {
            let short = |r| counted(&shorts, r);
            fold_s_leaves_split(&segd, Vec::new(), short, |r| counted(&leaves, r), cat)
        });
        let short_segments = segd.iter().filter(|&(_, l)| (1..assoc::SHORT).contains(&l));
        let long_leaves: usize = (segd.iter())
            .filter(|&(_, l)| l >= assoc::SHORT)
            .map(|(_, l)| l.div_ceil(LEAF))
            .sum();
        agree
            && one == want
            && shorts.into_inner() == short_segments.count()
            && leaves.into_inner() == long_leaves
    }
    qc(prop as fn(Rows) -> bool);
}

#[test]
fn fold_s_keeps_operand_order() {
    // String concatenation is associative, not commutative: the result shows any reordering.
    let rows: Vec<Vec<String>> = [0, 5, 3 * LEAF + 9, 1, 0, 2 * LEAF]
        .iter()
        .enumerate()
        .map(|(r, &n)| (0..n).map(|i| format!("{r}.{i},")).collect())
        .collect();
    let segd = Segd::from_lengths(rows.iter().map(Vec::len).collect()).unwrap();
    let data = rows.concat();
    for k in TASKS {
        let got = with_task_count(k, || {
            fold_s(&segd, &data, String::new(), |a, b| a + &b).unwrap()
        });
        let want: Vec<String> = rows.iter().map(|r| r.concat()).collect();
        assert_eq!(got, want, "tasks {k}");
    }
}

#[test]
fn scans_match_reference() {
    fn prop(r: Rows) -> bool {
        let (segd, data) = flat(&r.0);
        let inc: Vec<i64> =
            r.0.iter()
                .flat_map(|row| {
                    let mut acc = 0i64;
                    row.iter()
                        .map(move |&x| {
                            acc = acc.wrapping_add(x);
                            acc
                        })
                        .collect::<Vec<_>>()
                })
                .collect();
        let exc: Vec<i64> =
            r.0.iter()
                .flat_map(|row| {
                    let mut acc = 0i64;
                    row.iter()
                        .map(move |&x| {
                            let before = acc;
                            acc = acc.wrapping_add(x);
                            before
                        })
                        .collect::<Vec<_>>()
                })
                .collect();
        TASKS.iter().all(|&k| {
            with_task_count(k, || {
                scan_s(&segd, &data, 0, i64::wrapping_add).unwrap() == inc
                    && scan_s_exclusive(&segd, &data, 0, i64::wrapping_add).unwrap() == exc
            })
        })
    }
    qc(prop as fn(Rows) -> bool);
}

#[test]
fn count_s_matches_reference() {
    fn prop(r: Rows) -> bool {
        let (segd, data) = flat(&r.0);
        let naive: Vec<usize> =
            r.0.iter()
                .map(|row| row.iter().filter(|&&x| x % 3 == 0).count())
                .collect();
        TASKS.iter().all(|&k| {
            with_task_count(k, || count_s(&segd, &data, |&x| x % 3 == 0).unwrap()) == naive
        })
    }
    qc(prop as fn(Rows) -> bool);
}

#[test]
fn fold_vs_matches_reference() {
    fn prop(r: Rows, picks: Vec<usize>) -> bool {
        let (vsegd, blocks, expected) = virtual_rows(&r.0, &picks);
        let naive: Vec<i64> = expected
            .iter()
            .map(|row| row.iter().fold(0i64, |a, &b| a.wrapping_add(b)))
            .collect();
        TASKS.iter().all(|&k| {
            with_task_count(k, || {
                fold_vs(&vsegd, &blocks, 0, i64::wrapping_add).unwrap()
            }) == naive
        })
    }
    qc(prop as fn(Rows, Vec<usize>) -> bool);
}

#[test]
fn heavy_sharing_fold_vs() {
    let rows = vec![(0..3 * LEAF as i64 + 11).collect::<Vec<_>>(), vec![5, 6]];
    let picks: Vec<usize> = (0..5000).map(|i| usize::from(i % 7 == 0)).collect();
    let (vsegd, blocks, expected) = virtual_rows(&rows, &picks);
    for k in TASKS {
        let got = with_task_count(k, || fold_vs(&vsegd, &blocks, 0, |a, b| a + b).unwrap());
        let want: Vec<i64> = expected.iter().map(|r| r.iter().sum()).collect();
        assert_eq!(got, want);
    }
}

#[test]
fn gathers_match_reference() {
    fn prop(r: Rows, picks: Vec<usize>, lanes: Vec<(usize, usize)>) -> bool {
        let (vsegd, blocks, expected) = virtual_rows(&r.0, &picks);
        // concat
        let (segd, data) = concat_vs(&vsegd, &blocks).unwrap();
        let ok_concat = data == expected.concat()
            && segd.lengths().as_ref() == expected.iter().map(Vec::len).collect::<Vec<_>>();
        // index_l on the lanes that land inside non-empty segments
        let valid: Vec<(usize, i64)> = lanes
            .iter()
            .filter_map(|&(s, i)| {
                let s = s % expected.len().max(1);
                let len = expected.get(s)?.len();
                (len > 0).then(|| (s, (i % len) as i64))
            })
            .collect();
        let segs: Vec<usize> = valid.iter().map(|v| v.0).collect();
        let idx: Vec<i64> = valid.iter().map(|v| v.1).collect();
        let got = index_l(&vsegd, &blocks, &segs, &idx).unwrap();
        let ok_index = got
            == valid
                .iter()
                .map(|&(s, i)| expected[s][i as usize])
                .collect::<Vec<_>>();
        // lifted append with itself
        let (asegd, adata) = append_vs(&vsegd, &blocks, &vsegd, &blocks).unwrap();
        let want: Vec<Vec<i64>> = expected
            .iter()
            .map(|r| [r.clone(), r.clone()].concat())
            .collect();
        let ok_append = adata == want.concat() && asegd.len() == expected.len();
        ok_concat && ok_index && ok_append
    }
    qc(prop as fn(Rows, Vec<usize>, Vec<(usize, usize)>) -> bool);
}

#[test]
fn flat_gathers_match_reference() {
    fn prop(r: Rows, counts: Vec<u8>, keys: Vec<u8>) -> bool {
        let (segd, data) = flat(&r.0);
        // replicate_s over the segment sums as scalars
        let counts: Vec<usize> = (0..r.0.len())
            .map(|i| counts.get(i).map_or(1, |&c| usize::from(c % 4)))
            .collect();
        let sums: Vec<i64> = r.0.iter().map(|row| row.iter().sum()).collect();
        let rep = replicate_s(&Segd::from_lengths(counts.clone()).unwrap(), &sums).unwrap();
        let naive_rep: Vec<i64> = sums
            .iter()
            .zip(&counts)
            .flat_map(|(&s, &c)| std::iter::repeat_n(s, c))
            .collect();
        // partition_s with 3 classes
        let keys: Vec<u8> = (0..data.len())
            .map(|i| keys.get(i % keys.len().max(1)).map_or(0, |k| k % 3))
            .collect();
        let parts: Vec<PartitionS<i64>> = TASKS
            .iter()
            .map(|&k| with_task_count(k, || partition_s(&segd, &data, &keys, 3).unwrap()))
            .collect();
        let mut naive_part = Vec::new();
        let mut naive_lens = Vec::new();
        let mut at = 0;
        for row in &r.0 {
            for c in 0..3 {
                let class: Vec<i64> = row
                    .iter()
                    .zip(&keys[at..])
                    .filter(|(_, k)| **k == c)
                    .map(|(x, _)| *x)
                    .collect();
                naive_lens.push(class.len());
                naive_part.extend(class);
            }
            at += row.len();
        }
        // split_s with 3 classes, all of them and only classes 2 and 0
        let split_ok = [None, Some(&[2, 0][..])].into_iter().all(|interest| {
            let live: Vec<usize> = interest.map_or(vec![0, 1, 2], |_| vec![0, 2]);
            TASKS.iter().all(|&k| {
                let s = with_task_count(k, || split_s(&segd, &data, &keys, 3, interest).unwrap());
                s.classes == live
                    && live.iter().zip(&s.parts).all(|(&c, (d, part))| {
                        // Class c of every row, as pack_s of its mask gives it.
                        let mask: bitvec::vec::BitVec =
                            keys.iter().map(|&k| usize::from(k) == c).collect();
                        pack_s(&segd, &data, &mask).unwrap() == (d.clone(), part.clone())
                    })
            })
        });
        // append_s with itself
        let (asegd, adata) = append_s(&segd, &data, &segd, &data).unwrap();
        let naive_app: Vec<i64> =
            r.0.iter()
                .flat_map(|row| [row.clone(), row.clone()].concat())
                .collect();
        rep == naive_rep
            && split_ok
            && parts
                .iter()
                .all(|p| p.data == naive_part && p.segd.lengths().as_ref() == naive_lens)
            && adata == naive_app
            && asegd.elements() == 2 * data.len()
    }
    qc(prop as fn(Rows, Vec<u8>, Vec<u8>) -> bool);
}

#[test]
fn partition_s_with_spanning_segments() {
    let lengths = [3 * LEAF + 17, 0, 5, 1, 2 * LEAF, 0, 7 * LEAF + 3, 2];
    let segd = Segd::from_lengths(lengths.to_vec()).unwrap();
    let data: Vec<u32> = (0..segd.elements() as u32).collect();
    let keys: Vec<usize> = data
        .iter()
        .map(|&x| ((x * 7 + x / 5) % 4) as usize)
        .collect();
    let want = with_task_count(1, || partition_s(&segd, &data, &keys, 4).unwrap());
    for (s, l) in segd.iter() {
        let mut expect: Vec<u32> = data[s..s + l].to_vec();
        expect.sort_by_key(|&x| keys[x as usize]);
        assert_eq!(&want.data[s..s + l], &expect[..]);
    }
    for k in [2, 3, 5, 9, 16] {
        assert_eq!(
            with_task_count(k, || partition_s(&segd, &data, &keys, 4).unwrap()),
            want,
            "{k} tasks"
        );
    }
}

#[test]
fn split_s_with_spanning_segments_and_many_classes() {
    let lengths = [3 * LEAF + 17, 0, 5, 1, 2 * LEAF, 0, 7 * LEAF + 3, 2];
    let segd = Segd::from_lengths(lengths.to_vec()).unwrap();
    let data: Vec<u32> = (0..segd.elements() as u32).collect();
    // Four classes (one register of counters) and seven (a pass per class).
    for classes in [4u32, 7] {
        let keys: Vec<u16> = data
            .iter()
            .map(|&x| ((x * 7 + x / 5) % classes) as u16)
            .collect();
        let interest: Vec<usize> = (0..classes as usize).rev().step_by(2).collect();
        for k in [1, 2, 3, 5, 9, 16] {
            let s = with_task_count(k, || {
                split_s(&segd, &data, &keys, classes as usize, Some(&interest)).unwrap()
            });
            let mut live = interest.clone();
            live.sort_unstable();
            assert_eq!(s.classes, live);
            for (&c, (d, part)) in live.iter().zip(&s.parts) {
                let mut want_lens = Vec::new();
                let mut want = Vec::new();
                for (start, len) in segd.iter() {
                    let class: Vec<u32> = (start..start + len)
                        .filter(|&j| usize::from(keys[j]) == c)
                        .map(|j| data[j])
                        .collect();
                    want_lens.push(class.len());
                    want.extend(class);
                }
                assert_eq!(d.lengths().as_ref(), &want_lens[..], "class {c}, {k} tasks");
                assert_eq!(part, &want, "class {c}, {k} tasks");
            }
        }
    }
    // A key out of range names split_s and the lowest bad lane; the lengths must agree.
    let mut keys = vec![0u8; data.len()];
    keys[LEAF + 3] = 9;
    keys[5 * LEAF] = 3;
    for k in [1, 3] {
        assert_eq!(
            with_task_count(k, || split_s(&segd, &data, &keys, 3, None)),
            Err(Error::ClassOutOfRange {
                op: "split_s",
                lane: LEAF + 3,
                class: 9,
                classes: 3
            })
        );
    }
    assert!(matches!(
        split_s(&segd, &data[1..], &keys[1..], 3, None),
        Err(Error::LengthMismatch { op: "split_s", .. })
    ));
}

#[test]
fn lifted_filter_matches_reference() {
    fn prop(r: Rows, bits: Vec<bool>) -> bool {
        let (segd, data) = flat(&r.0);
        let mask: bitvec::vec::BitVec = (0..data.len())
            .map(|i| bits.get(i % bits.len().max(1)).copied().unwrap_or(false))
            .collect();
        let (packed, kept) = pack_s(&segd, &data, &mask).unwrap();
        let mut at = 0;
        let mut want = Vec::new();
        for row in &r.0 {
            want.push(
                row.iter()
                    .zip(&mask[at..at + row.len()])
                    .filter(|(_, m)| **m)
                    .map(|(x, _)| *x)
                    .collect::<Vec<i64>>(),
            );
            at += row.len();
        }
        kept == want.concat()
            && packed.lengths().into_owned() == want.iter().map(Vec::len).collect::<Vec<_>>()
            && count_s_bits(&segd, &mask).unwrap() == packed.lengths().into_owned()
    }
    qc(prop as fn(Rows, Vec<bool>) -> bool);
}

#[test]
fn parallel_gathers() {
    let rows: Vec<Vec<i64>> = [3 * LEAF + 7, 0, 1, 5 * LEAF, 2, 0, 9000]
        .iter()
        .enumerate()
        .map(|(r, &n)| (0..n as i64).map(|x| x * 10 + r as i64).collect())
        .collect();
    let picks: Vec<usize> = (0..300).map(|i| (i * 5) % 7).collect();
    let (vsegd, blocks, expected) = virtual_rows(&rows, &picks);
    let lanes = 20_000;
    let segs: Vec<usize> = (0..lanes)
        .map(|j| (j * 13) % expected.len())
        .filter(|&s| !expected[s].is_empty())
        .collect();
    let idx: Vec<i64> = segs
        .iter()
        .enumerate()
        .map(|(j, &s)| ((j * 31) % expected[s].len()) as i64)
        .collect();
    let want: Vec<i64> = segs
        .iter()
        .zip(&idx)
        .map(|(&s, &i)| expected[s][i as usize])
        .collect();
    for k in TASKS {
        with_task_count(k, || {
            assert_eq!(
                index_l(&vsegd, &blocks, &segs, &idx).unwrap(),
                want,
                "{k} tasks"
            );
            let (_, flat) = concat_vs(&vsegd, &blocks).unwrap();
            assert_eq!(flat, expected.concat(), "{k} tasks");
            let mut bad = idx.clone();
            let n = segs.len();
            bad[n / 2] = -3;
            bad[n - 100] = 1 << 40;
            let e = index_l(&vsegd, &blocks, &segs, &bad).unwrap_err();
            assert!(
                matches!(e, Error::IndexOutOfRange { lane, index: -3, .. } if lane == n / 2),
                "{k} tasks: {e}"
            );
        });
    }
}

#[test]
fn extracts_and_errors() {
    let blocks = [vec![1, 2, 3], vec![4]];
    assert_eq!(extracts(&blocks, &[]).unwrap(), Vec::<i32>::new());
    let e = extracts(
        &blocks,
        &[PSeg {
            source: 1,
            start: 0,
            len: 2,
        }],
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "extracts: range 0: start 0 + length 2 exceeds data block 1 of length 1"
    );
    assert!(
        extracts(
            &blocks,
            &[PSeg {
                source: 2,
                start: 0,
                len: 0
            }]
        )
        .is_err()
    );

    let segd = Segd::from_lengths(vec![2, 1]).unwrap();
    assert!(matches!(
        fold_s(&segd, &[1, 2], 0, |a, b| a + b),
        Err(Error::LengthMismatch {
            op: "fold_s",
            expected: 3,
            found: 2
        })
    ));
    assert!(matches!(
        scan_s(&segd, &[1], 0, |a, b| a + b),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        count_s(&segd, &[1], |_| true),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        replicate_s(&segd, &[1]),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        partition_s(&segd, &[1, 2, 3], &[0u8, 1, 0], 16),
        Err(Error::TooManyClasses {
            classes: 16,
            max: 15,
            ..
        })
    ));
    assert!(matches!(
        partition_s(&segd, &[1, 2, 3], &[0u8, 3, 0], 3),
        Err(Error::ClassOutOfRange {
            lane: 1,
            class: 3,
            classes: 3,
            ..
        })
    ));
    assert!(matches!(
        partition_s(&segd, &[1, 2, 3], &[0i64, -1, 0], 3),
        Err(Error::Invalid { .. })
    ));
    assert!(matches!(
        pack_s(
            &segd,
            &[1, 2, 3],
            bitvec::bits![usize, bitvec::order::Lsb0; 1, 0]
        ),
        Err(Error::LengthMismatch { op: "pack_s", .. })
    ));
    assert!(matches!(
        count_s_bits(&segd, bitvec::bits![usize, bitvec::order::Lsb0; 1]),
        Err(Error::LengthMismatch { .. })
    ));
    let v = VSegd::from_segd(&segd);
    let data = [vec![1, 2, 3]];
    assert!(matches!(
        index_l(&v, &data, &[0, 1], &[0]),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        index_l(&v, &data, &[1], &[1]),
        Err(Error::IndexOutOfRange {
            lane: 0,
            index: 1,
            len: 1,
            ..
        })
    ));
    assert!(matches!(
        index_l(&v, &data, &[0, 5], &[0, 0]),
        Err(Error::IndexOutOfRange {
            lane: 1,
            index: 5,
            len: 2,
            ..
        })
    ));
    assert!(matches!(
        fold_vs(&v, &[vec![1, 2]], 0, |a, b| a + b),
        Err(Error::Invalid { .. })
    ));
    assert!(matches!(
        concat_vs(&v, &[vec![1, 2, 3], vec![]]),
        Err(Error::Invalid { .. })
    ));
    assert!(matches!(
        append_s(
            &segd,
            &[1, 2, 3],
            &Segd::from_lengths(vec![3]).unwrap(),
            &[1, 2, 3]
        ),
        Err(Error::LengthMismatch { .. })
    ));
}

/// Power-law row lengths (a few huge rows, many tiny ones), deterministic.
fn power_law(n_rows: usize, total: usize) -> Vec<usize> {
    let weights: Vec<f64> = (1..=n_rows).map(|i| 1.0 / (i as f64).powf(1.2)).collect();
    let sum: f64 = weights.iter().sum();
    weights
        .iter()
        .map(|w| (w / sum * total as f64) as usize)
        .collect()
}

/// Scans of one huge segment (many groups of leaves side by side, a ragged end, split across
/// tasks) between empty and short ones keep the canonical bits on every pool and task count.
#[test]
fn huge_and_empty_segment_scans_are_bitwise_canonical() {
    let segd = Segd::from_lengths(vec![0, 3, 0, 21 * LEAF + 7, 0, LEAF + 1, 5]).unwrap();
    let data: Vec<f64> = (0..segd.elements())
        .map(|i| 1.0 / (3.0 + (i % 101) as f64) * if i % 5 == 0 { -1.7 } else { 1.0 })
        .collect();
    let rows: Vec<&[f64]> = segd.iter().map(|(s, l)| &data[s..s + l]).collect();
    let add = |a: f64, b: f64| a + b;
    let inc: Vec<u64> = (rows.iter())
        .flat_map(|r| assoc::scan_inclusive(r, -0.0, add))
        .map(f64::to_bits)
        .collect();
    let exc: Vec<u64> = (rows.iter())
        .flat_map(|r| assoc::scan_exclusive(r, -0.0, add))
        .map(f64::to_bits)
        .collect();
    let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<u64>>();
    for threads in [1, 2, 3, 8] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        for k in [1, 2, 3, 7] {
            pool.install(|| {
                let (i, e) = with_task_count(k, || {
                    (
                        bits(scan_s(&segd, &data, -0.0, add).unwrap()),
                        bits(scan_s_exclusive(&segd, &data, -0.0, add).unwrap()),
                    )
                });
                assert_eq!(i, inc, "scan_s, {threads} threads, {k} tasks");
                assert_eq!(e, exc, "scan_s_exclusive, {threads} threads, {k} tasks");
            });
        }
    }
}

#[test]
fn float_folds_and_scans_are_bitwise_canonical_for_every_pool() {
    let segd = Segd::from_lengths(power_law(3000, 300_000)).unwrap();
    let data: Vec<f64> = (0..segd.elements())
        .map(|i| 1.0 / (1.0 + (i % 977) as f64) * if i % 3 == 0 { -1.3 } else { 1.0 })
        .collect();
    let rows: Vec<&[f64]> = segd.iter().map(|(s, l)| &data[s..s + l]).collect();
    let fold_ref: Vec<u64> = rows
        .iter()
        .map(|r| assoc::fold(r, 0.0, |a, b| a + b).to_bits())
        .collect();
    let scan_ref: Vec<u64> = rows
        .iter()
        .flat_map(|r| assoc::scan_inclusive(r, 0.0, |a, b| a + b))
        .map(f64::to_bits)
        .collect();
    let exc_ref: Vec<u64> = rows
        .iter()
        .flat_map(|r| assoc::scan_exclusive(r, 0.0, |a, b| a + b))
        .map(f64::to_bits)
        .collect();
    // Two machine profiles: cheap tasks (every pool splits) and the defaults.
    let eager = Machine::new(0.5, 1.0, 0.0, 64);
    let runs = [1, 2, 3, 8]
        .into_iter()
        .flat_map(|t| [(t, eager), (t, Machine::defaults())]);
    for (threads, machine) in runs {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            with_machine(machine, || {
                if threads > 1 && machine == eager {
                    assert!(
                        super::plan::task_count(segd.elements(), crate::sched::Op::new("test")).0
                            > 1,
                        "the parallel path runs"
                    );
                }
                let f: Vec<u64> = fold_s(&segd, &data, 0.0, |a, b| a + b)
                    .unwrap()
                    .into_iter()
                    .map(f64::to_bits)
                    .collect();
                assert_eq!(f, fold_ref, "fold_s, {threads} threads");
                let s: Vec<u64> = scan_s(&segd, &data, 0.0, |a, b| a + b)
                    .unwrap()
                    .into_iter()
                    .map(f64::to_bits)
                    .collect();
                assert_eq!(s, scan_ref, "scan_s, {threads} threads");
                let e: Vec<u64> = scan_s_exclusive(&segd, &data, 0.0, |a, b| a + b)
                    .unwrap()
                    .into_iter()
                    .map(f64::to_bits)
                    .collect();
                assert_eq!(e, exc_ref, "scan_s_exclusive, {threads} threads");
                let v = VSegd::from_segd(&segd).replicate(2).unwrap();
                let fv: Vec<u64> = fold_vs(&v, &[&data[..]], 0.0, |a, b| a + b)
                    .unwrap()
                    .into_iter()
                    .map(f64::to_bits)
                    .collect();
                assert_eq!(
                    fv,
                    [fold_ref.clone(), fold_ref.clone()].concat(),
                    "fold_vs, {threads} threads"
                );
            });
        });
        // Forced cuts of every granularity give the same bits too.
        for k in [2, 5, 16] {
            let f: Vec<u64> =
                with_task_count(k, || fold_s(&segd, &data, 0.0, |a, b| a + b).unwrap())
                    .into_iter()
                    .map(f64::to_bits)
                    .collect();
            assert_eq!(f, fold_ref, "fold_s, {k} tasks");
        }
    }
}

#[test]
fn more_virtual_elements_than_u32_max() {
    // 70,000 copies of a 65,536-element row: 4.6 * 10^9 virtual elements, one physical copy.
    let row: Vec<i64> = (0..65_536).collect();
    let n = Nested::from(vec![row]).replicate(70_000).unwrap();
    assert!(n.vsegd().virtual_elements() > u64::from(u32::MAX));
    let sums = n.fold(0, |a, b| a + b).unwrap();
    assert_eq!((sums.len(), sums[69_999]), (70_000, 65_535 * 65_536 / 2));
    let got = index_l(
        n.vsegd(),
        n.blocks(),
        &[69_999, 0, 35_000],
        &[65_535, 0, 4_242],
    )
    .unwrap();
    assert_eq!(got, vec![65_535, 0, 4_242]);
    let e = index_l(n.vsegd(), n.blocks(), &[69_999], &[65_536]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "index_l: lane 0: index 65536 out of range for length 65536"
    );
}

#[test]
fn regular_descriptors() {
    for (n, len) in [(0, 5), (7, 0), (3, 2 * LEAF + 1), (500, 33)] {
        let segd = Segd::regular(n, len);
        let data: Vec<i64> = (0..(n * len) as i64).collect();
        let sums: Vec<i64> = data
            .chunks(len.max(1))
            .map(|r| r.iter().sum())
            .take(n)
            .collect();
        let sums = if len == 0 { vec![0; n] } else { sums };
        let scans: Vec<i64> = data
            .chunks(len.max(1))
            .flat_map(|r| assoc::scan_inclusive(r, 0, |a, b| a + b))
            .collect();
        for k in TASKS {
            assert_eq!(
                with_task_count(k, || fold_s(&segd, &data, 0, |a, b| a + b).unwrap()),
                sums,
                "{n}x{len}, {k} tasks"
            );
            assert_eq!(
                with_task_count(k, || scan_s(&segd, &data, 0, |a, b| a + b).unwrap()),
                scans,
                "{n}x{len}, {k} tasks"
            );
        }
    }
}

#[test]
fn panicking_closure_propagates_and_pool_survives() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let segd = Segd::from_lengths(power_law(100, 200_000)).unwrap();
    let data: Vec<i64> = (0..segd.elements() as i64).collect();
    let boom = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| {
            fold_s(&segd, &data, 0, |a, b| {
                if b == 150_000 {
                    panic!("user op failed")
                } else {
                    a + b
                }
            })
        })
    }));
    assert!(boom.is_err());
    let boom = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| {
            scan_s(&segd, &data, 0, |a, b| {
                if b == 7 {
                    panic!("user op failed")
                } else {
                    a + b
                }
            })
        })
    }));
    assert!(boom.is_err());
    let sums = pool
        .install(|| fold_s(&segd, &data, 0, |a, b| a + b))
        .unwrap();
    assert_eq!(sums.iter().sum::<i64>(), data.iter().sum::<i64>());
}

#[test]
fn nested_wrappers_agree_with_slice_forms() {
    let n = Nested::from(vec![vec![1i64, 2, 3], vec![], vec![4]]);
    let r = n.replicate_s(&[2, 1, 3]).unwrap();
    assert_eq!(
        r.fold(0, |a, b| a + b).unwrap(),
        fold_vs(r.vsegd(), r.blocks(), 0, |a, b| a + b).unwrap()
    );
    let (segd, flat) = r.concat().unwrap();
    assert_eq!(
        concat_vs(r.vsegd(), r.blocks()).unwrap(),
        (segd, flat.to_vec())
    );
    assert_eq!(
        r.index_l(&[0, 5], &[2, 0]).unwrap().to_vec(),
        index_l(r.vsegd(), r.blocks(), &[0, 5], &[2, 0]).unwrap()
    );
}

#[cfg(feature = "stats")]
mod work {
    use super::*;
    use crate::stats;

    #[test]
    fn fold_vs_reads_the_shared_segment_once() {
        let row: Vec<f64> = (0..10_000).map(f64::from).collect();
        let n = Nested::from(vec![row]);
        let (rep, w) = stats::measure(|| n.replicate(100_000).unwrap());
        assert_eq!(w.elements_copied, 0);
        assert_eq!(w.elements_read, 0);
        let (sums, w) = stats::measure(|| rep.fold(0.0, |a, b| a + b).unwrap());
        assert_eq!(sums.len(), 100_000);
        assert_eq!(w.elements_read, 10_000, "not 10^9");
        assert_eq!(w.elements_copied, 0);
    }

    #[test]
    fn index_l_reads_only_the_indexed_elements() {
        let v = Nested::from(vec![(0..1_000_000i64).collect::<Vec<_>>()]);
        let rep = v.replicate(10_000).unwrap();
        let segs: Vec<usize> = (0..10_000).collect();
        let idx: Vec<i64> = (0..10_000).map(|i| i * 97).collect();
        let (got, w) = stats::measure(|| index_l(rep.vsegd(), rep.blocks(), &segs, &idx).unwrap());
        assert_eq!(got[3], 3 * 97);
        assert_eq!(w.elements_read, 10_000);
        let (_, w) = stats::measure(|| rep.index_l(&segs, &idx).unwrap());
        assert_eq!(w.elements_copied, 10_000);
        assert_eq!(w.elements_read, 0);
    }

    #[test]
    fn concat_copies_exactly_the_virtual_elements() {
        let n = Nested::from(vec![vec![1i64; 30], vec![2; 5]])
            .replicate_s(&[3, 0])
            .unwrap();
        let ((_, flat), w) = stats::measure(|| n.concat().unwrap());
        assert_eq!(flat.len(), 90);
        assert_eq!(w.elements_copied, 90);
        let ((_, flat), w) = stats::measure(|| concat_vs(n.vsegd(), n.blocks()).unwrap());
        assert_eq!(flat.len(), 90);
        assert_eq!(w.elements_copied, 90);
    }

    #[test]
    fn fold_s_and_scan_s_read_each_element_once() {
        let segd = Segd::from_lengths(vec![100_000, 3, 0, 50_000]).unwrap();
        let data = vec![1i64; segd.elements()];
        let (_, w) = stats::measure(|| fold_s(&segd, &data, 0, |a, b| a + b).unwrap());
        assert_eq!((w.elements_read, w.elements_written), (150_003, 4));
        let (_, w) = stats::measure(|| scan_s(&segd, &data, 0, |a, b| a + b).unwrap());
        assert_eq!((w.elements_read, w.elements_written), (150_003, 150_003));
    }
}

#[test]
fn replicate_s_matches_the_naive_expansion_for_every_task_count() {
    // Counts with empty segments, one long segment spanning tasks, and many short ones.
    fn prop(counts: Vec<u8>, long: u16) -> bool {
        let mut counts: Vec<usize> = counts.iter().map(|&c| usize::from(c % 5)).collect();
        counts.insert(counts.len() / 2, usize::from(long));
        let data: Vec<f64> = (0..counts.len()).map(|i| i as f64 - 0.5).collect();
        let naive: Vec<u64> = (data.iter().zip(&counts))
            .flat_map(|(&x, &c)| std::iter::repeat_n(x.to_bits(), c))
            .collect();
        let segd = Segd::from_lengths(counts).unwrap();
        TASKS.iter().all(|&k| {
            let got = with_task_count(k, || replicate_s(&segd, &data).unwrap());
            got.iter().map(|x| x.to_bits()).collect::<Vec<_>>() == naive
        })
    }
    qc(prop as fn(Vec<u8>, u16) -> bool);
    // No segment, and segments that are all empty.
    for counts in [vec![], vec![0, 0, 0]] {
        let segd = Segd::from_lengths(counts.clone()).unwrap();
        let data = vec![1i64; counts.len()];
        assert!(with_task_count(3, || replicate_s(&segd, &data).unwrap()).is_empty());
    }
}

#[test]
fn zip_replicated_s_matches_zip_with_the_replication_for_every_task_count() {
    // Rows of every shape (empty, empty segments, one huge segment), each compared with its
    // own value; NaN included, so that the float comparison's unordered case shows.
    fn prop(r: Rows, ps: Vec<f64>) -> bool {
        let (segd, data) = flat(&r.0);
        let xs: Vec<f64> = data.iter().map(|&x| x as f64).collect();
        let per: Vec<f64> = (0..segd.len())
            .map(|s| ps.get(s).copied().unwrap_or(s as f64))
            .collect();
        let replicated = replicate_s(&segd, &per).unwrap();
        let naive: Vec<(bool, u64)> = (xs.iter().zip(&replicated))
            .map(|(&x, &p)| (x < p, (x - p).to_bits()))
            .collect();
        TASKS.iter().all(|&k| {
            let got = with_task_count(k, || {
                zip_replicated_s(&segd, &xs, &per, |x, p| (x < p, (x - p).to_bits())).unwrap()
            });
            got == naive
        })
    }
    qc(prop as fn(Rows, Vec<f64>) -> bool);
    let segd = Segd::from_lengths(vec![2, 0, 1]).unwrap();
    assert!(matches!(
        zip_replicated_s(&segd, &[1, 2, 3], &[0, 0], |x, p| x + p),
        Err(Error::LengthMismatch {
            op: "zip_replicated_s",
            expected: 3,
            found: 2
        })
    ));
    assert!(matches!(
        zip_replicated_s(&segd, &[1, 2], &[0, 0, 0], |x, p| x + p),
        Err(Error::LengthMismatch {
            op: "zip_replicated_s",
            expected: 3,
            found: 2
        })
    ));
    let none = Segd::from_lengths(vec![]).unwrap();
    assert!(
        zip_replicated_s(&none, &[0u8; 0], &[0u8; 0], |x, p| x + p)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn iota_s_matches_the_naive_ranges_for_every_task_count() {
    // Wrapping starts and steps, empty segments, one long segment spanning tasks.
    fn prop(segs: Vec<(u8, i64, i64)>, long: u16) -> bool {
        let mut segs: Vec<(usize, i64, i64)> = (segs.iter())
            .map(|&(n, s, d)| (usize::from(n % 6), s, d))
            .collect();
        segs.insert(
            segs.len() / 2,
            (usize::from(long), i64::MAX - 3, i64::MIN / 3),
        );
        let naive: Vec<i64> = (segs.iter())
            .flat_map(|&(n, s, d)| (0..n as i64).map(move |k| s.wrapping_add(k.wrapping_mul(d))))
            .collect();
        let segd = Segd::from_lengths(segs.iter().map(|s| s.0).collect()).unwrap();
        let starts: Vec<i64> = segs.iter().map(|s| s.1).collect();
        let steps: Vec<i64> = segs.iter().map(|s| s.2).collect();
        TASKS
            .iter()
            .all(|&k| with_task_count(k, || iota_s(&segd, &starts, &steps).unwrap()) == naive)
    }
    qc(prop as fn(Vec<(u8, i64, i64)>, u16) -> bool);
    let segd = Segd::from_lengths(vec![1, 2]).unwrap();
    assert!(matches!(
        iota_s(&segd, &[0], &[1, 1]),
        Err(Error::LengthMismatch { op: "iota_s", .. })
    ));
    assert!(iota_s(&segd, &[0, 0], &[1]).is_err());
    assert!(
        iota_s(&Segd::from_lengths(vec![]).unwrap(), &[], &[])
            .unwrap()
            .is_empty()
    );
}

/// The sequential reference of [`positions_l`]: the first bad index in order is the error.
fn positions_naive(segd: &Segd, idx: &[i64], dest: &Segd) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(idx.len());
    for (j, (start, len)) in segd.iter().enumerate() {
        let (base, dl) = (dest.start(j), dest.length(j));
        for &x in &idx[start..start + len] {
            match usize::try_from(x) {
                Ok(k) if k < dl => out.push(base + k),
                _ => {
                    return Err(Error::IndexOutOfRange {
                        op: "positions_l",
                        lane: j,
                        index: x,
                        len: dl,
                    });
                }
            }
        }
    }
    Ok(out)
}

#[test]
fn positions_l_matches_the_naive_loop_for_every_task_count() {
    // Segments of 0 to 5 indices into destination segments of 0 to 7 (so some indices are out
    // of range, negative ones included), one long segment spanning tasks; `bad` plants one
    // out-of-range index in the long segment, whose error must be the first in order.
    fn prop(segs: Vec<(u8, u8, i8)>, long: u16, bad: Option<u16>) -> bool {
        let mut lens: Vec<usize> = segs.iter().map(|s| usize::from(s.0 % 6)).collect();
        let mut dlens: Vec<usize> = segs.iter().map(|s| usize::from(s.1 % 8)).collect();
        let mut idx: Vec<i64> = Vec::new();
        for (k, s) in segs.iter().enumerate() {
            let d = dlens[k] as i64;
            idx.extend((0..lens[k] as i64).map(|i| (i64::from(s.2) + i) % (d + 1)));
        }
        let mid = segs.len() / 2;
        let long = usize::from(long);
        let at: usize = lens[..mid].iter().sum();
        let mut tail: Vec<i64> = (0..long as i64).map(|i| (i * 7919) % 50_000).collect();
        if let Some(b) = bad
            && long > 0
        {
            tail[usize::from(b) % long] = 50_000;
        }
        idx.splice(at..at, tail);
        lens.insert(mid, long);
        dlens.insert(mid, 50_000);
        let segd = Segd::from_lengths(lens).unwrap();
        let dest = Segd::from_lengths(dlens).unwrap();
        let naive = positions_naive(&segd, &idx, &dest);
        TASKS
            .iter()
            .all(|&k| with_task_count(k, || positions_l(&segd, &idx, &dest)) == naive)
    }
    qc(prop as fn(Vec<(u8, u8, i8)>, u16, Option<u16>) -> bool);
    let segd = Segd::from_lengths(vec![1, 2]).unwrap();
    let dest = Segd::from_lengths(vec![3, 3]).unwrap();
    assert!(matches!(
        positions_l(&segd, &[0, 1], &dest),
        Err(Error::LengthMismatch {
            op: "positions_l",
            ..
        })
    ));
    assert!(positions_l(&segd, &[0, 1, 2], &Segd::from_lengths(vec![3]).unwrap()).is_err());
    let empty = Segd::from_lengths(vec![]).unwrap();
    assert!(positions_l(&empty, &[], &empty).unwrap().is_empty());
}

#[test]
fn extracts_split_between_tasks_match_reference() {
    // Ranges of 0 to 60 elements (a few longer than a task's share, many empty), from two
    // blocks, in any order: every task count copies the naive concatenation.
    fn prop(spec: Vec<(bool, u16, u8)>, long: u16) -> bool {
        let a: Vec<u32> = (0..5_000).collect();
        let b: Vec<u32> = (0..3_000).map(|x| x + 1_000_000).collect();
        let blocks = [&a[..], &b[..]];
        let mut ranges: Vec<PSeg> = spec
            .iter()
            .map(|&(second, start, len)| {
                let block = blocks[usize::from(second)];
                let len = usize::from(len % 61);
                let start = usize::from(start) % (block.len() - len);
                PSeg {
                    source: usize::from(second),
                    start,
                    len,
                }
            })
            .collect();
        // One range longer than the others, in the middle.
        let long = usize::from(long) % 4_000;
        ranges.insert(
            ranges.len() / 2,
            PSeg {
                source: 0,
                start: 100,
                len: long,
            },
        );
        let naive: Vec<u32> = ranges
            .iter()
            .flat_map(|r| blocks[r.source][r.start..r.start + r.len].iter().copied())
            .collect();
        TASKS
            .iter()
            .all(|&k| with_task_count(k, || extracts(&blocks, &ranges).unwrap()) == naive)
    }
    qc(prop as fn(Vec<(bool, u16, u8)>, u16) -> bool);
}
