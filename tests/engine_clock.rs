//! The clock with a slow evaluator (RULES.md A2): a net whose batch costs
//! most of a byo-yomi period must neither overrun the period nor stop
//! searching. A fake evaluator with a set delay stands in for KataGo's b10
//! net on a CPU (about 0.1 s an evaluation, 0.7 s a batch of 8).

use std::sync::Arc;
use std::time::{Duration, Instant};

use tengen::engine::{Engine, EngineSettings};
use tengen::eval::fake::{SlowEvaluator, UniformEvaluator};
use tengen::game::{Clock, Game, TimeControl};
use tengen::gtp::Session;
use tengen::rules::Ruleset;

fn slow_session(per_call_ms: u64, per_position_ms: u64) -> Session {
    let eval = SlowEvaluator {
        inner: UniformEvaluator,
        per_call: Duration::from_millis(per_call_ms),
        per_position: Duration::from_millis(per_position_ms),
    };
    let settings = EngineSettings {
        batch_size: 8,
        ..EngineSettings::default()
    };
    let engine = Engine::new(Arc::new(eval), settings);
    let mut game = Game::new(9, Ruleset::chinese()).unwrap();
    game.set_clock(Clock::new(TimeControl::None, Duration::from_millis(500)));
    Session::new(game, engine)
}

fn ok(s: &mut Session, cmd: &str) -> String {
    let r = s.run_line(cmd);
    assert!(r.starts_with('='), "{cmd}: {r}");
    r[1..].trim().to_string()
}

/// Plays `moves` genmoves (alternating colours) with `time_left` sent
/// before each, as a referee does; returns each move's time and root
/// visits (0 when it did not search).
fn play(s: &mut Session, period_s: u32, moves: usize) -> Vec<(Duration, u64)> {
    ok(s, &format!("time_settings 0 {period_s} 1"));
    let mut out = Vec::new();
    for i in 0..moves {
        let c = if i % 2 == 0 { "b" } else { "w" };
        ok(s, &format!("time_left {c} {period_s} 1"));
        let t = Instant::now();
        let mv = ok(s, &format!("genmove {c}"));
        let took = t.elapsed();
        assert_ne!(mv, "resign");
        let visits = s.engine().last_result().map_or(0, |r| r.visits);
        out.push((took, visits));
    }
    out
}

#[test]
fn a_slow_net_searches_every_move_inside_a_one_second_period() {
    // 30 ms a call + 75 ms a position: 105 ms alone, 630 ms for 8.
    let mut s = slow_session(30, 75);
    let moves = play(&mut s, 1, 8);
    eprintln!("1 s periods: {moves:?}");
    for (i, &(took, visits)) in moves.iter().enumerate() {
        assert!(
            took < Duration::from_millis(1000),
            "move {i} took {took:?}: {moves:?}"
        );
        assert!(visits >= 1, "move {i} was not searched: {moves:?}");
    }
    // Beyond the root: the time left after the lag pays for a few more.
    assert!(
        moves.iter().skip(2).all(|&(_, v)| v >= 2),
        "too little search: {moves:?}"
    );
}

#[test]
fn a_slow_net_never_overruns_a_two_second_period() {
    let mut s = slow_session(30, 75);
    let moves = play(&mut s, 2, 6);
    eprintln!("2 s periods: {moves:?}");
    for (i, &(took, visits)) in moves.iter().enumerate() {
        assert!(
            took < Duration::from_millis(2000),
            "move {i} took {took:?}: {moves:?}"
        );
        assert!(visits >= 1, "move {i} was not searched: {moves:?}");
    }
}

#[test]
fn an_evaluation_longer_than_the_period_plays_the_policy_at_once() {
    // 1.2 s an evaluation, 1 s periods with 0.5 s of lag kept: after the
    // first (measured) evaluation nothing fits, so the engine answers at
    // once, with the kept tree's policy move when it has one.
    let mut s = slow_session(1200, 0);
    ok(&mut s, "time_settings 0 1 1");
    ok(&mut s, "time_left b 1 1");
    ok(&mut s, "genmove b"); // measures the evaluator
    for c in ["w", "b", "w"] {
        ok(&mut s, &format!("time_left {c} 1 1"));
        let t = Instant::now();
        let mv = ok(&mut s, &format!("genmove {c}"));
        assert!(t.elapsed() < Duration::from_millis(500), "{c} {mv}");
    }
}
