//! Reductions and scans whose operator is a lambda, as bulk steps over all lanes: the
//! canonical association's leaves of each segment are left-to-right chains of applications of
//! the lifted operator, run side by side (step `t` applies the operator once to every chain
//! longer than `t`), then the leaves' results are combined in the canonical tree.
//!
//! Cost: one lifted application of the operator per element, in as many steps as the longest
//! chain (a leaf of [`flatland_runtime::assoc::LEAF`] elements), plus the combination of the
//! leaves.

use super::{Parts, assemble};
use crate::env::Env;
use crate::error::Result;
use crate::kernels::combine::Combine;
use crate::lval::LVal;
use flatland_runtime::assoc;
use flatland_segd::Segd;

/// The binary function of a reduction, applied lane by lane to two lifted values; `segs` names
/// the lane of the enclosing context each pair belongs to.
pub(super) type Apply<'a> = dyn FnMut(&LVal, &LVal, &[usize]) -> Result<LVal> + 'a;

/// Runs left-to-right chains of `apply` side by side: chain `c` starts from lane `c` of `init`
/// and folds in lanes `starts[c] .. starts[c] + counts[c]` of `xs`, one per step; step `t`
/// applies `apply` once to every chain longer than `t`. Returns the final value of each chain
/// and, if `keep`, the value after every step at its element position.
fn chains(
    init: &LVal,
    xs: &LVal,
    starts: &[usize],
    lens: &[usize],
    segs: &[usize],
    keep: bool,
    apply: &mut Apply<'_>,
) -> Result<(LVal, Parts)> {
    let nc = init.lanes();
    let mut order: Vec<usize> = (0..nc).collect();
    order.sort_by_key(|&c| std::cmp::Reverse(lens[c]));
    let mut head = init.gather(&order)?;
    let mut active = nc;
    let mut done = Vec::new();
    let mut kept = Vec::new();
    let mut t = 0;
    loop {
        let k = order[..active].partition_point(|&c| lens[c] > t);
        if k < active {
            let ids: Vec<usize> = (k..active).collect();
            done.push((order[k..active].to_vec(), head.gather(&ids)?));
            if k == 0 {
                break;
            }
            head = head.gather(&(0..k).collect::<Vec<_>>())?;
            active = k;
        }
        if active == 0 {
            break;
        }
        let pos: Vec<usize> = order[..active].iter().map(|&c| starts[c] + t).collect();
        let chain_segs: Vec<usize> = order[..active].iter().map(|&c| segs[c]).collect();
        let x = xs.gather(&pos)?;
        head = apply(&head, &x, &chain_segs)?;
        if keep {
            kept.push((pos, head.clone()));
        }
        t += 1;
    }
    Ok((
        if nc == 0 {
            init.clone()
        } else {
            assemble(done, nc)?
        },
        kept,
    ))
}

const SHORT: usize = 2 * assoc::LANES;

/// The final values of [`chains`] (no step kept): by the compiled operator's own step loop where
/// `fast` gives one and it takes the values, else by `apply`.
pub(super) fn chain_finals(
    init: &LVal,
    xs: &LVal,
    (starts, lens, segs): (&[usize], &[usize], &[usize]),
    apply: &mut Apply<'_>,
    fast: Option<(&Combine, &Env)>,
) -> Result<LVal> {
    if let Some((c, env)) = fast
        && let Some(v) = c.chains(init, xs, starts, lens, segs, env)
    {
        return Ok(v);
    }
    Ok(chains(init, xs, starts, lens, segs, false, apply)?.0)
}

