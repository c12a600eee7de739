//! Net throughput on the CPU: evals/s at batch 1, 8, 32 and 64 for a small
//! random net (6 blocks × 64 channels) on 9×9 and 19×19, and at batch 1
//! and 8 for KataGo's b10 net on 19×19 when `TENGEN_KATAGO_NET` (or the
//! katrain path) points at it. After each case it prints the achieved
//! GFLOP/s ([`NetConfig::flops`]) and the fraction of one core's fp32
//! peak (about 160 GFLOP/s on the reference machine).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use burn::tensor::Device;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tengen::features::v7;
use tengen::net::{katago, Net, NetConfig, RandomWeights};

/// One core's fp32 peak on the reference machine, GFLOP/s.
const PEAK_GFLOPS: f64 = 160.0;

fn run(c: &mut Criterion, label: &str, net: &Net, size: usize, batch: usize) {
    let n = size * size;
    let cfg = net.config();
    let spatial = vec![0.5f32; batch * cfg.spatial_inputs * n];
    let global = vec![0.1f32; batch * cfg.global_inputs];
    let forward = || {
        let out = net.forward(spatial.clone(), global.clone(), batch, size);
        assert_eq!(out.ownership.len(), batch * n, "evaluated every position");
        out
    };
    let mut g = c.benchmark_group("net");
    g.throughput(Throughput::Elements(batch as u64));
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(3));
    let name = format!("{label} {size}x{size} batch {batch}");
    g.bench_function(&name, |b| b.iter(forward));
    g.finish();

    // criterion keeps its estimates to itself: time a few more passes for
    // the GFLOP/s line.
    let reps = (64 / batch).clamp(2, 16);
    let start = Instant::now();
    for _ in 0..reps {
        forward();
    }
    let secs = start.elapsed().as_secs_f64() / reps as f64;
    let evals = batch as f64 / secs;
    let gflops = cfg.flops(size) as f64 * evals / 1e9;
    eprintln!(
        "{name}: {evals:.1} evals/s, {:.3} GFLOP/eval, {gflops:.1} GFLOP/s, {:.1}% of {PEAK_GFLOPS} GFLOP/s peak",
        cfg.flops(size) as f64 / 1e9,
        100.0 * gflops / PEAK_GFLOPS
    );
}

fn bench(c: &mut Criterion) {
    let device = Device::flex();
    assert_eq!(v7::SPATIAL, 22);
    let cfg = NetConfig::small(6, 64);
    let net = Net::load(&cfg, &mut RandomWeights::new(1), &device).unwrap();
    for size in [9, 19] {
        for batch in [1, 8, 32, 64] {
            run(c, "b6c64", &net, size, batch);
        }
    }
    let path = std::env::var("TENGEN_KATAGO_NET")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../katrain/katrain/models/b10c384h6nbttflrs.bin.gz")
        });
    if let Ok(mut m) = katago::load(&path) {
        let net = Net::load(&m.config, &mut m.weights, &device).unwrap();
        for batch in [1, 8] {
            run(c, "b10c384 (KataGo)", &net, 19, batch);
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
