//! Matrix products for the fast path, on the `gemm` crate (the one burn's
//! flex backend uses: packing, AVX2/AVX-512 micro-kernels chosen at run
//! time). One thread per call: the search runs several evaluator calls at
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
    // SAFETY: the asserts above keep every element the product touches
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
