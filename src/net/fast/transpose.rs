//! Matrix transposes for the layout changes between burn's channels-first
//! tensors and the fast path's channels-last buffers (the training
//! convolutions of [`crate::net::conv_ext`] make four per layer).
//!
//! A scalar transpose writes one value at a time with a stride of a whole
//! row: in the human-data run's profile the two directions took 9% of a
//! training step. Here the matrix goes in 8×8 blocks, each loaded as eight
//! AVX vectors, transposed in registers (unpack, shuffle and 128-bit lane
//! swaps) and stored as eight; the ragged edges and CPUs without AVX2 take
//! the scalar loop.

#[cfg(target_arch = "x86_64")]
use super::simd::{level, Level};

/// Writes the transpose of `src` (`rows × cols`, row-major) into `dst`
/// (`cols × rows`, row-major).
pub fn transpose(src: &[f32], rows: usize, cols: usize, dst: &mut [f32]) {
    let n = rows * cols;
    assert!(
        src.len() >= n && dst.len() >= n,
        "transpose: {rows}×{cols} needs {n} values (source {}, destination {})",
        src.len(),
        dst.len()
    );
    #[cfg(target_arch = "x86_64")]
    if level() >= Level::Avx2 {
        let (r8, c8) = (rows / 8 * 8, cols / 8 * 8);
        for i in (0..r8).step_by(8) {
            for j in (0..c8).step_by(8) {
                // SAFETY: `level` found AVX2 on this CPU; the block's rows
                // i..i+8 and columns j..j+8 lie inside both matrices, whose
                // lengths were checked above.
                unsafe {
                    block8(
                        src.as_ptr().add(i * cols + j),
                        cols,
                        dst.as_mut_ptr().add(j * rows + i),
                        rows,
                    )
                };
            }
        }
        edges(src, rows, cols, dst, r8, c8);
        return;
    }
    edges(src, rows, cols, dst, 0, 0);
}

/// The scalar transpose of every value outside the `r8 × c8` corner.
fn edges(src: &[f32], rows: usize, cols: usize, dst: &mut [f32], r8: usize, c8: usize) {
    for i in 0..rows {
        let from = if i < r8 { c8 } else { 0 };
        for j in from..cols {
            dst[j * rows + i] = src[i * cols + j];
        }
    }
}

/// The 8×8 block at `src` (row stride `ss`) transposed to `dst` (row
/// stride `ds`).
///
/// # Safety
/// AVX must be present, and eight rows of eight values must be readable
/// at `src` and writable at `dst` with those strides.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn block8(src: *const f32, ss: usize, dst: *mut f32, ds: usize) {
    use std::arch::x86_64::*;
    // SAFETY: the caller guarantees the 8 rows of 8 values on each side.
    unsafe {
        let r0 = _mm256_loadu_ps(src);
        let r1 = _mm256_loadu_ps(src.add(ss));
        let r2 = _mm256_loadu_ps(src.add(2 * ss));
        let r3 = _mm256_loadu_ps(src.add(3 * ss));
        let r4 = _mm256_loadu_ps(src.add(4 * ss));
        let r5 = _mm256_loadu_ps(src.add(5 * ss));
        let r6 = _mm256_loadu_ps(src.add(6 * ss));
        let r7 = _mm256_loadu_ps(src.add(7 * ss));
        // Pairs of rows interleaved: (0,1), (2,3), (4,5), (6,7). (No
        // closures here: they would not inherit this function's AVX.)
        let t = [
            _mm256_unpacklo_ps(r0, r1),
            _mm256_unpackhi_ps(r0, r1),
            _mm256_unpacklo_ps(r2, r3),
            _mm256_unpackhi_ps(r2, r3),
            _mm256_unpacklo_ps(r4, r5),
            _mm256_unpackhi_ps(r4, r5),
            _mm256_unpacklo_ps(r6, r7),
            _mm256_unpackhi_ps(r6, r7),
        ];
        // Four rows' values of one column in each 128-bit lane: columns
        // (0, 4), (1, 5), (2, 6), (3, 7) of rows 0–3, then of rows 4–7.
        let s = [
            _mm256_shuffle_ps::<0x44>(t[0], t[2]),
            _mm256_shuffle_ps::<0xEE>(t[0], t[2]),
            _mm256_shuffle_ps::<0x44>(t[1], t[3]),
            _mm256_shuffle_ps::<0xEE>(t[1], t[3]),
            _mm256_shuffle_ps::<0x44>(t[4], t[6]),
            _mm256_shuffle_ps::<0xEE>(t[4], t[6]),
            _mm256_shuffle_ps::<0x44>(t[5], t[7]),
            _mm256_shuffle_ps::<0xEE>(t[5], t[7]),
        ];
        for k in 0..4 {
            let low = _mm256_permute2f128_ps::<0x20>(s[k], s[k + 4]);
            let high = _mm256_permute2f128_ps::<0x31>(s[k], s[k + 4]);
            _mm256_storeu_ps(dst.add(k * ds), low);
            _mm256_storeu_ps(dst.add((k + 4) * ds), high);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_transposes_like_the_definition() {
        for (rows, cols) in [
            (1, 1),
            (8, 8),
            (3, 5),
            (8, 17),
            (64, 361),
            (361, 64),
            (22, 81),
            (16, 16),
        ] {
            let src: Vec<f32> = (0..rows * cols).map(|v| v as f32).collect();
            let mut dst = vec![f32::NAN; rows * cols];
            transpose(&src, rows, cols, &mut dst);
            for i in 0..rows {
                for j in 0..cols {
                    assert_eq!(
                        dst[j * rows + i],
                        src[i * cols + j],
                        "{rows}×{cols} at ({i}, {j})"
                    );
                }
            }
        }
    }
}
