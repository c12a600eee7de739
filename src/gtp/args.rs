//! Argument parsing and reply helpers shared by the command handlers
//! (`commands`, `analyze`, `endgame`): the handlers depend on this, never
//! on each other.

use std::time::Duration;

use super::session::Call;
use crate::game::clock::parse_secs;
use crate::game::GameError;
use crate::rules::{Color, Move, Point};

/// A handler's reply: the result text or an error message.
pub type Reply = Result<String, String>;

pub(super) fn args_between(call: &Call, min: usize, max: usize, usage: &str) -> Result<(), String> {
    let n = call.args.len();
    if n < min || n > max {
        Err(format!("syntax error: usage: {usage}"))
    } else {
        Ok(())
    }
}

pub(super) fn color_arg(s: &str) -> Result<Color, String> {
    Color::parse(s).ok_or_else(|| format!("syntax error: invalid color '{}'", short(s)))
}

/// A move; vertices shaped like `A1` but off this board are "illegal move",
/// anything else is a syntax error.
pub(super) fn move_arg(s: &str, size: usize) -> Result<Move, String> {
    Move::parse_gtp(s, size).ok_or_else(|| {
        let b = s.as_bytes();
        let column = b
            .first()
            .is_some_and(|c| c.is_ascii_alphabetic() && !c.eq_ignore_ascii_case(&b'i'));
        if b.len() >= 2 && column && b[1..].iter().all(u8::is_ascii_digit) {
            "illegal move: off board".to_string()
        } else {
            format!("syntax error: invalid vertex '{}'", short(s))
        }
    })
}

pub(super) fn point_arg(s: &str, size: usize) -> Result<Point, String> {
    match move_arg(s, size) {
        Ok(Move::Place(p)) => Ok(p),
        Ok(Move::Pass) => Err("syntax error: pass is not a point here".into()),
        Err(_) => Err(format!("syntax error: invalid vertex '{}'", short(s))),
    }
}

pub(super) fn count_arg(s: &str) -> Result<usize, String> {
    s.parse::<usize>()
        .map_err(|_| format!("syntax error: not a count: '{}'", short(s)))
}

pub(super) fn secs_arg(s: &str) -> Result<Duration, String> {
    parse_secs(s).ok_or_else(|| format!("syntax error: not a time in seconds: '{}'", short(s)))
}

pub(super) fn u32_arg(s: &str) -> Result<u32, String> {
    s.parse::<u32>()
        .map_err(|_| format!("syntax error: not a number: '{}'", short(s)))
}

/// At most 40 characters of user input, for messages.
pub(super) fn short(s: &str) -> String {
    s.chars().take(40).collect()
}

pub(super) fn vertices(points: &[Point], size: usize) -> String {
    points
        .iter()
        .map(|p| p.to_gtp(size))
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn game_err(e: GameError) -> String {
    e.to_string()
}
