//! Move generation, analysis and end-of-game judgement: the PUCT search
//! ([`crate::search`]) applied to the game being played.
//!
//! # Contract
//! - [`Engine`] owns one [`Search`]. Every genmove, analysis and ponder sets
//!   the game's position on it with the recent moves, so the subtree of
//!   the moves actually played since the last search (ours, the
//!   opponent's) is kept (tree reuse).
//! - [`Engine::genmove_with`] blocks until a move is chosen; it returns
//!   early when `stop` is set. An `Engine` is not shared between threads;
//!   its evaluator may be.
//!
//! # Time
//! The game clock gives a [`MoveTime`] (`None`: no clock). The search runs
//! half the normal budget (30% of it after an opponent's pass), then
//! stretches to `normal × uncertainty_factor(best move's visit share)`:
//! longer when the choice is unclear, not at all when one move dominates;
//! never past the hard limit or `max_time`. The search never starts an
//! evaluator call that would end after its time (it measures every call;
//! see `search::batcher::CostMeter`), so a slow net searches less rather
//! than overrunning a byo-yomi period. A move whose time is below the
//! normal budget's half but pays for an evaluation still searches (at
//! least the root); only when the hard limit cannot pay for one
//! evaluation does it answer at once: with the net's best prior move if
//! the kept tree's root was evaluated, else a rule-based move. It never
//! loses on time. Without
//! a clock: `max_time`, else the visit/playout limits, else
//! `default_time`. Visit and playout limits apply in every case.
//!
//! # Passing and resigning
//! [`crate::search::passing::decide_with`] has the last word on passing
//! (B3, B4): no pass while a dame point or an unsettled group is left;
//! after an opponent's pass, play on while behind, and while winning too
//! as long as the board is still open (unless `pass_style` is friendly:
//! then pass as soon as the count wins); before
//! a pass that wins only if the opponent agrees its dead stones are dead,
//! capture them (an automatic strict count would score them alive). In
//! cleanup mode (`kgs-genmove_cleanup`) no pass while dead enemy stones
//! (by the search's ownership) are on the board. Resignation happens only
//! when `resign_threshold` is set (off by default; tournaments should
//! leave it off): then [`Generated::resign`] reports a winrate below it.
//!
//! # Safety rules (RULES.md B3, B7), whatever the search says
//! Never an illegal move (occupied, suicide, ko, superko: checked against
//! the game's own history), never a stone in our own single-point eye,
//! no stone inside an area already settled by Benson; see [`safety`].

mod judge;
pub mod safety;
pub mod status;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use judge::{Confidence, Judgement};
pub use status::EndStatus;

use crate::eval::{Evaluator, PREV_BOARDS, RECENT_MOVES};
use crate::game::Game;
use crate::rules::score::Score;
use crate::rules::{Color, Move};
use crate::search::passing::{
    capture_before_pass, capture_dead, decide_with, PassReason, PassStyle,
};
use crate::search::time::{scale, uncertainty_factor, MoveTime};
use crate::search::{AnalysisSnapshot, Limits, Search, SearchConfig, SearchResult};
use safety::{acceptable, emergency_move, meaningful_moves};

/// Engine settings, fixed for a session.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSettings {
    /// Seed for everything random.
    pub seed: u64,
    /// Search threads.
    pub threads: usize,
    /// Leaves gathered per evaluator call, all threads together.
    pub batch_size: usize,
    /// Root visits per move (kept ones from tree reuse included).
    pub visits: Option<u64>,
    /// Visits made per move.
    pub playouts: Option<u64>,
    /// Upper bound on thinking time per move, whatever the clock allows.
    pub max_time: Option<Duration>,
    /// Time per move without a clock, `max_time`, visits or playouts.
    pub default_time: Duration,
    /// Search on the opponent's time ([`Engine::ponder`]).
    pub ponder: bool,
    /// Resign below this winrate (`None`: never; the default).
    pub resign_threshold: Option<f32>,
    /// Visits of the short search behind end-of-game judgements.
    pub status_visits: u64,
    /// Whether a winning pass after the opponent's pass waits until the
    /// board is settled (the default) or not.
    pub pass_style: PassStyle,
    /// `KEY=VALUE` search parameters ([`crate::search::params`]), applied
    /// in order over the defaults.
    pub search_params: Vec<String>,
}

