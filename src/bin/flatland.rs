//! The `flatland` command: the benchmark harness (`flatland bench`) and runs on your own files
//! (`flatland run ...`). See `flatland --help`.

use clap::{Args, Parser, Subcommand};
use flatland::harness::measure::CountingAlloc;
use flatland::harness::runner::{Config, run_suite, sweep_counts};
use flatland::harness::workload::{Extra, Scale, Workload};
use flatland::harness::{compute, plot, registry};
use flatland::io::{self, InputError};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[derive(Parser)]
#[command(
    name = "flatland",
    version,
    about = "Flatland: nested data parallelism, measured against the alternatives."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the benchmark suite on generated inputs: a table, results.json and SVG plots.
    ///
    /// Each workload runs its flatland implementation beside its baselines in the same process:
    /// one warm-up run each, then repetitions that alternate between them; the table shows the
    /// median, elements/s, GB/s, peak heap memory (an allocation counter: extra live heap bytes
    /// during one run) and each baseline's time over flatland's. Every baseline's answer is
    /// compared with flatland's; a difference is reported as WRONG ANSWER and the exit code is 1.
    Bench(BenchArgs),
    /// Run one computation on your own files.
    #[command(subcommand)]
    Run(RunCommand),
}

#[derive(Args)]
struct BenchArgs {
    /// Smaller inputs and fewer repetitions (under two minutes on two cores).
    #[arg(long)]
    quick: bool,
    /// Correctness check only: every workload at tiny sizes, one run per variant, answers compared.
    #[arg(long, conflicts_with = "quick")]
    check: bool,
    /// Run only these workloads (see `--list`).
    #[arg(long, num_args = 1.., value_name = "NAME")]
    only: Vec<String>,
    /// Threads in the pool (default: all cores). The speedup sweep runs 1, 2, 4, ... up to it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    /// Directory for results.json and the SVG plots.
    #[arg(long, value_name = "DIR", default_value = "target/flatland-bench")]
    out: PathBuf,
    /// Also run smvm on this Matrix Market file.
    #[arg(long, value_name = "FILE.mtx")]
    matrix: Option<PathBuf>,
    /// List the registered workloads and exit.
    #[arg(long)]
    list: bool,
}

#[derive(Subcommand)]
enum RunCommand {
    /// y = A x for a Matrix Market matrix (coordinate real/integer/pattern, general, symmetric or
    /// skew-symmetric; duplicates summed). Computed now by the hand-written rayon row-parallel
    /// CSR loop (the flattened path comes with the vectoriser).
    Smvm {
        /// The matrix.
        #[arg(long, value_name = "A.mtx")]
        matrix: PathBuf,
        /// The vector x, one number a line (default: all ones).
        #[arg(long, value_name = "v.txt")]
        vector: Option<PathBuf>,
        /// Where to write y, one number a line (default: standard output).
        #[arg(long, value_name = "y.txt")]
        out: Option<PathBuf>,
    },
    /// Convex hull of `x y` points (one a line): the 0-based indices of its vertices,
    /// counter-clockwise from the smallest x (smallest y on ties); points on hull edges are not
    /// vertices; the lowest index stands for duplicates. Computed now by hand-written rayon-join
    /// quickhull.
    Quickhull {
        /// The points.
        #[arg(long, value_name = "p.txt")]
        points: PathBuf,
        /// Where to write the indices (default: standard output).
        #[arg(long, value_name = "hull.txt")]
        out: Option<PathBuf>,
    },
    /// Sort numbers (one a line) ascending. Computed now by rayon's parallel sort.
    Quicksort {
        /// The numbers.
        #[arg(long, value_name = "xs.txt")]
        input: PathBuf,
        /// Where to write the sorted numbers (default: standard output).
        #[arg(long, value_name = "sorted.txt")]
        out: Option<PathBuf>,
    },
    /// Count and sum the primes p <= N. Computed now by a sequential segmented sieve.
    Primes {
        /// The bound N.
        #[arg(long, value_name = "N")]
        n: u64,
    },
}

/// Why the command failed: bad input (exit code 2) or anything else (exit code 1).
enum Failure {
    Input(String),
    Other(String),
}

