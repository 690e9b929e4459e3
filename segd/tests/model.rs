//! quickcheck properties: every descriptor operation against the naive `Vec<Vec<u32>>` model.

mod common;

use common::{AnySegd, Nested, materialise};
use flatland_segd::{Error, SSegd, Segd, VSegd};
use quickcheck::{QuickCheck, TestResult};

fn check<A: quickcheck::Testable>(prop: A) {
    QuickCheck::new().tests(400).quickcheck(prop);
}

/// The checks every result of an operation must pass against its expected nested array.
fn agrees(v: &VSegd, blocks: &[Vec<u32>], expected: &[Vec<u32>]) -> Result<(), String> {
    v.validate().map_err(|e| format!("validate: {e}"))?;
    let got = materialise(v, blocks);
    if got != expected {
        return Err(format!("nested array {got:?}, expected {expected:?}"));
    }
    let lengths: Vec<usize> = expected.iter().map(Vec::len).collect();
    if v.lengths() != lengths || v.len() != expected.len() || v.is_empty() != expected.is_empty() {
        return Err(format!("lengths {:?}, expected {lengths:?}", v.lengths()));
    }
    let total: u64 = lengths.iter().map(|&l| l as u64).sum();
    if v.virtual_elements() != total || v.virtual_elements_usize() != Some(total as usize) {
        return Err(format!(
            "virtual elements {}, expected {total}",
            v.virtual_elements()
        ));
    }
    if (0..v.len())
        .any(|i| v.physical(i) != v.ssegd().pseg(v.vsegid(i)) || v.vsegids()[i] != v.vsegid(i))
    {
        return Err("physical(i), vsegid(i) and vsegids() disagree".into());
    }
    if v.is_manifest() && (0..v.len()).any(|i| v.vsegid(i) != i) || v.len() != v.vsegids().len() {
        return Err("manifest flag wrong".into());
    }
    Ok(())
}

#[test]
fn generated_descriptors_are_valid() {
    fn prop(a: Nested) -> Result<(), String> {
        let expected = a.model();
        agrees(&a.vsegd, &a.blocks, &expected)
    }
    check(prop as fn(Nested) -> Result<(), String>);
}

#[test]
fn replicate_matches_model() {
    fn prop(a: Nested, n: u8) -> Result<(), String> {
        let n = usize::from(n % 5);
        let model = a.model();
        let expected: Vec<Vec<u32>> = model
            .iter()
            .cloned()
            .cycle()
            .take(model.len() * n)
            .collect();
        let r = a.vsegd.replicate(n).map_err(|e| e.to_string())?;
        agrees(&r, &a.blocks, &expected)?;
        // Replicating twice is replicating by the product.
        let rr = r.replicate(2).map_err(|e| e.to_string())?;
        agrees(&rr, &a.blocks, &[expected.clone(), expected].concat())
    }
    check(prop as fn(Nested, u8) -> Result<(), String>);
}

#[test]
fn replicate_s_matches_model() {
    fn prop(a: Nested, seed: Vec<u8>) -> Result<(), String> {
        let counts: Vec<usize> = (0..a.vsegd.len())
            .map(|i| usize::from(seed.get(i).copied().unwrap_or(1) % 4))
            .collect();
        let expected: Vec<Vec<u32>> = a
            .model()
            .into_iter()
            .zip(&counts)
            .flat_map(|(s, &c)| std::iter::repeat_n(s, c))
            .collect();
        let r = a.vsegd.replicate_s(&counts).map_err(|e| e.to_string())?;
        agrees(&r, &a.blocks, &expected)?;
        let bad = a.vsegd.replicate_s(&[counts.clone(), vec![1]].concat());
        if !matches!(
            bad,
            Err(Error::LengthMismatch {
                op: "replicate_s",
                ..
            })
        ) {
            return Err(format!("counts too long accepted: {bad:?}"));
        }
        Ok(())
    }
    check(prop as fn(Nested, Vec<u8>) -> Result<(), String>);
}

