//! [`NetEvaluator`] on a small random net: well-formed outputs, batches
//! equal single evaluations, and symmetries are consistent (running a
//! position under symmetry `s` equals running the transformed position
//! under the identity, bit for bit).
#![cfg(feature = "net")]

use burn::tensor::Device;
use tengen::eval::{EvalInput, Evaluator};
use tengen::net::{Net, NetConfig, NetEvaluator, RandomWeights, SymmetryChoice};
use tengen::rules::{Color, Move, Point, Position, Ruleset, Symmetry};

fn evaluator() -> NetEvaluator {
    let net = Net::load(
        &NetConfig::small(3, 16),
        &mut RandomWeights::new(3),
        &Device::flex(),
    )
    .unwrap();
    NetEvaluator::new(net, 8)
}

/// Plays `moves` (GTP vertices, alternating from Black) on a `size` board
/// after mapping them through `sym`; returns the input with history and
/// earlier boards.
fn game(size: usize, moves: &[&str], sym: Symmetry) -> EvalInput {
    let mut pos = Position::new(size, Ruleset::chinese().with_komi(7.5)).unwrap();
    let mut recent = Vec::new();
    let mut boards = vec![pos.board().clone()];
    for (i, v) in moves.iter().enumerate() {
        let c = if i % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        let mv = match Move::parse_gtp(v, size).unwrap() {
            Move::Place(p) => Move::Place(sym.apply(p, size)),
            Move::Pass => Move::Pass,
        };
        pos.play(c, mv).unwrap();
        recent.push((c, mv));
        boards.push(pos.board().clone());
    }
    boards.pop();
    boards.reverse();
    EvalInput::new(pos)
        .with_recent(recent)
        .with_prev_boards(boards)
}

fn inputs() -> Vec<EvalInput> {
    vec![
        game(9, &[], Symmetry::IDENTITY),
        game(9, &["E5", "C3", "D4", "pass"], Symmetry::IDENTITY),
        game(9, &["C3", "C4", "D4", "D3", "E3", "B3"], Symmetry::IDENTITY),
        game(13, &["D4", "K10", "C6"], Symmetry::IDENTITY),
        game(9, &["A1", "B1", "A2"], Symmetry::IDENTITY),
    ]
}

#[test]
fn outputs_are_well_formed() {
    let ev = evaluator();
    let ins = inputs();
    let outs = ev.evaluate(&ins);
    assert_eq!(outs.len(), ins.len());
    for (inp, out) in ins.iter().zip(&outs) {
        let pos = &inp.position;
        let size = pos.size();
        assert_eq!(out.policy.len(), size * size + 1);
        let mut sum = 0.0;
        for (i, &p) in out.policy.iter().enumerate() {
            assert!(p.is_finite() && (0.0..=1.0).contains(&p));
            let mv = if i == size * size {
                Move::Pass
            } else {
                Move::Place(Point::from_dense(i, size))
            };
            if pos.is_legal(mv) {
                sum += p;
            } else {
                assert_eq!(p, 0.0, "illegal move {i} has policy");
            }
        }
        assert!((sum - 1.0).abs() < 1e-4, "policy sums to {sum}");
        let v: f32 = out.value.iter().sum();
        assert!((v - 1.0).abs() < 1e-5 && out.value.iter().all(|x| x.is_finite()));
        assert!(out.score_lead.is_finite());
        let own = out.ownership.as_ref().unwrap();
        assert_eq!(own.len(), size * size);
        assert!(own.iter().all(|o| o.is_finite() && o.abs() <= 1.0));
    }
}

#[test]
fn batch_equals_single() {
    let ev = evaluator();
    let ins = inputs();
    let batch = ev.evaluate(&ins);
    for (inp, b) in ins.iter().zip(&batch) {
        let single = ev.evaluate(std::slice::from_ref(inp)).pop().unwrap();
        let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5);
        assert!(close(&single.policy, &b.policy));
        assert!(close(&single.value, &b.value));
        assert!((single.score_lead - b.score_lead).abs() < 1e-4);
        assert!(close(
            single.ownership.as_ref().unwrap(),
            b.ownership.as_ref().unwrap()
        ));
    }
}

