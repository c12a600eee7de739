//! The game being played: its starting position, every move and edit, the
//! position after each of them (for undo), the clocks, and saving.
//!
//! - Moves are checked ([`Game::play`]) or, for an opponent's disputed move
//!   (B7), applied as played ([`Game::play_disputed`]).
//! - Edits (B6) — add a stone, remove a stone, set the player to move —
//!   are entries like moves: undo takes them back one at a time. **An edit
//!   starts a new superko history segment**: positions from before the edit
//!   are no longer compared against (an edited board is a new starting
//!   position; see [`crate::rules::Position`]). Undoing the edit restores
//!   the old segment, since every entry keeps its own snapshot.
//! - Handicap stones and `set_position` stones belong to the starting
//!   position, not to the entries; undo never removes them.
//!
//! Every mutation bumps [`Game::revision`], which the callers use to know
//! when to autosave ([`save`]).

pub mod clock;
pub mod display;
pub mod save;

use crate::rules::handicap::{self, HandicapError};
use crate::rules::{Board, Color, IllegalMove, Move, Point, Position, RulesError, Ruleset};

pub use clock::{Clock, MoveTime, PlayerClock, TimeControl};

/// One entry of the game's history.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    /// A move; `disputed` is the rule it broke when it was applied as played.
    Move {
        color: Color,
        mv: Move,
        disputed: Option<IllegalMove>,
    },
    /// Stones added (`Some(colour)`) or removed (`None`) by hand.
    Setup(Vec<(Point, Option<Color>)>),
    /// The player to move set by hand.
    ToMove(Color),
}

