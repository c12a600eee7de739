//! The trunk's blocks, packed, and the loop that runs a stack of them.
//!
//! Every convolutional block starts with a norm and activation of its
//! input; the block before it computes that input in its last
//! convolution's epilogue ([`Epi::Residual`] with a [`Next`]), so the
//! trunk is read once per block. Transformer blocks, which start with an
//! RMS norm, do not; the loop then computes the next block's input in a
//! separate pass.

use super::act;
use super::conv::{Conv3, ConvScratch, Mat};
use super::epi::{Epi, Next, Norm};
use super::transformer::{Attn, Ffn, TfScratch};
use crate::net::config::Activation;

/// A packed block; see [`crate::net::blocks::Block`] for what each does.
pub enum FBlock {
    Res {
        pre: Norm,
        /// With the middle norm folded in.
        conv1: Conv3,
        conv2: Conv3,
    },
    Gpool {
        pre: Norm,
        /// The regular (`mid`, middle norm folded) and pooled (`gpool`,
        /// its norm folded) convolutions as one.
        conv: Conv3,
        mid: usize,
        gpool: usize,
        /// Pooled features to the middle bias, scaled by the middle norm.
        to_bias: Mat,
        conv2: Conv3,
    },
    Nested {
        pre: Norm,
        conv_in: Mat,
        inner: Vec<FBlock>,
        post: Norm,
        conv_out: Mat,
    },
    Attn(Box<Attn>),
    Ffn(Box<Ffn>),
}

/// One nesting level's buffers: the trunk, the normalised and activated
/// block input, and the middle of a block, each `rows × width`.
#[derive(Default)]
pub struct Level {
    pub trunk: Vec<f32>,
    pub act: Vec<f32>,
    pub mid: Vec<f32>,
}

impl Level {
    pub fn ensure(&mut self, n: usize) {
        for v in [&mut self.trunk, &mut self.act, &mut self.mid] {
            if v.len() < n {
                v.resize(n, 0.0);
            }
        }
    }
}

/// Batch and board dimensions of a forward pass.
#[derive(Clone, Copy, Debug)]
pub struct Dims {
    pub batch: usize,
    pub h: usize,
    pub w: usize,
}

impl Dims {
    pub fn points(&self) -> usize {
        self.h * self.w
    }
    pub fn rows(&self) -> usize {
        self.batch * self.h * self.w
    }
}

/// Buffers shared by every layer of a pass.
#[derive(Default)]
pub struct Shared {
    pub conv: ConvScratch,
    pub tf: TfScratch,
    pub pool: Vec<f32>,
    pub bias: Vec<f32>,
}

/// KataGo's global pooling of channels `c0..c0 + ch` of `n` rows at
/// `stride`: mean, mean · (√n − 14) / 10, max.
pub fn gpool(x: &[f32], stride: usize, c0: usize, ch: usize, n: usize, out: &mut [f32]) {
    let (sum, rest) = out.split_at_mut(ch);
    let (scaled, max) = rest.split_at_mut(ch);
    sum.fill(0.0);
    max[..ch].fill(f32::NEG_INFINITY);
    for r in 0..n {
        let row = &x[r * stride + c0..r * stride + c0 + ch];
        for i in 0..ch {
            sum[i] += row[i];
            max[i] = max[i].max(row[i]);
        }
    }
    let k = ((n as f32).sqrt() - 14.0) * 0.1;
    for i in 0..ch {
        sum[i] /= n as f32;
        scaled[i] = sum[i] * k;
    }
}

impl FBlock {
    /// The norm this block applies to its input before its first
    /// convolution (`None` for transformer blocks).
    pub fn pre(&self) -> Option<&Norm> {
        match self {
            FBlock::Res { pre, .. } | FBlock::Gpool { pre, .. } | FBlock::Nested { pre, .. } => {
                Some(pre)
            }
            FBlock::Attn(_) | FBlock::Ffn(_) => None,
        }
    }

    /// Nesting levels this block needs (itself included).
    pub fn depth(&self) -> usize {
        match self {
            FBlock::Nested { inner, .. } => 1 + inner.iter().map(FBlock::depth).max().unwrap_or(1),
            _ => 1,
        }
    }

