//! Every reader and constructor fed truncated, huge, negative, NaN, non-UTF-8 and adversarial
//! input under 1 KiB: each returns its typed error (or a correct value), never panics, and its
//! peak heap stays under 16 MiB, measured by the counting allocator this binary installs.
//!
//! The memory budget of this process is 12 MiB ([`BUDGET`]): a size declared by the input goes
//! through the budget before it is allocated, so a declared size too large for the budget is a
//! typed error, and one that slipped past the budget would show as a peak above 16 MiB.

use flatland::runtime::elt::Nested;
use flatland::segd::{SSegd, Segd, VSegd};
use flatland_cli::harness::measure::{CountingAlloc, peak_during};
use flatland_cli::io::{Csr, parse_matrix_market, parse_numbers, parse_points, read_numbers};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// The most extra heap a call on a small input may take.
const PEAK: usize = 16 << 20;

/// The memory budget of this test process.
const BUDGET: usize = 12 << 20;

/// Runs `f` (on an input under 1 KiB) and checks that it returns and stays under [`PEAK`].
fn bounded<R>(what: &str, input_len: usize, f: impl FnOnce() -> R) -> R {
    assert!(input_len < 1024, "{what}: input of {input_len} bytes");
    flatland::runtime::budget::set_limit(Some(BUDGET));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| peak_during(f)));
    let Ok((r, peak)) = r else {
        panic!("{what}: panicked");
    };
    let peak = peak.expect("the counting allocator is installed");
    assert!(peak < PEAK, "{what}: peak heap {peak} bytes");
    r
}

const H: &str = "%%MatrixMarket matrix coordinate real general\n";

