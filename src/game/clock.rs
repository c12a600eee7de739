//! Game clocks (A2): the bookkeeping for no limit, absolute (sudden
//! death), Japanese byo-yomi, Canadian overtime and Fischer increments, one
//! [`PlayerClock`] per colour.
//!
//! The engine charges its own thinking time with [`Clock::charge`]; a
//! controller keeps both clocks in step with `time_left`
//! ([`Clock::sync`]), which always wins over our own bookkeeping.
//! [`Clock::move_time`] hands the remaining time to the one budget policy,
//! [`crate::search::time`], which keeps the lag buffer and never allows
//! more than what is left.

use std::time::Duration;

use crate::rules::Color;
use crate::search::time::move_time;
pub use crate::search::time::{parse_secs, MoveTime, TimeControl};

/// One player's remaining time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayerClock {
    /// Main time left.
    pub main_left: Duration,
    /// Time left in the current overtime period (byo-yomi, Canadian).
    pub period_left: Duration,
    /// Byo-yomi periods left (including the current one).
    pub periods_left: u32,
    /// Canadian: stones still to play in the current period.
    pub stones_left: u32,
    /// Whether the player ran out of time.
    pub flagged: bool,
}

/// Both players' clocks under one time control, plus the lag buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    control: TimeControl,
    players: [PlayerClock; 2],
    /// Safety margin kept back from every budget for network and process
    /// lag.
    pub lag: Duration,
}

impl Default for Clock {
    fn default() -> Clock {
        Clock::new(TimeControl::None, Duration::from_millis(500))
    }
}

impl Clock {
    /// Fresh clocks for `control`.
    pub fn new(control: TimeControl, lag: Duration) -> Clock {
        let mut c = Clock {
            control,
            players: [PlayerClock::fresh(&control); 2],
            lag,
        };
        c.reset();
        c
    }

    /// The time control.
    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// Changes the time control and resets both clocks.
    pub fn set_control(&mut self, control: TimeControl) {
        self.control = control;
        self.reset();
    }

    /// Both clocks back to the start of a game.
    pub fn reset(&mut self) {
        self.players = [PlayerClock::fresh(&self.control); 2];
    }

    /// `color`'s clock.
    pub fn player(&self, color: Color) -> &PlayerClock {
        &self.players[color.index()]
    }

    /// Replaces `color`'s clock (restoring a saved game).
    pub fn set_player(&mut self, color: Color, clock: PlayerClock) {
        self.players[color.index()] = clock;
    }

    /// GTP `time_left color time stones`: `stones == 0` means `time` is
    /// main time left; otherwise the player is in overtime with `time` left
    /// in the period and `stones` stones (Canadian) or periods (byo-yomi)
    /// to go.
    ///
    /// A `time_left` without any time settings (some controllers never send
    /// them) switches to a matching control, so the limit is respected:
    /// absolute time, or Canadian overtime when `stones > 0`.
    pub fn sync(&mut self, color: Color, time: Duration, stones: u32) {
        if self.control == TimeControl::None && !time.is_zero() {
            self.set_control(if stones == 0 {
                TimeControl::Absolute { main: time }
            } else {
                TimeControl::Canadian {
                    main: Duration::ZERO,
                    period: time,
                    stones,
                }
            });
        }
        let control = self.control;
        let p = &mut self.players[color.index()];
        p.flagged = false;
        if stones == 0 {
            p.main_left = time;
            if let TimeControl::ByoYomi { period, .. } | TimeControl::Canadian { period, .. } =
                control
            {
                p.period_left = period;
            }
            if time.is_zero()
                && matches!(
                    control,
                    TimeControl::Absolute { .. } | TimeControl::Fischer { .. }
                )
            {
                p.flagged = true;
            }
        } else {
            p.main_left = Duration::ZERO;
            p.period_left = time;
            match control {
                TimeControl::ByoYomi { .. } => p.periods_left = stones,
                _ => p.stones_left = stones,
            }
        }
    }

