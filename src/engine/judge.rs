//! Judging an interrupted game (RULES A3): what a referee needs when a
//! game stops after move 150 — the estimated winner, the margin in points
//! and in Chinese "stones" terms, the win probability, and how sure the
//! estimate is.
//!
//! The estimate comes from a search of the current position
//! ([`crate::engine::Engine::judge`]): its ownership resolves every point
//! (a point goes to the side owning it by at least [`DECIDED`], the rest
//! is split like dame), which gives an area count with komi and handicap
//! compensation exactly as the rules count a finished game; the search's
//! winrate gives the win probability. Confidence is
//! - *high* when the winner's probability is at least 90% and fewer
//!   points are undecided than the margin,
//! - *moderate* when the probability is at least 70% and the count and
//!   the search agree on the winner,
//! - *low* otherwise (too close to call, or the two estimates disagree).

use std::fmt;

use crate::rules::score::{fmt_points, AreaCount, Score};
use crate::rules::{Board, Color};

/// A point is decided when its ownership is at least this in absolute
/// value.
pub const DECIDED: f32 = 0.5;

/// How sure a [`Judgement`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Confidence {
    High,
    Moderate,
    Low,
}

impl fmt::Display for Confidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Confidence::High => "high",
            Confidence::Moderate => "moderate",
            Confidence::Low => "low",
        })
    }
}

/// The judgement of a position; see the module docs.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    /// The count of the board as the search expects it to end.
    pub score: Score,
    /// Probability that Black wins, in [0, 1].
    pub black_winrate: f32,
    /// The search's expected lead for Black in points.
    pub black_lead: f32,
    /// Points with |ownership| below [`DECIDED`].
    pub undecided: usize,
    /// Points on the board.
    pub points: usize,
    /// Root visits behind the estimate.
    pub visits: u64,
    /// Moves played so far.
    pub moves: usize,
}

impl Judgement {
    /// Builds the judgement from Black's-view ownership (dense order; an
    /// empty slice counts the stones as they stand) and the search's
    /// Black's-view winrate and lead. `visits` and `moves` start at 0.
    pub fn new(
        board: &Board,
        own_black: &[f32],
        komi: f32,
        handicap_points: f32,
        black_winrate: f32,
        black_lead: f32,
    ) -> Judgement {
        let size = board.size();
        let mut count = AreaCount::default();
        let mut undecided = 0;
        for p in board.points() {
            let o = match own_black.get(p.dense(size)) {
                Some(&o) if o.is_finite() => o,
                _ => match board.get(p) {
                    Some(Color::Black) => 1.0,
                    Some(Color::White) => -1.0,
                    None => 0.0,
                },
            };
            if o >= DECIDED {
                count.black_territory += 1;
            } else if o <= -DECIDED {
                count.white_territory += 1;
            } else {
                count.dame += 1;
                undecided += 1;
            }
        }
        Judgement {
            score: Score {
                count,
                size,
                komi,
                handicap_points,
                territory: None,
            },
            black_winrate: black_winrate.clamp(0.0, 1.0),
            black_lead,
            undecided,
            points: size * size,
            visits: 0,
            moves: 0,
        }
    }

    /// The estimated winner (`None`: a draw by the count).
    pub fn winner(&self) -> Option<Color> {
        self.score.winner()
    }

    /// The winner's probability of winning (0.5 for a draw).
    pub fn winner_probability(&self) -> f32 {
        match self.winner() {
            Some(Color::Black) => self.black_winrate,
            Some(Color::White) => 1.0 - self.black_winrate,
            None => 0.5,
        }
    }

    pub fn confidence(&self) -> Confidence {
        let p = self.winner_probability();
        let margin = self.score.margin().abs();
        if p >= 0.9 && (self.undecided as f32) < margin {
            Confidence::High
        } else if p >= 0.7 {
            Confidence::Moderate
        } else {
            Confidence::Low
        }
    }

    /// The report, one fact per line (no blank lines: it is also a GTP
    /// reply).
    pub fn report(&self) -> String {
        let who = |c: Color| if c == Color::Black { "Black" } else { "White" };
        let lead = if self.black_lead >= 0.0 {
            format!("Black by {:.1}", self.black_lead)
        } else {
            format!("White by {:.1}", -self.black_lead)
        };
        let why = match self.confidence() {
            Confidence::High => "the winner's lead is larger than the undecided area",
            Confidence::Moderate => "the result could still change",
            Confidence::Low if self.winner_probability() < 0.5 => {
                "the count and the search disagree on the winner"
            }
            Confidence::Low => "too close to call",
        };
        [
            format!(
                "Estimated result: {} ({}) after {} moves",
                self.score.result_string(),
                self.score.stones_string(),
                self.moves
            ),
            format!(
                "Margin: {} points; Black's count {} against {}",
                fmt_points(self.score.margin().abs()),
                fmt_points(self.score.black_count()),
                fmt_points(self.score.black_baseline())
            ),
            format!(
                "Win probability: Black {:.1}%, White {:.1}%",
                100.0 * self.black_winrate,
                100.0 * (1.0 - self.black_winrate)
            ),
            format!(
                "Search: expected lead {lead} points ({} visits)",
                self.visits
            ),
            format!(
                "Confidence: {} - {} of {} points undecided (|ownership| < {DECIDED}); {why}",
                self.confidence(),
                self.undecided,
                self.points
            ),
            match self.winner() {
                Some(c) => format!("Winner: {}", who(c)),
                None => "Winner: none (jigo)".to_string(),
            },
        ]
        .join("\n")
    }
}

impl fmt::Display for Judgement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.report())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_from_ownership_in_points_and_stones() {
        let b = Board::new(9);
        // Black owns 45 points, White 36: B+9 - 7 komi = B+2, 1 stone.
        let own: Vec<f32> = (0..81).map(|i| if i < 45 { 0.9 } else { -0.9 }).collect();
        let j = Judgement {
            moves: 150,
            ..Judgement::new(&b, &own, 7.0, 0.0, 0.8, 2.5)
        };
        assert_eq!(j.score.result_string(), "B+2");
        assert_eq!(j.score.stones_string(), "Black wins by 1 stone");
        assert_eq!(j.undecided, 0);
        assert_eq!(j.confidence(), Confidence::Moderate);
        let r = j.report();
        assert!(r.contains("B+2") && r.contains("80.0%"), "{r}");
        assert!(!r.contains("\n\n"));
    }
}
