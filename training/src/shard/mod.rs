//! Training shards: batches of [`Sample`]s in a versioned, compressed
//! binary file. [`v1`] is the only version so far; a new version is a new
//! file here, and [`read`] keeps loading every old one.
//!
//! A [`Sample`] is one position seen from the player to move, with the
//! targets a net learns from. Weights in [`Sample::flags`] say which
//! targets are known (a resigned game has no final ownership, an SGF
//! game without a numeric result has no score).

pub mod v1;

use std::path::{Path, PathBuf};

use tengen::features::v7;

/// The target [`Sample::policy`] is a search's visit distribution (a
/// full search under playout-cap randomization) or a played move.
pub const HAS_POLICY: u8 = 1;
/// [`Sample::outcome`] is known.
pub const HAS_VALUE: u8 = 2;
/// [`Sample::score`] is known.
pub const HAS_SCORE: u8 = 4;
/// [`Sample::ownership`] is known.
pub const HAS_OWNERSHIP: u8 = 8;

/// The opponent's next move is unknown (the game ended here).
pub const NO_MOVE: u16 = u16::MAX;

/// One training position, from the view of the player to move.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Board size.
    pub size: usize,
    /// Which targets are known: `HAS_*` bits.
    pub flags: u8,
    /// V7 spatial planes, `v7::SPATIAL * size * size`, each 0 or 1.
    pub spatial: Vec<f32>,
    /// V7 global inputs, `v7::GLOBAL`.
    pub global: Vec<f32>,
    /// Policy target, `size * size + 1` (pass last), summing to 1 (or all
    /// 0 without [`HAS_POLICY`]).
    pub policy: Vec<f32>,
    /// Dense index of the opponent's reply (`size * size` = pass), or
    /// [`NO_MOVE`].
    pub opp_move: u16,
    /// +1 the player to move won, -1 lost, 0 draw or no result.
    pub outcome: i8,
    /// Final score margin in points for the player to move.
    pub score: f32,
    /// Final ownership, `size * size`: +1 the player to move's, -1 the
    /// opponent's, 0 dame.
    pub ownership: Vec<i8>,
}

impl Sample {
    /// Whether the shapes fit `size`.
    pub fn check(&self) -> Result<(), ShardError> {
        let n = self.size * self.size;
        let bad = |what: &str| Err(ShardError::Invalid(format!("sample: {what}")));
        if !(2..=19).contains(&self.size) {
            return bad("board size out of range");
        }
        if self.spatial.len() != v7::SPATIAL * n || self.global.len() != v7::GLOBAL {
            return bad("feature length");
        }
        if self.policy.len() != n + 1 || self.ownership.len() != n {
            return bad("target length");
        }
        if self.opp_move != NO_MOVE && self.opp_move as usize > n {
            return bad("opponent move out of range");
        }
        Ok(())
    }
}

/// Shard errors.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a tengen shard (bad magic)")]
    Magic { path: PathBuf },
    #[error("{path}: shard version {version} (this build reads 1)")]
    Version { path: PathBuf, version: u32 },
    #[error("{path}: {reason}")]
    Corrupt { path: PathBuf, reason: String },
    #[error("{0}")]
    Invalid(String),
}

/// Reads any shard version.
pub fn read(path: &Path) -> Result<Vec<Sample>, ShardError> {
    let bytes = std::fs::read(path).map_err(|source| ShardError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if bytes.len() < 12 || &bytes[..8] != v1::MAGIC {
        return Err(ShardError::Magic {
            path: path.to_path_buf(),
        });
    }
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    match version {
        1 => v1::decode(&bytes, path),
        _ => Err(ShardError::Version {
            path: path.to_path_buf(),
            version,
        }),
    }
}

/// Writes `samples` as a shard of the newest version, atomically.
pub fn write(path: &Path, samples: &[Sample]) -> Result<(), ShardError> {
    let bytes = v1::encode(samples)?;
    crate::util::write_atomic(path, &bytes).map_err(|source| ShardError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Shard files in `dir` (`*.tgs`), sorted by name (oldest first: names
/// carry a zero-padded sequence number). A missing directory has none.
pub fn list(dir: &Path) -> Result<Vec<PathBuf>, ShardError> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(ShardError::Io {
                path: dir.to_path_buf(),
                source,
            })
        }
    };
    let mut out: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "tgs"))
        .collect();
    out.sort();
    Ok(out)
}

/// The next free shard name in `dir`: `shard-NNNNNNNN.tgs`.
pub fn next_path(dir: &Path) -> Result<PathBuf, ShardError> {
    Ok(path_of(dir, next_index(dir)?))
}

/// The number the next shard in `dir` gets: one past the highest.
pub fn next_index(dir: &Path) -> Result<u64, ShardError> {
    Ok(list(dir)?
        .iter()
        .filter_map(|p| index_of(p))
        .max()
        .map_or(0, |m| m + 1))
}

/// The number in a shard's file name (`shard-00000012.tgs` → 12).
pub fn index_of(path: &Path) -> Option<u64> {
    path.file_stem()?
        .to_str()?
        .strip_prefix("shard-")?
        .parse::<u64>()
        .ok()
}

/// The file of shard number `i` in `dir`.
pub fn path_of(dir: &Path, i: u64) -> PathBuf {
    dir.join(format!("shard-{i:08}.tgs"))
}
