//! `tengen benchmark`: how fast the net and the search run on this machine
//! and device, so that a user can choose `--device`, `--threads` and
//! `--batch` from numbers rather than guesses (what `katago benchmark` and
//! lc0's `benchmark` are for).
//!
//! Every part runs on positions from seeded random games (stones,
//! captures and ko threats of a middle game; the same positions on every
//! run and machine):
//! 1. **Net throughput**: evaluations per second at each batch size,
//!    counting whole [`Evaluator::evaluate`] calls (input encoding, the
//!    forward pass, legality and post-processing), after a warm-up (GPU
//!    backends compile and autotune their kernels on first use).
//! 2. **Agreement** (when a reference net is given, e.g. the same weights on
//!    the CPU): the largest differences in policy, winrate and score over
//!    the positions. A faulty GPU driver or backend shows up here as a
//!    number instead of as weak play.
//! 3. **Search**: visits per second for each (threads, batch) pair from the
//!    empty board, with the average batch the search reached.

use std::io::{self, Write};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::eval::{evaluate_all, EvalInput, EvalOutput, Evaluator, PREV_BOARDS, RECENT_MOVES};
use crate::net::NetEvaluator;
use crate::rules::{playout, Color, Move, Position, Ruleset, MAX_SIZE, MIN_SIZE};
use crate::search::{Limits, Search, SearchConfig};

/// Positions the throughput and agreement parts cycle through.
pub const POSITIONS: usize = 64;

/// Largest difference [`Agreement::ok`] accepts in a probability (policy,
/// winrate). fp32 backends that sum in another order differ by about 1e-6.
pub const PROBABILITY_TOLERANCE: f32 = 2e-3;

/// Largest score difference [`Agreement::ok`] accepts, in points.
pub const SCORE_TOLERANCE: f32 = 0.05;

/// What to measure.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchConfig {
    /// Board size of the positions.
    pub size: usize,
    /// Batch sizes for the throughput part.
    pub batches: Vec<usize>,
    /// Search thread counts.
    pub threads: Vec<usize>,
    /// Search batch sizes (tried with every thread count).
    pub search_batches: Vec<usize>,
    /// Time spent on each measurement.
    pub time: Duration,
    /// Seed of the random games.
    pub seed: u64,
}

impl Default for BenchConfig {
    fn default() -> BenchConfig {
        BenchConfig {
            size: 19,
            batches: vec![1, 8, 32],
            threads: vec![1, 2],
            search_batches: vec![8],
            time: Duration::from_secs(3),
            seed: 0,
        }
    }
}

impl BenchConfig {
    /// Checks the settings; the message says what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&self.size) {
            return Err(format!("unsupported board size {}", self.size));
        }
        let lists = [
            ("batch sizes", &self.batches, 4096),
            ("thread counts", &self.threads, 1024),
            ("search batch sizes", &self.search_batches, 4096),
        ];
        for (what, list, max) in lists {
            if list.is_empty() {
                return Err(format!("no {what} given"));
            }
            if let Some(bad) = list.iter().find(|&&x| x == 0 || x > max) {
                return Err(format!("{what} must be between 1 and {max}, not {bad}"));
            }
        }
        if self.time.is_zero() || self.time > Duration::from_secs(3600) {
            return Err("the time per measurement must be between 0 and 3600 seconds".into());
        }
        Ok(())
    }

    /// The largest batch any part asks the evaluator for.
    pub fn max_batch(&self) -> usize {
        let most = |v: &[usize]| v.iter().copied().max().unwrap_or(1);
        most(&self.batches).max(most(&self.search_batches))
    }
}

/// Net throughput at one batch size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetRate {
    pub batch: usize,
    pub evals_per_sec: f64,
    /// Wall time of one `evaluate` call.
    pub ms_per_batch: f64,
}

/// The largest differences between two evaluators over the same positions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Agreement {
    pub positions: usize,
    /// Largest difference of one move's probability.
    pub policy: f32,
    /// Largest difference of the winrate (win + no-result/2).
    pub winrate: f32,
    /// Largest difference of the score lead, in points.
    pub score: f32,
    /// Largest difference of one point's ownership.
    pub ownership: f32,
}