    /// Charges `color` for a move that took `used`.
    pub fn charge(&mut self, color: Color, used: Duration) {
        let control = self.control;
        let p = &mut self.players[color.index()];
        if let TimeControl::Fischer { increment, .. } = control {
            if used > p.main_left {
                p.flagged = true;
                p.main_left = Duration::ZERO;
            } else {
                p.main_left = p.main_left - used + increment;
            }
            return;
        }
        let over = if used <= p.main_left {
            p.main_left -= used;
            return;
        } else {
            let o = used - p.main_left;
            p.main_left = Duration::ZERO;
            o
        };
        match control {
            TimeControl::None => {}
            TimeControl::Absolute { .. } | TimeControl::Fischer { .. } => p.flagged = true,
            TimeControl::ByoYomi { period, .. } => {
                // Each whole period overrun costs one period.
                let mut over = over;
                while over > period && p.periods_left > 0 {
                    over -= period;
                    p.periods_left -= 1;
                }
                if p.periods_left == 0 {
                    p.flagged = true;
                }
                p.period_left = period;
            }
            TimeControl::Canadian { period, stones, .. } => {
                if over > p.period_left {
                    p.flagged = true;
                    p.period_left = Duration::ZERO;
                } else {
                    p.period_left -= over;
                }
                p.stones_left = p.stones_left.saturating_sub(1);
                if p.stones_left == 0 {
                    p.stones_left = stones;
                    p.period_left = period;
                }
            }
        }
    }

    /// How long `color` may think about its next move, `move_number`
    /// plies into a game on a board of `size`: the time left in the current
    /// phase as GTP `time_left` would report it, handed to
    /// [`crate::search::time::move_time`]. `None` without a time limit.
    pub fn move_time(&self, color: Color, move_number: u32, size: usize) -> Option<MoveTime> {
        let p = &self.players[color.index()];
        let (remaining, periods) = match self.control {
            TimeControl::None => return None,
            TimeControl::Absolute { .. } | TimeControl::Fischer { .. } => (p.main_left, 0),
            _ if !p.main_left.is_zero() => (p.main_left, 0),
            TimeControl::ByoYomi { .. } => (p.period_left, p.periods_left.max(1)),
            TimeControl::Canadian { .. } => (p.period_left, p.stones_left.max(1)),
        };
        Some(move_time(
            &self.control,
            remaining,
            periods,
            move_number,
            size,
            self.lag,
        ))
    }

    /// One line per colour for people: `Black: 59:58, 5 x 30s`.
    pub fn describe(&self) -> String {
        if self.control == TimeControl::None {
            return "no time limit".to_string();
        }
        let mut out = Vec::new();
        for c in Color::ALL {
            let p = self.player(c);
            let mut s = format!("{}: {}", c, fmt_clock(p.main_left));
            match self.control {
                TimeControl::ByoYomi { .. } => {
                    s += &format!(" + {} x {}", p.periods_left, fmt_clock(p.period_left))
                }
                TimeControl::Canadian { .. } if p.main_left.is_zero() => {
                    s += &format!(
                        " + {} for {} stones",
                        fmt_clock(p.period_left),
                        p.stones_left
                    )
                }
                _ => {}
            }
            if p.flagged {
                s += ", out of time";
            }
            out.push(s);
        }
        out.join("; ")
    }
}

impl PlayerClock {
    fn fresh(control: &TimeControl) -> PlayerClock {
        let zero = PlayerClock {
            main_left: Duration::ZERO,
            period_left: Duration::ZERO,
            periods_left: 0,
            stones_left: 0,
            flagged: false,
        };
        match *control {
            TimeControl::None => zero,
            TimeControl::Absolute { main } => PlayerClock {
                main_left: main,
                ..zero
            },
            TimeControl::ByoYomi {
                main,
                period,
                periods,
            } => PlayerClock {
                main_left: main,
                period_left: period,
                periods_left: periods,
                ..zero
            },
            TimeControl::Canadian {
                main,
                period,
                stones,
            } => PlayerClock {
                main_left: main,
                period_left: period,
                stones_left: stones,
                ..zero
            },
            TimeControl::Fischer { main, .. } => PlayerClock {
                main_left: main,
                ..zero
            },
        }
    }

