//! Deterministic evaluators for tests and for play before the net lands.
//!
//! - [`UniformEvaluator`]: uniform policy over the legal moves, an even
//!   value, no ownership. The "no knowledge" baseline.
//! - [`HeuristicEvaluator`]: a hand-written policy (captures, saving strings
//!   in atari, no self-atari, 3rd/4th line early, contact with stones, never
//!   its own eyes) and a value, score and ownership from a few seeded
//!   random playouts scored by area. Same seed and position, same output.
//! - [`HashEvaluator`]: policy, value, score and ownership pseudo-random
//!   from the position hash — cheap, varied and reproducible, for tests of
//!   caches, batching and search that must tell positions apart.
//! - [`SlowEvaluator`]: any evaluator made slower by a set delay per call
//!   and per position, for tests of the time policy with a slow net.

use rand::rngs::StdRng;
use rand::SeedableRng;

use super::{policy_index, EvalInput, EvalOutput, Evaluator};
use crate::rules::playout::playout;
use crate::rules::score::area_with_owners;
use crate::rules::{mix, Board, Color, Move, Point, Position};

/// Uniform policy over the legal moves (pass included), value 0.5/0.5.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl Evaluator for UniformEvaluator {
    fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
        batch
            .iter()
            .map(|input| {
                let pos = &input.position;
                let size = pos.size();
                let legal = pos.legal_moves();
                let mut policy = vec![0.0; size * size + 1];
                let w = 1.0 / legal.len() as f32;
                for mv in legal {
                    policy[policy_index(mv, size)] = w;
                }
                EvalOutput {
                    shortterm_error: None,
                    policy,
                    value: [0.5, 0.5, 0.0],
                    score_lead: 0.0,
                    ownership: None,
                }
            })
            .collect()
    }

    fn max_batch(&self) -> usize {
        256
    }

    fn name(&self) -> String {
        "uniform".to_string()
    }
}

/// A deterministic heuristic player; see the module docs.
#[derive(Clone, Debug)]
pub struct HeuristicEvaluator {
    seed: u64,
    playouts: u32,
}

impl HeuristicEvaluator {
    /// A heuristic evaluator with 16 playouts per position.
    pub fn new(seed: u64) -> HeuristicEvaluator {
        HeuristicEvaluator { seed, playouts: 16 }
    }

    /// The same evaluator with `n` playouts per position (0: no value,
    /// score or ownership estimate: value 0.5, lead 0, ownership `None`).
    pub fn with_playouts(mut self, n: u32) -> HeuristicEvaluator {
        self.playouts = n;
        self
    }

    fn evaluate_one(&self, pos: &Position) -> EvalOutput {
        let size = pos.size();
        let me = pos.to_move();
        let board = pos.board();
        let stones = size * size - board.empty_count();
        let early = stones < size * size / 5;
        let mut policy = vec![0.0f32; size * size + 1];
        for p in board.empty_points() {
            if pos.is_legal(Move::Place(p)) {
                policy[p.dense(size)] = self.move_weight(board, me, p, early, pos.hash());
            }
        }
        policy[size * size] = 1e-3;
        let total: f32 = policy.iter().sum();
        for w in &mut policy {
            *w /= total;
        }
        let (value, score_lead, ownership) = self.rollouts(pos);
        EvalOutput {
            shortterm_error: None,
            policy,
            value,
            score_lead,
            ownership,
        }
    }

    /// Unnormalised prior weight of `me` playing the empty legal point `p`.
    fn move_weight(&self, board: &Board, me: Color, p: Point, early: bool, hash: u64) -> f32 {
        if board.is_eye(me, p) {
            return 1e-6;
        }
        let size = board.size();
        let mut captured = 0;
        let mut saved = 0;
        let mut seen: Vec<Point> = Vec::with_capacity(4);
        for n in p.neighbors() {
            let Some(c) = board.get(n) else { continue };
            let id = board.string_id(n).unwrap_or(n);
            if board.liberties(n) != 1 || seen.contains(&id) {
                continue;
            }
            seen.push(id);
            if c == me {
                saved += board.string_size(n);
            } else {
                captured += board.string_size(n);
            }
        }
        let mut after = board.clone();
        after.place(me, p);
        let libs = after.liberties(p);
        let mut w = 1.0f32;
        if captured > 0 {
            w += 8.0 + 4.0 * captured as f32;
        }
        if saved > 0 {
            w += match libs {
                0 | 1 => 0.0,
                2 => 1.0,
                _ => 6.0 + 3.0 * saved as f32,
            };
        }
        if libs <= 1 && captured == 0 {
            w *= 0.02;
        } else if libs == 2 && after.string_size(p) > 2 && captured == 0 {
            w *= 0.7;
        }
        let mut atari: Vec<Point> = Vec::new();
        for n in p.neighbors() {
            if after.get(n) == Some(me.opp()) && after.liberties(n) == 1 {
                let id = after.string_id(n).unwrap_or(n);
                if !atari.contains(&id) {
                    atari.push(id);
                    w += 2.0;
                }
            }
        }
        let d = p.x().min(p.y()).min(size - 1 - p.x()).min(size - 1 - p.y());
        w *= match (early, d) {
            (true, 0) => 0.1,
            (true, 1) => 0.4,
            (true, 2 | 3) => 3.0,
            (true, _) => 1.5,
            (false, 0) => 0.5,
            _ => 1.0,
        };
        let near = p
            .neighbors()
            .iter()
            .chain(p.diagonals().iter())
            .any(|&q| q.on_board(size) && board.get(q).is_some());
        if near {
            w *= 1.5;
        }
        w * (1.0 + 0.5 * unit(mix(self.seed ^ hash, p.index() as u64)))
    }

