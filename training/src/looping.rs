//! The `loop` command: self-play → train → gate → anchors, generation
//! after generation, resumable after a kill at any moment.
//!
//! Layout under the run folder: `data/` (shards + `data/sgf/`), `train/`
//! (checkpoints, see [`crate::train`]), `models/` (`best.safetensors` and
//! `gen-NNNN.safetensors` for every promoted net; `gen-0000` is the start:
//! `--init`'s net or a fresh one), `gate/gen-NNNN/` (gate SGF),
//! `anchors/` and `anchors.csv`/`anchors.png` (see [`crate::anchors`]),
//! `metrics.csv`, `metrics.png`, and `loop.json`: the [`LoopState`],
//! replaced atomically after every step of progress.
//!
//! Each generation: self-play with the best net (on the fast CPU path
//! when the backend says so) → train the trainer's checkpoint on the
//! newest shards → gate the candidate against the best (SPRT, komi
//! alternating between the gate's komi values) → when promoted, play the
//! anchors with the new best and record its komi curve (`komi-curve.csv`,
//! see [`crate::komi_curve::record`]). The start net plays the anchors first, so
//! the curve has its origin. Hours of self-play, training and gating are
//! summed in the state (a killed stage's time until its last saved step).
//!
//! Resume: self-play proceeds in shards; a shard finished but not yet
//! counted in the state when killed is kept as extra data. Training
//! resumes from its checkpoint exactly. A gate killed midway is replayed
//! from its first game (gates are deterministic per seed); anchors
//! already written to `anchors.csv` for this generation are not replayed.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use tengen::net::device::Backend;

use crate::anchors::{self, AnchorConfig, Progress};
use crate::arena::{series, SeriesConfig, Tengen};
use crate::metrics::{self, Row};
use crate::model::TrainNet;
use crate::selfplay::{self, SelfplayConfig};
use crate::shard;
use crate::train::{self, Init, TrainConfig};
use crate::util::write_atomic;

/// Where a generation stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Stage {
    Selfplay,
    Train,
    Gate,
    /// The best net plays the anchors (after a promotion, and first of all).
    Anchors,
}

/// Everything needed to continue.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct LoopState {
    pub generation: u32,
    pub stage: Stage,
    pub games_done: usize,
    pub samples_done: usize,
    /// Elo of the best net relative to generation 0.
    pub elo: f64,
    pub last_train: Option<train::TrainSummary>,
    /// Seconds spent so far in each stage, over all generations.
    #[serde(default)]
    pub selfplay_secs: f64,
    #[serde(default)]
    pub train_secs: f64,
    #[serde(default)]
    pub gate_secs: f64,
    #[serde(default)]
    pub anchor_secs: f64,
    /// Self-play games over all generations.
    #[serde(default)]
    pub total_games: usize,
    /// The generation label of the best net (promotions so far).
    #[serde(default)]
    pub best_gen: u32,
    /// The number of this generation's first shard: shards from it on
    /// are this generation's, so a shard written just before a kill (and
    /// not yet counted here) counts on resume instead of being played
    /// again.
    #[serde(default)]
    pub gen_first_shard: Option<u64>,
}

/// Loop settings.
#[derive(Clone, Debug)]
pub struct LoopConfig {
    pub selfplay: SelfplayConfig,
    pub train: TrainConfig,
    /// Training steps added per generation.
    pub steps_per_gen: u64,
    pub games_per_gen: usize,
    pub gate_games: u32,
    pub gate_visits: u64,
    /// Komi of the gate's games, alternating by pairs (empty: 7).
    pub gate_komi: Vec<f32>,
    /// Generations to run in this call (0: forever).
    pub generations: u32,
    /// Stop once this many generations are done in all (whichever call).
    pub until: Option<u32>,
    /// The net of a fresh run: `init`'s file, else a random `arch`.
    pub arch: tengen::net::NetConfig,
    pub init: Option<PathBuf>,
    pub max_batch: usize,
    /// Where the nets run for play; training runs on `backend.device`.
    pub backend: Backend,
    /// Fixed opponents (none: no anchor stage).
    pub anchors: Option<AnchorConfig>,
}

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar())
}

fn save_state(path: &Path, s: &LoopState) -> Result<(), String> {
    let json = serde_json::to_vec_pretty(s).map_err(|e| e.to_string())?;
    write_atomic(path, &json).map_err(|e| format!("{}: {e}", path.display()))
}