impl Default for EngineSettings {
    fn default() -> EngineSettings {
        EngineSettings {
            seed: 0,
            threads: 1,
            batch_size: 8,
            visits: None,
            playouts: None,
            max_time: None,
            default_time: Duration::from_secs(1),
            ponder: false,
            resign_threshold: None,
            pass_style: PassStyle::Tournament,
            status_visits: 200,
            search_params: Vec::new(),
        }
    }
}

/// Options for one move generation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GenmoveOptions {
    /// KGS cleanup phase: capture dead stones before passing.
    pub cleanup: bool,
    /// How often the progress callback runs (`None`: 1 s).
    pub report_every: Option<Duration>,
}

/// A generated move and how it came about.
#[derive(Clone, Debug, PartialEq)]
pub struct Generated {
    pub mv: Move,
    /// The resignation threshold (when set) says resign.
    pub resign: bool,
    /// Why the passing rules chose `mv`, when they were consulted.
    pub reason: Option<PassReason>,
    /// The search behind it (`None`: no search was needed or affordable).
    pub result: Option<SearchResult>,
}

impl Generated {
    fn plain(mv: Move, reason: Option<PassReason>) -> Generated {
        Generated {
            mv,
            resign: false,
            reason,
            result: None,
        }
    }
}

/// The move generator; see the module docs.
pub struct Engine {
    eval: Arc<dyn Evaluator>,
    settings: EngineSettings,
    search: Search,
    last_reused: bool,
    last_result: Option<SearchResult>,
    /// (game revision, position hash) of the cached end status.
    status_cache: Option<((u64, u64), EndStatus)>,
}

impl Engine {
    pub fn new(eval: Arc<dyn Evaluator>, settings: EngineSettings) -> Engine {
        let mut config = SearchConfig {
            threads: settings.threads.max(1),
            batch_size: settings.batch_size.max(1),
            seed: settings.seed,
            resign_threshold: settings.resign_threshold,
            ..SearchConfig::default()
        };
        // Checked when the settings were made (SessionConfig); one that
        // fails here leaves the defaults rather than a half-applied list.
        let mut tuned = config.clone();
        if crate::search::params::apply(&mut tuned, &settings.search_params).is_ok() {
            config = tuned;
        }
        Engine {
            search: Search::new(Arc::clone(&eval), config),
            eval,
            settings,
            last_reused: false,
            last_result: None,
            status_cache: None,
        }
    }

    pub fn evaluator(&self) -> &Arc<dyn Evaluator> {
        &self.eval
    }

    pub fn settings(&self) -> &EngineSettings {
        &self.settings
    }

    /// Whether the last search started from a kept subtree.
    pub fn last_reused(&self) -> bool {
        self.last_reused
    }

    /// The last genmove's search, if it searched.
    pub fn last_result(&self) -> Option<&SearchResult> {
        self.last_result.as_ref()
    }

    /// Puts the game's position, with `color` to move, on the search.
    /// Returns whether the tree was reused.
    fn set_root(&mut self, game: &Game, color: Color) -> bool {
        let mut root = game.position().clone();
        let prev = if root.to_move() == color {
            game.prev_boards(PREV_BOARDS)
        } else {
            // An edit of the side to move: the search sees a fresh segment;
            // legality is checked against the game's history afterwards.
            root.set_to_move(color);
            Vec::new()
        };
        let reused = self
            .search
            .set_position(root, game.recent_moves(RECENT_MOVES));
        self.search.set_eval_context(prev, game.handicap_points());
        self.last_reused = reused;
        reused
    }

