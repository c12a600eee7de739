//! Time management: whole simulated games under every time system, with
//! the budget stretched by the uncertainty multiplier, must never run out
//! of time.

use std::time::Duration;

use tengen::search::time::{budget, hard_limit, scale, uncertainty_factor, TimeControl};

const LAG: Duration = Duration::from_millis(300);
/// Time a move really takes beyond its budget (our own overhead).
const OVERHEAD: Duration = tengen::search::time::MOVE_OVERHEAD;

/// A varying best-move share, as a search would report.
fn share(ply: u32) -> f32 {
    [0.95, 0.3, 0.7, 0.5, 0.2][(ply % 5) as usize]
}

/// Plays `plies` plies (ours every other one) under `tc`; returns the time
/// we spent, or an error if the clock fell.
fn play_game(tc: TimeControl, plies: u32, size: usize) -> Result<Duration, String> {
    let (mut main, mut period_left, periods, mut stones) = match tc {
        TimeControl::Absolute { main } | TimeControl::Fischer { main, .. } => {
            (main, Duration::ZERO, 0, 0)
        }
        TimeControl::ByoYomi {
            main,
            period,
            periods,
        } => (main, period, periods, 0),
        TimeControl::Canadian {
            main,
            period,
            stones,
        } => (main, period, 0, stones),
        TimeControl::None => return Ok(Duration::ZERO),
    };
    let mut in_overtime = false;
    let mut spent = Duration::ZERO;
    for ply in (0..plies).step_by(2) {
        // What GTP time_left would say.
        let (remaining, n) = match tc {
            TimeControl::ByoYomi { .. } if in_overtime => (period_left, periods),
            TimeControl::Canadian { .. } if in_overtime => (period_left, stones),
            _ => (main, 0),
        };
        let base = budget(&tc, remaining, n, ply, size, LAG);
        let hard = hard_limit(&tc, remaining, n, LAG);
        let opponent_passed = ply > plies - 6;
        let used = scale(base, uncertainty_factor(share(ply), opponent_passed), hard) + OVERHEAD;
        spent += used;
        match tc {
            TimeControl::Absolute { .. } | TimeControl::Fischer { .. } => {
                main = main
                    .checked_sub(used)
                    .ok_or(format!("flag fell at ply {ply}: {main:?} < {used:?}"))?;
                if let TimeControl::Fischer { increment, .. } = tc {
                    main += increment;
                }
            }
            TimeControl::ByoYomi { period, .. } => {
                let mut t = used;
                if !in_overtime {
                    if t <= main {
                        main -= t;
                        continue;
                    }
                    t -= main;
                    main = Duration::ZERO;
                    in_overtime = true;
                }
                if t > period {
                    return Err(format!("lost a period at ply {ply}: {t:?}"));
                }
                period_left = period;
            }
            TimeControl::Canadian {
                period,
                stones: per,
                ..
            } => {
                let mut t = used;
                if !in_overtime {
                    if t <= main {
                        main -= t;
                        continue;
                    }
                    t -= main;
                    main = Duration::ZERO;
                    in_overtime = true;
                    period_left = period;
                    stones = per;
                }
                period_left = period_left
                    .checked_sub(t)
                    .ok_or(format!("overtime flag fell at ply {ply}"))?;
                stones -= 1;
                if stones == 0 {
                    period_left = period;
                    stones = per;
                }
            }
            TimeControl::None => {}
        }
    }
    Ok(spent)
}

#[test]
fn a_full_19x19_game_with_one_minute_stays_inside_the_clock() {
    let tc = TimeControl::Absolute {
        main: Duration::from_secs(60),
    };
    let spent = play_game(tc, 250, 19).unwrap();
    assert!(spent < Duration::from_secs(60), "{spent:?}");
    // And it uses a fair part of the clock rather than hoarding it.
    assert!(spent > Duration::from_secs(30), "{spent:?}");
}

#[test]
fn long_games_and_tiny_clocks_never_lose_on_time() {
    let s = Duration::from_secs;
    // A tiny absolute clock cannot pay the overhead of endless games.
    for plies in [100, 250, 400] {
        let tc = TimeControl::Absolute { main: s(5) };
        if let Err(e) = play_game(tc, plies, 19) {
            panic!("{tc:?}, {plies} plies: {e}");
        }
    }
    for (tc, size) in [
        (TimeControl::Absolute { main: s(3600) }, 19),
        (TimeControl::Absolute { main: s(10) }, 9),
        (
            TimeControl::ByoYomi {
                main: s(10),
                period: s(2),
                periods: 3,
            },
            19,
        ),
        (
            TimeControl::Canadian {
                main: s(5),
                period: s(20),
                stones: 10,
            },
            19,
        ),
        (
            TimeControl::Fischer {
                main: s(5),
                increment: s(1),
            },
            19,
        ),
    ] {
        let plies: &[u32] = if size == 9 {
            &[60, 120, 200]
        } else {
            &[100, 250, 400, 700]
        };
        for &plies in plies {
            if let Err(e) = play_game(tc, plies, size) {
                panic!("{tc:?}, {plies} plies: {e}");
            }
        }
    }
}

#[test]
fn budgets_shrink_as_the_game_goes_on_and_after_a_pass() {
    let tc = TimeControl::Absolute {
        main: Duration::from_secs(60),
    };
    let early = budget(&tc, Duration::from_secs(60), 0, 0, 19, LAG);
    let late = budget(&tc, Duration::from_secs(60), 0, 240, 19, LAG);
    assert!(late > early, "fewer moves left: more per move");
    let hard = hard_limit(&tc, Duration::from_secs(60), 0, LAG);
    assert!(scale(early, uncertainty_factor(0.5, true), hard) < early);
    assert!(scale(early, uncertainty_factor(0.2, false), hard) > early);
    assert!(scale(early, 100.0, hard) <= early * 3);
    assert_eq!(
        budget(&tc, Duration::from_millis(100), 0, 0, 19, LAG),
        Duration::ZERO
    );
}
