//! A position: the board, the player to move, the rules, and the history of
//! earlier positions that superko needs.
//!
//! The checked entry point is [`Position::play`], which returns a precise
//! [`IllegalMove`]. The search uses [`Position::play_unchecked`], which
//! assumes legality. An opponent's *disputed* move (a superko repetition or
//! a suicide, RULES.md B7) can be applied as played with
//! [`Position::play_disputed`], which says which rule it broke.
//!
//! History segments: setup edits ([`Position::setup`]) start a new history
//! segment, so superko compares only positions reached by play since the
//! last edit. An edited position is a new starting position; comparing it
//! with positions from before the edit would forbid moves for reasons no
//! referee would accept.

use std::fmt;

use super::board::Board;
use super::color::Color;
use super::point::{Move, Point};
use super::ruleset::{KoRule, Ruleset};
use super::zobrist;

/// Why a move is illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IllegalMove {
    /// The point is not on this board.
    OffBoard,
    /// The point already holds a stone.
    Occupied,
    /// The stone would have no liberty and capture nothing (C5).
    Suicide,
    /// An immediate retake of a single-stone ko.
    Ko,
    /// The move would repeat an earlier whole-board position (C6), under
    /// the ruleset's superko flavour.
    Superko,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IllegalMove::OffBoard => "point is off the board",
            IllegalMove::Occupied => "point is occupied",
            IllegalMove::Suicide => "suicide",
            IllegalMove::Ko => "ko recapture",
            IllegalMove::Superko => "superko: repeats an earlier position",
        })
    }
}

impl std::error::Error for IllegalMove {}

/// Errors creating a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("unsupported board size {0} (supported: 2 to 19)")]
    BadSize(usize),
}

/// Board + player to move + rules + superko history.
#[derive(Clone, Debug)]
pub struct Position {
    board: Board,
    to_move: Color,
    rules: Ruleset,
    /// (board hash, player to move) of every position of this history
    /// segment, the current one last.
    history: Vec<(u64, Color)>,
    /// Consecutive passes that led here.
    passes: u32,
    /// The last move and who played it.
    last: Option<(Color, Move)>,
}

impl Position {
    /// An empty board of `size` with Black to move.
    pub fn new(size: usize, rules: Ruleset) -> Result<Position, RulesError> {
        let board = Board::try_new(size).ok_or(RulesError::BadSize(size))?;
        Ok(Position::from_board(board, Color::Black, rules))
    }

    /// A position from an existing board; the history starts here.
    pub fn from_board(board: Board, to_move: Color, rules: Ruleset) -> Position {
        let history = vec![(board.hash(), to_move)];
        Position {
            board,
            to_move,
            rules,
            history,
            passes: 0,
            last: None,
        }
    }

    #[inline]
    pub fn board(&self) -> &Board {
        &self.board
    }

    #[inline]
    pub fn size(&self) -> usize {
        self.board.size()
    }

    #[inline]
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    #[inline]
    pub fn rules(&self) -> &Ruleset {
        &self.rules
    }

    /// Changes the rules (komi, ko rule, suicide) without touching the
    /// position or its history.
    pub fn set_rules(&mut self, rules: Ruleset) {
        self.rules = rules;
    }

    /// Number of consecutive passes that led to this position.
    #[inline]
    pub fn passes(&self) -> u32 {
        self.passes
    }

    /// Whether two consecutive passes ended the game (C7).
    #[inline]
    pub fn is_over(&self) -> bool {
        self.passes >= 2
    }

    /// The last move played, with its colour.
    #[inline]
    pub fn last_move(&self) -> Option<(Color, Move)> {
        self.last
    }

