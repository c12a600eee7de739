//! Which stones are dead, alive or in seki at the end of a game (C8), and
//! the score a referee counting under Chinese rules would give.
//!
//! [`assess`] is pure: it takes the board and an ownership map (Black's
//! view, +1 = Black owns, dense order) from a short search of the position
//! ([`crate::engine::Engine::end_status`] runs it):
//! 1. stones inside the opponent's pass-alive territory (Benson) are dead;
//!    pass-alive stones are alive;
//! 2. any other string is dead when, on average over its stones, the
//!    opponent owns its points by more than [`DEAD_BELOW`] (without an
//!    ownership map only rule 1 applies);
//! 3. of the living strings (with the dead stones removed), those next to
//!    a shared liberty that neither side can fill without putting itself
//!    in atari are in seki, and so are two strings of opposite colours,
//!    neither pass-alive, whose liberties are the same two or more points
//!    (neither can fill one without the other capturing it next: three
//!    shared liberties and no eye, say); the rest are alive.
//!
//! The count ([`EndStatus::score`]) is the area count with the dead stones
//! removed (C9): an empty region reached by one colour is that colour's. In
//! a region reached by both, once the game has ended (two passes) a point
//! next to living stones of both colours is dame, split half each, always:
//! the search decides which stones are dead, never who owns a neutral
//! point. The other points of such a region, those behind a wall that
//! still has a gap (the ones a referee has the players close before
//! counting), go to the side that owns them by at least [`DECIDED`]; the
//! rest are split too. While the game goes on, the count is a forecast of
//! the final one: a dame point the search expects the player to move to
//! fill goes to that player too (as KataGo's `final_score` does).

use crate::rules::benson::pass_alive;
use crate::rules::score::{area_with_owners, Score};
use crate::rules::{Board, Color, Point, Ruleset, Scoring, CELLS};

pub use super::judge::DECIDED;

/// A string whose mean ownership (from its own colour's view) is below
/// this is dead.
pub const DEAD_BELOW: f32 = -0.3;

/// The status of every stone at the end of a game, each list sorted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EndStatus {
    pub dead: Vec<Point>,
    pub seki: Vec<Point>,
    pub alive: Vec<Point>,
    /// Black's-view ownership the judgement came from (empty if none).
    pub ownership: Vec<f32>,
}

impl EndStatus {
    /// The referee's score under `rules` (area, or territory with the
    /// stones found in seki taxed); see the module docs. `ended`: the game
    /// ended by two passes, so its dame stay dame.
    pub fn score(
        &self,
        board: &Board,
        rules: &Ruleset,
        handicap_points: f32,
        ended: bool,
    ) -> Score {
        let komi = rules.komi;
        if rules.scoring == Scoring::Territory {
            return Score::under(board, &self.dead, &self.seki, rules, handicap_points);
        }
        let size = board.size();
        let (mut count, owners) = area_with_owners(board, &self.dead);
        let dead = |p: Point| self.dead.binary_search(&p).is_ok();
        let living = |p: Point, c: Color| board.get(p) == Some(c) && !dead(p);
        if self.ownership.len() == size * size {
            for p in board.points() {
                let empty = board.is_empty(p) || dead(p);
                if !empty || owners[p.index()].is_some() {
                    continue;
                }
                let touches = |c: Color| p.neighbors().iter().any(|&n| living(n, c));
                if ended && touches(Color::Black) && touches(Color::White) {
                    continue; // dame
                }
                let o = self.ownership[p.dense(size)];
                if o >= DECIDED {
                    count.dame -= 1;
                    count.black_territory += 1;
                } else if o <= -DECIDED {
                    count.dame -= 1;
                    count.white_territory += 1;
                }
            }
        }
        Score {
            count,
            size,
            komi,
            handicap_points,
            territory: None,
        }
    }
}

/// Stones inside the other colour's pass-alive territory.
pub fn settled_dead(board: &Board) -> Vec<Point> {
    let pa = [
        pass_alive(board, Color::Black),
        pass_alive(board, Color::White),
    ];
    board
        .points()
        .filter(|&p| match board.get(p) {
            Some(c) => pa[c.opp().index()].territory[p.index()],
            None => false,
        })
        .collect()
}

/// The dead stones of `board` (rules 1 and 2 of the module docs), sorted.
/// `own_black` is Black's-view ownership in dense order, if known.
pub fn dead_stones(board: &Board, own_black: Option<&[f32]>) -> Vec<Point> {
    let size = board.size();
    let own_black = own_black.filter(|o| o.len() == size * size);
    let pa = [
        pass_alive(board, Color::Black),
        pass_alive(board, Color::White),
    ];
    let mut dead = Vec::new();
    let mut seen = vec![false; CELLS];
    for p in board.points() {
        let Some(c) = board.get(p) else { continue };
        if seen[p.index()] {
            continue;
        }
        let stones = board.string_stones(p);
        for s in &stones {
            seen[s.index()] = true;
        }
        let is_dead = if pa[c.opp().index()].territory[p.index()] {
            true
        } else if pa[c.index()].stones[p.index()] {
            false
        } else if let Some(own) = own_black {
            let sign = if c == Color::Black { 1.0 } else { -1.0 };
            let mean: f32 = stones
                .iter()
                .map(|s| sign * own[s.dense(size)])
                .sum::<f32>()
                / stones.len() as f32;
            mean < DEAD_BELOW
        } else {
            false
        };
        if is_dead {
            dead.extend(stones);
        }
    }
    dead.sort();
    dead
}

