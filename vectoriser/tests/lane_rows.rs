//! `lane::Rows` (the rows of a `Nested` read in place by per-lane code) against the
//! descriptor's own `Nested::segment`, row by row, on every form a `Nested` takes: explicit
//! and regular descriptors (a flat `Nested`, whose row ends at the next row's start), empty
//! rows first, last and throughout, one row holding every element, no rows, and virtual
//! segments (a replicated `Nested`, read through the descriptor).

use flatland_runtime::elt::Nested;
use flatland_segd::Segd;
use flatland_vectoriser::lane::{Rows, RowsOf};
use quickcheck::QuickCheck;

/// Every row of `n` through `Rows` equals the descriptor's segment, and the count its length.
fn agrees(n: &Nested<i64>) -> bool {
    let rows = Rows::new(n);
    rows.count() == n.len() && (0..n.len()).all(|i| rows.row(i) == n.segment(i))
}

#[test]
fn rows_of_explicit_descriptors_end_where_the_next_row_starts() {
    fn prop(lengths: Vec<u8>) -> bool {
        let lengths: Vec<usize> = lengths.into_iter().map(|l| usize::from(l % 7)).collect();
        let elements: usize = lengths.iter().sum();
        let segd = Segd::from_lengths(lengths).expect("lengths sum without overflow");
        let n = Nested::from_segd(&segd, (0..elements as i64).collect::<Vec<_>>().into())
            .expect("one value per element");
        agrees(&n)
    }
    QuickCheck::new()
        .tests(300)
        .quickcheck(prop as fn(Vec<u8>) -> bool);
}

#[test]
fn rows_of_edge_shapes_agree_with_the_descriptor() {
    let shapes: Vec<Vec<Vec<i64>>> = vec![
        vec![],
        vec![vec![]],
        vec![vec![], vec![], vec![]],
        vec![vec![], vec![1, 2, 3]],
        vec![vec![1, 2, 3], vec![]],
        vec![(0..10_000).collect()],
        vec![vec![], (0..10_000).collect(), vec![]],
    ];
    for s in shapes {
        let n = Nested::from(s.clone());
        assert!(agrees(&n), "{s:?}");
        let rows = Rows::new(&n);
        for (i, r) in s.iter().enumerate() {
            assert_eq!(rows.row(i), &r[..]);
        }
    }
}

#[test]
fn rows_of_a_regular_descriptor_and_of_virtual_segments_agree() {
    for (count, len) in [(0, 3), (4, 0), (5, 3), (1, 1000)] {
        let segd = Segd::regular(count, len);
        let n = Nested::from_segd(&segd, (0..(count * len) as i64).collect::<Vec<_>>().into())
            .expect("one value per element");
        assert!(agrees(&n), "{count} rows of {len}");
        let twice = n.replicate(2).expect("a small replication");
        assert!(agrees(&twice), "{count} rows of {len}, replicated");
    }
}
