//! Child selection: PUCT with a growing exploration constant, first-play
//! urgency and virtual loss.
//!
//! For a node with `N` visits (in-flight ones included) and a child with
//! prior `P`, `n` visits and mean utility `Q` (view of the player to move
//! at the node):
//!
//! ```text
//! score = Q + c(N) * P * sqrt(N) / (1 + n)
//! c(N)  = c_init + c_log * ln((N + c_base) / c_base)
//! ```
//!
//! With `stdev_scale = s > 0` (KataGo's `cpuctUtilityStdevScale`), the
//! exploration term is multiplied by `1 + s * (σ / σ0 - 1)`, where σ is
//! the spread of the node's backed-up win − loss values, shrunk towards a
//! prior σ0 = 0.4 worth two visits: a node whose results disagree
//! explores more, one whose results agree exploits more.
//!
//! With `child_weight_explore` (KataGo's form), `N` in `c(N) * sqrt(N)` is
//! the sum of the children's backup weights plus 0.01 (the node's own
//! evaluation and visits still in flight do not count) and `n` is the
//! child's weight (plus its virtual losses): a node explores less while it
//! has few visits, so a small search goes deeper. Without value weighting
//! or uncertainty weights a weight is a visit.
//!
//! An unvisited child gets `Q = Q(node) - reduction * sqrt(visited prior
//! mass)` (first-play urgency, FPU; the root has its own reduction). With
//! `fpu_parent_pow = p > 0` (KataGo's `fpuParentWeightByVisitedPolicy`,
//! `p = 2` in its GTP engine) `Q(node)` there is `w * Q(node) + (1 - w) *
//! U(node's own evaluation)` with `w = (visited prior mass)^p`: while
//! little of the policy has been tried, the node's own evaluation sets the
//! bar for an untried move, not the mean of the few tried ones. Each
//! in-flight visit of a child counts as `virtual_loss` visits that lost, so
//! parallel gatherers spread out. Ties go to the higher prior (edges are
//! sorted by prior), so selection is deterministic.
//!
//! # Forced playouts and policy-target pruning (self-play)
//! With `forced_k = Some(k)` (KataGo's forced playouts, `k = 2` in the
//! paper), at the root only, a child that has received at least one visit
//! and has fewer visits (in-flight ones included) than
//!
//! ```text
//! n_forced(c) = sqrt(k * P(c) * sum of the root children's visits)
//! ```
//!
//! is selected first (its score counts as +infinity; among several, the
//! higher prior). `P(c)` is the root prior after noise. [`pruned_target`]
//! then takes those visits back out of the policy target: every child but
//! the most visited `c*` loses up to `n_forced(c)` visits, as long as its
//! PUCT score with the reduced count stays below `c*`'s; children left
//! with at most one visit are dropped.
//!
//! Pure functions over a locked [`Tree`]; selection does not allocate.

use super::tree::{Tree, NONE};
use crate::rules::Move;

/// The selection parameters (a copy of the relevant config fields).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Puct {
    pub c_init: f64,
    pub c_log: f64,
    pub c_base: f64,
    pub fpu_reduction: f64,
    pub root_fpu_reduction: f64,
    pub virtual_loss: f64,
    /// Forced-playout constant at the root (`None`: off).
    pub forced_k: Option<f64>,
    /// Scaling of exploration by the node's value spread (0: off).
    pub stdev_scale: f64,
    /// The FPU's parent value leans on the node's own evaluation by the
    /// visited prior mass to this power (0: off; module docs).
    pub fpu_parent_pow: f64,
    /// The root's pass is never selected while the root has another move
    /// ([`super::Search::bar_root_pass`]).
    pub root_pass_barred: bool,
    /// Scale exploration by the children's summed weight instead of the
    /// node's visits, and count a child's weight instead of its visits in
    /// the denominator (KataGo's PUCT; module docs).
    pub child_weight_explore: bool,
}

/// Added to the children's summed weight under `child_weight_explore`, so
/// that exploration is not zero before any child has a visit.
const CHILD_WEIGHT_OFFSET: f64 = 0.01;

/// The prior spread of backed-up values and its weight in visits.
const STDEV_PRIOR: f64 = 0.4;
const STDEV_PRIOR_WEIGHT: f64 = 2.0;

