//! Supervised bootstrap: SGF records become shards whose policy target is
//! the move played and whose value and score come from `RE`; games with
//! setup stones, broken files and illegal games are skipped and counted.

mod common;

use tengen::eval::policy_index;
use tengen::rules::{Move, Point};
use tengen_train::shard::{self, HAS_OWNERSHIP, HAS_POLICY, HAS_SCORE, HAS_VALUE};
use tengen_train::sl;

#[test]
fn sgf_records_become_policy_value_and_score_targets() {
    let root = common::tmp("sl");
    let games = root.join("games");
    std::fs::create_dir_all(games.join("sub")).unwrap();
    // Black wins by 3.5: three moves and a pass.
    std::fs::write(
        games.join("a.sgf"),
        "(;GM[1]FF[4]SZ[9]KM[7]RE[B+3.5];B[ee];W[cc];B[gg];W[])",
    )
    .unwrap();
    // White wins by resignation: value target, no score target.
    std::fs::write(
        games.join("sub").join("b.sgf"),
        "(;GM[1]FF[4]SZ[9]KM[7]RE[W+R];B[dd];W[ff])",
    )
    .unwrap();
    // Setup stones: skipped. Not SGF: skipped. Occupied point: skipped.
    std::fs::write(games.join("c.sgf"), "(;GM[1]SZ[9]AB[aa];W[bb])").unwrap();
    std::fs::write(games.join("d.sgf"), "this is not a game record").unwrap();
    std::fs::write(games.join("e.sgf"), "(;GM[1]SZ[9];B[ee];W[ee])").unwrap();

    let out = root.join("shards");
    let stats = sl::convert(&games, &out, &root.join("val"), 0, 1000, &[]).unwrap();
    assert_eq!(stats.files, 5);
    assert_eq!(stats.games, 2);
    assert_eq!(stats.skipped, 3);
    assert_eq!(stats.samples, 6);

    let samples: Vec<_> = stats
        .shards
        .iter()
        .flat_map(|p| shard::read(p).unwrap())
        .collect();
    assert_eq!(samples.len(), 6);
    // Game a (files are read in sorted order): E5 by Black, who won.
    let first = &samples[0];
    assert_eq!(first.size, 9);
    assert_eq!(
        first.flags & (HAS_POLICY | HAS_VALUE | HAS_SCORE),
        HAS_POLICY | HAS_VALUE | HAS_SCORE
    );
    let e5 = policy_index(Move::Place(Point::new(4, 4)), 9);
    assert_eq!(first.policy[e5], 1.0);
    assert_eq!(first.policy.iter().sum::<f32>(), 1.0);
    assert_eq!(first.outcome, 1);
    assert_eq!(first.score, 3.5);
    // White's reply in the same game: a loss for the mover, score negated.
    assert_eq!(samples[1].outcome, -1);
    assert_eq!(samples[1].score, -3.5);
    // The final pass is a policy target too.
    assert_eq!(samples[3].policy[policy_index(Move::Pass, 9)], 1.0);
    // Game b: White won by resignation, no margin.
    let b = &samples[4];
    assert_eq!(b.outcome, -1);
    assert_eq!(b.flags & HAS_SCORE, 0);
    assert_eq!(samples[5].outcome, 1);
}

#[test]
fn every_nth_game_is_held_out_for_validation() {
    let root = common::tmp("sl-val");
    let games = root.join("games");
    std::fs::create_dir_all(&games).unwrap();
    // Four games of 1, 2, 3 and 4 moves.
    let moves = ["B[aa]", "W[bb]", "B[cc]", "W[dd]"];
    for n in 1..=4 {
        let body: String = moves[..n].iter().map(|m| format!(";{m}")).collect();
        std::fs::write(
            games.join(format!("g{n}.sgf")),
            format!("(;GM[1]SZ[9]KM[7]RE[B+1]{body})"),
        )
        .unwrap();
    }
    let (out, val) = (root.join("train"), root.join("val"));
    let stats = sl::convert(&games, &out, &val, 2, 1000, &[]).unwrap();
    assert_eq!((stats.games, stats.val_games), (4, 2));
    let count = |dir: &std::path::Path| -> usize {
        shard::list(dir)
            .unwrap()
            .iter()
            .map(|p| shard::read(p).unwrap().len())
            .sum()
    };
    // Games 1 and 3 (file order) are held out; games 2 and 4 train.
    assert_eq!(count(&val), 1 + 3);
    assert_eq!(count(&out), 2 + 4);
}

#[test]
fn learning_rate_falls_linearly_to_its_end_value() {
    let cfg = tengen_train::train::TrainConfig {
        steps: 100,
        lr: 1e-3,
        lr_end: Some(1e-4),
        ..Default::default()
    };
    assert!((cfg.lr_at(0) - 1e-3).abs() < 1e-9);
    assert!((cfg.lr_at(50) - 5.5e-4).abs() < 1e-8);
    assert!((cfg.lr_at(100) - 1e-4).abs() < 1e-9);
    assert!((cfg.lr_at(200) - 1e-4).abs() < 1e-9);
}

