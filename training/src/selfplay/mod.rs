//! Self-play: games of the search against itself, many at once, all
//! feeding one shared [`BatchingEvaluator`], written as training shards
//! and SGF.
//!
//! KataGo's data-efficiency tricks, as done here:
//! - **Playout-cap randomization**: each move is a full search
//!   (`visits_full`, root noise on) with probability `full_prob`, else a
//!   fast one (`visits_fast`, no noise). Only full searches become policy
//!   targets ([`HAS_POLICY`]); every position gets value, score and
//!   ownership targets.
//! - **Forced playouts and policy-target pruning**: full searches run
//!   with the search's forced playouts (`SearchConfig::forced_playouts`
//!   set to `forced_k`, KataGo's `k = 2`): at the root, every visited
//!   child gets at least `sqrt(k * prior * child visits)` visits (prior
//!   after noise), so noise-boosted moves get a fair look. The policy
//!   target is then `Search::policy_target`, which prunes those forced
//!   visits back out exactly as KataGo does: every child but the most
//!   visited loses up to its forced playouts while its PUCT score stays
//!   below the best's, and children left with at most one visit are
//!   dropped. Fast searches use neither (and are no policy targets).
//! - **Gumbel root search** instead (`gumbel_m: Some(m)`, the default:
//!   m 16, 32 simulations, every move in full): full searches run
//!   `Search::run_gumbel` with `visits_full` simulations over `m` sampled
//!   moves (no Dirichlet noise, no forced playouts, no temperature); the
//!   target is its improved policy and the move its choice. Fast searches
//!   stay as they are. Why the default: from `tengen-9x9-v4`, one
//!   generation of each in the same self-play time (0.38 h) gave a net
//!   that beat v4 21–3 (Gumbel, 750 games) against 15–9 (playout cap
//!   200/40 at 25%, 500 games) over 24 games at 200 visits
//!   (`training/runs/9x9-rl-*`).
//! - **Decided games are played out**, not resigned: once the winrate
//!   stays below `resign_threshold` for `resign_consecutive` moves of the
//!   same player, the rest of the game is played with cheap plain
//!   searches (`decided_visits`, no policy targets), so every game ends
//!   in a counted result with score and ownership targets. Resigning
//!   (`decided_visits: 0`) was the default until the data showed why
//!   not: in 9x9-rl-gumbel-v1 nearly every game ended by resignation,
//!   the side to move's mean outcome hardly moved between self-komi
//!   below -10 and above +10 (-0.11 and +0.06), and the score of the
//!   games left to count fell with komi (slope -0.18 where +1 is right):
//!   a net blind to komi resigned by the stones alone, and only close
//!   games kept a score, so the heads could never learn komi. A
//!   `resign_check_fraction` of games plays on at full strength to
//!   measure how often the decision was wrong.
//! - **Every komi and ruleset** ([`SelfplayConfig::draw_rules`]): each
//!   game's komi is drawn around the fair komi of its scoring (9×9 and
//!   up: 7 under area scoring, 6 under territory; KataGo's values), with
//!   a normal spread of `komi_stdev` points most of the time and uniform
//!   over `[min_komi, max_komi]` in a `komi_wide` share of games, so the
//!   value and score heads see lopsided komi too; rounded to a whole
//!   point in `komi_integer` of the games and to a half point otherwise
//!   (draws possible, and both parities of the board). A
//!   `territory_prob` share of games uses Japanese rules (territory
//!   scoring, simple ko; the count takes stones in the other side's
//!   pass-alive area as prisoners, the search scores its terminal nodes
//!   the same way), the rest area scoring: Chinese rules, except that an
//!   `area_variants` share of those games is played under Tromp-Taylor
//!   (suicide allowed), New Zealand (situational superko, suicide) or AGA
//!   (situational superko) rules, a third each, so the net's ko and
//!   suicide inputs take every value it will meet (a net that never saw
//!   them answered those rules with an arbitrary komi curve).
//! - **Varied openings**: in an `opening_prob` share of games the first
//!   1..=`opening_max` moves are drawn from the net's raw policy at
//!   temperature 1 (no search, no training sample), so games branch from
//!   many openings rather than a few the search prefers.
//! - Board size drawn per game from the configured range; temperature
//!   decays from `temp_start` to `temp_end` with a half-life
//!   in moves scaled by the board area.
//!
//! Games are deterministic per (seed, game index) given a deterministic
//! evaluator; with several workers, shard contents are ordered by game
//! index, so the files do not depend on thread timing either.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use indicatif::ProgressBar;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tengen::analysis::batching::BatchingEvaluator;
use tengen::eval::{policy_index, Evaluator};
use tengen::rules::{Color, Move};
use tengen::search::{GumbelConfig, Limits, MoveInfo, Search, SearchConfig};

