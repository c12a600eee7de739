//! Gumbel root search (Danihelka et al. 2022, "Policy improvement by
//! planning with Gumbel") for self-play: a move choice and a policy target
//! that improve on the net's policy even at 8–16 simulations per move.
//!
//! # Algorithm
//! [`Search::run_gumbel`] does, at the root:
//! 1. **Gumbel top-m.** Draw `g(a) ~ Gumbel(0, 1)` for every root move `a`
//!    (the legal moves of `legal_edges`, pass included) and keep the `m`
//!    moves with the largest `g(a) + logit(a)`, `logit = ln(prior)`: a
//!    sample without replacement from the prior ([`GumbelConfig::considered`],
//!    default 16, capped by the number of moves).
//! 2. **Sequential Halving** over the `n` simulations
//!    ([`GumbelConfig::simulations`]), the schedule of [`schedule`]: about
//!    `log2 m` phases; in each, every remaining candidate gets the same
//!    number of visits, `max(1, floor(n / (ceil(log2 m) * remaining)))`,
//!    handed out round-robin in rank order; after a phase the better half
//!    (rounded up, at least 2) is kept, ranked by
//!    `g(a) + logit(a) + sigma(q(a))`. The last phase (two candidates, or
//!    one when there is a single move) takes whatever budget is left, so
//!    exactly `n` simulations are made; when `n` is too small for a phase,
//!    its visits go to the best-ranked candidates first. The root child to
//!    descend into is forced by the schedule (a root plan in `gather.rs`);
//!    **below the root, the ordinary PUCT selection** of `select.rs`
//!    chooses (not the paper's deterministic non-root rule), with the
//!    search's FPU, virtual loss and batching.
//! 3. **The move** is the candidate with the most visits this run that has
//!    the largest `g + logit + sigma(q)` (the survivor of the halving).
//!    Because `g` is random, this samples from (roughly) the improved
//!    policy: no temperature or Dirichlet noise is needed or applied.
//! 4. **The policy target** ([`Search::gumbel_policy_target`]) is
//!    `softmax(logit(a) + sigma(completed_q(a)))` over every root move,
//!    where a visited move's completed Q is its mean value and an
//!    unvisited move's is the mixed value
//!    `v_mix = (v + N / sum_{b visited} p(b) * sum_{b visited} p(b) q(b)) / (1 + N)`
//!    (`v`: the net's own value of the root, `N`: the root children's
//!    visits, `p`: priors).
//!
//! `sigma(q) = (c_visit + max_b N(b)) * c_scale * q`, with the paper's
//! `c_visit = 50` and `c_scale = 1`, and `q` in [0, 1]. Values are the
//! search's utility (win − loss plus the small score term, `backup.rs`)
//! from the view of the root's player to move. [`QNorm::MinMax`] (the
//! default, as mctx) maps the completed Q of all root moves min-max onto
//! [0, 1]; [`QNorm::Bounds`] maps the utility's fixed range instead, which
//! keeps small value differences small. Note the scale this gives: with
//! min-max and `c_scale = 1`, the best and worst root moves differ by
//! `50 + max N` in the target's logits, so the target is nearly one-hot
//! on the best Q; mctx's own default is `c_scale = 0.1` (same `c_visit`,
//! min-max). Both are plain settings of [`GumbelConfig`].
//!
//! # Contract
//! - Blocks the caller; runs on the caller's thread only
//!   (`SearchConfig::threads` is ignored), gathering up to
//!   `SearchConfig::batch_size` leaves per evaluator call (leaves of
//!   different candidates in the same phase go in one batch).
//! - `n` counts the visits this run makes below the root; the root's own
//!   first evaluation (when the tree has none) is extra. A kept subtree
//!   (tree reuse) is used: its visits count in `max N(b)` and in Q, but
//!   the schedule hands out `n` new visits.
//! - Deterministic for one seed ([`GumbelConfig::seed`]) with a
//!   deterministic evaluator. Stops early, with a move, when `stop` is set.
//! - The root moves are the search's (`legal_edges`: legal, no filling of
//!   one's own eye, pass always there); the priors are the root edges'.
//!   `SearchConfig::noise`, `wide_root_noise`, `temperature` and the LCB
//!   check are not used (a root kept from an earlier noised [`Search::run`]
//!   keeps its noised priors).
//! - Nothing here panics; when only the pass is left, the pass is chosen
//!   and is the whole target.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::analysis;
use super::backup::Utility;
use super::batcher::Batcher;
use super::gather::{round_with, Ctx, RootPlan, Round};
use super::tree::{Tree, NONE};
use super::{Search, SearchResult};
use crate::rules::Move;

