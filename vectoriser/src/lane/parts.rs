//! A concatenation whose parts are the lanes of a map and other arrays, written into its
//! destination: divide and conquer's combine, `[sorted[0], equal, sorted[1]].concat()` over
//! `sorted = [less, greater].map(|p| quicksort(p))`.
//!
//! Run as written, the map builds an array of its lanes' results and the concatenation
//! copies them into a new array, at every level of a recursion: two allocations and a copy of
//! every element per call. Here each lane appends its result straight to the destination
//! (the callee's append form, `append_calls.rs` in the macro crate), with the other parts
//! between, so a recursion writes its elements once, into the outermost destination. Lanes
//! whose work pays for the pool still run in parallel, each into a buffer of its own, which is
//! then appended in the parts' order.

use super::{Ctx, Owning, Pieces, extend};
use crate::error::Result;
use std::borrow::Cow;

/// Where a part of a concatenation comes from ([`Ctx::parts_owning_into`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The value of the map's lane `k`.
    Lane(usize),
    /// The other array `j`.
    Other(usize),
}

impl Ctx {
    /// Appends to `out` the concatenation of `parts`: lane `k`'s part is what `lane` appends
    /// for the `k`-th of `arrays` (which it takes by value, as [`Ctx::flat_map_owning_into`]'s
    /// lanes do), the other parts are `others`. The lanes run one after another, straight into
    /// `out`, or in parallel where their weights (their arrays' lengths plus `shared`) pay for
    /// the pool, each into a buffer of its own. Either way they run in lane order as far as
    /// errors go: the error is the lowest failing lane's, as the map's.
    ///
    /// `parts` names every lane once, in increasing order, and each of `others` at most once
    /// (the macro's pattern guarantees it).
    ///
    /// # Errors
    /// The error of the lowest failing lane.
    ///
    /// # Panics
    /// If `parts` does not name every lane once, in increasing order.
    ///
    /// ```
    /// use flatland_vectoriser::lane::{Cow, Ctx, Lanes, Owning, Part, Pieces, with_lanes};
    /// // `[sorted[0], middle, sorted[1]].concat()` of `sorted = [a, b].map(|p| p reversed)`.
    /// let run = |l| with_lanes(l, || {
    ///     let mut out = Pieces::new();
    ///     Ctx::new().parts_owning_into(
    ///         Owning::new([vec![1, 2, 3], vec![7, 8]]),
    ///         0,
    ///         &[Part::Lane(0), Part::Other(0), Part::Lane(1)],
    ///         [Cow::<[i64]>::Owned(vec![5])],
    ///         |_, _, p: Cow<'_, [i64]>, out: &mut Pieces<i64>| {
    ///             out.extend(p.iter().rev().copied());
    ///             Ok(())
    ///         },
    ///         &mut out,
    ///     ).unwrap();
    ///     out.into_vec().unwrap()
    /// });
    /// assert_eq!(run(Lanes::Sequential), vec![3, 2, 1, 5, 8, 7]);
    /// assert_eq!(run(Lanes::Parallel), vec![3, 2, 1, 5, 8, 7]);
    /// ```
    #[inline]
    pub fn parts_owning_into<'a, E: Clone + Send + Sync, T: Clone + Send, const M: usize>(
        &self,
        arrays: Owning<'a, E>,
        shared: usize,
        parts: &[Part],
        others: [Cow<'_, [T]>; M],
        lane: impl Fn(&Ctx, usize, Cow<'a, [E]>, &mut Pieces<T>) -> Result<()> + Sync,
        out: &mut Pieces<T>,
    ) -> Result<()> {
        let mut others = others.map(Some);
        let weight = |i: usize| arrays.len_at(i).saturating_add(shared);
        let (tasks, _clock) = self.tasks(arrays.len(), &weight, &lane);
        let Some(tasks) = tasks else {
            // One after another: each lane appends to `out` itself, the other parts before it
            // appended first.
            let mut next = 0;
            arrays.try_for_each(|k, a| {
                while let Some(&Part::Other(j)) = parts.get(next) {
                    append_other(&mut others, j, out, false);
                    next += 1;
                }
                assert_eq!(parts.get(next), Some(&Part::Lane(k)), "lanes in order");
                next += 1;
                lane(self, k, a, out)
            })?;
            for p in &parts[next..] {
                match *p {
                    Part::Other(j) => append_other(&mut others, j, out, false),
                    Part::Lane(k) => panic!("lane {k} named out of order"),
                }
            }
            return Ok(());
        };
        // In parallel: each lane into a buffer of its own, then every part in order.
        let mut values = Pieces::new();
        self.owning_in_tasks(
            arrays,
            tasks,
            |ctx, k, a, values| {
                let mut own = Pieces::new();
                lane(ctx, k, a, &mut own)?;
                values.push(own.into_vec()?);
                Ok(())
            },
            &mut values,
        )?;
        let mut values: Vec<Option<Vec<T>>> = values.into_vec()?.into_iter().map(Some).collect();
        // A destination that starts here (a value's own buffer, not a caller's) grows the
        // first lane's array to the whole, as `concat_reusing_first` does: the other parts
        // are copied into it once, instead of every part copied into a new array beside them.
        let mut rest = parts;
        let grown = out.is_empty() && matches!(parts.first(), Some(Part::Lane(0)));
        if grown {
            let more: usize = parts[1..]
                .iter()
                .map(|p| match *p {
                    Part::Lane(k) => values.get(k).and_then(Option::as_ref).map_or(0, Vec::len),
                    Part::Other(j) => others[j].as_ref().map_or(0, |x| x.len()),
                })
                .sum();
            let mut first = take_value(&mut values, 0);
            first.reserve_exact(more);
            *out = Pieces::from_vec(first);
            rest = &parts[1..];
        }
        for p in rest {
            match *p {
                Part::Lane(k) if grown => out.extend_from_slice(&take_value(&mut values, k)),
                Part::Lane(k) => out.extend_owned(take_value(&mut values, k)),
                Part::Other(j) => append_other(&mut others, j, out, grown),
            }
        }
        Ok(())
    }
}

/// The value of lane `k`, taken.
///
/// # Panics
/// If lane `k` has no value or was taken before (`parts` names each lane once).
fn take_value<T>(values: &mut [Option<Vec<T>>], k: usize) -> Vec<T> {
    values
        .get_mut(k)
        .and_then(Option::take)
        .unwrap_or_else(|| panic!("lane {k} named once, in order"))
}

/// Appends the other part `j` (once: it is taken), copied into the current buffer where
/// `copied`, otherwise moved where it is owned and long ([`extend`]).
fn append_other<T: Clone, const M: usize>(
    others: &mut [Option<Cow<'_, [T]>>; M],
    j: usize,
    out: &mut Pieces<T>,
    copied: bool,
) {
    match others[j].take() {
        Some(x) if copied => out.extend_from_slice(&x),
        Some(x) => extend(out, x),
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::Part;
    use crate::lane::{Ctx, Lanes, Owning, Pieces, index, with_lanes};
    use quickcheck::quickcheck;
    use std::borrow::Cow;

    /// The concatenation of `parts` over `lanes` (each lane's value its array doubled, or the
    /// error of an index past its end where the array holds a negative value) and `others`,
    /// under `l`, appended to a destination holding `-7` (a caller's), or to an empty one
    /// where `fresh` (then `-7` is pushed after).
    fn run(
        l: Lanes,
        lanes: &[Vec<i64>],
        parts: &[Part],
        others: [Vec<i64>; 2],
        fresh: bool,
    ) -> crate::Result<Vec<i64>> {
        with_lanes(l, || {
            let mut out = Pieces::new();
            if !fresh {
                out.push(-7);
            }
            let [a, b] = others;
            Ctx::new().parts_owning_into(
                Owning::new(lanes.iter().cloned()),
                1,
                parts,
                [Cow::Owned(a), Cow::Borrowed(&b[..])],
                |_, k, xs: Cow<'_, [i64]>, out: &mut Pieces<i64>| {
                    for &x in xs.iter() {
                        if x < 0 {
                            index(&xs[..], i64::MAX, k)?;
                        }
                        out.push(x.wrapping_mul(2));
                    }
                    Ok(())
                },
                &mut out,
            )?;
            let mut all = out.into_vec()?;
            if fresh {
                all.insert(0, -7);
            }
            Ok(all)
        })
    }

    /// The same by the definition: the map's values, then the parts concatenated.
    fn reference(
        lanes: &[Vec<i64>],
        parts: &[Part],
        others: [Vec<i64>; 2],
    ) -> crate::Result<Vec<i64>> {
        let mut values = Vec::new();
        for (k, xs) in lanes.iter().enumerate() {
            let mut v = Vec::new();
            for &x in xs {
                if x < 0 {
                    index(&xs[..], i64::MAX, k)?;
                }
                v.push(x.wrapping_mul(2));
            }
            values.push(v);
        }
        let mut out = vec![-7];
        for p in parts {
            match *p {
                Part::Lane(k) => out.extend(&values[k]),
                Part::Other(j) => out.extend(&others[j]),
            }
        }
        Ok(out)
    }

    /// The parts of `lanes.len()` lanes with the other parts `o0` and `o1` placed by `at`.
    fn layout(lanes: usize, at: (u8, u8)) -> Vec<Part> {
        let mut parts: Vec<Part> = (0..lanes).map(Part::Lane).collect();
        parts.insert(usize::from(at.0) % (parts.len() + 1), Part::Other(0));
        parts.insert(usize::from(at.1) % (parts.len() + 1), Part::Other(1));
        parts
    }

    quickcheck! {
        fn every_layout_gives_the_definitions_values_and_first_error(
            lanes: Vec<Vec<i64>>,
            at: (u8, u8),
            others: (Vec<i64>, Vec<i64>)
        ) -> bool {
            let parts = layout(lanes.len(), at);
            let others = [others.0, others.1];
            let want = reference(&lanes, &parts, others.clone());
            [Lanes::Sequential, Lanes::Parallel, Lanes::Model].into_iter().all(|l| {
                [false, true].into_iter().all(|fresh| run(l, &lanes, &parts, others.clone(), fresh) == want)
            })
        }
    }

    #[test]
    fn heavy_lanes_run_in_parallel_and_keep_their_order_and_lane_numbers() {
        // Two lanes of 10^5 elements around a middle part, the second lane failing: its lane
        // number (1) is the error's, whichever way the lanes ran.
        let big: Vec<i64> = (0..100_000).collect();
        let mut failing = big.clone();
        failing[77] = -1;
        let parts = [Part::Lane(0), Part::Other(0), Part::Lane(1), Part::Other(1)];
        for l in [Lanes::Sequential, Lanes::Parallel, Lanes::Model] {
            for fresh in [false, true] {
                let ok = run(
                    l,
                    &[big.clone(), big.clone()],
                    &parts,
                    [vec![5], vec![]],
                    fresh,
                );
                let ok = ok.unwrap();
                assert_eq!(ok.len(), 200_002);
                assert_eq!((ok[1], ok[100_001], ok[100_002]), (0, 5, 0));
            }
            let lanes = [big.clone(), failing.clone()];
            let err = run(l, &lanes, &parts, [vec![5], vec![]], true);
            assert_eq!(
                err,
                reference(&[big.clone(), failing.clone()], &parts, [vec![5], vec![]])
            );
            assert!(format!("{}", err.unwrap_err()).contains("lane 1"), "{l:?}");
        }
    }
}
