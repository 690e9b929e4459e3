//! Running workloads: warm-up, alternating repetitions, verification, a thread-count sweep.

use super::answer::Answer;
use super::inputs::Rng;
use super::measure::{Timing, peak_during};
use super::report::{CaseResult, Report, ScalingPoint, VariantResult};
use super::workload::{Case, Extra, Instance, Role, Scale, Workload};
use flatland::runtime::sched::audit::audited;
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// How to run the suite.
///
/// ```
/// use flatland_cli::harness::{runner::Config, workload::Scale};
/// let c = Config::new(Scale::Quick);
/// assert_eq!(c.reps, 5);
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    /// Input sizes.
    pub scale: Scale,
    /// Timed repetitions per variant (after one warm-up run each).
    pub reps: usize,
    /// Stop repeating a case (after 3 repetitions) once it has taken this long.
    pub budget: Duration,
    /// Thread counts for the speedup sweep (empty: no sweep).
    pub sweep: Vec<usize>,
    /// Show progress bars.
    pub progress: bool,
    /// `flatland bench --repeat N`: time every variant exactly `N` times after its warm-up,
    /// the variants alternating round by round, whatever the case's cap (a slow case's single
    /// run at `--quick`) and the time budget; `None`: [`Config::reps`] within them.
    pub repeat: Option<usize>,
    /// `flatland bench --audit`: record, in the timed runs of flatland's variants, every bulk
    /// operation whose schedule the cost model chose on the timing thread, with the model's
    /// prediction and the time it took ([`flatland::runtime::sched::audit`]), into
    /// [`VariantResult::audit`].
    pub audit: bool,
}

impl Config {
    /// Defaults for a scale: 5 repetitions and a 3 s budget per case for `Quick`, 9 and 30 s for
    /// `Full`, one run for `Check`; no sweep, no progress bars, no fixed repetition count.
    ///
    /// ```
    /// use flatland_cli::harness::{runner::Config, workload::Scale};
    /// assert_eq!(Config::new(Scale::Check).reps, 1);
    /// assert_eq!(Config::new(Scale::Quick).repeat, None);
    /// ```
    pub fn new(scale: Scale) -> Self {
        let (reps, budget) = match scale {
            Scale::Check => (1, Duration::ZERO),
            Scale::Quick => (5, Duration::from_secs(3)),
            Scale::Full => (9, Duration::from_secs(30)),
        };
        Self {
            scale,
            reps,
            budget,
            sweep: Vec::new(),
            progress: false,
            repeat: None,
            audit: false,
        }
    }
}

/// The thread counts of a sweep up to `max`: 1, 2, 4, ... and `max` itself.
///
/// ```
/// use flatland_cli::harness::runner::sweep_counts;
/// assert_eq!(sweep_counts(6), vec![1, 2, 4, 6]);
/// assert_eq!(sweep_counts(1), vec![1]);
/// ```
pub fn sweep_counts(max: usize) -> Vec<usize> {
    let mut v: Vec<usize> = std::iter::successors(Some(1usize), |&t| Some(t * 2))
        .take_while(|&t| t < max)
        .collect();
    v.push(max.max(1));
    v
}

/// One run of a variant and its time; `cold` (the warm-up) also measures its peak heap, the
/// only run that does (the allocation counter would slow the timed repetitions down).
fn timed(
    run: &(dyn Fn() -> Answer + Send + Sync),
    cold: bool,
) -> (Duration, Answer, Option<usize>) {
    let clock = || {
        let t = Instant::now();
        let a = run();
        (a, t.elapsed())
    };
    if !cold {
        let (answer, elapsed) = clock();
        return (elapsed, answer, None);
    }
    // Without the runtime's spare blocks ([`crate::runtime::spare`]): the run reuses only what
    // it freed itself, as a program's first call does, so its peak counts every block it needs
    // (later runs find the blocks earlier ones kept: their peaks could only be lower).
    flatland::runtime::spare::clear();
    let ((answer, elapsed), peak) = peak_during(clock);
    (elapsed, answer, peak)
}

