//! Saving and restoring a game as SGF (A4: crash recovery).
//!
//! [`to_record`] turns a [`Game`] into an SGF [`GameRecord`]: size, komi,
//! rules (`RU`, plus the exact ko/suicide/compensation in `TGRULES`),
//! handicap and other starting stones, every move (disputed ones carry a
//! comment) and every edit (a node with `AB`/`AW`/`AE` and/or `PL`), and
//! the time control and both clocks in the custom root properties
//! `TGTIME`, `TGCLOCKB` and `TGCLOCKW`.
//!
//! [`from_record`] replays such a record through [`Game`], so superko
//! history, edit segments and captures are rebuilt exactly; moves are
//! applied with `play_disputed`, so a disputed move in the record never
//! blocks a resume. Any other SGF file loads too (clocks then stay as they
//! were).
//!
//! [`save_atomic`] writes a file so that a crash at any moment leaves
//! either the old or the new file, never a torn one: temporary file in the
//! same directory, fsync, rename, fsync of the directory.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use super::{Clock, Entry, Game, PlayerClock, TimeControl};
use crate::rules::{Color, HandicapBonus, KoRule, Move, Position, Ruleset, Scoring, Tax};
use crate::sgf::{write_record, GameRecord, RecordNode, SgfError};

/// Why a saved game could not be restored.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read {path}: {err}")]
    Io { path: String, err: io::Error },
    #[error("bad SGF: {0}")]
    Sgf(#[from] SgfError),
    #[error("cannot replay the game: {0}")]
    Replay(String),
}

/// The game as an SGF record.
pub fn to_record(game: &Game) -> GameRecord {
    let start = game.start();
    let size = game.size();
    let mut rec = GameRecord::new(size).expect("game sizes are valid SGF sizes");
    let rules = *game.rules();
    rec.komi = Some(rules.komi);
    rec.rules = Some(rules_name(&rules));
    rec.set_root_property("TGRULES", &[rules_text(&rules)]);
    if game.handicap() > 0 {
        rec.handicap = Some(game.handicap() as u32);
    }
    for p in start.board().points() {
        if let Some(c) = start.board().get(p) {
            rec.add_setup(Some(c), p);
        }
    }
    let default_first = if game.handicap() > 0 {
        Color::White
    } else {
        Color::Black
    };
    if start.to_move() != default_first || start.board().empty_count() < size * size {
        rec.nodes[0].to_play = Some(start.to_move());
    }
    rec.result = game.result().map(str::to_string);
    let clock = game.clock();
    rec.set_root_property("TGTIME", &[clock.control().describe()]);
    rec.set_root_property("TGCLOCKB", &[clock.player(Color::Black).to_text()]);
    rec.set_root_property("TGCLOCKW", &[clock.player(Color::White).to_text()]);
    for e in game.entries() {
        match e {
            Entry::Move {
                color,
                mv,
                disputed,
            } => {
                let note = disputed.map(|d| format!("disputed move, applied as played: {d}"));
                rec.push_move(*color, *mv, note.as_deref());
            }
            Entry::Setup(stones) => rec.nodes.push(RecordNode {
                setup: stones.iter().map(|&(p, c)| (c, p)).collect(),
                ..RecordNode::default()
            }),
            Entry::ToMove(c) => rec.nodes.push(RecordNode {
                to_play: Some(*c),
                ..RecordNode::default()
            }),
        }
    }
    rec
}

/// The game as SGF text.
pub fn to_sgf(game: &Game) -> String {
    write_record(&to_record(game))
}

