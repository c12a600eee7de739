//! The fast CPU path: the same nets as [`crate::net::Net`], packed once
//! for inference on the CPU.
//!
//! - NHWC activations (a row of channels per point), so that every layer
//!   is a matrix product over points.
//! - Batch norms and biases folded into the weights at load; activations,
//!   residual adds and the next block's norm fused into each
//!   convolution's output pass ([`epi`]).
//! - 3×3 convolutions by Winograd F(4×4, 3×3), or F(3×3, 3×3) where its
//!   tiles fit the board better (9×9) ([`winograd`]), 1×1
//!   convolutions and projections as products on weights packed once
//!   into panels where the CPU has AVX2 without AVX-512 ([`panel`]), the
//!   rest on the `gemm` crate ([`gemm`]); transforms, norms and
//!   activations are plain loops
//!   compiled for AVX-512, AVX2 + FMA and the baseline and chosen at run
//!   time ([`simd`]).
//! - Denormal floats are flushed to zero during a pass ([`ftz`]).
//! - Buffers belong to a [`Scratch`] that a pass borrows from a pool and
//!   gives back: after the first pass at a batch size and board size,
//!   nothing is allocated.
//!
//! Every block type, trunk norm, head and activation of [`NetConfig`] is
//! covered; [`FastNet::forward`] returns the same [`RawOutput`] as
//! [`crate::net::Net::forward`].

pub mod act;
pub mod blocks;
pub mod conv;
pub mod epi;
pub mod ftz;
pub mod gemm;
pub mod heads;
pub(crate) mod kernel;
mod pack;
pub mod panel;
pub mod peak;
#[macro_use]
pub mod simd;
pub mod transformer;
pub mod transpose;
pub mod winograd;

use std::sync::Mutex;

use blocks::{run_stack, Dims, FBlock, Level, Shared};
use conv::ConvK;
use epi::{Epi, Norm};
use heads::{HeadScratch, Heads};

use super::config::NetConfig;
use super::error::NetError;
use super::model::{Net, RawOutput};

/// The trunk's final norm.
enum Tip {
    /// Folded batch norm (fused into the last block).
    Bn(Norm),
    /// RMS over channels and board, then gamma and beta.
    Rms {
        gamma: Vec<f32>,
        beta: Vec<f32>,
        eps: f32,
    },
}

/// Winograd tiles per part of a batch (see [`FastNet::forward`]).
const MAX_TILES: usize = 200;

/// A net packed for the fast CPU path. Thread-safe: concurrent calls use
/// separate scratch buffers.
pub struct FastNet {
    config: NetConfig,
    stem: ConvK,
    /// `[globals][trunk]`.
    stem_global: conv::Mat,
    blocks: Vec<FBlock>,
    tip: Tip,
    heads: Heads,
    /// Nesting levels the trunk needs.
    depth: usize,
    /// The widest row of any level's buffers.
    width: usize,
    pool: Mutex<Vec<Scratch>>,
}

/// Every buffer of a forward pass.
#[derive(Default)]
pub struct Scratch {
    input: Vec<f32>,
    levels: Vec<Level>,
    shared: Shared,
    heads: HeadScratch,
}

impl FastNet {
    /// Packs `net`'s weights (read back from its device).
    pub fn new(net: &Net) -> Result<FastNet, NetError> {
        pack::pack(net)
    }

    /// The architecture.
    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    /// Runs a batch: `spatial` is `[batch, planes, size, size]` and
    /// `global` `[batch, globals]`, row-major, as for
    /// [`crate::net::Net::forward`].
    ///
    /// # Panics
    /// When `spatial` or `global` is shorter than the shape says.
    pub fn forward(&self, spatial: &[f32], global: &[f32], batch: usize, size: usize) -> RawOutput {
        let _ftz = ftz::FlushDenormals::new();
        let mut s = self
            .pool
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
            .unwrap_or_default();
        // Large batches run in parts small enough for the Winograd
        // buffers to stay in cache (measured: batch 32 ran at 65% of
        // batch 8's speed in one piece).
        let t = winograd::Variant::for_board(size, size).tiles(size);
        let part = (MAX_TILES / (t * t)).max(1);
        let (sp, gl) = (
            self.config.spatial_inputs * size * size,
            self.config.global_inputs,
        );
        let mut out: Option<RawOutput> = None;
        for start in (0..batch).step_by(part) {
            let b = part.min(batch - start);
            let o = self.forward_with(
                &mut s,
                &spatial[start * sp..(start + b) * sp],
                &global[start * gl..(start + b) * gl],
                b,
                size,
            );
            out = Some(match out {
                None => o,
                Some(mut all) => {
                    all.batch += o.batch;
                    all.policy.extend(o.policy);
                    all.pass.extend(o.pass);
                    all.value.extend(o.value);
                    all.misc.extend(o.misc);
                    all.ownership.extend(o.ownership);
                    all
                }
            });
        }
        self.pool.lock().unwrap_or_else(|e| e.into_inner()).push(s);
        out.unwrap_or_else(|| self.forward_with(&mut Scratch::default(), spatial, global, 0, size))
    }

