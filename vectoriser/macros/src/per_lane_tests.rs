//! Tests of the per-lane form `#[vectorise]` emits (`lane`), read off the expansion of small
//! modules (`module::expand`): which runtime calls a construct becomes.

use quote::quote;

/// The per-lane module `#[vectorise]` emits for `source`, as text.
fn lanes_of(source: &str) -> String {
    let out = crate::module::expand(
        quote!(vectoriser = ::flatland_vectoriser),
        source.parse().expect("the source parses"),
    )
    .expect("the module expands")
    .to_string();
    let at = out.find("mod lanes").expect("a per-lane module");
    out[at..].to_string()
}

#[test]
fn a_reduction_of_an_enumerate_folds_its_pairs_as_they_are_computed() {
    let lanes = lanes_of(
        "mod k {
                pub fn first_max(xs: &[f64]) -> i64 {
                    xs.iter()
                        .enumerate()
                        .reduce((-1, f64::NEG_INFINITY), |best, next| {
                            if best.0 < 0 || next.1 > best.1 { next } else { best }
                        })
                        .0
                }
            }",
    );
    assert!(lanes.contains("fold_total_in"), "{lanes}");
    assert!(!lanes.contains("map_total"), "no array of pairs: {lanes}");
}

#[test]
fn all_and_any_of_values_that_cannot_fail_stop_at_the_deciding_value() {
    let all = lanes_of("mod k { pub fn f(xs: &[i64]) -> bool { xs.iter().all(|&x| x < 0) } }");
    assert!(all.contains("decided_fold_total_in"), "{all}");
    let any = lanes_of("mod k { pub fn f(xs: &[f64]) -> bool { xs.iter().any(|&x| x > 0.5) } }");
    assert!(any.contains("decided_fold_total_in"), "{any}");
    let fallible =
        lanes_of("mod k { pub fn f(xs: &[i64]) -> bool { xs.iter().all(|&x| 10 / x > 0) } }");
    assert!(!fallible.contains("decided_fold"), "{fallible}");
}

#[test]
fn a_fold_of_values_that_cannot_fail_takes_them_as_they_are() {
    let total =
        lanes_of("mod k { pub fn f(xs: &[f64]) -> f64 { xs.iter().map(|x| x * x).sum() } }");
    assert!(total.contains("fold_cheap_total_in"), "{total}");
    assert!(!total.contains("fold_mapped"), "{total}");
    // A lambda's short chain stays behind the call.
    let best = lanes_of(
        "mod k { pub fn f(xs: &[f64]) -> f64 {
            xs.iter().map(|x| x * x).reduce(0.0, |a, b| if a > b { a } else { b })
        } }",
    );
    assert!(best.contains("lane :: fold_total_in"), "{best}");
    assert!(!best.contains("fold_cheap_total_in"), "{best}");
    let fallible =
        lanes_of("mod k { pub fn f(xs: &[i64]) -> i64 { xs.iter().map(|x| 10 / x).sum() } }");
    assert!(fallible.contains("fold_mapped_in"), "{fallible}");
}

#[test]
fn a_range_under_the_lets_of_its_bounds_is_not_built() {
    let lanes = lanes_of(
        "mod k {
                pub fn doubled(xs: &[f64]) -> Vec<f64> {
                    let n = xs.len();
                    (0..n).map(|i| xs[i] * 2.0).collect()
                }
            }",
    );
    assert!(lanes.contains("lane :: Iota :: new"), "{lanes}");
    assert!(
        !lanes.contains("lane :: iota ("),
        "no array of indices: {lanes}"
    );
}

#[test]
fn a_negated_number_is_a_literal() {
    let lanes =
        lanes_of("mod k { pub fn f(x: i64, y: f64) -> f64 { (x + -3) as f64 * -0.5 * y } }");
    assert!(!lanes.contains("UnaryOp :: Neg"), "{lanes}");
}

