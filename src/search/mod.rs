//! Batched PUCT search over the rules core, driven by any [`Evaluator`].
//!
//! # Contract
//! - [`Search::set_position`] sets the position to search (non-blocking,
//!   O(kept subtree)). When the new position follows from the previous
//!   root by moves already in the tree, the subtree of those moves is kept
//!   (tree reuse); otherwise the tree starts afresh.
//! - [`Search::run`] blocks the caller until a [`Limits`] bound is reached,
//!   the deadline passes, or the `stop` flag is set (from any thread);
//!   then it returns a [`SearchResult`]. It always evaluates the root at
//!   least once, so it has a move even when stopped at once. With no
//!   limits it runs until `stop` (pondering, infinite analysis). The
//!   `progress` callback runs on the caller's thread every `report_every`.
//! - `config.threads` search threads (the caller's thread is one of them)
//!   gather leaves under virtual loss into one batching evaluator
//!   (`batcher.rs` docs); the tree sits behind one mutex (`tree.rs` docs).
//! - With one thread and a fixed seed, everything (visits, values, the
//!   chosen move, noise, temperature) is deterministic.
//! - Nothing here panics on bad evaluator output: missing or non-finite
//!   numbers are treated as "no knowledge".
//!
//! # Values
//! Win − loss comes from `EvalOutput::value` (view of the player to move),
//! flipped at every ply. PUCT maximises a utility: win − loss plus a small
//! score term, `score_utility * 2/π * atan(lead / (20 * size / 19))`. Two
//! consecutive passes end the game in the tree: the area score (stones in
//! the opponent's pass-alive territory dead) gives the exact value.
//!
//! # Final move
//! Most visits, unless the LCB check prefers a well-visited move with a
//! higher lower confidence bound ([`analysis`]); with `temperature > 0`
//! during the first `temperature_moves` moves, a move sampled in proportion
//! to visits^(1/T) (self-play). The resignation threshold is off by
//! default: tournaments should leave it off; the engine decides what to do
//! with [`SearchResult::resign`].
//!
//! # Gumbel root search
//! [`Search::run_gumbel`] is the other way to search a move, for
//! self-play at small budgets: Sequential Halving over Gumbel-sampled root
//! moves, with an improved-policy target (`gumbel.rs` docs).

pub mod analysis;
mod backup;
mod batcher;
mod bias;
mod gather;
mod gumbel;
mod noise;
pub mod params;
pub mod passing;
mod select;
pub mod testing;
pub mod time;
mod tree;

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

pub use analysis::{AnalysisSnapshot, MoveInfo};
pub use gumbel::{schedule, GumbelConfig, GumbelResult, Phase, QNorm};

use crate::eval::{EvalInput, Evaluator};
use crate::rules::{Color, Move, Position, Ruleset};
use analysis::Ranking;
use backup::Utility;
use batcher::{Batcher, CostMeter};
use gather::{round_with, work, Ctx};
use select::Puct;
use tree::Tree;

