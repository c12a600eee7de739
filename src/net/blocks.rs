//! Trunk blocks: residual, global-pooling residual, nested bottleneck,
//! and the transformer's attention (2-D rotary positions) and SwiGLU
//! feed-forward blocks. Every block maps `[b, c, h, w]` to the same shape
//! and adds its result to its input.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use burn::module::{Module, Param};
use burn::tensor::activation::{silu, softmax};
use burn::tensor::{Device, Tensor};

use super::config::{Activation, BlockConfig};
use super::error::NetError;
use super::layers::{act, gpool, rms_norm3, tensor, Affine, Conv, Dense, Weights};

/// Transformer RMS-norm epsilon in KataGo's exported nets.
pub const TRANSFORMER_EPS: f32 = 1e-6;

#[derive(Module, Debug)]
pub struct ResBlock {
    pub pre: Affine,
    pub conv1: Conv,
    pub mid: Affine,
    pub conv2: Conv,
}

#[derive(Module, Debug)]
pub struct GpoolBlock {
    pub pre: Affine,
    pub conv_regular: Conv,
    pub conv_gpool: Conv,
    pub gpool_norm: Affine,
    pub gpool_to_bias: Dense,
    pub mid: Affine,
    pub conv2: Conv,
}

#[derive(Module, Debug)]
pub struct NestedBlock {
    pub pre: Affine,
    pub conv_in: Conv,
    pub inner: Vec<Block>,
    pub post: Affine,
    pub conv_out: Conv,
}

#[derive(Module, Debug)]
pub struct AttnBlock {
    pub norm: Param<Tensor<1>>,
    pub q: Dense,
    pub k: Dense,
    pub v: Dense,
    pub out: Dense,
    /// Learnable rotary frequencies `[kv_heads, pairs, 2]` (x, y).
    pub rope: Param<Tensor<3>>,
    #[module(skip)]
    pub shape: [usize; 4],
    /// Cos/sin tables per board shape, computed on first use (the net is
    /// for inference: `rope` must not change after loading).
    #[module(skip)]
    pub rope_cache: RopeCache,
}

/// Query and key rotary tables for one board shape on one device.
#[derive(Clone, Debug)]
struct RopeTables {
    device: Device,
    q: (Tensor<3>, Tensor<3>),
    k: (Tensor<3>, Tensor<3>),
}

/// A shared, thread-safe cache of [`AttnBlock`]'s rotary tables, keyed by
/// board height and width.
#[derive(Clone, Debug, Default)]
pub struct RopeCache(Arc<Mutex<HashMap<(usize, usize), RopeTables>>>);

#[derive(Module, Debug)]
pub struct FfnBlock {
    pub norm: Param<Tensor<1>>,
    pub linear1: Dense,
    pub gate: Dense,
    pub linear2: Dense,
}

/// One block; exactly one field is `Some`.
#[derive(Module, Debug)]
pub struct Block {
    pub res: Option<ResBlock>,
    pub gpool: Option<GpoolBlock>,
    pub nested: Option<NestedBlock>,
    pub attn: Option<AttnBlock>,
    pub ffn: Option<FfnBlock>,
}

