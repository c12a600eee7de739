//! The komi curve: what a net thinks of the empty board as komi moves.
//! A net that learned komi answers with a White lead that rises with it,
//! one point of lead per point of komi, and a White winrate that rises
//! too; the shipped SL nets, trained at komi 7 only, jump around instead
//! (issue 15's measurements). `tengen-train komi-curve` prints the table
//! and the count of steps where the lead falls. The curve itself and
//! issue 15's floor live in the library ([`tengen::eval::komi_curve`]);
//! this module keeps the loop's CSV summary.

use std::sync::Arc;

use tengen::eval::Evaluator;
use tengen::rules::Ruleset;

pub use tengen::eval::komi_curve::{falls, slope, Point};

/// The net's answer on the empty `size` board under `rules` at each komi
/// of `komis` (Black to move; symmetry as the evaluator runs it).
pub fn curve(
    eval: &Arc<dyn Evaluator>,
    size: usize,
    rules: Ruleset,
    komis: &[f32],
) -> Result<Vec<Point>, String> {
    tengen::eval::komi_curve::curve(&**eval, size, &[], rules, komis)
}

pub const SUMMARY_HEADER: &str =
    "generation,rules,falls,steps,slope,white_lead_at_5.5,white_lead_at_7,white_win_at_5.5,white_win_at_7";

/// Appends the komi-curve summary of the net at `model` (komi −10..10 in
/// half points on the empty `size` board, Chinese and Japanese rules) as
/// generation `g`'s rows of `csv`, unless that generation has rows there.
pub fn record(
    eval: &Arc<dyn Evaluator>,
    size: usize,
    g: u32,
    csv: &std::path::Path,
) -> Result<(), String> {
    let have = std::fs::read_to_string(csv).unwrap_or_default();
    if have
        .lines()
        .skip(1)
        .any(|l| l.split(',').next() == Some(&g.to_string()))
    {
        return Ok(());
    }
    let komis: Vec<f32> = (0..=40).map(|i| -10.0 + 0.5 * i as f32).collect();
    let mut rows = Vec::new();
    for (name, rules) in [
        ("chinese", Ruleset::chinese()),
        ("japanese", Ruleset::japanese()),
    ] {
        let pts = curve(eval, size, rules, &komis)?;
        let at = |k: f32| pts.iter().find(|p| p.komi == k).copied();
        let (a, b) = (at(5.5), at(7.0));
        rows.push(format!(
            "{g},{name},{},{},{:.3},{:.3},{:.3},{:.4},{:.4}",
            falls(&pts, 0.1),
            pts.len() - 1,
            slope(&pts),
            a.map_or(f32::NAN, |p| p.white_lead),
            b.map_or(f32::NAN, |p| p.white_lead),
            a.map_or(f32::NAN, |p| p.white_win),
            b.map_or(f32::NAN, |p| p.white_win),
        ));
    }
    crate::util::append_csv_row(csv, SUMMARY_HEADER, &rows.join("\n"))
}

/// The net's komi slope (least-squares lead per point of komi, over
/// `komis`) at move `at[i]` of each of the first `games` even games of a
/// gzip SGF collection (one game per line): (move, mean slope, games).
/// Games with handicap or setup stones, or whose colours do not alternate
/// from Black, are passed over. On the empty board the slope says little
/// of a net that reads whose turn it is from komi; over real positions of
/// both colours it does (see `train::data::KomiShift`).
pub fn slopes_in_games(
    eval: &Arc<dyn Evaluator>,
    collection: &std::path::Path,
    games: usize,
    at: &[usize],
    rules: Ruleset,
    komis: &[f32],
) -> Result<Vec<(usize, f32, usize)>, String> {
    use std::io::BufRead;
    use tengen::rules::Color;
    let file =
        std::fs::File::open(collection).map_err(|e| format!("{}: {e}", collection.display()))?;
    let reader = std::io::BufReader::new(flate2::read::MultiGzDecoder::new(file));
    let mut sums = vec![(0.0f32, 0usize); at.len()];
    let mut taken = 0;
    for line in reader.split(b'\n') {
        let line = line.map_err(|e| format!("{}: {e}", collection.display()))?;
        if taken >= games {
            break;
        }
        let Ok(rec) = tengen::sgf::GameRecord::from_bytes(&line) else {
            continue;
        };
        let alternating = rec
            .moves()
            .enumerate()
            .all(|(i, (c, _))| (c == Color::Black) == (i % 2 == 0));
        let setup = rec
            .nodes
            .iter()
            .any(|n| !n.setup.is_empty() || n.to_play.is_some());
        if rec.handicap.unwrap_or(0) > 1 || setup || !alternating {
            continue;
        }
        let moves: Vec<_> = rec.moves().map(|(_, m)| m).collect();
        taken += 1;
        for (k, &m) in at.iter().enumerate() {
            if m > moves.len() {
                continue;
            }
            let pts =
                tengen::eval::komi_curve::curve(&**eval, rec.size, &moves[..m], rules, komis)?;
            sums[k].0 += slope(&pts);
            sums[k].1 += 1;
        }
    }
    Ok(at
        .iter()
        .zip(sums)
        .map(|(&m, (sum, n))| (m, sum / n.max(1) as f32, n))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen::eval::fake::UniformEvaluator;

    /// Only even games count (no handicap, setup or colours out of turn),
    /// and a move number past a game's end is left out of its mean.
    #[test]
    fn slopes_in_games_reads_even_games_only() {
        use std::io::Write;
        let dir = std::env::temp_dir().join(format!("tengen-komi-slopes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c.sgfs.gz");
        let games = [
            "(;GM[1]SZ[9]KM[7];B[ee];W[cc];B[gg];W[cg])",
            "(;GM[1]SZ[9]KM[0.5]HA[2]AB[cc][gg];W[ee])",
            "(;GM[1]SZ[9]KM[7];W[ee];B[cc])",
        ];
        let mut gz = flate2::write::GzEncoder::new(
            std::fs::File::create(&path).unwrap(),
            flate2::Compression::fast(),
        );
        for g in games {
            writeln!(gz, "{g}").unwrap();
        }
        gz.finish().unwrap();
        let eval: Arc<dyn Evaluator> = Arc::new(UniformEvaluator);
        let rows = slopes_in_games(
            &eval,
            &path,
            10,
            &[0, 2, 10],
            Ruleset::chinese(),
            &[0.0, 1.0],
        )
        .unwrap();
        assert_eq!(rows, vec![(0, 0.0, 1), (2, 0.0, 1), (10, 0.0, 0)]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A generation's rows are written once (Chinese and Japanese, 40
    /// steps each); the uniform evaluator's lead is flat at 0.
    #[test]
    fn record_writes_a_generation_once() {
        let dir = std::env::temp_dir().join(format!("tengen-komi-curve-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let csv = dir.join("komi-curve.csv");
        let _ = std::fs::remove_file(&csv);
        let eval: Arc<dyn Evaluator> = Arc::new(UniformEvaluator);
        let pts = curve(&eval, 9, Ruleset::chinese(), &[-1.0, 0.0, 1.0]).unwrap();
        assert_eq!(pts.len(), 3);
        assert_eq!(falls(&pts, 0.1), 0);
        record(&eval, 9, 3, &csv).unwrap();
        record(&eval, 9, 3, &csv).unwrap();
        let text = std::fs::read_to_string(&csv).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], SUMMARY_HEADER);
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[1].starts_with("3,chinese,0,40,"), "{}", lines[1]);
        assert!(lines[2].starts_with("3,japanese,0,40,"), "{}", lines[2]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
