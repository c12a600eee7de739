//! tengen's own model files: safetensors with the architecture in the
//! metadata, and conversion from KataGo's `.bin.gz`.
//!
//! # Format (version 1)
//! - Every tensor is little-endian `F32`, named as [`Net::load`] asks for
//!   it (`stem.weight`, `blocks.3.conv1.weight`, `policy.pass1.bias`, ...)
//!   in this crate's layout: convolutions `[out, in, kh, kw]`, matmuls
//!   `[in, out]`, batch norms already folded to `scale` and `bias`.
//! - Metadata (string → string): `tengen.format` = `"1"`,
//!   `tengen.features` = `"v7"` (the input encoding the net expects), and
//!   `tengen.config` = the [`NetConfig`] as JSON, which carries the KataGo
//!   model version and the output post-processing constants: everything
//!   needed to run the net.
//! - Python reads it as is: `safetensors.safe_open(path, "np")`.
//!
//! # Why the `safetensors` crate and not `burn::store::SafetensorsStore`
//! The store names tensors by burn's module field paths (which include our
//! `Option` block-kind fields) and applies them to an already built module,
//! reporting problems after the fact. Reading the file ourselves lets the
//! names be the same as the KataGo importer's, lets the config be read
//! before the net is built, and turns every defect (truncation, bad header,
//! wrong dtype or shape, missing or extra tensors) into a [`NetError`]
//! before any tensor reaches the device. The crate is already in the build
//! (burn's store uses it), so it costs nothing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use burn::store::ModuleSnapshot;
use burn::tensor::{DType, Device};
use safetensors::tensor::TensorView;
use safetensors::{Dtype, SafeTensors};

use super::config::NetConfig;
use super::error::NetError;
use super::katago;
use super::layers::WeightMap;
use super::model::Net;

/// The format version written to `tengen.format`.
pub const FORMAT_VERSION: &str = "1";
/// The input encoding our nets use, written to `tengen.features`.
pub const FEATURES: &str = "v7";

const KEY_FORMAT: &str = "tengen.format";
const KEY_FEATURES: &str = "tengen.features";
const KEY_CONFIG: &str = "tengen.config";

fn st_err(path: &Path, reason: impl Into<String>) -> NetError {
    NetError::Safetensors {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// Block-kind fields of [`super::blocks::Block`]: burn paths have them after
/// the block index, our weight names do not.
const BLOCK_KINDS: [&str; 5] = ["res", "gpool", "nested", "attn", "ffn"];

/// Our weight name for a burn module path.
fn weight_name(burn_path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for seg in burn_path.split('.') {
        let after_index = out
            .last()
            .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()));
        if after_index && BLOCK_KINDS.contains(&seg) {
            continue;
        }
        out.push(seg);
    }
    out.join(".")
}

/// The net's weights by name, on the host.
pub fn weights_of(net: &Net) -> Result<WeightMap, NetError> {
    let mut map = WeightMap::default();
    for t in net.collect(None, None, false) {
        let name = weight_name(&t.name);
        if t.dtype != DType::F32 {
            return Err(NetError::Device(format!(
                "weight {name} is {:?}; only f32 nets can be saved",
                t.dtype
            )));
        }
        let bytes = t
            .to_bytes()
            .map_err(|e| NetError::Device(format!("reading weight {name}: {e:?}")))?;
        let data: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        map.put(&name, t.shape.to_vec(), data);
    }
    Ok(map)
}

/// Writes `weights` with `config` to `path` (through a temporary file in
/// the same directory, renamed into place).
pub fn save_weights(config: &NetConfig, weights: &WeightMap, path: &Path) -> Result<(), NetError> {
    let config_json =
        serde_json::to_string(config).map_err(|e| st_err(path, format!("config: {e}")))?;
    let meta = HashMap::from([
        (KEY_FORMAT.to_string(), FORMAT_VERSION.to_string()),
        (KEY_FEATURES.to_string(), FEATURES.to_string()),
        (KEY_CONFIG.to_string(), config_json),
    ]);
    let bytes: Vec<(String, Vec<usize>, Vec<u8>)> = weights
        .tensors
        .iter()
        .map(|(name, (shape, data))| {
            let b = data.iter().flat_map(|x| x.to_le_bytes()).collect();
            (name.clone(), shape.clone(), b)
        })
        .collect();
    let mut views = Vec::with_capacity(bytes.len());
    for (name, shape, b) in &bytes {
        let v = TensorView::new(Dtype::F32, shape.clone(), b)
            .map_err(|e| st_err(path, format!("tensor {name}: {e}")))?;
        views.push((name.as_str(), v));
    }
    let buf = safetensors::serialize(views, Some(meta)).map_err(|e| st_err(path, e.to_string()))?;
    let io = |source| NetError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, &buf).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

