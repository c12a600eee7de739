//! Expansion and backup.
//!
//! - [`legal_edges`] turns an evaluation's policy into the edge list of a
//!   node: only moves legal under the position's ruleset (superko against
//!   the whole history included), never a move that fills the mover's own
//!   eye ([`Board::is_eye`]); the pass is always present. Priors are
//!   renormalised over the kept moves. Cost: one `Position::check` per
//!   empty point, each O(history) under superko — a few tens of
//!   microseconds on 19×19, small next to a net evaluation.
//! - [`terminal_result`] scores a finished game exactly (area scoring,
//!   stones inside the opponent's pass-alive territory count as dead).
//! - [`backup`] adds one visit's result to every node on the path to the
//!   root, flipping the view at each ply, and releases the virtual loss.
//!   With a value-weight exponent `e > 0` (KataGo's `valueWeightExponent`)
//!   each expanded node's means are then recomputed from its children, as
//!   KataGo does, instead of being the plain mean of every visit below:
//!   a child with `n` visits and mean utility `u` (the mover's view) counts
//!   `n · (F(z) + 1e-4)^e`, where `z = (u − ū) / sqrt(1e-8 + 1 / (1.5 √n))`,
//!   `ū` the children's visit-weighted mean and `F` the CDF of Student's t
//!   with 3 degrees of freedom, rescaled to the children's visits; the
//!   node's own evaluation counts one. Children that look worse than the
//!   others thus pull the node's value down less than their visits would.
//! - With an uncertainty coefficient (KataGo's uncertainty-weighted
//!   playouts) every visit carries a weight, [`Utility::eval_weight`]: an
//!   evaluation the net is sure of counts up to `uncertainty_max_weight`,
//!   an unsure one less than one, an exact result the maximum. Nodes keep
//!   the weights' sum beside their visit count; every mean divides by it,
//!   and the recomputation above uses weights where it says visits.
//!
//! All functions are plain; [`backup`] needs the tree lock held.

use std::f64::consts::FRAC_2_PI;

use super::tree::{Edge, Tree, NONE};
use crate::eval::policy_index;
use crate::rules::benson::pass_alive;
use crate::rules::score::{area_with_owners, margin_with};
use crate::rules::{Board, Color, Move, Point, Position};

/// How a value and a score lead combine into the utility PUCT maximises:
/// `wl + weight * 2/π * atan(score / scale)`, plus, with a dynamic
/// weight, `dyn_weight * 2/π * atan((score - center) / scale)`: a score
/// term centred on the score the root expects (KataGo's dynamic score
/// utility), so that a game already won or lost by a wide margin still
/// prefers more points to fewer instead of drifting where the static
/// term has flattened out.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Utility {
    pub weight: f64,
    pub scale: f64,
    pub dyn_weight: f64,
    /// The dynamic term's centre, in points, from the view of the root's
    /// player to move.
    pub center: f64,
    /// The value-weight exponent of the backup (0: plain means; module
    /// docs).
    pub value_weight: f64,
    /// Uncertainty weighting (KataGo's `uncertaintyCoeff`; 0: every
    /// evaluation weighs one): see [`Utility::eval_weight`].
    pub uncertainty_coeff: f64,
    /// The most an evaluation weighs (KataGo's `uncertaintyMaxWeight`);
    /// an exact terminal result weighs this much.
    pub uncertainty_max_weight: f64,
    /// Subtree value bias factor and weight exponent (KataGo's
    /// `subtreeValueBiasFactor` and `...WeightExponent`; factor 0: off;
    /// `bias` module docs).
    pub subtree_bias: f64,
    pub subtree_bias_exp: f64,
    /// Noise pruning's utility scale (KataGo's `noisePruneUtilityScale`,
    /// 0.15 in its engine; 0: off): see [`pruned_weights`].
    pub noise_prune: f64,
}

