//! Fixed anchors: every accepted generation of the loop (and the net it
//! started from) plays the same opponents at the same visits and komi, so
//! strength is measured on one scale across generations and a generation
//! that got worse shows as a drop, not as a rejected gate.
//!
//! An anchor is a fixed net (`tengen-9x9-v4`) or a GTP engine (GNU Go
//! level 10 with `--capture-all-dead`, so that the referee's strict count
//! agrees with its play). Against a net both sides play their first
//! [`OPENING_PLIES`] plies at temperature 1, since two searches at fixed
//! visits would otherwise replay one game per colour and komi. Each anchor's series alternates the colours game
//! by game and the komi by pairs of games; `anchors.csv` gets one row per
//! (generation, anchor, komi) with the wins, losses, draws and the Elo
//! against that anchor with its 95% interval, next to the self-play hours
//! and games spent so far, and `anchors.png` plots Elo against self-play
//! hours. The games' SGF go to `anchors/gen-NNNN/<anchor>/`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use plotters::prelude::*;
use tengen::net::device::Backend;
use tengen::search::{Limits, SearchConfig};

use crate::arena::{series_parallel, GtpPlayer, Player, SeriesConfig, Tengen};
use crate::elo::Tally;

/// Plies drawn at temperature 1 in games against a net anchor.
pub const OPENING_PLIES: u32 = 8;

/// A fixed opponent.
#[derive(Clone, Debug, PartialEq)]
pub enum Opponent {
    /// A net file, searched with the same visits as the measured net.
    Net(PathBuf),
    /// A GTP engine's command line.
    Gtp(String),
}

/// One anchor and how it is played.
#[derive(Clone, Debug, PartialEq)]
pub struct Anchor {
    /// A short name (CSV column, folder name): letters, digits, `-`, `_`.
    pub name: String,
    pub opponent: Opponent,
}

impl Anchor {
    /// Parses `NAME=net:PATH` or `NAME=gtp:COMMAND`.
    pub fn parse(s: &str) -> Result<Anchor, String> {
        let (name, rest) = s
            .split_once('=')
            .ok_or_else(|| format!("anchor {s:?}: expected NAME=net:PATH or NAME=gtp:COMMAND"))?;
        let name = name.trim();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(format!(
                "anchor name {name:?}: use letters, digits, '-' and '_'"
            ));
        }
        let opponent = if let Some(p) = rest.strip_prefix("net:") {
            Opponent::Net(PathBuf::from(p.trim()))
        } else if let Some(c) = rest.strip_prefix("gtp:") {
            if c.trim().is_empty() {
                return Err(format!("anchor {name}: empty GTP command"));
            }
            Opponent::Gtp(c.trim().to_string())
        } else {
            return Err(format!(
                "anchor {name}: {rest:?} should start with net: or gtp:"
            ));
        };
        Ok(Anchor {
            name: name.to_string(),
            opponent,
        })
    }
}

/// How the anchors are played.
#[derive(Clone, Debug)]
pub struct AnchorConfig {
    pub anchors: Vec<Anchor>,
    /// Games per anchor (colours alternate; komi by pairs of games).
    pub games: u32,
    pub visits: u64,
    pub komi: Vec<f32>,
    pub size: usize,
    /// Games played at once (each a search thread and, for a GTP anchor,
    /// an engine process).
    pub parallel: usize,
    /// Seconds a GTP anchor may take per reply.
    pub gtp_timeout: Duration,
}

/// Where the measured net stands when the anchors are played.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    pub generation: u32,
    pub selfplay_hours: f64,
    pub games: usize,
}

/// One row of `anchors.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct AnchorRow {
    pub generation: u32,
    pub selfplay_hours: f64,
    pub games: usize,
    pub anchor: String,
    pub komi: f32,
    pub tally: Tally,
}

impl AnchorRow {
    /// One line for a log: `gen 1 vs v4 at komi 5.5: 11-1-0 (Elo +417 [+201, +800])`.
    pub fn describe(&self) -> String {
        let t = &self.tally;
        let elo = t.elo().map_or("-".into(), |e| {
            format!("{:+.0} [{:+.0}, {:+.0}]", e.elo, e.lo, e.hi)
        });
        format!(
            "gen {} vs {} at komi {}: {}-{}-{} (Elo {elo})",
            self.generation, self.anchor, self.komi, t.wins, t.losses, t.draws
        )
    }
}

pub const HEADER: &str =
    "generation,selfplay_hours,selfplay_games,anchor,komi,wins,losses,draws,elo,elo_lo,elo_hi";

fn row_text(r: &AnchorRow) -> String {
    let (elo, lo, hi) = r
        .tally
        .elo()
        .map_or((f64::NAN, f64::NAN, f64::NAN), |e| (e.elo, e.lo, e.hi));
    format!(
        "{},{:.3},{},{},{},{},{},{},{:.1},{:.1},{:.1}",
        r.generation,
        r.selfplay_hours,
        r.games,
        r.anchor,
        r.komi,
        r.tally.wins,
        r.tally.losses,
        r.tally.draws,
        elo,
        lo,
        hi
    )
}

