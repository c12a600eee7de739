//! The machine's fp32 peak, measured: a loop of independent fused
//! multiply-adds at the widest vectors this CPU has (what the fast path's
//! kernels use), on one core and on several.

use std::time::Instant;

use super::simd::{level, Level};

/// Ten independent accumulators of `L` lanes, `iters` rounds of
/// `acc = acc · b + c`: 20 · L flops a round.
#[inline(always)]
fn fma_rounds<const L: usize>(iters: u64) -> f32 {
    let mut acc = [[1.0f32; L]; 10];
    let b = std::hint::black_box([0.999_99f32; L]);
    let c = std::hint::black_box([1e-6f32; L]);
    for _ in 0..iters {
        for a in acc.iter_mut() {
            for l in 0..L {
                a[l] = a[l].mul_add(b[l], c[l]);
            }
        }
    }
    acc.iter().flatten().sum()
}

super::simd::multiversion! {
    fn rounds16(iters: u64, out: &mut f32) {
        *out = fma_rounds::<16>(iters);
    }
}

super::simd::multiversion! {
    fn rounds8(iters: u64, out: &mut f32) {
        *out = fma_rounds::<8>(iters);
    }
}

/// Flops of one round at this CPU's vector width.
fn lanes() -> usize {
    match level() {
        Level::Avx512 => 16,
        Level::Avx2 => 8,
        Level::Portable => 4,
    }
}

fn run(iters: u64) -> f64 {
    let mut sink = 0.0;
    let t = Instant::now();
    if lanes() == 16 {
        rounds16(iters, &mut sink);
    } else {
        rounds8(iters, &mut sink);
    }
    let secs = t.elapsed().as_secs_f64();
    std::hint::black_box(sink);
    let flops = iters as f64 * 20.0 * if lanes() == 16 { 16.0 } else { 8.0 };
    flops / secs.max(1e-9) / 1e9
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