use crate::game::{result_text, Game};
use crate::shard::{self, Sample, HAS_OWNERSHIP, HAS_POLICY, HAS_SCORE, HAS_VALUE, NO_MOVE};
use crate::util::derive_seed;

mod config;
pub use config::{decided_policy_weight, fair_komi, SelfplayConfig};

/// What a run produced.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct SelfplayStats {
    pub games: usize,
    pub moves: usize,
    pub samples: usize,
    pub policy_samples: usize,
    pub resigned: usize,
    /// Games played out with cheap searches once decided.
    #[serde(default)]
    pub decided: usize,
    /// Played-out games where a player would have resigned, and of those
    /// the ones that player won anyway.
    pub resign_checks: usize,
    pub false_resigns: usize,
    pub black_wins: usize,
    pub seconds: f64,
    pub shards: Vec<PathBuf>,
}

/// One finished game.
struct Played {
    samples: Vec<Sample>,
    sgf: String,
    moves: usize,
    resigned: bool,
    decided: bool,
    checked: Option<bool>,
    black_won: bool,
}

/// Plays `cfg.games` games with `eval`, writing shards (and SGF under
/// `out/sgf/`) into `out`. `first_game` offsets the game indices (and so
/// the seeds), for runs that continue earlier ones.
pub fn run(
    cfg: &SelfplayConfig,
    eval: Arc<dyn Evaluator>,
    out: &Path,
    first_game: usize,
    bar: &ProgressBar,
) -> Result<SelfplayStats, String> {
    cfg.check()?;
    std::fs::create_dir_all(out.join("sgf")).map_err(|e| format!("{}: {e}", out.display()))?;
    let start = Instant::now();
    // One batching queue per lane: a lane's games wait for each other's
    // leaves, and lanes evaluate at the same time (one core each).
    let lanes: Vec<Arc<BatchingEvaluator>> = (0..cfg.eval_lanes.max(1))
        .map(|_| {
            Arc::new(BatchingEvaluator::new(
                eval.clone(),
                Duration::from_millis(5),
            ))
        })
        .collect();
    let next = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<(usize, Result<Played, String>)>();
    let workers = cfg.parallel.min(cfg.games.max(1));
    let mut handles = Vec::new();
    for w in 0..workers {
        let (cfg, shared, next, stop, tx) = (
            cfg.clone(),
            lanes[w % lanes.len()].clone(),
            next.clone(),
            stop.clone(),
            tx.clone(),
        );
        handles.push(std::thread::spawn(move || {
            let _client = shared.join();
            loop {
                let g = next.fetch_add(1, Ordering::SeqCst);
                if g >= cfg.games || stop.load(Ordering::SeqCst) {
                    break;
                }
                let ev: Arc<dyn Evaluator> = shared.clone();
                let r = play_game(&cfg, ev, first_game + g);
                if tx.send((g, r)).is_err() {
                    break;
                }
            }
        }));
    }
    drop(tx);
    let mut stats = SelfplayStats::default();
    let mut pending: BTreeMap<usize, Played> = BTreeMap::new();
    let mut next_write = 0usize;
    let mut chunk: Vec<Played> = Vec::new();
    let mut error = None;
    for (g, r) in rx {
        match r {
            Ok(p) => {
                pending.insert(g, p);
            }
            Err(e) => {
                stop.store(true, Ordering::SeqCst);
                error.get_or_insert(e);
                continue;
            }
        }
        while let Some(p) = pending.remove(&next_write) {
            next_write += 1;
            bar.inc(1);
            chunk.push(p);
            if chunk.len() == cfg.games_per_shard {
                write_chunk(&mut chunk, out, &mut stats)?;
            }
        }
    }
    for h in handles {
        let _ = h.join();
    }
    if let Some(e) = error {
        return Err(e);
    }
    if !chunk.is_empty() {
        write_chunk(&mut chunk, out, &mut stats)?;
    }
    stats.seconds = start.elapsed().as_secs_f64();
    Ok(stats)
}

