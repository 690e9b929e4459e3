//! `smvm`: sparse matrix-vector multiplication on generated matrices and a user's file.

use crate::harness::answer::Answer;
use crate::harness::baselines::smvm::{smvm_rayon, smvm_seq, smvm_sprs, to_sprs};
use crate::harness::dsl::{Dsl, csr_rows, f64s, floats};
use crate::harness::flattened::{row_segd, smvm as smvm_unfused, smvm_fused};
use crate::harness::inputs::{Rng, banded_matrix, power_law_matrix, skewed_matrix};
use crate::harness::vectorised;
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use crate::io::Csr;
use std::sync::Arc;

/// Sparse matrix-vector multiplication: flatland's runtime primitives, fused (the gather and
/// product computed inside `seg::fold_s_by` over the row descriptor) and unfused (gather,
/// zip_with, fold_s, two temporaries of nnz values), through `#[vectorise]`
/// ([`crate::harness::vectorised::smvm`], the strategy the run chooses, and its per-lane form
/// alone), and the
/// vectoriser's dsl program (`programs::smvm` through the flattened executor) against the
/// sequential CSR loop, the hand-written rayon row-parallel loop and `sprs`.
///
/// Inputs: `power-law` (rows = nnz / 10, power-law row lengths), `skewed` (one row holds 80% of
/// the entries, the rest spread over nnz / 100 rows), `skewed-many` (the same heavy row, the rest
/// over nnz / 10 rows of about two entries: the matrix of the per-lane form's skew gate and of the
/// `vectorise_smvm` bench), `banded` (9 diagonals), and the `--matrix` file. On `skewed` the
/// heavy row's sorted columns stream while the other rows' gathers miss the cache, so the rows
/// of a row-parallel split happen to cost about the same; on `skewed-many` they do not. Generated values are dyadic, so
/// answers must agree exactly; a file's answers must agree within the error bound of summing each
/// row in any order.
///
/// ```
/// use flatland_cli::harness::{workload::{Case, Extra, Workload}, workloads::Smvm};
/// for input in ["power-law", "skewed", "skewed-many", "banded"] {
///     let inst = Smvm.prepare(&Case::new(input, 20_000), &Extra::default());
///     let answers: Vec<_> = inst.variants.iter().map(|v| (v.run)()).collect();
///     assert!(answers.iter().all(|a| a == &answers[0]), "{input}");
/// }
/// ```
pub struct Smvm;

