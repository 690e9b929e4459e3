//! The benchmark harness in check mode: every registered workload at tiny sizes, each flatland
//! answer equal to every baseline's; and a wrong answer is caught, never reported as a speedup.

use flatland_cli::harness::answer::Answer;
use flatland_cli::harness::registry;
use flatland_cli::harness::runner::{Config, run_suite};
use flatland_cli::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use std::fmt::Write as _;
use std::process::Command;

#[test]
fn every_registered_workload_agrees_with_its_baselines() {
    let all = registry::all();
    let names: Vec<&str> = all.iter().map(|w| w.name()).collect();
    for expected in [
        "sum",
        "scan",
        "seg_sum",
        "seg_scan",
        "partition",
        "fusion2",
        "smvm",
        "quickhull",
        "quicksort",
        "primes",
        "tree_lookup",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} is not registered: {names:?}"
        );
    }
    let report = run_suite(&all, &Config::new(Scale::Check), &Extra::default());
    assert!(report.failures().is_empty(), "{:#?}", report.failures());
    for w in &all {
        let cases: Vec<_> = report
            .cases
            .iter()
            .filter(|c| c.workload == w.name())
            .collect();
        assert!(!cases.is_empty(), "{} ran no case", w.name());
        for c in cases {
            assert!(
                c.variants.iter().any(|v| v.role == "flatland"),
                "{} has no flatland variant",
                w.name()
            );
            assert!(
                c.variants.iter().any(|v| v.role == "baseline"),
                "{} has no baseline",
                w.name()
            );
            assert!(c.variants.iter().all(|v| v.verified));
        }
    }
    // The #[vectorise] and dsl paths, and fusion on and off, ran and were checked at every size.
    for (workload, variant) in [
        ("scan", "vectorise"),
        ("smvm", "vectorise"),
        ("smvm", "dsl"),
        ("quicksort", "vectorise"),
        ("quicksort", "per_lane"),
        ("quicksort", "dsl"),
        ("quickhull", "vectorise"),
        ("quickhull", "per_lane"),
        ("quickhull", "dsl"),
        ("primes", "vectorise"),
        ("primes", "dsl"),
        ("partition", "dsl"),
        ("partition", "dsl-nofuse"),
        ("fusion2", "dsl"),
        ("fusion2", "dsl-nofuse"),
        ("fusion2", "seq"),
    ] {
        for c in report.cases.iter().filter(|c| c.workload == workload) {
            assert!(
                c.variants.iter().any(|v| v.name == variant && v.verified),
                "{workload} {} {}: no verified {variant} variant",
                c.input,
                c.size
            );
        }
    }
}

/// A workload whose "flatland" variant is fast and wrong on purpose.
struct Wrong;

impl Workload for Wrong {
    fn name(&self) -> &'static str {
        "wrong"
    }
    fn about(&self) -> &'static str {
        "test only: a flatland variant that returns a wrong answer"
    }
    fn cases(&self, _: Scale, _: &Extra) -> Vec<Case> {
        vec![Case::new("tiny", 3)]
    }
    fn prepare(&self, _: &Case, _: &Extra) -> Instance {
        Instance {
            elements: 3,
            bytes: 24,
            variants: vec![
                Variant::new("flatland", Role::Flatland, true, || {
                    Answer::Floats(vec![1.0, 2.0, 4.0])
                }),
                Variant::new("rayon", Role::Baseline, true, || {
                    Answer::Floats(vec![1.0, 2.0, 3.0])
                }),
                Variant::new("same", Role::Baseline, false, || {
                    Answer::Floats(vec![1.0, 2.0, 4.0])
                }),
            ],
        }
    }
}