    /// Like [`Engine::set_root`] for judging a position rather than
    /// playing in it: passes that led here are forgotten, so the search
    /// plays the game out instead of scoring an ended game as it stands
    /// (where every stone would count as alive). Used for dead-stone
    /// status, final_score and judging.
    fn set_root_live(&mut self, game: &Game, color: Color) {
        let pos = game.position();
        if pos.passes() == 0 {
            self.set_root(game, color);
            return;
        }
        let mut root = pos.clone();
        // A new history segment: no passes, superko from here on.
        root.set_to_move(color);
        let mut recent = game.recent_moves(RECENT_MOVES);
        while recent.last().is_some_and(|&(_, m)| m == Move::Pass) {
            recent.pop();
        }
        self.search.set_position(root, recent);
        self.search
            .set_eval_context(Vec::new(), game.handicap_points());
        self.last_reused = false;
    }

    fn limits(&self, time: Option<Duration>) -> Limits {
        Limits {
            visits: self.settings.visits,
            playouts: self.settings.playouts,
            time,
        }
    }

    /// Chooses a move for `color` within a fixed `budget` (no stretching),
    /// or until `stop` is set. Never an illegal move, never an own eye.
    pub fn genmove(
        &mut self,
        game: &Game,
        color: Color,
        budget: Duration,
        stop: &AtomicBool,
    ) -> Move {
        let time = Some(MoveTime::fixed(budget));
        self.genmove_with(game, color, time, stop, GenmoveOptions::default(), None)
            .mv
    }

    /// Chooses a move for `color` in the current position of `game`; see
    /// the module docs. `progress` sees the search every
    /// `opts.report_every` (genmove_analyze).
    pub fn genmove_with(
        &mut self,
        game: &Game,
        color: Color,
        time: Option<MoveTime>,
        stop: &AtomicBool,
        opts: GenmoveOptions,
        progress: Option<&mut dyn FnMut(&AnalysisSnapshot)>,
    ) -> Generated {
        let pos = game.position();
        let size = pos.size();
        self.last_result = None;
        if game.move_count() > 4 * size * size {
            return Generated::plain(Move::Pass, Some(PassReason::NothingToPlay));
        }
        let cands = meaningful_moves(pos, color, opts.cleanup);
        if cands.is_empty() {
            // Settled everywhere; but a strict count may still score enemy
            // stones inside our pass-alive area alive.
            let mut mover = pos.clone();
            mover.set_to_move(color);
            return match capture_before_pass(&mover, &status::settled_dead(pos.board())) {
                Some(mv) => Generated::plain(mv, Some(PassReason::CaptureDead)),
                None => Generated::plain(Move::Pass, Some(PassReason::Settled)),
            };
        }
        let opponent_passed = pos.last_move() == Some((color.opp(), Move::Pass));
        let time = time.map(|t| match self.settings.max_time {
            Some(m) => t.capped(m),
            None => t,
        });
        self.set_root(game, color);
        if let Some(t) = time {
            let one = self.search.eval_cost(1).unwrap_or(Duration::ZERO);
            if t.hard.is_zero() || t.hard < one.mul_f64(1.15) {
                // Not even one evaluation fits: answer at once.
                if opponent_passed && !opts.cleanup && count_wins(game, color) {
                    return Generated::plain(Move::Pass, Some(PassReason::PassingWins));
                }
                let mv = self
                    .search
                    .root_priors()
                    .into_iter()
                    .map(|(m, _)| m)
                    .find(|&m| m != Move::Pass && acceptable(m, &cands))
                    .unwrap_or_else(|| emergency_move(pos, color, &cands, self.settings.seed));
                return Generated::plain(mv, None);
            }
        }
        if !opts.cleanup {
            // Where the passing rules below would play on anyway, the
            // search looks only at the moves it may play.
            self.search.bar_pass_if_refused();
        }
        let result = self.search_for(time, opponent_passed, stop, opts, progress);

        let root = self.search.position().clone();
        let mut reason = None;
        let mut mv = None;
        if opts.cleanup {
            let own_black = black_view(&result, color);
            let dead: Vec<_> = status::dead_stones(pos.board(), own_black.as_deref())
                .into_iter()
                .filter(|&p| pos.board().get(p) == Some(color.opp()))
                .collect();
            if !dead.is_empty() {
                mv = capture_dead(pos, color, &dead, &cands).or_else(|| {
                    (result.best != Move::Pass && acceptable(result.best, &cands))
                        .then_some(result.best)
                });
            }
        }
        let mv = match mv {
            Some(mv) => mv,
            None => {
                let style = self.settings.pass_style;
                let root_own = (opponent_passed && style == PassStyle::Tournament)
                    .then(|| self.search.evaluate_root())
                    .flatten()
                    .and_then(|o| o.ownership);
                let d = decide_with(&root, &result, style, root_own.as_deref());
                reason = Some(d.reason);
                d.mv
            }
        };
        // Belt and braces: the search and the passing rules must not be
        // able to break the rules either. A capture before a pass may be
        // inside our own pass-alive area, as in cleanup.
        let capturing = reason == Some(PassReason::CaptureDead);
        let mv = if acceptable(mv, &cands)
            || (capturing && acceptable(mv, &meaningful_moves(pos, color, true)))
        {
            mv
        } else {
            result
                .moves
                .iter()
                .map(|m| m.mv)
                .find(|&m| m != Move::Pass && acceptable(m, &cands))
                .unwrap_or_else(|| emergency_move(pos, color, &cands, self.settings.seed))
        };
        let resign = result.resign && !opts.cleanup && self.settings.resign_threshold.is_some();
        self.last_result = Some(result.clone());
        Generated {
            mv,
            resign,
            reason,
            result: Some(result),
        }
    }

