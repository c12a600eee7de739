//! The command table: every GTP command's name, handler and one-line help,
//! in one place. `list_commands`, `known_command` and `help` read it.
//!
//! Handlers return `Ok(result)` or `Err(message)`; messages start with the
//! GTP spec's wording (`illegal move`, `syntax error`, `cannot undo`, …),
//! with details after a colon.

use std::path::Path;

use super::analyze;
use super::args::{
    args_between, color_arg, count_arg, game_err, move_arg, point_arg, secs_arg, short, u32_arg,
    vertices,
};
use super::endgame;
use super::genmove::generate;
use super::kata_rules;
use super::session::{Call, Session};
use crate::eval::{EvalInput, PREV_BOARDS, RECENT_MOVES};
use crate::game::{display, save, GameError, TimeControl};
use crate::rules::handicap;
use crate::rules::{Color, Point, MAX_SIZE, MIN_SIZE};

pub use super::args::Reply;

/// A command handler.
pub type Handler = fn(&mut Session, &mut Call) -> Reply;

/// One command: name, handler, help.
pub struct CommandSpec {
    pub name: &'static str,
    pub handler: Handler,
    pub help: &'static str,
}

macro_rules! table {
    ($($name:literal => $handler:path, $help:literal;)*) => {
        /// All commands, in `list_commands` order.
        pub static COMMANDS: &[CommandSpec] = &[
            $(CommandSpec { name: $name, handler: $handler, help: $help },)*
        ];
    };
}

table! {
    "protocol_version" => protocol_version, "GTP version: 2";
    "name" => name, "engine name";
    "version" => version, "engine version";
    "known_command" => known_command, "known_command NAME: true or false";
    "list_commands" => list_commands, "all commands, one per line";
    "help" => help, "commands with a line of help each";
    "quit" => quit, "end the session";
    "boardsize" => boardsize, "boardsize N: new empty board of N x N (2 to 19)";
    "clear_board" => clear_board, "empty the board, keep size, rules, komi, time settings";
    "komi" => komi, "komi K: set komi (points for White)";
    "play" => play, "play COLOR VERTEX|pass: opponent's disputed moves are applied as played";
    "genmove" => genmove, "genmove COLOR: choose a move, play it";
    "reg_genmove" => reg_genmove, "reg_genmove COLOR: choose a move without playing it";
    "kgs-genmove_cleanup" => genmove_cleanup, "kgs-genmove_cleanup COLOR: genmove that captures dead stones before passing";
    "undo" => undo, "take back the last move or edit";
    "gg-undo" => gg_undo, "gg-undo [N]: take back N moves or edits (default 1)";
    "fixed_handicap" => fixed_handicap, "fixed_handicap N: standard handicap stones";
    "place_free_handicap" => place_free_handicap, "place_free_handicap N: the engine places N handicap stones";
    "set_free_handicap" => set_free_handicap, "set_free_handicap VERTEX...: handicap stones chosen by the controller";
    "time_settings" => time_settings, "time_settings MAIN BYO STONES (seconds; Canadian overtime)";
    "kgs-time_settings" => kgs_time_settings, "kgs-time_settings none | absolute MAIN | byoyomi MAIN PERIOD N | canadian MAIN PERIOD STONES | fischer MAIN INCREMENT";
    "time_left" => time_left, "time_left COLOR TIME STONES: synchronise a clock";
    "final_score" => endgame::final_score, "score with dead stones removed: B+n, W+n or 0";
    "final_status_list" => endgame::final_status_list, "final_status_list dead|alive|seki: one string per line";
    "tengen-judge" => endgame::judge, "tengen-judge [VISITS]: estimated winner, margin in points and stones, win probability, confidence";
    "loadsgf" => loadsgf, "loadsgf FILE [MOVENUMBER]: load a game (stop before that move)";
    "printsgf" => printsgf, "printsgf [FILE]: the game as SGF (or written to FILE)";
    "showboard" => showboard, "the board, newest stone in parentheses";
    "kgs-game_over" => game_over, "the server says the game is over";
    "kata-get-rules" => kata_get_rules, "the rules as KataGo JSON";
    "kata-raw-nn" => kata_raw_nn, "kata-raw-nn SYMMETRY [OPTIMISM]: the net's raw outputs in KataGo's format (needs --model)";
    "kata-set-rules" => kata_set_rules, "kata-set-rules chinese|tromp-taylor|nz|aga|JSON";
    "gogui-setup" => gogui_setup, "gogui-setup b|w|e VERTEX ...: add or remove stones (an edit)";
    "gogui-setup_player" => gogui_setup_player, "gogui-setup_player COLOR: set the player to move (an edit)";
    "set_position" => set_position, "set_position [COLOR VERTEX ...]: start over from exactly these stones";
    "gogui-analyze_commands" => gogui_analyze_commands, "analysis commands for GoGui";
    "gogui-rules_game_id" => rules_game_id, "Go";
    "gogui-rules_board" => rules_board, "the board as rows of X, O and .";
    "gogui-rules_board_size" => rules_board_size, "the board size";
    "gogui-rules_legal_moves" => rules_legal_moves, "legal moves of the player to move";
    "gogui-rules_side_to_move" => rules_side_to_move, "black or white";
    "gogui-rules_final_result" => rules_final_result, "the result once the game is over, else unknown";
    "is_legal" => is_legal, "is_legal COLOR VERTEX: 1 or 0";
    "list_stones" => list_stones, "list_stones COLOR: that colour's stones";
    "stop" => stop, "stop analysis (any new line does too)";
    "lz-analyze" => analyze::lz_analyze, "lz-analyze [COLOR] [INTERVAL]: stream analysis until interrupted";
    "kata-analyze" => analyze::kata_analyze, "kata-analyze [COLOR] [INTERVAL] [ownership true] [rootInfo true]: stream analysis until interrupted";
    "analyze" => analyze::sabaki_analyze, "analyze [COLOR] [INTERVAL]: lz-analyze with scoreLead (Sabaki)";
    "lz-genmove_analyze" => analyze::lz_genmove_analyze, "lz-genmove_analyze [COLOR] [INTERVAL]: genmove streaming lz-analyze lines, then play MOVE";
    "kata-genmove_analyze" => analyze::kata_genmove_analyze, "kata-genmove_analyze [COLOR] [INTERVAL] [ownership true]: genmove streaming kata-analyze lines, then play MOVE";
    "genmove_analyze" => analyze::sabaki_genmove_analyze, "genmove_analyze [COLOR] [INTERVAL]: genmove streaming analyze lines, then play MOVE";
}

