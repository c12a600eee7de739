//! Search at the end of the game with evaluators that know nothing:
//! captures found through exact terminal scoring, no illegal moves however
//! much the prior wants them, and the pass decision on constructed
//! positions.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use tengen::eval::{policy_index, EvalInput, EvalOutput, Evaluator};
use tengen::rules::{Color, IllegalMove, Move, Point, Position, Ruleset};
use tengen::search::passing::{
    decide, decide_with, is_self_atari, pass_refused, PassReason, PassStyle,
};
use tengen::search::testing::{AreaEvaluator, FnEvaluator, ZeroEvaluator};
use tengen::search::{Limits, Search, SearchConfig, SearchResult};

/// A position from rows of `X` (black), `O` (white) and `.`, top row
/// first, with `to_move` to play.
fn diagram(rows: &[&str], to_move: Color, komi: f32) -> Position {
    let size = rows.len();
    let mut pos = Position::new(size, Ruleset::chinese().with_komi(komi)).unwrap();
    for (y, row) in rows.iter().enumerate() {
        for (x, ch) in row.chars().enumerate() {
            let c = match ch {
                'X' => Some(Color::Black),
                'O' => Some(Color::White),
                _ => None,
            };
            if c.is_some() {
                pos.setup(c, Point::new(x, y)).unwrap();
            }
        }
    }
    pos.set_to_move(to_move);
    pos
}

fn search(eval: Arc<dyn Evaluator>, pos: Position, visits: u64) -> SearchResult {
    let cfg = SearchConfig {
        seed: 7,
        batch_size: 4,
        ..SearchConfig::default()
    };
    let mut s = Search::new(eval, cfg);
    s.set_position(pos, Vec::new());
    s.run(
        &Limits::visits(visits),
        &AtomicBool::new(false),
        None,
        Duration::from_secs(60),
    )
}

fn mv(s: &str, size: usize) -> Move {
    Move::parse_gtp(s, size).unwrap()
}

/// An evaluator whose prior puts 0.99 on `loved` (whatever its legality).
fn loving(loved: Move) -> Arc<dyn Evaluator> {
    Arc::new(FnEvaluator(move |i: &EvalInput| {
        let size = i.position.size();
        let n = size * size + 1;
        let mut policy = vec![0.01 / (n - 1) as f32; n];
        policy[policy_index(loved, size)] = 0.99;
        EvalOutput {
            shortterm_error: None,
            policy,
            value: [0.5, 0.5, 0.0],
            score_lead: 0.0,
            ownership: None,
        }
    }))
}

/// White has passed. The white stone at C6 is in atari, outside any
/// pass-alive territory, so passing now loses by 0.5 (komi 9.5), while
/// capturing at D6 wins by 2.5.
fn capture_race() -> Position {
    let mut pos = diagram(
        &[
            ".XO.O.", //
            "XXXXOO", //
            ".XXXO.", //
            "XXXXOO", //
            ".XXXO.", //
            "XXXXOO", //
        ],
        Color::White,
        9.5,
    );
    pos.play_move(Move::Pass).unwrap();
    pos
}

#[test]
fn search_finds_the_winning_capture_from_terminal_scores() {
    let pos = capture_race();
    for eval in [
        Arc::new(ZeroEvaluator) as Arc<dyn Evaluator>,
        loving(Move::Pass),
    ] {
        let r = search(eval, pos.clone(), 200);
        assert_eq!(r.best, mv("D6", 6), "{:?}", r.moves);
        assert!(r.winrate > 0.9, "{} {:?}", r.winrate, r.moves);
        let pass = r.moves.iter().find(|m| m.mv == Move::Pass);
        assert!(pass.is_none_or(|m| m.winrate == 0.0));
    }
}

