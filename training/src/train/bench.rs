//! Training speed on synthetic batches (`tengen-train bench-train`): the
//! optimizer steps of the real trainer on made-up positions, timed, for
//! each board size, with the training step's 3×3 convolutions on the fast
//! path's kernels (`tengen::net::conv_ext`) and on burn's own, side by
//! side, as samples/s and the share of the machine's fp32 peak.

use std::time::Instant;

use burn::tensor::Device;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tengen::features::v7;
use tengen::net::NetConfig;
use tengen::rules::Symmetry;

use super::data::Batch;
use super::Trainer;
use crate::model::TrainNet;
use crate::shard::{Sample, HAS_OWNERSHIP, HAS_POLICY, HAS_SCORE, HAS_VALUE};

/// One measured configuration.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchRow {
    pub size: usize,
    pub batch: usize,
    /// "fast" (the extension) or "burn".
    pub conv: &'static str,
    pub steps: usize,
    pub samples_per_sec: f64,
    /// 3 × the forward pass's FLOPs per sample (forward, and the two
    /// gradients of every product), per second.
    pub gflops: f64,
    /// `gflops` over the FMA peak of the threads the step runs on.
    pub peak_share: f64,
}

/// A position with random stones and every target set: the step's cost
/// does not depend on the values.
pub fn synthetic_sample(size: usize, rng: &mut StdRng) -> Sample {
    let n = size * size;
    let mut spatial = vec![0.0; v7::SPATIAL * n];
    spatial[..n].fill(1.0); // on the board
    for p in 0..n {
        match rng.random_range(0..3) {
            1 => spatial[n + p] = 1.0,
            2 => spatial[2 * n + p] = 1.0,
            _ => {}
        }
    }
    let mut global = vec![0.0; v7::GLOBAL];
    v7::set_komi(&mut global, 7.0, size);
    let mut policy = vec![0.0; n + 1];
    policy[rng.random_range(0..=n)] = 1.0;
    let outcome = if rng.random_bool(0.5) { 1 } else { -1 };
    Sample {
        size,
        flags: HAS_POLICY | HAS_VALUE | HAS_SCORE | HAS_OWNERSHIP,
        spatial,
        global,
        policy,
        opp_move: rng.random_range(0..=n) as u16,
        outcome,
        score: outcome as f32 * rng.random_range(0.5..20.0),
        ownership: (0..n).map(|_| rng.random_range(-1..=1)).collect(),
    }
}

/// The convolution routes [`run`] can time: the fast path's kernels
/// (`conv_ext`) and burn's own.
pub const ROUTES: [(&str, bool); 2] = [("fast", true), ("burn", false)];

/// Times `steps` optimizer steps (after two untimed ones) of a random net
/// of `config` at batch `batch` on each of `sizes`, on each of `routes`
/// (from [`ROUTES`]) in turn; `peak` is the FMA peak in GFLOP/s of the
/// threads the step uses.
pub fn run(
    config: &NetConfig,
    sizes: &[usize],
    routes: &[(&'static str, bool)],
    batch: usize,
    steps: usize,
    peak: f64,
    device: &Device,
) -> Result<Vec<BenchRow>, String> {
    /// Puts the thread's convolution route back however `run` ends.
    struct Restore(Option<bool>);
    impl Drop for Restore {
        fn drop(&mut self) {
            tengen::net::conv_ext::set_enabled(self.0);
        }
    }
    let _restore = Restore(tengen::net::conv_ext::set_enabled(None));
    let mut rows = Vec::new();
    for &size in sizes {
        let mut rng = StdRng::seed_from_u64(size as u64);
        let samples: Vec<Sample> = (0..batch)
            .map(|_| synthetic_sample(size, &mut rng))
            .collect();
        let picks: Vec<_> = samples.iter().map(|s| (s, Symmetry::IDENTITY)).collect();
        let b = Batch::new(size, &picks);
        let flops = 3 * config.flops(size);
        for &(conv, on) in routes {
            tengen::net::conv_ext::set_enabled(Some(on));
            let net = TrainNet::random(config, 1, device).map_err(|e| e.to_string())?;
            let mut t = Trainer::new(net, device);
            for _ in 0..2 {
                t.step(&b, 1e-4);
            }
            let start = Instant::now();
            for _ in 0..steps {
                t.step(&b, 1e-4);
            }
            let secs = start.elapsed().as_secs_f64().max(1e-9);
            let sps = (steps * batch) as f64 / secs;
            let gflops = sps * flops as f64 / 1e9;
            rows.push(BenchRow {
                size,
                batch,
                conv,
                steps,
                samples_per_sec: sps,
                gflops,
                peak_share: gflops / peak.max(1e-9),
            });
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_convolution_routes_train_and_report_a_speed() {
        let rows = run(
            &NetConfig::small(1, 16),
            &[5],
            &ROUTES,
            2,
            1,
            100.0,
            &Device::flex(),
        )
        .unwrap();
        let convs: Vec<_> = rows.iter().map(|r| r.conv).collect();
        assert_eq!(convs, ["fast", "burn"]);
        for r in &rows {
            assert_eq!((r.size, r.batch, r.steps), (5, 2, 1));
            assert!(r.samples_per_sec > 0.0 && r.samples_per_sec.is_finite());
            assert!((r.peak_share - r.gflops / 100.0).abs() < 1e-9);
        }
    }

    #[test]
    fn a_synthetic_sample_passes_the_shard_checks() {
        let mut rng = StdRng::seed_from_u64(3);
        for size in [2, 9, 19] {
            synthetic_sample(size, &mut rng).check().unwrap();
        }
    }
}