#[test]
fn a_wrong_answer_is_reported_not_timed() {
    for scale in [Scale::Check, Scale::Quick] {
        let mut cfg = Config::new(scale);
        cfg.reps = 3;
        cfg.sweep = vec![1, 2];
        let report = run_suite(&[&Wrong], &cfg, &Extra::default());
        let f = report.failures();
        // The main run and both sweep points flag the wrong baseline; the agreeing one passes.
        assert_eq!(f.len(), 3, "{f:#?}");
        assert!(
            f[0].contains("flatland vs rayon: element 2: 4 vs 3"),
            "{}",
            f[0]
        );
        let table = report.table();
        assert!(table.contains("WRONG ANSWER"), "{table}");
        let v = &report.cases[0].variants;
        assert_eq!((v[1].verified, v[2].verified), (false, true));
    }
}

/// A workload that counts its runs: one case capped at `cap` timed repetitions, and a sweep
/// case of its own (size 7, uncapped).
struct Counted {
    cap: usize,
    runs: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Workload for Counted {
    fn name(&self) -> &'static str {
        "counted"
    }
    fn about(&self) -> &'static str {
        "test only: counts its runs"
    }
    fn cases(&self, _: Scale, _: &Extra) -> Vec<Case> {
        vec![Case::new("tiny", 3).with_reps(self.cap)]
    }
    fn sweep_case(&self, _: Scale, _: &Extra) -> Option<Case> {
        Some(Case::new("sweep", 7))
    }
    fn prepare(&self, _: &Case, _: &Extra) -> Instance {
        let runs = self.runs.clone();
        Instance {
            elements: 3,
            bytes: 0,
            variants: vec![Variant::new("flatland", Role::Flatland, true, move || {
                runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Answer::Ints(vec![1])
            })],
        }
    }
}

/// A case's repetition cap bounds its timed runs (0: the warm-up run is the one timed), and the
/// thread sweep runs the workload's own sweep case.
#[test]
fn a_slow_case_runs_fewer_repetitions_and_sweeps_its_own_case() {
    use std::sync::atomic::Ordering;
    for (cap, timed) in [(0, 1), (1, 1), (2, 2), (50, 5)] {
        let w = Counted {
            cap,
            runs: std::sync::Arc::default(),
        };
        let mut cfg = Config::new(Scale::Quick);
        cfg.sweep = vec![1];
        let report = run_suite(&[&w], &cfg, &Extra::default());
        let samples = report.cases[0].variants[0].samples_s.len();
        assert_eq!(samples, timed, "cap {cap}");
        // Warm-up plus timed runs (the warm-up is the timed run when the cap is 0).
        assert_eq!(
            w.runs.load(Ordering::Relaxed),
            samples + usize::from(cap > 0),
            "cap {cap}"
        );
        assert!(report.scaling.is_empty(), "one thread count: no sweep");
        cfg.sweep = vec![1, 2];
        let report = run_suite(&[&w], &cfg, &Extra::default());
        assert_eq!(report.scaling.len(), 2);
        assert!(
            report
                .scaling
                .iter()
                .all(|p| p.size == 7 && p.input == "sweep")
        );
    }
}

/// `--repeat N` times every variant exactly N times after its warm-up, whatever the case's cap
/// and the time budget, and the report says so; the thread sweep keeps its own count.
#[test]
fn repeat_times_every_case_exactly_n_times() {
    use std::sync::atomic::Ordering;
    for cap in [0, 1, 50] {
        let w = Counted {
            cap,
            runs: std::sync::Arc::default(),
        };
        let mut cfg = Config::new(Scale::Quick);
        cfg.repeat = Some(7);
        cfg.budget = std::time::Duration::ZERO;
        cfg.sweep = vec![1, 2];
        let report = run_suite(&[&w], &cfg, &Extra::default());
        assert_eq!(report.cases[0].variants[0].samples_s.len(), 7, "cap {cap}");
        assert_eq!(report.repeat, Some(7));
        assert!(
            report
                .table()
                .contains("median of 7 alternating timed runs")
        );
        // The main case's warm-up and 7 runs; the sweep's warm-up and 2 runs per thread count.
        assert_eq!(w.runs.load(Ordering::Relaxed), 8 + 2 * 3, "cap {cap}");
    }
}

