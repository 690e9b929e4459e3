//! `lane::split` and `lane::split_in` (the per-lane filter and partition) against a naive
//! reference: each class the elements whose class it is, in order, a class not wanted left
//! empty, and the error of the lowest failing index. Lengths on both sides of the short path
//! (classes kept on the stack, outputs allocated at their length) and past the parallel split,
//! one class wanted or several, under every choice of parallel lanes; elements without drop
//! glue (written without a branch per element, block by block) and with it (pushed).
//! `lane::filter_class_in` (one class, in place where its array is owned) against the same
//! reference, owned and borrowed. For two classes, `lane::split_two_in` and
//! `lane::filter_two_in` too, their test given a word of elements at a time as the macro's
//! filters give it.

use flatland_vectoriser::lane::{
    Cow, Lanes, PARALLEL_ELEMENTS, filter_class_in, filter_two_in, split, split_in, split_two_in,
};
use flatland_vectoriser::{Error, Result};
use quickcheck::{QuickCheck, TestResult};

/// Element `i`'s class among `k`: a hash of the element, so that classes interleave.
fn class_of(x: u32, k: usize) -> usize {
    (x.wrapping_mul(2_654_435_761) >> 7) as usize % k
}

/// The class function of a run: index `bad`, if any, fails, as do all after it that are
/// asked (the lowest failing index must be the one reported).
fn classes(xs: &[u32], k: usize, bad: Option<usize>) -> impl Fn(usize) -> Result<usize> + Sync {
    move |i| {
        if bad.is_some_and(|b| i >= b) {
            return Err(Error::Input {
                detail: format!("element {i} fails"),
            });
        }
        Ok(class_of(xs[i], k))
    }
}

/// The word form of [`classes`] for two classes: bit `j` set where element `first + j` (the
/// `j`th of `word`) is of class 1, or the error of its lowest failing index.
fn words(bad: Option<usize>) -> impl Fn(usize, &[u32]) -> Result<u64> + Sync {
    move |first, word| {
        word.iter().enumerate().try_fold(0u64, |bits, (j, &x)| {
            let i = first + j;
            if bad.is_some_and(|b| i >= b) {
                return Err(Error::Input {
                    detail: format!("element {i} fails"),
                });
            }
            Ok(bits | (u64::from(class_of(x, 2) == 1) << j))
        })
    }
}

/// The naive reference: every class filtered on its own, left to right.
fn reference<const K: usize>(
    xs: &[u32],
    wanted: [bool; K],
    bad: Option<usize>,
) -> Result<[Vec<u32>; K]> {
    let class = classes(xs, K, bad);
    let mut all = Vec::with_capacity(xs.len());
    for i in 0..xs.len() {
        all.push(class(i)?);
    }
    Ok(std::array::from_fn(|k| {
        if !wanted[k] {
            return Vec::new();
        }
        xs.iter()
            .zip(&all)
            .filter(|(_, c)| **c == k)
            .map(|(x, _)| *x)
            .collect()
    }))
}

fn agree<const K: usize>(xs: &[u32], wanted: [bool; K], bad: Option<usize>) -> bool {
    let want = reference(xs, wanted, bad).map_err(|e| e.to_string());
    let seq = split(xs, wanted, classes(xs, K, bad)).map_err(|e| e.to_string());
    // The same classes of elements with drop glue (each value boxed in a `Vec`).
    let boxed: Vec<Vec<u32>> = xs.iter().map(|&x| vec![x]).collect();
    let unboxed =
        |c: [Vec<Vec<u32>>; K]| c.map(|c| c.into_iter().map(|v| v[0]).collect::<Vec<u32>>());
    let boxed_seq = split(&boxed, wanted, classes(xs, K, bad))
        .map(unboxed)
        .map_err(|e| e.to_string());
    [Lanes::Sequential, Lanes::Parallel, Lanes::Model]
        .into_iter()
        .all(|l| {
            let plain = split_in(l, xs, wanted, classes(xs, K, bad));
            let boxed = split_in(l, &boxed, wanted, classes(xs, K, bad)).map(unboxed);
            [plain, boxed]
                .into_iter()
                .all(|r| r.map_err(|e| e.to_string()) == want)
        })
        && seq == want
        && boxed_seq == want
        && (K != 2 || two_agree(xs, [wanted[0], wanted[1]], bad, &want))
        && (0..K)
            .filter(|&c| wanted[c])
            .all(|c| one_class_agrees::<K>(xs, c, bad, &want))
}

/// `lane::split_two_in`, its elements tested a word at a time where it splits them (or the
/// array is large), is the reference's two classes, or its error.
fn two_agree<const K: usize>(
    xs: &[u32],
    wanted: [bool; 2],
    bad: Option<usize>,
    want: &std::result::Result<[Vec<u32>; K], String>,
) -> bool {
    let want = want
        .as_ref()
        .map(|w| [w[0].clone(), w[1].clone()])
        .map_err(Clone::clone);
    [Lanes::Sequential, Lanes::Parallel, Lanes::Model]
        .into_iter()
        .all(|l| {
            let got = split_two_in(l, xs, wanted, classes(xs, 2, bad), words(bad));
            got.map_err(|e| e.to_string()) == want
        })
}