/// Why a game operation was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GameError {
    #[error("illegal move: {0}")]
    Illegal(IllegalMove),
    #[error("cannot undo")]
    CannotUndo,
    #[error("board not empty")]
    BoardNotEmpty,
    #[error("{0}")]
    Handicap(#[from] HandicapError),
    #[error("invalid handicap placement: {0}")]
    BadPlacement(String),
    #[error("invalid setup: {0}")]
    BadSetup(String),
    #[error("{0}")]
    Rules(#[from] RulesError),
}

impl From<IllegalMove> for GameError {
    fn from(e: IllegalMove) -> GameError {
        GameError::Illegal(e)
    }
}

/// A game: start position, entries, snapshots, clocks.
#[derive(Clone, Debug)]
pub struct Game {
    /// `positions[0]` is the start; `positions[i + 1]` follows `entries[i]`.
    positions: Vec<Position>,
    entries: Vec<Entry>,
    /// Number of handicap stones in the start position.
    handicap: usize,
    /// Clocks of both players.
    clock: Clock,
    /// Result set by resignation or by the controller, if any.
    result: Option<String>,
    revision: u64,
}

impl Game {
    /// An empty board of `size` under `rules`, Black to move.
    pub fn new(size: usize, rules: Ruleset) -> Result<Game, GameError> {
        Ok(Game::from_position(Position::new(size, rules)?, 0))
    }

    /// A game starting from `start` (which may hold setup stones) with
    /// `handicap` handicap stones among them.
    pub fn from_position(start: Position, handicap: usize) -> Game {
        Game {
            positions: vec![start],
            entries: Vec::new(),
            handicap,
            clock: Clock::default(),
            result: None,
            revision: 0,
        }
    }

    /// A new empty game with the same size, rules and time control (clocks
    /// reset).
    pub fn cleared(&self) -> Game {
        self.resized(self.size()).expect("same size is valid")
    }

    /// A new empty game of `size` with the same rules and time control.
    pub fn resized(&self, size: usize) -> Result<Game, GameError> {
        let mut g = Game::new(size, *self.rules())?;
        g.clock = self.clock.clone();
        g.clock.reset();
        g.revision = self.revision + 1;
        Ok(g)
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        self.positions.last().expect("never empty")
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    pub fn size(&self) -> usize {
        self.position().size()
    }

    pub fn rules(&self) -> &Ruleset {
        self.position().rules()
    }

    pub fn to_move(&self) -> Color {
        self.position().to_move()
    }

    /// Number of handicap stones.
    pub fn handicap(&self) -> usize {
        self.handicap
    }

    /// White's handicap compensation in points under the current rules.
    pub fn handicap_points(&self) -> f32 {
        self.rules().handicap_points(self.handicap)
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Number of moves (passes included) among the entries.
    pub fn move_count(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| matches!(e, Entry::Move { .. }))
            .count()
    }

    /// Up to `n` most recent moves since the last edit, newest last.
    pub fn recent_moves(&self, n: usize) -> Vec<(Color, Move)> {
        let mut out: Vec<(Color, Move)> = self
            .entries
            .iter()
            .rev()
            .map_while(|e| match e {
                Entry::Move { color, mv, .. } => Some((*color, *mv)),
                _ => None,
            })
            .take(n)
            .collect();
        out.reverse();
        out
    }

    /// The boards before the last move, the one before it, … (newest
    /// first), at most `n`, and only across moves (an edit ends the list):
    /// what a net's history inputs want next to [`Game::recent_moves`].
    pub fn prev_boards(&self, n: usize) -> Vec<Board> {
        let mut out = Vec::new();
        for i in (0..self.entries.len()).rev() {
            if out.len() >= n || !matches!(self.entries[i], Entry::Move { .. }) {
                break;
            }
            out.push(self.positions[i].board().clone());
        }
        out
    }

    /// The last entry's move, if the last entry is a move.
    pub fn last_move(&self) -> Option<(Color, Move)> {
        match self.entries.last() {
            Some(Entry::Move { color, mv, .. }) => Some((*color, *mv)),
            _ => None,
        }
    }

    /// Whether two consecutive passes ended the game, or it was resigned.
    pub fn is_over(&self) -> bool {
        self.position().is_over() || self.result.is_some()
    }

    /// The recorded result (resignation, or set by the controller).
    pub fn result(&self) -> Option<&str> {
        self.result.as_deref()
    }

    /// Records a result such as `W+R`.
    pub fn set_result(&mut self, result: Option<String>) {
        self.result = result;
        self.revision += 1;
    }

    /// A counter bumped by every change (autosave trigger).
    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Mutable clocks; counts as a change.
    pub fn clock_mut(&mut self) -> &mut Clock {
        self.revision += 1;
        &mut self.clock
    }

    /// Replaces the rules (komi, ko, suicide) in every snapshot. The move
    /// history is kept as it is.
    pub fn set_rules(&mut self, rules: Ruleset) {
        for p in &mut self.positions {
            p.set_rules(rules);
        }
        self.revision += 1;
    }

    /// Sets komi.
    pub fn set_komi(&mut self, komi: f32) {
        self.set_rules(self.rules().with_komi(komi));
    }

    fn push(&mut self, entry: Entry, next: Position) {
        self.entries.push(entry);
        self.positions.push(next);
        self.result = None;
        self.revision += 1;
    }

    /// Plays a legal move for `color` (who need not be the player to move).
    pub fn play(&mut self, color: Color, mv: Move) -> Result<(), GameError> {
        let mut next = self.position().clone();
        next.play(color, mv)?;
        self.push(
            Entry::Move {
                color,
                mv,
                disputed: None,
            },
            next,
        );
        Ok(())
    }

    /// Applies a move as it was played even if it breaks the ko, superko or
    /// suicide rule (B7); returns the rule broken. Off-board and occupied
    /// points are refused.
    pub fn play_disputed(
        &mut self,
        color: Color,
        mv: Move,
    ) -> Result<Option<IllegalMove>, GameError> {
        let mut next = self.position().clone();
        let disputed = next.play_disputed(color, mv)?;
        self.push(
            Entry::Move {
                color,
                mv,
                disputed,
            },
            next,
        );
        Ok(disputed)
    }

    /// Adds (`Some`) or removes (`None`) stones by hand, as one undoable
    /// entry that starts a new superko segment. Refused if a point is off
    /// the board or the result has a string without liberties.
    /// The entry is normalised: one edit per point (the last one given),
    /// removals first, then black stones, then white ones (SGF's order).
    pub fn setup(&mut self, stones: &[(Point, Option<Color>)]) -> Result<(), GameError> {
        let mut edits: Vec<(Point, Option<Color>)> = Vec::with_capacity(stones.len());
        for &(p, c) in stones.iter().rev() {
            if !edits.iter().any(|&(q, _)| q == p) {
                edits.push((p, c));
            }
        }
        edits.reverse();
        edits.sort_by_key(|&(_, c)| match c {
            None => 0,
            Some(Color::Black) => 1,
            Some(Color::White) => 2,
        });
        let mut next = self.position().clone();
        apply_setup(&mut next, &edits)?;
        self.push(Entry::Setup(edits), next);
        Ok(())
    }

    /// Sets the player to move, as one undoable entry that starts a new
    /// superko segment.
    pub fn set_to_move(&mut self, color: Color) {
        let mut next = self.position().clone();
        next.set_to_move(color);
        self.push(Entry::ToMove(color), next);
    }

    /// Takes back the last `n` entries (moves or edits), all or nothing.
    pub fn undo(&mut self, n: usize) -> Result<(), GameError> {
        if n > self.entries.len() {
            return Err(GameError::CannotUndo);
        }
        let keep = self.entries.len() - n;
        self.entries.truncate(keep);
        self.positions.truncate(keep + 1);
        self.result = None;
        self.revision += 1;
        Ok(())
    }

    /// Whether the board is empty and nothing has been played or edited.
    pub fn is_fresh(&self) -> bool {
        self.entries.is_empty() && self.start().board().empty_count() == self.size().pow(2)
    }

    /// Places handicap stones on a fresh game; White moves next.
    pub fn set_handicap(&mut self, points: &[Point]) -> Result<(), GameError> {
        if !self.is_fresh() {
            return Err(GameError::BoardNotEmpty);
        }
        let size = self.size();
        handicap::check_free(size, points.len())?;
        let mut seen = Vec::new();
        for &p in points {
            if !p.on_board(size) {
                return Err(GameError::BadPlacement("point off the board".into()));
            }
            if seen.contains(&p) {
                return Err(GameError::BadPlacement(format!(
                    "{} given twice",
                    p.to_gtp(size)
                )));
            }
            seen.push(p);
        }
        let mut start = self.start().clone();
        for &p in points {
            start.setup(Some(Color::Black), p)?;
        }
        start.set_to_move(Color::White);
        let clock = self.clock.clone();
        let revision = self.revision + 1;
        *self = Game::from_position(start, points.len());
        self.clock = clock;
        self.revision = revision;
        Ok(())
    }

    /// Starts over from a board holding exactly `stones` (KataGo's
    /// `set_position`), with `to_move` to play. Handicap is 0.
    pub fn set_position(
        &mut self,
        stones: &[(Point, Color)],
        to_move: Color,
    ) -> Result<(), GameError> {
        let mut start = Position::new(self.size(), *self.rules())?;
        let mut seen = Vec::new();
        for &(p, _) in stones {
            if seen.contains(&p) {
                return Err(GameError::BadSetup(format!(
                    "{} given twice",
                    p.to_gtp(self.size())
                )));
            }
            seen.push(p);
        }
        let edits: Vec<(Point, Option<Color>)> =
            stones.iter().map(|&(p, c)| (p, Some(c))).collect();
        apply_setup(&mut start, &edits)?;
        start.set_to_move(to_move);
        let clock = self.clock.clone();
        let revision = self.revision + 1;
        *self = Game::from_position(start, 0);
        self.clock = clock;
        self.revision = revision;
        Ok(())
    }

    /// Replaces the clocks (restoring a saved game).
    pub fn set_clock(&mut self, clock: Clock) {
        self.clock = clock;
        self.revision += 1;
    }
}

/// Applies setup edits to `pos`; refuses off-board points and results with
/// a string that has no liberties.
fn apply_setup(pos: &mut Position, stones: &[(Point, Option<Color>)]) -> Result<(), GameError> {
    let size = pos.size();
    for &(p, c) in stones {
        pos.setup(c, p).map_err(|_| {
            GameError::BadSetup(format!("point off the board: {}", p.to_gtp(size.max(1))))
        })?;
    }
    if pos.board().has_dead_strings() {
        return Err(GameError::BadSetup(
            "a string would have no liberties".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(s: &str) -> Move {
        Move::parse_gtp(s, 9).unwrap()
    }

    #[test]
    fn undo_restores_moves_and_edits() {
        let mut g = Game::new(9, Ruleset::chinese()).unwrap();
        g.play(Color::Black, mv("E5")).unwrap();
        g.setup(&[(Point::new(0, 0), Some(Color::White))]).unwrap();
        g.set_to_move(Color::White);
        g.play(Color::White, mv("D4")).unwrap();
        assert_eq!(g.entries().len(), 4);
        g.undo(2).unwrap();
        assert_eq!(g.to_move(), Color::White);
        assert_eq!(
            g.position().board().get(Point::new(0, 0)),
            Some(Color::White)
        );
        assert_eq!(g.undo(3), Err(GameError::CannotUndo));
        g.undo(2).unwrap();
        assert_eq!(g.position().board().empty_count(), 81);
    }

    #[test]
    fn setup_refuses_strings_without_liberties() {
        let mut g = Game::new(2, Ruleset::chinese()).unwrap();
        let all: Vec<_> = g
            .position()
            .board()
            .points()
            .map(|p| (p, Some(Color::Black)))
            .collect();
        assert!(g.setup(&all).is_err());
        assert_eq!(g.entries().len(), 0);
    }
}
