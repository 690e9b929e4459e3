//! Reading a whole file as text, with errors that name the file and line.

use super::InputError;

/// Reads `path` as UTF-8 text; a missing file or invalid UTF-8 becomes an [`InputError`] (with the
/// line of the first invalid byte).
pub(crate) fn read_text(path: &std::path::Path) -> Result<String, InputError> {
    let name = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|e| InputError::file(&name, format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let good = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..good].split(|&b| b == b'\n').count();
        InputError::at(&name, line, "not valid UTF-8 text")
    })
}

/// The lines of `text` numbered from 1, with trailing `\r` removed.
pub(crate) fn numbered(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)))
}

/// The number of the line after the last one (where "the file ends" is reported).
pub(crate) fn end_line(text: &str) -> usize {
    text.lines().count() + 1
}

/// Parses one finite `f64` field; `what` (empty, or ending in a space) names it in the error.
pub(crate) fn parse_f64(
    file: &str,
    line: usize,
    what: &str,
    field: &str,
) -> Result<f64, InputError> {
    match field.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(InputError::at(
            file,
            line,
            format!("{what}'{field}' is not a finite number"),
        )),
        Err(_) => Err(InputError::at(
            file,
            line,
            format!("{what}'{field}' is not a number"),
        )),
    }
}
