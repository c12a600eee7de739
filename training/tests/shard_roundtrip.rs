//! Shard files: write/read round trip, and clear errors for bad files.

mod common;

use tengen::features::v7;
use tengen_train::shard::{self, Sample, HAS_POLICY, HAS_VALUE, NO_MOVE};

fn sample(size: usize, k: usize) -> Sample {
    let n = size * size;
    let mut policy = vec![0.0; n + 1];
    policy[k % (n + 1)] = 0.75;
    policy[n] = 0.25;
    Sample {
        size,
        flags: HAS_POLICY | HAS_VALUE,
        spatial: (0..v7::SPATIAL * n)
            .map(|i| (i * 7 + k).is_multiple_of(3) as u8 as f32)
            .collect(),
        global: (0..v7::GLOBAL).map(|i| i as f32 * 0.1 - k as f32).collect(),
        policy,
        opp_move: if k.is_multiple_of(2) {
            NO_MOVE
        } else {
            (k % n) as u16
        },
        outcome: [1, -1, 0][k % 3],
        score: k as f32 - 3.5,
        ownership: (0..n).map(|i| ((i + k) % 3) as i8 - 1).collect(),
    }
}

#[test]
fn shard_round_trip_is_exact() {
    let dir = common::tmp("shard");
    let samples: Vec<Sample> = (0..10)
        .map(|k| sample(if k % 2 == 0 { 9 } else { 5 }, k))
        .collect();
    let path = shard::next_path(&dir).unwrap();
    shard::write(&path, &samples).unwrap();
    assert_eq!(shard::read(&path).unwrap(), samples);
    assert_eq!(shard::list(&dir).unwrap(), vec![path.clone()]);
    assert!(shard::next_path(&dir)
        .unwrap()
        .ends_with("shard-00000001.tgs"));
}

#[test]
fn bad_shards_are_errors_not_panics() {
    let dir = common::tmp("badshard");
    let path = dir.join("shard-00000000.tgs");
    shard::write(&path, &[sample(9, 1), sample(9, 2)]).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    // Truncated.
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    assert!(shard::read(&path).is_err());
    // Wrong magic, unknown version.
    std::fs::write(&path, b"not a shard at all").unwrap();
    assert!(shard::read(&path)
        .unwrap_err()
        .to_string()
        .contains("magic"));
    let mut v = bytes.clone();
    v[8] = 9;
    std::fs::write(&path, &v).unwrap();
    assert!(shard::read(&path)
        .unwrap_err()
        .to_string()
        .contains("version 9"));
    // Non-binary planes are refused by the writer.
    let mut s = sample(5, 0);
    s.spatial[3] = 0.5;
    assert!(shard::write(&path, &[s]).is_err());
}