#[test]
fn pack_matches_model() {
    fn prop(a: Nested, seed: Vec<bool>) -> Result<(), String> {
        let mask: Vec<bool> = (0..a.vsegd.len())
            .map(|i| seed.get(i).copied().unwrap_or(i % 3 == 0))
            .collect();
        let expected: Vec<Vec<u32>> = a
            .model()
            .into_iter()
            .zip(&mask)
            .filter(|&(_, &m)| m)
            .map(|(s, _)| s)
            .collect();
        let r = a
            .vsegd
            .pack(mask.iter().copied())
            .map_err(|e| e.to_string())?;
        agrees(&r, &a.blocks, &expected)?;
        // Pack never touches the physical segments.
        if r.ssegd() != a.vsegd.ssegd() {
            return Err("pack changed the physical segments".into());
        }
        let short = a.vsegd.pack(mask.iter().copied().skip(1));
        let long = a.vsegd.pack(mask.iter().copied().chain([true]));
        let n = a.vsegd.len();
        let (want_short, want_long) = (
            Error::LengthMismatch {
                op: "pack",
                what: "mask",
                expected: n,
                found: n.saturating_sub(1),
            },
            Error::LengthMismatch {
                op: "pack",
                what: "mask",
                expected: n,
                found: n + 1,
            },
        );
        if n > 0 && short != Err(want_short) || long != Err(want_long) {
            return Err(format!("bad masks: {short:?} {long:?}"));
        }
        Ok(())
    }
    check(prop as fn(Nested, Vec<bool>) -> Result<(), String>);
}

#[test]
fn append_matches_model() {
    fn prop(a: Nested, b: Nested) -> Result<(), String> {
        let r = a.vsegd.append(&b.vsegd).map_err(|e| e.to_string())?;
        let blocks = [a.blocks.clone(), b.blocks.clone()].concat();
        agrees(&r, &blocks, &[a.model(), b.model()].concat())?;
        if r.ssegd().block_lens().len() != a.blocks.len() + b.blocks.len() {
            return Err("blocks not appended".into());
        }
        if a.vsegd.is_manifest() && b.vsegd.is_manifest() && !r.is_manifest() {
            return Err("manifest + manifest lost the flag".into());
        }
        Ok(())
    }
    check(prop as fn(Nested, Nested) -> Result<(), String>);
}

#[test]
fn ssegd_concat_matches_model() {
    fn prop(parts: Vec<Nested>) -> Result<(), String> {
        let parts = &parts[..parts.len().min(5)];
        let c = SSegd::concat(parts.iter().map(|p| p.vsegd.ssegd())).map_err(|e| e.to_string())?;
        let blocks: Vec<Vec<u32>> = parts.iter().flat_map(|p| p.blocks.clone()).collect();
        let expected: Vec<Vec<u32>> = parts
            .iter()
            .flat_map(|p| materialise(&VSegd::manifest(p.vsegd.ssegd().clone()), &p.blocks))
            .collect();
        agrees(&VSegd::manifest(c.clone()), &blocks, &expected)?;
        let folded = parts.iter().try_fold(SSegd::concat([]).unwrap(), |acc, p| {
            acc.append(p.vsegd.ssegd())
        });
        if folded.as_ref() != Ok(&c) {
            return Err("concat differs from repeated append".into());
        }
        Ok(())
    }
    check(prop as fn(Vec<Nested>) -> Result<(), String>);
}

#[test]
fn vsegd_concat_matches_model() {
    fn prop(parts: Vec<Nested>) -> Result<(), String> {
        let parts = &parts[..parts.len().min(5)];
        let c = VSegd::concat(parts.iter().map(|p| &p.vsegd)).map_err(|e| e.to_string())?;
        let blocks: Vec<Vec<u32>> = parts.iter().flat_map(|p| p.blocks.clone()).collect();
        let expected: Vec<Vec<u32>> = parts.iter().flat_map(Nested::model).collect();
        agrees(&c, &blocks, &expected)?;
        let folded = parts
            .iter()
            .try_fold(VSegd::concat([]).unwrap(), |acc, p| acc.append(&p.vsegd));
        if folded.as_ref() != Ok(&c) {
            return Err("concat differs from repeated append".into());
        }
        if parts.iter().all(|p| p.vsegd.is_manifest()) && !c.is_manifest() {
            return Err("manifest parts lost the flag".into());
        }
        Ok(())
    }
    check(prop as fn(Vec<Nested>) -> Result<(), String>);
}