fn write_chunk(
    chunk: &mut Vec<Played>,
    out: &Path,
    stats: &mut SelfplayStats,
) -> Result<(), String> {
    let path = shard::next_path(out).map_err(|e| e.to_string())?;
    let mut samples = Vec::new();
    let mut sgf = String::new();
    for p in chunk.drain(..) {
        stats.games += 1;
        stats.moves += p.moves;
        stats.resigned += p.resigned as usize;
        stats.decided += p.decided as usize;
        stats.black_wins += p.black_won as usize;
        if let Some(false_resign) = p.checked {
            stats.resign_checks += 1;
            stats.false_resigns += false_resign as usize;
        }
        stats.policy_samples += p
            .samples
            .iter()
            .filter(|s| s.flags & HAS_POLICY != 0)
            .count();
        samples.extend(p.samples);
        sgf.push_str(&p.sgf);
        sgf.push('\n');
    }
    stats.samples += samples.len();
    // SGF first: a shard on disk always has its games next to it.
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("shard");
    crate::util::write_atomic(&out.join("sgf").join(format!("{stem}.sgf")), sgf.as_bytes())
        .map_err(|e| format!("writing SGF: {e}"))?;
    shard::write(&path, &samples).map_err(|e| e.to_string())?;
    stats.shards.push(path);
    Ok(())
}

/// A position waiting for its game's result.
struct Pending {
    spatial: Vec<f32>,
    global: Vec<f32>,
    policy: Option<Vec<f32>>,
    to_move: Color,
}

