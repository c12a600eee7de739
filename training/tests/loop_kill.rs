//! The loop survives real kills: the `tengen-train loop` process is
//! killed with SIGKILL during self-play, training, the gate and the
//! anchors, started again with the same command each time, and the run
//! still ends exactly where an uninterrupted one would: every generation
//! once in `metrics.csv`, every anchor row once, the right number of
//! self-play games, and every shard readable.

mod common;

use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use tengen_train::model::TrainNet;

const GENERATIONS: u32 = 2;
const GAMES_PER_GEN: usize = 8;

fn start(root: &Path, anchor: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_tengen-train"))
        .args(["--device", "cpu", "loop", "--root"])
        .arg(root)
        .args(["--arch", "b1c8", "--min-size", "5", "--max-size", "5"])
        .args(["--games-per-gen", &GAMES_PER_GEN.to_string()])
        .args(["--games-per-shard", "2", "--parallel", "2"])
        .args(["--visits-full", "48", "--visits-fast", "12"])
        .args([
            "--steps-per-gen",
            "150",
            "--batch",
            "16",
            "--checkpoint-every",
            "4",
        ])
        .args(["--val-batches", "1"])
        .args(["--gate-games", "4", "--gate-visits", "96"])
        .args(["--until-generation", &GENERATIONS.to_string()])
        .arg("--anchor")
        .arg(format!("fixed=net:{}", anchor.display()))
        .args(["--anchor-games", "4", "--anchor-visits", "96"])
        .args(["--anchor-parallel", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("tengen-train starts")
}

/// The stage named in loop.json, if the file is there and readable.
fn stage(root: &Path) -> Option<(u32, String, usize)> {
    let text = std::fs::read_to_string(root.join("loop.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some((
        v["generation"].as_u64()? as u32,
        v["stage"].as_str()?.to_string(),
        v["games_done"].as_u64()? as usize,
    ))
}

/// Runs until `want` holds for loop.json, then kills the process with
/// SIGKILL. Returns false if the process ended first.
fn kill_when(
    root: &Path,
    anchor: &Path,
    delay: Duration,
    want: impl Fn(u32, &str, usize) -> bool,
) -> bool {
    let mut child = start(root, anchor);
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            return false;
        }
        if let Some((g, s, n)) = stage(root) {
            if want(g, &s, n) {
                std::thread::sleep(delay);
                // Child::kill is SIGKILL on Unix: no cleanup runs.
                child.kill().expect("kill");
                child.wait().expect("reaped");
                return true;
            }
        }
        assert!(Instant::now() < deadline, "loop made no progress");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn loop_resumes_after_sigkill_at_every_stage() {
    let root = common::tmp("loop-kill");
    let anchor = root.join("anchor.safetensors");
    TrainNet::random(&common::tiny(), 99, &burn::tensor::Device::flex())
        .unwrap()
        .export(&anchor)
        .unwrap();
    let run = root.join("run");
    let mut kills = 0;
    // Start of the run: while the start net plays its anchor.
    kills += kill_when(&run, &anchor, Duration::from_millis(300), |g, s, _| {
        g == 0 && s == "Anchors"
    }) as u32;
    // Mid self-play, right after a shard was counted (the next one is
    // under way), and again a moment later (a shard may be on disk but
    // not yet counted).
    kills += kill_when(&run, &anchor, Duration::from_millis(0), |g, s, n| {
        g == 0 && s == "Selfplay" && n >= 2
    }) as u32;
    kills += kill_when(&run, &anchor, Duration::from_millis(150), |g, s, n| {
        g == 0 && s == "Selfplay" && n >= 4
    }) as u32;
    kills += kill_when(&run, &anchor, Duration::from_millis(200), |g, s, _| {
        g == 0 && s == "Train"
    }) as u32;
    kills += kill_when(&run, &anchor, Duration::from_millis(100), |g, s, _| {
        g == 0 && s == "Gate"
    }) as u32;
    kills += kill_when(&run, &anchor, Duration::from_millis(100), |g, s, n| {
        g == 1 && (s != "Selfplay" || n >= 2)
    }) as u32;
    println!("{kills} of 6 kills landed");
    assert!(
        kills >= 4,
        "only {kills} kills landed: the run was too quick"
    );
    // Now to the end, undisturbed.
    let status = start(&run, &anchor).wait().unwrap();
    assert!(status.success(), "the resumed loop failed: {status}");

    let (g, s, _) = stage(&run).unwrap();
    assert_eq!((g, s.as_str()), (GENERATIONS, "Selfplay"));
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("loop.json")).unwrap()).unwrap();
    assert_eq!(
        state["total_games"].as_u64().unwrap() as usize,
        GENERATIONS as usize * GAMES_PER_GEN,
        "{state}"
    );
    // One metrics row per generation, in order.
    let rows = tengen_train::metrics::read(&run.join("metrics.csv"));
    let gens: Vec<u32> = rows.iter().map(|r| r.generation).collect();
    assert_eq!(gens, (1..=GENERATIONS).collect::<Vec<_>>());
    // Anchor rows: each (generation, komi) once; generation 0 is there.
    let anchors = tengen_train::anchors::read(&run.join("anchors.csv"));
    let mut keys: Vec<(u32, String)> = anchors
        .iter()
        .map(|r| (r.generation, format!("{}", r.komi)))
        .collect();
    let n = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), n, "an anchor row was written twice");
    assert!(keys.iter().any(|k| k.0 == 0));
    for r in &anchors {
        assert_eq!(r.tally.games(), 2, "two games per komi: {r:?}");
    }
    // Every shard reads back; the games on disk are the games counted.
    let shards = tengen_train::shard::list(&run.join("data")).unwrap();
    assert_eq!(shards.len(), GENERATIONS as usize * GAMES_PER_GEN / 2);
    for p in &shards {
        assert!(!tengen_train::shard::read(p).unwrap().is_empty());
    }
    let sgf_games: usize = std::fs::read_dir(run.join("data").join("sgf"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "sgf"))
        .map(|e| {
            std::fs::read_to_string(e.path())
                .unwrap()
                .lines()
                .filter(|l| l.starts_with("(;"))
                .count()
        })
        .sum();
    assert_eq!(sgf_games, GENERATIONS as usize * GAMES_PER_GEN);
    // The komi curve of every anchored net, once per ruleset.
    let curve = std::fs::read_to_string(run.join("komi-curve.csv")).unwrap();
    let mut gens: Vec<u32> = curve
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(gens.len(), 2 * (keys.len() / 2), "{curve}");
    gens.dedup();
    let mut anchored: Vec<u32> = keys.iter().map(|k| k.0).collect();
    anchored.dedup();
    assert_eq!(gens, anchored, "{curve}");
    assert!(run.join("models").join("gen-0000.safetensors").exists());
    assert!(run.join("anchors.png").exists());
}
