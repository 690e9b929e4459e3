//! Work complexity of flattened programs, asserted through the runtime's work counters.
#![cfg(feature = "stats")]

use flatland_runtime::stats;
use flatland_vectoriser::dsl::Ty;
use flatland_vectoriser::{exec, programs};

type Rows = Vec<Vec<(i64, f64)>>;

fn smvm_work(rows: usize, nnz: usize, vlen: usize) -> stats::Work {
    let (p, f) = programs::smvm();
    let matrix: Rows = (0..rows)
        .map(|r| {
            (0..nnz / rows)
                .map(|j| (((r * 7 + j * 13) % vlen) as i64, j as f64))
                .collect()
        })
        .collect();
    let v: Vec<f64> = (0..vlen).map(|i| i as f64).collect();
    let args = vec![
        <flatland_vectoriser::dsl::Arr<flatland_vectoriser::dsl::Arr<(i64, f64)>>>::to_value(
            matrix,
        ),
        <flatland_vectoriser::dsl::Arr<f64>>::to_value(v),
    ];
    let (r, work) = stats::measure(|| exec::run(p.ir(), f.name(), args));
    r.unwrap();
    work
}

#[test]
fn smvm_never_copies_the_free_vector() {
    let vlen = 20_000;
    let few = smvm_work(10, 2_000, vlen);
    let many = smvm_work(1_000, 2_000, vlen);
    println!("smvm work, 10 rows: {few:?}\n1000 rows: {many:?}");
    // A copied vector would cost rows * vlen = 2e7 element copies.
    assert!(many.elements_copied < vlen as u64, "{many:?}");
    // Extra rows cost O(rows), nothing proportional to the vector.
    assert!(
        many.elements_copied <= few.elements_copied + 20 * 990,
        "{few:?} vs {many:?}"
    );
}

fn tree_lookup_work(k: u32) -> stats::Work {
    let (p, f) = programs::tree_lookup();
    let n = 1usize << k;
    let table: Vec<i64> = (0..n as i64).map(|i| i * 3).collect();
    let xs: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % n as i64).collect();
    let want: Vec<i64> = xs.iter().map(|&i| table[i as usize]).collect();
    let args = vec![
        <flatland_vectoriser::dsl::Arr<i64>>::to_value(table),
        <flatland_vectoriser::dsl::Arr<i64>>::to_value(xs),
    ];
    let (r, work) = stats::measure(|| exec::run(p.ir(), f.name(), args));
    assert_eq!(
        <flatland_vectoriser::dsl::Arr<i64>>::from_value(r.unwrap()).unwrap(),
        want
    );
    println!("treeLookup n = 2^{k}: {work:?}");
    work
}

/// Elements touched: read by the lookups, plus any copied (a replicated or re-blocked table
/// would show up here).
fn tree_lookup_touched(k: u32) -> u64 {
    let work = tree_lookup_work(k);
    work.elements_read + work.elements_copied
}

/// The halves `[xs[..h], xs[h..]]` are slices of one block, so the array literal describes
/// them anew instead of copying them: no level copies its indices (copying them would cost
/// `n` a level, `n * k` in all).
#[test]
fn tree_lookup_splits_without_copying() {
    let k = 12;
    let n = 1u64 << k;
    let work = tree_lookup_work(k);
    assert!(work.elements_copied < 2 * n, "{work:?}");
}

#[test]
fn tree_lookup_is_n_log_n() {
    let small = tree_lookup_touched(10);
    let large = tree_lookup_touched(14);
    let ratio = large as f64 / small as f64;
    // n log n grows 16 * 14 / 10 = 22.4x from 2^10 to 2^14; n^2 would grow 256x.
    assert!(
        ratio < 40.0,
        "elements touched grew {ratio:.1}x ({small} -> {large})"
    );
    assert!(small > 0);
}

