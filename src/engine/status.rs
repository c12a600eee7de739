//! Which stones are dead at the end of a game (C8): stones inside the
//! opponent's pass-alive area are dead, pass-alive stones are alive, and
//! for the rest the evaluator's ownership decides (a string is dead when,
//! on average, the opponent owns its points). Without an ownership
//! estimate only the pass-alive rule applies.

use crate::eval::{EvalInput, Evaluator};
use crate::rules::benson::pass_alive;
use crate::rules::{Board, Color, Point, Position};

/// Stones inside the other colour's pass-alive territory.
pub fn settled_dead(board: &Board) -> Vec<Point> {
    let pa = [
        pass_alive(board, Color::Black),
        pass_alive(board, Color::White),
    ];
    board
        .points()
        .filter(|&p| match board.get(p) {
            Some(c) => pa[c.opp().index()].territory[p.index()],
            None => false,
        })
        .collect()
}

/// The dead stones of `pos`, sorted by point.
pub fn dead_stones(eval: &dyn Evaluator, pos: &Position) -> Vec<Point> {
    let board = pos.board();
    let size = pos.size();
    let pa = [
        pass_alive(board, Color::Black),
        pass_alive(board, Color::White),
    ];
    let ownership = eval
        .evaluate(&[EvalInput::new(pos.clone())])
        .pop()
        .and_then(|o| o.ownership);
    let mover = pos.to_move();
    let mut dead = Vec::new();
    let mut seen = vec![false; crate::rules::CELLS];
    for p in board.points() {
        let Some(c) = board.get(p) else { continue };
        if seen[p.index()] {
            continue;
        }
        let stones = board.string_stones(p);
        for s in &stones {
            seen[s.index()] = true;
        }
        let is_dead = if pa[c.opp().index()].territory[p.index()] {
            true
        } else if pa[c.index()].stones[p.index()] {
            false
        } else if let Some(own) = &ownership {
            // Ownership is from the player to move's view.
            let sign = if c == mover { 1.0 } else { -1.0 };
            let mean: f32 = stones
                .iter()
                .map(|s| sign * own[s.dense(size)])
                .sum::<f32>()
                / stones.len() as f32;
            mean < -0.3
        } else {
            false
        };
        if is_dead {
            dead.extend(stones);
        }
    }
    dead.sort();
    dead
}
