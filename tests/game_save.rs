//! Saving and loading games through GTP (`printsgf FILE` / `loadsgf FILE`):
//! disputed moves, edits, handicap and set_position starts all come back
//! exactly, including the superko history.

mod common;

use std::path::PathBuf;

use tengen::gtp::Session;

fn session() -> Session {
    common::session(9, 9, 4, Some(32))
}

use common::ok;

fn temp_file(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("tengen-{name}-{}.sgf", std::process::id()))
}

/// Saves `a`, loads the file into a fresh session, and checks that both
/// agree on everything observable.
fn round_trip(a: &mut Session, name: &str) -> Session {
    let file = temp_file(name);
    let f = file.to_str().unwrap();
    ok(a, &format!("printsgf {f}"));
    let mut b = session();
    ok(&mut b, &format!("loadsgf {f}"));
    for cmd in [
        "list_stones b",
        "list_stones w",
        "gogui-rules_side_to_move",
        "gogui-rules_board_size",
        "kata-get-rules",
        "gogui-rules_legal_moves",
        "printsgf",
    ] {
        assert_eq!(ok(a, cmd), ok(&mut b, cmd), "{name}: {cmd}");
    }
    let _ = std::fs::remove_file(&file);
    b
}

#[test]
fn disputed_moves_and_edits_survive_a_round_trip() {
    let mut a = session();
    ok(&mut a, "komi 6");
    ok(&mut a, "gogui-setup b J9 w J8");
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
        // A superko retake by the opponent, accepted as played...
        "play w E5",
        // ...and Black may now retake it back by the same logic: disputed too.
        "play b F5",
    ] {
        ok(&mut a, cmd);
    }
    ok(&mut a, "gogui-setup_player b");
    let mut b = round_trip(&mut a, "disputed");
    // History, not just the board: the same points are forbidden.
    for v in ["E5", "F5", "A2", "H1"] {
        for c in ["b", "w"] {
            let cmd = format!("is_legal {c} {v}");
            assert_eq!(ok(&mut a, &cmd), ok(&mut b, &cmd), "{cmd}");
        }
    }
    // Undo works across the reload, entry by entry.
    ok(&mut b, "gg-undo 2");
    ok(&mut a, "gg-undo 2");
    assert_eq!(ok(&mut a, "list_stones b"), ok(&mut b, "list_stones b"));
}

#[test]
fn handicap_and_set_position_starts_survive_a_round_trip() {
    let mut a = session();
    ok(&mut a, "fixed_handicap 4");
    ok(&mut a, "play w E5");
    let mut b = round_trip(&mut a, "handicap");
    // Handicap stones belong to the start: undo cannot remove them.
    ok(&mut b, "undo");
    assert_eq!(b.run_line("undo"), "? cannot undo\n\n");
    assert_eq!(ok(&mut b, "list_stones b").split(' ').count(), 4);
    assert!(ok(&mut b, "printsgf").contains("HA[4]"));

    let mut a = session();
    ok(&mut a, "set_position b C3 w D4 b E5");
    ok(&mut a, "gogui-setup_player w");
    ok(&mut a, "play w F6");
    round_trip(&mut a, "set-position");
}
