//! Edits of a trained net's weights, each a documented, tested map from
//! one model file to another.
//!
//! - [`blend`]: weight interpolation between two nets of one architecture
//!   (a "model soup", Wortsman et al. 2022), `(1 − t)·A + t·B`, tensor by
//!   tensor.
//! - [`fold_situational_ko`]: makes a net read situational superko (AGA,
//!   New Zealand) exactly as positional superko (Chinese, Tromp-Taylor).
//!
//! A blend is used on a fine-tune and the net it started from, where both sit in one
//! basin of the loss: the blend keeps part of what the fine-tune learned
//! (say, a komi response on small boards) and part of the start's play.
//! Batch norms are stored folded (`scale`, `bias`), so the blend of two
//! folded norms is again an affine map per channel; it is not the fold of
//! blended statistics, which is why blends are measured, not assumed.

use std::path::Path;

use tengen::features::v7;
use tengen::net::io;
use tengen::net::layers::WeightMap;

/// `(1 − t)·a + t·b` for every tensor. Both maps must hold the same names
/// with the same shapes; `t` must be finite (it may lie outside 0..1,
/// which extrapolates).
pub fn blend(a: &WeightMap, b: &WeightMap, t: f32) -> Result<WeightMap, String> {
    if !t.is_finite() {
        return Err(format!("the blend weight {t} is not a number"));
    }
    let mut out = WeightMap::default();
    for (name, (shape, x)) in &a.tensors {
        let (shape_b, y) = b
            .tensors
            .get(name)
            .ok_or_else(|| format!("tensor {name} is in the first net only"))?;
        if shape != shape_b {
            return Err(format!(
                "tensor {name} has shape {shape:?} in the first net, {shape_b:?} in the second"
            ));
        }
        let data = x
            .iter()
            .zip(y)
            .map(|(&p, &q)| (1.0 - t) * p + t * q)
            .collect();
        out.put(name, shape.clone(), data);
    }
    if let Some(name) = b.tensors.keys().find(|k| !a.tensors.contains_key(*k)) {
        return Err(format!("tensor {name} is in the second net only"));
    }
    Ok(out)
}

/// Reads two model files, blends them at `t` and writes the result to
/// `out` with the first file's architecture. The architectures must be
/// the same.
pub fn blend_files(a: &Path, b: &Path, t: f32, out: &Path) -> Result<(), String> {
    let (config_a, wa) = io::read(a).map_err(|e| e.to_string())?;
    let (config_b, wb) = io::read(b).map_err(|e| e.to_string())?;
    if config_a != config_b {
        return Err(format!(
            "{} and {} have different architectures",
            a.display(),
            b.display()
        ));
    }
    let blended = blend(&wa, &wb, t)?;
    io::save_weights(&config_a, &blended, out).map_err(|e| e.to_string())
}

/// The global inputs of the V7 encoding that carry the ko rule
/// ([`v7::set_ko_and_suicide`]): simple ko is (0, 0), positional superko
/// (1, ½), situational superko (1, −½).
const KO_INPUTS: (usize, usize) = (6, 7);

