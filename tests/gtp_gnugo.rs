//! Optional: two short 9x9 games against GNU Go through GTP, with our own
//! `Position` as referee checking every move. Skipped (with a message) when
//! GNU Go is not installed.

mod common;

use common::Gtp;
use tengen::rules::Color;

#[test]
fn two_games_against_gnugo() {
    let Some(gnugo) = common::gnugo("two_games_against_gnugo") else {
        return;
    };
    let size = 9;
    for (game, tengen_color) in [(0, Color::Black), (1, Color::White)] {
        let mut ours = Gtp::start(
            env!("CARGO_BIN_EXE_tengen"),
            &[
                "gtp",
                "--size",
                "9",
                "--no-autosave",
                "--seed",
                "7",
                "--visits",
                "32",
            ],
        );
        let mut theirs = Gtp::start(
            &gnugo,
            &["--mode", "gtp", "--level", "1", "--chinese-rules"],
        );
        let played = common::refereed_game(&mut ours, &mut theirs, tengen_color, size, 7.0, 250);
        if let Some(c) = played.resigned {
            eprintln!("game {game}: {c} resigned after {} moves", played.moves);
        }
        let moves = played.moves;
        let score = ours.ok("final_score");
        let gnu_score = theirs.ok("final_score");
        eprintln!(
            "game {game}: tengen as {tengen_color}, {moves} moves, tengen says {score}, GNU Go says {gnu_score}"
        );
    }
}
