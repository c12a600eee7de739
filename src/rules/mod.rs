//! The rules core: everything about the game of Go itself, and nothing
//! above it. This module imports nothing else from the crate.
//!
//! - [`Board`]: stones, strings, liberties, captures, simple ko, hash.
//! - [`Position`]: board + player to move + [`Ruleset`] + superko history.
//! - [`score`]: area counting with dame split (C9) and the result in points
//!   and in stones.
//! - [`handicap`], [`Symmetry`], [`benson`] (pass-alive regions).
//! - [`playout`]: uniformly random playouts, for benchmarks and tests.

pub mod benson;
mod board;
mod color;
pub mod handicap;
pub mod playout;
mod point;
mod position;
mod ruleset;
pub mod score;
mod symmetry;
mod zobrist;

pub use board::{check_invariants, Board, Cell, Placed};
pub use color::Color;
pub use point::{Move, Point, CELLS, MAX_SIZE, MIN_SIZE, STRIDE};
pub use position::{IllegalMove, Position, RulesError};
pub use ruleset::{HandicapBonus, KoRule, Ruleset, Scoring, Tax};
pub use score::{area_count, AreaCount, Score, TerritoryCount};
pub use symmetry::Symmetry;
pub use zobrist::mix;

/// Zobrist key of a stone, exposed for code that hashes positions itself.
pub fn zobrist_stone(c: Color, p: Point) -> u64 {
    zobrist::stone(c, p)
}
