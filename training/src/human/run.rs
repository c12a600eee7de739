//! The supervised run on human collections: stream → Adam steps →
//! checkpoints (weights, optimizer, step, stream position) every few
//! minutes → validation → `metrics.csv`, with a progress line on stderr.
//!
//! A checkpoint stores the stream settings and the position of the next
//! batch ([`HumanState`]); a run started again in the same folder resumes
//! from it with those stream settings (the command line's `--steps`,
//! learning rate and checkpoint interval apply), and sees exactly the
//! batches it would have seen without the stop.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use burn::tensor::Device;

use super::eval::{self, ValReport};
use super::record::Options;
use super::stream::{self, Stream, StreamConfig, StreamPos, StreamStats};
use crate::model::TrainNet;
use crate::train::data::{KomiShift, RulesMix};
use crate::train::loss::LossReport;
use crate::train::{Init, Learn, Trainer};

/// Run settings.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct HumanConfig {
    /// Folder of `*-train-*.sgfs.gz` and `*-val*.sgfs.gz`.
    pub data: PathBuf,
    pub size: usize,
    pub options: Options,
    pub window_games: usize,
    pub batch: usize,
    pub lr: f32,
    /// Linear decay from `lr` at step 0 to this at `steps`.
    pub lr_end: Option<f32>,
    /// Train until this many steps in total.
    pub steps: u64,
    /// Checkpoint (and validate) after this much training time...
    pub checkpoint_minutes: f64,
    /// ...or every this many steps (0: by time only).
    pub checkpoint_every: u64,
    /// Val subset: games (spread over the val files) and 1/`val_every` of
    /// their positions; 0 games: no validation.
    pub val_games: usize,
    pub val_every: usize,
    pub seed: u64,
    pub augment: bool,
    /// Komi augmentation of counted games (`None`: off; configs written
    /// before it had none).
    #[serde(default)]
    pub komi_shift: Option<KomiShift>,
    /// Rules augmentation (`None`: off).
    #[serde(default)]
    pub rules_mix: Option<RulesMix>,
    /// Multiplies the score loss's weight (1: the loss's own), like the
    /// learning rates a setting of this process, not of the checkpoint.
    #[serde(default = "one")]
    pub score_weight: f32,
    /// Which of `options.keep`, `komi_shift` and `rules_mix` replace the checkpoint's
    /// on resume (the command line gave them).
    #[serde(default)]
    pub resume: ResumeOverrides,
    /// Batches queued ahead of the trainer.
    pub queue: usize,
    /// Seconds between progress lines on stderr (0: none).
    pub progress_secs: f64,
    /// Ownership labels for a new run ([`super::labels`]); a resumed run
    /// keeps its checkpoint's.
    #[serde(default)]
    pub ownership_labels: Option<PathBuf>,
    /// Stop (with a checkpoint) after this many steps in this process,
    /// as if killed after a checkpoint: for measurements and tests.
    #[serde(default)]
    pub stop_after: Option<u64>,
    /// Only the value head learns ([`Trainer::learn_value_head_only`]);
    /// a new run only, a resumed run keeps its checkpoint's.
    #[serde(default)]
    pub value_head_only: bool,
}

fn one() -> f32 {
    1.0
}

impl HumanConfig {
    pub fn lr_at(&self, step: u64) -> f32 {
        match self.lr_end {
            Some(end) if self.steps > 0 => {
                let f = (step as f32 / self.steps as f32).clamp(0.0, 1.0);
                self.lr + (end - self.lr) * f
            }
            _ => self.lr,
        }
    }

    fn check(&self) -> Result<(), String> {
        let ok = |x: f32| x.is_finite() && x > 0.0;
        if self.batch == 0 || !ok(self.lr) || !self.lr_end.is_none_or(ok) {
            return Err("need --batch >= 1 and learning rates > 0".into());
        }
        if !(0.0..=100.0).contains(&self.score_weight) {
            return Err("--score-weight must be in [0, 100]".into());
        }
        if !(self.options.keep > 0.0 && self.options.keep <= 1.0) {
            return Err("--keep must be in (0, 1]".into());
        }
        let minutes = self.checkpoint_minutes;
        if self.checkpoint_every == 0 && (minutes.is_nan() || minutes <= 0.0) {
            return Err("need a checkpoint interval (minutes or steps)".into());
        }
        Ok(())
    }
}

