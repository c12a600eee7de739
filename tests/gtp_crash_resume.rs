//! Crash recovery (A4) in real games: tengen plays GNU Go on 9×9 under a
//! clock, is killed with SIGKILL at a random move, restarted with
//! `--resume` from its autosave, and finishes the game. After every
//! restart the position, side to move, komi, superko history (every legal
//! point agrees with the referee) and both clocks must be exactly what they
//! were. `TENGEN_RESUME_GAMES` sets the number of games (default 2; the
//! issue's measurement ran 20).

mod common;

use common::Gtp;
use tengen::rules::{Color, Move, Position, Ruleset};

const SIZE: usize = 9;

fn tengen(autosave: &str, resume: bool) -> Gtp {
    let mut args = vec![
        "--size",
        "9",
        "--visits",
        "24",
        "--autosave",
        autosave,
        "--seed",
        "5",
    ];
    if resume {
        args.extend_from_slice(&["--resume", autosave]);
    }
    Gtp::tengen(&args)
}

/// What must survive a restart, as tengen reports it.
fn state(e: &mut Gtp) -> (String, String, String, String, String) {
    let sgf = e.ok("printsgf");
    let clocks: String = ["TGTIME[", "TGCLOCKB[", "TGCLOCKW["]
        .iter()
        .map(|k| {
            sgf.split(k)
                .nth(1)
                .and_then(|r| r.split(']').next())
                .unwrap_or("")
                .to_string()
        })
        .collect::<Vec<_>>()
        .join(" | ");
    (
        e.ok("list_stones b"),
        e.ok("list_stones w"),
        e.ok("gogui-rules_side_to_move"),
        e.ok("kata-get-rules"),
        clocks,
    )
}

fn check_legal_points(e: &mut Gtp, referee: &Position, game: usize, at: usize) {
    let color = referee.to_move();
    let c = if color == Color::Black { "b" } else { "w" };
    for p in referee.board().points() {
        let v = Move::Place(p).to_gtp(SIZE);
        let ours = e.ok(&format!("is_legal {c} {v}")) == "1";
        let theirs = referee.check(color, Move::Place(p)).is_ok();
        assert_eq!(ours, theirs, "game {game}, move {at}: is_legal {c} {v}");
    }
}

#[test]
fn killed_mid_game_and_resumed_every_game_finishes() {
    let Some(gnugo) = common::gnugo("killed_mid_game_and_resumed_every_game_finishes") else {
        return;
    };
    let games: usize = std::env::var("TENGEN_RESUME_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    let dir = std::env::temp_dir().join(format!("tengen-crash-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    for game in 0..games {
        let file = dir.join(format!("game{game}.sgf"));
        let file_s = file.to_str().unwrap().to_string();
        let _ = std::fs::remove_file(&file);
        let mut ours = tengen(&file_s, false);
        let mut theirs = Gtp::start(
            &gnugo,
            &["--mode", "gtp", "--level", "1", "--seed", &game.to_string()],
        );
        let komi = if game % 2 == 0 { 5.5 } else { 7.0 };
        let ours_color = if game % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        for e in [&mut ours, &mut theirs] {
            e.ok(&format!("boardsize {SIZE}"));
            e.ok("clear_board");
            e.ok(&format!("komi {komi}"));
        }
        ours.ok("time_settings 300 0 0");
        let kill_at = 6 + next(40);
        let mut referee = Position::new(SIZE, Ruleset::chinese().with_komi(komi)).unwrap();
        let mut moves = 0;
        let mut restarted = false;
        while !referee.is_over() && moves < 160 {
            if moves == kill_at && !restarted {
                let before = state(&mut ours);
                ours.child.kill().unwrap();
                ours.child.wait().unwrap();
                ours = tengen(&file_s, true);
                assert_eq!(state(&mut ours), before, "game {game}: restored state");
                check_legal_points(&mut ours, &referee, game, moves);
                restarted = true;
            }
            let color = referee.to_move();
            let c = if color == Color::Black { "b" } else { "w" };
            let (mover, other) = if color == ours_color {
                (&mut ours, &mut theirs)
            } else {
                (&mut theirs, &mut ours)
            };
            let text = mover.ok(&format!("genmove {c}"));
            if text.eq_ignore_ascii_case("resign") {
                break;
            }
            let mv = Move::parse_gtp(&text, SIZE)
                .unwrap_or_else(|| panic!("game {game}, move {moves}: unparsable {text:?}"));
            referee
                .play(color, mv)
                .unwrap_or_else(|e| panic!("game {game}, move {moves}: {c} {text}: {e}"));
            other.ok(&format!("play {c} {text}"));
            moves += 1;
        }
        assert!(restarted || moves < kill_at, "game {game}: never restarted");
        eprintln!("game {game}: {moves} moves, killed at move {kill_at}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
