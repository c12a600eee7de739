//! Training lowers the loss on a small fixed dataset (it can overfit it).

mod common;

use burn::tensor::Device;
use rand::rngs::StdRng;
use rand::SeedableRng;
use tengen_train::model::TrainNet;
use tengen_train::shard;
use tengen_train::train::data::Dataset;
use tengen_train::train::Trainer;

#[test]
fn training_overfits_a_small_dataset() {
    let dir = common::tmp("overfit");
    common::quick_selfplay(&dir, 2, 3);
    let mut samples = Vec::new();
    for p in shard::list(&dir).unwrap() {
        samples.extend(shard::read(&p).unwrap());
    }
    samples.truncate(16);
    let n = samples.len();
    assert!(n >= 8, "{n} samples");
    let data = Dataset::from_samples(samples);
    let device = Device::flex();
    let net = TrainNet::random(&tengen::net::NetConfig::small(1, 16), 5, &device).unwrap();
    let mut t = Trainer::new(net, &device);
    let all = data.sequential_batches(n, 1);
    let before = t.evaluate(&all).unwrap();
    let mut rng = StdRng::seed_from_u64(1);
    for _ in 0..80 {
        let b = data.random_batch(n, false, None, None, &mut rng).unwrap();
        t.step(&b, 3e-3);
    }
    let after = t.evaluate(&all).unwrap();
    eprintln!("before {before:?}\nafter  {after:?}");
    assert!(
        after.total < 0.7 * before.total,
        "{} -> {}",
        before.total,
        after.total
    );
    assert!(after.policy < before.policy && after.value < before.value);
}
