//! The PUCT search through GTP, in-process with fixed seeds: analysis
//! formats (parsed field by field), interruption, genmove determinism and
//! tree reuse, passing on constructed end positions (B3, B4), end-of-game
//! statuses and score against KataGo's reference transcript, cleanup,
//! judging (A3), and a full game on a tiny clock.

mod common;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tengen::gtp::{Autosave, Session, SessionConfig};
use tengen::rules::{Color, Move};

fn session(size: usize, seed: u64, visits: Option<u64>) -> Session {
    common::session(size, seed, 8, visits)
}

use common::ok;

/// Runs a streaming command, setting the stop flag after `after` (unless
/// it ends sooner); returns the raw reply.
fn stream(s: &mut Session, cmd: &str, after: Duration) -> String {
    let stop = AtomicBool::new(false);
    let done = AtomicBool::new(false);
    let mut out = Vec::new();
    std::thread::scope(|sc| {
        sc.spawn(|| {
            let t = Instant::now();
            while t.elapsed() < after && !done.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(5));
            }
            stop.store(true, Ordering::SeqCst);
        });
        s.execute(cmd.as_bytes(), false, Instant::now(), &mut out, &stop)
            .unwrap();
        done.store(true, Ordering::SeqCst);
    });
    String::from_utf8(out).unwrap()
}

/// The `info` groups of an analysis line as key → value lists.
fn infos(line: &str) -> Vec<Vec<(String, String)>> {
    let mut groups = Vec::new();
    let toks: Vec<&str> = line.split_whitespace().collect();
    let mut i = 0;
    while i < toks.len() {
        if toks[i] != "info" {
            break;
        }
        i += 1;
        let mut g = Vec::new();
        while i < toks.len() && !["info", "ownership", "rootInfo"].contains(&toks[i]) {
            if toks[i] == "pv" {
                let mut pv = Vec::new();
                i += 1;
                while i < toks.len() && !["info", "ownership", "rootInfo"].contains(&toks[i]) {
                    pv.push(toks[i]);
                    i += 1;
                }
                g.push(("pv".to_string(), pv.join(" ")));
            } else {
                g.push((
                    toks[i].to_string(),
                    toks.get(i + 1).unwrap_or(&"").to_string(),
                ));
                i += 2;
            }
        }
        groups.push(g);
    }
    groups
}

fn field<'a>(g: &'a [(String, String)], k: &str) -> &'a str {
    &g.iter()
        .find(|(key, _)| key == k)
        .unwrap_or_else(|| panic!("no {k} in {g:?}"))
        .1
}

/// Checks the framing of a streaming reply and returns its lines.
fn stream_lines(reply: &str) -> Vec<String> {
    assert!(reply.ends_with("\n\n"), "{reply:?}");
    assert!(
        !reply[..reply.len() - 2].contains("\n\n"),
        "blank line inside: {reply:?}"
    );
    let mut lines = reply.lines();
    assert!(lines.next().unwrap().starts_with('='), "{reply}");
    lines
        .map(str::to_string)
        .filter(|l| !l.is_empty())
        .collect()
}

/// Black owns the left four columns of a 7×7 board, White two: Black is
/// far ahead with komi 0.5.
fn black_ahead(s: &mut Session) {
    ok(s, "komi 0.5");
    ok(
        s,
        "gogui-setup b D7 b D6 b D5 b D4 b D3 b D2 b D1 w E7 w E6 w E5 w E4 w E3 w E2 w E1",
    );
    ok(s, "gogui-setup_player b");
}

#[test]
fn lz_analyze_and_analyze_formats() {
    let mut s = session(7, 1, Some(50));
    black_ahead(&mut s);
    for (cmd, sabaki) in [("1 lz-analyze b 5", false), ("analyze 5", true)] {
        let reply = stream(&mut s, cmd, Duration::from_millis(300));
        let lines = stream_lines(&reply);
        assert!(!lines.is_empty(), "{reply}");
        for line in &lines {
            let groups = infos(line);
            assert!(!groups.is_empty(), "{line}");
            for (i, g) in groups.iter().enumerate() {
                let mv = Move::parse_gtp(field(g, "move"), 7).expect("a vertex");
                assert!(field(g, "visits").parse::<u64>().unwrap() >= 1);
                for k in ["winrate", "prior", "lcb"] {
                    let v: i32 = field(g, k).parse().unwrap();
                    assert!((0..=10000).contains(&v), "{k} {v}");
                }
                assert_eq!(field(g, "order"), i.to_string());
                let pv: Vec<&str> = field(g, "pv").split(' ').collect();
                assert_eq!(Move::parse_gtp(pv[0], 7), Some(mv));
                assert!(pv.iter().all(|v| Move::parse_gtp(v, 7).is_some()));
                assert_eq!(g.iter().any(|(k, _)| k == "scoreLead"), sabaki);
            }
            // Black's view: Black is ahead.
            let wr: i32 = field(&groups[0], "winrate").parse().unwrap();
            assert!(wr > 5000, "{line}");
        }
    }
    assert!(stream(&mut s, "1 lz-analyze b 5", Duration::ZERO).starts_with("=1\n"));
}

