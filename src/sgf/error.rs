//! Errors and warnings of the SGF layer.
//!
//! This file owns [`SgfError`] (a hard failure, with the line and column
//! where it was found), its [`SgfErrorKind`], and [`Warning`] (something the
//! reader skipped or repaired while recovering from malformed input).

use std::fmt;

/// What went wrong while reading an SGF file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SgfErrorKind {
    /// The input holds no game tree at all (no `(;` anywhere).
    #[error("not an SGF file: no game tree found (expected \"(;\")")]
    NoGameTree,
    /// A malformed construct that the lenient reader would have skipped;
    /// only strict parsing reports it as an error.
    #[error("malformed SGF: {0}")]
    Malformed(String),
    /// `SZ` is outside the supported range.
    #[error("board size {0} not supported (supported: 2 to 19)")]
    UnsupportedSize(usize),
    /// `SZ` gives a rectangular board.
    #[error("rectangular board {0}x{1} not supported")]
    RectangularBoard(usize, usize),
    /// `SZ` is not a number.
    #[error("invalid board size SZ[{0}]")]
    BadSize(String),
    /// `GM` names a game other than Go.
    #[error("game type GM[{0}] is not Go (GM[1])")]
    NotGo(String),
    /// A move value that is neither a point on the board nor a pass.
    #[error("invalid move {prop}[{value}] on a {size}x{size} board")]
    BadMove {
        prop: String,
        value: String,
        size: usize,
    },
    /// A setup point (`AB`/`AW`/`AE`) that is not on the board.
    #[error("invalid point {prop}[{value}] on a {size}x{size} board")]
    BadPoint {
        prop: String,
        value: String,
        size: usize,
    },
}

/// A hard error, with the 1-based line and column where it was detected
/// (0 when it concerns the file as a whole).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{kind}", location_prefix(*line, *col))]
pub struct SgfError {
    pub kind: SgfErrorKind,
    pub line: usize,
    pub col: usize,
}

impl SgfError {
    pub(crate) fn new(kind: SgfErrorKind, line: usize, col: usize) -> SgfError {
        SgfError { kind, line, col }
    }
}

/// Something the reader skipped, repaired or guessed. Line and column are
/// 1-based; 0 means the warning concerns the whole file (e.g. its encoding).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl Warning {
    pub(crate) fn new(line: usize, col: usize, message: impl Into<String>) -> Warning {
        Warning {
            line,
            col,
            message: message.into(),
        }
    }

    /// A warning about the file as a whole.
    pub(crate) fn file(message: impl Into<String>) -> Warning {
        Warning::new(0, 0, message)
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            location_prefix(self.line, self.col),
            self.message
        )
    }
}

fn location_prefix(line: usize, col: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!("line {line}, column {col}: ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_carry_the_location() {
        let e = SgfError::new(SgfErrorKind::UnsupportedSize(25), 1, 30);
        assert_eq!(
            e.to_string(),
            "line 1, column 30: board size 25 not supported (supported: 2 to 19)"
        );
        let w = Warning::file("no CA");
        assert_eq!(w.to_string(), "no CA");
        assert_eq!(Warning::new(2, 3, "x").to_string(), "line 2, column 3: x");
    }
}
