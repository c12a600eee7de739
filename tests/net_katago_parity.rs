//! Parity with KataGo: replays each position of
//! `../shared/testdata/katago-raw-nn/` and compares our net's outputs
//! (symmetry 0) with KataGo's `kata-raw-nn 0` and `kata-raw-nn 0 0`.
//! Needs the net `b10c384h6nbttflrs.bin.gz`: `TENGEN_KATAGO_NET` or
//! `../katrain/katrain/models/` next to the crate; skips without it.
#![cfg(feature = "net")]

mod common;

use std::path::{Path, PathBuf};

use burn::tensor::Device;
use serde_json::Value;
use tengen::eval::EvalInput;
use tengen::features::v7::{self, V7Input};
use tengen::net::fast::FastNet;
use tengen::net::katago;
use tengen::net::output::{format_kata_raw_nn, postprocess, NetOutput};
use tengen::net::{Net, NetEvaluator, RawOutput};
use tengen::rules::{
    handicap, Board, Color, HandicapBonus, KoRule, Move, Point, Position, Ruleset, Symmetry,
};

const TOL: f32 = 1e-3;

fn net_path() -> Option<PathBuf> {
    common::katago_net()
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/testdata/katago-raw-nn")
}

/// A replayed position with what the features need.
struct Replay {
    pos: Position,
    moves: Vec<(Color, Move)>,
    boards: Vec<Board>,
    bonus: f32,
}

fn replay(case: &Value) -> Replay {
    let size = case["board_size"].as_u64().unwrap() as usize;
    let komi = case["komi"].as_f64().unwrap() as f32;
    let rules = Ruleset {
        ko: KoRule::Positional,
        suicide_allowed: false,
        komi,
        handicap_bonus: HandicapBonus::N,
        ..Ruleset::chinese()
    };
    let mut pos = Position::new(size, rules).unwrap();
    let mut bonus = 0.0;
    for cmd in case["gtp_commands"].as_array().unwrap() {
        let cmd = cmd.as_str().unwrap();
        let mut parts = cmd.split_whitespace();
        let stones: Vec<Point> = match parts.next() {
            Some("fixed_handicap") => {
                let n: usize = parts.next().unwrap().parse().unwrap();
                handicap::fixed(size, n).unwrap()
            }
            Some("set_free_handicap") => {
                parts.map(|v| Point::parse_gtp(v, size).unwrap()).collect()
            }
            _ => continue,
        };
        for &p in &stones {
            pos.setup(Some(Color::Black), p).unwrap();
        }
        pos.set_to_move(Color::White);
        if stones.len() >= 2 {
            bonus = rules.handicap_points(stones.len());
        }
    }
    let mut moves = Vec::new();
    let mut boards = vec![pos.board().clone()];
    for m in case["moves"].as_array().unwrap() {
        let c = Color::parse(m[0].as_str().unwrap()).unwrap();
        let mv = Move::parse_gtp(m[1].as_str().unwrap(), size).unwrap();
        pos.play(c, mv).unwrap();
        moves.push((c, mv));
        boards.push(pos.board().clone());
    }
    Replay {
        pos,
        moves,
        boards,
        bonus,
    }
}

fn evaluate(net: &Net, r: &Replay, optimism: f32) -> NetOutput {
    evaluate_with(
        &|sp, gl, size| net.forward(sp.to_vec(), gl.to_vec(), 1, size),
        &net.config().post,
        r,
        optimism,
    )
}

/// A batch-of-one forward pass: spatial, global, board size.
type Forward<'a> = dyn Fn(&[f32], &[f32], usize) -> RawOutput + 'a;

fn evaluate_with(
    forward: &Forward,
    post: &tengen::net::config::PostProcess,
    r: &Replay,
    optimism: f32,
) -> NetOutput {
    let size = r.pos.size();
    let n = size * size;
    let nb = r.boards.len();
    let prev = [
        (nb >= 2).then(|| &r.boards[nb - 2]),
        (nb >= 3).then(|| &r.boards[nb - 3]),
    ];
    let input = V7Input {
        position: &r.pos,
        moves: &r.moves,
        prev_boards: prev,
        white_handicap_bonus: r.bonus,
        friendly_pass_ok: true,
    };
    let mut spatial = vec![0.0; v7::SPATIAL * n];
    let mut global = vec![0.0; v7::GLOBAL];
    v7::encode(&input, &mut spatial, &mut global);
    let raw = forward(&spatial, &global, size);
    let mut legal: Vec<bool> = (0..n)
        .map(|i| r.pos.is_legal(Move::Place(Point::from_dense(i, size))))
        .collect();
    legal.push(true);
    postprocess(&raw, 0, &legal, r.pos.to_move(), optimism, post, false)
}