#[test]
fn a_tuple_pattern_moves_the_fields_it_names() {
    let lanes = lanes_of(
        "mod k {
                fn halves(xs: &[i64]) -> (Vec<i64>, Vec<i64>, i64) {
                    let n = xs.len() / 2;
                    (xs[..n].to_vec(), xs[n..].to_vec(), n)
                }
                pub fn swapped(xs: &[i64]) -> Vec<i64> {
                    let (lo, hi, _) = halves(xs);
                    [hi, lo].concat()
                }
                pub fn kept(xs: &[i64]) -> (Vec<i64>, i64) {
                    let t = halves(xs);
                    let (lo, _, _) = t;
                    (lo, t.2)
                }
            }",
    );
    assert!(lanes.contains("let (v_lo , v_hi , _ ,) ="), "{lanes}");
    // `t` is read after its pattern: its field is read in place, as before.
    assert!(lanes.contains("let v_t ="), "{lanes}");
    assert!(lanes.contains("& v_t . 0"), "{lanes}");
}

#[test]
fn a_recursion_whose_result_is_appended_writes_into_its_callers_buffer() {
    let lanes = lanes_of(
        "mod k {
                pub fn look(table: &[i64], xs: &[i64]) -> Vec<i64> {
                    if xs.len() <= 1 {
                        xs.iter().map(|&i| table[i]).collect()
                    } else {
                        let half = xs.len() / 2;
                        [xs[..half].to_vec(), xs[half..].to_vec()]
                            .map(|part| look(table, part))
                            .concat()
                    }
                }
                pub fn doubled(xs: &[i64]) -> Vec<i64> {
                    xs.map(|x| x * 2)
                }
            }",
    );
    // `look` gets an append form, which calls itself into the buffer it was given; the
    // leaves' map pushes into it; `doubled` is never appended: no append form.
    assert!(lanes.contains("fn a_look"), "{lanes}");
    assert!(lanes.contains("a_look (__ctx , __lane ,"), "{lanes}");
    assert!(lanes.contains("map_into"), "{lanes}");
    assert!(!lanes.contains("fn a_doubled"), "{lanes}");
    // The halves are borrowed slices of `xs`, handed to the lanes by value, and the lanes
    // weigh their halves only (the table is only indexed and passed on).
    assert!(
        lanes.contains("Cow :: Borrowed (:: flatland_vectoriser :: lane :: slice"),
        "{lanes}"
    );
    assert!(!lanes.contains(". to_vec ()"), "no copy of a half: {lanes}");
    assert!(
        lanes.contains("flat_map_owning_into (__a0 , (0usize)"),
        "{lanes}"
    );
}

#[test]
fn a_map_over_rows_asks_for_the_gathers_at_its_rows_elements() {
    let smvm = lanes_of(
        "mod k {
            use flatland::prelude::Nested;
            pub fn smvm(cols: &Nested<i64>, vals: &Nested<f64>, v: &[f64]) -> Vec<f64> {
                cols.zip(vals).map(|(cs, xs)| cs.zip(xs).map(|(c, x)| x * v[c]).sum())
            }
        }",
    );
    assert!(smvm.contains("lane :: gathers_pay (v_v , __a0)"), "{smvm}");
    assert!(
        smvm.contains("lane :: prefetch_row_gathers (v_v , __a0"),
        "{smvm}"
    );
    // A row read only element by element, and a gather at something else, ask for nothing.
    let sums = lanes_of(
        "mod k {
            use flatland::prelude::Nested;
            pub fn sums(cols: &Nested<i64>, v: &[f64]) -> Vec<f64> {
                cols.map(|cs| cs.map(|c| (c as f64) * v[0]).sum())
            }
        }",
    );
    assert!(!sums.contains("prefetch_row_gathers"), "{sums}");
}

#[test]
fn a_recursions_lanes_concatenated_with_other_parts_append_to_one_buffer() {
    let lanes = lanes_of(
        "mod k {
            pub fn qs(xs: &[i64]) -> Vec<i64> {
                if xs.len() <= 1 {
                    xs.to_vec()
                } else {
                    let pivot = xs[xs.len() / 2];
                    let less = xs.iter().filter(|&x| x < pivot).collect();
                    let equal = xs.iter().filter(|&x| x == pivot).collect();
                    let greater = xs.iter().filter(|&x| x > pivot).collect();
                    let sorted = [less, greater].map(|part| qs(part));
                    [sorted[0], equal, sorted[1]].concat()
                }
            }
        }",
    );
    // The value form and the append form both take it: no array of the lanes' values, no
    // concatenation copying them.
    assert_eq!(lanes.matches("parts_owning_into").count(), 2, "{lanes}");
    assert!(lanes.contains("fn a_qs"), "{lanes}");
    assert!(!lanes.contains("concat_reusing_first"), "{lanes}");
}

