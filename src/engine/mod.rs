//! Move generation, analysis and end-of-game judgement through an
//! [`Evaluator`].
//!
//! Until the PUCT search lands this is a one-ply engine: the evaluator's
//! policy ranks the meaningful moves, the best few are evaluated one ply
//! deep within the time budget, and the move with the best blend of prior
//! and value is played. The search issue replaces [`Engine::search`] and
//! keeps the rest: the safety rules below and the analysis interface.
//!
//! Safety rules (RULES.md B3, B7), whatever the evaluator says:
//! - never an illegal move (occupied, suicide, ko, superko): every
//!   candidate passes [`Position::check`] for the colour to play;
//! - never a stone in its own single-point eye ([`Board::is_eye`]);
//! - no stone inside an area already settled by either side (Benson
//!   pass-alive regions): such moves are meaningless;
//! - pass when no meaningful move is left, or when the opponent has just
//!   passed and the area count with the current stones (minus stones
//!   inside pass-alive areas) already wins.
//!
//! [`Engine::genmove`] blocks until a move is chosen; it returns early when
//! `stop` is set or the budget runs out. An `Engine` is not shared between
//! threads; its evaluator may be.

mod analysis;
mod status;

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use analysis::{AnalysisInfo, MoveInfo};

use crate::eval::{evaluate_all, policy_index, EvalInput, Evaluator, RECENT_MOVES};
use crate::game::Game;
use crate::rules::benson::pass_alive;
use crate::rules::score::Score;
use crate::rules::{Board, Color, Move, Point, Position};

/// Engine settings, fixed for a session.
#[derive(Clone, Debug)]
pub struct EngineSettings {
    /// Seed for everything random (the evaluators are deterministic given
    /// it).
    pub seed: u64,
    /// How many of the best-prior moves are looked at one ply deep.
    pub candidates: usize,
    /// Upper bound on thinking time per move, whatever the clock allows.
    pub max_time: Option<Duration>,
}

impl Default for EngineSettings {
    fn default() -> EngineSettings {
        EngineSettings {
            seed: 0,
            candidates: 8,
            max_time: None,
        }
    }
}

/// Options for one move generation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GenmoveOptions {
    /// KGS cleanup phase: capture dead stones before passing, so do not
    /// pass just because the count wins, and keep moves that capture inside
    /// our own settled area.
    pub cleanup: bool,
}

/// The move generator; see the module docs.
pub struct Engine {
    eval: Arc<dyn Evaluator>,
    settings: EngineSettings,
    analysis: Option<Sender<AnalysisInfo>>,
    /// What the last evaluation of a root cost (zero until measured).
    eval_cost: Cell<Duration>,
}

impl Engine {
    pub fn new(eval: Arc<dyn Evaluator>, settings: EngineSettings) -> Engine {
        Engine {
            eval,
            settings,
            analysis: None,
            eval_cost: Cell::new(Duration::ZERO),
        }
    }

    pub fn evaluator(&self) -> &Arc<dyn Evaluator> {
        &self.eval
    }

    pub fn settings(&self) -> &EngineSettings {
        &self.settings
    }

    /// Where [`Engine::genmove`] sends its analysis as it thinks (`None`:
    /// nowhere). Send errors are ignored.
    pub fn set_analysis_sender(&mut self, tx: Option<Sender<AnalysisInfo>>) {
        self.analysis = tx;
    }

    /// Chooses a move for `color` in the current position of `game` within
    /// `budget` (or until `stop` is set). Never an illegal move, never an
    /// own eye; see the module docs for when it passes.
    pub fn genmove(
        &mut self,
        game: &Game,
        color: Color,
        budget: Duration,
        stop: &AtomicBool,
    ) -> Move {
        self.genmove_with(game, color, budget, stop, GenmoveOptions::default())
    }

    /// [`Engine::genmove`] with options.
    pub fn genmove_with(
        &mut self,
        game: &Game,
        color: Color,
        budget: Duration,
        stop: &AtomicBool,
        opts: GenmoveOptions,
    ) -> Move {
        let deadline = Instant::now() + self.cap(budget);
        let pos = game.position();
        let size = pos.size();
        if game.move_count() > 4 * size * size {
            return Move::Pass;
        }
        let cands = meaningful_moves(pos, color, opts.cleanup);
        if cands.is_empty() {
            return Move::Pass;
        }
        let opponent_passed = pos.last_move() == Some((color.opp(), Move::Pass));
        if !opts.cleanup && opponent_passed && count_wins(game, color) {
            return Move::Pass;
        }
        if deadline.saturating_duration_since(Instant::now()) < self.eval_cost.get() {
            // Not even one evaluation fits in the budget: answer at once
            // rather than lose on time.
            return emergency_move(pos, color, &cands, self.settings.seed);
        }
        let info = self.search(game, color, &cands, deadline, stop);
        if let Some(tx) = &self.analysis {
            let _ = tx.send(info.clone());
        }
        let chosen = info.moves.first().map_or(Move::Pass, |m| m.mv);
        // Belt and braces: the candidates were checked, but a future search
        // must not be able to break the rules either.
        match chosen {
            Move::Place(p) if pos.check(color, chosen).is_ok() && !pos.board().is_eye(color, p) => {
                chosen
            }
            _ => Move::Pass,
        }
    }

