//! Results: the printed table and `results.json`.

use flatland::runtime::sched::audit::{Accuracy, Record};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One variant's measurements on one case.
#[derive(Clone, Debug, Serialize)]
pub struct VariantResult {
    /// Variant name (`flatland`, `seq`, `rayon`, ...).
    pub name: String,
    /// `flatland` or `baseline`.
    pub role: String,
    /// Median time of the timed repetitions, seconds.
    pub median_s: f64,
    /// Fastest repetition, seconds.
    pub min_s: f64,
    /// Slowest repetition, seconds.
    pub max_s: f64,
    /// Every repetition, seconds, in the order taken.
    pub samples_s: Vec<f64>,
    /// Elements processed per second at the median.
    pub elements_per_s: f64,
    /// Gigabytes (1e9) moved per second at the median, where the workload defines its bytes.
    pub gb_per_s: Option<f64>,
    /// Peak extra heap bytes of one run (allocation counter), where measured.
    pub peak_bytes: Option<usize>,
    /// For a baseline: its median over flatland's (above 1: flatland is faster).
    pub speedup_of_flatland: Option<f64>,
    /// For a flatland variant: each baseline's median over this variant's (above 1: faster).
    pub baseline_ratios: BTreeMap<String, f64>,
    /// Whether its answer equals flatland's.
    pub verified: bool,
    /// How its answer differs from flatland's, if it does.
    pub mismatch: Option<String>,
    /// `--audit`: the operations whose schedule the cost model chose in its timed runs, each
    /// with the model's prediction and the time it took (empty without `--audit`).
    #[serde(serialize_with = "audit_json", skip_serializing_if = "Vec::is_empty")]
    pub audit: Vec<Record>,
}

/// [`VariantResult::audit`] in `results.json`: one object per record.
fn audit_json<S: serde::Serializer>(records: &[Record], s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Json<'a> {
        op: &'a str,
        elements: usize,
        tasks: usize,
        predicted_ns: f64,
        measured_ns: f64,
    }
    s.collect_seq(records.iter().map(|r| Json {
        op: r.op,
        elements: r.elements,
        tasks: r.tasks,
        predicted_ns: r.predicted_ns,
        measured_ns: r.measured_ns,
    }))
}

/// All variants on one input.
#[derive(Clone, Debug, Serialize)]
pub struct CaseResult {
    /// Workload name.
    pub workload: String,
    /// Input family or file.
    pub input: String,
    /// Size parameter.
    pub size: usize,
    /// Size as printed (`10^7`).
    pub size_label: String,
    /// Elements processed by one run.
    pub elements: u64,
    /// Bytes moved by one run (0: not defined).
    pub bytes: u64,
    /// Flatland variants first, then baselines.
    pub variants: Vec<VariantResult>,
}

/// One point of the thread sweep.
#[derive(Clone, Debug, Serialize)]
pub struct ScalingPoint {
    /// Workload name.
    pub workload: String,
    /// Input family.
    pub input: String,
    /// Size parameter.
    pub size: usize,
    /// Variant name.
    pub variant: String,
    /// Threads in the pool.
    pub threads: usize,
    /// Median time, seconds.
    pub median_s: f64,
    /// How its answer differs from flatland's at this thread count, if it does.
    pub mismatch: Option<String>,
}

/// Everything one `flatland bench` measured.
///
/// ```
/// use flatland_cli::harness::report::Report;
/// let r = Report { scale: "quick".into(), threads: 2, cases: vec![], scaling: vec![], load_average: None, load_average_end: None, repeat: None };
/// assert!(r.failures().is_empty());
/// assert!(r.to_json().contains("\"threads\": 2"));
/// ```
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// `check`, `quick` or `full`.
    pub scale: String,
    /// Threads of the pool the main table ran in.
    pub threads: usize,
    /// Main results.
    pub cases: Vec<CaseResult>,
    /// Thread sweep.
    pub scaling: Vec<ScalingPoint>,
    /// The machine's load average when the run started (`/proc/loadavg`, Linux only): timings
    /// taken beside other busy processes are slower and noisier.
    pub load_average: Option<String>,
    /// The load average when the run ended.
    pub load_average_end: Option<String>,
    /// `--repeat N`: every variant of the main table was timed exactly `N` times, alternating.
    pub repeat: Option<usize>,
}