/// Search settings. `Default` gives tournament settings (no noise, no
/// temperature, no resignation, LCB check on).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchConfig {
    /// Search threads, the caller's included (at least 1).
    pub threads: usize,
    /// Target evaluator batch size (clamped to the evaluator's max batch).
    pub batch_size: usize,
    /// Longest a leaf waits for its batch to fill.
    pub batch_timeout: Duration,
    /// cPUCT schedule: `c = init + log * ln((N + base) / base)`.
    pub c_puct_init: f32,
    pub c_puct_log: f32,
    pub c_puct_base: f32,
    /// First-play urgency reduction (utility units, scaled by the square
    /// root of the visited prior mass), inside the tree and at the root.
    pub fpu_reduction: f32,
    pub root_fpu_reduction: f32,
    /// Losses counted per in-flight visit.
    pub virtual_loss: f32,
    /// Weight of the score lead in the utility (0: winrate only).
    pub score_utility: f32,
    /// Weight of a second score term centred on the score the root
    /// expects (KataGo's dynamic score utility; 0: off).
    pub dynamic_score_utility: f32,
    /// Exploration scaled by each node's spread of values (KataGo's
    /// `cpuctUtilityStdevScale`; 0: off; `select.rs` docs).
    pub cpuct_stdev_scale: f32,
    /// The policy's optimism inside the tree and at the root
    /// ([`EvalInput::policy_optimism`]; KataGo's `policyOptimism` and
    /// `rootPolicyOptimism`, whose GTP defaults 1.0 and 0.2 these are).
    /// Nets without an optimistic policy head are not affected; tengen's
    /// own nets train that head on the main target at a quarter weight.
    pub policy_optimism: f32,
    pub root_policy_optimism: f32,
    /// Each evaluation under a random symmetry of the board (KataGo's
    /// `nnRandomize`, on in its engine): the net's errors that depend on
    /// the board's orientation average out over a subtree instead of
    /// repeating in every node ([`EvalInput::random_symmetry`]).
    pub random_symmetry: bool,
    /// KataGo's `valueWeightExponent`: node values recomputed from their
    /// children, a worse-looking child weighing less (0: plain means;
    /// `backup.rs` docs).
    pub value_weight_exponent: f32,
    /// KataGo's `uncertaintyCoeff` and `uncertaintyMaxWeight`: each
    /// evaluation weighs by the net's short-term error estimate, a sure
    /// one up to the maximum, in every node's means (0: all weigh one;
    /// only nets trained to give that estimate are affected; `backup.rs`).
    pub uncertainty_coeff: f32,
    pub uncertainty_max_weight: f32,
    /// KataGo's `fpuParentWeightByVisitedPolicyPow` (its GTP engine: 2):
    /// an untried move's first-play value leans on the node's own
    /// evaluation until much of the policy has been tried (0: the node's
    /// mean alone; `select.rs` docs).
    pub fpu_parent_pow: f32,
    /// KataGo's subtree value bias (`subtreeValueBiasFactor`, 0.45 in its
    /// engine; 0: off): each node's own evaluation is corrected by this
    /// share of what the subtrees of similar nodes (same local shape and
    /// moves) found the net to misjudge; `bias.rs` docs. The weight
    /// exponent is KataGo's `subtreeValueBiasWeightExponent` (0.85).
    pub subtree_bias: f32,
    pub subtree_bias_exponent: f32,
    /// KataGo's noise pruning (`noisePruneUtilityScale`, 0.15 in its GTP
    /// engine; 0: off): a child that holds more visits than its prior and
    /// value justify counts for less in its parent's value
    /// (`backup::pruned_weights`).
    pub noise_prune: f32,
    /// Tree node cap (see the `tree` module docs for memory).
    pub max_nodes: usize,
    /// Root Dirichlet noise (self-play).
    pub noise: bool,
    /// Dirichlet alpha for 19×19; scaled by 361 / number of root moves.
    pub noise_alpha: f32,
    pub noise_fraction: f32,
    /// Wider exploration at the root for analysis (KataGo's
    /// `wideRootNoise`, 0: off): the root priors are raised to the power
    /// `1 / (1 + 4w)` and renormalised, so at 0.04 (KaTrain's setting)
    /// the search looks a little wider and at 1 spreads its visits over
    /// almost every move. tengen's own form of the setting; deterministic.
    pub wide_root_noise: f32,
    /// Temperature for the final move choice (0: off).
    pub temperature: f32,
    /// Temperature applies while fewer moves than this were played.
    pub temperature_moves: u32,
    /// With a half-life, the temperature decays towards this one
    /// (KataGo's `chosenMoveTemperature`; 0.1 in its GTP engine).
    pub temperature_end: f32,
    /// Half-life of the temperature in moves on 19×19 (0: none, the
    /// temperature holds until `temperature_moves`). Scaled by 19 / the
    /// board's side as KataGo scales `chosenMoveTemperatureHalflife`
    /// (19 there): `end + (temperature − end) · 0.5^(moves / halflife ·
    /// 19 / side)`. See [`SearchConfig::temperature_at`].
    pub temperature_halflife: f32,
    /// At a temperature, choose by KataGo's play-selection weights (visits
    /// that were only exploration of a worse move taken back out,
    /// `select::play_weights`) instead of raw visits.
    pub play_pruning: bool,
    pub seed: u64,
    /// Lower-confidence-bound check of the final move.
    pub lcb_check: bool,
    /// Standard errors below the mean for the LCB.
    pub lcb_z: f32,
    /// A move needs this fraction of the top move's visits to be chosen
    /// by the LCB check.
    pub lcb_min_fraction: f32,
    /// Resign when the chosen move's winrate is below this (`None`: never).
    pub resign_threshold: Option<f32>,
    /// KataGo's forced playouts at the root with this `k` (2 in the paper;
    /// `None`: off, the default). For self-play full searches only: a
    /// visited root child with fewer than `sqrt(k * prior * child visits)`
    /// visits (prior after noise) is selected first. Pair it with
    /// [`Search::policy_target`], which prunes those visits back out.
    pub forced_playouts: Option<f32>,
    /// Stop a bounded search (visits, playouts or time) as soon as its most
    /// visited root move can no longer be overtaken within what the bounds
    /// still allow (time converted to visits at the rate so far). Off by
    /// default; never while temperature or noise is in effect, whose
    /// choices depend on the whole visit distribution.
    pub early_stop: bool,
    /// Players (the GTP engine, `tengen-train match`) bar the root's pass
    /// ([`Search::bar_pass_if_refused`]) where their end-of-game rules
    /// would not pass anyway. Off by default until a match measures it.
    pub bar_refused_pass: bool,
    /// Keep the subtree of the moves played since the last search
    /// ([`Search::set_position`]); off, every search starts afresh (to
    /// measure what reuse is worth).
    pub tree_reuse: bool,
    /// KataGo's PUCT scaling: exploration grows with the children's
    /// summed weight, not the node's visits (`select.rs` docs).
    pub child_weight_explore: bool,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            threads: 1,
            batch_size: 8,
            batch_timeout: Duration::from_millis(2),
            c_puct_init: 1.0,
            c_puct_log: 0.45,
            c_puct_base: 500.0,
            fpu_reduction: 0.2,
            root_fpu_reduction: 0.1,
            virtual_loss: 1.0,
            score_utility: 0.1,
            dynamic_score_utility: 0.0,
            cpuct_stdev_scale: 0.0,
            policy_optimism: 1.0,
            root_policy_optimism: 0.2,
            random_symmetry: false,
            value_weight_exponent: 0.0,
            uncertainty_coeff: 0.0,
            uncertainty_max_weight: 8.0,
            fpu_parent_pow: 0.0,
            subtree_bias: 0.0,
            subtree_bias_exponent: 0.85,
            noise_prune: 0.0,
            max_nodes: 1_000_000,
            noise: false,
            noise_alpha: 0.03,
            noise_fraction: 0.25,
            wide_root_noise: 0.0,
            temperature: 0.0,
            temperature_moves: 0,
            temperature_end: 0.0,
            temperature_halflife: 0.0,
            play_pruning: true,
            seed: 0,
            lcb_check: true,
            lcb_z: 2.0,
            lcb_min_fraction: 0.1,
            resign_threshold: None,
            forced_playouts: None,
            early_stop: false,
            bar_refused_pass: false,
            tree_reuse: true,
            child_weight_explore: false,
        }
    }
}

