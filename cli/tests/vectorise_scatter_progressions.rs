//! The per-lane form of a scatter at generated progressions (the fusion `scatter-progressions`,
//! which per-lane code takes: each progression written into the destination, no index array)
//! against the reference interpreter, results and errors alike: a progression past the end or
//! below zero, a zero step failing in one lane after a bad position in an earlier one, one
//! destination per lane under a map. (Ranges written in Rust have positive steps; negative and
//! zero steps of the fused write are the runtime's `scatter_progressions_into` properties.)
//! Also the filter of a range under lets (`(lo..hi).filter(..)`), which runs without building
//! the range.

#![allow(missing_docs)]

#[flatland::vectorise]
mod sieves {
    /// `m` flags, `false` at `shift + 2q, shift + 3q, ..` below `m + extra` for every `q`.
    pub fn strided(qs: &[i64], m: i64, extra: i64, shift: i64) -> Vec<bool> {
        let ix = qs.map(|q| (shift + 2 * q..m + extra).step_by(q)).concat();
        vec![true; m].scatter(ix, vec![false; ix.len()])
    }

    /// One sieve per window under a map, each filtered by a range under lets.
    pub fn windows(los: &[i64], width: i64, qs: &[i64]) -> Vec<Vec<i64>> {
        los.map(|lo| {
            let ix = qs
                .map(|q| ((q * q).max((lo + q - 1) / q * q) - lo..width).step_by(q))
                .concat();
            let flags = vec![true; width].scatter(ix, vec![false; ix.len()]);
            (lo..lo + width).filter(|i| i >= 2 && flags[i - lo])
        })
    }
}

use sieves::plan;

fn same<T: std::fmt::Debug>(what: &str, lane: flatland::Result<T>, reference: flatland::Result<T>) {
    assert_eq!(
        format!("{lane:?}"),
        format!("{reference:?}"),
        "{what}: per-lane against the reference"
    );
}

#[test]
fn strided_sieves_agree_with_the_reference() {
    let qs = [2, 3, 5, 7];
    for (m, extra, shift) in [
        (0, 0, 0),
        (1, 0, 0),
        (50, 0, 0),
        (50, 1, 0),
        (50, 0, -5),
        (50, 9, 1),
    ] {
        let what = format!("strided(m = {m}, extra = {extra}, shift = {shift})");
        same(
            &what,
            plan::strided::per_lane(&qs, m, extra, shift),
            plan::strided::reference(&qs, m, extra, shift),
        );
    }
    // A zero step fails in its lane (the range's length divides by it) before any position
    // of an earlier lane that lies outside is reported.
    same(
        "zero step after a bad lane",
        plan::strided::per_lane(&[3, 0], 10, 20, 0),
        plan::strided::reference(&[3, 0], 10, 20, 0),
    );
    assert!(plan::strided::per_lane(&[3, 0], 10, 20, 0).is_err());
    assert!(plan::strided::per_lane(&[3], 10, 4, 0).is_err());
}

#[test]
fn the_per_lane_program_has_the_fused_scatter() {
    let fused = flatland::vectoriser::fuse::per_lane(plan::program()).to_string();
    assert_eq!(fused.matches("scatter_progressions").count(), 2, "{fused}");
}

#[test]
fn windowed_sieves_agree_with_the_reference_and_trial_division() {
    let qs = [2, 3, 5, 7, 11, 13];
    let los = [1, 2, 100, 150, 168];
    let got = plan::windows::per_lane(&los, 50, &qs).expect("windows sieve");
    same(
        "windows",
        Ok(got.clone()),
        plan::windows::reference(&los, 50, &qs),
    );
    let prime = |k: i64| k >= 2 && (2..k).take_while(|d| d * d <= k).all(|d| k % d != 0);
    for (lo, ps) in los.iter().zip(&got) {
        let want: Vec<i64> = (*lo..lo + 50).filter(|&k| prime(k)).collect();
        assert_eq!(ps, &want, "window {lo}");
    }
}
