//! Training data in memory: samples from shards grouped by board size,
//! and batches drawn from them with random symmetries (augmentation).
//!
//! A batch holds one board size (the net runs at the board's own size).
//! Everything here is deterministic given the generator passed in.

use std::collections::BTreeMap;
use std::path::PathBuf;

use rand::rngs::StdRng;
use rand::Rng;
use tengen::features::v7;
use tengen::net::symmetry::{dense_map, to_net};
use tengen::rules::Symmetry;

use crate::shard::{self, Sample, HAS_OWNERSHIP, HAS_POLICY, HAS_SCORE, HAS_VALUE, NO_MOVE};

/// Samples, by board size.
#[derive(Default)]
pub struct Dataset {
    pub samples: Vec<Sample>,
    /// Board size → indices into `samples`.
    by_size: BTreeMap<usize, Vec<usize>>,
}

impl Dataset {
    /// Loads the shards in order.
    pub fn load(paths: &[PathBuf]) -> Result<Dataset, String> {
        let mut d = Dataset::default();
        for p in paths {
            for s in shard::read(p).map_err(|e| e.to_string())? {
                d.push(s);
            }
        }
        Ok(d)
    }

    pub fn from_samples(samples: Vec<Sample>) -> Dataset {
        let mut d = Dataset::default();
        samples.into_iter().for_each(|s| d.push(s));
        d
    }

    fn push(&mut self, s: Sample) {
        self.by_size
            .entry(s.size)
            .or_default()
            .push(self.samples.len());
        self.samples.push(s);
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// A random batch of `batch` samples of one board size (chosen in
    /// proportion to how many samples each size has), each under a random
    /// symmetry when `augment`.
    pub fn random_batch(&self, batch: usize, augment: bool, rng: &mut StdRng) -> Option<Batch> {
        if self.samples.is_empty() || batch == 0 {
            return None;
        }
        let pick = rng.random_range(0..self.samples.len());
        let size = self.samples[pick].size;
        let pool = &self.by_size[&size];
        let rows: Vec<(&Sample, Symmetry)> = (0..batch)
            .map(|_| {
                let s = &self.samples[pool[rng.random_range(0..pool.len())]];
                let sym = if augment {
                    Symmetry::ALL[rng.random_range(0..8)]
                } else {
                    Symmetry::IDENTITY
                };
                (s, sym)
            })
            .collect();
        Some(Batch::new(size, &rows))
    }

    /// Consecutive batches covering the samples of each size in order,
    /// without augmentation (validation).
    pub fn sequential_batches(&self, batch: usize, max_batches: usize) -> Vec<Batch> {
        let mut out = Vec::new();
        for (&size, pool) in &self.by_size {
            for chunk in pool.chunks(batch.max(1)) {
                if out.len() >= max_batches {
                    return out;
                }
                let rows: Vec<(&Sample, Symmetry)> = chunk
                    .iter()
                    .map(|&i| (&self.samples[i], Symmetry::IDENTITY))
                    .collect();
                out.push(Batch::new(size, &rows));
            }
        }
        out
    }
}

/// A batch as flat host arrays, ready to become tensors.
#[derive(Clone, Debug)]
pub struct Batch {
    pub size: usize,
    pub rows: usize,
    /// `[rows, SPATIAL, size, size]`.
    pub spatial: Vec<f32>,
    /// `[rows, GLOBAL]`.
    pub global: Vec<f32>,
    /// `[rows, n + 1]` and per-row weights.
    pub policy: Vec<f32>,
    pub policy_w: Vec<f32>,
    /// `[rows, n + 1]` one-hot opponent reply, weights.
    pub opp: Vec<f32>,
    pub opp_w: Vec<f32>,
    /// `[rows, 3]` win/loss/no-result, weights.
    pub value: Vec<f32>,
    pub value_w: Vec<f32>,
    /// `[rows]` score for the player to move, weights.
    pub score: Vec<f32>,
    pub score_w: Vec<f32>,
    /// `[rows, n]` in {-1, 0, 1}, weights.
    pub ownership: Vec<f32>,
    pub own_w: Vec<f32>,
}

impl Batch {
    /// Multiplies the rows' score and ownership weights.
    pub fn scale_aux(&mut self, score: f32, ownership: f32) {
        if score != 1.0 {
            self.score_w.iter_mut().for_each(|w| *w *= score);
        }
        if ownership != 1.0 {
            self.own_w.iter_mut().for_each(|w| *w *= ownership);
        }
    }

    /// Host arrays of `rows` (samples of board `size`, each under its
    /// symmetry).
    pub fn new(size: usize, rows: &[(&Sample, Symmetry)]) -> Batch {
        let n = size * size;
        let b = rows.len();
        let mut out = Batch {
            size,
            rows: b,
            spatial: vec![0.0; b * v7::SPATIAL * n],
            global: Vec::with_capacity(b * v7::GLOBAL),
            policy: vec![0.0; b * (n + 1)],
            policy_w: Vec::with_capacity(b),
            opp: vec![0.0; b * (n + 1)],
            opp_w: Vec::with_capacity(b),
            value: Vec::with_capacity(b * 3),
            value_w: Vec::with_capacity(b),
            score: Vec::with_capacity(b),
            score_w: Vec::with_capacity(b),
            ownership: vec![0.0; b * n],
            own_w: Vec::with_capacity(b),
        };
        let mut maps: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (r, (s, sym)) in rows.iter().enumerate() {
            let map = maps
                .entry(sym.index())
                .or_insert_with(|| dense_map(*sym, size));
            let sp = v7::SPATIAL * n;
            to_net(&s.spatial, &mut out.spatial[r * sp..(r + 1) * sp], map);
            out.global.extend(&s.global);
            let pol = &mut out.policy[r * (n + 1)..(r + 1) * (n + 1)];
            to_net(&s.policy[..n], &mut pol[..n], map);
            pol[n] = s.policy[n];
            let flag = |f: u8| if s.flags & f != 0 { 1.0 } else { 0.0 };
            out.policy_w.push(flag(HAS_POLICY));
            if s.opp_move != NO_MOVE {
                let m = s.opp_move as usize;
                let j = if m < n { map[m] } else { n };
                out.opp[r * (n + 1) + j] = 1.0;
                out.opp_w.push(1.0);
            } else {
                out.opp_w.push(0.0);
            }
            out.value.extend(match s.outcome {
                1 => [1.0, 0.0, 0.0],
                -1 => [0.0, 1.0, 0.0],
                _ => [0.5, 0.5, 0.0],
            });
            out.value_w.push(flag(HAS_VALUE));
            out.score.push(s.score);
            out.score_w.push(flag(HAS_SCORE));
            let own: Vec<f32> = s.ownership.iter().map(|&o| o as f32).collect();
            to_net(&own, &mut out.ownership[r * n..(r + 1) * n], map);
            out.own_w.push(flag(HAS_OWNERSHIP));
        }
        out
    }
}