fn num(v: &Value) -> Option<f32> {
    v.as_f64().map(|x| x as f32)
}

#[derive(Default)]
struct MaxDiff {
    policy: f32,
    policy_opt0: f32,
    pass: f32,
    value: f32,
    lead: f32,
    ownership: f32,
}

fn compare_policy(out: &NetOutput, exp: &Value, size: usize, id: &str) -> (f32, f32) {
    let mut board = 0f32;
    for y in 0..size {
        for x in 0..size {
            let e = &exp["policy"][y][x];
            let got = out.policy[y * size + x];
            match num(e) {
                None => assert!(got < 0.0, "{id}: ({x},{y}) should be illegal, got {got}"),
                Some(e) => {
                    assert!(got >= 0.0, "{id}: ({x},{y}) should be legal");
                    board = board.max((got - e).abs());
                }
            }
        }
    }
    let pass = (out.policy[size * size] - num(&exp["policyPass"]).unwrap()).abs();
    (board, pass)
}

#[test]
fn katago_raw_nn_parity() {
    let Some(path) = net_path() else {
        eprintln!("skipping katago_raw_nn_parity: KataGo net not found (set TENGEN_KATAGO_NET)");
        return;
    };
    let model = katago::load(&path).expect("load KataGo net");
    let mut weights = model.weights;
    let device = Device::flex();
    let net = Net::load(&model.config, &mut weights, &device).expect("build net");
    parity(
        &|sp, gl, size| net.forward(sp.to_vec(), gl.to_vec(), 1, size),
        &net.config().post,
    );
}

/// The same parity on the fast CPU path (the net packed from burn's).
#[test]
fn katago_raw_nn_parity_fast() {
    let Some(path) = net_path() else {
        eprintln!(
            "skipping katago_raw_nn_parity_fast: KataGo net not found (set TENGEN_KATAGO_NET)"
        );
        return;
    };
    let model = katago::load(&path).expect("load KataGo net");
    let mut weights = model.weights;
    let net = Net::load(&model.config, &mut weights, &Device::flex()).expect("build net");
    let fast = FastNet::new(&net).expect("pack net");
    parity(
        &|sp, gl, size| fast.forward(sp, gl, 1, size),
        &net.config().post,
    );
}

