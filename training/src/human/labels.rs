//! Ownership targets for human games, vouched for by the record's own count.
//!
//! Human records say who won, and counted games by how much, but never who
//! owns each point at the end. A net that has learned something about
//! life and death can propose that: at the final position of a counted
//! game its ownership picks the dead stones ([`status::assess`], the same
//! judgement `final_status_list` gives), and the area count follows. The
//! label is kept only when that count gives the margin `RE` records, to
//! within a tolerance: a wrong judgement of any group bigger than the
//! tolerance changes the count, so the record itself checks the net.
//!
//! Only area-scored games are labelled (Chinese, AGA, NZ; a record without
//! `RU` is Chinese, as Tom's): a territory count needs the prisoners, which
//! the final board does not show.
//!
//! The labels file is gzip text, one labelled game per line:
//! `FILE LINE CELLS`, where FILE is the collection's file name, LINE the
//! game's line in it (1-based, as the stream counts), and CELLS one
//! character per point in dense order (`x` Black's, `o` White's, `.`
//! neither: dame and seki). [`Labels`] loads it for `sl-stream
//! --ownership-labels`.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::Path;

use tengen::engine::status;
use tengen::eval::{EvalInput, Evaluator, RECENT_MOVES};
use tengen::rules::score::area_with_owners;
use tengen::rules::{Board, Color, Scoring};
use tengen::sgf::GameRecord;

use super::record::{rules_of, start, ResultKind, Skip, Start};

/// Labelled games, by collection file name and line.
#[derive(Default)]
pub struct Labels {
    map: HashMap<(String, u64), Vec<i8>>,
}

impl Labels {
    /// Reads a labels file (module docs).
    pub fn load(path: &Path) -> Result<Labels, String> {
        let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let reader = std::io::BufReader::new(flate2::read::MultiGzDecoder::new(f));
        let mut map = HashMap::new();
        for (i, line) in reader.lines().enumerate() {
            let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
            if line.trim().is_empty() {
                continue;
            }
            let bad = || format!("{} line {}: not `FILE LINE CELLS`", path.display(), i + 1);
            let mut parts = line.split_whitespace();
            let (Some(file), Some(at), Some(cells), None) =
                (parts.next(), parts.next(), parts.next(), parts.next())
            else {
                return Err(bad());
            };
            let at: u64 = at.parse().map_err(|_| bad())?;
            let own = cells
                .chars()
                .map(|c| match c {
                    'x' => Ok(1),
                    'o' => Ok(-1),
                    '.' => Ok(0),
                    _ => Err(bad()),
                })
                .collect::<Result<Vec<i8>, String>>()?;
            map.insert((file.to_string(), at), own);
        }
        Ok(Labels { map })
    }