#[test]
fn a_loved_suicide_is_never_played() {
    // F2 is a white eye: suicide for Black.
    let pos = capture_race();
    assert_eq!(
        pos.check(Color::Black, mv("F2", 6)),
        Err(IllegalMove::Suicide)
    );
    let r = search(loving(mv("F2", 6)), pos, 100);
    assert!(r.moves.iter().all(|m| m.mv != mv("F2", 6)));
    assert_eq!(r.best, mv("D6", 6));
}

#[test]
fn a_loved_ko_or_superko_retake_is_never_played() {
    let mut pos = Position::new(9, Ruleset::chinese()).unwrap();
    for (c, v) in [
        (Color::Black, "D5"),
        (Color::White, "F6"),
        (Color::Black, "E6"),
        (Color::White, "F4"),
        (Color::Black, "E4"),
        (Color::White, "G5"),
        (Color::Black, "A1"),
        (Color::White, "E5"),
        (Color::Black, "F5"),
    ] {
        pos.play(c, mv(v, 9)).unwrap();
    }
    // Immediate retake: simple ko.
    assert_eq!(pos.check(Color::White, mv("E5", 9)), Err(IllegalMove::Ko));
    let r = search(loving(mv("E5", 9)), pos.clone(), 150);
    assert!(r.moves.iter().all(|m| m.mv != mv("E5", 9)));
    assert_ne!(r.best, mv("E5", 9));
    // After two passes the retake would repeat the whole board: superko.
    pos.play_move(Move::Pass).unwrap();
    pos.play_move(Move::Pass).unwrap();
    assert_eq!(
        pos.check(Color::White, mv("E5", 9)),
        Err(IllegalMove::Superko)
    );
    let r = search(loving(mv("E5", 9)), pos, 150);
    assert!(r.moves.iter().all(|m| m.mv != mv("E5", 9)));
    assert_ne!(r.best, mv("E5", 9));
}

#[test]
fn a_superko_inside_the_tree_is_never_expanded() {
    // The retake after Black's ko capture and two passes is a superko only
    // because of moves inside the tree.
    let mut pos = Position::new(9, Ruleset::chinese()).unwrap();
    for (c, v) in [
        (Color::Black, "D5"),
        (Color::White, "F6"),
        (Color::Black, "E6"),
        (Color::White, "F4"),
        (Color::Black, "E4"),
        (Color::White, "G5"),
        (Color::Black, "A1"),
        (Color::White, "E5"),
    ] {
        pos.play(c, mv(v, 9)).unwrap();
    }
    let cfg = SearchConfig {
        seed: 1,
        ..SearchConfig::default()
    };
    let mut s = Search::new(loving(mv("E5", 9)), cfg);
    s.set_position(pos.clone(), Vec::new());
    let r = s.run(
        &Limits::visits(400),
        &AtomicBool::new(false),
        None,
        Duration::from_secs(9),
    );
    // Every principal variation replays legally.
    for m in &r.moves {
        let mut p = pos.clone();
        for &x in &m.pv {
            assert!(p.play_move(x).is_ok(), "{:?}", m.pv);
        }
    }
}

/// Two pass-alive walls with the middle column `middle` (`.`: five dame
/// points; `X`: Black's).
fn walls(middle: char, to_move: Color, komi: f32) -> Position {
    let rows: Vec<String> = [
        ".X?O.", //
        "XX?OO", //
        ".X?O.", //
        "XX?OO", //
        ".X?O.", //
    ]
    .iter()
    .map(|r| r.replace('?', &middle.to_string()))
    .collect();
    let rows: Vec<&str> = rows.iter().map(|s| s.as_str()).collect();
    diagram(&rows, to_move, komi)
}

#[test]
fn dame_left_means_no_pass() {
    let pos = walls('.', Color::Black, 0.5);
    let r = search(Arc::new(AreaEvaluator), pos.clone(), 100);
    let d = decide(&pos, &r);
    assert_eq!(d.reason, PassReason::DameLeft);
    let p = d.mv.point().expect("a move");
    assert_eq!(p.x(), 2);
}

