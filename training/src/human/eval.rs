//! Validation on a fixed subset of the val collections: move prediction
//! (top-1, top-5, log-likelihood of the move played) and value accuracy
//! (winner predicted) by game phase, with the calibration of the win
//! probability.
//!
//! The subset: from each val file, `games / files` games evenly spaced
//! through the file; from each, every position with probability
//! `1 / every`, drawn by a generator seeded by the game's place in the
//! file. The same settings give the same positions in every run.

use std::path::PathBuf;

use burn::module::Module;
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Tensor, TensorData};
use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::StdRng;
use rand::SeedableRng;
use tengen::net::device::Backend;
use tengen::net::fast::FastNet;
use tengen::net::Net;
use tengen::rules::Symmetry;
use tengen::sgf::GameRecord;

use super::labels::Labels;
use super::packed::Packed;
use super::record::{game_samples, Options};
use super::stream::{count_games, StreamStats};
use crate::model::TrainNet;
use crate::shard::{HAS_POLICY, HAS_VALUE};
use crate::train::data::Batch;
use crate::train::loss::{self, LossReport};
use crate::train::Trainer;
use crate::util::derive_seed;

/// Game phases for value accuracy: moves played before the position.
pub const PHASES: [(u16, u16); 3] = [(0, 50), (50, 150), (150, u16::MAX)];

/// The val positions and the file each came from.
#[derive(Default)]
pub struct ValSet {
    pub samples: Vec<Packed>,
    /// Index into `files` per sample.
    pub file_of: Vec<usize>,
    /// File names (without folder).
    pub files: Vec<String>,
    pub stats: StreamStats,
}

impl ValSet {
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }
}

/// The val positions (see the module docs).
pub fn load_val(
    files: &[PathBuf],
    games: usize,
    every: usize,
    size: usize,
    opts: &Options,
    labels: Option<&Labels>,
) -> Result<ValSet, String> {
    let mut set = ValSet {
        files: files
            .iter()
            .map(|f| {
                f.file_name()
                    .map(|n| n.to_string_lossy().to_string())
                    .unwrap_or_default()
            })
            .collect(),
        ..ValSet::default()
    };
    if files.is_empty() || games == 0 {
        return Ok(set);
    }
    let per_file = games.div_ceil(files.len()) as u64;
    let opts = Options {
        keep: 1.0 / every.max(1) as f64,
        ..opts.clone()
    };
    for (fi, f) in files.iter().enumerate() {
        let count = count_games(f)?;
        let stride = (count / per_file.max(1)).max(1);
        let file = std::fs::File::open(f).map_err(|e| format!("{}: {e}", f.display()))?;
        let reader = std::io::BufReader::new(flate2::read::MultiGzDecoder::new(file));
        let mut taken = 0;
        for (i, line) in std::io::BufRead::split(reader, b'\n').enumerate() {
            let line = line.map_err(|e| format!("{}: {e}", f.display()))?;
            if !(i as u64).is_multiple_of(stride) || line.iter().all(|b| b.is_ascii_whitespace()) {
                continue;
            }
            if taken >= per_file {
                break;
            }
            taken += 1;
            set.stats.games += 1;
            let mut rng = StdRng::seed_from_u64(derive_seed(fi as u64, 31, i as u64));
            // Lines count from 1, as the stream and the labels file count.
            let own = labels.and_then(|l| l.get(&set.files[fi], i as u64 + 1));
            let got = GameRecord::from_bytes(&line)
                .map_err(|_| super::record::Skip::Parse)
                .and_then(|rec| game_samples(&rec, size, &opts, own, &mut rng));
            match got {
                Ok(s) => {
                    set.stats.samples += s.len() as u64;
                    set.file_of.extend(std::iter::repeat_n(fi, s.len()));
                    set.samples.extend(s);
                }
                Err(why) => *set.stats.skipped.entry(format!("{why:?}")).or_default() += 1,
            }
        }
    }
    Ok(set)
}

/// Validation numbers.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ValReport {
    pub positions: usize,
    pub loss: LossReport,
    /// Over positions with a policy target.
    pub top1: f64,
    pub top5: f64,
    /// Mean log-likelihood of the move played (nats; higher is better).
    pub policy_ll: f64,
    /// Winner predicted, over positions with a decisive value target.
    pub value_acc: f64,
    /// The same by [`PHASES`].
    pub value_acc_phase: [f64; 3],
    /// Expected calibration error of P(win) (10 equal bins).
    pub value_ece: f64,
    /// Top-1 by val file (name, top-1, positions with a policy target).
    pub top1_by_file: Vec<(String, f64, usize)>,
}

impl ValReport {
    /// One line: move prediction, then value accuracy by phase and ECE.
    pub fn summary(&self) -> String {
        format!(
            "top-1 {:.1}% top-5 {:.1}% ll {:.3} | value {:.1}% (by phase {:.1} / {:.1} / {:.1}%, \
             ECE {:.3})",
            100.0 * self.top1,
            100.0 * self.top5,
            self.policy_ll,
            100.0 * self.value_acc,
            100.0 * self.value_acc_phase[0],
            100.0 * self.value_acc_phase[1],
            100.0 * self.value_acc_phase[2],
            self.value_ece
        )
    }