    /// The label of the game at `line` of the collection named `file`
    /// (its file name; any folder is ignored).
    pub fn get(&self, file: &str, line: u64) -> Option<&[i8]> {
        let name = Path::new(file)
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        self.map.get(&(name, line)).map(Vec::as_slice)
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// One game's line of a labels file.
pub fn format_line(file: &str, line: u64, own: &[i8]) -> String {
    let cells: String = own
        .iter()
        .map(|&o| match o {
            1 => 'x',
            -1 => 'o',
            _ => '.',
        })
        .collect();
    format!("{file} {line} {cells}")
}

/// What labelling a game found.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The final ownership (Black's view) and the count that vouched for it.
    Labelled { own: Vec<i8>, margin: f32 },
    /// No margin in `RE` (resigned, timed out, …).
    NotCounted,
    /// Territory scoring (module docs).
    Territory,
    /// The net's dead stones give a count this far from `RE`'s (count
    /// minus record, Black's view).
    Mismatch(f32),
    /// The record gives no position.
    Skipped(Skip),
}

/// The final position of `rec` as the net sees it, with the rules and the
/// handicap points; `Err` if the record does not replay.
fn final_input(rec: &GameRecord, size: usize) -> Result<(EvalInput, Start), Skip> {
    let st = start(rec, size)?;
    let mut pos = st.pos.clone();
    let moves: Vec<(Color, tengen::rules::Move)> = rec.moves().collect();
    if moves.is_empty() {
        return Err(Skip::Empty);
    }
    let mut prev: Vec<Board> = Vec::new();
    for &(color, mv) in &moves {
        if pos.to_move() != color {
            pos.set_to_move(color);
        }
        let before = pos.board().clone();
        pos.play(color, mv).map_err(|_| Skip::Illegal)?;
        prev.insert(0, before);
        prev.truncate(2);
    }
    let recent = moves[moves.len().saturating_sub(RECENT_MOVES)..].to_vec();
    let input = EvalInput::new(pos)
        .with_recent(recent)
        .with_prev_boards(prev)
        .with_handicap_bonus(st.bonus);
    Ok((input, st))
}

/// Labels a batch of games (see the module docs). `tolerance`: the
/// largest difference, in points, between the count and `RE`'s margin.
pub fn label_games(
    recs: &[GameRecord],
    size: usize,
    eval: &dyn Evaluator,
    tolerance: f32,
) -> Vec<Outcome> {
    let mut out: Vec<Option<Outcome>> = vec![None; recs.len()];
    // The games to judge: the net's inputs, and beside them each game's
    // place, start and recorded margin.
    let mut inputs: Vec<EvalInput> = Vec::new();
    let mut games: Vec<(usize, Start, f32)> = Vec::new();
    for (i, rec) in recs.iter().enumerate() {
        let ResultKind::Score(margin) = ResultKind::parse(rec.result.as_deref()) else {
            out[i] = Some(Outcome::NotCounted);
            continue;
        };
        // Territory scoring is known from the root: no replay for it.
        if rules_of(rec).is_ok_and(|r| r.territory || r.ruleset.scoring == Scoring::Territory) {
            out[i] = Some(Outcome::Territory);
            continue;
        }
        match final_input(rec, size) {
            Err(why) => out[i] = Some(Outcome::Skipped(why)),
            Ok((input, st)) => {
                inputs.push(input);
                games.push((i, st, margin));
            }
        }
    }
    let per_call = eval.max_batch().max(1);
    for (ins, gs) in inputs.chunks(per_call).zip(games.chunks(per_call)) {
        let outputs = eval.evaluate(ins);
        for ((input, (i, st, margin)), o) in ins.iter().zip(gs).zip(outputs) {
            out[*i] = Some(judge(input, st, *margin, o.ownership.as_deref(), tolerance));
        }
    }
    // Every game got an outcome above; `Skipped(Empty)` only if the
    // evaluator returned fewer outputs than inputs.
    out.into_iter()
        .map(|o| o.unwrap_or(Outcome::Skipped(Skip::Empty)))
        .collect()
}

/// The label of one final position from the net's ownership (the player
/// to move's view), checked against the recorded margin (Black's view).
fn judge(
    input: &EvalInput,
    st: &Start,
    margin: f32,
    own_to_move: Option<&[f32]>,
    tolerance: f32,
) -> Outcome {
    let board = input.position.board();
    let size = board.size();
    let Some(own) = own_to_move.filter(|o| o.len() == size * size) else {
        return Outcome::Mismatch(f32::NAN);
    };
    let sign = if input.position.to_move() == Color::Black {
        1.0
    } else {
        -1.0
    };
    let own_black: Vec<f32> = own.iter().map(|o| o * sign).collect();
    let end = status::assess(board, Some(&own_black));
    // Stones and enclosed areas by the area count with the dead stones
    // off; the other empty points (records mostly stop before the last
    // boundaries are closed) by the net, where it leans at least
    // `LEANS`; the rest, and stones in seki, are neither side's.
    let (_, owners) = area_with_owners(board, &end.dead);
    let own: Vec<i8> = board
        .points()
        .map(|p| {
            if end.seki.binary_search(&p).is_ok() {
                return 0;
            }
            match owners[p.index()] {
                Some(Color::Black) => 1,
                Some(Color::White) => -1,
                None => {
                    let o = own_black[p.dense(size)];
                    if o >= LEANS {
                        1
                    } else if o <= -LEANS {
                        -1
                    } else {
                        0
                    }
                }
            }
        })
        .collect();
    let black = own.iter().filter(|&&o| o == 1).count() as f32;
    let white = own.iter().filter(|&&o| o == -1).count() as f32;
    let count = black - white - st.rules.ruleset.komi - st.bonus;
    let off = (count - margin).abs();
    if off.is_nan() || off > tolerance {
        return Outcome::Mismatch(count - margin);
    }
    Outcome::Labelled { own, margin: count }
}

/// Ownership (absolute, Black's view) from which an open empty point of a
/// final position counts for a side.
pub const LEANS: f32 = 0.5;

/// Which games [`label_collections`] labels, and how.
pub struct LabelSpec<'a> {
    /// Folder of the collections.
    pub data: &'a Path,
    /// Collections whose file name contains this.
    pub split: &'a str,
    pub size: usize,
    /// See [`label_games`].
    pub tolerance: f32,
    /// Games per net call.
    pub batch: usize,
}

