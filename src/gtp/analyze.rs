//! Streaming analysis commands, in the formats GUIs read.
//!
//! A streaming command answers `=id`, then writes one line per update
//! until it is interrupted (any new input line, or `stop`), and ends with
//! the empty line. Handlers use [`Call::stream_begin`] and
//! [`Call::stream_line`]; the session writes the final empty line.
//!
//! - `lz-analyze [COLOR] [INTERVAL] [interval N] [...]` (Lizzie, Sabaki):
//!   `info move D4 visits 10 winrate 5234 prior 1234 lcb 5000 order 0 pv
//!   D4 Q16 ...`, winrate, prior and lcb as integers in 1/10000, clamped
//!   to [0, 10000].
//! - `analyze`: Sabaki's generic name; the `lz-analyze` format plus
//!   `scoreLead` (points).
//! - `kata-analyze [COLOR] [INTERVAL] [ownership true] [rootInfo true]`
//!   (KaTrain, Lizzie-KataGo): `info move D4 visits 10 edgeVisits 10
//!   utility .. winrate 0.52 scoreMean .. scoreStdev .. scoreLead .. prior
//!   0.12 lcb .. utilityLcb .. order 0 pv ...`, then with `rootInfo true`
//!   `rootInfo visits .. winrate .. scoreLead ..` and with `ownership true`
//!   `ownership` and size × size floats in row-major order from the
//!   top-left (A19 first on 19×19).
//! - `lz-genmove_analyze`, `kata-genmove_analyze`, `genmove_analyze`: a
//!   genmove that streams those lines while it thinks, then `play MOVE`
//!   (`play resign` when resigning). A new line cuts the thinking short,
//!   as for `genmove`; the move is still played.
//!
//! As KataGo's docs specify, every value is from the view of the analysed
//! player (the side to move unless a colour is given): winrates, score
//! leads and ownership (+1: that player owns the point). The interval is
//! in centiseconds (default 1 s). `scoreStdev` is the spread of the score
//! leads the search backed up through the move (or the root), not a net's
//! own uncertainty.

use std::fmt::Write as _;
use std::time::Duration;

use super::args::Reply;
use super::genmove::generate;
use super::session::{Call, Session};
use crate::rules::{Color, Move};
use crate::search::{AnalysisSnapshot, MoveInfo};

/// The output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Lz,
    Sabaki,
    Kata,
}

/// Parsed analysis arguments: `[COLOR] [INTERVAL] [KEY VALUE]...`.
struct Options {
    color: Color,
    interval: Duration,
    ownership: bool,
    root_info: bool,
    max_moves: Option<usize>,
}

fn options(s: &Session, args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        color: s.game.to_move(),
        interval: Duration::from_secs(1),
        ownership: false,
        root_info: false,
        max_moves: None,
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
            let yes = value.eq_ignore_ascii_case("true");
            match a.as_str() {
                "interval" => o.interval = centis(value)?,
                "ownership" => o.ownership = yes,
                "rootinfo" => o.root_info = yes,
                "maxmoves" => {
                    o.max_moves = Some(
                        value
                            .parse()
                            .map_err(|_| "syntax error: bad maxmoves".to_string())?,
                    )
                }
                // Accepted and ignored.
                "minmoves"
                | "pvvisits"
                | "pvedgevisits"
                | "ownershipstdev"
                | "movesownership"
                | "movesownershipstdev"
                | "noresultvalue" => {}
                "allow" | "avoid" => {
                    // PLAYER VERTICES UNTILDEPTH: accepted, not applied.
                    i += 2;
                }
                _ => return Err("syntax error: unknown analysis option".into()),
            }
            i += 1;
        }
        i += 1;
    }
    Ok(o)
}

