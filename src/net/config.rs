//! [`NetConfig`]: the architecture of a net in KataGo's family, as data.
//! It builds the burn module ([`super::model::Net`]) and travels as JSON in
//! the metadata of our safetensors files.

use burn::config::Config;

/// Activation functions KataGo models use.
#[derive(Config, Debug, Copy, PartialEq, Eq)]
pub enum Activation {
    Identity,
    Relu,
    Mish,
    Silu,
}

/// One block of the trunk (or of a nested bottleneck's inner stack).
#[derive(Config, Debug, PartialEq)]
pub enum BlockConfig {
    /// norm-act-3x3conv, norm-act-3x3conv, plus the input.
    Residual { mid: usize },
    /// Like `Residual`, with a global-pooling branch of `gpool` channels
    /// biasing the middle.
    GlobalPool { mid: usize, gpool: usize },
    /// norm-act-1x1conv down to `mid`, the inner blocks, norm-act-1x1conv
    /// back up, plus the input.
    NestedBottleneck { mid: usize, inner: Vec<BlockConfig> },
    /// Pre-RMSNorm multi-head attention with learnable 2-D rotary
    /// positions, plus the input.
    Attention {
        heads: usize,
        kv_heads: usize,
        q_head_dim: usize,
        v_head_dim: usize,
    },
    /// Pre-RMSNorm SwiGLU feed-forward, plus the input.
    SwiGluFfn { hidden: usize },
}

/// How the trunk's final output is normalised.
#[derive(Config, Debug, Copy, PartialEq)]
pub enum TrunkNorm {
    /// Batch norm (folded to scale and bias).
    BatchNorm,
    /// RMS over channels and the whole board, then gamma and beta.
    SpatialRmsNorm { epsilon: f32 },
}

/// KataGo's output post-processing constants (model header).
#[derive(Config, Debug, Copy, PartialEq)]
pub struct PostProcess {
    #[config(default = 20.0)]
    pub td_score_multiplier: f32,
    #[config(default = 20.0)]
    pub score_mean_multiplier: f32,
    #[config(default = 20.0)]
    pub score_stdev_multiplier: f32,
    #[config(default = 20.0)]
    pub lead_multiplier: f32,
    #[config(default = 40.0)]
    pub variance_time_multiplier: f32,
    #[config(default = 0.25)]
    pub shortterm_value_error_multiplier: f32,
    #[config(default = 150.0)]
    pub shortterm_score_error_multiplier: f32,
    /// The net's short-term error outputs were trained (KataGo nets of
    /// model version 9 on); tengen's own nets leave them untrained, so
    /// their values mean nothing and the search must not weigh by them.
    /// `None` (false) in files written before this field existed.
    #[config(default = "None")]
    pub shortterm_error_trained: Option<bool>,
}

/// The whole architecture.
#[derive(Config, Debug, PartialEq)]
pub struct NetConfig {
    /// A name for logs (KataGo's model name for imported nets).
    pub name: String,
    /// KataGo model version (15 for current transformer nets).
    #[config(default = 15)]
    pub model_version: usize,
    #[config(default = 22)]
    pub spatial_inputs: usize,
    #[config(default = 19)]
    pub global_inputs: usize,
    /// Trunk width.
    pub trunk: usize,
    /// Kernel size of the first convolution.
    #[config(default = 3)]
    pub stem_kernel: usize,
    pub blocks: Vec<BlockConfig>,
    pub trunk_norm: TrunkNorm,
    pub activation: Activation,
    /// Policy head: channels of the spatial and pooled branches.
    pub policy_channels: usize,
    /// Policy outputs per point (2: main and optimistic policy).
    #[config(default = 2)]
    pub policy_outputs: usize,
    /// Value head: spatial channels and hidden width.
    pub value_channels: usize,
    pub value_hidden: usize,
    pub post: PostProcess,
}

impl NetConfig {
    /// A small all-convolution net (for tests and benchmarks): `blocks`
    /// residual blocks of `channels`, every third one with global pooling.
    pub fn small(blocks: usize, channels: usize) -> NetConfig {
        let list = (0..blocks)
            .map(|i| {
                if i % 3 == 2 {
                    BlockConfig::GlobalPool {
                        mid: channels,
                        gpool: channels / 4,
                    }
                } else {
                    BlockConfig::Residual { mid: channels }
                }
            })
            .collect();
        NetConfig::new(
            format!("b{blocks}c{channels}"),
            channels,
            list,
            TrunkNorm::BatchNorm,
            Activation::Relu,
            channels / 2,
            channels / 2,
            channels,
            PostProcess::new(),
        )
    }
}

