//! The `tengen gtp` binary as a subprocess: a full game between two
//! engines, kill-and-resume (A4), and time controls (A2).

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

mod common;

use common::Gtp;
use tengen::net::shipped::{NET_13X13, NET_19X19, NET_9X9};
use tengen::rules::{Color, Move, Position, Ruleset};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tengen-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn parse_move(text: &str, size: usize) -> Move {
    Move::parse_gtp(text, size).unwrap_or_else(|| panic!("bad move {text:?}"))
}

#[test]
fn full_game_between_two_engine_processes() {
    let size = 9;
    let common = [
        "--size",
        "9",
        "--no-autosave",
        "--rollouts",
        "4",
        "--visits",
        "100",
        "--max-time",
        "0.2",
    ];
    let mut black = Gtp::tengen(&[&common[..], &["--seed", "1"]].concat());
    let mut white = Gtp::tengen(&[&common[..], &["--seed", "2"]].concat());
    for e in [&mut black, &mut white] {
        e.ok("boardsize 9");
        e.ok("clear_board");
        e.ok("komi 7");
    }
    let mut referee = Position::new(size, Ruleset::chinese().with_komi(7.0)).unwrap();
    let mut moves = 0;
    while !referee.is_over() {
        let color = referee.to_move();
        let (mover, other, c) = match color {
            Color::Black => (&mut black, &mut white, "b"),
            Color::White => (&mut white, &mut black, "w"),
        };
        let text = mover.ok(&format!("genmove {c}"));
        let mv = parse_move(&text, size);
        referee
            .play(color, mv)
            .unwrap_or_else(|e| panic!("move {moves}: {color} {text} is illegal: {e}"));
        other.ok(&format!("play {c} {text}"));
        moves += 1;
        assert!(moves < 600, "game does not end");
    }
    let a = black.ok("final_score");
    let b = white.ok("final_score");
    assert_eq!(a, b);
    assert!(
        a == "0" || a.starts_with("B+") || a.starts_with("W+"),
        "bad score {a:?}"
    );
    for e in [&mut black, &mut white] {
        assert_eq!(e.ok("gogui-rules_final_result"), a);
        e.ok("quit");
    }
}

/// A 9x9 ko: after `B F5` captures at E5 and both pass, `W E5` repeats an
/// earlier position: forbidden by superko only (the simple-ko point is
/// gone after the passes).
const KO_SEQUENCE: &[&str] = &[
    "play b D5",
    "play w F6",
    "play b E6",
    "play w F4",
    "play b E4",
    "play w G5",
    "play b A1",
    "play w E5",
    "play b F5",
    "play w pass",
    "play b pass",
];

