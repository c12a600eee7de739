//! The machine's fp32 peak, measured: a loop of independent fused
//! multiply-adds at the widest vectors this CPU has (what the fast path's
//! kernels use), on one core and on several. The two vector loops are
//! written with intrinsics (small `unsafe` functions, called only after
//! runtime detection).

use std::time::Instant;

use super::simd::{level, Level};

/// Portable stand-in: ten chains of scalar multiply-add (20 flops a
/// round; `mul_add` would be a library call without the FMA feature).
fn rounds_portable(iters: u64) -> f32 {
    let mut acc = [1.0f32; 10];
    let (b, c) = (
        std::hint::black_box(0.999_99f32),
        std::hint::black_box(1e-6f32),
    );
    for _ in 0..iters {
        for a in acc.iter_mut() {
            *a = *a * b + c;
        }
    }
    acc.iter().sum()
}

/// Ten independent 8-lane FMA chains (160 flops a round). Written with
/// intrinsics: LLVM scalarised the plain-Rust version of this loop.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn rounds_avx2(iters: u64) -> f32 {
    use std::arch::x86_64::*;
    let b = _mm256_set1_ps(std::hint::black_box(0.999_99));
    let c = _mm256_set1_ps(std::hint::black_box(1e-6));
    let mut acc = [_mm256_set1_ps(1.0); 10];
    for _ in 0..iters {
        for a in acc.iter_mut() {
            *a = _mm256_fmadd_ps(*a, b, c);
        }
    }
    let mut out = [0f32; 8];
    let sum = acc
        .iter()
        .fold(_mm256_setzero_ps(), |s, &a| _mm256_add_ps(s, a));
    _mm256_storeu_ps(out.as_mut_ptr(), sum);
    out.iter().sum()
}

/// Ten independent 16-lane FMA chains (320 flops a round).
///
/// # Safety
/// The CPU must have AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn rounds_avx512(iters: u64) -> f32 {
    use std::arch::x86_64::*;
    let b = _mm512_set1_ps(std::hint::black_box(0.999_99));
    let c = _mm512_set1_ps(std::hint::black_box(1e-6));
    let mut acc = [_mm512_set1_ps(1.0); 10];
    for _ in 0..iters {
        for a in acc.iter_mut() {
            *a = _mm512_fmadd_ps(*a, b, c);
        }
    }
    let sum = acc
        .iter()
        .fold(_mm512_setzero_ps(), |s, &a| _mm512_add_ps(s, a));
    _mm512_reduce_add_ps(sum)
}

/// Runs `iters` rounds at [`level`]'s width; returns GFLOP/s.
fn run(iters: u64) -> f64 {
    let t = Instant::now();
    let (sink, flops_per_round) = match level() {
        // SAFETY: `level` detected AVX-512F on this CPU.
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => (unsafe { rounds_avx512(iters) }, 320.0),
        // SAFETY: `level` detected AVX2 and FMA on this CPU.
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => (unsafe { rounds_avx2(iters) }, 160.0),
        _ => (rounds_portable(iters), 20.0),
    };
    let secs = t.elapsed().as_secs_f64();
    std::hint::black_box(sink);
    iters as f64 * flops_per_round / secs.max(1e-9) / 1e9
}

/// GFLOP/s of fp32 FMAs on one thread, the best of a few ~0.1 s runs.
pub fn one_core() -> f64 {
    run(1_000_000);
    (0..3).map(|_| run(20_000_000)).fold(0.0, f64::max)
}

/// GFLOP/s of fp32 FMAs on `threads` threads at once, summed.
pub fn threads(threads: usize) -> f64 {
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads.max(1))
            .map(|_| s.spawn(|| (0..3).map(|_| run(20_000_000)).fold(0.0, f64::max)))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap_or(0.0)).sum()
    })
}

/// The instruction set the kernels run at, for reports.
pub fn describe() -> &'static str {
    match level() {
        Level::Avx512 => "AVX-512",
        Level::Avx2 => "AVX2+FMA",
        Level::Portable => "portable",
    }
}
