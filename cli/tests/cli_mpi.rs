//! `mpirun -n N flatland run smvm` (the `mpi` feature) writes on rank 0 exactly the bytes that
//! `flatland run smvm` writes on one process, for N = 1, 2, 3, with and without a vector, on a
//! matrix whose longest row spans ranks; a bad file gives every rank the same error, printed
//! once, and exit code 2. Needs Open MPI (`./test.sh` installs it).
#![cfg(feature = "mpi")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long one command may take before it is killed and the test fails.
const TIMEOUT: Duration = Duration::from_secs(120);

/// A file in the temporary directory, removed when the test drops it (failing or not).
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

fn file(name: &str, text: &str) -> Scratch {
    let p = std::env::temp_dir().join(format!("flatland-mpi-{}-{name}", std::process::id()));
    std::fs::write(&p, text).unwrap();
    Scratch(p)
}

/// Runs `cmd` to completion, killing it after [`TIMEOUT`].
fn finish(mut cmd: Command) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command starts");
    let start = Instant::now();
    while child.try_wait().expect("waits").is_none() {
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            panic!("{cmd:?} ran for more than {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

fn one_process(args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_flatland"));
    c.args(args);
    finish(c)
}

/// Runs `flatland args` on `n` ranks. One `mpirun` at a time: the tests of this file run on
/// parallel threads, and once, in CI on the 2-vCPU VM, an `mpirun -n 1` started beside the
/// others exited with 1 instead of the program's 2 (alone it passed every time).
fn on_ranks(n: usize, args: &[&str]) -> Output {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut c = Command::new("mpirun");
    c.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "-n",
        &n.to_string(),
    ])
    .arg(env!("CARGO_BIN_EXE_flatland"))
    .args(args)
    .env(
        "OMPI_MCA_btl_vader_single_copy_mechanism",
        std::env::var_os("OMPI_MCA_btl_vader_single_copy_mechanism").unwrap_or("none".into()),
    );
    finish(c)
}

/// A 2,000 x 1,500 matrix with rows of 0 to 40 entries, one row of 10,000 (more than two
/// leaves of the canonical association) and a duplicated entry, and a vector.
fn inputs() -> (Scratch, Scratch) {
    use std::fmt::Write as _;
    let mut s = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        s >> 33
    };
    let (rows, cols) = (2_000u64, 1_500u64);
    let mut entries = String::new();
    let mut count = 0;
    for r in 1..=rows {
        let k = if r == 700 { 10_000 } else { next() % 41 };
        for _ in 0..k {
            let v = (next() % 2_000_001) as f64 / 1e6 - 1.0 + 1e-9;
            let _ = writeln!(entries, "{r} {} {v:?}", 1 + next() % cols);
            count += 1;
        }
    }
    entries.push_str("5 5 0.5\n5 5 0.25\n");
    count += 2;
    let m = file(
        "A.mtx",
        &format!("%%MatrixMarket matrix coordinate real general\n{rows} {cols} {count}\n{entries}"),
    );
    let mut v = String::new();
    for _ in 0..cols {
        let _ = writeln!(v, "{:?}", (next() % 1000) as f64 / 250.0 - 2.0);
    }
    (m, file("v.txt", &v))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn ranks_write_the_one_process_bytes() {
    let (m, v) = inputs();
    for args in [
        vec!["run", "smvm", "--matrix", s(&m)],
        vec!["run", "smvm", "--matrix", s(&m), "--vector", s(&v)],
    ] {
        let want = one_process(&args);
        assert!(
            want.status.success(),
            "{}",
            String::from_utf8_lossy(&want.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&want.stdout).lines().count(), 2_000);
        for n in 1..=3 {
            let got = on_ranks(n, &args);
            assert!(
                got.status.success(),
                "{n} ranks: {}",
                String::from_utf8_lossy(&got.stderr)
            );
            assert!(got.stdout == want.stdout, "{n} ranks: output differs");
        }
    }
}

#[test]
fn a_bad_file_is_one_error_on_every_rank() {
    let m = file(
        "bad.mtx",
        "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 9 1\n3 3 1\n",
    );
    for n in 1..=3 {
        let out = on_ranks(n, &["run", "smvm", "--matrix", s(&m)]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{n} ranks: {err}");
        assert!(out.stdout.is_empty());
        let ours: Vec<&str> = err.lines().filter(|l| l.starts_with("flatland:")).collect();
        assert_eq!(ours.len(), 1, "{n} ranks: {err}");
        assert!(ours[0].contains("bad.mtx:4:"), "{n} ranks: {err}");
    }
}

#[test]
fn declared_rows_beyond_the_budget_are_refused_on_every_rank() {
    let m = file(
        "huge.mtx",
        "%%MatrixMarket matrix coordinate real general\n1000000000 3 1\n1 1 1\n",
    );
    for n in 1..=3 {
        let out = on_ranks(
            n,
            &["run", "smvm", "--matrix", s(&m), "--max-memory", "64M"],
        );
        assert_eq!(out.status.code(), Some(2), "{n} ranks");
        let err = String::from_utf8_lossy(&out.stderr);
        let ours: Vec<&str> = err.lines().filter(|l| l.starts_with("flatland:")).collect();
        assert_eq!(ours.len(), 1, "{n} ranks: {err}");
        assert!(
            ours[0].contains("memory budget of 64 MiB"),
            "{n} ranks: {err}"
        );
    }
}
