//! Match statistics: Elo with a 95% interval from wins, losses and draws,
//! and a sequential probability ratio test (SPRT) for early stopping,
//! using the normal approximation of the per-game score (draws count
//! half).

/// Results from one side's view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Tally {
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
}

/// An Elo estimate and its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EloEstimate {
    pub elo: f64,
    pub lo: f64,
    pub hi: f64,
}

/// The SPRT's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sprt {
    Continue,
    /// The candidate is not better by `elo1` (H0: Elo = `elo0`).
    AcceptH0,
    /// The candidate is better (H1: Elo = `elo1`).
    AcceptH1,
}

/// Elo difference for an expected score; ±800 caps 0 and 1.
pub fn elo_of(score: f64) -> f64 {
    let s = score.clamp(1e-3, 1.0 - 1e-3);
    (-400.0 * (1.0 / s - 1.0).log10()).clamp(-800.0, 800.0)
}

fn score_of(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

impl Tally {
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    pub fn add(&mut self, result: f64) {
        if result > 0.5 {
            self.wins += 1;
        } else if result < 0.5 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Mean score and its per-game variance.
    fn moments(&self) -> Option<(f64, f64)> {
        let n = self.games() as f64;
        if n == 0.0 {
            return None;
        }
        let s = (self.wins as f64 + 0.5 * self.draws as f64) / n;
        let var = (self.wins as f64 * (1.0 - s).powi(2)
            + self.losses as f64 * s * s
            + self.draws as f64 * (0.5 - s).powi(2))
            / n;
        Some((s, var))
    }

    /// Elo with a 95% interval (none without games).
    pub fn elo(&self) -> Option<EloEstimate> {
        let (s, var) = self.moments()?;
        let se = (var / self.games() as f64).sqrt();
        Some(EloEstimate {
            elo: elo_of(s),
            lo: elo_of(s - 1.96 * se),
            hi: elo_of(s + 1.96 * se),
        })
    }

    /// SPRT of H0 Elo = `elo0` against H1 Elo = `elo1` with error rates
    /// `alpha`, `beta`.
    pub fn sprt(&self, elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Sprt {
        let Some((s, var)) = self.moments() else {
            return Sprt::Continue;
        };
        let n = self.games() as f64;
        // A variance of 0 (all wins) still needs some games to decide.
        let var = var.max(0.25 / n.max(1.0));
        let (s0, s1) = (score_of(elo0), score_of(elo1));
        let llr = n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var);
        let lower = (beta / (1.0 - alpha)).ln();
        let upper = ((1.0 - beta) / alpha).ln();
        if llr >= upper {
            Sprt::AcceptH1
        } else if llr <= lower {
            Sprt::AcceptH0
        } else {
            Sprt::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_score_is_zero_elo() {
        let t = Tally {
            wins: 10,
            losses: 10,
            draws: 0,
        };
        let e = t.elo().unwrap();
        assert!(e.elo.abs() < 1e-9 && e.lo < 0.0 && e.hi > 0.0);
    }

    #[test]
    fn sprt_accepts_a_clear_winner() {
        let t = Tally {
            wins: 60,
            losses: 5,
            draws: 0,
        };
        assert_eq!(t.sprt(0.0, 35.0, 0.05, 0.05), Sprt::AcceptH1);
        let t = Tally {
            wins: 5,
            losses: 60,
            draws: 0,
        };
        assert_eq!(t.sprt(0.0, 35.0, 0.05, 0.05), Sprt::AcceptH0);
    }
}