impl Utility {
    /// The static score term only.
    #[cfg(test)]
    pub fn fixed(weight: f64, scale: f64) -> Utility {
        Utility {
            weight,
            scale,
            dyn_weight: 0.0,
            center: 0.0,
            value_weight: 0.0,
            uncertainty_coeff: 0.0,
            uncertainty_max_weight: 1.0,
            subtree_bias: 0.0,
            subtree_bias_exp: 0.85,
            noise_prune: 0.0,
        }
    }

    /// Whether a node's means are recomputed from its children
    /// ([`reweigh`]) rather than kept as plain sums of its visits.
    fn recomputes(&self) -> bool {
        self.value_weight > 0.0 || self.subtree_bias > 0.0 || self.noise_prune > 0.0
    }

    /// The utility of a win − loss `wl` and a score `score`, both from one
    /// player's view: the root's player to move when `root_view`, else
    /// the opponent (the centre turns with the view).
    #[inline]
    pub fn of(&self, wl: f64, score: f64, root_view: bool) -> f64 {
        let mut u = wl;
        if self.weight != 0.0 {
            u += self.weight * FRAC_2_PI * (score / self.scale).atan();
        }
        if self.dyn_weight != 0.0 {
            let c = if root_view { self.center } else { -self.center };
            u += self.dyn_weight * FRAC_2_PI * ((score - c) / self.scale).atan();
        }
        u
    }

    /// How fast the utility grows with the score at `score` (the view of
    /// `root_view` as in [`Utility::of`]).
    fn score_slope(&self, score: f64, root_view: bool) -> f64 {
        let d = |x: f64| FRAC_2_PI / self.scale / (1.0 + (x / self.scale).powi(2));
        let c = if root_view { self.center } else { -self.center };
        self.weight * d(score) + self.dyn_weight * d(score - c)
    }

    /// The weight of one evaluation in the backup. Off (coefficient 0) or
    /// without the net's short-term error estimates it is 1. Otherwise,
    /// as KataGo weighs its playouts: with `e` the evaluation's expected
    /// error in utility (the value's short-term error plus the score's,
    /// scaled by the utility's slope at that score), the weight is
    /// `coeff / (e + coeff / max_weight)`, so a confident evaluation
    /// counts up to `max_weight` times and an unsure one less than one.
    /// `score` and `root_view` are the evaluation's player to move's.
    pub fn eval_weight(&self, error: Option<[f32; 2]>, score: f64, root_view: bool) -> f64 {
        let Some([wl_err, score_err]) = error else {
            return 1.0;
        };
        if self.uncertainty_coeff <= 0.0 || !(wl_err.is_finite() && score_err.is_finite()) {
            return 1.0;
        }
        let e =
            wl_err.max(0.0) as f64 + self.score_slope(score, root_view) * score_err.max(0.0) as f64;
        let max = self.uncertainty_max_weight.max(1e-3);
        self.uncertainty_coeff / (e + self.uncertainty_coeff / max)
    }

    /// The weight of an exact result (a finished game).
    pub fn terminal_weight(&self) -> f64 {
        if self.uncertainty_coeff > 0.0 {
            self.uncertainty_max_weight.max(1e-3)
        } else {
            1.0
        }
    }
}

/// The edges of a node at `pos` from the evaluator's `policy`, sorted by
/// prior (highest first, ties by point order). See the module docs.
pub(crate) fn legal_edges(pos: &Position, policy: &[f32]) -> Vec<Edge> {
    let size = pos.size();
    let me = pos.to_move();
    let board = pos.board();
    let mut edges: Vec<Edge> = Vec::with_capacity(board.empty_count() + 1);
    for p in board.points() {
        if !board.is_empty(p) || board.is_eye(me, p) {
            continue;
        }
        let mv = Move::Place(p);
        // A negative prior bars the move from the tree (avoidMoves).
        if policy.get(policy_index(mv, size)).is_some_and(|&x| x < 0.0) {
            continue;
        }
        if pos.check(me, mv).is_err() {
            continue;
        }
        edges.push(Edge {
            mv,
            prior: prior_at(policy, policy_index(mv, size)),
            child: NONE,
        });
    }
    edges.push(Edge {
        mv: Move::Pass,
        prior: prior_at(policy, size * size),
        child: NONE,
    });
    let total: f64 = edges.iter().map(|e| e.prior as f64).sum();
    if total > 1e-12 {
        for e in &mut edges {
            e.prior = (e.prior as f64 / total) as f32;
        }
    } else {
        let u = 1.0 / edges.len() as f32;
        for e in &mut edges {
            e.prior = u;
        }
    }
    // Stable: equal priors keep board order, pass last.
    edges.sort_by(|a, b| b.prior.total_cmp(&a.prior));
    edges
}

