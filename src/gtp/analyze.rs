//! Streaming analysis commands: `lz-analyze` and `kata-analyze`.
//!
//! A streaming command answers `=id`, then writes one `info ...` line per
//! update until it is interrupted (any new input line, or `stop`), and
//! ends with the empty line. Handlers use [`Call::stream_begin`] and
//! [`Call::stream_line`]; the session writes the final empty line. The
//! search issue keeps this framing and feeds it richer
//! [`AnalysisInfo`]s.

use std::time::Duration;

use super::commands::Reply;
use super::session::{Call, Session};
use crate::engine::AnalysisInfo;
use crate::rules::{Color, Move};

/// Parsed analysis arguments: `[COLOR] [INTERVAL] [interval N]
/// [ownership true|false]`; the interval is in centiseconds.
struct Options {
    color: Color,
    interval: Duration,
    ownership: bool,
}

fn options(s: &Session, args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        color: s.game.to_move(),
        interval: Duration::from_secs(1),
        ownership: false,
    };
    let mut i = 0;
    let centis = |t: &str| -> Result<Duration, String> {
        t.parse::<u32>()
            .map(|cs| Duration::from_millis(u64::from(cs) * 10))
            .map_err(|_| {
                format!(
                    "syntax error: bad interval '{}'",
                    t.chars().take(20).collect::<String>()
                )
            })
    };
    while i < args.len() {
        let a = args[i].to_lowercase();
        if let Some(c) = Color::parse(&a) {
            o.color = c;
        } else if a.bytes().all(|b| b.is_ascii_digit()) {
            o.interval = centis(&a)?;
        } else {
            let value = args.get(i + 1).ok_or("syntax error: missing value")?;
            match a.as_str() {
                "interval" => o.interval = centis(value)?,
                "ownership" => o.ownership = value.eq_ignore_ascii_case("true"),
                // Accepted and ignored until the search lands.
                "minmoves" | "maxmoves" | "allow" | "avoid" | "pvvisits" | "ownershipstdev"
                | "movesownership" | "rootinfo" => {}
                _ => return Err("syntax error: unknown analysis option".into()),
            }
            i += 1;
        }
        i += 1;
    }
    Ok(o)
}

fn stream(
    s: &mut Session,
    call: &mut Call,
    format: fn(&AnalysisInfo, usize, &Options) -> String,
) -> Reply {
    let o = options(s, call.args)?;
    let size = s.game.size();
    call.stream_begin().map_err(|e| e.to_string())?;
    let stop = call.stop;
    let mut failed = false;
    s.engine
        .analyze(&s.game, o.color, o.interval, stop, &mut |info| {
            failed = call.stream_line(&format(info, size, &o)).is_err();
            !failed
        });
    Ok(String::new())
}

/// The moves worth reporting: those with visits, else the best one.
fn reported(info: &AnalysisInfo) -> impl Iterator<Item = &crate::engine::MoveInfo> {
    let any_visits = info.moves.iter().any(|m| m.visits > 0);
    info.moves
        .iter()
        .enumerate()
        .filter(move |(i, m)| if any_visits { m.visits > 0 } else { *i == 0 })
        .map(|(_, m)| m)
}

fn pv(moves: &[Move], size: usize) -> String {
    moves
        .iter()
        .map(|m| m.to_gtp(size))
        .collect::<Vec<_>>()
        .join(" ")
}

fn lz_line(info: &AnalysisInfo, size: usize, _: &Options) -> String {
    let per = |x: f32| (x.clamp(0.0, 1.0) * 10000.0).round() as i32;
    reported(info)
        .map(|m| {
            format!(
                "info move {} visits {} winrate {} prior {} lcb {} order {} pv {}",
                m.mv.to_gtp(size),
                m.visits,
                per(m.winrate),
                per(m.prior),
                per(m.lcb),
                m.order,
                pv(&m.pv, size)
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn kata_line(info: &AnalysisInfo, size: usize, o: &Options) -> String {
    let mut line = reported(info)
        .map(|m| {
            format!(
                "info move {} visits {} utility {:.6} winrate {:.6} scoreMean {:.3} scoreStdev 0 scoreLead {:.3} prior {:.6} lcb {:.6} order {} pv {}",
                m.mv.to_gtp(size),
                m.visits,
                2.0 * m.winrate - 1.0,
                m.winrate,
                m.score_lead,
                m.score_lead,
                m.prior,
                m.lcb,
                m.order,
                pv(&m.pv, size)
            )
        })
        .collect::<Vec<_>>()
        .join(" ");
    if o.ownership {
        if let Some(own) = &info.ownership {
            // Reported from the analysed player's view, as KataGo does.
            let sign = if o.color == Color::Black { 1.0 } else { -1.0 };
            line.push_str(" ownership");
            for x in own {
                line.push_str(&format!(" {:.3}", sign * x));
            }
        }
    }
    line
}

/// `lz-analyze`: Leela Zero's format (winrate, prior, lcb in 1/10000).
pub fn lz_analyze(s: &mut Session, call: &mut Call) -> Reply {
    stream(s, call, lz_line)
}

/// `kata-analyze`: KataGo's format (probabilities and score lead for the
/// analysed player; with `ownership true`, ownership from that player's
/// view, row by row from the top).
pub fn kata_analyze(s: &mut Session, call: &mut Call) -> Reply {
    stream(s, call, kata_line)
}
