//! Training: burn autodiff on the CPU (flex) or a GPU (wgpu), Adam, the
//! losses of [`loss`], symmetry augmentation, a sliding window over the
//! newest shards, validation on held-out shards, and checkpoints that
//! resume exactly.
//!
//! # Checkpoints
//! `OUT/ckpt-<step>/` holds `net.safetensors` (net + auxiliary head, our
//! format: exact f32), `optim.bpk` (Adam's moments, burn's burnpack) and
//! `state.json` ([`TrainState`]); `OUT/LATEST` names the newest one and
//! is replaced atomically after the folder is complete, so a kill at any
//! moment leaves a loadable checkpoint. Older checkpoints are removed.
//!
//! # Exact resume
//! Step `k` draws its batch from a generator seeded by (seed, k), the
//! window's shard list is stored in the state, and parameter ids are
//! renumbered in module order on every load, so the optimizer state
//! matches. With one thread (`RAYON_NUM_THREADS=1`) on flex, training N
//! steps in one go or in two runs with a kill between gives bit-identical
//! weights (see `tests/resume.rs`).

pub mod augment;
pub mod bench;
pub mod data;
pub mod loss;

use std::path::{Path, PathBuf};

use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::Device;
use indicatif::ProgressBar;
use rand::rngs::StdRng;
use rand::SeedableRng;
use tengen::features::v7;

use crate::model::TrainNet;
use crate::shard;
use crate::util::{derive_seed, write_atomic};
use data::Dataset;
use loss::LossReport;

/// Training settings.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct TrainConfig {
    /// Train until this many steps in total (a resumed run continues).
    pub steps: u64,
    pub batch: usize,
    pub lr: f32,
    /// Newest shards used (0: all).
    pub window: usize,
    /// Checkpoint every this many steps (and at the end).
    pub checkpoint_every: u64,
    /// Random symmetries.
    pub augment: bool,
    /// Validation batches at each checkpoint and at the end (0: none).
    pub val_batches: usize,
    pub seed: u64,
    /// When set, the learning rate falls linearly from `lr` at step 0 to
    /// this at the last step (cosine-free, so a resumed run agrees).
    #[serde(default)]
    pub lr_end: Option<f32>,
    /// Multipliers of the score and ownership losses (1: the weights in
    /// `loss.rs`).
    #[serde(default = "one")]
    pub score_weight: f32,
    #[serde(default = "one")]
    pub ownership_weight: f32,
    /// Komi augmentation: shows counted positions at other komis
    /// ([`data::KomiShift`]); `None` in configs written before it.
    #[serde(default)]
    pub komi_shift: Option<data::KomiShift>,
    /// Rules augmentation: shows samples under other ko and suicide rules
    /// ([`data::RulesMix`]); `None` in configs written before it.
    #[serde(default)]
    pub rules_mix: Option<data::RulesMix>,
    /// Share of each batch drawn from opening positions
    /// ([`data::Dataset::set_opening_share`]); 0 in configs written before
    /// it.
    #[serde(default)]
    pub opening_share: f32,
    /// Games' first positions learn the mean margin of all of them
    /// ([`data::Dataset::pool_first_margins`]); false in configs written
    /// before it.
    #[serde(default)]
    pub pool_first_margins: bool,
    /// Only the value head learns ([`Trainer::learn_value_head_only`]). A
    /// resumed run keeps its checkpoint's choice.
    #[serde(default)]
    pub value_head_only: bool,
    /// Only the heads learn, the stem and trunk frozen
    /// ([`Trainer::learn_heads_only`]; `value_head_only` freezes more and
    /// wins). A resumed run keeps its checkpoint's choice.
    #[serde(default)]
    pub heads_only: bool,
    /// Policy targets of positions with fewer stones on the board than
    /// this lose their pass share ([`data::Dataset::drop_opening_passes`];
    /// 0: off).
    #[serde(default)]
    pub opening_pass_stones: u32,
}

fn one() -> f32 {
    1.0
}

/// Which parts of the net a run trains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Learn {
    /// Every weight.
    All,
    /// The policy, value and auxiliary heads; stem and trunk frozen.
    Heads,
    /// The value head only (value, score, ownership).
    ValueHead,
}

