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
fn without_tree_reuse_every_search_starts_afresh() {
    let cfg = SearchConfig {
        tree_reuse: false,
        ..config(1, 1)
    };
    let mut s = search(
        Arc::new(HeuristicEvaluator::new(5).with_playouts(2)),
        cfg,
        9,
    );
    let r = run(&mut s, Limits::visits(300));
    assert!(s.child_visits(r.best) > 10);
    let mut pos = s.position().clone();
    let mover = pos.to_move();
    pos.play_move(r.best).unwrap();
    assert!(!s.set_position(pos, vec![(mover, r.best)]));
    assert_eq!(s.root_visits(), 0);
    let r2 = run(&mut s, Limits::visits(50));
    assert_eq!((r2.visits, r2.playouts), (50, 50));
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
        // It may end early by what one more evaluator call would cost
        // (here almost nothing) and a few milliseconds' margin: it starts
        // no call that cannot finish in time.
        assert!(took >= Duration::from_millis(190), "{took:?}");
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

/// 5×5; the centre gets a fake prior of 0.4 but loses for Black once
/// played (an adversarial prior). Value 0.5 elsewhere.
fn adversarial() -> Arc<dyn Evaluator> {
    use tengen::eval::{policy_index, EvalOutput};
    use tengen::rules::Point;
    use tengen::search::testing::FnEvaluator;
    let x = Point::new(2, 2);
    Arc::new(FnEvaluator(move |i: &tengen::eval::EvalInput| {
        let size = i.position.size();
        let n = size * size + 1;
        let mut policy = vec![0.6 / (n - 1) as f32; n];
        policy[policy_index(Move::Place(x), size)] = 0.4;
        let mover_wins = match i.position.board().get(x) {
            Some(Color::Black) => i.position.to_move() == Color::White,
            _ => {
                return EvalOutput {
                    shortterm_error: None,
                    policy,
                    value: [0.5, 0.5, 0.0],
                    score_lead: 0.0,
                    ownership: None,
                }
            }
        };
        let v = if mover_wins { 0.95 } else { 0.05 };
        EvalOutput {
            shortterm_error: None,
            policy,
            value: [v, 1.0 - v, 0.0],
            score_lead: 0.0,
            ownership: None,
        }
    }))
}

#[test]
fn forced_playouts_visit_an_adversarial_prior_and_pruning_removes_them() {
    let centre = Move::Place(tengen::rules::Point::new(2, 2));
    let visits_of = |forced: Option<f32>| {
        let cfg = SearchConfig {
            forced_playouts: forced,
            ..config(1, 1)
        };
        let mut s = search(adversarial(), cfg, 5);
        let r = run(&mut s, Limits::visits(400));
        let total: u64 = r.moves.iter().map(|m| m.visits).sum();
        let m = r.moves.iter().find(|m| m.mv == centre).unwrap().clone();
        (m.visits, (2.0 * m.prior as f64 * total as f64).sqrt(), s, r)
    };
    let (plain, n_forced, s_plain, _) = visits_of(None);
    let (forced, _, s, r) = visits_of(Some(2.0));
    assert!(forced as f64 >= n_forced - 1.0, "{forced} < {n_forced}");
    assert!((plain as f64) < n_forced - 1.0, "plain search: {plain}");
    // Without forced playouts the target is the visit distribution.
    let t_plain = s_plain.policy_target();
    assert_eq!(t_plain.len(), s_plain.snapshot().moves.len());
    // Pruned: the centre loses (at least most of) its forced visits, the
    // best keeps all of its own.
    let target = s.policy_target();
    let total: u64 = r.moves.iter().map(|m| m.visits).sum();
    let best = r.moves.iter().max_by_key(|m| m.visits).unwrap();
    let share = |mv: Move| target.iter().find(|t| t.0 == mv).map_or(0.0, |t| t.1);
    assert!(share(best.mv) as f64 >= best.visits as f64 / total as f64 - 1e-6);
    // Pruned visits, scaled by the best's (which keeps all of its own):
    // the centre goes back to about what the plain search gave it, where
    // its PUCT score meets the best's.
    let pruned = share(centre) as f64 / share(best.mv) as f64 * best.visits as f64;
    assert!(pruned < forced as f64 - 1.0);
    assert!(pruned >= forced as f64 - n_forced - 1e-6);
    assert!(pruned <= plain as f64 + 2.0);
    let sum: f32 = target.iter().map(|t| t.1).sum();
    assert!((sum - 1.0).abs() < 1e-4);
}

#[test]
fn forced_playouts_with_noise_are_deterministic_with_one_thread() {
    let go = || {
        let cfg = SearchConfig {
            forced_playouts: Some(2.0),
            noise: true,
            ..config(1, 4)
        };
        let mut s = search(Arc::new(HeuristicEvaluator::new(1)), cfg, 9);
        let r = run(&mut s, Limits::visits(300));
        (r.moves, s.policy_target())
    };
    let (a, b) = (go(), go());
    assert!(!a.1.is_empty());
    assert_eq!(a, b);
}

/// 5×5; the centre gets a prior of 0.9, every position is even.
/// An even position (value 0.5, lead 0) with the prior `policy`.
fn even_with(policy: Vec<f32>) -> tengen::eval::EvalOutput {
    tengen::eval::EvalOutput {
        shortterm_error: None,
        policy,
        value: [0.5, 0.5, 0.0],
        score_lead: 0.0,
        ownership: None,
    }
}

fn clear_choice() -> Arc<dyn Evaluator> {
    use tengen::eval::policy_index;
    use tengen::rules::Point;
    use tengen::search::testing::FnEvaluator;
    Arc::new(FnEvaluator(|i: &tengen::eval::EvalInput| {
        let size = i.position.size();
        let n = size * size + 1;
        let mut policy = vec![0.1 / (n - 1) as f32; n];
        policy[policy_index(Move::Place(Point::new(2, 2)), size)] = 0.9;
        even_with(policy)
    }))
}

#[test]
fn early_stop_ends_a_search_whose_move_is_decided() {
    let centre = Move::Place(tengen::rules::Point::new(2, 2));
    let with = |early_stop: bool, temperature: f32| {
        let cfg = SearchConfig {
            early_stop,
            temperature,
            temperature_moves: 10,
            ..config(1, 1)
        };
        let mut s = search(clear_choice(), cfg, 5);
        run(&mut s, Limits::visits(2000))
    };
    let full = with(false, 0.0);
    assert_eq!(full.visits, 2000);
    assert_eq!(full.best, centre);
    // The centre gathers visits fastest; once it leads by more than the
    // visits left, the search stops with the same choice.
    let early = with(true, 0.0);
    assert_eq!(early.best, centre);
    assert!(early.visits < 2000, "{} visits", early.visits);
    let lead = early.moves[0].visits - early.moves.get(1).map_or(0, |m| m.visits);
    assert!(
        lead > 2000 - early.visits,
        "lead {lead}, {} visits",
        early.visits
    );
    // Temperature samples from the whole distribution: no early stop.
    assert_eq!(with(true, 1.0).visits, 2000);
}

/// The plain policy puts 0.9 on the first empty point of C3, D4; the
/// optimistic one on G7's (the input's optimism blends the two).
fn optimism_sensitive() -> Arc<dyn Evaluator> {
    use tengen::eval::policy_index;
    use tengen::search::testing::FnEvaluator;
    Arc::new(FnEvaluator(|i: &tengen::eval::EvalInput| {
        let size = i.position.size();
        let n = size * size + 1;
        let o = i.policy_optimism;
        let empty = |m: &str| {
            let mv = Move::parse_gtp(m, size).unwrap();
            match mv {
                Move::Place(p) => i.position.board().is_empty(p),
                Move::Pass => false,
            }
        };
        let plain = if empty("C3") { "C3" } else { "D4" };
        let mut policy = vec![0.1 / (n - 2) as f32; n];
        policy[policy_index(Move::parse_gtp(plain, size).unwrap(), size)] = 0.9 * (1.0 - o);
        policy[policy_index(Move::parse_gtp("G7", size).unwrap(), size)] = 0.9 * o;
        even_with(policy)
    }))
}

#[test]
fn the_root_and_the_tree_get_their_own_policy_optimism() {
    let cfg = SearchConfig {
        policy_optimism: 1.0,
        root_policy_optimism: 0.2,
        ..config(1, 1)
    };
    let mut s = search(optimism_sensitive(), cfg, 9);
    let [c3, d4, g7] = ["C3", "D4", "G7"].map(|m| Move::parse_gtp(m, 9).unwrap());
    let prior = |s: &Search, mv: Move| s.root_priors().iter().find(|p| p.0 == mv).map(|p| p.1);
    let r = run(&mut s, Limits::visits(40));
    // The root's own blend: C3 0.72, G7 0.18.
    assert_eq!(s.root_priors()[0].0, c3);
    assert!(
        prior(&s, c3).is_some_and(|p| (p - 0.72).abs() < 0.01),
        "{:?}",
        s.root_priors()
    );
    assert_eq!(r.best, c3);
    // The node after C3 was expanded inside the tree: the optimistic
    // policy, G7 0.9.
    let mut pos = s.position().clone();
    pos.play_move(c3).unwrap();
    assert!(s.set_position(pos, vec![(Color::Black, c3)]));
    assert_eq!(s.root_priors()[0].0, g7);
    assert!(
        prior(&s, g7).is_some_and(|p| p > 0.85),
        "{:?}",
        s.root_priors()
    );
    // Searched as the root, it gets the root's blend again: D4 0.72.
    run(&mut s, Limits::visits(60));
    assert_eq!(s.root_priors()[0].0, d4, "{:?}", s.root_priors());
    assert!(
        prior(&s, d4).is_some_and(|p| (p - 0.72).abs() < 0.01),
        "{:?}",
        s.root_priors()
    );
    assert!(
        prior(&s, g7).is_some_and(|p| (p - 0.18).abs() < 0.01),
        "{:?}",
        s.root_priors()
    );
}

#[test]
fn value_weighted_backups_keep_counts_and_values_in_range() {
    let cfg = SearchConfig {
        value_weight_exponent: 0.25,
        ..config(1, 4)
    };
    let mut s = search(
        Arc::new(HeuristicEvaluator::new(3).with_playouts(2)),
        cfg,
        9,
    );
    let r = run(&mut s, Limits::visits(300));
    assert_eq!(r.visits, 300);
    assert!((0.0..=1.0).contains(&r.winrate), "{}", r.winrate);
    assert!(r.score_lead.is_finite());
    assert!(s.position().is_legal(r.best));
    // The root's children still account for every visit but its own.
    let kids: u64 = r.moves.iter().map(|m| m.visits).sum();
    assert_eq!(kids, 299);
}

/// KataGo's subtree value bias, on two threads and across tree reuse:
/// the visit accounting and the values stay what they must be.
#[test]
fn subtree_bias_keeps_counts_and_values_in_range_across_tree_reuse() {
    let cfg = SearchConfig {
        subtree_bias: 0.45,
        ..config(2, 4)
    };
    let mut s = search(
        Arc::new(HeuristicEvaluator::new(3).with_playouts(2)),
        cfg,
        9,
    );
    for _ in 0..3 {
        let before = s.root_visits();
        let r = run(&mut s, Limits::visits(before + 300));
        assert_eq!(r.visits, before + 300);
        assert!((0.0..=1.0).contains(&r.winrate), "{}", r.winrate);
        assert!(r.score_lead.is_finite());
        assert!(s.position().is_legal(r.best));
        let kids: u64 = r.moves.iter().map(|m| m.visits).sum();
        assert_eq!(kids, r.visits - 1);
        let mut pos = s.position().clone();
        let mover = pos.to_move();
        pos.play_move(r.best).unwrap();
        assert!(s.set_position(pos, vec![(mover, r.best)]));
    }
}