    /// Analysis of the current position for `color`: the ranked
    /// candidates. Emits to `emit` at least once and then every `interval`
    /// until `stop` is set or `emit` returns `false`. Blocks meanwhile.
    pub fn analyze(
        &mut self,
        game: &Game,
        color: Color,
        interval: Duration,
        stop: &AtomicBool,
        emit: &mut dyn FnMut(&AnalysisInfo) -> bool,
    ) {
        let cands = meaningful_moves(game.position(), color, false);
        let never = Instant::now() + Duration::from_secs(3600);
        let info = self.search(game, color, &cands, never, &AtomicBool::new(false));
        let interval = interval.max(Duration::from_millis(10));
        loop {
            if !emit(&info) {
                return;
            }
            let next = Instant::now() + interval;
            while Instant::now() < next {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }

    fn cap(&self, budget: Duration) -> Duration {
        match self.settings.max_time {
            Some(m) => budget.min(m),
            None => budget,
        }
    }

    /// The one-ply look-ahead: ranks `cands` (legal, meaningful points for
    /// `color`) and returns them best first, with a pass at the end.
    pub fn search(
        &self,
        game: &Game,
        color: Color,
        cands: &[Point],
        deadline: Instant,
        stop: &AtomicBool,
    ) -> AnalysisInfo {
        let size = game.size();
        let mut root = game.position().clone();
        if root.to_move() != color {
            // The evaluator wants `color` to move. The real legality checks
            // use the game's own position and history.
            root.set_to_move(color);
        }
        let recent = game.recent_moves(RECENT_MOVES);
        let t0 = Instant::now();
        let root_out = self
            .eval
            .evaluate(&[EvalInput::new(root.clone()).with_recent(recent.clone())])
            .pop()
            .expect("one output per input");
        // What one evaluation costs: batches below are sized to fit the
        // time left (conservatively, as if a batch cost that per input).
        let per_eval = t0.elapsed().max(Duration::from_micros(1));
        self.eval_cost.set(per_eval);
        let root_winrate = root_out.value[0] + 0.5 * root_out.value[2];
        let mut moves: Vec<MoveInfo> = cands
            .iter()
            .map(|&p| MoveInfo::unvisited(Move::Place(p), root_out.policy[p.dense(size)]))
            .collect();
        let total: f32 = moves.iter().map(|m| m.prior).sum();
        for m in &mut moves {
            m.prior = if total > 0.0 {
                m.prior / total
            } else {
                1.0 / cands.len() as f32
            };
        }
        moves.sort_by(|a, b| {
            b.prior
                .total_cmp(&a.prior)
                .then_with(|| policy_index(a.mv, size).cmp(&policy_index(b.mv, size)))
        });
        let k = self.settings.candidates.min(moves.len());
        let batch = self.eval.max_batch().max(1);
        let mut done = 0;
        while done < k && !stop.load(Ordering::Relaxed) {
            let left = deadline.saturating_duration_since(Instant::now());
            let fit = (left.as_nanos() / per_eval.as_nanos()) as usize;
            if fit == 0 {
                break;
            }
            let end = (done + batch.min(fit)).min(k);
            let inputs: Vec<EvalInput> = moves[done..end]
                .iter()
                .map(|m| {
                    let mut child = root.clone();
                    // Legal in the game's position (checked above); the
                    // root may differ only in whose ko point applies.
                    let _ = child.play_disputed(color, m.mv);
                    let mut r = recent.clone();
                    r.push((color, m.mv));
                    if r.len() > RECENT_MOVES {
                        r.remove(0);
                    }
                    EvalInput::new(child).with_recent(r)
                })
                .collect();
            for (m, out) in moves[done..end]
                .iter_mut()
                .zip(evaluate_all(self.eval.as_ref(), &inputs))
            {
                m.visits = 1;
                m.winrate = out.value[1] + 0.5 * out.value[2];
                m.lcb = m.winrate;
                m.score_lead = -out.score_lead;
            }
            done = end;
        }
        let best_prior = moves.first().map_or(1.0, |m| m.prior).max(1e-9);
        let key = |m: &MoveInfo| {
            if m.visits > 0 {
                1.0 + 0.5 * m.winrate + 0.5 * m.prior / best_prior
            } else {
                m.prior / best_prior
            }
        };
        moves.sort_by(|a, b| {
            key(b)
                .total_cmp(&key(a))
                .then_with(|| policy_index(a.mv, size).cmp(&policy_index(b.mv, size)))
        });
        for (i, m) in moves.iter_mut().enumerate() {
            m.order = i;
            if m.visits == 0 {
                m.winrate = root_winrate;
                m.lcb = 0.0;
                m.score_lead = root_out.score_lead;
            }
        }
        let mut pass = MoveInfo::unvisited(Move::Pass, root_out.policy[size * size]);
        pass.order = moves.len();
        pass.winrate = root_winrate;
        moves.push(pass);
        let ownership = root_out.ownership.map(|o| {
            if color == Color::White {
                o.into_iter().map(|x| -x).collect()
            } else {
                o
            }
        });
        AnalysisInfo {
            visits: done as u32,
            moves,
            root_winrate,
            root_score_lead: root_out.score_lead,
            ownership,
        }
    }

    /// Stones this engine considers dead in `pos` (C8); see
    /// [`status::dead_stones`].
    pub fn dead_stones(&self, pos: &Position) -> Vec<Point> {
        status::dead_stones(self.eval.as_ref(), pos)
    }

    /// The score of the game as it stands, with [`Engine::dead_stones`]
    /// removed.
    pub fn final_score(&self, game: &Game) -> Score {
        let pos = game.position();
        let dead = self.dead_stones(pos);
        Score::new(pos.board(), &dead, pos.rules().komi, game.handicap_points())
    }
}

/// The points where `color` may play and a stone means something: legal,
/// not an own eye, not inside either side's pass-alive area (in cleanup
/// mode, points of our own area next to enemy stones stay, so dead stones
/// can be captured). Sorted by point.
pub fn meaningful_moves(pos: &Position, color: Color, cleanup: bool) -> Vec<Point> {
    let board = pos.board();
    let own = pass_alive(board, color);
    let theirs = pass_alive(board, color.opp());
    let mut out: Vec<Point> = board
        .empty_points()
        .filter(|&p| !board.is_eye(color, p))
        .filter(|&p| !theirs.owns(p))
        .filter(|&p| !own.owns(p) || (cleanup && touches(board, p, color.opp())))
        .filter(|&p| pos.check(color, Move::Place(p)).is_ok())
        .collect();
    out.sort();
    out
}

/// A move chosen without the evaluator, for when there is no time: the
/// candidate capturing the most stones, else one picked by a hash of the
/// position and the seed. `cands` must not be empty.
fn emergency_move(pos: &Position, color: Color, cands: &[Point], seed: u64) -> Move {
    let board = pos.board();
    let captured = |p: Point| -> usize {
        p.neighbors()
            .iter()
            .filter(|&&n| board.get(n) == Some(color.opp()) && board.liberties(n) == 1)
            .map(|&n| board.string_size(n))
            .sum()
    };
    let best = cands.iter().copied().max_by_key(|&p| captured(p));
    let pick = match best {
        Some(p) if captured(p) > 0 => p,
        _ => {
            let h = (pos.hash() ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            cands[(h >> 33) as usize % cands.len()]
        }
    };
    Move::Place(pick)
}

fn touches(board: &Board, p: Point, c: Color) -> bool {
    p.neighbors().iter().any(|&n| board.get(n) == Some(c))
}

/// Whether `color` wins the area count with the stones as they are, minus
/// stones inside either side's pass-alive area.
pub fn count_wins(game: &Game, color: Color) -> bool {
    let pos = game.position();
    let board = pos.board();
    let dead = status::settled_dead(board);
    let score = Score::new(board, &dead, pos.rules().komi, game.handicap_points());
    score.winner() == Some(color)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::fake::{HeuristicEvaluator, UniformEvaluator};
    use crate::rules::Ruleset;

    fn engine() -> Engine {
        Engine::new(
            Arc::new(HeuristicEvaluator::new(3)),
            EngineSettings::default(),
        )
    }

    #[test]
    fn plays_legal_moves_to_the_end() {
        for eval in [
            Arc::new(UniformEvaluator) as Arc<dyn Evaluator>,
            Arc::new(HeuristicEvaluator::new(5).with_playouts(4)),
        ] {
            let mut e = Engine::new(eval, EngineSettings::default());
            let mut g = Game::new(7, Ruleset::chinese()).unwrap();
            let stop = AtomicBool::new(false);
            while !g.is_over() {
                let c = g.to_move();
                let mv = e.genmove(&g, c, Duration::from_millis(50), &stop);
                if let Move::Place(p) = mv {
                    assert!(!g.position().board().is_eye(c, p));
                }
                g.play(c, mv).unwrap();
                assert!(g.move_count() < 1000);
            }
        }
    }

    #[test]
    fn passes_on_a_settled_board() {
        // Two pass-alive halves: nothing meaningful left for either side.
        let mut g = Game::new(5, Ruleset::chinese()).unwrap();
        let rows = ["X.XO.", "XXXOO", ".XXO.", "XXXOO", "X.XO."];
        let mut stones = Vec::new();
        for (y, r) in rows.iter().enumerate() {
            for (x, ch) in r.chars().enumerate() {
                match ch {
                    'X' => stones.push((Point::new(x, y), Some(Color::Black))),
                    'O' => stones.push((Point::new(x, y), Some(Color::White))),
                    _ => {}
                }
            }
        }
        g.setup(&stones).unwrap();
        let stop = AtomicBool::new(false);
        for c in Color::ALL {
            assert_eq!(
                engine().genmove(&g, c, Duration::from_millis(10), &stop),
                Move::Pass
            );
        }
    }
}
