//! Supervised bootstrap: SGF game records to training shards. Each move
//! of a game becomes a sample whose policy target is the move played;
//! the result (`RE`) gives the value target, and its margin, when
//! numeric, the score target; the final area, when the game marks it
//! (`TB`/`TW` on its last node, as `scripts/gnugo_area.py` writes), the
//! ownership target. Games with setup stones or handicap, or that break
//! our rules, are skipped and counted. Moves marked as random
//! ([`RANDOM_MOVE_COMMENT`]) are no policy target.

use std::path::{Path, PathBuf};

use tengen::eval::policy_index;

use tengen::rules::{Board, Color, Point};
use tengen::sgf::GameRecord;

use crate::game::Game;
use crate::shard::{self, Sample, HAS_OWNERSHIP, HAS_POLICY, HAS_SCORE, HAS_VALUE, NO_MOVE};

/// A move whose SGF comment starts with this was drawn at random (the
/// data script's opening moves): it gets no policy target, as it says
/// nothing about good play; its position still gets the value target.
pub const RANDOM_MOVE_COMMENT: &str = "random opening move";

/// What a conversion did.
#[derive(Debug, Default, serde::Serialize)]
pub struct SlStats {
    pub files: usize,
    pub games: usize,
    /// Of `games`, those held out for validation.
    pub val_games: usize,
    pub skipped: usize,
    pub samples: usize,
    pub shards: Vec<PathBuf>,
}

/// Every `.sgf` file under `root` (a file or a folder), sorted.
pub fn find_sgf(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            let rd = std::fs::read_dir(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            stack.extend(rd.flatten().map(|e| e.path()));
        } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("sgf")) {
            out.push(p);
        }
    }
    if out.is_empty() && root.is_file() {
        out.push(root.to_path_buf());
    }
    out.sort();
    Ok(out)
}

/// Winner and margin (Black's view) from an SGF result like `B+3.5`,
/// `W+R`, `0`, `Draw`.
pub fn parse_result(re: &str) -> Option<(Option<Color>, Option<f32>)> {
    let re = re.trim();
    if re == "0" || re.eq_ignore_ascii_case("draw") || re.eq_ignore_ascii_case("jigo") {
        return Some((None, Some(0.0)));
    }
    let (c, rest) = re.split_once('+')?;
    let color = Color::parse(c)?;
    let margin = rest.parse::<f32>().ok().filter(|m| m.is_finite());
    let sign = if color == Color::Black { 1.0 } else { -1.0 };
    Some((Some(color), margin.map(|m| sign * m)))
}

/// Samples of one record, or why it was skipped. Moves played by a player
/// named in `no_policy` (`PB`/`PW`, compared without case) get no policy
/// target, like random opening moves; their positions still teach value,
/// score and ownership.
pub fn samples_of(rec: &GameRecord, no_policy: &[String]) -> Result<Vec<Sample>, String> {
    if rec.nodes.iter().any(|n| !n.setup.is_empty()) || rec.handicap.is_some_and(|h| h > 0) {
        return Err("setup stones or handicap".into());
    }
    let size = rec.size;
    let komi = rec.komi.unwrap_or(7.5);
    let result = rec.result.as_deref().and_then(parse_result);
    let moves: Vec<_> = rec.moves().collect();
    let named = |name: &Option<String>| {
        name.as_deref().is_some_and(|n| {
            no_policy
                .iter()
                .any(|x| x.trim().eq_ignore_ascii_case(n.trim()))
        })
    };
    let (skip_black, skip_white) = (named(&rec.black), named(&rec.white));
    // Moves that are no policy target: random ones and a named player's.
    let no_target: Vec<bool> = rec
        .nodes
        .iter()
        .filter_map(|n| n.mv.map(|(color, _)| (n, color)))
        .map(|(n, color)| {
            let skipped = match color {
                Color::Black => skip_black,
                Color::White => skip_white,
            };
            skipped
                || n.comment
                    .as_deref()
                    .is_some_and(|c| c.trim_start().starts_with(RANDOM_MOVE_COMMENT))
        })
        .collect();
    let mut game = Game::new(size, komi)?;
    let mut out = Vec::with_capacity(moves.len());
    for (i, &(color, mv)) in moves.iter().enumerate() {
        if game.to_move() != color {
            game.position.set_to_move(color);
        }
        let (spatial, global) = game.features();
        let n = size * size;
        let mut policy = vec![0.0; n + 1];
        let mut flags = 0;
        if !no_target[i] {
            policy[policy_index(mv, size)] = 1.0;
            flags |= HAS_POLICY;
        }
        let (mut outcome, mut score) = (0i8, 0.0f32);
        if let Some((winner, margin)) = result {
            flags |= HAS_VALUE;
            outcome = match winner {
                Some(w) if w == color => 1,
                Some(_) => -1,
                None => 0,
            };
            if let Some(m) = margin {
                flags |= HAS_SCORE;
                score = if color == Color::Black { m } else { -m };
            }
        }
        out.push(Sample {
            size,
            flags,
            spatial,
            global,
            policy,
            opp_move: moves
                .get(i + 1)
                .filter(|_| !no_target[i + 1])
                .map_or(NO_MOVE, |&(_, m)| policy_index(m, size) as u16),
            outcome,
            score,
            ownership: vec![0; n],
        });
        game.play(mv, None)
            .map_err(|e| format!("move {}: {e}", i + 1))?;
    }
    let area = rec.final_area().map_err(|e| e.to_string())?;
    if let Some(area) = area {
        let own = final_ownership(game.position.board(), size, &area.black, &area.white);
        for (s, &(color, _)) in out.iter_mut().zip(&moves) {
            let sign = if color == Color::Black { 1 } else { -1 };
            s.ownership = own.iter().map(|&o| o * sign).collect();
            s.flags |= HAS_OWNERSHIP;
        }
    }
    Ok(out)
}