/// `1 + s * (σ / σ0 - 1)` for a node with `visits` values summing to
/// `sum` with squares summing to `sq_sum` (see the module docs); at least
/// 0.05, so exploration never vanishes.
#[inline]
pub(crate) fn stdev_factor(s: f64, weight: f64, sum: f64, sq_sum: f64) -> f64 {
    if s == 0.0 {
        return 1.0;
    }
    let n = weight;
    let sigma = if n <= 1.0 {
        STDEV_PRIOR
    } else {
        let mean = sum / n;
        let mean_sq = mean * mean;
        let sq_avg = (sq_sum / n).max(mean_sq);
        let var = ((mean_sq + STDEV_PRIOR * STDEV_PRIOR) * STDEV_PRIOR_WEIGHT + sq_avg * n)
            / (STDEV_PRIOR_WEIGHT + n - 1.0)
            - mean_sq;
        var.max(0.0).sqrt()
    };
    (1.0 + s * (sigma / STDEV_PRIOR - 1.0)).max(0.05)
}

/// KataGo's forced playouts for a root child with prior `prior` when the
/// root's children have `total` visits in all.
#[inline]
pub(crate) fn forced_playouts(k: f64, prior: f64, total: f64) -> f64 {
    (k * prior.max(0.0) * total.max(0.0)).sqrt()
}

impl Puct {
    /// The exploration constant at `n` parent visits.
    #[inline]
    pub fn c(&self, n: f64) -> f64 {
        self.c_init + self.c_log * ((n + self.c_base) / self.c_base).ln()
    }
}

/// The index (into `tree.edges`) of the edge to follow from the expanded
/// `node`. With `allow_new == false` (tree full) only edges with a child
/// node qualify; `None` when no edge qualifies.
pub(crate) fn select_edge(tree: &Tree, node: u32, puct: &Puct, allow_new: bool) -> Option<usize> {
    let n = &tree.nodes[node as usize];
    let range = tree.edge_range(node);
    let parent_n = n.visits as f64 + puct.virtual_loss * n.in_flight as f64;
    // The node's value from the view of its player to move.
    let parent_q = if n.visits > 0 { -n.util() } else { 0.0 };
    let mut visited_mass = 0.0f64;
    let mut child_visits = 0.0f64;
    let mut child_weight = 0.0f64;
    for e in &tree.edges[range.clone()] {
        if e.child != NONE {
            let c = &tree.nodes[e.child as usize];
            if c.visits + c.in_flight > 0 {
                visited_mass += e.prior as f64;
            }
            child_visits += c.visits as f64;
            child_weight += c.weight.max(0.0);
        }
    }
    let forced_k = if node == 0 { puct.forced_k } else { None };
    let reduction = if node == 0 {
        puct.root_fpu_reduction
    } else {
        puct.fpu_reduction
    };
    let fpu_base = if puct.fpu_parent_pow > 0.0 && n.visits > 0 {
        let w = visited_mass.powf(puct.fpu_parent_pow).min(1.0);
        w * parent_q + (1.0 - w) * n.own_util as f64
    } else {
        parent_q
    };
    let fpu = fpu_base - reduction * visited_mass.sqrt();
    let scale = if puct.child_weight_explore {
        puct.c(child_weight) * (child_weight + CHILD_WEIGHT_OFFSET).sqrt()
    } else {
        puct.c(parent_n) * parent_n.max(1.0).sqrt()
    };
    let explore = scale * stdev_factor(puct.stdev_scale, n.weight, n.wl_sum, n.wl_sq_sum);
    let mut best: Option<(usize, f64)> = None;
    let mut seen_unvisited = false;
    let skip_pass = node == 0 && puct.root_pass_barred && n.n_edges > 1;
    for i in range {
        let e = &tree.edges[i];
        if skip_pass && e.mv == Move::Pass {
            continue;
        }
        let (q, visits) = if e.child != NONE {
            let c = &tree.nodes[e.child as usize];
            if let Some(k) = forced_k {
                let n = (c.visits + c.in_flight) as f64;
                if c.visits > 0 && n < forced_playouts(k, e.prior as f64, child_visits) {
                    // Forced: the first such child (highest prior) wins.
                    if best.is_none_or(|(_, b)| b < f64::INFINITY) {
                        best = Some((i, f64::INFINITY));
                    }
                    continue;
                }
            }
            let vl = puct.virtual_loss * c.in_flight as f64;
            let nv = c.visits as f64 + vl;
            if nv > 0.0 {
                let q = (c.util_sum - vl) / (c.weight + vl).max(1e-9);
                let counted = if puct.child_weight_explore {
                    c.weight.max(0.0) + vl
                } else {
                    nv
                };
                (q, counted)
            } else {
                (fpu, 0.0)
            }
        } else {
            if !allow_new {
                continue;
            }
            // Edges are sorted by prior: among children without a node only
            // the first can win.
            if seen_unvisited {
                continue;
            }
            seen_unvisited = true;
            (fpu, 0.0)
        };
        let score = q + explore * e.prior as f64 / (1.0 + visits);
        if best.is_none_or(|(_, b)| score > b) {
            best = Some((i, score));
        }
    }
    best.map(|(i, _)| i)
}