/// Work of one class of `filter([x < p], xs)`, `p` a free scalar (a different one per row of
/// `rows`): as `xs.filter(..)` (`filter(..).0`, only that class packed) or with the whole filter
/// bound first (`let t = filter(..) in t.0`: both classes permuted), fused or not.
fn filter_class_work(whole: bool, fuse: bool, rows: usize, n: usize) -> stats::Work {
    use flatland_vectoriser::dsl::{Arr, Ex, Predicate, ProgramBuilder, let_};
    let mut p = ProgramBuilder::new();
    let f = p.function("f", ["xss"], |_, xss: Ex<Arr<Arr<i64>>>| {
        xss.map(move |xs| {
            let_(xs.at(0), |pivot| {
                if whole {
                    let preds: Vec<Predicate<i64>> = vec![Box::new(move |x| x.lt(pivot))];
                    xs.filter_with(preds, |parts| parts[0].clone())
                } else {
                    xs.filter(move |x| x.lt(pivot))
                }
            })
        })
    });
    let xss = scattered_rows(rows, n);
    let want: Vec<Vec<i64>> = xss
        .iter()
        .map(|xs| xs.iter().copied().filter(|&x| x < xs[0]).collect())
        .collect();
    rows_work(p.ir(), f.name(), xss, &want, fuse)
}

/// `rows` rows of `n` keys below 1000, spread by a multiplicative step.
fn scattered_rows(rows: usize, n: usize) -> Vec<Vec<i64>> {
    (0..rows)
        .map(|r| {
            (0..n as i64)
                .map(|i| (i * 7919 + r as i64) % 1000)
                .collect()
        })
        .collect()
}

/// Runs `f` of `p` on the rows `xss`, fused or not, checks its rows against `want` and
/// returns its work.
fn rows_work(
    p: &flatland_vectoriser::ir::Program,
    f: &str,
    xss: Vec<Vec<i64>>,
    want: &[Vec<i64>],
    fuse: bool,
) -> stats::Work {
    use flatland_vectoriser::dsl::Arr;
    let args = vec![<Arr<Arr<i64>>>::to_value(xss)];
    let opts = exec::ExecOptions { fuse };
    let (r, work) = stats::measure(|| exec::run_with(p, f, args, &opts));
    assert_eq!(<Arr<Arr<i64>>>::from_value(r.unwrap()).unwrap(), want);
    work
}

#[test]
fn filter_class_packs_only_its_class() {
    let (rows, n) = (10, 10_000);
    let class = filter_class_work(false, false, rows, n);
    let whole = filter_class_work(true, false, rows, n);
    let fused = filter_class_work(false, true, rows, n);
    println!("unfused: one class {class:?}\nwhole filter {whole:?}\nfused one class {fused:?}");
    // The whole filter permutes every element into its class (a scalar column partitioned in
    // one pass, written); one class packs only its own: fewer elements written or copied in
    // all, and fewer bytes.
    let moved = |w: &stats::Work| w.elements_written + w.elements_copied;
    assert!(moved(&class) < moved(&whole), "{class:?} vs {whole:?}");
    assert!(
        class.bytes_allocated < whole.bytes_allocated,
        "{class:?} vs {whole:?}"
    );
    // Each element copied into order once, split into its class once and copied into the
    // result once: no permutation of indices gathered afterwards.
    assert!(whole.elements_copied <= 3 * (rows * n) as u64, "{whole:?}");
    // Fused, the predicate runs once over all the elements with the pivot repeated per row
    // (no per-lane index lists, no gathers of the elements): at most the pivot's repeats and
    // the class's elements are copied.
    assert_moves_less(&fused, &class);
    assert!(
        fused.elements_copied <= (rows * n + rows * n / 50) as u64,
        "{fused:?}"
    );
}

