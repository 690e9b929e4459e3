//! Filters whose predicates index free arrays (the sieve's `i >= 2 && flags[i]`): with fusion
//! the executor computes every predicate on every element in one pass (`&&`, `||` and `if` as
//! selects), forgives the reads out of range that no element's class depends on (a guard such
//! as `i < flags.len() && ..`), and otherwise hands over to the lazy steps. Results and errors
//! must be the reference interpreter's, on random inputs.

use flatland::runtime::elt::Nested;
use flatland::vectorise;
use quickcheck::QuickCheck;

#[vectorise]
mod k {
    use flatland::runtime::elt::Nested;

    /// A guard keeps every read in range.
    pub fn guarded(n: i64, flags: &[bool]) -> Vec<i64> {
        (0..n).filter(|i| i < flags.len() && flags[i])
    }

    /// No guard: an index past `flags` is an error.
    pub fn unguarded(n: i64, flags: &[bool]) -> Vec<i64> {
        (0..n).filter(|i| flags[i])
    }

    /// Reads in both branches of an `if`, one of them guarded.
    pub fn branchy(n: i64, flags: &[bool]) -> Vec<i64> {
        (0..n).filter(|i| {
            if i % 2 == 0 {
                flags[i]
            } else {
                i / 2 >= flags.len() || flags[i / 2]
            }
        })
    }

    /// Per row, a guarded division (not computed speculatively: it would fail).
    pub fn divided(rows: &Nested<i64>) -> Vec<Vec<i64>> {
        rows.map(|r| r.filter(|x| x != 0 && 100 / x > 20))
    }

    /// A filter of a slice whose test reads a scalar and indexes an array (out of range an
    /// error): per-lane code tests a word of elements at a time (`lane::split_two_in`).
    pub fn kept_indexed(xs: &[i64], k: i64, flags: &[bool]) -> Vec<i64> {
        xs.iter().filter(|x| x >= k && flags[x]).collect()
    }

    /// The same test on an array computed and then filtered at its last read
    /// (`lane::filter_two_in`, in place).
    pub fn shifted_kept(xs: &[i64], k: i64, flags: &[bool]) -> Vec<i64> {
        let ys: Vec<i64> = xs.iter().map(|x| x + 1).collect();
        ys.iter().filter(|y| y >= k && flags[y]).collect()
    }

    /// Per row, a guarded read of a shared array, and an index computed from a read.
    pub fn per_row(rows: &Nested<i64>, w: &[bool], to: &[i64]) -> Vec<Vec<i64>> {
        rows.map(|r| {
            r.filter(|x| x >= 0 && x < to.len() && to[x] >= 0 && to[x] < w.len() && w[to[x]])
        })
    }
}

type Out<T> = Result<T, String>;

fn both<T>(
    a: flatland::vectoriser::Result<T>,
    b: flatland::vectoriser::Result<T>,
) -> (Out<T>, Out<T>) {
    (a.map_err(|e| e.to_string()), b.map_err(|e| e.to_string()))
}

#[test]
fn flat_filters_that_index_equal_the_reference() {
    fn prop(n: u16, flags: Vec<bool>) -> bool {
        let n = i64::from(n % 3000);
        let (g, gr) = both(
            k::try_guarded(n, &flags),
            k::plan::guarded::reference(n, &flags),
        );
        let (u, ur) = both(
            k::try_unguarded(n, &flags),
            k::plan::unguarded::reference(n, &flags),
        );
        let (b, br) = both(
            k::try_branchy(n, &flags),
            k::plan::branchy::reference(n, &flags),
        );
        let plain: Vec<i64> = (0..n)
            .filter(|&i| flags.get(i as usize) == Some(&true))
            .collect();
        g.is_ok()
            && g == gr
            && g == Ok(plain)
            && u == ur
            && u.is_err() == (n as usize > flags.len())
            && b == br
    }
    QuickCheck::new()
        .tests(60)
        .quickcheck(prop as fn(u16, Vec<bool>) -> bool);
}

/// The per-lane forms (a filter of a range: `lane::select_iota_in`, the predicate compiled per
/// word of 64 elements with the arrays bound as slices) give the reference's elements and its
/// first error, split across the pool or not, whatever word the first bad read falls in.
#[test]
fn per_lane_filters_of_ranges_equal_the_reference() {
    use flatland::vectoriser::lane::{Lanes, with_lanes};
    fn prop(n: u16, flags: Vec<bool>, parallel: bool) -> bool {
        let n = i64::from(n % 3000);
        let l = if parallel {
            Lanes::Parallel
        } else {
            Lanes::Sequential
        };
        with_lanes(l, || {
            let (g, gr) = both(
                k::plan::guarded::per_lane(n, &flags),
                k::plan::guarded::reference(n, &flags),
            );
            let (u, ur) = both(
                k::plan::unguarded::per_lane(n, &flags),
                k::plan::unguarded::reference(n, &flags),
            );
            let (b, br) = both(
                k::plan::branchy::per_lane(n, &flags),
                k::plan::branchy::reference(n, &flags),
            );
            g.is_ok() && g == gr && u == ur && u.is_err() == (n as usize > flags.len()) && b == br
        })
    }
    QuickCheck::new()
        .tests(100)
        .quickcheck(prop as fn(u16, Vec<bool>, bool) -> bool);
}