impl SearchConfig {
    /// The move-choice temperature after `played` moves on a board of
    /// side `side`: 0 once `temperature_moves` moves were played;
    /// before, `temperature`, or with a half-life the decaying schedule of
    /// [`SearchConfig::temperature_halflife`].
    pub fn temperature_at(&self, played: u32, side: usize) -> f32 {
        if played >= self.temperature_moves || self.temperature <= 0.0 {
            return 0.0;
        }
        if self.temperature_halflife <= 0.0 {
            return self.temperature;
        }
        let halflives = played as f32 / self.temperature_halflife * 19.0 / side.max(1) as f32;
        self.temperature_end + (self.temperature - self.temperature_end) * 0.5f32.powf(halflives)
    }
}

/// When a run stops (the first bound reached). All `None`: only the stop
/// flag ends it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Root visits, kept ones from tree reuse included.
    pub visits: Option<u64>,
    /// Visits made by this run.
    pub playouts: Option<u64>,
    pub time: Option<Duration>,
}

impl Limits {
    pub fn visits(n: u64) -> Limits {
        Limits {
            visits: Some(n),
            ..Limits::default()
        }
    }

    pub fn playouts(n: u64) -> Limits {
        Limits {
            playouts: Some(n),
            ..Limits::default()
        }
    }

    pub fn time(t: Duration) -> Limits {
        Limits {
            time: Some(t),
            ..Limits::default()
        }
    }

    /// No bound: run until the stop flag (pondering, analysis).
    pub fn unlimited() -> Limits {
        Limits::default()
    }
}