/// Work of `map(|r| [r.0, r.1].map(|v| v.map(|x| x + 1)), rows)` (an array literal of two arrays
/// per row, entered by a map) or of `map(|r| append(append(r.0, r.1), r.0), rows)`, each row a
/// pair of arrays of `n` elements, fused or not.
fn parts_work(chain: bool, fuse: bool, rows: usize, n: usize) -> stats::Work {
    use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder, array};
    type Row = (Arr<i64>, Arr<i64>);
    let mut p = ProgramBuilder::new();
    let f = p.function("f", ["rs"], |_, rs: Ex<Arr<Row>>| {
        rs.map(move |r| {
            if chain {
                r.get0().append(&r.get1()).append(&r.get0())
            } else {
                array(vec![r.get0(), r.get1()])
                    .map(|v| v.map(|x| x + 1))
                    .concat()
            }
        })
    });
    let rs: Vec<(Vec<i64>, Vec<i64>)> = (0..rows as i64)
        .map(|r| {
            (
                (0..n as i64).map(|i| i * r).collect(),
                (0..n as i64).map(|i| i - r).collect(),
            )
        })
        .collect();
    let want: Vec<Vec<i64>> = rs
        .iter()
        .map(|(a, b)| {
            if chain {
                a.iter().chain(b).chain(a).copied().collect()
            } else {
                a.iter().chain(b).map(|x| x + 1).collect()
            }
        })
        .collect();
    let args = vec![<Arr<Row>>::to_value(rs)];
    let opts = exec::ExecOptions { fuse };
    let (r, work) = stats::measure(|| exec::run_with(p.ir(), f.name(), args, &opts));
    assert_eq!(<Arr<Arr<i64>>>::from_value(r.unwrap()).unwrap(), want);
    work
}

#[test]
fn array_literals_and_append_chains_copy_their_parts_once() {
    let (rows, n) = (10, 1_000);
    for fuse in [true, false] {
        let lit = parts_work(false, fuse, rows, n);
        let chain = parts_work(true, fuse, rows, n);
        println!("fuse {fuse}: literal {lit:?}\nappend chain {chain:?}");
        // The literal's two arrays are copied once, into the lane order the map enters.
        assert!(lit.elements_copied <= (2 * rows * n) as u64, "{lit:?}");
        // The chain's three parts are copied once, into the result.
        assert_eq!(chain.elements_copied, (3 * rows * n) as u64, "{chain:?}");
    }
}

fn quicksort_work(n: usize) -> stats::Work {
    use flatland_vectoriser::dsl::Arr;
    let (p, f) = programs::quicksort(programs::Pivot::Middle);
    let xs: Vec<i64> = (0..n as i64).map(|i| (i * 7919 + 13) % 100_003).collect();
    let mut want = xs.clone();
    want.sort_unstable();
    let (r, work) = stats::measure(|| exec::run(p.ir(), f.name(), vec![<Arr<i64>>::to_value(xs)]));
    assert_eq!(<Arr<i64>>::from_value(r.unwrap()).unwrap(), want);
    work
}

#[test]
fn quicksort_moves_each_element_a_few_times_per_level() {
    for k in [10u32, 13] {
        let n = 1usize << k;
        let w = quicksort_work(n);
        // About 2 log2(n) levels for these keys; per level each element is copied about twice
        // (into lane order, then split into its class; the sorted parts appended are copies
        // too, but of fewer elements the deeper the level) and allocates a few words.
        let levels = 2 * k as u64 + 4;
        println!(
            "quicksort n = 2^{k}: {w:?}; per element and level: {:.1} copied, {:.1} descriptor entries",
            w.elements_copied as f64 / (n as u64 * levels) as f64,
            w.descriptor_entries as f64 / (n as u64 * levels) as f64
        );
        assert!(w.elements_copied <= 3 * n as u64 * levels, "{w:?}");
        assert!(w.bytes_allocated <= 24 * n as u64 * levels, "{w:?}");
        assert!(w.descriptor_entries <= n as u64 * levels, "{w:?}");
    }
}