#[test]
fn all_settled_means_pass() {
    let pos = walls('X', Color::White, 0.5);
    let r = search(Arc::new(AreaEvaluator), pos.clone(), 100);
    let d = decide(&pos, &r);
    assert_eq!(d.mv, Move::Pass);
    assert_eq!(d.reason, PassReason::Settled);
    // Without ownership the pass-alive regions alone settle it.
    let r = search(Arc::new(ZeroEvaluator), pos.clone(), 50);
    assert_eq!(decide(&pos, &r).mv, Move::Pass);
}

#[test]
fn behind_after_the_opponent_passed_means_play_on() {
    // Black is behind by 0.5 if the game ends now; a dame gains a point.
    let mut pos = walls('.', Color::White, 0.5);
    pos.play_move(Move::Pass).unwrap();
    let r = search(Arc::new(AreaEvaluator), pos.clone(), 200);
    let d = decide(&pos, &r);
    assert_eq!(d.reason, PassReason::BehindAfterPass);
    assert_ne!(d.mv, Move::Pass);
    // And the search agrees: a pass here is an exact loss.
    assert_ne!(r.best, Move::Pass);
}

#[test]
fn winning_after_the_opponent_passed_means_pass() {
    // White wins by 0.5 if the game ends now, dame or not.
    let mut pos = walls('.', Color::Black, 0.5);
    pos.play_move(Move::Pass).unwrap();
    let r = search(Arc::new(AreaEvaluator), pos.clone(), 100);
    let d = decide(&pos, &r);
    assert_eq!(d.mv, Move::Pass);
    assert_eq!(d.reason, PassReason::PassingWins);
    assert_eq!(r.best, Move::Pass);
}

/// A 7×7 board: a black ring around the edge and one white stone in the
/// middle of Black's 24-point inside. The ring has no eye, so nothing is
/// pass-alive: the strict count (stones on the board alive) gives Black 24
/// and White 1, the inside being neutral; agreeing the white stone is dead
/// gives Black all 49.
fn ring_with_a_dead_stone(to_move: Color, komi: f32) -> Position {
    diagram(
        &[
            "XXXXXXX", //
            "X.....X", //
            "X.....X", //
            "X..O..X", //
            "X.....X", //
            "X.....X", //
            "XXXXXXX", //
        ],
        to_move,
        komi,
    )
}

/// Black owns every point (the white stone is dead), Black ahead by 40.
fn black_owns_all() -> Arc<dyn Evaluator> {
    Arc::new(FnEvaluator(|i: &EvalInput| {
        let size = i.position.size();
        let n = size * size + 1;
        let sign = if i.position.to_move() == Color::Black {
            1.0
        } else {
            -1.0
        };
        let win = if sign > 0.0 {
            [0.99, 0.01, 0.0]
        } else {
            [0.01, 0.99, 0.0]
        };
        EvalOutput {
            shortterm_error: None,
            policy: vec![1.0 / n as f32; n],
            value: win,
            score_lead: 40.0 * sign,
            ownership: Some(vec![sign; size * size]),
        }
    }))
}

fn liberties_of_d4() -> [Move; 4] {
    ["D5", "C4", "E4", "D3"].map(|s| mv(s, 7))
}

/// The passing rules' answer on the ring after a search of `visits`.
fn decide_on_ring(pos: &Position, visits: u64) -> tengen::search::passing::PassDecision {
    let r = search(black_owns_all(), pos.clone(), visits);
    decide(pos, &r)
}

#[test]
fn a_pass_that_wins_only_by_agreement_captures_the_dead_stone_first() {
    // Komi 30: the strict count (24 - 1 - 30) loses, the agreed one wins.
    let mut pos = ring_with_a_dead_stone(Color::White, 30.0);
    pos.play_move(Move::Pass).unwrap();
    let d = decide_on_ring(&pos, 50);
    assert_eq!(d.reason, PassReason::CaptureDead);
    assert!(liberties_of_d4().contains(&d.mv), "{:?}", d.mv);
    // Before any pass as well: everything is settled by ownership, but a
    // pass would leave the stone to a strict count.
    let pos = ring_with_a_dead_stone(Color::Black, 30.0);
    let d = decide_on_ring(&pos, 50);
    assert_eq!(d.reason, PassReason::CaptureDead);
    assert!(liberties_of_d4().contains(&d.mv), "{:?}", d.mv);
}

