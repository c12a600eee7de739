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

#[cfg(test)]
mod tests {
    use super::*;
    use tengen::eval::fake::UniformEvaluator;

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
