//! The vector and point readers: any text gives a located error or the numbers it holds.

use super::bytes::Bytes;
use flatland_cli::io::{parse_numbers, parse_points};

pub fn run(data: &[u8]) {
    super::budget();
    let mut b = Bytes::new(data);
    let expected = match b.byte() % 4 {
        0 => None,
        1 => Some(b.usize()),
        _ => Some(usize::from(b.byte())),
    };
    let text = b.rest_text();
    match parse_numbers("v.txt", &text, expected) {
        Ok(xs) => {
            if let Some(n) = expected {
                assert_eq!(xs.len(), n);
            }
            assert!(xs.len() <= text.lines().count());
        }
        Err(e) => assert!(e.to_string().starts_with("v.txt:"), "{e}"),
    }
    match parse_points("p.txt", &text) {
        Ok(ps) => assert!(ps.len() <= text.lines().count()),
        Err(e) => assert!(e.to_string().starts_with("p.txt:"), "{e}"),
    }
}
