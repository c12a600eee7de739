//! Optional: two short 9x9 games against GNU Go through GTP, with our own
//! `Position` as referee checking every move. Skipped (with a message) when
//! GNU Go is not installed.

mod common;

use common::Gtp;
use tengen::rules::{Color, Move, Position, Ruleset};

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
        for e in [&mut ours, &mut theirs] {
            e.ok("boardsize 9");
            e.ok("clear_board");
            e.ok("komi 7");
        }
        let mut referee = Position::new(size, Ruleset::chinese().with_komi(7.0)).unwrap();
        let mut moves = 0;
        while !referee.is_over() && moves < 250 {
            let color = referee.to_move();
            let c = if color == Color::Black { "b" } else { "w" };
            let (mover, other) = if color == tengen_color {
                (&mut ours, &mut theirs)
            } else {
                (&mut theirs, &mut ours)
            };
            let text = mover.ok(&format!("genmove {c}"));
            if text.eq_ignore_ascii_case("resign") {
                eprintln!("game {game}: {color} resigned after {moves} moves");
                break;
            }
            let mv = Move::parse_gtp(&text, size)
                .unwrap_or_else(|| panic!("game {game} move {moves}: unparsable {text:?}"));
            referee.play(color, mv).unwrap_or_else(|e| {
                panic!("game {game} move {moves}: {color} {text} is illegal: {e}")
            });
            other.ok(&format!("play {c} {text}"));
            moves += 1;
        }
        let score = ours.ok("final_score");
        let gnu_score = theirs.ok("final_score");
        eprintln!(
            "game {game}: tengen as {tengen_color}, {moves} moves, tengen says {score}, GNU Go says {gnu_score}"
        );
    }
}
