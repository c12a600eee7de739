//! The packed layers: 3×3 convolutions by Winograd ([`Conv3`]), 1×1
//! convolutions and dense layers as one matrix product ([`Mat`]), and the
//! stem's k×k convolution by im2col ([`ConvK`]). Batch norms that follow
//! a layer are folded into its weights and bias when packing; the
//! [`Epi`] given to `run` applies activation and residual.
//!
//! Activations are NHWC: `[batch·points][channels]`, a row per point.

use super::epi::{self, Epi};
use super::gemm::{matmul, View};
use super::panel::{self, Panels};
use super::winograd::{self, Variant};
use std::sync::OnceLock;

/// Buffers a layer needs while it runs; grown, never shrunk.
#[derive(Default)]
pub struct ConvScratch {
    v: Vec<f32>,
    m: Vec<f32>,
}

/// `v`'s first `n` values, grown (with zeros) when it is shorter; values
/// already there are left as they are.
pub(crate) fn grow(v: &mut Vec<f32>, n: usize) -> &mut [f32] {
    if v.len() < n {
        v.resize(n, 0.0);
    }
    &mut v[..n]
}

/// A 3×3 "same" convolution with bias, kernels in the Winograd domain of
/// the variant that the board size asks for (transformed on first use and
/// kept).
#[derive(Clone, Debug)]
pub struct Conv3 {
    pub cin: usize,
    pub cout: usize,
    /// `[cout][cin][3][3]`, output channel `o` already scaled.
    w: Vec<f32>,
    bias: Vec<f32>,
    /// `[points][cin][cout]` for F(4×4, 3×3) and for F(3×3, 3×3).
    u: [OnceLock<Vec<f32>>; 2],
    /// The same, one [`Panels`] per point, where [`panel::available`].
    panels: [OnceLock<Vec<Panels>>; 2],
}

impl Conv3 {
    /// From `[cout][cin][3][3]` weights; output channel `o` is scaled by
    /// `scale[o]` and gets `bias[o]`.
    pub fn new(w: &[f32], cin: usize, cout: usize, scale: &[f32], bias: &[f32]) -> Conv3 {
        let mut w = w[..cout * cin * 9].to_vec();
        for (o, k) in w.chunks_exact_mut(cin * 9).enumerate() {
            k.iter_mut().for_each(|x| *x *= scale[o]);
        }
        Conv3 {
            cin,
            cout,
            w,
            bias: bias.to_vec(),
            u: Default::default(),
            panels: Default::default(),
        }
    }

    /// The kernels in `variant`'s domain.
    fn kernels(&self, variant: Variant) -> &[f32] {
        let slot = match variant {
            Variant::F4 => &self.u[0],
            Variant::F3 => &self.u[1],
        };
        slot.get_or_init(|| winograd::transform_kernels(&self.w, self.cin, self.cout, variant))
    }

    /// The kernels in `variant`'s domain as panels, one per point.
    fn panels(&self, variant: Variant) -> &[Panels] {
        let slot = match variant {
            Variant::F4 => &self.panels[0],
            Variant::F3 => &self.panels[1],
        };
        slot.get_or_init(|| {
            self.kernels(variant)
                .chunks_exact(self.cin * self.cout)
                .map(|u| Panels::new(u, self.cin, self.cout, None))
                .collect()
        })
    }

    /// Runs on `input` (`cin` channels at row stride `stride`) of `batch`
    /// boards of `h`×`w`.
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &self,
        input: &[f32],
        stride: usize,
        batch: usize,
        h: usize,
        w: usize,
        s: &mut ConvScratch,
        epi: &mut Epi,
    ) {
        let variant = Variant::for_board(h, w);
        let points = variant.points();
        let nt = batch * variant.tiles(h) * variant.tiles(w);
        let (cin, cout) = (self.cin, self.cout);
        let v = grow(&mut s.v, points * nt * cin);
        winograd::input_transform(variant, input, stride, cin, batch, h, w, v);
        let m = grow(&mut s.m, points * nt * cout);
        for xi in 0..points {
            let (vx, mx) = (
                &v[xi * nt * cin..(xi + 1) * nt * cin],
                &mut m[xi * nt * cout..(xi + 1) * nt * cout],
            );
            if panel::available() {
                self.panels(variant)[xi].product(nt, vx, cin, mx, cout, false);
            } else {
                let u = &self.kernels(variant)[xi * cin * cout..(xi + 1) * cin * cout];
                let (a, b) = (View::rows(vx, cin), View::rows(u, cout));
                matmul(nt, cout, cin, a, b, mx, cout, false);
            }
        }
        winograd::output_transform(variant, m, cout, batch, h, w, &self.bias, epi);
    }
}

/// A matrix `[cin][cout]` with bias: a 1×1 convolution or a dense layer.
#[derive(Clone, Debug)]
pub struct Mat {
    pub cin: usize,
    pub cout: usize,
    pub w: Vec<f32>,
    pub bias: Vec<f32>,
    /// `w` packed for [`super::panel`] (on first use, where available).
    panels: OnceLock<Panels>,
}

impl Mat {
    /// From `[cin][cout]` (dense layout), columns scaled by `scale`.
    pub fn dense(w: &[f32], cin: usize, cout: usize, scale: &[f32], bias: &[f32]) -> Mat {
        let mut m = w.to_vec();
        for row in m.chunks_exact_mut(cout) {
            for (x, s) in row.iter_mut().zip(scale) {
                *x *= s;
            }
        }
        Mat {
            cin,
            cout,
            w: m,
            bias: bias.to_vec(),
            panels: OnceLock::new(),
        }
    }

