//! tengen: a computer-Go engine.
//!
//! Layers, each depending only on those before it:
//! - [`rules`]: the Chinese rules core (board, captures, ko and superko,
//!   area scoring, handicap, symmetries, Benson pass-alive regions).
//! - [`sgf`]: reading and writing game records.

pub mod rules;
pub mod sgf;
