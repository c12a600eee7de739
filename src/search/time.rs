//! Time management: the time systems and how long to think about one move.
//!
//! This is the one place for time *policy*; the clock *bookkeeping* (who
//! has how much left, `time_left`, charging a move) is
//! `crate::game::clock`, which calls [`move_time`]. The caller passes plain
//! numbers: the time left in the current phase and, in
//! overtime, the periods (byo-yomi) or stones (Canadian) left, exactly as
//! GTP `time_left` reports them. [`budget`] spreads the time over the
//! expected number of our remaining moves, weighted by the stage of the
//! game so that the middle game gets the most ([`phase_weight`]); [`hard_limit`] is the most a move
//! may take without losing on time; [`scale`] applies a multiplier (for
//! example [`uncertainty_factor`]: more when the search is unsure, less
//! when one move dominates or after the opponent passed) and never exceeds
//! the hard limit. Every function is pure and cheap.

use std::time::Duration;

/// A time system (RULES A2). Also the words `kgs-time_settings` and the
/// autosave use: see [`TimeControl::describe`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// No clock.
    None,
    /// Sudden death: `main` for the whole game.
    Absolute { main: Duration },
    /// Japanese byo-yomi: after `main`, `periods` periods of `period`; a
    /// move that ends inside a period keeps it.
    ByoYomi {
        main: Duration,
        period: Duration,
        periods: u32,
    },
    /// Canadian: after `main`, `stones` moves in every `period`.
    Canadian {
        main: Duration,
        period: Duration,
        stones: u32,
    },
    /// Fischer: `main`, plus `increment` after each move.
    Fischer { main: Duration, increment: Duration },
}

impl TimeControl {
    /// From GTP `time_settings main byo stones` (seconds): `byo == 0`
    /// means absolute time (no limit when `main` is 0 as well), `stones ==
    /// 0` with `byo > 0` means no limit; otherwise Canadian.
    pub fn from_gtp(main: Duration, byo: Duration, stones: u32) -> TimeControl {
        if byo.is_zero() {
            if main.is_zero() {
                TimeControl::None
            } else {
                TimeControl::Absolute { main }
            }
        } else if stones == 0 {
            TimeControl::None
        } else {
            TimeControl::Canadian {
                main,
                period: byo,
                stones,
            }
        }
    }

    /// A short description such as `byoyomi 600 30 5` or `fischer 300 5`,
    /// the same words `kgs-time_settings` uses (seconds).
    pub fn describe(&self) -> String {
        let s = |d: &Duration| fmt_secs(*d);
        match self {
            TimeControl::None => "none".to_string(),
            TimeControl::Absolute { main } => format!("absolute {}", s(main)),
            TimeControl::ByoYomi {
                main,
                period,
                periods,
            } => format!("byoyomi {} {} {periods}", s(main), s(period)),
            TimeControl::Canadian {
                main,
                period,
                stones,
            } => format!("canadian {} {} {stones}", s(main), s(period)),
            TimeControl::Fischer { main, increment } => {
                format!("fischer {} {}", s(main), s(increment))
            }
        }
    }

    /// Parses [`TimeControl::describe`]'s output.
    pub fn parse(text: &str) -> Option<TimeControl> {
        let w: Vec<&str> = text.split_whitespace().collect();
        let d = |i: usize| w.get(i).and_then(|t| parse_secs(t));
        let n = |i: usize| w.get(i).and_then(|t| t.parse::<u32>().ok());
        match *w.first()? {
            "none" => Some(TimeControl::None),
            "absolute" => Some(TimeControl::Absolute { main: d(1)? }),
            "byoyomi" => Some(TimeControl::ByoYomi {
                main: d(1)?,
                period: d(2)?,
                periods: n(3)?,
            }),
            "canadian" => Some(TimeControl::Canadian {
                main: d(1)?,
                period: d(2)?,
                stones: n(3)?,
            }),
            "fischer" => Some(TimeControl::Fischer {
                main: d(1)?,
                increment: d(2)?,
            }),
            _ => None,
        }
    }
}

/// Seconds with up to three decimals: `3600`, `0.5`.
pub fn fmt_secs(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{}", ms / 1000)
    } else {
        format!("{}.{:03}", ms / 1000, ms % 1000)
            .trim_end_matches('0')
            .to_string()
    }
}

/// Parses a non-negative, finite number of seconds (at most ten years).
pub fn parse_secs(text: &str) -> Option<Duration> {
    let x: f64 = text.parse().ok()?;
    (x.is_finite() && (0.0..=3.2e8).contains(&x)).then(|| Duration::from_secs_f64(x))
}

/// The time for one move: the `normal` budget and the `hard` limit that
/// must never be passed. A search may stretch `normal` by
/// [`uncertainty_factor`] through [`scale`], never past `hard`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveTime {
    pub normal: Duration,
    pub hard: Duration,
}

impl MoveTime {
    /// A fixed budget: no stretching.
    pub fn fixed(d: Duration) -> MoveTime {
        MoveTime { normal: d, hard: d }
    }

