//! Generating a move on the game's clock: the core of `genmove` and of the
//! `*-genmove_analyze` commands.

use std::time::Duration;

use super::args::{game_err, Reply};
use super::session::{Call, Session};
use crate::engine::GenmoveOptions;
use crate::game::MoveTime;
use crate::rules::{Color, Move};
use crate::search::AnalysisSnapshot;

/// Progress output of a genmove that streams analysis.
pub(super) type Progress<'p> = &'p mut dyn FnMut(&mut Call, &AnalysisSnapshot);

/// Generates a move for `color` with the time the clock allows (counted
/// from when the command was read); plays it when `commit`. Returns the
/// vertex, `pass` or `resign` (resigning plays nothing).
pub(super) fn generate(
    s: &mut Session,
    call: &mut Call,
    color: Color,
    commit: bool,
    cleanup: bool,
    report: Option<(Duration, Progress)>,
) -> Reply {
    let size = s.game.size();
    let elapsed = call.received.elapsed();
    let time = s
        .game
        .clock()
        .move_time(color, s.game.move_count() as u32, size)
        .map(|t| MoveTime {
            normal: t.normal.saturating_sub(elapsed),
            hard: t.hard.saturating_sub(elapsed),
        });
    // A move is owed in full: only an explicit interrupt cuts it short.
    let stop = call.interrupt;
    let opts = GenmoveOptions {
        cleanup,
        report_every: report.as_ref().map(|r| r.0),
    };
    let generated = match report {
        Some((_, progress)) => {
            let mut cb = |snap: &AnalysisSnapshot| progress(call, snap);
            s.engine
                .genmove_with(&s.game, color, time, stop, opts, Some(&mut cb))
        }
        None => s
            .engine
            .genmove_with(&s.game, color, time, stop, opts, None),
    };
    if generated.resign {
        if commit {
            s.game.clock_mut().charge(color, call.received.elapsed());
        }
        return Ok("resign".into());
    }
    let mv = generated.mv;
    if commit {
        if let Err(e) = s.game.play(color, mv) {
            // The engine guarantees legality; if that ever fails, pass
            // rather than break the rules.
            eprintln!(
                "tengen: internal error: generated {} is illegal ({e}); passing",
                mv.to_gtp(size)
            );
            s.game.play(color, Move::Pass).map_err(game_err)?;
            s.game.clock_mut().charge(color, call.received.elapsed());
            return Ok("pass".into());
        }
        s.game.clock_mut().charge(color, call.received.elapsed());
        s.ponder_pending = true;
    }
    Ok(mv.to_gtp(size))
}
