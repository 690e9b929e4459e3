//! Runs the scenario binary under `mpirun -n 1, 2, 3`: every distributed primitive must equal
//! its one-process counterpart bit for bit on every descriptor family. Needs Open MPI
//! (`apt-get install -y openmpi-bin libopenmpi-dev libclang-dev`); fails, saying so, when
//! `mpirun` is missing.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one `mpirun` may take before it is killed and the test fails.
const TIMEOUT: Duration = Duration::from_secs(120);

/// `mpirun` on the search path `path`, or what to install.
fn find_mpirun(path: Option<&std::ffi::OsStr>) -> Result<PathBuf, String> {
    path.and_then(|path| {
        std::env::split_paths(path)
            .map(|d| d.join("mpirun"))
            .find(|p| p.is_file())
    })
    .ok_or_else(|| {
        "mpirun is not on PATH: the flatland-mpi tests need Open MPI; install it with \
         `apt-get update && apt-get install -y openmpi-bin libopenmpi-dev libclang-dev`"
            .to_string()
    })
}

fn mpirun() -> PathBuf {
    find_mpirun(std::env::var_os("PATH").as_deref()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_missing_mpirun_fails_saying_what_to_install() {
    let e = find_mpirun(Some(std::ffi::OsStr::new("/nonexistent"))).unwrap_err();
    assert!(e.contains("apt-get install -y openmpi-bin"), "{e}");
    assert!(find_mpirun(None).is_err());
}

/// Runs `scenario` on `n` ranks, failing on a non-zero exit or after [`TIMEOUT`].
/// A fresh directory for one `mpirun`'s session files. The tests run side by side, and
/// Open MPI's launchers racing to create the same session directory under `/tmp` failed one
/// of them ("A call to mkdir was unable to create the desired directory ... File exists").
fn session_dir() -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("flatland-mpirun-{}-{k}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a session directory for mpirun");
    dir
}

fn run(scenario: &str, n: usize) {
    let session = session_dir();
    let mut child = Command::new(mpirun())
        .args([
            "--allow-run-as-root",
            "--oversubscribe",
            "-n",
            &n.to_string(),
        ])
        .arg(env!("CARGO_BIN_EXE_flatland-mpi-scenarios"))
        .arg(scenario)
        // Containers often forbid the cross-process memory copies Open MPI's shared-memory
        // transport tries first; plain copies work everywhere.
        .env(
            "OMPI_MCA_btl_vader_single_copy_mechanism",
            std::env::var_os("OMPI_MCA_btl_vader_single_copy_mechanism").unwrap_or("none".into()),
        )
        .env("OMPI_MCA_orte_tmpdir_base", &session)
        .env("TMPDIR", &session)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun starts");
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let read_out = std::thread::spawn(move || {
        let mut s = String::new();
        out.read_to_string(&mut s).ok();
        s
    });
    let read_err = std::thread::spawn(move || {
        let mut s = String::new();
        err.read_to_string(&mut s).ok();
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait on mpirun") {
            break Some(status);
        }
        if start.elapsed() > TIMEOUT {
            // SIGTERM first, so that mpirun takes its ranks down with it.
            Command::new("kill")
                .arg(child.id().to_string())
                .status()
                .ok();
            std::thread::sleep(Duration::from_secs(5));
            child.kill().ok();
            child.wait().ok();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (stdout, stderr) = (read_out.join().unwrap(), read_err.join().unwrap());
    std::fs::remove_dir_all(&session).ok();
    match status {
        None => panic!(
            "scenario {scenario} on {n} ranks: no result after {TIMEOUT:?} (a hang?)\n\
             stdout:\n{stdout}\nstderr:\n{stderr}"
        ),
        Some(s) => assert!(
            s.success() && stdout.contains(&format!("scenario {scenario}: ok on {n} ranks")),
            "scenario {scenario} on {n} ranks failed ({s})\nstdout:\n{stdout}\nstderr:\n{stderr}"
        ),
    }
}

fn on_1_2_3(scenario: &str) {
    for n in 1..=3 {
        run(scenario, n);
    }
}

#[test]
fn fold_equals_one_process() {
    on_1_2_3("fold");
}

#[test]
fn scans_equal_one_process() {
    on_1_2_3("scan");
}

#[test]
fn filter_equals_one_process() {
    on_1_2_3("filter");
}

#[test]
fn partition_equals_one_process() {
    on_1_2_3("partition");
}

#[test]
fn gather_equals_one_process() {
    on_1_2_3("gather");
}

#[test]
fn index_l_equals_one_process() {
    on_1_2_3("index_l");
}

#[test]
fn smvm_equals_one_process() {
    on_1_2_3("smvm");
}

#[test]
fn smvm_bytes_per_non_zero() {
    on_1_2_3("smvm_bytes");
}

#[test]
fn errors_agree_on_every_rank() {
    on_1_2_3("errors");
}

#[test]
fn filter_s_equals_one_process() {
    on_1_2_3("filter_s");
}

#[test]
fn partition_s_equals_one_process() {
    on_1_2_3("partition_s");
}

#[test]
fn matrix_market_read_on_every_rank() {
    on_1_2_3("mtx");
}

/// More ranks than the issue asks: cuts snap onto the same leaf boundary, leaving ranks with
/// empty middle pieces of a spanning segment.
#[test]
fn seven_ranks() {
    for scenario in ["fold", "scan", "index_l", "filter_s", "errors"] {
        run(scenario, 7);
    }
}