#[test]
fn three_filters_of_a_packed_array_copy_its_elements_once() {
    use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder, if_};
    let mut p = ProgramBuilder::new();
    let f = p.function("f", ["xss"], |_, xss: Ex<Arr<Arr<i64>>>| {
        xss.map(|xs| {
            // Under the `if`, `xs` holds the long rows only: not contiguous.
            let parts = xs
                .filter(|x| x.lt(5))
                .append(&xs.filter(|x| x.equals(5)))
                .append(&xs.filter(|x| x.gt(5)));
            if_(xs.len().le(1), xs.clone(), parts)
        })
    });
    let (rows, n) = (20, 1_000);
    let xss: Vec<Vec<i64>> = (0..rows as i64)
        .map(|r| {
            let len = if r % 2 == 0 { n } else { 1 };
            (0..len as i64).map(|i| (i * 7 + r) % 11).collect()
        })
        .collect();
    let want: Vec<Vec<i64>> = xss
        .iter()
        .map(|xs| {
            let mut v: Vec<i64> = xs.iter().copied().filter(|&x| x < 5).collect();
            v.extend(xs.iter().filter(|&&x| x == 5));
            v.extend(xs.iter().filter(|&&x| x > 5));
            v
        })
        .collect();
    let args = vec![<Arr<Arr<i64>>>::to_value(xss)];
    let (r, work) = stats::measure(|| exec::run(p.ir(), f.name(), args));
    assert_eq!(<Arr<Arr<i64>>>::from_value(r.unwrap()).unwrap(), want);
    println!("three filters: {work:?}");
    // The long rows' elements: copied once into order (the first filter), once packed into
    // their classes, once appended, once when the `if` combines its branches, once into the
    // result's order; copying them into order for every filter would add two more.
    let long = (rows / 2 * n) as u64;
    assert!(work.elements_copied < 6 * long, "{work:?}");
}

/// Work of the sieve (`programs::primes`) below `n`, fused or not.
fn primes_work(n: i64, fuse: bool) -> stats::Work {
    let (p, f) = programs::primes();
    let opts = exec::ExecOptions { fuse };
    let args = vec![<i64 as Ty>::to_value(n)];
    let (r, work) = stats::measure(|| exec::run_with(p.ir(), f.name(), args, &opts));
    let got: Vec<i64> = <flatland_vectoriser::dsl::Arr<i64>>::from_value(r.unwrap()).unwrap();
    let want: Vec<i64> = (2..n)
        .filter(|&i| (2..=i.isqrt()).all(|d| i % d != 0))
        .collect();
    assert_eq!(got, want);
    work
}

#[test]
fn a_filter_that_indexes_a_free_array_is_one_pass() {
    // The sieve's last step, `iota(n).filter(|i| i >= 2 && flags[i])`: with fusion the
    // predicate (an index into `flags`, the free array of the lane) runs as one pass over the
    // elements, instead of applying it lazily with its environment gathered per element.
    let n = 200_000;
    let (fused, lazy) = (primes_work(n, true), primes_work(n, false));
    println!("primes {n}: fused {fused:?}\nlazy {lazy:?}");
    assert_moves_less(&fused, &lazy);
}

#[test]
fn the_fused_sieve_allocates_no_index_array() {
    // The composites `2p, 3p, .. < n` of the primes `p` below `sqrt(n)`: the index array the
    // unfused scatter builds (8 bytes each). The fused one writes them straight into the flags,
    // and the last filter's range is generated chunk by chunk.
    let n: i64 = 1 << 20;
    let small: Vec<i64> = (2..=n.isqrt() + 1)
        .filter(|&q| (2..=q.isqrt()).all(|d| q % d != 0))
        .collect();
    let composites: i64 = small.iter().map(|&q| (n - 1 - 2 * q) / q + 1).sum();
    let index_bytes = 8 * composites as u64;
    let (fused, unfused) = (primes_work(n, true), primes_work(n, false));
    println!("primes {n}: {composites} composites\nfused {fused:?}\nunfused {unfused:?}");
    assert!(unfused.bytes_allocated > index_bytes, "{unfused:?}");
    // Less than the index array alone, everything included.
    assert!(fused.bytes_allocated < index_bytes, "{fused:?}");
}

