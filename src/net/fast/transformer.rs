//! The transformer blocks on the NHWC trunk (which is already the
//! `[batch][points][channels]` sequence): pre-RMS-norm attention with
//! learnable 2-D rotary positions and grouped key/value heads, and the
//! pre-RMS-norm SwiGLU feed-forward. Both add their result to the trunk
//! in their last product's epilogue.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::act;
use super::blocks::{Dims, Shared};
use super::conv::Mat;
use super::epi::Epi;
use super::gemm::{matmul, View};
use super::panel::{self, Panels};
use crate::net::blocks::TRANSFORMER_EPS;

/// Buffers of the transformer blocks.
#[derive(Default)]
pub struct TfScratch {
    xn: Vec<f32>,
    proj: Vec<f32>,
    scores: Vec<f32>,
    merged: Vec<f32>,
    /// A key head transposed and a value head, packed for [`panel`].
    keys: Panels,
    values: Panels,
}

fn grow(v: &mut Vec<f32>, n: usize) -> &mut [f32] {
    if v.len() < n {
        v.resize(n, 0.0);
    }
    &mut v[..n]
}

/// Folds `x` with `step` in 16 independent lanes (so that the loop
/// vectorises: a single accumulator would be a serial chain), then joins
/// the lanes and the tail with `join`.
#[inline(always)]
fn lanes(
    x: &[f32],
    init: f32,
    step: impl Fn(f32, f32) -> f32,
    join: impl Fn(f32, f32) -> f32,
) -> f32 {
    let mut acc = [init; 16];
    let mut chunks = x.chunks_exact(16);
    for ch in &mut chunks {
        for i in 0..16 {
            acc[i] = step(acc[i], ch[i]);
        }
    }
    let tail = chunks.remainder().iter().fold(init, |a, &v| step(a, v));
    acc.iter().fold(tail, |a, &b| join(a, b))
}

super::simd::multiversion! {
    /// `out = x / rms(x) · weight` per row of `weight.len()` channels.
    fn rms_norm(x: &[f32], rows: usize, weight: &[f32], out: &mut [f32]) {
        let c = weight.len();
        for r in 0..rows {
            let xr = &x[r * c..(r + 1) * c];
            let ms = lanes(xr, 0.0, |a, v| a + v * v, |a, b| a + b) / c as f32;
            let inv = 1.0 / (ms + TRANSFORMER_EPS).sqrt();
            for ((o, v), g) in out[r * c..(r + 1) * c].iter_mut().zip(xr).zip(weight) {
                *o = v * inv * g;
            }
        }
    }
}

super::simd::multiversion! {
    /// Softmax of each of `rows` rows of `n`, scaled by `scale` first.
    fn softmax_rows(s: &mut [f32], rows: usize, n: usize, scale: f32) {
        for r in 0..rows {
            let row = &mut s[r * n..(r + 1) * n];
            let max = lanes(row, f32::NEG_INFINITY, f32::max, f32::max) * scale;
            for v in row.iter_mut() {
                *v = act::exp_with::<FMA>(*v * scale - max);
            }
            let inv = 1.0 / lanes(row, 0.0, |a, v| a + v, |a, b| a + b);
            row.iter_mut().for_each(|v| *v *= inv);
        }
    }
}

super::simd::multiversion! {
    /// Rotates the query heads (each with its key/value head's angles) and
    /// the key heads of each of `rows` rows of `width` (`[q heads | k heads
    /// | v heads]`, `heads = [q heads, kv heads, head width]`), in pairs of
    /// channels (2p, 2p + 1), by the angles of the row's point.
    fn rotate_rows(
        proj: &mut [f32],
        rows: usize,
        n: usize,
        width: usize,
        heads: [usize; 3],
        cos: &[f32],
        sin: &[f32],
    ) {
        let [hq, kv, dq] = heads;
        let pairs = dq / 2;
        for r in 0..rows {
            let pt = r % n;
            let row = &mut proj[r * width..(r + 1) * width];
            for head in 0..hq + kv {
                let kh = if head < hq { head * kv / hq } else { head - hq };
                let t = (kh * n + pt) * pairs;
                let x = &mut row[head * dq..(head + 1) * dq];
                for ((pair, c), s) in x
                    .chunks_exact_mut(2)
                    .zip(&cos[t..t + pairs])
                    .zip(&sin[t..t + pairs])
                {
                    let (x0, x1) = (pair[0], pair[1]);
                    pair[0] = x0 * c - x1 * s;
                    pair[1] = x0 * s + x1 * c;
                }
            }
        }
    }
}

/// Cos and sin of the rotary angles, `[kv_heads][points][pairs]`.
struct Rope {
    cos: Vec<f32>,
    sin: Vec<f32>,
}

/// An attention block.
pub struct Attn {
    norm: Vec<f32>,
    /// q, k and v projections as one matrix.
    qkv: Mat,
    out: Mat,
    /// `[kv_heads][pairs][2]` (x, y) frequencies.
    freqs: Vec<f32>,
    heads: usize,
    kv_heads: usize,
    dq: usize,
    dv: usize,
    rope: Mutex<HashMap<(usize, usize), Arc<Rope>>>,
}