    /// `main period periods stones flagged` in milliseconds, for saving.
    pub fn to_text(&self) -> String {
        format!(
            "{} {} {} {} {}",
            self.main_left.as_millis(),
            self.period_left.as_millis(),
            self.periods_left,
            self.stones_left,
            u8::from(self.flagged)
        )
    }

    /// Parses [`PlayerClock::to_text`]'s output.
    pub fn from_text(text: &str) -> Option<PlayerClock> {
        let w: Vec<u64> = text
            .split_whitespace()
            .map(|t| t.parse().ok())
            .collect::<Option<_>>()?;
        if w.len() != 5 {
            return None;
        }
        Some(PlayerClock {
            main_left: Duration::from_millis(w[0]),
            period_left: Duration::from_millis(w[1]),
            periods_left: u32::try_from(w[2]).ok()?,
            stones_left: u32::try_from(w[3]).ok()?,
            flagged: w[4] != 0,
        })
    }
}

/// `m:ss` for people.
fn fmt_clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}", s / 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;

    #[test]
    fn absolute_budget_stays_inside_the_clock() {
        let mut c = Clock::new(
            TimeControl::Absolute { main: S(3) },
            Duration::from_millis(200),
        );
        let mut total = Duration::ZERO;
        for ply in 0..200 {
            let b = c.move_time(Color::Black, 2 * ply, 9).unwrap().normal;
            total += b;
            c.charge(Color::Black, b);
        }
        assert!(total <= S(3));
        assert!(!c.player(Color::Black).flagged);
    }

    #[test]
    fn byoyomi_and_canadian_bookkeeping() {
        let mut c = Clock::new(
            TimeControl::ByoYomi {
                main: S(10),
                period: S(5),
                periods: 3,
            },
            Duration::ZERO,
        );
        c.charge(Color::White, S(12));
        assert_eq!(c.player(Color::White).main_left, Duration::ZERO);
        assert_eq!(c.player(Color::White).periods_left, 3);
        c.charge(Color::White, S(11));
        assert_eq!(c.player(Color::White).periods_left, 1);
        let mut c = Clock::new(
            TimeControl::Canadian {
                main: S(0),
                period: S(10),
                stones: 2,
            },
            Duration::ZERO,
        );
        c.charge(Color::Black, S(4));
        assert_eq!(c.player(Color::Black).period_left, S(6));
        c.charge(Color::Black, S(4));
        assert_eq!(c.player(Color::Black).period_left, S(10));
        assert_eq!(c.player(Color::Black).stones_left, 2);
        c.sync(Color::Black, S(7), 1);
        let t = c.move_time(Color::Black, 50, 9).unwrap();
        assert_eq!(t.hard, S(7));
        assert!(t.normal <= t.hard && t.normal > S(6));
    }

    #[test]
    fn fischer_adds_the_increment_after_each_move() {
        let mut c = Clock::new(
            TimeControl::Fischer {
                main: S(10),
                increment: S(2),
            },
            Duration::ZERO,
        );
        c.charge(Color::Black, S(3));
        assert_eq!(c.player(Color::Black).main_left, S(9));
        c.charge(Color::Black, S(12));
        assert!(c.player(Color::Black).flagged);
        c.sync(Color::White, S(4), 0);
        let t = c.move_time(Color::White, 10, 9).unwrap();
        assert!(t.normal > S(1) && t.hard == S(4), "{t:?}");
    }

    #[test]
    fn text_round_trips() {
        for tc in [
            TimeControl::Fischer {
                main: S(300),
                increment: S(5),
            },
            TimeControl::None,
            TimeControl::Absolute { main: S(3600) },
            TimeControl::ByoYomi {
                main: S(60),
                period: Duration::from_millis(2500),
                periods: 5,
            },
            TimeControl::Canadian {
                main: S(0),
                period: S(300),
                stones: 25,
            },
        ] {
            let p = PlayerClock::fresh(&tc);
            assert_eq!(PlayerClock::from_text(&p.to_text()), Some(p));
        }
    }
}
