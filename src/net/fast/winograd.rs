//! Winograd transforms for the 3×3 "same" convolutions, in two sizes:
//!
//! - F(4×4, 3×3): each 6×6 input tile gives 16 outputs for 36 multiplies
//!   per (input, output) channel pair instead of 144 (interpolation points
//!   0, ±1, ±2, ∞; Lavin & Gray).
//! - F(3×3, 3×3): each 5×5 tile gives 9 outputs for 25 multiplies instead
//!   of 81 (points 0, ±1, 2, ∞). On 9×9 its tiles cover the board exactly,
//!   where F(4×4)'s cover 12×12: 225 transformed points per channel
//!   against 324, so it is the faster one there.
//!
//! [`Variant::for_board`] picks the one with fewer transformed points. The
//! per-point products become one matrix product per tile point over all
//! tiles of the batch (see [`super::conv::Conv3`]). fp32 error about 1e-6
//! relative on the nets here.
//!
//! Layouts: inputs NHWC with a row stride per point; transformed inputs
//! `[points][tiles][cin]`, products `[points][tiles][cout]`, kernels
//! `[points][cin][cout]`. Tiles run over the batch, then rows, then
//! columns.

use super::epi::Epi;

/// Channels handled together by the transforms (an AVX-512 vector).
const CB: usize = 16;

/// `N` channel vectors on cache-line boundaries: a vector that straddles
/// two lines costs a split load or store, and these are stored often.
#[repr(C, align(64))]
struct Vecs<const N: usize>([[f32; CB]; N]);

impl<const N: usize> Vecs<N> {
    fn new() -> Self {
        Vecs([[0.0; CB]; N])
    }
}

/// A vector of zeros: the points of a tile that are off the board.
static ZERO: Vecs<1> = Vecs([[0.0; CB]; 1]);

/// Which Winograd transform a convolution runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// F(4×4, 3×3) on 6×6 tiles.
    F4,
    /// F(3×3, 3×3) on 5×5 tiles.
    F3,
}

impl Variant {
    /// Output points per tile side.
    pub fn out(self) -> usize {
        match self {
            Variant::F4 => 4,
            Variant::F3 => 3,
        }
    }

    /// Points of a transformed tile (one matrix product each).
    pub fn points(self) -> usize {
        let t = self.out() + 2;
        t * t
    }

    /// Tiles per side for `len` points.
    pub fn tiles(self, len: usize) -> usize {
        len.div_ceil(self.out())
    }

    /// The variant with fewer transformed points (so fewer multiplies)
    /// for an `h`×`w` board; F(4×4) on a tie.
    pub fn for_board(h: usize, w: usize) -> Variant {
        let cost = |v: Variant| v.tiles(h) * v.tiles(w) * v.points();
        if cost(Variant::F3) < cost(Variant::F4) {
            Variant::F3
        } else {
            Variant::F4
        }
    }

    /// G, the kernel transform (rows of three).
    fn g(self) -> &'static [[f32; 3]] {
        match self {
            Variant::F4 => &G4,
            Variant::F3 => &G3,
        }
    }
}

/// G for F(4×4, 3×3), 6×3.
const G4: [[f32; 3]; 6] = [
    [0.25, 0.0, 0.0],
    [-1.0 / 6.0, -1.0 / 6.0, -1.0 / 6.0],
    [-1.0 / 6.0, 1.0 / 6.0, -1.0 / 6.0],
    [1.0 / 24.0, 1.0 / 12.0, 1.0 / 6.0],
    [1.0 / 24.0, -1.0 / 12.0, 1.0 / 6.0],
    [0.0, 0.0, 1.0],
];

/// G for F(3×3, 3×3), 5×3.
const G3: [[f32; 3]; 5] = [
    [0.5, 0.0, 0.0],
    [0.5, 0.5, 0.5],
    [1.0 / 6.0, -1.0 / 6.0, 1.0 / 6.0],
    [1.0 / 6.0, 1.0 / 3.0, 2.0 / 3.0],
    [0.0, 0.0, 1.0],
];