impl Agreement {
    /// Within [`PROBABILITY_TOLERANCE`] and [`SCORE_TOLERANCE`].
    pub fn ok(&self) -> bool {
        self.policy <= PROBABILITY_TOLERANCE
            && self.winrate <= PROBABILITY_TOLERANCE
            && self.ownership <= 2.0 * PROBABILITY_TOLERANCE
            && self.score <= SCORE_TOLERANCE
    }
}

/// Search speed for one (threads, batch) pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchRate {
    pub threads: usize,
    pub batch: usize,
    pub visits_per_sec: f64,
    /// Positions the evaluator was given per second (a visit that ends a
    /// game or finds a full tree costs none).
    pub evals_per_sec: f64,
    /// The mean batch the search sent to the evaluator.
    pub avg_batch: f32,
}

/// `count` positions from seeded random games on a `size` board: each
/// game plays random legal moves that fill no own eye, for a quarter to a
/// half of the board's points, and keeps its recent moves and earlier
/// boards for the net's history inputs. None when `size` is not a board
/// size.
pub fn positions(size: usize, count: usize, seed: u64) -> Vec<EvalInput> {
    use rand::Rng;
    let mut rng = StdRng::seed_from_u64(seed);
    let points = size * size;
    (0..count)
        .map_while(|_| {
            let length = rng.random_range(points / 4..=points / 2);
            let Ok(mut pos) = Position::new(size, Ruleset::chinese()) else {
                return None;
            };
            let mut recent: Vec<(Color, Move)> = Vec::new();
            let mut boards = Vec::new();
            for _ in 0..length {
                let color = pos.to_move();
                let mv = match playout::random_move(pos.board(), color, &mut rng) {
                    Some(p) if pos.is_legal(Move::Place(p)) => Move::Place(p),
                    _ => Move::Pass,
                };
                boards.push(pos.board().clone());
                if pos.play(color, mv).is_err() {
                    boards.pop();
                    break;
                }
                recent.push((color, mv));
            }
            let skip = recent.len().saturating_sub(RECENT_MOVES);
            recent.drain(..skip);
            let prev: Vec<_> = boards.into_iter().rev().take(PREV_BOARDS).collect();
            Some(
                EvalInput::new(pos)
                    .with_recent(recent)
                    .with_prev_boards(prev),
            )
        })
        .collect()
}

/// Evaluations per second at `batch`, cycling through `inputs`: two
/// warm-up calls, then calls until `time` has passed (three at least).
pub fn net_rate(
    eval: &dyn Evaluator,
    inputs: &[EvalInput],
    batch: usize,
    time: Duration,
) -> NetRate {
    let batch_inputs: Vec<EvalInput> = inputs.iter().cycle().take(batch).cloned().collect();
    for _ in 0..2 {
        eval.evaluate(&batch_inputs);
    }
    let start = Instant::now();
    let mut calls = 0u32;
    while calls < 3 || start.elapsed() < time {
        let out = eval.evaluate(&batch_inputs);
        debug_assert_eq!(out.len(), batch);
        calls += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    NetRate {
        batch,
        evals_per_sec: (batch as f64 * calls as f64) / secs,
        ms_per_batch: 1000.0 * secs / calls as f64,
    }
}

/// How far apart `a` and `b` are on `inputs`.
pub fn agreement(a: &dyn Evaluator, b: &dyn Evaluator, inputs: &[EvalInput]) -> Agreement {
    let xs = evaluate_all(a, inputs);
    let ys = evaluate_all(b, inputs);
    let mut agree = Agreement {
        positions: inputs.len(),
        ..Agreement::default()
    };
    let winrate = |o: &EvalOutput| o.value[0] + 0.5 * o.value[2];
    let max_diff = |u: &[f32], v: &[f32]| {
        if u.len() != v.len() {
            return f32::INFINITY;
        }
        u.iter()
            .zip(v)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0f32, f32::max)
    };
    for (x, y) in xs.iter().zip(&ys) {
        agree.policy = agree.policy.max(max_diff(&x.policy, &y.policy));
        agree.winrate = agree.winrate.max((winrate(x) - winrate(y)).abs());
        agree.score = agree.score.max((x.score_lead - y.score_lead).abs());
        let own = match (&x.ownership, &y.ownership) {
            (Some(u), Some(v)) => max_diff(u, v),
            (None, None) => 0.0,
            _ => f32::INFINITY,
        };
        agree.ownership = agree.ownership.max(own);
    }
    // NaN compares false everywhere: report it as infinitely far apart.
    for x in [
        &mut agree.policy,
        &mut agree.winrate,
        &mut agree.score,
        &mut agree.ownership,
    ] {
        if x.is_nan() {
            *x = f32::INFINITY;
        }
    }
    agree
}