/// What [`label_collections`] found, over all files.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct LabelReport {
    pub games: u64,
    /// Games with a margin in `RE`.
    pub counted: u64,
    pub labelled: u64,
    /// Counted games under territory scoring (not labelled).
    pub territory: u64,
    /// Counted games whose count missed the margin, by how far: up to 2,
    /// 5, 10 and 20 points, more, and no ownership at all.
    pub mismatch: [u64; 6],
    /// Records that do not parse or replay.
    pub skipped: u64,
    /// Labelled games per file.
    pub by_file: Vec<(String, u64)>,
}

/// Labels every game of the collections `spec` names and writes the
/// labels file `out` (module docs).
pub fn label_collections(
    spec: &LabelSpec,
    eval: &dyn Evaluator,
    out: &Path,
) -> Result<LabelReport, String> {
    let files = super::stream::collection_files(spec.data, spec.split)?;
    let mut report = LabelReport::default();
    let mut lines = Vec::new();
    for f in &files {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let file = std::fs::File::open(f).map_err(|e| format!("{}: {e}", f.display()))?;
        let reader = std::io::BufReader::new(flate2::read::MultiGzDecoder::new(file));
        let before = report.labelled;
        // The pending games' lines and records.
        let (mut ats, mut recs): (Vec<u64>, Vec<GameRecord>) = (Vec::new(), Vec::new());
        let mut flush =
            |ats: &mut Vec<u64>, recs: &mut Vec<GameRecord>, report: &mut LabelReport| {
                for (at, o) in ats
                    .iter()
                    .zip(label_games(recs, spec.size, eval, spec.tolerance))
                {
                    match o {
                        Outcome::Labelled { own, .. } => {
                            report.counted += 1;
                            report.labelled += 1;
                            lines.push(format_line(&name, *at, &own));
                        }
                        Outcome::NotCounted => {}
                        Outcome::Territory => {
                            report.counted += 1;
                            report.territory += 1;
                        }
                        Outcome::Mismatch(d) => {
                            report.counted += 1;
                            let d = d.abs();
                            let k = if d.is_nan() {
                                5
                            } else {
                                [2.0, 5.0, 10.0, 20.0]
                                    .iter()
                                    .take_while(|&&t| d > t)
                                    .count()
                            };
                            report.mismatch[k] += 1;
                        }
                        Outcome::Skipped(_) => report.skipped += 1,
                    }
                }
                ats.clear();
                recs.clear();
            };
        for (i, line) in std::io::BufRead::split(reader, b'\n').enumerate() {
            let line = line.map_err(|e| format!("{}: {e}", f.display()))?;
            if line.iter().all(|b| b.is_ascii_whitespace()) {
                continue;
            }
            report.games += 1;
            match GameRecord::from_bytes(&line) {
                Ok(rec) => {
                    ats.push(i as u64 + 1);
                    recs.push(rec);
                }
                Err(_) => report.skipped += 1,
            }
            if recs.len() >= spec.batch.max(1) {
                flush(&mut ats, &mut recs, &mut report);
            }
            if report.games.is_multiple_of(5000) {
                eprintln!(
                    "{name}: {} games read, {} labelled of {} counted",
                    report.games, report.labelled, report.counted
                );
            }
        }
        flush(&mut ats, &mut recs, &mut report);
        report.by_file.push((name, report.labelled - before));
    }
    write_labels(out, &lines)?;
    eprintln!(
        "{}: {} games labelled of {} counted ({} territory-scored, {} off the record's margin)",
        out.display(),
        report.labelled,
        report.counted,
        report.territory,
        report.mismatch.iter().sum::<u64>()
    );
    Ok(report)
}