/// How Q values are brought to [0, 1] for `sigma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum QNorm {
    /// Min-max over the completed Q of all root moves (mctx's default).
    #[default]
    MinMax,
    /// The utility's fixed range, `[-(1 + w), 1 + w]` for score weight `w`.
    Bounds,
}

/// Settings of one Gumbel root search.
#[derive(Clone, Debug, PartialEq)]
pub struct GumbelConfig {
    /// Simulations (visits below the root) this run makes.
    pub simulations: u64,
    /// Moves sampled for Sequential Halving (`m`; capped by the moves).
    pub considered: usize,
    /// `sigma`'s visit offset (the paper's 50).
    pub c_visit: f32,
    /// `sigma`'s scale (the paper's 1.0).
    pub c_scale: f32,
    pub q_norm: QNorm,
    /// Seed of the Gumbel draw.
    pub seed: u64,
}

impl Default for GumbelConfig {
    fn default() -> GumbelConfig {
        GumbelConfig {
            simulations: 16,
            considered: 16,
            c_visit: 50.0,
            c_scale: 1.0,
            q_norm: QNorm::MinMax,
            seed: 0,
        }
    }
}

/// What a Gumbel run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct GumbelResult {
    /// The move to play (the halving's survivor).
    pub chosen: Move,
    /// The improved policy target (see the module docs): every root move,
    /// in prior order, weights summing to 1.
    pub policy: Vec<(Move, f32)>,
    /// The `m` sampled candidates, by `g + logit`, highest first.
    pub considered: Vec<Move>,
    /// The usual report of the tree after the run; `search.best` is
    /// `chosen`, `search.playouts` the simulations made.
    pub search: SearchResult,
}

/// One phase of Sequential Halving: the `keep` best-ranked candidates
/// share `visits` visits round-robin (candidate `i` of the ranking gets
/// `visits / keep`, plus one if `i < visits % keep`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Phase {
    pub keep: usize,
    pub visits: u64,
}

/// The Sequential Halving schedule for `n` simulations over `m`
/// candidates (module docs). The visits add up to exactly `n`; empty when
/// `n` or `m` is 0.
pub fn schedule(n: u64, m: usize) -> Vec<Phase> {
    let mut out = Vec::new();
    if n == 0 || m == 0 {
        return out;
    }
    let rounds = (m as u64).next_power_of_two().trailing_zeros().max(1) as u64;
    let mut keep = m;
    let mut left = n;
    while left > 0 {
        let visits = if keep <= 2 {
            left
        } else {
            let each = (n / (rounds * keep as u64)).max(1);
            (each * keep as u64).min(left)
        };
        out.push(Phase { keep, visits });
        left -= visits;
        if keep > 2 {
            keep = keep.div_ceil(2).max(2);
        }
    }
    out
}

/// A Gumbel(0, 1) sample.
fn gumbel(rng: &mut StdRng) -> f64 {
    let u = rng.random::<f64>().clamp(1e-300, 1.0 - 1e-16);
    -(-u.ln()).ln()
}

/// The root's per-move inputs to `sigma`, in edge order.
struct RootView {
    moves: Vec<Move>,
    logits: Vec<f64>,
    /// Completed Q, normalised to [0, 1].
    q: Vec<f64>,
    /// Visits per move (all runs).
    visits: Vec<u64>,
    max_visits: f64,
}

