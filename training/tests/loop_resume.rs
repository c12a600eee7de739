//! The loop runs generation by generation and picks up where its state
//! file says, including in the middle of a stage.

mod common;

use tengen_train::looping::{self, LoopConfig, Stage};
use tengen_train::selfplay::SelfplayConfig;
use tengen_train::train::TrainConfig;

fn config() -> LoopConfig {
    LoopConfig {
        selfplay: SelfplayConfig {
            parallel: 2,
            visits_full: 8,
            visits_fast: 2,
            min_size: 5,
            max_size: 5,
            games_per_shard: 2,
            batch_size: 4,
            max_moves_factor: 1.5,
            ..SelfplayConfig::default()
        },
        train: TrainConfig {
            batch: 8,
            checkpoint_every: 2,
            val_batches: 1,
            ..TrainConfig::default()
        },
        steps_per_gen: 2,
        games_per_gen: 4,
        gate_games: 2,
        gate_visits: 4,
        gate_komi: vec![5.5, 7.0],
        generations: 1,
        until: None,
        arch: common::tiny(),
        init: None,
        max_batch: 8,
        backend: tengen::net::device::backend(tengen::net::device::DeviceChoice::Cpu).unwrap(),
        anchors: None,
    }
}

#[test]
fn loop_resumes_across_calls_and_stages() {
    let root = common::tmp("loop");
    let s = looping::run(&config(), &root).unwrap();
    assert_eq!((s.generation, s.stage), (1, Stage::Selfplay));
    // Pretend a kill after self-play of generation 1: the state says
    // "train"; the next call trains, gates and finishes the generation.
    let path = root.join("loop.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("\"Selfplay\"", "\"Train\"")).unwrap();
    let s = looping::run(&config(), &root).unwrap();
    assert_eq!((s.generation, s.stage), (2, Stage::Selfplay));
    let csv = std::fs::read_to_string(root.join("metrics.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(root.join("metrics.png").exists());
    assert!(looping::best_model(&root).exists());
    assert!(root.join("train").join("LATEST").exists());
}