#[test]
fn a_pass_that_wins_by_the_strict_count_too_leaves_dead_stones() {
    // Komi 10: 24 - 1 - 10 wins even if the white stone counts as alive.
    let mut pos = ring_with_a_dead_stone(Color::White, 10.0);
    pos.play_move(Move::Pass).unwrap();
    let d = decide_on_ring(&pos, 50);
    assert_eq!(d.mv, Move::Pass);
    assert_eq!(d.reason, PassReason::PassingWins);
}

#[test]
fn capturing_dead_stones_ends_in_a_pass() {
    // Black keeps taking liberties until the stone is gone, then passes.
    let mut pos = ring_with_a_dead_stone(Color::Black, 30.0);
    for _ in 0..6 {
        let d = decide_on_ring(&pos, 30);
        if d.mv == Move::Pass {
            break;
        }
        assert_eq!(d.reason, PassReason::CaptureDead);
        pos.play_move(d.mv).unwrap();
        pos.play_move(Move::Pass).unwrap();
    }
    assert_eq!(
        pos.board().get(Point::new(3, 3)),
        None,
        "the stone was taken"
    );
    assert_eq!(decide_on_ring(&pos, 30).mv, Move::Pass);
}

/// A 5×5 board: Black's wall on the left, White's pass-alive group on the
/// right, and a white stone at C3 in atari; its one liberty, D3, is inside
/// White's area. The net's ownership gives C3 and D3 to White, because it
/// expects White to connect at D3; so every point looks settled.
fn white_stone_in_atari(to_move: Color, komi: f32) -> Position {
    diagram(
        &[
            ".XXO.", //
            "XXXOO", //
            ".XO.O", //
            "XXXOO", //
            ".XXO.", //
        ],
        to_move,
        komi,
    )
}

/// Prior 0.99 on D3 (White's connection, or Black's capture); ownership:
/// columns A-B and the black stones of C Black's, the rest White's, except
/// that with `taken` C3 is Black's too; the player to move well ahead.
fn expects_d3(taken: bool) -> Arc<dyn Evaluator> {
    Arc::new(FnEvaluator(move |i: &EvalInput| {
        let size = i.position.size();
        let n = size * size + 1;
        let white = i.position.to_move() == Color::White;
        let mut policy = vec![0.01 / n as f32; n];
        policy[policy_index(mv("D3", 5), 5)] = 0.99;
        let board = i.position.board();
        let ownership = (0..size * size)
            .map(|k| {
                let p = Point::new(k % size, k / size);
                let blacks =
                    p.x() < 2 || (p.x() == 2 && (taken || board.get(p) == Some(Color::Black)));
                let o = if blacks { -1.0 } else { 1.0 };
                if white {
                    o
                } else {
                    -o
                }
            })
            .collect();
        EvalOutput {
            shortterm_error: None,
            policy,
            value: [0.95, 0.05, 0.0],
            score_lead: 5.0,
            ownership: Some(ownership),
        }
    }))
}

#[test]
fn a_string_in_atari_is_saved_not_passed_away() {
    let pos = white_stone_in_atari(Color::White, 7.5);
    let r = search(expects_d3(false), pos.clone(), 30);
    assert_eq!(r.best, mv("D3", 5), "the search connects");
    let d = decide(&pos, &r);
    assert_eq!(d.mv, mv("D3", 5), "{d:?}");
    assert_eq!(d.reason, PassReason::Unsettled);
    // Connected, nothing is left in atari: after Black's pass White passes.
    let mut pos = pos;
    pos.play_move(mv("D3", 5)).unwrap();
    pos.play_move(Move::Pass).unwrap();
    let r = search(expects_d3(false), pos.clone(), 30);
    assert_eq!(decide(&pos, &r).mv, Move::Pass);
}