/// The per-lane filters of slices (a word of 64 elements tested at a time, with the scalar and
/// the array the test reads bound once per word) give the reference's elements and its first
/// error, split across the pool or not, on arrays long enough to split.
#[test]
fn per_lane_filters_of_slices_equal_the_reference() {
    use flatland::vectoriser::lane::{Lanes, with_lanes};
    fn prop(len: u16, seed: u32, min: i8, flags: Vec<bool>, lanes: u8) -> bool {
        let n = usize::from(len) * 3;
        let xs: Vec<i64> = (0..n as u64)
            .map(|i| (i.wrapping_mul(u64::from(seed) | 1) >> 3) as i64 % 101 - 2)
            .collect();
        let min = i64::from(min % 8);
        let l = [Lanes::Sequential, Lanes::Parallel, Lanes::Model][usize::from(lanes % 3)];
        with_lanes(l, || {
            let (a, ar) = both(
                k::plan::kept_indexed::per_lane(&xs, min, &flags),
                k::plan::kept_indexed::reference(&xs, min, &flags),
            );
            let (s, sr) = both(
                k::plan::shifted_kept::per_lane(&xs, min, &flags),
                k::plan::shifted_kept::reference(&xs, min, &flags),
            );
            a == ar && s == sr
        })
    }
    QuickCheck::new()
        .tests(100)
        .quickcheck(prop as fn(u16, u32, i8, Vec<bool>, u8) -> bool);
    // Every flag set (no error), long enough for the words to split across the pool.
    let flags = vec![true; 200];
    let xs: Vec<i64> = (0..100_000).map(|i| (i * 7919) % 199 - 5).collect();
    for l in [Lanes::Sequential, Lanes::Parallel, Lanes::Model] {
        with_lanes(l, || {
            let got = k::plan::kept_indexed::per_lane(&xs, 3, &flags).unwrap();
            let want: Vec<i64> = xs.iter().copied().filter(|&x| x >= 3).collect();
            assert_eq!(got, want, "{l:?}");
            let got = k::plan::shifted_kept::per_lane(&xs, 3, &flags).unwrap();
            let want: Vec<i64> = xs.iter().map(|x| x + 1).filter(|&y| y >= 3).collect();
            assert_eq!(got, want, "{l:?}");
        });
    }
}

#[test]
fn lifted_filters_that_index_equal_the_reference() {
    fn prop(lens: Vec<u8>, xs: Vec<i16>, w: Vec<bool>, to: Vec<i16>) -> bool {
        let mut offsets = vec![0];
        for l in &lens {
            offsets.push(offsets.last().unwrap() + usize::from(l % 40));
        }
        let nnz = *offsets.last().unwrap();
        let elems: Vec<i64> = (0..nnz)
            .map(|i| i64::from(xs.get(i % xs.len().max(1)).copied().unwrap_or(0) % 60))
            .collect();
        let to: Vec<i64> = to.iter().map(|&t| i64::from(t % 50)).collect();
        let rows = Nested::from_offsets(offsets, elems).unwrap();
        let (got, want) = both(
            k::try_per_row(&rows, &w, &to),
            k::plan::per_row::reference(&rows, &w, &to),
        );
        let (div, div_want) = both(k::try_divided(&rows), k::plan::divided::reference(&rows));
        got.is_ok() && got == want && div.is_ok() && div == div_want
    }
    QuickCheck::new()
        .tests(60)
        .quickcheck(prop as fn(Vec<u8>, Vec<i16>, Vec<bool>, Vec<i16>) -> bool);
}

/// With reads out of range that no class depends on, the one-pass filter still interprets no
/// lane: its key, index and poison programs are all in the macro's native listing, and a read
/// written twice (`to[x]`) is one gather.
#[cfg(feature = "stats")]
#[test]
fn forgiven_reads_interpret_no_lane() {
    use flatland::runtime::stats::measure;
    let flags: Vec<bool> = (0..100).map(|i| i % 3 == 0).collect();
    let (r, work) = measure(|| k::try_guarded(150, &flags));
    assert_eq!(
        r.unwrap(),
        k::plan::guarded::reference(150, &flags).unwrap()
    );
    assert_eq!(work.lanes_interpreted, 0, "{work:?}");
    let rows = Nested::from_offsets(vec![0, 3, 5], vec![1i64, 2, 70, 4, 5]).unwrap();
    let (w, to) = ([true, false, true], [0, 1, 2, 9, 1, 0]);
    let (r, work) = measure(|| k::try_per_row(&rows, &w, &to));
    assert_eq!(
        r.unwrap(),
        k::plan::per_row::reference(&rows, &w, &to).unwrap()
    );
    assert_eq!(work.lanes_interpreted, 0, "{work:?}");
}
