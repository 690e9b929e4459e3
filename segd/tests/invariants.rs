//! One test per structural invariant: a descriptor that breaks exactly that invariant, the typed
//! error `try_new` returns, the same error from `validate()` after `new_unchecked`, and the
//! message `new` panics with.

use flatland_segd::{Error, SSegd, Segd, VSegd};

fn segd_rejects(
    lengths: &[usize],
    starts: &[usize],
    elements: usize,
    expected: &Error,
    message: &str,
) {
    assert_eq!(
        Segd::try_new(lengths.to_vec(), starts.to_vec(), elements).unwrap_err(),
        *expected
    );
    // SAFETY: the descriptor is only validated, never used to index data.
    let unchecked = unsafe { Segd::new_unchecked(lengths.to_vec(), starts.to_vec(), elements) };
    assert_eq!(unchecked.validate().unwrap_err(), *expected);
    assert_eq!(expected.to_string(), message);
    let panic = std::panic::catch_unwind(|| Segd::new(lengths.to_vec(), starts.to_vec(), elements))
        .unwrap_err();
    assert_eq!(
        panic.downcast_ref::<String>().map(String::as_str),
        Some(message)
    );
}

fn ssegd_rejects(
    sources: &[usize],
    starts: &[usize],
    lengths: &[usize],
    block_lens: &[usize],
    expected: &Error,
    message: &str,
) {
    let args = || {
        (
            sources.to_vec(),
            starts.to_vec(),
            lengths.to_vec(),
            block_lens.to_vec(),
        )
    };
    let (a, b, c, d) = args();
    assert_eq!(SSegd::try_new(a, b, c, d).unwrap_err(), *expected);
    assert_eq!(expected.to_string(), message);
    let (a, b, c, d) = args();
    let panic = std::panic::catch_unwind(|| SSegd::new(a, b, c, d)).unwrap_err();
    assert_eq!(
        panic.downcast_ref::<String>().map(String::as_str),
        Some(message)
    );
}

#[test]
fn segd_starts_must_have_one_entry_per_segment() {
    let e = Error::FieldLength {
        field: "starts",
        expected: 2,
        found: 1,
    };
    segd_rejects(
        &[1, 2],
        &[0],
        3,
        &e,
        "starts has 1 entries, expected 2 (one per segment)",
    );
}

#[test]
fn segd_starts_must_be_the_scan_of_the_lengths() {
    let e = Error::StartNotScan {
        segment: 1,
        start: 2,
        expected: 1,
    };
    segd_rejects(
        &[1, 2],
        &[0, 2],
        3,
        &e,
        "segment 1: start 2, expected 1 (the sum of the lengths before it)",
    );
}

#[test]
fn segd_element_count_must_be_the_sum() {
    let e = Error::ElementCount {
        found: 4,
        expected: 3,
    };
    segd_rejects(
        &[1, 2],
        &[0, 1],
        4,
        &e,
        "element count 4 differs from the sum of the lengths 3",
    );
}

#[test]
fn segd_lengths_must_not_overflow() {
    let e = Error::Overflow {
        op: "Segd",
        quantity: "element count",
        limit: "usize",
        position: Some(1),
    };
    segd_rejects(
        &[usize::MAX, 1],
        &[0, usize::MAX],
        0,
        &e,
        "Segd: element count overflows usize at segment 1",
    );
    assert!(matches!(
        Segd::from_lengths(vec![1, usize::MAX]),
        Err(Error::Overflow {
            position: Some(1),
            ..
        })
    ));
    assert!(matches!(
        Segd::try_regular(usize::MAX / 2 + 1, 2),
        Err(Error::Overflow { .. })
    ));
}

#[test]
fn ssegd_sources_must_have_one_entry_per_segment() {
    let e = Error::FieldLength {
        field: "sources",
        expected: 2,
        found: 1,
    };
    ssegd_rejects(
        &[0],
        &[0, 0],
        &[1, 1],
        &[2],
        &e,
        "sources has 1 entries, expected 2 (one per segment)",
    );
}

#[test]
fn ssegd_starts_must_have_one_entry_per_segment() {
    let e = Error::FieldLength {
        field: "starts",
        expected: 2,
        found: 3,
    };
    ssegd_rejects(
        &[0, 0],
        &[0, 0, 0],
        &[1, 1],
        &[2],
        &e,
        "starts has 3 entries, expected 2 (one per segment)",
    );
}

