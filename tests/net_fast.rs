//! The fast CPU path against burn's: random nets of every block type,
//! trunk norm and activation, random norms (so that folding is tested),
//! random inputs, several board and batch sizes. Every raw output must
//! agree within 1e-3 (relative to magnitudes above 1).
#![cfg(feature = "net")]

use burn::tensor::Device;
use tengen::net::config::{Activation, BlockConfig, PostProcess, TrunkNorm};
use tengen::net::fast::FastNet;
use tengen::net::layers::Weights;
use tengen::net::{Net, NetConfig, NetError, RandomWeights};

const TOL: f32 = 1e-3;

/// Random weights with norms that are not the identity: scales in
/// [0.5, 1.5], biases in [-0.3, 0.3].
struct Noisy {
    inner: RandomWeights,
    state: u64,
}

impl Noisy {
    fn new(seed: u64) -> Noisy {
        Noisy {
            inner: RandomWeights::new(seed),
            state: seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1,
        }
    }
    fn uniform(&mut self) -> f32 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        (self.state >> 40) as f32 / (1u64 << 24) as f32
    }
}

impl Weights for Noisy {
    fn take(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>, NetError> {
        let mut v = self.inner.take(name, shape)?;
        let is_scale =
            name.ends_with(".scale") || name.ends_with("norm") || name.ends_with("gamma");
        let is_bias = name.ends_with(".bias") || name.ends_with("beta");
        for x in v.iter_mut() {
            if is_scale {
                *x = 0.5 + self.uniform();
            } else if is_bias {
                *x = 0.6 * self.uniform() - 0.3;
            }
        }
        Ok(v)
    }
}

fn config(blocks: Vec<BlockConfig>, norm: TrunkNorm, act: Activation, version: usize) -> NetConfig {
    let mut c = NetConfig::new(
        "test".into(),
        24,
        blocks,
        norm,
        act,
        8,
        8,
        12,
        PostProcess::new(),
    );
    c.model_version = version;
    c
}

fn nets() -> Vec<(&'static str, NetConfig)> {
    let rms = TrunkNorm::SpatialRmsNorm { epsilon: 1e-5 };
    vec![
        ("residual+gpool relu bn", NetConfig::small(4, 16)),
        (
            "nested mish rms",
            config(
                vec![
                    BlockConfig::Residual { mid: 20 },
                    BlockConfig::NestedBottleneck {
                        mid: 12,
                        inner: vec![
                            BlockConfig::Residual { mid: 12 },
                            BlockConfig::GlobalPool { mid: 12, gpool: 5 },
                        ],
                    },
                    BlockConfig::GlobalPool { mid: 16, gpool: 8 },
                ],
                rms,
                Activation::Mish,
                15,
            ),
        ),
        (
            "transformer silu rms",
            config(
                vec![
                    BlockConfig::NestedBottleneck {
                        mid: 16,
                        inner: vec![
                            BlockConfig::Attention {
                                heads: 4,
                                kv_heads: 2,
                                q_head_dim: 6,
                                v_head_dim: 5,
                            },
                            BlockConfig::SwiGluFfn { hidden: 20 },
                        ],
                    },
                    BlockConfig::Attention {
                        heads: 2,
                        kv_heads: 2,
                        q_head_dim: 4,
                        v_head_dim: 4,
                    },
                    BlockConfig::SwiGluFfn { hidden: 16 },
                    BlockConfig::Residual { mid: 24 },
                ],
                rms,
                Activation::Silu,
                15,
            ),
        ),
        (
            "identity bn v14",
            config(
                vec![
                    BlockConfig::Residual { mid: 24 },
                    BlockConfig::GlobalPool { mid: 24, gpool: 8 },
                ],
                TrunkNorm::BatchNorm,
                Activation::Identity,
                14,
            ),
        ),
    ]
}

fn inputs(cfg: &NetConfig, batch: usize, size: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
    let mut r = Noisy::new(seed);
    let spatial = (0..batch * cfg.spatial_inputs * size * size)
        .map(|_| if r.uniform() < 0.3 { 1.0 } else { 0.0 })
        .collect();
    let global = (0..batch * cfg.global_inputs)
        .map(|_| r.uniform() - 0.5)
        .collect();
    (spatial, global)
}

fn worst(name: &str, a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len(), "{name}: lengths");
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            assert!(x.is_finite() && y.is_finite(), "{name}: {x} vs {y}");
            (x - y).abs() / y.abs().max(1.0)
        })
        .fold(0f32, f32::max)
}

