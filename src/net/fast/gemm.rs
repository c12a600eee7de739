//! Matrix products for the fast path: on AVX-512, row-major products
//! whose width is a multiple of 16 and whose right operand is at most
//! [`super::kernel::MAX_B`] (every product of tengen's 64-channel nets) go
//! to the register-tiled kernel of [`super::kernel`], which needs no
//! packing; everything else, KataGo's 192- and 384-channel layers among
//! them, to the `gemm` crate (the one burn's
//! flex backend uses: packing, AVX2/AVX-512 micro-kernels chosen at run
//! time). On AVX2 machines without AVX-512 the layers with fixed weights
//! and attention's products go to [`super::panel`] instead. One
//! thread per call: the search runs several evaluator calls at
//! once, and per-call threading only pays for batches far larger than
//! ours.

/// A strided matrix view: element (r, c) is at `r * rs + c * cs`.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    pub data: &'a [f32],
    pub rs: usize,
    pub cs: usize,
}

impl<'a> View<'a> {
    /// A row-major matrix with row stride `rs`.
    pub fn rows(data: &'a [f32], rs: usize) -> View<'a> {
        View { data, rs, cs: 1 }
    }

    fn fits(&self, rows: usize, cols: usize) -> bool {
        rows == 0 || cols == 0 || (rows - 1) * self.rs + (cols - 1) * self.cs < self.data.len()
    }
}

/// `c[m×n] = a[m×k] · b[k×n]` (`+=` when `accumulate`), `c` row-major with
/// row stride `ldc`.
///
/// # Panics
/// When a view is too short for its shape (a bug in the caller: every
/// shape here comes from the packed net, not from input).
#[allow(clippy::too_many_arguments)]
pub fn matmul(
    m: usize,
    n: usize,
    k: usize,
    a: View,
    b: View,
    c: &mut [f32],
    ldc: usize,
    accumulate: bool,
) {
    if m == 0 || n == 0 {
        return;
    }
    assert!(a.fits(m, k) && b.fits(k, n), "matmul operand too short");
    assert!((m - 1) * ldc + n <= c.len(), "matmul output too short");
    if k == 0 {
        if !accumulate {
            for r in 0..m {
                c[r * ldc..r * ldc + n].fill(0.0);
            }
        }
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if !accumulate
        && a.cs == 1
        && b.cs == 1
        && n.is_multiple_of(16)
        && k * n <= super::kernel::MAX_B
        && super::simd::level() == super::simd::Level::Avx512
    {
        // SAFETY: AVX-512 F is present (`level`); the asserts above keep
        // every element of the three row-major matrices inside their
        // slices; `c` is borrowed mutably, so it aliases neither operand.
        unsafe {
            super::kernel::product(
                m,
                n,
                k,
                a.data.as_ptr(),
                a.rs,
                b.data.as_ptr(),
                b.rs,
                c.as_mut_ptr(),
                ldc,
            );
        }
        return;
    }
    general(m, n, k, a, b, c, ldc, accumulate);
}

/// [`matmul`] on the `gemm` crate, for any strides.
#[allow(clippy::too_many_arguments)]
fn general(
    m: usize,
    n: usize,
    k: usize,
    a: View,
    b: View,
    c: &mut [f32],
    ldc: usize,
    accumulate: bool,
) {
    // SAFETY: `matmul`'s asserts keep every element the product touches
    // inside the three slices (row strides and column strides as given);
    // `c` is borrowed mutably, so it aliases neither operand.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            1,
            ldc as isize,
            accumulate,
            a.data.as_ptr(),
            a.cs as isize,
            a.rs as isize,
            b.data.as_ptr(),
            b.cs as isize,
            b.rs as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tiled_kernel_matches_the_gemm_crate() {
        // Every remainder of the 6-row and 64-column register tiles, with
        // row strides wider than the rows.
        let mut rnd = super::super::uniform_values(7);
        for &(m, n, k) in &[
            (1, 16, 1),
            (5, 48, 7),
            (6, 64, 64),
            (13, 80, 33),
            (72, 64, 64),
            (25, 144, 100),
        ] {
            let (lda, ldb, ldc) = (k + 3, n + 16, n + 5);
            let a: Vec<f32> = (0..m * lda).map(|_| rnd()).collect();
            let b: Vec<f32> = (0..k * ldb).map(|_| rnd()).collect();
            type Product = fn(usize, usize, usize, View, View, &mut [f32], usize, bool);
            let run = |f: Product| {
                let mut c = vec![9.0; m * ldc];
                f(
                    m,
                    n,
                    k,
                    View::rows(&a, lda),
                    View::rows(&b, ldb),
                    &mut c,
                    ldc,
                    false,
                );
                c
            };
            let (fast, want) = (run(matmul), run(general));
            for r in 0..m {
                for j in 0..ldc {
                    let (x, y) = (fast[r * ldc + j], want[r * ldc + j]);
                    assert!(
                        (x - y).abs() <= 1e-5,
                        "{m}x{n}x{k} at ({r},{j}): {x} vs {y}"
                    );
                }
            }
        }
    }

    #[test]
    fn matches_a_naive_product_with_strides() {
        let (m, n, k) = (5, 7, 3);
        let a: Vec<f32> = (0..m * 4).map(|i| i as f32 * 0.5 - 3.0).collect(); // ld 4
        let bt: Vec<f32> = (0..n * k).map(|i| (i % 5) as f32 - 2.0).collect(); // b transposed
        let mut c = vec![1.0; m * 9];
        matmul(
            m,
            n,
            k,
            View::rows(&a, 4),
            View {
                data: &bt,
                rs: 1,
                cs: k,
            },
            &mut c,
            9,
            true,
        );
        for r in 0..m {
            for j in 0..n {
                let want: f32 = 1.0 + (0..k).map(|i| a[r * 4 + i] * bt[j * k + i]).sum::<f32>();
                assert_eq!(c[r * 9 + j], want);
            }
        }
    }
}

#[cfg(test)]
mod timing {
    use super::*;

    #[test]
    #[ignore]
    fn kernel_speed() {
        for &(m, n, k) in &[
            (72usize, 64usize, 64usize),
            (600, 64, 64),
            (72, 384, 128),
            (2888, 384, 128),
            (72, 192, 192),
            (200, 192, 192),
            (6, 64, 64),
        ] {
            let a = vec![0.5f32; m * k];
            let b = vec![0.25f32; k * n];
            let mut c = vec![0f32; m * n];
            let reps = (2e9 / (2 * m * n * k) as f64) as usize;
            for (name, fast) in [("kernel", true), ("gemm", false)] {
                let t = std::time::Instant::now();
                for _ in 0..reps {
                    if fast {
                        // SAFETY: AVX-512 on this machine (an ignored timing test).
                        unsafe {
                            crate::net::fast::kernel::product(
                                m,
                                n,
                                k,
                                a.as_ptr(),
                                k,
                                b.as_ptr(),
                                n,
                                c.as_mut_ptr(),
                                n,
                            )
                        };
                    } else {
                        general(
                            m,
                            n,
                            k,
                            View::rows(&a, k),
                            View::rows(&b, n),
                            &mut c,
                            n,
                            false,
                        );
                    }
                }
                let s = t.elapsed().as_secs_f64();
                println!(
                    "{m}x{n}x{k} {name}: {:.1} GFLOP/s",
                    (2 * m * n * k * reps) as f64 / s / 1e9
                );
            }
        }
    }
}