/// Plays game `index`.
fn play_game(
    cfg: &SelfplayConfig,
    eval: Arc<dyn Evaluator>,
    index: usize,
) -> Result<Played, String> {
    let seed = derive_seed(cfg.seed, 1, index as u64);
    let mut rng = StdRng::seed_from_u64(seed);
    let size = rng.random_range(cfg.min_size..=cfg.max_size);
    let rules = cfg.draw_rules(size, &mut rng);
    let mut game = Game::with_rules(size, rules)?;
    let n = size * size;
    // Varied openings: moves from the raw policy, not training samples.
    let opening = if rng.random::<f32>() < cfg.opening_prob {
        let max = ((cfg.opening_max as f32 * n as f32 / 81.0).round() as usize).max(1);
        rng.random_range(1..=max)
    } else {
        0
    };
    for _ in 0..opening {
        let out = eval.evaluate(&[game.eval_input()]).pop();
        let Some(out) = out else { break };
        let mv = choose(&out.policy, 1.0, size, &mut rng).unwrap_or(Move::Pass);
        if mv == Move::Pass || !game.position.is_legal(mv) {
            break;
        }
        game.play(mv, Some("opening move drawn from the raw policy"))
            .map_err(|e| format!("opening move {mv:?} illegal: {e}"))?;
    }
    let base = SearchConfig {
        threads: 1,
        batch_size: cfg.batch_size,
        seed: derive_seed(cfg.seed, 2, index as u64),
        lcb_check: false,
        // Training targets come from the main policy, as in KataGo's
        // self-play (its optimism is for play).
        policy_optimism: 0.0,
        root_policy_optimism: 0.0,
        dynamic_score_utility: cfg.dynamic_score_utility,
        ..SearchConfig::default()
    };
    let opening_played = game.moves.len();
    let mut search = Search::new(eval, base.clone());
    let may_resign =
        cfg.resign_threshold.is_some() && rng.random::<f32>() >= cfg.resign_check_fraction;
    let max_moves = ((cfg.max_moves_factor * n as f32) as usize).max(4);
    let halflife = cfg.temp_halflife * n as f32 / 361.0;
    let stop = AtomicBool::new(false);
    let mut pending: Vec<Pending> = Vec::new();
    let mut low_streak = [0u32; 2];
    let mut would_resign: Option<Color> = None;
    let mut resigned: Option<Color> = None;
    let mut decided = false;
    while !game.is_over() && game.moves.len() < max_moves {
        if decided {
            play_decided_move(&mut game, &mut search, &base, cfg.decided_visits, &stop)?;
            continue;
        }
        let full = rng.random::<f32>() < cfg.full_prob;
        let gumbel_m = cfg.gumbel_m.filter(|_| full);
        let puct_full = full && gumbel_m.is_none();
        search.set_config(SearchConfig {
            noise: puct_full && cfg.noise,
            forced_playouts: (puct_full && cfg.forced_k > 0.0).then_some(cfg.forced_k),
            ..base.clone()
        });
        search.set_position(game.position.clone(), game.recent());
        search.set_eval_context(game.prev_boards.clone(), 0.0);
        let visits = if full {
            cfg.visits_full
        } else {
            cfg.visits_fast
        };
        let (res, gumbel) = match gumbel_m {
            Some(m) => {
                let g = search.run_gumbel(
                    &GumbelConfig {
                        simulations: visits,
                        considered: m,
                        c_scale: cfg.gumbel_c_scale,
                        seed: rng.random(),
                        ..GumbelConfig::default()
                    },
                    &stop,
                );
                (g.search, Some(g.policy).filter(|p| !p.is_empty()))
            }
            None => {
                let limits = Limits::visits(visits);
                let res = search.run(&limits, &stop, None, Duration::from_secs(3600));
                (res, None)
            }
        };
        let to_move = game.to_move();
        let target = if let Some(policy) = &gumbel {
            dense(policy, size)
        } else if res.moves.is_empty() {
            one_hot(res.best, size)
        } else if full {
            dense(&search.policy_target(), size)
        } else {
            visit_distribution(&res.moves, size)
        };
        let (spatial, global) = game.features();
        // Decided positions keep their policy target only in part (no
        // draw when that is off, so the games stay as they were).
        let keep_policy = full
            && (cfg.decided_policy_weight >= 1.0
                || rng.random::<f32>()
                    < decided_policy_weight(res.winrate, cfg.decided_policy_weight));
        pending.push(Pending {
            spatial,
            global,
            policy: keep_policy.then(|| target.clone()),
            to_move,
        });
        // Resignation.
        if let Some(th) = cfg.resign_threshold {
            let k = to_move.index();
            low_streak[k] = if res.winrate < th {
                low_streak[k] + 1
            } else {
                0
            };
            if low_streak[k] >= cfg.resign_consecutive.max(1) {
                if may_resign && cfg.decided_visits == 0 {
                    resigned = Some(to_move);
                    break;
                }
                if may_resign {
                    decided = true;
                } else {
                    would_resign.get_or_insert(to_move);
                }
            }
        }
        let temp = cfg.temp_end
            + (cfg.temp_start - cfg.temp_end) * 0.5f32.powf(game.moves.len() as f32 / halflife);
        let mv = match gumbel {
            // The Gumbel draw already sampled the move.
            Some(_) => res.best,
            None => choose(&target, temp, size, &mut rng).unwrap_or(res.best),
        };
        let mv = if game.position.is_legal(mv) {
            mv
        } else {
            res.best
        };
        game.play(mv, None)
            .map_err(|e| format!("self-play move {mv:?} illegal: {e}"))?;
    }
    // Targets.
    let outcome = game.outcome();
    let winner = match resigned {
        Some(c) => Some(c.opp()),
        None if outcome.margin > 0.0 => Some(Color::Black),
        None if outcome.margin < 0.0 => Some(Color::White),
        None => None,
    };
    game.record.result = Some(result_text(outcome.margin, resigned));
    game.record.black = Some("tengen-selfplay".into());
    game.record.white = Some("tengen-selfplay".into());
    let mut samples = Vec::with_capacity(pending.len());
    for (ply, p) in pending.into_iter().enumerate() {
        let pla = p.to_move;
        let sign = if pla == Color::Black { 1.0 } else { -1.0 };
        let mut flags = HAS_VALUE;
        if resigned.is_none() {
            flags |= HAS_SCORE | HAS_OWNERSHIP;
        }
        if p.policy.is_some() {
            flags |= HAS_POLICY;
        }
        let opp_move = game
            .moves
            .get(opening_played + ply + 1)
            .map_or(NO_MOVE, |&(_, m)| policy_index(m, size) as u16);
        samples.push(Sample {
            size,
            flags,
            spatial: p.spatial,
            global: p.global,
            policy: p.policy.unwrap_or_else(|| vec![0.0; n + 1]),
            opp_move,
            outcome: match winner {
                Some(w) if w == pla => 1,
                Some(_) => -1,
                None => 0,
            },
            score: if resigned.is_some() {
                0.0
            } else {
                sign * outcome.margin
            },
            ownership: outcome
                .owners
                .iter()
                .map(|o| match o {
                    Some(c) if *c == pla => 1,
                    Some(_) => -1,
                    None => 0,
                })
                .collect(),
        });
    }
    Ok(Played {
        samples,
        sgf: tengen::sgf::write_record(&game.record),
        moves: game.moves.len(),
        resigned: resigned.is_some(),
        decided,
        checked: would_resign.map(|c| winner == Some(c)),
        black_won: winner == Some(Color::Black),
    })
}