/// Appends `rows` in one write, so that a kill leaves all or none.
fn write_rows(path: &Path, rows: &[AnchorRow]) -> Result<(), String> {
    if rows.is_empty() {
        return Ok(());
    }
    let text: Vec<String> = rows.iter().map(row_text).collect();
    crate::util::append_csv_row(path, HEADER, &text.join("\n"))
}

/// Reads `anchors.csv` back (rows that do not parse are skipped).
pub fn read(path: &Path) -> Vec<AnchorRow> {
    crate::util::read_csv_rows(path, 11, |f| {
        Some(AnchorRow {
            generation: f[0].parse().ok()?,
            selfplay_hours: f[1].parse().ok()?,
            games: f[2].parse().ok()?,
            anchor: f[3].to_string(),
            komi: f[4].parse().ok()?,
            tally: Tally {
                wins: f[5].parse().ok()?,
                losses: f[6].parse().ok()?,
                draws: f[7].parse().ok()?,
            },
        })
    })
}

/// Plays the net at `model` against every anchor and appends the rows
/// to `root/anchors.csv` (then redraws `root/anchors.png`). Rows of this
/// generation already in the CSV (a run killed midway and resumed) are
/// kept and their anchors not replayed.
pub fn measure(
    cfg: &AnchorConfig,
    model: &Path,
    backend: &Backend,
    at: Progress,
    root: &Path,
    mut on_game: impl FnMut(&str, &Tally),
) -> Result<Vec<AnchorRow>, String> {
    let csv = root.join("anchors.csv");
    let done = read(&csv);
    let mut rows = Vec::new();
    let search = SearchConfig {
        threads: 1,
        ..SearchConfig::default()
    };
    let limits = Limits::visits(cfg.visits.max(1));
    for a in &cfg.anchors {
        if done
            .iter()
            .any(|r| r.generation == at.generation && r.anchor == a.name)
        {
            continue;
        }
        // Two nets at a fixed visit count are deterministic: without
        // randomness every game of a colour and komi would be the same
        // game. Against a net both sides draw their first 8 plies at
        // temperature 1 (as the v4 model card's matches); a GTP engine
        // brings its own seeded randomness, so tengen plays its best.
        let search = match a.opponent {
            Opponent::Net(_) => SearchConfig {
                temperature: 1.0,
                temperature_moves: OPENING_PLIES,
                ..search.clone()
            },
            Opponent::Gtp(_) => search.clone(),
        };
        let mut pairs: Vec<(Box<dyn Player + Send>, Box<dyn Player + Send>)> = Vec::new();
        for _ in 0..cfg.parallel.max(1) {
            let me = Tengen::new(
                "tengen",
                crate::looping::evaluator(model, backend, 16)?,
                search.clone(),
                limits,
            );
            let other: Box<dyn Player + Send> = match &a.opponent {
                Opponent::Net(p) => Box::new(Tengen::new(
                    &a.name,
                    crate::looping::evaluator(p, backend, 16)?,
                    search.clone(),
                    limits,
                )),
                Opponent::Gtp(cmd) => Box::new(GtpPlayer::start(cmd, cfg.gtp_timeout)?),
            };
            pairs.push((Box::new(me), other));
        }
        let sc = SeriesConfig {
            games: cfg.games,
            size: cfg.size,
            komi: cfg.komi.clone(),
            max_moves: 3 * cfg.size * cfg.size,
            sprt: None,
            sgf_dir: Some(
                root.join("anchors")
                    .join(format!("gen-{:04}", at.generation))
                    .join(&a.name),
            ),
            seed: 7_000 + at.generation as u64,
        };
        // Each game's score by komi, from the tally's change.
        let mut by_komi: Vec<(f32, Tally)> = Vec::new();
        for &k in &cfg.komi {
            if !by_komi.iter().any(|(x, _)| *x == k) {
                by_komi.push((k, Tally::default()));
            }
        }
        let mut last = Tally::default();
        series_parallel(&sc, pairs, |i, _, t| {
            let k = sc.komi_of(i);
            let score = if t.wins > last.wins {
                1.0
            } else if t.draws > last.draws {
                0.5
            } else {
                0.0
            };
            last = *t;
            if let Some((_, kt)) = by_komi.iter_mut().find(|(x, _)| *x == k) {
                kt.add(score);
            }
            on_game(&a.name, t);
        })?;
        let mine: Vec<AnchorRow> = by_komi
            .into_iter()
            .map(|(komi, tally)| AnchorRow {
                generation: at.generation,
                selfplay_hours: at.selfplay_hours,
                games: at.games,
                anchor: a.name.clone(),
                komi,
                tally,
            })
            .collect();
        write_rows(&csv, &mine)?;
        rows.extend(mine);
    }
    plot(&read(&csv), &root.join("anchors.png"))?;
    Ok(rows)
}

