//! The naive model (`Vec<Vec<u32>>`) and the generator of random nested arrays shared by the
//! property tests.

#![allow(dead_code, unreachable_pub)]

use flatland_segd::{SSegd, Segd, VSegd};
use quickcheck::{Arbitrary, Gen};

/// A nested array: a virtual descriptor over data blocks.
#[derive(Clone, Debug)]
pub struct Nested {
    pub vsegd: VSegd,
    pub blocks: Vec<Vec<u32>>,
}

/// A uniform number in `0..n` (`n > 0`).
pub fn below(g: &mut Gen, n: usize) -> usize {
    usize::arbitrary(g) % n
}

/// A segment length, often 0.
fn seg_len(g: &mut Gen, max: usize) -> usize {
    if below(g, 3) == 0 {
        0
    } else {
        below(g, max + 1)
    }
}

/// Distinct values per block and position, so a wrong block or offset always shows.
pub fn block(b: usize, len: usize) -> Vec<u32> {
    (0..len).map(|j| (b * 1_000_000 + j) as u32).collect()
}

/// The nested array a descriptor describes over `blocks`, read segment by segment.
pub fn materialise(vsegd: &VSegd, blocks: &[Vec<u32>]) -> Vec<Vec<u32>> {
    vsegd
        .iter()
        .map(|p| blocks[p.source][p.start..p.start + p.len].to_vec())
        .collect()
}

impl Nested {
    pub fn model(&self) -> Vec<Vec<u32>> {
        materialise(&self.vsegd, &self.blocks)
    }

    fn contiguous(segd: &Segd) -> Nested {
        Nested {
            vsegd: VSegd::from_segd(segd),
            blocks: vec![block(0, segd.elements())],
        }
    }

    /// Random scattered physical segments over random blocks, and random vsegids.
    fn scattered(g: &mut Gen, max_blocks: usize, max_phys: usize, max_virt: usize) -> Nested {
        let nb = below(g, max_blocks + 1);
        let block_lens: Vec<usize> = (0..nb).map(|_| seg_len(g, 12)).collect();
        let p = if nb == 0 { 0 } else { below(g, max_phys + 1) };
        let (mut sources, mut starts, mut lengths) = (vec![], vec![], vec![]);
        for _ in 0..p {
            let b = below(g, nb);
            let start = below(g, block_lens[b] + 1);
            let len = below(g, block_lens[b] - start + 1);
            sources.push(b);
            starts.push(start);
            lengths.push(len);
        }
        let ssegd = SSegd::new(sources, starts, lengths, block_lens.clone());
        let vsegd = if p == 0 || below(g, 4) == 0 {
            VSegd::manifest(ssegd)
        } else {
            let v = below(g, max_virt + 1);
            VSegd::new((0..v).map(|_| below(g, p)).collect(), ssegd)
        };
        let blocks = block_lens
            .iter()
            .enumerate()
            .map(|(b, &l)| block(b, l))
            .collect();
        Nested { vsegd, blocks }
    }

    fn generate(g: &mut Gen, depth: usize) -> Nested {
        match below(g, if depth == 0 { 6 } else { 8 }) {
            // Empty arrays: no segments, or no virtual segments over some physical ones.
            0 => {
                if below(g, 2) == 0 {
                    Nested::contiguous(&Segd::from_lengths(vec![]).unwrap())
                } else {
                    let mut n = Nested::scattered(g, 3, 4, 0);
                    n.vsegd = n
                        .vsegd
                        .pack(std::iter::repeat_n(false, n.vsegd.len()))
                        .unwrap();
                    n
                }
            }
            // Contiguous explicit, many empty segments.
            1 => {
                let n = below(g, 10);
                Nested::contiguous(
                    &Segd::from_lengths((0..n).map(|_| seg_len(g, 6)).collect()).unwrap(),
                )
            }
            // Regular.
            2 => Nested::contiguous(&Segd::regular(below(g, 6), below(g, 5))),
            // One huge segment, possibly among small ones, possibly shared.
            3 => {
                let huge = 2_000 + below(g, 3_000);
                let mut lengths: Vec<usize> = (0..below(g, 3)).map(|_| seg_len(g, 3)).collect();
                lengths.insert(below(g, lengths.len() + 1), huge);
                let base = Nested::contiguous(&Segd::from_lengths(lengths).unwrap());
                if below(g, 2) == 0 {
                    base
                } else {
                    let counts: Vec<usize> = (0..base.vsegd.len()).map(|_| below(g, 4)).collect();
                    Nested {
                        vsegd: base.vsegd.replicate_s(&counts).unwrap(),
                        blocks: base.blocks,
                    }
                }
            }
            // Heavy sharing: few physical segments, many virtual ones.
            4 => Nested::scattered(g, 2, 2, 40),
            5 => Nested::scattered(g, 4, 8, 12),
            // Built by operations, so the cyclic and explicit forms appear.
            6 => {
                let base = Nested::generate(g, depth - 1);
                let vsegd = base.vsegd.replicate(below(g, 4)).unwrap();
                Nested {
                    vsegd,
                    blocks: base.blocks,
                }
            }
            _ => {
                let base = Nested::generate(g, depth - 1);
                let mask: Vec<bool> = (0..base.vsegd.len()).map(|_| bool::arbitrary(g)).collect();
                let vsegd = base.vsegd.pack(mask).unwrap();
                Nested {
                    vsegd,
                    blocks: base.blocks,
                }
            }
        }
    }
}

impl Arbitrary for Nested {
    fn arbitrary(g: &mut Gen) -> Nested {
        Nested::generate(g, 2)
    }
}

/// A random contiguous descriptor: explicit (with many empty segments, sometimes one huge) or
/// regular.
#[derive(Clone, Debug)]
pub struct AnySegd(pub Segd);

impl Arbitrary for AnySegd {
    fn arbitrary(g: &mut Gen) -> AnySegd {
        AnySegd(match below(g, 5) {
            0 => Segd::regular(below(g, 8), below(g, 4)),
            // Lengths near u32::MAX: element counts past u32 (descriptors only, no data).
            4 => {
                let n = below(g, 6);
                Segd::from_lengths(
                    (0..n)
                        .map(|_| {
                            if below(g, 3) == 0 {
                                0
                            } else {
                                u32::MAX as usize - below(g, 3)
                            }
                        })
                        .collect(),
                )
                .unwrap()
            }
            1 => Segd::from_lengths(vec![below(g, 50); 1]).unwrap(),
            _ => {
                let n = below(g, 16);
                let mut lengths: Vec<usize> = (0..n).map(|_| seg_len(g, 7)).collect();
                if n > 0 && below(g, 4) == 0 {
                    lengths[below(g, n)] = 100 + below(g, 100);
                }
                Segd::from_lengths(lengths).unwrap()
            }
        })
    }
}