    /// From `[cout][cin][1][1]` (convolution layout).
    pub fn conv1(w: &[f32], cin: usize, cout: usize, scale: &[f32], bias: &[f32]) -> Mat {
        let mut t = vec![0f32; cin * cout];
        for o in 0..cout {
            for i in 0..cin {
                t[i * cout + o] = w[o * cin + i] * scale[o];
            }
        }
        Mat {
            cin,
            cout,
            w: t,
            bias: bias.to_vec(),
            panels: OnceLock::new(),
        }
    }

    /// Joins two layers on the same input into one (outputs side by side).
    pub fn concat(a: &Mat, b: &Mat) -> Mat {
        let cout = a.cout + b.cout;
        let mut w = Vec::with_capacity(a.cin * cout);
        for i in 0..a.cin {
            w.extend_from_slice(&a.w[i * a.cout..(i + 1) * a.cout]);
            w.extend_from_slice(&b.w[i * b.cout..(i + 1) * b.cout]);
        }
        let mut bias = a.bias.clone();
        bias.extend_from_slice(&b.bias);
        Mat {
            cin: a.cin,
            cout,
            w,
            bias,
            panels: OnceLock::new(),
        }
    }

    /// `out[r] = input[r] · w + bias` for `rows` rows (input row stride
    /// `stride`, output rows of `cout`), without an epilogue.
    pub fn apply(&self, input: &[f32], stride: usize, rows: usize, out: &mut [f32]) {
        self.product(input, stride, rows, out, true);
    }

    /// Runs as a 1×1 convolution over `rows` points into `epi`.
    pub fn run(
        &self,
        input: &[f32],
        stride: usize,
        rows: usize,
        s: &mut ConvScratch,
        epi: &mut Epi,
    ) {
        self.run_in(input, stride, rows, &mut s.m, epi)
    }

    /// [`Mat::run`] with the product in `buf`.
    fn run_in(&self, input: &[f32], stride: usize, rows: usize, buf: &mut Vec<f32>, epi: &mut Epi) {
        let m = grow(buf, rows * self.cout);
        // The bias goes on in the epilogue's pass over the rows.
        self.product(input, stride, rows, m, false);
        epi::rows(m, rows, &self.bias, epi);
    }

    /// The weights and bias packed for [`panel`] (on first use).
    fn panels(&self) -> &Panels {
        self.panels
            .get_or_init(|| Panels::new(&self.w, self.cin, self.cout, Some(&self.bias)))
    }

    /// `out[r] = input[r] · w` (`+ bias` when `with_bias`) for `rows`
    /// rows (input row stride `stride`, output rows of `cout`): the packed
    /// product where this CPU runs it (the bias starting its sums), the
    /// `gemm` crate elsewhere.
    fn product(&self, input: &[f32], stride: usize, rows: usize, out: &mut [f32], with_bias: bool) {
        if panel::available() {
            self.panels()
                .product(rows, input, stride, out, self.cout, with_bias);
            return;
        }
        matmul(
            rows,
            self.cout,
            self.cin,
            View::rows(input, stride),
            View::rows(&self.w, self.cout),
            out,
            self.cout,
            false,
        );
        if with_bias {
            for row in out[..rows * self.cout].chunks_exact_mut(self.cout) {
                for (x, b) in row.iter_mut().zip(&self.bias) {
                    *x += b;
                }
            }
        }
    }
}

/// A k×k "same" convolution (the stem), by im2col and one product.
#[derive(Clone, Debug)]
pub struct ConvK {
    k: usize,
    mat: Mat,
}

impl ConvK {
    /// From `[cout][cin][k][k]` weights.
    pub fn new(w: &[f32], cin: usize, cout: usize, k: usize) -> ConvK {
        let kk = k * k;
        let mut t = vec![0f32; kk * cin * cout];
        for o in 0..cout {
            for i in 0..cin {
                for q in 0..kk {
                    t[(q * cin + i) * cout + o] = w[(o * cin + i) * kk + q];
                }
            }
        }
        ConvK {
            k,
            mat: Mat {
                cin: kk * cin,
                cout,
                w: t,
                bias: vec![0.0; cout],
                panels: OnceLock::new(),
            },
        }
    }

    /// Runs on `input` NHWC (`cin` channels, packed) into `epi`.
    pub fn run(
        &self,
        input: &[f32],
        batch: usize,
        h: usize,
        w: usize,
        s: &mut ConvScratch,
        epi: &mut Epi,
    ) {
        let (k, kk) = (self.k, self.k * self.k);
        let cin = self.mat.cin / kk;
        let pad = k / 2;
        let rows = batch * h * w;
        let cols = grow(&mut s.v, rows * kk * cin);
        for b in 0..batch {
            for y in 0..h {
                for x in 0..w {
                    let r = (b * h + y) * w + x;
                    for dy in 0..k {
                        for dx in 0..k {
                            let dst = &mut cols[(r * kk + dy * k + dx) * cin..][..cin];
                            let (yy, xx) = (
                                (y + dy) as isize - pad as isize,
                                (x + dx) as isize - pad as isize,
                            );
                            if yy >= 0 && (yy as usize) < h && xx >= 0 && (xx as usize) < w {
                                let src = ((b * h + yy as usize) * w + xx as usize) * cin;
                                dst.copy_from_slice(&input[src..src + cin]);
                            } else {
                                dst.fill(0.0);
                            }
                        }
                    }
                }
            }
        }
        self.mat
            .run_in(&s.v[..rows * kk * cin], kk * cin, rows, &mut s.m, epi);
    }
}
