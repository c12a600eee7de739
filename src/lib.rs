//! tengen: a computer-Go engine.
//!
//! Layers, each depending only on those before it:
//! - [`rules`]: the Chinese rules core (board, captures, ko and superko,
//!   area scoring, handicap, symmetries, Benson pass-alive regions).
//! - [`sgf`]: reading and writing game records.
//! - [`eval`]: the evaluator interface (batch of positions in, policy,
//!   value, score and ownership out) and deterministic fake evaluators.
//! - [`features`]: net input encodings computed from the rules core
//!   (KataGo's V7), with KataGo's pass-alive area and ladder definitions.
//! - [`net`] (cargo feature `net`): the policy/value net in burn, KataGo
//!   model import, our safetensors format, and the net evaluator.
//! - [`search`]: batched PUCT search over the rules core, time management
//!   and end-of-game passing decisions.
//! - [`engine`]: move generation for a game (genmove, analysis, dead
//!   stones) on top of an evaluator.
//! - [`game`]: the game being played: history, undo, edits, handicap,
//!   clocks, autosave and resume.
//! - [`gtp`]: the GTP front end; [`play`]: the terminal mode for people.
//! - [`analysis`]: the JSON analysis engine (KataGo's protocol).
//! - [`benchmark`] (feature `net`): `tengen benchmark`, net and search
//!   speed on this machine and device.

pub mod rules;
pub mod sgf;

pub mod features;
#[cfg(feature = "net")]
pub mod net;

pub mod eval;
pub mod search;

pub mod analysis;
#[cfg(feature = "net")]
pub mod benchmark;
pub mod engine;
pub mod game;
pub mod gtp;
pub mod play;
