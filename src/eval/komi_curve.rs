//! The komi curve: what a net thinks of a position as komi moves, and
//! issue 15's floor for komi and rules built on it.
//!
//! A net that learned komi answers with a White lead that rises with it,
//! one point of lead per point of komi, and a White winrate that rises
//! too; nets trained at one komi only jump around instead. [`curve`]
//! measures that on any position (a board size and the moves played from
//! the empty board); [`falls`] and [`slope`] summarise it.
//!
//! The floor ([`check`], [`check_all`] over [`standard_cases`]): on the
//! empty 9×9, 13×13 and 19×19 boards and in one midgame position on each
//! of those sizes, under each of Chinese, Japanese, Tromp-Taylor and AGA
//! rules (24 cases), the White lead must rise steadily with komi from −10
//! to +10 in steps of 0.5 (no step down by more than
//! [`FALL_TOLERANCE`] points, at least [`MIN_RISE`] points up over the
//! whole range), and the best policy move must have at least
//! [`MIN_BEST_POLICY`] of the policy under each ruleset (at that ruleset's
//! default komi) and be a move on the board: a net whose favourite on a
//! board with play left is to pass fails too (the floor does not
//! say so; `tengen-9x9-v5` under Japanese rules passes the floor's letter
//! with 63% on a pass on the empty board). KataGo's nets pass it.
//!
//! The net sees what the engine would give it: the position under the
//! ruleset with the komi set ([`Ruleset::with_komi`]), the last
//! [`RECENT_MOVES`] moves and the last [`PREV_BOARDS`] earlier boards, and
//! whatever symmetry and policy settings the evaluator runs with (the
//! engine's net evaluator: symmetry 0 and the plain policy head, as
//! `kata-raw-nn 0 0` prints them). Nothing in the rules depends on this
//! module.

use std::fmt::Write as _;

use super::{evaluate_all, EvalInput, EvalOutput, Evaluator, PREV_BOARDS, RECENT_MOVES};
use crate::rules::{Color, Move, Position, Ruleset};

/// One komi's answer, from White's view (as `kata-raw-nn` prints it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub komi: f32,
    pub white_lead: f32,
    pub white_win: f32,
}

/// A steady curve has no step where the lead falls by more than this.
pub const FALL_TOLERANCE: f32 = 0.3;

/// The least rise of the White lead from komi −10 to komi +10.
pub const MIN_RISE: f32 = 12.0;

/// The least policy the best move must have.
pub const MIN_BEST_POLICY: f32 = 0.05;

/// The floor's rulesets, by the names [`Ruleset::from_name`] knows.
pub const FLOOR_RULES: [&str; 4] = ["chinese", "japanese", "tromp-taylor", "aga"];

/// The floor's komis: −10 to +10 in steps of 0.5 (41 points).
pub fn floor_komis() -> Vec<f32> {
    (0..=40).map(|i| -10.0 + 0.5 * i as f32).collect()
}

/// The moves of `moves` (GTP vertices or `pass`) on a `size` board.
pub fn parse_moves(size: usize, moves: &[&str]) -> Result<Vec<Move>, String> {
    moves
        .iter()
        .map(|v| {
            Move::parse_gtp(v, size).ok_or_else(|| format!("{v:?} is no move on {size}x{size}"))
        })
        .collect()
}

/// The net's input after `moves` are played alternately from the empty
/// `size` board under `rules`, Black first: the position, its recent
/// moves and earlier boards. An error names the first illegal move.
pub fn input_after(size: usize, moves: &[Move], rules: Ruleset) -> Result<EvalInput, String> {
    let mut pos = Position::new(size, rules).map_err(|e| format!("board size {size}: {e}"))?;
    let mut recent = Vec::with_capacity(moves.len());
    let mut boards = Vec::with_capacity(moves.len());
    for (i, &mv) in moves.iter().enumerate() {
        let color = if i % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        boards.push(pos.board().clone());
        pos.play(color, mv)
            .map_err(|e| format!("move {} ({color:?} {mv:?}) on {size}x{size}: {e}", i + 1))?;
        recent.push((color, mv));
    }
    let skip = recent.len().saturating_sub(RECENT_MOVES);
    recent.drain(..skip);
    let prev: Vec<_> = boards.into_iter().rev().take(PREV_BOARDS).collect();
    Ok(EvalInput::new(pos)
        .with_recent(recent)
        .with_prev_boards(prev))
}

/// `input` once per komi of `komis` (the rules otherwise as they are).
fn at_komis(input: &EvalInput, komis: &[f32]) -> Vec<EvalInput> {
    komis
        .iter()
        .map(|&k| {
            let mut i = input.clone();
            let rules = i.position.rules().with_komi(k);
            i.position.set_rules(rules);
            i
        })
        .collect()
}

/// An output (for the player to move) from White's view.
fn point(komi: f32, to_move: Color, o: &EvalOutput) -> Point {
    let (white_lead, white_win) = match to_move {
        Color::Black => (-o.score_lead, o.value[1]),
        Color::White => (o.score_lead, o.value[0]),
    };
    Point {
        komi,
        white_lead,
        white_win,
    }
}

