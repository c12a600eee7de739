//! Winograd F(4×4, 3×3) for the 3×3 "same" convolutions: each 6×6 input
//! tile and 3×3 kernel is transformed so that 16 outputs cost 36
//! multiplies per (input, output) channel pair instead of 144; the 36
//! products become 36 matrix products over all tiles of the batch (see
//! [`super::conv::Conv3`]). Lavin & Gray's matrices (interpolation points
//! 0, ±1, ±2, ∞); fp32 error about 1e-6 relative on the nets here.
//!
//! Layouts: inputs NHWC with a row stride per point; transformed inputs
//! `[36][tiles][cin]`, products `[36][tiles][cout]`, kernels
//! `[36][cin][cout]`. Tiles run over the batch, then rows, then columns.

use super::epi::Epi;

/// Channels handled together by the transforms (an AVX-512 vector).
const CB: usize = 16;

/// G, 6×3: the kernel transform.
const G: [[f32; 3]; 6] = [
    [0.25, 0.0, 0.0],
    [-1.0 / 6.0, -1.0 / 6.0, -1.0 / 6.0],
    [-1.0 / 6.0, 1.0 / 6.0, -1.0 / 6.0],
    [1.0 / 24.0, 1.0 / 12.0, 1.0 / 6.0],
    [1.0 / 24.0, -1.0 / 12.0, 1.0 / 6.0],
    [0.0, 0.0, 1.0],
];

/// Tiles per side for `len` points.
pub fn tiles(len: usize) -> usize {
    len.div_ceil(4)
}

/// Transforms `[cout][cin][3][3]` kernels, output channel `o` scaled by
/// `scale[o]`, to `[36][cin][cout]`.
pub fn transform_kernels(w: &[f32], cin: usize, cout: usize, scale: &[f32]) -> Vec<f32> {
    let mut u = vec![0f32; 36 * cin * cout];
    for o in 0..cout {
        for i in 0..cin {
            let g = &w[(o * cin + i) * 9..(o * cin + i) * 9 + 9];
            // t = G g (6×3), then u = t Gᵀ (6×6), in f64.
            let mut t = [[0f64; 3]; 6];
            for (r, tr) in t.iter_mut().enumerate() {
                for (c, tv) in tr.iter_mut().enumerate() {
                    *tv = (0..3).map(|k| G[r][k] as f64 * g[k * 3 + c] as f64).sum();
                }
            }
            for r in 0..6 {
                for s in 0..6 {
                    let v: f64 = (0..3).map(|k| t[r][k] * G[s][k] as f64).sum();
                    u[((r * 6 + s) * cin + i) * cout + o] = (v * scale[o] as f64) as f32;
                }
            }
        }
    }
    u
}

/// Bᵀ x for six channel vectors.
#[inline(always)]
fn bt(x: [&[f32; CB]; 6], y: [&mut [f32; CB]; 6]) {
    let [y0, y1, y2, y3, y4, y5] = y;
    for c in 0..CB {
        let (a0, a1, a2, a3, a4, a5) = (x[0][c], x[1][c], x[2][c], x[3][c], x[4][c], x[5][c]);
        y0[c] = 4.0 * a0 - 5.0 * a2 + a4;
        y1[c] = -4.0 * (a1 + a2) + a3 + a4;
        y2[c] = 4.0 * (a1 - a2) - a3 + a4;
        y3[c] = 2.0 * (a3 - a1) - a2 + a4;
        y4[c] = 2.0 * (a1 - a3) - a2 + a4;
        y5[c] = 4.0 * a1 - 5.0 * a3 + a5;
    }
}

/// Aᵀ m for six channel vectors, four results.
#[inline(always)]
fn at(m: [&[f32; CB]; 6], y: [&mut [f32; CB]; 4]) {
    let [y0, y1, y2, y3] = y;
    for c in 0..CB {
        let (a0, a1, a2, a3, a4, a5) = (m[0][c], m[1][c], m[2][c], m[3][c], m[4][c], m[5][c]);
        let (s12, d12, s34, d34) = (a1 + a2, a1 - a2, a3 + a4, a3 - a4);
        y0[c] = a0 + s12 + s34;
        y1[c] = d12 + 2.0 * d34;
        y2[c] = s12 + 4.0 * s34;
        y3[c] = d12 + 8.0 * d34 + a5;
    }
}