#[test]
fn combine_matches_model() {
    fn prop(a: Nested, b: Nested, seed: Vec<bool>) -> Result<(), String> {
        // Interleave: take from `seed` while both sides have segments left, then the rest.
        let (n, m) = (a.vsegd.len(), b.vsegd.len());
        let (mut i, mut j, mut selector) = (0, 0, vec![]);
        for &s in &seed {
            if s && j < m {
                j += 1;
                selector.push(true);
            } else if !s && i < n {
                i += 1;
                selector.push(false);
            }
        }
        selector.extend(std::iter::repeat_n(false, n - i));
        selector.extend(std::iter::repeat_n(true, m - j));
        let (ma, mb) = (a.model(), b.model());
        let (mut ia, mut ib) = (ma.into_iter(), mb.into_iter());
        let expected: Vec<Vec<u32>> = selector
            .iter()
            .map(|&s| if s { ib.next() } else { ia.next() }.unwrap())
            .collect();
        let r = a
            .vsegd
            .combine(&b.vsegd, selector.iter().copied())
            .map_err(|e| e.to_string())?;
        let blocks = [a.blocks.clone(), b.blocks.clone()].concat();
        agrees(&r, &blocks, &expected)?;
        let extra = a
            .vsegd
            .combine(&b.vsegd, selector.iter().copied().chain([false]));
        if extra
            != Err(Error::SelectorCount {
                side: "self",
                expected: n,
                found: n + 1,
            })
        {
            return Err(format!("selector too long accepted: {extra:?}"));
        }
        let short = a
            .vsegd
            .combine(&b.vsegd, selector.iter().copied().filter(|&s| !s));
        if m > 0
            && short
                != Err(Error::SelectorCount {
                    side: "other",
                    expected: m,
                    found: 0,
                })
        {
            return Err(format!("selector too short accepted: {short:?}"));
        }
        Ok(())
    }
    check(prop as fn(Nested, Nested, Vec<bool>) -> Result<(), String>);
}

#[test]
fn extract_matches_model() {
    fn prop(a: Nested, x: usize, y: usize) -> Result<(), String> {
        let n = a.vsegd.len();
        let (lo, hi) = (x % (n + 1), y % (n + 1));
        let (lo, hi) = (lo.min(hi), lo.max(hi));
        let r = a.vsegd.extract(lo..hi).map_err(|e| e.to_string())?;
        agrees(&r, &a.blocks, &a.model()[lo..hi])?;
        if a.vsegd.is_manifest() != r.is_manifest() && a.vsegd.is_manifest() {
            return Err("extract of a manifest descriptor is not manifest".into());
        }
        #[allow(clippy::reversed_empty_ranges)]
        let bad = [a.vsegd.extract(lo..n + 1), a.vsegd.extract(hi + 1..hi)];
        if !bad
            .iter()
            .all(|r| matches!(r, Err(Error::RangeOutOfBounds { op: "extract", .. })))
        {
            return Err(format!("bad ranges accepted: {bad:?}"));
        }
        Ok(())
    }
    check(prop as fn(Nested, usize, usize) -> Result<(), String>);
}

/// Reachability computed naively from the definition.
fn naive_reach(v: &VSegd) -> (Vec<bool>, Vec<bool>) {
    let s = v.ssegd();
    let mut segs = vec![false; s.len()];
    for i in 0..v.len() {
        segs[v.vsegid(i)] = true;
    }
    let mut blocks = vec![false; s.num_blocks()];
    for i in (0..s.len()).filter(|&i| segs[i]) {
        blocks[s.source(i)] = true;
    }
    (segs, blocks)
}

