//! The komi curve: what a net thinks of the empty board as komi moves.
//! A net that learned komi answers with a White lead that rises with it,
//! one point of lead per point of komi, and a White winrate that rises
//! too; the shipped SL nets, trained at komi 7 only, jump around instead
//! (issue 15's measurements). `tengen-train komi-curve` prints the table
//! and the count of steps where the lead falls.

use std::sync::Arc;

use tengen::eval::{EvalInput, Evaluator};
use tengen::rules::{Position, Ruleset};

/// One komi's answer, from White's view (as `kata-raw-nn` prints it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub komi: f32,
    pub white_lead: f32,
    pub white_win: f32,
}

/// The net's answer on the empty `size` board under `rules` at each komi
/// of `komis` (Black to move; symmetry as the evaluator runs it).
pub fn curve(
    eval: &Arc<dyn Evaluator>,
    size: usize,
    rules: Ruleset,
    komis: &[f32],
) -> Result<Vec<Point>, String> {
    let mut out = Vec::with_capacity(komis.len());
    for chunk in komis.chunks(eval.max_batch().max(1)) {
        let inputs: Vec<EvalInput> = chunk
            .iter()
            .map(|&k| {
                Position::new(size, rules.with_komi(k))
                    .map(EvalInput::new)
                    .map_err(|e| format!("board size {size}: {e}"))
            })
            .collect::<Result<_, _>>()?;
        for (o, &komi) in eval.evaluate(&inputs).iter().zip(chunk) {
            // Outputs are for the player to move: Black on the empty board.
            out.push(Point {
                komi,
                white_lead: -o.score_lead,
                white_win: o.value[1],
            });
        }
    }
    Ok(out)
}

/// Steps (consecutive points) where the White lead falls by more than
/// `tolerance` points as komi rises.
pub fn falls(points: &[Point], tolerance: f32) -> usize {
    points
        .windows(2)
        .filter(|w| w[1].white_lead < w[0].white_lead - tolerance)
        .count()
}

/// The least-squares slope of the lead against komi (1.0 is ideal).
pub fn slope(points: &[Point]) -> f32 {
    let n = points.len() as f32;
    if n < 2.0 {
        return f32::NAN;
    }
    let mx = points.iter().map(|p| p.komi).sum::<f32>() / n;
    let my = points.iter().map(|p| p.white_lead).sum::<f32>() / n;
    let sxy: f32 = points
        .iter()
        .map(|p| (p.komi - mx) * (p.white_lead - my))
        .sum();
    let sxx: f32 = points.iter().map(|p| (p.komi - mx).powi(2)).sum();
    sxy / sxx
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

    fn pts(leads: &[f32]) -> Vec<Point> {
        leads
            .iter()
            .enumerate()
            .map(|(i, &l)| Point {
                komi: i as f32,
                white_lead: l,
                white_win: 0.5,
            })
            .collect()
    }

    #[test]
    fn falls_and_slope_measure_the_curve() {
        let good = pts(&[-3.0, -2.0, -1.0, 0.0, 1.0]);
        assert_eq!(falls(&good, 0.0), 0);
        assert!((slope(&good) - 1.0).abs() < 1e-5);
        let bad = pts(&[0.8, -1.1, 0.8, 4.3, 4.3]);
        assert_eq!(falls(&bad, 0.1), 1);
    }
}
