//! Net throughput (evals/s) on the CPU: a small random net (6 blocks × 64
//! channels) at batch 1 and 8 on 9×9 and 19×19, and KataGo's b10 net on
//! 19×19 when `TENGEN_KATAGO_NET` (or the katrain path) points at it.

use std::path::PathBuf;

use burn::tensor::Device;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tengen::features::v7;
use tengen::net::{katago, Net, NetConfig, RandomWeights};

fn run(c: &mut Criterion, label: &str, net: &Net, size: usize, batch: usize) {
    let n = size * size;
    let cfg = net.config();
    let spatial = vec![0.5f32; batch * cfg.spatial_inputs * n];
    let global = vec![0.1f32; batch * cfg.global_inputs];
    let mut g = c.benchmark_group("net");
    g.throughput(Throughput::Elements(batch as u64));
    g.sample_size(10);
    g.bench_function(format!("{label} {size}x{size} batch {batch}"), |b| {
        b.iter(|| {
            let out = net.forward(spatial.clone(), global.clone(), batch, size);
            assert_eq!(out.ownership.len(), batch * n, "evaluated every position");
            out
        })
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    let device = Device::flex();
    assert_eq!(v7::SPATIAL, 22);
    let cfg = NetConfig::small(6, 64);
    let net = Net::load(&cfg, &mut RandomWeights::new(1), &device).unwrap();
    for size in [9, 19] {
        for batch in [1, 8] {
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
        for size in [9, 19] {
            for batch in [1, 8] {
                run(c, "b10c384 (KataGo)", &net, size, batch);
            }
        }
    } else {
        eprintln!("KataGo net not found; skipping its benchmark");
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
