//! End of game: whether to pass (RULES B3, B4).
//!
//! [`decide`] takes the position and a finished [`SearchResult`] and
//! returns the move to play with the reason. The rules it applies, in
//! order:
//! 1. The opponent just passed, so our pass ends the game. Count the board
//!    now (area, komi; dead stones: those inside pass-alive enemy
//!    territory, and those the search's ownership gives to the other
//!    colour). If we do not win and a move is left (any legal move that
//!    does not fill our own eye), play on — never pass into a loss that a
//!    move could avoid. If we win: with [`PassStyle::Friendly`], pass. In
//!    the tournament default ([`PassStyle::Tournament`]) an early pass by
//!    the opponent does not end a game still open (B3: pass only when no
//!    meaningful move is left): while some point is open (not pass-alive,
//!    and with ownership below [`SETTLED`] by the evaluator's own view of
//!    the position, when the caller gives it: the search's ownership after
//!    a pass is mostly that of the game ending at once; dame points, which
//!    touch living stones of both colours, do not count, nor do points of
//!    our own counted area, where a move gains nothing), play the move on
//!    an open point with the best lower confidence bound among those the
//!    search does not think lose and that are not self-ataris; pass when
//!    there is none.
//! 2. Otherwise, never pass while a dame point we can legally fill is
//!    left, other than a self-atari (filling it hands the stone over).
//! 3. Never pass while some point is unsettled: not pass-alive (Benson)
//!    and with search ownership below [`SETTLED`] in absolute value.
//!    (Without ownership, a point not pass-alive is unsettled unless the
//!    search itself chose to pass.)
//! 4. Everything settled: pass; but while a string of either colour is in
//!    atari (and not certainly dead) and the search chose a move, play it:
//!    ownership calls such a string settled on the assumption that the
//!    player to move saves or takes it.
//!
//! Before any pass of rules 1 and 4, the strict count is checked too: the
//! one an automatic referee makes (gomill's ringmaster scoring by itself,
//! Tromp-Taylor), where every stone on the board is alive, even one inside
//! the other side's pass-alive area. If that count would not win for us
//! while enemy stones inside our area are dead (by Benson or the search's
//! ownership), we capture them first ([`capture_before_pass`]) rather than
//! trust the opponent or the referee to agree they are dead. Under area
//! scoring those moves cost nothing.
//!
//! When the search's own choice was a pass but a rule says play, the move
//! is the search's most visited non-pass move, else a dame point, else
//! any legal non-eye move, never a self-atari ([`is_self_atari`]) unless
//! passing loses anyway. (A search with few visits ranks moves it has
//! barely read: at 16 visits, the first dame point by board order and a
//! once-visited "winning" move were both self-ataris that lost games.)
//! Pure function; cheap next to a search.

use super::backup::certainly_dead;
use super::SearchResult;
use crate::rules::benson::{pass_alive, PassAlive};
use crate::rules::score::{area_with_owners, margin_with};
use crate::rules::{Board, Color, Move, Point, Position};

/// Ownership (absolute value) above which a point counts as decided.
pub const SETTLED: f32 = 0.9;

/// When a winning pass after the opponent's pass is taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PassStyle {
    /// Play on while the board is unsettled, even when passing would win
    /// now (the tournament default; module docs, rule 1).
    #[default]
    Tournament,
    /// Pass as soon as passing wins (for servers that want short games).
    Friendly,
}

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
    /// Passing would win only if the opponent agreed its dead stones are
    /// dead; capturing them instead.
    CaptureDead,
}

/// The move to play and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassDecision {
    pub mv: Move,
    pub reason: PassReason,
}

/// [`decide_with`] in the tournament default style, judging open points
/// by the search's ownership.
pub fn decide(position: &Position, result: &SearchResult) -> PassDecision {
    decide_with(position, result, PassStyle::Tournament, None)
}