/// One move of a decided game: a plain search of `visits`, its best
/// move, no training sample.
fn play_decided_move(
    game: &mut Game,
    search: &mut Search,
    base: &SearchConfig,
    visits: u32,
    stop: &AtomicBool,
) -> Result<(), String> {
    search.set_config(base.clone());
    search.set_position(game.position.clone(), game.recent());
    search.set_eval_context(game.prev_boards.clone(), 0.0);
    let res = search.run(
        &Limits::visits(u64::from(visits.max(1))),
        stop,
        None,
        Duration::from_secs(3600),
    );
    let mv = if game.position.is_legal(res.best) {
        res.best
    } else {
        Move::Pass
    };
    game.play(mv, Some("decided: played out with a cheap search"))
        .map_err(|e| format!("self-play move {mv:?} illegal: {e}"))
}

fn one_hot(mv: Move, size: usize) -> Vec<f32> {
    let mut v = vec![0.0; size * size + 1];
    v[policy_index(mv, size)] = 1.0;
    v
}

/// Visit counts as a distribution (dense, pass last).
pub fn visit_distribution(moves: &[MoveInfo], size: usize) -> Vec<f32> {
    let mut v = vec![0.0; size * size + 1];
    for m in moves {
        v[policy_index(m.mv, size)] += m.visits as f32;
    }
    normalize(v)
}

/// A sparse (move, weight) target as a dense distribution (pass last).
pub fn dense(target: &[(Move, f32)], size: usize) -> Vec<f32> {
    let mut v = vec![0.0; size * size + 1];
    for &(mv, w) in target {
        v[policy_index(mv, size)] += w;
    }
    normalize(v)
}

fn normalize(mut v: Vec<f32>) -> Vec<f32> {
    let s: f32 = v.iter().sum();
    if s > 0.0 {
        v.iter_mut().for_each(|x| *x /= s);
    }
    v
}

/// Samples a move with probability proportional to `p^(1/temp)`
/// (the most likely move when `temp` is ~0).
fn choose(p: &[f32], temp: f32, size: usize, rng: &mut StdRng) -> Option<Move> {
    let to_move = |i: usize| {
        if i == size * size {
            Move::Pass
        } else {
            Move::Place(tengen::rules::Point::from_dense(i, size))
        }
    };
    if temp < 0.01 {
        let (i, _) = p
            .iter()
            .enumerate()
            .filter(|(_, &x)| x > 0.0)
            .max_by(|a, b| a.1.total_cmp(b.1))?;
        return Some(to_move(i));
    }
    let max = p.iter().cloned().fold(0.0f32, f32::max);
    if max <= 0.0 {
        return None;
    }
    let w: Vec<f64> = p
        .iter()
        .map(|&x| {
            if x > 0.0 {
                ((x / max) as f64).powf(1.0 / temp as f64)
            } else {
                0.0
            }
        })
        .collect();
    let total: f64 = w.iter().sum();
    let mut r = rng.random::<f64>() * total;
    for (i, &x) in w.iter().enumerate() {
        if x > 0.0 {
            if r < x {
                return Some(to_move(i));
            }
            r -= x;
        }
    }
    w.iter().rposition(|&x| x > 0.0).map(to_move)
}

#[cfg(test)]
mod gumbel_tests {
    use super::*;
    use tengen::eval::fake::HeuristicEvaluator;

    /// Two quick 5×5 games with Gumbel searches of 8 simulations.
    fn tiny() -> SelfplayConfig {
        SelfplayConfig {
            games: 2,
            parallel: 2,
            visits_full: 8,
            visits_fast: 2,
            full_prob: 1.0,
            min_size: 5,
            max_size: 5,
            games_per_shard: 2,
            batch_size: 4,
            gumbel_m: Some(4),
            ..SelfplayConfig::default()
        }
    }