fn pv(moves: &[Move], size: usize) -> String {
    moves
        .iter()
        .map(|m| m.to_gtp(size))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Winrate-like numbers as Leela Zero prints them.
fn per10k(x: f32) -> i32 {
    if x.is_finite() {
        (x.clamp(0.0, 1.0) * 10000.0).round() as i32
    } else {
        0
    }
}

/// A finite number (0 otherwise), for output.
fn fin(x: f32) -> f32 {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}

fn lz_info(m: &MoveInfo, size: usize, score: bool) -> String {
    let mut s = format!(
        "info move {} visits {} winrate {} prior {} lcb {} order {}",
        m.mv.to_gtp(size),
        m.visits,
        per10k(m.winrate),
        per10k(m.prior),
        per10k(m.lcb),
        m.order
    );
    if score {
        let _ = write!(s, " scoreLead {:.3}", fin(m.score_lead));
    }
    let _ = write!(s, " pv {}", pv(&m.pv, size));
    s
}

fn kata_info(m: &MoveInfo, size: usize) -> String {
    let wr = fin(m.winrate).clamp(0.0, 1.0);
    let lcb = fin(m.lcb).clamp(0.0, 1.0);
    format!(
        "info move {} visits {} edgeVisits {} utility {:.6} winrate {:.6} scoreMean {:.6} scoreStdev {:.6} scoreLead {:.6} prior {:.6} lcb {:.6} utilityLcb {:.6} order {} pv {}",
        m.mv.to_gtp(size),
        m.visits,
        m.visits,
        2.0 * wr - 1.0,
        wr,
        fin(m.score_lead),
        fin(m.score_stdev),
        fin(m.score_lead),
        fin(m.prior),
        lcb,
        2.0 * lcb - 1.0,
        m.order,
        pv(&m.pv, size)
    )
}

/// One update line. `snap` is from the analysed player's view.
fn line(snap: &AnalysisSnapshot, size: usize, o: &Options, format: Format) -> String {
    let n = o.max_moves.unwrap_or(usize::MAX).max(1);
    let moves = snap.moves.iter().take(n);
    let mut out: Vec<String> = match format {
        Format::Lz => moves.map(|m| lz_info(m, size, false)).collect(),
        Format::Sabaki => moves.map(|m| lz_info(m, size, true)).collect(),
        Format::Kata => moves.map(|m| kata_info(m, size)).collect(),
    };
    if format == Format::Kata {
        if o.root_info {
            out.push(format!(
                "rootInfo visits {} winrate {:.6} scoreLead {:.6} scoreMean {:.6} scoreStdev {:.6} utility {:.6}",
                snap.visits,
                fin(snap.winrate),
                fin(snap.score_lead),
                fin(snap.score_lead),
                fin(snap.score_stdev),
                2.0 * fin(snap.winrate) - 1.0
            ));
        }
        if o.ownership {
            if let Some(own) = snap.ownership.as_ref().filter(|v| v.len() == size * size) {
                let mut s = String::from("ownership");
                for x in own {
                    let _ = write!(s, " {:.6}", fin(*x).clamp(-1.0, 1.0));
                }
                out.push(s);
            }
        }
    }
    out.join(" ")
}

fn stream(s: &mut Session, call: &mut Call, format: Format) -> Reply {
    let o = options(s, call.args)?;
    let size = s.game.size();
    call.stream_begin().map_err(|e| e.to_string())?;
    let stop = call.stop;
    let game = &s.game;
    s.engine
        .analyze(game, o.color, o.interval, stop, &mut |snap| {
            call.stream_line(&line(snap, size, &o, format)).is_ok()
        });
    Ok(String::new())
}

fn genmove_stream(s: &mut Session, call: &mut Call, format: Format) -> Reply {
    let o = options(s, call.args)?;
    let size = s.game.size();
    call.stream_begin().map_err(|e| e.to_string())?;
    let mut report = |call: &mut Call, snap: &AnalysisSnapshot| {
        let _ = call.stream_line(&line(snap, size, &o, format));
    };
    let mv = generate(
        s,
        call,
        o.color,
        true,
        false,
        Some((o.interval, &mut report)),
    )?;
    call.stream_line(&format!("play {mv}"))
        .map_err(|e| e.to_string())?;
    Ok(String::new())
}

/// `lz-analyze`: Leela Zero's format.
pub fn lz_analyze(s: &mut Session, call: &mut Call) -> Reply {
    stream(s, call, Format::Lz)
}

/// `analyze`: Sabaki's name; Leela Zero's format plus `scoreLead`.
pub fn sabaki_analyze(s: &mut Session, call: &mut Call) -> Reply {
    stream(s, call, Format::Sabaki)
}

/// `kata-analyze`: KataGo's format.
pub fn kata_analyze(s: &mut Session, call: &mut Call) -> Reply {
    stream(s, call, Format::Kata)
}

/// `lz-genmove_analyze`.
pub fn lz_genmove_analyze(s: &mut Session, call: &mut Call) -> Reply {
    genmove_stream(s, call, Format::Lz)
}

/// `genmove_analyze` (Sabaki).
pub fn sabaki_genmove_analyze(s: &mut Session, call: &mut Call) -> Reply {
    genmove_stream(s, call, Format::Sabaki)
}

/// `kata-genmove_analyze`.
pub fn kata_genmove_analyze(s: &mut Session, call: &mut Call) -> Reply {
    genmove_stream(s, call, Format::Kata)
}
