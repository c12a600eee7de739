//! The match referee: an opponent engine's illegal move loses the game;
//! a well-behaved engine finishes a game that is counted by area.

mod common;

use std::sync::Arc;
use std::time::Duration;

use tengen::eval::fake::UniformEvaluator;
use tengen::search::{Limits, SearchConfig};
use tengen_train::arena::{
    game_seed, play, series, series_parallel, GtpPlayer, SeriesConfig, Tengen,
};

/// A fake GTP engine (POSIX shell) that always answers `genmove` with
/// `MOVE`.
fn fake_engine(dir: &std::path::Path, mv: &str) -> String {
    scripted_engine(dir, mv, "fake", None)
}

/// Like [`fake_engine`], named `counter`, answering `final_score` with
/// `COUNT`.
fn fake_counting_engine(dir: &std::path::Path, mv: &str, count: &str) -> String {
    scripted_engine(dir, mv, "counter", Some(count))
}

/// A POSIX-shell GTP engine: `genmove` answers `mv`, `name` answers
/// `name`, `final_score` answers `count` when given; anything else `=`.
fn scripted_engine(dir: &std::path::Path, mv: &str, name: &str, count: Option<&str>) -> String {
    let script = dir.join(format!("{name}-{mv}-{}.sh", count.unwrap_or("none")));
    let score = count
        .map(|c| format!("final_score*) printf '= {c}\\n\\n';;\n"))
        .unwrap_or_default();
    std::fs::write(
        &script,
        format!(
            "while read cmd; do case \"$cmd\" in\n\
             genmove*) printf '= {mv}\\n\\n';;\n\
             {score}\
             name*) printf '= {name}\\n\\n';;\n\
             quit*) printf '=\\n\\n'; exit 0;;\n\
             *) printf '=\\n\\n';;\n\
             esac; done\n"
        ),
    )
    .unwrap();
    format!("sh {}", script.display())
}

#[test]
fn illegal_move_from_the_engine_forfeits() {
    let dir = common::tmp("referee");
    let mut tengen = Tengen::new(
        "tengen",
        Arc::new(UniformEvaluator),
        SearchConfig::default(),
        Limits::visits(8),
    );
    let mut fake = GtpPlayer::start(&fake_engine(&dir, "A1"), Duration::from_secs(10)).unwrap();
    // The engine plays A1 every time: by its second move at the latest
    // the point is taken.
    let r = play(&mut tengen, &mut fake, 5, 0.5, 50).unwrap();
    assert_eq!(r.black_score, 1.0, "{:?}", r.note);
    let note = r.note.unwrap();
    assert!(note.contains("illegal move A1"), "{note}");
    assert!(r.sgf.contains("RE[B+F]"));
}

#[test]
fn unreadable_move_and_passing_engine() {
    let dir = common::tmp("referee2");
    let mut tengen = Tengen::new(
        "tengen",
        Arc::new(UniformEvaluator),
        SearchConfig::default(),
        Limits::visits(8),
    );
    let mut fake = GtpPlayer::start(&fake_engine(&dir, "Z99"), Duration::from_secs(10)).unwrap();
    let r = play(&mut fake, &mut tengen, 5, 0.5, 50).unwrap();
    assert_eq!(r.black_score, 0.0);
    assert!(r.note.unwrap().contains("unreadable"));
    // An engine that always passes: the game ends by two passes or the
    // move cap and is counted.
    let mut passer = GtpPlayer::start(&fake_engine(&dir, "pass"), Duration::from_secs(10)).unwrap();
    let r = play(&mut tengen, &mut passer, 5, 0.5, 60).unwrap();
    assert!(r.note.is_none());
    assert!(r.sgf.contains("RE["));
}

fn tengen_player(label: &str, seed: u64) -> Tengen {
    let config = SearchConfig {
        temperature: 1.0,
        temperature_moves: 6,
        seed,
        ..Default::default()
    };
    Tengen::new(label, Arc::new(UniformEvaluator), config, Limits::visits(8))
}

fn series_config(dir: &std::path::Path, games: u32) -> SeriesConfig {
    SeriesConfig {
        games,
        size: 5,
        komi: vec![2.5],
        max_moves: 40,
        sprt: None,
        sgf_dir: Some(dir.to_path_buf()),
        seed: 11,
    }
}

/// An SGF with each move comment's time (`, 0.01 s]`) cut out.
fn without_times(sgf: &str) -> String {
    let mut out = String::new();
    let mut rest = sgf;
    while let Some(end) = rest.find(" s]") {
        let cut = rest[..end].rfind(", ").unwrap_or(end);
        out.push_str(&rest[..cut]);
        out.push(']');
        rest = &rest[end + 3..];
    }
    out.push_str(rest);
    out
}

