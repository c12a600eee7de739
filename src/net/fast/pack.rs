//! Packing a burn [`Net`] for the fast path: weights read back once,
//! norms folded into the layers before them, layouts changed to the
//! fast path's.

use std::sync::Mutex;

use burn::module::Param;
use burn::tensor::Tensor;

use super::blocks::FBlock;
use super::conv::{Conv3, ConvK, Mat};
use super::epi::Norm;
use super::heads::Heads;
use super::transformer::{Attn, Ffn};
use super::{FastNet, Tip};
use crate::net::blocks::Block;
use crate::net::config::TrunkNorm;
use crate::net::error::NetError;
use crate::net::layers::{Affine, Conv, Dense};
use crate::net::model::Net;

fn host<const D: usize>(p: &Param<Tensor<D>>) -> Vec<f32> {
    p.val().into_data().iter::<f32>().collect()
}

fn norm(a: &Affine) -> Norm {
    Norm {
        scale: host(&a.scale),
        bias: host(&a.bias),
    }
}

fn dims(c: &Conv) -> [usize; 4] {
    c.weight.dims()
}

/// A 3×3 convolution followed by `after` (folded), or by nothing.
fn conv3(c: &Conv, after: Option<&Norm>) -> Result<Conv3, NetError> {
    let [cout, cin, kh, kw] = dims(c);
    if (kh, kw) != (3, 3) {
        return Err(NetError::Unsupported(format!(
            "fast path: block convolution of {kh}x{kw}, expected 3x3"
        )));
    }
    let ones = vec![1.0; cout];
    let zeros = vec![0.0; cout];
    let (s, b) = after.map_or((&ones, &zeros), |n| (&n.scale, &n.bias));
    Ok(Conv3::new(&host(&c.weight), cin, cout, s, b))
}

/// A 1×1 convolution followed by `after` (folded), or by nothing.
fn conv1(c: &Conv, after: Option<&Norm>) -> Result<Mat, NetError> {
    let [cout, cin, kh, kw] = dims(c);
    if (kh, kw) != (1, 1) {
        return Err(NetError::Unsupported(format!(
            "fast path: head convolution of {kh}x{kw}, expected 1x1"
        )));
    }
    let ones = vec![1.0; cout];
    let zeros = vec![0.0; cout];
    let (s, b) = after.map_or((&ones, &zeros), |n| (&n.scale, &n.bias));
    Ok(Mat::conv1(&host(&c.weight), cin, cout, s, b))
}

/// A dense layer with its bias, columns scaled by `scale` when given.
fn dense(d: &Dense, scale: Option<&[f32]>) -> Mat {
    let [cin, cout] = d.weight.dims();
    let ones = vec![1.0; cout];
    let bias = d.bias.as_ref().map_or(vec![0.0; cout], host);
    Mat::dense(&host(&d.weight), cin, cout, scale.unwrap_or(&ones), &bias)
}

/// The widest buffer row a block needs (beyond the trunk).
fn width(b: &FBlock) -> usize {
    match b {
        FBlock::Res { conv1, .. } => conv1.cout,
        FBlock::Gpool { mid, gpool, .. } => mid + gpool,
        FBlock::Nested { conv_in, inner, .. } => {
            inner.iter().map(width).fold(conv_in.cout, usize::max)
        }
        FBlock::Attn(a) => a.width(),
        FBlock::Ffn(f) => f.width(),
    }
}