fn fmt_time(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.1} us", s * 1e6)
    }
}

fn fmt_rate(r: f64) -> String {
    if r >= 1e9 {
        format!("{:.2} G/s", r / 1e9)
    } else if r >= 1e6 {
        format!("{:.1} M/s", r / 1e6)
    } else {
        format!("{:.1} k/s", r / 1e3)
    }
}

impl Report {
    /// Every disagreement between a baseline and flatland, one line each.
    ///
    /// ```
    /// # use flatland_cli::harness::report::Report;
    /// let r = Report { scale: "check".into(), threads: 1, cases: vec![], scaling: vec![], load_average: None, load_average_end: None, repeat: None };
    /// assert_eq!(r.failures().len(), 0);
    /// ```
    pub fn failures(&self) -> Vec<String> {
        let main = self.cases.iter().flat_map(|c| {
            c.variants.iter().filter_map(move |v| {
                v.mismatch
                    .as_ref()
                    .map(|m| format!("{} {} {}: {m}", c.workload, c.input, c.size_label))
            })
        });
        let sweep = self.scaling.iter().filter_map(|p| {
            p.mismatch.as_ref().map(|m| {
                format!(
                    "{} {} {} ({} threads): {m}",
                    p.workload, p.input, p.size, p.threads
                )
            })
        });
        main.chain(sweep).collect()
    }

    /// `flatland bench --audit`'s summary of the cost model's accuracy over the records of
    /// every flatland variant ([`VariantResult::audit`]): one row per operation, then each
    /// workload's and all of them; `None` without records.
    ///
    /// ```
    /// # use flatland_cli::harness::report::Report;
    /// let r = Report { scale: "quick".into(), threads: 2, cases: vec![], scaling: vec![], load_average: None, load_average_end: None, repeat: None };
    /// assert!(r.audit_table().is_none());
    /// ```
    pub fn audit_table(&self) -> Option<String> {
        let all: Vec<Record> = self.records().map(|(_, r)| r.clone()).collect();
        if all.is_empty() {
            return None;
        }
        let mut out = format!(
            "cost model audit: {} operations whose schedule the model chose, in the timed runs of flatland's variants\n",
            all.len()
        );
        let _ = writeln!(
            out,
            "{:<32} {:>6} {:>6} {:>13} {:>20}",
            "operation / workload", "count", "split", "median error", "median pred/meas"
        );
        let row = |out: &mut String, name: &str, a: &Accuracy| {
            let _ = writeln!(
                out,
                "{:<32} {:>6} {:>6} {:>12.0}% {:>20.2}",
                name,
                a.count,
                a.split,
                a.median_error * 100.0,
                a.median_ratio
            );
        };
        for a in Accuracy::per_op(&all) {
            if a.op != "all" {
                row(&mut out, a.op, &a);
            }
        }
        let mut workloads: Vec<&str> = self.cases.iter().map(|c| c.workload.as_str()).collect();
        workloads.dedup();
        for w in workloads {
            let mine: Vec<Record> = self
                .records()
                .filter(|(c, _)| c.workload == w)
                .map(|(_, r)| r.clone())
                .collect();
            if let Some(a) = Accuracy::of("workload", &mine) {
                row(&mut out, &format!("[{w}]"), &a);
            }
        }
        if let Some(a) = Accuracy::of("all", &all) {
            row(&mut out, "all", &a);
        }
        Some(out)
    }

    /// Every audit record of the main table, with its case.
    fn records(&self) -> impl Iterator<Item = (&CaseResult, &Record)> {
        self.cases.iter().flat_map(|c| {
            c.variants
                .iter()
                .flat_map(move |v| v.audit.iter().map(move |r| (c, r)))
        })
    }

