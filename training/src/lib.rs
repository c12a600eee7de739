//! tengen-train: self-play reinforcement learning for tengen on one
//! workstation, plus supervised bootstrap, gating and matches.
//!
//! - [`shard`]: the versioned training-data format.
//! - [`game`]: a game being played (history, record, referee count).
//! - [`selfplay`]: games of the search against itself → shards + SGF.
//! - [`model`]: the trainable net (engine net + auxiliary head).
//! - [`train`]: losses, batches with augmentation, Adam, checkpoints.
//! - [`sl`]: SGF collections → shards.
//! - [`arena`], [`gtp_client`], [`elo`]: matches, gating, Elo and SPRT.
//! - [`looping`], [`metrics`]: the resumable loop, CSV and plot.
//! - [`edit`]: weight edits of a trained net (blends, the ko-rule fold).
//!
//! Errors are plain strings with context (this crate is an application);
//! nothing here panics on bad files or settings.

pub mod alloc;
pub mod anchors;
pub mod arena;
pub mod edit;
pub mod elo;
pub mod game;
pub mod gtp_client;
pub mod human;
pub mod komi_curve;
pub mod looping;
pub mod metrics;
pub mod model;
pub mod selfplay;
pub mod shard;
pub mod sl;
pub mod train;
pub mod util;
