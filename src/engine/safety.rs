//! The rules every generated move obeys, whatever the search says
//! (RULES.md B3, B7), and the moves chosen without a search.
//!
//! - [`meaningful_moves`]: legal (occupied, suicide, ko and superko
//!   checked with [`Position::check`] against the game's own history), not
//!   a stone in the mover's own single-point eye ([`Board::is_eye`]), and
//!   not inside an area already settled by either side (Benson pass-alive
//!   regions), except, in cleanup mode, our own area next to enemy stones
//!   (the engine allows those too for a capture before a pass, RULES B3).
//! - [`emergency_move`]: the answer when not even one evaluation fits the
//!   time left.

use crate::rules::benson::pass_alive;
use crate::rules::{Board, Color, Move, Point, Position};

/// The points where `color` may play and a stone means something; see the
/// module docs. Sorted by point.
pub fn meaningful_moves(pos: &Position, color: Color, cleanup: bool) -> Vec<Point> {
    let board = pos.board();
    let own = pass_alive(board, color);
    let theirs = pass_alive(board, color.opp());
    let mut out: Vec<Point> = board
        .empty_points()
        .filter(|&p| !board.is_eye(color, p))
        .filter(|&p| !theirs.owns(p))
        .filter(|&p| !own.owns(p) || (cleanup && touches(board, p, color.opp())))
        .filter(|&p| pos.check(color, Move::Place(p)).is_ok())
        .collect();
    out.sort();
    out
}

/// Whether `mv` is one of `cands` (a [`meaningful_moves`] list) or a pass.
pub fn acceptable(mv: Move, cands: &[Point]) -> bool {
    match mv {
        Move::Pass => true,
        Move::Place(p) => cands.binary_search(&p).is_ok(),
    }
}

/// A move chosen without the evaluator, for when there is no time: the
/// candidate capturing the most stones, else one picked by a hash of the
/// position and the seed. `cands` must not be empty.
pub fn emergency_move(pos: &Position, color: Color, cands: &[Point], seed: u64) -> Move {
    let board = pos.board();
    let captured = |p: Point| -> usize {
        p.neighbors()
            .iter()
            .filter(|&&n| board.get(n) == Some(color.opp()) && board.liberties(n) == 1)
            .map(|&n| board.string_size(n))
            .sum()
    };
    let best = cands.iter().copied().max_by_key(|&p| captured(p));
    let pick = match best {
        Some(p) if captured(p) > 0 => p,
        _ => {
            let h = (pos.hash() ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            cands[(h >> 33) as usize % cands.len()]
        }
    };
    Move::Place(pick)
}

fn touches(board: &Board, p: Point, c: Color) -> bool {
    p.neighbors().iter().any(|&n| board.get(n) == Some(c))
}
