//! The policy/value network in burn, KataGo-compatible.
//!
//! - [`config`]: [`NetConfig`], the architecture as data.
//! - [`layers`], [`blocks`], [`model`]: the burn modules ([`Net`]).
//! - [`katago`]: reading KataGo `.bin.gz` model files.
//! - [`io`]: our safetensors model files, and KataGo conversion.
//! - [`output`]: KataGo's post-processing and the `kata-raw-nn` text.
//! - [`device`]: choosing the backend at run time.
//! - [`symmetry`]: KataGo's symmetry numbering, applied to planes.
//! - [`evaluator`]: [`NetEvaluator`] for the engine's `Evaluator` trait.
//!
//! Errors are [`NetError`]; nothing here panics on a bad file.

pub mod blocks;
pub mod config;
pub mod conv_ext;
pub mod device;
pub mod error;
pub mod evaluator;
pub mod fast;
pub mod io;
pub mod katago;
pub mod layers;
pub mod model;
pub mod output;
pub mod shipped;
pub mod symmetry;

pub use config::NetConfig;
pub use error::NetError;
pub use evaluator::{NetEvaluator, RandomWeights, SymmetryChoice};
pub use io::{convert_katago, load_any};
pub use model::{Heads, Net, RawOutput};
