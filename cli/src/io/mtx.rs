//! A Matrix Market reader (coordinate format) whose errors name the file and line.
//!
//! Supported: `%%MatrixMarket matrix coordinate FIELD SYMMETRY` with FIELD `real`, `integer` or
//! `pattern` (every value 1) and SYMMETRY `general`, `symmetric` (only the lower triangle is
//! stored; each off-diagonal entry stands for two) or `skew-symmetric` (strictly lower triangle,
//! the mirror entry negated). Comment lines (`%`) and blank lines may appear anywhere after the
//! header. Duplicate entries are summed (in file order).

use super::InputError;
use super::csr::Csr;
use super::lines::{end_line, numbered, parse_f64, read_text};
use flatland::runtime::budget;
use std::path::Path;

/// How the stored entries stand for the whole matrix.
///
/// ```
/// use flatland_cli::io::Symmetry;
/// assert_ne!(Symmetry::General, Symmetry::Symmetric);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symmetry {
    /// Every entry is stored.
    General,
    /// `a[j][i] == a[i][j]`; only entries with row >= column are stored.
    Symmetric,
    /// `a[j][i] == -a[i][j]`; only entries with row > column are stored.
    SkewSymmetric,
}

/// A matrix read from a Matrix Market file: its shape and its entries, with symmetric files
/// already expanded to both triangles (0-based indices, file order, duplicates not yet summed).
///
/// ```
/// use flatland_cli::io::{parse_matrix_market, Symmetry};
/// let m = parse_matrix_market(
///     "s.mtx",
///     "%%MatrixMarket matrix coordinate pattern symmetric\n% a comment\n2 2 2\n1 1\n2 1\n",
/// )
/// .unwrap();
/// assert_eq!(m.symmetry(), Symmetry::Symmetric);
/// assert_eq!(m.entries(), &[(0, 0, 1.0), (1, 0, 1.0), (0, 1, 1.0)]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixMarket {
    rows: usize,
    cols: usize,
    symmetry: Symmetry,
    entries: Vec<(usize, usize, f64)>,
}

impl MatrixMarket {
    /// Number of rows.
    ///
    /// ```
    /// # use flatland_cli::io::parse_matrix_market;
    /// let m = parse_matrix_market("a", "%%MatrixMarket matrix coordinate real general\n3 4 0\n").unwrap();
    /// assert_eq!((m.rows(), m.cols()), (3, 4));
    /// ```
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    ///
    /// ```
    /// # use flatland_cli::io::parse_matrix_market;
    /// let m = parse_matrix_market("a", "%%MatrixMarket matrix coordinate real general\n3 4 0\n").unwrap();
    /// assert_eq!(m.cols(), 4);
    /// ```
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The symmetry named in the header.
    ///
    /// ```
    /// # use flatland_cli::io::{parse_matrix_market, Symmetry};
    /// let m = parse_matrix_market("a", "%%MatrixMarket matrix coordinate real general\n1 1 0\n").unwrap();
    /// assert_eq!(m.symmetry(), Symmetry::General);
    /// ```
    pub fn symmetry(&self) -> Symmetry {
        self.symmetry
    }

    /// All entries `(row, column, value)`, 0-based, mirrored entries of symmetric files included.
    ///
    /// ```
    /// # use flatland_cli::io::parse_matrix_market;
    /// let m = parse_matrix_market("a", "%%MatrixMarket matrix coordinate integer general\n1 2 1\n1 2 -3\n")
    ///     .unwrap();
    /// assert_eq!(m.entries(), &[(0, 1, -3.0)]);
    /// ```
    pub fn entries(&self) -> &[(usize, usize, f64)] {
        &self.entries
    }

    /// The matrix in compressed sparse row form, duplicates summed.
    ///
    /// ```
    /// # use flatland_cli::io::parse_matrix_market;
    /// let m = parse_matrix_market("a", "%%MatrixMarket matrix coordinate real general\n1 1 2\n1 1 1\n1 1 2\n")
    ///     .unwrap();
    /// assert_eq!(m.to_csr().values(), &[3.0]);
    /// ```
    pub fn to_csr(&self) -> Csr {
        Csr::from_triplets(self.rows, self.cols, self.entries.clone())
    }
}

/// Reads a Matrix Market file; errors name the file and line.
///
/// # Errors
/// An [`InputError`] naming the file and line of the first problem.
///
/// ```
/// use flatland_cli::io::read_matrix_market;
/// let err = read_matrix_market(std::path::Path::new("/no/such/file.mtx")).unwrap_err();
/// assert!(err.to_string().starts_with("/no/such/file.mtx: cannot read"));
/// ```
pub fn read_matrix_market(path: &Path) -> Result<MatrixMarket, InputError> {
    let text = read_text(path)?;
    parse_matrix_market(&path.display().to_string(), &text)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Real,
    Integer,
    Pattern,
}