#[test]
fn kata_analyze_format_perspective_and_ownership() {
    let mut s = session(7, 2, Some(50));
    black_ahead(&mut s);
    let mut sums = Vec::new();
    for color in ["b", "w"] {
        let cmd = format!("kata-analyze {color} interval 5 ownership true rootInfo true");
        let reply = stream(&mut s, &cmd, Duration::from_millis(300));
        let lines = stream_lines(&reply);
        let last = lines.last().unwrap();
        let groups = infos(last);
        assert!(!groups.is_empty(), "{last}");
        for g in &groups {
            for k in ["winrate", "prior", "lcb"] {
                let v: f32 = field(g, k).parse().unwrap();
                assert!((0.0..=1.0).contains(&v), "{k} {v}");
            }
            for k in ["scoreLead", "scoreMean", "scoreStdev", "utility"] {
                assert!(field(g, k).parse::<f32>().unwrap().is_finite());
            }
            assert!(field(g, "visits").parse::<u64>().unwrap() >= 1);
        }
        let wr: f32 = field(&groups[0], "winrate").parse().unwrap();
        if color == "b" {
            assert!(wr > 0.5, "{last}");
        } else {
            assert!(wr < 0.5, "{last}");
        }
        assert!(last.contains(" rootInfo visits "), "{last}");
        let own: Vec<f32> = last
            .split(" ownership ")
            .nth(1)
            .expect("ownership")
            .split_whitespace()
            .map(|t| t.parse().unwrap())
            .collect();
        assert_eq!(own.len(), 49);
        assert!(own.iter().all(|x| (-1.0..=1.0).contains(x)));
        // Row-major from the top-left: A7 (Black's side) first, G1 last.
        let sign = if color == "b" { 1.0 } else { -1.0 };
        assert!(sign * own[0] > 0.0 && sign * own[48] < 0.0, "{own:?}");
        sums.push(own.iter().sum::<f32>());
    }
    assert!(sums[0] > 0.0 && sums[1] < 0.0, "{sums:?}");
}

#[test]
fn genmove_analyze_streams_then_plays() {
    let mut s = session(9, 3, Some(40));
    for cmd in [
        "lz-genmove_analyze b 1",
        "kata-genmove_analyze w 1 ownership true",
    ] {
        let reply = stream(&mut s, cmd, Duration::from_secs(30));
        let lines = stream_lines(&reply);
        let last = lines.last().unwrap();
        let mv = last.strip_prefix("play ").expect(last);
        assert!(Move::parse_gtp(mv, 9).is_some(), "{last}");
        for l in &lines[..lines.len() - 1] {
            assert!(l.starts_with("info move "), "{l}");
        }
    }
    assert_eq!(ok(&mut s, "list_stones b").split(' ').count(), 1);
    assert_eq!(ok(&mut s, "list_stones w").split(' ').count(), 1);
    // An interrupted genmove_analyze still plays a legal move.
    let reply = stream(&mut s, "lz-genmove_analyze b 1", Duration::ZERO);
    assert!(stream_lines(&reply).last().unwrap().starts_with("play "));
}

#[test]
fn genmove_is_deterministic_with_a_seed_and_visits() {
    let play = |seed| {
        let mut s = session(9, seed, Some(60));
        (0..10)
            .map(|i| ok(&mut s, if i % 2 == 0 { "genmove b" } else { "genmove w" }))
            .collect::<Vec<_>>()
    };
    let a = play(7);
    assert_eq!(a, play(7));
    for m in &a {
        assert_ne!(m, "pass");
    }
}

