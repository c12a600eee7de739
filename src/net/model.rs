//! The net: stem, trunk of [`Block`]s, trunk tip, policy head and value
//! head, in KataGo's architecture family. Built from a [`NetConfig`] and a
//! [`Weights`] source; runs on whatever device its tensors live on.
//!
//! The net always runs at the board's own size (no padding mask): KataGo
//! gives the same outputs for a board in the corner of a bigger buffer.

use burn::module::{Module, Param};
use burn::tensor::{Device, Tensor, TensorData};

use super::blocks::Block;
use super::config::{NetConfig, TrunkNorm};
use super::error::NetError;
use super::layers::{act, gpool, tensor, value_pool, Affine, Conv, Dense, Weights};

#[derive(Module, Debug)]
pub struct Tip {
    /// Batch-norm tip.
    pub bn: Option<Affine>,
    /// Spatial RMS-norm tip: gamma and beta.
    pub gamma: Option<Param<Tensor<1>>>,
    pub beta: Option<Param<Tensor<1>>>,
}

#[derive(Module, Debug)]
pub struct PolicyHead {
    pub conv_p: Conv,
    pub conv_g: Conv,
    pub norm_g: Affine,
    pub g_to_bias: Dense,
    pub norm_p: Affine,
    pub conv_out: Conv,
    /// Pass logits: one layer (model version < 15) or two.
    pub pass1: Dense,
    pub pass2: Option<Dense>,
}

#[derive(Module, Debug)]
pub struct ValueHead {
    pub conv: Conv,
    pub norm: Affine,
    pub fc: Dense,
    pub value: Dense,
    pub misc: Dense,
    pub ownership: Conv,
}

/// The network.
#[derive(Module, Debug)]
pub struct Net {
    pub stem: Conv,
    pub stem_global: Dense,
    pub blocks: Vec<Block>,
    pub tip: Tip,
    pub policy: PolicyHead,
    pub value: ValueHead,
    #[module(skip)]
    pub config: NetConfig,
}

/// Raw outputs for a batch, on the host, in dense point order.
#[derive(Clone, Debug)]
pub struct RawOutput {
    pub batch: usize,
    pub size: usize,
    pub policy_channels: usize,
    /// `[batch, channels, size*size]`.
    pub policy: Vec<f32>,
    /// `[batch, channels]`.
    pub pass: Vec<f32>,
    /// `[batch, 3]`: win, loss, no-result logits for the player to move.
    pub value: Vec<f32>,
    /// `[batch, 6]`: score mean, score stdev, lead, variance of time left,
    /// short-term win-loss error, short-term score error (pre-activation).
    pub misc: Vec<f32>,
    /// `[batch, size*size]`: ownership logits for the player to move.
    pub ownership: Vec<f32>,
}

/// Every head's raw output as tensors, from [`Net::forward_heads`].
#[derive(Clone, Debug)]
pub struct Heads {
    /// `[b, policy_outputs, h, w]` board logits (channel 0 the policy).
    pub policy: Tensor<4>,
    /// `[b, policy_outputs]` pass logits.
    pub pass: Tensor<2>,
    /// `[b, 3]` win, loss, no-result logits (player to move).
    pub value: Tensor<2>,
    /// `[b, 6]` score mean, stdev, lead, ... (pre-activation, unscaled).
    pub misc: Tensor<2>,
    /// `[b, 1, h, w]` ownership logits (player to move).
    pub ownership: Tensor<4>,
    /// `[b, policy_channels, h, w]`: the policy head's features before
    /// its output convolution (for auxiliary training heads).
    pub policy_features: Tensor<4>,
    /// `[b, 3 * policy_channels]`: the policy head's pooled features.
    pub policy_pooled: Tensor<2>,
}

impl Net {
    /// Builds the net described by `config` from `weights` on `device`.
    pub fn load(
        config: &NetConfig,
        weights: &mut dyn Weights,
        device: &Device,
    ) -> Result<Net, NetError> {
        let c = config.trunk;
        let stem = Conv::load(
            weights,
            "stem",
            config.spatial_inputs,
            c,
            config.stem_kernel,
            device,
        )?;
        let stem_global = Dense::load(
            weights,
            "stem_global",
            config.global_inputs,
            c,
            false,
            device,
        )?;
        let mut blocks = Vec::new();
        for (i, b) in config.blocks.iter().enumerate() {
            blocks.push(Block::load(weights, &format!("blocks.{i}"), b, c, device)?);
        }
        let tip = match config.trunk_norm {
            TrunkNorm::BatchNorm => Tip {
                bn: Some(Affine::load(weights, "tip.bn", c, device)?),
                gamma: None,
                beta: None,
            },
            TrunkNorm::SpatialRmsNorm { .. } => Tip {
                bn: None,
                gamma: Some(tensor(weights, "tip.gamma", [c], device)?),
                beta: Some(tensor(weights, "tip.beta", [c], device)?),
            },
        };
        let p = config.policy_channels;
        let two_layer_pass = config.model_version >= 15;
        let policy = PolicyHead {
            conv_p: Conv::load(weights, "policy.conv_p", c, p, 1, device)?,
            conv_g: Conv::load(weights, "policy.conv_g", c, p, 1, device)?,
            norm_g: Affine::load(weights, "policy.norm_g", p, device)?,
            g_to_bias: Dense::load(weights, "policy.g_to_bias", 3 * p, p, false, device)?,
            norm_p: Affine::load(weights, "policy.norm_p", p, device)?,
            conv_out: Conv::load(
                weights,
                "policy.conv_out",
                p,
                config.policy_outputs,
                1,
                device,
            )?,
            pass1: if two_layer_pass {
                Dense::load(weights, "policy.pass1", 3 * p, p, true, device)?
            } else {
                Dense::load(
                    weights,
                    "policy.pass1",
                    3 * p,
                    config.policy_outputs,
                    false,
                    device,
                )?
            },
            pass2: if two_layer_pass {
                Some(Dense::load(
                    weights,
                    "policy.pass2",
                    p,
                    config.policy_outputs,
                    false,
                    device,
                )?)
            } else {
                None
            },
        };
        let v = config.value_channels;
        let vh = config.value_hidden;
        let value = ValueHead {
            conv: Conv::load(weights, "value.conv", c, v, 1, device)?,
            norm: Affine::load(weights, "value.norm", v, device)?,
            fc: Dense::load(weights, "value.fc", 3 * v, vh, true, device)?,
            value: Dense::load(weights, "value.value", vh, 3, true, device)?,
            misc: Dense::load(weights, "value.misc", vh, 6, true, device)?,
            ownership: Conv::load(weights, "value.ownership", v, 1, 1, device)?,
        };
        Ok(Net {
            stem,
            stem_global,
            blocks,
            tip,
            policy,
            value,
            config: config.clone(),
        })
    }

