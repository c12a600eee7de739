//! Ladder reading for the net's features, with the semantics of KataGo's
//! `Board::searchIsLadderCaptured` and
//! `Board::searchIsLadderCapturedAttackerFirst2Libs`: the defender extends
//! or captures an attacker string in atari; the attacker only ataris. A
//! ko left by the attacker counts as an escape; a double-ko is a capture;
//! the search gives up (not captured) after 25 000 moves.
//!
//! Search state is a cloned [`Board`] per move; ladders are short, so the
//! copies are cheap next to a net evaluation.

use crate::rules::{Board, Cell, Color, Point};

/// KataGo's node budget for one ladder search.
const NODE_BUDGET: usize = 25_000;

/// Liberties of the string at `p`, in a stable order.
fn liberties(board: &Board, p: Point) -> Vec<Point> {
    board.string_liberties(p)
}

fn immediate_liberties(board: &Board, p: Point) -> usize {
    p.neighbors()
        .iter()
        .filter(|&&n| board.cell(n) == Cell::Empty)
        .count()
}

/// Liberties of the stone `c` would have after playing `p` (0 if it would
/// be removed), computed by playing it.
fn liberties_after_play(board: &Board, c: Color, p: Point) -> usize {
    let mut b = board.clone();
    b.place(c, p);
    if b.get(p) == Some(c) {
        b.liberties(p)
    } else {
        0
    }
}

/// Whether `c` playing at `p` would capture exactly one lone stone, with
/// every neighbour of `p` an opponent stone or the edge (KataGo's
/// `wouldBeKoCapture`).
fn would_be_ko_capture(board: &Board, c: Color, p: Point) -> bool {
    if board.cell(p) != Cell::Empty {
        return false;
    }
    let opp = c.opp();
    let mut capturable = None;
    for n in p.neighbors() {
        let cell = board.cell(n);
        if cell != Cell::Wall && board.get(n) != Some(opp) {
            return false;
        }
        if board.get(n) == Some(opp) && board.liberties(n) == 1 {
            if capturable.is_some() {
                return false;
            }
            capturable = Some(n);
        }
    }
    match capturable {
        Some(q) => board.string_size(q) == 1,
        None => false,
    }
}

/// Whether some opponent string next to the string at `p` is in atari.
fn has_liberty_gaining_captures(board: &Board, p: Point) -> bool {
    let Some(c) = board.get(p) else { return false };
    board.string_stones(p).iter().any(|s| {
        s.neighbors()
            .iter()
            .any(|&n| board.get(n) == Some(c.opp()) && board.liberties(n) == 1)
    })
}

/// Moves that capture an opponent string in atari next to the string at
/// `p`, without duplicates.
fn liberty_gaining_captures(board: &Board, p: Point, out: &mut Vec<Point>) {
    let Some(c) = board.get(p) else { return };
    let mut seen: Vec<Point> = Vec::new();
    for s in board.string_stones(p) {
        for n in s.neighbors() {
            if board.get(n) != Some(c.opp()) || board.liberties(n) != 1 {
                continue;
            }
            let h = board.string_id(n).unwrap_or(n);
            if seen.contains(&h) {
                continue;
            }
            seen.push(h);
            for l in liberties(board, n) {
                if !out.contains(&l) {
                    out.push(l);
                }
            }
        }
    }
}

/// Legal for ladder purposes: empty, not the ko point, not suicide.
fn legal(board: &Board, ko: Option<Point>, c: Color, p: Point) -> bool {
    board.cell(p) == Cell::Empty && ko != Some(p) && !board.is_suicide(c, p)
}

struct Search {
    target: Point,
    defender: Color,
    nodes: usize,
    max_depth: usize,
}

/// Outcome of a subtree: `Some(captured)` or `None` when out of budget.
type Outcome = Option<bool>;

impl Search {
    fn node(
        &mut self,
        board: &Board,
        ko: Option<Point>,
        depth: usize,
        defender_moves: bool,
    ) -> Outcome {
        if depth + 1 >= self.max_depth {
            return Some(true);
        }
        let pla = self.defender;
        let opp = pla.opp();
        let loc = self.target;
        let libs = board.liberties(loc);
        let mut moves: Vec<Point> = Vec::new();
        if defender_moves {
            if libs >= 2 || ko.is_some() {
                return Some(false);
            }
            liberty_gaining_captures(board, loc, &mut moves);
            for l in liberties(board, loc) {
                if !moves.contains(&l) {
                    moves.push(l);
                }
            }
            let Some(&last) = moves.last() else {
                return Some(true);
            };
            let after = liberties_after_play(board, pla, last);
            if after >= 3 {
                return Some(false);
            }
            if moves.len() == 1 && after <= 1 {
                return Some(true);
            }
        } else {
            if libs <= 1 {
                return Some(true);
            }
            if libs >= 3 {
                return Some(false);
            }
            moves = liberties(board, loc);
            let (m0, m1) = (moves[0], moves[1]);
            let l0 = immediate_liberties(board, m0);
            let l1 = immediate_liberties(board, m1);
            if l0 == 0
                && l1 == 0
                && would_be_ko_capture(board, opp, m0)
                && would_be_ko_capture(board, opp, m1)
                && liberties_after_play(board, pla, m0) <= 2
                && liberties_after_play(board, pla, m1) <= 2
                && !has_liberty_gaining_captures(board, loc)
            {
                return Some(true);
            }
            if !m0.neighbors().contains(&m1) {
                if l0 >= 3 && l1 >= 3 {
                    return Some(false);
                } else if l0 >= 3 {
                    moves.truncate(1);
                } else if l1 >= 3 {
                    moves = vec![m1];
                }
            }
        }
        let mover = if defender_moves { pla } else { opp };
        for m in moves {
            if !legal(board, ko, mover, m) {
                continue;
            }
            let mut b = board.clone();
            b.place(mover, m);
            self.nodes += 1;
            if self.nodes >= NODE_BUDGET {
                return None;
            }
            let r = self.node(&b, b.ko_point(), depth + 1, !defender_moves)?;
            if defender_moves && !r {
                return Some(false);
            }
            if !defender_moves && r {
                return Some(true);
            }
        }
        Some(defender_moves)
    }
}