/// The command called `name` (lower-case).
pub fn find(name: &str) -> Option<&'static CommandSpec> {
    COMMANDS.iter().find(|c| c.name == name)
}

// --- Administrative ---

fn protocol_version(_: &mut Session, _: &mut Call) -> Reply {
    Ok("2".into())
}

fn name(_: &mut Session, _: &mut Call) -> Reply {
    Ok("tengen".into())
}

fn version(_: &mut Session, _: &mut Call) -> Reply {
    Ok(env!("CARGO_PKG_VERSION").into())
}

fn known_command(_: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 1, 1, "known_command NAME")?;
    Ok(find(&call.args[0].to_lowercase()).is_some().to_string())
}

fn list_commands(_: &mut Session, _: &mut Call) -> Reply {
    Ok(COMMANDS
        .iter()
        .map(|c| c.name)
        .collect::<Vec<_>>()
        .join("\n"))
}

fn help(_: &mut Session, _: &mut Call) -> Reply {
    Ok(COMMANDS
        .iter()
        .map(|c| format!("{}: {}", c.name, c.help))
        .collect::<Vec<_>>()
        .join("\n"))
}

fn quit(s: &mut Session, _: &mut Call) -> Reply {
    s.request_quit();
    Ok(String::new())
}

// --- Setting up ---

fn boardsize(s: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 1, 1, "boardsize N")?;
    let a = &call.args[0];
    if !a.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("syntax error: not a board size: '{}'", short(a)));
    }
    let n: usize = a.parse().unwrap_or(usize::MAX);
    if !(MIN_SIZE..=MAX_SIZE).contains(&n) {
        return Err("unacceptable size".into());
    }
    let g = s
        .game
        .resized(n)
        .map_err(|_| "unacceptable size".to_string())?;
    s.replace_game(g);
    Ok(String::new())
}

fn clear_board(s: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 0, 0, "clear_board")?;
    let g = s.game.cleared();
    s.replace_game(g);
    s.game_over_announced = false;
    Ok(String::new())
}

fn komi(s: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 1, 1, "komi K")?;
    let k: f32 = call.args[0]
        .parse()
        .map_err(|_| format!("syntax error: not a number: '{}'", short(&call.args[0])))?;
    if !k.is_finite() || k.abs() > 1000.0 {
        return Err("syntax error: komi must be a finite number of points (at most 1000)".into());
    }
    s.game.set_komi(k);
    Ok(String::new())
}

fn fixed_handicap(s: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 1, 1, "fixed_handicap N")?;
    let n = count_arg(&call.args[0])?;
    if !s.game.is_fresh() {
        return Err("board not empty".into());
    }
    let pts = handicap::fixed(s.game.size(), n).map_err(|e| e.to_string())?;
    s.game.set_handicap(&pts).map_err(game_err)?;
    Ok(vertices(&pts, s.game.size()))
}

