//! `lane::scatter_progressions` (the per-lane fused scatter of generated progressions) against
//! the unfused scatter, on destinations of several cache windows (`fused::window_len`), under
//! every choice of parallel lanes: the windows written one after another or in parallel give
//! the same array, and a position outside the destination the same error, naming the lane.

use flatland_runtime::fused::window_len;
use flatland_vectoriser::lane::{Cow, Lanes, Progression, scatter_progressions};
use quickcheck::{QuickCheck, TestResult};

/// Every position of every progression written in order, or the first one outside `0..m`.
fn unfused(m: usize, progs: &[Progression], value: u8) -> Result<Vec<u8>, i64> {
    let mut out = vec![0u8; m];
    for p in progs {
        for j in 0..p.len {
            let at = p.at(j);
            if !(0..m as i64).contains(&at) {
                return Err(at);
            }
            out[at as usize] = value;
        }
    }
    Ok(out)
}

fn check(m: usize, progs: &[Progression]) {
    let want = unfused(m, progs, 7);
    for l in [Lanes::Sequential, Lanes::Parallel, Lanes::Model] {
        let got = scatter_progressions(l, Cow::Owned(vec![0u8; m]), progs, 7, 5);
        match &want {
            Ok(w) => assert_eq!(got.as_ref().ok(), Some(w), "{l:?}"),
            Err(at) => {
                let e = got.expect_err("a position outside").to_string();
                assert!(
                    e.contains("lane 5") && e.contains(&at.to_string()),
                    "{l:?}: {e}"
                );
            }
        }
    }
}

#[test]
fn a_sieve_across_windows_equals_the_unfused_scatter() {
    // The sieve below m: the multiples of every k from 2k, over four windows and a part.
    let m = 4 * window_len::<u8>() + 1234;
    let progs: Vec<Progression> = (2..1000)
        .map(|k: i64| Progression {
            start: 2 * k,
            step: k,
            len: (m as i64 - 2 * k).div_euclid(k) as usize + 1,
        })
        .collect();
    check(m, &progs);
    // Step 0, a negative step across every window, an empty progression, and one out.
    let mut more = progs.clone();
    more.push(Progression {
        start: 5,
        step: 0,
        len: 9,
    });
    more.push(Progression {
        start: m as i64 - 1,
        step: -1000,
        len: m / 1000,
    });
    more.push(Progression {
        start: 0,
        step: 1,
        len: 0,
    });
    check(m, &more);
    more.push(Progression {
        start: 3,
        step: 100_000,
        len: 100,
    });
    check(m, &more);
}

#[test]
fn random_progressions_across_windows_equal_the_unfused_scatter() {
    fn prop(extra: u32, raw: Vec<(u32, i32, u16)>) -> TestResult {
        let w = window_len::<u8>();
        let m = w + extra as usize % (2 * w);
        let progs: Vec<Progression> = raw
            .iter()
            .map(|&(start, step, len)| Progression {
                start: i64::from(start) % (m as i64 + 100),
                step: i64::from(step) % (3 * w as i64),
                len: usize::from(len) % 5000,
            })
            .collect();
        check(m, &progs);
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(50)
        .quickcheck(prop as fn(u32, Vec<(u32, i32, u16)>) -> TestResult);
}