/// Writes `lines` (from [`format_line`]) as a labels file.
pub fn write_labels(path: &Path, lines: &[String]) -> Result<(), String> {
    let f = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut gz = flate2::write::GzEncoder::new(f, flate2::Compression::default());
    for l in lines {
        writeln!(gz, "{l}").map_err(|e| format!("{}: {e}", path.display()))?;
    }
    gz.finish()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen::eval::EvalOutput;

    /// Ownership from the area count of the final board with the stones
    /// at `dead` taken off, as a perfect judge would give it.
    struct Knows(Vec<tengen::rules::Point>);

    impl Evaluator for Knows {
        fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
            batch
                .iter()
                .map(|i| {
                    let b = i.position.board();
                    let (_, owners) = area_with_owners(b, &self.0);
                    let me = i.position.to_move();
                    let n = b.size() * b.size();
                    let ownership = b
                        .points()
                        .map(|p| match owners[p.index()] {
                            Some(c) if c == me => 1.0,
                            Some(_) => -1.0,
                            None => 0.0,
                        })
                        .collect();
                    EvalOutput {
                        shortterm_error: None,
                        policy: vec![1.0 / (n + 1) as f32; n + 1],
                        value: [0.5, 0.5, 0.0],
                        score_lead: 0.0,
                        ownership: Some(ownership),
                    }
                })
                .collect()
        }
        fn max_batch(&self) -> usize {
            8
        }
        fn name(&self) -> String {
            "knows".into()
        }
    }

    /// 5×5: Black owns columns A–B, White D–E, column C Black's stones, and
    /// a white stone at A1 inside Black's area, dead. Area: Black 15
    /// (10 + 5 stones of C), White 10; komi 0.5 → B+4.5.
    fn game(re: &str, ru: &str) -> GameRecord {
        let sgf = format!(
            "(;SZ[5]KM[0.5]{ru}RE[{re}];B[cc];W[dc];B[cb];W[db];B[cd];W[dd];B[ca];W[da];B[ce];W[de];W[ae])"
        );
        GameRecord::from_sgf(&sgf).unwrap()
    }

    fn a1() -> tengen::rules::Point {
        tengen::rules::Point::new(0, 4)
    }

    #[test]
    fn a_count_that_matches_the_record_gives_a_label() {
        let eval = Knows(vec![a1()]);
        let out = label_games(&[game("B+4.5", "")], 5, &eval, 0.0);
        let Outcome::Labelled { own, margin } = &out[0] else {
            panic!("{out:?}");
        };
        assert_eq!(*margin, 4.5);
        // A1 (the dead white stone) is Black's, C3 Black's, D3 White's.
        assert_eq!(own[a1().dense(5)], 1);
        assert_eq!(own[2 * 5 + 2], 1);
        assert_eq!(own[2 * 5 + 3], -1);
        assert_eq!(own.iter().filter(|&&o| o == 1).count(), 15);
        assert_eq!(own.iter().filter(|&&o| o == -1).count(), 10);
    }

    #[test]
    fn a_count_that_disagrees_with_the_record_gives_none() {
        // The judge calls A1 alive: Black's area shrinks (B+? no longer 4.5).
        let eval = Knows(Vec::new());
        let out = label_games(&[game("B+4.5", "")], 5, &eval, 1.0);
        assert!(matches!(out[0], Outcome::Mismatch(_)), "{out:?}");
        // Within a wide enough tolerance it is accepted.
        let eval = Knows(vec![a1()]);
        let out = label_games(&[game("B+5.5", "")], 5, &eval, 1.0);
        assert!(matches!(out[0], Outcome::Labelled { .. }), "{out:?}");
    }

    #[test]
    fn resigned_and_territory_games_are_not_labelled() {
        let eval = Knows(vec![a1()]);
        let out = label_games(
            &[game("B+R", ""), game("B+4.5", "RU[Japanese]")],
            5,
            &eval,
            0.0,
        );
        assert_eq!(out, vec![Outcome::NotCounted, Outcome::Territory]);
    }

    #[test]
    fn labels_round_trip_through_a_file() {
        let dir = std::env::temp_dir().join(format!("tengen-labels-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("labels.gz");
        let own = vec![1, -1, 0, 1];
        write_labels(&path, &[format_line("tom-9d-train-00.sgfs.gz", 7, &own)]).unwrap();
        let l = Labels::load(&path).unwrap();
        assert_eq!(l.len(), 1);
        assert_eq!(
            l.get("../shared/x/tom-9d-train-00.sgfs.gz", 7),
            Some(&own[..])
        );
        assert_eq!(l.get("tom-9d-train-00.sgfs.gz", 8), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