#[test]
fn ssegd_sources_must_name_a_block() {
    let e = Error::SourceOutOfRange {
        segment: 1,
        source: 2,
        blocks: 2,
    };
    ssegd_rejects(
        &[0, 2],
        &[0, 0],
        &[1, 1],
        &[2, 2],
        &e,
        "segment 1: source 2 out of range for 2 data blocks",
    );
}

#[test]
fn ssegd_segments_must_lie_inside_their_block() {
    // The message of the contract.
    let mut sources = vec![0; 18];
    sources[17] = 2;
    let mut starts = vec![0; 18];
    starts[17] = 40;
    let mut lengths = vec![0; 18];
    lengths[17] = 9;
    let e = Error::SegmentOutOfBlock {
        segment: 17,
        start: 40,
        len: 9,
        block: 2,
        block_len: 45,
    };
    ssegd_rejects(
        &sources,
        &starts,
        &lengths,
        &[0, 0, 45],
        &e,
        "segment 17: start 40 + length 9 exceeds data block 2 of length 45",
    );
    // An end past usize::MAX is outside every block too.
    let e = Error::SegmentOutOfBlock {
        segment: 0,
        start: usize::MAX,
        len: 1,
        block: 0,
        block_len: usize::MAX,
    };
    assert_eq!(
        SSegd::try_new(vec![0], vec![usize::MAX], vec![1], vec![usize::MAX]).unwrap_err(),
        e
    );
}

#[test]
fn ssegd_physical_lengths_must_not_overflow() {
    let e = Error::Overflow {
        op: "SSegd",
        quantity: "element count",
        limit: "usize",
        position: Some(1),
    };
    let m = usize::MAX;
    ssegd_rejects(
        &[0, 0],
        &[0, 0],
        &[m, m],
        &[m],
        &e,
        "SSegd: element count overflows usize at segment 1",
    );
    // Appending two valid descriptors can overflow too.
    let one = SSegd::new(vec![0], vec![0], vec![m], vec![m]);
    let e = Error::Overflow {
        op: "append",
        quantity: "element count",
        limit: "usize",
        position: Some(1),
    };
    assert_eq!(one.append(&one).unwrap_err(), e);
    assert_eq!(
        VSegd::manifest(one.clone())
            .append(&VSegd::manifest(one))
            .unwrap_err(),
        e
    );
}

#[test]
fn ssegd_validate_finds_what_try_new_would() {
    // SAFETY: only validated, never used to index data.
    let s = unsafe { SSegd::new_unchecked(vec![0, 3], vec![0, 0], vec![1, 1], vec![2, 2]) };
    assert_eq!(
        s.validate(),
        Err(Error::SourceOutOfRange {
            segment: 1,
            source: 3,
            blocks: 2
        })
    );
    // SAFETY: as above.
    let s = unsafe { SSegd::new_unchecked(vec![0], vec![0, 1], vec![1], vec![2]) };
    assert_eq!(
        s.validate(),
        Err(Error::FieldLength {
            field: "starts",
            expected: 1,
            found: 2
        })
    );
}

#[test]
fn vsegids_must_name_a_physical_segment() {
    let s = SSegd::from_segd(&Segd::from_lengths(vec![1, 2]).unwrap());
    let e = Error::VSegIdOutOfRange {
        vsegment: 2,
        vsegid: 2,
        physical: 2,
    };
    assert_eq!(VSegd::try_new(vec![0, 1, 2, 0], s.clone()).unwrap_err(), e);
    assert_eq!(
        e.to_string(),
        "virtual segment 2: vsegid 2 out of range for 2 physical segments"
    );
    // SAFETY: only validated, never used to index data.
    let v = unsafe { VSegd::new_unchecked(vec![0, 1, 2, 0], s.clone()) };
    assert_eq!(v.validate(), Err(e));
    let panic = std::panic::catch_unwind(|| VSegd::new(vec![5], s)).unwrap_err();
    assert_eq!(
        panic.downcast_ref::<String>().map(String::as_str),
        Some("virtual segment 0: vsegid 5 out of range for 2 physical segments")
    );
}

