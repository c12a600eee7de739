//! What the search reports: per-move statistics (visits, winrate, score
//! lead, prior, lower confidence bound, principal variation), the root's
//! averages and ownership, and the ranking that decides the final move.
//!
//! All values are from the view of the root's player to move; ownership is
//! dense (`p.dense(size)`), +1 meaning the root's player to move owns the
//! point. The GTP front end converts to whatever each analysis format wants.
//!
//! Ranking (KataGo-style LCB check): the most-visited move is the default;
//! with the check on, any move with at least `lcb_min_fraction` of its
//! visits and a higher lower confidence bound on the winrate takes its
//! place. `order` 0 is the chosen move, the rest follow by visits.

use std::time::Duration;

use super::tree::{Node, Tree, NONE};
use crate::rules::Move;

/// Statistics of one root move.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveInfo {
    pub mv: Move,
    pub visits: u64,
    /// Mean winrate in [0, 1] after this move.
    pub winrate: f32,
    /// Mean score lead in points after this move.
    pub score_lead: f32,
    /// Standard deviation of the score leads the search backed up through
    /// this move (see `Node::score_stdev`).
    pub score_stdev: f32,
    /// The (possibly noised) prior.
    pub prior: f32,
    /// Lower confidence bound of the winrate (may be below 0 with few
    /// visits).
    pub lcb: f32,
    /// Rank: 0 for the move the search would play.
    pub order: usize,
    /// Principal variation, starting with `mv`.
    pub pv: Vec<Move>,
    /// Visits of each node along `pv` (the first is `visits`).
    pub pv_visits: Vec<u64>,
}

/// The state of a search at one moment, for analysis output.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalysisSnapshot {
    /// Root visits.
    pub visits: u64,
    /// Root winrate in [0, 1].
    pub winrate: f32,
    /// Root score lead in points.
    pub score_lead: f32,
    /// Standard deviation of the root's backed-up score leads.
    pub score_stdev: f32,
    /// Visited root moves, by `order`.
    pub moves: Vec<MoveInfo>,
    /// Average ownership over this run's visits, if the evaluator gives it
    /// (or terminal positions were reached).
    pub ownership: Option<Vec<f32>>,
    /// Standard deviation of the ownership over the same visits.
    pub ownership_stdev: Option<Vec<f32>>,
    /// Time since the run started.
    pub elapsed: Duration,
}

/// How the final move is ranked.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ranking {
    pub lcb_check: bool,
    pub lcb_z: f64,
    pub lcb_min_fraction: f64,
}

/// Longest principal variation reported.
const MAX_PV: usize = 40;

/// Lower confidence bound of the winrate of `n` (view of the player who
/// moved into it). One pseudo-visit of unit variance keeps it honest at
/// small counts.
pub(crate) fn lcb(n: &Node, z: f64) -> f64 {
    if n.visits == 0 {
        return f64::NEG_INFINITY;
    }
    let v = n.visits as f64;
    let m = n.wl();
    let var = (n.wl_sq_sum / n.weight.max(1e-9) - m * m).max(0.0);
    let var = (var * v + 1.0) / (v + 1.0);
    let low = m - z * (var / v).sqrt();
    (low + 1.0) / 2.0
}