/// See the module docs. `result` must come from a search of `position`
/// (its ownership is from the view of the player to move); `root_own`, in
/// the same view, is the evaluator's ownership of `position` itself.
pub fn decide_with(
    position: &Position,
    result: &SearchResult,
    style: PassStyle,
    root_own: Option<&[f32]>,
) -> PassDecision {
    let board = position.board();
    let size = position.size();
    let me = position.to_move();
    let own = result
        .ownership
        .as_deref()
        .filter(|o| o.len() == size * size);

    // Dead stones: certain ones, plus those the search gives away.
    let (dead, n_certain) = dead_stones(board, me, own);
    // Our lead when the game ends now, with `dead` taken off the board.
    let my_lead = |dead: &[Point]| {
        let (count, owners) = area_with_owners(board, dead);
        let margin = margin_with(&count, board, dead, &[], position.rules());
        (if me == Color::Black { margin } else { -margin }, owners)
    };
    let (my_margin, owners) = my_lead(&dead);
    // A pass that wins by the agreed count; unless the strict count does
    // not win and a dead enemy string can be taken.
    let pass_or_capture = |reason: PassReason| -> PassDecision {
        match capture_before_pass(position, &dead) {
            Some(mv) => PassDecision {
                mv,
                reason: PassReason::CaptureDead,
            },
            None => PassDecision {
                mv: Move::Pass,
                reason,
            },
        }
    };

    let safe = |mv: Move| match mv {
        Move::Place(p) => !is_self_atari(board, me, p),
        Move::Pass => false,
    };
    let dame = dame_points(position, &owners[..]);
    // A move when the search chose to pass but a rule says play: the
    // search's most visited one, else a dame, else any point; not a
    // self-atari, unless `desperate` (passing loses anyway).
    let alternative = |desperate: bool| -> Option<Move> {
        let searched = || {
            result
                .moves
                .iter()
                .map(|m| m.mv)
                .filter(|&mv| mv != Move::Pass && position.is_legal(mv))
        };
        let anywhere = || {
            board
                .points()
                .filter(|&p| playable(position, p))
                .map(Move::Place)
        };
        searched()
            .find(|&mv| safe(mv))
            .or_else(|| dame.first().map(|&p| Move::Place(p)))
            .or_else(|| anywhere().find(|&mv| safe(mv)))
            .or_else(|| {
                desperate
                    .then(|| searched().next().or_else(|| anywhere().next()))
                    .flatten()
            })
    };
    let play_or_pass = |reason: PassReason| -> PassDecision {
        let mv = if result.best != Move::Pass {
            Some(result.best)
        } else {
            alternative(reason == PassReason::BehindAfterPass)
        };
        match mv {
            Some(mv) => PassDecision { mv, reason },
            None => PassDecision {
                mv: Move::Pass,
                reason: PassReason::NothingToPlay,
            },
        }
    };

    let black = pass_alive(board, Color::Black);
    let white = pass_alive(board, Color::White);
    if position.passes() >= 1 {
        if my_margin <= 0.0 {
            return play_or_pass(PassReason::BehindAfterPass);
        }
        let d = pass_or_capture(PassReason::PassingWins);
        if style == PassStyle::Tournament && d.mv == Move::Pass {
            let living = |q: Point, c: Color| board.get(q) == Some(c) && !dead.contains(&q);
            let is_dame = |p: Point| {
                board.is_empty(p)
                    && [Color::Black, Color::White]
                        .iter()
                        .all(|&c| p.neighbors().iter().any(|&n| living(n, c)))
            };
            let judge = root_own.filter(|o| o.len() == size * size).or(own);
            let open = |p: Point| {
                !black.owns(p)
                    && !white.owns(p)
                    && judge.is_none_or(|o| o[p.dense(size)].abs() < SETTLED)
                    && !is_dame(p)
            };
            // Not inside our own counted area: a move there gains nothing
            // after a pass and only risks eyes and liberties (a v3 game
            // against GNU Go, 20 points ahead, filled its own corner this way
            // and lost it). Among the rest, the best lower bound, not the
            // most visits: after a winning pass the other moves' visits
            // mostly measure their priors.
            let play_on = result
                .moves
                .iter()
                .filter(|m| match m.mv {
                    Move::Place(p) => {
                        open(p)
                            && owners[p.index()] != Some(me)
                            && m.winrate >= 0.5
                            && position.is_legal(m.mv)
                            && safe(m.mv)
                    }
                    Move::Pass => false,
                })
                .max_by(|a, b| a.lcb.total_cmp(&b.lcb));
            if let Some(m) = play_on {
                return PassDecision {
                    mv: m.mv,
                    reason: PassReason::Unsettled,
                };
            }
        }
        return d;
    }
    if !dame.is_empty() {
        let mv = match result.best {
            Move::Place(_) => result.best,
            // The search's own ranking among the dame, else the first.
            Move::Pass => result
                .moves
                .iter()
                .filter_map(|m| m.mv.point())
                .find(|p| dame.contains(p))
                .map_or(Move::Place(dame[0]), Move::Place),
        };
        return PassDecision {
            mv,
            reason: PassReason::DameLeft,
        };
    }
    if any_undecided(board, &black, &white, own) {
        if own.is_none() && result.best == Move::Pass {
            // No ownership to judge by: trust the search's pass.
            return PassDecision {
                mv: Move::Pass,
                reason: PassReason::Settled,
            };
        }
        return play_or_pass(PassReason::Unsettled);
    }
    // Ownership calls a string in atari settled when the search expects it
    // to be saved (ours) or taken (theirs); a pass would hand the opponent
    // the capture or the connection.
    if result.best != Move::Pass && in_atari(board, &dead[..n_certain]) {
        return PassDecision {
            mv: result.best,
            reason: PassReason::Unsettled,
        };
    }
    pass_or_capture(PassReason::Settled)
}

