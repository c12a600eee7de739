//! The search tree: a flat arena of nodes and edges addressed by `u32`
//! indices, the root always at index 0.
//!
//! # Layout
//! - A [`Node`] holds the statistics of one position reached in the tree:
//!   visits, in-flight (virtual-loss) count, and sums of the backed-up
//!   value, its square, the score lead and the utility, all from the view of
//!   the player who *moved into* the node. It also keeps its own evaluation
//!   (used when the tree is full and a visit has to be repeated).
//! - An expanded node owns a contiguous run of [`Edge`]s (move, prior, child
//!   index), sorted by prior, highest first. A child node exists only once
//!   its edge has been selected, so the node count tracks the visits, while
//!   the edges carry the whole move list cheaply (12 bytes each).
//!
//! # Concurrency
//! The tree is plain data with no interior mutability; the search keeps it
//! behind one `Mutex`. Search threads hold the lock only to walk down the
//! tree (a few hundred nanoseconds per leaf) and to expand and back up;
//! everything slow (replaying positions, legality checks, the evaluator)
//! runs outside the lock. With a neural evaluator the lock is held for a
//! tiny fraction of a visit's cost, so one mutex is simpler and safer than
//! per-edge atomics at no measurable price (see `benches/search.rs`).
//!
//! # Memory cap
//! [`Tree::is_full`] becomes true at `max_nodes` nodes. From then on the
//! search creates no nodes: selection considers only existing children, and
//! a node without any is visited again with its stored evaluation. Searching
//! continues in the existing tree; nothing panics and memory stays bounded
//! by about `max_nodes * (size_of::<Node>() + 12 * legal moves)` bytes.

use crate::rules::Move;

/// "No node" marker for [`Edge::child`] and [`Node::parent`].
pub(crate) const NONE: u32 = u32::MAX;

/// Where a node is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// Selected by a search thread, evaluation (or terminal scoring) under way.
    Pending,
    /// Evaluated, edges attached.
    Expanded,
    /// The game is over here (two passes); the exact result is stored.
    Terminal,
}

/// One position in the tree. Sums are from the view of the player who
/// moved into this node (for the root: the opponent of the root's player
/// to move).
#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub parent: u32,
    pub first_edge: u32,
    pub n_edges: u32,
    /// Consecutive passes that led here (capped at 2: terminal).
    pub passes: u8,
    pub state: State,
    pub visits: u32,
    pub in_flight: u32,
    /// The sum of the visits' weights (one each unless the search weighs
    /// evaluations by their uncertainty); the sums below are weighted, and
    /// the means divide by this.
    pub weight: f64,
    pub wl_sum: f64,
    pub wl_sq_sum: f64,
    pub score_sum: f64,
    pub score_sq_sum: f64,
    pub util_sum: f64,
    /// The node's own evaluation (win − loss and score lead) from the view
    /// of the player to move here. For terminal nodes: the exact result.
    pub own_wl: f32,
    pub own_score: f32,
    /// The weight of the node's own evaluation.
    pub own_weight: f32,
    /// The utility of the node's own evaluation, view of the player to
    /// move here (set at expansion; the FPU may use it).
    pub own_util: f32,
    /// The node's subtree-bias key (0: none) and its last contribution to
    /// that entry (`bias` module docs).
    pub bias_key: u64,
    pub bias_delta: f64,
    pub bias_weight: f64,
}

impl Node {
    fn new(parent: u32, passes: u8) -> Node {
        Node {
            parent,
            first_edge: 0,
            n_edges: 0,
            passes,
            state: State::Pending,
            visits: 0,
            in_flight: 0,
            weight: 0.0,
            wl_sum: 0.0,
            wl_sq_sum: 0.0,
            score_sum: 0.0,
            score_sq_sum: 0.0,
            util_sum: 0.0,
            own_wl: 0.0,
            own_score: 0.0,
            own_weight: 1.0,
            own_util: 0.0,
            bias_key: 0,
            bias_delta: 0.0,
            bias_weight: 0.0,
        }
    }