/// Black's view of who owns each point at the end (+1 Black, -1 White,
/// 0 neither): the marked areas first, then any stone left unmarked counts
/// for its colour (so territory-only marking works too), then dame.
fn final_ownership(board: &Board, size: usize, black: &[Point], white: &[Point]) -> Vec<i8> {
    let mut own: Vec<i8> = board
        .points()
        .map(|p| match board.get(p) {
            Some(Color::Black) => 1,
            Some(Color::White) => -1,
            None => 0,
        })
        .collect();
    for (pts, v) in [(black, 1), (white, -1)] {
        for p in pts {
            own[p.dense(size)] = v;
        }
    }
    own
}

/// Converts every SGF under `input` into shards of about
/// `samples_per_shard` samples in `out`; with `val_every` > 0, every
/// `val_every`-th game (in file order, from the first) goes to `val_out`
/// instead, so validation never sees a position of a training game. Moves
/// of the players named in `no_policy` get no policy target
/// ([`samples_of`]).
pub fn convert(
    input: &Path,
    out: &Path,
    val_out: &Path,
    val_every: usize,
    samples_per_shard: usize,
    no_policy: &[String],
) -> Result<SlStats, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    if val_every > 0 {
        std::fs::create_dir_all(val_out).map_err(|e| format!("{}: {e}", val_out.display()))?;
    }
    let mut stats = SlStats::default();
    let (mut buf, mut val_buf): (Vec<Sample>, Vec<Sample>) = (Vec::new(), Vec::new());
    let flush = |dir: &Path, buf: &mut Vec<Sample>, stats: &mut SlStats| -> Result<(), String> {
        if buf.is_empty() {
            return Ok(());
        }
        let path = shard::next_path(dir).map_err(|e| e.to_string())?;
        shard::write(&path, buf).map_err(|e| e.to_string())?;
        stats.samples += buf.len();
        stats.shards.push(path);
        buf.clear();
        Ok(())
    };
    for f in find_sgf(input)? {
        stats.files += 1;
        let bytes = std::fs::read(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        let rec = match GameRecord::from_bytes(&bytes) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("skipping {}: {e}", f.display());
                stats.skipped += 1;
                continue;
            }
        };
        match samples_of(&rec, no_policy) {
            Ok(s) => {
                if val_every > 0 && stats.games.is_multiple_of(val_every) {
                    stats.val_games += 1;
                    val_buf.extend(s);
                } else {
                    buf.extend(s);
                }
                stats.games += 1;
            }
            Err(e) => {
                eprintln!("skipping {}: {e}", f.display());
                stats.skipped += 1;
            }
        }
        if buf.len() >= samples_per_shard.max(1) {
            flush(out, &mut buf, &mut stats)?;
        }
        if val_buf.len() >= samples_per_shard.max(1) {
            flush(val_out, &mut val_buf, &mut stats)?;
        }
    }
    flush(out, &mut buf, &mut stats)?;
    flush(val_out, &mut val_buf, &mut stats)?;
    Ok(stats)
}