/// The quicksort workload sorts f64 keys at 10^6 (`--quick`) and 10^6 and 10^7 (full suite), the
/// slow flattened runs capped, and at tiny sizes in the check.
#[test]
fn quicksort_sizes_follow_the_issue() {
    let q = flatland_cli::harness::workloads::Quicksort;
    let sizes = |scale| {
        q.cases(scale, &Extra::default())
            .into_iter()
            .map(|c| (c.size, c.reps))
            .collect::<Vec<_>>()
    };
    assert_eq!(sizes(Scale::Quick), [(100_000, None), (1_000_000, Some(1))]);
    assert_eq!(
        sizes(Scale::Full),
        [(100_000, None), (1_000_000, Some(3)), (10_000_000, Some(0))]
    );
    assert!(sizes(Scale::Check).iter().all(|&(n, _)| n <= 20_000));
}

/// The thread sweep of the full suite runs cases of a few seconds at most: quicksort at 10^6
/// (one timed run per thread count), quickhull on the disc, primes at 10^7.
#[test]
fn sweep_cases_stay_small() {
    use flatland_cli::harness::workloads::{Primes, Quickhull, Quicksort};
    let sweep = |w: &dyn Workload| {
        w.sweep_case(Scale::Full, &Extra::default())
            .map(|c| (c.input, c.size, c.reps))
    };
    assert_eq!(
        sweep(&Quicksort),
        Some(("random".to_owned(), 1_000_000, Some(1)))
    );
    assert_eq!(
        sweep(&Quickhull),
        Some(("disc".to_owned(), 1_000_000, None))
    );
    assert_eq!(sweep(&Primes), Some(("n".to_owned(), 10_000_000, None)));
}

/// Runs `flatland bench ARGS --out OUT`, which must succeed: its standard output and the
/// `results.json` it wrote.
fn bench_json(args: &[&str], out: &std::path::Path) -> (String, serde_json::Value) {
    let run = Command::new(env!("CARGO_BIN_EXE_flatland"))
        .arg("bench")
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let json =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    (String::from_utf8(run.stdout).unwrap(), json)
}