/// `a` copies fewer elements and allocates fewer bytes than `b`.
fn assert_moves_less(a: &stats::Work, b: &stats::Work) {
    assert!(a.elements_copied < b.elements_copied, "{a:?} vs {b:?}");
    assert!(a.bytes_allocated < b.bytes_allocated, "{a:?} vs {b:?}");
}

/// Work of `reduce((NaN, -1), |a, b| if a.1 < 0 || b.0 > a.0 { b } else { a }, zip(xs, iota))`
/// (the first largest element's index) over `n` elements, fused or not.
fn arg_max_work(n: usize, fuse: bool) -> stats::Work {
    use flatland_vectoriser::ir::{BinaryOp, Expr, Function, Lambda, Program, ReduceOp, Type};
    use flatland_vectoriser::value::Value;
    let v = Expr::var;
    let take_b = Expr::binary(
        BinaryOp::Or,
        Expr::binary(BinaryOp::Lt, Expr::proj(v("a"), 1), Expr::i64(0)),
        Expr::binary(BinaryOp::Gt, Expr::proj(v("b"), 0), Expr::proj(v("a"), 0)),
    );
    let op = ReduceOp::Lambda(Lambda::new(&["a", "b"], Expr::if_(take_b, v("b"), v("a"))));
    let pairs = Expr::map(
        Lambda::new(&["x", "i"], Expr::Tuple(vec![v("x"), v("i")])),
        vec![
            v("xs"),
            Expr::iota(Expr::length(v("xs")), Expr::i64(0), Expr::i64(1)),
        ],
    );
    let body = Expr::proj(
        Expr::reduce(
            op,
            Expr::Tuple(vec![Expr::f64(f64::NAN), Expr::i64(-1)]),
            pairs,
        ),
        1,
    );
    let p = Program::new(vec![Function::new(
        "arg_max",
        vec![("xs".into(), Type::array(Type::F64))],
        Type::I64,
        body,
    )]);
    let xs: Vec<f64> = (0..n).map(|i| ((i * 7919) % 10_007) as f64).collect();
    let want = (0..n).fold(0, |b, i| if xs[i] > xs[b] { i } else { b });
    let args = vec![Value::array(xs.into_iter().map(Value::F64).collect())];
    let opts = exec::ExecOptions { fuse };
    let (r, work) = stats::measure(|| exec::run_with(&p, "arg_max", args, &opts));
    assert_eq!(r.unwrap(), Value::I64(want as i64));
    work
}

#[test]
fn a_lambda_operator_folds_without_moving_its_operands() {
    // Unfused, every bulk step of the canonical fold evaluates the lambda's body lifted: the
    // `if` packs both operands to the lanes of each branch and combines them back. Compiled,
    // a step is one program per field of the result.
    let n = 100_000;
    let (fused, lifted) = (arg_max_work(n, true), arg_max_work(n, false));
    println!("arg_max {n}: fused {fused:?}\nlifted {lifted:?}");
    assert_moves_less(&fused, &lifted);
}

/// Work of `scatter(replicate(n, true), idx, VALUES)` with `m` indices, where `VALUES` is
/// `replicate(m, false)` or, materialised by a map, the same values.
fn mark_work(n: i64, m: i64, replicated: bool) -> stats::Work {
    use flatland_vectoriser::ir::{Expr, Function, Lambda, Program, Type};
    use flatland_vectoriser::value::Value;
    let idx = Expr::map(
        Lambda::new(
            &["i"],
            Expr::binary(
                flatland_vectoriser::ir::BinaryOp::Rem,
                Expr::var("i") * Expr::i64(7),
                Expr::var("n"),
            ),
        ),
        vec![Expr::iota(Expr::var("m"), Expr::i64(0), Expr::i64(1))],
    );
    let values = if replicated {
        Expr::replicate(Expr::var("m"), Expr::bool(false))
    } else {
        Expr::map(
            Lambda::new(&["k"], Expr::bool(false)),
            vec![Expr::var("ix")],
        )
    };
    let body = Expr::let_(
        "ix",
        idx,
        Expr::scatter(
            Expr::replicate(Expr::var("n"), Expr::bool(true)),
            Expr::var("ix"),
            values,
        ),
    );
    let p = Program::new(vec![Function::new(
        "mark",
        vec![("n".into(), Type::I64), ("m".into(), Type::I64)],
        Type::array(Type::Bool),
        body,
    )]);
    let args = vec![Value::I64(n), Value::I64(m)];
    let (r, work) = stats::measure(|| exec::run(&p, "mark", args));
    let Value::Array(flags) = r.unwrap() else {
        panic!("an array")
    };
    let marked = flags.iter().filter(|f| **f == Value::Bool(false)).count();
    assert_eq!(marked as i64, n.min(m), "7 is coprime to n");
    work
}