#[test]
fn cull_matches_model() {
    fn prop(a: Nested) -> Result<(), String> {
        let (segs, used) = naive_reach(&a.vsegd);
        let culled = !segs.contains(&false) && !used.contains(&false);
        if a.vsegd.is_culled() != culled {
            return Err(format!(
                "is_culled {} but naively {culled}",
                a.vsegd.is_culled()
            ));
        }
        let reachable: usize = (0..segs.len())
            .filter(|&i| segs[i])
            .map(|i| a.vsegd.ssegd().length(i))
            .sum();
        let physical = a.vsegd.physical_elements();
        if a.vsegd.reachable_elements() != reachable
            || a.vsegd.should_cull() != (2 * reachable < physical)
        {
            return Err(format!(
                "reachable {} / {physical}, naively {reachable}",
                a.vsegd.reachable_elements()
            ));
        }
        let c = a.vsegd.cull();
        let blocks: Vec<Vec<u32>> = c.blocks.iter().map(|&b| a.blocks[b].clone()).collect();
        agrees(&c.vsegd, &blocks, &a.model())?;
        let expected_blocks: Vec<usize> = (0..used.len()).filter(|&b| used[b]).collect();
        if c.blocks != expected_blocks {
            return Err(format!(
                "blocks {:?}, expected {expected_blocks:?}",
                c.blocks
            ));
        }
        if !c.vsegd.is_culled() || c.vsegd.ssegd().len() != segs.iter().filter(|&&s| s).count() {
            return Err("cull left unreachable segments or blocks".into());
        }
        if c.vsegd.should_cull() || c.vsegd.cull().vsegd != c.vsegd {
            return Err("cull is not idempotent".into());
        }
        if a.vsegd.cull_if_sparse().is_some() != a.vsegd.should_cull() {
            return Err("cull_if_sparse disagrees with should_cull".into());
        }
        Ok(())
    }
    check(prop as fn(Nested) -> Result<(), String>);
}

#[test]
fn demote_matches_model() {
    fn prop(a: Nested) -> Result<(), String> {
        let (segd, plan) = a.vsegd.demote().map_err(|e| e.to_string())?;
        segd.validate().map_err(|e| e.to_string())?;
        // Gathering by the plan gives the flat data; the Segd cuts it back into the model.
        let flat: Vec<u32> = plan
            .iter()
            .flat_map(|p| a.blocks[p.source][p.start..p.start + p.len].iter().copied())
            .collect();
        let back: Vec<Vec<u32>> = segd.iter().map(|(s, l)| flat[s..s + l].to_vec()).collect();
        let promoted = VSegd::from_segd(&segd);
        if back != a.model() || promoted.lengths() != a.vsegd.lengths() {
            return Err(format!("demoted {back:?}, expected {:?}", a.model()));
        }
        agrees(&promoted, &[flat], &a.model())
    }
    check(prop as fn(Nested) -> Result<(), String>);
}

#[test]
fn equality_ignores_storage_form() {
    fn prop(a: Nested) -> bool {
        let v = &a.vsegd;
        let explicit = VSegd::new(v.vsegids().into_owned(), v.ssegd().clone());
        let s = v.ssegd();
        let scattered = SSegd::new(
            s.sources().into_owned(),
            s.starts().into_owned(),
            s.segd().lengths().into_owned(),
            s.block_lens().to_vec(),
        );
        explicit == *v && VSegd::new(v.vsegids().into_owned(), scattered) == *v
    }
    check(prop as fn(Nested) -> bool);
}

/// The chunks of `split_on_elements`, checked against the definition element by element.
#[test]
fn split_on_elements_matches_model() {
    fn prop(s: AnySegd, k: u8) -> Result<(), String> {
        let s = s.0;
        let k = usize::from(k % 9);
        let chunks = s.split_on_elements(k);
        let kk = k.max(1);
        if chunks.len() != kk {
            return Err(format!("{} chunks for k = {k}", chunks.len()));
        }
        let total = s.elements();
        let mut next = 0;
        let mut covered = vec![];
        for (c, ch) in chunks.iter().enumerate() {
            let (a, b) = (ch.start_element, ch.start_element + ch.elements);
            if a != next || ch.elements.abs_diff(total / kk) > 1 {
                return Err(format!(
                    "chunk {c}: elements {a}..{b} unbalanced or not adjacent"
                ));
            }
            next = b;
            // Segments touched by definition: non-empty ones overlapping a..b; empty ones at a
            // position p with a <= p < b, or p = total for the last chunk.
            let last = c + 1 == kk;
            let touched: Vec<usize> = s
                .iter()
                .enumerate()
                .filter(|&(_, (st, l))| {
                    if l > 0 {
                        st < b && st + l > a
                    } else {
                        (a <= st && st < b) || (last && st == total)
                    }
                })
                .map(|(i, _)| i)
                .collect();
            if touched.len() != ch.segments || touched.windows(2).any(|w| w[1] != w[0] + 1) {
                return Err(format!(
                    "chunk {c}: {ch:?}, touched by definition {touched:?}"
                ));
            }
            if let Some(&first) = touched.first() {
                let offset = a.saturating_sub(s.start(first));
                if ch.first_segment != first || ch.first_offset != offset {
                    return Err(format!(
                        "chunk {c}: {ch:?}, first {first} at offset {offset}"
                    ));
                }
            }
            // The chunk's first element is where segment_of_element puts it.
            if ch.elements > 0 {
                let (seg, off) = s.segment_of_element(a);
                if seg < ch.first_segment
                    || seg >= ch.first_segment + ch.segments
                    || off != ch.first_offset
                {
                    return Err(format!(
                        "chunk {c}: {ch:?}, segment_of_element({a}) = {:?}",
                        (seg, off)
                    ));
                }
            }
            covered.extend(touched);
        }
        if next != total {
            return Err(format!("chunks cover {next} of {total} elements"));
        }
        // Every segment is in some chunk, in order.
        covered.dedup();
        if covered != (0..s.len()).collect::<Vec<_>>() {
            return Err(format!("chunks touch segments {covered:?} of {}", s.len()));
        }
        Ok(())
    }
    check(prop as fn(AnySegd, u8) -> Result<(), String>);
}

