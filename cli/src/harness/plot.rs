//! SVG plots of a report: time against size per workload, speedup against threads.
//!
//! plotters' SVG backend without its `ttf` feature: text is written as SVG `<text>` elements that
//! the viewer renders, so no font files or system libraries are needed.

use super::report::Report;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

type Series = BTreeMap<String, Vec<(f64, f64)>>;

/// Axis labels: `1e6`-style on log axes, plain short numbers otherwise.
fn label(v: f64, log: bool) -> String {
    if log {
        format!("{v:.0e}")
    } else {
        format!("{v:.1}")
    }
}

fn draw(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &Series,
    log: bool,
    ideal: bool,
) -> Result<(), String> {
    let pts = series.values().flatten();
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        return Ok(());
    }
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    let e = |err: &dyn std::fmt::Display| format!("{}: cannot draw: {err}", path.display());
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(title, ("sans-serif", 22))
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(72);
    let colour = |i: usize| Palette99::pick(i).to_rgba();
    macro_rules! finish {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(x_desc)
                .y_desc(y_desc)
                .x_label_formatter(&|v| label(*v, log))
                .y_label_formatter(&|v| label(*v, log))
                .draw()
                .map_err(|x| e(&x))?;
            for (i, (name, pts)) in series.iter().enumerate() {
                let c = colour(i);
                chart
                    .draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))
                    .map_err(|x| e(&x))?
                    .label(name.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                    });
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.filled())))
                    .map_err(|x| e(&x))?;
            }
            if ideal {
                chart
                    .draw_series(LineSeries::new([(x0, x0), (x1, x1)], BLACK.mix(0.4)))
                    .map_err(|x| e(&x))?
                    .label("ideal")
                    .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.4)));
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(|x| e(&x))?;
        }};
    }
    if log {
        let chart = builder
            .build_cartesian_2d(
                (x0 * 0.8..x1 * 1.25).log_scale(),
                (y0 * 0.7..y1 * 1.4).log_scale(),
            )
            .map_err(|x| e(&x))?;
        finish!(chart);
    } else {
        let top = y1.max(x1) * 1.1;
        let chart = builder
            .build_cartesian_2d(0.0..x1 * 1.05, 0.0..top)
            .map_err(|x| e(&x))?;
        finish!(chart);
    }
    root.present().map_err(|x| e(&x))
}

/// Writes `time_<workload>.svg` (median time against size, log-log, one line per input and
/// variant) and, where the report has a thread sweep, `speedup_<workload>.svg` (time on one
/// thread over time on p threads, one line per variant, with the ideal line) into `dir`.
/// Returns the files written.
///
/// # Errors
/// A message naming the file that could not be written.
///
/// ```
/// use flatland_cli::harness::{plot::write_plots, report::Report};
/// let r = Report { scale: "check".into(), threads: 1, cases: vec![], scaling: vec![], load_average: None, load_average_end: None, repeat: None };
/// assert!(write_plots(&r, &std::env::temp_dir()).unwrap().is_empty());
/// ```
pub fn write_plots(report: &Report, dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut by_workload: BTreeMap<&str, Series> = BTreeMap::new();
    // Size 0 has no place on a log axis.
    for c in report.cases.iter().filter(|c| c.size > 0) {
        let s = by_workload.entry(&c.workload).or_default();
        for v in &c.variants {
            s.entry(format!("{} {}", c.input, v.name))
                .or_default()
                .push((c.size as f64, v.median_s.max(1e-9)));
        }
    }
    let mut written = Vec::new();
    for (w, series) in &by_workload {
        let path = dir.join(format!("time_{w}.svg"));
        draw(
            &path,
            &format!("{w}: median time against size"),
            "size",
            "seconds",
            series,
            true,
            false,
        )?;
        written.push(path);
    }
    let mut sweeps: BTreeMap<&str, Series> = BTreeMap::new();
    for p in &report.scaling {
        let one = report.scaling.iter().find(|q| {
            q.workload == p.workload
                && q.input == p.input
                && q.variant == p.variant
                && q.threads == 1
        });
        if let Some(one) = one {
            sweeps
                .entry(&p.workload)
                .or_default()
                .entry(format!("{} {}", p.input, p.variant))
                .or_default()
                .push((p.threads as f64, one.median_s / p.median_s.max(1e-9)));
        }
    }
    for (w, series) in &sweeps {
        let path = dir.join(format!("speedup_{w}.svg"));
        draw(
            &path,
            &format!("{w}: speedup against threads"),
            "threads",
            "time(1 thread) / time",
            series,
            false,
            true,
        )?;
        written.push(path);
    }
    Ok(written)
}
