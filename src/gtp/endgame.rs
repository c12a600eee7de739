//! End-of-game commands: `final_score`, `final_status_list` (C8, C9) and
//! `tengen-judge` (A3). The statuses and the count come from the engine's
//! short search and Benson ([`crate::engine::status`]), so a controller
//! counting under Chinese rules gets what a human referee would.

use super::args::{args_between, short, vertices, Reply};
use super::session::{Call, Session};
use crate::rules::Point;

/// Default visits of `tengen-judge`.
pub const JUDGE_VISITS: u64 = 400;

pub fn final_score(s: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 0, 0, "final_score")?;
    let game = &s.game;
    Ok(s.engine.final_score(game).result_string())
}

pub fn final_status_list(s: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 1, 1, "final_status_list dead|alive|seki")?;
    let which = call.args[0].to_lowercase();
    if !matches!(which.as_str(), "dead" | "alive" | "seki") {
        return Err("syntax error: expected dead, alive or seki".into());
    }
    let game = &s.game;
    let st = s.engine.end_status(game);
    let wanted = match which.as_str() {
        "dead" => &st.dead,
        "alive" => &st.alive,
        _ => &st.seki,
    };
    // One string per line.
    let pos = s.game.position();
    let board = pos.board();
    let mut lines = Vec::new();
    let mut done: Vec<Point> = Vec::new();
    for &p in wanted {
        if done.contains(&p) || board.get(p).is_none() {
            continue;
        }
        let mut string: Vec<Point> = board.string_stones(p);
        string.sort();
        done.extend(&string);
        lines.push(vertices(&string, pos.size()));
    }
    Ok(lines.join("\n"))
}

pub fn judge(s: &mut Session, call: &mut Call) -> Reply {
    args_between(call, 0, 1, "tengen-judge [VISITS]")?;
    let visits = match call.args.first() {
        Some(a) => match a.parse::<u64>() {
            Ok(n) if (1..=1_000_000).contains(&n) => n,
            _ => return Err(format!("syntax error: bad visit count '{}'", short(a))),
        },
        None => JUDGE_VISITS,
    };
    let game = &s.game;
    Ok(s.engine.judge(game, visits).report())
}