#[test]
fn segment_of_element_matches_model() {
    fn prop(s: AnySegd) -> Result<(), String> {
        let s = s.0;
        // Every element for small descriptors; segment edges and middles for huge ones.
        let probes: Vec<usize> = if s.elements() <= 1_000 {
            (0..s.elements()).collect()
        } else {
            s.iter()
                .filter(|&(_, l)| l > 0)
                .flat_map(|(st, l)| [st, st + l / 2, st + l - 1])
                .collect()
        };
        for e in probes {
            let naive = s
                .iter()
                .enumerate()
                .find(|&(_, (st, l))| st <= e && e < st + l)
                .map(|(i, (st, _))| (i, e - st));
            if Some(s.segment_of_element(e)) != naive {
                return Err(format!(
                    "element {e}: {:?}, naively {naive:?}",
                    s.segment_of_element(e)
                ));
            }
        }
        let e = s.elements();
        if s.try_segment_of_element(e)
            != Err(Error::ElementOutOfRange {
                element: e,
                elements: e,
            })
        {
            return Err("element past the end accepted".into());
        }
        Ok(())
    }
    check(prop as fn(AnySegd) -> Result<(), String>);
}

#[test]
fn segments_of_elements_matches_one_by_one() {
    fn prop(s: AnySegd, picks: Vec<u16>, keep: u8) -> Result<(), String> {
        let s = s.0;
        let n = s.elements();
        // An increasing subset (the lanes a mask keeps), then arbitrary order.
        let step = usize::from(keep % 7) + 1;
        let mut es: Vec<usize> = (0..n.min(5_000)).step_by(step).collect();
        if n > 5_000 {
            es.extend([n / 2, n - 1]);
        }
        es.extend(
            picks
                .iter()
                .filter(|_| n > 0)
                .map(|&p| usize::from(p) % n.max(1)),
        );
        let one_by_one: Vec<usize> = es.iter().map(|&e| s.segment_of_element(e).0).collect();
        match s.segments_of_elements(&es) {
            Ok(got) if got == one_by_one => {}
            other => return Err(format!("{es:?}: {other:?}, one by one {one_by_one:?}")),
        }
        let bad = [0, n];
        if s.segments_of_elements(&bad[usize::from(n == 0)..])
            != Err(Error::ElementOutOfRange {
                element: n,
                elements: n,
            })
        {
            return Err("element past the end accepted".into());
        }
        Ok(())
    }
    check(prop as fn(AnySegd, Vec<u16>, u8) -> Result<(), String>);
}

