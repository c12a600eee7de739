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