fn place_free_handicap(s: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 1, 1, "place_free_handicap N")?;
    let n = count_arg(&call.args[0])?;
    let size = s.game.size();
    if !s.game.is_fresh() {
        return Err("board not empty".into());
    }
    handicap::check_free(size, n).map_err(|e| e.to_string())?;
    let fixed_n = n.min(handicap::max_fixed(size));
    let mut pts = if fixed_n >= 2 {
        handicap::fixed(size, fixed_n).map_err(|e| e.to_string())?
    } else {
        Vec::new()
    };
    // The rest: each time the empty point farthest from all stones (ties:
    // nearest the 3rd/4th line, then board order).
    while pts.len() < n {
        let best = s
            .game
            .start()
            .board()
            .points()
            .filter(|p| !pts.contains(p))
            .max_by_key(|&p| {
                let far = pts
                    .iter()
                    .map(|q| p.x().abs_diff(q.x()).max(p.y().abs_diff(q.y())))
                    .min()
                    .unwrap_or(size);
                let edge = p.x().min(p.y()).min(size - 1 - p.x()).min(size - 1 - p.y());
                let line = usize::from(edge == 2 || edge == 3);
                (far, line, usize::MAX - p.index())
            });
        match best {
            Some(p) => pts.push(p),
            None => break,
        }
    }
    s.game.set_handicap(&pts).map_err(game_err)?;
    Ok(vertices(&pts, size))
}

fn set_free_handicap(s: &mut Session, call: &mut Call) -> Reply {
    let size = s.game.size();
    let pts = call
        .args
        .iter()
        .map(|a| point_arg(a, size))
        .collect::<Result<Vec<_>, _>>()?;
    if !s.game.is_fresh() {
        return Err("board not empty".into());
    }
    s.game.set_handicap(&pts).map_err(game_err)?;
    Ok(String::new())
}

fn kata_get_rules(s: &mut Session, _: &mut Call) -> Reply {
    Ok(kata_rules::to_json(s.game.rules()))
}

/// `kata-raw-nn SYMMETRY [OPTIMISM]`: the net's outputs for the current
/// position, as KataGo prints them (symmetry in KataGo's numbering, 0-7).
fn kata_raw_nn(s: &mut Session, call: &mut Call) -> Reply {
    let Some(raw) = s.raw_nn.clone() else {
        return Err("no neural net loaded (start with --model FILE)".into());
    };
    let symmetry = match call.args.first().map(|a| a.parse::<usize>()) {
        Some(Ok(k)) if k < 8 => k,
        _ => return Err("syntax error: usage: kata-raw-nn SYMMETRY(0-7) [OPTIMISM]".into()),
    };
    let optimism = match call.args.get(1).map(|a| a.parse::<f32>()) {
        None => None,
        Some(Ok(o)) if (0.0..=1.0).contains(&o) => Some(o),
        Some(_) => return Err("syntax error: OPTIMISM must be a number from 0 to 1".into()),
    };
    let g = &s.game;
    let input = EvalInput::new(g.position().clone())
        .with_recent(g.recent_moves(RECENT_MOVES))
        .with_prev_boards(g.prev_boards(PREV_BOARDS))
        .with_handicap_bonus(g.handicap_points());
    raw(&input, symmetry, optimism)
}

fn kata_set_rules(s: &mut Session, call: &mut Call) -> Reply {
    if call.args.is_empty() {
        return Err("syntax error: usage: kata-set-rules NAME|JSON".into());
    }
    let text = call.args.join(" ");
    let rules = kata_rules::parse(&text, s.game.rules())?;
    s.game.set_rules(rules);
    Ok(String::new())
}

// --- Playing ---

fn play(s: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 2, 2, "play COLOR VERTEX")?;
    let color = color_arg(&call.args[0])?;
    let mv = move_arg(&call.args[1], s.game.size())?;
    match s.game.play_disputed(color, mv) {
        Ok(None) => Ok(String::new()),
        Ok(Some(rule)) => {
            eprintln!(
                "tengen: disputed move {} {} accepted and applied as played ({rule})",
                color,
                mv.to_gtp(s.game.size())
            );
            Ok(String::new())
        }
        Err(GameError::Illegal(e)) => Err(format!("illegal move: {e}")),
        Err(e) => Err(game_err(e)),
    }
}

fn genmove_command(s: &mut Session, call: &mut Call, commit: bool, cleanup: bool) -> Reply {
    args_between(call, 1, 1, "genmove COLOR")?;
    let color = color_arg(&call.args[0])?;
    generate(s, call, color, commit, cleanup, None)
}

