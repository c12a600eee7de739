//! Streaming SL from gzip SGF collections: each game's handicap, komi and
//! rules reach the inputs, targets are masked by result kind and rank,
//! malformed records are skipped and counted, and a resumed stream or
//! run continues exactly. All data is synthetic, written to a temp dir.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use burn::tensor::Device;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tengen::features::v7;
use tengen::net::device::Backend;
use tengen::rules::{Color, Move, Point, Position, Ruleset};
use tengen::sgf::GameRecord;
use tengen_train::human::eval::{evaluate_file, EvalSpec};
use tengen_train::human::packed::Packed;
use tengen_train::human::record::{game_samples, Options, Skip};
use tengen_train::human::run::{self, HumanConfig, ResumeOverrides};
use tengen_train::human::stream::{self, Stream, StreamConfig, StreamPos};
use tengen_train::shard::{HAS_OWNERSHIP, HAS_POLICY, HAS_SCORE, HAS_VALUE, NO_MOVE};
use tengen_train::train::data::KomiShift;
use tengen_train::train::Init;

/// flex sums in rayon's pool: one thread for bit-exact comparisons.
fn one_thread() {
    std::env::set_var("RAYON_NUM_THREADS", "1");
}

/// A random legal game of `moves` moves on `size` (root `head` given).
fn random_game(size: usize, moves: usize, head: &str, seed: u64) -> String {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut pos = Position::new(size, Ruleset::chinese()).unwrap();
    let mut s = format!("(;GM[1]FF[4]SZ[{size}]{head}");
    for _ in 0..moves {
        let legal: Vec<Move> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| *m != Move::Pass)
            .collect();
        let mv = legal[rng.random_range(0..legal.len())];
        let c = pos.to_move();
        pos.play(c, mv).unwrap();
        let v = match mv {
            Move::Place(p) => p.to_sgf(),
            Move::Pass => String::new(),
        };
        s.push_str(&format!(";{}[{v}]", c.letter()));
    }
    s.push(')');
    s
}

fn write_collection(path: &Path, lines: &[String]) {
    let f = std::fs::File::create(path).unwrap();
    let mut gz = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
    for l in lines {
        gz.write_all(l.as_bytes()).unwrap();
        gz.write_all(b"\n").unwrap();
    }
    gz.finish().unwrap();
}

fn samples(sgf: &str, opts: &Options) -> Result<Vec<Packed>, Skip> {
    let rec = GameRecord::from_sgf(sgf).unwrap();
    let mut rng = StdRng::seed_from_u64(1);
    game_samples(&rec, rec.size, opts, None, &mut rng)
}

fn plane(p: &Packed, plane: usize, pt: Point) -> bool {
    let n = (p.size as usize).pow(2);
    let i = plane * n + pt.dense(p.size as usize);
    p.unpack().spatial[i] == 1.0
}

#[test]
fn handicap_stones_are_set_up_with_the_bonus_of_the_rules() {
    let dd = Point::new(3, 3);
    let pp = Point::new(15, 15);
    // Chinese: White gets one point per handicap stone on top of komi.
    let g = "(;GM[1]SZ[19]KM[0.5]HA[2]RU[Chinese]RE[W+Resign]AB[dd][pp];W[qd];B[dp])";
    let s = samples(g, &Options::default()).unwrap();
    assert_eq!(s.len(), 2);
    // White to move first; Black's stones are the opponent's (plane 2).
    assert!(plane(&s[0], 2, dd) && plane(&s[0], 2, pp));
    assert!(!plane(&s[0], 1, dd));
    assert_eq!(s[0].global[5], (0.5 + 2.0) / 20.0);
    // Black to move next: its own stones, komi from its view.
    assert!(plane(&s[1], 1, dd));
    assert_eq!(s[1].global[5], -(0.5 + 2.0) / 20.0);
    // Japanese: no bonus (the komi already says it all).
    let j = g.replace("RU[Chinese]", "RU[Japanese]");
    let s = samples(&j, &Options::default()).unwrap();
    assert_eq!(s[0].global[5], 0.5 / 20.0);
    // AGA: N - 1.
    let a = g.replace("RU[Chinese]", "RU[AGA]");
    let s = samples(&a, &Options::default()).unwrap();
    assert_eq!(s[0].global[5], (0.5 + 1.0) / 20.0);
    // Setup other than Black's at the root: skipped.
    let bad = "(;GM[1]SZ[19]AW[dd];B[pp])";
    assert_eq!(samples(bad, &Options::default()), Err(Skip::Setup));
}

