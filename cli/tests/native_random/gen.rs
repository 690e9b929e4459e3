//! The generator of `generated.rs`: random scalar-heavy `#[vectorise]` functions (every
//! operator, cast, select and `let` the macro's subset has), written as Rust source with a
//! fixed seed so that the file is reproducible. `tests/vectorise_native_random.rs` checks the
//! committed file against this generator and compiles it.

use std::fmt::Write;

use flatland_cli::harness::inputs::Rng;

fn below(r: &mut Rng, n: usize) -> usize {
    usize::try_from(r.below(n as u64)).expect("below n")
}

fn pick<'a>(r: &mut Rng, xs: &[&'a str]) -> &'a str {
    xs[below(r, xs.len())]
}

#[derive(Clone, Copy, PartialEq)]
enum Ty {
    I,
    F,
    B,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::I => "i64",
            Ty::F => "f64",
            Ty::B => "bool",
        }
    }
}

/// A random expression of type `t`; `lets` says whether `t0: i64` and `t1: f64` are bound.
fn expr(r: &mut Rng, t: Ty, depth: usize, lets: bool) -> String {
    if depth == 0 || below(r, 4) == 0 {
        return leaf(r, t, lets);
    }
    let d = depth - 1;
    let e = |t: Ty, r: &mut Rng| expr(r, t, d, lets);
    match t {
        Ty::I => match below(r, 9) {
            0..=2 => {
                let op = pick(r, &["+", "-", "*", "&", "|", "^", "<<", ">>"]);
                format!("({} {op} {})", e(Ty::I, r), e(Ty::I, r))
            }
            3 => {
                // Mostly a divisor that cannot be zero; sometimes one that can.
                let op = pick(r, &["/", "%"]);
                let (a, b) = (e(Ty::I, r), e(Ty::I, r));
                if below(r, 5) == 0 {
                    format!("({a} {op} {b})")
                } else {
                    format!("({a} {op} ({b} | 1))")
                }
            }
            4 => format!(
                "{}.{}({})",
                e(Ty::I, r),
                pick(r, &["min", "max"]),
                e(Ty::I, r)
            ),
            5 => format!("{}{}", pick(r, &["-", "!"]), e(Ty::I, r)),
            6 => format!("{}.abs()", e(Ty::I, r)),
            7 => {
                let from = if below(r, 2) == 0 { Ty::F } else { Ty::B };
                format!("({} as i64)", e(from, r))
            }
            _ => format!(
                "(if {} {{ {} }} else {{ {} }})",
                e(Ty::B, r),
                e(Ty::I, r),
                e(Ty::I, r)
            ),
        },
        Ty::F => match below(r, 8) {
            0..=2 => {
                let op = pick(r, &["+", "-", "*", "/", "%"]);
                format!("({} {op} {})", e(Ty::F, r), e(Ty::F, r))
            }
            3 => format!(
                "{}.{}({})",
                e(Ty::F, r),
                pick(r, &["min", "max"]),
                e(Ty::F, r)
            ),
            4 => format!("{}.{}()", e(Ty::F, r), pick(r, &["abs", "sqrt"])),
            5 => format!("-{}", e(Ty::F, r)),
            6 => {
                let from = if below(r, 2) == 0 { Ty::I } else { Ty::B };
                format!("({} as f64)", e(from, r))
            }
            _ => format!(
                "(if {} {{ {} }} else {{ {} }})",
                e(Ty::B, r),
                e(Ty::F, r),
                e(Ty::F, r)
            ),
        },
        Ty::B => match below(r, 7) {
            0 | 1 => {
                let op = pick(r, &["<", "<=", ">", ">=", "==", "!="]);
                let t = if below(r, 2) == 0 { Ty::I } else { Ty::F };
                format!("({} {op} {})", e(t, r), e(t, r))
            }
            2 => {
                let op = pick(r, &["&&", "||", "&", "|", "^"]);
                format!("({} {op} {})", e(Ty::B, r), e(Ty::B, r))
            }
            3 => format!("!{}", e(Ty::B, r)),
            4 => {
                let from = if below(r, 2) == 0 { Ty::I } else { Ty::F };
                format!("({} as bool)", e(from, r))
            }
            5 => format!("({} < {})", e(Ty::B, r), e(Ty::B, r)),
            _ => format!(
                "(if {} {{ {} }} else {{ {} }})",
                e(Ty::B, r),
                e(Ty::B, r),
                e(Ty::B, r)
            ),
        },
    }
}

fn leaf(r: &mut Rng, t: Ty, lets: bool) -> String {
    let bound = |r: &mut Rng, var: &str, name: &str| {
        if lets && below(r, 3) == 0 {
            name.to_string()
        } else {
            var.to_string()
        }
    };
    match (t, below(r, 3)) {
        (Ty::I, 0) => pick(
            r,
            &["0", "1", "2", "7", "63", "64", "65", "i64::MAX", "i64::MIN"],
        )
        .to_string(),
        (Ty::I, _) => bound(r, "i", "t0"),
        (Ty::F, 0) => pick(
            r,
            &[
                "0.5",
                "-0.0",
                "0.0",
                "2.0",
                "1e300",
                "f64::NAN",
                "f64::INFINITY",
            ],
        )
        .to_string(),
        (Ty::F, _) => bound(r, "f", "t1"),
        (Ty::B, 0) => pick(r, &["true", "false"]).to_string(),
        (Ty::B, _) => format!("({} > {})", bound(r, "i", "t0"), leaf(r, Ty::I, lets)),
    }
}

/// The generated file: a `#[vectorise]` module of `n` functions `fK(a: &[i64], x: &[f64])`, a
/// map over the zipped slices with a random body, and `CASES`, which runs each function's
/// executor, reference and `try_fK` (the run's choice: per-lane at these sizes) and shows their
/// results bit for bit.
pub(crate) fn file(n: usize, seed: u64) -> String {
    let r = &mut Rng::new(seed);
    let mut fns = String::new();
    let mut cases = String::new();
    for k in 0..n {
        let ret = [Ty::I, Ty::F, Ty::B][below(r, 3)];
        let depth = 2 + below(r, 4);
        let body = if below(r, 2) == 0 {
            let t0 = expr(r, Ty::I, 2, false);
            let t1 = expr(r, Ty::F, 2, false);
            let v = expr(r, ret, depth, true);
            format!(
                "{{\n            let t0 = {t0};\n            let t1 = {t1};\n            {v}\n        }}"
            )
        } else {
            expr(r, ret, depth, false)
        };
        let t = ret.name();
        let _ = write!(
            fns,
            "    pub fn f{k}(a: &[i64], x: &[f64]) -> Vec<{t}> {{\n        a.zip(x).map(|(i, f)| {body})\n    }}\n\n"
        );
        let _ = writeln!(
            cases,
            "    (\"f{k}\", |a, x| [show(rnd::plan::f{k}::executor(a, x)), show(rnd::plan::f{k}::reference(a, x)), show(rnd::try_f{k}(a, x))]),"
        );
    }
    format!(
        "// @generated by tests/native_random/gen.rs (seed {seed}); do not edit: see \
         tests/vectorise_native_random.rs.\n\n#[flatland::vectorise]\n#[allow(unused_parens)]\nmod rnd {{\n{}}}\n\n\
         /// Each generated function: its name, and its executor, reference and `try_fK` results.\n\
         type Case = (&'static str, fn(&[i64], &[f64]) -> [String; 3]);\n\n\
         const CASES: &[Case] = &[\n{cases}];\n",
        fns.trim_end_matches('\n').to_string() + "\n"
    )
}
