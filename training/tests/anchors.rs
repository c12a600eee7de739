//! Anchor series against a net are real samples: two nets at fixed
//! visits would replay one game per colour, so the opening plies are
//! drawn at temperature and the games of one colour differ.

mod common;

use tengen_train::anchors::{self, Anchor, AnchorConfig, Opponent, Progress};
use tengen_train::model::TrainNet;

#[test]
fn games_against_a_net_anchor_differ() {
    let root = common::tmp("anchors");
    let dev = burn::tensor::Device::flex();
    let (me, other) = (root.join("me.safetensors"), root.join("other.safetensors"));
    TrainNet::random(&common::tiny(), 1, &dev)
        .unwrap()
        .export(&me)
        .unwrap();
    TrainNet::random(&common::tiny(), 2, &dev)
        .unwrap()
        .export(&other)
        .unwrap();
    let cfg = AnchorConfig {
        anchors: vec![Anchor {
            name: "fixed".into(),
            opponent: Opponent::Net(other),
        }],
        games: 8,
        visits: 8,
        komi: vec![7.0],
        size: 5,
        parallel: 1,
        gtp_timeout: std::time::Duration::from_secs(10),
    };
    let backend = tengen::net::device::backend(tengen::net::device::DeviceChoice::Cpu).unwrap();
    let at = Progress {
        generation: 3,
        selfplay_hours: 0.5,
        games: 100,
    };
    let rows = anchors::measure(&cfg, &me, &backend, at, &root, |_, _| {}).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].tally.games(), 8);
    // Games 0, 2, 4, 6: the measured net is Black at komi 7 in each.
    let dir = anchors::games_dir(&root, 3, "fixed");
    let moves = |i: usize| {
        // The move properties only (comments carry thinking times).
        let sgf = std::fs::read_to_string(dir.join(format!("game-{i:04}.sgf"))).unwrap();
        let mut out = String::new();
        for (k, _) in sgf.match_indices(";B[").chain(sgf.match_indices(";W[")) {
            out.push_str(&sgf[k..(k + 6).min(sgf.len())]);
        }
        assert!(!out.is_empty());
        out
    };
    let mut black: Vec<String> = [0, 2, 4, 6].iter().map(|&i| moves(i)).collect();
    black.sort();
    black.dedup();
    assert!(
        black.len() > 1,
        "every game with the same colours was the same game"
    );
    // Rows already there for this generation are not played again.
    let again = anchors::measure(&cfg, &me, &backend, at, &root, |_, _| {}).unwrap();
    assert!(again.is_empty());
    assert_eq!(anchors::read(&root.join("anchors.csv")).len(), 1);
}
