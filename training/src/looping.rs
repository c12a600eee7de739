//! The `loop` command: self-play → train → gate, generation after
//! generation, resumable after a kill at any moment.
//!
//! Layout under the run folder: `data/` (shards + `data/sgf/`), `train/`
//! (checkpoints, see [`crate::train`]), `models/` (`best.safetensors` and
//! `gen-NNNN.safetensors` for every promoted net), `gate/gen-NNNN/` (gate
//! SGF), `metrics.csv`, `metrics.png`, and `loop.json`: the [`LoopState`],
//! replaced atomically after every step of progress.
//!
//! Resume: self-play proceeds in shards; a shard finished but not yet
//! counted in the state when killed is kept as extra data. Training
//! resumes from its checkpoint exactly. A gate killed midway is replayed
//! from its first game (gates are short and deterministic per seed).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use burn::tensor::Device;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

use crate::arena::{series, SeriesConfig, Tengen};
use crate::metrics::{self, Row};
use crate::model::TrainNet;
use crate::selfplay::{self, SelfplayConfig};
use crate::train::{self, Init, TrainConfig};
use crate::util::write_atomic;

/// Where a generation stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Stage {
    Selfplay,
    Train,
    Gate,
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
    /// Generations to run in this call (0: forever).
    pub generations: u32,
    pub arch: tengen::net::NetConfig,
    pub max_batch: usize,
}

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar())
}

fn save_state(path: &Path, s: &LoopState) -> Result<(), String> {
    let json = serde_json::to_vec_pretty(s).map_err(|e| e.to_string())?;
    write_atomic(path, &json).map_err(|e| format!("{}: {e}", path.display()))
}

/// Loads the net at `path` as an evaluator for play.
pub fn evaluator(
    path: &Path,
    device: &Device,
    max_batch: usize,
) -> Result<Arc<dyn tengen::eval::Evaluator>, String> {
    let net = tengen::net::load_any(path, device).map_err(|e| e.to_string())?;
    Ok(Arc::new(tengen::net::NetEvaluator::new(net, max_batch)))
}

/// Runs the loop in `root` (see the module docs).
pub fn run(cfg: &LoopConfig, root: &Path, device: &Device) -> Result<LoopState, String> {
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
            stage: Stage::Selfplay,
            games_done: 0,
            samples_done: 0,
            elo: 0.0,
            last_train: None,
        },
    };
    if !best.exists() {
        let net = TrainNet::random(&cfg.arch, cfg.train.seed, device).map_err(|e| e.to_string())?;
        net.export(&models.join("gen-0000.safetensors"))
            .map_err(|e| e.to_string())?;
        net.export(&best).map_err(|e| e.to_string())?;
    }
    let multi = MultiProgress::new();
    let start_gen = st.generation;
    loop {
        if cfg.generations > 0 && st.generation >= start_gen + cfg.generations {
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
                let eval = evaluator(&best, device, cfg.max_batch)?;
                while st.games_done < cfg.games_per_gen {
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
                    st.samples_done += s.samples;
                    save_state(&state_path, &st)?;
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
                let sum = train::run(&tc, &data, None, &train_dir, &init, device, &bar)?;
                bar.finish();
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
                let search = tengen::search::SearchConfig {
                    temperature: 0.5,
                    temperature_moves: 8,
                    seed: g as u64,
                    ..Default::default()
                };
                let mut cand = Tengen::new(
                    "candidate",
                    evaluator(&cand_path, device, cfg.max_batch)?,
                    search.clone(),
                    tengen::search::Limits::visits(cfg.gate_visits),
                );
                let mut champ = Tengen::new(
                    "best",
                    evaluator(&best, device, cfg.max_batch)?,
                    search,
                    tengen::search::Limits::visits(cfg.gate_visits),
                );
                let size = cfg.selfplay.max_size;
                let sc = SeriesConfig {
                    games: cfg.gate_games,
                    size,
                    komi: 7.0,
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
                }
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
                metrics::append(&root.join("metrics.csv"), &row)?;
                metrics::plot(
                    &metrics::read(&root.join("metrics.csv")),
                    &root.join("metrics.png"),
                )?;
                st.generation += 1;
                st.stage = Stage::Selfplay;
                st.games_done = 0;
                st.samples_done = 0;
                save_state(&state_path, &st)?;
            }
        }
    }
}

/// The path of the best model in a loop folder.
pub fn best_model(root: &Path) -> PathBuf {
    root.join("models").join("best.safetensors")
}