    /// Hash of the stones and the player to move.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.board.hash() ^ zobrist::side(self.to_move)
    }

    /// The (board hash, player to move) pairs of this history segment.
    pub fn history(&self) -> &[(u64, Color)] {
        &self.history
    }

    /// Sets the player to move (an edit, B6). Starts a new history segment.
    pub fn set_to_move(&mut self, c: Color) {
        self.to_move = c;
        self.new_segment();
    }

    /// Puts a stone on `p` or empties it (`None`): position setup and
    /// editing (SGF AB/AW/AE, GTP gogui-setup, B6). No captures happen.
    /// Starts a new history segment.
    pub fn setup(&mut self, c: Option<Color>, p: Point) -> Result<(), IllegalMove> {
        if !p.on_board(self.size()) {
            return Err(IllegalMove::OffBoard);
        }
        self.board.set(p, c);
        self.new_segment();
        Ok(())
    }

    fn new_segment(&mut self) {
        self.history.clear();
        self.history.push((self.board.hash(), self.to_move));
        self.passes = 0;
    }

    /// Why `color` may not play `mv` here, or `Ok` if it may.
    pub fn check(&self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        let p = match mv {
            Move::Pass => return Ok(()),
            Move::Place(p) => p,
        };
        if !p.on_board(self.size()) {
            return Err(IllegalMove::OffBoard);
        }
        if !self.board.is_empty(p) {
            return Err(IllegalMove::Occupied);
        }
        let suicide = self.board.is_suicide(color, p);
        if suicide && !self.rules.suicide_allowed {
            return Err(IllegalMove::Suicide);
        }
        // The board's ko point is for the player to move; for the other
        // colour it means nothing.
        if color == self.to_move && self.board.ko_point() == Some(p) {
            return Err(IllegalMove::Ko);
        }
        if self.rules.ko != KoRule::Simple {
            let after = if suicide {
                let mut b = self.board.clone();
                b.place(color, p);
                b.hash()
            } else {
                self.board.hash_after(color, p)
            };
            if self.repeats(after, color.opp()) {
                return Err(IllegalMove::Superko);
            }
        }
        Ok(())
    }

    /// Whether a position with board hash `h` and `next` to move would
    /// repeat one of this segment under the superko rule.
    fn repeats(&self, h: u64, next: Color) -> bool {
        match self.rules.ko {
            KoRule::Simple => false,
            KoRule::Positional => self.history.iter().any(|&(g, _)| g == h),
            KoRule::Situational => self.history.contains(&(h, next)),
        }
    }

    /// Whether the player to move may play `mv`.
    #[inline]
    pub fn is_legal(&self, mv: Move) -> bool {
        self.check(self.to_move, mv).is_ok()
    }

    /// Plays `mv` for `color` if legal. `color` need not be the player to
    /// move (game records do not always alternate); afterwards the other
    /// colour is to move.
    pub fn play(&mut self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        self.check(color, mv)?;
        self.apply(color, mv);
        Ok(())
    }

    /// Plays `mv` for the player to move, checked.
    pub fn play_move(&mut self, mv: Move) -> Result<(), IllegalMove> {
        self.play(self.to_move, mv)
    }

    /// Plays `mv` for the player to move without checking legality: the
    /// fast path for search. Precondition: `self.is_legal(mv)`.
    #[inline]
    pub fn play_unchecked(&mut self, mv: Move) {
        debug_assert!(self.is_legal(mv), "play_unchecked of an illegal move");
        self.apply(self.to_move, mv);
    }

    /// Applies an opponent's move as it was played on the real board even if
    /// it breaks the ko or suicide rule (B7): a suicide removes the
    /// stone's own string. Returns the broken rule, if any. Only moves that
    /// cannot be put on a board at all (off the board, occupied point) are
    /// refused.
    pub fn play_disputed(
        &mut self,
        color: Color,
        mv: Move,
    ) -> Result<Option<IllegalMove>, IllegalMove> {
        let broken = match self.check(color, mv) {
            Ok(()) => None,
            Err(e @ (IllegalMove::OffBoard | IllegalMove::Occupied)) => return Err(e),
            Err(e) => Some(e),
        };
        self.apply(color, mv);
        Ok(broken)
    }

    fn apply(&mut self, color: Color, mv: Move) {
        match mv {
            Move::Pass => {
                self.board.pass();
                self.passes += 1;
            }
            Move::Place(p) => {
                self.board.place(color, p);
                self.passes = 0;
            }
        }
        self.to_move = color.opp();
        self.last = Some((color, mv));
        self.history.push((self.board.hash(), self.to_move));
    }

    /// All legal moves for the player to move, passes included.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves: Vec<Move> = self
            .board
            .points()
            .filter(|&p| self.board.is_empty(p))
            .map(Move::Place)
            .filter(|&m| self.is_legal(m))
            .collect();
        moves.push(Move::Pass);
        moves
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(s: &str, size: usize) -> Move {
        Move::parse_gtp(s, size).unwrap()
    }

    #[test]
    fn simple_ko_and_superko_refuse_retake() {
        for rules in [Ruleset::chinese(), Ruleset::from_name("nz").unwrap()] {
            let mut pos = Position::new(9, rules).unwrap();
            for (c, v) in [
                (Color::Black, "D5"),
                (Color::White, "F6"),
                (Color::Black, "E6"),
                (Color::White, "F4"),
                (Color::Black, "E4"),
                (Color::White, "G5"),
                (Color::Black, "A1"),
                (Color::White, "E5"),
                (Color::Black, "F5"),
            ] {
                pos.play(c, mv(v, 9)).unwrap();
            }
            assert_eq!(pos.check(Color::White, mv("E5", 9)), Err(IllegalMove::Ko));
            pos.play(Color::White, Move::Pass).unwrap();
            pos.play(Color::Black, mv("A2", 9)).unwrap();
            // Now the retake is not an immediate one and is legal.
            assert_eq!(pos.check(Color::White, mv("E5", 9)), Ok(()));
        }
    }

    #[test]
    fn disputed_suicide_is_applied() {
        let mut pos = Position::new(5, Ruleset::chinese()).unwrap();
        pos.play(Color::White, mv("A2", 5)).unwrap();
        pos.play(Color::White, mv("B1", 5)).unwrap();
        assert_eq!(
            pos.check(Color::Black, mv("A1", 5)),
            Err(IllegalMove::Suicide)
        );
        let broken = pos.play_disputed(Color::Black, mv("A1", 5)).unwrap();
        assert_eq!(broken, Some(IllegalMove::Suicide));
        assert_eq!(pos.board().get(Point::new(0, 4)), None);
        assert_eq!(pos.to_move(), Color::White);
        assert_eq!(
            pos.play_disputed(Color::Black, mv("A2", 5)),
            Err(IllegalMove::Occupied)
        );
    }
}
