//! Search overhead: visits per second with a zero-cost evaluator (uniform
//! policy over every point, value 0), so everything measured is the
//! search itself — selection, position replay, legality, expansion,
//! backup and batching. 1 and 2 threads, 9×9 and 19×19, from the empty
//! board. Every iteration asserts the root reached its visit count.
//!
//! With the `net` feature, `search_net` measures visits/s with a real CPU
//! net (a small random one, 6 blocks × 64 channels, 9×9, batch 8, 1 and
//! 2 threads) and prints the average batch size the search achieved.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use tengen::rules::{Position, Ruleset};
use tengen::search::testing::ZeroEvaluator;
use tengen::search::{Limits, Search, SearchConfig};

const VISITS: u64 = 2000;

fn visits(c: &mut Criterion) {
    let mut group = c.benchmark_group("search_visits");
    group.throughput(Throughput::Elements(VISITS));
    group.sample_size(10);
    for size in [9, 19] {
        for threads in [1, 2] {
            let id = BenchmarkId::new(format!("{size}x{size}"), format!("{threads}t"));
            group.bench_function(id, |b| {
                b.iter(|| {
                    let cfg = SearchConfig {
                        threads,
                        batch_size: 8,
                        ..SearchConfig::default()
                    };
                    let mut s = Search::new(Arc::new(ZeroEvaluator), cfg);
                    s.set_position(Position::new(size, Ruleset::chinese()).unwrap(), Vec::new());
                    let r = s.run(
                        &Limits::visits(VISITS),
                        &AtomicBool::new(false),
                        None,
                        Duration::from_secs(3600),
                    );
                    assert_eq!(r.visits, VISITS);
                    r.visits
                })
            });
        }
    }
    group.finish();
}

#[cfg(feature = "net")]
fn visits_with_net(c: &mut Criterion) {
    use burn::tensor::Device;
    use tengen::net::{Net, NetConfig, NetEvaluator, RandomWeights};

    const NET_VISITS: u64 = 400;
    let cfg = NetConfig::small(6, 64);
    let net = Net::load(&cfg, &mut RandomWeights::new(1), &Device::flex()).unwrap();
    let eval = Arc::new(NetEvaluator::new(net, 8));
    let mut group = c.benchmark_group("search_net");
    group.throughput(Throughput::Elements(NET_VISITS));
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(5));
    for threads in [1, 2] {
        let mut batches = (0u64, 0.0f64);
        let id = BenchmarkId::new("b6c64 9x9 batch 8", format!("{threads}t"));
        group.bench_function(id, |b| {
            b.iter(|| {
                let cfg = SearchConfig {
                    threads,
                    batch_size: 8,
                    ..SearchConfig::default()
                };
                let mut s = Search::new(eval.clone(), cfg);
                s.set_position(Position::new(9, Ruleset::chinese()).unwrap(), Vec::new());
                let r = s.run(
                    &Limits::visits(NET_VISITS),
                    &AtomicBool::new(false),
                    None,
                    Duration::from_secs(3600),
                );
                assert_eq!(r.visits, NET_VISITS);
                batches.0 += r.batches;
                batches.1 += r.avg_batch as f64 * r.batches as f64;
                r.visits
            })
        });
        eprintln!(
            "search_net {threads}t: average batch {:.2} over {} batches",
            batches.1 / batches.0.max(1) as f64,
            batches.0
        );
    }
    group.finish();
}

#[cfg(not(feature = "net"))]
fn visits_with_net(_: &mut Criterion) {}

criterion_group!(benches, visits, visits_with_net);
criterion_main!(benches);