/// Parses Matrix Market text; `file` is the name used in errors.
///
/// # Errors
/// An [`InputError`] naming the file and line of the first problem.
///
/// ```
/// use flatland_cli::io::parse_matrix_market;
/// let err = parse_matrix_market("A.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n")
///     .unwrap_err();
/// assert_eq!(err.to_string(), "A.mtx:3: row index 3 is out of range 1..=2");
/// ```
pub fn parse_matrix_market(file: &str, text: &str) -> Result<MatrixMarket, InputError> {
    let mut lines = numbered(text);
    let Some((hline, header)) = lines.next() else {
        return Err(InputError::at(
            file,
            1,
            "empty file; expected a '%%MatrixMarket' header",
        ));
    };
    let (field, symmetry) = parse_header(file, hline, header)?;
    let mut data = lines.filter(|(_, l)| {
        let t = l.trim_start();
        !t.is_empty() && !t.starts_with('%')
    });
    let Some((sline, size)) = data.next() else {
        return Err(InputError::at(
            file,
            end_line(text),
            "file ends before the size line 'ROWS COLUMNS ENTRIES'",
        ));
    };
    let (rows, cols, nnz) = parse_size(file, sline, size, symmetry)?;
    // Room for the declared entries, but never more than the rest of the text can hold (an
    // entry line takes at least 4 bytes): a small file cannot reserve much by declaring much.
    let room = nnz.min(text.len() / 4 + 1);
    let mut entries = Vec::with_capacity(room * if symmetry == Symmetry::General { 1 } else { 2 });
    let fields = if field == Field::Pattern { 2 } else { 3 };
    let mut seen = 0;
    for (line, text_line) in data {
        if seen == nnz {
            return Err(InputError::at(
                file,
                line,
                format!("more entries than the {nnz} declared on line {sline}"),
            ));
        }
        let parts: Vec<&str> = text_line.split_whitespace().collect();
        if parts.len() != fields {
            let want = if fields == 2 {
                "2 fields (row column)"
            } else {
                "3 fields (row column value)"
            };
            return Err(InputError::at(
                file,
                line,
                format!("expected {want}, found {}", parts.len()),
            ));
        }
        let r = parse_index(file, line, "row", parts[0], rows)?;
        let c = parse_index(file, line, "column", parts[1], cols)?;
        let v = match field {
            Field::Pattern => 1.0,
            Field::Real => parse_f64(file, line, "value ", parts[2])?,
            Field::Integer => parts[2].parse::<i64>().map_err(|_| {
                InputError::at(
                    file,
                    line,
                    format!("value '{}' is not an integer", parts[2]),
                )
            })? as f64,
        };
        match symmetry {
            Symmetry::General => entries.push((r, c, v)),
            Symmetry::Symmetric => {
                if r < c {
                    return Err(upper(file, line, r, c, "symmetric", "lower triangle"));
                }
                entries.push((r, c, v));
                if r != c {
                    entries.push((c, r, v));
                }
            }
            Symmetry::SkewSymmetric => {
                if r <= c {
                    return Err(upper(
                        file,
                        line,
                        r,
                        c,
                        "skew-symmetric",
                        "strictly lower triangle",
                    ));
                }
                entries.push((r, c, v));
                entries.push((c, r, -v));
            }
        }
        seen += 1;
    }
    if seen < nnz {
        return Err(InputError::at(
            file,
            end_line(text),
            format!("file ends after {seen} of the {nnz} entries declared on line {sline}"),
        ));
    }
    Ok(MatrixMarket {
        rows,
        cols,
        symmetry,
        entries,
    })
}

fn upper(file: &str, line: usize, r: usize, c: usize, kind: &str, stored: &str) -> InputError {
    InputError::at(
        file,
        line,
        format!(
            "entry ({}, {}) is not in the {stored}, which is all a {kind} file stores",
            r + 1,
            c + 1
        ),
    )
}