#[test]
fn fast_path_matches_burn_on_every_block_type() {
    let device = Device::flex();
    for (i, (label, cfg)) in nets().into_iter().enumerate() {
        let net = Net::load(&cfg, &mut Noisy::new(11 + i as u64), &device).unwrap();
        let fast = FastNet::new(&net).unwrap();
        let mut largest = 0f32;
        for size in [9, 13, 19, 5] {
            // 13x13 batch 20 runs in two parts (12 + 8 boards).
            let batches: &[usize] = if size == 13 {
                &[1, 3, 8, 20]
            } else {
                &[1, 3, 8]
            };
            for &batch in batches {
                if size == 19 && batch == 8 && i == 2 {
                    continue; // the slowest case adds nothing the others lack
                }
                let (sp, gl) = inputs(&cfg, batch, size, (size * 10 + batch) as u64);
                let want = net.forward(sp.clone(), gl.clone(), batch, size);
                // Twice: the second pass reuses the scratch of the first.
                for _ in 0..2 {
                    let got = fast.forward(&sp, &gl, batch, size);
                    assert_eq!(
                        (got.batch, got.size, got.policy_channels),
                        (batch, size, want.policy_channels)
                    );
                    let d = [
                        worst("policy", &got.policy, &want.policy),
                        worst("pass", &got.pass, &want.pass),
                        worst("value", &got.value, &want.value),
                        worst("misc", &got.misc, &want.misc),
                        worst("ownership", &got.ownership, &want.ownership),
                    ];
                    let max = d.iter().copied().fold(0f32, f32::max);
                    assert!(
                        max <= TOL,
                        "{label}, {size}x{size}, batch {batch}: differences {d:?}"
                    );
                    largest = largest.max(max);
                    // Not vacuous: the policy logits differ between points.
                    let spread = want.policy.iter().fold(0f32, |m, v| m.max(v.abs()));
                    assert!(spread > 1e-2, "{label}: flat policy");
                }
            }
        }
        eprintln!("{label}: largest difference {largest:.2e}");
    }
}

#[test]
fn fast_path_is_thread_safe_and_batch_independent() {
    let cfg = NetConfig::small(3, 16);
    let net = Net::load(&cfg, &mut Noisy::new(5), &Device::flex()).unwrap();
    let fast = std::sync::Arc::new(FastNet::new(&net).unwrap());
    let (sp, gl) = inputs(&cfg, 3, 9, 77);
    let whole = fast.forward(&sp, &gl, 3, 9);
    let per = 22 * 81;
    std::thread::scope(|s| {
        for row in 0..3 {
            let (fast, sp, gl, whole) = (&fast, &sp, &gl, &whole);
            s.spawn(move || {
                for _ in 0..5 {
                    let one = fast.forward(
                        &sp[row * per..(row + 1) * per],
                        &gl[row * 19..(row + 1) * 19],
                        1,
                        9,
                    );
                    assert!(
                        worst(
                            "policy",
                            &one.policy,
                            &whole.policy[row * 2 * 81..(row + 1) * 2 * 81]
                        ) < 1e-5
                    );
                    assert!(
                        worst("value", &one.value, &whole.value[row * 3..(row + 1) * 3]) < 1e-5
                    );
                }
            });
        }
    });
}

/// The exactness test again in child processes with the kernels capped at
/// AVX2 and at the portable baseline (`TENGEN_SIMD`), so that every
/// compiled version is checked on a machine that has the wider one.
#[test]
fn every_instruction_set_version_matches_burn() {
    if std::env::var_os("TENGEN_SIMD").is_some() {
        return; // already a child
    }
    let exe = std::env::current_exe().unwrap();
    for level in ["avx2", "portable"] {
        let out = std::process::Command::new(&exe)
            .args([
                "fast_path_matches_burn_on_every_block_type",
                "--exact",
                "--nocapture",
            ])
            .env("TENGEN_SIMD", level)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{level}:\n{text}");
        assert!(
            text.contains("1 passed"),
            "{level}: the test did not run:\n{text}"
        );
    }
}
