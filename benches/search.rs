//! Search overhead: visits per second with a zero-cost evaluator (uniform
//! policy over every point, value 0), so everything measured is the
//! search itself — selection, position replay, legality, expansion,
//! backup and batching. 1 and 2 threads, 9×9 and 19×19, from the empty
//! board. Every iteration asserts the root reached its visit count.

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

criterion_group!(benches, visits);
criterion_main!(benches);