/// The root's visited children, with the retrospective PUCT floor that
/// both [`pruned_target`] and [`play_weights`] prune by.
struct RootKids {
    /// Move, prior, visits, mean utility (the root player's view).
    kids: Vec<(Move, f64, f64, f64)>,
    /// The most visited child (ties: the higher prior, the earlier edge).
    best: usize,
    /// `c(N) * sqrt(N)` at the root.
    explore: f64,
    /// The best child's PUCT score.
    best_score: f64,
}

impl RootKids {
    fn of(tree: &Tree, puct: &Puct) -> Option<RootKids> {
        let kids: Vec<(Move, f64, f64, f64)> = tree
            .visited_children(0)
            .map(|(e, c)| (e.mv, e.prior as f64, c.visits as f64, c.util()))
            .collect();
        let best = kids
            .iter()
            .enumerate()
            .fold(None, |b: Option<(usize, f64)>, (i, k)| match b {
                Some((_, n)) if n >= k.2 => b,
                _ => Some((i, k.2)),
            })?
            .0;
        let parent_n = tree.root().visits as f64;
        let explore = puct.c(parent_n) * parent_n.max(1.0).sqrt();
        let (_, bp, bn, bq) = kids[best];
        let best_score = bq + explore * bp / (1.0 + bn);
        Some(RootKids {
            kids,
            best,
            explore,
            best_score,
        })
    }

    /// The visits below which child `i`'s PUCT score would reach the best
    /// child's (`score(m) < best_score <=> m > floor`); `None` when its
    /// value alone reaches it.
    fn floor(&self, i: usize) -> Option<f64> {
        let (_, prior, _, q) = self.kids[i];
        let gap = self.best_score - q;
        (gap > 0.0).then(|| self.explore * prior / gap - 1.0)
    }
}

/// The root's policy target: the visited children's visits, pruned as the
/// module docs describe when `forced_k` is `Some(k)` (as given to the
/// search), and normalised to sum to 1. Moves in edge order (highest prior
/// first); empty when no child has a visit. Call it between runs (no
/// visit in flight).
pub(crate) fn pruned_target(tree: &Tree, puct: &Puct, forced_k: Option<f64>) -> Vec<(Move, f32)> {
    let Some(r) = RootKids::of(tree, puct) else {
        return Vec::new();
    };
    let mut weights: Vec<f64> = r.kids.iter().map(|k| k.2).collect();
    if let Some(k) = forced_k {
        let total: f64 = r.kids.iter().map(|k| k.2).sum();
        for (i, &(_, prior, n, _)) in r.kids.iter().enumerate() {
            if i == r.best {
                continue;
            }
            let reduced = r
                .floor(i)
                .map_or(n, |f| (n - forced_playouts(k, prior, total)).max(f).min(n));
            weights[i] = if reduced <= 1.0 { 0.0 } else { reduced };
        }
    }
    let sum: f64 = weights.iter().sum();
    r.kids
        .iter()
        .zip(&weights)
        .filter(|(_, &w)| w > 0.0)
        .map(|(k, &w)| (k.0, (w / sum) as f32))
        .collect()
}

