//! The library crate stays lean: a program that adds `flatland` must not compile the command
//! line's dependencies (argument parsing, progress bars, plots, JSON, sparse-matrix baselines).
//! They belong to `flatland-cli`.

use std::process::Command;

/// Crates that only the command line and the benchmark harness need.
const CLI_ONLY: &[&str] = &["clap", "indicatif", "plotters", "serde_json", "sprs"];

#[test]
fn the_library_depends_on_no_command_line_crate() {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "-p",
            "flatland",
            "-e",
            "normal",
            "--all-features",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8(out.stdout).expect("cargo tree prints UTF-8");
    let names: Vec<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(
        names.contains(&"flatland-runtime"),
        "unexpected tree:\n{tree}"
    );
    let bad: Vec<&&str> = CLI_ONLY.iter().filter(|c| names.contains(c)).collect();
    assert!(
        bad.is_empty(),
        "the flatland library depends on {bad:?}, which only the command line needs:\n{tree}"
    );
}