impl Block {
    /// Builds the block `cfg` named `name` on a trunk of `c` channels.
    pub fn load(
        w: &mut dyn Weights,
        name: &str,
        cfg: &BlockConfig,
        c: usize,
        device: &Device,
    ) -> Result<Block, NetError> {
        let mut b = Block {
            res: None,
            gpool: None,
            nested: None,
            attn: None,
            ffn: None,
        };
        let n = |s: &str| format!("{name}.{s}");
        match cfg {
            BlockConfig::Residual { mid } => {
                b.res = Some(ResBlock {
                    pre: Affine::load(w, &n("pre"), c, device)?,
                    conv1: Conv::load(w, &n("conv1"), c, *mid, 3, device)?,
                    mid: Affine::load(w, &n("mid"), *mid, device)?,
                    conv2: Conv::load(w, &n("conv2"), *mid, c, 3, device)?,
                })
            }
            BlockConfig::GlobalPool { mid, gpool } => {
                b.gpool = Some(GpoolBlock {
                    pre: Affine::load(w, &n("pre"), c, device)?,
                    conv_regular: Conv::load(w, &n("conv_regular"), c, *mid, 3, device)?,
                    conv_gpool: Conv::load(w, &n("conv_gpool"), c, *gpool, 3, device)?,
                    gpool_norm: Affine::load(w, &n("gpool_norm"), *gpool, device)?,
                    gpool_to_bias: Dense::load(
                        w,
                        &n("gpool_to_bias"),
                        3 * gpool,
                        *mid,
                        false,
                        device,
                    )?,
                    mid: Affine::load(w, &n("mid"), *mid, device)?,
                    conv2: Conv::load(w, &n("conv2"), *mid, c, 3, device)?,
                })
            }
            BlockConfig::NestedBottleneck { mid, inner } => {
                let pre = Affine::load(w, &n("pre"), c, device)?;
                let conv_in = Conv::load(w, &n("conv_in"), c, *mid, 1, device)?;
                let mut blocks = Vec::new();
                for (i, ic) in inner.iter().enumerate() {
                    blocks.push(Block::load(w, &n(&format!("inner.{i}")), ic, *mid, device)?);
                }
                b.nested = Some(NestedBlock {
                    pre,
                    conv_in,
                    inner: blocks,
                    post: Affine::load(w, &n("post"), *mid, device)?,
                    conv_out: Conv::load(w, &n("conv_out"), *mid, c, 1, device)?,
                })
            }
            BlockConfig::Attention {
                heads,
                kv_heads,
                q_head_dim,
                v_head_dim,
            } => {
                b.attn = Some(AttnBlock {
                    norm: tensor(w, &n("norm"), [c], device)?,
                    q: Dense::load(w, &n("q"), c, heads * q_head_dim, false, device)?,
                    k: Dense::load(w, &n("k"), c, kv_heads * q_head_dim, false, device)?,
                    v: Dense::load(w, &n("v"), c, kv_heads * v_head_dim, false, device)?,
                    out: Dense::load(w, &n("out"), heads * v_head_dim, c, false, device)?,
                    rope: tensor(w, &n("rope"), [*kv_heads, q_head_dim / 2, 2], device)?,
                    shape: [*heads, *kv_heads, *q_head_dim, *v_head_dim],
                    rope_cache: RopeCache::default(),
                })
            }
            BlockConfig::SwiGluFfn { hidden } => {
                b.ffn = Some(FfnBlock {
                    norm: tensor(w, &n("norm"), [c], device)?,
                    linear1: Dense::load(w, &n("linear1"), c, *hidden, false, device)?,
                    gate: Dense::load(w, &n("gate"), c, *hidden, false, device)?,
                    linear2: Dense::load(w, &n("linear2"), *hidden, c, false, device)?,
                })
            }
        }
        Ok(b)
    }

    /// `[b, c, h, w]` → `[b, c, h, w]`.
    pub fn forward(&self, x: Tensor<4>, a: Activation) -> Tensor<4> {
        if let Some(r) = &self.res {
            let y = r.conv1.forward(act(a, r.pre.forward(x.clone())));
            return x + r.conv2.forward(act(a, r.mid.forward(y)));
        }
        if let Some(g) = &self.gpool {
            let pre = act(a, g.pre.forward(x.clone()));
            let reg = g.conv_regular.forward(pre.clone()); // [b, mid, h, w]
            let gp = act(a, g.gpool_norm.forward(g.conv_gpool.forward(pre)));
            let bias = g.gpool_to_bias.forward2(gpool(gp)); // [b, mid]
            let reg = reg + bias.unsqueeze_dims::<4>(&[2, 3]);
            return x + g.conv2.forward(act(a, g.mid.forward(reg)));
        }
        if let Some(nb) = &self.nested {
            let mut y = nb.conv_in.forward(act(a, nb.pre.forward(x.clone())));
            for blk in &nb.inner {
                y = blk.forward(y, a);
            }
            return x + nb.conv_out.forward(act(a, nb.post.forward(y)));
        }
        if let Some(at) = &self.attn {
            return at.forward(x);
        }
        if let Some(f) = &self.ffn {
            let [b, c, h, w] = x.dims();
            let seq: Tensor<3> = x.clone().reshape([b, c, h * w]).swap_dims(1, 2); // [b, n, c]
            let xn = rms_norm3(seq, f.norm.val(), TRANSFORMER_EPS);
            let hid = silu(f.linear1.forward3(xn.clone())) * f.gate.forward3(xn);
            let out = f.linear2.forward3(hid); // [b, n, c]
            return x + out.swap_dims(1, 2).reshape([b, c, h, w]);
        }
        x
    }
}