#[inline]
fn prior_at(policy: &[f32], i: usize) -> f32 {
    match policy.get(i) {
        Some(&p) if p.is_finite() && p > 0.0 => p,
        _ => 0.0,
    }
}

/// The exact result of the finished game at `pos`, for the player to move:
/// (win − loss in {-1, 0, 1}, margin in points, ownership per dense point
/// in {-1, 0, 1}). Scoring: area, komi, no handicap compensation; stones
/// inside the opponent's pass-alive territory are dead.
pub(crate) fn terminal_result(pos: &Position) -> (f32, f32, Vec<f32>) {
    let board = pos.board();
    let dead = certainly_dead(board);
    let (count, owners) = area_with_owners(board, &dead);
    let margin = margin_with(&count, board, &dead, &[], pos.rules());
    let me = pos.to_move();
    let sign = if me == Color::Black { 1.0 } else { -1.0 };
    let mine = sign * margin;
    let wl = if mine > 0.0 {
        1.0
    } else if mine < 0.0 {
        -1.0
    } else {
        0.0
    };
    let size = pos.size();
    let mut own = vec![0.0f32; size * size];
    for p in board.points() {
        own[p.dense(size)] = match owners[p.index()] {
            Some(c) if c == me => 1.0,
            Some(_) => -1.0,
            None => 0.0,
        };
    }
    (wl, mine, own)
}

/// Stones standing inside the other colour's pass-alive territory.
pub(crate) fn certainly_dead(board: &Board) -> Vec<Point> {
    let mut dead = Vec::new();
    for c in [Color::Black, Color::White] {
        let opp = pass_alive(board, c.opp());
        dead.extend(
            board
                .points()
                .filter(|&p| board.get(p) == Some(c) && opp.territory[p.index()]),
        );
    }
    dead
}

/// One visit's result for [`backup`]: value `wl` and score `score` (both
/// from the view of the player to move at the node), weighing `weight`;
/// `bias` (same view) is added to its utility: the subtree bias
/// correction of a node's first evaluation, 0 otherwise.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Visit {
    pub wl: f32,
    pub score: f32,
    pub weight: f64,
    pub bias: f64,
}

impl Visit {
    pub fn new(wl: f32, score: f32, weight: f64) -> Visit {
        Visit {
            wl,
            score,
            weight,
            bias: 0.0,
        }
    }

    pub fn with_bias(self, bias: f64) -> Visit {
        Visit { bias, ..self }
    }
}

/// Adds one [`Visit`] to `node` and all its ancestors, and removes one
/// in-flight mark from each. `ownership` (same view, dense) is
/// added to the root's average; `flip_ownership` says whether the root's
/// player to move is the other colour.
pub(crate) fn backup(
    tree: &mut Tree,
    node: u32,
    visit: Visit,
    ownership: Option<(&[f32], bool)>,
    utility: &Utility,
) {
    let Visit {
        wl,
        score,
        weight,
        bias,
    } = visit;
    // View of the player who moved into `node`.
    let mut v = -(wl as f64);
    let mut s = -(score as f64);
    let mut b = -bias;
    // The player who moved into the root is the root's opponent, so the
    // view at `node` is the root player's when its depth is odd.
    let mut root_view = utility.dyn_weight != 0.0 && tree.depth(node) % 2 == 1;
    let mut i = node;
    while i != NONE {
        let n = &mut tree.nodes[i as usize];
        n.visits += 1;
        n.in_flight = n.in_flight.saturating_sub(1);
        n.weight += weight;
        n.wl_sum += weight * v;
        n.wl_sq_sum += weight * v * v;
        n.score_sum += weight * s;
        n.score_sq_sum += weight * s * s;
        n.util_sum += weight * (utility.of(v, s, root_view) + b);
        let parent = n.parent;
        if utility.recomputes() && i != node {
            // The mover here is the player whose view `root_view` is not.
            reweigh(tree, i, utility, !root_view);
        }
        i = parent;
        v = -v;
        s = -s;
        b = -b;
        root_view = !root_view;
    }
    if let Some((own, flip)) = ownership {
        if tree.own_sum.len() != own.len() || tree.own_sq_sum.len() != own.len() {
            tree.own_sum = vec![0.0; own.len()];
            tree.own_sq_sum = vec![0.0; own.len()];
            tree.own_n = 0;
        }
        let sign = if flip { -1.0 } else { 1.0 };
        for ((sum, sq), &o) in tree.own_sum.iter_mut().zip(&mut tree.own_sq_sum).zip(own) {
            *sum += sign * o as f64;
            *sq += (o as f64) * (o as f64);
        }
        tree.own_n += 1;
    }
}