/// The order in which round `round` runs `n` variants: a shuffle seeded by the round, so that
/// no variant always follows the same ones. What ran just before moves a run's time: after a
/// variant that split its input 64 ways the data sits in the other core's cache, after a
/// sequential one the other worker is asleep. A rotation (each round starting with the next
/// variant, every other one backwards) still put each variant after its two neighbours in the
/// list only, and the grain sweep's first variant (after the 1- and the 64-task runs) timed
/// 5-10% slower than the same schedule placed in the middle.
///
/// ```
/// use flatland_cli::harness::runner::round_order;
/// let mut order = round_order(8, 3);
/// order.sort_unstable();
/// assert_eq!(order, (0..8).collect::<Vec<_>>());
/// assert_eq!(round_order(8, 3), round_order(8, 3));
/// assert_ne!(round_order(8, 3), round_order(8, 4));
/// ```
pub fn round_order(n: usize, round: usize) -> Vec<usize> {
    let mut rng = Rng::new(0x5EED ^ round as u64);
    let mut order: Vec<usize> = (0..n).collect();
    // Fisher-Yates.
    for k in (1..n).rev() {
        let j = rng.below(k as u64 + 1) as usize;
        order.swap(k, j);
    }
    order
}

/// Verifies every baseline's answer against the first flatland variant's (and every further
/// flatland variant's too): `Some(problem)` for each variant that disagrees.
fn verify(inst: &Instance, answers: &[Answer]) -> Vec<Option<String>> {
    let reference = inst
        .variants
        .iter()
        .position(|v| v.role == Role::Flatland)
        .unwrap_or(0);
    answers
        .iter()
        .enumerate()
        .map(|(i, a)| {
            if i == reference {
                None
            } else {
                answers[reference].mismatch(a).map(|m| {
                    format!(
                        "{} vs {}: {m}",
                        inst.variants[reference].name, inst.variants[i].name
                    )
                })
            }
        })
        .collect()
}

/// The timed rounds of a case: `--repeat`'s count, else `cfg.reps` (at most `cap` when the case
/// sets one; with 0 the warm-up run is the one timed).
fn rounds(cfg: &Config, cap: Option<usize>) -> usize {
    cfg.repeat
        .unwrap_or_else(|| cap.map_or(cfg.reps, |c| c.min(cfg.reps)))
}

/// Runs one prepared case: a warm-up run of each variant (verified), then [`rounds`] rounds,
/// each running the variants in its own shuffled order ([`round_order`]); without `--repeat`,
/// a case stops repeating after three rounds once it has taken `cfg.budget`.
fn run_case(
    inst: &Instance,
    cfg: &Config,
    cap: Option<usize>,
    bar: &ProgressBar,
    what: &str,
) -> Vec<VariantResult> {
    let n = inst.variants.len();
    let reps = rounds(cfg, cap);
    let time_warm_up = cfg.scale == Scale::Check || reps == 0;
    let mut samples = vec![Vec::new(); n];
    let mut peaks = vec![None::<usize>; n];
    let mut audits = vec![Vec::new(); n];
    // Warm-up: one run each, whose answers are verified.
    let mut answers = Vec::with_capacity(n);
    for (i, v) in inst.variants.iter().enumerate() {
        bar.set_message(format!("{what}: {} warm-up", v.name));
        let (t, a, p) = timed(&*v.run, true);
        if time_warm_up {
            samples[i].push(t);
        }
        peaks[i] = p;
        answers.push(a);
    }
    let problems = verify(inst, &answers);
    drop(answers);
    if cfg.scale != Scale::Check {
        let start = Instant::now();
        for round in 0..reps {
            if cfg.repeat.is_none() && round >= 3 && start.elapsed() > cfg.budget {
                break;
            }
            for i in round_order(n, round) {
                let v = &inst.variants[i];
                bar.set_message(format!("{what}: {} rep {}/{reps}", v.name, round + 1));
                let ((t, a, _), records) = if cfg.audit && v.role == Role::Flatland {
                    audited(|| timed(&*v.run, false))
                } else {
                    (timed(&*v.run, false), Vec::new())
                };
                audits[i].extend(records);
                // Outside the timed run; every variant's answer alike.
                a.recycle();
                samples[i].push(t);
            }
        }
    }
    let flat_median = inst
        .variants
        .iter()
        .position(|v| v.role == Role::Flatland)
        .map(|i| Timing::from_samples(samples[i].clone()).median);
    let medians: Vec<f64> = samples
        .iter()
        .map(|s| Timing::from_samples(s.clone()).median.as_secs_f64())
        .collect();
    inst.variants
        .iter()
        .zip(samples)
        .zip(peaks)
        .zip(problems)
        .zip(audits)
        .map(|((((v, s), peak), problem), audit)| {
            let t = Timing::from_samples(s);
            let secs = t.median.as_secs_f64().max(1e-9);
            VariantResult {
                name: v.name.to_owned(),
                role: v.role.to_string(),
                median_s: t.median.as_secs_f64(),
                min_s: t.min.as_secs_f64(),
                max_s: t.max.as_secs_f64(),
                samples_s: t.samples.iter().map(Duration::as_secs_f64).collect(),
                elements_per_s: inst.elements as f64 / secs,
                gb_per_s: (inst.bytes > 0).then(|| inst.bytes as f64 / secs / 1e9),
                peak_bytes: peak,
                speedup_of_flatland: match (v.role, flat_median) {
                    (Role::Baseline, Some(f)) => {
                        Some(t.median.as_secs_f64() / f.as_secs_f64().max(1e-9))
                    }
                    _ => None,
                },
                baseline_ratios: if v.role == Role::Flatland {
                    inst.variants
                        .iter()
                        .zip(&medians)
                        .filter(|(b, _)| b.role == Role::Baseline)
                        .map(|(b, &m)| (b.name.to_owned(), m / secs))
                        .collect()
                } else {
                    BTreeMap::new()
                },
                verified: problem.is_none(),
                mismatch: problem,
                audit,
            }
        })
        .collect()
}