super::simd::multiversion! {
    /// Bᵀ d B for every 6×6 tile of `cin` channels (row stride `stride`)
    /// of a `batch`×`h`×`w` input, zero outside the board, into `v`.
    pub fn input_transform(
        input: &[f32],
        stride: usize,
        cin: usize,
        batch: usize,
        h: usize,
        w: usize,
        v: &mut [f32],
    ) {
        let (ty, tx) = (tiles(h), tiles(w));
        let nt = batch * ty * tx;
        let mut d = [[0f32; CB]; 36];
        let mut t = [[0f32; CB]; 36];
        let mut out = [[0f32; CB]; 36];
        for b in 0..batch {
            for yt in 0..ty {
                for xt in 0..tx {
                    let tile = (b * ty + yt) * tx + xt;
                    for c0 in (0..cin).step_by(CB) {
                        let cw = CB.min(cin - c0);
                        for i in 0..6 {
                            let y = (4 * yt + i) as isize - 1;
                            for j in 0..6 {
                                let x = (4 * xt + j) as isize - 1;
                                let dst = &mut d[i * 6 + j];
                                if y >= 0 && (y as usize) < h && x >= 0 && (x as usize) < w {
                                    let p = (b * h + y as usize) * w + x as usize;
                                    dst[..cw].copy_from_slice(&input[p * stride + c0..p * stride + c0 + cw]);
                                    dst[cw..].fill(0.0);
                                } else {
                                    dst.fill(0.0);
                                }
                            }
                        }
                        // Columns: t[r][j] = Σ_i Bᵀ[r][i] d[i][j].
                        for j in 0..6 {
                            let x = [&d[j], &d[6 + j], &d[12 + j], &d[18 + j], &d[24 + j], &d[30 + j]];
                            let [t0, t1, t2, t3, t4, t5] = rows6(&mut t, j, 6);
                            bt(x, [t0, t1, t2, t3, t4, t5]);
                        }
                        // Rows: out[r][s] = Σ_j t[r][j] Bᵀ[s][j].
                        for r in 0..6 {
                            let x = [&t[r * 6], &t[r * 6 + 1], &t[r * 6 + 2], &t[r * 6 + 3], &t[r * 6 + 4], &t[r * 6 + 5]];
                            let [o0, o1, o2, o3, o4, o5] = rows6(&mut out, r * 6, 1);
                            bt(x, [o0, o1, o2, o3, o4, o5]);
                        }
                        for (xi, o) in out.iter().enumerate() {
                            let off = (xi * nt + tile) * cin + c0;
                            v[off..off + cw].copy_from_slice(&o[..cw]);
                        }
                    }
                }
            }
        }
    }
}

super::simd::multiversion! {
    /// Aᵀ M A for every tile of the products `m` (`cout` channels), plus
    /// `bias`, handed point by point to `epi` (points outside the board
    /// are dropped).
    pub fn output_transform(
        m: &[f32],
        cout: usize,
        batch: usize,
        h: usize,
        w: usize,
        bias: &[f32],
        epi: &mut Epi,
    ) {
        let (ty, tx) = (tiles(h), tiles(w));
        let nt = batch * ty * tx;
        let mut g = [[0f32; CB]; 36];
        let mut t = [[0f32; CB]; 24];
        let mut o = [[0f32; CB]; 16];
        for b in 0..batch {
            for yt in 0..ty {
                for xt in 0..tx {
                    let tile = (b * ty + yt) * tx + xt;
                    for c0 in (0..cout).step_by(CB) {
                        let cw = CB.min(cout - c0);
                        for (xi, gv) in g.iter_mut().enumerate() {
                            let off = (xi * nt + tile) * cout + c0;
                            gv[..cw].copy_from_slice(&m[off..off + cw]);
                        }
                        // Columns: t[i][j] = Σ_r Aᵀ[i][r] g[r][j].
                        for j in 0..6 {
                            let x = [&g[j], &g[6 + j], &g[12 + j], &g[18 + j], &g[24 + j], &g[30 + j]];
                            let [t0, t1, t2, t3] = rows4(&mut t, j, 6);
                            at(x, [t0, t1, t2, t3]);
                        }
                        // Rows: o[i][k] = Σ_j t[i][j] Aᵀ[k][j].
                        for i in 0..4 {
                            let x = [&t[i * 6], &t[i * 6 + 1], &t[i * 6 + 2], &t[i * 6 + 3], &t[i * 6 + 4], &t[i * 6 + 5]];
                            let [o0, o1, o2, o3] = rows4(&mut o, i * 4, 1);
                            at(x, [o0, o1, o2, o3]);
                        }
                        for i in 0..4 {
                            let y = 4 * yt + i;
                            if y >= h {
                                break;
                            }
                            for k in 0..4 {
                                let x = 4 * xt + k;
                                if x >= w {
                                    break;
                                }
                                let ov = &mut o[i * 4 + k];
                                for c in 0..cw {
                                    ov[c] += bias[c0 + c];
                                }
                                epi.apply((b * h + y) * w + x, c0, &ov[..cw]);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Six distinct rows `first, first + step, ...` of `a`, mutably.
#[inline(always)]
fn rows6<const N: usize>(a: &mut [[f32; CB]; N], first: usize, step: usize) -> [&mut [f32; CB]; 6] {
    let mut it = a.iter_mut().skip(first).step_by(step);
    std::array::from_fn(|_| it.next().expect("six rows"))
}

/// Four distinct rows `first, first + step, ...` of `a`, mutably.
#[inline(always)]
fn rows4<const N: usize>(a: &mut [[f32; CB]; N], first: usize, step: usize) -> [&mut [f32; CB]; 4] {
    let mut it = a.iter_mut().skip(first).step_by(step);
    std::array::from_fn(|_| it.next().expect("four rows"))
}