fn genmove(s: &mut Session, call: &mut Call) -> Reply {
    genmove_command(s, call, true, false)
}

fn reg_genmove(s: &mut Session, call: &mut Call) -> Reply {
    genmove_command(s, call, false, false)
}

fn genmove_cleanup(s: &mut Session, call: &mut Call) -> Reply {
    genmove_command(s, call, true, true)
}

fn undo(s: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 0, 0, "undo")?;
    s.game.undo(1).map_err(|_| "cannot undo".to_string())?;
    Ok(String::new())
}

fn gg_undo(s: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 0, 1, "gg-undo [N]")?;
    let n = match call.args.first() {
        Some(a) => count_arg(a)?,
        None => 1,
    };
    s.game.undo(n).map_err(|_| "cannot undo".to_string())?;
    Ok(String::new())
}

// --- Time ---

fn time_settings(s: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 3, 3, "time_settings MAIN BYO STONES")?;
    let main = secs_arg(&call.args[0])?;
    let byo = secs_arg(&call.args[1])?;
    let stones = u32_arg(&call.args[2])?;
    s.game
        .clock_mut()
        .set_control(TimeControl::from_gtp(main, byo, stones));
    Ok(String::new())
}

fn kgs_time_settings(s: &mut Session, call: &mut Call) -> Reply {
    let usage = "kgs-time_settings none | absolute MAIN | byoyomi MAIN PERIOD N | canadian MAIN PERIOD STONES";
    let kind = call
        .args
        .first()
        .map(|a| a.to_lowercase())
        .ok_or_else(|| format!("syntax error: usage: {usage}"))?;
    let tc = match kind.as_str() {
        "none" => {
            args_between(call, 1, 1, usage)?;
            TimeControl::None
        }
        "absolute" => {
            args_between(call, 2, 2, usage)?;
            TimeControl::Absolute {
                main: secs_arg(&call.args[1])?,
            }
        }
        "byoyomi" => {
            args_between(call, 4, 4, usage)?;
            let main = secs_arg(&call.args[1])?;
            let period = secs_arg(&call.args[2])?;
            let periods = u32_arg(&call.args[3])?;
            if periods == 0 || period.is_zero() {
                TimeControl::Absolute { main }
            } else {
                TimeControl::ByoYomi {
                    main,
                    period,
                    periods,
                }
            }
        }
        "fischer" => {
            args_between(call, 3, 3, usage)?;
            TimeControl::Fischer {
                main: secs_arg(&call.args[1])?,
                increment: secs_arg(&call.args[2])?,
            }
        }
        "canadian" => {
            args_between(call, 4, 4, usage)?;
            let main = secs_arg(&call.args[1])?;
            let period = secs_arg(&call.args[2])?;
            let stones = u32_arg(&call.args[3])?;
            if stones == 0 || period.is_zero() {
                TimeControl::Absolute { main }
            } else {
                TimeControl::Canadian {
                    main,
                    period,
                    stones,
                }
            }
        }
        _ => return Err(format!("syntax error: usage: {usage}")),
    };
    s.game.clock_mut().set_control(tc);
    Ok(String::new())
}

fn time_left(s: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 3, 3, "time_left COLOR TIME STONES")?;
    let color = color_arg(&call.args[0])?;
    let time = secs_arg(&call.args[1])?;
    let stones = u32_arg(&call.args[2])?;
    s.game.clock_mut().sync(color, time, stones);
    Ok(String::new())
}

// --- End of game ---

fn game_over(s: &mut Session, _: &mut Call) -> Reply {
    s.game_over_announced = true;
    Ok(String::new())
}

// --- Files ---

fn loadsgf(s: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 1, 2, "loadsgf FILE [MOVENUMBER]")?;
    let upto = match call.args.get(1) {
        Some(a) => match count_arg(a)? {
            0 => return Err("syntax error: move numbers start at 1".into()),
            n => Some(n),
        },
        None => None,
    };
    let game = save::load_file(Path::new(&call.args[0]), upto, s.game.clock())
        .map_err(|e| format!("cannot load file: {e}"))?;
    s.replace_game(game);
    Ok(String::new())
}

fn printsgf(s: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 0, 1, "printsgf [FILE]")?;
    let text = save::to_sgf(&s.game);
    match call.args.first() {
        None => Ok(text),
        Some(f) => {
            save::save_atomic(Path::new(f), &text)
                .map_err(|e| format!("cannot write {}: {e}", short(f)))?;
            Ok(String::new())
        }
    }
}