#[test]
#[cfg(target_pointer_width = "64")]
fn virtual_element_count_must_fit_u64() {
    let big = usize::MAX / 2 + 1;
    let s = SSegd::new(vec![0], vec![0], vec![big], vec![big]);
    let e = Error::Overflow {
        op: "VSegd",
        quantity: "virtual element count",
        limit: "u64",
        position: Some(1),
    };
    assert_eq!(VSegd::try_new(vec![0, 0], s.clone()).unwrap_err(), e);
    assert_eq!(
        e.to_string(),
        "VSegd: virtual element count overflows u64 at segment 1"
    );
    // SAFETY: only validated, never used to index data.
    let v = unsafe { VSegd::new_unchecked(vec![0, 0], s.clone()) };
    assert_eq!(v.validate().unwrap_err(), e);
    let one = VSegd::manifest(s);
    assert!(matches!(
        one.replicate(2),
        Err(Error::Overflow {
            op: "replicate",
            limit: "u64",
            ..
        })
    ));
    assert!(matches!(
        one.replicate_s(&[2]),
        Err(Error::Overflow {
            op: "replicate_s",
            limit: "u64",
            ..
        })
    ));
    assert!(matches!(one.append(&one), Err(Error::Overflow { .. })));
    assert!(matches!(
        one.combine(&one, [true, false]),
        Err(Error::Overflow { .. })
    ));
}

#[test]
fn operation_arguments_get_typed_errors() {
    let v = VSegd::from_segd(&Segd::from_lengths(vec![1, 2, 3]).unwrap());
    assert_eq!(
        v.replicate_s(&[1]).unwrap_err().to_string(),
        "replicate_s: counts has 1 entries, expected 3"
    );
    assert_eq!(
        v.pack([true]).unwrap_err().to_string(),
        "pack: mask has 1 entries, expected 3"
    );
    assert_eq!(
        v.combine(&v, [true, true, true, true])
            .unwrap_err()
            .to_string(),
        "combine: selector takes 4 segments from other, which has 3"
    );
    assert_eq!(
        v.combine(&v, [true, true, true, false])
            .unwrap_err()
            .to_string(),
        "combine: selector takes 1 segments from self, which has 3"
    );
    assert_eq!(
        v.extract(1..4).unwrap_err().to_string(),
        "extract: range 1..4 out of bounds for 3 segments"
    );
    assert_eq!(
        Segd::regular(2, 3)
            .try_segment_of_element(6)
            .unwrap_err()
            .to_string(),
        "element 6 out of range for 6 elements"
    );
    assert!(matches!(
        VSegd::from_segd(&Segd::regular(usize::MAX, 0)).replicate(2),
        Err(Error::Overflow {
            quantity: "virtual segment count",
            ..
        })
    ));
}

/// The empty descriptor is one descriptor, whatever regular length it was made with (a
/// quickcheck of `VSegd::same_lengths` found two empty ones unequal).
#[test]
fn empty_descriptors_are_equal_whatever_their_form() {
    let empties = [
        Segd::regular(0, 1),
        Segd::regular(0, 2),
        Segd::from_lengths(vec![]).unwrap(),
    ];
    for a in &empties {
        for b in &empties {
            assert_eq!(a, b);
            assert!(VSegd::from_segd(a).same_lengths(&VSegd::from_segd(b)));
        }
    }
    assert_ne!(Segd::regular(1, 1), Segd::regular(1, 2));
}

/// `SSegd::try_in_block` is `SSegd::try_new` with every source 0, errors included, and stores
/// no sources.
#[test]
fn one_block_descriptors_are_try_new_with_source_zero() {
    fn prop(segs: Vec<(u8, u8)>, block: u8) -> bool {
        let starts: Vec<usize> = segs.iter().map(|s| usize::from(s.0)).collect();
        let lens: Vec<usize> = segs.iter().map(|s| usize::from(s.1 % 16)).collect();
        let block = usize::from(block);
        let one = SSegd::try_in_block(starts.clone(), lens.clone(), block);
        let general = SSegd::try_new(vec![0; lens.len()], starts, lens, vec![block]);
        match (one, general) {
            (Ok(a), Ok(b)) => a == b && a.stored_entries() + a.len() == b.stored_entries(),
            (Err(a), Err(b)) => a == b,
            _ => false,
        }
    }
    quickcheck::QuickCheck::new().quickcheck(prop as fn(Vec<(u8, u8)>, u8) -> bool);
    assert!(matches!(
        SSegd::try_in_block(vec![0], vec![], 1),
        Err(Error::FieldLength {
            field: "starts",
            ..
        })
    ));
}