    /// The table as printed by `flatland bench`: one row per variant and case.
    ///
    /// ```
    /// # use flatland_cli::harness::report::Report;
    /// let r = Report { scale: "quick".into(), threads: 2, cases: vec![], scaling: vec![], load_average: None, load_average_end: None, repeat: None };
    /// assert!(r.table().starts_with("workload"));
    /// let r = Report { load_average: Some("1.50".into()), load_average_end: Some("1.70".into()), repeat: Some(7), ..r };
    /// assert!(r.table().contains("load average 1.50 at start, 1.70 at end; median of 7 alternating timed runs"));
    /// ```
    pub fn table(&self) -> String {
        let header = [
            "workload",
            "input",
            "size",
            "variant",
            "median",
            "min",
            "elements/s",
            "GB/s",
            "peak MiB",
            "flatland speedup",
        ];
        let mut rows: Vec<[String; 10]> = Vec::new();
        for c in &self.cases {
            for (k, v) in c.variants.iter().enumerate() {
                let first = k == 0;
                let speedup = match (&v.mismatch, v.speedup_of_flatland) {
                    (Some(_), _) => "WRONG ANSWER".to_owned(),
                    (None, Some(x)) => format!("{x:.2}x"),
                    (None, None) => "-".to_owned(),
                };
                rows.push([
                    if first {
                        c.workload.clone()
                    } else {
                        String::new()
                    },
                    if first {
                        c.input.clone()
                    } else {
                        String::new()
                    },
                    if first {
                        c.size_label.clone()
                    } else {
                        String::new()
                    },
                    v.name.clone(),
                    fmt_time(v.median_s),
                    fmt_time(v.min_s),
                    fmt_rate(v.elements_per_s),
                    v.gb_per_s
                        .map_or_else(|| "-".to_owned(), |g| format!("{g:.2}")),
                    v.peak_bytes.map_or_else(
                        || "-".to_owned(),
                        |b| format!("{:.1}", b as f64 / (1 << 20) as f64),
                    ),
                    speedup,
                ]);
            }
        }
        let mut width: Vec<usize> = header.iter().map(|h| h.len()).collect();
        for r in &rows {
            for (w, cell) in width.iter_mut().zip(r) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let mut out = String::new();
        let line = |out: &mut String, cells: &[&str]| {
            let mut l = String::new();
            for (i, (cell, w)) in cells.iter().zip(&width).enumerate() {
                if i < 4 {
                    let _ = write!(l, "{cell:<w$}  ");
                } else {
                    let _ = write!(l, "{cell:>w$}  ");
                }
            }
            out.push_str(l.trim_end());
            out.push('\n');
        };
        line(&mut out, &header);
        let rule: Vec<String> = width.iter().map(|&w| "-".repeat(w)).collect();
        line(
            &mut out,
            &rule.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        for r in &rows {
            line(&mut out, &r.iter().map(String::as_str).collect::<Vec<_>>());
        }
        let load = match (&self.load_average, &self.load_average_end) {
            (Some(start), Some(end)) => format!("; load average {start} at start, {end} at end"),
            (Some(start), None) => format!("; load average {start} at start"),
            _ => String::new(),
        };
        let timed = self.repeat.map_or_else(
            || "the timed repetitions".to_owned(),
            |n| format!("{n} alternating timed runs of each variant"),
        );
        let _ = writeln!(
            out,
            "{} threads{load}; median of {timed} after a warm-up; \"flatland speedup\" = baseline median / flatland median.",
            self.threads
        );
        out
    }

    /// The report as pretty-printed JSON (`results.json`).
    ///
    /// ```
    /// # use flatland_cli::harness::report::Report;
    /// let r = Report { scale: "full".into(), threads: 8, cases: vec![], scaling: vec![], load_average: None, load_average_end: None, repeat: None };
    /// assert!(r.to_json().contains("\"scale\": \"full\""));
    /// ```
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report always serialises")
    }
}