/// The outcome of a run. Values are from the view of the root's player to
/// move.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The move to play.
    pub best: Move,
    /// Root visits.
    pub visits: u64,
    /// Visits this run made.
    pub playouts: u64,
    pub winrate: f32,
    pub score_lead: f32,
    /// Standard deviation of the root's backed-up score leads.
    pub score_stdev: f32,
    /// Visited root moves, by rank (`moves[0]` is the LCB/visits choice).
    pub moves: Vec<MoveInfo>,
    /// Average ownership of this run, +1: owned by the player to move.
    pub ownership: Option<Vec<f32>>,
    /// Standard deviation of the ownership over the run's visits.
    pub ownership_stdev: Option<Vec<f32>>,
    /// The resignation threshold says resign.
    pub resign: bool,
    pub elapsed: Duration,
    /// Evaluator calls and the mean batch size this run.
    pub batches: u64,
    pub avg_batch: f32,
    /// The node cap was reached.
    pub tree_full: bool,
}

/// A search: the evaluator, the settings, the position and the tree.
/// `Search` is `Send`; its methods take `&mut self` and are not meant to be
/// called concurrently (use the `stop` flag to interrupt a run).
pub struct Search {
    evaluator: Arc<dyn Evaluator>,
    config: SearchConfig,
    tree: Tree,
    root: Position,
    recent: Vec<(Color, Move)>,
    /// The boards before the root's last moves, newest first (for the
    /// evaluator; see [`Search::set_eval_context`]).
    root_prev: Vec<crate::rules::Board>,
    handicap_bonus: f32,
    rng: StdRng,
    root_noised: bool,
    /// Whether the root's priors are the root's own (evaluated with the
    /// root's policy optimism, not inherited from the tree).
    root_own_priors: bool,
    /// Whether the root's priors were widened ([`SearchConfig::wide_root_noise`]).
    root_widened: bool,
    /// What evaluator calls cost, measured over every run.
    meter: CostMeter,
    /// The next runs may not pass at the root ([`Search::bar_root_pass`]).
    root_pass_barred: bool,
}

impl Search {
    /// A search on the empty 19×19 board under Chinese rules; call
    /// [`Search::set_position`] next.
    pub fn new(evaluator: Arc<dyn Evaluator>, config: SearchConfig) -> Search {
        let root = Position::new(19, Ruleset::chinese()).unwrap_or_else(|_| {
            Position::from_board(
                crate::rules::Board::new(19),
                Color::Black,
                Ruleset::chinese(),
            )
        });
        Search {
            evaluator,
            tree: Tree::new(0, config.max_nodes),
            rng: StdRng::seed_from_u64(config.seed),
            config,
            root,
            recent: Vec::new(),
            root_prev: Vec::new(),
            handicap_bonus: 0.0,
            root_noised: false,
            root_own_priors: false,
            root_widened: false,
            meter: CostMeter::default(),
            root_pass_barred: false,
        }
    }

    /// The predicted time of one evaluator call of `n` positions, from the
    /// calls so far (`None` before the first). The engine's time policy
    /// uses it; a search under a deadline starts no call that would end
    /// after it.
    pub fn eval_cost(&self, n: usize) -> Option<Duration> {
        self.meter.predict(n)
    }

