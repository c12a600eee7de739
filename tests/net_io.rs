//! Our safetensors model files: exact round trip, and clear errors for
//! missing, truncated and mismatched files. Uses a small random net.
#![cfg(feature = "net")]

use std::path::PathBuf;

use burn::tensor::Device;
use tengen::net::io;
use tengen::net::{Net, NetConfig, NetError, RandomWeights};

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tengen-net-io-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn small_net() -> Net {
    Net::load(
        &NetConfig::small(3, 16),
        &mut RandomWeights::new(7),
        &Device::flex(),
    )
    .unwrap()
}

fn inputs(size: usize) -> (Vec<f32>, Vec<f32>) {
    let n = size * size;
    let spatial = (0..2 * 22 * n)
        .map(|i| ((i * 7919) % 13) as f32 / 13.0)
        .collect();
    let global = (0..2 * 19).map(|i| (i % 5) as f32 * 0.1).collect();
    (spatial, global)
}

#[test]
fn round_trip_is_bitwise_exact() {
    let net = small_net();
    let path = tmp("round_trip.safetensors");
    io::save(&net, &path).unwrap();
    let back = io::load(&path, &Device::flex()).unwrap();
    assert_eq!(back.config(), net.config());
    for size in [9, 13] {
        let (s, g) = inputs(size);
        let a = net.forward(s.clone(), g.clone(), 2, size);
        let b = back.forward(s, g, 2, size);
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a.policy), bits(&b.policy));
        assert_eq!(bits(&a.pass), bits(&b.pass));
        assert_eq!(bits(&a.value), bits(&b.value));
        assert_eq!(bits(&a.misc), bits(&b.misc));
        assert_eq!(bits(&a.ownership), bits(&b.ownership));
    }
    // Every weight name and value survives.
    let (cfg, w) = io::read(&path).unwrap();
    assert_eq!(&cfg, net.config());
    let orig = io::weights_of(&net).unwrap();
    assert_eq!(w.tensors.len(), orig.tensors.len());
    for (k, v) in &orig.tensors {
        assert_eq!(w.tensors.get(k), Some(v), "{k}");
    }
}

#[test]
fn missing_file_is_an_io_error() {
    let err = io::load(&tmp("no-such-file.safetensors"), &Device::flex()).unwrap_err();
    assert!(matches!(err, NetError::Io { .. }), "{err}");
}

#[test]
fn truncated_file_is_an_error() {
    let net = small_net();
    let path = tmp("full.safetensors");
    io::save(&net, &path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    for keep in [0, 4, 8, 100, bytes.len() / 2, bytes.len() - 1] {
        let cut = tmp("cut.safetensors");
        std::fs::write(&cut, &bytes[..keep]).unwrap();
        let err = io::load(&cut, &Device::flex()).unwrap_err();
        assert!(matches!(err, NetError::Safetensors { .. }), "{keep}: {err}");
        assert!(err.to_string().contains("truncated"), "{keep}: {err}");
    }
}

/// Rewrites the file at `path` with `edit` applied to its weights.
fn edit_weights(name: &str, edit: impl FnOnce(&mut tengen::net::katago::WeightMap)) -> PathBuf {
    let net = small_net();
    let mut w = io::weights_of(&net).unwrap();
    edit(&mut w);
    let path = tmp(name);
    io::save_weights(net.config(), &w, &path).unwrap();
    path
}

#[test]
fn wrong_shape_is_an_error() {
    let path = edit_weights("shape.safetensors", |w| {
        w.put(
            "blocks.0.conv1.weight",
            vec![16, 16, 1, 9],
            vec![0.1; 16 * 16 * 9],
        );
    });
    let err = io::load(&path, &Device::flex()).unwrap_err();
    match err {
        NetError::Shape {
            name,
            expected,
            found,
        } => {
            assert_eq!(name, "blocks.0.conv1.weight");
            assert_eq!(expected, vec![16, 16, 3, 3]);
            assert_eq!(found, vec![16, 16, 1, 9]);
        }
        other => panic!("expected a shape error, got {other}"),
    }
}

#[test]
fn missing_and_extra_tensors_are_errors() {
    let path = edit_weights("missing.safetensors", |w| {
        w.tensors.remove("policy.conv_out.weight");
    });
    let err = io::load(&path, &Device::flex()).unwrap_err();
    assert!(
        matches!(&err, NetError::Missing(n) if n == "policy.conv_out.weight"),
        "{err}"
    );
    let path = edit_weights("extra.safetensors", |w| {
        w.put("surprise", vec![2], vec![1.0, 2.0]);
    });
    let err = io::load(&path, &Device::flex()).unwrap_err();
    assert!(err.to_string().contains("surprise"), "{err}");
}

#[test]
fn bad_metadata_is_an_error() {
    let net = small_net();
    let path = tmp("meta.safetensors");
    io::save(&net, &path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    // Corrupt the config JSON inside the header without changing lengths.
    let text = String::from_utf8_lossy(&bytes[..200.min(bytes.len())]).to_string();
    assert!(text.contains("tengen"), "header should hold our metadata");
    let mut bad = bytes.clone();
    let pos = bytes
        .windows(6)
        .position(|w| w == b"\\\"name")
        .expect("config JSON in the header");
    bad[pos + 2] = b'X';
    let path2 = tmp("meta_bad.safetensors");
    std::fs::write(&path2, &bad).unwrap();
    let err = io::load(&path2, &Device::flex()).unwrap_err();
    assert!(err.to_string().contains("tengen.config"), "{err}");
    // A safetensors file without our metadata.
    let plain = safetensors_without_metadata();
    let path3 = tmp("plain.safetensors");
    std::fs::write(&path3, plain).unwrap();
    let err = io::load(&path3, &Device::flex()).unwrap_err();
    assert!(err.to_string().contains("not a tengen net"), "{err}");
}

/// A minimal valid safetensors file with one tensor and no metadata.
fn safetensors_without_metadata() -> Vec<u8> {
    let header = br#"{"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#;
    let mut v = (header.len() as u64).to_le_bytes().to_vec();
    v.extend_from_slice(header);
    v.extend_from_slice(&1.0f32.to_le_bytes());
    v
}

/// Files written before a config field existed still load: the shipped
/// nets' headers have no `shortterm_error_trained` (added with the
/// uncertainty-weighted search), which then reads as unknown, so the
/// evaluator treats their error outputs as untrained.
#[test]
fn files_from_before_a_new_config_field_load() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in ["tengen-9x9-v6.safetensors", "tengen-19x19-v2.safetensors"] {
        let path = root.join("models").join(name);
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()[..4096]).to_string();
        assert!(
            !text.contains("shortterm_error_trained"),
            "{name} was rewritten"
        );
        let net = io::load(&path, &Device::flex()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(net.config().post.shortterm_error_trained, None, "{name}");
    }
    // A file saved now keeps the field.
    let mut cfg = NetConfig::small(3, 16);
    cfg.post.shortterm_error_trained = Some(true);
    let net = Net::load(&cfg, &mut RandomWeights::new(7), &Device::flex()).unwrap();
    let path = tmp("field.safetensors");
    io::save(&net, &path).unwrap();
    let back = io::load(&path, &Device::flex()).unwrap();
    assert_eq!(back.config().post.shortterm_error_trained, Some(true));
}
