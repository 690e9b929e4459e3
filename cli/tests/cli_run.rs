//! `flatland run ...` on small files written here, against answers computed independently, and
//! every malformed-input case: one line naming file, line and problem; exit code 2; no panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Self {
        let d = std::env::temp_dir().join(format!("flatland-cli-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }
    fn file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn flatland(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flatland"))
        .args(args)
        .output()
        .unwrap()
}

fn ok_lines(out: &Output) -> Vec<String> {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Exit code 2, nothing on stdout, exactly one line on stderr that contains `want`.
fn assert_input_error(out: &Output, want: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(out.stdout.is_empty());
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(want), "{err:?} should contain {want:?}");
    assert!(!err.contains("panicked"));
}

/// One item a line.
fn lines_of<T: std::fmt::Display>(xs: impl IntoIterator<Item = T>) -> String {
    use std::fmt::Write as _;
    xs.into_iter().fold(String::new(), |mut acc, x| {
        let _ = writeln!(acc, "{x}");
        acc
    })
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A small deterministic generator for test data (independent of the crate's).
fn lcg(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *seed >> 33
}

#[test]
fn smvm_matches_dense_product() {
    let d = Dir::new("smvm");
    let (rows, cols) = (7usize, 5usize);
    let mut seed = 1;
    let mut dense = vec![vec![0.0f64; cols]; rows];
    let mut text = String::from("%%MatrixMarket matrix coordinate real general\n% generated\n");
    let mut entries = Vec::new();
    for _ in 0..20 {
        let (r, c) = (
            (lcg(&mut seed) % rows as u64) as usize,
            (lcg(&mut seed) % cols as u64) as usize,
        );
        let v = (lcg(&mut seed) % 64) as f64 / 4.0 - 8.0;
        dense[r][c] += v; // duplicates summed
        entries.push(format!("{} {} {v}", r + 1, c + 1));
    }
    text.push_str(&lines_of([format!("{rows} {cols} {}", entries.len())]));
    text.push_str(&lines_of(&entries));
    let a = d.file("a.mtx", &text);
    let x: Vec<f64> = (0..cols).map(|i| i as f64 - 1.5).collect();
    let v = d.file("v.txt", &lines_of(&x));
    let want: Vec<f64> = dense
        .iter()
        .map(|row| row.iter().zip(&x).map(|(a, b)| a * b).sum())
        .collect();
    let got: Vec<f64> = ok_lines(&flatland(&[
        "run",
        "smvm",
        "--matrix",
        s(&a),
        "--vector",
        s(&v),
    ]))
    .iter()
    .map(|l| l.parse().unwrap())
    .collect();
    assert_eq!(got, want);
    // Default vector of ones, output to a file.
    let y = d.0.join("y.txt");
    ok_lines(&flatland(&[
        "run",
        "smvm",
        "--matrix",
        s(&a),
        "--out",
        s(&y),
    ]));
    let got: Vec<f64> = std::fs::read_to_string(&y)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    let want: Vec<f64> = dense.iter().map(|row| row.iter().sum()).collect();
    assert_eq!(got, want);
}

#[test]
fn smvm_symmetric_pattern_and_round_trip_printing() {
    let d = Dir::new("smvm-sym");
    let a = d.file(
        "s.mtx",
        "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n3 1\n2 2\n",
    );
    // A = [[1,0,1],[0,1,0],[1,0,0]]
    let v = d.file("v.txt", "0.1\n0.2\n0.7\n");
    let got = ok_lines(&flatland(&[
        "run",
        "smvm",
        "--matrix",
        s(&a),
        "--vector",
        s(&v),
    ]));
    assert_eq!(
        got,
        vec![
            (0.1f64 + 0.7).to_string(),
            "0.2".to_owned(),
            "0.1".to_owned()
        ]
    );
    let i = d.file(
        "i.mtx",
        "%%MatrixMarket matrix coordinate integer general\n1 2 2\n1 1 3\n1 2 -4\n",
    );
    assert_eq!(
        ok_lines(&flatland(&["run", "smvm", "--matrix", s(&i)])),
        vec!["-1"]
    );
}

#[test]
fn smvm_malformed_inputs() {
    let d = Dir::new("smvm-bad");
    let h = "%%MatrixMarket matrix coordinate real general\n";
    let cases: [(&str, String, &str); 9] = [
        (
            "header.mtx",
            "%%MatrixMarket matrix array real general\n2 2\n".into(),
            ":1: unsupported format 'array'",
        ),
        (
            "noheader.mtx",
            "2 2 1\n1 1 1\n".into(),
            ":1: missing '%%MatrixMarket' header",
        ),
        (
            "size.mtx",
            format!("{h}2 2\n"),
            ":2: size line needs 3 numbers",
        ),
        (
            "few.mtx",
            format!("{h}2 2 3\n1 1 1\n2 2 1\n"),
            ":5: file ends after 2 of the 3 entries",
        ),
        (
            "many.mtx",
            format!("{h}2 2 1\n1 1 1\n2 2 1\n"),
            ":4: more entries than the 1 declared",
        ),
        (
            "range.mtx",
            format!("{h}2 2 1\n1 3 1\n"),
            ":3: column index 3 is out of range 1..=2",
        ),
        (
            "nan.mtx",
            format!("{h}2 2 1\n1 1 one\n"),
            ":3: value 'one' is not a number",
        ),
        ("trunc.mtx", h.into(), ":2: file ends before the size line"),
        (
            "fields.mtx",
            format!("{h}2 2 1\n1 1\n"),
            ":3: expected 3 fields",
        ),
    ];
    for (name, text, want) in &cases {
        let p = d.file(name, text);
        assert_input_error(
            &flatland(&["run", "smvm", "--matrix", s(&p)]),
            &format!("{}{want}", s(&p)),
        );
    }
    let a = d.file("a.mtx", &format!("{h}2 2 1\n1 1 1\n"));
    let v = d.file("v.txt", "1\n");
    assert_input_error(
        &flatland(&["run", "smvm", "--matrix", s(&a), "--vector", s(&v)]),
        &format!("{}:2: file ends after 1 numbers; expected 2", s(&v)),
    );
    let v = d.file("w.txt", "1\nx\n");
    assert_input_error(
        &flatland(&["run", "smvm", "--matrix", s(&a), "--vector", s(&v)]),
        &format!("{}:2: 'x' is not a number", s(&v)),
    );
    let missing = d.0.join("missing.mtx");
    assert_input_error(
        &flatland(&["run", "smvm", "--matrix", s(&missing)]),
        &format!("{}: cannot read", s(&missing)),
    );
}

/// Gift wrapping with the command's rules: an independent reference for quickhull.
fn gift_wrap(p: &[(i64, i64)]) -> Vec<usize> {
    if p.is_empty() {
        return vec![];
    }
    let cross = |o: (i64, i64), a: (i64, i64), b: (i64, i64)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let d2 = |a: (i64, i64), b: (i64, i64)| (a.0 - b.0).pow(2) + (a.1 - b.1).pow(2);
    let start = (0..p.len()).min_by_key(|&i| (p[i], i)).unwrap();
    let mut hull = vec![start];
    let mut cur = start;
    loop {
        // Next: a point q != cur (as a position) with every point left of or on cur -> q, farthest
        // such, lowest index among duplicates.
        let next = (0..p.len())
            .filter(|&q| p[q] != p[cur] && (0..p.len()).all(|r| cross(p[cur], p[q], p[r]) >= 0))
            .min_by_key(|&q| (std::cmp::Reverse(d2(p[cur], p[q])), q));
        match next {
            Some(q) if q != start => {
                hull.push(q);
                cur = q;
            }
            _ => return hull,
        }
    }
}

/// `flatland run quickhull` on `pts` written to the file `name` in `d`: the indices it prints.
fn run_hull(d: &Dir, name: &str, pts: &[(i64, i64)]) -> Vec<usize> {
    let f = d.file(name, &lines_of(pts.iter().map(|(x, y)| format!("{x} {y}"))));
    ok_lines(&flatland(&["run", "quickhull", "--points", s(&f)]))
        .iter()
        .map(|l| l.parse().unwrap())
        .collect()
}

#[test]
fn quickhull_matches_gift_wrapping() {
    let d = Dir::new("hull");
    let mut seed = 7;
    for n in [1usize, 2, 3, 10, 60, 200] {
        let pts: Vec<(i64, i64)> = (0..n)
            .map(|_| {
                (
                    (lcg(&mut seed) % 12) as i64 - 6,
                    (lcg(&mut seed) % 12) as i64 - 6,
                )
            })
            .collect();
        assert_eq!(
            run_hull(&d, &format!("p{n}.txt"), &pts),
            gift_wrap(&pts),
            "n = {n}: {pts:?}"
        );
    }
    // Collinear points and duplicates; output to a file.
    let f = d.file("line.txt", "2 2\n0 0\n1 1\n0 0\n3 3\n3 3\n");
    let out = d.0.join("hull.txt");
    ok_lines(&flatland(&[
        "run",
        "quickhull",
        "--points",
        s(&f),
        "--out",
        s(&out),
    ]));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "1\n4\n");
    let empty = d.file("empty.txt", "");
    assert!(ok_lines(&flatland(&["run", "quickhull", "--points", s(&empty)])).is_empty());
}

/// The flatland hull kernel's degenerate inputs: one point, all duplicates, one x (a vertical
/// line, where NESL's leftmost/rightmost split has a single end), collinear with duplicates,
/// signed zeros as duplicates, and a square with points on its edges.
#[test]
fn quickhull_degenerate_inputs_match_gift_wrapping() {
    let d = Dir::new("hull-degenerate");
    let cases: [&[(i64, i64)]; 7] = [
        &[(4, -2)],
        &[(1, 1), (1, 1), (1, 1)],
        &[(3, 5), (3, -1), (3, 2), (3, -1), (3, 5)],
        &[(2, 0), (4, 0), (0, 0), (4, 0), (2, 0)],
        &[(0, 3), (1, 2), (2, 1), (3, 0), (1, 2), (0, 3)],
        &[
            (0, 0),
            (2, 0),
            (2, 2),
            (0, 2),
            (1, 0),
            (2, 1),
            (1, 2),
            (0, 1),
            (1, 1),
        ],
        &[(5, 5), (0, 0), (5, 0), (0, 5), (0, 0), (5, 5)],
    ];
    for (k, pts) in cases.iter().enumerate() {
        assert_eq!(
            run_hull(&d, &format!("d{k}.txt"), pts),
            gift_wrap(pts),
            "{pts:?}"
        );
    }
    // -0 and 0 are one point: the lowest index stands for both.
    let f = d.file("zeros.txt", "1 1\n-0 0\n0 -0\n1 0\n0 1\n");
    assert_eq!(
        ok_lines(&flatland(&["run", "quickhull", "--points", s(&f)])),
        ["1", "3", "0", "4"]
    );
}

#[test]
fn quickhull_malformed_inputs() {
    let d = Dir::new("hull-bad");
    let f = d.file("a.txt", "0 0\n1\n");
    assert_input_error(
        &flatland(&["run", "quickhull", "--points", s(&f)]),
        &format!("{}:2: expected 2 numbers 'x y', found 1", s(&f)),
    );
    let f = d.file("b.txt", "0 0\n1 2\n1 z\n");
    assert_input_error(
        &flatland(&["run", "quickhull", "--points", s(&f)]),
        &format!("{}:3: y 'z' is not a number", s(&f)),
    );
}

#[test]
fn quicksort_sorts_and_rejects_bad_numbers() {
    let d = Dir::new("sort");
    let mut seed = 3;
    let xs: Vec<f64> = (0..500)
        .map(|_| (lcg(&mut seed) % 1000) as f64 / 7.0 - 50.0)
        .collect();
    let f = d.file("xs.txt", &lines_of(&xs));
    let got: Vec<f64> = ok_lines(&flatland(&["run", "quicksort", "--input", s(&f)]))
        .iter()
        .map(|l| l.parse().unwrap())
        .collect();
    let mut want = xs.clone();
    want.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(got, want);
    // Degenerate inputs: empty, one number, all equal; -0 and 0 are equal and keep their input
    // order (a stable sort), printed with their signs.
    for (name, text, want) in [
        ("empty.txt", "", ""),
        ("one.txt", "2.5\n", "2.5\n"),
        ("same.txt", "7\n7\n7\n", "7\n7\n7\n"),
        (
            "zeros.txt",
            "0\n-0\n0.5\n-0\n0\n-1\n",
            "-1\n0\n-0\n-0\n0\n0.5\n",
        ),
    ] {
        let f = d.file(name, text);
        let out = flatland(&["run", "quicksort", "--input", s(&f)]);
        ok_lines(&out);
        assert_eq!(String::from_utf8(out.stdout).unwrap(), want, "{name}");
    }
    let f = d.file("nan.txt", "1\nNaN\n");
    assert_input_error(
        &flatland(&["run", "quicksort", "--input", s(&f)]),
        &format!("{}:2: 'NaN' is not a finite number", s(&f)),
    );
    let f = d.file("bad.txt", "1\n2\n3.x\n");
    assert_input_error(
        &flatland(&["run", "quicksort", "--input", s(&f)]),
        &format!("{}:3: '3.x' is not a number", s(&f)),
    );
}

#[test]
fn primes_count_and_sum() {
    for n in [0u64, 1, 2, 3, 4, 10, 1000, 65_537] {
        let ps: Vec<u64> = (2..=n)
            .filter(|&k| (2..k).take_while(|d| d * d <= k).all(|d| k % d != 0))
            .collect();
        let want = vec![
            format!("count {}", ps.len()),
            format!("sum {}", ps.iter().sum::<u64>()),
        ];
        assert_eq!(
            ok_lines(&flatland(&["run", "primes", "--n", &n.to_string()])),
            want,
            "n = {n}"
        );
    }
    assert_eq!(
        flatland(&["run", "primes", "--n", "ten"]).status.code(),
        Some(2)
    );
    // Above 2^53 (the kernels compute in i64): a usage error, exit code 2.
    assert_eq!(
        flatland(&["run", "primes", "--n", "9007199254740993"])
            .status
            .code(),
        Some(2)
    );
}

/// More than one window of the flatland sieve (2^22 numbers each), against a plain sieve here.
#[test]
fn primes_across_windows() {
    let n = (1usize << 22) + 1000;
    let mut composite = vec![false; n + 1];
    let (mut count, mut sum) = (0u64, 0u128);
    for k in 2..=n {
        if !composite[k] {
            count += 1;
            sum += k as u128;
            for m in (k * k..=n).step_by(k) {
                composite[m] = true;
            }
        }
    }
    assert_eq!(
        ok_lines(&flatland(&["run", "primes", "--n", &n.to_string()])),
        [format!("count {count}"), format!("sum {sum}")]
    );
}
