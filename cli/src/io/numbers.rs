//! Vectors (one number a line) and point sets (`x y` a line). Blank lines are skipped.

use super::InputError;
use super::lines::{end_line, numbered, parse_f64, read_text};
use std::path::Path;

/// Reads a file of numbers, one a line; with `expected`, the count must match.
///
/// # Errors
/// An [`InputError`] naming the file and line of the first problem.
///
/// ```
/// let err = flatland_cli::io::read_numbers(std::path::Path::new("/no/such/v.txt"), None).unwrap_err();
/// assert!(err.to_string().starts_with("/no/such/v.txt: cannot read"));
/// ```
pub fn read_numbers(path: &Path, expected: Option<usize>) -> Result<Vec<f64>, InputError> {
    parse_numbers(&path.display().to_string(), &read_text(path)?, expected)
}

/// Parses numbers, one a line (finite `f64` in Rust's syntax); `file` names the input in errors.
///
/// # Errors
/// An [`InputError`] naming the file and line of the first problem.
///
/// ```
/// use flatland_cli::io::parse_numbers;
/// assert_eq!(parse_numbers("v", "1\n\n-2.5e1\n", Some(2)).unwrap(), vec![1.0, -25.0]);
/// assert_eq!(parse_numbers("v", "1\n", Some(2)).unwrap_err().to_string(), "v:2: file ends after 1 numbers; expected 2");
/// assert_eq!(parse_numbers("v", "1 2\n", None).unwrap_err().to_string(), "v:1: expected one number, found 2 fields");
/// ```
pub fn parse_numbers(
    file: &str,
    text: &str,
    expected: Option<usize>,
) -> Result<Vec<f64>, InputError> {
    let mut out = Vec::new();
    for (line, l) in numbered(text) {
        let mut fields = l.split_whitespace();
        let Some(first) = fields.next() else { continue };
        let count = 1 + fields.count();
        if count != 1 {
            return Err(InputError::at(
                file,
                line,
                format!("expected one number, found {count} fields"),
            ));
        }
        if expected == Some(out.len()) {
            return Err(InputError::at(
                file,
                line,
                format!("more numbers than the {} expected", out.len()),
            ));
        }
        out.push(parse_f64(file, line, "", first)?);
    }
    if let Some(n) = expected.filter(|&n| n != out.len()) {
        return Err(InputError::at(
            file,
            end_line(text),
            format!("file ends after {} numbers; expected {n}", out.len()),
        ));
    }
    Ok(out)
}

/// Reads a file of points, one `x y` pair a line.
///
/// # Errors
/// An [`InputError`] naming the file and line of the first problem.
///
/// ```
/// let err = flatland_cli::io::read_points(std::path::Path::new("/no/such/p.txt")).unwrap_err();
/// assert!(err.to_string().starts_with("/no/such/p.txt: cannot read"));
/// ```
pub fn read_points(path: &Path) -> Result<Vec<(f64, f64)>, InputError> {
    parse_points(&path.display().to_string(), &read_text(path)?)
}

/// Parses points, one `x y` pair of finite numbers a line; `file` names the input in errors.
///
/// # Errors
/// An [`InputError`] naming the file and line of the first problem.
///
/// ```
/// use flatland_cli::io::parse_points;
/// assert_eq!(parse_points("p", "0 1\n2.5 -3\n").unwrap(), vec![(0.0, 1.0), (2.5, -3.0)]);
/// assert_eq!(parse_points("p", "0 1\n2\n").unwrap_err().to_string(), "p:2: expected 2 numbers 'x y', found 1 fields");
/// ```
pub fn parse_points(file: &str, text: &str) -> Result<Vec<(f64, f64)>, InputError> {
    let mut out = Vec::new();
    for (line, l) in numbered(text) {
        let fields: Vec<&str> = l.split_whitespace().collect();
        match fields.as_slice() {
            [] => {}
            [x, y] => out.push((
                parse_f64(file, line, "x ", x)?,
                parse_f64(file, line, "y ", y)?,
            )),
            _ => {
                return Err(InputError::at(
                    file,
                    line,
                    format!("expected 2 numbers 'x y', found {} fields", fields.len()),
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(parse_numbers("v", "", None).unwrap(), Vec::<f64>::new());
        assert_eq!(
            parse_numbers("v", "1\n2\n3\n", Some(2))
                .unwrap_err()
                .to_string(),
            "v:3: more numbers than the 2 expected"
        );
        assert_eq!(
            parse_numbers("v", "1\ninf\n", None)
                .unwrap_err()
                .to_string(),
            "v:2: 'inf' is not a finite number"
        );
        assert_eq!(
            parse_numbers("v", "1\n0x10\n", None)
                .unwrap_err()
                .to_string(),
            "v:2: '0x10' is not a number"
        );
    }

    #[test]
    fn points() {
        assert_eq!(parse_points("p", "\n1 2\n\n").unwrap(), vec![(1.0, 2.0)]);
        assert_eq!(
            parse_points("p", "1 2 3\n").unwrap_err().to_string(),
            "p:1: expected 2 numbers 'x y', found 3 fields"
        );
        assert_eq!(
            parse_points("p", "1 q\n").unwrap_err().to_string(),
            "p:1: y 'q' is not a number"
        );
    }
}