    /// The architecture.
    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    /// The device the weights live on.
    pub fn device(&self) -> Device {
        self.stem.weight.val().device()
    }

    /// Runs a batch: `spatial` is `[batch, planes, size, size]` and
    /// `global` `[batch, globals]`, both row-major.
    pub fn forward(
        &self,
        spatial: Vec<f32>,
        global: Vec<f32>,
        batch: usize,
        size: usize,
    ) -> RawOutput {
        let cfg = self.config();
        let device = self.device();
        let x = Tensor::<4>::from_data(
            TensorData::new(spatial, [batch, cfg.spatial_inputs, size, size]),
            &device,
        );
        let g =
            Tensor::<2>::from_data(TensorData::new(global, [batch, cfg.global_inputs]), &device);
        let heads = self.forward_heads(x, g);

        let host = |t: Tensor<4>| -> Vec<f32> { t.into_data().iter::<f32>().collect() };
        let host2 = |t: Tensor<2>| -> Vec<f32> { t.into_data().iter::<f32>().collect() };
        RawOutput {
            batch,
            size,
            policy_channels: cfg.policy_outputs,
            policy: host(heads.policy),
            pass: host2(heads.pass),
            value: host2(heads.value),
            misc: host2(heads.misc),
            ownership: host(heads.ownership),
        }
    }

    /// The forward pass on tensors, returning every head's raw output
    /// (logits, before any post-processing) plus the policy head's inner
    /// features: what training needs. `x` is `[b, planes, h, w]` and `g`
    /// `[b, globals]`, on the net's device (autodiff or not).
    pub fn forward_heads(&self, x: Tensor<4>, g: Tensor<2>) -> Heads {
        let cfg = self.config();
        let a = cfg.activation;
        let mut t =
            self.stem.forward(x) + self.stem_global.forward2(g).unsqueeze_dims::<4>(&[2, 3]);
        for b in &self.blocks {
            t = b.forward(t, a);
        }
        let t = match (
            &self.tip.bn,
            &self.tip.gamma,
            &self.tip.beta,
            cfg.trunk_norm,
        ) {
            (Some(bn), _, _, _) => act(a, bn.forward(t)),
            (None, Some(gm), Some(bt), TrunkNorm::SpatialRmsNorm { epsilon }) => {
                let [b, c, h, w] = t.dims();
                let ms: Tensor<2> = t
                    .clone()
                    .reshape([b, c * h * w])
                    .powf_scalar(2.0)
                    .mean_dim(1); // [b, 1]
                let inv = (ms + epsilon).sqrt().recip().reshape([b, 1, 1, 1]);
                let y = t * inv * gm.val().unsqueeze_dims::<4>(&[0, 2, 3])
                    + bt.val().unsqueeze_dims::<4>(&[0, 2, 3]);
                act(a, y)
            }
            _ => t,
        };

        // Policy.
        let ph = &self.policy;
        let p1 = ph.conv_p.forward(t.clone());
        let g1 = act(a, ph.norm_g.forward(ph.conv_g.forward(t.clone())));
        let pooled = gpool(g1); // [b, 3p]
        let p1 = p1
            + ph.g_to_bias
                .forward2(pooled.clone())
                .unsqueeze_dims::<4>(&[2, 3]);
        let p1 = act(a, ph.norm_p.forward(p1)); // [b, p, h, w]
        let policy = ph.conv_out.forward(p1.clone()); // [b, outs, h, w]
        let pass = match &ph.pass2 {
            Some(p2) => p2.forward2(act(a, ph.pass1.forward2(pooled.clone()))),
            None => ph.pass1.forward2(pooled.clone()),
        }; // [b, outs]

        // Value.
        let vh = &self.value;
        let v1 = act(a, vh.norm.forward(vh.conv.forward(t)));
        let v2 = act(a, vh.fc.forward2(value_pool(v1.clone())));
        let value = vh.value.forward2(v2.clone()); // [b, 3]
        let misc = vh.misc.forward2(v2); // [b, 6]
        let ownership = vh.ownership.forward(v1); // [b, 1, h, w]
        Heads {
            policy,
            pass,
            value,
            misc,
            ownership,
            policy_features: p1,
            policy_pooled: pooled,
        }
    }
}