    /// Tells the evaluator's inputs what the position alone does not: the
    /// boards before the root's last move and the one before (newest
    /// first; a net's ladder inputs use them) and White's handicap bonus.
    /// Call it after [`Search::set_position`], which forgets the boards
    /// (they belong to one root) but keeps the bonus.
    pub fn set_eval_context(&mut self, prev_boards: Vec<crate::rules::Board>, handicap_bonus: f32) {
        self.root_prev = prev_boards;
        self.root_prev.truncate(crate::eval::PREV_BOARDS);
        self.handicap_bonus = handicap_bonus;
    }

    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Changes the settings; the tree is kept (the node cap applies from
    /// the next node on). A new seed restarts the generator.
    pub fn set_config(&mut self, config: SearchConfig) {
        if config.seed != self.config.seed {
            self.rng = StdRng::seed_from_u64(config.seed);
        }
        self.tree.max_nodes = config.max_nodes.max(1);
        self.config = config;
    }

    /// The root position.
    pub fn position(&self) -> &Position {
        &self.root
    }

    /// Sets the position to search, keeping the subtree of the moves played
    /// since the previous root when possible. `recent` lists the moves that
    /// led here, newest last (what the evaluator sees; it also tells which
    /// moves were played since the last root). Returns whether the tree was
    /// reused.
    pub fn set_position(&mut self, position: Position, recent: Vec<(Color, Move)>) -> bool {
        let kept = if self.config.tree_reuse {
            self.reusable(&position, &recent)
        } else {
            None
        };
        self.tree = match kept {
            Some(0) => std::mem::replace(&mut self.tree, Tree::new(0, 1)),
            Some(node) => self.tree.extract(node),
            None => Tree::new(root_passes(&position), self.config.max_nodes),
        };
        self.tree.max_nodes = self.config.max_nodes.max(1);
        if kept != Some(0) {
            self.root_noised = false;
            self.root_own_priors = false;
            self.root_widened = false;
            self.tree.own_sum.clear();
            self.tree.own_sq_sum.clear();
            self.tree.own_n = 0;
        }
        self.root = position;
        self.recent = recent;
        self.root_prev.clear();
        self.root_pass_barred = false;
        kept.is_some()
    }

    /// From now until the next [`Search::set_position`], runs do not pass
    /// at the root while it has another move: the pass is never selected
    /// there, a kept pass subtree is cut out of the root's value, and the
    /// final move is another. For a player whose end-of-game rules will
    /// not pass here anyway ([`passing::pass_refused`]): the search then
    /// spends its visits on the moves it may really play, instead of on
    /// finished games after a pass that a rule then overrides with a
    /// barely searched move.
    pub fn bar_root_pass(&mut self) {
        self.root_pass_barred = true;
    }

    /// Bars the root's pass ([`Search::bar_root_pass`]) when
    /// [`SearchConfig::bar_refused_pass`] is on and the end-of-game rules
    /// will not pass in the root position anyway
    /// ([`passing::pass_refused`], judged by the evaluator's ownership of
    /// the root: one evaluator call, usually a cache hit later). Call it
    /// after [`Search::set_position`] and [`Search::set_eval_context`].
    /// Returns whether the pass is barred.
    pub fn bar_pass_if_refused(&mut self) -> bool {
        if self.config.bar_refused_pass {
            let own = self.evaluate_root().and_then(|o| o.ownership);
            if passing::pass_refused(&self.root, own.as_deref()) {
                self.bar_root_pass();
            }
        }
        self.root_pass_barred
    }

    /// Whether the root's pass is barred ([`Search::bar_root_pass`]).
    pub fn root_pass_barred(&self) -> bool {
        self.root_pass_barred
    }

    /// Forgets the tree (the position stays).
    pub fn clear_tree(&mut self) {
        self.tree = Tree::new(root_passes(&self.root), self.config.max_nodes);
        self.root_noised = false;
        self.root_own_priors = false;
        self.root_widened = false;
    }

    /// The node of the current tree that `position` corresponds to, if the
    /// moves from the current root to it are all in the tree.
    fn reusable(&self, position: &Position, recent: &[(Color, Move)]) -> Option<u32> {
        let old = &self.root;
        if old.rules() != position.rules() || !self.tree.root_ready() {
            return None;
        }
        let (h_old, h_new) = (old.history(), position.history());
        if h_new.len() < h_old.len() || h_new[..h_old.len()] != *h_old {
            return None;
        }
        let k = h_new.len() - h_old.len();
        if k > recent.len() {
            return None;
        }
        let mut pos = old.clone();
        let mut node = 0u32;
        for &(c, mv) in &recent[recent.len() - k..] {
            if c != pos.to_move() || pos.play(c, mv).is_err() {
                return None;
            }
            node = self.tree.child_by_move(node, mv)?;
            if self.tree.nodes[node as usize].state == tree::State::Pending {
                return None;
            }
        }
        let same = pos.history() == h_new
            && pos.board() == position.board()
            && pos.to_move() == position.to_move()
            && root_passes(&pos) == root_passes(position);
        same.then_some(node)
    }

    /// Root visits in the current tree.
    pub fn root_visits(&self) -> u64 {
        self.tree.root().visits as u64
    }

    /// The root's moves by the net's prior, highest first, if the root of
    /// the current tree was evaluated (by an earlier search whose subtree
    /// was kept); empty otherwise. For a move when no evaluation fits the
    /// time left: the policy's choice, never an unevaluated one.
    pub fn root_priors(&self) -> Vec<(Move, f32)> {
        if !self.tree.root_ready() {
            return Vec::new();
        }
        let mut out: Vec<(Move, f32)> = self
            .tree
            .edges_of(0)
            .iter()
            .map(|e| (e.mv, e.prior))
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        out
    }

    /// The evaluator's own output for the root position (with the same
    /// context the search gives it), outside any search: what the net
    /// thinks of the position itself, before terminal results from the
    /// tree mix in. One evaluator call (usually a cache hit).
    pub fn evaluate_root(&self) -> Option<crate::eval::EvalOutput> {
        let input = EvalInput::new(self.root.clone())
            .with_recent(self.recent.clone())
            .with_prev_boards(self.root_prev.clone())
            .with_handicap_bonus(self.handicap_bonus)
            .with_policy_optimism(self.config.root_policy_optimism)
            .with_random_symmetry(self.config.random_symmetry);
        self.evaluator.evaluate(&[input]).into_iter().next()
    }

    /// Visits of the root's child reached by `mv` (0 if none).
    pub fn child_visits(&self, mv: Move) -> u64 {
        self.tree
            .child_by_move(0, mv)
            .map_or(0, |c| self.tree.nodes[c as usize].visits as u64)
    }

    /// The root's policy target after the last run, as (move, weight)
    /// pairs summing to 1, in prior order (after noise), visited moves
    /// only; empty before any child has a visit. With
    /// [`SearchConfig::forced_playouts`] set, KataGo's policy-target
    /// pruning applies: every child but the most visited loses up to its
    /// forced playouts, `sqrt(k * prior * child visits)`, as long as its
    /// PUCT score with the reduced count stays below the best's, and
    /// children left with at most one visit are dropped. Without it, the
    /// plain visit distribution. Deterministic with one thread and a seed.
    pub fn policy_target(&self) -> Vec<(Move, f32)> {
        let k = self.config.forced_playouts.map(|k| k as f64);
        select::pruned_target(&self.tree, &self.puct(), k)
    }

    /// The utility of this run: the static score term and, with
    /// `dynamic_score_utility`, the dynamic one centred on 0.8 × the
    /// root's mean score so far (from a kept tree; 0 for a fresh one).
    fn search_utility(&self, tree: &Tree) -> Utility {
        let cfg = &self.config;
        let root = tree.root();
        // The root's sums are from the view of the player who moved into
        // it: the opponent of the player to move.
        let center = if root.visits > 0 {
            -0.8 * root.score()
        } else {
            0.0
        };
        Utility {
            weight: cfg.score_utility as f64,
            scale: 20.0 * self.root.size() as f64 / 19.0,
            dyn_weight: cfg.dynamic_score_utility as f64,
            value_weight: cfg.value_weight_exponent as f64,
            uncertainty_coeff: cfg.uncertainty_coeff as f64,
            uncertainty_max_weight: cfg.uncertainty_max_weight as f64,
            subtree_bias: cfg.subtree_bias as f64,
            subtree_bias_exp: cfg.subtree_bias_exponent as f64,
            noise_prune: cfg.noise_prune as f64,
            center: if center.is_finite() {
                center.clamp(-500.0, 500.0)
            } else {
                0.0
            },
        }
    }

    fn puct(&self) -> Puct {
        let cfg = &self.config;
        Puct {
            c_init: cfg.c_puct_init as f64,
            c_log: cfg.c_puct_log as f64,
            c_base: (cfg.c_puct_base as f64).max(1.0),
            fpu_reduction: cfg.fpu_reduction as f64,
            root_fpu_reduction: cfg.root_fpu_reduction as f64,
            virtual_loss: cfg.virtual_loss as f64,
            forced_k: cfg.forced_playouts.map(|k| k as f64),
            stdev_scale: cfg.cpuct_stdev_scale as f64,
            fpu_parent_pow: cfg.fpu_parent_pow as f64,
            root_pass_barred: self.root_pass_barred,
            child_weight_explore: cfg.child_weight_explore,
        }
    }

    /// Nodes in the tree.
    pub fn node_count(&self) -> usize {
        self.tree.nodes.len()
    }

    /// The current analysis without searching.
    pub fn snapshot(&self) -> AnalysisSnapshot {
        analysis::snapshot(&self.tree, &self.ranking(), Duration::ZERO)
    }

    fn ranking(&self) -> Ranking {
        Ranking {
            lcb_check: self.config.lcb_check,
            lcb_z: self.config.lcb_z as f64,
            lcb_min_fraction: self.config.lcb_min_fraction as f64,
        }
    }

    /// Searches until `stop`, `limits` or neither (pondering: runs until
    /// `stop`). Blocks; see the module docs.
    pub fn run(
        &mut self,
        limits: &Limits,
        stop: &AtomicBool,
        mut progress: Option<&mut dyn FnMut(&AnalysisSnapshot)>,
        report_every: Duration,
    ) -> SearchResult {
        let start = Instant::now();
        let cfg = self.config.clone();
        let threads = cfg.threads.max(1);
        let batch = cfg.batch_size.clamp(1, self.evaluator.max_batch().max(1));
        let utility = self.search_utility(&self.tree);
        let tree = std::mem::replace(&mut self.tree, Tree::new(0, 1));
        let played = self.root.history().len().saturating_sub(1) as u32;
        let temperature_on = cfg.temperature_at(played, self.root.size()) > 0.0;
        let ctx = Ctx {
            tree: Mutex::new(tree),
            batcher: Batcher::new(&*self.evaluator, &self.meter, batch, cfg.batch_timeout, 1),
            puct: self.puct(),
            utility,
            root: &self.root,
            recent: &self.recent,
            root_prev: &self.root_prev,
            handicap_bonus: self.handicap_bonus,
            optimism: (cfg.root_policy_optimism, cfg.policy_optimism),
            random_symmetry: cfg.random_symmetry,
            leaves_per_round: batch.div_ceil(threads),
            stop,
            deadline: limits.time.map(|t| start + t),
            max_visits: limits.visits,
            max_playouts: limits.playouts,
            started: AtomicU64::new(0),
            early_stop: cfg.early_stop && !temperature_on && !cfg.noise,
            start,
            pending: AtomicUsize::new(0),
            root_plan: None,
        };
        self.meter.fade();

        // The root's first visit, alone, so noise goes in before anyone
        // selects from it.
        if !ctx.lock().root_ready() {
            round_with(&ctx, true);
            self.root_own_priors = true;
        }
        if self.root_pass_barred {
            ctx.lock().detach_root_pass();
        }
        if !self.root_own_priors {
            // A reused root was expanded as an inner node: give it the
            // root's own policy (before any noise goes in).
            if cfg.root_policy_optimism != cfg.policy_optimism {
                if let Some(out) = self.evaluate_root() {
                    reprior_root(&mut ctx.lock(), &out.policy, self.root.size());
                }
            }
            self.root_own_priors = true;
        }
        if cfg.noise && !self.root_noised {
            let mut tree = ctx.lock();
            add_root_noise(&mut tree, &cfg, &mut self.rng);
            self.root_noised = true;
        }
        if cfg.wide_root_noise > 0.0 && !self.root_widened {
            widen_root(&mut ctx.lock(), cfg.wide_root_noise);
            self.root_widened = true;
        }

        ctx.batcher.set_active(threads);
        let ranking = self.ranking();
        let mut next_report = start + report_every;
        let mut report = || {
            if let Some(cb) = progress.as_mut() {
                let now = Instant::now();
                if now >= next_report {
                    let snap = analysis::snapshot(&ctx.lock(), &ranking, now - start);
                    cb(&snap);
                    next_report = now + report_every;
                }
            }
        };
        std::thread::scope(|s| {
            for _ in 1..threads {
                s.spawn(|| work(&ctx, || {}));
            }
            work(&ctx, &mut report);
        });

        let (batches, evaluated) = ctx.batcher.stats();
        let playouts = ctx.started.into_inner();
        self.tree = ctx.tree.into_inner().unwrap_or_else(|e| e.into_inner());
        let snap = analysis::snapshot(&self.tree, &ranking, start.elapsed());
        let best = self.choose(&snap);
        self.result(snap, best, playouts, (batches, evaluated), start)
    }

    /// The result of a run that chose `best`, from the tree's `snap`.
    fn result(
        &self,
        snap: AnalysisSnapshot,
        best: Move,
        playouts: u64,
        (batches, evaluated): (u64, u64),
        start: Instant,
    ) -> SearchResult {
        let best_wr = snap
            .moves
            .iter()
            .find(|m| m.mv == best)
            .map_or(snap.winrate, |m| m.winrate);
        SearchResult {
            best,
            visits: snap.visits,
            playouts,
            winrate: snap.winrate,
            score_lead: snap.score_lead,
            score_stdev: snap.score_stdev,
            resign: self.config.resign_threshold.is_some_and(|t| best_wr < t),
            moves: snap.moves,
            ownership: snap.ownership,
            ownership_stdev: snap.ownership_stdev,
            elapsed: start.elapsed(),
            batches,
            avg_batch: if batches > 0 {
                evaluated as f32 / batches as f32
            } else {
                0.0
            },
            tree_full: self.tree.is_full(),
        }
    }

    /// Pondering: searches until `stop` is set (on the opponent's time).
    /// The tree is kept for the next [`Search::set_position`].
    pub fn ponder(&mut self, stop: &AtomicBool) -> SearchResult {
        self.run(&Limits::unlimited(), stop, None, Duration::from_secs(3600))
    }

    /// The final move: ranking, or temperature sampling early in self-play.
    fn choose(&mut self, snap: &AnalysisSnapshot) -> Move {
        let Some(first) = snap.moves.first() else {
            // No child visited: the highest prior.
            let barred = self.root_pass_barred;
            return self
                .tree
                .edges_of(0)
                .iter()
                .find(|e| !(barred && e.mv == Move::Pass))
                .or(self.tree.edges_of(0).first())
                .map_or(Move::Pass, |e| e.mv);
        };
        let played = self.root.history().len().saturating_sub(1) as u32;
        let t = self.config.temperature_at(played, self.root.size()) as f64;
        if t > 0.0 {
            let mut weights: Vec<(Move, f64)> = if self.config.play_pruning {
                let mut w = select::play_weights(&self.tree, &self.puct());
                // The ranked choice (the LCB check's) weighs at least as
                // much as any other, as KataGo's LCB bonus makes it.
                let top = w.iter().map(|x| x.1).fold(0.0, f64::max);
                if let Some(x) = w.iter_mut().find(|x| x.0 == first.mv) {
                    x.1 = x.1.max(top);
                }
                w
            } else {
                snap.moves.iter().map(|m| (m.mv, m.visits as f64)).collect()
            };
            let top = weights.iter().map(|x| x.1).fold(0.0, f64::max);
            if top > 0.0 {
                for x in weights.iter_mut() {
                    x.1 = (x.1 / top).powf(1.0 / t);
                }
                let total: f64 = weights.iter().map(|x| x.1).sum();
                let mut x = self.rng.random::<f64>() * total;
                for &(mv, w) in &weights {
                    if x < w {
                        return mv;
                    }
                    x -= w;
                }
            }
        }
        first.mv
    }
}

/// Consecutive passes as the tree counts them at the root (a finished
/// game being continued counts as one pass).
fn root_passes(pos: &Position) -> u8 {
    pos.passes().min(1) as u8
}

/// Flattens the root priors for [`SearchConfig::wide_root_noise`] `w`:
/// `p^(1 / (1 + 4w))`, renormalised; re-sorts the root edges.
fn widen_root(tree: &mut Tree, w: f32) {
    let range = tree.edge_range(0);
    if range.is_empty() || !w.is_finite() {
        return;
    }
    let power = 1.0 / (1.0 + 4.0 * w.min(100.0) as f64);
    let edges = &mut tree.edges[range];
    let total: f64 = edges
        .iter()
        .map(|e| (e.prior.max(0.0) as f64).powf(power))
        .sum();
    if total <= 0.0 || !total.is_finite() {
        return;
    }
    for e in edges.iter_mut() {
        e.prior = ((e.prior.max(0.0) as f64).powf(power) / total) as f32;
    }
    edges.sort_by(|a, b| b.prior.total_cmp(&a.prior));
}

/// Sets the root edges' priors from `policy` (dense, pass last, for a
/// board of `size`), renormalised over the edges, and re-sorts them.
fn reprior_root(tree: &mut Tree, policy: &[f32], size: usize) {
    let range = tree.edge_range(0);
    let edges = &mut tree.edges[range];
    let prior = |mv| {
        policy
            .get(crate::eval::policy_index(mv, size))
            .map_or(0.0, |&p| p as f64)
    };
    let total: f64 = edges.iter().map(|e| prior(e.mv)).sum();
    if edges.is_empty() || total <= 0.0 || !total.is_finite() {
        return;
    }
    for e in edges.iter_mut() {
        e.prior = (prior(e.mv) / total) as f32;
    }
    edges.sort_by(|a, b| b.prior.total_cmp(&a.prior));
}

/// Mixes Dirichlet noise into the root priors and re-sorts the root edges.
fn add_root_noise(tree: &mut Tree, cfg: &SearchConfig, rng: &mut StdRng) {
    let range = tree.edge_range(0);
    if range.is_empty() {
        return;
    }
    let alpha = cfg.noise_alpha as f64 * 361.0 / range.len() as f64;
    let mut priors: Vec<f32> = tree.edges[range.clone()].iter().map(|e| e.prior).collect();
    noise::mix_dirichlet(&mut priors, alpha, cfg.noise_fraction as f64, rng);
    let edges = &mut tree.edges[range];
    for (e, p) in edges.iter_mut().zip(priors) {
        e.prior = p;
    }
    edges.sort_by(|a, b| b.prior.total_cmp(&a.prior));
}