fn parse_header(file: &str, line: usize, header: &str) -> Result<(Field, Symmetry), InputError> {
    let t: Vec<String> = header
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    let err = |p: String| Err(InputError::at(file, line, p));
    if t.first().map(String::as_str) != Some("%%matrixmarket") {
        return err("missing '%%MatrixMarket' header".into());
    }
    if t.len() != 5 {
        return err(format!(
            "header has {} words; expected '%%MatrixMarket matrix coordinate FIELD SYMMETRY'",
            t.len()
        ));
    }
    if t[1] != "matrix" {
        return err(format!("unsupported object '{}' (expected 'matrix')", t[1]));
    }
    if t[2] != "coordinate" {
        return err(format!(
            "unsupported format '{}' (expected 'coordinate')",
            t[2]
        ));
    }
    let field = match t[3].as_str() {
        "real" | "double" => Field::Real,
        "integer" => Field::Integer,
        "pattern" => Field::Pattern,
        other => {
            return err(format!(
                "unsupported field '{other}' (expected real, integer or pattern)"
            ));
        }
    };
    let symmetry = match t[4].as_str() {
        "general" => Symmetry::General,
        "symmetric" => Symmetry::Symmetric,
        "skew-symmetric" => Symmetry::SkewSymmetric,
        other => {
            return err(format!(
                "unsupported symmetry '{other}' (expected general, symmetric or skew-symmetric)"
            ));
        }
    };
    Ok((field, symmetry))
}

/// The bytes a declared row takes whatever its entries, from reading to the product: the CSR
/// row offset, the row descriptor's length and start, and the row's result (`usize`, `usize`,
/// `usize`, `f64`). Checked against the memory budget at the size line; `declared_sizes.rs`
/// measures it.
pub const BYTES_PER_ROW: usize = 3 * size_of::<usize>() + size_of::<f64>();

fn parse_size(
    file: &str,
    line: usize,
    text: &str,
    symmetry: Symmetry,
) -> Result<(usize, usize, usize), InputError> {
    let parts: Vec<&str> = text.split_whitespace().collect();
    if parts.len() != 3 {
        return Err(InputError::at(
            file,
            line,
            format!(
                "size line needs 3 numbers 'ROWS COLUMNS ENTRIES', found {} fields",
                parts.len()
            ),
        ));
    }
    let num = |what: &str, s: &str| {
        s.parse::<usize>().map_err(|_| {
            InputError::at(
                file,
                line,
                format!("{what} '{s}' is not a non-negative integer"),
            )
        })
    };
    let rows = num("row count", parts[0])?;
    let cols = num("column count", parts[1])?;
    let nnz = num("entry count", parts[2])?;
    if symmetry != Symmetry::General && rows != cols {
        return Err(InputError::at(
            file,
            line,
            format!("a symmetric matrix must be square, not {rows}x{cols}"),
        ));
    }
    if nnz > 0 && (rows == 0 || cols == 0) {
        return Err(InputError::at(
            file,
            line,
            format!("{nnz} entries cannot fit in a {rows}x{cols} matrix"),
        ));
    }
    // What the declared rows take must fit in the memory budget: refused here, before anything
    // is allocated. (Under overcommit a failed reservation never shows; the process would die
    // when the pages are touched.)
    budget::check(
        "the row offsets, row descriptor and result of the declared rows",
        rows.saturating_add(1).saturating_mul(BYTES_PER_ROW),
    )
    .map_err(|e| InputError::at(file, line, format!("{rows} rows: {e}")))?;
    Ok((rows, cols, nnz))
}