/// Folds the situational-ko input into the positional one: afterwards the
/// net computes exactly under situational superko what it computes under
/// positional superko (and what it computed before under positional or
/// simple ko, which stay as they were).
///
/// Why: tengen's nets see situational superko only through the rules mix
/// ([`crate::train::data::RulesMix`]), which shows a game's positions
/// under a drawn ko rule with the *same* targets. No target in the data
/// depends on positional against situational, so whatever a net learned
/// from that distinction is noise, and it showed as noise:
/// `tengen-9x9-v8`'s empty-board lead jumped by up to 3.6 points between
/// neighbouring komis under AGA rules alone (issue 15;
/// `training/runs/9x9-territory-mix-v1/README.md`). The two rules differ
/// only in which superko cycles they ban, and the ko-ban input plane still
/// shows those bans, rule by rule.
///
/// The ko inputs reach the net only through the stem's global matmul
/// `stem_global.weight` (`[GLOBAL, C]`, one row per input), as a bias
/// `W6·g6 + W7·g7` per channel. Setting `W6 ← W6 + ½·W7` and `W7 ← 0`
/// keeps positional (1, ½) and simple (0, 0) as they were and gives
/// situational (1, −½) the positional bias.
pub fn fold_situational_ko(w: &mut WeightMap) -> Result<(), String> {
    let (shape, data) = w
        .tensors
        .get_mut("stem_global.weight")
        .ok_or("no stem_global.weight: not a net with V7 global inputs")?;
    let [rows, c] = shape[..] else {
        return Err(format!(
            "stem_global.weight has shape {shape:?}, not [inputs, channels]"
        ));
    };
    if rows != v7::GLOBAL {
        return Err(format!(
            "stem_global.weight has {rows} inputs, the V7 encoding {}",
            v7::GLOBAL
        ));
    }
    let (g6, g7) = KO_INPUTS;
    for ch in 0..c {
        data[g6 * c + ch] += 0.5 * data[g7 * c + ch];
        data[g7 * c + ch] = 0.0;
    }
    Ok(())
}