#[test]
fn a_string_in_atari_is_taken_not_passed_away() {
    // Black to move, the strict count winning (14 to 11.5): ownership
    // already gives Black the white stone, but a pass would let White
    // connect it. (With the stone counted dead, D3 borders both colours.)
    let pos = white_stone_in_atari(Color::Black, 0.5);
    let r = search(expects_d3(true), pos.clone(), 30);
    assert_eq!(r.best, mv("D3", 5), "the search captures");
    let d = decide(&pos, &r);
    assert_eq!(d.mv, mv("D3", 5), "{d:?}");
}

/// Ply 63 of a game against KataGo at 16 visits (komi 7), White to move.
/// D3 is a dame point, first in board order; for White it is a
/// self-atari (D2–D3 keep the one liberty D1).
fn dame_that_is_a_self_atari() -> Position {
    diagram(
        &[
            ".XXX.XO..", //
            "OXX..XOO.", //
            "X...XXXO.", //
            "XXXX.XOOO", //
            "....XXXO.", //
            "X.XXXXOO.", //
            "OXX.XO.O.", //
            "OOXOXOO..", //
            ".OO.O....", //
        ],
        Color::White,
        7.0,
    )
}

#[test]
fn a_self_atari_dame_is_not_filled_for_a_search_that_passes() {
    let pos = dame_that_is_a_self_atari();
    let d3 = mv("D3", 9).point().unwrap();
    assert!(is_self_atari(pos.board(), Color::White, d3));
    let r = search(loving(Move::Pass), pos.clone(), 30);
    assert_eq!(r.best, Move::Pass);
    let d = decide(&pos, &r);
    if let Some(p) = d.mv.point() {
        assert!(!is_self_atari(pos.board(), Color::White, p), "{d:?}");
    }
}

/// Ply 74 of a game against KataGo at 16 visits, Black to move and far
/// ahead by the net's count, White having passed; the strict count (all
/// stones alive) loses by 3.5, so Black tries to capture White's lower
/// string, which the net calls dead. Its liberties: D5, a self-atari of
/// Black's centre string (whose other liberty is G5), and G1, one of
/// F1–G1. Playing D5 lost the game.
fn capture_race_with_a_self_atari() -> Position {
    let mut pos = diagram(
        &[
            ".....OOOO", //
            ".O...OXOX", //
            "O.OOOOXXX", //
            "OOXXXOX.X", //
            "OXX.XX.X.", //
            "XOOOOOXXX", //
            "XXXXXOXOO", //
            ".X.XXOOOX", //
            "X.XX.X.O.", //
        ],
        Color::White,
        5.5,
    );
    pos.play_move(Move::Pass).unwrap();
    pos
}

#[test]
fn capturing_dead_stones_before_a_pass_is_never_a_self_atari() {
    let pos = capture_race_with_a_self_atari();
    let d5 = mv("D5", 9);
    assert!(is_self_atari(
        pos.board(),
        Color::Black,
        d5.point().unwrap()
    ));
    // The net loves D5 and calls it winning; White's stones in the lower
    // four rows are dead by its ownership, the upper ones alive.
    let eval = Arc::new(FnEvaluator(move |i: &EvalInput| {
        let size = i.position.size();
        let n = size * size + 1;
        let mut policy = vec![0.01 / n as f32; n];
        policy[policy_index(d5, size)] = 0.99;
        let black = i.position.to_move() == Color::Black;
        let ownership = (0..size * size)
            .map(|k| {
                let p = Point::new(k % size, k / size);
                let o = match i.position.board().get(p) {
                    Some(Color::White) if p.y() < 5 => -1.0,
                    _ => 1.0,
                };
                if black {
                    o
                } else {
                    -o
                }
            })
            .collect();
        EvalOutput {
            shortterm_error: None,
            policy,
            value: if black {
                [0.99, 0.01, 0.0]
            } else {
                [0.01, 0.99, 0.0]
            },
            score_lead: if black { 20.0 } else { -20.0 },
            ownership: Some(ownership),
        }
    }));
    let r = search(eval, pos.clone(), 16);
    let d = decide(&pos, &r);
    for bad in ["D5", "G1"] {
        assert_ne!(d.mv, mv(bad, 9), "{d:?}: a self-atari of a black string");
    }
}