    /// Runs the search for one move under the time policy of the module
    /// docs.
    fn search_for(
        &mut self,
        time: Option<MoveTime>,
        opponent_passed: bool,
        stop: &AtomicBool,
        opts: GenmoveOptions,
        progress: Option<&mut dyn FnMut(&AnalysisSnapshot)>,
    ) -> SearchResult {
        let mut progress = progress;
        let every = opts.report_every.unwrap_or(Duration::from_secs(1));
        let reporting = progress.is_some();
        let mut relay = |snap: &AnalysisSnapshot| {
            if let Some(p) = progress.as_mut() {
                p(snap);
            }
        };
        let Some(t) = time else {
            let s = &self.settings;
            let fixed = s
                .max_time
                .or(if s.visits.is_none() && s.playouts.is_none() {
                    Some(s.default_time)
                } else {
                    None
                });
            let limits = self.limits(fixed);
            let cb = reporting.then_some(&mut relay as &mut dyn FnMut(&AnalysisSnapshot));
            return self.search.run(&limits, stop, cb, every);
        };
        let start = Instant::now();
        let first = if opponent_passed {
            scale(t.normal, uncertainty_factor(1.0, true), t.hard)
        } else {
            t.normal / 2
        };
        // At least one evaluation's time when the clock allows it: a slow
        // net still searches the root rather than guessing.
        let one = self.search.eval_cost(1).unwrap_or(Duration::ZERO);
        let first = first.max(one.mul_f64(1.15)).min(t.hard);
        let limits = self.limits(Some(first));
        let cb = reporting.then_some(&mut relay as &mut dyn FnMut(&AnalysisSnapshot));
        let result = self.search.run(&limits, stop, cb, every);
        if stop.load(Ordering::Relaxed) || opponent_passed || self.limit_reached(&result) {
            return result;
        }
        let total: u64 = result.moves.iter().map(|m| m.visits).sum();
        let share = match result.moves.first() {
            Some(m) if total > 0 => m.visits as f32 / total as f32,
            _ => 1.0,
        };
        let target = scale(t.normal, uncertainty_factor(share, false), t.hard);
        let left = target.saturating_sub(start.elapsed());
        if left < Duration::from_millis(1) || left < one {
            return result;
        }
        let mut limits = self.limits(Some(left));
        limits.playouts = limits.playouts.map(|p| p.saturating_sub(result.playouts));
        let cb = reporting.then_some(&mut relay as &mut dyn FnMut(&AnalysisSnapshot));
        let mut more = self.search.run(&limits, stop, cb, every);
        more.playouts += result.playouts;
        more.batches += result.batches;
        more.elapsed = start.elapsed();
        more
    }

