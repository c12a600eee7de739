//! Search mechanics with fake evaluators: exact visit counts, determinism,
//! tree reuse, threads, the memory cap, time limits and pondering.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tengen::eval::fake::HeuristicEvaluator;
use tengen::eval::Evaluator;
use tengen::rules::{Color, Move, Position, Ruleset};
use tengen::search::testing::ZeroEvaluator;
use tengen::search::{Limits, Search, SearchConfig, SearchResult};

fn config(threads: usize, batch: usize) -> SearchConfig {
    SearchConfig {
        threads,
        batch_size: batch,
        seed: 42,
        ..SearchConfig::default()
    }
}

fn search(eval: Arc<dyn Evaluator>, cfg: SearchConfig, size: usize) -> Search {
    let mut s = Search::new(eval, cfg);
    s.set_position(Position::new(size, Ruleset::chinese()).unwrap(), Vec::new());
    s
}

fn run(s: &mut Search, limits: Limits) -> SearchResult {
    s.run(
        &limits,
        &AtomicBool::new(false),
        None,
        Duration::from_secs(60),
    )
}

#[test]
fn exact_visit_counts_with_one_thread() {
    for batch in [1, 8] {
        let mut s = search(
            Arc::new(HeuristicEvaluator::new(1).with_playouts(2)),
            config(1, batch),
            9,
        );
        let r = run(&mut s, Limits::visits(100));
        assert_eq!(r.visits, 100, "batch {batch}");
        assert_eq!(r.playouts, 100);
        // The root's own evaluation is its first visit.
        let children: u64 = r.moves.iter().map(|m| m.visits).sum();
        assert_eq!(children, 99);
        let orders: Vec<usize> = r.moves.iter().map(|m| m.order).collect();
        assert_eq!(orders, (0..r.moves.len()).collect::<Vec<_>>());
        assert_eq!(r.best, r.moves[0].mv);
        assert!(r.moves.iter().all(|m| m.pv.first() == Some(&m.mv)));
    }
}

#[test]
fn one_thread_with_a_seed_is_deterministic() {
    let go = || {
        let cfg = SearchConfig {
            noise: true,
            temperature: 1.0,
            temperature_moves: 10,
            ..config(1, 4)
        };
        let mut s = search(
            Arc::new(HeuristicEvaluator::new(3).with_playouts(2)),
            cfg,
            9,
        );
        run(&mut s, Limits::visits(200))
    };
    let (a, b) = (go(), go());
    assert_eq!(a.best, b.best);
    assert_eq!(a.moves, b.moves);
    assert_eq!(a.winrate, b.winrate);
}

#[test]
fn tree_reuse_keeps_the_played_subtree() {
    let mut s = search(
        Arc::new(HeuristicEvaluator::new(5).with_playouts(2)),
        config(1, 1),
        9,
    );
    let r = run(&mut s, Limits::visits(300));
    let best = r.best;
    let kept = s.child_visits(best);
    assert!(kept > 10, "{kept}");
    let mut pos = s.position().clone();
    let mover = pos.to_move();
    pos.play_move(best).unwrap();
    assert!(s.set_position(pos.clone(), vec![(mover, best)]));
    assert_eq!(s.root_visits(), kept);
    // Visits count the kept ones; playouts only this run's.
    let r2 = run(&mut s, Limits::visits(kept + 50));
    assert_eq!(r2.visits, kept + 50);
    assert_eq!(r2.playouts, 50);
    // A position not reached by a tree move starts afresh.
    let mut other = Position::new(9, Ruleset::chinese()).unwrap();
    other.play_move(Move::parse_gtp("A1", 9).unwrap()).unwrap();
    assert!(!s.set_position(
        other,
        vec![(Color::Black, Move::parse_gtp("A1", 9).unwrap())]
    ));
    assert_eq!(s.root_visits(), 0);
}

#[test]
fn two_threads_reach_the_visit_count() {
    for size in [9, 19] {
        let mut s = search(Arc::new(ZeroEvaluator), config(2, 8), size);
        let r = run(&mut s, Limits::visits(2000));
        assert_eq!(r.visits, 2000);
        let children: u64 = r.moves.iter().map(|m| m.visits).sum();
        assert_eq!(children, 1999);
        assert!(r.avg_batch > 1.0, "{}", r.avg_batch);
    }
}

#[test]
fn four_threads_with_a_slow_evaluator_fill_batches() {
    let eval = tengen::search::testing::FnEvaluator(|i: &tengen::eval::EvalInput| {
        std::thread::sleep(Duration::from_micros(200));
        ZeroEvaluator.evaluate(std::slice::from_ref(i)).remove(0)
    });
    let mut s = search(Arc::new(eval), config(4, 16), 9);
    let r = run(&mut s, Limits::playouts(400));
    assert_eq!(r.playouts, 400);
    assert!(r.avg_batch >= 4.0, "{}", r.avg_batch);
}

#[test]
fn memory_cap_is_reached_gracefully() {
    let cfg = SearchConfig {
        max_nodes: 50,
        ..config(1, 4)
    };
    let mut s = search(Arc::new(ZeroEvaluator), cfg, 9);
    let r = run(&mut s, Limits::visits(500));
    assert!(r.tree_full);
    assert_eq!(r.visits, 500);
    assert!(s.node_count() <= 50);
    assert!(r.best != Move::Pass || r.moves.len() == 1);
}

#[test]
fn time_limit_is_respected() {
    for threads in [1, 2] {
        let mut s = search(Arc::new(ZeroEvaluator), config(threads, 8), 19);
        let t = Instant::now();
        let r = run(&mut s, Limits::time(Duration::from_millis(200)));
        let took = t.elapsed();
        assert!(took >= Duration::from_millis(200), "{took:?}");
        // Generous: this checks that the search stops on its clock, not how
        // fast a loaded CI machine is (speed lives in benches/).
        assert!(took < Duration::from_millis(1500), "{took:?}");
        assert!(r.visits > 1);
    }
}

#[test]
fn pondering_stops_on_the_flag_and_reports_progress() {
    let mut s = search(Arc::new(ZeroEvaluator), config(2, 8), 9);
    let stop = AtomicBool::new(false);
    let mut reports = 0;
    let t = Instant::now();
    let r = std::thread::scope(|sc| {
        sc.spawn(|| {
            std::thread::sleep(Duration::from_millis(150));
            stop.store(true, Ordering::Relaxed);
        });
        let mut cb = |snap: &tengen::search::AnalysisSnapshot| {
            assert!(snap.visits > 0);
            reports += 1;
        };
        s.run(
            &Limits::unlimited(),
            &stop,
            Some(&mut cb),
            Duration::from_millis(20),
        )
    });
    assert!(t.elapsed() < Duration::from_millis(2000));
    assert!(r.visits > 10);
    assert!(reports >= 2, "{reports}");
    // Stopped before it starts: still one evaluation and a move.
    let mut s = search(Arc::new(ZeroEvaluator), config(1, 8), 9);
    let r = s.ponder(&AtomicBool::new(true));
    assert_eq!(r.visits, 1);
    assert!(r.moves.is_empty());
}