/// Saves `net` to `path` in our format.
pub fn save(net: &Net, path: &Path) -> Result<(), NetError> {
    save_weights(net.config(), &weights_of(net)?, path)
}

/// Reads a file in our format: its config and weights, checked for
/// format, dtype and well-formedness (not yet against the config).
pub fn read(path: &Path) -> Result<(NetConfig, WeightMap), NetError> {
    let bytes = std::fs::read(path).map_err(|source| NetError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&bytes, path)
}

/// [`read`] from bytes; `path` only names the source in errors.
pub fn parse(bytes: &[u8], path: &Path) -> Result<(NetConfig, WeightMap), NetError> {
    let (_, header) = SafeTensors::read_metadata(bytes).map_err(|e| {
        st_err(
            path,
            format!("not a complete safetensors file ({e}); truncated?"),
        )
    })?;
    let meta = header
        .metadata()
        .as_ref()
        .ok_or_else(|| st_err(path, "no metadata; not a tengen net"))?;
    let get = |k: &str| {
        meta.get(k)
            .ok_or_else(|| st_err(path, format!("metadata {k} is missing; not a tengen net")))
    };
    let format = get(KEY_FORMAT)?;
    if format != FORMAT_VERSION {
        return Err(st_err(
            path,
            format!("format version {format} (this build reads {FORMAT_VERSION})"),
        ));
    }
    let features = get(KEY_FEATURES)?;
    if features != FEATURES {
        return Err(st_err(
            path,
            format!("input features {features} (this build has {FEATURES})"),
        ));
    }
    let config: NetConfig = serde_json::from_str(get(KEY_CONFIG)?)
        .map_err(|e| st_err(path, format!("metadata {KEY_CONFIG}: {e}")))?;
    let st = SafeTensors::deserialize(bytes).map_err(|e| {
        st_err(
            path,
            format!("not a complete safetensors file ({e}); truncated?"),
        )
    })?;
    let mut weights = WeightMap::default();
    for (name, view) in st.iter() {
        if view.dtype() != Dtype::F32 {
            return Err(st_err(
                path,
                format!("tensor {name} is {:?}, expected F32", view.dtype()),
            ));
        }
        let data: Vec<f32> = view
            .data()
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if let Some(i) = data.iter().position(|x| !x.is_finite()) {
            return Err(st_err(
                path,
                format!("tensor {name}: value {i} is not finite"),
            ));
        }
        weights.put(name, view.shape().to_vec(), data);
    }
    Ok((config, weights))
}

/// Builds the net of `config` from `weights`, requiring every weight to
/// be used.
pub fn build(
    config: &NetConfig,
    mut weights: WeightMap,
    device: &Device,
    path: &Path,
) -> Result<Net, NetError> {
    let net = Net::load(config, &mut weights, device)?;
    if let Some(extra) = weights.tensors.keys().min() {
        return Err(st_err(
            path,
            format!(
                "tensor {extra} (and {} more) is not part of the architecture",
                weights.tensors.len() - 1
            ),
        ));
    }
    Ok(net)
}

/// Loads a net saved in our format.
pub fn load(path: &Path, device: &Device) -> Result<Net, NetError> {
    let (config, weights) = read(path)?;
    build(&config, weights, device, path)
}

/// Loads a net in either format, by file name: KataGo's (`.bin.gz`,
/// `.gz`, `.bin`) or ours (anything else, normally `.safetensors`).
pub fn load_any(path: &Path, device: &Device) -> Result<Net, NetError> {
    let name = path.to_string_lossy();
    if name.ends_with(".bin.gz") || name.ends_with(".bin") || name.ends_with(".gz") {
        let m = katago::load(path)?;
        build(&m.config, m.weights, device, path)
    } else {
        load(path, device)
    }
}

/// Converts a KataGo model file to our format. The net is built once (on
/// the CPU) to check that it is complete before anything is written.
pub fn convert_katago(bin_gz: &Path, out: &Path) -> Result<NetConfig, NetError> {
    let m = katago::load(bin_gz)?;
    let net = build(&m.config, m.weights, &Device::flex(), bin_gz)?;
    save(&net, out)?;
    Ok(net.config().clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burn_paths_map_to_weight_names() {
        assert_eq!(weight_name("blocks.0.res.pre.scale"), "blocks.0.pre.scale");
        assert_eq!(
            weight_name("blocks.3.nested.inner.1.gpool.conv_gpool.weight"),
            "blocks.3.inner.1.conv_gpool.weight"
        );
        assert_eq!(weight_name("tip.bn.scale"), "tip.bn.scale");
        assert_eq!(weight_name("policy.pass1.bias"), "policy.pass1.bias");
    }
}