/// `--only kernels` runs every kernel of the user-kernel suite and nothing else.
#[test]
fn only_kernels_runs_the_suite() {
    let out = std::env::temp_dir().join(format!("flatland-bench-kernels-{}", std::process::id()));
    let (_, json) = bench_json(&["--check", "--only", "kernels"], &out);
    let ran: std::collections::BTreeSet<&str> = json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["workload"].as_str().unwrap())
        .collect();
    let expected: std::collections::BTreeSet<&str> =
        flatland_cli::harness::workloads::suite::KERNELS
            .iter()
            .map(Workload::name)
            .collect();
    assert_eq!(ran, expected);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bench_check_command_writes_json_and_exits_zero() {
    let out = std::env::temp_dir().join(format!("flatland-bench-check-{}", std::process::id()));
    let (stdout, json) = bench_json(&["--check", "--threads", "2"], &out);
    assert!(stdout.starts_with("workload"), "{stdout}");
    assert_eq!(json["scale"], "check");
    assert_eq!(json["threads"], 2);
    let cases: usize = registry::all()
        .iter()
        .map(|w| w.cases(Scale::Check, &Extra::default()).len())
        .sum();
    assert_eq!(json["cases"].as_array().unwrap().len(), cases);
    let first = &json["cases"][0]["variants"][0];
    assert_eq!(first["role"], "flatland");
    assert!(
        !first["baseline_ratios"].as_object().unwrap().is_empty(),
        "{first}"
    );
    std::fs::remove_dir_all(&out).unwrap();
    let bad = Command::new(env!("CARGO_BIN_EXE_flatland"))
        .args(["bench", "--only", "no-such-workload"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn bench_check_runs_a_users_matrix_and_rejects_a_bad_one() {
    let dir = std::env::temp_dir().join(format!("flatland-bench-matrix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Values whose row sums round differently in different orders: compared within error bounds.
    let mut text = String::from("%%MatrixMarket matrix coordinate real general\n40 30 300\n");
    for k in 0..300u32 {
        writeln!(
            text,
            "{} {} {}",
            k % 40 + 1,
            (k * 7) % 30 + 1,
            0.1 * f64::from(k) + 1e-3
        )
        .unwrap();
    }
    let good = dir.join("mine.mtx");
    std::fs::write(&good, text).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_flatland"))
        .args([
            "bench",
            "--check",
            "--only",
            "smvm",
            "--matrix",
            good.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(String::from_utf8(run.stdout).unwrap().contains("mine.mtx"));
    let bad = dir.join("bad.mtx");
    std::fs::write(
        &bad,
        "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 9 1\n",
    )
    .unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_flatland"))
        .args([
            "bench",
            "--check",
            "--matrix",
            bad.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    let err = String::from_utf8(run.stderr).unwrap();
    assert!(
        err.contains("bad.mtx:3: column index 9 is out of range 1..=2"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A workload whose flatland variant sums 2^18 floats with the runtime's `reduce` on a
/// two-core profile, so that its schedule is the cost model's choice.
struct Summed;

impl Workload for Summed {
    fn name(&self) -> &'static str {
        "summed"
    }
    fn about(&self) -> &'static str {
        "test only: one flat::reduce per flatland run"
    }
    fn cases(&self, _: Scale, _: &Extra) -> Vec<Case> {
        vec![Case::new("ramp", 1 << 18)]
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        use flatland::runtime::cost::{Machine, with_machine};
        let xs: std::sync::Arc<Vec<f64>> =
            std::sync::Arc::new((0..case.size).map(|i| i as f64).collect());
        let ys = xs.clone();
        Instance {
            elements: case.size as u64,
            bytes: 8 * case.size as u64,
            variants: vec![
                Variant::new("flatland", Role::Flatland, true, move || {
                    let two_cores = Machine::new(0.5, 1.0, 2_000.0, 2);
                    let sum = with_machine(two_cores, || {
                        flatland::runtime::flat::reduce(&xs, 0.0, |a, b| a + b)
                    });
                    Answer::Floats(vec![sum])
                }),
                Variant::new("seq", Role::Baseline, false, move || {
                    Answer::Floats(vec![ys.iter().sum()])
                }),
            ],
        }
    }
}

/// `--audit` records the model's choices in the timed runs of flatland's variants only, and
/// sums them up after the table and in results.json; without it nothing is recorded.
#[test]
fn audit_records_the_models_choices_in_timed_flatland_runs() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for audit in [true, false] {
        let mut cfg = Config::new(Scale::Quick);
        cfg.repeat = Some(3);
        cfg.audit = audit;
        let report = pool.install(|| run_suite(&[&Summed], &cfg, &Extra::default()));
        let (flat, seq) = (&report.cases[0].variants[0], &report.cases[0].variants[1]);
        assert!(seq.audit.is_empty());
        if !audit {
            assert!(flat.audit.is_empty());
            assert!(report.audit_table().is_none());
            assert!(!report.to_json().contains("\"audit\""));
            continue;
        }
        // One record per timed run (not the warm-up).
        assert_eq!(flat.audit.len(), 3);
        assert!(
            flat.audit
                .iter()
                .all(|r| r.op == "flat::reduce" && r.elements == 1 << 18)
        );
        let table = report.audit_table().unwrap();
        assert!(
            table.contains("flat::reduce") && table.contains("[summed]"),
            "{table}"
        );
        assert!(report.to_json().contains("\"predicted_ns\""));
    }
}