    /// The weighted mean of one of the sums (0 before any visit).
    fn mean(&self, sum: f64) -> f64 {
        if self.weight <= 0.0 {
            0.0
        } else {
            sum / self.weight
        }
    }

    /// Mean win − loss in [-1, 1], view of the player who moved here.
    pub fn wl(&self) -> f64 {
        self.mean(self.wl_sum)
    }

    /// Mean score lead, view of the player who moved here.
    pub fn score(&self) -> f64 {
        self.mean(self.score_sum)
    }

    /// Standard deviation of the score leads backed up through this node
    /// (the spread of the search's estimates, not the net's own score
    /// uncertainty); 0 below two visits.
    pub fn score_stdev(&self) -> f64 {
        if self.visits < 2 || self.weight <= 0.0 {
            return 0.0;
        }
        let n = self.weight;
        let mean = self.score_sum / n;
        (self.score_sq_sum / n - mean * mean).max(0.0).sqrt()
    }

    /// Mean utility, view of the player who moved here.
    pub fn util(&self) -> f64 {
        self.mean(self.util_sum)
    }
}

/// A move from a node: its prior and the child node once created.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge {
    pub mv: Move,
    pub prior: f32,
    pub child: u32,
}

/// The arena. See the module docs.
#[derive(Clone, Debug)]
pub(crate) struct Tree {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    pub max_nodes: usize,
    /// Sum of leaf ownership estimates, view of the root's player to move,
    /// dense index; and how many visits contributed.
    pub own_sum: Vec<f64>,
    /// Sums of squares beside `own_sum`, for the ownership stdev.
    pub own_sq_sum: Vec<f64>,
    pub own_n: u32,
    /// The subtree value bias table (`bias` module docs).
    pub bias: super::bias::Table,
    /// A buffer the backup reuses (children and their weights), so that
    /// recomputing a node's means does not allocate.
    pub scratch: Vec<(f64, u32)>,
}

impl Tree {
    /// A tree holding only an unevaluated root.
    pub fn new(root_passes: u8, max_nodes: usize) -> Tree {
        Tree {
            nodes: vec![Node::new(NONE, root_passes)],
            edges: Vec::new(),
            max_nodes: max_nodes.max(1),
            own_sum: Vec::new(),
            own_sq_sum: Vec::new(),
            own_n: 0,
            bias: Default::default(),
            scratch: Vec::new(),
        }
    }

    #[inline]
    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    /// Plies from the root to `node` (0 for the root).
    pub fn depth(&self, node: u32) -> u32 {
        let mut d = 0;
        let mut i = self.nodes[node as usize].parent;
        while i != NONE {
            d += 1;
            i = self.nodes[i as usize].parent;
        }
        d
    }

    /// Whether the root has been evaluated.
    pub fn root_ready(&self) -> bool {
        self.nodes[0].state != State::Pending
    }

