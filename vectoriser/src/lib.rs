//! Flatland's vectoriser (filled by issue 4).