impl Workload for Smvm {
    fn name(&self) -> &'static str {
        "smvm"
    }
    fn about(&self) -> &'static str {
        "y = A x; flatland = hand-flattened, fused into runtime seg::fold_s_by; unfused = gather + zip_with + seg::fold_s; vectorise = #[vectorise] smvm_csr (the strategy the run chooses), per_lane = its per-lane form (plan::smvm_csr::per_lane); dsl = vectoriser programs::smvm flattened (fused, one pass); vs sequential CSR, rayon rows, sprs"
    }
    fn cases(&self, scale: Scale, extra: &Extra) -> Vec<Case> {
        let mut out: Vec<Case> = match scale {
            Scale::Check => vec![
                Case::new("power-law", 0),
                Case::new("power-law", 5_000),
                Case::new("skewed", 5_000),
                Case::new("skewed-many", 5_000),
                Case::new("banded", 5_000),
            ],
            Scale::Quick => vec![
                Case::new("power-law", 1_000_000),
                Case::new("power-law", 10_000_000),
                Case::new("skewed", 10_000_000),
                Case::new("skewed-many", 10_000_000),
                Case::new("banded", 10_000_000),
            ],
            Scale::Full => [100_000, 1_000_000, 10_000_000]
                .into_iter()
                .flat_map(|n| {
                    ["power-law", "skewed", "skewed-many", "banded"].map(|i| Case::new(i, n))
                })
                .collect(),
        };
        if let Some((name, a)) = &extra.matrix {
            out.push(Case::new(name, a.nnz()));
        }
        out
    }
    fn prepare(&self, case: &Case, extra: &Extra) -> Instance {
        let n = case.size;
        let seed = 31 + n as u64;
        let generated = |a: Csr| (Arc::new(a), true);
        let (a, exact) = match case.input.as_str() {
            "power-law" => generated(power_law_matrix((n / 10).max(1), (n / 10).max(1), n, seed)),
            "skewed" => generated(skewed_matrix((n / 100).max(2), n.max(1), n, seed)),
            "skewed-many" => generated(skewed_matrix((n / 10).max(2), n.max(1), n, seed)),
            "banded" => generated(banded_matrix(n / 9, 4, seed)),
            _ => (
                extra
                    .matrix
                    .as_ref()
                    .expect("a file case comes from --matrix")
                    .1
                    .clone(),
                false,
            ),
        };
        let mut r = Rng::new(seed + 1);
        let x: Arc<Vec<f64>> = Arc::new((0..a.cols()).map(|_| r.dyadic()).collect());
        // For a file's arbitrary values: the largest difference two summation orders of a row can
        // make, 2 * len * eps * sum |a_ij x_j|.
        let bound: Option<Arc<[f64]>> = (!exact).then(|| {
            (0..a.rows())
                .map(|i| {
                    let (c, v) = a.row(i);
                    let s: f64 = c.iter().zip(v).map(|(&c, &v)| (v * x[c]).abs()).sum();
                    2.0 * (c.len() as f64 + 1.0) * f64::EPSILON * s
                })
                .collect()
        });
        let wrap = move |y: Vec<f64>| match &bound {
            Some(b) => Answer::Close(y, b.clone()),
            None => Answer::Floats(y),
        };
        let rows = Arc::new(row_segd(&a));
        let nested = Arc::new(vectorised::nested_rows(&a));
        let (x5, w7) = (x.clone(), wrap.clone());
        let sp = Arc::new(to_sprs(&a));
        let (nnz, m) = (a.nnz() as u64, a.rows() as u64);
        // The dsl's executor fuses the gather and product into the segmented sum (one pass).
        let dsl = Some((Dsl::smvm(), csr_rows(&a), floats(&x)));
        let (a1, a2, a3, x1, x2, x3, x4) =
            (a.clone(), a.clone(), a, x.clone(), x.clone(), x.clone(), x);
        let (w1, w2, w3, w4, w5, w6) = (
            wrap.clone(),
            wrap.clone(),
            wrap.clone(),
            wrap.clone(),
            wrap.clone(),
            wrap,
        );
        let (a0, x0, rows0) = (a1.clone(), x1.clone(), rows.clone());
        let mut variants = vec![
            Variant::new("flatland", Role::Flatland, true, move || {
                w6(smvm_fused(&a0, &rows0, &x0))
            }),
            Variant::new("unfused", Role::Flatland, true, move || {
                w1(smvm_unfused(&a1, &rows, &x1))
            }),
        ];
        let (nested8, x8, w8) = (nested.clone(), x5.clone(), w7.clone());
        variants.push(Variant::new("vectorise", Role::Flatland, true, move || {
            w7(vectorised::smvm(&nested.0, &nested.1, &x5))
        }));
        // The per-lane form alone, beside the run's choice.
        variants.push(Variant::new("per_lane", Role::Flatland, true, move || {
            w8(
                crate::kernels::plan::smvm_csr::per_lane(&nested8.0, &nested8.1, &x8)
                    .unwrap_or_else(|e| panic!("smvm per_lane: {e}")),
            )
        }));
        if let Some((d, rows_v, x_v)) = dsl {
            variants.push(Variant::new("dsl", Role::Flatland, true, move || {
                w5(f64s(&d.run(vec![rows_v.clone(), x_v.clone()])))
            }));
        }
        variants.extend([
            Variant::new("seq", Role::Baseline, false, move || w2(smvm_seq(&a2, &x2))),
            Variant::new("rayon", Role::Baseline, true, move || {
                w3(smvm_rayon(&a3, &x3))
            }),
            Variant::new("sprs", Role::Baseline, false, move || {
                w4(smvm_sprs(&sp, &x4))
            }),
        ]);
        Instance {
            elements: nnz,
            bytes: 24 * nnz + 16 * m,
            variants,
        }
    }
}