#[test]
fn komi_and_rules_reach_the_inputs() {
    let body = ";B[pd];W[dp];B[pp])";
    let g = |root: &str| format!("(;GM[1]SZ[19]{root}RE[B+Resign]{body}");
    // No RU (Tom): Chinese, area scoring, positional superko.
    let s = samples(&g("KM[7.5]"), &Options::default()).unwrap();
    let b = &s[0].global;
    assert_eq!(b[5], -7.5 / 20.0);
    assert_eq!((b[6], b[7], b[8], b[9], b[10]), (1.0, 0.5, 0.0, 0.0, 0.0));
    assert_ne!(b[18], 0.0, "parity wave under area scoring");
    let c = samples(&g("KM[7.5]RU[Chinese]"), &Options::default()).unwrap();
    assert_eq!(c[0].global, s[0].global);
    // The game's own komi.
    let s = samples(&g("KM[6.5]"), &Options::default()).unwrap();
    assert_eq!(s[0].global[5], -6.5 / 20.0);
    assert_eq!(s[1].global[5], 6.5 / 20.0);
    // Japanese: territory scoring with seki tax, simple ko, no wave, no
    // area planes.
    let s = samples(&g("KM[6.5]RU[Japanese]"), &Options::default()).unwrap();
    let j = &s[2].global;
    assert_eq!(
        (j[6], j[7], j[8], j[9], j[10], j[18]),
        (0.0, 0.0, 0.0, 1.0, 1.0, 0.0)
    );
    let n = 361;
    let sp = s[2].unpack().spatial;
    assert!(sp[18 * n..20 * n].iter().all(|&v| v == 0.0));
    // AGA and NZ: situational superko; NZ allows suicide.
    let a = samples(&g("KM[7.5]RU[AGA]"), &Options::default()).unwrap();
    assert_eq!(
        (a[0].global[6], a[0].global[7], a[0].global[8]),
        (1.0, -0.5, 0.0)
    );
    let z = samples(&g("KM[7]RU[NZ]"), &Options::default()).unwrap();
    assert_eq!(
        (z[0].global[7], z[0].global[8], z[0].global[9]),
        (-0.5, 1.0, 0.0)
    );
    // Unknown rules: skipped, not guessed.
    assert_eq!(
        samples(&g("RU[Ing-ish]"), &Options::default()),
        Err(Skip::Rules)
    );
}

#[test]
fn targets_are_masked_by_result_kind() {
    let g = |re: &str| format!("(;GM[1]SZ[19]KM[6.5]{re};B[pd];W[dp];B[pp])");
    let flags = |re: &str, opts: &Options| {
        samples(&g(re), opts)
            .unwrap()
            .iter()
            .map(|s| (s.flags, s.outcome, s.score))
            .collect::<Vec<_>>()
    };
    let d = Options::default();
    // A margin: value and score, from the mover's view.
    let f = flags("RE[W+12.5]", &d);
    assert_eq!(f[0], (HAS_POLICY | HAS_VALUE | HAS_SCORE, -1, -12.5));
    assert_eq!(f[1], (HAS_POLICY | HAS_VALUE | HAS_SCORE, 1, 12.5));
    // Resignation: value only.
    assert_eq!(
        flags("RE[B+Resign]", &d)[0],
        (HAS_POLICY | HAS_VALUE, 1, 0.0)
    );
    // Time: no value by default; a value with --time-value.
    assert_eq!(flags("RE[B+Time]", &d)[0], (HAS_POLICY, 0, 0.0));
    let t = Options {
        time_value: true,
        ..Options::default()
    };
    assert_eq!(
        flags("RE[B+Time]", &t)[1],
        (HAS_POLICY | HAS_VALUE, -1, 0.0)
    );
    // Forfeit, Void, no result, nonsense: policy only.
    for re in ["RE[W+Forfeit]", "RE[Void]", "", "RE[?]"] {
        assert!(flags(re, &d).iter().all(|f| f.0 == HAS_POLICY), "{re}");
    }
    // Draw: value 0 and score 0.
    assert_eq!(
        flags("RE[0]", &d)[0],
        (HAS_POLICY | HAS_VALUE | HAS_SCORE, 0, 0.0)
    );
    // Ownership is never known here.
    for re in ["RE[W+12.5]", "RE[B+Resign]"] {
        let s = samples(&g(re), &d).unwrap();
        assert!(s.iter().all(|s| s.flags & HAS_OWNERSHIP == 0));
        assert!(s
            .iter()
            .all(|s| s.unpack().ownership.iter().all(|&o| o == 0)));
    }
}

