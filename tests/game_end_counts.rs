//! End-of-game counts that testing under real clients got wrong (issue
//! 18): the fixed positions are regression tests.

mod common;

use common::ok;
use tengen::gtp::{Autosave, Session, SessionConfig};

fn session_with(evaluator: &str) -> Session {
    SessionConfig {
        size: 7,
        seed: 3,
        evaluator: evaluator.into(),
        visits: Some(64),
        autosave: Autosave::Off,
        ..SessionConfig::default()
    }
    .build()
    .unwrap()
}

/// 7×7, settled, two passes: Black D1–D7 with B2 B4 B6 (28 points with
/// A–C), White E2–E7 and F1 (20 points with F–G), E1 empty between them.
fn settled_with_one_dame(s: &mut Session, komi: &str) {
    ok(s, "boardsize 7");
    ok(s, &format!("komi {komi}"));
    for v in ["D1", "D2", "D3", "D4", "D5", "D6", "D7", "B2", "B4", "B6"] {
        ok(s, &format!("play b {v}"));
    }
    for v in ["E2", "E3", "E4", "E5", "E6", "E7", "F1"] {
        ok(s, &format!("play w {v}"));
    }
    ok(s, "play b pass");
    ok(s, "play w pass");
}

fn dame_is_split(evaluator: &str) {
    // B − W = 28 − 20 = 8 with E1 split: komi 7.5 → B+0.5, 8 → jigo,
    // 8.5 → W+0.5, whatever the evaluator thinks E1 is worth.
    for (komi, want) in [("7.5", "B+0.5"), ("8", "0"), ("8.5", "W+0.5")] {
        let mut s = session_with(evaluator);
        settled_with_one_dame(&mut s, komi);
        assert_eq!(ok(&mut s, "final_status_list dead"), "");
        assert_eq!(ok(&mut s, "final_score"), want, "komi {komi}, {evaluator}");
    }
}

#[test]
fn a_dame_point_is_split_with_the_heuristic() {
    dame_is_split("heuristic");
}

#[cfg(feature = "net")]
#[test]
fn a_dame_point_is_split_with_the_shipped_net() {
    dame_is_split("net");
}

fn reply_to_an_opening_pass(evaluator: &str, friendly: bool) -> String {
    let mut s = SessionConfig {
        size: 9,
        seed: 5,
        evaluator: evaluator.into(),
        visits: Some(64),
        friendly_pass: friendly,
        autosave: Autosave::Off,
        ..SessionConfig::default()
    }
    .build()
    .unwrap();
    ok(&mut s, "komi 7");
    ok(&mut s, "play b pass");
    ok(&mut s, "genmove w")
}

/// B3/B4: after Black's pass on the empty 9×9 board White would win a
/// count now (komi 7), but the whole board is open: the tournament
/// default plays on; `--friendly-pass` takes the win.
fn an_opening_pass_is_answered_by_a_move(evaluator: &str) {
    let mv = reply_to_an_opening_pass(evaluator, false);
    assert_ne!(mv, "pass", "{evaluator}");
    assert_eq!(
        reply_to_an_opening_pass(evaluator, true),
        "pass",
        "{evaluator}"
    );
}

#[test]
fn an_opening_pass_is_answered_by_a_move_with_the_heuristic() {
    an_opening_pass_is_answered_by_a_move("heuristic");
}

#[cfg(feature = "net")]
#[test]
fn an_opening_pass_is_answered_by_a_move_with_the_shipped_net() {
    an_opening_pass_is_answered_by_a_move("net");
}

/// Japanese rules (territory scoring, KaTrain's default): the settled 7×7
/// board counts territory and prisoners, not stones. Black surrounds 18
/// points (A–C less B2 B4 B6), White 13 (F–G less F1; E1 is dame and
/// counts for no one), no prisoners: 18 − 13 = 5, so komi 6.5 gives W+1.5
/// where area scoring gives B+1.5 (28 − 20 − 6.5).
#[test]
fn japanese_rules_count_territory() {
    for (rules, want) in [("japanese", "W+1.5"), ("chinese", "B+1.5")] {
        let mut s = session_with("heuristic");
        ok(&mut s, &format!("kata-set-rules {rules}"));
        settled_with_one_dame(&mut s, "6.5");
        assert_eq!(ok(&mut s, "final_score"), want, "{rules}");
    }
    let mut s = session_with("heuristic");
    ok(&mut s, "kata-set-rules japanese");
    let json = ok(&mut s, "kata-get-rules");
    assert!(
        json.contains("\"scoring\":\"TERRITORY\"") && json.contains("\"tax\":\"SEKI\""),
        "{json}"
    );
}