/// Visits per second of a fresh search from `input` with `threads`
/// threads and a target batch of `batch`, searching for `time`.
pub fn search_rate(
    eval: Arc<dyn Evaluator>,
    input: &EvalInput,
    threads: usize,
    batch: usize,
    time: Duration,
) -> SearchRate {
    let config = SearchConfig {
        threads,
        batch_size: batch,
        ..SearchConfig::default()
    };
    let mut search = Search::new(eval, config);
    search.set_position(input.position.clone(), input.recent.clone());
    search.set_eval_context(input.prev_boards.clone(), input.handicap_bonus);
    let result = search.run(
        &Limits::time(time),
        &AtomicBool::new(false),
        None,
        Duration::from_secs(3600),
    );
    let secs = result.elapsed.as_secs_f64().max(1e-9);
    SearchRate {
        threads,
        batch,
        visits_per_sec: result.playouts as f64 / secs,
        evals_per_sec: result.batches as f64 * result.avg_batch as f64 / secs,
        avg_batch: result.avg_batch,
    }
}

/// Runs every part for `net` and writes the report to `out`; `reference`
/// (the same weights elsewhere: the CPU for a GPU, burn's CPU backend for
/// the fast path) adds the agreement part. With `side_by_side`, the
/// report starts with this machine's measured fp32 peak, and the
/// throughput table adds the % of one core's peak, the reference's
/// evaluations per second and the speed-up. Returns the agreement when
/// there was one.
pub fn run(
    cfg: &BenchConfig,
    net: NetEvaluator,
    device_name: &str,
    reference: Option<(NetEvaluator, &str)>,
    side_by_side: bool,
    out: &mut dyn Write,
) -> io::Result<Option<Agreement>> {
    cfg.validate()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let net_cfg = net.net().config().clone();
    let gflop = net_cfg.flops(cfg.size) as f64 / 1e9;
    let eval: Arc<dyn Evaluator> = Arc::new(net);
    let inputs = positions(cfg.size, POSITIONS, cfg.seed);
    writeln!(
        out,
        "tengen benchmark: net {} ({} blocks, {} channels, {gflop:.3} GFLOP per {s}x{s} evaluation) on {device_name}, {:.1} s per measurement",
        net_cfg.name,
        net_cfg.blocks.len(),
        net_cfg.trunk,
        cfg.time.as_secs_f64(),
        s = cfg.size,
    )?;

    let compare = reference.as_ref().filter(|_| side_by_side);
    let peak = if side_by_side {
        let one = crate::net::fast::peak::one_core();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let all = crate::net::fast::peak::threads(cores);
        writeln!(
            out,
            "machine: fp32 FMA peak {one:.1} GFLOP/s on one core, {all:.1} GFLOP/s on {cores} threads ({}); GFLOP/s count 3x3 convolutions at direct-convolution FLOPs",
            crate::net::fast::peak::describe()
        )?;
        one
    } else {
        0.0
    };
    writeln!(
        out,
        "\nnet throughput ({POSITIONS} positions, whole evaluator calls)"
    )?;
    match compare {
        Some((_, ref_name)) => writeln!(
            out,
            "{:>7} {:>10} {:>10} {:>9} {:>7} {:>10} {:>8}   (ref: {ref_name})",
            "batch", "evals/s", "ms/batch", "GFLOP/s", "%peak", "ref ev/s", "speedup"
        )?,
        None => writeln!(
            out,
            "{:>7} {:>10} {:>10} {:>9}",
            "batch", "evals/s", "ms/batch", "GFLOP/s"
        )?,
    }
    for &batch in &cfg.batches {
        let r = net_rate(&*eval, &inputs, batch, cfg.time);
        write!(
            out,
            "{:>7} {:>10.1} {:>10.2} {:>9.1}",
            r.batch,
            r.evals_per_sec,
            r.ms_per_batch,
            r.evals_per_sec * gflop
        )?;
        if let Some((ref_eval, _)) = compare {
            let rr = net_rate(ref_eval, &inputs, batch, cfg.time);
            write!(
                out,
                " {:>7.1} {:>10.1} {:>8.2}",
                100.0 * r.evals_per_sec * gflop / peak.max(1e-9),
                rr.evals_per_sec,
                r.evals_per_sec / rr.evals_per_sec.max(1e-9)
            )?;
        }
        writeln!(out)?;
        out.flush()?;
    }

    let agree = match reference {
        Some((ref_eval, ref_name)) => {
            let a = agreement(&*eval, &ref_eval, &inputs);
            writeln!(
                out,
                "\nagreement with {ref_name} over {} positions: largest differences policy {:.2e}, winrate {:.2e}, ownership {:.2e}, score {:.2e} points: {}",
                a.positions,
                a.policy,
                a.winrate,
                a.ownership,
                a.score,
                if a.ok() { "ok" } else { "MISMATCH" }
            )?;
            Some(a)
        }
        None => None,
    };

    // The search starts from the empty board, as a game does: the random
    // games' positions suit the net but would let the search count cheap
    // visits to games that two passes end.
    let Ok(empty) = Position::new(cfg.size, Ruleset::chinese()) else {
        return Err(io::Error::other("unsupported board size"));
    };
    let start = EvalInput::new(empty);
    writeln!(out, "\nsearch from the empty board")?;
    writeln!(
        out,
        "{:>7} {:>7} {:>10} {:>10} {:>10}",
        "threads", "batch", "visits/s", "evals/s", "avg batch"
    )?;
    for &threads in &cfg.threads {
        for &batch in &cfg.search_batches {
            let r = search_rate(Arc::clone(&eval), &start, threads, batch, cfg.time);
            writeln!(
                out,
                "{:>7} {:>7} {:>10.1} {:>10.1} {:>10.1}",
                r.threads, r.batch, r.visits_per_sec, r.evals_per_sec, r.avg_batch
            )?;
            out.flush()?;
        }
    }
    Ok(agree)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::fake::UniformEvaluator;
    use crate::net::{Net, NetConfig, RandomWeights};
    use burn::tensor::Device;

    fn small_net(seed: u64) -> Net {
        Net::load(
            &NetConfig::small(1, 8),
            &mut RandomWeights::new(seed),
            &Device::flex(),
        )
        .unwrap()
    }

    #[test]
    fn positions_are_middle_games_and_reproducible() {
        let a = positions(9, 8, 3);
        let b = positions(9, 8, 3);
        assert_eq!(a.len(), 8);
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.position.hash(), y.position.hash());
            assert_eq!(x.position.size(), 9);
            // A quarter to a half of the points were played; captures
            // can take some back, but never most of them.
            let stones = 81 - x.position.board().empty_count();
            assert!((8..=41).contains(&stones), "{stones} stones");
            assert!(!x.recent.is_empty() && x.recent.len() <= RECENT_MOVES);
            assert_eq!(x.prev_boards.len(), PREV_BOARDS);
        }
        assert_ne!(a[0].position.hash(), positions(9, 1, 4)[0].position.hash());
        assert!(positions(1, 3, 0).is_empty());
    }

    #[test]
    fn net_rate_counts_what_it_evaluates() {
        let inputs = positions(9, 4, 0);
        let r = net_rate(&UniformEvaluator, &inputs, 6, Duration::from_millis(10));
        assert_eq!(r.batch, 6);
        assert!(r.evals_per_sec > 0.0 && r.ms_per_batch > 0.0);
        // ms per batch and evals per second describe the same calls.
        let implied = 6.0 * 1000.0 / r.ms_per_batch;
        assert!((implied - r.evals_per_sec).abs() < 1e-6 * r.evals_per_sec);
    }

    #[test]
    fn same_weights_agree_and_other_weights_do_not() {
        let inputs = positions(9, 6, 1);
        let a = NetEvaluator::new(small_net(5), 4);
        let b = NetEvaluator::new(small_net(5), 4);
        let same = agreement(&a, &b, &inputs);
        assert_eq!(same.positions, 6);
        assert!(same.ok(), "{same:?}");
        assert!(same.policy < 1e-6, "{same:?}");
        let c = NetEvaluator::new(small_net(6), 4);
        let other = agreement(&a, &c, &inputs);
        assert!(!other.ok(), "{other:?}");
    }

    #[test]
    fn search_rate_reports_visits_and_batches() {
        let empty = EvalInput::new(Position::new(9, Ruleset::chinese()).unwrap());
        let eval: Arc<dyn Evaluator> = Arc::new(UniformEvaluator);
        let r = search_rate(eval, &empty, 2, 8, Duration::from_millis(50));
        assert_eq!((r.threads, r.batch), (2, 8));
        assert!(r.visits_per_sec > 0.0);
        // From the empty board every visit but the root's first few is a
        // new leaf for the evaluator.
        assert!(r.evals_per_sec > 0.5 * r.visits_per_sec, "{r:?}");
        assert!(r.evals_per_sec <= 1.01 * r.visits_per_sec + 20.0, "{r:?}");
        assert!(r.avg_batch >= 1.0 && r.avg_batch <= 8.0, "{r:?}");
    }

    #[test]
    fn the_report_has_every_part() {
        let cfg = BenchConfig {
            size: 9,
            batches: vec![1, 3],
            threads: vec![1],
            search_batches: vec![2, 4],
            time: Duration::from_millis(20),
            seed: 0,
        };
        cfg.validate().unwrap();
        for side_by_side in [false, true] {
            let mut out = Vec::new();
            let agree = run(
                &cfg,
                NetEvaluator::fast(small_net(1), 4).unwrap(),
                "cpu",
                Some((NetEvaluator::new(small_net(1), 4), "the cpu")),
                side_by_side,
                &mut out,
            )
            .unwrap()
            .unwrap();
            assert!(agree.ok());
            let text = String::from_utf8(out).unwrap();
            assert!(text.contains("net throughput"), "{text}");
            assert!(text.contains(": ok"), "{text}");
            assert_eq!(text.contains("FMA peak"), side_by_side, "{text}");
            // One row per batch size and per (threads, search batch) pair;
            // side by side, throughput rows add % of peak, the
            // reference's evals/s and the speed-up.
            let rows: Vec<usize> = text
                .lines()
                .filter_map(|l| {
                    let w: Vec<&str> = l.split_whitespace().collect();
                    (!w.is_empty() && w.iter().all(|x| x.parse::<f64>().is_ok())).then_some(w.len())
                })
                .collect();
            let wide = if side_by_side { 7 } else { 4 };
            assert_eq!(rows, vec![wide, wide, 5, 5], "{text}");
        }
    }

    #[test]
    fn bad_settings_are_refused() {
        let ok = BenchConfig::default();
        assert!(ok.validate().is_ok());
        let bad = [
            BenchConfig {
                size: 1,
                ..ok.clone()
            },
            BenchConfig {
                batches: vec![],
                ..ok.clone()
            },
            BenchConfig {
                threads: vec![0],
                ..ok.clone()
            },
            BenchConfig {
                search_batches: vec![5000],
                ..ok.clone()
            },
            BenchConfig {
                time: Duration::ZERO,
                ..ok.clone()
            },
        ];
        for b in bad {
            assert!(b.validate().is_err(), "{b:?}");
        }
        assert_eq!(ok.max_batch(), 32);
    }
}