#[test]
fn the_parts_of_an_append_in_an_appending_position_are_appended_in_turn() {
    let lanes = lanes_of(
        "mod k {
            pub fn g(xs: &[i64]) -> Vec<i64> {
                if xs.len() <= 1 {
                    [xs.to_vec(), vec![0]].concat()
                } else {
                    let half = xs.len() / 2;
                    [xs[..half].to_vec(), xs[half..].to_vec()].map(|p| g(p)).concat()
                }
            }
        }",
    );
    // The append form writes the leaf's two parts into the caller's buffer; the value form
    // (the outermost call) still concatenates them into an array of its own.
    let append_form = &lanes[lanes.find("fn a_g").expect("an append form")..];
    assert!(!append_form.contains("concat_reusing_first"), "{lanes}");
    assert!(lanes.contains("concat_reusing_first"), "{lanes}");
}

#[test]
fn a_scan_of_values_without_arrays_may_run_across_the_pool() {
    let lanes = lanes_of(
        "mod k {
            pub fn prefix(xs: &[f64]) -> Vec<f64> {
                xs.iter().scan(0.0, |a, b| a + b).collect()
            }
        }",
    );
    assert!(lanes.contains("lane :: scan_in (__lanes"), "{lanes}");
    assert!(!lanes.contains("assoc :: scan_inclusive"), "{lanes}");
}

#[test]
fn a_map_over_slices_runs_blocks_of_lanes_and_a_filter_tests_words() {
    let blend = lanes_of(
        "mod k {
                pub fn blend(xs: &[f64], ys: &[f64], w: f64) -> Vec<f64> {
                    xs.iter().zip(ys).map(|(a, b)| a * w + b * (1.0 - w)).collect()
                }
            }",
    );
    assert!(blend.contains("map_total_blocks"), "{blend}");
    // A map over a range indexes no slice: its lanes are called one by one.
    let squares =
        lanes_of("mod k { pub fn f(n: i64) -> Vec<i64> { (0..n).map(|i| i * i).collect() } }");
    assert!(!squares.contains("map_total_blocks"), "{squares}");
    let kept = lanes_of(
        "mod k {
                pub fn kept(xs: &[f64], k: f64) -> Vec<f64> {
                    xs.iter().filter(|x| x > k).collect()
                }
            }",
    );
    // A parameter at its last read: the filter that may take its array (`filter_two_in`).
    assert!(kept.contains("filter_two_in"), "{kept}");
    let both = lanes_of(
        "mod k {
                pub fn both(xs: &[f64], k: f64) -> (Vec<f64>, Vec<f64>) {
                    (xs.iter().filter(|x| x > k).collect(), xs.iter().filter(|x| x < k).collect())
                }
            }",
    );
    // The first filter reads `xs` before its last read: a split of the borrowed array.
    assert!(both.contains("split_two_in"), "{both}");
    assert!(both.contains("filter_two_in"), "{both}");
}

#[test]
fn a_sum_of_integers_folds_in_any_association_and_a_sum_of_floats_canonically() {
    let ints = lanes_of("mod k { pub fn f(xs: &[i64]) -> i64 { xs.iter().sum() } }");
    assert!(
        ints.contains("exact_fold_in (__lanes , & __a [..] , __z , 0i64"),
        "{ints}"
    );
    let least = lanes_of("mod k { pub fn f(xs: &[i64]) -> i64 { xs.iter().min() } }");
    assert!(least.contains("i64 :: MAX"), "{least}");
    let floats = lanes_of("mod k { pub fn f(xs: &[f64]) -> f64 { xs.iter().sum() } }");
    assert!(floats.contains("lane :: fold_in"), "{floats}");
    assert!(!floats.contains("exact_fold_in"), "{floats}");
}