impl RootView {
    fn of(tree: &Tree, utility: &Utility, norm: QNorm) -> RootView {
        let edges = if tree.root_ready() {
            tree.edges_of(0)
        } else {
            &[]
        };
        let mut moves = Vec::with_capacity(edges.len());
        let mut logits = Vec::with_capacity(edges.len());
        let mut raw: Vec<Option<f64>> = Vec::with_capacity(edges.len());
        let mut visits = Vec::with_capacity(edges.len());
        let (mut n_sum, mut p_sum, mut pq_sum, mut q_sum, mut seen) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for e in edges {
            let prior = if e.prior.is_finite() {
                e.prior.max(0.0) as f64
            } else {
                0.0
            };
            moves.push(e.mv);
            logits.push(prior.max(1e-30).ln());
            let (n, q) = if e.child == NONE {
                (0, None)
            } else {
                let c = &tree.nodes[e.child as usize];
                // The child's sums are from the view of the player who
                // moved into it: the root's player to move.
                let q = c.util();
                (
                    c.visits as u64,
                    (c.visits > 0 && q.is_finite()).then_some(q),
                )
            };
            if let Some(q) = q {
                n_sum += n as f64;
                p_sum += prior;
                pq_sum += prior * q;
                q_sum += q;
                seen += 1.0;
            }
            visits.push(n);
            raw.push(q);
        }
        let root = tree.root();
        let v_net = utility.of(root.own_wl as f64, root.own_score as f64, true);
        let v_net = if v_net.is_finite() { v_net } else { 0.0 };
        let v_mix = if seen == 0.0 {
            v_net
        } else {
            // Prior-weighted mean of the visited Q (plain mean when the
            // visited moves have no prior mass).
            let visited_q = if p_sum > 1e-12 {
                pq_sum / p_sum
            } else {
                q_sum / seen
            };
            (v_net + n_sum * visited_q) / (1.0 + n_sum)
        };
        let completed: Vec<f64> = raw.iter().map(|q| q.unwrap_or(v_mix)).collect();
        let q = match norm {
            QNorm::MinMax => {
                let lo = completed.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = completed.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let span = (hi - lo).max(1e-8);
                completed.iter().map(|&c| (c - lo) / span).collect()
            }
            QNorm::Bounds => {
                let b = 1.0 + utility.weight.abs();
                completed
                    .iter()
                    .map(|&c| ((c + b) / (2.0 * b)).clamp(0.0, 1.0))
                    .collect()
            }
        };
        let max_visits = visits.iter().copied().max().unwrap_or(0) as f64;
        RootView {
            moves,
            logits,
            q,
            visits,
            max_visits,
        }
    }

    /// `sigma(q)` of move `i`.
    fn sigma(&self, i: usize, cfg: &GumbelConfig) -> f64 {
        let c_visit = finite_or(cfg.c_visit, 50.0);
        let c_scale = finite_or(cfg.c_scale, 1.0);
        (c_visit + self.max_visits) * c_scale * self.q[i]
    }

    /// The improved policy: softmax(logit + sigma(completed Q)).
    fn improved(&self, cfg: &GumbelConfig) -> Vec<(Move, f32)> {
        let z: Vec<f64> = (0..self.moves.len())
            .map(|i| self.logits[i] + self.sigma(i, cfg))
            .collect();
        let top = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let w: Vec<f64> = z.iter().map(|&x| (x - top).exp()).collect();
        let total: f64 = w.iter().sum();
        if !(total > 0.0 && total.is_finite()) {
            let u = 1.0 / self.moves.len().max(1) as f32;
            return self.moves.iter().map(|&m| (m, u)).collect();
        }
        self.moves
            .iter()
            .zip(&w)
            .map(|(&m, &x)| (m, (x / total) as f32))
            .collect()
    }
}

fn finite_or(x: f32, default: f64) -> f64 {
    if x.is_finite() {
        x as f64
    } else {
        default
    }
}

/// Sorts candidate edge positions by `g + logit + sigma(q)`, best first
/// (ties: the earlier in `cands`, which starts in `g + logit` order).
fn rank(cands: &mut [usize], g: &[f64], view: &RootView, cfg: &GumbelConfig) {
    let score = |i: usize| g[i] + view.logits[i] + view.sigma(i, cfg);
    cands.sort_by(|&a, &b| score(b).total_cmp(&score(a)));
}

