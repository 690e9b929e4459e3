//! Hostile sizes on the command line: declared dimensions the entries do not need, a bound
//! that would run for days, memory budgets. Each case ends with one located error line and exit
//! code 2, or with the right answer in memory proportional to the entries; never a kill.
//!
//! The commands run under an address-space limit (`ulimit -v`, 4 GB), so that a guard that
//! failed would make the command abort here instead of taking the test machine's memory.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Address-space limit for the commands under test, in KiB.
const ULIMIT_KIB: u64 = 4_000_000;

fn file(name: &str, text: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("flatland-limits-{}-{name}", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p
}

/// `flatland ARGS` under the address-space limit.
fn flatland(args: &[&str]) -> Output {
    let cmd = format!("ulimit -v {ULIMIT_KIB} && exec \"$0\" \"$@\"");
    Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .arg(env!("CARGO_BIN_EXE_flatland"))
        .args(args)
        .output()
        .unwrap()
}

/// Exit code 2, one line on stderr containing every part of `want`.
fn refused(out: &Output, want: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    for w in want {
        assert!(err.contains(w), "{err:?} should contain {w:?}");
    }
}

#[test]
fn a_billion_declared_rows_are_refused_before_they_are_allocated() {
    let m = file(
        "rows.mtx",
        "%%MatrixMarket matrix coordinate real general\n1000000000 1000000000 3\n1 1 1\n2 2 2\n3 3 3\n",
    );
    let out = flatland(&["run", "smvm", "--matrix", m.to_str().unwrap()]);
    // The default budget follows the address-space limit (80% of 4 GB).
    refused(
        &out,
        &[":2: 1000000000 rows:", "exceeds the memory budget of 3."],
    );
    let out = flatland(&[
        "run",
        "smvm",
        "--matrix",
        m.to_str().unwrap(),
        "--max-memory",
        "64M",
    ]);
    refused(&out, &["exceeds the memory budget of 64 MiB"]);
    let _ = std::fs::remove_file(m);
}

#[test]
fn a_billion_declared_columns_cost_nothing_without_a_vector() {
    let m = file(
        "cols.mtx",
        "%%MatrixMarket matrix coordinate real general\n3 1000000000 3\n1 1 1.5\n2 999999999 2\n3 3 -3\n",
    );
    let out = flatland(&[
        "run",
        "smvm",
        "--matrix",
        m.to_str().unwrap(),
        "--max-memory",
        "64M",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1.5\n2\n-3\n");
    let _ = std::fs::remove_file(m);
}

#[test]
fn a_bad_memory_size_is_a_usage_error() {
    let out = flatland(&["run", "primes", "--n", "10", "--max-memory", "lots"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a size"));
}

#[test]
fn primes_that_would_run_for_days_are_refused_with_the_estimate() {
    let out = flatland(&["run", "primes", "--n", "1000000000000"]);
    refused(
        &out,
        &["primes up to 1000000000000 would take about", "--force"],
    );
    // A bound that takes well under an hour runs, with or without --force.
    let out = flatland(&["run", "primes", "--n", "1000", "--force"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "count 168\nsum 76127\n"
    );
}
