//! The trainable model: the engine's [`Net`] plus a training-only
//! auxiliary head that predicts the opponent's reply (KataGo's auxiliary
//! opponent-policy target). Only the [`Net`] part is exported for play.
//!
//! Parameter ids are renumbered in module order after every build, so an
//! optimizer state saved by one process matches the same net loaded by
//! another (exact resume).

use std::path::Path;

use burn::module::{Module, ModuleMapper, Param, ParamId};
use burn::tensor::{Device, Tensor};
use tengen::net::config::BlockConfig;
use tengen::net::io;
use tengen::net::layers::{Conv, Dense, WeightMap, Weights};
use tengen::net::{Net, NetConfig, NetError, RandomWeights};

/// Opponent-reply head on the policy head's features.
#[derive(Module, Debug)]
pub struct AuxHead {
    /// `[1, p, 1, 1]`: board logits of the opponent's reply.
    pub conv: Conv,
    /// `[3p, 1]`: pass logit.
    pub pass: Dense,
}

/// Net + auxiliary head.
#[derive(Module, Debug)]
pub struct TrainNet {
    pub net: Net,
    pub aux: AuxHead,
}

/// All raw outputs a training step needs.
pub struct TrainOutputs {
    /// `[b, outs, h, w]`, `[b, outs]`.
    pub policy: Tensor<4>,
    pub pass: Tensor<2>,
    /// `[b, 3]`.
    pub value: Tensor<2>,
    /// `[b, 6]`.
    pub misc: Tensor<2>,
    /// `[b, 1, h, w]`.
    pub ownership: Tensor<4>,
    /// `[b, 1, h, w]`, `[b, 1]`: opponent reply logits.
    pub opp_policy: Tensor<4>,
    pub opp_pass: Tensor<2>,
}

impl TrainNet {
    /// Builds from weights: the net's names, then `aux.conv.weight` and
    /// `aux.pass.weight`.
    pub fn load(
        config: &NetConfig,
        weights: &mut dyn Weights,
        device: &Device,
    ) -> Result<TrainNet, NetError> {
        check_trainable(config)?;
        let net = Net::load(config, weights, device)?;
        let p = config.policy_channels;
        let aux = AuxHead {
            conv: Conv::load(weights, "aux.conv", p, 1, 1, device)?,
            pass: Dense::load(weights, "aux.pass", 3 * p, 1, false, device)?,
        };
        Ok(TrainNet { net, aux }.renumbered())
    }

    /// A fresh net with deterministic random weights.
    pub fn random(config: &NetConfig, seed: u64, device: &Device) -> Result<TrainNet, NetError> {
        TrainNet::load(config, &mut RandomWeights::new(seed), device)
    }

    /// Starts from an exported (inference) net file; the auxiliary head
    /// starts random.
    pub fn from_model(path: &Path, seed: u64, device: &Device) -> Result<TrainNet, NetError> {
        let (config, weights) = io::read(path)?;
        let mut src = Fallback {
            first: weights,
            random: RandomWeights::new(seed),
        };
        TrainNet::load(&config, &mut src, device)
    }

    /// Loads a checkpoint's weights (see [`TrainNet::save`]).
    pub fn read(path: &Path, device: &Device) -> Result<TrainNet, NetError> {
        let (config, mut weights) = io::read(path)?;
        let tn = TrainNet::load(&config, &mut weights, device)?;
        if let Some(extra) = weights.tensors.keys().min() {
            return Err(NetError::Device(format!(
                "{}: unexpected tensor {extra}",
                path.display()
            )));
        }
        Ok(tn)
    }

    /// Saves net and auxiliary head (our safetensors format; exact f32).
    pub fn save(&self, path: &Path) -> Result<(), NetError> {
        let plain = self.valid();
        let mut map = io::weights_of(&plain.net)?;
        let host = |t: Tensor<4>| t.into_data().iter::<f32>().collect::<Vec<f32>>();
        let w = plain.aux.conv.weight.val();
        map.put("aux.conv.weight", w.dims().to_vec(), host(w));
        let d = plain.aux.pass.weight.val();
        map.put(
            "aux.pass.weight",
            d.dims().to_vec(),
            d.into_data().iter::<f32>().collect(),
        );
        io::save_weights(plain.net.config(), &map, path)
    }

    /// Exports the playing net alone.
    pub fn export(&self, path: &Path) -> Result<(), NetError> {
        io::save(&self.net.valid(), path)
    }

    /// The forward pass for training.
    pub fn forward(&self, x: Tensor<4>, g: Tensor<2>) -> TrainOutputs {
        let h = self.net.forward_heads(x, g);
        let opp_policy = self.aux.conv.forward(h.policy_features); // [b, 1, h, w]
        let opp_pass = self.aux.pass.forward2(h.policy_pooled); // [b, 1]
        TrainOutputs {
            policy: h.policy,
            pass: h.pass,
            value: h.value,
            misc: h.misc,
            ownership: h.ownership,
            opp_policy,
            opp_pass,
        }
    }

    /// The same net with parameter ids 1, 2, 3, ... in module order.
    pub fn renumbered(self) -> TrainNet {
        self.map(&mut Renumber(0))
    }
}

/// Refuses architectures whose forward pass is inference-only (the
/// transformer blocks cache rotary tables computed from their weights).
fn check_trainable(config: &NetConfig) -> Result<(), NetError> {
    fn has_attn(b: &[BlockConfig]) -> bool {
        b.iter().any(|b| match b {
            BlockConfig::Attention { .. } => true,
            BlockConfig::NestedBottleneck { inner, .. } => has_attn(inner),
            _ => false,
        })
    }
    if has_attn(&config.blocks) {
        return Err(NetError::Device(
            "nets with attention blocks cannot be trained here (inference-only rotary cache)"
                .into(),
        ));
    }
    Ok(())
}

/// Gives parameters ids 1, 2, 3, ... in module order.
struct Renumber(u64);

impl ModuleMapper for Renumber {
    fn map_float<const D: usize>(&mut self, mut param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        self.0 += 1;
        param.id = ParamId::from(self.0);
        param
    }
}

/// Weights from a file, with random ones for names it lacks.
struct Fallback {
    first: WeightMap,
    random: RandomWeights,
}

impl Weights for Fallback {
    fn take(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>, NetError> {
        if self.first.tensors.contains_key(name) {
            self.first.take(name, shape)
        } else if name.starts_with("aux.") {
            self.random.take(name, shape)
        } else {
            self.first.take(name, shape)
        }
    }
}

/// Parses a net size like `b6c64` (blocks, channels) into
/// [`NetConfig::small`].
pub fn parse_arch(s: &str) -> Result<NetConfig, String> {
    let err = || format!("bad net size {s:?}: expected like b6c64");
    let rest = s.strip_prefix('b').ok_or_else(err)?;
    let (b, c) = rest.split_once('c').ok_or_else(err)?;
    let b: usize = b.parse().map_err(|_| err())?;
    let c: usize = c.parse().map_err(|_| err())?;
    if !(1..=40).contains(&b) || !(4..=512).contains(&c) || !c.is_multiple_of(4) {
        return Err(format!(
            "net size {s}: 1..=40 blocks and 4..=512 channels, a multiple of 4"
        ));
    }
    Ok(NetConfig::small(b, c))
}