#[test]
fn kill_and_resume_keeps_position_history_komi_and_clocks() {
    let dir = temp_dir("resume");
    let file = dir.join("autosave.sgf");
    let file_s = file.to_str().unwrap();
    let mut e = Gtp::tengen(&["--size", "9", "--autosave", file_s, "--seed", "3"]);
    e.ok("komi -50");
    e.ok("time_settings 600 0 0");
    e.ok("play b C7");
    e.ok("play w G3");
    // An edit: it starts a new superko segment, before the ko below.
    e.ok("gogui-setup w H8 e C7");
    for cmd in KO_SEQUENCE {
        e.ok(cmd);
    }
    e.ok("time_left b 500 0");
    e.ok("time_left w 400 0");
    assert_eq!(e.ok("is_legal w E5"), "0");
    let stones_b = e.ok("list_stones b");
    let stones_w = e.ok("list_stones w");
    assert!(!stones_b.contains("C7") && stones_w.contains("H8"));
    // SIGKILL: no chance to save anything on the way out.
    e.child.kill().unwrap();
    e.child.wait().unwrap();
    drop(e);

    let mut r = Gtp::tengen(&["--resume", file_s, "--autosave", file_s, "--seed", "3"]);
    assert_eq!(r.ok("gogui-rules_board_size"), "9");
    assert_eq!(r.ok("list_stones b"), stones_b);
    assert_eq!(r.ok("list_stones w"), stones_w);
    assert_eq!(r.ok("gogui-rules_side_to_move"), "white");
    assert!(r.ok("kata-get-rules").contains("\"komi\":-50"));
    // Superko history survived the restart.
    assert_eq!(r.ok("is_legal w E5"), "0");
    assert_eq!(r.ok("is_legal w J9"), "1");
    let sgf = r.ok("printsgf");
    assert!(sgf.contains("TGTIME[absolute 600]"), "{sgf}");
    assert!(sgf.contains("TGCLOCKB[500000 "), "{sgf}");
    assert!(sgf.contains("TGCLOCKW[400000 "), "{sgf}");
    // The engine will not retake, however tempting the capture.
    let mv = r.ok("genmove w");
    assert_ne!(mv.to_uppercase(), "E5");
    // It can still be taken back and the game goes on.
    r.ok("undo");
    assert_eq!(r.ok("is_legal w E5"), "0");
    r.ok("quit");

    // loadsgf of the same file restores the same game in a fresh engine.
    let mut l = Gtp::tengen(&["--no-autosave"]);
    l.ok(&format!("loadsgf {file_s}"));
    assert_eq!(l.ok("list_stones w"), stones_w);
    assert_eq!(l.ok("is_legal w E5"), "0");
    // White's clock: 400 s minus the genmove above.
    let sgf = l.ok("printsgf");
    let w: u64 = sgf
        .split("TGCLOCKW[")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((390_000..=400_000).contains(&w), "{sgf}");
    // Loading only up to move 11 (before B F5): E5 holds a white stone.
    l.ok(&format!("loadsgf {file_s} 11"));
    assert!(l.ok("list_stones w").contains("E5"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn engine_stays_inside_an_absolute_clock() {
    // 3 s sudden death for Black for 60 moves on 9x9; the test plays White
    // and acts as the clock, reporting with time_left. The evaluator is made
    // slow (8000 rollouts per evaluation: unhurried, 60 moves would take
    // about 6 s), so the budget really has to cut thinking short.
    let size = 9;
    let mut e = Gtp::tengen(&[
        "--size",
        "9",
        "--no-autosave",
        "--lag",
        "100",
        "--rollouts",
        "8000",
    ]);
    e.ok("time_settings 3 0 0");
    let mut referee = Position::new(size, Ruleset::chinese()).unwrap();
    let mut used = Duration::ZERO;
    let mut black_moves = 0;
    let mut k = 0u64;
    while !referee.is_over() && black_moves < 60 {
        let left = Duration::from_secs(3).saturating_sub(used);
        e.ok(&format!("time_left b {:.3} 0", left.as_secs_f64()));
        let t = Instant::now();
        let text = e.ok("genmove b");
        used += t.elapsed();
        black_moves += 1;
        assert!(
            used < Duration::from_secs(3),
            "lost on time after {black_moves} moves"
        );
        referee.play(Color::Black, parse_move(&text, size)).unwrap();
        // White: the first legal non-eye point in a scrambled order.
        let empties: Vec<_> = referee.board().empty_points().collect();
        let mut reply = Move::Pass;
        for i in 0..empties.len() {
            k = k
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let p = empties[(k >> 33) as usize % empties.len()];
            let _ = i;
            if !referee.board().is_eye(Color::White, p)
                && referee.check(Color::White, Move::Place(p)).is_ok()
            {
                reply = Move::Place(p);
                break;
            }
        }
        referee.play(Color::White, reply).unwrap();
        e.ok(&format!("play w {}", reply.to_gtp(size)));
    }
    assert!(
        black_moves >= 20,
        "game too short to say anything: {black_moves}"
    );
    assert!(used < Duration::from_secs(3));
    eprintln!("absolute clock: {black_moves} moves in {used:?} of 3 s");
    e.ok("quit");
}

#[test]
fn engine_stays_inside_byoyomi_periods() {
    let mut e = Gtp::tengen(&[
        "--size",
        "9",
        "--no-autosave",
        "--lag",
        "100",
        "--rollouts",
        "64",
    ]);
    e.ok("kgs-time_settings byoyomi 0 0.5 1");
    for i in 0..20u32 {
        let c = if i.is_multiple_of(2) { "b" } else { "w" };
        let t = Instant::now();
        e.ok(&format!("genmove {c}"));
        assert!(
            t.elapsed() < Duration::from_millis(500),
            "move {i} overran its period"
        );
    }
    let board = e.ok("showboard");
    assert!(!board.contains("out of time"), "{board}");
    e.ok("quit");
}

#[test]
fn new_input_interrupts_analysis() {
    let mut e = Gtp::tengen(&["--size", "9", "--no-autosave"]);
    writeln!(e.stdin, "1 lz-analyze b 5").unwrap();
    e.stdin.flush().unwrap();
    let mut first = String::new();
    e.stdout.read_line(&mut first).unwrap();
    assert_eq!(first, "=1\n");
    let mut info = String::new();
    e.stdout.read_line(&mut info).unwrap();
    assert!(info.starts_with("info move "), "{info}");
    // Any new line stops it; the analysis reply ends with an empty line and
    // the new command is answered.
    writeln!(e.stdin, "2 name").unwrap();
    e.stdin.flush().unwrap();
    loop {
        let mut line = String::new();
        assert!(e.stdout.read_line(&mut line).unwrap() > 0);
        if line == "\n" {
            break;
        }
        assert!(line.starts_with("info move "), "{line}");
    }
    let mut reply = String::new();
    e.stdout.read_line(&mut reply).unwrap();
    assert_eq!(reply, "=2 tengen\n");
    let mut blank = String::new();
    e.stdout.read_line(&mut blank).unwrap();
    assert_eq!(blank, "\n");
    e.ok("quit");
}

#[test]
fn pondering_stops_at_the_next_line() {
    let mut e = Gtp::tengen(&[
        "--size",
        "9",
        "--no-autosave",
        "--ponder",
        "--max-time",
        "0.2",
    ]);
    e.ok("genmove b");
    // The engine now ponders on White's time; the next line stops it.
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    assert_eq!(e.ok("name"), "tengen");
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    e.ok("play w E5");
    let mv = e.ok("genmove b");
    assert!(Move::parse_gtp(&mv, 9).is_some(), "{mv}");
    e.ok("quit");
}

/// With no evaluator named, `tengen gtp` plays with the shipped nets,
/// which are compiled in: on 9×9 the 9×9 net, on 13×13 the 13×13 net and
/// on 19×19 the 19×19 net (their raw outputs equal those of the files in `models/`), and it
/// plays a legal move on both.
#[test]
fn default_engine_plays_with_the_shipped_nets() {
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut e = Gtp::start(
        env!("CARGO_BIN_EXE_tengen"),
        &["gtp", "--no-autosave", "--visits", "16"],
    );
    for (size, net) in [(9usize, NET_9X9), (13, NET_13X13), (19, NET_19X19)] {
        let file = format!("{}.safetensors", net.name);
        let model = models.join(&file);
        let mut direct = Gtp::tengen(&["--model", model.to_str().unwrap(), "--no-autosave"]);
        for g in [&mut e, &mut direct] {
            g.ok(&format!("boardsize {size}"));
            g.ok("clear_board");
            g.ok("play b C3");
        }
        let raw = e.ok("kata-raw-nn 0");
        assert!(raw.contains("policy"), "{raw}");
        assert_eq!(
            raw,
            direct.ok("kata-raw-nn 0"),
            "{size}x{size} should use {file}"
        );
        direct.ok("quit");
        let mv = e.ok("genmove w");
        assert!(Move::parse_gtp(&mv, size).is_some(), "{mv}");
    }
    e.ok("quit");
}

/// The shipped nets' ownership heads are trained: at the end of finished
/// GNU Go games from `training/data/` (games held out of training), the
/// default engine finds the dead stones GNU Go found and the same winner.
#[test]
fn shipped_nets_judge_finished_games_like_gnu_go() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("training/data");
    let mut e = Gtp::start(
        env!("CARGO_BIN_EXE_tengen"),
        &["gtp", "--no-autosave", "--threads", "1"],
    );
    // 9x9, a draw with komi 7; GNU Go's dead stones: D7 E7 E6 C6 (Black)
    // and E2 F2 (White).
    let nine = data.join("gnugo-9x9-level10/game-0000.sgf");
    e.ok(&format!("loadsgf {}", nine.display()));
    let dead = e.sorted_words("final_status_list dead");
    assert_eq!(dead, ["C6", "D7", "E2", "E6", "E7", "F2"]);
    assert_eq!(e.ok("final_score"), "0");
    // 19x19, White wins by 54 by GNU Go's count.
    let nineteen = data.join("gnugo-19x19-level1-random2/game-0010.sgf");
    e.ok(&format!("loadsgf {}", nineteen.display()));
    let score = e.ok("final_score");
    assert!(score.starts_with("W+"), "{score}");
    e.ok("quit");
}