    /// Prints top-1 by val file on stderr, a line each.
    pub fn print_by_file(&self) {
        for (name, top1, n) in &self.top1_by_file {
            eprintln!("  {name}: top-1 {:.1}% of {n}", 100.0 * top1);
        }
    }
}

/// The outputs validation reads from one batch: board and pass logits of
/// policy channel 0, value logits, and the loss terms when the net has
/// the training heads.
struct Scored {
    policy: Tensor<4>,
    pass: Tensor<2>,
    value: Tensor<2>,
    loss: Option<LossReport>,
}

/// Evaluates the val set in batches of `batch` (no symmetry) on the net
/// being trained, with its loss terms.
pub fn evaluate(trainer: &Trainer, val: &ValSet, batch: usize) -> Option<ValReport> {
    evaluate_bar(trainer, val, batch, None)
}

fn evaluate_bar(
    trainer: &Trainer,
    val: &ValSet,
    batch: usize,
    progress: Option<&ProgressBar>,
) -> Option<ValReport> {
    let net = trainer.net.valid();
    let device = trainer.device();
    score(val, batch, progress, |b| {
        let (x, g) = loss::inputs(b, tengen::features::v7::SPATIAL, device);
        let out = net.forward(x, g);
        let (policy, pass, value) = (out.policy.clone(), out.pass.clone(), out.value.clone());
        let (_, rep) = loss::compute(out, b, device);
        Scored {
            policy,
            pass,
            value,
            loss: Some(rep),
        }
    })
}

/// Evaluates the val set on any playing net (tengen's or KataGo's): move
/// prediction and value only, no loss terms. With `fast`, on the fast CPU
/// path ([`FastNet`], several times quicker than burn on KataGo's nets),
/// else through burn on `device`; `progress` counts positions.
pub fn evaluate_model(
    net: &Net,
    device: &Device,
    fast: bool,
    val: &ValSet,
    batch: usize,
    progress: Option<&ProgressBar>,
) -> Result<Option<ValReport>, String> {
    if !fast {
        return Ok(score(val, batch, progress, |b| {
            let (x, g) = loss::inputs(b, tengen::features::v7::SPATIAL, device);
            let h = net.forward_heads(x, g);
            Scored {
                policy: h.policy,
                pass: h.pass,
                value: h.value,
                loss: None,
            }
        }));
    }
    let packed = FastNet::new(net).map_err(|e| e.to_string())?;
    Ok(score(val, batch, progress, |b| {
        let o = packed.forward(&b.spatial, &b.global, b.rows, b.size);
        let (b, ch) = (o.batch, o.policy_channels);
        Scored {
            policy: Tensor::from_data(TensorData::new(o.policy, [b, ch, o.size, o.size]), device),
            pass: Tensor::from_data(TensorData::new(o.pass, [b, ch]), device),
            value: Tensor::from_data(TensorData::new(o.value, [b, 3]), device),
            loss: None,
        }
    }))
}