#[test]
fn policy_only_from_strong_or_unnamed_players() {
    let g = "(;GM[1]SZ[19]PB[kyu]PW[dan]BR[3d]WR[7d?]RE[W+Resign];B[pd];W[dp];B[pp];W[dd])";
    let opts = Options {
        min_rank: Some(6),
        ..Options::default()
    };
    let s = samples(g, &opts).unwrap();
    // Black (3d) teaches no move; White (7d) does.
    assert_eq!(s[0].flags & HAS_POLICY, 0);
    assert_eq!(s[0].policy, NO_MOVE);
    assert_ne!(s[1].flags & HAS_POLICY, 0);
    // Both still teach value.
    assert!(s.iter().all(|s| s.flags & HAS_VALUE != 0));
    // The opponent-reply target follows the same rule.
    assert_ne!(s[0].opp, NO_MOVE);
    assert_eq!(s[1].opp, NO_MOVE);
    // --no-policy-for by name.
    let by_name = Options {
        no_policy_for: vec!["DAN".into()],
        ..Options::default()
    };
    let s = samples(g, &by_name).unwrap();
    assert_ne!(s[0].flags & HAS_POLICY, 0);
    assert_eq!(s[1].flags & HAS_POLICY, 0);
    // An unknown rank does not qualify.
    let s = samples("(;GM[1]SZ[19];B[pd];W[dp])", &opts).unwrap();
    assert!(s.iter().all(|s| s.flags & HAS_POLICY == 0));
    let _ = Color::Black;
}

/// A data folder of 9×9 games: `train` games in two train files, 6 val.
fn dataset(root: &Path, train: usize, extra: &[String]) -> PathBuf {
    let dir = root.join("data");
    std::fs::create_dir_all(&dir).unwrap();
    let games: Vec<String> = (0..train)
        .map(|i| random_game(9, 12 + i % 5, "KM[7]RE[B+Resign]", i as u64))
        .collect();
    let (a, b) = games.split_at(train / 2);
    let mut a = a.to_vec();
    a.extend_from_slice(extra);
    write_collection(&dir.join("x-train-00.sgfs.gz"), &a);
    write_collection(&dir.join("x-train-01.sgfs.gz"), b);
    let val: Vec<String> = (0..6)
        .map(|i| random_game(9, 20, "KM[7]RE[W+3]", 1000 + i))
        .collect();
    write_collection(&dir.join("x-val.sgfs.gz"), &val);
    dir
}

fn stream_cfg(dir: &Path) -> StreamConfig {
    StreamConfig {
        files: stream::collection_files(dir, "-train-").unwrap(),
        size: 9,
        options: Options {
            keep: 0.7,
            ..Options::default()
        },
        window_games: 3,
        batch: 4,
        augment: true,
        komi_shift: None,
        rules_mix: None,
        seed: 9,
        queue: 2,
        ownership_labels: None,
    }
}

#[test]
fn malformed_records_are_skipped_and_counted() {
    let root = common::tmp("sls-bad");
    let extra = vec![
        "this is not sgf".to_string(),
        "(;GM[1]SZ[9];B[ee];W[ee])".to_string(),
        "(;GM[1]SZ[13];B[ee];W[dd])".to_string(),
        "(;GM[1]SZ[9]RU[Martian];B[ee])".to_string(),
        "(;GM[1]SZ[9]AW[aa];B[ee])".to_string(),
        "(;GM[1]SZ[9];B[ee];W[d".to_string(),
        String::new(),
    ];
    let dir = dataset(&root, 4, &extra);
    assert_eq!(
        stream::count_games(&dir.join("x-train-00.sgfs.gz")).unwrap(),
        8
    );
    let cfg = StreamConfig {
        window_games: 100,
        ..stream_cfg(&dir)
    };
    let mut s = Stream::start(&cfg, StreamPos::default());
    let b = s.next_batch().unwrap();
    let sk = &b.stats.skipped;
    assert_eq!(b.stats.games, 10, "blank lines are no games");
    assert_eq!(sk.get("Illegal"), Some(&1));
    assert_eq!(sk.get("Size"), Some(&1));
    assert_eq!(sk.get("Rules"), Some(&1));
    assert_eq!(sk.get("Setup"), Some(&1));
    // Garbage text, and a truncated tree if the parser does not repair it.
    let parse = sk.get("Parse").copied().unwrap_or(0);
    let empty = sk.get("Empty").copied().unwrap_or(0);
    assert!(parse >= 1 && parse + empty <= 2, "{sk:?}");
}

