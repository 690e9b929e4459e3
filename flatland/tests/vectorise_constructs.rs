//! `#[vectorise]` construct by construct: each kernel's `f` gives the executor's result and the
//! reference interpreter's, on empty, degenerate and generated inputs, and the same errors.

use flatland::vectorise;
use flatland::vectoriser::Result;

#[vectorise]
mod k {
    /// A scan of a map: fused into one single-pass kernel (scanomap).
    pub fn doubled_prefix(xs: &[i64]) -> Vec<i64> {
        xs.map(|x| x * 2).scan(0, |a, b| a + b)
    }

    /// Two classes of one array reduced: a partition fused with its reductions.
    pub fn split_sums(xs: &[i64], p: i64) -> (i64, i64) {
        let lo = xs.filter(|x| x < p);
        let hi = xs.filter(|x| x >= p);
        (lo.sum(), hi.map(|x| x * 3).sum())
    }

    /// A filtered class reduced inside an `if` branch and as an operand: the partition-reduce
    /// kernel beside the code it replaced, which binds the class itself (found by the random
    /// corpus, `cli/tests/vectorise_random_corpus.rs`: that code's releases were emitted next
    /// to the kernel, where its bindings do not exist, and the module did not compile).
    pub fn class_sum_in_branch(xs: &[i64], p: i64) -> i64 {
        if p > 0 {
            1 + xs.filter(|x| x < p).sum()
        } else {
            0
        }
    }

    /// A lifted `if` under a map, reading a free array in one branch only.
    pub fn clamp_lookup(xs: &[i64], table: &[i64]) -> Vec<i64> {
        xs.map(|x| {
            if x >= 0 && x < table.len() {
                table[x]
            } else {
                -1
            }
        })
    }

    /// A nested map whose inner lambda reads the outer element and a free scalar.
    pub fn outer_sums(rows: Vec<Vec<i64>>, k: i64) -> Vec<Vec<i64>> {
        rows.map(|r| {
            let n = r.len();
            r.map(|x| x * k + n)
        })
    }

    /// Lifted recursion over slices (DPH's treeLookup): the table is free in every call.
    pub fn tree_lookup(table: &[i64], xs: &[i64]) -> Vec<i64> {
        if xs.len() <= 1 {
            xs.map(|i| table[i])
        } else {
            let half = xs.len() / 2;
            let halves = [xs[..half].to_vec(), xs[half..].to_vec()];
            halves.map(|h| tree_lookup(table, h)).concat()
        }
    }

    /// A scatter per lane, a reduction with a lambda operator, and a tuple read by parts.
    pub fn marks(rows: Vec<Vec<i64>>) -> (Vec<Vec<bool>>, i64) {
        let marked = rows.map(|r| vec![false; r.len()].scatter(r, vec![true; r.len()]));
        let widest = rows
            .map(|r| r.len())
            .reduce(0, |a, b| if a > b { a } else { b });
        (marked, widest)
    }

    /// A literal's parts joined (a chain of appends, one concatenation per lane): a slice, a
    /// filter, an element repeated and a slice that may fail, read in order, so the first
    /// part that fails gives the error.
    pub fn joined_parts(xs: &[i64], k: i64) -> Vec<i64> {
        let n = xs.len();
        [
            xs[..k].to_vec(),
            xs.filter(|x| x > k),
            vec![xs[k]; 2],
            xs[k..n].to_vec(),
        ]
        .concat()
    }

    /// Depth by recursion under `map` with a lifted `if`: lanes finish at different depths.
    pub fn steps(xs: &[i64]) -> Vec<i64> {
        xs.map(|x| collatz(x, 0))
    }

    fn collatz(x: i64, n: i64) -> i64 {
        if x <= 1 {
            n
        } else if x % 2 == 0 {
            collatz(x / 2, n + 1)
        } else {
            collatz(3 * x + 1, n + 1)
        }
    }
}

/// Small inputs: empty, one element, repeats, negatives.
fn inputs() -> Vec<Vec<i64>> {
    let mut out = vec![
        vec![],
        vec![0],
        vec![5],
        vec![3, 3, 3],
        vec![-4, 9, 0, 2, -1, 7],
    ];
    out.push((0..200).map(|i| (i * 37) % 23 - 5).collect());
    out
}

