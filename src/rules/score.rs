//! Area scoring (C9, C10): stones plus surrounded empty points, dame split
//! half each, komi in points, and the result in points and in the Chinese
//! "stones" terms. Territory scoring (Japanese, Korean): surrounded empty
//! points plus prisoners (stones captured during the game and dead stones
//! taken off at the end), dame for no one, and with the seki tax the eyes
//! of groups in seki for no one either ([`TerritoryCount`]).

use std::fmt;

use super::board::Board;
use super::color::Color;
use super::point::{Point, CELLS};
use super::ruleset::{Ruleset, Scoring, Tax};

/// Territory scoring's points for each side: surrounded empty points
/// (not touching a group in seki, under the seki tax) plus prisoners.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TerritoryCount {
    pub black: u32,
    pub white: u32,
}

/// Counts `board` by territory with the stones in `dead` taken off as
/// prisoners; `seki` lists stones in seki (only used under [`Tax::Seki`]):
/// an empty region touching one of them is no one's.
pub fn territory_count(board: &Board, dead: &[Point], seki: &[Point], tax: Tax) -> TerritoryCount {
    let (_, owners) = area_with_owners(board, dead);
    let mut out = TerritoryCount {
        black: board.captures(Color::Black),
        white: board.captures(Color::White),
    };
    for &p in dead {
        match board.get(p) {
            Some(Color::Black) => out.white += 1,
            Some(Color::White) => out.black += 1,
            None => {}
        }
    }
    let is_dead = |p: Point| dead.contains(&p);
    // Empty regions next to a stone in seki (seki tax): flood from each
    // such region point.
    let mut taxed = vec![false; CELLS];
    if tax == Tax::Seki && !seki.is_empty() {
        let mut stack: Vec<Point> = Vec::new();
        for &s in seki {
            for n in s.neighbors() {
                let empty = n.on_board(board.size()) && (board.is_empty(n) || is_dead(n));
                if empty && !taxed[n.index()] {
                    taxed[n.index()] = true;
                    stack.push(n);
                }
            }
        }
        while let Some(q) = stack.pop() {
            for n in q.neighbors() {
                let empty = n.on_board(board.size()) && (board.is_empty(n) || is_dead(n));
                if empty && !taxed[n.index()] {
                    taxed[n.index()] = true;
                    stack.push(n);
                }
            }
        }
    }
    for p in board.points() {
        let empty = board.is_empty(p) || is_dead(p);
        if !empty || taxed[p.index()] {
            continue;
        }
        match owners[p.index()] {
            Some(Color::Black) => out.black += 1,
            Some(Color::White) => out.white += 1,
            None => {}
        }
    }
    out
}

/// Black's margin (komi off, handicap compensation not counted) when the
/// game ends on `board` with `dead` removed, under `rules`' scoring; `seki`
/// as for [`territory_count`].
pub fn margin_under(board: &Board, dead: &[Point], seki: &[Point], rules: &Ruleset) -> f32 {
    margin_with(&area_count(board, dead), board, dead, seki, rules)
}

/// [`margin_under`] for a caller that already has the area `count` of
/// `board` with `dead` removed: area scoring needs no second count.
pub fn margin_with(
    count: &AreaCount,
    board: &Board,
    dead: &[Point],
    seki: &[Point],
    rules: &Ruleset,
) -> f32 {
    match rules.scoring {
        Scoring::Area => count.black() - count.white() - rules.komi,
        Scoring::Territory => {
            let t = territory_count(board, dead, seki, rules.tax);
            t.black as f32 - t.white as f32 - rules.komi
        }
    }
}

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
    /// Under territory scoring, the count that decides (`count` is then
    /// only informative).
    pub territory: Option<TerritoryCount>,
}

impl Score {
    /// Scores `board` with `dead` removed, by area.
    pub fn new(board: &Board, dead: &[Point], komi: f32, handicap_points: f32) -> Score {
        Score {
            count: area_count(board, dead),
            size: board.size(),
            komi,
            handicap_points,
            territory: None,
        }
    }

    /// Scores `board` with `dead` removed under `rules`' scoring (`seki`:
    /// stones in seki, for the seki tax).
    pub fn under(
        board: &Board,
        dead: &[Point],
        seki: &[Point],
        rules: &Ruleset,
        handicap_points: f32,
    ) -> Score {
        let mut s = Score::new(board, dead, rules.komi, handicap_points);
        if rules.scoring == Scoring::Territory {
            s.territory = Some(territory_count(board, dead, seki, rules.tax));
        }
        s
    }

    /// Black's points minus White's minus komi and compensation (area, or
    /// territory when [`Score::territory`] is set): positive means Black
    /// wins by that many points.
    pub fn margin(&self) -> f32 {
        match self.territory {
            Some(t) => t.black as f32 - t.white as f32 - self.komi - self.handicap_points,
            None => self.count.black() - self.count.white() - self.komi - self.handicap_points,
        }
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
    /// stone", or "Draw (jigo)"; under territory scoring, in points.
    pub fn stones_string(&self) -> String {
        if self.territory.is_some() {
            return match self.winner() {
                None => "Draw (jigo)".to_string(),
                Some(c) => {
                    let who = if c == Color::Black { "Black" } else { "White" };
                    format!(
                        "{who} wins by {} points (territory)",
                        fmt_points(self.margin().abs())
                    )
                }
            };
        }
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
    fn territory_counts_prisoners_and_leaves_dame_and_seki_eyes_out() {
        // 5x5: Black column B with A's points, White column D with E's,
        // column C dame. A white stone at A3 is dead in Black's area.
        let mut b = Board::new(5);
        for y in 0..5 {
            b.set(Point::new(1, y), Some(Color::Black));
            b.set(Point::new(3, y), Some(Color::White));
        }
        b.set(Point::new(0, 2), Some(Color::White));
        let dead = [Point::new(0, 2)];
        let t = territory_count(&b, &dead, &[], Tax::Seki);
        // Black: A1 A2 A3(dead, now empty) A4 A5 = 5 points + 1 prisoner.
        assert_eq!((t.black, t.white), (6, 5));
        let japanese = Ruleset::japanese().with_komi(0.5);
        assert_eq!(margin_under(&b, &dead, &[], &japanese), 0.5);
        // By area the same board is 10 + 2.5 against 10 + 2.5.
        let area = Ruleset::chinese().with_komi(0.5);
        assert_eq!(margin_under(&b, &dead, &[], &area), -0.5);
        // With column B in seki, Black's eyes are taxed.
        let seki: Vec<Point> = (0..5).map(|y| Point::new(1, y)).collect();
        let t = territory_count(&b, &dead, &seki, Tax::Seki);
        assert_eq!((t.black, t.white), (1, 5));
        let s = Score::under(&b, &dead, &[], &japanese, 0.0);
        assert_eq!(s.result_string(), "B+0.5");
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