impl AttnBlock {
    /// Cos and sin tables `[heads, n, pairs]` for a `h`×`w` board, each
    /// query head using its key/value head's frequencies.
    fn rope_tables(
        &self,
        h: usize,
        w: usize,
        heads: usize,
        device: &Device,
    ) -> (Tensor<3>, Tensor<3>) {
        let [kv_heads, pairs, _] = self.rope.dims();
        let freqs: Vec<f32> = self.rope.val().into_data().iter::<f32>().collect();
        let n = h * w;
        let mut cos = vec![0f32; heads * n * pairs];
        let mut sin = vec![0f32; heads * n * pairs];
        for hd in 0..heads {
            let kvh = hd * kv_heads / heads;
            for y in 0..h {
                for x in 0..w {
                    for p in 0..pairs {
                        let fx = freqs[(kvh * pairs + p) * 2];
                        let fy = freqs[(kvh * pairs + p) * 2 + 1];
                        let angle = x as f32 * fx + y as f32 * fy;
                        let i = (hd * n + y * w + x) * pairs + p;
                        cos[i] = angle.cos();
                        sin[i] = angle.sin();
                    }
                }
            }
        }
        let mk = |v: Vec<f32>| {
            Tensor::<3>::from_data(burn::tensor::TensorData::new(v, [heads, n, pairs]), device)
        };
        (mk(cos), mk(sin))
    }

    /// The rotary tables for an `h`×`w` board on `device`, from the cache.
    fn cached_tables(&self, h: usize, w: usize, device: &Device) -> RopeTables {
        // A poisoned lock only means another thread panicked mid-insert of
        // a complete value; the map is still usable.
        let mut cache = self.rope_cache.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = cache.get(&(h, w)).filter(|t| &t.device == device) {
            return t.clone();
        }
        let [heads, kv_heads, _, _] = self.shape;
        let q = self.rope_tables(h, w, heads, device);
        let k = if kv_heads == heads {
            q.clone()
        } else {
            self.rope_tables(h, w, kv_heads, device)
        };
        let t = RopeTables {
            device: device.clone(),
            q,
            k,
        };
        cache.insert((h, w), t.clone());
        t
    }

    /// Rotates channel pairs (2p, 2p+1) of `t` `[b, heads, n, 2·pairs]`.
    fn rotate(t: Tensor<4>, cos: &Tensor<3>, sin: &Tensor<3>) -> Tensor<4> {
        let [b, hd, n, d] = t.dims();
        let pairs = d / 2;
        let t5: Tensor<5> = t.reshape([b, hd, n, pairs, 2]);
        let x0: Tensor<4> = t5.clone().narrow(4, 0, 1).reshape([b, hd, n, pairs]);
        let x1: Tensor<4> = t5.narrow(4, 1, 1).reshape([b, hd, n, pairs]);
        let c = cos.clone().unsqueeze_dim::<4>(0);
        let s = sin.clone().unsqueeze_dim::<4>(0);
        let y0 = x0.clone() * c.clone() - x1.clone() * s.clone();
        let y1 = x0 * s + x1 * c;
        Tensor::stack::<5>(vec![y0, y1], 4).reshape([b, hd, n, d])
    }

    /// `[b, c, h, w]` → `[b, c, h, w]` (with the residual added).
    pub fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let [heads, kv_heads, dq, dv] = self.shape;
        let [b, c, h, w] = x.dims();
        let n = h * w;
        let device = x.device();
        let seq: Tensor<3> = x.clone().reshape([b, c, n]).swap_dims(1, 2); // [b, n, c]
        let xn = rms_norm3(seq, self.norm.val(), TRANSFORMER_EPS);
        let q: Tensor<4> = self
            .q
            .forward3(xn.clone())
            .reshape([b, n, heads, dq])
            .swap_dims(1, 2);
        let k: Tensor<4> = self
            .k
            .forward3(xn.clone())
            .reshape([b, n, kv_heads, dq])
            .swap_dims(1, 2);
        let v: Tensor<4> = self
            .v
            .forward3(xn)
            .reshape([b, n, kv_heads, dv])
            .swap_dims(1, 2);
        let t = self.cached_tables(h, w, &device);
        let q = Self::rotate(q, &t.q.0, &t.q.1); // [b, heads, n, dq]
        let k = Self::rotate(k, &t.k.0, &t.k.1); // [b, kv, n, dq]
        let group = heads / kv_heads;
        let (k, v) = if group > 1 {
            let expand = |t: Tensor<4>, d: usize| -> Tensor<4> {
                let t5: Tensor<5> = t.unsqueeze_dim(2); // [b, kv, 1, n, d]
                t5.repeat_dim(2, group).reshape([b, heads, n, d])
            };
            (expand(k, dq), expand(v, dv))
        } else {
            (k, v)
        };
        let scores = q.matmul(k.swap_dims(2, 3)) * (1.0 / (dq as f32).sqrt()); // [b, heads, n, n]
        let att = softmax(scores, 3).matmul(v); // [b, heads, n, dv]
        let merged: Tensor<3> = att.swap_dims(1, 2).reshape([b, n, heads * dv]);
        let out = self.out.forward3(merged); // [b, n, c]
        x + out.swap_dims(1, 2).reshape([b, c, h, w])
    }
}
