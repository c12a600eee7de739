//! The match referee: an opponent engine's illegal move loses the game;
//! a well-behaved engine finishes a game that is counted by area.

mod common;

use std::sync::Arc;
use std::time::Duration;

use tengen::eval::fake::UniformEvaluator;
use tengen::search::SearchConfig;
use tengen_train::arena::{play, GtpPlayer, Tengen};

/// A fake GTP engine (POSIX shell) that always answers `genmove` with
/// `MOVE`.
fn fake_engine(dir: &std::path::Path, mv: &str) -> String {
    let script = dir.join(format!("fake-{mv}.sh"));
    std::fs::write(
        &script,
        format!(
            "while read cmd; do case \"$cmd\" in\n\
             genmove*) printf '= {mv}\\n\\n';;\n\
             name*) printf '= fake\\n\\n';;\n\
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
        8,
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
        8,
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
