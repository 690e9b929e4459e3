//! The `#[vectorise]` attribute (filled by issue 6).