impl Learn {
    /// From a run's two flags; the value head alone wins, as it freezes
    /// more.
    pub fn from_flags(value_head_only: bool, heads_only: bool) -> Learn {
        match (value_head_only, heads_only) {
            (true, _) => Learn::ValueHead,
            (false, true) => Learn::Heads,
            (false, false) => Learn::All,
        }
    }

    /// The flag that asks for it, for messages.
    fn flag(self) -> &'static str {
        match self {
            Learn::All => "(neither)",
            Learn::Heads => "--heads-only",
            Learn::ValueHead => "--value-head-only",
        }
    }
}

impl TrainConfig {
    /// Which parts of the net this run trains.
    pub fn learn(&self) -> Learn {
        Learn::from_flags(self.value_head_only, self.heads_only)
    }

    /// The learning rate of step `step`.
    pub fn lr_at(&self, step: u64) -> f32 {
        match self.lr_end {
            Some(end) if self.steps > 0 => {
                let f = (step as f32 / self.steps as f32).clamp(0.0, 1.0);
                self.lr + (end - self.lr) * f
            }
            _ => self.lr,
        }
    }
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            steps: 100,
            batch: 64,
            lr: 1e-3,
            window: 50,
            checkpoint_every: 50,
            augment: true,
            val_batches: 20,
            seed: 1,
            lr_end: None,
            score_weight: 1.0,
            ownership_weight: 1.0,
            komi_shift: None,
            rules_mix: None,
            opening_share: 0.0,
            pool_first_margins: false,
            value_head_only: false,
            heads_only: false,
            opening_pass_stones: 0,
        }
    }
}

/// What a checkpoint records besides the weights.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct TrainState {
    pub step: u64,
    /// The step target the window below was chosen for.
    pub target: u64,
    pub train_shards: Vec<PathBuf>,
    pub val_shards: Vec<PathBuf>,
    pub config: TrainConfig,
    /// Mean training loss since the previous checkpoint.
    pub last_loss: Option<LossReport>,
}

/// Where training starts when no checkpoint exists.
pub enum Init {
    /// A fresh net of this architecture.
    Fresh(tengen::net::NetConfig),
    /// An exported model file.
    Model(PathBuf),
}

/// The result of a run.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct TrainSummary {
    pub step: u64,
    pub steps_run: u64,
    pub samples: usize,
    pub train_loss: Option<LossReport>,
    pub val_loss: Option<LossReport>,
    pub samples_per_sec: f64,
}

/// A model being trained with its optimizer.
pub struct Trainer {
    pub net: TrainNet,
    pub optim: ModuleOptimizer,
    pub step: u64,
    device: Device,
}

impl Trainer {
    /// Starts training `net` (any device) on `device` (plain; autodiff is
    /// added here).
    pub fn new(net: TrainNet, device: &Device) -> Trainer {
        Trainer {
            net: net.train().fork(&device.clone().autodiff()).renumbered(),
            optim: AdamConfig::new().init(),
            step: 0,
            device: device.clone(),
        }
    }

    /// From now on the stem and trunk keep their weights exactly and drop
    /// out of the backward pass; the heads still learn. For fine-tunes
    /// that change what a playing net says (its komi curve, a policy
    /// target cleaned) without relearning what it sees.
    pub fn learn_heads_only(&mut self) {
        let TrainNet { mut net, aux } = self.net.clone();
        net.stem = net.stem.no_grad();
        net.stem_global = net.stem_global.no_grad();
        net.blocks = net.blocks.into_iter().map(|b| b.no_grad()).collect();
        net.tip = net.tip.no_grad();
        self.net = TrainNet { net, aux };
    }

    /// From now on only the value head learns (value, score and ownership
    /// outputs): the stem, the trunk, the policy head and the auxiliary
    /// head keep their weights exactly, so a playing net keeps its policy
    /// move for move. The frozen part also drops out of the backward
    /// pass. Undone by nothing: a resumed run freezes again from its
    /// checkpoint's record.
    pub fn learn_value_head_only(&mut self) {
        self.learn_heads_only();
        let TrainNet { mut net, aux } = self.net.clone();
        net.policy = net.policy.no_grad();
        self.net = TrainNet {
            net,
            aux: aux.no_grad(),
        };
    }