    #[test]
    fn gumbel_selfplay_writes_improved_policy_targets() {
        let out = std::env::temp_dir().join(format!("tengen-gumbel-sp-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let cfg = SelfplayConfig {
            max_moves_factor: 1.0,
            ..tiny()
        };
        let eval = Arc::new(HeuristicEvaluator::new(3));
        let s = run(&cfg, eval, &out, 0, &ProgressBar::hidden()).unwrap();
        assert_eq!(s.games, 2);
        assert_eq!(s.policy_samples, s.samples);
        let mut n = 0;
        for p in shard::list(&out).unwrap() {
            for x in shard::read(&p).unwrap() {
                assert!(x.flags & HAS_POLICY != 0);
                assert!((x.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
                n += 1;
            }
        }
        assert_eq!(n, s.samples);
        let _ = std::fs::remove_dir_all(&out);
    }

    /// Games drawn under Tromp-Taylor, New Zealand or AGA rules are played
    /// and recorded under them, and their samples carry those rules' ko
    /// and suicide inputs (V7 globals 6-8).
    #[test]
    fn area_variant_games_are_played_and_encoded_under_their_rules() {
        let out = std::env::temp_dir().join(format!("tengen-variant-sp-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let cfg = SelfplayConfig {
            games: 12,
            games_per_shard: 12,
            territory_prob: 0.0,
            area_variants: 1.0,
            max_moves_factor: 1.0,
            ..tiny()
        };
        let eval = Arc::new(HeuristicEvaluator::new(7));
        let s = run(&cfg, eval, &out, 0, &ProgressBar::hidden()).unwrap();
        assert_eq!(s.games, 12);
        let sgf: Vec<String> = std::fs::read_dir(out.join("sgf"))
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .collect();
        let count = |ru: &str| sgf.iter().map(|g| g.matches(ru).count()).sum::<usize>();
        let (tt, nz, aga) = (count("RU[tromp-taylor]"), count("RU[nz]"), count("RU[aga]"));
        assert_eq!(tt + nz + aga, 12, "{tt} {nz} {aga}");
        assert!(tt > 0 && nz > 0 && aga > 0, "{tt} {nz} {aga}");
        // (ko rule set, positional +0.5 / situational -0.5, suicide)
        let mut seen = std::collections::BTreeSet::new();
        for p in shard::list(&out).unwrap() {
            for x in shard::read(&p).unwrap() {
                let key = (
                    x.global[6] as i32,
                    (x.global[7] * 2.0) as i32,
                    x.global[8] as i32,
                );
                assert!(
                    [(1, 1, 1), (1, -1, 1), (1, -1, 0)].contains(&key),
                    "rules inputs {key:?}"
                );
                seen.insert(key);
            }
        }
        assert_eq!(seen.len(), 3, "{seen:?}");
        let _ = std::fs::remove_dir_all(&out);
    }

    /// A decided game is counted, not resigned: every sample keeps its
    /// score and ownership targets and the game's result is the count.
    #[test]
    fn decided_games_are_played_out_and_keep_score_targets() {
        for decided_visits in [4u32, 0] {
            let out = std::env::temp_dir().join(format!(
                "tengen-decided-sp-{}-{decided_visits}",
                std::process::id()
            ));
            let _ = std::fs::remove_dir_all(&out);
            let cfg = SelfplayConfig {
                // Every winrate is below this: each game is decided after
                // three moves of one player.
                resign_threshold: Some(1.01),
                resign_check_fraction: 0.0,
                opening_prob: 0.0,
                decided_visits,
                ..tiny()
            };
            let eval = Arc::new(HeuristicEvaluator::new(5));
            let s = run(&cfg, eval, &out, 0, &ProgressBar::hidden()).unwrap();
            assert_eq!(s.games, 2);
            let samples: Vec<Sample> = shard::list(&out)
                .unwrap()
                .iter()
                .flat_map(|p| shard::read(p).unwrap())
                .collect();
            let sgf: String = std::fs::read_dir(out.join("sgf"))
                .unwrap()
                .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
                .collect();
            if decided_visits > 0 {
                assert_eq!((s.resigned, s.decided), (0, 2));
                assert!(samples.iter().all(|x| x.flags & HAS_SCORE != 0));
                assert!(!sgf.contains("+R]"), "{sgf}");
                // The cheap tail is played but not sampled.
                assert!(
                    s.moves > s.samples,
                    "{} moves, {} samples",
                    s.moves,
                    s.samples
                );
            } else {
                assert_eq!((s.resigned, s.decided), (2, 0));
                assert!(samples.iter().all(|x| x.flags & HAS_SCORE == 0));
                assert_eq!(sgf.matches("+R]").count(), 2, "{sgf}");
            }
            let _ = std::fs::remove_dir_all(&out);
        }
    }
}
