//! End of game: whether to pass (RULES B3, B4).
//!
//! [`decide`] takes the position and a finished [`SearchResult`] and
//! returns the move to play with the reason. The rules it applies, in
//! order:
//! 1. The opponent just passed, so our pass ends the game. Count the board
//!    now (area, komi; dead stones: those inside pass-alive enemy
//!    territory, and those the search's ownership gives to the other
//!    colour): if we win, pass. If we do not and a move is left (any legal
//!    move that does not fill our own eye), play on — never pass into a
//!    loss that a move could avoid.
//! 2. Otherwise, never pass while a dame point we can legally fill is
//!    left.
//! 3. Never pass while some point is unsettled: not pass-alive (Benson)
//!    and with search ownership below [`SETTLED`] in absolute value.
//!    (Without ownership, a point not pass-alive is unsettled unless the
//!    search itself chose to pass.)
//! 4. Everything settled: pass.
//!
//! When the search's own choice was a pass but a rule says play, the move
//! is the search's most visited non-pass move, else a dame point, else
//! any legal non-eye move. Pure function; cheap next to a search.

use super::backup::certainly_dead;
use super::SearchResult;
use crate::rules::benson::pass_alive;
use crate::rules::score::area_with_owners;
use crate::rules::{Color, Move, Point, Position};

/// Ownership (absolute value) above which a point counts as decided.
pub const SETTLED: f32 = 0.9;

/// Why [`decide`] chose its move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassReason {
    /// The opponent passed and the count now wins for us.
    PassingWins,
    /// Every point is decided and no dame is left.
    Settled,
    /// A dame point can still be filled.
    DameLeft,
    /// Some group's status can still change.
    Unsettled,
    /// The opponent passed but passing would lose; playing on.
    BehindAfterPass,
    /// No legal move but the pass.
    NothingToPlay,
}

/// The move to play and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassDecision {
    pub mv: Move,
    pub reason: PassReason,
}

/// See the module docs. `result` must come from a search of `position`
/// (its ownership is from the view of the player to move).
pub fn decide(position: &Position, result: &SearchResult) -> PassDecision {
    let board = position.board();
    let size = position.size();
    let me = position.to_move();
    let own = result
        .ownership
        .as_deref()
        .filter(|o| o.len() == size * size);

    // Dead stones: certain ones, plus those the search gives away.
    let mut dead = certainly_dead(board);
    if let Some(o) = own {
        for p in board.points() {
            if let Some(c) = board.get(p) {
                let mine = if c == me { 1.0 } else { -1.0 };
                if mine * o[p.dense(size)] < -0.5 && !dead.contains(&p) {
                    dead.push(p);
                }
            }
        }
    }
    let (count, owners) = area_with_owners(board, &dead);
    let margin = count.black() - count.white() - position.rules().komi;
    let my_margin = if me == Color::Black { margin } else { -margin };

    let playable =
        |p: Point| board.is_empty(p) && !board.is_eye(me, p) && position.is_legal(Move::Place(p));
    let dame: Vec<Point> = board
        .points()
        .filter(|&p| board.is_empty(p) && owners[p.index()].is_none() && playable(p))
        .collect();
    let alternative = || -> Option<Move> {
        result
            .moves
            .iter()
            .map(|m| m.mv)
            .find(|&mv| mv != Move::Pass && position.is_legal(mv))
            .or_else(|| dame.first().map(|&p| Move::Place(p)))
            .or_else(|| board.points().find(|&p| playable(p)).map(Move::Place))
    };
    let play_or_pass = |reason: PassReason| -> PassDecision {
        let mv = if result.best != Move::Pass {
            Some(result.best)
        } else {
            alternative()
        };
        match mv {
            Some(mv) => PassDecision { mv, reason },
            None => PassDecision {
                mv: Move::Pass,
                reason: PassReason::NothingToPlay,
            },
        }
    };

    if position.passes() >= 1 {
        if my_margin > 0.0 {
            return PassDecision {
                mv: Move::Pass,
                reason: PassReason::PassingWins,
            };
        }
        return play_or_pass(PassReason::BehindAfterPass);
    }
    if !dame.is_empty() {
        let mv = match result.best {
            Move::Place(_) => result.best,
            Move::Pass => Move::Place(dame[0]),
        };
        return PassDecision {
            mv,
            reason: PassReason::DameLeft,
        };
    }
    let black = pass_alive(board, Color::Black);
    let white = pass_alive(board, Color::White);
    let unsettled = board.points().any(|p| {
        !black.owns(p) && !white.owns(p) && own.is_none_or(|o| o[p.dense(size)].abs() < SETTLED)
    });
    if unsettled {
        if own.is_none() && result.best == Move::Pass {
            // No ownership to judge by: trust the search's pass.
            return PassDecision {
                mv: Move::Pass,
                reason: PassReason::Settled,
            };
        }
        return play_or_pass(PassReason::Unsettled);
    }
    PassDecision {
        mv: Move::Pass,
        reason: PassReason::Settled,
    }
}