fn bar(len: usize, show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::new(len as u64);
    b.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .expect("valid template"),
    );
    b.enable_steady_tick(Duration::from_millis(120));
    b
}

/// The machine's one-minute load average (`/proc/loadavg`, Linux only).
fn load_average_now() -> Option<String> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_owned))
}

/// Runs `workloads` at `cfg.scale` in the current rayon pool (install a pool to pick the thread
/// count), then, for each workload's [`Workload::sweep_case`] (by default its largest), the
/// thread sweep of `cfg.sweep`.
///
/// ```
/// use flatland_cli::harness::{registry, runner::{Config, run_suite}, workload::{Extra, Scale}};
/// let report = run_suite(&registry::all(), &Config::new(Scale::Check), &Extra::default());
/// assert!(report.failures().is_empty());
/// ```
pub fn run_suite(workloads: &[&dyn Workload], cfg: &Config, extra: &Extra) -> Report {
    let load_average = load_average_now();
    let plan: Vec<(&dyn Workload, Case)> = workloads
        .iter()
        .flat_map(|w| w.cases(cfg.scale, extra).into_iter().map(move |c| (*w, c)))
        .collect();
    let sweep_cases: Vec<(&dyn Workload, Case)> = if cfg.sweep.len() > 1 {
        workloads
            .iter()
            .filter_map(|w| w.sweep_case(cfg.scale, extra).map(|c| (*w, c)))
            .collect()
    } else {
        Vec::new()
    };
    let progress = bar(plan.len() + sweep_cases.len(), cfg.progress);
    let mut cases = Vec::new();
    for (w, case) in &plan {
        let what = format!("{} {} {}", w.name(), case.input, case.size_label());
        progress.set_message(format!("{what}: preparing input"));
        let inst = w.prepare(case, extra);
        let variants = run_case(&inst, cfg, case.reps, &progress, &what);
        cases.push(CaseResult {
            workload: w.name().to_owned(),
            input: case.input.clone(),
            size: case.size,
            size_label: case.size_label(),
            elements: inst.elements,
            bytes: inst.bytes,
            variants,
        });
        progress.inc(1);
    }
    let mut scaling = Vec::new();
    for (w, case) in &sweep_cases {
        let what = format!("{} {} {} sweep", w.name(), case.input, case.size_label());
        progress.set_message(format!("{what}: preparing input"));
        let mut inst = w.prepare(case, extra);
        inst.variants.retain(|v| v.parallel);
        for &threads in &cfg.sweep {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("thread pool");
            // Fewer repetitions per thread count: the sweep only shows the trend (`--repeat`
            // is for the main table).
            let sweep_cfg = Config {
                reps: cfg.reps.min(if cfg.scale == Scale::Full { 3 } else { 2 }),
                repeat: None,
                audit: false,
                ..cfg.clone()
            };
            let rows = pool.install(|| {
                run_case(
                    &inst,
                    &sweep_cfg,
                    case.reps,
                    &progress,
                    &format!("{what} {threads} threads"),
                )
            });
            for r in rows {
                scaling.push(ScalingPoint {
                    workload: w.name().to_owned(),
                    input: case.input.clone(),
                    size: case.size,
                    variant: r.name,
                    threads,
                    median_s: r.median_s,
                    mismatch: r.mismatch,
                });
            }
        }
        progress.inc(1);
    }
    progress.finish_and_clear();
    Report {
        scale: format!("{:?}", cfg.scale).to_lowercase(),
        threads: rayon::current_num_threads(),
        load_average,
        load_average_end: load_average_now(),
        repeat: cfg.repeat,
        cases,
        scaling,
    }
}