/// The net's answer after `moves` (played alternately from the empty
/// `size` board, Black first) under `rules` at each komi of `komis`,
/// evaluated in batches of the evaluator's `max_batch`.
pub fn curve(
    eval: &dyn Evaluator,
    size: usize,
    moves: &[Move],
    rules: Ruleset,
    komis: &[f32],
) -> Result<Vec<Point>, String> {
    let input = input_after(size, moves, rules)?;
    let to_move = input.position.to_move();
    let outs = evaluate_all(eval, &at_komis(&input, komis));
    Ok(komis
        .iter()
        .zip(&outs)
        .map(|(&k, o)| point(k, to_move, o))
        .collect())
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

/// One case of the floor: a position (a board size and the moves played
/// alternately from the empty board, Black first) under a ruleset, named
/// as [`Ruleset::from_name`] knows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub size: usize,
    pub moves: Vec<Move>,
    pub rules: String,
}

impl Case {
    /// The ruleset at its default komi.
    pub fn ruleset(&self) -> Result<Ruleset, String> {
        Ruleset::from_name(&self.rules).ok_or_else(|| format!("unknown ruleset {:?}", self.rules))
    }

    /// "9x9 empty" or "13x13 after 14 moves".
    pub fn position_name(&self) -> String {
        match self.moves.len() {
            0 => format!("{0}x{0} empty", self.size),
            n => format!("{0}x{0} after {n} moves", self.size),
        }
    }
}

/// What the net answered in one [`Case`].
#[derive(Clone, Debug, PartialEq)]
pub struct CaseResult {
    pub case: Case,
    /// The curve at [`floor_komis`].
    pub points: Vec<Point>,
    /// Steps where the lead falls by more than [`FALL_TOLERANCE`].
    pub falls: usize,
    /// White's lead at komi +10 minus at komi −10.
    pub rise: f32,
    /// The komi the policy was read at: the ruleset's default.
    pub policy_komi: f32,
    /// The most probable move of the policy and its probability.
    pub best_move: Move,
    pub best_policy: f32,
}

impl CaseResult {
    /// Whether the case meets the floor.
    pub fn passes(&self) -> bool {
        self.falls == 0
            && self.rise >= MIN_RISE
            && self.best_policy >= MIN_BEST_POLICY
            && self.best_move != Move::Pass
    }

    /// The largest single fall of the lead (0 when it never falls).
    pub fn worst_fall(&self) -> f32 {
        self.points
            .windows(2)
            .map(|w| w[0].white_lead - w[1].white_lead)
            .fold(0.0, f32::max)
    }
}

/// The standard midgame position on 9×9 (12 moves).
pub const MIDGAME_9X9: &[&str] = &[
    "E5", "C4", "F3", "D6", "E6", "D5", "E4", "C7", "G6", "D3", "E3", "D2",
];

/// The standard midgame position on 13×13 (14 moves).
pub const MIDGAME_13X13: &[&str] = &[
    "K10", "D4", "K4", "D10", "F3", "C6", "H3", "G11", "K7", "F10", "C3", "D3", "C4", "E4",
];

/// The standard midgame position on 19×19 (16 moves).
pub const MIDGAME_19X19: &[&str] = &[
    "Q16", "D4", "Q4", "D16", "C14", "F17", "C11", "F3", "R10", "K4", "K16", "C6", "E14", "O3",
    "O4", "N3",
];

/// The floor's 24 cases: the empty 9×9, 13×13 and 19×19 boards and the
/// midgame position of each size ([`MIDGAME_9X9`] and so on), each under
/// the four [`FLOOR_RULES`]; position by position, rules fastest.
pub fn standard_cases() -> Vec<Case> {
    let mut out = Vec::new();
    for (size, midgame) in [(9, MIDGAME_9X9), (13, MIDGAME_13X13), (19, MIDGAME_19X19)] {
        let midgame = parse_moves(size, midgame).expect("the standard midgame moves parse");
        for moves in [Vec::new(), midgame] {
            for rules in FLOOR_RULES {
                out.push(Case {
                    size,
                    moves: moves.clone(),
                    rules: rules.into(),
                });
            }
        }
    }
    out
}

/// Runs `case` (see [`check_all`]).
pub fn check(eval: &dyn Evaluator, case: &Case) -> Result<CaseResult, String> {
    check_all(eval, std::slice::from_ref(case)).map(|mut r| r.remove(0))
}