/// Loads the net at `path` as an evaluator for play on `backend` (the
/// fast CPU path, burn's CPU backend or the GPU).
pub fn evaluator(
    path: &Path,
    backend: &Backend,
    max_batch: usize,
) -> Result<Arc<dyn tengen::eval::Evaluator>, String> {
    let net = tengen::net::load_any(path, &backend.device)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let e = tengen::net::NetEvaluator::on(net, max_batch, backend)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Arc::new(e))
}

/// Runs the loop in `root` (see the module docs).
pub fn run(cfg: &LoopConfig, root: &Path) -> Result<LoopState, String> {
    let device = &cfg.backend.device;
    let state_path = root.join("loop.json");
    let data = root.join("data");
    let train_dir = root.join("train");
    let models = root.join("models");
    std::fs::create_dir_all(&models).map_err(|e| format!("{}: {e}", models.display()))?;
    let best = models.join("best.safetensors");
    let mut st: LoopState = match std::fs::read(&state_path) {
        Ok(b) => {
            serde_json::from_slice(&b).map_err(|e| format!("{}: {e}", state_path.display()))?
        }
        Err(_) => LoopState {
            generation: 0,
            stage: if cfg.anchors.is_some() {
                Stage::Anchors
            } else {
                Stage::Selfplay
            },
            games_done: 0,
            samples_done: 0,
            elo: 0.0,
            last_train: None,
            selfplay_secs: 0.0,
            train_secs: 0.0,
            gate_secs: 0.0,
            anchor_secs: 0.0,
            total_games: 0,
            best_gen: 0,
            gen_first_shard: None,
        },
    };
    if !best.exists() {
        match &cfg.init {
            Some(p) => {
                // The start net as it is (checked to load first).
                tengen::net::load_any(p, device).map_err(|e| format!("{}: {e}", p.display()))?;
                let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
                write_atomic(&models.join("gen-0000.safetensors"), &bytes)
                    .map_err(|e| e.to_string())?;
                write_atomic(&best, &bytes).map_err(|e| e.to_string())?;
            }
            None => {
                let net = TrainNet::random(&cfg.arch, cfg.train.seed, device)
                    .map_err(|e| e.to_string())?;
                net.export(&models.join("gen-0000.safetensors"))
                    .map_err(|e| e.to_string())?;
                net.export(&best).map_err(|e| e.to_string())?;
            }
        }
    }
    if !state_path.exists() {
        save_state(&state_path, &st)?;
    }
    let multi = MultiProgress::new();
    let start_gen = st.generation;
    loop {
        // A call ends between generations (after any anchors are played).
        let done_here = cfg.generations > 0 && st.generation >= start_gen + cfg.generations;
        let done_all = cfg.until.is_some_and(|n| st.generation >= n);
        if (done_here || done_all) && st.stage == Stage::Selfplay {
            return Ok(st);
        }
        let g = st.generation;
        match st.stage {
            Stage::Selfplay => {
                let bar = multi.add(ProgressBar::new(cfg.games_per_gen as u64));
                bar.set_style(style(
                    "gen {prefix} selfplay {bar:30} {pos}/{len} games {elapsed}",
                ));
                bar.set_prefix(g.to_string());
                bar.set_position(st.games_done as u64);
                let eval = evaluator(&best, &cfg.backend, cfg.max_batch)?;
                let first = match st.gen_first_shard {
                    Some(f) => f,
                    None => {
                        let f = shard::next_index(&data).map_err(|e| e.to_string())?;
                        st.gen_first_shard = Some(f);
                        save_state(&state_path, &st)?;
                        f
                    }
                };
                adopt_written_shards(&mut st, cfg, &data, first)?;
                bar.set_position(st.games_done as u64);
                while st.games_done < cfg.games_per_gen {
                    let t0 = Instant::now();
                    let n = cfg
                        .selfplay
                        .games_per_shard
                        .min(cfg.games_per_gen - st.games_done);
                    let sp = SelfplayConfig {
                        games: n,
                        seed: cfg.selfplay.seed.wrapping_add(g as u64 * 1_000_003),
                        ..cfg.selfplay.clone()
                    };
                    let s = selfplay::run(&sp, eval.clone(), &data, st.games_done, &bar)?;
                    st.games_done += s.games;
                    st.total_games += s.games;
                    st.samples_done += s.samples;
                    st.selfplay_secs += t0.elapsed().as_secs_f64();
                    save_state(&state_path, &st)?;
                    log(
                        &multi,
                        format!(
                            "gen {g} selfplay: {}/{} games, {} samples ({:.0} games/hour)",
                            st.games_done,
                            cfg.games_per_gen,
                            st.samples_done,
                            s.games as f64 * 3600.0 / s.seconds.max(1e-9)
                        ),
                    );
                }
                bar.finish();
                st.stage = Stage::Train;
                save_state(&state_path, &st)?;
            }
            Stage::Train => {
                let bar = multi.add(ProgressBar::new(0));
                bar.set_style(style(
                    "gen {prefix} train    {bar:30} {pos}/{len} steps {msg} {elapsed}",
                ));
                bar.set_prefix(g.to_string());
                let tc = TrainConfig {
                    steps: (g as u64 + 1) * cfg.steps_per_gen,
                    ..cfg.train.clone()
                };
                let init = Init::Model(best.clone());
                let t0 = Instant::now();
                let sum = train::run(&tc, &data, None, &train_dir, &init, device, &bar)?;
                bar.finish();
                st.train_secs += t0.elapsed().as_secs_f64();
                log(
                    &multi,
                    format!(
                        "gen {g} train: step {}, loss {}, {:.0} samples/s",
                        sum.step,
                        sum.train_loss
                            .as_ref()
                            .map_or("-".into(), |l| format!("{:.4}", l.total)),
                        sum.samples_per_sec
                    ),
                );
                st.last_train = Some(sum);
                st.stage = Stage::Gate;
                save_state(&state_path, &st)?;
            }
            Stage::Gate => {
                let bar = multi.add(ProgressBar::new(cfg.gate_games as u64));
                bar.set_style(style(
                    "gen {prefix} gate     {bar:30} {pos}/{len} games {msg} {elapsed}",
                ));
                bar.set_prefix(g.to_string());
                let cand_path = train_dir.join("model.safetensors");
                let t0 = Instant::now();
                let search = tengen::search::SearchConfig {
                    temperature: 0.5,
                    temperature_moves: 8,
                    seed: g as u64,
                    ..Default::default()
                };
                let mut cand = Tengen::new(
                    "candidate",
                    evaluator(&cand_path, &cfg.backend, cfg.max_batch)?,
                    search.clone(),
                    tengen::search::Limits::visits(cfg.gate_visits),
                );
                let mut champ = Tengen::new(
                    "best",
                    evaluator(&best, &cfg.backend, cfg.max_batch)?,
                    search,
                    tengen::search::Limits::visits(cfg.gate_visits),
                );
                let size = cfg.selfplay.max_size;
                let sc = SeriesConfig {
                    games: cfg.gate_games,
                    size,
                    komi: cfg.gate_komi.clone(),
                    max_moves: 2 * size * size,
                    sprt: Some((0.0, 35.0)),
                    sgf_dir: Some(root.join("gate").join(format!("gen-{g:04}"))),
                    seed: g as u64,
                };
                let tally = series(&sc, &mut cand, &mut champ, |_, _, t| {
                    bar.inc(1);
                    if let Some(e) = t.elo() {
                        bar.set_message(format!("elo {:+.0} [{:+.0}, {:+.0}]", e.elo, e.lo, e.hi));
                    }
                })?;
                bar.finish();
                let e = tally.elo().unwrap_or(crate::elo::EloEstimate {
                    elo: 0.0,
                    lo: 0.0,
                    hi: 0.0,
                });
                // Promote when the candidate scored at least half.
                let promoted =
                    tally.wins + tally.draws / 2 >= tally.losses.max(1) && tally.games() > 0;
                if promoted {
                    let bytes = std::fs::read(&cand_path).map_err(|e| e.to_string())?;
                    write_atomic(
                        &models.join(format!("gen-{:04}.safetensors", g + 1)),
                        &bytes,
                    )
                    .map_err(|e| e.to_string())?;
                    write_atomic(&best, &bytes).map_err(|e| e.to_string())?;
                    st.elo += e.elo;
                    st.best_gen = g + 1;
                }
                st.gate_secs += t0.elapsed().as_secs_f64();
                let t = st.last_train.clone().unwrap_or_default();
                let l = t.train_loss.unwrap_or_default();
                let row = Row {
                    generation: g + 1,
                    games: st.games_done,
                    samples: st.samples_done,
                    loss: l.total,
                    policy: l.policy,
                    value: l.value,
                    val_loss: t.val_loss.map_or(f32::NAN, |v| v.total),
                    elo: st.elo,
                    elo_lo: st.elo - (e.elo - e.lo),
                    elo_hi: st.elo + (e.hi - e.elo),
                    promoted,
                };
                log(
                    &multi,
                    format!(
                        "gen {g} gate: {}-{}-{} against the best ({:+.0} Elo [{:+.0}, {:+.0}]): {}",
                        tally.wins,
                        tally.losses,
                        tally.draws,
                        e.elo,
                        e.lo,
                        e.hi,
                        if promoted {
                            "promoted"
                        } else {
                            "kept the best"
                        }
                    ),
                );
                // A gate replayed after a kill has its row already.
                let csv = root.join("metrics.csv");
                if !metrics::read(&csv).iter().any(|r| r.generation == g + 1) {
                    metrics::append(&csv, &row)?;
                }
                metrics::plot(
                    &metrics::read(&root.join("metrics.csv")),
                    &root.join("metrics.png"),
                )?;
                st.generation += 1;
                st.stage = if promoted && cfg.anchors.is_some() {
                    Stage::Anchors
                } else {
                    Stage::Selfplay
                };
                st.games_done = 0;
                st.samples_done = 0;
                st.gen_first_shard = None;
                save_state(&state_path, &st)?;
            }
            Stage::Anchors => {
                if let Some(ac) = &cfg.anchors {
                    let total = ac.anchors.len() as u64 * ac.games as u64;
                    let bar = multi.add(ProgressBar::new(total));
                    bar.set_style(style(
                        "gen {prefix} anchors  {bar:30} {pos}/{len} games {msg} {elapsed}",
                    ));
                    bar.set_prefix(st.best_gen.to_string());
                    let t0 = Instant::now();
                    let at = Progress {
                        generation: st.best_gen,
                        selfplay_hours: st.selfplay_secs / 3600.0,
                        games: st.total_games,
                    };
                    let rows = anchors::measure(ac, &best, &cfg.backend, at, root, |name, t| {
                        bar.inc(1);
                        if let Some(e) = t.elo() {
                            bar.set_message(format!("{name} elo {:+.0}", e.elo));
                        }
                    })?;
                    bar.finish();
                    for r in rows {
                        log(&multi, r.describe());
                    }
                    // The komi curve of the same net (cheap: 82 evaluations).
                    let eval = evaluator(&best, &cfg.backend, 64)?;
                    crate::komi_curve::record(
                        &eval,
                        ac.size,
                        st.best_gen,
                        &root.join("komi-curve.csv"),
                    )?;
                    st.anchor_secs += t0.elapsed().as_secs_f64();
                }
                st.stage = Stage::Selfplay;
                save_state(&state_path, &st)?;
            }
        }
    }
}