/// The subtree bias correction of `node`'s own evaluation now (view of
/// the player to move there; 0 when off or unknown).
pub(crate) fn bias_of(tree: &Tree, node: u32, utility: &Utility) -> f64 {
    let key = tree.nodes[node as usize].bias_key;
    if utility.subtree_bias <= 0.0 || key == 0 {
        return 0.0;
    }
    tree.bias
        .get(&key)
        .and_then(|e| e.mean())
        .map_or(0.0, |m| utility.subtree_bias * m)
}

/// CDF of Student's t with 3 degrees of freedom.
fn t3_cdf(z: f64) -> f64 {
    let x = z / 3f64.sqrt();
    0.5 + (x / (1.0 + x * x) + x.atan()) / std::f64::consts::PI
}

/// The weights the visited children of `node` count with in its means,
/// in edge (prior) order, after KataGo's noise pruning when `scale > 0`:
/// a child whose mean utility (the mover's view) is below the weighted
/// mean of the higher-prior children before it, and whose weight is more
/// than twice the share its prior would give it of theirs, loses part of
/// the excess, `1 − exp(−gap / scale)` of it. Such a child got its visits
/// from exploration (or from a value that has since fallen), not because
/// it is good, and should not drag the node's value towards its own.
/// Without pruning, the weights are the children's own. Returns the sums
/// the caller needs: the kept weights, the kept weights times the
/// children's mean utilities, and the children's own weights.
fn pruned_weights(tree: &Tree, node: u32, scale: f64, out: &mut Vec<(f64, u32)>) -> [f64; 3] {
    out.clear();
    let (mut u_sum, mut w_sum, mut p_sum, mut orig_sum) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for (e, c) in tree.visited_children(node) {
        if c.weight <= 0.0 {
            continue;
        }
        let u = c.util();
        let prior = (e.prior as f64).max(1e-30);
        let mut w = c.weight;
        if scale > 0.0 && w_sum > 0.0 && p_sum > 0.0 {
            let gap = u_sum / w_sum - u;
            let lenient_share = 2.0 * w_sum * prior / p_sum;
            if gap > 0.0 && w > lenient_share {
                w -= (w - lenient_share) * (1.0 - (-gap / scale).exp());
            }
        }
        u_sum += u * w;
        w_sum += w;
        p_sum += prior;
        orig_sum += c.weight;
        out.push((w, e.child));
    }
    [w_sum, u_sum, orig_sum]
}