#[test]
fn a_scatter_of_one_replicated_value_never_builds_the_values() {
    // The sieve's `flags.scatter(composites, vec![false; composites.len()])`: the replicated
    // value stays one per lane, so the values are never copied out m times.
    let (n, m) = (100_003, 200_000);
    let (replicated, mapped) = (mark_work(n, m, true), mark_work(n, m, false));
    println!("mark {m}: replicated {replicated:?}\nmapped {mapped:?}");
    // The map writes its m values once; built, the replicated ones would be copied m times.
    let moved = |w: &stats::Work| w.elements_copied + w.elements_written;
    assert!(
        moved(&replicated) + m as u64 / 2 < moved(&mapped),
        "{replicated:?} vs {mapped:?}"
    );
    assert!(replicated.bytes_allocated < mapped.bytes_allocated);
}

/// One level of quicksort on each row: the three parts around the row's first element
/// (three filters of one array, which `fuse::siblings` merges), appended.
fn three_parts_work(fuse: bool, rows: usize, n: usize) -> stats::Work {
    use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder, let_};
    let mut p = ProgramBuilder::new();
    let f = p.function("f", ["xss"], |_, xss: Ex<Arr<Arr<i64>>>| {
        xss.map(move |xs| {
            let_(xs.at(0), |pivot| {
                let (p0, p1, p2) = (pivot.clone(), pivot.clone(), pivot);
                let_(xs.filter(move |x| x.lt(p0)), |less| {
                    let_(xs.filter(move |x| x.equals(p1)), |equal| {
                        let_(xs.filter(move |x| x.gt(p2)), |greater| {
                            less.append(&equal).append(&greater)
                        })
                    })
                })
            })
        })
    });
    let xss = scattered_rows(rows, n);
    let want: Vec<Vec<i64>> = xss
        .iter()
        .map(|xs| {
            let mut v: Vec<i64> = xs.iter().copied().filter(|&x| x < xs[0]).collect();
            v.extend(xs.iter().filter(|&&x| x == xs[0]));
            v.extend(xs.iter().filter(|&&x| x > xs[0]));
            v
        })
        .collect();
    rows_work(p.ir(), f.name(), xss, &want, fuse)
}

#[test]
fn sibling_filters_classify_each_element_in_one_pass() {
    let (rows, n) = (10, 10_000);
    let elements = (rows * n) as u64;
    let fused = three_parts_work(true, rows, n);
    let unfused = three_parts_work(false, rows, n);
    println!("fused: {fused:?}\nunfused: {unfused:?}");
    // Merged into one filter: one comparison pass over the elements into byte keys (no
    // interpreted lane per element), the split's count of the keys, its pass writing each
    // element into its part, the keys counted per row: three reads per element. Three
    // filters read the elements for each predicate's mask and again for each pack.
    assert!(
        fused.elements_read <= 3 * elements + 4 * rows as u64,
        "{fused:?}"
    );
    assert!(fused.lanes_interpreted <= rows as u64, "{fused:?}");
    assert!(unfused.elements_read >= 6 * elements, "{unfused:?}");
    assert_moves_less(&fused, &unfused);
}
