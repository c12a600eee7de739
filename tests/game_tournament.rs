//! Tournament behaviour (RULES.md B2, B3, B4, B6, B7) through the GTP
//! dispatcher in-process, with fixed seeds.

mod common;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use tengen::engine::{Engine, EngineSettings};
use tengen::eval::fake::{HeuristicEvaluator, UniformEvaluator};
use tengen::eval::Evaluator;
use tengen::game::Game;
use tengen::gtp::Session;
use tengen::rules::{Color, Move, Point, Ruleset};

fn session(size: usize, seed: u64) -> Session {
    common::session(size, seed, 8, Some(64))
}

use common::ok;

#[test]
fn b2_genmove_same_colour_twice() {
    let mut s = session(9, 1);
    let a = ok(&mut s, "genmove b");
    let b = ok(&mut s, "genmove b");
    assert_ne!(a, b);
    assert_eq!(ok(&mut s, "list_stones b").split(' ').count(), 2);
    let w = ok(&mut s, "genmove white");
    assert_ne!(w, "pass");
    assert_eq!(ok(&mut s, "gogui-rules_side_to_move"), "black");
}

#[test]
fn b4_a_single_pass_does_not_end_the_game() {
    let mut s = session(9, 2);
    ok(&mut s, "komi 0");
    ok(&mut s, "play b pass");
    assert_eq!(ok(&mut s, "gogui-rules_final_result"), "unknown");
    // White is not ahead on an empty board with komi 0: it plays on.
    let w = ok(&mut s, "genmove w");
    assert_ne!(w, "pass");
    ok(&mut s, "play b pass");
    let w2 = ok(&mut s, "genmove w");
    let b = ok(&mut s, "genmove b");
    assert_ne!(b, "pass", "black is behind and must play on");
    // Two passes in a row end it.
    ok(&mut s, "play w pass");
    ok(&mut s, "play b pass");
    let result = ok(&mut s, "gogui-rules_final_result");
    assert!(result.starts_with("W+") || result.starts_with("B+") || result == "0");
    let _ = w2;
}

#[test]
fn b3_passes_when_nothing_meaningful_is_left() {
    let mut s = session(5, 3);
    // Both sides pass-alive, no dame.
    ok(
        &mut s,
        "gogui-setup b A5 b C5 b A4 b B4 b C4 b B3 b C3 b A2 b B2 b C2 b A1 b C1 \
         w D5 w D4 w E4 w D3 w D2 w E2 w D1",
    );
    assert_eq!(ok(&mut s, "genmove b"), "pass");
    assert_eq!(ok(&mut s, "genmove w"), "pass");
    // 15 points to 10, komi 5.5.
    assert_eq!(ok(&mut s, "final_score"), "W+0.5");
}

#[test]
fn b6_edits_then_play_continues_and_undo_works() {
    let mut s = session(9, 4);
    ok(&mut s, "play b E5");
    ok(&mut s, "play w C3");
    // Remove a stone, add one of each colour, set the player to move.
    ok(&mut s, "gogui-setup e E5 b D4 w F6");
    ok(&mut s, "gogui-setup_player w");
    assert_eq!(ok(&mut s, "list_stones b"), "D4");
    assert_eq!(ok(&mut s, "list_stones w"), "F6 C3");
    let w = ok(&mut s, "genmove w");
    assert_ne!(w, "pass");
    let b = ok(&mut s, "genmove b");
    assert_ne!(b, "pass");
    // Undo one, then several (moves and edits alike).
    ok(&mut s, "undo");
    assert_eq!(ok(&mut s, "list_stones b"), "D4");
    ok(&mut s, "gg-undo 3");
    assert_eq!(ok(&mut s, "list_stones b"), "E5");
    assert_eq!(ok(&mut s, "list_stones w"), "C3");
    assert_eq!(ok(&mut s, "gogui-rules_side_to_move"), "black");
    // An edit starts a new superko segment: a position from before the
    // edit may be recreated by play afterwards.
    ok(&mut s, "gogui-setup e C3");
    ok(&mut s, "play w C3");
    assert_eq!(ok(&mut s, "is_legal b C4"), "1");
}