#[test]
fn a_damaged_file_ends_early_and_is_counted() {
    let root = common::tmp("sls-trunc");
    let dir = dataset(&root, 8, &[]);
    // Cut the second train file in the middle of its gzip stream.
    let f = dir.join("x-train-01.sgfs.gz");
    let bytes = std::fs::read(&f).unwrap();
    std::fs::write(&f, &bytes[..bytes.len() / 2]).unwrap();
    let cfg = StreamConfig {
        window_games: 100,
        ..stream_cfg(&dir)
    };
    let mut s = Stream::start(&cfg, StreamPos::default());
    let b = s.next_batch().unwrap();
    assert_eq!(b.stats.skipped.get("ReadError"), Some(&1), "{:?}", b.stats);
    assert!(b.stats.games >= 4, "the first file is read whole");
}

fn same_batch(a: &tengen_train::train::data::Batch, b: &tengen_train::train::data::Batch) -> bool {
    a.rows == b.rows
        && a.spatial == b.spatial
        && a.global == b.global
        && a.policy == b.policy
        && a.value == b.value
        && a.value_w == b.value_w
        && a.score == b.score
}

#[test]
fn a_restarted_stream_gives_the_same_next_batch() {
    let root = common::tmp("sls-resume");
    let dir = dataset(&root, 10, &[]);
    let cfg = stream_cfg(&dir);
    // Enough batches to cross windows and an epoch (10 games, windows of 3).
    let mut s = Stream::start(&cfg, StreamPos::default());
    let all: Vec<_> = (0..40).map(|_| s.next_batch().unwrap()).collect();
    drop(s);
    assert!(all.iter().any(|b| b.pos.epoch == 1), "crossed an epoch");
    assert!(all.iter().any(|b| b.pos.window >= 2));
    // Including the last batch of a window and of the epoch.
    let last_of_epoch = (0..all.len() - 1)
        .find(|&k| all[k].pos.epoch == 0 && all[k + 1].pos.epoch == 1)
        .unwrap();
    let last_of_window = (0..all.len() - 1)
        .find(|&k| all[k].pos.window != all[k + 1].pos.window)
        .unwrap();
    for k in [0, 5, 17, 33, last_of_epoch, last_of_window] {
        let mut again = Stream::start(&cfg, stream::after(all[k].pos));
        let next = again.next_batch().unwrap();
        assert_eq!(next.pos, all[k + 1].pos, "after batch {k}");
        assert!(
            same_batch(&next.batch, &all[k + 1].batch),
            "after batch {k}"
        );
    }
    // Another seed gives other batches (the comparison means something).
    let other = StreamConfig { seed: 10, ..cfg };
    let mut o = Stream::start(&other, StreamPos::default());
    assert!(!same_batch(&o.next_batch().unwrap().batch, &all[0].batch));
}

fn run_cfg(dir: &Path, steps: u64) -> HumanConfig {
    HumanConfig {
        data: dir.to_path_buf(),
        size: 9,
        options: Options {
            keep: 0.7,
            ..Options::default()
        },
        window_games: 3,
        batch: 4,
        lr: 1e-3,
        lr_end: Some(1e-4),
        steps,
        checkpoint_minutes: 0.0,
        checkpoint_every: 3,
        val_games: 4,
        val_every: 2,
        seed: 3,
        augment: true,
        komi_shift: None,
        rules_mix: None,
        score_weight: 1.0,
        resume: ResumeOverrides::default(),
        queue: 2,
        progress_secs: 0.0,
        ownership_labels: None,
        stop_after: None,
        value_head_only: false,
    }
}

