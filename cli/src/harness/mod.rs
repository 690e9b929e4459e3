//! The benchmark harness behind `flatland bench`.
//!
//! A [`workload::Workload`] generates seeded inputs at several sizes and offers flatland variants
//! and baselines over each; [`runner::run_suite`] warms each variant up, times repetitions that
//! alternate between variants, verifies that every baseline computed exactly flatland's answer
//! (a fast wrong answer is reported as WRONG ANSWER, never as a speedup) and sweeps thread counts;
//! [`report::Report`] prints the table and `results.json`; [`plot`] draws the SVG plots.
//!
//! ```
//! use flatland_cli::harness::{registry, runner::{Config, run_suite}, workload::{Extra, Scale}};
//! let report = run_suite(&registry::all(), &Config::new(Scale::Check), &Extra::default());
//! assert!(report.failures().is_empty(), "{:?}", report.failures());
//! ```
pub mod answer;
pub mod baselines;
pub mod compute;
pub mod dsl;
pub mod flattened;
pub mod inputs;
pub mod measure;
pub mod plot;
pub mod registry;
pub mod report;
pub mod runner;
pub mod vectorised;
pub mod workload;
pub mod workloads;