/// Counts this generation's shards that are on disk but not yet in the
/// state (written just before a kill): their games and samples.
fn adopt_written_shards(
    st: &mut LoopState,
    cfg: &LoopConfig,
    data: &Path,
    first: u64,
) -> Result<(), String> {
    let gps = cfg.selfplay.games_per_shard.max(1);
    let counted = st.games_done.div_ceil(gps) as u64;
    for path in shard::list(data).map_err(|e| e.to_string())? {
        let Some(i) = shard::index_of(&path) else {
            continue;
        };
        if i < first + counted {
            continue;
        }
        let samples = shard::read(&path).map_err(|e| e.to_string())?.len();
        let games = gps.min(cfg.games_per_gen.saturating_sub(st.games_done));
        st.games_done += games;
        st.total_games += games;
        st.samples_done += samples;
    }
    Ok(())
}

/// A progress line: above the bars on a terminal, else on stderr with
/// the time, so that a log file shows the run's progress.
fn log(multi: &MultiProgress, msg: String) {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        multi.println(msg).ok();
    } else {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let (h, m, sec) = ((t / 3600) % 24, (t / 60) % 60, t % 60);
        eprintln!("{h:02}:{m:02}:{sec:02} UTC {msg}");
    }
}

/// The path of the best model in a loop folder.
pub fn best_model(root: &Path) -> PathBuf {
    root.join("models").join("best.safetensors")
}
