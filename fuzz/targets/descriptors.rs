//! The descriptor constructors (`Segd`, `SSegd`, `VSegd`) and `Nested::from_offsets`: any
//! arguments give a typed error or a value whose invariants hold.

use super::bytes::Bytes;
use flatland::runtime::elt::Nested;
use flatland::segd::{SSegd, Segd, VSegd};

pub fn run(data: &[u8]) {
    super::budget();
    let mut b = Bytes::new(data);
    match b.byte() % 5 {
        0 => {
            let lengths = b.usizes(8);
            let starts = b.usizes(8);
            let elements = b.usize();
            if let Ok(s) = Segd::try_new(lengths.clone(), starts, elements) {
                assert_eq!(s.len(), lengths.len());
                assert!(s.elements() <= elements);
            }
        }
        1 => {
            let lengths = b.usizes(8);
            if let Ok(s) = Segd::from_lengths(lengths.clone()) {
                assert_eq!(s.elements(), lengths.iter().sum::<usize>());
            }
        }
        2 => {
            let (sources, starts, lengths, blocks) =
                (b.usizes(6), b.usizes(6), b.usizes(6), b.usizes(3));
            if let Ok(s) = SSegd::try_new(sources, starts, lengths.clone(), blocks) {
                assert_eq!(s.len(), lengths.len());
            }
        }
        3 => {
            let lengths = b.usizes(6);
            let Ok(segd) = Segd::from_lengths(lengths) else {
                return;
            };
            let vsegids = b.usizes(8);
            if let Ok(v) = VSegd::try_new(vsegids.clone(), SSegd::from_segd(&segd)) {
                assert_eq!(v.len(), vsegids.len());
                // Culling keeps every virtual segment's elements.
                assert_eq!(v.cull().vsegd.lengths(), v.lengths());
            }
        }
        _ => {
            let offsets = b.usizes(10);
            let values: Vec<i64> = (0..b.below(16)).map(|_| i64::from(b.byte())).collect();
            if let Ok(n) = Nested::<i64>::from_offsets(offsets.clone(), values.clone()) {
                assert_eq!(n.len() + 1, offsets.len());
                let rows: Vec<i64> = n.iter().flat_map(<[i64]>::to_vec).collect();
                assert_eq!(rows, values);
            }
        }
    }
}