/// A 7×7 board: Black's wall on column B with column A behind it, White's
/// on column D with the 21 points of E–G behind it, column C dame. Neither
/// side is pass-alive (one region each), White leads by 14 + komi.
fn white_far_ahead_with_vague_ownership() -> Position {
    let mut pos = diagram(
        &[
            ".X.O...", //
            ".X.O...", //
            ".X.O...", //
            ".X.O...", //
            ".X.O...", //
            ".X.O...", //
            ".X.O...", //
        ],
        Color::Black,
        7.5,
    );
    pos.play_move(Move::Pass).unwrap();
    pos
}

/// White's view: columns A–B Black's, settled; D–G White's, but only 0.7
/// sure (as the human-data nets' untrained ownership head reads its own
/// territory); the prior loves F4, inside White's own area; White wins.
fn vague_about_its_own_area() -> (Arc<dyn Evaluator>, Vec<f32>) {
    let own = |size: usize| -> Vec<f32> {
        (0..size * size)
            .map(|k| match k % size {
                0 | 1 => -1.0,
                2 => 0.0,
                _ => 0.7,
            })
            .collect()
    };
    let eval = Arc::new(FnEvaluator(move |i: &EvalInput| {
        let size = i.position.size();
        let n = size * size + 1;
        let mut policy = vec![0.01 / n as f32; n];
        policy[policy_index(mv("F4", 7), size)] = 0.99;
        let white = i.position.to_move() == Color::White;
        let sign = if white { 1.0 } else { -1.0 };
        EvalOutput {
            shortterm_error: None,
            policy,
            value: if white {
                [0.95, 0.05, 0.0]
            } else {
                [0.05, 0.95, 0.0]
            },
            score_lead: 20.0 * sign,
            ownership: Some(own(size).iter().map(|o| o * sign).collect()),
        }
    }));
    (eval, own(7))
}

/// Issue 15, game 3 of v3 against GNU Go: 20 points ahead after GNU Go's
/// pass, the tournament rule played on at "open" points inside its own
/// area (ownership below 0.9), the last of them a weakening move in its
/// own corner, and lost the corner and the game. After a pass, a move in
/// our own counted area gains nothing: White passes here.
#[test]
fn a_won_game_is_not_played_on_inside_our_own_area() {
    let pos = white_far_ahead_with_vague_ownership();
    let (eval, root_own) = vague_about_its_own_area();
    let r = search(eval, pos.clone(), 200);
    assert!(
        r.moves
            .iter()
            .any(|m| m.mv == mv("F4", 7) && m.winrate >= 0.5),
        "the search rates F4 well: {:?}",
        r.moves.iter().take(3).collect::<Vec<_>>()
    );
    let d = decide_with(&pos, &r, PassStyle::Tournament, Some(&root_own));
    assert_eq!(d.mv, Move::Pass, "{d:?}");
    assert_eq!(d.reason, PassReason::PassingWins);
}

/// Black to move on 5×5: column D is all dame (each point touches both
/// colours), nothing is settled; a count now wins for Black.
fn dame_column() -> Position {
    diagram(
        &[
            "XXX.O", //
            "XXX.O", //
            "XXX.O", //
            "XXX.O", //
            "XXX.O", //
        ],
        Color::Black,
        0.5,
    )
}

