//! `row_sort`, `sort` and `row_softmax`: the sorting primitives (per-row sort of
//! many short rows, flat sort) and a per-row softmax through `#[vectorise]`, beside sequential
//! and hand-written rayon baselines.
//!
//! Every variant starts from the same shared input and builds its own output (a copy sorted in
//! place, or new rows), so the copies cost every variant alike.

use super::sizes;
use crate::harness::answer::Answer;
use crate::harness::inputs::{Rng, offsets};
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use flatland::runtime::elt::Nested;
use flatland::runtime::{flat, seg};
use flatland_segd::Segd;
use rayon::prelude::*;
use std::sync::Arc;

const CHECK: &[usize] = &[0, 1, 100, 3 * 4096 + 7, 60_000];

/// Rows of 0 to 20 values (10 on average): `n` elements in about `n / 10` rows, values
/// random in `[-1, 1)` with a few NaN and signed zeros.
struct Rows {
    values: Vec<f64>,
    offsets: Vec<usize>,
    segd: Segd,
}

fn rows(n: usize, seed: u64) -> Arc<Rows> {
    let mut rng = Rng::new(seed);
    let mut lengths = Vec::new();
    let mut total = 0;
    while total < n {
        let l = (rng.below(21) as usize).min(n - total);
        lengths.push(l);
        total += l;
    }
    let values = values(n, &mut rng);
    let offsets = offsets(&lengths);
    let segd = Segd::from_lengths(lengths).expect("lengths add up");
    Arc::new(Rows {
        values,
        offsets,
        segd,
    })
}

fn values(n: usize, rng: &mut Rng) -> Vec<f64> {
    (0..n)
        .map(|_| match rng.below(1000) {
            0 => f64::NAN,
            1 => -0.0,
            2 => 0.0,
            _ => 2.0 * rng.unit() - 1.0,
        })
        .collect()
}

/// The values of `rows` in row order, moved out when they are one contiguous block (as the
/// kernels build them), copied otherwise.
fn values_of(rows: Nested<f64>) -> Vec<f64> {
    let contiguous = rows
        .as_flat()
        .is_some_and(|(segd, block)| segd.elements() == block.len());
    if !contiguous {
        return rows
            .concat()
            .expect("within the memory budget")
            .1
            .into_vec();
    }
    let (_, blocks) = rows.into_parts();
    let block = blocks[0].clone();
    drop(blocks);
    block.into_vec()
}

/// Each row of `v` (cut at `offsets`) sorted sequentially by `total_cmp`.
fn row_sort_seq(v: &[f64], offsets: &[usize]) -> Vec<f64> {
    let mut out = v.to_vec();
    for w in offsets.windows(2) {
        out[w[0]..w[1]].sort_unstable_by(f64::total_cmp);
    }
    out
}

/// Each row sorted, rows in parallel (rayon over rows).
fn row_sort_rayon(v: &[f64], offsets: &[usize]) -> Vec<f64> {
    let mut out = v.to_vec();
    let mut rows: Vec<&mut [f64]> = Vec::with_capacity(offsets.len());
    let mut rest = out.as_mut_slice();
    for w in offsets.windows(2) {
        let (r, tail) = rest.split_at_mut(w[1] - w[0]);
        rows.push(r);
        rest = tail;
    }
    rows.into_par_iter()
        .for_each(|r| r.sort_unstable_by(f64::total_cmp));
    out
}

/// Per-row sort: `flatland_runtime::seg::sort_f64_s` (element-balanced tasks of whole rows,
/// integer keys) against a sequential `sort_unstable_by(total_cmp)` per row and rayon over rows.
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::RowSort};
/// let inst = RowSort.prepare(&Case::new("rows-0-20", 30_000), &Extra::default());
/// let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
/// assert!(answers.iter().all(|a| a.mismatch(&answers[0]).is_none()));
/// ```
pub struct RowSort;

impl Workload for RowSort {
    fn name(&self) -> &'static str {
        "row_sort"
    }
    fn about(&self) -> &'static str {
        "sort each row (0-20 f64, total_cmp); flatland = runtime seg::sort_f64_s vs sequential sort_unstable_by per row, rayon over rows"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        sizes(
            scale,
            CHECK,
            &[1_000_000, 10_000_000],
            &[1_000_000, 10_000_000],
        )
        .into_iter()
        .map(|n| Case::new("rows-0-20", n))
        .collect()
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let inp = rows(case.size, 31 + case.size as u64);
        let nested = Arc::new(
            Nested::from_offsets(inp.offsets.clone(), inp.values.clone())
                .expect("offsets cover the values"),
        );
        let (a, b, c) = (inp.clone(), inp.clone(), inp);
        Instance {
            elements: case.size as u64,
            bytes: 16 * case.size as u64,
            variants: vec![
                Variant::new("flatland", Role::Flatland, true, move || {
                    let mut v = a.values.clone();
                    seg::sort_f64_s(&a.segd, &mut v).expect("segd covers the values");
                    Answer::Floats(v)
                }),
                Variant::new("vectorise", Role::Flatland, true, move || {
                    Answer::Floats(values_of(vectorised::sort_rows(&nested)))
                }),
                Variant::new("seq", Role::Baseline, false, move || {
                    Answer::Floats(row_sort_seq(&b.values, &b.offsets))
                }),
                Variant::new("rayon", Role::Baseline, true, move || {
                    Answer::Floats(row_sort_rayon(&c.values, &c.offsets))
                }),
            ],
        }
    }
}