#[test]
fn tree_reuse_across_two_genmoves() {
    let mut s = session(9, 4, Some(200));
    ok(&mut s, "genmove b");
    let first = s.engine.last_result().unwrap().clone();
    assert_eq!(first.playouts, first.visits);
    // The opponent plays the reply the search expected.
    let reply = first.moves[0].pv.get(1).copied().expect("a pv reply");
    ok(&mut s, &format!("play w {}", reply.to_gtp(9)));
    ok(&mut s, "genmove b");
    assert!(s.engine.last_reused());
    let second = s.engine.last_result().unwrap();
    assert!(second.visits >= 200);
    assert!(
        second.playouts < second.visits,
        "kept visits: {} of {}",
        second.visits - second.playouts,
        second.visits
    );
}

/// 5×5: Black's column B with eyes on A, White's column D with eyes on E,
/// column C empty (five dame points).
const DAME_COLUMN: &str = "gogui-setup b B5 b B4 b B3 b B2 b B1 b A4 b A2 \
                           w D5 w D4 w D3 w D2 w D1 w E4 w E2";

#[test]
fn passing_on_constructed_positions() {
    // Dame left: no pass; fill a dame point.
    let mut s = session(5, 5, Some(64));
    ok(&mut s, DAME_COLUMN);
    ok(&mut s, "gogui-setup_player b");
    let mv = ok(&mut s, "genmove b");
    assert!(mv.starts_with('C'), "dame left, got {mv}");

    // Settled (no dame, pass-alive): pass.
    let mut s = session(5, 5, Some(64));
    ok(&mut s, DAME_COLUMN);
    ok(&mut s, "gogui-setup b C5 b C4 b C3 b C2 b C1");
    ok(&mut s, "gogui-setup_player w");
    assert_eq!(ok(&mut s, "genmove w"), "pass");
    assert_eq!(ok(&mut s, "genmove b"), "pass");

    // The opponent passed while we are behind: play on.
    let mut s = session(5, 6, Some(64));
    ok(&mut s, "komi -3");
    ok(&mut s, DAME_COLUMN);
    ok(&mut s, "gogui-setup_player b");
    ok(&mut s, "play b pass");
    let mv = ok(&mut s, "genmove w");
    assert_ne!(mv, "pass", "behind after a pass");
    assert!(mv.starts_with('C'), "{mv}");

    // The opponent passed and passing wins: pass.
    let mut s = session(5, 6, Some(64));
    ok(&mut s, "komi 20");
    ok(&mut s, DAME_COLUMN);
    ok(&mut s, "gogui-setup_player b");
    ok(&mut s, "play b pass");
    assert_eq!(ok(&mut s, "genmove w"), "pass");
    assert!(ok(&mut s, "final_score").starts_with("W+"));
}

fn vertex_set(reply: &str) -> BTreeSet<String> {
    reply.split_whitespace().map(|v| v.to_uppercase()).collect()
}

#[test]
fn end_of_game_matches_katago_ending_reference() {
    // ../shared/testdata/gtp-reference/katago/ending.gtp, first part:
    // KataGo's own moves replayed, then its statuses and score.
    let Some(dir) = common::testdata("gtp-reference/katago/ending.expected-stdout") else {
        return;
    };
    let expected = std::fs::read_to_string(dir).unwrap();
    assert!(expected.contains("= B5") && expected.contains("= W+4.0"));
    let mut s = session(7, 1, None);
    ok(&mut s, "kata-set-rules chinese");
    ok(
        &mut s,
        "set_position w d7 b e7 b f7 w b6 w d6 w e6 b f6 b b5 w c5 w d5 b e5 w b4 w c4 b e4 \
         b b3 w c3 b d3 b e3 w f3 b g3 w a2 w b2 b c2 b d2 b f2 b b1",
    );
    ok(&mut s, "komi 5");
    for cmd in [
        "play b D4",
        "play w A3",
        "play b F4",
        "play w A1",
        "play b pass",
        "play w C1",
    ] {
        ok(&mut s, cmd);
    }
    assert_eq!(ok(&mut s, "final_status_list dead"), "B5");
    let katago_alive = "D7 E7 F7 B6 D6 E6 F6 C5 D5 E5 B4 C4 D4 E4 F4 A3 C3 D3 E3 G3 A2 B2 C2 \
                        D2 F2 A1 C1";
    assert_eq!(
        vertex_set(&ok(&mut s, "final_status_list alive")),
        vertex_set(katago_alive)
    );
    assert_eq!(ok(&mut s, "final_status_list seki"), "");
    // KataGo writes W+4.0.
    assert_eq!(ok(&mut s, "final_score"), "W+4");
}