impl Search {
    /// Runs a Gumbel root search (module docs) from the current position
    /// and returns the move, the improved policy target and the usual
    /// report. Blocks; see the module docs for the contract.
    pub fn run_gumbel(&mut self, cfg: &GumbelConfig, stop: &AtomicBool) -> GumbelResult {
        let start = Instant::now();
        let utility = self.search_utility(&self.tree);
        let mut tree = std::mem::replace(&mut self.tree, Tree::new(0, 1));
        self.meter.fade();
        let (mut playouts, mut batches, mut evaluated) = (0u64, 0u64, 0u64);
        if !tree.root_ready() {
            let (t, _, b, e) = self.spend(tree, Vec::new(), &utility, stop);
            tree = t;
            (batches, evaluated) = (b, e);
        }

        // The Gumbel draw and the top-m candidates (positions in the root's
        // edge list).
        let view = RootView::of(&tree, &utility, cfg.q_norm);
        let n_moves = view.moves.len();
        let mut rng = StdRng::seed_from_u64(cfg.seed);
        let g: Vec<f64> = (0..n_moves).map(|_| gumbel(&mut rng)).collect();
        let mut cands: Vec<usize> = (0..n_moves).collect();
        cands.sort_by(|&a, &b| (g[b] + view.logits[b]).total_cmp(&(g[a] + view.logits[a])));
        cands.truncate(cfg.considered.clamp(1, n_moves.max(1)));
        let considered: Vec<Move> = cands.iter().map(|&i| view.moves[i]).collect();
        let before = view.visits;

        // Sequential Halving.
        let first_edge = tree.edge_range(0).start;
        for phase in schedule(cfg.simulations, cands.len()) {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            rank(
                &mut cands,
                &g,
                &RootView::of(&tree, &utility, cfg.q_norm),
                cfg,
            );
            cands.truncate(phase.keep);
            let plan: Vec<usize> = (0..phase.visits as usize)
                .map(|j| first_edge + cands[j % cands.len()])
                .collect();
            let (t, made, b, e) = self.spend(tree, plan, &utility, stop);
            tree = t;
            playouts += made;
            batches += b;
            evaluated += e;
        }

        // The survivor: the most visited this run among the last phase's
        // candidates, then the best score.
        let view = RootView::of(&tree, &utility, cfg.q_norm);
        let this_run = |i: usize| view.visits[i].saturating_sub(before[i]);
        let most = cands.iter().map(|&i| this_run(i)).max().unwrap_or(0);
        cands.retain(|&i| this_run(i) == most);
        rank(&mut cands, &g, &view, cfg);
        let chosen = cands.first().map_or(Move::Pass, |&i| view.moves[i]);
        let policy = view.improved(cfg);
        self.tree = tree;

        let snap = analysis::snapshot(&self.tree, &self.ranking(), start.elapsed());
        let search = self.result(snap, chosen, playouts, (batches, evaluated), start);
        GumbelResult {
            chosen,
            policy,
            considered,
            search,
        }
    }

    /// The improved policy target of the current tree (module docs), as
    /// (move, weight) pairs over every root move in prior order, summing
    /// to 1; empty before the root is evaluated. [`GumbelResult::policy`]
    /// is this, right after the run. Uses `c_visit`, `c_scale` and
    /// `q_norm` of `cfg`.
    pub fn gumbel_policy_target(&self, cfg: &GumbelConfig) -> Vec<(Move, f32)> {
        RootView::of(&self.tree, &self.search_utility(&self.tree), cfg.q_norm).improved(cfg)
    }

