//! Golden tests: the examples of the DPH virtual-segments notes (the `vsegs` / `pstart` / `plen`
//! representation of replicated nested arrays).

mod common;

use common::materialise;
use flatland_segd::{PSeg, Segd, VSegd};

/// `(vsegs, pstart, plen)` of a descriptor.
fn fields(v: &VSegd) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let s = v.ssegd();
    (
        v.vsegids().into_owned(),
        s.starts().into_owned(),
        s.segd().lengths().into_owned(),
    )
}

#[test]
fn three_copies_of_one_two_three() {
    // [:[:1, 2, 3:], [:1, 2, 3:], [:1, 2, 3:]:] is vsegs [0, 0, 0], pstart [0], plen [3],
    // data [1, 2, 3], whether made by replicate or by lifted replicate.
    let data = vec![vec![1, 2, 3]];
    let one = VSegd::from_segd(&Segd::from_lengths(vec![3]).unwrap());
    for v in [one.replicate(3).unwrap(), one.replicate_s(&[3]).unwrap()] {
        assert_eq!(fields(&v), (vec![0, 0, 0], vec![0], vec![3]));
        assert_eq!(v.ssegd().block_lens(), &[3]);
        assert_eq!(materialise(&v, &data), vec![vec![1, 2, 3]; 3]);
        assert_eq!((v.virtual_elements(), v.physical_elements()), (9, 3));
        // The conventional representation it demotes to: lengths [3, 3, 3], starts [0, 3, 6].
        let (segd, plan) = v.demote().unwrap();
        assert_eq!(segd, Segd::new(vec![3, 3, 3], vec![0, 3, 6], 9));
        assert_eq!(
            plan,
            vec![
                PSeg {
                    source: 0,
                    start: 0,
                    len: 3
                };
                3
            ]
        );
    }
}

#[test]
fn expand_gives_vsegs_0_0_1_1_1() {
    // [:[:1, 2:], [:1, 2:], [:3:], [:3:], [:3:]:] is vsegs [0, 0, 1, 1, 1], pstart [0, 2],
    // plen [2, 1], data [1, 2, 3].
    let data = vec![vec![1, 2, 3]];
    let v = VSegd::from_segd(&Segd::from_lengths(vec![2, 1]).unwrap())
        .replicate_s(&[2, 3])
        .unwrap();
    assert_eq!(fields(&v), (vec![0, 0, 1, 1, 1], vec![0, 2], vec![2, 1]));
    assert_eq!(
        materialise(&v, &data),
        vec![vec![1, 2], vec![1, 2], vec![3], vec![3], vec![3]]
    );
    assert!(v.is_culled());
}

#[test]
fn lifted_indexing_draws_from_one_copy() {
    // smvm: `replicatePA (lengthPA row) v` gives as_vsegs = [0, ...] over one copy of v, and
    // lifted indexing is `bpermute as_data (pstart[vsegs[i]] + is[i])`.
    let v = [10, 20, 30];
    let row = [2, 0, 1, 2];
    let r = VSegd::from_segd(&Segd::from_lengths(vec![v.len()]).unwrap())
        .replicate(row.len())
        .unwrap();
    assert_eq!(fields(&r), (vec![0; 4], vec![0], vec![3]));
    let picked: Vec<i32> = row
        .iter()
        .enumerate()
        .map(|(i, &ix)| v[r.physical(i).start + ix])
        .collect();
    assert_eq!(picked, vec![30, 10, 20, 30]);
    assert_eq!(
        r.stored_entries(),
        VSegd::from_segd(&Segd::from_lengths(vec![3]).unwrap()).stored_entries()
    );
}

#[test]
fn pack_of_replicated_array_works_on_virtual_segments_only() {
    // packP on a nested array that arose from replication only touches the virtual segments.
    let v = VSegd::from_segd(&Segd::from_lengths(vec![2, 1]).unwrap())
        .replicate_s(&[2, 3])
        .unwrap();
    let p = v.pack([true, false, false, true, true]).unwrap();
    assert_eq!(fields(&p), (vec![0, 1, 1], vec![0, 2], vec![2, 1]));
    let q = v.pack([false, false, true, true, false]).unwrap();
    assert_eq!(fields(&q), (vec![1, 1], vec![0, 2], vec![2, 1]));
    assert!(!q.is_culled());
    // Culling drops the unreachable physical segment [1, 2]; the data block stays.
    let c = q.cull();
    assert_eq!(fields(&c.vsegd), (vec![0, 0], vec![2], vec![1]));
    assert_eq!(c.blocks, vec![0]);
}