    /// Runs on `levels[0]` (trunk width `c`, input in `act` when the block
    /// has a `pre`); writes `act(next(trunk))` to `levels[0].act` when
    /// `next` is given and says whether it did.
    fn forward(
        &self,
        c: usize,
        a: Activation,
        d: Dims,
        levels: &mut [Level],
        sh: &mut Shared,
        next: Option<&Norm>,
    ) -> bool {
        let rows = d.rows();
        let (lv, deeper) = levels.split_first_mut().expect("a level per nesting depth");
        let Level {
            trunk,
            act: input,
            mid,
        } = lv;
        match self {
            FBlock::Res { conv1, conv2, .. } => {
                let m = conv1.cout;
                let mut store = Epi::Store {
                    out: mid,
                    stride: m,
                    act: a,
                    act_from: 0,
                };
                conv1.run(input, c, d.batch, d.h, d.w, &mut sh.conv, &mut store);
                let mut res = Epi::Residual {
                    trunk,
                    stride: c,
                    next: next_of(next, a, input, c),
                };
                conv2.run(mid, m, d.batch, d.h, d.w, &mut sh.conv, &mut res);
            }
            FBlock::Gpool {
                conv,
                mid: m,
                gpool: g,
                to_bias,
                conv2,
                ..
            } => {
                let (m, g) = (*m, *g);
                let st = m + g;
                let mut store = Epi::Store {
                    out: mid,
                    stride: st,
                    act: a,
                    act_from: m,
                };
                conv.run(input, c, d.batch, d.h, d.w, &mut sh.conv, &mut store);
                let n = d.points();
                grow(&mut sh.pool, 3 * g);
                grow(&mut sh.bias, m);
                for b in 0..d.batch {
                    let part = &mut mid[b * n * st..(b + 1) * n * st];
                    gpool(part, st, m, g, n, &mut sh.pool);
                    to_bias.apply(&sh.pool, 3 * g, 1, &mut sh.bias);
                    act::bias_act(part, st, n, &sh.bias[..m], a, 0);
                }
                let mut res = Epi::Residual {
                    trunk,
                    stride: c,
                    next: next_of(next, a, input, c),
                };
                conv2.run(mid, st, d.batch, d.h, d.w, &mut sh.conv, &mut res);
            }
            FBlock::Nested {
                conv_in,
                inner,
                post,
                conv_out,
                ..
            } => {
                let m = conv_in.cout;
                let inner_lv = &mut deeper[0];
                let mut store = Epi::Store {
                    out: &mut inner_lv.trunk,
                    stride: m,
                    act: Activation::Identity,
                    act_from: 0,
                };
                conv_in.run(input, c, rows, &mut sh.conv, &mut store);
                run_stack(inner, Some(post), m, a, d, deeper, sh, false);
                let mut res = Epi::Residual {
                    trunk,
                    stride: c,
                    next: next_of(next, a, input, c),
                };
                conv_out.run(&deeper[0].act, m, rows, &mut sh.conv, &mut res);
            }
            FBlock::Attn(at) => {
                at.forward(trunk, c, d, sh);
                return false;
            }
            FBlock::Ffn(f) => {
                f.forward(trunk, c, d, sh);
                return false;
            }
        }
        next.is_some()
    }
}

fn grow(v: &mut Vec<f32>, n: usize) {
    if v.len() < n {
        v.resize(n, 0.0);
    }
}

/// Runs `blocks` on `levels[0].trunk` (width `c`); `ready` says whether
/// `levels[0].act` already holds the first block's input. With `tail`,
/// ends with `levels[0].act = act(tail(trunk))`.
#[allow(clippy::too_many_arguments)]
pub fn run_stack(
    blocks: &[FBlock],
    tail: Option<&Norm>,
    c: usize,
    a: Activation,
    d: Dims,
    levels: &mut [Level],
    sh: &mut Shared,
    mut ready: bool,
) {
    let rows = d.rows();
    for (i, blk) in blocks.iter().enumerate() {
        if let (Some(pre), false) = (blk.pre(), ready) {
            let lv = &mut levels[0];
            act::affine_act(&lv.trunk, c, &mut lv.act, c, rows, &pre.scale, &pre.bias, a);
        }
        let next = match blocks.get(i + 1) {
            Some(b) => b.pre(),
            None => tail,
        };
        ready = blk.forward(c, a, d, levels, sh, next);
    }
    if let (Some(t), false) = (tail, ready) {
        let lv = &mut levels[0];
        act::affine_act(&lv.trunk, c, &mut lv.act, c, rows, &t.scale, &t.bias, a);
    }
}

fn next_of<'a>(
    next: Option<&'a Norm>,
    a: Activation,
    out: &'a mut [f32],
    c: usize,
) -> Option<Next<'a>> {
    next.map(|norm| Next {
        norm,
        act: a,
        out,
        stride: c,
    })
}