fn score(
    val: &ValSet,
    batch: usize,
    progress: Option<&ProgressBar>,
    mut run: impl FnMut(&Batch) -> Scored,
) -> Option<ValReport> {
    let samples = &val.samples[..];
    if samples.is_empty() {
        return None;
    }
    let mut by_file = vec![(0usize, 0usize); val.files.len()];
    let mut r = ValReport::default();
    let (mut pol_n, mut top1, mut top5, mut ll) = (0usize, 0usize, 0usize, 0f64);
    let mut phase = [(0usize, 0usize); 3];
    let mut bins = [(0usize, 0f64, 0usize); 10];
    let mut batches = 0usize;
    for (ci, chunk) in samples.chunks(batch.max(1)).enumerate() {
        let size = chunk[0].size as usize;
        let n = size * size;
        let full: Vec<_> = chunk.iter().map(Packed::unpack).collect();
        let rows: Vec<_> = full.iter().map(|s| (s, Symmetry::IDENTITY)).collect();
        let b = Batch::new(size, &rows);
        let out = run(&b);
        let rows_n = chunk.len();
        let pol = out
            .policy
            .slice([0..rows_n, 0..1, 0..size, 0..size])
            .reshape([rows_n, n]);
        let pass = out.pass.slice([0..rows_n, 0..1]);
        let logp: Tensor<2> = log_softmax(Tensor::cat(vec![pol, pass], 1), 1);
        let logp: Vec<f32> = logp.into_data().iter::<f32>().collect();
        let value: Vec<f32> = out.value.into_data().iter::<f32>().collect();
        if let Some(rep) = out.loss {
            r.loss.add(&rep);
        }
        batches += 1;
        if let Some(p) = progress {
            p.inc(rows_n as u64);
        }
        for (i, s) in chunk.iter().enumerate() {
            if s.flags & HAS_POLICY != 0 && (s.policy as usize) <= n {
                let row = &logp[i * (n + 1)..(i + 1) * (n + 1)];
                let t = row[s.policy as usize];
                let better = row.iter().filter(|&&v| v > t).count();
                pol_n += 1;
                top1 += usize::from(better == 0);
                if let Some(f) = val.file_of.get(ci * batch.max(1) + i) {
                    by_file[*f].0 += 1;
                    by_file[*f].1 += usize::from(better == 0);
                }
                top5 += usize::from(better < 5);
                ll += t as f64;
            }
            if s.flags & HAS_VALUE != 0 && s.outcome != 0 {
                let v = &value[i * 3..i * 3 + 3];
                let m = v[0].max(v[1]);
                let (w, l) = ((v[0] - m).exp(), (v[1] - m).exp());
                let p = (w / (w + l)) as f64;
                let won = s.outcome > 0;
                let ok = (p > 0.5) == won;
                let k = PHASES
                    .iter()
                    .position(|&(a, z)| s.move_number >= a && s.move_number < z)
                    .unwrap_or(2);
                phase[k].0 += 1;
                phase[k].1 += usize::from(ok);
                let bin = ((p * 10.0) as usize).min(9);
                bins[bin].0 += 1;
                bins[bin].1 += p;
                bins[bin].2 += usize::from(won);
            }
        }
    }
    r.positions = samples.len();
    r.loss.scale(1.0 / batches.max(1) as f32);
    let frac = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    r.top1 = frac(top1, pol_n);
    r.top5 = frac(top5, pol_n);
    r.policy_ll = if pol_n == 0 { 0.0 } else { ll / pol_n as f64 };
    let (vn, vok) = phase.iter().fold((0, 0), |(n, k), &(a, b)| (n + a, k + b));
    r.value_acc = frac(vok, vn);
    for (acc, &(n, ok)) in r.value_acc_phase.iter_mut().zip(&phase) {
        *acc = frac(ok, n);
    }
    r.top1_by_file = val
        .files
        .iter()
        .zip(&by_file)
        .map(|(name, &(n, k))| (name.clone(), frac(k, n), n))
        .collect();
    r.value_ece = bins
        .iter()
        .filter(|b| b.0 > 0)
        .map(|&(c, sp, w)| (sp / c as f64 - w as f64 / c as f64).abs() * c as f64)
        .sum::<f64>()
        / vn.max(1) as f64;
    Some(r)
}

/// Which positions [`evaluate_file`] reads.
pub struct EvalSpec<'a> {
    /// Folder of the collections.
    pub data: &'a std::path::Path,
    /// Collections whose file name contains this.
    pub split: &'a str,
    pub games: usize,
    pub every: usize,
    pub size: usize,
    pub batch: usize,
    /// Ownership labels ([`super::labels`]), so that the ownership loss is
    /// measured on the labelled games.
    pub labels: Option<&'a std::path::Path>,
}

/// Loads the net at `model` (tengen's or KataGo's format) and evaluates
/// it on the positions `spec` picks, printing a summary line on stderr.
pub fn evaluate_file(
    model: &std::path::Path,
    spec: &EvalSpec,
    opts: &Options,
    backend: &Backend,
) -> Result<ValReport, String> {
    let device = &backend.device;
    let net =
        tengen::net::load_any(model, device).map_err(|e| format!("{}: {e}", model.display()))?;
    let files = super::stream::collection_files(spec.data, spec.split)?;
    let labels = spec.labels.map(Labels::load).transpose()?;
    let val = load_val(
        &files,
        spec.games,
        spec.every,
        spec.size,
        opts,
        labels.as_ref(),
    )?;
    let t = std::time::Instant::now();
    let bar = ProgressBar::new(val.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("sl-eval {bar:30} {pos}/{len} positions {elapsed}, eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    // A tengen net on burn (`--device cpu-burn`) also gets its loss terms,
    // the ownership loss on the labelled games among them; the fast path
    // and KataGo's nets give move prediction and value only.
    let tengen_file = model.extension().is_some_and(|e| e == "safetensors");
    let r = if !backend.fast && tengen_file {
        drop(net);
        let train = TrainNet::from_model(model, 0, device)
            .map_err(|e| format!("{}: {e}", model.display()))?;
        Ok(evaluate_bar(
            &Trainer::new(train, device),
            &val,
            spec.batch,
            Some(&bar),
        ))
    } else {
        evaluate_model(&net, device, backend.fast, &val, spec.batch, Some(&bar))
    };
    bar.finish_and_clear();
    let r = r?.ok_or_else(|| format!("no positions in the {:?} collections", spec.split))?;
    eprintln!(
        "{}: {} positions from {} games ({} skipped) in {:.0} s: {}",
        model.display(),
        r.positions,
        val.stats.games,
        val.stats.skipped_total(),
        t.elapsed().as_secs_f64(),
        r.summary()
    );
    r.print_by_file();
    if !backend.fast && tengen_file {
        let l = &r.loss;
        eprintln!(
            "  loss terms: policy {:.4} value {:.4} score {:.4} ownership {:.4} (each a mean over \
             all positions; ownership only where labelled)",
            l.policy, l.value, l.score, l.ownership
        );
    }
    Ok(r)
}
