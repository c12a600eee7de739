//! Shard format version 1.
//!
//! ```text
//! file    = magic "TGSHARD\0" (8 bytes) | version u32 LE = 1 | gzip(body)
//! body    = count u32 | sample*count
//! sample  = size u8 | flags u8
//!         | spatial: v7::SPATIAL*size*size bits, plane-major, LSB first,
//!           padded to a whole byte
//!         | global:  v7::GLOBAL f32
//!         | policy:  size*size+1 f32 (pass last)
//!         | opp_move u16 (0xFFFF: none) | outcome i8 | score f32
//!         | ownership: size*size i8
//! ```
//! All numbers little-endian; points in dense order (`y * size + x`).
//! Spatial planes must be binary (V7's are): the writer refuses others.

use std::io::{Read, Write};
use std::path::Path;

use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use tengen::features::v7;

use super::{Sample, ShardError};

/// File magic.
pub const MAGIC: &[u8; 8] = b"TGSHARD\0";
/// This format's version number.
pub const VERSION: u32 = 1;

/// Encodes a whole shard file.
pub fn encode(samples: &[Sample]) -> Result<Vec<u8>, ShardError> {
    let mut body = Vec::new();
    body.extend((samples.len() as u32).to_le_bytes());
    for s in samples {
        s.check()?;
        body.push(s.size as u8);
        body.push(s.flags);
        let mut bits = vec![0u8; s.spatial.len().div_ceil(8)];
        for (i, &v) in s.spatial.iter().enumerate() {
            if v == 1.0 {
                bits[i / 8] |= 1 << (i % 8);
            } else if v != 0.0 {
                return Err(ShardError::Invalid(format!(
                    "spatial input {i} is {v}; v1 stores binary planes only"
                )));
            }
        }
        body.extend(bits);
        for &g in &s.global {
            body.extend(g.to_le_bytes());
        }
        for &p in &s.policy {
            body.extend(p.to_le_bytes());
        }
        body.extend(s.opp_move.to_le_bytes());
        body.push(s.outcome as u8);
        body.extend(s.score.to_le_bytes());
        body.extend(s.ownership.iter().map(|&o| o as u8));
    }
    let mut out = Vec::with_capacity(body.len() / 4 + 16);
    out.extend(MAGIC);
    out.extend(VERSION.to_le_bytes());
    let mut gz = GzEncoder::new(out, Compression::new(6));
    gz.write_all(&body)
        .map_err(|e| ShardError::Invalid(e.to_string()))?;
    gz.finish().map_err(|e| ShardError::Invalid(e.to_string()))
}

/// A bounds-checked little-endian reader.
struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.buf.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn u16(&mut self) -> Option<u16> {
        self.take(2).map(|b| u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn f32s(&mut self, n: usize) -> Option<Vec<f32>> {
        let b = self.take(n.checked_mul(4)?)?;
        Some(
            b.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        )
    }
}

/// Decodes a whole shard file (magic and version already checked).
pub fn decode(bytes: &[u8], path: &Path) -> Result<Vec<Sample>, ShardError> {
    let corrupt = |reason: String| ShardError::Corrupt {
        path: path.to_path_buf(),
        reason,
    };
    let mut body = Vec::new();
    GzDecoder::new(&bytes[12..])
        .read_to_end(&mut body)
        .map_err(|e| corrupt(format!("decompressing: {e}; truncated?")))?;
    let mut c = Cursor { buf: &body, pos: 0 };
    let count = c.u32().ok_or_else(|| corrupt("no sample count".into()))? as usize;
    let mut out = Vec::with_capacity(count.min(1 << 20));
    for k in 0..count {
        let s = read_sample(&mut c).ok_or_else(|| corrupt(format!("sample {k} is truncated")))?;
        s.check().map_err(|e| corrupt(format!("sample {k}: {e}")))?;
        if !(s.global.iter().chain(&s.policy).all(|x| x.is_finite()) && s.score.is_finite()) {
            return Err(corrupt(format!("sample {k} has a non-finite number")));
        }
        out.push(s);
    }
    if c.pos != body.len() {
        return Err(corrupt(format!(
            "{} bytes after the last sample",
            body.len() - c.pos
        )));
    }
    Ok(out)
}

fn read_sample(c: &mut Cursor<'_>) -> Option<Sample> {
    let size = c.u8()? as usize;
    if !(2..=19).contains(&size) {
        return None;
    }
    let n = size * size;
    let flags = c.u8()?;
    let nbits = v7::SPATIAL * n;
    let bits = c.take(nbits.div_ceil(8))?;
    let spatial = (0..nbits)
        .map(|i| ((bits[i / 8] >> (i % 8)) & 1) as f32)
        .collect();
    let global = c.f32s(v7::GLOBAL)?;
    let policy = c.f32s(n + 1)?;
    let opp_move = c.u16()?;
    let outcome = c.u8()? as i8;
    let score = f32::from_le_bytes(c.take(4)?.try_into().ok()?);
    let ownership = c.take(n)?.iter().map(|&b| b as i8).collect();
    Some(Sample {
        size,
        flags,
        spatial,
        global,
        policy,
        opp_move,
        outcome,
        score,
        ownership,
    })
}
