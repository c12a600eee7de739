//! Rules-core speed: uniformly random legal playouts (simple ko, no
//! suicide, never filling the mover's own eye-like points) from the empty
//! board, reported as moves per second.
//!
//! Every iteration plays the same seeded playouts, so the number of moves is
//! known in advance; the bench asserts it played exactly that many.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::hint::black_box;
use tengen::rules::playout::playout;
use tengen::rules::{Board, Color};

const PLAYOUTS: u64 = 16;

fn run(size: usize) -> u64 {
    let empty = Board::new(size);
    let mut total = 0;
    for seed in 0..PLAYOUTS {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut b = empty.clone();
        let stats = playout(&mut b, Color::Black, 3 * (size * size) as u32, &mut rng);
        total += stats.moves as u64;
        black_box(&b);
    }
    total
}

fn playouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("random_playout");
    for size in [9usize, 19] {
        let moves = run(size);
        assert!(
            moves > PLAYOUTS * (size * size) as u64 / 2,
            "playouts too short"
        );
        group.throughput(Throughput::Elements(moves));
        group.bench_function(format!("{size}x{size}"), |b| {
            b.iter(|| assert_eq!(run(black_box(size)), moves))
        });
    }
    group.finish();
}

criterion_group!(benches, playouts);
criterion_main!(benches);