#[test]
fn random_opening_moves_get_no_policy_target() {
    let s = convert_games(
        "sl-random",
        &[(
            "r.sgf",
            "(;GM[1]SZ[9]KM[7]RE[W+2];B[cc]C[random opening move];W[gg]C[random opening move];B[ee];W[ce])",
        )],
    );
    assert_eq!(s.len(), 4);
    let has_policy: Vec<bool> = s.iter().map(|x| x.flags & HAS_POLICY != 0).collect();
    assert_eq!(has_policy, vec![false, false, true, true]);
    assert!(s.iter().all(|x| x.flags & HAS_VALUE != 0));
    assert!(s[2].policy[policy_index(Move::Place(Point::new(4, 4)), 9)] == 1.0);
    // The opponent's reply is a target only when it was not random.
    assert_eq!(s[0].opp_move, tengen_train::shard::NO_MOVE);
    assert_eq!(
        s[1].opp_move as usize,
        policy_index(Move::Place(Point::new(4, 4)), 9)
    );
}

#[test]
fn moves_of_a_named_player_get_no_policy_target() {
    let (stats, s) = convert_games_skipping(
        "sl-no-policy-for",
        &[
            (
                "m.sgf",
                "(;GM[1]SZ[9]KM[7]PB[tengen]PW[GNU Go]RE[W+2];B[cc];W[gg];B[ee];W[ce])",
            ),
            (
                "n.sgf",
                "(;GM[1]SZ[9]KM[7]PB[GNU Go]PW[ Tengen ]RE[B+2];B[cc];W[gg])",
            ),
        ],
        &["TENGEN".to_string()],
    );
    assert_eq!(stats.games, 2);
    let has_policy: Vec<bool> = s.iter().map(|x| x.flags & HAS_POLICY != 0).collect();
    assert_eq!(has_policy, vec![false, true, false, true, true, false]);
    // Every position still teaches the result.
    assert!(s.iter().all(|x| x.flags & HAS_VALUE != 0));
    assert_eq!(
        s[1].policy[policy_index(Move::Place(Point::new(6, 6)), 9)],
        1.0
    );
    // A skipped player's reply is no opponent-move target either.
    assert_eq!(s[1].opp_move, tengen_train::shard::NO_MOVE);
    assert_eq!(
        s[0].opp_move as usize,
        policy_index(Move::Place(Point::new(6, 6)), 9)
    );
}

#[test]
fn marked_final_area_becomes_the_ownership_target() {
    // 3x3 board. Black owns the left column (stone at aa, empty ab, and
    // White's dead stone at ac), White the right column; the middle column
    // is unmarked: its Black stone at bb counts for Black, the rest is
    // dame. Unmarked games get no ownership target.
    let s = convert_games(
        "sl-area",
        &[
            (
                "a.sgf",
                "(;GM[1]SZ[3]KM[0]RE[B+1];B[aa];W[ac];B[bb];W[cc];B[];W[]TB[aa][ab][ac]TW[ca:cc])",
            ),
            ("b.sgf", "(;GM[1]SZ[3]KM[0]RE[B+1];B[aa];W[cc])"),
        ],
    );
    assert_eq!(s.len(), 8);
    // Dense order is row by row: aa ba ca / ab bb cb / ac bc cc.
    let black_view = vec![1, 0, -1, 1, 1, -1, 1, 0, -1];
    let white_view: Vec<i8> = black_view.iter().map(|v| -v).collect();
    for (i, x) in s[..6].iter().enumerate() {
        assert_ne!(x.flags & HAS_OWNERSHIP, 0, "sample {i}");
        let want = if i % 2 == 0 { &black_view } else { &white_view };
        assert_eq!(&x.ownership, want, "sample {i}");
    }
    assert!(s[6..].iter().all(|x| x.flags & HAS_OWNERSHIP == 0));
}

/// Writes `games` (file name, SGF text) to a fresh folder, converts them
/// with no validation split and returns every sample, in file order.
fn convert_games(tag: &str, games: &[(&str, &str)]) -> Vec<shard::Sample> {
    convert_games_skipping(tag, games, &[]).1
}

/// As [`convert_games`], with the moves of the players `no_policy` names
/// given no policy target; also returns the conversion's counts.
fn convert_games_skipping(
    tag: &str,
    games: &[(&str, &str)],
    no_policy: &[String],
) -> (sl::SlStats, Vec<shard::Sample>) {
    let root = common::tmp(tag);
    let dir = root.join("games");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in games {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let stats = sl::convert(
        &dir,
        &root.join("out"),
        &root.join("val"),
        0,
        1000,
        no_policy,
    )
    .unwrap();
    let samples = stats
        .shards
        .iter()
        .flat_map(|p| shard::read(p).unwrap())
        .collect();
    (stats, samples)
}
