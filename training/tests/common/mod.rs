//! Shared helpers for the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;

use burn::tensor::Device;
use indicatif::ProgressBar;
use tengen::eval::Evaluator;
use tengen::net::NetEvaluator;
use tengen_train::model::TrainNet;
use tengen_train::selfplay::{self, SelfplayConfig};

/// A fresh temporary folder for one test.
pub fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tengen-train-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The tiny net: 1 block × 8 channels.
pub fn tiny() -> tengen::net::NetConfig {
    tengen::net::NetConfig::small(1, 8)
}

pub fn tiny_eval(seed: u64) -> Arc<dyn Evaluator> {
    let net = TrainNet::random(&tiny(), seed, &Device::flex()).unwrap();
    Arc::new(NetEvaluator::new(net.net, 16))
}

/// A few quick self-play games on 5×5 into `out`.
pub fn quick_selfplay(out: &std::path::Path, games: usize, seed: u64) -> selfplay::SelfplayStats {
    let cfg = SelfplayConfig {
        games,
        parallel: 2,
        visits_full: 12,
        visits_fast: 3,
        full_prob: 0.5,
        min_size: 5,
        max_size: 5,
        min_komi: 0.5,
        max_komi: 3.5,
        games_per_shard: 2,
        batch_size: 4,
        max_moves_factor: 1.5,
        seed,
        ..SelfplayConfig::default()
    };
    selfplay::run(&cfg, tiny_eval(seed), out, 0, &ProgressBar::hidden()).unwrap()
}

/// Asserts that between two exports of a net only tensors of the value
/// head (`value.*`) changed, and that at least `min_moved` of them did.
pub fn assert_only_value_head_moved(
    before: &std::path::Path,
    after: &std::path::Path,
    min_moved: usize,
) {
    assert_only_these_moved(before, after, &["value."], min_moved);
}

/// Every tensor of `after` whose name starts with none of `learning` is
/// bit-identical to `before`'s, and at least `min_moved` of the others
/// changed.
pub fn assert_only_these_moved(
    before: &std::path::Path,
    after: &std::path::Path,
    learning: &[&str],
    min_moved: usize,
) {
    let read = |p: &std::path::Path| tengen::net::io::read(p).unwrap().1.tensors;
    let (before, after) = (read(before), read(after));
    assert_eq!(before.len(), after.len());
    let mut moved = 0;
    for (name, w) in &before {
        let a = &after[name];
        if learning.iter().any(|p| name.starts_with(p)) {
            moved += usize::from(a != w);
        } else {
            assert!(a == w, "{name} changed though frozen");
        }
    }
    assert!(
        moved >= min_moved,
        "only {moved} tensors of {learning:?} learned"
    );
}
