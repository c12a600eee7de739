//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// KataGo's b10 net (`b10c384h6nbttflrs.bin.gz`, from the PyPI wheel
/// `katrain==1.20.0`): `TENGEN_KATAGO_NET`, else
/// `../katrain/katrain/models/` beside the crate; `None` when neither
/// exists (the caller says what it skips).
pub fn katago_net() -> Option<PathBuf> {
    let p = std::env::var_os("TENGEN_KATAGO_NET")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../katrain/katrain/models/b10c384h6nbttflrs.bin.gz")
        });
    p.exists().then_some(p)
}

/// `../shared/testdata/<rel>` relative to the crate root, or `None` (with a
/// clear message on stderr) when the shared test data is not there.
pub fn testdata(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/testdata")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!(
            "skipping: {} not found (the shared test data lives beside the repository)",
            p.display()
        );
        None
    }
}

/// A GTP engine run as a child process; killed when dropped.
pub struct Gtp {
    pub child: Child,
    pub stdin: ChildStdin,
    pub stdout: BufReader<ChildStdout>,
}

impl Gtp {
    pub fn start(program: &str, args: &[&str]) -> Gtp {
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

    /// `tengen gtp ARGS`, the binary under test, with the heuristic
    /// evaluator unless ARGS name another (or a model): fast and the same
    /// on every machine. `tengen_default` runs the shipped net.
    pub fn tengen(args: &[&str]) -> Gtp {
        let mut all = vec!["gtp"];
        if !args.iter().any(|a| *a == "--evaluator" || *a == "--model") {
            all.extend_from_slice(&["--evaluator", "heuristic"]);
        }
        all.extend_from_slice(args);
        Gtp::start(env!("CARGO_BIN_EXE_tengen"), &all)
    }

    /// Sends a command; returns `Ok(result)` or `Err(message)`.
    pub fn send(&mut self, cmd: &str) -> Result<String, String> {
        writeln!(self.stdin, "{cmd}").unwrap();
        self.stdin.flush().unwrap();
        let mut reply = String::new();
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).unwrap();
            assert!(n > 0, "engine closed its output after {cmd:?}");
            if line.trim().is_empty() && !reply.is_empty() {
                break;
            }
            reply.push_str(&line);
        }
        let reply = reply.trim_end().to_string();
        let body = reply.get(1..).unwrap_or("").trim_start().to_string();
        if reply.starts_with('=') {
            Ok(body)
        } else {
            Err(body)
        }
    }

    /// Sends a command that must succeed and returns its result.
    pub fn ok(&mut self, cmd: &str) -> String {
        self.send(cmd).unwrap_or_else(|e| panic!("{cmd}: ? {e}"))
    }

    /// The words of a list reply (`final_status_list dead`), sorted.
    pub fn sorted_words(&mut self, cmd: &str) -> Vec<String> {
        let mut words: Vec<String> = self
            .ok(cmd)
            .split_whitespace()
            .map(str::to_string)
            .collect();
        words.sort();
        words
    }
}

impl Drop for Gtp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// GNU Go's path, or `None` (with a message) when it is not installed.
pub fn gnugo(test: &str) -> Option<String> {
    const GNUGO: &str = "/usr/games/gnugo";
    if Path::new(GNUGO).exists() {
        return Some(GNUGO.to_string());
    }
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("gnugo"))
            .find(|p| p.exists())
    });
    if found.is_none() {
        eprintln!("SKIPPED {test}: gnugo is not installed (apt-get install gnugo)");
    }
    found.map(|p| p.to_string_lossy().into_owned())
}

/// All `*.sgf` files under `dir`, sorted (walked with a stack, not
/// recursion).
pub fn sgf_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "sgf") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// An in-process GTP session with the heuristic evaluator and no autosave.
pub fn session(size: usize, seed: u64, rollouts: u32, visits: Option<u64>) -> tengen::gtp::Session {
    tengen::gtp::SessionConfig {
        size,
        seed,
        rollouts,
        visits,
        autosave: tengen::gtp::Autosave::Off,
        ..tengen::gtp::SessionConfig::default()
    }
    .build()
    .unwrap()
}

/// Runs a command that must succeed on an in-process session and returns
/// its result.
pub fn ok(s: &mut tengen::gtp::Session, cmd: &str) -> String {
    let r = s.run_line(cmd);
    assert!(r.starts_with('='), "{cmd}: {r}");
    r[1..].trim().to_string()
}

/// How a refereed game between two GTP engines ended.
pub struct Played {
    /// Moves played (passes included).
    pub moves: usize,
    /// The colour that resigned, if one did.
    pub resigned: Option<tengen::rules::Color>,
}

/// Plays one game between `ours` (as `ours_color`) and `theirs` on a fresh
/// `size` board with `komi`, with our own `Position` as referee checking
/// every move (an illegal or unreadable move fails the test), until two
/// passes, a resignation or `max_moves`.
pub fn refereed_game(
    ours: &mut Gtp,
    theirs: &mut Gtp,
    ours_color: tengen::rules::Color,
    size: usize,
    komi: f32,
    max_moves: usize,
) -> Played {
    use tengen::rules::{Color, Move, Position, Ruleset};
    for e in [&mut *ours, &mut *theirs] {
        e.ok(&format!("boardsize {size}"));
        e.ok("clear_board");
        e.ok(&format!("komi {komi}"));
    }
    let mut referee = Position::new(size, Ruleset::chinese().with_komi(komi)).unwrap();
    let mut moves = 0;
    while !referee.is_over() && moves < max_moves {
        let color = referee.to_move();
        let c = if color == Color::Black { "b" } else { "w" };
        let (mover, other) = if color == ours_color {
            (&mut *ours, &mut *theirs)
        } else {
            (&mut *theirs, &mut *ours)
        };
        let text = mover.ok(&format!("genmove {c}"));
        if text.eq_ignore_ascii_case("resign") {
            return Played {
                moves,
                resigned: Some(color),
            };
        }
        let mv = Move::parse_gtp(&text, size)
            .unwrap_or_else(|| panic!("move {moves}: unparsable {text:?}"));
        referee
            .play(color, mv)
            .unwrap_or_else(|e| panic!("move {moves}: {color} {text} is illegal: {e}"));
        other.ok(&format!("play {c} {text}"));
        moves += 1;
    }
    Played {
        moves,
        resigned: None,
    }
}
