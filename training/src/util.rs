//! Small helpers: atomic file writes, seeded randomness per purpose.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` through a temporary file in the same folder,
/// synced and renamed into place: readers see the old or the new file,
/// never a torn one, even after a kill.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir)?;
        }
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}

/// A seed for one purpose (`tag`) and index, derived from a base seed
/// (splitmix64), so that streams do not overlap.
pub fn derive_seed(base: u64, tag: u64, index: u64) -> u64 {
    let mut z =
        base ^ tag.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The rows of the CSV at `path` after its header line, each split at
/// commas and turned into a `T` by `parse` when it has exactly `fields`
/// fields; other rows, and a missing file, give nothing.
pub fn read_csv_rows<T>(
    path: &Path,
    fields: usize,
    parse: impl Fn(&[&str]) -> Option<T>,
) -> Vec<T> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f.len() == fields).then(|| parse(&f)).flatten()
        })
        .collect()
}

/// Appends `row` (one CSV line, no newline) to `path`, writing `header`
/// first when the file is new. Errors name the file.
pub fn append_csv_row(path: &Path, header: &str, row: &str) -> Result<(), String> {
    let mut text = String::new();
    if !path.exists() {
        text.push_str(header);
        text.push('\n');
    }
    text.push_str(row);
    text.push('\n');
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("{}: {e}", path.display()))
}