impl Attn {
    /// From the burn block's weights (`[in][out]` projections).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        norm: Vec<f32>,
        q: Mat,
        k: Mat,
        v: Mat,
        out: Mat,
        freqs: Vec<f32>,
        shape: [usize; 4],
    ) -> Attn {
        let [heads, kv_heads, dq, dv] = shape;
        Attn {
            norm,
            qkv: Mat::concat(&Mat::concat(&q, &k), &v),
            out,
            freqs,
            heads,
            kv_heads,
            dq,
            dv,
            rope: Mutex::new(HashMap::new()),
        }
    }

    /// The widest row this block writes.
    pub fn width(&self) -> usize {
        self.qkv.cout.max(self.heads * self.dv)
    }

    fn rope(&self, h: usize, w: usize) -> Arc<Rope> {
        // A poisoned lock only means another thread panicked after a
        // complete insert; the map is still good.
        let mut map = self.rope.lock().unwrap_or_else(|e| e.into_inner());
        map.entry((h, w))
            .or_insert_with(|| {
                let pairs = self.dq / 2;
                let n = h * w;
                let mut cos = vec![0f32; self.kv_heads * n * pairs];
                let mut sin = cos.clone();
                for kh in 0..self.kv_heads {
                    for y in 0..h {
                        for x in 0..w {
                            for p in 0..pairs {
                                let fx = self.freqs[(kh * pairs + p) * 2];
                                let fy = self.freqs[(kh * pairs + p) * 2 + 1];
                                let angle = x as f32 * fx + y as f32 * fy;
                                let i = (kh * n + y * w + x) * pairs + p;
                                cos[i] = angle.cos();
                                sin[i] = angle.sin();
                            }
                        }
                    }
                }
                Arc::new(Rope { cos, sin })
            })
            .clone()
    }

    /// `trunk += attention(rms_norm(trunk))`.
    pub fn forward(&self, trunk: &mut [f32], c: usize, d: Dims, sh: &mut Shared) {
        let (n, rows) = (d.points(), d.rows());
        let (hq, kv, dq, dv) = (self.heads, self.kv_heads, self.dq, self.dv);
        let width = self.qkv.cout;
        let (k_off, v_off) = (hq * dq, hq * dq + kv * dq);
        let tf = &mut sh.tf;
        let xn = grow(&mut tf.xn, rows * c);
        rms_norm(trunk, rows, &self.norm, xn);
        let proj = grow(&mut tf.proj, rows * width);
        self.qkv.apply(xn, c, rows, proj);
        let rope = self.rope(d.h, d.w);
        rotate_rows(proj, rows, n, width, [hq, kv, dq], &rope.cos, &rope.sin);
        let hv = hq * dv;
        let scores = grow(&mut tf.scores, n * n);
        let merged = grow(&mut tf.merged, rows * hv);
        let scale = 1.0 / (dq as f32).sqrt();
        let group = hq / kv;
        let packed = panel::available();
        for b in 0..d.batch {
            let base = b * n * width;
            for kh in 0..kv {
                let keys = &proj[base + k_off + kh * dq..];
                let values = &proj[base + v_off + kh * dv..];
                if packed {
                    // Packed once for the query heads that share them.
                    tf.keys.pack(keys, 1, width, dq, n);
                    tf.values.pack(values, width, 1, n, dv);
                }
                for head in kh * group..(kh + 1) * group {
                    let q = &proj[base + head * dq..];
                    let dst = &mut merged[b * n * hv + head * dv..];
                    if packed {
                        tf.keys.product(n, q, width, scores, n, false);
                    } else {
                        let kt = View {
                            data: keys,
                            rs: 1,
                            cs: width,
                        };
                        matmul(n, n, dq, View::rows(q, width), kt, scores, n, false);
                    }
                    softmax_rows(scores, n, n, scale);
                    if packed {
                        tf.values.product(n, scores, n, dst, hv, false);
                    } else {
                        let v = View::rows(values, width);
                        matmul(n, dv, n, View::rows(scores, n), v, dst, hv, false);
                    }
                }
            }
        }
        let mut res = Epi::Residual {
            trunk,
            stride: c,
            next: None,
        };
        self.out.run(merged, hv, rows, &mut sh.conv, &mut res);
    }
}

/// A SwiGLU feed-forward block.
pub struct Ffn {
    norm: Vec<f32>,
    /// linear1 and gate as one matrix.
    up: Mat,
    down: Mat,
}

impl Ffn {
    pub fn new(norm: Vec<f32>, linear1: Mat, gate: Mat, linear2: Mat) -> Ffn {
        Ffn {
            norm,
            up: Mat::concat(&linear1, &gate),
            down: linear2,
        }
    }

    /// The widest row this block writes.
    pub fn width(&self) -> usize {
        self.up.cout
    }

    /// `trunk += linear2(silu(linear1(x)) · gate(x))`, x the normed trunk.
    pub fn forward(&self, trunk: &mut [f32], c: usize, d: Dims, sh: &mut Shared) {
        let rows = d.rows();
        let hidden = self.down.cin;
        let tf = &mut sh.tf;
        let xn = grow(&mut tf.xn, rows * c);
        rms_norm(trunk, rows, &self.norm, xn);
        let proj = grow(&mut tf.proj, rows * 2 * hidden);
        self.up.apply(xn, c, rows, proj);
        swiglu(proj, rows, hidden);
        let mut res = Epi::Residual {
            trunk,
            stride: c,
            next: None,
        };
        self.down
            .run(proj, 2 * hidden, rows, &mut sh.conv, &mut res);
    }
}

super::simd::multiversion! {
    /// In each row `[a | g]` of `2·hidden`, `a = silu(a) · g`.
    fn swiglu(p: &mut [f32], rows: usize, hidden: usize) {
        for r in 0..rows {
            let (a, g) = p[r * 2 * hidden..(r + 1) * 2 * hidden].split_at_mut(hidden);
            for (x, y) in a.iter_mut().zip(g.iter()) {
                *x = act::silu_with::<FMA>(*x) * y;
            }
        }
    }
}