/// 7×7: Black's wall on D (eyes split by A4 B4 C4) with a dead White
/// stone at B6; White's wall on E (eyes split by F4 G4). Black leads.
const DEAD_INSIDE: &str = "gogui-setup b D7 b D6 b D5 b D4 b D3 b D2 b D1 b A4 b B4 b C4 \
                           w E7 w E6 w E5 w E4 w E3 w E2 w E1 w F4 w G4 w B6";

#[test]
fn cleanup_captures_dead_stones_before_passing() {
    let mut s = session(7, 8, Some(100));
    ok(&mut s, "komi 0.5");
    ok(&mut s, DEAD_INSIDE);
    ok(&mut s, "gogui-setup_player b");
    assert_eq!(ok(&mut s, "final_status_list dead"), "B6");
    // A plain genmove after White's pass does not pass either: the count
    // wins only if White agrees B6 is dead (a strict count, with B6 alive,
    // loses), so it takes a liberty of B6.
    ok(&mut s, "play w pass");
    let mv = ok(&mut s, "genmove b");
    assert!(["A6", "C6", "B7", "B5"].contains(&mv.as_str()), "{mv}");
    ok(&mut s, "undo");
    // Cleanup captures B6 first.
    let mut passed = false;
    for _ in 0..12 {
        let mv = ok(&mut s, "kgs-genmove_cleanup b");
        let white = ok(&mut s, "list_stones w");
        if mv == "pass" {
            assert!(!white.contains("B6"), "passed with B6 on the board");
            passed = true;
            break;
        }
        assert!(Move::parse_gtp(&mv, 7).is_some(), "{mv}");
        ok(&mut s, "play w pass");
    }
    assert!(passed, "cleanup never finished");
    assert_eq!(ok(&mut s, "final_status_list dead"), "");
    assert_eq!(ok(&mut s, "final_score"), "B+6.5");
}

#[test]
fn judge_an_interrupted_game() {
    let Some(sgf) = common::testdata("sgf/fuego/sgf/games/2008/CGOS/540532.sgf") else {
        return;
    };
    // GTP: after move 60 of a game White won by 36.5.
    let mut s = session(9, 1, None);
    ok(&mut s, &format!("loadsgf {} 61", sgf.display()));
    let report = ok(&mut s, "tengen-judge 100");
    for want in [
        "Estimated result: ",
        "stone",
        "Win probability: Black ",
        "Confidence: ",
        "undecided",
        "Winner: ",
    ] {
        assert!(report.contains(want), "{want}: {report}");
    }
    assert!(s.run_line("tengen-judge x").starts_with("? syntax error"));
    // The command line.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args([
            "judge",
            sgf.to_str().unwrap(),
            "--visits",
            "100",
            "--evaluator",
            "heuristic",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Estimated result: W+"), "{text}");
    assert!(text.contains("after 102 moves"), "{text}");
    eprintln!("{text}");
}

#[test]
fn a_full_game_on_a_tiny_clock_stays_inside_it() {
    for (settings, main) in [
        ("time_settings 4 0 0", Duration::from_secs(4)),
        ("kgs-time_settings fischer 2 0.05", Duration::from_secs(2)),
    ] {
        let mut s = SessionConfig {
            size: 9,
            seed: 9,
            lag: Duration::from_millis(100),
            autosave: Autosave::Off,
            ..SessionConfig::default()
        }
        .build()
        .unwrap();
        ok(&mut s, settings);
        let mut used = [Duration::ZERO; 2];
        let mut moves = [0u32; 2];
        while !s.game.is_over() && s.game.move_count() < 300 {
            let c = s.game.to_move();
            let t = Instant::now();
            ok(
                &mut s,
                if c == Color::Black {
                    "genmove b"
                } else {
                    "genmove w"
                },
            );
            used[c.index()] += t.elapsed();
            moves[c.index()] += 1;
        }
        for c in Color::ALL {
            let allowed = if settings.contains("fischer") {
                main + Duration::from_millis(50) * moves[c.index()]
            } else {
                main
            };
            assert!(
                used[c.index()] < allowed,
                "{settings}: {c} used {:?}",
                used[c.index()]
            );
            assert!(!s.game.clock().player(c).flagged, "{settings}: {c} flagged");
        }
        assert!(s.game.is_over(), "{settings}: the game did not end");
        eprintln!("{settings}: {moves:?} moves, {used:?}");
    }
}