#[test]
fn parallel_series_plays_the_same_games_as_one_thread() {
    let root = common::tmp("parallel-series");
    let (seq_dir, par_dir) = (root.join("seq"), root.join("par"));
    let (mut a, mut b) = (tengen_player("a", 1), tengen_player("b", 2));
    let seq = series(&series_config(&seq_dir, 4), &mut a, &mut b, |_, _, _| {}).unwrap();
    let pairs = vec![
        (tengen_player("a", 1), tengen_player("b", 2)),
        (tengen_player("a", 1), tengen_player("b", 2)),
    ];
    let mut seen = Vec::new();
    let (par, players) =
        series_parallel(&series_config(&par_dir, 4), pairs, |i, _, _| seen.push(i)).unwrap();
    assert_eq!(seq, par);
    assert_eq!(players.len(), 2);
    seen.sort();
    assert_eq!(seen, vec![0, 1, 2, 3]);
    let mut distinct = std::collections::HashSet::new();
    for i in 0..4 {
        let name = format!("game-{i:04}.sgf");
        let s = std::fs::read_to_string(seq_dir.join(&name)).unwrap();
        let p = std::fs::read_to_string(par_dir.join(&name)).unwrap();
        // The move comments give thinking times, which vary run to run.
        assert_eq!(
            without_times(&s),
            without_times(&p),
            "game {i} differs between one thread and two"
        );
        distinct.insert(s);
    }
    assert!(distinct.len() > 1, "per-game seeds should vary the games");
    let csv = std::fs::read_to_string(par_dir.join("results.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        5,
        "header and one row per game:\n{csv}"
    );
    let moves: u64 = players.iter().map(|(a, _)| a.stats.moves).sum();
    assert!(moves > 0);
}

#[test]
fn seedable_engine_gets_a_seed_per_game() {
    let dir = common::tmp("referee-seed");
    let log = dir.join("log.txt");
    let script = dir.join("seedable.sh");
    std::fs::write(
        &script,
        format!(
            "while read cmd; do echo \"$cmd\" >> {log}; case \"$cmd\" in\n\
             list_commands*) printf '= name\\nset_random_seed\\ngenmove\\n\\n';;\n\
             genmove*) printf '= pass\\n\\n';;\n\
             name*) printf '= seedable\\n\\n';;\n\
             quit*) printf '=\\n\\n'; exit 0;;\n\
             *) printf '=\\n\\n';;\n\
             esac; done\n",
            log = log.display()
        ),
    )
    .unwrap();
    let cmd = format!("sh {}", script.display());
    let mut engine = GtpPlayer::start(&cmd, Duration::from_secs(10)).unwrap();
    assert!(engine.seedable);
    let mut t = tengen_player("t", 3);
    let mut cfg = series_config(&dir.join("games"), 2);
    cfg.sgf_dir = None;
    series(&cfg, &mut t, &mut engine, |_, _, _| {}).unwrap();
    let sent = std::fs::read_to_string(&log).unwrap();
    for i in 0..2 {
        let want = format!("set_random_seed {}\n", game_seed(cfg.seed, i) % (1 << 31));
        assert!(sent.contains(&want), "{want} not in {sent}");
    }
}

#[test]
fn series_with_nearby_seeds_share_no_game_seeds() {
    // With `seed + i`, seeds 41 and 51 shared 190 of 200 game seeds.
    let a: std::collections::HashSet<u64> = (0..1000).map(|i| game_seed(41, i)).collect();
    assert_eq!(a.len(), 1000, "game seeds repeat within a series");
    for other in [40, 42, 51, 141] {
        let shared = (0..1000)
            .filter(|&i| a.contains(&game_seed(other, i)))
            .count();
        assert_eq!(shared, 0, "seed {other} shares {shared} game seeds with 41");
    }
    assert_eq!(game_seed(41, 7), game_seed(41, 7));
}

#[test]
fn tengen_resigns_below_its_threshold() {
    let config = SearchConfig {
        // Every winrate is below 1.5: resign at once.
        resign_threshold: Some(1.5),
        ..Default::default()
    };
    let mut quitter = Tengen::new(
        "quitter",
        Arc::new(UniformEvaluator),
        config,
        Limits::visits(4),
    );
    let mut other = tengen_player("other", 1);
    let r = play(&mut quitter, &mut other, 5, 2.5, 40).unwrap();
    assert_eq!(r.black_score, 0.0);
    assert_eq!(r.moves, 0);
    assert_eq!(r.note.as_deref(), Some("resigned"));
}

#[test]
fn tengen_with_a_move_time_stops_searching_in_time() {
    // No visit cap: only the clock ends each search (match --move-time).
    let mut timed = Tengen::new(
        "timed",
        Arc::new(UniformEvaluator),
        SearchConfig::default(),
        Limits::time(Duration::from_millis(30)),
    );
    let mut other = tengen_player("other", 2);
    let r = play(&mut timed, &mut other, 5, 2.5, 12).unwrap();
    assert!(r.moves > 0);
    assert!(timed.stats.moves >= 1);
    // Every tengen move carries its search's view in the record.
    assert!(r.sgf.contains("C[winrate "), "{}", r.sgf);
    assert!(r.sgf.contains(" visits, "), "{}", r.sgf);
    // The cap is generous against a slow machine; an uncapped search would
    // never return.
    assert!(
        timed.stats.longest < Duration::from_secs(10),
        "longest move took {:?}",
        timed.stats.longest
    );
}

#[test]
fn a_player_counting_another_winner_marks_the_game_disputed() {
    let dir = common::tmp("referee-count");
    // The same game twice (tengen deterministic, the engine always
    // passes); only the engine's own count differs.
    let mut results = Vec::new();
    for count in ["B+99", "W+99"] {
        let mut tengen = tengen_player("tengen", 3);
        let cmd = fake_counting_engine(&dir, "pass", count);
        let mut counter = GtpPlayer::start(&cmd, Duration::from_secs(10)).unwrap();
        let r = play(&mut tengen, &mut counter, 5, 0.5, 60).unwrap();
        results.push(r);
    }
    assert_eq!(results[0].moves, results[1].moves);
    let referee_black = results[0].black_score == 1.0;
    // Komi 0.5: no draw, so exactly one of the counts disagrees.
    let (agrees, disputes) = if referee_black {
        (&results[0], &results[1])
    } else {
        (&results[1], &results[0])
    };
    assert!(agrees.note.is_none(), "{:?}", agrees.note);
    let note = disputes.note.as_deref().unwrap();
    assert!(note.starts_with("disputed: the referee counts "), "{note}");
    assert!(note.contains("counter counts"), "{note}");
    // The referee's result stands.
    assert_eq!(results[0].black_score, results[1].black_score);
}
