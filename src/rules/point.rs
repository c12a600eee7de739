//! Points and moves.
//!
//! A [`Point`] is an index into a padded board array with a fixed stride of
//! [`STRIDE`] = 21 (19 columns plus a border on each side), so a point means
//! the same intersection on every board size. Columns `x` run left to right
//! from 0 (`A`), rows `y` run top to bottom from 0 (SGF order: `aa` is the top
//! left corner). GTP rows count from the bottom: row number = size − y.

use std::fmt;

/// Largest supported board size.
pub const MAX_SIZE: usize = 19;
/// Smallest supported board size.
pub const MIN_SIZE: usize = 2;
/// Row stride of the padded board array.
pub const STRIDE: usize = MAX_SIZE + 2;
/// Number of cells in the padded board array.
pub const CELLS: usize = STRIDE * STRIDE;

/// GTP column letters (no `I`).
const GTP_COLUMNS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// An intersection, as an index into the padded board array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(u16);

impl Point {
    /// The point at column `x`, row `y` (both 0-based, `y` from the top).
    /// Callers must keep `x, y < MAX_SIZE`.
    #[inline]
    pub const fn new(x: usize, y: usize) -> Point {
        debug_assert!(x < MAX_SIZE && y < MAX_SIZE);
        Point(((y + 1) * STRIDE + x + 1) as u16)
    }

    /// The point at `x, y` if it lies on a board of `size`.
    #[inline]
    pub fn checked(x: usize, y: usize, size: usize) -> Option<Point> {
        (x < size && y < size).then(|| Point::new(x, y))
    }

    /// Rebuilds a point from its raw index. The index must come from
    /// [`Point::index`].
    #[inline]
    pub const fn from_index(i: usize) -> Point {
        Point(i as u16)
    }

    /// Index into arrays of [`CELLS`] entries.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Column, 0-based from the left.
    #[inline]
    pub const fn x(self) -> usize {
        self.0 as usize % STRIDE - 1
    }

    /// Row, 0-based from the top.
    #[inline]
    pub const fn y(self) -> usize {
        self.0 as usize / STRIDE - 1
    }

    /// Whether the point lies on a board of `size`.
    #[inline]
    pub fn on_board(self, size: usize) -> bool {
        let (c, r) = (self.0 as usize % STRIDE, self.0 as usize / STRIDE);
        (1..=size).contains(&c) && (1..=size).contains(&r)
    }

    /// Index into a dense `size * size` array (row-major from the top).
    #[inline]
    pub fn dense(self, size: usize) -> usize {
        self.y() * size + self.x()
    }

    /// The point for a dense index on a board of `size`.
    #[inline]
    pub fn from_dense(i: usize, size: usize) -> Point {
        Point::new(i % size, i / size)
    }

    /// The four orthogonal neighbours (some may be off the board).
    #[inline]
    pub fn neighbors(self) -> [Point; 4] {
        let i = self.0;
        let s = STRIDE as u16;
        [Point(i - s), Point(i - 1), Point(i + 1), Point(i + s)]
    }

    /// The four diagonal neighbours (some may be off the board).
    #[inline]
    pub fn diagonals(self) -> [Point; 4] {
        let i = self.0;
        let s = STRIDE as u16;
        [
            Point(i - s - 1),
            Point(i - s + 1),
            Point(i + s - 1),
            Point(i + s + 1),
        ]
    }

    /// GTP name such as `D4` on a board of `size`.
    pub fn to_gtp(self, size: usize) -> String {
        format!("{}{}", GTP_COLUMNS[self.x()] as char, size - self.y())
    }

    /// Parses a GTP vertex (`D4`, `d4`) for a board of `size`. `I` is not a
    /// column. Returns `None` for anything off the board.
    pub fn parse_gtp(s: &str, size: usize) -> Option<Point> {
        let s = s.trim();
        let mut chars = s.chars();
        let c = chars.next()?.to_ascii_uppercase();
        let x = GTP_COLUMNS.iter().position(|&l| l as char == c)?;
        let digits = chars.as_str();
        if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let row: usize = digits.parse().ok()?;
        if row == 0 || row > size || x >= size {
            return None;
        }
        Some(Point::new(x, size - row))
    }

    /// SGF coordinate pair such as `dd`.
    pub fn to_sgf(self) -> String {
        let x = (b'a' + self.x() as u8) as char;
        let y = (b'a' + self.y() as u8) as char;
        format!("{x}{y}")
    }

    /// Parses a two-letter SGF coordinate for a board of `size`. Returns
    /// `None` when it is not two lower-case letters on the board (so `tt` on
    /// a 19×19 board is `None`: callers treat it as a pass).
    pub fn parse_sgf(s: &str, size: usize) -> Option<Point> {
        let b = s.as_bytes();
        if b.len() != 2 || !b[0].is_ascii_lowercase() || !b[1].is_ascii_lowercase() {
            return None;
        }
        Point::checked((b[0] - b'a') as usize, (b[1] - b'a') as usize, size)
    }
}

/// A move: a stone on a point, or a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    Place(Point),
    Pass,
}

impl Move {
    /// The point, for a placement.
    #[inline]
    pub fn point(self) -> Option<Point> {
        match self {
            Move::Place(p) => Some(p),
            Move::Pass => None,
        }
    }

    /// GTP text: a vertex or `pass`.
    pub fn to_gtp(self, size: usize) -> String {
        match self {
            Move::Place(p) => p.to_gtp(size),
            Move::Pass => "pass".to_string(),
        }
    }

    /// Parses a GTP move: a vertex or `pass` (any case).
    pub fn parse_gtp(s: &str, size: usize) -> Option<Move> {
        if s.trim().eq_ignore_ascii_case("pass") {
            Some(Move::Pass)
        } else {
            Point::parse_gtp(s, size).map(Move::Place)
        }
    }
}

impl From<Point> for Move {
    fn from(p: Point) -> Move {
        Move::Place(p)
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x(), self.y())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtp_round_trip() {
        for size in 2..=19 {
            for y in 0..size {
                for x in 0..size {
                    let p = Point::new(x, y);
                    assert_eq!(Point::parse_gtp(&p.to_gtp(size), size), Some(p));
                    assert_eq!(Point::parse_sgf(&p.to_sgf(), size), Some(p));
                }
            }
        }
        assert_eq!(Point::parse_gtp("I5", 19), None);
        assert_eq!(Point::parse_gtp("J1", 9), Some(Point::new(8, 8)));
        assert_eq!(Point::parse_gtp("T19", 19), Some(Point::new(18, 0)));
        assert_eq!(Point::parse_gtp("A20", 19), None);
        assert_eq!(Point::parse_gtp("A0", 19), None);
        assert_eq!(Point::parse_gtp("K1", 9), None);
        assert_eq!(Point::parse_sgf("tt", 19), None);
    }
}
