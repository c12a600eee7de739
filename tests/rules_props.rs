//! Property tests on random games: the incremental board state always equals
//! a from-scratch recount, legality equals a naive definition (with a naive
//! superko history), replaying a move list restores exactly, and the area
//! count of a finished game equals a naive flood fill.

use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tengen::rules::playout::playout;
use tengen::rules::{
    check_invariants, Board, Color, IllegalMove, KoRule, Move, Point, Position, Ruleset, Score,
};

type Grid = Vec<Option<Color>>;

fn grid(b: &Board) -> Grid {
    b.points().map(|p| b.get(p)).collect()
}

/// Naive capture logic on a grid: place, remove opponent strings without
/// liberties, then own (suicide). Returns None if the point is occupied.
fn naive_play(g: &Grid, size: usize, c: Color, p: Point) -> Option<(Grid, bool)> {
    let at = |g: &Grid, q: Point| g[q.dense(size)];
    if at(g, p).is_some() {
        return None;
    }
    let mut g = g.clone();
    g[p.dense(size)] = Some(c);
    let string_without_libs = |g: &Grid, s: Point| -> Option<Vec<Point>> {
        let col = at(g, s)?;
        let mut seen = vec![s];
        let mut stack = vec![s];
        while let Some(q) = stack.pop() {
            for n in q.neighbors() {
                if !n.on_board(size) {
                    continue;
                }
                match at(g, n) {
                    None => return None,
                    Some(k) if k == col && !seen.contains(&n) => {
                        seen.push(n);
                        stack.push(n);
                    }
                    _ => {}
                }
            }
        }
        Some(seen)
    };
    for n in p.neighbors() {
        if n.on_board(size) && at(&g, n) == Some(c.opp()) {
            if let Some(dead) = string_without_libs(&g, n) {
                for d in dead {
                    g[d.dense(size)] = None;
                }
            }
        }
    }
    let mut suicide = false;
    if let Some(dead) = string_without_libs(&g, p) {
        suicide = true;
        for d in dead {
            g[d.dense(size)] = None;
        }
    }
    Some((g, suicide))
}

fn random_game(seed: u64, size: usize, ko: KoRule, suicide_allowed: bool, max_moves: usize) {
    let rules = Ruleset {
        ko,
        suicide_allowed,
        ..Ruleset::chinese()
    };
    let mut rng = StdRng::seed_from_u64(seed);
    let mut pos = Position::new(size, rules).unwrap();
    // Naive history: every (grid, player to move) since the start.
    let mut history: Vec<(Grid, Color)> = vec![(grid(pos.board()), Color::Black)];
    let mut moves = Vec::new();
    let mut snapshots = vec![pos.clone()];
    let mut prev_grid: Option<Grid> = None;
    for _ in 0..max_moves {
        let me = pos.to_move();
        // Check every empty point against the naive definition.
        let cur = grid(pos.board());
        for p in pos.board().points() {
            let got = pos.check(me, Move::Place(p));
            let naive = match naive_play(&cur, size, me, p) {
                None => Err(IllegalMove::Occupied),
                Some((_, true)) if !suicide_allowed => Err(IllegalMove::Suicide),
                Some((after, _)) => {
                    let simple_ko = prev_grid.as_ref() == Some(&after)
                        && pos.last_move().is_some_and(|(_, m)| m != Move::Pass);
                    let repeat = match ko {
                        KoRule::Simple => false,
                        KoRule::Positional => history.iter().any(|(g, _)| *g == after),
                        KoRule::Situational => {
                            history.iter().any(|(g, c)| *g == after && *c == me.opp())
                        }
                    };
                    if repeat || (simple_ko && ko == KoRule::Simple) {
                        Err(IllegalMove::Superko)
                    } else {
                        Ok(())
                    }
                }
            };
            // Ko and Superko are both "repeats"; compare legality and kind.
            let norm = |r: Result<(), IllegalMove>| match r {
                Err(IllegalMove::Ko) => Err(IllegalMove::Superko),
                r => r,
            };
            assert_eq!(
                norm(got),
                naive,
                "seed {seed} size {size} {ko:?}: {} for {me:?}\n{}",
                p.to_gtp(size),
                pos.board().diagram()
            );
        }
        let legal: Vec<Move> = pos.legal_moves();
        // Mostly placements; sometimes pass.
        let mv = if legal.len() == 1 || rng.random_range(0..50) == 0 {
            Move::Pass
        } else {
            legal[rng.random_range(0..legal.len() - 1)]
        };
        prev_grid = Some(cur);
        pos.play(me, mv).unwrap();
        check_invariants(pos.board()).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        history.push((grid(pos.board()), pos.to_move()));
        moves.push((me, mv));
        snapshots.push(pos.clone());
        if pos.is_over() {
            break;
        }
    }
    // Replay from scratch restores every position exactly (this is what
    // undo by snapshots and resume by replay rely on).
    let mut replay = Position::new(size, rules).unwrap();
    for (i, &(c, mv)) in moves.iter().enumerate() {
        replay.play(c, mv).unwrap();
        let snap = &snapshots[i + 1];
        assert_eq!(replay.board(), snap.board());
        assert_eq!(replay.hash(), snap.hash());
        assert_eq!(replay.board().ko_point(), snap.board().ko_point());
        assert_eq!(replay.history(), snap.history());
        for c in Color::ALL {
            assert_eq!(replay.board().captures(c), snap.board().captures(c));
        }
    }
}

