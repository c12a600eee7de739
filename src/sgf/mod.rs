//! SGF game records (FF[1]–FF[4]).
//!
//! Layers, each in its own file:
//! - [`encoding`](decode): raw bytes to text (BOM, UTF-16 heuristics, `CA`,
//!   fallbacks), via `encoding_rs`.
//! - `parse`: text to raw game trees ([`Collection`], [`SgfTree`],
//!   [`Node`], [`Property`]); lenient, iterative, never panics; repairs are
//!   reported as [`Warning`]s with line and column.
//! - `record`: the first tree read as a Go game ([`GameRecord`]): size,
//!   komi, rules, players, setup, moves, comments, and replay onto a
//!   [`Position`](crate::rules::Position) with precise [`ReplayError`]s.
//! - `write`: [`write_record`] (FF[4], UTF-8) and [`write_tree`] for raw
//!   trees with variations.
//! - `error`: [`SgfError`] (kind + line + column) and [`Warning`].
//!
//! ```
//! use tengen::sgf::{write_record, GameRecord};
//! let rec = GameRecord::from_sgf("(;SZ[9]KM[7];B[ee];W[])").unwrap();
//! assert_eq!(rec.move_count(), 2);
//! let pos = rec.replay(None).unwrap();
//! assert_eq!(pos.size(), 9);
//! let again = GameRecord::from_sgf(&write_record(&rec)).unwrap();
//! assert_eq!(again.nodes, rec.nodes);
//! ```

mod encoding;
mod error;
mod parse;
mod record;
mod write;

pub use encoding::{decode, Decoded};
pub use error::{SgfError, SgfErrorKind, Warning};
pub use parse::{
    escape_text, parse, parse_bytes, parse_strict, unescape_text, Collection, Node, Property,
    SgfTree,
};
pub use record::{FinalArea, GameRecord, RecordNode, ReplayError};
pub use write::{write_collection, write_record, write_tree};
