//! [`NetEvaluator`]: the net behind the engine's [`Evaluator`] trait, plus
//! [`RandomWeights`] for untrained nets in tests and benchmarks.
//!
//! Each position runs under a symmetry ([`SymmetryChoice`]): its input
//! planes are transformed and the policy and ownership transformed back.
//! The ladder planes of one and two moves ago use
//! [`EvalInput::prev_boards`] (the current board when they are missing),
//! and the handicap bonus goes into the komi input as KataGo does.

use burn::tensor::Device;

use super::device::Backend;
use super::error::NetError;
use super::fast::FastNet;
use super::layers::Weights;
use super::model::Net;
use super::output::{postprocess, NetOutput};
use super::symmetry;
use crate::eval::{EvalInput, EvalOutput, Evaluator};
use crate::features::v7::{self, V7Input};
use crate::rules::{Color, KoRule, Move, Point, Symmetry};

/// Deterministic pseudo-random weights (xorshift), scaled for stable
/// activations; norm scales are 1 and norm biases 0.
pub struct RandomWeights {
    state: u64,
}

impl RandomWeights {
    pub fn new(seed: u64) -> RandomWeights {
        RandomWeights {
            state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
        }
    }

    fn next(&mut self) -> f32 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        (self.state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }
}

impl Weights for RandomWeights {
    fn take(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>, NetError> {
        let n: usize = shape.iter().product();
        if name.ends_with(".scale") || name.ends_with("norm") || name.ends_with("gamma") {
            return Ok(vec![1.0; n]);
        }
        if name.ends_with(".bias") || name.ends_with("beta") {
            return Ok(vec![0.0; n]);
        }
        let fan_in: usize = if shape.len() == 4 {
            shape[1] * shape[2] * shape[3]
        } else {
            shape[0]
        };
        let scale = (1.0 / fan_in.max(1) as f32).sqrt();
        Ok((0..n).map(|_| self.next() * scale).collect())
    }
}

/// Which symmetry [`NetEvaluator::evaluate`] runs each position under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymmetryChoice {
    /// Always this one ([`Symmetry::IDENTITY`] by default).
    Fixed(Symmetry),
    /// A random one per position.
    Random,
}

/// Runs a [`Net`] for the engine, on burn or packed for the fast CPU path
/// ([`FastNet`]). Thread-safe; `evaluate` blocks.
pub struct NetEvaluator {
    net: Net,
    fast: Option<FastNet>,
    max_batch: usize,
    /// The symmetry of each evaluation.
    pub symmetry: SymmetryChoice,
}

impl NetEvaluator {
    /// Runs `net` on burn, on the device its weights are on.
    pub fn new(net: Net, max_batch: usize) -> NetEvaluator {
        NetEvaluator {
            net,
            fast: None,
            max_batch: max_batch.max(1),
            symmetry: SymmetryChoice::Fixed(Symmetry::IDENTITY),
        }
    }

    /// Runs `net` on the fast CPU path (packed once, here).
    pub fn fast(net: Net, max_batch: usize) -> Result<NetEvaluator, NetError> {
        let fast = FastNet::new(&net)?;
        let mut e = NetEvaluator::new(net, max_batch);
        e.fast = Some(fast);
        Ok(e)
    }

    /// On `backend`: packed for the fast path when it says so.
    pub fn on(net: Net, max_batch: usize, backend: &Backend) -> Result<NetEvaluator, NetError> {
        if backend.fast {
            NetEvaluator::fast(net, max_batch)
        } else {
            Ok(NetEvaluator::new(net, max_batch))
        }
    }

    /// Whether this runs on the fast CPU path.
    pub fn is_fast(&self) -> bool {
        self.fast.is_some()
    }

    pub fn net(&self) -> &Net {
        &self.net
    }

    pub fn device(&self) -> Device {
        self.net.device()
    }

    /// KataGo's post-processed outputs for one position (what
    /// `kata-raw-nn` prints, through [`super::output::format_kata_raw_nn`]),
    /// with the net run under `symmetry` and the results brought back to
    /// the board's orientation.
    pub fn raw_nn(&self, input: &EvalInput, symmetry: Symmetry, optimism: f32) -> NetOutput {
        self.run_same_size(std::slice::from_ref(input), &[symmetry], Some(optimism))
            .pop()
            .expect("one output per input")
    }