/// Runs every case: the curve at [`floor_komis`] and the policy at the
/// ruleset's default komi (which is one of those komis for the floor's
/// rulesets, so it costs nothing extra), all inputs evaluated together
/// in batches of the evaluator's `max_batch`.
pub fn check_all(eval: &dyn Evaluator, cases: &[Case]) -> Result<Vec<CaseResult>, String> {
    let komis = floor_komis();
    let mut inputs = Vec::new();
    let mut plans = Vec::with_capacity(cases.len());
    for case in cases {
        let rules = case.ruleset()?;
        let input = input_after(case.size, &case.moves, rules)
            .map_err(|e| format!("{}: {e}", case.position_name()))?;
        let mut ks = komis.clone();
        let policy_at = match ks.iter().position(|&k| k == rules.komi) {
            Some(i) => i,
            None => {
                ks.push(rules.komi);
                ks.len() - 1
            }
        };
        plans.push((inputs.len(), ks.len(), policy_at, input.position.to_move()));
        inputs.extend(at_komis(&input, &ks));
    }
    let outs = evaluate_all(eval, &inputs);
    if outs.len() != inputs.len() {
        return Err(format!(
            "the evaluator answered {} of {} inputs",
            outs.len(),
            inputs.len()
        ));
    }
    let mut results = Vec::with_capacity(cases.len());
    for (case, &(start, n, policy_at, to_move)) in cases.iter().zip(&plans) {
        let rules = case.ruleset()?;
        let outs = &outs[start..start + n];
        let points: Vec<Point> = komis
            .iter()
            .zip(outs)
            .map(|(&k, o)| point(k, to_move, o))
            .collect();
        let policy = &outs[policy_at].policy;
        let (best, best_policy) =
            policy
                .iter()
                .copied()
                .enumerate()
                .fold(
                    (0, f32::NEG_INFINITY),
                    |a, (i, p)| if p > a.1 { (i, p) } else { a },
                );
        let cells = case.size * case.size;
        let best_move = if best >= cells {
            Move::Pass
        } else {
            Move::Place(crate::rules::Point::from_dense(best, case.size))
        };
        let lead_at = |k: f32| points.iter().find(|p| p.komi == k).map(|p| p.white_lead);
        let rise = match (lead_at(-10.0), lead_at(10.0)) {
            (Some(a), Some(b)) => b - a,
            _ => f32::NAN,
        };
        results.push(CaseResult {
            case: case.clone(),
            falls: falls(&points, FALL_TOLERANCE),
            rise,
            policy_komi: rules.komi,
            best_move,
            best_policy,
            points,
        });
    }
    Ok(results)
}

/// The results as a table, one line per case, with a last line counting
/// the cases that pass.
pub fn table(results: &[CaseResult]) -> String {
    let mut s = format!(
        "{:<22} {:<13} {:>5} {:>10} {:>7} {:>6} {:>5} {:>6}  {}\n",
        "position", "rules", "falls", "worst fall", "rise", "best", "move", "komi", "verdict"
    );
    for r in results {
        let _ = writeln!(
            s,
            "{:<22} {:<13} {:>5} {:>10.2} {:>7.2} {:>6.3} {:>5} {:>6}  {}",
            r.case.position_name(),
            r.case.rules,
            r.falls,
            r.worst_fall(),
            r.rise,
            r.best_policy,
            r.best_move.to_gtp(r.case.size),
            r.policy_komi,
            if r.passes() { "pass" } else { "FAIL" }
        );
    }
    let _ = writeln!(
        s,
        "{} of {} cases pass (falls by > {FALL_TOLERANCE}: 0, rise >= {MIN_RISE}, best policy >= {MIN_BEST_POLICY} and not a pass)",
        results.iter().filter(|r| r.passes()).count(),
        results.len()
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::fake::UniformEvaluator;

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

    #[test]
    fn the_standard_cases_are_legal_and_all_24() {
        let cases = standard_cases();
        assert_eq!(cases.len(), 24);
        for c in &cases {
            assert!(c.moves.is_empty() || (10..=16).contains(&c.moves.len()));
            let input = input_after(c.size, &c.moves, c.ruleset().unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", c.position_name()));
            assert_eq!(input.recent.len(), c.moves.len().min(RECENT_MOVES));
            assert_eq!(input.prev_boards.len(), c.moves.len().min(PREV_BOARDS));
        }
        let names: Vec<&str> = cases.iter().map(|c| c.rules.as_str()).collect();
        assert_eq!(&names[..4], &FLOOR_RULES);
    }

    #[test]
    fn an_illegal_move_is_named() {
        let moves = parse_moves(9, &["E5", "E5"]).unwrap();
        let e = input_after(9, &moves, Ruleset::chinese()).unwrap_err();
        assert!(e.contains("move 2"), "{e}");
        assert!(parse_moves(9, &["Z9"]).is_err());
    }

    /// The uniform evaluator's lead is 0 at every komi: no falls, no rise,
    /// and a policy spread over 82 moves, so every case fails.
    #[test]
    fn a_net_that_ignores_komi_fails_the_floor() {
        let cases = standard_cases();
        let results = check_all(&UniformEvaluator, &cases[..8]).unwrap();
        for r in &results {
            assert_eq!(r.points.len(), 41);
            assert_eq!(r.falls, 0);
            assert_eq!(r.rise, 0.0);
            assert!(!r.passes());
        }
        assert_eq!(results[0].policy_komi, 5.5);
        assert_eq!(results[1].policy_komi, 6.5);
        assert!(table(&results).contains("0 of 8 cases pass"));
        let one = check(&UniformEvaluator, &cases[4]).unwrap();
        assert_eq!(one, results[4]);
    }
}
