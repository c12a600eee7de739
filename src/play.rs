//! `tengen play`: a terminal game for people (an operator at an event, or
//! a human opponent).
//!
//! A thin layer over the GTP [`Session`]: every human command becomes the
//! GTP command that does the same thing (`D4` → `play b D4`, `undo 2` →
//! `gg-undo 2`, `add w C3` → `gogui-setup w C3`, `save f.sgf` →
//! `printsgf f.sgf`, …), so terminal play and GTP share one game, one
//! engine, one autosave. The board is shown after every move with the
//! newest stone in parentheses (and highlighted when `ansi` is on).

use std::io::{self, BufRead, Write};
use std::time::Instant;

use crate::game::display;
use crate::gtp::Session;
use crate::rules::{Color, Move};

const HELP: &str = "\
Commands:
  D4            play a stone (column letter without I, row number)
  pass          pass
  resign        resign the game
  undo [N]      take back N moves (default: your last move and the reply)
  add b|w D4    put a stone on the board (an edit; play goes on from there)
  remove D4     take a stone off the board
  tomove b|w    set who moves next
  save FILE     write the game as SGF
  load FILE     read a game from SGF
  score         count the board as it stands (dead stones estimated)
  hint          what the engine would play for you
  new           start a new game
  gtp COMMAND   send any GTP command (e.g. gtp komi 6.5)
  help, quit";

/// Plays a game between the person at `input`/`out` (playing `human`) and
/// the engine, until `quit` or end of input.
pub fn run(
    session: &mut Session,
    human: Color,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    ansi: bool,
) -> io::Result<()> {
    writeln!(out, "You play {human}. Type help for commands.")?;
    let mut show = true;
    loop {
        let game = &session.game;
        if show {
            writeln!(out, "\n{}", display::render(game, ansi))?;
        }
        show = true;
        let over = game.is_over();
        if over {
            let result = match game.result() {
                Some(r) => r.to_string(),
                None => reply_text(&session.run_line("final_score")),
            };
            writeln!(out, "Game over. Result: {result}")?;
            writeln!(out, "(undo, new, save FILE or quit)")?;
        } else if game.to_move() != human {
            let engine = human.opp();
            let reply = reply_text(&session.run_line(&format!("genmove {}", letter(engine))));
            if reply == "resign" {
                writeln!(out, "tengen ({engine}) resigns")?;
                session
                    .game
                    .set_result(Some(format!("{}+R", human.letter())));
                session.autosave_now();
            } else {
                writeln!(out, "tengen ({engine}) plays {reply}")?;
            }
            continue;
        }
        write!(out, "{} to move> ", capital(session.game.to_move()))?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Ok(());
        }
        let started = Instant::now();
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(first) = words.first() else {
            show = false;
            continue;
        };
        let rest = words[1..].join(" ");
        let size = session.game.size();
        let gtp = match first.to_lowercase().as_str() {
            "quit" | "exit" => return Ok(()),
            "help" | "?" => {
                writeln!(out, "{HELP}")?;
                show = false;
                continue;
            }
            "resign" => {
                let winner = human.opp();
                session
                    .game
                    .set_result(Some(format!("{}+R", winner.letter())));
                session.autosave_now();
                continue;
            }
            "pass" => format!("play {} pass", letter(human)),
            "undo" => {
                let n = if rest.is_empty() {
                    let last_engine = session.game.last_move().is_some_and(|(c, _)| c != human);
                    if last_engine && session.game.entries().len() >= 2 {
                        2
                    } else {
                        1
                    }
                } else {
                    rest.parse().unwrap_or(0)
                };
                format!("gg-undo {n}")
            }
            "add" => format!("gogui-setup {rest}"),
            "remove" => format!("gogui-setup e {rest}"),
            "tomove" => format!("gogui-setup_player {rest}"),
            "save" => format!("printsgf {rest}"),
            "load" => format!("loadsgf {rest}"),
            "new" => "clear_board".to_string(),
            "score" => {
                let score = session.run_line("final_score");
                let dead = session.run_line("final_status_list dead");
                writeln!(out, "Score: {}", reply_text(&score))?;
                let dead = reply_text(&dead).replace('\n', " ");
                writeln!(
                    out,
                    "Dead stones: {}",
                    if dead.is_empty() { "none" } else { &dead }
                )?;
                show = false;
                continue;
            }
            "hint" => format!("reg_genmove {}", letter(session.game.to_move())),
            "gtp" => rest.clone(),
            _ => match Move::parse_gtp(first, size) {
                Some(mv) if words.len() == 1 => {
                    if let Err(e) = session.game.position().check(human, mv) {
                        writeln!(out, "Illegal move: {e}")?;
                        show = false;
                        continue;
                    }
                    format!("play {} {}", letter(human), first)
                }
                _ => {
                    writeln!(out, "Unknown command; type help")?;
                    show = false;
                    continue;
                }
            },
        };
        let was_move = gtp.starts_with("play ");
        let reply = session.run_line(&gtp);
        if reply.starts_with('?') {
            writeln!(out, "Error: {}", reply_text(&reply))?;
            show = false;
        } else {
            if was_move {
                session.game.clock_mut().charge(human, started.elapsed());
                session.autosave_now();
            }
            let text = reply_text(&reply);
            if !text.is_empty() && !was_move {
                writeln!(out, "{text}")?;
            }
        }
    }
}

/// The text of a GTP reply without `=`/`?`, id and trailing blank line.
fn reply_text(reply: &str) -> String {
    let body = reply.trim_end();
    let body = body.trim_start_matches(['=', '?']);
    let body = body.trim_start_matches(|c: char| c.is_ascii_digit());
    body.strip_prefix(' ').unwrap_or(body).to_string()
}

fn letter(c: Color) -> char {
    c.letter().to_ascii_lowercase()
}

fn capital(c: Color) -> &'static str {
    match c {
        Color::Black => "Black",
        Color::White => "White",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gtp::{Autosave, SessionConfig};

    #[test]
    fn a_short_terminal_game() {
        let mut s = SessionConfig {
            size: 9,
            autosave: Autosave::Off,
            ..SessionConfig::default()
        }
        .build()
        .unwrap();
        let script = "E5\nadd w A1\nundo\nfoo\nK10\nscore\nresign\nquit\n";
        let mut input = io::Cursor::new(script.as_bytes().to_vec());
        let mut out = Vec::new();
        run(&mut s, Color::Black, &mut input, &mut out, false).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("tengen (white) plays"), "{text}");
        assert!(text.contains("Unknown command"), "{text}");
        assert!(text.contains("Result: W+R"), "{text}");
        assert!(text.contains("(X)") || text.contains("(O)"), "{text}");
    }
}
