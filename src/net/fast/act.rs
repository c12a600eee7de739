//! Activations on slices, branch-free so that they vectorise: ReLU, and
//! Mish and SiLU through a polynomial `exp` (relative error below 1e-7
//! over the range the nets use, against libm's 0.5 ulp).

use crate::net::config::Activation;

const LOG2E: f32 = std::f32::consts::LOG2_E;
// ln 2 split in a part with few significant bits and the rest, so that
// k · LN2_HI is exact for the k that occur.
const LN2_HI: f32 = 0.693_145_75;
const LN2_LO: f32 = 1.428_606_8e-6;

/// e^x for x in about [-87, 88] (clamped outside): 2^k · e^r with
/// |r| ≤ ln2/2 and a degree-7 Taylor polynomial for e^r.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    exp_with::<false>(x)
}

/// [`exp`], its polynomial in fused multiply-adds when `FMA` (for code
/// compiled with FMA instructions: [`super::simd::multiversion!`] bodies).
#[inline(always)]
pub fn exp_with<const FMA: bool>(x: f32) -> f32 {
    let madd = |a: f32, b: f32, c: f32| if FMA { a.mul_add(b, c) } else { a * b + c };
    let x = x.clamp(-87.0, 88.0);
    let k = (x * LOG2E + 0.5).floor();
    let r = x - k * LN2_HI - k * LN2_LO;
    let mut p = 1.0 / 5040.0;
    p = madd(p, r, 1.0 / 720.0);
    p = madd(p, r, 1.0 / 120.0);
    p = madd(p, r, 1.0 / 24.0);
    p = madd(p, r, 1.0 / 6.0);
    p = madd(p, r, 0.5);
    p = madd(p, r, 1.0);
    p = madd(p, r, 1.0);
    // 2^k without a float-to-int cast (`as` saturates and maps NaN to 0,
    // which LLVM turned into scalar code inside the vector loops): adding
    // 1.5 · 2^23 puts the integer k (|k| ≤ 127) in the low mantissa bits.
    let ki = (k + ROUND).to_bits().wrapping_sub(ROUND_BITS) as i32;
    let bits = ((ki + 127) as u32) << 23;
    p * f32::from_bits(bits)
}

/// 1.5 · 2^23 and its bits (see [`exp`]).
const ROUND: f32 = 12_582_912.0;
const ROUND_BITS: u32 = 0x4B40_0000;

/// x · tanh(ln(1 + e^x)) = x · n / (n + 2) with n = e^x (e^x + 2).
#[inline(always)]
pub fn mish(x: f32) -> f32 {
    let e = exp(x.min(20.0));
    let n = e * (e + 2.0);
    x * n / (n + 2.0)
}

/// x / (1 + e^-x).
#[inline(always)]
pub fn silu(x: f32) -> f32 {
    silu_with::<false>(x)
}

/// [`silu`] on [`exp_with`].
#[inline(always)]
pub fn silu_with<const FMA: bool>(x: f32) -> f32 {
    x / (1.0 + exp_with::<FMA>(-x))
}

/// Applies `a` to every element of `v`. Inlined into the kernels that
/// call it, so it is vectorised at their instruction set.
#[inline(always)]
pub fn apply(a: Activation, v: &mut [f32]) {
    match a {
        Activation::Identity => {}
        Activation::Relu => v.iter_mut().for_each(|x| *x = x.max(0.0)),
        Activation::Mish => v.iter_mut().for_each(|x| *x = mish(*x)),
        Activation::Silu => v.iter_mut().for_each(|x| *x = silu(*x)),
    }
}

/// `dst = act(src · scale + bias)` per channel, for `rows` rows of
/// `scale.len()` channels (row strides `src_stride`, `dst_stride`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn affine_act_rows(
    src: &[f32],
    src_stride: usize,
    dst: &mut [f32],
    dst_stride: usize,
    rows: usize,
    scale: &[f32],
    bias: &[f32],
    a: Activation,
) {
    let c = scale.len();
    for r in 0..rows {
        let s = &src[r * src_stride..r * src_stride + c];
        let d = &mut dst[r * dst_stride..r * dst_stride + c];
        for i in 0..c {
            d[i] = s[i] * scale[i] + bias[i];
        }
        apply(a, d);
    }
}

super::simd::multiversion! {
    /// [`affine_act_rows`], at the best instruction set.
    pub fn affine_act(
        src: &[f32],
        src_stride: usize,
        dst: &mut [f32],
        dst_stride: usize,
        rows: usize,
        scale: &[f32],
        bias: &[f32],
        a: Activation,
    ) {
        affine_act_rows(src, src_stride, dst, dst_stride, rows, scale, bias, a)
    }
}

super::simd::multiversion! {
    /// `v = act(v + bias)` on `rows` rows of `bias.len()` channels at
    /// `stride`; channels before `act_from` get the bias only.
    pub fn bias_act(v: &mut [f32], stride: usize, rows: usize, bias: &[f32], a: Activation, act_from: usize) {
        let c = bias.len();
        for r in 0..rows {
            let row = &mut v[r * stride..r * stride + c];
            for (x, b) in row.iter_mut().zip(bias) {
                *x += b;
            }
            apply(a, &mut row[act_from.min(c)..]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_mish_silu_match_libm() {
        let mut worst = 0f32;
        for i in -4000..=4000 {
            let x = i as f32 * 0.02;
            let e = (x as f64).exp();
            worst = worst.max(((exp(x) as f64 - e) / e).abs() as f32);
            worst = worst.max(((exp_with::<true>(x) as f64 - e) / e).abs() as f32);
            let m = x as f64 * ((x as f64).exp().ln_1p()).tanh();
            assert!(
                (mish(x) as f64 - m).abs() <= 1e-6 * (1.0 + m.abs()),
                "mish {x}"
            );
            let s = x as f64 / (1.0 + (-x as f64).exp());
            assert!(
                (silu(x) as f64 - s).abs() <= 1e-6 * (1.0 + s.abs()),
                "silu {x}"
            );
        }
        assert!(worst < 3e-7, "exp relative error {worst}");
        assert_eq!(mish(1e4), 1e4);
        assert!(mish(-1e4).abs() < 1e-30 && silu(-1e4).abs() < 1e-30);
        assert!(exp(-1e4) >= 0.0 && exp(1e4).is_finite());
    }
}