#[test]
fn fused_kernels_agree() {
    for xs in inputs() {
        let got = k::doubled_prefix(&xs);
        assert_eq!(
            got,
            k::plan::doubled_prefix::executor(&xs).unwrap(),
            "{xs:?}"
        );
        assert_eq!(
            got,
            k::plan::doubled_prefix::reference(&xs).unwrap(),
            "{xs:?}"
        );
        for p in [-10, 0, 3, 100] {
            let got = k::split_sums(&xs, p);
            assert_eq!(
                got,
                k::plan::split_sums::executor(&xs, p).unwrap(),
                "{xs:?} {p}"
            );
            assert_eq!(
                got,
                k::plan::split_sums::reference(&xs, p).unwrap(),
                "{xs:?} {p}"
            );
        }
    }
}

#[test]
fn lifted_control_flow_agrees() {
    let table: Vec<i64> = (0..30).map(|i| i * i).collect();
    for xs in inputs() {
        let got = k::clamp_lookup(&xs, &table);
        assert_eq!(got, k::plan::clamp_lookup::reference(&xs, &table).unwrap());
        let got = k::clamp_lookup(&xs, &[]);
        assert_eq!(got, vec![-1; xs.len()]);
        let idx: Vec<i64> = xs.iter().map(|x| x.rem_euclid(30)).collect();
        let got = k::tree_lookup(&table, &idx);
        let want: Vec<i64> = idx.iter().map(|&i| table[i as usize]).collect();
        assert_eq!(got, want);
        assert_eq!(got, k::plan::tree_lookup::executor(&table, &idx).unwrap());
        let pos: Vec<i64> = xs.iter().map(|x| x.abs() + 1).collect();
        let got = k::steps(&pos);
        assert_eq!(got, k::plan::steps::reference(&pos).unwrap(), "{pos:?}");
    }
}

#[test]
fn nested_values_agree() {
    let rows: Vec<Vec<i64>> = vec![vec![], vec![0, 2, 1], vec![0], vec![], vec![3, 0, 0, 2]];
    for k in [-2, 0, 5] {
        let got = k::outer_sums(rows.clone(), k);
        assert_eq!(
            got,
            k::plan::outer_sums::reference(rows.clone(), k).unwrap()
        );
    }
    let got = k::marks(rows.clone());
    assert_eq!(got, k::plan::marks::reference(rows.clone()).unwrap());
    assert_eq!(got.1, 4);
    assert_eq!(k::marks(Vec::new()), (Vec::new(), 0));
    assert_eq!(k::outer_sums(Vec::new(), 1), Vec::<Vec<i64>>::new());
}

#[test]
fn errors_are_the_executors() {
    // An index out of range inside lifted recursion, and a scatter past a row's end.
    let table = [1, 2, 3];
    let e = k::try_tree_lookup(&table, &[0, 2, 7, 1]).unwrap_err();
    assert_eq!(
        e,
        k::plan::tree_lookup::executor(&table, &[0, 2, 7, 1]).unwrap_err()
    );
    assert_eq!(
        e,
        k::plan::tree_lookup::reference(&table, &[0, 2, 7, 1]).unwrap_err()
    );
    let rows = vec![vec![0, 1], vec![2]];
    let e = k::try_marks(rows.clone()).unwrap_err();
    assert_eq!(e, k::plan::marks::executor(rows.clone()).unwrap_err());
    assert!(e.to_string().contains("scatter"), "{e}");
}

#[test]
fn a_chain_of_appends_gives_the_interpreters_values_and_errors() {
    for xs in inputs() {
        for k in [-1, 0, 1, 3, 7] {
            let want = k::plan::joined_parts::reference(&xs, k);
            let got = k::plan::joined_parts::per_lane(&xs, k);
            assert_eq!(got, want, "{xs:?} {k}");
            assert_eq!(k::plan::joined_parts::executor(&xs, k), want, "{xs:?} {k}");
            if let Ok(v) = &want {
                let k = usize::try_from(k).unwrap();
                let mut plain = xs[..k].to_vec();
                plain.extend(xs.iter().filter(|&&x| x > k as i64));
                plain.extend([xs[k]; 2]);
                plain.extend(&xs[k..]);
                assert_eq!(*v, plain);
            }
        }
    }
}

#[test]
fn a_class_reduced_in_a_branch_compiles_and_agrees() {
    for (xs, p) in [(vec![], 3), (vec![1, 5, 2, -4], 3), (vec![7, 8], 0)] {
        let plain = if p > 0 {
            1 + xs.iter().filter(|&&x| x < p).sum::<i64>()
        } else {
            0
        };
        assert_eq!(k::try_class_sum_in_branch(&xs, p).unwrap(), plain);
    }
}

/// The error type is the vectoriser's (the generated functions return its `Result`).
#[test]
fn results_are_the_vectorisers() {
    let r: Result<Vec<i64>> = k::try_doubled_prefix(&[1, 2]);
    assert_eq!(r.unwrap(), vec![2, 6]);
}