    fn forward_with(
        &self,
        s: &mut Scratch,
        spatial: &[f32],
        global: &[f32],
        batch: usize,
        size: usize,
    ) -> RawOutput {
        let cfg = &self.config;
        let d = Dims {
            batch,
            h: size,
            w: size,
        };
        let (n, rows, c) = (d.points(), d.rows(), cfg.trunk);
        let planes = cfg.spatial_inputs;
        assert!(spatial.len() >= batch * planes * n && global.len() >= batch * cfg.global_inputs);
        if s.levels.len() < self.depth {
            s.levels.resize_with(self.depth, Level::default);
        }
        for lv in &mut s.levels {
            lv.ensure(rows * self.width);
        }
        // NCHW input to NHWC.
        if s.input.len() < rows * planes {
            s.input.resize(rows * planes, 0.0);
        }
        for b in 0..batch {
            for p in 0..planes {
                let src = &spatial[(b * planes + p) * n..(b * planes + p + 1) * n];
                for (i, v) in src.iter().enumerate() {
                    s.input[(b * n + i) * planes + p] = *v;
                }
            }
        }
        // Stem: the spatial convolution plus the globals' per-board bias.
        {
            let lv = &mut s.levels[0];
            let mut store = Epi::Store {
                out: &mut lv.trunk,
                stride: c,
                act: super::config::Activation::Identity,
                act_from: 0,
            };
            self.stem
                .run(&s.input, batch, size, size, &mut s.shared.conv, &mut store);
            let gb = &mut s.shared.bias;
            if gb.len() < batch * c {
                gb.resize(batch * c, 0.0);
            }
            self.stem_global
                .apply(global, cfg.global_inputs, batch, &mut gb[..batch * c]);
            for b in 0..batch {
                act::bias_act(
                    &mut lv.trunk[b * n * c..(b + 1) * n * c],
                    c,
                    n,
                    &gb[b * c..(b + 1) * c],
                    super::config::Activation::Identity,
                    0,
                );
            }
        }
        let a = cfg.activation;
        let tail = match &self.tip {
            Tip::Bn(norm) => Some(norm),
            Tip::Rms { .. } => None,
        };
        run_stack(
            &self.blocks,
            tail,
            c,
            a,
            d,
            &mut s.levels,
            &mut s.shared,
            false,
        );
        if let Tip::Rms { gamma, beta, eps } = &self.tip {
            let lv = &mut s.levels[0];
            let scale = &mut s.shared.bias;
            if scale.len() < c {
                scale.resize(c, 0.0);
            }
            for b in 0..batch {
                let t = &lv.trunk[b * n * c..(b + 1) * n * c];
                // A plain f32 sum, in point order: summing in f64 moved the
                // KataGo net's score lead 1.7e-3 away from KataGo's own
                // (against 5e-4 this way), past the parity tolerance.
                let ms = t.iter().map(|v| v * v).sum::<f32>() / (n * c) as f32;
                let inv = 1.0 / (ms + eps).sqrt();
                for (s, g) in scale.iter_mut().zip(gamma) {
                    *s = g * inv;
                }
                act::affine_act(
                    t,
                    c,
                    &mut lv.act[b * n * c..(b + 1) * n * c],
                    c,
                    n,
                    &scale[..c],
                    beta,
                    a,
                );
            }
        }
        let lv = &s.levels[0];
        self.heads.run(&lv.act[..rows * c], c, a, d, &mut s.heads)
    }
}

/// Deterministic values in [-0.5, 0.5) for the kernels' tests (a linear
/// congruential generator: no dependency, the same values everywhere).
#[cfg(test)]
pub(crate) fn uniform_values(seed: u32) -> impl FnMut() -> f32 {
    let mut state = seed;
    move || {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (state >> 8) as f32 / (1u32 << 24) as f32 - 0.5
    }
}
