//! The policy and value heads, packed: the policy head's two 1×1
//! convolutions as one product, norms folded, outputs in the order
//! [`RawOutput`] has them.

use super::act;
use super::blocks::{gpool, Dims};
use super::conv::{ConvScratch, Mat};
use super::epi::Epi;
use crate::net::config::Activation;
use crate::net::model::RawOutput;

/// Both heads.
pub struct Heads {
    pub p: usize,
    pub outs: usize,
    /// `[conv_p with norm_p's scale and bias | conv_g with norm_g]`.
    pub pg: Mat,
    /// Pooled features to the policy bias, scaled by norm_p.
    pub g_to_bias: Mat,
    pub conv_out: Mat,
    pub pass1: Mat,
    pub pass2: Option<Mat>,
    /// The value convolution with its norm.
    pub vconv: Mat,
    pub fc: Mat,
    pub value: Mat,
    pub misc: Mat,
    pub ownership: Mat,
}

/// The heads' buffers.
#[derive(Default)]
pub struct HeadScratch {
    conv: ConvScratch,
    pg: Vec<f32>,
    pooled: Vec<f32>,
    gb: Vec<f32>,
    pol: Vec<f32>,
    h1: Vec<f32>,
    v1: Vec<f32>,
    vpool: Vec<f32>,
    v2: Vec<f32>,
}

fn grow(v: &mut Vec<f32>, n: usize) -> &mut [f32] {
    if v.len() < n {
        v.resize(n, 0.0);
    }
    &mut v[..n]
}

/// KataGo's value-head pooling of `ch` channels over `n` rows: mean, mean
/// · (√n − 14) / 10, mean · ((√n − 14)² / 100 − 0.1).
fn value_pool(x: &[f32], ch: usize, n: usize, out: &mut [f32]) {
    let (mean, rest) = out.split_at_mut(ch);
    mean.fill(0.0);
    for r in 0..n {
        for (m, v) in mean.iter_mut().zip(&x[r * ch..(r + 1) * ch]) {
            *m += v;
        }
    }
    let k = (n as f32).sqrt() - 14.0;
    for i in 0..ch {
        mean[i] /= n as f32;
        rest[i] = mean[i] * (k * 0.1);
        rest[ch + i] = mean[i] * (k * k * 0.01 - 0.1);
    }
}

impl Heads {
    /// Runs both heads on the trunk's final features `t` (`c` channels).
    pub fn run(
        &self,
        t: &[f32],
        c: usize,
        a: Activation,
        d: Dims,
        s: &mut HeadScratch,
    ) -> RawOutput {
        let (n, rows, batch) = (d.points(), d.rows(), d.batch);
        let (p, outs) = (self.p, self.outs);

        // Policy: features, pooled bias, board and pass logits.
        let pg = grow(&mut s.pg, rows * 2 * p);
        let mut store = Epi::Store {
            out: pg,
            stride: 2 * p,
            act: a,
            act_from: p,
        };
        self.pg.run(t, c, rows, &mut s.conv, &mut store);
        let pg = &mut s.pg[..rows * 2 * p];
        let pooled = grow(&mut s.pooled, batch * 3 * p);
        for b in 0..batch {
            gpool(
                &pg[b * n * 2 * p..],
                2 * p,
                p,
                p,
                n,
                &mut pooled[b * 3 * p..(b + 1) * 3 * p],
            );
        }
        let gb = grow(&mut s.gb, batch * p);
        self.g_to_bias.apply(pooled, 3 * p, batch, gb);
        for b in 0..batch {
            act::bias_act(
                &mut pg[b * n * 2 * p..(b + 1) * n * 2 * p],
                2 * p,
                n,
                &gb[b * p..(b + 1) * p],
                a,
                0,
            );
        }
        let pol = grow(&mut s.pol, rows * outs);
        self.conv_out.apply(pg, 2 * p, rows, pol);
        let mut policy = vec![0f32; batch * outs * n];
        for b in 0..batch {
            for i in 0..n {
                for o in 0..outs {
                    policy[(b * outs + o) * n + i] = pol[(b * n + i) * outs + o];
                }
            }
        }
        let mut pass = vec![0f32; batch * outs];
        match &self.pass2 {
            Some(p2) => {
                let h1 = grow(&mut s.h1, batch * self.pass1.cout);
                self.pass1.apply(pooled, 3 * p, batch, h1);
                act::apply(a, h1);
                p2.apply(h1, self.pass1.cout, batch, &mut pass);
            }
            None => self.pass1.apply(pooled, 3 * p, batch, &mut pass),
        }

        // Value: features, pooled, hidden layer, outputs.
        let v = self.vconv.cout;
        let v1 = grow(&mut s.v1, rows * v);
        let mut store = Epi::Store {
            out: v1,
            stride: v,
            act: a,
            act_from: 0,
        };
        self.vconv.run(t, c, rows, &mut s.conv, &mut store);
        let v1 = &s.v1[..rows * v];
        let vpool = grow(&mut s.vpool, batch * 3 * v);
        for b in 0..batch {
            value_pool(
                &v1[b * n * v..(b + 1) * n * v],
                v,
                n,
                &mut vpool[b * 3 * v..(b + 1) * 3 * v],
            );
        }
        let vh = self.fc.cout;
        let v2 = grow(&mut s.v2, batch * vh);
        self.fc.apply(vpool, 3 * v, batch, v2);
        act::apply(a, v2);
        let mut value = vec![0f32; batch * 3];
        self.value.apply(v2, vh, batch, &mut value);
        let mut misc = vec![0f32; batch * 6];
        self.misc.apply(v2, vh, batch, &mut misc);
        let mut ownership = vec![0f32; rows];
        self.ownership.apply(v1, v, rows, &mut ownership);
        RawOutput {
            batch,
            size: d.h,
            policy_channels: outs,
            policy,
            pass,
            value,
            misc,
            ownership,
        }
    }
}
