//! Supervised learning from human game collections at scale: gzip SGF
//! collections (one game tree per line) streamed game by game, each game
//! in its own context (handicap stones, komi, rules), with only the
//! targets the record knows.
//!
//! - [`record`]: a record's rules, result kinds, ranks → packed samples.
//! - [`packed`]: a position in ~1.1 KB for the shuffle window.
//! - [`stream`]: files → windows → batches on two threads; exact
//!   positions for resume.
//! - [`eval`]: the val subset and its numbers.
//! - [`run`]: the training loop, checkpoints, metrics.

pub mod eval;
pub mod labels;
pub mod packed;
pub mod record;
pub mod run;
pub mod stream;