/// Whether the string at `p` (with one liberty if `defender_first`, else
/// one or two) is captured in a ladder. With `defender_first` the ko point
/// is ignored at the start: every ko is assumed to work for the defender.
pub fn is_ladder_captured(board: &Board, p: Point, defender_first: bool) -> bool {
    let Some(defender) = board.get(p) else {
        return false;
    };
    let libs = board.liberties(p);
    if libs > 2 || (defender_first && libs > 1) {
        return false;
    }
    let size = board.size();
    let mut s = Search {
        target: p,
        defender,
        nodes: 0,
        max_depth: size * size * 3 / 2 + 1,
    };
    let ko = if defender_first {
        None
    } else {
        board.ko_point()
    };
    s.node(board, ko, 0, defender_first).unwrap_or(false)
}

/// For a string with exactly two liberties: the ataris that capture it in
/// a ladder (empty if none).
pub fn ladder_capturing_ataris(board: &Board, p: Point) -> Vec<Point> {
    let Some(defender) = board.get(p) else {
        return Vec::new();
    };
    if board.liberties(p) != 2 {
        return Vec::new();
    }
    let attacker = defender.opp();
    let ko = board.ko_point();
    let mut working = Vec::new();
    for m in liberties(board, p) {
        if !legal(board, ko, attacker, m) {
            continue;
        }
        let mut b = board.clone();
        b.place(attacker, m);
        if is_ladder_captured(&b, p, true) {
            working.push(m);
        }
    }
    working
}

/// Calls `f(stone, working_ataris)` for every stone whose string has one
/// or two liberties and is captured in a ladder (for two liberties: if
/// the attacker ataris first). `working_ataris` is filled only for the
/// first stone of each two-liberty string, as KataGo does.
pub fn for_each_laddered_stone(board: &Board, mut f: impl FnMut(Point, &[Point])) {
    let mut solved: Vec<(Point, bool)> = Vec::new();
    for p in board.points() {
        if board.get(p).is_none() {
            continue;
        }
        let libs = board.liberties(p);
        if libs != 1 && libs != 2 {
            continue;
        }
        let head = board.string_id(p).unwrap_or(p);
        if let Some(&(_, laddered)) = solved.iter().find(|(h, _)| *h == head) {
            if laddered {
                f(p, &[]);
            }
            continue;
        }
        let (laddered, working) = if libs == 1 {
            (is_ladder_captured(board, p, true), Vec::new())
        } else {
            let w = ladder_capturing_ataris(board, p);
            (!w.is_empty(), w)
        };
        solved.push((head, laddered));
        if laddered {
            f(p, &working);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Move, Position, Ruleset};

    fn board(size: usize, stones: &[(&str, &str)]) -> Board {
        let mut pos = Position::new(size, Ruleset::chinese()).unwrap();
        for (c, v) in stones {
            let c = Color::parse(c).unwrap();
            pos.play(c, Move::parse_gtp(v, size).unwrap()).unwrap();
        }
        pos.board().clone()
    }

    fn pt(v: &str, size: usize) -> Point {
        Point::parse_gtp(v, size).unwrap()
    }

    #[test]
    fn classic_ladder_works_and_breaker_stops_it() {
        // White K10 with liberties L10 and K9, black J10, K11, L9 around.
        let stones = [("w", "K10"), ("b", "J10"), ("b", "K11"), ("b", "L9")];
        let b = board(19, &stones);
        let w = ladder_capturing_ataris(&b, pt("K10", 19));
        assert_eq!(w.len(), 2, "both ataris work on an empty board");
        // A white breaker on the diagonal path stops the K9 atari ladder.
        let mut with_breaker = stones.to_vec();
        with_breaker.push(("w", "N13"));
        with_breaker.push(("w", "G7"));
        let b = board(19, &with_breaker);
        assert!(ladder_capturing_ataris(&b, pt("K10", 19)).is_empty());
    }

    #[test]
    fn one_liberty_stone_in_the_open_escapes() {
        let b = board(9, &[("w", "E5"), ("b", "E6"), ("b", "D5"), ("b", "F5")]);
        // E5 has one liberty (E4); extending gives 3 liberties.
        assert!(!is_ladder_captured(&b, pt("E5", 9), true));
    }

    #[test]
    fn one_liberty_stone_on_the_edge_is_captured() {
        let b = board(9, &[("w", "A5"), ("b", "A6"), ("b", "B5"), ("b", "B4")]);
        // A5 with liberty A4: extending to A4 leaves one liberty (A3).
        assert!(is_ladder_captured(&b, pt("A5", 9), true));
    }
}
