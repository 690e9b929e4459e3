//! `lane::Ctx::flat_map` (a `concat` of a `map` written into its destination) against the plain
//! concatenation of its lanes' arrays, under every choice of parallel lanes: lanes that push
//! elements (a filter's, some rejected), copy borrowed arrays and hand over owned arrays on both sides of
//! `lane::OWNED_PIECE` (moved as pieces of their own, or copied), empty lanes, and the error of
//! the lowest failing lane.

use flatland_vectoriser::lane::{
    Cow, Ctx, KEPT_BLOCK, Lanes, OWNED_PIECE, Pieces, extend, with_lanes,
};
use flatland_vectoriser::{Error, Result};
use quickcheck::{QuickCheck, TestResult};

/// What lane `i` of a run with these `sizes` appends: its size's elements, as an owned array,
/// a borrowed one, one by one or as a filter's kept elements, by `i % 4`.
fn lane_elements(i: usize, size: usize) -> Vec<u64> {
    (0..size).map(|k| (i as u64) << 32 | k as u64).collect()
}

fn append(i: usize, size: usize, out: &mut Pieces<u64>) {
    let xs = lane_elements(i, size);
    match i % 4 {
        0 => extend(out, Cow::Owned(xs)),
        1 => extend(out, Cow::Borrowed(&xs[..])),
        2 => {
            for x in xs {
                out.push(x);
            }
        }
        _ => {
            // A filter's appends: each element kept, a rejected value before it and one after
            // the last.
            out.extend_kept(2 * xs.len() + 1, |k| {
                Ok(if k % 2 == 1 {
                    (xs[k / 2], true)
                } else {
                    (u64::MAX, false)
                })
            })
            .unwrap();
        }
    }
}

fn run(l: Lanes, sizes: &[usize], bad: Option<usize>) -> Result<Vec<u64>> {
    with_lanes(l, || {
        Ctx::new().flat_map(
            sizes.len(),
            |i: usize| sizes[i],
            |_, i, out| {
                if Some(i) == bad {
                    return Err(Error::Input {
                        detail: format!("lane {i} fails"),
                    });
                }
                append(i, sizes[i], out);
                Ok(())
            },
        )
    })
}

fn check(sizes: &[usize], bad: Option<usize>) {
    let want: Vec<u64> = (0..sizes.len())
        .flat_map(|i| lane_elements(i, sizes[i]))
        .collect();
    for l in [Lanes::Sequential, Lanes::Parallel, Lanes::Model] {
        let got = run(l, sizes, bad);
        match bad.filter(|&b| b < sizes.len()) {
            None => assert_eq!(got.as_ref(), Ok(&want), "{l:?} {sizes:?}"),
            Some(b) => {
                let e = got.expect_err("a failing lane");
                assert_eq!(e.to_string(), format!("bad input: lane {b} fails"), "{l:?}");
            }
        }
    }
}

#[test]
fn lanes_around_the_owned_piece_length_concatenate_in_order() {
    let p = OWNED_PIECE;
    check(&[], None);
    check(&[0, 0, 0], None);
    check(&[p, p - 1, p + 1, 0, p, 3, 2 * p, 1], None);
    check(&[3 * p; 40], None);
    // One huge lane among small ones.
    let mut sizes = vec![1; 1000];
    sizes[500] = 1 << 18;
    check(&sizes, None);
    check(&sizes, Some(501));
    check(&sizes, Some(0));
}

#[test]
fn random_lane_sizes_concatenate_in_order() {
    fn prop(sizes: Vec<u16>, bad: Option<u16>) -> TestResult {
        let sizes: Vec<usize> = sizes
            .iter()
            .map(|&s| usize::from(s) % (3 * OWNED_PIECE))
            .collect();
        check(&sizes, bad.map(usize::from));
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(200)
        .quickcheck(prop as fn(Vec<u16>, Option<u16>) -> TestResult);
}

#[test]
fn kept_elements_across_blocks_and_the_first_error() {
    // Every third element kept, over blocks of `KEPT_BLOCK` and a short tail, after what the
    // buffer held already; then an error in the second block keeps what came before it.
    let n = 3 * KEPT_BLOCK + 5;
    let mut out = Pieces::new();
    out.push(7u64);
    out.extend_kept(n, |i| Ok((i as u64, i % 3 == 0))).unwrap();
    let want: Vec<u64> = std::iter::once(7)
        .chain((0..n as u64).filter(|i| i % 3 == 0))
        .collect();
    assert_eq!(out.into_vec().unwrap(), want);
    let bad = KEPT_BLOCK + 10;
    let mut out = Pieces::new();
    let e = out.extend_kept(n, |i| {
        if i == bad {
            Err(Error::Input {
                detail: format!("element {i}"),
            })
        } else {
            Ok((i as u64, true))
        }
    });
    assert!(matches!(e, Err(Error::Input { detail }) if detail == format!("element {bad}")));
    assert_eq!(out.into_vec().unwrap(), (0..bad as u64).collect::<Vec<_>>());
    // Elements with drop glue: pushed where kept.
    let mut boxed = Pieces::new();
    boxed.extend_kept(5, |i| Ok((vec![i], i == 4))).unwrap();
    assert_eq!(boxed.into_vec().unwrap(), vec![vec![4]]);
}