/// Flat sort: `flatland_runtime::flat::sort_f64` against `sort_unstable_by(total_cmp)` and
/// rayon's `par_sort_unstable_by(total_cmp)`.
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::FlatSort};
/// let inst = FlatSort.prepare(&Case::new("random", 30_000), &Extra::default());
/// let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
/// assert!(answers.iter().all(|a| a.mismatch(&answers[0]).is_none()));
/// ```
pub struct FlatSort;

impl Workload for FlatSort {
    fn name(&self) -> &'static str {
        "sort"
    }
    fn about(&self) -> &'static str {
        "sort f64 by total_cmp; flatland = runtime flat::sort_f64 vs sort_unstable_by, rayon par_sort_unstable_by"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        sizes(
            scale,
            CHECK,
            &[1_000_000, 10_000_000],
            &[1_000_000, 10_000_000],
        )
        .into_iter()
        .map(|n| Case::new("random", n))
        .collect()
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let v = Arc::new(values(case.size, &mut Rng::new(37 + case.size as u64)));
        let (a, b, c, d) = (v.clone(), v.clone(), v.clone(), v);
        Instance {
            elements: case.size as u64,
            bytes: 16 * case.size as u64,
            variants: vec![
                Variant::new("flatland", Role::Flatland, true, move || {
                    let mut x = a.to_vec();
                    flat::sort_f64(&mut x);
                    Answer::Floats(x)
                }),
                Variant::new("vectorise", Role::Flatland, true, move || {
                    Answer::Floats(vectorised::sort(&d))
                }),
                Variant::new("seq", Role::Baseline, false, move || {
                    let mut x = b.to_vec();
                    x.sort_unstable_by(f64::total_cmp);
                    Answer::Floats(x)
                }),
                Variant::new("rayon", Role::Baseline, true, move || {
                    let mut x = c.to_vec();
                    x.par_sort_unstable_by(f64::total_cmp);
                    Answer::Floats(x)
                }),
            ],
        }
    }
}

#[flatland::vectorise]
mod vectorised {
    use flatland::runtime::elt::Nested;

    /// Every row sorted (`total_cmp` order).
    pub fn sort_rows(rows: &Nested<f64>) -> Nested<f64> {
        rows.map(|r| r.sort())
    }

    /// The values sorted (`total_cmp` order).
    pub fn sort(xs: &[f64]) -> Vec<f64> {
        xs.sort()
    }

    /// The softmax of every row.
    pub fn softmax(rows: &Nested<f64>) -> Vec<Vec<f64>> {
        rows.map(|r| {
            let m = r.max();
            let e = r.map(|x| (x - m).exp());
            let s = e.sum();
            e.map(|x| x / s)
        })
    }
}

/// The softmax of one row, written by hand (the same operations in the same order as the
/// `#[vectorise]` kernel: the maximum, `exp(x - max)`, their sum by the canonical association).
fn softmax_row(r: &[f64]) -> Vec<f64> {
    let m = r
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, flatland::runtime::expr::op::float::max);
    let e: Vec<f64> = r.iter().map(|&x| (x - m).exp()).collect();
    let s = flatland::runtime::assoc::leaf_fold(&e, 0.0, |a, b| a + b);
    e.iter().map(|&x| x / s).collect()
}

/// Per-row softmax through `#[vectorise]` (`rows.map(|r| .. r.max() .. exp .. sum ..)` over a
/// `&Nested<f64>`) against the same per row sequentially and with rayon over rows. Rows are
/// shorter than a leaf, so every variant sums a row in the same order.
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::RowSoftmax};
/// let inst = RowSoftmax.prepare(&Case::new("rows-0-20", 30_000), &Extra::default());
/// let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
/// assert!(answers.iter().all(|a| a.mismatch(&answers[0]).is_none()));
/// ```
pub struct RowSoftmax;

impl Workload for RowSoftmax {
    fn name(&self) -> &'static str {
        "row_softmax"
    }
    fn about(&self) -> &'static str {
        "softmax of each row (0-20 f64); flatland = #[vectorise] kernel vs the same per row sequentially, rayon over rows"
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        sizes(scale, CHECK, &[1_000_000], &[1_000_000, 10_000_000])
            .into_iter()
            .map(|n| Case::new("rows-0-20", n))
            .collect()
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        let inp = rows(case.size, 41 + case.size as u64);
        let nested = Arc::new(
            Nested::from_offsets(inp.offsets.clone(), inp.values.clone())
                .expect("offsets cover the values"),
        );
        let (b, c) = (inp.clone(), inp);
        let flatten = |rows: Vec<Vec<f64>>| Answer::Floats(rows.into_iter().flatten().collect());
        Instance {
            elements: case.size as u64,
            bytes: 24 * case.size as u64,
            variants: vec![
                Variant::new("flatland", Role::Flatland, true, move || {
                    flatten(vectorised::softmax(&nested))
                }),
                Variant::new("seq", Role::Baseline, false, move || {
                    flatten(
                        b.offsets
                            .windows(2)
                            .map(|w| softmax_row(&b.values[w[0]..w[1]]))
                            .collect(),
                    )
                }),
                Variant::new("rayon", Role::Baseline, true, move || {
                    flatten(
                        c.offsets
                            .par_windows(2)
                            .map(|w| softmax_row(&c.values[w[0]..w[1]]))
                            .collect(),
                    )
                }),
            ],
        }
    }
}