/// Issue 18, from a gomill game against GNU Go (9×9, komi 7): White's
/// bottom is pass-alive (eyes A3, A1 and the E1–D1 region) with Black's
/// dead E3–E2 inside, and Black's top is solid. A strict count (every
/// stone alive, as gomill's ringmaster counts by itself) is a jigo: Black
/// 43 with E3 E2, White 36, E1 D1 neutral. Agreeing E3 E2 are dead gives
/// W+6. After Black's pass White passed into the strict jigo, because the
/// strict count it checked removed stones inside pass-alive areas and its
/// moves there were ruled out; it must capture first (E1 takes both).
fn dead_stones_in_a_pass_alive_area(s: &mut Session) {
    ok(s, "boardsize 9");
    ok(s, "komi 7");
    for v in [
        "F6", "G6", "H6", "J6", "A5", "B5", "C5", "D5", "E5", "E3", "E2",
    ] {
        ok(s, &format!("play b {v}"));
    }
    for v in [
        "F5", "G5", "H5", "J5", "A4", "B4", "C4", "D4", "E4", "F4", "B3", "C3", "D3", "F3", "A2",
        "B2", "C2", "D2", "F2", "B1", "C1", "F1",
    ] {
        ok(s, &format!("play w {v}"));
    }
}

fn no_pass_into_a_strict_jigo(evaluator: &str) {
    for friendly in [false, true] {
        let mut s = SessionConfig {
            size: 9,
            seed: 3,
            evaluator: evaluator.into(),
            visits: Some(64),
            friendly_pass: friendly,
            autosave: Autosave::Off,
            ..SessionConfig::default()
        }
        .build()
        .unwrap();
        dead_stones_in_a_pass_alive_area(&mut s);
        assert_eq!(ok(&mut s, "final_status_list dead"), "E3 E2");
        assert_eq!(ok(&mut s, "final_score"), "W+6");
        ok(&mut s, "play b pass");
        assert_eq!(
            ok(&mut s, "genmove w"),
            "E1",
            "{evaluator}, friendly {friendly}"
        );
        assert_eq!(ok(&mut s, "final_score"), "W+6");
        if friendly {
            // Now the strict count wins too.
            ok(&mut s, "play b pass");
            assert_eq!(ok(&mut s, "genmove w"), "pass", "{evaluator}");
        }
    }
}

#[test]
fn no_pass_into_a_strict_jigo_with_dead_stones_in_a_pass_alive_area_with_the_heuristic() {
    no_pass_into_a_strict_jigo("heuristic");
}

#[cfg(feature = "net")]
#[test]
fn no_pass_into_a_strict_jigo_with_dead_stones_in_a_pass_alive_area_with_the_shipped_net() {
    no_pass_into_a_strict_jigo("net");
}

/// Issue 18, from a gomill game against GNU Go level 1 (9×9, komi 7.5):
/// after two passes White's bottom-left group (A2–F1) and Black's B1 C1
/// share their only liberties A1, B2 and D1, a seki. GNU Go's
/// `final_score` counted the White group dead (B+9.5); the Chinese count
/// with every stone alive and A1 B2 D1 dame is W+17.5, which is what
/// tengen answers with the shipped net (the heuristic evaluator's random
/// playouts, like GNU Go, let the group die). `final_status_list seki`
/// used to be empty here: a seki was only found where filling a shared
/// liberty is self-atari.
#[cfg(feature = "net")]
#[test]
fn a_seki_that_gnu_go_counted_dead_is_counted_alive() {
    let mut s = SessionConfig {
        size: 9,
        seed: 3,
        evaluator: "net".into(),
        visits: Some(64),
        autosave: Autosave::Off,
        ..SessionConfig::default()
    }
    .build()
    .unwrap();
    ok(&mut s, "boardsize 9");
    ok(&mut s, "komi 7.5");
    let rows = [
        "OO.......",
        "XO.OO....",
        "XXOO.O...",
        "X.XXO..OO",
        "XX.XXOOXO",
        "XOXXOXXXX",
        "OOOXOXX..",
        "O.OOOX.X.",
        ".XX.OOX..",
    ];
    let mut setup = String::from("gogui-setup");
    for (y, row) in rows.iter().enumerate() {
        for (x, ch) in row.chars().enumerate() {
            let col = "ABCDEFGHJ".as_bytes()[x] as char;
            match ch {
                'X' => setup.push_str(&format!(" b {col}{}", 9 - y)),
                'O' => setup.push_str(&format!(" w {col}{}", 9 - y)),
                _ => {}
            }
        }
    }
    ok(&mut s, &setup);
    ok(&mut s, "gogui-setup_player b");
    ok(&mut s, "play b pass");
    ok(&mut s, "play w pass");
    assert_eq!(ok(&mut s, "final_status_list dead"), "");
    assert_eq!(
        ok(&mut s, "final_status_list seki"),
        "B4 E4 A3 B3 C3 E3 A2 C2 D2 E2 E1 F1\nB1 C1"
    );
    assert_eq!(ok(&mut s, "final_score"), "W+17.5");
}