/// Recomputes the means of the expanded `node` from its children and its
/// own evaluation (module docs); `mover_root_view` says whether the
/// player to move at `node` is the root's.
fn reweigh(tree: &mut Tree, node: u32, utility: &Utility, mover_root_view: bool) {
    // Children's means are from the view of the player to move at `node`;
    // the buffer is reused so that a backup does not allocate.
    let mut kids = std::mem::take(&mut tree.scratch);
    let [w_sum, wu_sum, orig_w_sum] = pruned_weights(tree, node, utility.noise_prune, &mut kids);
    if w_sum <= 0.0 {
        tree.scratch = kids;
        return;
    }
    let mean = wu_sum / w_sum;
    let (mut nw, mut nu, mut nwl, mut ns) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for &(n, c) in &kids {
        let c = &tree.nodes[c as usize];
        if n <= 0.0 {
            continue;
        }
        let stdev = (1e-8 + 1.0 / (1.5 * n.sqrt())).sqrt();
        let u = c.util();
        let z = (u - mean) / stdev;
        let w = n * (t3_cdf(z) + 1e-4).powf(utility.value_weight);
        nw += w;
        nu += w * u;
        nwl += w * c.wl();
        ns += w * c.score();
    }
    tree.scratch = kids;
    let n = &tree.nodes[node as usize];
    if nw <= 0.0 || n.visits == 0 || n.weight <= 0.0 {
        return;
    }
    // Children rescaled to their weights, plus the node's own evaluation.
    let (own_wl, own_score) = (n.own_wl as f64, n.own_score as f64);
    let mut own_u = utility.of(own_wl, own_score, mover_root_view);
    if utility.subtree_bias > 0.0 && n.bias_key != 0 {
        // Replace this node's contribution to its entry (`bias` docs).
        // The children's own total weight, before any noise pruning, as
        // KataGo weighs a node's entry.
        let bw = orig_w_sum.powf(utility.subtree_bias_exp);
        let bd = (nu / nw - own_u) * bw;
        let (key, last_d, last_w) = (n.bias_key, n.bias_delta, n.bias_weight);
        let e = tree.bias.entry(key).or_default();
        e.delta += bd - last_d;
        e.weight += bw - last_w;
        if let Some(m) = e.mean() {
            own_u += utility.subtree_bias * m;
        }
        let n = &mut tree.nodes[node as usize];
        n.bias_delta = bd;
        n.bias_weight = bw;
    }
    let n = &mut tree.nodes[node as usize];
    let own_w = n.own_weight as f64;
    let total = w_sum + own_w;
    let avg = |children: f64, own: f64| (w_sum * children / nw + own_w * own) / total;
    // Stored from the view of the player who moved into `node`.
    let weight = n.weight;
    n.util_sum = -avg(nu, own_u) * weight;
    n.wl_sum = -avg(nwl, own_wl) * weight;
    n.score_sum = -avg(ns, own_score) * weight;
}