/// The snapshot of `tree` (root expanded or not).
pub(crate) fn snapshot(tree: &Tree, rank: &Ranking, elapsed: Duration) -> AnalysisSnapshot {
    let root = tree.root();
    let mut moves: Vec<MoveInfo> = Vec::new();
    if root.n_edges > 0 {
        for e in tree.edges_of(0) {
            if e.child == NONE {
                continue;
            }
            let c = &tree.nodes[e.child as usize];
            if c.visits == 0 {
                continue;
            }
            let line = pv(tree, e.mv, e.child);
            moves.push(MoveInfo {
                mv: e.mv,
                visits: c.visits as u64,
                winrate: ((c.wl() + 1.0) / 2.0) as f32,
                score_lead: c.score() as f32,
                score_stdev: c.score_stdev() as f32,
                prior: e.prior,
                lcb: lcb(c, rank.lcb_z) as f32,
                order: 0,
                pv: line.iter().map(|&(m, _)| m).collect(),
                pv_visits: line.iter().map(|&(_, v)| v).collect(),
            });
        }
    }
    order(&mut moves, rank);
    let ownership = (tree.own_n > 0).then(|| {
        let n = tree.own_n as f64;
        tree.own_sum.iter().map(|&s| (s / n) as f32).collect()
    });
    let ownership_stdev =
        (tree.own_n > 0 && tree.own_sq_sum.len() == tree.own_sum.len()).then(|| {
            let n = tree.own_n as f64;
            tree.own_sum
                .iter()
                .zip(&tree.own_sq_sum)
                .map(|(&s, &q)| (q / n - (s / n) * (s / n)).max(0.0).sqrt() as f32)
                .collect()
        });
    AnalysisSnapshot {
        visits: root.visits as u64,
        winrate: ((1.0 - root.wl()) / 2.0) as f32,
        score_lead: -root.score() as f32,
        score_stdev: root.score_stdev() as f32,
        moves,
        ownership,
        ownership_stdev,
        elapsed,
    }
}

/// Sorts `moves` by visits (then LCB, then prior), moves the LCB choice to
/// the front, and numbers them.
fn order(moves: &mut [MoveInfo], rank: &Ranking) {
    moves.sort_by(|a, b| {
        b.visits
            .cmp(&a.visits)
            .then(b.lcb.total_cmp(&a.lcb))
            .then(b.prior.total_cmp(&a.prior))
    });
    if rank.lcb_check && !moves.is_empty() {
        let floor = (rank.lcb_min_fraction * moves[0].visits as f64).max(1.0);
        let mut best = 0;
        for (i, m) in moves.iter().enumerate() {
            if m.visits as f64 >= floor && m.lcb > moves[best].lcb {
                best = i;
            }
        }
        moves[..=best].rotate_right(1);
    }
    for (i, m) in moves.iter_mut().enumerate() {
        m.order = i;
    }
}

/// `first`, then the most-visited child at each node below `node`.
/// The principal variation from `first` (leading to `node`), with each
/// node's visits.
fn pv(tree: &Tree, first: Move, node: u32) -> Vec<(Move, u64)> {
    let mut out = vec![(first, tree.nodes[node as usize].visits as u64)];
    let mut n = node;
    while out.len() < MAX_PV {
        let best = tree
            .edges_of(n)
            .iter()
            .filter(|e| e.child != NONE && tree.nodes[e.child as usize].visits > 0)
            .max_by_key(|e| tree.nodes[e.child as usize].visits);
        match best {
            Some(e) => {
                out.push((e.mv, tree.nodes[e.child as usize].visits as u64));
                n = e.child;
            }
            None => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Point;

    fn info(x: usize, visits: u64, lcb: f32) -> MoveInfo {
        MoveInfo {
            mv: Move::Place(Point::new(x, 0)),
            visits,
            winrate: 0.5,
            score_lead: 0.0,
            score_stdev: 0.0,
            prior: 0.1,
            lcb,
            order: 0,
            pv: Vec::new(),
            pv_visits: Vec::new(),
        }
    }

    #[test]
    fn lcb_check_promotes_a_well_visited_safer_move() {
        let rank = Ranking {
            lcb_check: true,
            lcb_z: 2.0,
            lcb_min_fraction: 0.1,
        };
        let mut m = vec![info(0, 100, 0.40), info(1, 60, 0.45), info(2, 5, 0.9)];
        order(&mut m, &rank);
        assert_eq!(m[0].mv, Move::Place(Point::new(1, 0)));
        assert_eq!(m[1].mv, Move::Place(Point::new(0, 0)));
        assert_eq!(m[2].order, 2);
        let mut m = vec![info(0, 100, 0.40), info(1, 60, 0.45)];
        order(
            &mut m,
            &Ranking {
                lcb_check: false,
                ..rank
            },
        );
        assert_eq!(m[0].mv, Move::Place(Point::new(0, 0)));
    }
}