/// Dead, seki and alive stones; see the module docs.
pub fn assess(board: &Board, own_black: Option<&[f32]>) -> EndStatus {
    let dead = dead_stones(board, own_black);
    let mut live = board.clone();
    for &p in &dead {
        live.set(p, None);
    }
    let pa = [
        pass_alive(&live, Color::Black),
        pass_alive(&live, Color::White),
    ];
    // Shared liberties neither side can fill safely.
    let mut seki_mark = vec![false; CELLS];
    for p in live.empty_points() {
        let touches = |c: Color| p.neighbors().iter().any(|&n| live.get(n) == Some(c));
        if !(touches(Color::Black) && touches(Color::White)) {
            continue;
        }
        let self_atari = |c: Color| -> bool {
            if !live.is_pseudo_legal(c, p, false) {
                return true;
            }
            let mut b = live.clone();
            b.place(c, p);
            b.get(p) != Some(c) || b.liberties(p) <= 1
        };
        if self_atari(Color::Black) && self_atari(Color::White) {
            for n in p.neighbors() {
                if let Some(c) = live.get(n) {
                    if !pa[c.index()].stones[n.index()] {
                        for s in live.string_stones(n) {
                            seki_mark[s.index()] = true;
                        }
                    }
                }
            }
        }
        // Strings of both colours sharing all their liberties.
        let around: Vec<Point> = p
            .neighbors()
            .into_iter()
            .filter(|&n| {
                live.get(n)
                    .is_some_and(|c| !pa[c.index()].stones[n.index()])
            })
            .collect();
        for &a in &around {
            for &b in &around {
                if live.get(a) != Some(Color::Black) || live.get(b) != Some(Color::White) {
                    continue;
                }
                let (mut la, mut lb) = (live.string_liberties(a), live.string_liberties(b));
                la.sort();
                lb.sort();
                if la.len() >= 2 && la == lb {
                    for s in live
                        .string_stones(a)
                        .into_iter()
                        .chain(live.string_stones(b))
                    {
                        seki_mark[s.index()] = true;
                    }
                }
            }
        }
    }
    let mut seki = Vec::new();
    let mut alive = Vec::new();
    for p in live.points().filter(|&p| live.get(p).is_some()) {
        if seki_mark[p.index()] {
            seki.push(p);
        } else {
            alive.push(p);
        }
    }
    seki.sort();
    alive.sort();
    EndStatus {
        dead,
        seki,
        alive,
        ownership: own_black.map(<[f32]>::to_vec).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(rows: &[&str]) -> Board {
        let mut b = Board::new(rows.len());
        for (y, r) in rows.iter().enumerate() {
            for (x, ch) in r.chars().enumerate() {
                match ch {
                    'X' => b.set(Point::new(x, y), Some(Color::Black)),
                    'O' => b.set(Point::new(x, y), Some(Color::White)),
                    _ => {}
                }
            }
        }
        b
    }

    /// Issue 18, from a gomill game against GNU Go level 1 (9×9, komi
    /// 7.5, two passes): White's bottom-left group and Black's B1 C1 share
    /// their only liberties A1, B2 and D1, so neither side can approach: a
    /// seki. GNU Go counted the White group dead (B+9.5); by Chinese rules
    /// every stone is alive and A1 B2 D1 are dame, W+17.5.
    const SEKI_WITH_THREE_SHARED_LIBERTIES: [&str; 9] = [
        "OO.......",
        "XO.OO....",
        "XXOO.O...",
        "X.XXO..OO",
        "XX.XXOOXO",
        "XOXXOXXXX",
        "OOOXOXX..",
        "O.OOOX.X.",
        ".XX.OOX..",
    ];

    #[test]
    fn a_seki_with_three_shared_liberties_is_a_seki() {
        let b = board(&SEKI_WITH_THREE_SHARED_LIBERTIES);
        let st = assess(&b, None);
        assert!(st.dead.is_empty());
        let p = |v: &str| Point::parse_gtp(v, 9).unwrap();
        let mut want: Vec<Point> = [
            "B1", "C1", "E1", "F1", "A2", "C2", "D2", "E2", "A3", "B3", "C3", "E3", "B4", "E4",
        ]
        .map(p)
        .to_vec();
        want.sort();
        assert_eq!(st.seki, want);
        let score = st.score(&b, &Ruleset::chinese().with_komi(7.5), 0.0, true);
        assert_eq!(score.result_string(), "W+17.5");
    }

    #[test]
    fn a_stone_in_pass_alive_territory_is_dead() {
        let b = board(&["X.XO.", "XXXOO", ".XXO.", "XOXOO", "X.XO."]);
        let st = assess(&b, None);
        assert_eq!(st.dead, vec![Point::new(1, 3)]);
        assert!(st.seki.is_empty());
    }
}