impl From<InputError> for Failure {
    fn from(e: InputError) -> Self {
        Failure::Input(e.to_string())
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bench(args) => bench(&args),
        Command::Run(cmd) => run(cmd),
    };
    match result {
        Ok(code) => code,
        Err(Failure::Input(msg)) => {
            eprintln!("flatland: error: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Other(msg)) => {
            eprintln!("flatland: error: {msg}");
            ExitCode::from(1)
        }
    }
}

fn emit(out: Option<&Path>, text: &str) -> Result<(), Failure> {
    use std::io::Write as _;
    if let Some(p) = out {
        return std::fs::write(p, text)
            .map_err(|e| Failure::Other(format!("{}: cannot write: {e}", p.display())));
    }
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| Failure::Other(format!("cannot write output: {e}")))
}

fn lines<T: std::fmt::Display>(xs: impl IntoIterator<Item = T>) -> String {
    let mut s = String::new();
    for x in xs {
        let _ = writeln!(s, "{x}");
    }
    s
}

fn run(cmd: RunCommand) -> Result<ExitCode, Failure> {
    match cmd {
        RunCommand::Smvm {
            matrix,
            vector,
            out,
        } => {
            let a = io::read_matrix_market(&matrix)?.to_csr();
            let x = match vector {
                Some(v) => io::read_numbers(&v, Some(a.cols()))?,
                None => vec![1.0; a.cols()],
            };
            emit(out.as_deref(), &lines(compute::smvm(&a, &x)))?;
        }
        RunCommand::Quickhull { points, out } => {
            let pts = io::read_points(&points)?;
            emit(out.as_deref(), &lines(compute::quickhull(&pts)))?;
        }
        RunCommand::Quicksort { input, out } => {
            let mut xs = io::read_numbers(&input, None)?;
            compute::quicksort(&mut xs);
            emit(out.as_deref(), &lines(xs))?;
        }
        RunCommand::Primes { n } => {
            let (count, sum) = compute::primes(n);
            emit(None, &format!("count {count}\nsum {sum}\n"))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn bench(args: &BenchArgs) -> Result<ExitCode, Failure> {
    let all = registry::all();
    if args.list {
        for w in &all {
            println!("{:<12} {}", w.name(), w.about());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let known: Vec<&str> = all.iter().map(|w| w.name()).collect();
    if let Some(bad) = args.only.iter().find(|n| !known.contains(&n.as_str())) {
        return Err(Failure::Input(format!(
            "--only: no workload named '{bad}' (known: {})",
            known.join(", ")
        )));
    }
    let chosen: Vec<&dyn Workload> = all
        .into_iter()
        .filter(|w| args.only.is_empty() || args.only.iter().any(|n| n == w.name()))
        .collect();
    let mut extra = Extra::default();
    if let Some(m) = &args.matrix {
        let csr = io::read_matrix_market(m)?.to_csr();
        let name = m.file_name().map_or_else(
            || m.display().to_string(),
            |f| f.to_string_lossy().into_owned(),
        );
        extra.matrix = Some((name, Arc::new(csr)));
    }
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Failure::Other(format!("cannot start {threads} threads: {e}")))?;
    let scale = if args.check {
        Scale::Check
    } else if args.quick {
        Scale::Quick
    } else {
        Scale::Full
    };
    let mut cfg = Config::new(scale);
    cfg.progress = true;
    cfg.sweep = match scale {
        Scale::Check => Vec::new(),
        Scale::Quick => {
            let mut v = vec![1, threads];
            v.dedup();
            v
        }
        Scale::Full => sweep_counts(threads),
    };
    if extra.matrix.is_some() && !chosen.iter().any(|w| w.name() == "smvm") {
        eprintln!(
            "flatland: note: --matrix is used by the smvm workload, which is not registered yet"
        );
    }
    if chosen.is_empty() {
        eprintln!(
            "flatland: no workload is registered yet (the flatland side of each is added as the runtime and vectoriser land)"
        );
    }
    let report = pool.install(|| run_suite(&chosen, &cfg, &extra));
    print!("{}", report.table());
    std::fs::create_dir_all(&args.out)
        .map_err(|e| Failure::Other(format!("{}: cannot create: {e}", args.out.display())))?;
    let json = args.out.join("results.json");
    std::fs::write(&json, report.to_json())
        .map_err(|e| Failure::Other(format!("{}: cannot write: {e}", json.display())))?;
    let plots = plot::write_plots(&report, &args.out).map_err(Failure::Other)?;
    println!(
        "wrote {} and {} plots to {}",
        json.display(),
        plots.len(),
        args.out.display()
    );
    let failures = report.failures();
    if failures.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        for f in &failures {
            eprintln!("flatland: WRONG ANSWER: {f}");
        }
        Ok(ExitCode::from(1))
    }
}