/// Removes the in-flight marks a descent put on `node` and its ancestors
/// (a collision: no visit happens).
pub(crate) fn undo_virtual_loss(tree: &mut Tree, node: u32) {
    let mut i = node;
    while i != NONE {
        let n = &mut tree.nodes[i as usize];
        n.in_flight = n.in_flight.saturating_sub(1);
        i = n.parent;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Ruleset;

    #[test]
    fn eye_filling_and_suicide_are_left_out() {
        // Black owns the corner eye at A1 (B1, A2 black); white stone at C1
        // can't play A1 (suicide is illegal).
        let mut pos = Position::new(5, Ruleset::chinese()).unwrap();
        pos.setup(Some(Color::Black), Point::new(1, 4)).unwrap();
        pos.setup(Some(Color::Black), Point::new(0, 3)).unwrap();
        pos.setup(Some(Color::Black), Point::new(1, 3)).unwrap();
        let policy = vec![1.0 / 26.0; 26];
        let black = legal_edges(&pos, &policy);
        assert!(black.iter().all(|e| e.mv != Move::Place(Point::new(0, 4))));
        assert_eq!(black.last().map(|e| e.mv), Some(Move::Pass));
        pos.set_to_move(Color::White);
        let white = legal_edges(&pos, &policy);
        assert!(white.iter().all(|e| e.mv != Move::Place(Point::new(0, 4))));
        let total: f32 = white.iter().map(|e| e.prior).sum();
        assert!((total - 1.0).abs() < 1e-5);
    }

    #[test]
    fn a_negative_prior_bars_a_move() {
        let pos = Position::new(3, Ruleset::chinese()).unwrap();
        let mut policy = vec![0.1; 10];
        let centre = policy_index(Move::Place(Point::new(1, 1)), 3);
        policy[centre] = -1.0;
        let edges = legal_edges(&pos, &policy);
        assert_eq!(edges.len(), 9); // 8 points + pass
        assert!(edges.iter().all(|e| e.mv != Move::Place(Point::new(1, 1))));
    }

    /// A root with one child (a pass), both with a visit in flight.
    fn root_and_child_in_flight() -> (Tree, u32) {
        let mut t = Tree::new(0, 10);
        t.attach(
            0,
            &[Edge {
                mv: Move::Pass,
                prior: 1.0,
                child: NONE,
            }],
        );
        let c = t.add_child(0, 0).unwrap();
        t.nodes[0].in_flight = 1;
        t.nodes[c as usize].in_flight = 1;
        (t, c)
    }

    /// An edge to point (x, 0) with prior 0.5.
    fn edge(x: usize) -> Edge {
        Edge {
            mv: Move::Place(Point::new(x, 0)),
            prior: 0.5,
            child: NONE,
        }
    }

    /// A root evaluated at 0 with two created, unvisited children.
    fn root_with_two_children(u: &Utility) -> (Tree, u32, u32) {
        let mut t = Tree::new(0, 10);
        t.attach(0, &[edge(0), edge(1)]);
        backup(&mut t, 0, Visit::new(0.0, 0.0, 1.0), None, u);
        let (a, b) = (t.add_child(0, 0).unwrap(), t.add_child(0, 1).unwrap());
        (t, a, b)
    }

    /// The root player's value at the root after its own evaluation (0),
    /// nine visits of a child worth +0.6 to it and one worth -0.8.
    fn root_value_with(value_weight: f64) -> f64 {
        let u = Utility {
            value_weight,
            ..Utility::fixed(0.0, 1.0)
        };
        let (mut t, a, b) = root_with_two_children(&u);
        // Values from the view of the player to move at the child.
        for _ in 0..9 {
            backup(&mut t, a, Visit::new(-0.6, 0.0, 1.0), None, &u);
        }
        backup(&mut t, b, Visit::new(0.8, 0.0, 1.0), None, &u);
        assert_eq!(t.nodes[0].visits, 11);
        -t.nodes[0].util()
    }

    /// Two nodes of the same shape (key 7): what the first one's subtree
    /// found against its own evaluation corrects the second one's first
    /// evaluation, by the bias factor's share.
    fn subtree_bias_run(factor: f64) -> (Tree, u32, u32) {
        let u = Utility {
            subtree_bias: factor,
            ..Utility::fixed(0.0, 1.0)
        };
        let (mut t, a, b) = root_with_two_children(&u);
        // A: its net says 0 (view of its player to move), its one child
        // finds +0.5 for that player.
        t.nodes[a as usize].bias_key = 7;
        t.nodes[a as usize].own_weight = 1.0;
        t.attach(a, &[edge(2)]);
        let first = bias_of(&t, a, &u);
        backup(
            &mut t,
            a,
            Visit::new(0.0, 0.0, 1.0).with_bias(first),
            None,
            &u,
        );
        let c = t.add_child(a, t.edge_range(a).start).unwrap();
        backup(&mut t, c, Visit::new(-0.5, 0.0, 1.0), None, &u);
        // B: same shape, its net also says 0.
        t.nodes[b as usize].bias_key = 7;
        let bias = bias_of(&t, b, &u);
        backup(
            &mut t,
            b,
            Visit::new(0.0, 0.0, 1.0).with_bias(bias),
            None,
            &u,
        );
        (t, a, b)
    }

    #[test]
    fn subtree_bias_carries_a_subtree_s_finding_to_nodes_of_the_same_shape() {
        let (t, a, b) = subtree_bias_run(0.45);
        let e = t.bias[&7];
        assert!(
            (e.delta - 0.5).abs() < 1e-12 && (e.weight - 1.0).abs() < 1e-12,
            "{e:?}"
        );
        assert_eq!(
            (
                t.nodes[a as usize].bias_delta,
                t.nodes[a as usize].bias_weight
            ),
            (0.5, 1.0)
        );
        // B's mover sees B's player to move 0.45 * 0.5 better off.
        assert!((t.nodes[b as usize].util() + 0.225).abs() < 1e-9);
        // A's value: its child's +0.5 and its own evaluation corrected by
        // the same amount, from the view of the player who moved into A.
        assert!((t.nodes[a as usize].util() + (0.5 + 0.225) / 2.0).abs() < 1e-9);

        let (t, a, b) = subtree_bias_run(0.0);
        assert!(t.bias.is_empty());
        assert_eq!(t.nodes[b as usize].util(), 0.0);
        assert!((t.nodes[a as usize].util() + 0.25).abs() < 1e-9);
    }

    #[test]
    fn value_weighting_lets_a_worse_child_pull_the_value_down_less() {
        let plain = root_value_with(0.0);
        assert!((plain - (5.4 - 0.8) / 11.0).abs() < 1e-6, "{plain}");
        // KataGo's exponent: the -0.8 child weighs 0.58 instead of 1, the
        // +0.6 one 7.95 instead of 9 (rescaled to 10 together).
        let weighted = root_value_with(0.25);
        assert!((weighted - 0.459).abs() < 0.002, "{weighted}");
        assert!(weighted > plain);
    }

    /// The root player's value at the root after its own evaluation (0),
    /// five visits of a child with prior 0.9 worth `a` to it and five of
    /// one with prior 0.1 worth `b`, with noise pruning at `scale`.
    fn root_value_pruned(a: f64, b: f64, scale: f64) -> f64 {
        let u = Utility {
            noise_prune: scale,
            ..Utility::fixed(0.0, 1.0)
        };
        let mut t = Tree::new(0, 10);
        let (mut hi, mut lo) = (edge(0), edge(1));
        (hi.prior, lo.prior) = (0.9, 0.1);
        t.attach(0, &[hi, lo]);
        backup(&mut t, 0, Visit::new(0.0, 0.0, 1.0), None, &u);
        let (x, y) = (t.add_child(0, 0).unwrap(), t.add_child(0, 1).unwrap());
        for _ in 0..5 {
            backup(&mut t, x, Visit::new(-a as f32, 0.0, 1.0), None, &u);
            backup(&mut t, y, Visit::new(-b as f32, 0.0, 1.0), None, &u);
        }
        assert_eq!(t.nodes[0].visits, 11);
        -t.nodes[0].util()
    }

    #[test]
    fn noise_pruning_discounts_a_worse_child_s_excess_visits() {
        // Off: the plain mean of 11 evaluations.
        let plain = root_value_pruned(0.6, -0.4, 0.0);
        assert!((plain - (3.0 - 2.0) / 11.0).abs() < 1e-6, "{plain}");
        // On (KataGo's 0.15): the prior-0.1 child's fair share of the
        // other's 5 visits is 5 * 0.1 / 0.9, twice that is lenient; of its
        // excess, 1 - exp(-1.0 / 0.15) goes.
        let share = 2.0 * 5.0 * 0.1 / 0.9;
        let w = 5.0 - (5.0 - share) * (1.0 - (-1.0f64 / 0.15).exp());
        let want = (5.0 * 0.6 - 0.4 * w) / (5.0 + w + 1.0);
        let pruned = root_value_pruned(0.6, -0.4, 0.15);
        assert!((pruned - want).abs() < 1e-6, "{pruned} against {want}");
        assert!(pruned > plain + 0.25, "{pruned}");
        // A lower-prior child that is better than the one before it keeps
        // all of its weight.
        let better = root_value_pruned(-0.4, 0.6, 0.15);
        assert!((better - root_value_pruned(-0.4, 0.6, 0.0)).abs() < 1e-9);
    }

    #[test]
    fn backup_flips_the_view_each_ply() {
        let (mut t, c) = root_and_child_in_flight();
        let u = Utility::fixed(0.0, 1.0);
        backup(&mut t, c, Visit::new(1.0, 3.0, 1.0), None, &u);
        assert_eq!(t.nodes[c as usize].wl_sum, -1.0);
        assert_eq!(t.nodes[0].wl_sum, 1.0);
        assert_eq!(t.nodes[0].score_sum, 3.0);
        assert_eq!(t.nodes[0].in_flight, 0);
    }

    #[test]
    fn the_dynamic_score_term_is_centred_on_the_root_players_expectation() {
        let u = Utility {
            dyn_weight: 0.5,
            center: 6.0,
            ..Utility::fixed(0.0, 10.0)
        };
        // At the centre the term vanishes, from either view.
        assert_eq!(u.of(0.2, 6.0, true), 0.2);
        assert_eq!(u.of(0.2, -6.0, false), 0.2);
        // One view is the negation of the other.
        assert!((u.of(0.0, 9.0, true) + u.of(0.0, -9.0, false)).abs() < 1e-12);
        assert!(u.of(0.0, 9.0, true) > 0.0 && u.of(0.0, 3.0, true) < 0.0);
        // Backed up: a child of the root (moved into by the root's player)
        // at the centre adds nothing; the root (the opponent's view) neither.
        let (mut t, c) = root_and_child_in_flight();
        // The child's own view is the root's opponent's: score -6 there is
        // +6 for the root player.
        backup(&mut t, c, Visit::new(0.0, -6.0, 1.0), None, &u);
        assert!(t.nodes[c as usize].util_sum.abs() < 1e-12);
        assert!(t.nodes[0].util_sum.abs() < 1e-12);
    }

    fn uncertain() -> Utility {
        Utility {
            uncertainty_coeff: 0.25,
            uncertainty_max_weight: 8.0,
            ..Utility::fixed(0.1, 20.0)
        }
    }

    #[test]
    fn sure_evaluations_weigh_more_and_unsure_ones_less() {
        let u = uncertain();
        // Off, or a net without the estimate: everything weighs one.
        assert_eq!(
            Utility::fixed(0.1, 20.0).eval_weight(Some([0.0, 0.0]), 0.0, true),
            1.0
        );
        assert_eq!(u.eval_weight(None, 0.0, true), 1.0);
        assert_eq!(u.eval_weight(Some([f32::NAN, 1.0]), 0.0, true), 1.0);
        // No error: the maximum; an exact result weighs that too.
        assert!((u.eval_weight(Some([0.0, 0.0]), 0.0, true) - 8.0).abs() < 1e-9);
        assert_eq!(u.terminal_weight(), 8.0);
        assert_eq!(Utility::fixed(0.1, 20.0).terminal_weight(), 1.0);
        // 0.25 / (0.5 + 0.25 / 8) for a value error of 0.5 alone.
        let half = u.eval_weight(Some([0.5, 0.0]), 0.0, true);
        assert!((half - 0.25 / (0.5 + 0.25 / 8.0)).abs() < 1e-9, "{half}");
        // A score error counts by the utility's slope there: most near 0,
        // little far out where the atan has flattened.
        let near = u.eval_weight(Some([0.1, 10.0]), 0.0, true);
        let far = u.eval_weight(Some([0.1, 10.0]), 80.0, true);
        let none = u.eval_weight(Some([0.1, 0.0]), 0.0, true);
        assert!(near < far && far < none, "{near} {far} {none}");
    }

    #[test]
    fn weighted_backups_give_weighted_means() {
        let (mut t, c) = root_and_child_in_flight();
        let u = uncertain();
        backup(&mut t, c, Visit::new(1.0, 4.0, 3.0), None, &u);
        t.nodes[0].in_flight = 1;
        t.nodes[c as usize].in_flight = 1;
        backup(&mut t, c, Visit::new(-1.0, 0.0, 1.0), None, &u);
        let root = &t.nodes[0];
        assert_eq!(root.visits, 2);
        assert_eq!(root.weight, 4.0);
        // (3 * 1 + 1 * -1) / 4, from the view of the player who moved
        // into the root (the one to move at the child).
        assert!((root.wl() - 0.5).abs() < 1e-12);
        assert!((root.score() - 3.0).abs() < 1e-12);
    }
}