    /// Value, score lead and ownership for the player to move from seeded
    /// random playouts scored by area (komi counted).
    fn rollouts(&self, pos: &Position) -> ([f32; 3], f32, Option<Vec<f32>>) {
        if self.playouts == 0 {
            return ([0.5, 0.5, 0.0], 0.0, None);
        }
        let size = pos.size();
        let me = pos.to_move();
        let sign = if me == Color::Black { 1.0 } else { -1.0 };
        let komi = pos.rules().komi;
        let mut owner = vec![0.0f32; size * size];
        let (mut wins, mut lead) = (0.0f32, 0.0f32);
        for k in 0..self.playouts {
            let mut rng = StdRng::seed_from_u64(mix(self.seed ^ pos.hash(), k as u64));
            let mut board = pos.board().clone();
            playout(&mut board, me, (3 * size * size + 50) as u32, &mut rng);
            let (count, owners) = area_with_owners(&board, &[]);
            let margin = sign * (count.black() - count.white() - komi);
            lead += margin;
            wins += if margin > 0.0 {
                1.0
            } else if margin == 0.0 {
                0.5
            } else {
                0.0
            };
            for p in board.points() {
                owner[p.dense(size)] += match owners[p.index()] {
                    Some(c) if c == me => 1.0,
                    Some(_) => -1.0,
                    None => 0.0,
                };
            }
        }
        let n = self.playouts as f32;
        for o in &mut owner {
            *o /= n;
        }
        let win = (wins + 0.5) / (n + 1.0);
        ([win, 1.0 - win, 0.0], lead / n, Some(owner))
    }
}

impl Evaluator for HeuristicEvaluator {
    fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
        batch
            .iter()
            .map(|i| self.evaluate_one(&i.position))
            .collect()
    }

    fn max_batch(&self) -> usize {
        64
    }

    fn name(&self) -> String {
        format!("heuristic (seed {}, {} playouts)", self.seed, self.playouts)
    }
}

/// Pseudo-random outputs seeded by [`Position::hash`] (and the
/// evaluator's seed): the same position always gets the same output, two
/// positions almost surely different ones. The policy covers exactly the
/// legal moves (pass included) and sums to 1; value, score lead and
/// ownership are consistent with nothing in particular.
#[derive(Clone, Copy, Debug, Default)]
pub struct HashEvaluator {
    pub seed: u64,
}

impl HashEvaluator {
    pub fn new(seed: u64) -> HashEvaluator {
        HashEvaluator { seed }
    }

    fn evaluate_one(&self, pos: &Position) -> EvalOutput {
        let size = pos.size();
        let h = mix(self.seed, pos.hash() ^ size as u64);
        let mut policy = vec![0.0f32; size * size + 1];
        for mv in pos.legal_moves() {
            let i = policy_index(mv, size);
            policy[i] = 0.01 + unit(mix(h, i as u64));
        }
        let total: f32 = policy.iter().sum();
        for w in &mut policy {
            *w /= total;
        }
        let win = 0.05 + 0.9 * unit(mix(h, u64::MAX));
        let score_lead = (unit(mix(h, u64::MAX - 1)) - 0.5) * 40.0;
        let ownership = (0..size * size)
            .map(|i| unit(mix(h ^ 0x5555, i as u64)) * 2.0 - 1.0)
            .collect();
        EvalOutput {
            shortterm_error: None,
            policy,
            value: [win, 1.0 - win, 0.0],
            score_lead,
            ownership: Some(ownership),
        }
    }
}