/// Rebuilds a game from a record, stopping before move number `upto`
/// (1-based; `None`: replay everything). The clocks are restored when the
/// record has them; otherwise `clock` (reset) is used.
pub fn from_record(
    rec: &GameRecord,
    upto: Option<usize>,
    clock: &Clock,
) -> Result<Game, LoadError> {
    let rules = rec
        .root_property("TGRULES")
        .and_then(|t| parse_rules_text(&t))
        .unwrap_or_else(|| rec.ruleset());
    let rules = rules.with_komi(rec.komi.unwrap_or(rules.komi));
    let bad = |m: String| LoadError::Replay(m);
    let mut start = Position::new(rec.size, rules).map_err(|e| bad(e.to_string()))?;
    let root = &rec.nodes[0];
    for &(c, p) in &root.setup {
        start
            .setup(c, p)
            .map_err(|e| bad(format!("root setup: {e}")))?;
    }
    if start.board().has_dead_strings() {
        return Err(bad("root setup leaves a string without liberties".into()));
    }
    let handicap = rec.handicap.unwrap_or(0) as usize;
    let handicap = if handicap >= 2 { handicap } else { 0 };
    match root.to_play {
        Some(c) => start.set_to_move(c),
        None => {
            let first_mover = rec.moves().next().map(|(c, _)| c);
            if let Some(c) = first_mover.or((handicap > 0).then_some(Color::White)) {
                start.set_to_move(c);
            }
        }
    }
    let mut game = Game::from_position(start, handicap);
    let mut clock = clock.clone();
    clock.reset();
    if let Some(tc) = rec
        .root_property("TGTIME")
        .and_then(|t| TimeControl::parse(&t))
    {
        clock.set_control(tc);
        for (c, id) in [(Color::Black, "TGCLOCKB"), (Color::White, "TGCLOCKW")] {
            if let Some(pc) = rec
                .root_property(id)
                .and_then(|t| PlayerClock::from_text(&t))
            {
                clock.set_player(c, pc);
            }
        }
    }
    game.set_clock(clock);
    let mut moves = 0usize;
    for (i, node) in rec.nodes.iter().enumerate() {
        if i > 0 {
            if upto.is_some_and(|u| moves + 1 >= u) && node.mv.is_some() {
                break;
            }
            if !node.setup.is_empty() {
                let stones: Vec<_> = node.setup.iter().map(|&(c, p)| (p, c)).collect();
                game.setup(&stones)
                    .map_err(|e| bad(format!("node {i}: {e}")))?;
            }
            if let Some(c) = node.to_play {
                game.set_to_move(c);
            }
        }
        if let Some((color, mv)) = node.mv {
            if upto.is_some_and(|u| moves + 1 >= u) {
                break;
            }
            game.play_disputed(color, mv)
                .map_err(|e| bad(format!("move {}: {} {e}", moves + 1, mv.to_gtp(rec.size))))?;
            moves += 1;
        }
    }
    if let Some(r) = &rec.result {
        if upto.is_none() {
            game.set_result(Some(r.clone()));
        }
    }
    Ok(game)
}

/// Reads an SGF file and rebuilds the game (see [`from_record`]).
pub fn load_file(path: &Path, upto: Option<usize>, clock: &Clock) -> Result<Game, LoadError> {
    let bytes = fs::read(path).map_err(|err| LoadError::Io {
        path: path.display().to_string(),
        err,
    })?;
    let rec = GameRecord::from_bytes(&bytes)?;
    from_record(&rec, upto, clock)
}

/// Writes `text` to `path` atomically (see the module docs).
pub fn save_atomic(path: &Path, text: &str) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)?;
        if let Ok(d) = fs::File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Saves the game to `path` atomically.
pub fn save_game(path: &Path, game: &Game) -> io::Result<()> {
    save_atomic(path, &to_sgf(game))
}

/// The `RU` value: the name of a standard ruleset when the rules are one
/// (komi aside), else KataGo's short form such as `koSIMPLEscoreAREAsui1`.
pub fn rules_name(r: &Ruleset) -> String {
    for name in ["chinese", "tromp-taylor", "nz", "aga"] {
        let Some(std) = Ruleset::from_name(name) else {
            continue;
        };
        if std.with_komi(r.komi) == *r {
            return name.to_string();
        }
    }
    let ko = match r.ko {
        KoRule::Simple => "SIMPLE",
        KoRule::Positional => "POSITIONAL",
        KoRule::Situational => "SITUATIONAL",
    };
    format!("ko{ko}scoreAREAsui{}", u8::from(r.suicide_allowed))
}