    /// Whether the node cap is reached.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.nodes.len() >= self.max_nodes
    }

    /// Index range of `node`'s edges.
    #[inline]
    pub fn edge_range(&self, node: u32) -> std::ops::Range<usize> {
        let n = &self.nodes[node as usize];
        let a = n.first_edge as usize;
        a..a + n.n_edges as usize
    }

    /// The edges of `node`.
    #[inline]
    pub fn edges_of(&self, node: u32) -> &[Edge] {
        &self.edges[self.edge_range(node)]
    }

    /// The edges of `node` whose child has at least one visit, with that
    /// child, in edge order.
    pub fn visited_children(&self, node: u32) -> impl Iterator<Item = (&Edge, &Node)> {
        self.edges_of(node)
            .iter()
            .filter(|e| e.child != NONE)
            .map(|e| (e, &self.nodes[e.child as usize]))
            .filter(|(_, c)| c.visits > 0)
    }

    /// Creates the child of edge `e` (of node `parent`). `None` when full.
    pub fn add_child(&mut self, parent: u32, e: usize) -> Option<u32> {
        if self.is_full() {
            return None;
        }
        let idx = u32::try_from(self.nodes.len()).ok()?;
        let p = &self.nodes[parent as usize];
        let passes = match self.edges[e].mv {
            Move::Pass => (p.passes + 1).min(2),
            Move::Place(_) => 0,
        };
        self.nodes.push(Node::new(parent, passes));
        self.edges[e].child = idx;
        Some(idx)
    }

    /// Attaches `edges` to the pending `node` and marks it expanded.
    pub fn attach(&mut self, node: u32, edges: &[Edge]) {
        let first = self.edges.len() as u32;
        self.edges.extend_from_slice(edges);
        let n = &mut self.nodes[node as usize];
        n.first_edge = first;
        n.n_edges = edges.len() as u32;
        n.state = State::Expanded;
    }

    /// The child of `node` reached by `mv`, if that node exists.
    pub fn child_by_move(&self, node: u32, mv: Move) -> Option<u32> {
        self.edges_of(node)
            .iter()
            .find(|e| e.mv == mv && e.child != NONE)
            .map(|e| e.child)
    }

    /// Cuts the root's pass child out of the tree: its visits and sums
    /// leave the root's (a pass child's values are the negation of the
    /// root's share of them), and the edge has no child again. The child's
    /// nodes stay in the arena, unreachable. For a search that may not
    /// pass at the root ([`super::Search::bar_root_pass`]): a reused tree
    /// whose last search expected to pass here would otherwise carry those
    /// visits, mostly cheap finished games, in the root's value.
    /// Precondition: no visit is in flight.
    pub fn detach_root_pass(&mut self) {
        let Some(e) = self
            .edge_range(0)
            .find(|&i| self.edges[i].mv == Move::Pass && self.edges[i].child != NONE)
        else {
            return;
        };
        let c = self.nodes[self.edges[e].child as usize].clone();
        self.edges[e].child = NONE;
        let r = &mut self.nodes[0];
        r.visits = r.visits.saturating_sub(c.visits);
        r.weight = (r.weight - c.weight).max(0.0);
        r.wl_sum += c.wl_sum;
        r.wl_sq_sum = (r.wl_sq_sum - c.wl_sq_sum).max(0.0);
        r.score_sum += c.score_sum;
        r.score_sq_sum = (r.score_sq_sum - c.score_sq_sum).max(0.0);
        r.util_sum += c.util_sum;
        if r.visits == 0 || r.weight <= 0.0 {
            r.weight = 0.0;
            r.wl_sum = 0.0;
            r.wl_sq_sum = 0.0;
            r.score_sum = 0.0;
            r.score_sq_sum = 0.0;
            r.util_sum = 0.0;
        }
    }

    /// A new tree holding the subtree under `root` (made the new root);
    /// everything else is dropped. Root ownership sums start afresh; the
    /// subtree bias table keeps the kept nodes' contributions and a fifth
    /// of the others' (`bias` module docs).
    /// Precondition: no visit is in flight.
    pub fn extract(&self, root: u32) -> Tree {
        let mut out = Tree {
            nodes: Vec::new(),
            edges: Vec::new(),
            max_nodes: self.max_nodes,
            own_sum: Vec::new(),
            own_sq_sum: Vec::new(),
            own_n: 0,
            bias: Default::default(),
            scratch: Vec::new(),
        };
        let mut queue = std::collections::VecDeque::new();
        let mut first = self.nodes[root as usize].clone();
        first.parent = NONE;
        out.nodes.push(first);
        queue.push_back((root, 0u32));
        while let Some((old, new)) = queue.pop_front() {
            let range = self.edge_range(old);
            let first_edge = out.edges.len() as u32;
            for e in &self.edges[range] {
                let mut e = *e;
                if e.child != NONE {
                    let idx = out.nodes.len() as u32;
                    let mut child = self.nodes[e.child as usize].clone();
                    child.parent = new;
                    out.nodes.push(child);
                    queue.push_back((e.child, idx));
                    e.child = idx;
                }
                out.edges.push(e);
            }
            out.nodes[new as usize].first_edge = first_edge;
        }
        if !self.bias.is_empty() {
            let mut kept = super::bias::Table::new();
            for n in out.nodes.iter().filter(|n| n.bias_key != 0) {
                let e = kept.entry(n.bias_key).or_default();
                e.delta += n.bias_delta;
                e.weight += n.bias_weight;
            }
            out.bias = super::bias::after_cut(&self.bias, &kept);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Point;

    fn edge(x: usize) -> Edge {
        Edge {
            mv: Move::Place(Point::new(x, 0)),
            prior: 0.5,
            child: NONE,
        }
    }

    #[test]
    fn extract_keeps_the_subtree_only() {
        let mut t = Tree::new(0, 100);
        t.attach(0, &[edge(0), edge(1)]);
        let a = t.add_child(0, 0).unwrap();
        let b = t.add_child(0, 1).unwrap();
        t.attach(a, &[edge(2)]);
        t.attach(b, &[edge(3)]);
        let c = t.add_child(a, t.edge_range(a).start).unwrap();
        t.nodes[c as usize].visits = 7;
        let s = t.extract(a);
        assert_eq!(s.nodes.len(), 2);
        assert_eq!(s.edges.len(), 1);
        assert_eq!(s.nodes[1].visits, 7);
        assert_eq!(s.nodes[1].parent, 0);
        assert_eq!(s.child_by_move(0, Move::Place(Point::new(2, 0))), Some(1));
    }

    #[test]
    fn detaching_the_root_pass_takes_its_visits_out_of_the_root() {
        let mut t = Tree::new(0, 100);
        t.attach(
            0,
            &[
                edge(0),
                Edge {
                    mv: Move::Pass,
                    prior: 0.5,
                    child: NONE,
                },
            ],
        );
        let a = t.add_child(0, 0).unwrap();
        let p = t.add_child(0, 1).unwrap();
        // The root: its own evaluation (+0.2 for its mover), a's 2 visits
        // (+0.5 each for the root's player to move: −0.5 in the root's
        // view) and the pass's 3 visits (+1 each, −1 in the root's view).
        let set = |n: &mut Node, visits: u32, v: f64| {
            n.visits = visits;
            n.weight = visits as f64;
            n.wl_sum = visits as f64 * v;
            n.wl_sq_sum = visits as f64 * v * v;
            n.score_sum = visits as f64 * v * 10.0;
            n.score_sq_sum = visits as f64 * v * v * 100.0;
            n.util_sum = visits as f64 * v;
        };
        set(&mut t.nodes[a as usize], 2, 0.5);
        set(&mut t.nodes[p as usize], 3, 1.0);
        let r = &mut t.nodes[0];
        r.visits = 6;
        r.weight = 6.0;
        r.wl_sum = 0.2 - 2.0 * 0.5 - 3.0;
        r.wl_sq_sum = 0.04 + 2.0 * 0.25 + 3.0;
        r.score_sum = 2.0 - 10.0 - 30.0;
        r.score_sq_sum = 4.0 + 50.0 + 300.0;
        r.util_sum = r.wl_sum;
        t.detach_root_pass();
        let r = t.root();
        assert_eq!(r.visits, 3);
        assert!((r.wl() - (0.2 - 1.0) / 3.0).abs() < 1e-12, "{}", r.wl());
        assert!((r.score() - (2.0 - 10.0) / 3.0).abs() < 1e-12);
        assert!((r.util() - r.wl()).abs() < 1e-12);
        assert!((r.wl_sq_sum - 0.54).abs() < 1e-12);
        assert_eq!(t.child_by_move(0, Move::Pass), None);
        assert_eq!(t.child_by_move(0, Move::Place(Point::new(0, 0))), Some(a));
        // Nothing left to detach: a no-op.
        let before = t.root().visits;
        t.detach_root_pass();
        assert_eq!(t.root().visits, before);
    }

    #[test]
    fn full_tree_creates_no_nodes() {
        let mut t = Tree::new(0, 2);
        t.attach(0, &[edge(0), edge(1)]);
        assert!(t.add_child(0, 0).is_some());
        assert!(t.is_full());
        assert!(t.add_child(0, 1).is_none());
    }
}