    /// Applies a run's choice of what learns: `kept` is the checkpoint's
    /// (a resumed run keeps it, with a note when `asked` differs), `None`
    /// for a new run. Returns the choice in force.
    pub fn learn_for_run(&mut self, kept: Option<Learn>, asked: Learn) -> Learn {
        let on = kept.unwrap_or(asked);
        if on != asked {
            eprintln!(
                "note: {} differs from the checkpoint's; the checkpoint's ({}) is kept",
                asked.flag(),
                on.flag()
            );
        }
        match on {
            Learn::All => {}
            Learn::Heads => {
                self.learn_heads_only();
                eprintln!("only the heads learn: stem and trunk are frozen");
            }
            Learn::ValueHead => {
                self.learn_value_head_only();
                eprintln!("only the value head learns: stem, trunk and policy head are frozen");
            }
        }
        on
    }

    /// The (plain) device it trains on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// One optimizer step on `batch`.
    pub fn step(&mut self, batch: &data::Batch, lr: f32) -> LossReport {
        let ad = self.device.clone().autodiff();
        let (x, g) = loss::inputs(batch, v7::SPATIAL, &ad);
        let out = self.net.forward(x, g);
        let (total, report) = loss::compute(out, batch, &ad);
        let grads = GradientsParams::from_grads(total.backward(), &self.net);
        self.net = self.optim.step(lr as f64, self.net.clone(), grads);
        self.step += 1;
        report
    }

    /// Mean losses over `batches` without training (no autodiff).
    pub fn evaluate(&self, batches: &[data::Batch]) -> Option<LossReport> {
        if batches.is_empty() {
            return None;
        }
        let net = self.net.valid();
        let mut sum = LossReport::default();
        for b in batches {
            let (x, g) = loss::inputs(b, v7::SPATIAL, &self.device);
            let (_, r) = loss::compute(net.forward(x, g), b, &self.device);
            sum.add(&r);
        }
        sum.scale(1.0 / batches.len() as f32);
        Some(sum)
    }

