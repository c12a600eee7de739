//! Errors of the net layer.

use std::path::PathBuf;

/// Why a net could not be loaded, saved or run.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("KataGo model {name}: {reason}")]
    KataGoFormat { name: String, reason: String },
    #[error("KataGo model is truncated: {0}")]
    Truncated(String),
    #[error("unsupported KataGo model: {0}")]
    Unsupported(String),
    #[error("weight {name}: expected shape {expected:?}, found {found:?}")]
    Shape {
        name: String,
        expected: Vec<usize>,
        found: Vec<usize>,
    },
    #[error("weight {0} is missing")]
    Missing(String),
    #[error("safetensors file {path}: {reason}")]
    Safetensors { path: PathBuf, reason: String },
    #[error("board size {0} is not supported (2..=19)")]
    BoardSize(usize),
    #[error("device: {0}")]
    Device(String),
}