/// The weights a move is chosen by at a temperature (KataGo's play
/// selection values): each visited root child's visits, except that every
/// child but the most visited keeps only the visits its value earned in
/// retrospect, the fewest (rounded up) with which its PUCT score would
/// still reach the most visited child's. Visits that were only
/// exploration of a move that turned out worse do not make it likelier
/// to be played. Children left with no weight are dropped. Edge order;
/// empty when no child has a visit.
pub(crate) fn play_weights(tree: &Tree, puct: &Puct) -> Vec<(Move, f64)> {
    let Some(r) = RootKids::of(tree, puct) else {
        return Vec::new();
    };
    r.kids
        .iter()
        .enumerate()
        .filter_map(|(i, &(mv, _, n, _))| {
            let w = if i == r.best {
                n
            } else {
                r.floor(i).map_or(n, |f| f.min(n)).ceil()
            };
            (w > 0.0).then_some((mv, w))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Move, Point};
    use crate::search::tree::Edge;

    fn puct() -> Puct {
        Puct {
            c_init: 1.0,
            c_log: 0.45,
            c_base: 500.0,
            fpu_reduction: 0.2,
            root_fpu_reduction: 0.1,
            virtual_loss: 1.0,
            forced_k: None,
            stdev_scale: 0.0,
            fpu_parent_pow: 0.0,
            root_pass_barred: false,
            child_weight_explore: false,
        }
    }

    #[test]
    fn a_barred_root_pass_is_never_selected() {
        // The pass has the highest prior and no visits: it would be next.
        let mut t = Tree::new(0, 100);
        let edges = [
            Edge {
                mv: Move::Pass,
                prior: 0.9,
                child: NONE,
            },
            Edge {
                mv: Move::Place(Point::new(0, 0)),
                prior: 0.1,
                child: NONE,
            },
        ];
        t.attach(0, &edges);
        t.nodes[0].visits = 1;
        assert_eq!(select_edge(&t, 0, &puct(), true), Some(0));
        let barred = Puct {
            root_pass_barred: true,
            ..puct()
        };
        assert_eq!(select_edge(&t, 0, &barred, true), Some(1));
        // Below the root the bar does not apply.
        let child = t.add_child(0, 1).unwrap();
        t.attach(child, &edges);
        assert_eq!(
            select_edge(&t, child, &barred, true),
            Some(t.edge_range(child).start)
        );
        // A root whose only move is the pass still passes.
        let mut only = Tree::new(0, 100);
        only.attach(0, &edges[..1]);
        assert_eq!(select_edge(&only, 0, &barred, true), Some(0));
    }

    #[test]
    fn exploration_grows_with_the_spread_of_values() {
        // Off: no change.
        assert_eq!(stdev_factor(0.0, 10.0, 5.0, 5.0), 1.0);
        // Few visits: the prior spread, factor 1.
        assert!((stdev_factor(0.85, 1.0, 0.3, 0.09) - 1.0).abs() < 1e-12);
        // Values that all agree explore less; values split between win
        // and loss explore more.
        let calm = stdev_factor(0.85, 50.0, 50.0 * 0.2, 50.0 * 0.04);
        let torn = stdev_factor(0.85, 50.0, 0.0, 50.0);
        assert!((0.05..1.0).contains(&calm), "{calm}");
        assert!(torn > 1.5, "{torn}");
    }

    /// Gives root child `e` a node with `visits` visits of mean utility `q`.
    fn visit(t: &mut Tree, e: usize, visits: u32, q: f64) {
        let c = t.add_child(0, e).unwrap();
        t.nodes[c as usize].visits = visits;
        t.nodes[c as usize].weight = visits as f64;
        t.nodes[c as usize].util_sum = q * visits as f64;
        t.nodes[0].visits += visits;
        t.nodes[0].weight += visits as f64;
    }

    fn tree(priors: &[f32]) -> Tree {
        let mut t = Tree::new(0, 100);
        let edges: Vec<Edge> = priors
            .iter()
            .enumerate()
            .map(|(i, &p)| Edge {
                mv: Move::Place(Point::new(i, 0)),
                prior: p,
                child: NONE,
            })
            .collect();
        t.attach(0, &edges);
        t.nodes[0].visits = 1;
        t
    }

    #[test]
    fn the_fpu_can_lean_on_the_nodes_own_evaluation() {
        // The root's own evaluation is +0.9 for its player; its mean so far
        // 0; the one tried move (prior 0.6) 0.3 after three visits.
        let mut t = tree(&[0.6, 0.3, 0.1]);
        t.nodes[0].weight = 1.0;
        t.nodes[0].own_util = 0.9;
        visit(&mut t, 0, 3, 0.3);
        // Plain FPU: 0 - 0.1 * sqrt(0.6) for the untried moves; the tried
        // one wins (0.3 + 0.6 * 2 / 4 against -0.08 + 0.3 * 2).
        assert_eq!(select_edge(&t, 0, &puct(), true), Some(0));
        // Leaning on the own evaluation (w = 0.6^2): 0.64 * 0.9 - 0.08.
        let lean = Puct {
            fpu_parent_pow: 2.0,
            ..puct()
        };
        assert_eq!(select_edge(&t, 0, &lean, true), Some(1));
    }

    #[test]
    fn exploring_by_child_weight_explores_less_at_few_visits() {
        // The root (its own evaluation: one visit) and one child visited
        // once at +0.04; the other move is untried (FPU -0.1 * sqrt(0.6)).
        let mut t = tree(&[0.6, 0.4]);
        t.nodes[0].weight = 1.0;
        visit(&mut t, 0, 1, 0.04);
        // By visits, sqrt(2) of exploration: the untried move's 0.4 of
        // prior outweighs the tried move's small lead.
        assert_eq!(select_edge(&t, 0, &puct(), true), Some(1));
        // By the children's weight, sqrt(1.01): the tried move again.
        let by_weight = Puct {
            child_weight_explore: true,
            ..puct()
        };
        assert_eq!(select_edge(&t, 0, &by_weight, true), Some(0));
    }

    #[test]
    fn c_grows_with_visits() {
        let p = puct();
        assert!((p.c(0.0) - 1.0).abs() < 1e-12);
        assert!(p.c(10_000.0) > p.c(100.0));
    }

    #[test]
    fn first_visit_goes_to_the_highest_prior() {
        let t = tree(&[0.6, 0.3, 0.1]);
        assert_eq!(select_edge(&t, 0, &puct(), true), Some(0));
    }

    #[test]
    fn virtual_loss_diverts_the_next_gatherer() {
        let mut t = tree(&[0.5, 0.4, 0.1]);
        let c = t.add_child(0, 0).unwrap();
        t.nodes[c as usize].in_flight = 1;
        t.nodes[0].in_flight = 1;
        assert_eq!(select_edge(&t, 0, &puct(), true), Some(1));
    }

    #[test]
    fn full_tree_selects_existing_children_only() {
        let mut t = tree(&[0.5, 0.4, 0.1]);
        let c = t.add_child(0, 2).unwrap();
        t.nodes[c as usize].visits = 1;
        assert_eq!(select_edge(&t, 0, &puct(), false), Some(2));
        let t2 = tree(&[0.5, 0.5]);
        assert_eq!(select_edge(&t2, 0, &puct(), false), None);
    }

    #[test]
    fn forced_playouts_select_a_starved_child_first() {
        // Child 1 has a big (fake, noised) prior but a terrible value.
        let mut t = tree(&[0.5, 0.3, 0.2]);
        visit(&mut t, 0, 50, 0.5);
        visit(&mut t, 1, 2, -0.9);
        visit(&mut t, 2, 3, 0.0);
        let plain = select_edge(&t, 0, &puct(), true);
        assert_ne!(plain, Some(1));
        let forced = Puct {
            forced_k: Some(2.0),
            ..puct()
        };
        // n_forced = sqrt(2 * 0.3 * 55) = 5.7 > 2 visits.
        assert_eq!(select_edge(&t, 0, &forced, true), Some(1));
        // Child 2: n_forced = sqrt(2 * 0.2 * 55) = 4.7 > 3 visits, but the
        // higher prior goes first.
        t.nodes[t.edges[1].child as usize].visits = 6;
        t.nodes[t.edges[1].child as usize].weight = 6.0;
        t.nodes[t.edges[1].child as usize].util_sum = -0.9 * 6.0;
        t.nodes[0].visits += 4;
        assert_eq!(select_edge(&t, 0, &forced, true), Some(2));
        // Not below the root.
        let c = t.edges[0].child;
        let sub: Vec<Edge> = [0.6f32, 0.4]
            .iter()
            .enumerate()
            .map(|(i, &p)| Edge {
                mv: Move::Place(Point::new(i, 1)),
                prior: p,
                child: NONE,
            })
            .collect();
        t.attach(c, &sub);
        let r = t.edge_range(c);
        for (e, n, q) in [(r.start, 40u32, 0.5), (r.start + 1, 1, -1.0)] {
            let g = t.add_child(c, e).unwrap();
            t.nodes[g as usize].visits = n;
            t.nodes[g as usize].weight = n as f64;
            t.nodes[g as usize].util_sum = q * n as f64;
        }
        // sqrt(2 * 0.4 * 41) = 5.7 > 1 visit, but forcing is root-only.
        assert_eq!(select_edge(&t, c, &forced, true), Some(r.start));
    }

    #[test]
    fn pruning_removes_forced_visits_from_weak_children_only() {
        let mut t = tree(&[0.6, 0.3, 0.05, 0.05]);
        visit(&mut t, 0, 200, 0.5);
        visit(&mut t, 1, 40, 0.4);
        visit(&mut t, 2, 5, -0.9);
        visit(&mut t, 3, 2, 0.0);
        let p = puct();
        let plain = pruned_target(&t, &p, None);
        assert_eq!(plain.len(), 4);
        assert!((plain[0].1 - 200.0 / 247.0).abs() < 1e-6);
        let pruned = pruned_target(&t, &p, Some(2.0));
        // The weak children lose their forced visits and are dropped.
        assert_eq!(pruned.len(), 2, "{pruned:?}");
        assert_eq!(pruned[0].0, t.edges[0].mv);
        assert_eq!(pruned[1].0, t.edges[1].mv);
        // The best keeps all of its visits; the other child loses some,
        // but at most its forced playouts and only while its PUCT score
        // stays below the best's.
        let parent_n = t.nodes[0].visits as f64;
        let explore = p.c(parent_n) * parent_n.sqrt();
        let best_score = 0.5 + explore * 0.6 / 201.0;
        let m = pruned[1].1 as f64 / pruned[0].1 as f64 * 200.0;
        assert!(m < 40.0 - 1.0, "{m}");
        assert!(m >= 40.0 - forced_playouts(2.0, 0.3, 247.0) - 1e-3);
        assert!(0.4 + explore * 0.3 / (1.0 + m) <= best_score + 1e-4);
        let sum: f32 = pruned.iter().map(|m| m.1).sum();
        assert!((sum - 1.0).abs() < 1e-5);
    }

    #[test]
    fn pruning_never_touches_the_best() {
        // The only visited child keeps its single visit.
        let mut t = tree(&[0.5, 0.5]);
        visit(&mut t, 1, 1, -1.0);
        let pruned = pruned_target(&t, &puct(), Some(2.0));
        assert_eq!(pruned, vec![(t.edges[1].mv, 1.0)]);
        assert!(pruned_target(&tree(&[1.0]), &puct(), Some(2.0)).is_empty());
    }

    #[test]
    fn play_weights_take_back_the_exploration_of_worse_moves() {
        let mut t = tree(&[0.45, 0.3, 0.2, 0.05]);
        visit(&mut t, 0, 10, 0.3);
        // Worse than the best: keeps the visits its value earned.
        visit(&mut t, 1, 3, -0.2);
        // Better valued than the best (just found): keeps them all.
        visit(&mut t, 2, 2, 0.6);
        // Hopeless: its value alone explains no visit, so it drops out.
        visit(&mut t, 3, 1, -1.0);
        let p = puct();
        let w = play_weights(&t, &p);
        let mv = |i: usize| t.edges[i].mv;
        assert_eq!(w.len(), 3, "{w:?}");
        assert_eq!(w[0], (mv(0), 10.0));
        assert_eq!(w[2], (mv(2), 2.0));
        assert_eq!(w[1].0, mv(1));
        assert!(w[1].1 >= 1.0 && w[1].1 < 3.0, "{w:?}");
        // The weight kept is the rounded-up retrospective floor: with one
        // visit fewer its PUCT score would pass the best's.
        let n = t.nodes[0].visits as f64;
        let explore = p.c(n) * n.sqrt();
        let best = 0.3 + explore * 0.45 / 11.0;
        let score = |m: f64| -0.2 + explore * 0.3 / (1.0 + m);
        assert!(score(w[1].1) <= best + 1e-12);
        assert!(score(w[1].1 - 1.0) > best);
        // Nothing visited, nothing to choose from.
        assert!(play_weights(&tree(&[1.0]), &p).is_empty());
    }
}