    /// Writes a checkpoint into `out` (see the module docs); `state` is
    /// [`TrainState`] or another record with a `step` field.
    pub fn save<S: serde::Serialize>(&self, out: &Path, state: &S) -> Result<(), String> {
        let name = format!("ckpt-{:010}", self.step);
        let dir = out.join(&name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        self.net
            .save(&dir.join("net.safetensors"))
            .map_err(|e| e.to_string())?;
        self.optim
            .save(dir.join("optim.bpk"))
            .map_err(|e| format!("saving optimizer state: {e:?}"))?;
        let json = serde_json::to_vec_pretty(state).map_err(|e| e.to_string())?;
        write_atomic(&dir.join("state.json"), &json).map_err(|e| e.to_string())?;
        write_atomic(&out.join("LATEST"), name.as_bytes()).map_err(|e| e.to_string())?;
        // Older checkpoints go once the new one is in place.
        if let Ok(rd) = std::fs::read_dir(out) {
            for e in rd.flatten() {
                let f = e.file_name();
                let f = f.to_string_lossy();
                if f.starts_with("ckpt-") && f != name.as_str() {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        Ok(())
    }

    /// Loads the newest checkpoint in `out`, if any.
    pub fn load(out: &Path, device: &Device) -> Result<Option<(Trainer, TrainState)>, String> {
        Trainer::load_as(out, device)
    }

    /// [`Trainer::load`] with any state record that has a `step` field.
    pub fn load_as<S: serde::de::DeserializeOwned>(
        out: &Path,
        device: &Device,
    ) -> Result<Option<(Trainer, S)>, String> {
        let latest = match std::fs::read_to_string(out.join("LATEST")) {
            Ok(s) => s.trim().to_string(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("{}: {e}", out.join("LATEST").display())),
        };
        let dir = out.join(&latest);
        let path = dir.join("state.json");
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let state: S =
            serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let step = serde_json::from_slice::<serde_json::Value>(&bytes)
            .ok()
            .and_then(|v| v.get("step")?.as_u64())
            .ok_or_else(|| format!("{}: no step", path.display()))?;
        let net =
            TrainNet::read(&dir.join("net.safetensors"), device).map_err(|e| e.to_string())?;
        let mut t = Trainer::new(net, device);
        t.optim = t
            .optim
            .load(dir.join("optim.bpk"))
            .map_err(|e| format!("{}: {e:?}", dir.join("optim.bpk").display()))?;
        t.step = step;
        Ok(Some((t, state)))
    }
}

/// Splits the window: shards whose name hashes to 0 mod 10 are held out
/// for validation (only with at least 2 shards, keeping one to train on).
pub fn split_window(shards: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    if shards.len() < 2 {
        return (shards.to_vec(), Vec::new());
    }
    let (mut train, mut val): (Vec<PathBuf>, Vec<PathBuf>) =
        shards.iter().cloned().partition(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            let h = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
            });
            h % 10 != 0
        });
    if train.is_empty() {
        train.push(val.remove(0));
    }
    (train, val)
}

/// Appends one checkpoint's numbers to `OUT/metrics.csv`: step, learning
/// rate, mean training losses since the previous checkpoint, validation
/// losses (empty without validation data) and seconds since this run
/// started.
fn metrics_row(
    out: &Path,
    step: u64,
    cfg: &TrainConfig,
    train: &LossReport,
    val: Option<&LossReport>,
    elapsed: std::time::Duration,
) -> Result<(), String> {
    let l = train;
    let mut line = format!(
        "{step},{},{:.5},{:.5},{:.5},{:.5},{:.5},{:.5},",
        cfg.lr_at(step),
        l.total,
        l.policy,
        l.opp,
        l.value,
        l.score,
        l.ownership
    );
    match val {
        Some(v) => line.push_str(&format!(
            "{:.5},{:.5},{:.5},{:.5},",
            v.total, v.policy, v.value, v.score
        )),
        None => line.push_str(",,,,"),
    }
    line.push_str(&format!("{:.1}", elapsed.as_secs_f64()));
    crate::util::append_csv_row(
        &out.join("metrics.csv"),
        "step,lr,loss,policy,opp,value,score,ownership,val_loss,val_policy,val_value,val_score,secs",
        &line,
    )
}

/// Runs training (see the module docs): resumes from `out` when it has a
/// checkpoint, else starts from `init`.
pub fn run(
    cfg: &TrainConfig,
    data_dir: &Path,
    val_dir: Option<&Path>,
    out: &Path,
    init: &Init,
    device: &Device,
    bar: &ProgressBar,
) -> Result<TrainSummary, String> {
    let lr_ok = |lr: f32| lr.is_finite() && lr > 0.0;
    if cfg.batch == 0
        || !lr_ok(cfg.lr)
        || !cfg.lr_end.is_none_or(lr_ok)
        || cfg.checkpoint_every == 0
    {
        return Err("batch and checkpoint interval must be >= 1 and lr > 0".into());
    }
    let weight_ok = |w: f32| w.is_finite() && (0.0..=100.0).contains(&w);
    if !weight_ok(cfg.score_weight) || !weight_ok(cfg.ownership_weight) {
        return Err("--score-weight and --ownership-weight must be in [0, 100]".into());
    }
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let resumed = Trainer::load(out, device)?;
    let (mut trainer, old_state) = match resumed {
        Some((t, s)) => (t, Some(s)),
        None => {
            let net = match init {
                Init::Fresh(c) => TrainNet::random(c, cfg.seed, device),
                Init::Model(p) => TrainNet::from_model(p, cfg.seed, device),
            }
            .map_err(|e| e.to_string())?;
            (Trainer::new(net, device), None)
        }
    };
    let learn = trainer.learn_for_run(old_state.as_ref().map(|s| s.config.learn()), cfg.learn());
    // The window: kept from the checkpoint when continuing toward the
    // same target (exact resume), else chosen afresh.
    let (train_shards, val_shards) = match &old_state {
        Some(s) if s.target == cfg.steps && s.train_shards.iter().all(|p| p.exists()) => {
            (s.train_shards.clone(), s.val_shards.clone())
        }
        _ => {
            let mut all = shard::list(data_dir).map_err(|e| e.to_string())?;
            if cfg.window > 0 && all.len() > cfg.window {
                all.drain(..all.len() - cfg.window);
            }
            match val_dir {
                Some(v) => (all, shard::list(v).map_err(|e| e.to_string())?),
                None => split_window(&all),
            }
        }
    };
    let mut train_data = Dataset::load(&train_shards)?;
    if train_data.is_empty() {
        return Err(format!("no training samples in {}", data_dir.display()));
    }
    let mut val_data = Dataset::load(&val_shards)?;
    // A resumed run keeps its checkpoint's cleaning, like its shards.
    let opening_pass_stones = old_state
        .as_ref()
        .map_or(cfg.opening_pass_stones, |s| s.config.opening_pass_stones);
    if opening_pass_stones > 0 {
        let (t, v) = (
            train_data.drop_opening_passes(opening_pass_stones),
            val_data.drop_opening_passes(opening_pass_stones),
        );
        eprintln!(
            "policy targets with fewer than {opening_pass_stones} stones on the board: \
             the pass's share dropped in {} training and {} validation samples",
            t.changed, v.changed
        );
    }
    if cfg.opening_share > 0.0 {
        train_data.set_opening_share(cfg.opening_share);
        eprintln!(
            "{:.0}% of each batch from the {} opening positions (at most {} stones)",
            100.0 * cfg.opening_share,
            train_data.openings(),
            data::OPENING_STONES
        );
    }
    if cfg.pool_first_margins {
        let n = train_data.pool_first_margins();
        eprintln!("{n} games' first positions learn their mean margin");
    }
    let mut state = TrainState {
        step: trainer.step,
        target: cfg.steps,
        train_shards,
        val_shards,
        config: TrainConfig {
            value_head_only: learn == Learn::ValueHead,
            heads_only: learn == Learn::Heads,
            opening_pass_stones,
            ..cfg.clone()
        },
        last_loss: None,
    };
    let start_step = trainer.step;
    let start = std::time::Instant::now();
    bar.set_length(cfg.steps);
    bar.set_position(trainer.step);
    let mut sum = LossReport::default();
    let mut count = 0u32;
    let mut last = None;
    while trainer.step < cfg.steps {
        let mut rng = StdRng::seed_from_u64(derive_seed(cfg.seed, 3, trainer.step));
        let Some(mut batch) = train_data.random_batch(
            cfg.batch,
            cfg.augment,
            cfg.komi_shift,
            cfg.rules_mix,
            &mut rng,
        ) else {
            break;
        };
        batch.scale_aux(cfg.score_weight, cfg.ownership_weight);
        let r = trainer.step(&batch, cfg.lr_at(trainer.step));
        if !r.total.is_finite() {
            return Err(format!(
                "loss is not finite at step {}; lower the learning rate",
                trainer.step
            ));
        }
        sum.add(&r);
        count += 1;
        bar.inc(1);
        bar.set_message(format!("loss {:.3}", r.total));
        if trainer.step % cfg.checkpoint_every == 0 || trainer.step == cfg.steps {
            let mut mean = sum;
            mean.scale(1.0 / count.max(1) as f32);
            state.step = trainer.step;
            state.last_loss = Some(mean);
            last = Some(mean);
            trainer.save(out, &state)?;
            let val = if cfg.val_batches > 0 && !val_data.is_empty() {
                trainer.evaluate(&val_data.sequential_batches(cfg.batch, cfg.val_batches))
            } else {
                None
            };
            metrics_row(out, trainer.step, cfg, &mean, val.as_ref(), start.elapsed())?;
            sum = LossReport::default();
            count = 0;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let steps_run = trainer.step - start_step;
    let val_loss = if cfg.val_batches > 0 {
        trainer.evaluate(&val_data.sequential_batches(cfg.batch, cfg.val_batches))
    } else {
        None
    };
    trainer
        .net
        .export(&out.join("model.safetensors"))
        .map_err(|e| e.to_string())?;
    Ok(TrainSummary {
        step: trainer.step,
        steps_run,
        samples: train_data.len(),
        train_loss: last.or(old_state.and_then(|s| s.last_loss)),
        val_loss,
        samples_per_sec: if secs > 0.0 {
            (steps_run as f64 * cfg.batch as f64) / secs
        } else {
            0.0
        },
    })
}