#[test]
fn from_lengths_is_exact_or_overflows() {
    fn prop(lengths: Vec<(u8, u8)>) -> bool {
        // Lengths anywhere from 0 to usize::MAX, many near u32::MAX.
        let lengths: Vec<usize> = lengths
            .iter()
            .map(|&(k, x)| match k % 4 {
                0 => usize::from(x),
                1 => u32::MAX as usize - usize::from(x),
                2 => usize::MAX / 4 - usize::from(x),
                _ => usize::MAX - usize::from(x),
            })
            .collect();
        let sum: u128 = lengths.iter().map(|&l| l as u128).sum();
        let first_over = (1..=lengths.len())
            .find(|&k| lengths[..k].iter().map(|&l| l as u128).sum::<u128>() > usize::MAX as u128);
        match Segd::from_lengths(lengths.clone()) {
            Ok(s) => {
                first_over.is_none()
                    && s.elements() as u128 == sum
                    && s.validate().is_ok()
                    && s.lengths() == lengths
            }
            Err(Error::Overflow { position, .. }) => first_over.map(|k| k - 1) == position,
            Err(_) => false,
        }
    }
    check(prop as fn(Vec<(u8, u8)>) -> bool);
}

#[test]
fn regular_agrees_with_explicit() {
    fn prop(n: u8, len: u8, k: u8) -> bool {
        let (n, len) = (usize::from(n % 20), usize::from(len % 6));
        let r = Segd::regular(n, len);
        let e = Segd::from_lengths(vec![len; n]).unwrap();
        r == e
            && r.validate().is_ok()
            && r.lengths() == e.lengths()
            && r.starts() == e.starts()
            && r.split_on_elements(usize::from(k)) == e.split_on_elements(usize::from(k))
            && (0..r.elements()).all(|x| r.segment_of_element(x) == e.segment_of_element(x))
            && VSegd::from_segd(&r) == VSegd::from_segd(&e)
    }
    check(prop as fn(u8, u8, u8) -> bool);
}

/// `try_new` accepts exactly the descriptors the definition allows, and names the first
/// violation.
#[test]
fn segd_try_new_agrees_with_definition() {
    fn prop(segs: Vec<(u8, u8)>, drop_start: bool, delta: u8) -> TestResult {
        // Mostly valid descriptors with a few perturbations, so every outcome occurs.
        let lengths: Vec<usize> = segs.iter().map(|s| usize::from(s.0 % 4)).collect();
        let mut starts: Vec<usize> = lengths
            .iter()
            .scan(0, |acc, &l| {
                let s = *acc;
                *acc += l;
                Some(s)
            })
            .zip(&segs)
            .map(|(s, seg)| {
                if seg.1 % 8 == 0 {
                    s + usize::from(seg.1 % 3) + 1
                } else {
                    s
                }
            })
            .collect();
        if drop_start && delta % 4 == 0 {
            starts.pop();
        }
        let total: usize = lengths.iter().sum();
        let elements = match delta % 5 {
            0 => total + 1,
            1 => total.saturating_sub(1),
            _ => total,
        };
        let r = Segd::try_new(lengths.clone(), starts.clone(), elements);
        let expected = if starts.len() == lengths.len() {
            let scan: Vec<usize> = lengths
                .iter()
                .scan(0, |acc, &l| {
                    let s = *acc;
                    *acc += l;
                    Some(s)
                })
                .collect();
            let sum: usize = lengths.iter().sum();
            match (0..lengths.len()).find(|&i| starts[i] != scan[i]) {
                Some(i) => Err(Error::StartNotScan {
                    segment: i,
                    start: starts[i],
                    expected: scan[i],
                }),
                None if sum != elements => Err(Error::ElementCount {
                    found: elements,
                    expected: sum,
                }),
                None => Ok(()),
            }
        } else {
            Err(Error::FieldLength {
                field: "starts",
                expected: lengths.len(),
                found: starts.len(),
            })
        };
        TestResult::from_bool(r.map(|_| ()) == expected)
    }
    QuickCheck::new()
        .tests(1000)
        .quickcheck(prop as fn(Vec<(u8, u8)>, bool, u8) -> TestResult);
}

