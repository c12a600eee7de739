//! Area scoring (C9, C10): stones plus surrounded empty points, dame split
//! half each, komi in points, and the result in points and in the Chinese
//! "stones" terms.

use std::fmt;

use super::board::Board;
use super::color::Color;
use super::point::{Point, CELLS};

/// Raw area count of a board after dead stones are removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct AreaCount {
    pub black_stones: u32,
    pub white_stones: u32,
    /// Empty points reached only by Black.
    pub black_territory: u32,
    /// Empty points reached only by White.
    pub white_territory: u32,
    /// Empty points reached by both colours (or by neither, on an empty
    /// board): split half each.
    pub dame: u32,
}

impl AreaCount {
    /// Black's area: stones + territory + half the dame.
    pub fn black(&self) -> f32 {
        (self.black_stones + self.black_territory) as f32 + self.dame as f32 / 2.0
    }

    /// White's area: stones + territory + half the dame.
    pub fn white(&self) -> f32 {
        (self.white_stones + self.white_territory) as f32 + self.dame as f32 / 2.0
    }
}

/// Who owns each point at the end: the colour whose area it is, or `None`
/// for dame. Indexed by [`Point::index`].
pub type Ownership = [Option<Color>; CELLS];

/// Counts the board with the stones in `dead` removed. Points in `dead`
/// that are empty are ignored.
pub fn area_count(board: &Board, dead: &[Point]) -> AreaCount {
    area_with_owners(board, dead).0
}

/// Like [`area_count`], also returning who owns every point.
pub fn area_with_owners(board: &Board, dead: &[Point]) -> (AreaCount, Box<Ownership>) {
    let mut b = board.clone();
    for &p in dead {
        if p.on_board(b.size()) && b.get(p).is_some() {
            b.set(p, None);
        }
    }
    let mut count = AreaCount::default();
    let mut owner: Box<Ownership> = Box::new([None; CELLS]);
    let mut visited = [false; CELLS];
    for p in b.points() {
        match b.get(p) {
            Some(Color::Black) => {
                count.black_stones += 1;
                owner[p.index()] = Some(Color::Black);
            }
            Some(Color::White) => {
                count.white_stones += 1;
                owner[p.index()] = Some(Color::White);
            }
            None if !visited[p.index()] => {
                // Flood-fill this empty region and see whom it touches.
                let mut region = vec![p];
                let mut stack = vec![p];
                visited[p.index()] = true;
                let (mut touches_b, mut touches_w) = (false, false);
                while let Some(q) = stack.pop() {
                    for n in q.neighbors() {
                        match b.cell(n) {
                            super::board::Cell::Empty if !visited[n.index()] => {
                                visited[n.index()] = true;
                                region.push(n);
                                stack.push(n);
                            }
                            super::board::Cell::Black => touches_b = true,
                            super::board::Cell::White => touches_w = true,
                            _ => {}
                        }
                    }
                }
                let n = region.len() as u32;
                let who = match (touches_b, touches_w) {
                    (true, false) => {
                        count.black_territory += n;
                        Some(Color::Black)
                    }
                    (false, true) => {
                        count.white_territory += n;
                        Some(Color::White)
                    }
                    _ => {
                        count.dame += n;
                        None
                    }
                };
                for q in region {
                    owner[q.index()] = who;
                }
            }
            None => {}
        }
    }
    (count, owner)
}

/// A scored result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Score {
    pub count: AreaCount,
    /// Board size (for the stones-terms baseline).
    pub size: usize,
    pub komi: f32,
    /// White's handicap compensation in points.
    pub handicap_points: f32,
}

impl Score {
    /// Scores `board` with `dead` removed.
    pub fn new(board: &Board, dead: &[Point], komi: f32, handicap_points: f32) -> Score {
        Score {
            count: area_count(board, dead),
            size: board.size(),
            komi,
            handicap_points,
        }
    }

    /// Black's area minus White's area minus komi and compensation: positive
    /// means Black wins by that many points.
    pub fn margin(&self) -> f32 {
        self.count.black() - self.count.white() - self.komi - self.handicap_points
    }

    /// The winner, or `None` for a draw (jigo).
    pub fn winner(&self) -> Option<Color> {
        let m = self.margin();
        if m > 0.0 {
            Some(Color::Black)
        } else if m < 0.0 {
            Some(Color::White)
        } else {
            None
        }
    }

    /// The result as GTP and SGF write it: `B+3.5`, `W+0.5`, or `0` for a
    /// draw.
    pub fn result_string(&self) -> String {
        let m = self.margin();
        match self.winner() {
            Some(c) => format!("{}+{}", c.letter(), fmt_points(m.abs())),
            None => "0".to_string(),
        }
    }

    /// Black's count in the Chinese sense, against the baseline of half the
    /// board plus half the komi and compensation (C9, C10).
    pub fn black_count(&self) -> f32 {
        self.count.black()
    }

    /// The baseline Black must exceed: half the points of the board plus
    /// half of komi and compensation (183¼ on 19×19 with komi 5.5).
    pub fn black_baseline(&self) -> f32 {
        (self.size * self.size) as f32 / 2.0 + (self.komi + self.handicap_points) / 2.0
    }

    /// The result in stones: "Black wins by 1¾ stones", "White wins by ¼
    /// stone", or "Draw (jigo)".
    pub fn stones_string(&self) -> String {
        let diff = self.black_count() - self.black_baseline();
        match self.winner() {
            None => "Draw (jigo)".to_string(),
            Some(c) => {
                let s = fmt_quarters(diff.abs());
                let unit = if diff.abs() <= 1.0 { "stone" } else { "stones" };
                let who = if c == Color::Black { "Black" } else { "White" };
                format!("{who} wins by {s} {unit}")
            }
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.result_string(), self.stones_string())
    }
}

/// Points with no needless decimals: `3`, `3.5`, `0.25`.
pub fn fmt_points(x: f32) -> String {
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// Quarters as vulgar fractions: `1¾`, `½`, `2`.
pub fn fmt_quarters(x: f32) -> String {
    let q = (x * 4.0).round() as i64;
    let (whole, frac) = (q / 4, q % 4);
    let f = ["", "¼", "½", "¾"][frac as usize];
    match (whole, frac) {
        (0, 0) => "0".to_string(),
        (0, _) => f.to_string(),
        _ => format!("{whole}{f}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_board_is_all_dame() {
        let b = Board::new(9);
        let s = Score::new(&b, &[], 0.0, 0.0);
        assert_eq!(s.count.dame, 81);
        assert_eq!(s.result_string(), "0");
    }

    #[test]
    fn stones_terms_match_the_seed() {
        // 19x19, komi 5.5: Black needs more than 183¼.
        let b = Board::new(19);
        let s = Score::new(&b, &[], 5.5, 0.0);
        assert_eq!(s.black_baseline(), 183.25);
        assert_eq!(fmt_quarters(1.75), "1¾");
        assert_eq!(fmt_quarters(0.25), "¼");
        assert_eq!(fmt_points(3.5), "3.5");
        assert_eq!(fmt_points(4.0), "4");
    }
}
