//! Carries chained from block to block, for scans that read their input once in parallel.
//!
//! A two-pass parallel scan reads its input twice: once for the leaf totals, once more to scan
//! from each task's carry. Here the input is cut into blocks of whole leaves that the workers
//! claim in order ([`super::slots::build_vec_claimed`]); a worker copies its block into the
//! output, writes the carry-free leaf prefixes there (in cache), takes the carry into its block
//! from its predecessor's worker, publishes the carry out of it, and only then combines the
//! prefixes with the carries. Each block's input is read once and its output written once.
//!
//! The carries are the canonical ones (`c_{b+1} = c_b ⊕ total_b`, leaf by leaf from the
//! identity, [`crate::assoc::scan_inclusive_into`]) whoever computes them, so the bits do not
//! depend on the schedule. Nothing ever blocks: a worker whose predecessor has not published
//! after [`SPIN`] polls (its thread preempted, a panic, or the pool busy elsewhere) computes the
//! missing carries itself from the input, back to the nearest published one. That re-reads
//! those blocks; how often it happens depends on timing, so it is not in the work counters
//! (which are the same for every pool and run) but in a process-wide count of its own,
//! [`carries_recomputed`].

use super::leaves::leaf_totals;
use std::ops::Range;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// Blocks whose carry a scan worker computed from the input instead of waiting longer.
static RECOMPUTED: AtomicU64 = AtomicU64::new(0);

/// How many blocks of a parallel scan, since the process started, had their carry computed from
/// the input by a later block's worker, which did not wait longer for the worker that held
/// them (a preempted thread, say). Each costs one extra read of a block of
/// `8 * assoc::LEAF` elements; the results are the same bits either way.
///
/// ```
/// use flatland_runtime::{flat, sched};
/// let xs: Vec<u64> = (0..1 << 20).collect();
/// let before = sched::carries_recomputed();
/// let sums = flat::scan_inclusive(&xs, 0, |a, b| a + b);
/// let extra_blocks_read = sched::carries_recomputed() - before; // usually 0
/// assert_eq!(sums[3], 6);
/// # let _ = extra_blocks_read;
/// ```
pub fn carries_recomputed() -> u64 {
    RECOMPUTED.load(Ordering::Relaxed)
}

/// Polls of a predecessor's carry before computing it here: about a block's scan (tens of
/// microseconds), so that a worker waits only for a predecessor that is running.
pub(crate) const SPIN: usize = 1 << 12;

/// The carry out of each block of a scan of `xs` in blocks of `block` elements, each set once
/// by whichever worker computes it first.
pub(crate) struct Chain<'a, T, Op> {
    xs: &'a [T],
    block: usize,
    identity: T,
    op: &'a Op,
    carries: Vec<OnceLock<T>>,
}

impl<'a, T, Op> Chain<'a, T, Op>
where
    T: Copy + Send + Sync,
    Op: Fn(T, T) -> T,
{
    /// No carry known yet for any block of `xs` (blocks of `block` elements, whole leaves).
    pub(crate) fn new(xs: &'a [T], block: usize, identity: T, op: &'a Op) -> Self {
        Chain {
            xs,
            block,
            identity,
            op,
            carries: (0..xs.len().div_ceil(block))
                .map(|_| OnceLock::new())
                .collect(),
        }
    }

    /// The elements of block `b`.
    fn range(&self, b: usize) -> Range<usize> {
        b * self.block..((b + 1) * self.block).min(self.xs.len())
    }

    /// Records the carry out of block `b` (a second record of the same bits is dropped).
    pub(crate) fn publish(&self, b: usize, carry_out: T) {
        let _ = self.carries[b].set(carry_out);
    }

    /// The carry into block `b`: the identity for the first block, else the carry out of block
    /// `b - 1`, waited for [`SPIN`] polls and then computed here from the input.
    pub(crate) fn carry_into(&self, b: usize) -> T {
        let Some(before) = b.checked_sub(1) else {
            return self.identity;
        };
        for _ in 0..SPIN {
            if let Some(&c) = self.carries[before].get() {
                return c;
            }
            std::hint::spin_loop();
        }
        self.compute_into(b)
    }

    /// The carry into block `b` computed from the nearest published carry before it (or the
    /// identity), folding the leaf totals of the blocks in between, which are published too.
    #[cold]
    fn compute_into(&self, b: usize) -> T {
        let mut from = b;
        while from > 0 && self.carries[from - 1].get().is_none() {
            from -= 1;
        }
        let mut carry = match from.checked_sub(1) {
            None => self.identity,
            Some(k) => *self.carries[k].get().expect("found published above"),
        };
        for k in from..b {
            if let Some(&c) = self.carries[k].get() {
                carry = c;
                continue;
            }
            RECOMPUTED.fetch_add(1, Ordering::Relaxed);
            carry = leaf_totals(&self.xs[self.range(k)], self.op)
                .into_iter()
                .fold(carry, |c, t| (self.op)(c, t));
            self.publish(k, carry);
        }
        carry
    }

    /// The carry out of the last block (the scan's total), once every block has been scanned;
    /// the identity for an empty input.
    pub(crate) fn total(&self) -> T {
        match self.carries.last() {
            None => self.identity,
            Some(c) => *c.get().expect("every block publishes its carry"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assoc::{self, LEAF};

    /// The carry into block `b` of `xs` in blocks of `block`, from the canonical sequential scan.
    fn canonical_carry(xs: &[f64], block: usize, b: usize) -> f64 {
        let mut out = vec![0.0; b * block];
        assoc::scan_inclusive_into(&xs[..b * block], 0.0, &mut out, |x, y| x + y)
    }

    #[test]
    fn a_carry_nobody_published_is_computed_with_the_canonical_bits() {
        let xs: Vec<f64> = (0..10 * LEAF + 77)
            .map(|i| 1.0 / (1.0 + i as f64))
            .collect();
        let add = |x: f64, y: f64| x + y;
        let block = 2 * LEAF;
        for b in 0..xs.len().div_ceil(block) {
            // Nothing published: computed from the identity.
            let chain = Chain::new(&xs, block, 0.0, &add);
            let before = carries_recomputed();
            let c = chain.carry_into(b);
            assert_eq!(
                c.to_bits(),
                canonical_carry(&xs, block, b).to_bits(),
                "block {b}"
            );
            assert!(carries_recomputed() >= before + b as u64, "block {b}");
            // The blocks computed on the way were published with their canonical carries.
            for k in 0..b {
                let want = canonical_carry(&xs, block, k + 1).to_bits();
                assert_eq!(chain.carries[k].get().map(|c| c.to_bits()), Some(want));
            }
        }
        // A published carry is used as it is, and only the blocks after it are computed.
        let chain = Chain::new(&xs, block, 0.0, &add);
        chain.publish(1, 1e9);
        let c = chain.carry_into(4);
        let mut want = 1e9;
        for k in 2..4 {
            want = leaf_totals(&xs[chain.range(k)], &add)
                .into_iter()
                .fold(want, add);
        }
        assert_eq!(c.to_bits(), want.to_bits());
        assert_eq!(chain.carry_into(2).to_bits(), 1e9f64.to_bits());
    }

    #[test]
    fn the_total_is_the_carry_out_of_the_last_block() {
        let xs = [1.0, 2.0, 3.0];
        let add = |x: f64, y: f64| x + y;
        let chain = Chain::new(&xs, LEAF, 0.0, &add);
        chain.publish(0, 6.0);
        assert_eq!(chain.total(), 6.0);
        let empty: [f64; 0] = [];
        assert_eq!(Chain::new(&empty, LEAF, 0.0, &add).total(), 0.0);
    }
}