#[test]
fn b7_disputed_moves_are_accepted_and_applied() {
    let mut s = session(9, 5);
    // Suicide by Black at A1.
    ok(&mut s, "gogui-setup w A2 w B1");
    assert_eq!(ok(&mut s, "is_legal b A1"), "0");
    ok(&mut s, "play b A1");
    assert_eq!(ok(&mut s, "list_stones b"), "");
    assert_eq!(ok(&mut s, "gogui-rules_side_to_move"), "white");
    // Superko retake by White.
    ok(&mut s, "clear_board");
    for cmd in [
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
    ] {
        ok(&mut s, cmd);
    }
    assert_eq!(ok(&mut s, "is_legal w E5"), "0");
    ok(&mut s, "play w E5");
    assert!(!ok(&mut s, "list_stones b").contains("F5"));
    // Occupied and off-board points are still refused.
    assert!(s.run_line("play b E5").starts_with("? illegal move"));
    assert!(s.run_line("play b T19").starts_with("? illegal move"));
    // The record keeps the disputed move, and printsgf says so.
    assert!(ok(&mut s, "printsgf").contains("disputed move"));
}

#[test]
fn b7_genmove_never_retakes_a_superko_or_plays_suicide() {
    for seed in 0..6 {
        let mut s = session(9, seed);
        ok(&mut s, "komi -30");
        for cmd in [
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
        ] {
            ok(&mut s, cmd);
        }
        let mv = ok(&mut s, "genmove w");
        assert_ne!(mv, "E5", "seed {seed}");
    }
    // A board where every empty point is suicide for White: the only legal
    // move is a pass, whatever the evaluator would like.
    let mut s = session(5, 1);
    ok(
        &mut s,
        "gogui-setup b B5 b A4 b B3 b A2 b C4 b D5 b D3 b C2 b B1 b E4 b E2 b D1",
    );
    ok(&mut s, "gogui-setup_player w");
    assert_eq!(ok(&mut s, "gogui-rules_legal_moves"), "pass");
    assert_eq!(ok(&mut s, "genmove w"), "pass");
    // Removing D3 makes D3 and its four neighbours legal for White. Every
    // point is still Black's (a White stone there dies), so the search may
    // pass (B3); if it plays, it plays one of them.
    ok(&mut s, "gogui-setup e D3");
    let mv = ok(&mut s, "genmove w");
    if mv != "pass" {
        let p = Move::parse_gtp(&mv, 5).unwrap();
        ok(&mut s, "undo");
        assert!(s.game.position().check(Color::White, p).is_ok(), "{mv}");
        assert!(
            ["D3", "D4", "C3", "E3", "D2"].contains(&mv.as_str()),
            "{mv}"
        );
    }
    // Opening the right-hand side gives White something to gain: it plays,
    // legally.
    ok(&mut s, "gogui-setup e D5 e E4 e E2 e D1 e C4 e C2");
    ok(&mut s, "gogui-setup_player w");
    let mv = ok(&mut s, "genmove w");
    assert_ne!(mv, "pass");
    let p = Move::parse_gtp(&mv, 5).unwrap();
    ok(&mut s, "undo");
    assert!(s.game.position().check(Color::White, p).is_ok(), "{mv}");
}

/// Random games with both fake evaluators: every generated move is legal
/// for its colour (superko included) and never fills an own eye.
#[test]
fn generated_moves_are_always_legal() {
    let stop = AtomicBool::new(false);
    for (seed, eval) in [
        (1u64, Arc::new(UniformEvaluator) as Arc<dyn Evaluator>),
        (2, Arc::new(HeuristicEvaluator::new(2).with_playouts(2))),
        (3, Arc::new(HeuristicEvaluator::new(3).with_playouts(0))),
    ] {
        for size in [5usize, 7, 9] {
            let mut engine = Engine::new(
                Arc::clone(&eval),
                EngineSettings {
                    seed,
                    ..EngineSettings::default()
                },
            );
            let mut game = Game::new(size, Ruleset::chinese()).unwrap();
            while !game.is_over() && game.move_count() < 4 * size * size {
                let c = game.to_move();
                let mv = engine.genmove(&game, c, Duration::from_millis(20), &stop);
                let pos = game.position();
                assert!(pos.check(c, mv).is_ok(), "{mv:?} illegal");
                if let Move::Place(p) = mv {
                    assert!(!pos.board().is_eye(c, p), "fills own eye at {p:?}");
                }
                game.play(c, mv).unwrap();
            }
            assert!(game.is_over(), "size {size}: game did not end");
        }
    }
    let _ = Point::new(0, 0);
}