/// `lane::filter_class_in`'s class `c` (in place where owned, in blocks where split; boxed
/// elements too) is the reference's class `c`, or its error; for two classes, so is
/// `lane::filter_two_in`'s.
fn one_class_agrees<const K: usize>(
    xs: &[u32],
    c: usize,
    bad: Option<usize>,
    want: &std::result::Result<[Vec<u32>; K], String>,
) -> bool {
    let want = want.as_ref().map(|w| w[c].clone()).map_err(Clone::clone);
    let class = classes(xs, K, bad);
    let by_index = |i: usize, _: &u32| class(i);
    let boxed: Vec<Vec<u32>> = xs.iter().map(|&x| vec![x]).collect();
    let boxed_by_index = |i: usize, _: &Vec<u32>| class(i);
    [Lanes::Sequential, Lanes::Parallel, Lanes::Model]
        .into_iter()
        .all(|l| {
            let owned = filter_class_in::<_, K>(l, Cow::Owned(xs.to_vec()), c, by_index);
            let borrowed = filter_class_in::<_, K>(l, Cow::Borrowed(xs), c, by_index);
            let boxed = filter_class_in::<_, K>(l, Cow::Owned(boxed.clone()), c, boxed_by_index)
                .map(|b| b.into_iter().map(|v| v[0]).collect::<Vec<u32>>());
            let two = (K == 2).then(|| {
                [
                    filter_two_in(l, Cow::Owned(xs.to_vec()), c, by_index, words(bad)),
                    filter_two_in(l, Cow::Borrowed(xs), c, by_index, words(bad)),
                ]
            });
            [owned, borrowed, boxed]
                .into_iter()
                .chain(two.into_iter().flatten())
                .all(|r| r.map_err(|e| e.to_string()) == want)
        })
}

#[test]
fn split_is_its_classes_filtered_around_the_short_path() {
    // Around the short path (64), the blocks written without branches (1024) and the split.
    for n in [
        0,
        1,
        2,
        63,
        64,
        65,
        200,
        1023,
        1024,
        1025,
        3000,
        PARALLEL_ELEMENTS + 77,
        // Past the size whose two-class split on this thread tests words (256 KiB of `u32`).
        70_001,
    ] {
        let xs: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(40_503)).collect();
        for bad in [None, Some(0), Some(n / 2), Some(n.saturating_sub(1))] {
            assert!(
                agree(&xs, [false, true, false], bad),
                "n = {n}, bad = {bad:?}"
            );
            assert!(agree(&xs, [true, false], bad), "n = {n}, bad = {bad:?}");
            assert!(
                agree(&xs, [true, true, true, true], bad),
                "n = {n}, bad = {bad:?}"
            );
            assert!(
                agree(&xs, [true, false, true], bad),
                "n = {n}, bad = {bad:?}"
            );
        }
    }
}

#[test]
fn split_agrees_with_the_reference_on_random_arrays() {
    fn prop(xs: Vec<u32>, wanted: (bool, bool, bool), bad: Option<u8>) -> TestResult {
        let bad = bad.map(|b| usize::from(b) % (xs.len() + 1));
        let (a, b, c) = wanted;
        TestResult::from_bool(agree(&xs, [a, b, c], bad) && agree(&xs, [b, true], bad))
    }
    QuickCheck::new()
        .tests(300)
        .quickcheck(prop as fn(Vec<u32>, (bool, bool, bool), Option<u8>) -> TestResult);
}

/// Whether element `i` is of class 1.
type ClassOne = fn(usize) -> bool;

/// Two classes of every density a word can have (none, few, half, most, all of a word's
/// elements of class 1, and runs of whole words of one class), across the pool and on this
/// thread, on lengths that end in a partial word: `split_two_in` is the reference filter.
#[test]
fn two_classes_of_every_density_equal_the_reference() {
    let densities: [(&str, ClassOne); 6] = [
        ("none", |_| false),
        ("an eighth", |i| i % 8 == 3),
        ("half", |i| (i * 2_654_435_761) >> 7 & 1 == 1),
        ("seven eighths", |i| i % 8 != 5),
        ("all", |_| true),
        ("runs of words", |i| (i / 64) % 3 != 1),
    ];
    for n in [0usize, 1, 63, 64, 65, 1000, 5000, 70_001] {
        let xs: Vec<u32> = (0..n as u32).collect();
        for (name, one) in densities {
            let class = |i: usize| Ok(usize::from(one(i)));
            let word = |first: usize, w: &[u32]| {
                Ok((0..w.len()).map(|j| u64::from(one(first + j)) << j).sum())
            };
            let want: [Vec<u32>; 2] = [
                xs.iter().copied().filter(|&x| !one(x as usize)).collect(),
                xs.iter().copied().filter(|&x| one(x as usize)).collect(),
            ];
            for l in [Lanes::Sequential, Lanes::Parallel, Lanes::Model] {
                let got = split_two_in(l, &xs, [true, true], class, word).unwrap();
                assert_eq!(got, want, "{name}, {n} elements, {l:?}");
                let kept = filter_two_in(l, Cow::Borrowed(&xs[..]), 1, |i, _| class(i), word);
                assert_eq!(kept.unwrap(), want[1], "{name}, {n} elements, {l:?}");
            }
        }
    }
}