#[test]
fn a_killed_run_resumes_at_the_same_step_with_the_same_weights() {
    one_thread();
    let root = common::tmp("sls-run");
    let dir = dataset(&root, 10, &[]);
    let init = Init::Fresh(common::tiny());
    let dev = Device::flex();
    let a = root.join("a");
    let sa = run::run(&run_cfg(&dir, 6), &a, &init, &dev).unwrap();
    assert_eq!(sa.step, 6);
    let b = root.join("b");
    // Stopped right after the checkpoint at step 3 (as a kill would leave
    // it), then the same command again.
    let killed = HumanConfig {
        stop_after: Some(3),
        ..run_cfg(&dir, 6)
    };
    run::run(&killed, &b, &init, &dev).unwrap();
    let state: serde_json::Value = serde_json::from_slice(
        &std::fs::read(b.join("ckpt-0000000003").join("state.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(state["step"], 3);
    let sb = run::run(&run_cfg(&dir, 6), &b, &init, &dev).unwrap();
    assert_eq!(sb.steps_run, 3, "continued at step 3");
    let w = |d: &Path| {
        tengen::net::io::read(&d.join("ckpt-0000000006").join("net.safetensors"))
            .unwrap()
            .1
            .tensors
    };
    assert!(w(&a) == w(&b), "weights differ after resume");
    // Metrics rows: one per checkpoint, with val numbers.
    let csv = std::fs::read_to_string(b.join("metrics.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 3);
    assert!(rows[0].contains("val_top1") && rows[0].contains("val_acc_150"));
    let top1 = rows[2].split(',').nth(12).unwrap();
    assert!(top1.parse::<f64>().is_ok(), "{top1}");
    let _ = v7::GLOBAL;
}

#[test]
fn value_head_only_keeps_every_other_weight_through_a_resume() {
    one_thread();
    let root = common::tmp("sls-vho");
    let dir = dataset(&root, 10, &[]);
    let dev = Device::flex();
    let base = root.join("base");
    run::run(&run_cfg(&dir, 3), &base, &Init::Fresh(common::tiny()), &dev).unwrap();
    let init_path = base.join("model.safetensors");
    let init = Init::Model(init_path.clone());
    let out = root.join("heads");
    // Stopped after the checkpoint at step 3, then resumed without the
    // flag: the checkpoint's choice holds.
    let first = HumanConfig {
        value_head_only: true,
        stop_after: Some(3),
        ..run_cfg(&dir, 6)
    };
    run::run(&first, &out, &init, &dev).unwrap();
    let s = run::run(&run_cfg(&dir, 6), &out, &init, &dev).unwrap();
    assert_eq!(s.steps_run, 3, "resumed at step 3");
    common::assert_only_value_head_moved(&init_path, &out.join("model.safetensors"), 4);
}

#[test]
fn sl_eval_of_the_exported_net_repeats_the_runs_val_numbers() {
    one_thread();
    let root = common::tmp("sls-eval");
    let dir = dataset(&root, 10, &[]);
    let init = Init::Fresh(common::tiny());
    let dev = Device::flex();
    let out = root.join("run");
    let cfg = run_cfg(&dir, 3);
    run::run(&cfg, &out, &init, &dev).unwrap();
    let state = state_at(&out, "ckpt-0000000003");
    let want = &state["last_val"];
    let spec = EvalSpec {
        data: &dir,
        split: "-val",
        games: cfg.val_games,
        every: cfg.val_every,
        size: 9,
        batch: cfg.batch,
        labels: None,
    };
    let burn = Backend {
        device: dev.clone(),
        fast: false,
    };
    let model = out.join("model.safetensors");
    let opts = Options::default();
    let got = evaluate_file(&model, &spec, &opts, &burn).unwrap();
    assert!(got.positions > 0);
    assert_eq!(want["positions"], got.positions);
    for (key, v) in [
        ("top1", got.top1),
        ("top5", got.top5),
        ("value_acc", got.value_acc),
    ] {
        let w = want[key].as_f64().unwrap();
        assert!((w - v).abs() < 1e-9, "{key}: run {w}, sl-eval {v}");
    }
    let ll = want["policy_ll"].as_f64().unwrap();
    assert!(
        (ll - got.policy_ll).abs() < 1e-4,
        "ll: run {ll}, sl-eval {}",
        got.policy_ll
    );
    // On burn, a tengen net's loss terms are the run's val losses too (the
    // heads a playing net keeps; the optimistic-policy aux head is not saved).
    for key in ["policy", "value", "score", "ownership"] {
        let w = want["loss"][key].as_f64().unwrap();
        let v = match key {
            "policy" => got.loss.policy,
            "value" => got.loss.value,
            "score" => got.loss.score,
            _ => got.loss.ownership,
        } as f64;
        assert!(
            (w - v).abs() <= 1e-4 * w.abs().max(1.0),
            "loss {key}: run {w}, sl-eval {v}"
        );
    }
    assert!(got.loss.policy > 0.0 && got.loss.value > 0.0);
    // The fast CPU path scores the same positions alike (its outputs agree
    // with burn's to ~1e-5, so at most a near-tie may change a top-1).
    let fast = Backend {
        device: dev.clone(),
        fast: true,
    };
    let quick = evaluate_file(&model, &spec, &opts, &fast).unwrap();
    assert_eq!(quick.positions, got.positions);
    let one = 1.0 / got.positions as f64 + 1e-9;
    assert!(
        (quick.top1 - got.top1).abs() <= one,
        "{} vs {}",
        quick.top1,
        got.top1
    );
    assert!((quick.value_acc - got.value_acc).abs() <= one);
    assert!((quick.policy_ll - got.policy_ll).abs() < 1e-3);
    // A missing model or split is an error, not a panic.
    assert!(evaluate_file(&root.join("none.safetensors"), &spec, &opts, &burn).is_err());
    let nothing = EvalSpec {
        split: "-test",
        ..spec
    };
    let e = evaluate_file(&model, &nothing, &opts, &burn);
    assert!(e.is_err_and(|e| e.contains("-test")));
}

/// A run on a fresh synthetic dataset in temp folder `name`, stopped
/// right after its checkpoint at step 3: (data folder, run folder).
fn stopped_at_step_3(name: &str) -> (PathBuf, PathBuf) {
    one_thread();
    let root = common::tmp(name);
    let dir = dataset(&root, 10, &[]);
    let out = root.join("run");
    let first = HumanConfig {
        stop_after: Some(3),
        ..run_cfg(&dir, 6)
    };
    run::run(&first, &out, &Init::Fresh(common::tiny()), &Device::flex()).unwrap();
    (dir, out)
}

/// The `state.json` of checkpoint `step` in run folder `out`.
fn state_at(out: &Path, step: &str) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join(step).join("state.json")).unwrap()).unwrap()
}

#[test]
fn komi_shift_given_on_resume_takes_effect() {
    let (dir, out) = stopped_at_step_3("sls-komi-resume");
    let (init, dev) = (Init::Fresh(common::tiny()), Device::flex());
    let shift = |step: &str| state_at(&out, step)["stream"]["komi_shift"].clone();
    assert!(shift("ckpt-0000000003").is_null());
    // Not given on the command line: the checkpoint's setting stays.
    let same = HumanConfig {
        stop_after: Some(1),
        ..run_cfg(&dir, 6)
    };
    run::run(&same, &out, &init, &dev).unwrap();
    assert!(shift("ckpt-0000000004").is_null());
    let resumed = HumanConfig {
        komi_shift: KomiShift::from_flags(0.5, 12.0),
        resume: ResumeOverrides {
            komi_shift: true,
            ..ResumeOverrides::default()
        },
        ..run_cfg(&dir, 6)
    };
    let s = run::run(&resumed, &out, &init, &dev).unwrap();
    assert_eq!(s.steps_run, 2, "resumed at step 4");
    let k = shift("ckpt-0000000006");
    assert_eq!(k["prob"].as_f64(), Some(0.5), "{k}");
    assert_eq!(k["max"].as_f64(), Some(12.0), "{k}");
}

#[test]
fn keep_given_on_resume_moves_on_to_the_next_window() {
    let (dir, out) = stopped_at_step_3("sls-keep-resume");
    let (init, dev) = (Init::Fresh(common::tiny()), Device::flex());
    let state = |step: &str| state_at(&out, step);
    let before = state("ckpt-0000000003");
    assert_eq!(before["stream"]["options"]["keep"].as_f64(), Some(0.7));
    let window = before["next"]["window"].as_u64().unwrap();
    let epoch = before["next"]["epoch"].as_u64().unwrap();
    let resumed = HumanConfig {
        options: Options {
            keep: 0.3,
            ..Options::default()
        },
        resume: ResumeOverrides {
            keep: true,
            ..ResumeOverrides::default()
        },
        stop_after: Some(1),
        ..run_cfg(&dir, 6)
    };
    let s = run::run(&resumed, &out, &init, &dev).unwrap();
    assert_eq!(s.steps_run, 1);
    let after = state("ckpt-0000000004");
    assert_eq!(after["stream"]["options"]["keep"].as_f64(), Some(0.3));
    // Step 4 was the first batch of the window after the one step 3 was
    // in (or of the next epoch, when that window was the epoch's last).
    let (e, w, b) = (
        after["next"]["epoch"].as_u64().unwrap(),
        after["next"]["window"].as_u64().unwrap(),
        after["next"]["batch"].as_u64().unwrap(),
    );
    assert!(
        (e == epoch && w == window + 1 && b == 1) || (e == epoch + 1 && w == 0 && b == 1),
        "next {e}/{w}/{b} after {epoch}/{window}"
    );
}

/// The shared dataset, when this machine has it (tests run in training/).
fn shared_dataset() -> Option<PathBuf> {
    [
        "../../shared/datasets/human-19x19",
        "../shared/datasets/human-19x19",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.join("kgs-6d-val.sgfs.gz").exists())
}

#[test]
fn the_real_val_collections_read_cleanly() {
    let Some(dir) = shared_dataset() else {
        eprintln!("skipped: ../shared/datasets/human-19x19 is not on this machine");
        return;
    };
    let files = stream::collection_files(&dir, "-val").unwrap();
    let mut handicap = 0;
    let mut territory = 0;
    let mut games = 0;
    for f in &files {
        let text = {
            use std::io::Read;
            let mut s = String::new();
            flate2::read::MultiGzDecoder::new(std::fs::File::open(f).unwrap())
                .read_to_string(&mut s)
                .unwrap();
            s
        };
        for line in text.lines().take(150) {
            let rec = GameRecord::from_sgf(line).unwrap();
            let mut rng = StdRng::seed_from_u64(0);
            let opts = Options {
                keep: 0.02,
                ..Options::default()
            };
            let s = game_samples(&rec, 19, &opts, None, &mut rng)
                .unwrap_or_else(|e| panic!("{}: {e:?}: {line}", f.display()));
            games += 1;
            handicap += usize::from(rec.handicap.is_some_and(|h| h >= 2));
            territory += usize::from(s.first().is_some_and(|p| p.global[9] == 1.0));
        }
    }
    assert_eq!(games, 300);
    assert!(handicap > 10 && territory > 50, "{handicap} {territory}");
}

#[test]
fn the_val_subset_is_the_same_every_time() {
    let root = common::tmp("sls-val");
    let dir = dataset(&root, 4, &[]);
    let files = stream::collection_files(&dir, "-val").unwrap();
    let load =
        || tengen_train::human::eval::load_val(&files, 3, 2, 9, &Options::default(), None).unwrap();
    let (a, b) = (load(), load());
    assert_eq!(a.stats.games, 3);
    assert!(!a.is_empty());
    assert_eq!(a.samples, b.samples);
    assert_eq!(a.file_of.len(), a.len());
    assert_eq!(a.files, vec!["x-val.sgfs.gz".to_string()]);
}

/// Komi augmentation in the stream: a counted game's positions come at
/// other komis with the score moved by the same amount (what the board
/// gave stays), a resigned game's never; the rows are the same positions
/// as without it.
#[test]
fn komi_shift_moves_only_counted_positions_and_keeps_the_board_margin() {
    use tengen::features::v7;
    let root = common::tmp("sls-komi");
    let dir = root.join("data");
    std::fs::create_dir_all(&dir).unwrap();
    let games: Vec<String> = (0..8)
        .map(|i| {
            let head = if i % 2 == 0 {
                "KM[7]RE[W+3]"
            } else {
                "KM[7]RE[B+Resign]"
            };
            random_game(9, 14, head, 50 + i)
        })
        .collect();
    write_collection(&dir.join("k-train-00.sgfs.gz"), &games);
    let plain = StreamConfig {
        window_games: 8,
        ..stream_cfg(&dir)
    };
    let shifted = StreamConfig {
        // Absolute komis, -6..=6 for both colours (the games are at 7).
        komi_shift: tengen_train::train::data::KomiShift::from_flags(1.0, 6.0),
        ..plain.clone()
    };
    let (mut a, mut b) = (
        Stream::start(&plain, StreamPos::default()),
        Stream::start(&shifted, StreamPos::default()),
    );
    let (mut moved, mut counted, mut resigned) = (0, 0, 0);
    for _ in 0..10 {
        let (x, y) = (a.next_batch().unwrap().batch, b.next_batch().unwrap().batch);
        assert_eq!(x.score_w, y.score_w, "the same rows");
        for r in 0..x.rows {
            let g = |batch: &tengen_train::train::data::Batch| {
                v7::self_komi(&batch.global[r * v7::GLOBAL..(r + 1) * v7::GLOBAL])
            };
            let (kx, ky) = (g(&x), g(&y));
            if x.score_w[r] > 0.0 {
                counted += 1;
                assert_eq!(x.score[r] - kx, y.score[r] - ky, "row {r}");
                assert!(ky.abs() <= 6.0, "row {r}: komi {ky}");
                assert_eq!(y.value[r * 3] == 1.0, y.score[r] > 0.0);
                moved += usize::from(kx != ky);
            } else {
                resigned += 1;
                assert_eq!(
                    (kx, &x.value[r * 3..r * 3 + 3]),
                    (ky, &y.value[r * 3..r * 3 + 3])
                );
            }
        }
    }
    assert!(counted > 0 && resigned > 0, "{counted} {resigned}");
    assert!(moved * 10 >= counted * 8, "{moved} of {counted} moved");
}

#[test]
fn a_rules_mix_changes_only_the_ko_and_suicide_inputs() {
    // The same stream with and without the mix: the same rows, symmetries
    // and targets; only globals 6-8 differ, and only ever towards a rule
    // that permits every move the game played (these games are Chinese:
    // positional superko, no suicide).
    let root = common::tmp("sls-rules-mix");
    let dir = dataset(&root, 8, &[]);
    let plain = stream_cfg(&dir);
    let mixed = StreamConfig {
        rules_mix: tengen_train::train::data::RulesMix::from_flag(1.0),
        ..plain.clone()
    };
    let (mut a, mut b) = (
        Stream::start(&plain, StreamPos::default()),
        Stream::start(&mixed, StreamPos::default()),
    );
    let mut changed = 0;
    for _ in 0..6 {
        let (x, y) = (a.next_batch().unwrap().batch, b.next_batch().unwrap().batch);
        assert_eq!(x.spatial, y.spatial);
        assert_eq!(
            (&x.policy, &x.value, &x.score),
            (&y.policy, &y.value, &y.score)
        );
        for r in 0..x.rows {
            let (gx, gy) = (
                &x.global[r * v7::GLOBAL..(r + 1) * v7::GLOBAL],
                &y.global[r * v7::GLOBAL..(r + 1) * v7::GLOBAL],
            );
            for g in (0..v7::GLOBAL).filter(|g| !(6..=8).contains(g)) {
                assert_eq!(gx[g], gy[g], "row {r}, global {g}");
            }
            assert_eq!(
                v7::ko_and_suicide(gx),
                (tengen::rules::KoRule::Positional, false)
            );
            changed += usize::from(gx[6..=8] != gy[6..=8]);
        }
    }
    assert!(changed > 0, "some rows under other rules");
}

/// `--ownership-labels`: the positions of a labelled game carry its final
/// ownership (from the player to move's view, through the symmetry), and
/// no other position has an ownership target.
#[test]
fn labelled_games_carry_their_final_ownership() {
    use tengen_train::human::labels::{format_line, write_labels};
    let root = common::tmp("sls-labels");
    let dir = dataset(&root, 6, &[]);
    // Game 2 of the first file (line 2): every point Black's.
    let labels = root.join("labels.gz");
    let all_black = vec![1i8; 81];
    write_labels(&labels, &[format_line("x-train-00.sgfs.gz", 2, &all_black)]).unwrap();
    let lines: Vec<String> = {
        let f = std::fs::File::open(dir.join("x-train-00.sgfs.gz")).unwrap();
        let r = std::io::BufReader::new(flate2::read::MultiGzDecoder::new(f));
        std::io::BufRead::lines(r).map(|l| l.unwrap()).collect()
    };
    let moves = GameRecord::from_sgf(&lines[1]).unwrap().moves().count();
    let cfg = StreamConfig {
        window_games: 100,
        batch: 1,
        options: Options {
            keep: 1.0,
            ..Options::default()
        },
        ownership_labels: Some(labels),
        ..stream_cfg(&dir)
    };
    let mut s = Stream::start(&cfg, StreamPos::default());
    let (mut with, mut rows) = (0, 0);
    loop {
        let b = s.next_batch().unwrap();
        if b.pos.epoch > 0 {
            break;
        }
        rows += 1;
        if b.batch.own_w[0] > 0.0 {
            with += 1;
            // All Black's: +1 everywhere for Black to move, -1 for White.
            let first = b.batch.ownership[0];
            assert!(first == 1.0 || first == -1.0, "{first}");
            assert!(b.batch.ownership.iter().all(|&o| o == first));
        } else {
            assert!(b.batch.ownership.iter().all(|&o| o == 0.0));
        }
    }
    assert_eq!(with, moves, "one target per position of the labelled game");
    assert!(rows > with);
}