    /// Both bounds capped at `cap`.
    pub fn capped(self, cap: Duration) -> MoveTime {
        MoveTime {
            normal: self.normal.min(cap),
            hard: self.hard.min(cap),
        }
    }
}

/// [`budget`] and [`hard_limit`] together.
pub fn move_time(
    tc: &TimeControl,
    remaining: Duration,
    periods: u32,
    move_number: u32,
    size: usize,
    lag: Duration,
) -> MoveTime {
    MoveTime {
        normal: budget(tc, remaining, periods, move_number, size, lag),
        hard: hard_limit(tc, remaining, periods, lag),
    }
}

/// Budget multiplier bounds for [`scale`].
pub const MAX_STRETCH: f64 = 3.0;

/// Time a move costs outside the search (protocol, tree reuse, the GUI),
/// reserved for every expected remaining move in main time.
pub const MOVE_OVERHEAD: Duration = Duration::from_millis(10);

/// Our expected remaining moves (not plies) at ply `move_number` on a
/// board of `size`: a game lasts about 0.75 × area + 20 plies, and we
/// always assume at least 0.15 × area + 10 more plies, so the budget
/// shrinks geometrically in long games instead of running out.
pub fn expected_moves_left(move_number: u32, size: usize) -> f64 {
    let area = (size * size) as f64;
    let total = 0.75 * area + 20.0;
    let floor = 0.15 * area + 10.0;
    ((total - move_number as f64).max(floor) / 2.0).max(1.0)
}

/// How much a move at ply `ply` is worth thinking about, by the stage of
/// the game (ply over board area): the first plies of the opening least
/// (0.55, rising to 1 by 8% of the area: openings are well trodden and
/// the net's policy is at its best), the middle game most (1.3 from 18%
/// to 45%), the endgame less again (down to 0.7 by 75%).
pub fn phase_weight(ply: u32, size: usize) -> f64 {
    let x = ply as f64 / (size * size).max(1) as f64;
    if x < 0.08 {
        0.55 + 0.45 * x / 0.08
    } else if x < 0.45 {
        1.0 + 0.3 * ((x - 0.08) / 0.1).min(1.0)
    } else {
        1.3 - 0.6 * ((x - 0.45) / 0.3).min(1.0)
    }
}

/// This move's share of the main time: its [`phase_weight`] over the
/// weights of our `moves` expected remaining moves (this one and every
/// second ply after it), so the shares of the expected game sum to 1.
fn phase_share(ply: u32, size: usize, moves: f64) -> f64 {
    let n = moves.max(1.0);
    let whole = n.floor() as u32;
    let mut total: f64 = (0..whole).map(|k| phase_weight(ply + 2 * k, size)).sum();
    total += (n - whole as f64) * phase_weight(ply + 2 * whole, size);
    phase_weight(ply, size) / total.max(1e-9)
}

/// The normal thinking time for this move.
///
/// `remaining`: time left in the current phase (main time, or the current
/// overtime period). `periods`: 0 in main time; in overtime the byo-yomi
/// periods left, or the Canadian stones left to play in this period.
/// `lag`: network and GUI delay to keep in reserve; [`MOVE_OVERHEAD`] is
/// also kept for each expected move. Never more than [`hard_limit`].
pub fn budget(
    tc: &TimeControl,
    remaining: Duration,
    periods: u32,
    move_number: u32,
    size: usize,
    lag: Duration,
) -> Duration {
    let moves = expected_moves_left(move_number, size);
    let hard = hard_limit(tc, remaining, periods, lag);
    let secs = |d: Duration| d.as_secs_f64();
    // Overhead is reserved for a long game (2.5 × area + 40 plies), not
    // just the expected one: it is paid whatever the budget.
    let long = (2.5 * (size * size) as f64 + 40.0 - move_number as f64) / 2.0;
    let reserve = lag.as_secs_f64() + moves.max(long) * MOVE_OVERHEAD.as_secs_f64();
    let main_share = (secs(remaining) - reserve).max(0.0) * phase_share(move_number, size, moves);
    let b = match *tc {
        TimeControl::None => return Duration::MAX,
        TimeControl::Absolute { .. } => main_share,
        TimeControl::Fischer { increment, .. } => main_share + 0.8 * secs(increment),
        TimeControl::ByoYomi { period, .. } => {
            if periods == 0 {
                main_share + 0.5 * secs(period.saturating_sub(lag))
            } else {
                0.9 * secs(remaining.saturating_sub(lag))
            }
        }
        TimeControl::Canadian { period, stones, .. } => {
            if periods == 0 {
                let per_stone = secs(period) / stones.max(1) as f64;
                main_share + 0.5 * (per_stone - secs(lag)).max(0.0)
            } else {
                secs(hard) / periods as f64 * 0.95
            }
        }
    };
    Duration::from_secs_f64(b.max(0.0)).min(hard)
}

