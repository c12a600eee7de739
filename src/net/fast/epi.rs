//! What a convolution does with its output, fused into the pass that
//! produces it: store with an activation, or add to the residual trunk
//! and at once compute the next layer's normalised, activated input.

use super::act;
use crate::net::config::Activation;

/// A per-channel affine map `x · scale + bias` (a batch norm, folded).
#[derive(Clone, Debug)]
pub struct Norm {
    pub scale: Vec<f32>,
    pub bias: Vec<f32>,
}

/// The next layer's input, written while the trunk is updated.
pub struct Next<'a> {
    pub norm: &'a Norm,
    pub act: Activation,
    pub out: &'a mut [f32],
    pub stride: usize,
}

/// Where a convolution's output (bias included) goes; rows are points.
pub enum Epi<'a> {
    /// `out = act(y)` for channels from `act_from` on, `y` before.
    Store {
        out: &'a mut [f32],
        stride: usize,
        act: Activation,
        act_from: usize,
    },
    /// `trunk += y`, then `next.out = act(norm(trunk))` when asked.
    Residual {
        trunk: &'a mut [f32],
        stride: usize,
        next: Option<Next<'a>>,
    },
}

impl Epi<'_> {
    /// Handles the values `y` of channels `c0..c0 + y.len()` at point `p`.
    /// Inlined into a kernel that passes a whole vector (`&[f32; N]`), the
    /// length is a constant, so the copies and loops keep the values in
    /// registers (no calls to `memcpy`, no remainder loops).
    #[inline(always)]
    pub fn apply(&mut self, p: usize, c0: usize, y: &[f32]) {
        let n = y.len();
        match self {
            Epi::Store {
                out,
                stride,
                act: a,
                act_from,
            } => {
                let d = &mut out[p * *stride + c0..p * *stride + c0 + n];
                d.copy_from_slice(y);
                let from = act_from.saturating_sub(c0).min(n);
                act::apply(*a, &mut d[from..]);
            }
            Epi::Residual {
                trunk,
                stride,
                next,
            } => {
                let t = &mut trunk[p * *stride + c0..p * *stride + c0 + n];
                for (t, v) in t.iter_mut().zip(y) {
                    *t += v;
                }
                if let Some(nx) = next {
                    let o = &mut nx.out[p * nx.stride + c0..p * nx.stride + c0 + n];
                    let s = &nx.norm.scale[c0..c0 + n];
                    let b = &nx.norm.bias[c0..c0 + n];
                    for i in 0..n {
                        o[i] = t[i] * s[i] + b[i];
                    }
                    act::apply(nx.act, o);
                }
            }
        }
    }
}

super::simd::multiversion! {
    /// Adds `bias` to each of `rows` rows of `src` (row stride `bias.len()`)
    /// and hands row `r` to `epi` as point `r`.
    pub fn rows(src: &mut [f32], rows: usize, bias: &[f32], epi: &mut Epi) {
        let n = bias.len();
        for r in 0..rows {
            let row = &mut src[r * n..(r + 1) * n];
            for (x, b) in row.iter_mut().zip(bias) {
                *x += b;
            }
            epi.apply(r, 0, row);
        }
    }
}