/// Elo against each anchor (all komi together) by generation: the rows
/// summed per (generation, anchor), in generation order.
pub fn elo_by_generation(rows: &[AnchorRow]) -> Vec<(u32, f64, String, Tally)> {
    let mut out: Vec<(u32, f64, String, Tally)> = Vec::new();
    for r in rows {
        match out
            .iter_mut()
            .find(|(g, _, a, _)| *g == r.generation && *a == r.anchor)
        {
            Some((_, _, _, t)) => {
                t.wins += r.tally.wins;
                t.losses += r.tally.losses;
                t.draws += r.tally.draws;
            }
            None => out.push((r.generation, r.selfplay_hours, r.anchor.clone(), r.tally)),
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0).then(a.2.cmp(&b.2)));
    out
}

/// Plots Elo (all komi together) against self-play hours, one line per
/// anchor with its 95% interval as pale bars; no text (the CSV has the
/// numbers). Colours in anchor order: green, blue, red, black, grey.
pub fn plot(rows: &[AnchorRow], png: &Path) -> Result<(), String> {
    let points = elo_by_generation(rows);
    if points.is_empty() {
        return Ok(());
    }
    let err = |e: &dyn std::fmt::Display| format!("plot {}: {e}", png.display());
    let root = BitMapBackend::new(png, (800, 400)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let x_max = points.iter().map(|p| p.1).fold(0.0, f64::max).max(0.1) * 1.05;
    let ests: Vec<_> = points.iter().filter_map(|p| p.3.elo()).collect();
    let lo = ests.iter().map(|e| e.lo).fold(0.0, f64::min) - 20.0;
    let hi = ests.iter().map(|e| e.hi).fold(0.0, f64::max) + 20.0;
    let mut c = ChartBuilder::on(&root)
        .margin(10)
        .build_cartesian_2d(0.0..x_max, lo..hi)
        .map_err(|e| err(&e))?;
    let colours = [GREEN, BLUE, RED, BLACK, RGBColor(150, 150, 150)];
    let mut names: Vec<&str> = points.iter().map(|p| p.2.as_str()).collect();
    names.sort();
    names.dedup();
    for (k, name) in names.iter().enumerate() {
        let colour = colours[k % colours.len()];
        let pts: Vec<(f64, f64, f64, f64)> = points
            .iter()
            .filter(|p| p.2 == *name)
            .filter_map(|p| p.3.elo().map(|e| (p.1, e.elo, e.lo, e.hi)))
            .collect();
        for &(x, _, l, h) in &pts {
            c.draw_series(LineSeries::new(
                [(x, l), (x, h)],
                colour.mix(0.3).stroke_width(3),
            ))
            .map_err(|e| err(&e))?;
        }
        c.draw_series(LineSeries::new(
            pts.iter().map(|&(x, y, _, _)| (x, y)),
            colour.stroke_width(2),
        ))
        .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))
}

/// The anchor folder of generation `g` (for tests and tools).
pub fn games_dir(root: &Path, g: u32, anchor: &str) -> PathBuf {
    root.join("anchors")
        .join(format!("gen-{g:04}"))
        .join(anchor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_parse_and_reject_nonsense() {
        let a = Anchor::parse("v4=net:models/tengen-9x9-v4.safetensors").unwrap();
        assert_eq!(a.name, "v4");
        assert_eq!(
            a.opponent,
            Opponent::Net("models/tengen-9x9-v4.safetensors".into())
        );
        let g = Anchor::parse("gnugo10=gtp:/usr/games/gnugo --mode gtp --level 10").unwrap();
        assert_eq!(
            g.opponent,
            Opponent::Gtp("/usr/games/gnugo --mode gtp --level 10".into())
        );
        for bad in ["v4", "=net:x", "a b=net:x", "x=foo:y", "x=gtp:  "] {
            assert!(Anchor::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rows_round_trip_and_sum_by_generation() {
        let dir = std::env::temp_dir().join(format!("tengen-anchors-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let csv = dir.join("anchors.csv");
        let mk = |g, komi, w, l| AnchorRow {
            generation: g,
            selfplay_hours: g as f64 * 0.5,
            games: g as usize * 100,
            anchor: "v4".into(),
            komi,
            tally: Tally {
                wins: w,
                losses: l,
                draws: 0,
            },
        };
        let rows = [mk(0, 5.5, 5, 5), mk(0, 7.0, 4, 6), mk(1, 5.5, 7, 3)];
        write_rows(&csv, &rows[..2]).unwrap();
        write_rows(&csv, &rows[2..]).unwrap();
        assert_eq!(read(&csv), rows);
        let g = elo_by_generation(&rows);
        assert_eq!(g.len(), 2);
        assert_eq!((g[0].3.wins, g[0].3.losses), (9, 11));
        plot(&rows, &dir.join("anchors.png")).unwrap();
        assert!(dir.join("anchors.png").exists());
    }
}