fn showboard(s: &mut Session, _: &mut Call) -> Reply {
    Ok(format!("\n{}", display::render(&s.game, false)))
}

// --- Editing (B6) ---

fn gogui_setup(s: &mut Session, call: &mut Call) -> Reply {
    let size = s.game.size();
    if !call.args.len().is_multiple_of(2) {
        return Err("syntax error: usage: gogui-setup b|w|e VERTEX ...".into());
    }
    let mut edits = Vec::new();
    for pair in call.args.chunks(2) {
        let c = match pair[0].to_lowercase().as_str() {
            "e" | "empty" => None,
            other => Some(color_arg(other)?),
        };
        edits.push((point_arg(&pair[1], size)?, c));
    }
    if edits.is_empty() {
        return Ok(String::new());
    }
    s.game.setup(&edits).map_err(game_err)?;
    Ok(String::new())
}

fn gogui_setup_player(s: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 1, 1, "gogui-setup_player COLOR")?;
    let c = color_arg(&call.args[0])?;
    s.game.set_to_move(c);
    Ok(String::new())
}

fn set_position(s: &mut Session, call: &mut Call) -> Reply {
    let size = s.game.size();
    if !call.args.len().is_multiple_of(2) {
        return Err("syntax error: usage: set_position COLOR VERTEX ...".into());
    }
    let mut stones = Vec::new();
    for pair in call.args.chunks(2) {
        stones.push((point_arg(&pair[1], size)?, color_arg(&pair[0])?));
    }
    // The new position has no history; Black is to move (controllers name
    // the colour in genmove anyway).
    s.game
        .set_position(&stones, Color::Black)
        .map_err(game_err)?;
    Ok(String::new())
}

// --- GoGui ---

fn gogui_analyze_commands(_: &mut Session, _: &mut Call) -> Reply {
    Ok([
        "string/Final score/final_score",
        "plist/Dead stones/final_status_list dead",
        "plist/Seki stones/final_status_list seki",
        "string/Judge the game/tengen-judge",
        "plist/Legal moves/gogui-rules_legal_moves",
        "string/Show board/showboard",
        "string/Rules/kata-get-rules",
        "none/Undo 2/gg-undo 2",
    ]
    .join("\n"))
}

fn rules_game_id(_: &mut Session, _: &mut Call) -> Reply {
    Ok("Go".into())
}

fn rules_board(s: &mut Session, _: &mut Call) -> Reply {
    let pos = s.game.position();
    let n = pos.size();
    let rows: Vec<String> = (0..n)
        .map(|y| {
            (0..n)
                .map(|x| match pos.board().get(Point::new(x, y)) {
                    Some(Color::Black) => "X",
                    Some(Color::White) => "O",
                    None => ".",
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    Ok(format!("\n{}", rows.join("\n")))
}

fn rules_board_size(s: &mut Session, _: &mut Call) -> Reply {
    Ok(s.game.size().to_string())
}

fn rules_legal_moves(s: &mut Session, _: &mut Call) -> Reply {
    if s.game.is_over() {
        return Ok(String::new());
    }
    let size = s.game.size();
    Ok(s.game
        .position()
        .legal_moves()
        .iter()
        .map(|m| m.to_gtp(size))
        .collect::<Vec<_>>()
        .join(" "))
}

fn rules_side_to_move(s: &mut Session, _: &mut Call) -> Reply {
    Ok(s.game.to_move().to_string())
}

fn rules_final_result(s: &mut Session, _: &mut Call) -> Reply {
    if let Some(r) = s.game.result() {
        return Ok(r.to_string());
    }
    if !s.game.is_over() {
        return Ok("unknown".into());
    }
    let game = &s.game;
    Ok(s.engine.final_score(game).result_string())
}

// --- Test tools ---

fn is_legal(s: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 2, 2, "is_legal COLOR VERTEX")?;
    let color = color_arg(&call.args[0])?;
    let ok = match move_arg(&call.args[1], s.game.size()) {
        Ok(mv) => s.game.position().check(color, mv).is_ok(),
        Err(e) if e.starts_with("illegal move") => false,
        Err(e) => return Err(e),
    };
    Ok(if ok { "1" } else { "0" }.into())
}

fn list_stones(s: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 1, 1, "list_stones COLOR")?;
    let color = color_arg(&call.args[0])?;
    let pos = s.game.position();
    let pts: Vec<Point> = pos
        .board()
        .points()
        .filter(|&p| pos.board().get(p) == Some(color))
        .collect();
    Ok(vertices(&pts, pos.size()))
}

fn stop(_: &mut Session, _: &mut Call) -> Reply {
    Ok(String::new())
}