    fn limit_reached(&self, r: &SearchResult) -> bool {
        self.settings.visits.is_some_and(|v| r.visits >= v)
            || self.settings.playouts.is_some_and(|p| r.playouts >= p)
    }

    /// Analysis of the current position for `color`: `emit` sees the
    /// search every `interval` and once more at the end, until `stop` is
    /// set or `emit` returns `false`. Blocks meanwhile. The tree stays for
    /// the next move.
    pub fn analyze(
        &mut self,
        game: &Game,
        color: Color,
        interval: Duration,
        stop: &AtomicBool,
        emit: &mut dyn FnMut(&AnalysisSnapshot) -> bool,
    ) {
        self.set_root(game, color);
        // A first child visit, so there is a move to report even when
        // stopped at once.
        let never = AtomicBool::new(false);
        let _ = self.search.run(&Limits::visits(2), &never, None, interval);
        let mut open = true;
        let mut progress = |snap: &AnalysisSnapshot| {
            if open && !emit(snap) {
                open = false;
                stop.store(true, Ordering::SeqCst);
            }
        };
        let interval = interval.max(Duration::from_millis(10));
        let result = self
            .search
            .run(&Limits::unlimited(), stop, Some(&mut progress), interval);
        if open {
            let mut snap = self.search.snapshot();
            snap.elapsed = result.elapsed;
            let _ = emit(&snap);
        }
    }

    /// Pondering: searches the current position (the opponent to move)
    /// until `stop` is set; the tree is kept for our next move.
    pub fn ponder(&mut self, game: &Game, stop: &AtomicBool) {
        if game.is_over() {
            return;
        }
        self.set_root(game, game.to_move());
        let _ = self.search.ponder(stop);
    }

    /// Dead, seki and alive stones of the game's position (C8), from a
    /// short search's ownership and Benson; cached until the game changes.
    pub fn end_status(&mut self, game: &Game) -> EndStatus {
        let key = (game.revision(), game.position().hash());
        if let Some((k, st)) = &self.status_cache {
            if *k == key {
                return st.clone();
            }
        }
        let (result, to_move) = self.short_search(game);
        let own = black_view(&result, to_move);
        let st = status::assess(game.position().board(), own.as_deref());
        self.status_cache = Some((key, st.clone()));
        st
    }

    /// The score a referee would give the game as it stands (Chinese
    /// counting, dead stones by [`Engine::end_status`]).
    pub fn final_score(&mut self, game: &Game) -> Score {
        let st = self.end_status(game);
        let pos = game.position();
        let ended = pos.is_over();
        st.score(pos.board(), pos.rules(), game.handicap_points(), ended)
    }

    /// Judges the game as it stands with a search of `visits` visits (A3).
    pub fn judge(&mut self, game: &Game, visits: u64) -> Judgement {
        let to_move = game.to_move();
        self.set_root_live(game, to_move);
        let never = AtomicBool::new(false);
        let result = self.search.run(
            &Limits::visits(visits.max(1)),
            &never,
            None,
            Duration::from_secs(3600),
        );
        let own = black_view(&result, to_move).unwrap_or_default();
        let sign = if to_move == Color::Black { 1.0 } else { -1.0 };
        let winrate = if to_move == Color::Black {
            result.winrate
        } else {
            1.0 - result.winrate
        };
        let pos = game.position();
        Judgement {
            visits: result.visits,
            moves: game.move_count(),
            ..Judgement::new(
                pos.board(),
                &own,
                pos.rules().komi,
                game.handicap_points(),
                winrate,
                sign * result.score_lead,
            )
        }
    }

