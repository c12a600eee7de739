//! tengen: a computer-Go engine.
//!
//! Layers, each depending only on those before it:
//! - [`rules`]: the Chinese rules core (board, captures, ko and superko,
//!   area scoring, handicap, symmetries, Benson pass-alive regions).
//! - [`sgf`]: reading and writing game records.
//! - [`eval`]: the evaluator interface (batch of positions in, policy,
//!   value, score and ownership out) and deterministic fake evaluators.
//! - [`search`]: batched PUCT search over the rules core, time management
//!   and end-of-game passing decisions.

pub mod rules;
pub mod sgf;

pub mod eval;
pub mod search;