/// [`fold_situational_ko`] from one model file to another.
pub fn fold_situational_ko_file(input: &Path, out: &Path) -> Result<(), String> {
    let (config, mut w) = io::read(input).map_err(|e| e.to_string())?;
    fold_situational_ko(&mut w).map_err(|e| format!("{}: {e}", input.display()))?;
    io::save_weights(&config, &w, out).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(entries: &[(&str, Vec<usize>, Vec<f32>)]) -> WeightMap {
        let mut m = WeightMap::default();
        for (n, s, d) in entries {
            m.put(n, s.clone(), d.clone());
        }
        m
    }

    #[test]
    fn blends_every_tensor_linearly() {
        let a = map(&[("x", vec![2], vec![1.0, -2.0]), ("y", vec![1], vec![0.0])]);
        let b = map(&[("x", vec![2], vec![3.0, 2.0]), ("y", vec![1], vec![4.0])]);
        let m = blend(&a, &b, 0.25).unwrap();
        assert_eq!(m.tensors["x"].1, vec![1.5, -1.0]);
        assert_eq!(m.tensors["y"].1, vec![1.0]);
        assert_eq!(blend(&a, &b, 0.0).unwrap().tensors["x"].1, a.tensors["x"].1);
        assert_eq!(blend(&a, &b, 1.0).unwrap().tensors["y"].1, b.tensors["y"].1);
    }

    #[test]
    fn refuses_nets_that_do_not_match() {
        let a = map(&[("x", vec![2], vec![1.0, 2.0])]);
        let other_shape = map(&[("x", vec![1, 2], vec![1.0, 2.0])]);
        let other_name = map(&[("z", vec![2], vec![1.0, 2.0])]);
        let extra = map(&[("x", vec![2], vec![1.0, 2.0]), ("z", vec![1], vec![0.0])]);
        assert!(blend(&a, &other_shape, 0.5).unwrap_err().contains("shape"));
        assert!(blend(&a, &other_name, 0.5)
            .unwrap_err()
            .contains("first net only"));
        assert!(blend(&a, &extra, 0.5)
            .unwrap_err()
            .contains("second net only"));
        assert!(blend(&a, &a, f32::NAN).is_err());
    }

    #[test]
    fn blends_shipped_files_and_the_result_loads() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let v4 = root.join("models/tengen-19x19-v4.safetensors");
        let v3 = root.join("models/tengen-19x19-v3.safetensors");
        let nine = root.join("models/tengen-9x9-v8.safetensors");
        let dir = std::env::temp_dir().join(format!("tengen-edit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("half.safetensors");
        blend_files(&v3, &v4, 0.5, &out).unwrap();
        let (_, w) = io::read(&out).unwrap();
        let (_, w3) = io::read(&v3).unwrap();
        let (_, w4) = io::read(&v4).unwrap();
        let (shape, d) = &w.tensors["stem.weight"];
        assert_eq!(shape, &w4.tensors["stem.weight"].0);
        for ((m, p), q) in d
            .iter()
            .zip(&w3.tensors["stem.weight"].1)
            .zip(&w4.tensors["stem.weight"].1)
        {
            assert!((m - 0.5 * (p + q)).abs() < 1e-6);
        }
        // Same architecture (b6c64), different weights: blends too.
        assert!(blend_files(&nine, &v4, 0.5, &dir.join("x.safetensors")).is_ok());
        assert!(blend_files(
            &v4,
            &root.join("README.md"),
            0.5,
            &dir.join("y.safetensors")
        )
        .is_err());
        std::fs::remove_dir_all(&dir).ok();
    }

    /// The per-channel bias the stem's global matmul gives the ko inputs
    /// of `ko`.
    fn ko_bias(w: &WeightMap, ko: tengen::rules::KoRule) -> Vec<f32> {
        let mut g = [0.0f32; v7::GLOBAL];
        v7::set_ko_and_suicide(&mut g, ko, false);
        let (shape, data) = &w.tensors["stem_global.weight"];
        let c = shape[1];
        (0..c)
            .map(|ch| (0..v7::GLOBAL).map(|i| g[i] * data[i * c + ch]).sum())
            .collect()
    }

    #[test]
    fn the_fold_shows_situational_ko_as_positional_and_keeps_the_rest() {
        use tengen::rules::KoRule::{Positional, Simple, Situational};
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let (_, before) = io::read(&root.join("models/tengen-9x9-v8.safetensors")).unwrap();
        let mut after = before.clone();
        fold_situational_ko(&mut after).unwrap();
        let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
        // The net did tell the two apart before.
        assert!(!close(
            &ko_bias(&before, Situational),
            &ko_bias(&before, Positional)
        ));
        assert!(close(
            &ko_bias(&after, Situational),
            &ko_bias(&before, Positional)
        ));
        assert!(close(
            &ko_bias(&after, Positional),
            &ko_bias(&before, Positional)
        ));
        assert!(close(&ko_bias(&after, Simple), &ko_bias(&before, Simple)));
        // Every other weight is untouched.
        for (name, (shape, data)) in &before.tensors {
            if name != "stem_global.weight" {
                assert_eq!(
                    &after.tensors[name],
                    &(shape.clone(), data.clone()),
                    "{name}"
                );
            }
        }
        // Folding twice changes nothing more.
        let mut twice = after.clone();
        fold_situational_ko(&mut twice).unwrap();
        assert_eq!(
            twice.tensors["stem_global.weight"],
            after.tensors["stem_global.weight"]
        );
    }

    #[test]
    fn the_shipped_9x9_net_is_v8_folded() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let (_, mut v8) = io::read(&root.join("models/tengen-9x9-v8.safetensors")).unwrap();
        fold_situational_ko(&mut v8).unwrap();
        let (_, v9) = io::read(&root.join("models/tengen-9x9-v9.safetensors")).unwrap();
        assert_eq!(v8.tensors, v9.tensors);
    }

    #[test]
    fn the_fold_refuses_a_net_without_v7_globals() {
        let mut none = map(&[("x", vec![2], vec![1.0, 2.0])]);
        assert!(fold_situational_ko(&mut none)
            .unwrap_err()
            .contains("stem_global"));
        let mut wrong = map(&[("stem_global.weight", vec![18, 2], vec![0.0; 36])]);
        assert!(fold_situational_ko(&mut wrong)
            .unwrap_err()
            .contains("18 inputs"));
        let mut flat = map(&[("stem_global.weight", vec![38], vec![0.0; 38])]);
        assert!(fold_situational_ko(&mut flat)
            .unwrap_err()
            .contains("shape"));
    }
}
