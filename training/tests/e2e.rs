//! A tiny end-to-end run: self-play (tiny net, 5×5, few visits) →
//! shards and SGF → a few training steps with a checkpoint → export →
//! the exported net plays a gate game against the start net.

mod common;

use std::sync::Arc;

use burn::tensor::Device;
use indicatif::ProgressBar;
use tengen::search::{Limits, SearchConfig};
use tengen_train::arena::{series, SeriesConfig, Tengen};
use tengen_train::looping::evaluator;
use tengen_train::model::TrainNet;
use tengen_train::shard::{self, HAS_POLICY};
use tengen_train::train::{self, Init, TrainConfig};

#[test]
fn tiny_selfplay_train_gate() {
    let root = common::tmp("e2e");
    let data = root.join("data");
    let s = common::quick_selfplay(&data, 4, 7);
    assert_eq!(s.games, 4);
    assert_eq!(s.shards.len(), 2);
    assert!(s.samples > 0 && s.policy_samples > 0 && s.policy_samples < s.samples);
    let samples: usize = s.shards.iter().map(|p| shard::read(p).unwrap().len()).sum();
    assert_eq!(samples, s.samples);
    let first = &shard::read(&s.shards[0]).unwrap()[0];
    assert_eq!(first.size, 5);
    if first.flags & HAS_POLICY != 0 {
        assert!((first.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    }
    let sgf = std::fs::read_to_string(data.join("sgf").join("shard-00000000.sgf")).unwrap();
    assert!(sgf.contains("SZ[5]") && sgf.contains("RE["));

    let out = root.join("train");
    let cfg = TrainConfig {
        steps: 4,
        batch: 8,
        checkpoint_every: 2,
        val_batches: 2,
        ..TrainConfig::default()
    };
    let sum = train::run(
        &cfg,
        &data,
        None,
        &out,
        &Init::Fresh(common::tiny()),
        &Device::flex(),
        &ProgressBar::hidden(),
    )
    .unwrap();
    assert_eq!(sum.step, 4);
    assert!(sum.train_loss.unwrap().total.is_finite());
    assert!(out.join("LATEST").exists());
    let model = out.join("model.safetensors");
    let fast = tengen::net::device::backend(tengen::net::device::DeviceChoice::Cpu).unwrap();
    let eval = evaluator(&model, &fast, 8).unwrap();
    // metrics.csv: a header and one row per checkpoint (steps 2 and 4).
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    assert_eq!(metrics.lines().count(), 3, "{metrics}");
    assert!(metrics.lines().nth(2).unwrap().starts_with("4,"));
    let rows = tengen_train::metrics::read_training(&out.join("metrics.csv")).unwrap();
    assert_eq!(rows.iter().map(|r| r.0).collect::<Vec<_>>(), vec![2, 4]);
    assert!(rows.iter().all(|r| r.1[0].is_finite()));
    let png = root.join("metrics.png");
    tengen_train::metrics::plot_training(&out.join("metrics.csv"), &png).unwrap();
    assert!(std::fs::metadata(&png).unwrap().len() > 1000);
    // The last checkpoint, read back and exported, is the exported model.
    let latest = std::fs::read_to_string(out.join("LATEST")).unwrap();
    let ckpt = out.join(latest.trim()).join("net.safetensors");
    let again = root.join("again.safetensors");
    TrainNet::read(&ckpt, &Device::flex())
        .unwrap()
        .export(&again)
        .unwrap();
    let input = [tengen::eval::EvalInput::new(
        tengen::rules::Position::new(5, tengen::rules::Ruleset::default()).unwrap(),
    )];
    let a = evaluator(&again, &fast, 8).unwrap().evaluate(&input);
    assert_eq!(a, eval.evaluate(&input));

    let mut a = Tengen::new(
        "candidate",
        eval,
        SearchConfig::default(),
        Limits::visits(4),
    );
    let mut b = Tengen::new(
        "base",
        common::tiny_eval(7),
        SearchConfig::default(),
        Limits::visits(4),
    );
    let cfg = SeriesConfig {
        games: 2,
        size: 5,
        komi: vec![2.5],
        max_moves: 40,
        sprt: None,
        sgf_dir: Some(root.join("gate")),
        seed: 1,
    };
    let t = series(&cfg, &mut a, &mut b, |_, _, _| {}).unwrap();
    assert_eq!(t.games(), 2);
    assert!(root.join("gate").join("game-0001.sgf").exists());
    let _ = Arc::new(());
}