    /// Makes the visits of `plan` (root edge indices, in order) on the
    /// caller's thread; with an empty plan, the root's first visit only.
    /// Returns the tree, the visits made, and the evaluator calls and
    /// positions evaluated.
    fn spend(
        &self,
        tree: Tree,
        plan: Vec<usize>,
        utility: &Utility,
        stop: &AtomicBool,
    ) -> (Tree, u64, u64, u64) {
        let cfg = &self.config;
        let batch = cfg.batch_size.clamp(1, self.evaluator.max_batch().max(1));
        let first_only = plan.is_empty();
        let ctx = Ctx {
            tree: Mutex::new(tree),
            batcher: Batcher::new(&*self.evaluator, &self.meter, batch, cfg.batch_timeout, 1),
            puct: self.puct(),
            utility: *utility,
            root: &self.root,
            recent: &self.recent,
            root_prev: &self.root_prev,
            handicap_bonus: self.handicap_bonus,
            optimism: (cfg.root_policy_optimism, cfg.policy_optimism),
            random_symmetry: cfg.random_symmetry,
            leaves_per_round: batch,
            stop,
            deadline: None,
            max_visits: None,
            max_playouts: None,
            started: AtomicU64::new(0),
            early_stop: false,
            start: Instant::now(),
            pending: AtomicUsize::new(0),
            root_plan: Some(RootPlan::new(plan)),
        };
        if first_only {
            round_with(&ctx, true);
        } else {
            // One thread: nothing is in flight when a round starts, so a
            // round without progress means the plan is spent.
            while !ctx.halted() && round_with(&ctx, false) == Round::Progress {}
        }
        ctx.batcher.leave();
        let (batches, evaluated) = ctx.batcher.stats();
        let made = ctx.started.into_inner();
        let tree = ctx.tree.into_inner().unwrap_or_else(|e| e.into_inner());
        (tree, made, batches, evaluated)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::eval::fake::HeuristicEvaluator;
    use crate::eval::{policy_index, EvalInput, EvalOutput, Evaluator};
    use crate::rules::{Color, Point, Position, Ruleset};
    use crate::search::testing::{AreaEvaluator, FnEvaluator, ZeroEvaluator};
    use crate::search::tree::Edge;
    use crate::search::SearchConfig;

    fn search(eval: Arc<dyn Evaluator>, pos: Position) -> Search {
        let mut s = Search::new(
            eval,
            SearchConfig {
                batch_size: 8,
                ..SearchConfig::default()
            },
        );
        s.set_position(pos, Vec::new());
        s
    }

    fn empty(size: usize) -> Position {
        Position::new(size, Ruleset::chinese()).unwrap()
    }

    fn gumbel(sims: u64, m: usize, seed: u64) -> GumbelConfig {
        GumbelConfig {
            simulations: sims,
            considered: m,
            seed,
            ..GumbelConfig::default()
        }
    }

    fn go(s: &mut Search, cfg: &GumbelConfig) -> GumbelResult {
        s.run_gumbel(cfg, &AtomicBool::new(false))
    }

    fn weight(policy: &[(Move, f32)], mv: Move) -> f32 {
        policy.iter().find(|p| p.0 == mv).map_or(0.0, |p| p.1)
    }

    fn assert_distribution(policy: &[(Move, f32)], pos: &Position) {
        assert!(!policy.is_empty());
        let sum: f32 = policy.iter().map(|p| p.1).sum();
        assert!((sum - 1.0).abs() < 1e-4, "sum {sum}");
        for &(mv, w) in policy {
            assert!(w.is_finite() && w >= 0.0, "{mv:?}: {w}");
            assert!(pos.is_legal(mv), "{mv:?} is not legal");
        }
        let mut moves: Vec<Move> = policy.iter().map(|p| p.0).collect();
        moves.sort_by_key(|m| format!("{m:?}"));
        moves.dedup();
        assert_eq!(moves.len(), policy.len(), "a move appears twice");
    }

    #[test]
    fn schedule_spends_exactly_the_budget_in_halving_phases() {
        let p = |keep, visits| Phase { keep, visits };
        assert_eq!(
            schedule(64, 16),
            vec![p(16, 16), p(8, 16), p(4, 16), p(2, 16)]
        );
        assert_eq!(
            schedule(200, 16),
            vec![p(16, 48), p(8, 48), p(4, 48), p(2, 56)]
        );
        // Fewer simulations than candidates: one partial phase.
        assert_eq!(schedule(8, 16), vec![p(16, 8)]);
        assert_eq!(schedule(16, 10), vec![p(10, 10), p(5, 5), p(3, 1)]);
        assert_eq!(schedule(5, 1), vec![p(1, 5)]);
        assert!(schedule(0, 16).is_empty() && schedule(16, 0).is_empty());
        for n in 0..300u64 {
            for m in 1..=40usize {
                let s = schedule(n, m);
                assert_eq!(s.iter().map(|p| p.visits).sum::<u64>(), n, "{n} {m}");
                if n == 0 {
                    continue;
                }
                assert_eq!(s[0].keep, m);
                for w in s.windows(2) {
                    // Every phase but the last gives each candidate the
                    // same, positive share; then the better half stays.
                    assert!(w[0].visits % w[0].keep as u64 == 0 && w[0].visits > 0);
                    assert_eq!(w[1].keep, w[0].keep.div_ceil(2).max(2));
                }
                let halvings = (m as f64).log2().ceil() as usize;
                assert!(s.len() <= halvings.max(1), "{n} {m}: {s:?}");
            }
        }
    }

    #[test]
    fn visits_follow_the_schedule() {
        // Equal values: the Gumbel draw alone decides who survives.
        for seed in 0..4 {
            let mut s = search(Arc::new(ZeroEvaluator), empty(9));
            let r = go(&mut s, &gumbel(64, 16, seed));
            assert_eq!(r.search.playouts, 64);
            assert_eq!(r.search.visits, 65, "the root's own evaluation is extra");
            assert_eq!(r.considered.len(), 16);
            let mut visits: Vec<u64> = r.search.moves.iter().map(|m| m.visits).collect();
            visits.sort_unstable_by(|a, b| b.cmp(a));
            // 16 x 1, then 8 x +2, 4 x +4, 2 x +8.
            let mut want = vec![15, 15, 7, 7, 3, 3, 3, 3];
            want.extend([1; 8]);
            assert_eq!(visits, want, "seed {seed}");
            assert!(r.search.moves.iter().all(|m| r.considered.contains(&m.mv)));
            assert_eq!(s.child_visits(r.chosen), 15);
            assert_eq!(r.search.best, r.chosen);
        }
    }

    /// 3x3: the centre has a poor prior but wins for whoever holds it.
    fn centre_evaluator() -> Arc<dyn Evaluator> {
        Arc::new(FnEvaluator(|i: &EvalInput| {
            let size = i.position.size();
            let centre = Point::new(1, 1);
            let mut policy = vec![0.95 / (size * size) as f32; size * size + 1];
            policy[policy_index(Move::Place(centre), size)] = 0.05;
            let me = i.position.to_move();
            let wl = match i.position.board().get(centre) {
                Some(c) if c == me => 0.9,
                Some(_) => -0.9,
                None => 0.0,
            };
            EvalOutput {
                shortterm_error: None,
                policy,
                value: [(1.0 + wl) / 2.0, (1.0 - wl) / 2.0, 0.0],
                score_lead: 0.0,
                ownership: None,
            }
        }))
    }

    #[test]
    fn a_clearly_better_move_is_chosen_and_gains_policy_mass() {
        let centre = Move::Place(Point::new(1, 1));
        let mut visited_at_8 = 0;
        for norm in [QNorm::MinMax, QNorm::Bounds] {
            for sims in [8u64, 12, 16] {
                for seed in 0..8 {
                    let mut s = search(centre_evaluator(), empty(3));
                    let cfg = GumbelConfig {
                        q_norm: norm,
                        ..gumbel(sims, 16, seed)
                    };
                    let r = go(&mut s, &cfg);
                    // All 10 moves are candidates (m = 16 is capped).
                    assert_eq!(r.considered.len(), 10);
                    assert_eq!(r.search.playouts, sims);
                    let prior = weight(&s.root_priors(), centre);
                    let info = r.search.moves.iter().find(|m| m.mv == centre);
                    let Some(info) = info else {
                        // Only at 8 simulations can the centre go unvisited.
                        assert_eq!(sims, 8);
                        continue;
                    };
                    if sims == 8 {
                        visited_at_8 += 1;
                    }
                    // Root player's view: holding the centre wins.
                    assert!(info.winrate > 0.9, "{}", info.winrate);
                    assert_eq!(r.chosen, centre, "{norm:?} {sims} {seed}");
                    let improved = weight(&r.policy, centre);
                    assert!(improved > prior, "{improved} <= {prior}");
                    assert!(improved > 0.5, "{norm:?} {sims} {seed}: {improved}");
                    assert_distribution(&r.policy, s.position());
                }
            }
        }
        assert!(visited_at_8 > 0);
    }

    #[test]
    fn the_improved_policy_is_a_distribution_over_the_legal_moves() {
        let mut pos = empty(9);
        for (c, x, y) in [
            (Color::Black, 2, 2),
            (Color::White, 6, 6),
            (Color::Black, 2, 6),
        ] {
            pos.play(c, Move::Place(Point::new(x, y))).unwrap();
        }
        let mut s = search(Arc::new(HeuristicEvaluator::new(3)), pos.clone());
        let r = go(&mut s, &gumbel(16, 16, 7));
        assert_distribution(&r.policy, &pos);
        let legal: Vec<Move> = s.root_priors().iter().map(|p| p.0).collect();
        assert_eq!(r.policy.len(), legal.len());
        assert!(legal.iter().all(|m| r.policy.iter().any(|p| p.0 == *m)));
        assert_eq!(s.gumbel_policy_target(&gumbel(16, 16, 7)), r.policy);
        assert!(pos.is_legal(r.chosen));
    }

    #[test]
    fn the_same_seed_gives_the_same_search() {
        let run = |seed| {
            let mut s = search(Arc::new(HeuristicEvaluator::new(1)), empty(9));
            go(&mut s, &gumbel(16, 16, seed))
        };
        let (a, b) = (run(5), run(5));
        assert_eq!(a.chosen, b.chosen);
        assert_eq!(a.policy, b.policy);
        assert_eq!(a.considered, b.considered);
        assert_eq!(a.search.moves, b.search.moves);
        let others: Vec<Vec<Move>> = (6..10).map(|s| run(s).considered).collect();
        assert!(others.iter().any(|c| *c != a.considered));
    }

    /// 3x3, Black everywhere but two eyes: neither side has a legal point.
    fn only_pass(to_move: Color) -> Position {
        let mut pos = empty(3);
        for y in 0..3 {
            for x in 0..3 {
                if (x, y) != (0, 0) && (x, y) != (2, 2) {
                    pos.setup(Some(Color::Black), Point::new(x, y)).unwrap();
                }
            }
        }
        pos.set_to_move(to_move);
        pos
    }

    #[test]
    fn only_the_pass_or_one_point_works() {
        for c in [Color::Black, Color::White] {
            for sims in [0u64, 1, 8] {
                let mut s = search(Arc::new(AreaEvaluator), only_pass(c));
                let r = go(&mut s, &gumbel(sims, 16, 1));
                assert_eq!(r.chosen, Move::Pass);
                assert_eq!(r.considered, vec![Move::Pass]);
                assert_eq!(r.policy, vec![(Move::Pass, 1.0)]);
                assert_eq!(r.search.playouts, sims);
            }
        }
        // One point and the pass, Black to move (White's stone at A1 has
        // one liberty): capturing it wins.
        let mut pos = only_pass(Color::Black);
        pos.setup(None, Point::new(1, 0)).unwrap();
        pos.setup(Some(Color::White), Point::new(0, 0)).unwrap();
        pos.set_to_move(Color::Black);
        let mut s = search(Arc::new(AreaEvaluator), pos.clone());
        let r = go(&mut s, &gumbel(8, 16, 2));
        assert_eq!(r.considered.len(), 2);
        assert_eq!(r.search.playouts, 8);
        assert_distribution(&r.policy, &pos);
        assert!(pos.is_legal(r.chosen));
    }

    #[test]
    fn fewer_simulations_than_candidates() {
        for sims in [0u64, 1, 3] {
            let mut s = search(Arc::new(ZeroEvaluator), empty(9));
            let r = go(&mut s, &gumbel(sims, 16, 4));
            assert_eq!(r.search.playouts, sims);
            assert_eq!(r.search.moves.len(), sims as usize);
            // The first candidates by g + logit get the visits.
            for m in &r.search.moves {
                assert_eq!(m.visits, 1);
                assert!(r.considered[..sims as usize].contains(&m.mv));
            }
            if sims == 0 {
                assert_eq!(r.chosen, r.considered[0]);
            } else {
                assert!(r.search.moves.iter().any(|m| m.mv == r.chosen));
            }
            assert_distribution(&r.policy, s.position());
        }
    }

    #[test]
    fn a_terminal_pass_child_counts_its_exact_result() {
        // White passed; Black's wall owns the 3x3 board (9 > 7.5 komi), so
        // Black's pass ends the game won.
        let mut pos = empty(3);
        for y in 0..3 {
            pos.setup(Some(Color::Black), Point::new(1, y)).unwrap();
        }
        pos.set_to_move(Color::White);
        pos.play(Color::White, Move::Pass).unwrap();
        let mut s = Search::new(Arc::new(AreaEvaluator), SearchConfig::default());
        s.set_position(pos.clone(), vec![(Color::White, Move::Pass)]);
        let r = go(&mut s, &gumbel(32, 16, 3));
        assert_eq!(r.search.playouts, 32);
        let pass = r.search.moves.iter().find(|m| m.mv == Move::Pass).unwrap();
        assert_eq!(pass.winrate, 1.0);
        assert_eq!(r.chosen, Move::Pass);
        assert_distribution(&r.policy, &pos);
    }

    #[test]
    fn a_kept_tree_gets_the_full_budget_again() {
        let mut s = search(Arc::new(HeuristicEvaluator::new(2)), empty(9));
        let r = go(&mut s, &gumbel(32, 8, 1));
        let mut pos = s.position().clone();
        pos.play(Color::Black, r.chosen).unwrap();
        assert!(s.set_position(pos, vec![(Color::Black, r.chosen)]));
        let before = s.root_visits();
        let r2 = go(&mut s, &gumbel(16, 8, 2));
        assert_eq!(r2.search.playouts, 16);
        assert_eq!(s.root_visits(), before + 16);
    }

    #[test]
    fn a_stopped_run_still_has_a_move() {
        let mut s = search(Arc::new(HeuristicEvaluator::new(2)), empty(9));
        let r = s.run_gumbel(&gumbel(64, 16, 1), &AtomicBool::new(true));
        assert_eq!(r.search.playouts, 0);
        assert!(s.position().is_legal(r.chosen));
        assert_eq!(r.chosen, r.considered[0]);
        assert_distribution(&r.policy, s.position());
    }

    #[test]
    fn completed_q_mixes_the_net_value_into_unvisited_moves() {
        let mut t = Tree::new(0, 10);
        let edge = |x, prior| Edge {
            mv: Move::Place(Point::new(x, 0)),
            prior,
            child: NONE,
        };
        t.attach(0, &[edge(0, 0.5), edge(1, 0.3), edge(2, 0.2)]);
        t.nodes[0].own_wl = 0.2;
        t.nodes[0].visits = 3;
        let c = t.add_child(0, 0).unwrap();
        t.nodes[c as usize].visits = 2;
        t.nodes[c as usize].weight = 2.0;
        t.nodes[c as usize].util_sum = 1.2;
        let u = Utility::fixed(0.0, 1.0);
        // v_mix = (0.2 + 2 * 0.6) / 3; visited Q = 0.6.
        let v_mix = 1.4 / 3.0;
        let b = RootView::of(&t, &u, QNorm::Bounds);
        let want = [0.8, (v_mix + 1.0) / 2.0, (v_mix + 1.0) / 2.0];
        for (q, w) in b.q.iter().zip(want) {
            assert!((q - w).abs() < 1e-9, "{q} {w}");
        }
        assert_eq!(b.visits, vec![2, 0, 0]);
        let mm = RootView::of(&t, &u, QNorm::MinMax);
        assert_eq!(mm.q, vec![1.0, 0.0, 0.0]);
        // softmax(ln p + (50 + 2) * q).
        let cfg = GumbelConfig::default();
        let pol = mm.improved(&cfg);
        let z = [0.5f64 * 52f64.exp(), 0.3, 0.2];
        let total: f64 = z.iter().sum();
        for ((_, w), z) in pol.iter().zip(z) {
            assert!((*w as f64 - z / total).abs() < 1e-6);
        }
    }
}