/// Each segment of `xs` (contiguous, `segd`) folded from `z` (one lane per segment) with the
/// canonical association of [`assoc::fold`], as bulk steps of `apply` (the chains of steps by
/// `fast`'s compiled operator where it can).
pub(super) fn fold_chains(
    segd: &Segd,
    xs: &LVal,
    z: &LVal,
    apply: &mut Apply<'_>,
    fast: Option<(&Combine, &Env)>,
) -> Result<LVal> {
    let nseg = segd.len();
    let zx = LVal::append(z, xs)?;
    let (mut init, mut starts, mut lens, mut csegs) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    // Leaves in order: Ok(chain) for a short leaf, Err(k) for the k-th long leaf.
    let mut leaves: Vec<std::result::Result<usize, usize>> = Vec::new();
    let mut long_first = Vec::new();
    let mut leaf_first = vec![0; nseg];
    let mut leaf_count = vec![0; nseg];
    for (s, (start, len)) in segd.iter().enumerate() {
        leaf_first[s] = leaves.len();
        for l in (0..len).step_by(assoc::LEAF) {
            let (ls, ll) = (start + l, assoc::LEAF.min(len - l));
            leaf_count[s] += 1;
            if ll < SHORT {
                leaves.push(Ok(init.len()));
                init.push(s);
                starts.push(ls);
                lens.push(ll);
                csegs.push(s);
            } else {
                leaves.push(Err(long_first.len()));
                long_first.push(init.len());
                let lane = ll / assoc::LANES;
                for j in 0..assoc::LANES {
                    init.push(nseg + ls + j * lane);
                    starts.push(ls + j * lane + 1);
                    lens.push(if j + 1 < assoc::LANES {
                        lane - 1
                    } else {
                        ll - j * lane - 1
                    });
                    csegs.push(s);
                }
            }
        }
    }
    let finals = chain_finals(
        &zx.gather(&init)?,
        xs,
        (&starts, &lens, &csegs),
        apply,
        fast,
    )?;
    // Long leaves: ((l0 l1) (l2 l3)) ((l4 l5) (l6 l7)).
    let mut level = finals.gather(
        &long_first
            .iter()
            .flat_map(|&f| f..f + assoc::LANES)
            .collect::<Vec<_>>(),
    )?;
    let long_segs: Vec<usize> = long_first.iter().map(|&f| csegs[f]).collect();
    let mut width = assoc::LANES;
    while width > 1 {
        let half = width / 2;
        let nl = long_first.len();
        let left: Vec<usize> = (0..nl)
            .flat_map(|i| (0..half).map(move |j| i * width + 2 * j))
            .collect();
        let right: Vec<usize> = left.iter().map(|i| i + 1).collect();
        let segs: Vec<usize> = (0..nl)
            .flat_map(|i| std::iter::repeat_n(long_segs[i], half))
            .collect();
        level = apply(&level.gather(&left)?, &level.gather(&right)?, &segs)?;
        width = half;
    }
    let nshort = finals.lanes();
    let both = LVal::append(&finals, &level)?;
    let leaf_idx: Vec<usize> = leaves
        .iter()
        .map(|l| match l {
            Ok(c) => *c,
            Err(k) => nshort + k,
        })
        .collect();
    let leaf_vals = both.gather(&leaf_idx)?;
    let segs: Vec<usize> = (0..nseg).collect();
    chain_finals(
        z,
        &leaf_vals,
        (&leaf_first, &leaf_count, &segs),
        apply,
        fast,
    )
}

/// Each segment of `xs` scanned (inclusive) from `z` with the canonical association of
/// [`assoc::scan_inclusive`], as bulk steps.
pub(super) fn scan_chains(segd: &Segd, xs: &LVal, z: &LVal, apply: &mut Apply<'_>) -> Result<LVal> {
    let total = xs.lanes();
    if total == 0 {
        return Ok(xs.clone());
    }
    let (mut lstart, mut starts, mut lens, mut lsegs) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut leaf_of = vec![0; total];
    let mut carry_first = Vec::new();
    let mut carry_len = Vec::new();
    let mut carry_segs = Vec::new();
    for (s, (start, len)) in segd.iter().enumerate() {
        if len == 0 {
            continue;
        }
        carry_first.push(lstart.len());
        carry_segs.push(s);
        let mut nleaves = 0;
        for l in (0..len).step_by(assoc::LEAF) {
            let (ls, ll) = (start + l, assoc::LEAF.min(len - l));
            leaf_of[ls..ls + ll].fill(lstart.len());
            lstart.push(ls);
            starts.push(ls + 1);
            lens.push(ll - 1);
            lsegs.push(s);
            nleaves += 1;
        }
        carry_len.push(nleaves - 1);
    }
    let firsts = xs.gather(&lstart)?;
    let (totals, kept) = chains(&firsts, xs, &starts, &lens, &lsegs, true, apply)?;
    let mut parts = vec![(lstart.clone(), firsts)];
    parts.extend(kept);
    let prefix = assemble(parts, total)?;
    let zc = z.gather(&carry_segs)?;
    let (_, kept) = chains(
        &zc,
        &totals,
        &carry_first,
        &carry_len,
        &carry_segs,
        true,
        apply,
    )?;
    let mut parts = vec![(carry_first.clone(), zc)];
    parts.extend(
        kept.into_iter()
            .map(|(pos, v)| (pos.into_iter().map(|p| p + 1).collect(), v)),
    );
    let carries = assemble(parts, lstart.len())?;
    let pos_segs: Vec<usize> = leaf_of.iter().map(|&l| lsegs[l]).collect();
    apply(&carries.gather(&leaf_of)?, &prefix, &pos_segs)
}
