//! Corpus tests: every game record under `../shared/testdata/sgf/` reads,
//! replays under Chinese rules (positional superko, no suicide), and
//! survives a write/read round trip with the same main line, setup, size,
//! komi, game information and comments.
//!
//! The test data lives outside the repository; when it is absent the tests
//! say so on stderr and pass.

mod common;

use std::path::Path;

use common::sgf_files;

use tengen::rules::{IllegalMove, KoRule, Ruleset};
use tengen::sgf::{write_record, GameRecord, ReplayError};

fn rel(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Games in the corpus that genuinely contain a move that is illegal under
/// Chinese rules (positional superko, no suicide). Each must still fail at
/// exactly this move, for exactly this reason; the superko ones must replay
/// completely under simple ko (so the repetition is the only problem).
const KNOWN_ILLEGAL: &[(&str, usize, IllegalMove)] = &[
    // Fuego ladder test with a triple ko (its comment says the sequence came
    // from old ladder code): B J8 repeats an earlier whole-board position.
    (
        "fuego/sgf/ladder/ladder-triple-ko.sgf",
        51,
        IllegalMove::Superko,
    ),
    // Japanese rules, RE[W+Repetition]: the last move (381) recreates an
    // earlier position; that repetition is how the game ended.
    (
        "gnugo/games/gifu2006/gnugo-gorimu.sgf",
        381,
        IllegalMove::Superko,
    ),
    // NNGS game: move 443 of 462, in the
    // endgame, repeats an earlier whole-board position.
    (
        "gnugo/games/nngs/gnugo-3.1.22-heeroy-200201252006.sgf",
        443,
        IllegalMove::Superko,
    ),
    // Japanese rules (GNU Go's `pending/ko6`): move 248 of 260 repeats an
    // earlier whole-board position.
    ("gnugo/games/pending/ko6.sgf", 248, IllegalMove::Superko),
    // Pachi regression file: the last move B[sn] is on the point that
    // W[sn] took the move before.
    (
        "pachi/fixed/first_line_connect3/game.sgf",
        225,
        IllegalMove::Occupied,
    ),
];

#[test]
fn every_corpus_game_reads_and_replays() {
    let Some(data) = common::testdata("") else {
        return;
    };
    let base = data.join("sgf");
    let files = sgf_files(&base);
    assert!(
        files.len() >= 800,
        "expected the whole corpus, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    let mut replayed = 0;
    let mut moves = 0;
    for path in &files {
        let name = rel(path, &base);
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{name}: cannot read: {e}"));
                continue;
            }
        };
        let rec = match GameRecord::from_bytes(&bytes) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{name}: does not read: {e}"));
                continue;
            }
        };
        let known = KNOWN_ILLEGAL.iter().find(|k| k.0 == name);
        match (rec.replay_with(Ruleset::chinese(), None), known) {
            (Ok(_), None) => {
                replayed += 1;
                moves += rec.move_count();
            }
            (Ok(_), Some(_)) => failures.push(format!("{name}: listed as illegal but replays")),
            (Err(e), None) => failures.push(format!("{name}: does not replay: {e}")),
            (Err(e), Some(&(_, number, reason))) => {
                let ok = matches!(e, ReplayError::IllegalMove { number: n, reason: r, .. }
                    if n == number && r == reason);
                if !ok {
                    failures.push(format!(
                        "{name}: expected move {number} to be illegal ({reason}), got {e}"
                    ));
                }
                let mut simple = Ruleset::chinese();
                simple.ko = KoRule::Simple;
                let under_simple_ko = rec.replay_with(simple, None);
                match reason {
                    IllegalMove::Superko if under_simple_ko.is_err() => failures.push(format!(
                        "{name}: does not replay under simple ko either: {:?}",
                        under_simple_ko.err()
                    )),
                    _ => {}
                }
                // Everything before the illegal move replays.
                if let Err(e) = rec.replay_with(Ruleset::chinese(), Some(number - 1)) {
                    failures.push(format!("{name}: moves before {number} do not replay: {e}"));
                }
            }
        }
    }
    eprintln!(
        "corpus: {} files, {replayed} replayed ({moves} moves), {} known illegal",
        files.len(),
        KNOWN_ILLEGAL.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_corpus_game_round_trips() {
    let Some(data) = common::testdata("") else {
        return;
    };
    let base = data.join("sgf");
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in sgf_files(&base) {
        let name = rel(&path, &base);
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        // Files that do not read are reported by the other test.
        let Ok(rec) = GameRecord::from_bytes(&bytes) else {
            continue;
        };
        let text = write_record(&rec);
        let back = match GameRecord::from_sgf(&text) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{name}: written file does not read: {e}"));
                continue;
            }
        };
        let same = back.size == rec.size
            && back.komi == rec.komi
            && back.handicap == rec.handicap
            && back.rules == rec.rules
            && back.result == rec.result
            && back.black == rec.black
            && back.white == rec.white
            && back.date == rec.date
            && back.game_comment == rec.game_comment
            && back.nodes == rec.nodes;
        if !same {
            failures.push(format!("{name}: round trip differs"));
            continue;
        }
        for p in &rec.root_extra {
            if back.root_property_values(&p.id) != p.texts() {
                failures.push(format!("{name}: root property {} differs", p.id));
            }
        }
        // The written file must replay to the same final position.
        if let (Ok(a), Ok(b)) = (
            rec.replay_with(Ruleset::chinese(), None),
            back.replay_with(Ruleset::chinese(), None),
        ) {
            if a.board().hash() != b.board().hash() || a.to_move() != b.to_move() {
                failures.push(format!("{name}: replay of the written file differs"));
            }
        }
        // Writing again gives the same text.
        if write_record(&back) != text {
            failures.push(format!("{name}: second write differs"));
        }
        checked += 1;
    }
    eprintln!("round trip: {checked} files");
    assert!(checked >= 800);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