/// The longest this move may take without losing on time, lag kept.
pub fn hard_limit(tc: &TimeControl, remaining: Duration, periods: u32, lag: Duration) -> Duration {
    match *tc {
        TimeControl::None => Duration::MAX,
        TimeControl::Absolute { .. } | TimeControl::Fischer { .. } => remaining.saturating_sub(lag),
        TimeControl::ByoYomi {
            period, periods: p, ..
        } => {
            if periods == 0 && p > 0 {
                // Main time runs out into a fresh period that the move may
                // still finish in.
                (remaining + period).saturating_sub(lag)
            } else {
                remaining.saturating_sub(lag)
            }
        }
        TimeControl::Canadian { period, stones, .. } => {
            if periods == 0 {
                let per_stone = period / stones.max(1);
                remaining.saturating_sub(lag) + per_stone.saturating_sub(lag)
            } else {
                // Leave every later stone of the period at least the lag.
                remaining.saturating_sub(lag * periods.max(1))
            }
        }
    }
}

/// `base × factor`, at most `MAX_STRETCH × base` and at most `hard`.
pub fn scale(base: Duration, factor: f64, hard: Duration) -> Duration {
    if base == Duration::MAX {
        return base;
    }
    let f = if factor.is_finite() {
        factor.clamp(0.0, MAX_STRETCH)
    } else {
        1.0
    };
    Duration::from_secs_f64(base.as_secs_f64() * f).min(hard)
}

/// A budget multiplier from the search so far: `best_share` is the chosen
/// move's share of the root visits. A dominant move (≥ 90%) or an opponent
/// who just passed: spend less; an unclear choice (< 40%): spend more.
pub fn uncertainty_factor(best_share: f32, opponent_passed: bool) -> f64 {
    if opponent_passed {
        return 0.3;
    }
    match best_share {
        s if s >= 0.9 => 0.5,
        s if s >= 0.6 => 1.0,
        s if s >= 0.4 => 1.4,
        _ => 1.8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_round_trip() {
        let s = Duration::from_secs;
        for tc in [
            TimeControl::None,
            TimeControl::Absolute { main: s(3600) },
            TimeControl::ByoYomi {
                main: s(60),
                period: Duration::from_millis(2500),
                periods: 5,
            },
            TimeControl::Canadian {
                main: s(0),
                period: s(300),
                stones: 25,
            },
            TimeControl::Fischer {
                main: s(300),
                increment: s(5),
            },
        ] {
            assert_eq!(TimeControl::parse(&tc.describe()), Some(tc));
        }
    }

    /// A sudden-death game played out on the budget alone: the clock never
    /// runs out, the middle game gets more time per move than the opening
    /// and the endgame, and the last moves still get time to search.
    #[test]
    fn sudden_death_spends_most_in_the_middle_game_and_keeps_time_for_the_end() {
        for (size, plies) in [(19usize, 250u32), (19, 400), (9, 60), (9, 120)] {
            let tc = TimeControl::Absolute {
                main: Duration::from_secs(600),
            };
            let mut left = Duration::from_secs(600);
            let mut spent = Vec::new();
            for ply in (0..plies).step_by(2) {
                let b = budget(&tc, left, 0, ply, size, Duration::ZERO);
                assert!(b <= left, "size {size} ply {ply}");
                left -= b;
                spent.push(b.as_secs_f64());
            }
            let n = spent.len();
            let tenth = |k: usize| {
                let part = &spent[k * n / 10..(k + 1) * n / 10];
                part.iter().sum::<f64>() / part.len() as f64
            };
            let middle = (3..6).map(tenth).fold(0.0, f64::max);
            assert!(middle > tenth(0), "size {size}, {plies} plies: {spent:?}");
            // 0.1 s is still tens of net evaluations on the CPU.
            assert!(
                spent[n - 1] > 0.1,
                "size {size}, {plies} plies: the last move got {:.3} s",
                spent[n - 1]
            );
            if plies as usize <= size * size {
                // A game of the expected length or shorter leaves time over
                // rather than running short.
                assert!(left.as_secs_f64() > 1.0, "size {size}, {plies} plies");
            }
        }
    }

    #[test]
    fn budget_never_exceeds_the_hard_limit() {
        let s = Duration::from_secs;
        let lag = Duration::from_millis(500);
        for tc in [
            TimeControl::Absolute { main: s(60) },
            TimeControl::ByoYomi {
                main: s(60),
                period: s(10),
                periods: 3,
            },
            TimeControl::Canadian {
                main: s(60),
                period: s(60),
                stones: 10,
            },
            TimeControl::Fischer {
                main: s(60),
                increment: s(5),
            },
        ] {
            for remaining in [0, 1, 5, 30, 60] {
                for periods in [0, 1, 3] {
                    let b = budget(&tc, s(remaining), periods, 10, 19, lag);
                    assert!(b <= hard_limit(&tc, s(remaining), periods, lag), "{tc:?}");
                }
            }
        }
    }
}
