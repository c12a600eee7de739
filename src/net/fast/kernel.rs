//! A register-tiled AVX-512 matrix product for the fast path's shapes:
//! `c = a · b` with `a` row-major, `b` row-major with a width that is a
//! multiple of 16, `c` row-major and overwritten.
//!
//! The products here are small (a few dozen to a few hundred rows, 64
//! columns and depth): the Winograd domain's 25 or 36 products per
//! convolution over the tiles of a batch, and the 1×1 convolutions. For
//! those, packing the operands (what a general GEMM does first) costs as
//! much as it saves. `b`'s rows are already contiguous vectors, so each
//! step of the depth loads a row of `b` once and broadcasts one element of
//! each of six rows of `a` against it: 6 × 4 vector accumulators (24 of
//! the 32 registers), 24 FMAs per 4 loads and 6 broadcasts.
//!
//! Only the caller in [`super::gemm`] decides when this is used: on
//! AVX-512, for widths that are a multiple of 16 and a `b` of at most
//! [`MAX_B`] elements.

/// The largest `b` (depth × width) the kernel takes. Alone, it beat the
/// `gemm` crate up to 192 × 192 and lost from 128 × 384 on (`b` no longer
/// stays near the core while the panels of `a` pass; the crate blocks and
/// packs for the caches: `cargo test --release --lib kernel_speed --
/// --ignored --nocapture`). In whole nets, KataGo's 192 × 192 Winograd
/// products ran no faster on it, so only the 64-channel shapes (up to
/// 128 × 128) come here. Measured on the Intel Xeon of 2026-12-03.
pub const MAX_B: usize = 128 * 128;

/// Rows of `c` per register tile.
pub const MR: usize = 6;
/// Vectors of 16 columns per register tile.
pub const NV: usize = 4;

/// `c[m×n] = a[m×k] · b[k×n]`, every matrix row-major with the given row
/// strides.
///
/// # Safety
/// The CPU must have AVX-512 F; `n` must be a multiple of 16; the three
/// matrices must hold every element that the shapes and strides reach,
/// and `c` must not overlap `a` or `b`.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx512f")]
pub unsafe fn product(
    m: usize,
    n: usize,
    k: usize,
    a: *const f32,
    lda: usize,
    b: *const f32,
    ldb: usize,
    c: *mut f32,
    ldc: usize,
) {
    debug_assert!(n.is_multiple_of(16));
    // Panels of MC rows of `a` (a few KiB) stay in L1 while every column
    // strip of `b` passes them; each strip is read once per panel.
    const MC: usize = 8 * MR;
    let mut p0 = 0;
    while p0 < m {
        let pm = (m - p0).min(MC);
        let mut j0 = 0;
        while j0 < n {
            let nv = ((n - j0) / 16).min(NV);
            let mut i0 = p0;
            while i0 < p0 + pm {
                let mr = (p0 + pm - i0).min(MR);
                // SAFETY: the caller's contract covers rows i0..i0+mr of a
                // and c and columns j0..j0+16·nv of b and c.
                unsafe {
                    tile_dispatch(
                        mr,
                        nv,
                        k,
                        a.add(i0 * lda),
                        lda,
                        b.add(j0),
                        ldb,
                        c.add(i0 * ldc + j0),
                        ldc,
                    );
                }
                i0 += mr;
            }
            j0 += 16 * nv;
        }
        p0 += pm;
    }
}

/// Runs the `R`×`V` register tile for `mr` ≤ [`MR`] and `nv` ≤ [`NV`].
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn tile_dispatch(
    mr: usize,
    nv: usize,
    k: usize,
    a: *const f32,
    lda: usize,
    b: *const f32,
    ldb: usize,
    c: *mut f32,
    ldc: usize,
) {
    macro_rules! by_rows {
        ($v:literal) => {
            // SAFETY: as for `product`, for this tile.
            unsafe {
                match mr {
                    1 => tile::<1, $v>(k, a, lda, b, ldb, c, ldc),
                    2 => tile::<2, $v>(k, a, lda, b, ldb, c, ldc),
                    3 => tile::<3, $v>(k, a, lda, b, ldb, c, ldc),
                    4 => tile::<4, $v>(k, a, lda, b, ldb, c, ldc),
                    5 => tile::<5, $v>(k, a, lda, b, ldb, c, ldc),
                    _ => tile::<6, $v>(k, a, lda, b, ldb, c, ldc),
                }
            }
        };
    }
    match nv {
        1 => by_rows!(1),
        2 => by_rows!(2),
        3 => by_rows!(3),
        _ => by_rows!(4),
    }
}

/// One register tile: `R` rows of `c`, `V` vectors of 16 columns.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn tile<const R: usize, const V: usize>(
    k: usize,
    a: *const f32,
    lda: usize,
    b: *const f32,
    ldb: usize,
    c: *mut f32,
    ldc: usize,
) {
    use std::arch::x86_64::*;
    let mut acc = [[_mm512_setzero_ps(); V]; R];
    for kk in 0..k {
        // SAFETY (this block): row kk of b has 16·V columns from b; a's
        // rows 0..R have element kk (the caller's contract).
        unsafe {
            let brow = b.add(kk * ldb);
            let mut bv = [_mm512_setzero_ps(); V];
            for (v, x) in bv.iter_mut().enumerate() {
                *x = _mm512_loadu_ps(brow.add(16 * v));
            }
            for (r, row) in acc.iter_mut().enumerate() {
                let x = _mm512_set1_ps(*a.add(r * lda + kk));
                for (acc, bv) in row.iter_mut().zip(&bv) {
                    *acc = _mm512_fmadd_ps(x, *bv, *acc);
                }
            }
        }
    }
    for (r, row) in acc.iter().enumerate() {
        for (v, x) in row.iter().enumerate() {
            // SAFETY: c's row r has 16·V columns from c.
            unsafe { _mm512_storeu_ps(c.add(r * ldc + 16 * v), *x) };
        }
    }
}