/// Whether [`decide`] will play a move in `position` whatever the search
/// chooses, judged before the search by `own` (the evaluator's ownership
/// of `position`, the player to move's view): the opponent has not just
/// passed, and a dame point is left (rule 2) or, with ownership, some
/// point is unsettled (rule 3). Then the search need not look at the pass
/// ([`super::Search::bar_root_pass`]). `false` after the opponent's pass:
/// rule 1 counts the board and may pass.
pub fn pass_refused(position: &Position, own: Option<&[f32]>) -> bool {
    if position.passes() >= 1 {
        return false;
    }
    let board = position.board();
    let own = own.filter(|o| o.len() == position.size() * position.size());
    let (dead, _) = dead_stones(board, position.to_move(), own);
    let (_, owners) = area_with_owners(board, &dead);
    if !dame_points(position, &owners[..]).is_empty() {
        return true;
    }
    own.is_some() && {
        let black = pass_alive(board, Color::Black);
        let white = pass_alive(board, Color::White);
        any_undecided(board, &black, &white, own)
    }
}

/// The stones that count as dead for the player `me` to move: those
/// certainly dead (inside the other side's pass-alive area) first, then
/// those `own` (`me`'s view) gives to the other colour; and how many of
/// them are certain.
fn dead_stones(board: &Board, me: Color, own: Option<&[f32]>) -> (Vec<Point>, usize) {
    let size = board.size();
    let mut dead = certainly_dead(board);
    let n_certain = dead.len();
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
    (dead, n_certain)
}

/// An empty point the player to move may fill: legal and not its own eye.
fn playable(position: &Position, p: Point) -> bool {
    let board = position.board();
    board.is_empty(p) && !board.is_eye(position.to_move(), p) && position.is_legal(Move::Place(p))
}

/// The dame worth filling for the player to move: empty points the count
/// (`owners`, by point index) gives to neither side, playable, and not a
/// self-atari (that only hands stones over).
fn dame_points(position: &Position, owners: &[Option<Color>]) -> Vec<Point> {
    let board = position.board();
    let me = position.to_move();
    board
        .points()
        .filter(|&p| {
            board.is_empty(p)
                && owners[p.index()].is_none()
                && playable(position, p)
                && !is_self_atari(board, me, p)
        })
        .collect()
}