/// `ko suicide bonus`, e.g. `positional 0 N`: the exact rules apart from
/// komi.
fn rules_text(r: &Ruleset) -> String {
    let ko = match r.ko {
        KoRule::Simple => "simple",
        KoRule::Positional => "positional",
        KoRule::Situational => "situational",
    };
    let bonus = match r.handicap_bonus {
        HandicapBonus::Zero => "0",
        HandicapBonus::N => "N",
        HandicapBonus::NMinusOne => "N-1",
    };
    let scoring = match r.scoring {
        Scoring::Area => "area",
        Scoring::Territory => "territory",
    };
    let tax = match r.tax {
        Tax::None => "none",
        Tax::Seki => "seki",
    };
    format!(
        "{ko} {} {bonus} {scoring} {tax}",
        u8::from(r.suicide_allowed)
    )
}

fn parse_rules_text(t: &str) -> Option<Ruleset> {
    let w: Vec<&str> = t.split_whitespace().collect();
    let ko = match *w.first()? {
        "simple" => KoRule::Simple,
        "positional" => KoRule::Positional,
        "situational" => KoRule::Situational,
        _ => return None,
    };
    let suicide_allowed = match *w.get(1)? {
        "0" => false,
        "1" => true,
        _ => return None,
    };
    let handicap_bonus = match *w.get(2)? {
        "0" => HandicapBonus::Zero,
        "N" => HandicapBonus::N,
        "N-1" => HandicapBonus::NMinusOne,
        _ => return None,
    };
    // Scoring and tax came later: files without them are area, no tax.
    let scoring = match w.get(3).copied() {
        None | Some("area") => Scoring::Area,
        Some("territory") => Scoring::Territory,
        Some(_) => return None,
    };
    let tax = match w.get(4).copied() {
        None | Some("none") => Tax::None,
        Some("seki") => Tax::Seki,
        Some(_) => return None,
    };
    Some(Ruleset {
        ko,
        suicide_allowed,
        komi: 0.0,
        handicap_bonus,
        scoring,
        tax,
    })
}

/// Moves of a game as `(colour, move)` pairs, for tests and tools.
pub fn moves(game: &Game) -> Vec<(Color, Move)> {
    game.entries()
        .iter()
        .filter_map(|e| match e {
            Entry::Move { color, mv, .. } => Some((*color, *mv)),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Point;

    #[test]
    fn atomic_save_replaces_the_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("tengen-save-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("game.sgf");
        save_atomic(&path, "(;SZ[9])").unwrap();
        save_atomic(&path, "(;SZ[13])").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "(;SZ[13])");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn round_trip_keeps_history_edits_and_clocks() {
        let mut g = Game::new(9, Ruleset::chinese().with_komi(7.0)).unwrap();
        g.clock_mut().set_control(TimeControl::ByoYomi {
            main: std::time::Duration::from_secs(60),
            period: std::time::Duration::from_secs(10),
            periods: 3,
        });
        g.clock_mut()
            .charge(Color::Black, std::time::Duration::from_millis(1500));
        for v in ["E5", "D5", "pass"] {
            let c = g.to_move();
            g.play(c, Move::parse_gtp(v, 9).unwrap()).unwrap();
        }
        g.setup(&[
            (Point::new(0, 0), Some(Color::Black)),
            (Point::new(4, 4), None),
        ])
        .unwrap();
        g.set_to_move(Color::Black);
        let text = to_sgf(&g);
        let rec = GameRecord::from_sgf(&text).unwrap();
        let back = from_record(&rec, None, &Clock::default()).unwrap();
        assert_eq!(back.entries(), g.entries(), "{text}");
        assert_eq!(back.position().board(), g.position().board());
        assert_eq!(back.position().history(), g.position().history());
        assert_eq!(back.to_move(), Color::Black);
        assert_eq!(back.rules(), g.rules());
        assert_eq!(back.clock(), g.clock());
        let partial = from_record(&rec, Some(2), &Clock::default()).unwrap();
        assert_eq!(partial.move_count(), 1);
    }
}