fn block(b: &Block) -> Result<FBlock, NetError> {
    if let Some(r) = &b.res {
        let mid = norm(&r.mid);
        return Ok(FBlock::Res {
            pre: norm(&r.pre),
            conv1: conv3(&r.conv1, Some(&mid))?,
            conv2: conv3(&r.conv2, None)?,
        });
    }
    if let Some(g) = &b.gpool {
        let mid = norm(&g.mid);
        let gn = norm(&g.gpool_norm);
        let [m, cin, _, _] = dims(&g.conv_regular);
        let [gp, _, _, _] = dims(&g.conv_gpool);
        // Both convolutions read the same input: one kernel set, the
        // regular outputs first.
        let mut w = host(&g.conv_regular.weight);
        w.extend(host(&g.conv_gpool.weight));
        let scale: Vec<f32> = mid.scale.iter().chain(&gn.scale).copied().collect();
        let bias: Vec<f32> = mid.bias.iter().chain(&gn.bias).copied().collect();
        if dims(&g.conv_regular)[2..] != [3, 3] || dims(&g.conv_gpool)[2..] != [3, 3] {
            return Err(NetError::Unsupported(
                "fast path: global-pooling convolutions must be 3x3".into(),
            ));
        }
        return Ok(FBlock::Gpool {
            pre: norm(&g.pre),
            conv: Conv3::new(&w, cin, m + gp, &scale, &bias),
            mid: m,
            gpool: gp,
            to_bias: dense(&g.gpool_to_bias, Some(&mid.scale)),
            conv2: conv3(&g.conv2, None)?,
        });
    }
    if let Some(nb) = &b.nested {
        return Ok(FBlock::Nested {
            pre: norm(&nb.pre),
            conv_in: conv1(&nb.conv_in, None)?,
            inner: nb.inner.iter().map(block).collect::<Result<_, _>>()?,
            post: norm(&nb.post),
            conv_out: conv1(&nb.conv_out, None)?,
        });
    }
    if let Some(at) = &b.attn {
        let [heads, kv, dq, _] = at.shape;
        if heads == 0 || kv == 0 || heads % kv != 0 || dq % 2 != 0 {
            return Err(NetError::Unsupported(format!(
                "fast path: attention with {heads} heads, {kv} key/value heads, query dim {dq}"
            )));
        }
        return Ok(FBlock::Attn(Box::new(Attn::new(
            host(&at.norm),
            dense(&at.q, None),
            dense(&at.k, None),
            dense(&at.v, None),
            dense(&at.out, None),
            host(&at.rope),
            at.shape,
        ))));
    }
    if let Some(f) = &b.ffn {
        return Ok(FBlock::Ffn(Box::new(Ffn::new(
            host(&f.norm),
            dense(&f.linear1, None),
            dense(&f.gate, None),
            dense(&f.linear2, None),
        ))));
    }
    Err(NetError::Unsupported("fast path: empty block".into()))
}

/// Packs `net`.
pub fn pack(net: &Net) -> Result<FastNet, NetError> {
    let cfg = net.config().clone();
    let c = cfg.trunk;
    let [sc, planes, k, k2] = dims(&net.stem);
    if k != k2 || k % 2 == 0 {
        return Err(NetError::Unsupported(format!(
            "fast path: stem kernel {k}x{k2}, expected odd and square"
        )));
    }
    let stem = ConvK::new(&host(&net.stem.weight), planes, sc, k);
    let stem_global = dense(&net.stem_global, None);
    let blocks: Vec<FBlock> = net.blocks.iter().map(block).collect::<Result<_, _>>()?;
    let tip = match (&net.tip.bn, &net.tip.gamma, &net.tip.beta, cfg.trunk_norm) {
        (Some(bn), _, _, _) => Tip::Bn(norm(bn)),
        (None, Some(g), Some(b), TrunkNorm::SpatialRmsNorm { epsilon }) => Tip::Rms {
            gamma: host(g),
            beta: host(b),
            eps: epsilon,
        },
        _ => {
            return Err(NetError::Unsupported(
                "fast path: unknown trunk norm".into(),
            ))
        }
    };
    let ph = &net.policy;
    let norm_p = norm(&ph.norm_p);
    let norm_g = norm(&ph.norm_g);
    let p = dims(&ph.conv_p)[0];
    let heads = Heads {
        p,
        outs: dims(&ph.conv_out)[0],
        pg: Mat::concat(
            &conv1(&ph.conv_p, Some(&norm_p))?,
            &conv1(&ph.conv_g, Some(&norm_g))?,
        ),
        g_to_bias: dense(&ph.g_to_bias, Some(&norm_p.scale)),
        conv_out: conv1(&ph.conv_out, None)?,
        pass1: dense(&ph.pass1, None),
        pass2: ph.pass2.as_ref().map(|d| dense(d, None)),
        vconv: conv1(&net.value.conv, Some(&norm(&net.value.norm)))?,
        fc: dense(&net.value.fc, None),
        value: dense(&net.value.value, None),
        misc: dense(&net.value.misc, None),
        ownership: conv1(&net.value.ownership, None)?,
    };
    let depth = blocks.iter().map(FBlock::depth).max().unwrap_or(1);
    let width = blocks.iter().map(width).fold(c, usize::max);
    Ok(FastNet {
        config: cfg,
        stem,
        stem_global,
        blocks,
        tip,
        heads,
        depth,
        width,
        pool: Mutex::new(Vec::new()),
    })
}
