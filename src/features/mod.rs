//! Neural-net input features, one encoder per version. Plain Rust, no
//! burn: the net (`crate::net`) consumes what these produce.
//!
//! - [`v7`]: KataGo's input version 7 (22 planes, 19 globals).
//! - [`area`], [`ladder`]: KataGo's area and ladder definitions used by it.
//!
//! A shipped version is never edited; a new encoding is a new file.

pub mod area;
pub mod ladder;
pub mod v7;
