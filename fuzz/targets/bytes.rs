//! Reading structured values from a fuzzer's bytes: small numbers most of the time, values near
//! the type limits now and then; zeros once the bytes run out.

/// A cursor over the input.
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data }
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    /// Below `n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n
    }

    /// A count: mostly 0..16, sometimes a value near `usize::MAX` or a large power of two.
    pub fn usize(&mut self) -> usize {
        match self.byte() {
            b @ 0..=239 => usize::from(b % 16),
            240..=247 => usize::MAX - usize::from(self.byte()),
            b => 1 << (40 + usize::from(b - 248)),
        }
    }

    /// Up to `max` counts.
    pub fn usizes(&mut self, max: usize) -> Vec<usize> {
        let n = self.below(max + 1);
        (0..n).map(|_| self.usize()).collect()
    }

    /// The rest of the input as text (lossy).
    pub fn rest_text(&mut self) -> String {
        let s = String::from_utf8_lossy(self.data).into_owned();
        self.data = &[];
        s
    }
}