/// Whether some point is neither in a pass-alive area (`black`, `white`:
/// Benson's areas of the board) nor, by `own`, settled (without
/// ownership: every point outside pass-alive areas).
fn any_undecided(board: &Board, black: &PassAlive, white: &PassAlive, own: Option<&[f32]>) -> bool {
    let size = board.size();
    board.points().any(|p| {
        !black.owns(p) && !white.owns(p) && own.is_none_or(|o| o[p.dense(size)].abs() < SETTLED)
    })
}

/// Whether `color` playing at the empty point `p` captures nothing and
/// leaves the new stone's string with at most one liberty: stones handed
/// to the opponent.
pub fn is_self_atari(board: &Board, color: Color, p: Point) -> bool {
    if board.would_capture(color, p) {
        return false;
    }
    if board.is_suicide(color, p) {
        return true;
    }
    let mut after = board.clone();
    after.place(color, p);
    after.liberties(p) <= 1
}

/// Whether a string of either colour that is not certainly dead (inside
/// the other side's pass-alive area) has one liberty.
fn in_atari(board: &Board, certain: &[Point]) -> bool {
    // `liberties` is 0 on an empty point.
    board
        .points()
        .any(|p| board.liberties(p) == 1 && !certain.contains(&p))
}

/// The strict count's lead for the player to move: every stone on the
/// board alive, whatever surrounds it (module docs).
pub fn strict_lead(position: &Position) -> f32 {
    let board = position.board();
    let (count, _) = area_with_owners(board, &[]);
    let margin = margin_with(&count, board, &[], &[], position.rules());
    match position.to_move() {
        Color::Black => margin,
        Color::White => -margin,
    }
}

/// Before a pass by the player to move: when the strict count
/// ([`strict_lead`]) does not win, a move towards capturing the enemy
/// stones among `dead` (any order), also inside our own pass-alive area;
/// `None` when the strict count wins or none can be taken.
pub fn capture_before_pass(position: &Position, dead: &[Point]) -> Option<Move> {
    if strict_lead(position) > 0.0 {
        return None;
    }
    let board = position.board();
    let me = position.to_move();
    let enemy_dead: Vec<Point> = dead
        .iter()
        .copied()
        .filter(|&p| board.get(p) == Some(me.opp()))
        .collect();
    let mut cands: Vec<Point> = enemy_dead
        .iter()
        .flat_map(|&p| board.string_liberties(p))
        .filter(|&p| !board.is_eye(me, p) && position.is_legal(Move::Place(p)))
        .collect();
    cands.sort();
    cands.dedup();
    capture_dead(position, me, &enemy_dead, &cands)
}

/// A move of `color` towards capturing the `dead` enemy stones: a liberty,
/// among `cands` (sorted), of the dead string with the fewest liberties.
/// A capture or a move that keeps two liberties comes first, else a lone
/// stone in atari (a throw-in: losing it costs nothing under area
/// scoring). Never a self-atari that joins our stones: the opponent would
/// take the whole string, and a string believed alive with it (the move
/// that filled our own liberty in a capturing race lost a won game).
/// `None` if none is playable.
pub fn capture_dead(pos: &Position, color: Color, dead: &[Point], cands: &[Point]) -> Option<Move> {
    let board = pos.board();
    let mut strings: Vec<(usize, Point)> = dead
        .iter()
        .filter(|&&p| board.get(p) == Some(color.opp()))
        .map(|&p| (board.liberties(p), p))
        .collect();
    strings.sort();
    let mut fallback = None;
    for (_, s) in strings {
        for lib in board.string_liberties(s) {
            if cands.binary_search(&lib).is_err() {
                continue;
            }
            let mut b = board.clone();
            b.place(color, lib);
            if b.liberties(lib) >= 2 || board.liberties(s) == 1 {
                return Some(Move::Place(lib));
            }
            if b.get(lib) == Some(color) && b.string_size(lib) == 1 {
                fallback.get_or_insert(Move::Place(lib));
            }
        }
    }
    fallback
}