/// Black to move on 5×5: both sides pass-alive with two eyes each, every
/// point owned, no dame.
fn all_settled() -> Position {
    diagram(
        &[
            ".XO.O", //
            "XXOOO", //
            ".XO.O", //
            "XXOOO", //
            "XXOOO", //
        ],
        Color::Black,
        0.5,
    )
}

fn pass_loving_search(pos: &Position) -> Search {
    let cfg = SearchConfig {
        seed: 7,
        batch_size: 4,
        ..SearchConfig::default()
    };
    let mut s = Search::new(loving(Move::Pass), cfg);
    s.set_position(pos.clone(), Vec::new());
    s
}

fn run(s: &mut Search, visits: u64) -> SearchResult {
    s.run(
        &Limits::visits(visits),
        &AtomicBool::new(false),
        None,
        Duration::from_secs(60),
    )
}

#[test]
fn the_rules_refuse_a_pass_with_dame_left_but_not_when_settled_or_after_a_pass() {
    assert!(pass_refused(&dame_column(), None));
    assert!(!pass_refused(&all_settled(), None));
    // After White's pass rule 1 counts the board: a pass may end it.
    let mut passed = dame_column();
    passed.set_to_move(Color::White);
    passed.play_move(Move::Pass).unwrap();
    assert!(!pass_refused(&passed, None));
}

#[test]
fn a_search_barred_from_a_refused_pass_spends_every_visit_on_moves() {
    let pos = dame_column();
    // Unbarred, a prior in love with the pass searches mostly the pass,
    // and the rules then override it with a barely searched move.
    let mut free = pass_loving_search(&pos);
    assert!(!free.bar_pass_if_refused(), "the setting is off by default");
    let r = run(&mut free, 60);
    assert_eq!(r.best, Move::Pass);
    let d = decide(&pos, &r);
    assert_eq!(d.reason, PassReason::DameLeft);
    // Barred: no visit goes to the pass, and the search's own move stands.
    let mut barred = pass_loving_search(&pos);
    barred.set_config(SearchConfig {
        bar_refused_pass: true,
        ..barred.config().clone()
    });
    assert!(barred.bar_pass_if_refused());
    let r = run(&mut barred, 60);
    assert_ne!(r.best, Move::Pass);
    assert!(r.moves.iter().all(|m| m.mv != Move::Pass), "{:?}", r.moves);
    assert_eq!(r.moves.iter().map(|m| m.visits).sum::<u64>() + 1, r.visits);
    assert_eq!(decide(&pos, &r).mv, r.best);
    // A settled board is not barred: the search may pass.
    let mut settled = pass_loving_search(&all_settled());
    settled.set_config(SearchConfig {
        bar_refused_pass: true,
        ..settled.config().clone()
    });
    assert!(!settled.bar_pass_if_refused());
    assert_eq!(run(&mut settled, 30).best, Move::Pass);
}

#[test]
fn a_kept_pass_subtree_leaves_the_root_when_the_pass_is_barred() {
    let pos = dame_column();
    let mut s = pass_loving_search(&pos);
    let first = run(&mut s, 60);
    let pass_visits = first
        .moves
        .iter()
        .find(|m| m.mv == Move::Pass)
        .map_or(0, |m| m.visits);
    assert!(pass_visits > 30, "{:?}", first.moves);
    // The same root again: the tree is kept, pass subtree and all.
    assert!(s.set_position(pos.clone(), Vec::new()));
    s.bar_root_pass();
    let r = run(&mut s, 100);
    assert!(r.moves.iter().all(|m| m.mv != Move::Pass), "{:?}", r.moves);
    // The root holds the kept non-pass visits and the new ones, not the
    // pass's.
    assert_eq!(r.visits, 100);
    assert_ne!(r.best, Move::Pass);
    // The bar lasts until the next position.
    s.set_position(pos, Vec::new());
    assert!(!s.root_pass_barred());
}