/// Transforms `[cout][cin][3][3]` kernels to `[points][cin][cout]` for
/// `variant`.
pub fn transform_kernels(w: &[f32], cin: usize, cout: usize, variant: Variant) -> Vec<f32> {
    let g_mat = variant.g();
    let t_len = g_mat.len();
    let mut u = vec![0f32; t_len * t_len * cin * cout];
    for o in 0..cout {
        for i in 0..cin {
            let g = &w[(o * cin + i) * 9..(o * cin + i) * 9 + 9];
            // t = G g (T×3), then u = t Gᵀ (T×T), in f64.
            let mut t = [[0f64; 3]; 6];
            for (tr, gr) in t.iter_mut().zip(g_mat) {
                for (c, tv) in tr.iter_mut().enumerate() {
                    *tv = (0..3).map(|k| gr[k] as f64 * g[k * 3 + c] as f64).sum();
                }
            }
            for (r, tr) in t[..t_len].iter().enumerate() {
                for (s, gs) in g_mat.iter().enumerate() {
                    let v: f64 = (0..3).map(|k| tr[k] * gs[k] as f64).sum();
                    u[((r * t_len + s) * cin + i) * cout + o] = v as f32;
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

/// Bᵀ x for five channel vectors (F(3×3, 3×3)).
#[inline(always)]
fn bt5(x: [&[f32; CB]; 5], y: [&mut [f32; CB]; 5]) {
    let [y0, y1, y2, y3, y4] = y;
    for c in 0..CB {
        let (a0, a1, a2, a3, a4) = (x[0][c], x[1][c], x[2][c], x[3][c], x[4][c]);
        y0[c] = 2.0 * (a0 - a2) - a1 + a3;
        y1[c] = 2.0 * a1 + a2 - a3;
        y2[c] = 3.0 * a2 - 2.0 * a1 - a3;
        y3[c] = a3 - a1;
        y4[c] = 2.0 * (a1 - a3) - a2 + a4;
    }
}

/// Aᵀ m for five channel vectors, three results (F(3×3, 3×3)).
#[inline(always)]
fn at5(m: [&[f32; CB]; 5], y: [&mut [f32; CB]; 3]) {
    let [y0, y1, y2] = y;
    for c in 0..CB {
        let (a0, a1, a2, a3, a4) = (m[0][c], m[1][c], m[2][c], m[3][c], m[4][c]);
        let s12 = a1 + a2;
        y0[c] = a0 + s12 + a3;
        y1[c] = a1 - a2 + 2.0 * a3;
        y2[c] = s12 + 4.0 * a3 + a4;
    }
}

/// Bᵀ d B for every `T`×`T` tile (`N` = T² points) of `cin` channels
/// (row stride `stride`) of a `batch`×`h`×`w` input, zero outside the
/// board, into `v`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn input_body<const T: usize, const N: usize>(
    input: &[f32],
    stride: usize,
    cin: usize,
    batch: usize,
    h: usize,
    w: usize,
    v: &mut [f32],
    bt: impl Fn([&[f32; CB]; T], [&mut [f32; CB]; T]),
) {
    let step = T - 2;
    let (ty, tx) = (h.div_ceil(step), w.div_ceil(step));
    let nt = batch * ty * tx;
    let (mut d, mut t, mut out) = (Vecs::<N>::new(), Vecs::<N>::new(), Vecs::<N>::new());
    let (d, t, out) = (&mut d.0, &mut t.0, &mut out.0);
    for b in 0..batch {
        for yt in 0..ty {
            for xt in 0..tx {
                let tile = (b * ty + yt) * tx + xt;
                // The tile's points: their offsets in `input`, or None
                // outside the board.
                let at_point: [Option<usize>; N] = std::array::from_fn(|k| {
                    let y = (step * yt + k / T) as isize - 1;
                    let x = (step * xt + k % T) as isize - 1;
                    (y >= 0 && (y as usize) < h && x >= 0 && (x as usize) < w)
                        .then(|| ((b * h + y as usize) * w + x as usize) * stride)
                });
                for c0 in (0..cin).step_by(CB) {
                    let cw = CB.min(cin - c0);
                    // Columns: t[r][j] = Σ_i Bᵀ[r][i] d[i][j].
                    if cw == CB {
                        // Read the points in place (zeros off the board).
                        let pt = |k: usize| -> &[f32; CB] {
                            match at_point[k] {
                                Some(p) => {
                                    input[p + c0..p + c0 + CB].try_into().expect("CB values")
                                }
                                None => &ZERO.0[0],
                            }
                        };
                        for j in 0..T {
                            bt(std::array::from_fn(|i| pt(i * T + j)), rows(t, j, T));
                        }
                    } else {
                        for (dst, p) in d.iter_mut().zip(&at_point) {
                            match p {
                                Some(p) => {
                                    dst[..cw].copy_from_slice(&input[p + c0..p + c0 + cw]);
                                    dst[cw..].fill(0.0);
                                }
                                None => *dst = [0.0; CB],
                            }
                        }
                        for j in 0..T {
                            bt(std::array::from_fn(|i| &d[i * T + j]), rows(t, j, T));
                        }
                    }
                    // Rows: out[r][s] = Σ_j t[r][j] Bᵀ[s][j].
                    for r in 0..T {
                        bt(std::array::from_fn(|j| &t[r * T + j]), rows(out, r * T, 1));
                    }
                    for (xi, o) in out.iter().enumerate() {
                        let off = (xi * nt + tile) * cin + c0;
                        if cw == CB {
                            v[off..off + CB].copy_from_slice(o);
                        } else {
                            v[off..off + cw].copy_from_slice(&o[..cw]);
                        }
                    }
                }
            }
        }
    }
}

/// Aᵀ M A for every tile (`T`×`T` points, `O` = T − 2 outputs a side,
/// `OT` = O·T, `OO` = O²) of the products `m` (`cout` channels), plus
/// `bias`, handed point by point to `epi` (points outside the board are
/// dropped).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn output_body<const T: usize, const O: usize, const N: usize, const OT: usize, const OO: usize>(
    m: &[f32],
    cout: usize,
    batch: usize,
    h: usize,
    w: usize,
    bias: &[f32],
    epi: &mut Epi,
    at: impl Fn([&[f32; CB]; T], [&mut [f32; CB]; O]),
) {
    let (ty, tx) = (h.div_ceil(O), w.div_ceil(O));
    let nt = batch * ty * tx;
    let (mut g, mut t, mut o) = (Vecs::<N>::new(), Vecs::<OT>::new(), Vecs::<OO>::new());
    let (g, t, o) = (&mut g.0, &mut t.0, &mut o.0);
    for b in 0..batch {
        for yt in 0..ty {
            for xt in 0..tx {
                let tile = (b * ty + yt) * tx + xt;
                for c0 in (0..cout).step_by(CB) {
                    let cw = CB.min(cout - c0);
                    for (xi, gv) in g.iter_mut().enumerate() {
                        let off = (xi * nt + tile) * cout + c0;
                        if cw == CB {
                            gv.copy_from_slice(&m[off..off + CB]);
                        } else {
                            gv[..cw].copy_from_slice(&m[off..off + cw]);
                        }
                    }
                    // Columns: t[i][j] = Σ_r Aᵀ[i][r] g[r][j].
                    for j in 0..T {
                        at(std::array::from_fn(|r| &g[r * T + j]), rows(t, j, T));
                    }
                    // Rows: o[i][k] = Σ_j t[i][j] Aᵀ[k][j].
                    for i in 0..O {
                        at(std::array::from_fn(|j| &t[i * T + j]), rows(o, i * O, 1));
                    }
                    for i in 0..O {
                        let y = O * yt + i;
                        if y >= h {
                            break;
                        }
                        for k in 0..O {
                            let x = O * xt + k;
                            if x >= w {
                                break;
                            }
                            let (point, ov) = ((b * h + y) * w + x, &mut o[i * O + k]);
                            // A whole vector goes on at its constant length
                            // (see `Epi::apply`), a last partial one as a slice.
                            if cw == CB {
                                for (v, bv) in ov.iter_mut().zip(&bias[c0..c0 + CB]) {
                                    *v += bv;
                                }
                                epi.apply(point, c0, ov);
                            } else {
                                for (v, bv) in ov.iter_mut().zip(&bias[c0..c0 + cw]) {
                                    *v += bv;
                                }
                                epi.apply(point, c0, &ov[..cw]);
                            }
                        }
                    }
                }
            }
        }
    }
}

super::simd::multiversion! {
    /// [`input_body`] for F(4×4, 3×3).
    fn input_f4(input: &[f32], stride: usize, cin: usize, batch: usize, h: usize, w: usize, v: &mut [f32]) {
        input_body::<6, 36>(input, stride, cin, batch, h, w, v, bt)
    }
}

super::simd::multiversion! {
    /// [`input_body`] for F(3×3, 3×3).
    fn input_f3(input: &[f32], stride: usize, cin: usize, batch: usize, h: usize, w: usize, v: &mut [f32]) {
        input_body::<5, 25>(input, stride, cin, batch, h, w, v, bt5)
    }
}

super::simd::multiversion! {
    /// [`output_body`] for F(4×4, 3×3).
    fn output_f4(m: &[f32], cout: usize, batch: usize, h: usize, w: usize, bias: &[f32], epi: &mut Epi) {
        output_body::<6, 4, 36, 24, 16>(m, cout, batch, h, w, bias, epi, at)
    }
}

super::simd::multiversion! {
    /// [`output_body`] for F(3×3, 3×3).
    fn output_f3(m: &[f32], cout: usize, batch: usize, h: usize, w: usize, bias: &[f32], epi: &mut Epi) {
        output_body::<5, 3, 25, 15, 9>(m, cout, batch, h, w, bias, epi, at5)
    }
}

/// Bᵀ d B for every tile of `variant` of `cin` channels (row stride
/// `stride`) of a `batch`×`h`×`w` input, zero outside the board, into `v`
/// (`[points][tiles][cin]`).
#[allow(clippy::too_many_arguments)]
pub fn input_transform(
    variant: Variant,
    input: &[f32],
    stride: usize,
    cin: usize,
    batch: usize,
    h: usize,
    w: usize,
    v: &mut [f32],
) {
    match variant {
        Variant::F4 => input_f4(input, stride, cin, batch, h, w, v),
        Variant::F3 => input_f3(input, stride, cin, batch, h, w, v),
    }
}

/// Aᵀ M A for every tile of `variant` of the products `m` (`cout`
/// channels), plus `bias`, handed point by point to `epi` (points outside
/// the board are dropped).
#[allow(clippy::too_many_arguments)]
pub fn output_transform(
    variant: Variant,
    m: &[f32],
    cout: usize,
    batch: usize,
    h: usize,
    w: usize,
    bias: &[f32],
    epi: &mut Epi,
) {
    match variant {
        Variant::F4 => output_f4(m, cout, batch, h, w, bias, epi),
        Variant::F3 => output_f3(m, cout, batch, h, w, bias, epi),
    }
}

/// `K` distinct rows `first, first + step, ...` of `a`, mutably.
#[inline(always)]
fn rows<const K: usize, const N: usize>(
    a: &mut [[f32; CB]; N],
    first: usize,
    step: usize,
) -> [&mut [f32; CB]; K] {
    let mut it = a.iter_mut().skip(first).step_by(step);
    std::array::from_fn(|_| it.next().expect("enough rows"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::config::Activation;

    /// Both variants against a direct 3×3 convolution, on every board side
    /// from 1 to 10 (every way a board can end inside a tile) and channel
    /// counts that are and are not multiples of the vector width.
    #[test]
    fn both_variants_match_a_direct_convolution() {
        let mut rnd = super::super::uniform_values(3);
        for (cin, cout) in [(16, 16), (5, 19), (32, 48)] {
            let w: Vec<f32> = (0..cout * cin * 9).map(|_| rnd()).collect();
            for side in 1..=10 {
                let batch = 2;
                let points = batch * side * side;
                let input: Vec<f32> = (0..points * cin).map(|_| rnd()).collect();
                let mut want = vec![0f32; points * cout];
                for b in 0..batch {
                    for y in 0..side as isize {
                        for x in 0..side as isize {
                            let p = (b * side + y as usize) * side + x as usize;
                            for o in 0..cout {
                                let mut sum = 0f64;
                                for (dy, dx) in (0..9).map(|q| (q / 3 - 1, q % 3 - 1)) {
                                    let (yy, xx) = (y + dy, x + dx);
                                    if yy < 0
                                        || xx < 0
                                        || yy >= side as isize
                                        || xx >= side as isize
                                    {
                                        continue;
                                    }
                                    let src = (b * side + yy as usize) * side + xx as usize;
                                    let q = ((dy + 1) * 3 + dx + 1) as usize;
                                    for i in 0..cin {
                                        sum += input[src * cin + i] as f64
                                            * w[(o * cin + i) * 9 + q] as f64;
                                    }
                                }
                                want[p * cout + o] = sum as f32;
                            }
                        }
                    }
                }
                for variant in [Variant::F4, Variant::F3] {
                    let u = transform_kernels(&w, cin, cout, variant);
                    let nt = batch * variant.tiles(side) * variant.tiles(side);
                    let n = variant.points();
                    let mut v = vec![0f32; n * nt * cin];
                    input_transform(variant, &input, cin, cin, batch, side, side, &mut v);
                    let mut m = vec![0f32; n * nt * cout];
                    for xi in 0..n {
                        for t in 0..nt {
                            for o in 0..cout {
                                m[(xi * nt + t) * cout + o] = (0..cin)
                                    .map(|i| {
                                        v[(xi * nt + t) * cin + i] * u[(xi * cin + i) * cout + o]
                                    })
                                    .sum();
                            }
                        }
                    }
                    let mut got = vec![f32::NAN; points * cout];
                    let mut epi = Epi::Store {
                        out: &mut got,
                        stride: cout,
                        act: Activation::Identity,
                        act_from: cout,
                    };
                    output_transform(
                        variant,
                        &m,
                        cout,
                        batch,
                        side,
                        side,
                        &vec![0.0; cout],
                        &mut epi,
                    );
                    for (k, (g, x)) in got.iter().zip(&want).enumerate() {
                        assert!(
                            (g - x).abs() <= 1e-4 * (1.0 + x.abs()),
                            "{variant:?} {side}x{side}, {cin}->{cout}, value {k}: {g} vs {x}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn each_board_gets_the_variant_with_fewer_products() {
        assert_eq!(Variant::for_board(9, 9), Variant::F3);
        assert_eq!(Variant::for_board(19, 19), Variant::F4);
        assert_eq!(Variant::for_board(13, 13), Variant::F4);
        // 7×7: four 6×6 tiles (144 points) against nine 5×5 (225).
        assert_eq!(Variant::for_board(7, 7), Variant::F4);
    }
}