#[test]
fn ssegd_try_new_agrees_with_definition() {
    fn prop(segs: Vec<(u8, u8, u8)>, block_lens: Vec<u8>) -> bool {
        let sources: Vec<usize> = segs.iter().map(|s| usize::from(s.0 % 4)).collect();
        let starts: Vec<usize> = segs.iter().map(|s| usize::from(s.1 % 8)).collect();
        let lengths: Vec<usize> = segs.iter().map(|s| usize::from(s.2 % 8)).collect();
        let block_lens: Vec<usize> = block_lens
            .into_iter()
            .map(|b| usize::from(b % 12))
            .collect();
        let expected = (0..segs.len()).find_map(|i| {
            if sources[i] >= block_lens.len() {
                Some(Error::SourceOutOfRange {
                    segment: i,
                    source: sources[i],
                    blocks: block_lens.len(),
                })
            } else if starts[i] + lengths[i] > block_lens[sources[i]] {
                Some(Error::SegmentOutOfBlock {
                    segment: i,
                    start: starts[i],
                    len: lengths[i],
                    block: sources[i],
                    block_len: block_lens[sources[i]],
                })
            } else {
                None
            }
        });
        let r = SSegd::try_new(sources, starts, lengths, block_lens);
        match (r, expected) {
            (Ok(s), None) => s.validate().is_ok(),
            (Err(e), Some(x)) => e == x,
            _ => false,
        }
    }
    QuickCheck::new()
        .tests(1000)
        .quickcheck(prop as fn(Vec<(u8, u8, u8)>, Vec<u8>) -> bool);
}

/// Virtual element counts far past `u32::MAX`, and overflow of `u64` reported, never wrapped.
#[test]
fn huge_virtual_counts_are_exact_or_errors() {
    fn prop(a: Nested, n: u64) -> TestResult {
        let n = (n % (1 << 40)) as usize;
        let total = u128::from(a.vsegd.virtual_elements()) * n as u128;
        let segs = a.vsegd.len() as u128 * n as u128;
        // Explicit vsegids are materialised n times: only try those small enough.
        let explicit = a.vsegd.stored_entries() > a.vsegd.ssegd().stored_entries();
        if explicit && segs > 1 << 16 {
            return TestResult::discard();
        }
        TestResult::from_bool(match a.vsegd.replicate(n) {
            Ok(r) => {
                u128::from(r.virtual_elements()) == total
                    && r.len() as u128 == segs
                    && r.validate().is_ok()
            }
            Err(Error::Overflow { .. }) => {
                total > u128::from(u64::MAX) || segs > usize::MAX as u128
            }
            Err(_) => false,
        })
    }
    QuickCheck::new()
        .tests(300)
        .quickcheck(prop as fn(Nested, u64) -> TestResult);
}

#[test]
fn as_contiguous_matches_model() {
    fn prop(a: Nested) -> Result<(), String> {
        let v = &a.vsegd;
        // Naively: manifest, one block, and the segments tile the block in order.
        let ss = v.ssegd();
        let mut at = 0;
        let mut tiled = v.is_manifest() && ss.num_blocks() == 1;
        for i in 0..ss.len() {
            tiled &= ss.source(i) == 0 && ss.start(i) == at;
            at += ss.length(i);
        }
        tiled &= ss.block_lens() == [at];
        match v.as_contiguous() {
            Some(segd) if tiled => {
                let flat: Vec<u32> = a.model().concat();
                let block = &a.blocks[0];
                let lengths: Vec<usize> = a.model().iter().map(Vec::len).collect();
                if *segd.lengths() != lengths || block[..] != flat[..] {
                    return Err(format!("as_contiguous gave {segd:?} over {block:?}"));
                }
                Ok(())
            }
            None if !tiled => Ok(()),
            got => Err(format!("as_contiguous {got:?}, naively tiled = {tiled}")),
        }
    }
    check(prop as fn(Nested) -> Result<(), String>);
}

#[test]
fn same_lengths_matches_model() {
    fn prop(a: Nested, b: Nested) -> Result<(), String> {
        let lens = |n: &Nested| n.model().iter().map(Vec::len).collect::<Vec<_>>();
        // A manifest copy of `a`'s lengths (the fast path) and a random other descriptor.
        let manifest = VSegd::from_segd(&Segd::from_lengths(lens(&a)).map_err(|e| e.to_string())?);
        for (x, y) in [
            (&a.vsegd, &manifest),
            (&manifest, &a.vsegd),
            (&a.vsegd, &b.vsegd),
        ] {
            let want = x.lengths() == y.lengths();
            if x.same_lengths(y) != want {
                return Err(format!("same_lengths {x:?} {y:?}: want {want}"));
            }
        }
        if !a.vsegd.same_lengths(&a.vsegd.clone()) || !manifest.same_lengths(&manifest) {
            return Err("not the same lengths as itself".into());
        }
        Ok(())
    }
    check(prop as fn(Nested, Nested) -> Result<(), String>);
}
