//! Descriptor work stays proportional to segments, never to elements: measured structurally, by
//! the entries the descriptors store (`stored_entries`), since segd has no counters of its own.

use flatland_segd::{Error, Segd, VSegd};

const N: usize = 1_000_000;

#[test]
fn replicating_one_segment_of_a_million_a_million_times() {
    let base = VSegd::from_segd(&Segd::from_lengths(vec![N]).unwrap());
    assert_eq!(base.stored_entries(), 3);
    // The whole array N times: cyclic vsegids, nothing stored per virtual segment.
    let whole = base.replicate(N).unwrap();
    // Lifted replication, segment 0 repeated N times: over one physical segment, stored as
    // that segment repeated, so nothing grows either.
    let lifted = base.replicate_s(&[N]).unwrap();
    assert_eq!(whole.stored_entries(), base.stored_entries());
    assert_eq!(lifted.stored_entries(), base.stored_entries());
    // Over two physical segments, lifted replication stores one vsegid per result segment.
    let two = VSegd::from_segd(&Segd::from_lengths(vec![N, 1]).unwrap());
    let explicit = two.replicate_s(&[N, 1]).unwrap();
    assert_eq!(explicit.stored_entries(), N + 1 + two.stored_entries());
    for v in [&whole, &lifted] {
        assert_eq!(v.len(), N);
        assert_eq!(v.virtual_elements(), 1_000_000_000_000);
        assert_eq!(v.physical_elements(), N);
        assert_eq!(v.ssegd().block_lens(), &[N]);
        assert!(v.validate().is_ok() && v.is_culled());
    }
    assert_eq!(whole, lifted);
    // Operations on the result stay proportional to its N virtual segments.
    let half = lifted.pack((0..N).map(|i| i % 2 == 0)).unwrap();
    assert_eq!(half.virtual_elements(), 500_000_000_000);
    assert!(half.stored_entries() <= N / 2 + base.stored_entries());
    let part = whole.extract(10..20).unwrap();
    assert_eq!(
        (part.virtual_elements(), part.stored_entries()),
        (10 * N as u64, 10 + 3)
    );
    assert_eq!(half.cull().blocks, vec![0]);
    if usize::BITS >= 64 {
        assert_eq!(whole.virtual_elements_usize(), Some(1_000_000_000_000));
        // Demoting builds the contiguous descriptor of 10^12 elements from N lengths.
        let (segd, plan) = whole.demote().unwrap();
        assert_eq!(
            (segd.len(), segd.elements(), plan.len()),
            (N, 1_000_000_000_000, N)
        );
        let chunks = segd.split_on_elements(4);
        assert_eq!(chunks[1].first_segment, N / 4);
        assert_eq!(chunks[1].elements, 250_000_000_000);
    }
}

#[test]
fn regular_descriptors_store_no_per_segment_arrays() {
    let s = Segd::regular(N, 1_000);
    assert_eq!(s.stored_entries(), 0);
    assert_eq!(s.segment_of_element(s.elements() - 1), (N - 1, 999));
    let chunks = s.split_on_elements(3);
    assert_eq!(
        chunks.iter().map(|c| c.elements).sum::<usize>(),
        s.elements()
    );
    assert_eq!(chunks[2].first_segment, 2 * N / 3);
    let v = VSegd::from_segd(&s);
    assert_eq!(v.stored_entries(), 1);
    let r = v.replicate(N).unwrap().replicate(1_000).unwrap();
    assert_eq!(r.stored_entries(), 1);
    assert_eq!(r.virtual_elements(), 1_000_000_000_000_000_000);
    assert!(r.validate().is_ok() && r.is_culled() && !r.should_cull());
    assert!(matches!(
        r.replicate(100),
        Err(Error::Overflow { limit: "u64", .. })
    ));
    assert_eq!(r.extract(5..10).unwrap().stored_entries(), 5 + 1);
    // A manifest extract keeps only its physical segments: sources, starts, lengths, scan.
    assert_eq!(v.extract(5..10).unwrap().stored_entries(), 5 * 4 + 1);
}

/// A regular descriptor of 2^40 segments: every operation below is O(1) or O(log segments) on
/// it (any walk over the segments would not finish), and nothing per segment is stored.
#[test]
#[cfg(target_pointer_width = "64")]
fn regular_operations_never_walk_the_segments() {
    let n = 1usize << 40;
    let s = Segd::regular(n, 3);
    assert!(s.validate().is_ok());
    assert_eq!(s.segment_of_element(3 * n - 1), (n - 1, 2));
    let chunks = s.split_on_elements(4);
    assert_eq!(chunks[3].first_segment, 3 * n / 4);
    assert_eq!(chunks[3].segments, n / 4);
    let v = VSegd::from_segd(&s).replicate(1000).unwrap();
    assert_eq!(v.virtual_elements(), 3 * n as u64 * 1000);
    assert!(v.validate().is_ok() && v.is_culled() && !v.should_cull());
    assert_eq!(v.reachable_elements(), 3 * n);
    let c = v.cull();
    assert_eq!((c.blocks, c.vsegd.stored_entries()), (vec![0], 1));
    assert_eq!(v.extract(n - 2..n + 1).unwrap().lengths(), vec![3; 3]);
    assert_eq!(v.physical(n + 5).start, 15);
}
