//! The error every reader returns: which file, which line, what is wrong.

use std::fmt;

/// Bad input: the file, the 1-based line (when the problem has one) and what is wrong.
///
/// Displays as one line, `FILE:LINE: PROBLEM` (or `FILE: PROBLEM`).
///
/// ```
/// use flatland_cli::io::InputError;
/// let e = InputError::at("A.mtx", 3, "row index 0 is out of range 1..=4");
/// assert_eq!(e.to_string(), "A.mtx:3: row index 0 is out of range 1..=4");
/// assert_eq!(e.line(), Some(3));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    file: String,
    line: Option<usize>,
    problem: String,
}

impl InputError {
    /// An error on a given line (1-based) of `file`.
    ///
    /// ```
    /// # use flatland_cli::io::InputError;
    /// assert_eq!(InputError::at("p.txt", 1, "bad").to_string(), "p.txt:1: bad");
    /// ```
    pub fn at(file: &str, line: usize, problem: impl Into<String>) -> Self {
        Self {
            file: file.to_owned(),
            line: Some(line),
            problem: problem.into(),
        }
    }

    /// An error about `file` as a whole (it cannot be opened, for example).
    ///
    /// ```
    /// # use flatland_cli::io::InputError;
    /// assert_eq!(InputError::file("p.txt", "cannot open").to_string(), "p.txt: cannot open");
    /// ```
    pub fn file(file: &str, problem: impl Into<String>) -> Self {
        Self {
            file: file.to_owned(),
            line: None,
            problem: problem.into(),
        }
    }

    /// The file named by the error.
    ///
    /// ```
    /// # use flatland_cli::io::InputError;
    /// assert_eq!(InputError::file("p.txt", "x").file_name(), "p.txt");
    /// ```
    pub fn file_name(&self) -> &str {
        &self.file
    }

    /// The 1-based line, if the problem has one.
    ///
    /// ```
    /// # use flatland_cli::io::InputError;
    /// assert_eq!(InputError::file("p.txt", "x").line(), None);
    /// ```
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// What is wrong, without the file and line.
    ///
    /// ```
    /// # use flatland_cli::io::InputError;
    /// assert_eq!(InputError::at("p.txt", 2, "oops").problem(), "oops");
    /// ```
    pub fn problem(&self) -> &str {
        &self.problem
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.file, line, self.problem),
            None => write!(f, "{}: {}", self.file, self.problem),
        }
    }
}

impl std::error::Error for InputError {}