fn parse_index(
    file: &str,
    line: usize,
    what: &str,
    s: &str,
    bound: usize,
) -> Result<usize, InputError> {
    match s.parse::<usize>() {
        Ok(i) if (1..=bound).contains(&i) => Ok(i - 1),
        Ok(i) => Err(InputError::at(
            file,
            line,
            format!("{what} index {i} is out of range 1..={bound}"),
        )),
        Err(_) => Err(InputError::at(
            file,
            line,
            format!("{what} index '{s}' is not a positive integer"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "%%MatrixMarket matrix coordinate real general\n";

    fn err(text: &str) -> String {
        parse_matrix_market("m.mtx", text).unwrap_err().to_string()
    }

    #[test]
    fn reads_general_real_with_comments_and_duplicates() {
        let m = parse_matrix_market(
            "m",
            &format!("{H}% c\n\n2 3 3\n1 3 1.5\n% mid\n2 1 -2e0\n1 3 0.25\n"),
        )
        .unwrap();
        let a = m.to_csr();
        assert_eq!(a.offsets(), &[0, 1, 2]);
        assert_eq!(a.indices(), &[2, 0]);
        assert_eq!(a.values(), &[1.75, -2.0]);
    }

    #[test]
    fn expands_symmetric_and_skew() {
        let s = "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n1 1 4\n2 1 7\n";
        let a = parse_matrix_market("s", s).unwrap().to_csr();
        assert_eq!(
            (a.offsets(), a.indices(), a.values()),
            (&[0, 2, 3][..], &[0, 1, 0][..], &[4.0, 7.0, 7.0][..])
        );
        let k = "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3\n";
        let a = parse_matrix_market("k", k).unwrap().to_csr();
        assert_eq!(a.values(), &[-3.0, 3.0]);
    }

    #[test]
    fn header_errors() {
        assert_eq!(
            err(""),
            "m.mtx:1: empty file; expected a '%%MatrixMarket' header"
        );
        assert_eq!(err("1 1 1\n"), "m.mtx:1: missing '%%MatrixMarket' header");
        assert!(
            err("%%MatrixMarket matrix array real general\n")
                .contains("unsupported format 'array'")
        );
        assert!(
            err("%%MatrixMarket matrix coordinate complex general\n")
                .contains("unsupported field 'complex'")
        );
        assert!(
            err("%%MatrixMarket matrix coordinate real hermitian\n")
                .contains("unsupported symmetry")
        );
        assert!(
            err("%%MatrixMarket matrix coordinate real\n")
                .starts_with("m.mtx:1: header has 4 words")
        );
    }

    #[test]
    fn size_errors() {
        assert_eq!(
            err(H),
            "m.mtx:2: file ends before the size line 'ROWS COLUMNS ENTRIES'"
        );
        assert!(err(&format!("{H}2 2\n")).starts_with("m.mtx:2: size line needs 3 numbers"));
        assert_eq!(
            err(&format!("{H}2 x 1\n")),
            "m.mtx:2: column count 'x' is not a non-negative integer"
        );
        assert_eq!(
            err(&format!("{H}0 1 2\n")),
            "m.mtx:2: 2 entries cannot fit in a 0x1 matrix"
        );
        let sym = "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n";
        assert_eq!(
            err(sym),
            "m.mtx:2: a symmetric matrix must be square, not 2x3"
        );
        let huge = err(&format!("{H}{} 1 0\n", usize::MAX));
        assert!(
            huge.starts_with(&format!(
                "m.mtx:2: {} rows: the row offsets, row descriptor",
                usize::MAX
            )) && huge.contains("memory budget"),
            "{huge}"
        );
    }

    #[test]
    fn entry_errors() {
        assert_eq!(
            err(&format!("{H}2 2 1\n0 1 1\n")),
            "m.mtx:3: row index 0 is out of range 1..=2"
        );
        assert_eq!(
            err(&format!("{H}2 2 1\n1 3 1\n")),
            "m.mtx:3: column index 3 is out of range 1..=2"
        );
        assert_eq!(
            err(&format!("{H}2 2 1\n1 -1 1\n")),
            "m.mtx:3: column index '-1' is not a positive integer"
        );
        assert_eq!(
            err(&format!("{H}2 2 1\n1 1 abc\n")),
            "m.mtx:3: value 'abc' is not a number"
        );
        assert_eq!(
            err(&format!("{H}2 2 1\n1 1 nan\n")),
            "m.mtx:3: value 'nan' is not a finite number"
        );
        assert_eq!(
            err(&format!("{H}2 2 1\n1 1\n")),
            "m.mtx:3: expected 3 fields (row column value), found 2"
        );
        assert_eq!(
            err(&format!("{H}2 2 1\n1 1 1\n2 2 2\n")),
            "m.mtx:4: more entries than the 1 declared on line 2"
        );
        assert_eq!(
            err(&format!("{H}2 2 3\n1 1 1\n2 2 2\n")),
            "m.mtx:5: file ends after 2 of the 3 entries declared on line 2"
        );
        let int = "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 1.5\n";
        assert_eq!(err(int), "m.mtx:3: value '1.5' is not an integer");
        let sym = "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n";
        assert!(err(sym).starts_with("m.mtx:3: entry (1, 2) is not in the lower triangle"));
    }

    #[test]
    fn crlf_and_invalid_utf8() {
        let m = parse_matrix_market(
            "m",
            "%%MatrixMarket matrix coordinate pattern general\r\n1 1 1\r\n1 1\r\n",
        )
        .unwrap();
        assert_eq!(m.entries(), &[(0, 0, 1.0)]);
        let dir = std::env::temp_dir().join(format!("flatland-mtx-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("bad.mtx");
        std::fs::write(
            &p,
            b"%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 \xff\n",
        )
        .unwrap();
        let e = read_matrix_market(&p).unwrap_err();
        assert_eq!((e.line(), e.problem()), (Some(3), "not valid UTF-8 text"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
