//! Uniformly random playouts: each move is a random legal point (simple
//! ko, no suicide) that does not fill the mover's own eye-like point;
//! a player with no such point passes, and two passes end the playout.
//!
//! Used by the speed benchmark and by property tests.

use rand::Rng;

use super::board::Board;
use super::color::Color;
use super::point::Point;

/// What a playout did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayoutStats {
    /// Stones placed.
    pub moves: u32,
    /// Passes played.
    pub passes: u32,
}

/// Picks a random legal, non-eye-filling point for `c`, or `None`.
#[inline]
pub fn random_move<R: Rng>(board: &Board, c: Color, rng: &mut R) -> Option<Point> {
    let n = board.empty_count();
    if n == 0 {
        return None;
    }
    let start = rng.random_range(0..n);
    for k in 0..n {
        let mut i = start + k;
        if i >= n {
            i -= n;
        }
        let p = board.empty_at(i);
        if board.ko_point() != Some(p) && !board.is_eye(c, p) && !board.is_suicide(c, p) {
            return Some(p);
        }
    }
    None
}

/// Plays random moves from `board` with `to_move` first until two passes in
/// a row or `max_moves` moves (placements and passes together).
pub fn playout<R: Rng>(
    board: &mut Board,
    mut to_move: Color,
    max_moves: u32,
    rng: &mut R,
) -> PlayoutStats {
    let mut stats = PlayoutStats::default();
    let mut passes = 0;
    while passes < 2 && stats.moves + stats.passes < max_moves {
        match random_move(board, to_move, rng) {
            Some(p) => {
                board.place(to_move, p);
                stats.moves += 1;
                passes = 0;
            }
            None => {
                board.pass();
                stats.passes += 1;
                passes += 1;
            }
        }
        to_move = to_move.opp();
    }
    stats
}