/// Naive area count: each empty point belongs to the colours its empty
/// region reaches.
fn naive_area(b: &Board) -> (u32, u32, u32) {
    let size = b.size();
    let (mut black, mut white, mut dame) = (0, 0, 0);
    for p in b.points() {
        match b.get(p) {
            Some(Color::Black) => black += 1,
            Some(Color::White) => white += 1,
            None => {
                let mut seen = vec![p];
                let mut stack = vec![p];
                let (mut rb, mut rw) = (false, false);
                while let Some(q) = stack.pop() {
                    for n in q.neighbors().into_iter().filter(|n| n.on_board(size)) {
                        match b.get(n) {
                            Some(Color::Black) => rb = true,
                            Some(Color::White) => rw = true,
                            None if !seen.contains(&n) => {
                                seen.push(n);
                                stack.push(n);
                            }
                            None => {}
                        }
                    }
                }
                match (rb, rw) {
                    (true, false) => black += 1,
                    (false, true) => white += 1,
                    _ => dame += 1,
                }
            }
        }
    }
    (black, white, dame)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn random_games_positional(seed in any::<u64>(), size in 2usize..=9) {
        random_game(seed, size, KoRule::Positional, false, 120);
    }

    #[test]
    fn random_games_situational_suicide(seed in any::<u64>(), size in 2usize..=7) {
        random_game(seed, size, KoRule::Situational, true, 120);
    }

    #[test]
    fn random_games_simple_ko(seed in any::<u64>(), size in 2usize..=7) {
        random_game(seed, size, KoRule::Simple, false, 120);
    }

    #[test]
    fn finished_playouts_score_like_a_flood_fill(seed in any::<u64>(), size in 2usize..=19) {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut b = Board::new(size);
        playout(&mut b, Color::Black, 3 * (size * size) as u32 + 50, &mut rng);
        check_invariants(&b).unwrap();
        let s = Score::new(&b, &[], 7.5, 0.0);
        let (black, white, dame) = naive_area(&b);
        prop_assert_eq!(s.count.black_stones + s.count.black_territory, black);
        prop_assert_eq!(s.count.white_stones + s.count.white_territory, white);
        prop_assert_eq!(s.count.dame, dame);
        prop_assert_eq!(s.count.black() + s.count.white(), (size * size) as f32);
    }
}

#[test]
fn big_board_random_games_keep_invariants() {
    for seed in 0..4 {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut b = Board::new(19);
        let mut c = Color::Black;
        for _ in 0..600 {
            match tengen::rules::playout::random_move(&b, c, &mut rng) {
                Some(p) => {
                    b.place(c, p);
                }
                None => b.pass(),
            }
            check_invariants(&b).unwrap();
            c = c.opp();
        }
    }
}