fn parity(forward: &Forward, post: &tengen::net::config::PostProcess) {
    if !data_dir().is_dir() {
        eprintln!(
            "skipping: {} not found (the shared test data lives beside the repository)",
            data_dir().display()
        );
        return;
    }
    let only = std::env::var("TENGEN_PARITY_ONLY").ok();
    let mut files: Vec<PathBuf> = std::fs::read_dir(data_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut worst = MaxDiff::default();
    let mut failures = Vec::new();
    for f in files {
        let case: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        let id = case["id"].as_str().unwrap().to_string();
        if only.as_deref().is_some_and(|o| !id.contains(o)) {
            continue;
        }
        let r = replay(&case);
        let size = r.pos.size();
        let out = evaluate_with(forward, post, &r, 0.2);
        let out0 = evaluate_with(forward, post, &r, 0.0);
        let exp = &case["raw_nn"];
        let (pol, pass) = compare_policy(&out, exp, size, &id);
        let (pol0, pass0) = compare_policy(&out0, &case["raw_nn_optimism0"], size, &id);
        let value = [
            (out.white_win - num(&exp["whiteWin"]).unwrap()).abs(),
            (out.white_loss - num(&exp["whiteLoss"]).unwrap()).abs(),
            (out.no_result - num(&exp["noResult"]).unwrap()).abs(),
        ]
        .into_iter()
        .fold(0f32, f32::max);
        let lead = (out.white_lead - num(&exp["whiteLead"]).unwrap()).abs();
        let mut own = 0f32;
        for y in 0..size {
            for x in 0..size {
                let e = num(&exp["whiteOwnership"][y][x]).unwrap();
                own = own.max((out.white_ownership[y * size + x] - e).abs());
            }
        }
        eprintln!(
            "{id}: policy {pol:.2e} policy0 {pol0:.2e} pass {:.2e} value {value:.2e} lead {lead:.2e} own {own:.2e}",
            pass.max(pass0)
        );
        worst.policy = worst.policy.max(pol);
        worst.policy_opt0 = worst.policy_opt0.max(pol0);
        worst.pass = worst.pass.max(pass).max(pass0);
        worst.value = worst.value.max(value);
        worst.lead = worst.lead.max(lead);
        worst.ownership = worst.ownership.max(own);
        if [pol, pol0, pass, pass0, value, lead, own]
            .iter()
            .any(|&d| d > TOL)
        {
            failures.push(id);
        }
    }
    eprintln!(
        "max abs diff: policy {:.2e}, policy (optimism 0) {:.2e}, pass {:.2e}, win/loss/no-result {:.2e}, lead {:.2e}, ownership {:.2e}",
        worst.policy, worst.policy_opt0, worst.pass, worst.value, worst.lead, worst.ownership
    );
    assert!(failures.is_empty(), "outside {TOL}: {failures:?}");
}

fn load_cases(filter: impl Fn(&str) -> bool) -> Vec<Value> {
    if !data_dir().is_dir() {
        eprintln!(
            "skipping: {} not found (the shared test data lives beside the repository)",
            data_dir().display()
        );
        return Vec::new();
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(data_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| serde_json::from_str::<Value>(&std::fs::read_to_string(f).unwrap()).unwrap())
        .filter(|c| filter(c["id"].as_str().unwrap()))
        .collect()
}

fn eval_input(r: &Replay) -> EvalInput {
    let nb = r.boards.len();
    let prev: Vec<Board> = r.boards[..nb - 1].iter().rev().take(2).cloned().collect();
    EvalInput::new(r.pos.clone())
        .with_recent(r.moves.clone())
        .with_prev_boards(prev)
        .with_handicap_bonus(r.bonus)
}

/// The `kata-raw-nn` text from the parsed JSON values: printing them again
/// must give KataGo's text byte for byte.
fn output_from_json(exp: &Value, size: usize) -> NetOutput {
    let f = |k: &str| num(&exp[k]).unwrap();
    let mut policy = Vec::new();
    let mut own = Vec::new();
    for y in 0..size {
        for x in 0..size {
            policy.push(num(&exp["policy"][y][x]).unwrap_or(-1.0));
            own.push(num(&exp["whiteOwnership"][y][x]).unwrap());
        }
    }
    policy.push(f("policyPass"));
    NetOutput {
        size,
        policy,
        white_win: f("whiteWin"),
        white_loss: f("whiteLoss"),
        no_result: f("noResult"),
        white_lead: f("whiteLead"),
        white_score_mean: f("whiteScoreSelfplay"),
        white_score_mean_sq: f("whiteScoreSelfplaySq"),
        var_time_left: f("varTimeLeft"),
        shortterm_winloss_error: f("shorttermWinlossError"),
        shortterm_score_error: f("shorttermScoreError"),
        white_ownership: own,
    }
}

#[test]
fn kata_raw_nn_text_format_is_katagos() {
    for case in load_cases(|_| true) {
        let size = case["board_size"].as_u64().unwrap() as usize;
        let out = output_from_json(&case["raw_nn"], size);
        let text = format_kata_raw_nn(&out, 0);
        assert_eq!(
            text,
            case["raw_nn_text"].as_str().unwrap().trim(),
            "{}",
            case["id"]
        );
    }
}

/// Our computed text against KataGo's, token by token: same words, and
/// numbers within the parity tolerance (the last printed digits differ).
#[test]
fn kata_raw_nn_text_matches_katago() {
    let Some(path) = net_path() else {
        eprintln!("skipping kata_raw_nn_text_matches_katago: KataGo net not found");
        return;
    };
    let model = katago::load(&path).unwrap();
    let mut weights = model.weights;
    let net = Net::load(&model.config, &mut weights, &Device::flex()).unwrap();
    let ev = NetEvaluator::new(net, 1);
    let (mut same, mut total) = (0, 0);
    for case in load_cases(|_| true) {
        let r = replay(&case);
        let out = ev.raw_nn(&eval_input(&r), Symmetry::IDENTITY, 0.2);
        let ours = format_kata_raw_nn(&out, 0);
        let theirs = case["raw_nn_text"].as_str().unwrap().trim().to_string();
        let (a, b): (Vec<&str>, Vec<&str>) = (
            ours.split_whitespace().collect(),
            theirs.split_whitespace().collect(),
        );
        assert_eq!(a.len(), b.len(), "{}", case["id"]);
        for (x, y) in a.iter().zip(&b) {
            total += 1;
            if x == y {
                same += 1;
                continue;
            }
            match (x.parse::<f32>(), y.parse::<f32>()) {
                // Printed rounding can turn a difference below TOL into one
                // unit of the third decimal: allow 2·TOL, and relative for
                // the large squared score (f32 rounding).
                (Ok(u), Ok(v)) => assert!(
                    (u - v).abs() <= (2.0 * TOL).max(2e-5 * v.abs()),
                    "{}: {x} vs {y}",
                    case["id"]
                ),
                _ => panic!("{}: {x} vs {y}", case["id"]),
            }
        }
    }
    eprintln!("kata-raw-nn text: {same} of {total} tokens identical");
}

#[test]
fn converted_safetensors_matches_direct() {
    let Some(path) = net_path() else {
        eprintln!("skipping converted_safetensors_matches_direct: KataGo net not found");
        return;
    };
    let out =
        std::env::temp_dir().join(format!("tengen-convert-{}.safetensors", std::process::id()));
    tengen::net::convert_katago(&path, &out).expect("convert");
    let device = Device::flex();
    let converted = tengen::net::io::load(&out, &device).expect("load converted");
    let _ = std::fs::remove_file(&out);
    let model = katago::load(&path).unwrap();
    let mut weights = model.weights;
    let direct = Net::load(&model.config, &mut weights, &device).unwrap();
    assert_eq!(converted.config(), direct.config());
    for case in load_cases(|id| {
        [
            "c9_ko_capture",
            "c19_fixed_handicap4",
            "s13_gnugo-games-mertin13x13-GNHT3_m92",
        ]
        .contains(&id)
    }) {
        let r = replay(&case);
        let a = evaluate(&direct, &r, 0.2);
        let b = evaluate(&converted, &r, 0.2);
        assert_eq!(a, b, "{}", case["id"]);
    }
}

/// Nets are only approximately symmetric: every symmetry's outputs, brought
/// back to the board, must be close to symmetry 0's (measured: policy
/// within 4.7e-2 at any point, win within 1.4e-2, ownership within 0.17 at
/// any point and 2.5e-2 on average; a wrong mapping moves the top moves
/// and fails by far).
#[test]
fn katago_symmetries_agree() {
    let Some(path) = net_path() else {
        eprintln!("skipping katago_symmetries_agree: KataGo net not found");
        return;
    };
    let model = katago::load(&path).unwrap();
    let mut weights = model.weights;
    let net = Net::load(&model.config, &mut weights, &Device::flex()).unwrap();
    let ev = NetEvaluator::new(net, 1);
    let mut worst = (0f32, 0f32, 0f32);
    for case in load_cases(|id| {
        [
            "c9_ko_capture",
            "c19_ladder_black_to_capture",
            "s13_gnugo-games-mertin13x13-GNHT3_m92",
            "s9_gnugo-games-olympiad2004-9x9-kin-gnu_m18",
        ]
        .contains(&id)
    }) {
        let r = replay(&case);
        let input = eval_input(&r);
        let base = ev.raw_nn(&input, Symmetry::IDENTITY, 0.0);
        for k in 1..8 {
            let s = tengen::net::symmetry::from_katago(k).unwrap();
            let o = ev.raw_nn(&input, s, 0.0);
            let pol = base
                .policy
                .iter()
                .zip(&o.policy)
                .map(|(a, b)| (a - b).abs())
                .fold(0f32, f32::max);
            // Contested points' ownership moves by up to ~0.2 between
            // symmetries; the mean moves little.
            let own = base
                .white_ownership
                .iter()
                .zip(&o.white_ownership)
                .map(|(a, b)| (a - b).abs())
                .sum::<f32>()
                / base.white_ownership.len() as f32;
            let val = (base.white_win - o.white_win).abs();
            eprintln!(
                "{} k={k}: policy {pol:.2e} ownership (mean) {own:.2e} win {val:.2e}",
                case["id"]
            );
            worst = (worst.0.max(pol), worst.1.max(own), worst.2.max(val));
        }
    }
    eprintln!(
        "worst: policy {:.2e} ownership {:.2e} win {:.2e}",
        worst.0, worst.1, worst.2
    );
    assert!(
        worst.0 < 6e-2 && worst.1 < 4e-2 && worst.2 < 2e-2,
        "{worst:?}"
    );
}

/// KataGo's nets (model version 9 on) were trained to estimate their
/// short-term errors, and the evaluator hands those to the search, the
/// values `kata-raw-nn` shows; the search weighs evaluations by them.
#[test]
fn katago_nets_hand_their_shortterm_errors_to_the_search() {
    let Some(path) = net_path() else {
        eprintln!(
            "skipping katago_nets_hand_their_shortterm_errors_to_the_search: KataGo net not found"
        );
        return;
    };
    let net = tengen::net::load_any(&path, &Device::flex()).unwrap();
    assert_eq!(net.config().post.shortterm_error_trained, Some(true));
    let ev = NetEvaluator::fast(net, 1).unwrap();
    for case in load_cases(|id| ["c9_ko_capture", "c19_ladder_black_to_capture"].contains(&id)) {
        let input = eval_input(&replay(&case));
        let raw = ev.raw_nn(&input, Symmetry::IDENTITY, input.policy_optimism);
        let out = tengen::eval::Evaluator::evaluate(&ev, std::slice::from_ref(&input));
        let [wl, score] = out[0]
            .shortterm_error
            .expect("a KataGo net's error estimate");
        assert_eq!(
            (wl, score),
            (raw.shortterm_winloss_error, raw.shortterm_score_error)
        );
        assert!(wl > 0.0 && score > 0.0, "{wl} {score}");
    }
}
