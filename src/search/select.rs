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
//! An unvisited child gets `Q = Q(node) - reduction * sqrt(visited prior
//! mass)` (first-play urgency, FPU; the root has its own reduction). Each
//! in-flight visit of a child counts as `virtual_loss` visits that lost, so
//! parallel gatherers spread out. Ties go to the higher prior (edges are
//! sorted by prior), so selection is deterministic.
//!
//! Pure functions over a locked [`Tree`]; no allocation.

use super::tree::{Tree, NONE};

/// The selection parameters (a copy of the relevant config fields).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Puct {
    pub c_init: f64,
    pub c_log: f64,
    pub c_base: f64,
    pub fpu_reduction: f64,
    pub root_fpu_reduction: f64,
    pub virtual_loss: f64,
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
    for e in &tree.edges[range.clone()] {
        if e.child != NONE {
            let c = &tree.nodes[e.child as usize];
            if c.visits + c.in_flight > 0 {
                visited_mass += e.prior as f64;
            }
        }
    }
    let reduction = if node == 0 {
        puct.root_fpu_reduction
    } else {
        puct.fpu_reduction
    };
    let fpu = parent_q - reduction * visited_mass.sqrt();
    let explore = puct.c(parent_n) * parent_n.max(1.0).sqrt();
    let mut best: Option<(usize, f64)> = None;
    let mut seen_unvisited = false;
    for i in range {
        let e = &tree.edges[i];
        let (q, visits) = if e.child != NONE {
            let c = &tree.nodes[e.child as usize];
            let vl = puct.virtual_loss * c.in_flight as f64;
            let nv = c.visits as f64 + vl;
            if nv > 0.0 {
                ((c.util_sum - vl) / nv, nv)
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
        }
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
}