impl Evaluator for HashEvaluator {
    fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
        batch
            .iter()
            .map(|i| self.evaluate_one(&i.position))
            .collect()
    }

    fn max_batch(&self) -> usize {
        256
    }

    fn name(&self) -> String {
        format!("hash (seed {})", self.seed)
    }
}

/// Another evaluator behind a set delay: `per_call + n × per_position`
/// for a batch of `n`, on top of the inner evaluator's own time. Stands
/// in for a big net on a CPU, where one batch can cost most of a
/// byo-yomi period.
pub struct SlowEvaluator<E> {
    pub inner: E,
    pub per_call: std::time::Duration,
    pub per_position: std::time::Duration,
}

impl<E: Evaluator> Evaluator for SlowEvaluator<E> {
    fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
        std::thread::sleep(self.per_call + self.per_position * batch.len() as u32);
        self.inner.evaluate(batch)
    }

    fn max_batch(&self) -> usize {
        self.inner.max_batch()
    }

    fn name(&self) -> String {
        format!(
            "{} slowed by {:?} + {:?} a position",
            self.inner.name(),
            self.per_call,
            self.per_position
        )
    }
}

/// A number in [0, 1) from a hash.
fn unit(h: u64) -> f32 {
    (h >> 40) as f32 / (1u64 << 24) as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Ruleset;

    #[test]
    fn policies_sum_to_one_and_are_deterministic() {
        let mut pos = Position::new(9, Ruleset::chinese()).unwrap();
        pos.play_move(Move::parse_gtp("E5", 9).unwrap()).unwrap();
        let input = [EvalInput::new(pos)];
        for eval in [
            Box::new(UniformEvaluator) as Box<dyn Evaluator>,
            Box::new(HeuristicEvaluator::new(7)),
        ] {
            let a = eval.evaluate(&input);
            let b = eval.evaluate(&input);
            assert_eq!(a, b);
            let sum: f32 = a[0].policy.iter().sum();
            assert!((sum - 1.0).abs() < 1e-4, "{sum}");
            assert_eq!(a[0].policy[Point::new(4, 4).dense(9)], 0.0);
        }
    }

    #[test]
    fn hash_evaluator_is_a_function_of_the_position() {
        let eval = HashEvaluator::new(3);
        let mut a = Position::new(9, Ruleset::chinese()).unwrap();
        a.play_move(Move::parse_gtp("C3", 9).unwrap()).unwrap();
        a.play_move(Move::parse_gtp("G7", 9).unwrap()).unwrap();
        // The same stones by another move order: the same output.
        let mut b = Position::new(9, Ruleset::chinese()).unwrap();
        b.play(Color::White, Move::parse_gtp("G7", 9).unwrap())
            .unwrap();
        b.play(Color::Black, Move::parse_gtp("C3", 9).unwrap())
            .unwrap();
        b.set_to_move(Color::Black);
        let mut c = a.clone();
        c.play_move(Move::parse_gtp("E5", 9).unwrap()).unwrap();
        let out = eval.evaluate(&[
            EvalInput::new(a.clone()),
            EvalInput::new(b),
            EvalInput::new(c),
        ]);
        assert_eq!(out[0], out[1]);
        assert_ne!(out[0], out[2]);
        assert_eq!(out[0], eval.evaluate(&[EvalInput::new(a)])[0]);
        let sum: f32 = out[2].policy.iter().sum();
        assert!((sum - 1.0).abs() < 1e-4, "{sum}");
        assert_eq!(out[2].policy[Point::new(4, 4).dense(9)], 0.0);
        assert!(out[2].policy[81] > 0.0, "pass is legal");
        assert_ne!(
            eval.evaluate(&[EvalInput::new(
                Position::new(9, Ruleset::chinese()).unwrap()
            )])[0]
                .value,
            HashEvaluator::new(4).evaluate(&[EvalInput::new(
                Position::new(9, Ruleset::chinese()).unwrap()
            )])[0]
                .value
        );
    }

    #[test]
    fn heuristic_prefers_a_capture() {
        let mut pos = Position::new(9, Ruleset::chinese()).unwrap();
        for (c, v) in [
            (Color::Black, "E5"),
            (Color::White, "E6"),
            (Color::Black, "D6"),
            (Color::White, "A1"),
            (Color::Black, "F6"),
        ] {
            pos.play(c, Move::parse_gtp(v, 9).unwrap()).unwrap();
        }
        pos.set_to_move(Color::Black);
        let out = HeuristicEvaluator::new(1).evaluate(&[EvalInput::new(pos)]);
        let best = (0..81)
            .max_by(|&a, &b| out[0].policy[a].total_cmp(&out[0].policy[b]))
            .unwrap();
        assert_eq!(Point::from_dense(best, 9).to_gtp(9), "E7");
    }
}
