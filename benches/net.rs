//! Net throughput on the CPU, the fast path against burn's flex backend
//! side by side: evals/s at batch 1, 8 and 32 for the shipped nets
//! (`tengen-9x9-v9` on 9×9, `tengen-19x19-v4` on 19×19), and at batch 1
//! and 8 for KataGo's b10 net on 9×9 and 19×19 when `TENGEN_KATAGO_NET`
//! (or the katrain path) points at it. After each case it prints the
//! evals/s, GFLOP/s ([`NetConfig::flops`]: 3×3 convolutions at
//! direct-convolution FLOPs) and the fraction of one core's fp32 peak,
//! measured here with an FMA loop ([`tengen::net::fast::peak`]).
//!
//! For one thread each: `RAYON_NUM_THREADS=1 cargo bench --bench net`
//! (burn's flex backend uses rayon; the fast path is single-threaded per
//! call). `TENGEN_BENCH_QUICK=1` shortens every measurement.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use burn::tensor::Device;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tengen::net::fast::{peak, FastNet};
use tengen::net::shipped::{NET_19X19, NET_9X9};
use tengen::net::{katago, Net, RawOutput};

fn run(
    c: &mut Criterion,
    label: &str,
    forward: &dyn Fn(&[f32], &[f32]) -> RawOutput,
    net: &Net,
    size: usize,
    batch: usize,
    peak_gflops: f64,
) -> f64 {
    let n = size * size;
    let cfg = net.config();
    let spatial: Vec<f32> = (0..batch * cfg.spatial_inputs * n)
        .map(|i| ((i * 7919) % 3 == 0) as u8 as f32)
        .collect();
    let global = vec![0.1f32; batch * cfg.global_inputs];
    let pass = || {
        let out = forward(&spatial, &global);
        assert_eq!(out.ownership.len(), batch * n, "evaluated every position");
        out
    };
    let quick = std::env::var_os("TENGEN_BENCH_QUICK").is_some();
    let mut g = c.benchmark_group("net");
    g.throughput(Throughput::Elements(batch as u64));
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(if quick { 200 } else { 1000 }));
    g.measurement_time(Duration::from_millis(if quick { 500 } else { 3000 }));
    let name = format!("{label} {size}x{size} batch {batch}");
    g.bench_function(&name, |b| b.iter(pass));
    g.finish();

    // criterion keeps its estimates to itself: time a few more passes for
    // the summary line.
    let reps = (64 / batch).clamp(3, 16);
    let start = Instant::now();
    for _ in 0..reps {
        pass();
    }
    let secs = start.elapsed().as_secs_f64() / reps as f64;
    let evals = batch as f64 / secs;
    let gflops = cfg.flops(size) as f64 * evals / 1e9;
    eprintln!(
        "{name}: {evals:.1} evals/s, {:.3} GFLOP/eval, {gflops:.1} GFLOP/s, {:.1}% of {peak_gflops:.1} GFLOP/s",
        cfg.flops(size) as f64 / 1e9,
        100.0 * gflops / peak_gflops
    );
    evals
}

/// Both paths for `net` on `size` at each batch size.
fn both(c: &mut Criterion, label: &str, net: &Net, size: usize, batches: &[usize], peak: f64) {
    let fast = FastNet::new(net).expect("pack the net");
    for &batch in batches {
        let f = run(
            c,
            &format!("{label} fast"),
            &|sp, gl| fast.forward(sp, gl, batch, size),
            net,
            size,
            batch,
            peak,
        );
        let b = run(
            c,
            &format!("{label} burn"),
            &|sp, gl| net.forward(sp.to_vec(), gl.to_vec(), batch, size),
            net,
            size,
            batch,
            peak,
        );
        eprintln!(
            "{label} {size}x{size} batch {batch}: fast / burn = {:.2}",
            f / b
        );
    }
}

fn bench(c: &mut Criterion) {
    let device = Device::flex();
    let peak = peak::one_core();
    eprintln!(
        "fp32 FMA peak, one core: {peak:.1} GFLOP/s ({})",
        peak::describe()
    );
    for (shipped, size) in [(NET_9X9, 9), (NET_19X19, 19)] {
        let net = shipped.load(&device).expect("shipped net");
        both(c, shipped.name, &net, size, &[1, 8, 32], peak);
    }
    let path = std::env::var("TENGEN_KATAGO_NET")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../katrain/katrain/models/b10c384h6nbttflrs.bin.gz")
        });
    if let Ok(mut m) = katago::load(&path) {
        let net = Net::load(&m.config, &mut m.weights, &device).unwrap();
        for size in [9, 19] {
            both(c, "b10c384 (KataGo)", &net, size, &[1, 8], peak);
        }
    } else {
        eprintln!(
            "KataGo net not found at {}; skipping its benchmark",
            path.display()
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