impl NetConfig {
    /// Floating-point operations of one forward pass on a `size`×`size`
    /// board: 2 × the multiply-accumulates of every convolution, dense
    /// layer and attention product (norms, activations, pooling and other
    /// element-wise work are not counted, as is usual).
    pub fn flops(&self, size: usize) -> u64 {
        let n = (size * size) as u64;
        let c = self.trunk as u64;
        let k2 = (self.stem_kernel * self.stem_kernel) as u64;
        let mut macs = self.spatial_inputs as u64 * c * k2 * n + self.global_inputs as u64 * c;
        macs += self.blocks.iter().map(|b| b.macs(c, n)).sum::<u64>();
        let p = self.policy_channels as u64;
        let outs = self.policy_outputs as u64;
        // conv_p, conv_g, g_to_bias, conv_out, pass.
        macs += 2 * c * p * n + 3 * p * p + p * outs * n;
        macs += if self.model_version >= 15 {
            3 * p * p + p * outs
        } else {
            3 * p * outs
        };
        let v = self.value_channels as u64;
        let vh = self.value_hidden as u64;
        // conv, fc, value, misc, ownership.
        macs += c * v * n + 3 * v * vh + vh * 3 + vh * 6 + v * n;
        2 * macs
    }
}

impl BlockConfig {
    /// Multiply-accumulates of this block on a trunk of `c` channels and
    /// `n` points.
    fn macs(&self, c: u64, n: u64) -> u64 {
        match self {
            BlockConfig::Residual { mid } => 2 * c * *mid as u64 * 9 * n,
            BlockConfig::GlobalPool { mid, gpool } => {
                let (m, g) = (*mid as u64, *gpool as u64);
                (c * m + c * g + m * c) * 9 * n + 3 * g * m
            }
            BlockConfig::NestedBottleneck { mid, inner } => {
                let m = *mid as u64;
                2 * c * m * n + inner.iter().map(|b| b.macs(m, n)).sum::<u64>()
            }
            BlockConfig::Attention {
                heads,
                kv_heads,
                q_head_dim,
                v_head_dim,
            } => {
                let (h, kv) = (*heads as u64, *kv_heads as u64);
                let (dq, dv) = (*q_head_dim as u64, *v_head_dim as u64);
                // q, k, v and out projections, then Q·Kᵀ and A·V.
                n * c * (h * dq + kv * dq + kv * dv) + n * h * dv * c + h * n * n * (dq + dv)
            }
            BlockConfig::SwiGluFfn { hidden } => 3 * n * c * *hidden as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flops_match_a_hand_count() {
        // Trunk 4, one residual block (mid 4), policy 2 channels, value 2
        // channels, hidden 3, model version 15, 2×2 board (n = 4).
        let mut cfg = NetConfig::small(1, 4);
        cfg.value_hidden = 3;
        assert_eq!(
            (cfg.policy_channels, cfg.value_channels, cfg.trunk),
            (2, 2, 4)
        );
        let stem = 22 * 4 * 9 * 4 + 19 * 4; // 3244
        let block = 2 * 4 * 4 * 9 * 4; // 1152
        let policy = 2 * 4 * 2 * 4 + 3 * 2 * 2 + 2 * 2 * 4 + 3 * 2 * 2 + 2 * 2; // 64+12+16+12+4
        let value = 4 * 2 * 4 + 3 * 2 * 3 + 3 * 3 + 3 * 6 + 2 * 4; // 32+18+9+18+8
        assert_eq!(cfg.flops(2), 2 * (stem + block + policy + value) as u64);

        // A global-pooling block: mid 4, gpool 1.
        let mut g = cfg.clone();
        g.blocks = vec![BlockConfig::GlobalPool { mid: 4, gpool: 1 }];
        let gblock = (4 * 4 + 4 + 4 * 4) * 9 * 4 + 3 * 4;
        assert_eq!(g.flops(2), 2 * (stem + gblock + policy + value) as u64);
    }
}