#[test]
fn symmetry_equals_transformed_position() {
    let mut ev = evaluator();
    let moves = ["C3", "C4", "D4", "D3", "E3", "B3", "G7"];
    let size = 9;
    let plain = game(size, &moves, Symmetry::IDENTITY);
    for s in Symmetry::ALL {
        ev.symmetry = SymmetryChoice::Fixed(s);
        let a = ev.evaluate(std::slice::from_ref(&plain)).pop().unwrap();
        ev.symmetry = SymmetryChoice::Fixed(Symmetry::IDENTITY);
        let moved = game(size, &moves, s);
        let b = ev.evaluate(&[moved]).pop().unwrap();
        // The net saw identical planes: outputs agree exactly, point p of
        // the plain board matching point s(p) of the transformed one (the
        // policy up to the order of its softmax sum).
        assert_eq!(a.value, b.value, "{s:?}");
        assert_eq!(a.score_lead, b.score_lead);
        let (oa, ob) = (a.ownership.unwrap(), b.ownership.unwrap());
        for (i, (&pa, &own)) in a.policy.iter().zip(&oa).enumerate() {
            let j = s.apply(Point::from_dense(i, size), size).dense(size);
            let d = (pa - b.policy[j]).abs();
            assert!(d <= 1e-6 * pa.max(1e-3), "{s:?} point {i}: {d}");
            assert_eq!(own, ob[j]);
        }
        assert!((a.policy[size * size] - b.policy[size * size]).abs() < 1e-8);
    }
}

#[test]
fn random_symmetry_gives_valid_outputs() {
    let mut ev = evaluator();
    ev.symmetry = SymmetryChoice::Random;
    let ins = inputs();
    for out in ev.evaluate(&ins) {
        let s: f32 = out.policy.iter().sum();
        assert!((s - 1.0).abs() < 1e-4);
    }
}

/// A search's request for a random symmetry (`EvalInput::random_symmetry`,
/// KataGo's `nnRandomize`) overrides the evaluator's fixed symmetry: every
/// output is exactly the one of some fixed symmetry, and over repeated
/// calls more than one of them turns up.
#[test]
fn an_input_asking_for_a_random_symmetry_gets_one_of_the_eight() {
    let mut ev = evaluator();
    let plain = game(
        9,
        &["C3", "C4", "D4", "D3", "E3", "B3", "G7"],
        Symmetry::IDENTITY,
    );
    let fixed: Vec<[f32; 3]> = Symmetry::ALL
        .iter()
        .map(|&s| {
            ev.symmetry = SymmetryChoice::Fixed(s);
            ev.evaluate(std::slice::from_ref(&plain))
                .pop()
                .unwrap()
                .value
        })
        .collect();
    let distinct = |vs: &[[f32; 3]]| {
        let mut v: Vec<_> = vs.to_vec();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v.dedup();
        v.len()
    };
    assert!(
        distinct(&fixed) >= 4,
        "the random net must tell the symmetries apart for this test to mean anything"
    );
    ev.symmetry = SymmetryChoice::Fixed(Symmetry::IDENTITY);
    let asked = plain.clone().with_random_symmetry(true);
    let seen: Vec<[f32; 3]> = (0..64)
        .map(|_| {
            ev.evaluate(std::slice::from_ref(&asked))
                .pop()
                .unwrap()
                .value
        })
        .collect();
    for v in &seen {
        assert!(fixed.contains(v), "{v:?} is no symmetry's output");
    }
    assert!(distinct(&seen) >= 2, "64 calls all ran under one symmetry");
    // Without the request the evaluator's own choice stands.
    let own = ev
        .evaluate(std::slice::from_ref(&plain))
        .pop()
        .unwrap()
        .value;
    assert_eq!(own, fixed[0]);
}

/// tengen's own nets leave KataGo's short-term error outputs untrained:
/// the evaluator gives the search no error estimate from them.
#[test]
fn untrained_error_heads_give_no_error_estimate() {
    let ev = evaluator();
    assert_ne!(ev.net().config().post.shortterm_error_trained, Some(true));
    for out in ev.evaluate(&inputs()) {
        assert_eq!(out.shortterm_error, None);
    }
}
