//! The `flatland` command: the benchmark harness (`flatland bench`) and runs on your own files
//! (`flatland run ...`). See `flatland --help`.

use clap::{Args, Parser, Subcommand};
use flatland_cli::harness::measure::CountingAlloc;
use flatland_cli::harness::runner::{Config, run_suite, sweep_counts};
use flatland_cli::harness::workload::{Extra, Scale, Workload};
use flatland_cli::harness::workloads::suite;
use flatland_cli::harness::{compute, plot, registry};
use flatland_cli::io::{self, InputError};
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

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
    /// The memory budget: an allocation that would take the memory in use above it is refused,
    /// before it is made, with an error saying what it was (for example 4G or 512M; default 80%
    /// of the smallest of the cgroup's limit, the available memory and `ulimit -v`).
    #[arg(long, global = true, value_name = "SIZE", value_parser = flatland_cli::bytes::parse_bytes)]
    max_memory: Option<usize>,
    /// The deepest recursion a flattened program may reach before it stops with an error
    /// (default 100000 levels).
    #[arg(long, global = true, value_name = "LEVELS")]
    max_recursion_depth: Option<usize>,
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
// Each flag is an independent command-line switch, as clap declares them.
#[allow(clippy::struct_excessive_bools)]
struct BenchArgs {
    /// Smaller inputs and fewer repetitions (under two minutes on two cores).
    #[arg(long)]
    quick: bool,
    /// Correctness check only: every workload at tiny sizes, one run per variant, answers compared.
    #[arg(long, conflicts_with = "quick")]
    check: bool,
    /// Time every variant exactly N times after its warm-up, the variants alternating round by
    /// round, and report the median (without it: 5 repetitions at --quick, 9 in the full suite,
    /// fewer for a case that takes long: some --quick cases run once). The table's last line
    /// gives the load average at the start and the end.
    #[arg(long, value_name = "N", conflicts_with = "check", value_parser = clap::value_parser!(u16).range(1..))]
    repeat: Option<u16>,
    /// Also audit the cost model: in the timed runs of flatland's variants, record every bulk
    /// operation whose schedule the model chose (sequential or split, on the timing thread)
    /// with its predicted and its measured time; the table is followed by the median
    /// |predicted - measured| / measured per operation and per workload, and results.json
    /// lists every record (`audit` of each variant). Recording reads the clock twice per
    /// operation.
    #[arg(long)]
    audit: bool,
    /// Run only these workloads (see `--list`); `kernels` names every kernel of the
    /// user-kernel suite (`flatland_cli::suite`).
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
    /// skew-symmetric; duplicates summed). Computed by flatland's smvm kernel
    /// (`flatland_cli::kernels::smvm_csr`, written with `#[vectorise]`: one segmented fold over
    /// the rows of the products value * x[column]); without `--vector`, the row sums.
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
    /// vertices; the lowest index stands for duplicates. Computed by flatland's quickhull kernel
    /// (`flatland_cli::kernels::convex_hull`, flattened by the vectoriser's executor).
    Quickhull {
        /// The points.
        #[arg(long, value_name = "p.txt")]
        points: PathBuf,
        /// Where to write the indices (default: standard output).
        #[arg(long, value_name = "hull.txt")]
        out: Option<PathBuf>,
    },
    /// Sort finite numbers (one a line) ascending; -0 and 0 are equal and keep their order.
    /// Computed by flatland's quicksort kernel (`flatland_cli::kernels::quicksort_f64`, flattened by
    /// the vectoriser's executor), which is far slower than a native sort: seconds for a million
    /// numbers.
    Quicksort {
        /// The numbers.
        #[arg(long, value_name = "xs.txt")]
        input: PathBuf,
        /// Where to write the sorted numbers (default: standard output).
        #[arg(long, value_name = "sorted.txt")]
        out: Option<PathBuf>,
    },
    /// Count and sum the primes p <= N. Computed by flatland's NESL sieve kernels
    /// (`flatland_cli::kernels::primes` up to sqrt N, then `primes_between` on windows of 2^22).
    ///
    /// The first window is timed before the rest run: a bound predicted to take more than an
    /// hour is refused with the estimate unless `--force` is given. On a terminal, work longer
    /// than a second shows a progress bar.
    Primes {
        /// The bound N (at most 2^53).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(..=compute::PRIMES_MAX))]
        n: u64,
        /// Run even when the predicted time is over an hour.
        #[arg(long)]
        force: bool,
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
    flatland::runtime::budget::set_limit(cli.max_memory);
    if let Some(depth) = cli.max_recursion_depth {
        flatland::vectoriser::limits::set_max_recursion_depth(depth);
    }
    // Flattened programs write a fresh output per bulk step: keeping the large blocks they free
    // saves faulting their pages in again (off by default in the library).
    flatland::runtime::spare::set_limit(flatland::runtime::spare::SUGGESTED_LIMIT);
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

/// Writes one value a line to `out` (or standard output), streamed: no copy of the whole text.
fn emit<T: std::fmt::Display>(
    out: Option<&Path>,
    xs: impl IntoIterator<Item = T>,
) -> Result<(), Failure> {
    use std::io::Write as _;
    let write = |w: &mut dyn std::io::Write| -> std::io::Result<()> {
        let mut w = std::io::BufWriter::new(w);
        for x in xs {
            writeln!(w, "{x}")?;
        }
        w.flush()
    };
    match out {
        Some(p) => std::fs::File::create(p)
            .and_then(|mut f| write(&mut f))
            .map_err(|e| Failure::Other(format!("{}: cannot write: {e}", p.display()))),
        None => write(&mut std::io::stdout().lock())
            .map_err(|e| Failure::Other(format!("cannot write output: {e}"))),
    }
}

fn run(cmd: RunCommand) -> Result<ExitCode, Failure> {
    match cmd {
        RunCommand::Smvm {
            matrix,
            vector,
            out,
        } => {
            #[cfg(feature = "mpi")]
            if flatland_cli::distributed::under_mpirun() {
                return distributed_smvm(&matrix, vector.as_deref(), out.as_deref());
            }
            let a = io::read_matrix_market(&matrix)?.to_csr();
            let y = match vector {
                Some(v) => {
                    let x = io::read_numbers(&v, Some(a.cols()))?;
                    compute::smvm(a, &x)
                }
                // All ones: the row sums, in memory proportional to the entries.
                None => compute::smvm_ones(&a),
            };
            emit(out.as_deref(), y)?;
        }
        RunCommand::Quickhull { points, out } => {
            let pts = io::read_points(&points)?;
            let hull = compute::try_quickhull(&pts).map_err(|e| computed(&points, e))?;
            emit(out.as_deref(), hull)?;
        }
        RunCommand::Quicksort { input, out } => {
            let xs = io::read_numbers(&input, None)?;
            let sorted = compute::try_quicksort(&xs).map_err(|e| computed(&input, e))?;
            emit(out.as_deref(), sorted)?;
        }
        RunCommand::Primes { n, force } => {
            let (count, sum) = primes(n, force)?;
            emit(None, [format!("count {count}"), format!("sum {sum}")])?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `run smvm` under mpirun: rank 0 writes the product (or the error every rank agreed on);
/// the other ranks print nothing and exit with the same code.
#[cfg(feature = "mpi")]
fn distributed_smvm(
    matrix: &Path,
    vector: Option<&Path>,
    out: Option<&Path>,
) -> Result<ExitCode, Failure> {
    let reported = flatland_cli::distributed::smvm(matrix, vector, |rank, outcome| {
        match outcome {
            Ok(Some(y)) => emit(out, y).map(|()| ExitCode::SUCCESS),
            Ok(None) => Ok(ExitCode::SUCCESS),
            // Printed before the barrier: no rank exits before rank 0 has said why.
            Err(msg) => {
                if rank == 0 {
                    eprintln!("flatland: error: {msg}");
                }
                Ok(ExitCode::from(2))
            }
        }
    });
    reported.map_err(Failure::Other)?
}

/// A computation's refusal of its input (a NaN point or key: exit code 2) or failure (a
/// kernel's error, such as a recursion past the limit: exit code 1), naming the file.
fn computed(file: &Path, e: compute::ComputeError) -> Failure {
    match e {
        compute::ComputeError::Kernel { .. } => Failure::Other(format!("{}: {e}", file.display())),
        _ => Failure::Input(format!("{}: {e}", file.display())),
    }
}

/// Work predicted to take longer than this is refused without `--force`.
const REFUSE_AFTER: Duration = Duration::from_secs(3600);

/// [`compute::primes`], window by window: the first window is timed to predict the rest; a
/// prediction over [`REFUSE_AFTER`] is refused unless forced, and on a terminal work longer
/// than a second shows a progress bar (fed by the runtime's progress hook).
fn primes(n: u64, force: bool) -> Result<(u64, u128), Failure> {
    let start = Instant::now();
    let mut sieve = compute::PrimeSieve::new(n);
    sieve.step();
    let (done, total) = sieve.windows();
    let per_window = start.elapsed() / u32::try_from(done.max(1)).unwrap_or(u32::MAX);
    let predicted = per_window.saturating_mul(u32::try_from(total).unwrap_or(u32::MAX));
    if predicted > REFUSE_AFTER && !force {
        return Err(Failure::Input(format!(
            "primes up to {n} would take about {} ({total} windows of 2^22 numbers, {:.1} ms each on this machine); pass --force to run it anyway",
            human(predicted),
            per_window.as_secs_f64() * 1e3
        )));
    }
    let bar = (predicted > Duration::from_secs(1) && std::io::stderr().is_terminal())
        .then(|| progress_bar(total, done));
    while sieve.step() {}
    if let Some(bar) = bar {
        flatland::runtime::progress::set_hook(None);
        bar.finish_and_clear();
    }
    Ok(sieve.result())
}

/// A progress bar on standard error, moved by the runtime's progress reports.
fn progress_bar(total: u64, done: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg} {wide_bar} {pos}/{len} eta {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_position(done);
    let hook_bar = bar.clone();
    flatland::runtime::progress::set_hook(Some(Box::new(move |p| {
        hook_bar.set_message(p.what);
        hook_bar.set_length(p.total);
        hook_bar.set_position(p.done);
    })));
    bar
}

/// A duration for people: `3.2 h`, `12 min`, `40 s`.
fn human(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 86_400.0 {
        format!("{:.1} days", s / 86_400.0)
    } else if s >= 3_600.0 {
        format!("{:.1} h", s / 3_600.0)
    } else if s >= 60.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{s:.1} s")
    }
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
    if let Some(bad) = args
        .only
        .iter()
        .find(|n| *n != suite::GROUP && !known.contains(&n.as_str()))
    {
        return Err(Failure::Input(format!(
            "--only: no workload named '{bad}' (known: {})",
            known.join(", ")
        )));
    }
    let chosen: Vec<&dyn Workload> = all
        .into_iter()
        .filter(|w| {
            args.only.is_empty()
                || args
                    .only
                    .iter()
                    .any(|n| n == w.name() || (n == suite::GROUP && suite::is_kernel(w.name())))
        })
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
    cfg.repeat = args.repeat.map(usize::from);
    cfg.audit = args.audit;
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
    if let Some(audit) = report.audit_table() {
        print!("{audit}");
    }
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
