//! Resuming from a checkpoint continues bit for bit (one thread).

mod common;

use burn::tensor::Device;
use indicatif::ProgressBar;
use tengen_train::train::{self, Init, TrainConfig};

#[test]
fn resume_is_bit_identical() {
    // flex uses rayon's global pool; one thread for exact sums.
    std::env::set_var("RAYON_NUM_THREADS", "1");
    let root = common::tmp("resume");
    let data = root.join("data");
    common::quick_selfplay(&data, 2, 11);
    let cfg = |steps| TrainConfig {
        steps,
        batch: 8,
        checkpoint_every: 3,
        val_batches: 0,
        seed: 5,
        ..TrainConfig::default()
    };
    let init = Init::Fresh(common::tiny());
    let bar = ProgressBar::hidden();
    let dev = Device::flex();
    // Straight through: 6 steps.
    let a = root.join("a");
    train::run(&cfg(6), &data, None, &a, &init, &dev, &bar).unwrap();
    // Stopped after 3 steps (a new process would see only the
    // checkpoint), then continued to 6.
    let b = root.join("b");
    train::run(&cfg(3), &data, None, &b, &init, &dev, &bar).unwrap();
    train::run(&cfg(6), &data, None, &b, &init, &dev, &bar).unwrap();
    // Compare the tensors (the file's metadata order is not fixed).
    let w = |d: &std::path::Path| {
        tengen::net::io::read(&d.join("ckpt-0000000006").join("net.safetensors"))
            .unwrap()
            .1
            .tensors
    };
    let (wa, wb) = (w(&a), w(&b));
    assert!(wa == wb, "weights differ after resume");
    // And a different seed does differ (the comparison is meaningful).
    let c = root.join("c");
    let mut other = cfg(6);
    other.seed = 6;
    train::run(&other, &data, None, &c, &init, &dev, &bar).unwrap();
    let wc = w(&c);
    assert!(wa != wc);
}

/// Trains a tiny net 3 steps from scratch (the init), then 3 steps from it
/// with `freeze` applied to the config, then resumes to step 6 without it
/// (the checkpoint's choice must hold). Returns the init's and the final
/// model's paths.
fn frozen_run(
    name: &str,
    data_seed: u64,
    seed: u64,
    freeze: fn(&mut TrainConfig),
) -> (std::path::PathBuf, std::path::PathBuf) {
    std::env::set_var("RAYON_NUM_THREADS", "1");
    let root = common::tmp(name);
    let data = root.join("data");
    common::quick_selfplay(&data, 2, data_seed);
    let cfg = |steps, frozen| {
        let mut c = TrainConfig {
            steps,
            batch: 8,
            checkpoint_every: 3,
            val_batches: 0,
            seed,
            ..TrainConfig::default()
        };
        if frozen {
            freeze(&mut c);
        }
        c
    };
    let bar = ProgressBar::hidden();
    let dev = Device::flex();
    let base = root.join("base");
    let fresh = Init::Fresh(common::tiny());
    train::run(&cfg(3, false), &data, None, &base, &fresh, &dev, &bar).unwrap();
    let init_path = base.join("model.safetensors");
    let init = Init::Model(init_path.clone());
    // Three steps with the flag, then three more resumed without it: the
    // checkpoint's choice holds.
    let out = root.join("heads");
    train::run(&cfg(3, true), &data, None, &out, &init, &dev, &bar).unwrap();
    let s = train::run(&cfg(6, false), &data, None, &out, &init, &dev, &bar).unwrap();
    assert_eq!(s.steps_run, 3, "resumed at step 3");
    (init_path, out.join("model.safetensors"))
}

#[test]
fn value_head_only_keeps_every_other_weight_through_a_resume() {
    let (init, out) = frozen_run("resume-vho", 12, 6, |c| c.value_head_only = true);
    common::assert_only_value_head_moved(&init, &out, 4);
}

#[test]
fn heads_only_keeps_the_stem_and_trunk_through_a_resume() {
    let (init, out) = frozen_run("resume-heads", 13, 7, |c| c.heads_only = true);
    // The policy head learns as well as the value head.
    common::assert_only_these_moved(&init, &out, &["value.", "policy."], 6);
    let read = |p: &std::path::Path| tengen::net::io::read(p).unwrap().1.tensors;
    let (before, after) = (read(&init), read(&out));
    assert!(
        before
            .iter()
            .any(|(name, w)| name.starts_with("policy.") && after[name] != *w),
        "the policy head learned nothing"
    );
}
