//! Optional: two short 9x9 games against GNU Go through GTP, with our own
//! `Position` as referee checking every move. Skipped (with a message) when
//! GNU Go is not installed.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use tengen::rules::{Color, Move, Position, Ruleset};

struct Gtp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Gtp {
    fn start(program: &str, args: &[&str]) -> Gtp {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start engine");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Gtp {
            child,
            stdin,
            stdout,
        }
    }

    fn ok(&mut self, cmd: &str) -> String {
        writeln!(self.stdin, "{cmd}").unwrap();
        self.stdin.flush().unwrap();
        let mut reply = String::new();
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "{cmd}: no reply"
            );
            if line.trim().is_empty() && !reply.is_empty() {
                break;
            }
            reply.push_str(&line);
        }
        assert!(reply.starts_with('='), "{cmd}: {reply}");
        reply[1..].trim().to_string()
    }
}

impl Drop for Gtp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const GNUGO: &str = "/usr/games/gnugo";

#[test]
fn two_games_against_gnugo() {
    let gnugo = if Path::new(GNUGO).exists() {
        GNUGO.to_string()
    } else if let Some(p) = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("gnugo"))
            .find(|p| p.exists())
    }) {
        p.to_string_lossy().into_owned()
    } else {
        eprintln!(
            "SKIPPED two_games_against_gnugo: gnugo is not installed (apt-get install gnugo)"
        );
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
                "--max-time",
                "0.5",
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