/// What a checkpoint records besides weights and optimizer.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct HumanState {
    pub step: u64,
    /// The next batch to train on.
    pub next: StreamPos,
    pub stream: StreamConfig,
    /// Training positions used so far, over all runs.
    pub samples: u64,
    /// Seconds spent training (all runs; validation excluded).
    pub train_secs: f64,
    /// The builder's counts when the last batch was made (this process).
    pub stats: StreamStats,
    pub last_loss: Option<LossReport>,
    pub last_val: Option<ValReport>,
    /// Only the value head learns (checkpoints written before had all).
    #[serde(default)]
    pub value_head_only: bool,
}

/// The result of [`run`].
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct HumanSummary {
    pub step: u64,
    pub steps_run: u64,
    pub samples_per_sec: f64,
    /// Share of the loop's time the trainer waited for data (after the
    /// first batch, which waits for the stream to start).
    pub wait_fraction: f64,
    /// Training FLOPs per position: 3 × the forward pass's (forward,
    /// input gradients, weight gradients; convolutions at direct FLOPs).
    pub flops_per_sample: u64,
    /// `samples_per_sec × flops_per_sample`, in GFLOP/s.
    pub gflops: f64,
    pub val: Option<ValReport>,
    pub stats: StreamStats,
}

const HEADER: &str = "step,samples,lr,loss,policy,opp,value,score,val_loss,val_policy,val_value,\
val_score,val_top1,val_top5,val_policy_ll,val_value_acc,val_acc_0_50,val_acc_50_150,val_acc_150,\
val_ece,samples_per_s,gflops,wait,train_secs,games_read,skipped";

fn metrics_row(
    out: &Path,
    st: &HumanState,
    lr: f32,
    mean: &LossReport,
    val: Option<&ValReport>,
    [sps, gflops, wait]: [f64; 3],
) -> Result<(), String> {
    let mut line = format!(
        "{},{},{lr:e},{:.5},{:.5},{:.5},{:.5},{:.5},",
        st.step, st.samples, mean.total, mean.policy, mean.opp, mean.value, mean.score
    );
    match val {
        Some(v) => line.push_str(&format!(
            "{:.5},{:.5},{:.5},{:.5},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},",
            v.loss.total,
            v.loss.policy,
            v.loss.value,
            v.loss.score,
            v.top1,
            v.top5,
            v.policy_ll,
            v.value_acc,
            v.value_acc_phase[0],
            v.value_acc_phase[1],
            v.value_acc_phase[2],
            v.value_ece
        )),
        None => line.push_str(",,,,,,,,,,,,"),
    }
    line.push_str(&format!(
        "{sps:.2},{gflops:.2},{wait:.3},{:.0},{},{}",
        st.train_secs,
        st.stats.games,
        st.stats.skipped_total()
    ));
    crate::util::append_csv_row(&out.join("metrics.csv"), HEADER, &line)
}

/// On resume the stream's positions come from the checkpoint (files, size,
/// window, batch, ranks, seed: exact resume), and a command line that asks
/// for other values is told so. Two settings follow the command line when
/// it gives them:
/// - komi augmentation: it changes only counted samples' komi, score and
///   outcome, after their symmetry is drawn, so the positions stay the
///   same;
/// - `--keep`, the share of each game's positions used: the windows hold
///   the same games whatever it is, so the run moves on to the start of
///   the next window (the rest of the current one is skipped) and keeps
///   the new share from there.
fn resume_settings(state: &mut HumanState, cfg: &HumanConfig) {
    let stream = &mut state.stream;
    if cfg.resume.keep && stream.options.keep != cfg.options.keep {
        let next = StreamPos {
            epoch: state.next.epoch,
            window: state.next.window + 1,
            batch: 0,
        };
        eprintln!(
            "keep: {} of each game's positions from the command line (the checkpoint had {}); \
             moving on from epoch {} window {} batch {} to the start of window {}",
            cfg.options.keep,
            stream.options.keep,
            state.next.epoch,
            state.next.window,
            state.next.batch,
            next.window
        );
        stream.options.keep = cfg.options.keep;
        state.next = next;
    }
    if cfg.resume.komi_shift && stream.komi_shift != cfg.komi_shift {
        let show = |k: Option<KomiShift>| {
            k.map_or("off".to_string(), |k| {
                format!(
                    "{} {} {} points, uncounted {}, jitter {}",
                    k.prob,
                    if k.absolute { "within" } else { "up to" },
                    k.max,
                    k.uncounted,
                    k.jitter
                )
            })
        };
        eprintln!(
            "komi shift: {} from the command line (the checkpoint had {})",
            show(cfg.komi_shift),
            show(stream.komi_shift)
        );
        stream.komi_shift = cfg.komi_shift;
    }
    if cfg.resume.rules_mix && stream.rules_mix != cfg.rules_mix {
        let show = |r: Option<RulesMix>| r.map_or("off".to_string(), |r| r.prob.to_string());
        eprintln!(
            "rules mix: {} from the command line (the checkpoint had {})",
            show(cfg.rules_mix),
            show(stream.rules_mix)
        );
        stream.rules_mix = cfg.rules_mix;
    }
    let kept = [
        ("--size", stream.size != cfg.size),
        ("--window-games", stream.window_games != cfg.window_games),
        ("--batch", stream.batch != cfg.batch),
        ("--seed", stream.seed != cfg.seed),
        ("--no-augment", stream.augment != cfg.augment),
        (
            "--min-rank",
            stream.options.min_rank != cfg.options.min_rank,
        ),
    ];
    for (flag, differs) in kept {
        if differs {
            eprintln!(
                "note: {flag} differs from the checkpoint's; the checkpoint's value is kept \
                 (a resumed run sees the batches it would have seen)"
            );
        }
    }
}