    /// Runs inputs of one board size, each under its symmetry, with the
    /// policy optimism `optimism` (or, when `None`, each input's own).
    fn run_same_size(
        &self,
        batch: &[EvalInput],
        symmetries: &[Symmetry],
        optimism: Option<f32>,
    ) -> Vec<NetOutput> {
        let size = batch[0].position.size();
        let n = size * size;
        let (sp, gl) = (v7::SPATIAL * n, v7::GLOBAL);
        let mut spatial = vec![0.0; batch.len() * sp];
        let mut global = vec![0.0; batch.len() * gl];
        let mut plain = vec![0.0; sp];
        let maps: Vec<Option<Vec<usize>>> = symmetries
            .iter()
            .map(|&s| (s != Symmetry::IDENTITY).then(|| symmetry::dense_map(s, size)))
            .collect();
        for (i, inp) in batch.iter().enumerate() {
            let input = V7Input {
                position: &inp.position,
                moves: &inp.recent,
                prev_boards: [inp.prev_boards.first(), inp.prev_boards.get(1)],
                white_handicap_bonus: inp.handicap_bonus,
                friendly_pass_ok: inp.friendly_pass_ok,
            };
            let dst = &mut spatial[i * sp..(i + 1) * sp];
            let g = &mut global[i * gl..(i + 1) * gl];
            match &maps[i] {
                None => v7::encode(&input, dst, g),
                Some(map) => {
                    v7::encode(&input, &mut plain, g);
                    symmetry::to_net(&plain, dst, map);
                }
            }
        }
        let mut raw = match &self.fast {
            Some(f) => f.forward(&spatial, &global, batch.len(), size),
            None => self.net.forward(spatial, global, batch.len(), size),
        };
        let ch = raw.policy_channels;
        for (row, map) in maps.iter().enumerate() {
            if let Some(map) = map {
                symmetry::from_net(&mut raw.policy[row * ch * n..(row + 1) * ch * n], map);
                symmetry::from_net(&mut raw.ownership[row * n..(row + 1) * n], map);
            }
        }
        let post = self.net.config().post;
        batch
            .iter()
            .enumerate()
            .map(|(row, inp)| {
                let pos = &inp.position;
                let mut legal: Vec<bool> = (0..n)
                    .map(|i| pos.is_legal(Move::Place(Point::from_dense(i, size))))
                    .collect();
                legal.push(true);
                let no_result = pos.rules().ko == KoRule::Simple;
                let optimism = optimism.unwrap_or(inp.policy_optimism);
                postprocess(&raw, row, &legal, pos.to_move(), optimism, &post, no_result)
            })
            .collect()
    }
}

/// The engine's view of KataGo's outputs: the player to move's.
fn to_eval_output(out: NetOutput, to_move: Color, shortterm_error: bool) -> EvalOutput {
    let white = to_move == Color::White;
    let s = if white { 1.0 } else { -1.0 };
    let (win, loss) = if white {
        (out.white_win, out.white_loss)
    } else {
        (out.white_loss, out.white_win)
    };
    EvalOutput {
        policy: out.policy.iter().map(|&p| p.max(0.0)).collect(),
        value: [win, loss, out.no_result],
        score_lead: s * out.white_lead,
        ownership: Some(out.white_ownership.iter().map(|&o| s * o).collect()),
        shortterm_error: shortterm_error
            .then_some([out.shortterm_winloss_error, out.shortterm_score_error]),
    }
}

impl Evaluator for NetEvaluator {
    fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
        let mut out = Vec::with_capacity(batch.len());
        let mut start = 0;
        while start < batch.len() {
            let size = batch[start].position.size();
            let mut end = start + 1;
            while end < batch.len() && batch[end].position.size() == size {
                end += 1;
            }
            let part = &batch[start..end];
            let syms: Vec<Symmetry> = part
                .iter()
                .map(|inp| match self.symmetry {
                    // An input's own request for a random one comes first.
                    SymmetryChoice::Fixed(s) if !inp.random_symmetry => s,
                    _ => Symmetry::ALL[rand::random_range(0..8)],
                })
                .collect();
            let outs = self.run_same_size(part, &syms, None);
            let shortterm = self.net.config().post.shortterm_error_trained == Some(true);
            out.extend(
                outs.into_iter()
                    .zip(part)
                    .map(|(o, inp)| to_eval_output(o, inp.position.to_move(), shortterm)),
            );
            start = end;
        }
        out
    }

    fn max_batch(&self) -> usize {
        self.max_batch
    }

    fn name(&self) -> String {
        self.net.config().name.clone()
    }

    fn parallel_calls(&self) -> bool {
        // The fast path runs a call on the calling thread alone; burn's
        // CPU backend spreads one call over its own thread pool.
        self.is_fast()
    }
}