fn matrices() -> Vec<String> {
    let max = usize::MAX;
    let mut v: Vec<String> = [
        "",
        "%%MatrixMarket",
        "%%MatrixMarket matrix coordinate real general",
        "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
        "%%MatrixMarket tensor coordinate real general\n1 1 1\n1 1 1\n",
        "\u{feff}%%MatrixMarket matrix coordinate real general\n1 1 0\n",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    let bodies = [
        "1 1 1\n".to_string(),
        "1 1 1\n1 1\n".into(),
        "1 1 1\n1 1 1 1\n".into(),
        "2 2 1\n-1 1 1\n".into(),
        "2 2 1\n0 1 1\n".into(),
        "2 2 1\n3 1 1\n".into(),
        "2 2 1\n1 1 NaN\n".into(),
        "2 2 1\n1 1 nan\n".into(),
        "2 2 1\n1 1 inf\n".into(),
        "2 2 1\n1 1 1e999\n".into(),
        "2 2 1\n1 1 0x10\n".into(),
        format!("2 2 1\n{max}9 1 1\n"),
        format!("{max} {max} 0\n"),
        format!("{max} 1 1\n1 1 1\n"),
        format!("1 {max} 1\n1 1 1\n"),
        "1000000000 1000000000 3\n1 1 1\n2 2 2\n3 3 3\n".into(),
        "3 1000000000 3\n1 1 1\n2 2 2\n3 3 3\n".into(),
        format!("2 2 {max}\n1 1 1\n"),
        "2 2 1000000000000\n1 1 1\n".into(),
        "-2 2 1\n".into(),
        "2 -2 1\n".into(),
        "2 2 -1\n".into(),
        "2 2\n".into(),
        "2 2 1 1\n".into(),
        "0 0 1\n1 1 1\n".into(),
        "2 2 2\n1 1 1\n1 1 1\n".into(),
        "1 1 1\n1 1 1\n1 1 1\n".into(),
        " \t 2  2   1 \n  1 1 \t 1 \n".into(),
        "% only comments\n%\n".into(),
    ];
    v.extend(bodies.iter().map(|b| format!("{H}{b}")));
    v.push("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n".into());
    v.push("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n".into());
    v.push("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n".into());
    v.push("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n".into());
    v.push(format!(
        "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 {}9\n",
        i64::MAX
    ));
    v
}

#[test]
fn matrix_market_text() {
    for (k, text) in matrices().iter().enumerate() {
        let r = bounded(&format!("matrix {k}: {text:?}"), text.len(), || {
            parse_matrix_market("m.mtx", text).map(|m| m.to_csr())
        });
        if let Err(e) = r {
            let msg = e.to_string();
            assert!(msg.starts_with("m.mtx:"), "matrix {k}: {msg}");
            assert!(!msg.contains('\n'), "matrix {k}: one line: {msg}");
        }
    }
}

fn number_texts() -> Vec<String> {
    let mut v: Vec<String> = [
        "",
        "\n\n\n",
        "1",
        "1\n2",
        "x",
        "1 2",
        "NaN",
        "nan",
        "-nan",
        "inf",
        "-inf",
        "1e999",
        "-0",
        "0x10",
        "1_000",
        "+1",
        ".5",
        "5.",
        "1e",
        "--1",
        "\u{0}",
        "1\r\n2\r\n",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    v.push("9".repeat(1000));
    v.push(format!("{}\n", f64::MAX));
    v
}

#[test]
fn number_and_point_text() {
    for text in number_texts() {
        for expected in [None, Some(0), Some(2), Some(usize::MAX)] {
            let r = bounded(&format!("numbers {text:?}"), text.len(), || {
                parse_numbers("v.txt", &text, expected)
            });
            if let Err(e) = r {
                assert!(e.to_string().starts_with("v.txt:"), "{e}");
            }
        }
        let points = text.replace('\n', " 1\n");
        let r = bounded(&format!("points {points:?}"), points.len(), || {
            parse_points("p.txt", &points)
        });
        if let Err(e) = r {
            assert!(e.to_string().starts_with("p.txt:"), "{e}");
        }
    }
}

#[test]
fn files_that_are_not_utf8() {
    let p = std::env::temp_dir().join(format!("flatland-hostile-{}.txt", std::process::id()));
    for bytes in [&b"1\n\xff\xfe\n"[..], b"\xc3\x28", b"1\n2\n\x80"] {
        std::fs::write(&p, bytes).unwrap();
        let r = bounded("non-UTF-8 numbers", bytes.len(), || read_numbers(&p, None));
        let e = r.expect_err("not UTF-8");
        assert!(e.to_string().starts_with(p.to_str().unwrap()), "{e}");
    }
    let _ = std::fs::remove_file(p);
}

#[test]
fn descriptor_and_nested_constructors() {
    let max = usize::MAX;
    let offsets: Vec<Vec<usize>> = vec![
        vec![],
        vec![1],
        vec![0, 5, 3],
        vec![0, max],
        vec![0, max, 0],
        vec![0, 2, 2, max],
        vec![0; 100],
    ];
    for o in &offsets {
        let len = o.len() * 8;
        let r = bounded("Nested::from_offsets", len, || {
            Nested::<f64>::from_offsets(o.clone(), vec![1.0, 2.0])
        });
        if o != &[0; 100] {
            assert!(r.is_err(), "{o:?}");
        }
    }
    let cases: Vec<(Vec<usize>, Vec<usize>, usize)> = vec![
        (vec![1], vec![], 1),
        (vec![max, max], vec![0, 0], max),
        (vec![1, 1], vec![0, max], 2),
        (vec![2], vec![0], 1),
    ];
    for (lengths, starts, elements) in cases {
        let r = bounded("Segd::try_new", 32, || {
            Segd::try_new(lengths.clone(), starts.clone(), elements)
        });
        assert!(r.is_err(), "{lengths:?} {starts:?} {elements}");
    }
    let r = bounded("Segd::from_lengths", 16, || {
        Segd::from_lengths(vec![max, 1])
    });
    assert!(r.is_err());
    let segd = Segd::from_lengths(vec![2, 1]).unwrap();
    for (sources, starts, lengths, block_lens) in [
        (vec![0, 1], vec![0, 0], vec![2, 1], vec![3]),
        (vec![0, 0], vec![0, max], vec![2, 1], vec![3]),
        (vec![0], vec![0, 0], vec![2, 1], vec![3]),
        (vec![0, 0], vec![0, 0], vec![max, 1], vec![3]),
    ] {
        let r = bounded("SSegd::try_new", 64, || {
            SSegd::try_new(
                sources.clone(),
                starts.clone(),
                lengths.clone(),
                block_lens.clone(),
            )
        });
        assert!(r.is_err(), "{sources:?} {starts:?} {block_lens:?}");
    }
    let ssegd = SSegd::from_segd(&segd);
    for vsegids in [vec![2], vec![max], vec![0, 1, 5]] {
        let r = bounded("VSegd::try_new", 24, || {
            VSegd::try_new(vsegids.clone(), ssegd.clone())
        });
        assert!(r.is_err(), "{vsegids:?}");
    }
    for (rows, cols, offsets, indices) in [
        (max, 1, vec![0, 1], vec![0]),
        (1, 1, vec![0, 1], vec![5]),
        (1, 1, vec![1, 1], vec![0]),
        (1, 0, vec![0, 1], vec![0]),
    ] {
        let r = bounded("Csr::from_parts", 48, || {
            Csr::from_parts(rows, cols, offsets.clone(), indices.clone(), vec![1.0])
        });
        assert!(r.is_none());
    }
}