/// Settings of a resumed run that the command line may change (see
/// [`resume_settings`]); the others always come from the checkpoint.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ResumeOverrides {
    pub keep: bool,
    pub komi_shift: bool,
    #[serde(default)]
    pub rules_mix: bool,
}

/// Runs (or resumes) training in `out`; see the module docs.
pub fn run(
    cfg: &HumanConfig,
    out: &Path,
    init: &Init,
    device: &Device,
) -> Result<HumanSummary, String> {
    cfg.check()?;
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let (mut trainer, mut state) = match Trainer::load_as::<HumanState>(out, device)? {
        Some((t, mut s)) => {
            resume_settings(&mut s, cfg);
            eprintln!(
                "resuming {} at step {} (epoch {} window {} batch {})",
                out.display(),
                s.step,
                s.next.epoch,
                s.next.window,
                s.next.batch
            );
            (t, s)
        }
        None => {
            let net = match init {
                Init::Fresh(c) => TrainNet::random(c, cfg.seed, device),
                Init::Model(p) => TrainNet::from_model(p, cfg.seed, device),
            }
            .map_err(|e| e.to_string())?;
            let stream = StreamConfig {
                files: stream::collection_files(&cfg.data, "-train-")?,
                size: cfg.size,
                options: cfg.options.clone(),
                window_games: cfg.window_games,
                batch: cfg.batch,
                augment: cfg.augment,
                komi_shift: cfg.komi_shift,
                rules_mix: cfg.rules_mix,
                seed: cfg.seed,
                queue: cfg.queue,
                ownership_labels: cfg.ownership_labels.clone(),
            };
            let state = HumanState {
                step: 0,
                next: StreamPos::default(),
                stream,
                samples: 0,
                train_secs: 0.0,
                stats: StreamStats::default(),
                last_loss: None,
                last_val: None,
                value_head_only: cfg.value_head_only,
            };
            (Trainer::new(net, device), state)
        }
    };
    // A new run's state already holds the flag given.
    trainer.learn_for_run(
        Some(Learn::from_flags(state.value_head_only, false)),
        Learn::from_flags(cfg.value_head_only, false),
    );
    if let Some(f) = state.stream.files.iter().find(|f| !f.exists()) {
        return Err(format!(
            "{} (named by the checkpoint) is missing: run from the folder the run started in",
            f.display()
        ));
    }
    let val_files = stream::collection_files(&cfg.data, "-val").unwrap_or_default();
    let labels = state
        .stream
        .ownership_labels
        .as_deref()
        .map(super::labels::Labels::load)
        .transpose()?;
    let val = eval::load_val(
        &val_files,
        cfg.val_games,
        cfg.val_every,
        state.stream.size,
        &state.stream.options,
        labels.as_ref(),
    )?;
    eprintln!(
        "val: {} positions from {} games ({} skipped)",
        val.len(),
        val.stats.games,
        val.stats.skipped_total()
    );
    let flops = 3 * trainer.net.net.config().flops(state.stream.size);
    let mut data = Stream::start(&state.stream, state.next);
    let start_step = trainer.step;
    let (mut sum, mut count) = (LossReport::default(), 0u32);
    let (mut waited, mut trained) = (Duration::ZERO, Duration::ZERO);
    let mut since_ckpt = Duration::ZERO;
    let mut samples_run = 0u64;
    let mut last_progress = Instant::now();
    let mut last_val = None;
    let end = cfg
        .stop_after
        .map_or(cfg.steps, |k| cfg.steps.min(start_step + k));
    while trainer.step < end {
        let t0 = Instant::now();
        let mut sb = data.next_batch()?;
        let t1 = Instant::now();
        sb.batch.scale_aux(cfg.score_weight, 1.0);
        let r = trainer.step(&sb.batch, cfg.lr_at(trainer.step));
        let dt = t1.elapsed();
        // The first batch waits for the stream to start (counting the
        // files, building the first window): startup, not throughput.
        let wait_now = if trainer.step == start_step + 1 {
            Duration::ZERO
        } else {
            t1 - t0
        };
        waited += wait_now;
        trained += dt + wait_now;
        since_ckpt += dt + wait_now;
        if !r.total.is_finite() {
            return Err(format!(
                "loss is not finite at step {}; lower the learning rate",
                trainer.step
            ));
        }
        sum.add(&r);
        count += 1;
        samples_run += sb.batch.rows as u64;
        state.samples += sb.batch.rows as u64;
        state.train_secs += (dt + wait_now).as_secs_f64();
        state.next = stream::after(sb.pos);
        state.stats = sb.stats;
        state.step = trainer.step;
        let sps = samples_run as f64 / trained.as_secs_f64().max(1e-9);
        let wait = waited.as_secs_f64() / trained.as_secs_f64().max(1e-9);
        if cfg.progress_secs > 0.0 && last_progress.elapsed().as_secs_f64() >= cfg.progress_secs {
            last_progress = Instant::now();
            let mut m = sum;
            m.scale(1.0 / count.max(1) as f32);
            eprintln!(
                "step {}/{} | loss {:.3} (policy {:.3} value {:.3} score {:.3}) | {:.1} samples/s \
                 ({:.1} GFLOP/s), waited {:.1}% | epoch {} window {} | {} games read, {} skipped",
                trainer.step,
                cfg.steps,
                m.total,
                m.policy,
                m.value,
                m.score,
                sps,
                sps * flops as f64 / 1e9,
                100.0 * wait,
                sb.pos.epoch,
                sb.pos.window,
                state.stats.games,
                state.stats.skipped_total()
            );
        }
        let by_steps =
            cfg.checkpoint_every > 0 && trainer.step.is_multiple_of(cfg.checkpoint_every);
        let by_time = cfg.checkpoint_minutes > 0.0
            && since_ckpt.as_secs_f64() >= cfg.checkpoint_minutes * 60.0;
        if by_steps || by_time || trainer.step >= end {
            since_ckpt = Duration::ZERO;
            let mut mean = sum;
            mean.scale(1.0 / count.max(1) as f32);
            state.last_loss = Some(mean);
            let v = eval::evaluate(&trainer, &val, cfg.batch);
            state.last_val = v.clone();
            trainer.save(out, &state)?;
            trainer
                .net
                .export(&out.join("model.safetensors"))
                .map_err(|e| e.to_string())?;
            metrics_row(
                out,
                &state,
                cfg.lr_at(trainer.step),
                &mean,
                v.as_ref(),
                [sps, sps * flops as f64 / 1e9, wait],
            )?;
            if let Some(v) = &v {
                eprintln!("checkpoint at step {}: val {}", trainer.step, v.summary());
                v.print_by_file();
            }
            last_val = v;
            sum = LossReport::default();
            count = 0;
        }
    }
    let secs = trained.as_secs_f64();
    let sps = if secs > 0.0 {
        samples_run as f64 / secs
    } else {
        0.0
    };
    Ok(HumanSummary {
        step: trainer.step,
        steps_run: trainer.step - start_step,
        samples_per_sec: sps,
        flops_per_sample: flops,
        gflops: sps * flops as f64 / 1e9,
        wait_fraction: if secs > 0.0 {
            waited.as_secs_f64() / secs
        } else {
            0.0
        },
        val: last_val.or(state.last_val),
        stats: state.stats,
    })
}