    /// The short search behind end-of-game judgements, and who was to move.
    fn short_search(&mut self, game: &Game) -> (SearchResult, Color) {
        let to_move = game.to_move();
        self.set_root_live(game, to_move);
        let never = AtomicBool::new(false);
        let limits = Limits::visits(self.settings.status_visits.max(1));
        let r = self
            .search
            .run(&limits, &never, None, Duration::from_secs(3600));
        (r, to_move)
    }
}

/// The result's ownership turned to Black's view (+1: Black owns).
fn black_view(result: &SearchResult, to_move: Color) -> Option<Vec<f32>> {
    let own = result.ownership.as_ref()?;
    Some(match to_move {
        Color::Black => own.clone(),
        Color::White => own.iter().map(|x| -x).collect(),
    })
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
    use crate::rules::{Point, Ruleset};

    fn engine() -> Engine {
        Engine::new(
            Arc::new(HeuristicEvaluator::new(3).with_playouts(4)),
            EngineSettings {
                visits: Some(32),
                ..EngineSettings::default()
            },
        )
    }

    #[test]
    fn plays_legal_moves_to_the_end() {
        for eval in [
            Arc::new(UniformEvaluator) as Arc<dyn Evaluator>,
            Arc::new(HeuristicEvaluator::new(5).with_playouts(2)),
        ] {
            let mut e = Engine::new(
                eval,
                EngineSettings {
                    visits: Some(16),
                    ..EngineSettings::default()
                },
            );
            let mut g = Game::new(7, Ruleset::chinese()).unwrap();
            let stop = AtomicBool::new(false);
            while !g.is_over() {
                let c = g.to_move();
                let mv = e.genmove(&g, c, Duration::from_secs(5), &stop);
                if let Move::Place(p) = mv {
                    assert!(!g.position().board().is_eye(c, p));
                }
                g.play(c, mv).unwrap();
                assert!(g.move_count() < 1000);
            }
        }
    }

    /// Setup stones from rows of `X` (Black), `O` (White) and `.`.
    fn stones_of(rows: &[&str]) -> Vec<(Point, Option<Color>)> {
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
        stones
    }

    #[test]
    fn passes_on_a_settled_board() {
        // Two pass-alive halves: nothing meaningful left for either side.
        let mut g = Game::new(5, Ruleset::chinese()).unwrap();
        let rows = ["X.XO.", "XXXOO", ".XXO.", "XXXOO", "X.XO."];
        g.setup(&stones_of(&rows)).unwrap();
        let stop = AtomicBool::new(false);
        for c in Color::ALL {
            assert_eq!(
                engine().genmove(&g, c, Duration::from_millis(10), &stop),
                Move::Pass
            );
        }
    }

    /// Issue 18: the whole board pass-alive, a white stone at B2 inside
    /// Black's area. A strict count (every stone alive, as gomill's
    /// ringmaster counts) gives Black 13 and White 11, B2 and B1 neutral;
    /// agreeing B2 is dead gives 15 to 10. At komi 2 the strict count is
    /// a jigo, so Black takes B2 (at B1) before passing; at komi 1 it
    /// wins and Black passes.
    #[test]
    fn captures_before_passing_on_a_settled_board_when_a_strict_count_would_not_win() {
        let rows = ["X.XO.", "XXXOO", ".XXO.", "XOXOO", "X.XO."];
        let stop = AtomicBool::new(false);
        for (komi, want) in [(2.0, Move::Place(Point::new(1, 4))), (1.0, Move::Pass)] {
            let mut g = Game::new(5, Ruleset::chinese().with_komi(komi)).unwrap();
            g.setup(&stones_of(&rows)).unwrap();
            let mv = engine().genmove(&g, Color::Black, Duration::from_millis(10), &stop);
            assert_eq!(mv, want, "komi {komi}");
        }
    }
}
