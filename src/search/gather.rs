//! One search thread's work: gather leaves under virtual loss, evaluate
//! them through the shared [`Batcher`], expand and back up.
//!
//! A *round* takes the tree lock, walks down the tree up to
//! `leaves_per_round` times (each walk marks its path in flight), releases
//! the lock, replays the leaves' positions, scores finished games exactly,
//! sends the rest to the batcher in one request, and takes the lock again
//! to attach edges and back up. Terminal nodes already scored, and repeat
//! visits in a full tree, are backed up during the walk itself. A walk that
//! meets a leaf another walk is already evaluating (a collision) is undone
//! and ends the gathering for this round.
//!
//! [`work`] loops rounds until the stop flag, the deadline or the visit
//! budget ends the search (checked between rounds). Under a deadline a
//! round gathers only as many leaves as the evaluator can finish in time,
//! counting those other threads have in flight, by the batcher's
//! [`CostMeter`](super::batcher::CostMeter): a slow net ends its search
//! early instead of overrunning the clock by a batch. Only the root's
//! first visit is made whatever the deadline (the engine checks that one
//! evaluation fits before it searches).
//! A thread that only collides sleeps briefly and retries; the batcher's
//! timeout keeps the thread it waits on from stalling. It blocks; any number of threads may run it on
//! the same [`Ctx`].

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::backup::{
    backup, bias_of, legal_edges, terminal_result, undo_virtual_loss, Utility, Visit,
};
use super::batcher::Batcher;
use super::bias;
use super::select::{select_edge, Puct};
use super::tree::{State, Tree, NONE};
use crate::eval::{EvalInput, PREV_BOARDS, RECENT_MOVES};
use crate::rules::{Board, Color, Move, Position};

/// What every search thread shares during one `run`.
pub(crate) struct Ctx<'a> {
    pub tree: Mutex<Tree>,
    pub batcher: Batcher<'a>,
    pub puct: Puct,
    pub utility: Utility,
    pub root: &'a Position,
    pub recent: &'a [(Color, Move)],
    /// The boards before the root's last moves, newest first.
    pub root_prev: &'a [Board],
    /// White's handicap bonus, for the evaluator.
    pub handicap_bonus: f32,
    /// Policy optimism for the evaluator: (at the root, elsewhere).
    pub optimism: (f32, f32),
    /// Each evaluation under a random symmetry.
    pub random_symmetry: bool,
    pub leaves_per_round: usize,
    pub stop: &'a AtomicBool,
    pub deadline: Option<Instant>,
    /// Stop when the root has this many visits (in flight included).
    pub max_visits: Option<u64>,
    /// Stop after this many visits started by this run.
    pub max_playouts: Option<u64>,
    /// Visits started by this run (changed under the tree lock only).
    pub started: AtomicU64,
    /// Stop once the root's choice is decided (`SearchConfig::early_stop`).
    pub early_stop: bool,
    /// When this run began.
    pub start: Instant,
    /// Positions gathered for the evaluator and not yet back (changed
    /// under the tree lock when gathering).
    pub pending: AtomicUsize,
    /// Root children fixed in advance (Gumbel's Sequential Halving,
    /// `gumbel.rs`); `None`: PUCT chooses at the root too.
    pub root_plan: Option<RootPlan>,
}

/// The root edges a run's descents follow, in order, instead of PUCT at
/// the root (below the root PUCT still chooses). A descent takes the next
/// entry; one that collides gives it back. The budget ends when every
/// entry is taken.
pub(crate) struct RootPlan {
    /// Indices into `Tree::edges` of root edges.
    pub edges: Vec<usize>,
    /// The next entry to take (changed under the tree lock only).
    pub next: AtomicUsize,
}

impl RootPlan {
    pub fn new(edges: Vec<usize>) -> RootPlan {
        RootPlan {
            edges,
            next: AtomicUsize::new(0),
        }
    }

    fn take(&self) -> Option<usize> {
        let i = self.next.load(Ordering::Relaxed);
        let e = *self.edges.get(i)?;
        self.next.store(i + 1, Ordering::Relaxed);
        Some(e)
    }

    fn give_back(&self) {
        let i = self.next.load(Ordering::Relaxed);
        self.next.store(i.saturating_sub(1), Ordering::Relaxed);
    }

    fn exhausted(&self) -> bool {
        self.next.load(Ordering::Relaxed) >= self.edges.len()
    }
}

/// Kept free before a deadline beyond the predicted evaluator time: the
/// batcher's wait for a fuller batch and the backup after it.
const DEADLINE_MARGIN: Duration = Duration::from_millis(3);

/// An exact game result: win − loss, margin, ownership (player to move).
type Terminal = (f32, f32, Vec<f32>);

/// A leaf that needs work outside the lock.
struct Leaf {
    node: u32,
    path: Vec<Move>,
    terminal: bool,
}

enum Descent {
    Leaf(Leaf),
    /// A visit completed during the walk (terminal node, full tree).
    Done,
    Collision,
}

/// What a round achieved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Round {
    /// Some visits were made.
    Progress,
    /// Nothing could be gathered now (collisions); try again shortly.
    Idle,
    /// The budget is spent.
    Finished,
}

impl Ctx<'_> {
    pub fn lock(&self) -> MutexGuard<'_, Tree> {
        self.tree.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the stop flag or the deadline ends the search.
    pub fn halted(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Whether an evaluator call of `n` positions, started now, ends
    /// before the deadline (with a 15% and [`DEADLINE_MARGIN`] reserve).
    /// Always true without a deadline or before any call was measured.
    fn eval_fits(&self, n: usize) -> bool {
        let (Some(d), Some(cost)) = (self.deadline, self.batcher.meter().predict(n)) else {
            return true;
        };
        cost.mul_f64(1.15) + DEADLINE_MARGIN <= d.saturating_duration_since(Instant::now())
    }

    fn budget_left(&self, tree: &Tree) -> bool {
        if self.root_plan.as_ref().is_some_and(|p| p.exhausted()) {
            return false;
        }
        let r = tree.root();
        if let Some(v) = self.max_visits {
            if (r.visits + r.in_flight) as u64 >= v {
                return false;
            }
        }
        if let Some(p) = self.max_playouts {
            if self.started.load(Ordering::Relaxed) >= p {
                return false;
            }
        }
        !(self.early_stop && self.decided(tree))
    }

    /// Whether the most visited root move leads the next by more visits
    /// than the bounds still allow, so more search cannot change it.
    fn decided(&self, tree: &Tree) -> bool {
        let r = tree.root();
        let started = self.started.load(Ordering::Relaxed);
        let mut left: Option<u64> = None;
        let mut bound = |n: u64| left = Some(left.map_or(n, |l| l.min(n)));
        if let Some(v) = self.max_visits {
            bound(v.saturating_sub((r.visits + r.in_flight) as u64));
        }
        if let Some(p) = self.max_playouts {
            bound(p.saturating_sub(started));
        }
        if let Some(d) = self.deadline {
            let now = Instant::now();
            let spent = now.saturating_duration_since(self.start).as_secs_f64();
            // Too early to know the rate: keep searching.
            if started < 32 || spent < 0.05 {
                return false;
            }
            let rest = d.saturating_duration_since(now).as_secs_f64();
            bound((started as f64 * rest / spent).ceil() as u64);
        }
        let Some(left) = left else {
            return false;
        };
        let (mut first, mut second) = (0u64, 0u64);
        for e in tree.edges_of(0) {
            if e.child == NONE {
                continue;
            }
            let c = &tree.nodes[e.child as usize];
            let v = (c.visits + c.in_flight) as u64;
            if v > first {
                second = first;
                first = v;
            } else if v > second {
                second = v;
            }
        }
        first > second + left
    }
}

/// Runs rounds until the search ends, calling `between` after each round
/// (the reporting hook; runs on this thread). Leaves the batcher at the
/// end. Blocks.
pub(crate) fn work(ctx: &Ctx, mut between: impl FnMut()) {
    loop {
        if ctx.halted() {
            break;
        }
        match round(ctx) {
            Round::Finished => break,
            Round::Idle => std::thread::sleep(std::time::Duration::from_micros(20)),
            Round::Progress => {}
        }
        between();
    }
    ctx.batcher.leave();
}

/// One round; see the module docs. `force_one` makes the round gather at
/// least one leaf even when the budget is spent (the root's first visit).
pub(crate) fn round_with(ctx: &Ctx, force_one: bool) -> Round {
    let mut leaves: Vec<Leaf> = Vec::new();
    let mut done = 0usize;
    {
        let mut tree = ctx.lock();
        let mut out_of_time = false;
        for _ in 0..ctx.leaves_per_round.max(1) {
            let forced = force_one && leaves.is_empty() && done == 0;
            if !(ctx.budget_left(&tree) || forced) {
                break;
            }
            let pending = ctx.pending.load(Ordering::Relaxed);
            if !forced && !ctx.eval_fits(pending + 1) {
                out_of_time = true;
                break;
            }
            match descend(&mut tree, ctx) {
                Descent::Leaf(l) => {
                    ctx.started.fetch_add(1, Ordering::Relaxed);
                    if !l.terminal {
                        ctx.pending.fetch_add(1, Ordering::Relaxed);
                    }
                    leaves.push(l);
                }
                Descent::Done => {
                    ctx.started.fetch_add(1, Ordering::Relaxed);
                    done += 1;
                }
                Descent::Collision => break,
            }
        }
        if leaves.is_empty() && done == 0 {
            return if ctx.budget_left(&tree) && !out_of_time {
                Round::Idle
            } else {
                Round::Finished
            };
        }
    }
    if leaves.is_empty() {
        return Round::Progress;
    }

    // Replay positions, score terminal leaves, evaluate the rest.
    let root_color = ctx.root.to_move();
    let mut inputs: Vec<EvalInput> = Vec::new();
    let mut eval_nodes: Vec<u32> = Vec::new();
    let mut bias_keys: Vec<u64> = Vec::new();
    let mut terminal: Vec<(u32, Terminal, bool)> = Vec::new();
    for leaf in leaves {
        let mut pos = ctx.root.clone();
        let mut recent = ctx.recent.to_vec();
        // Boards before the leaf's last moves, newest first (the root's
        // own earlier boards when the path is short).
        let mut prev: Vec<Board> = Vec::new();
        let n = leaf.path.len();
        let mut bias_key = 0;
        for (i, &mv) in leaf.path.iter().enumerate() {
            if ctx.utility.subtree_bias > 0.0 && !leaf.terminal && i + 1 == n {
                let before = recent.last().map(|&(_, m)| m);
                bias_key = bias::key(&pos, mv, before).unwrap_or(0);
            }
            recent.push((pos.to_move(), mv));
            if !leaf.terminal && i + PREV_BOARDS >= n {
                prev.insert(0, pos.board().clone());
            }
            pos.play_unchecked(mv);
        }
        let flip = pos.to_move() != root_color;
        if leaf.terminal {
            terminal.push((leaf.node, terminal_result(&pos), flip));
        } else {
            let skip = recent.len().saturating_sub(RECENT_MOVES);
            recent.drain(..skip);
            prev.extend(ctx.root_prev.iter().take(PREV_BOARDS - prev.len()).cloned());
            inputs.push(
                EvalInput::new(pos)
                    .with_recent(recent)
                    .with_prev_boards(prev)
                    .with_handicap_bonus(ctx.handicap_bonus)
                    .with_policy_optimism(if leaf.node == 0 {
                        ctx.optimism.0
                    } else {
                        ctx.optimism.1
                    })
                    .with_random_symmetry(ctx.random_symmetry),
            );
            eval_nodes.push(leaf.node);
            bias_keys.push(bias_key);
        }
    }
    let (inputs, outputs) = ctx.batcher.evaluate(inputs);
    ctx.pending.fetch_sub(inputs.len(), Ordering::Relaxed);
    let edges: Vec<_> = inputs
        .iter()
        .zip(&outputs)
        .map(|(i, o)| legal_edges(&i.position, &o.policy))
        .collect();

    let mut tree = ctx.lock();
    for (node, (wl, score, own), flip) in terminal {
        let n = &mut tree.nodes[node as usize];
        n.state = State::Terminal;
        n.own_wl = wl;
        n.own_score = score;
        let w = ctx.utility.terminal_weight();
        n.own_weight = w as f32;
        backup(
            &mut tree,
            node,
            Visit::new(wl, score, w),
            Some((&own, flip)),
            &ctx.utility,
        );
    }
    for ((((node, input), out), edges), bias_key) in eval_nodes
        .into_iter()
        .zip(&inputs)
        .zip(&outputs)
        .zip(edges)
        .zip(bias_keys)
    {
        let wl = out.value[0] - out.value[1];
        let wl = if wl.is_finite() {
            wl.clamp(-1.0, 1.0)
        } else {
            0.0
        };
        let score = if out.score_lead.is_finite() {
            out.score_lead
        } else {
            0.0
        };
        tree.attach(node, &edges);
        // Whether the player to move here is the root's (only the dynamic
        // score term, centred on the root player's score, tells).
        let root_view = ctx.utility.dyn_weight == 0.0 || tree.depth(node).is_multiple_of(2);
        let w = ctx
            .utility
            .eval_weight(out.shortterm_error, score as f64, root_view);
        let n = &mut tree.nodes[node as usize];
        n.own_wl = wl;
        n.own_score = score;
        n.own_weight = w as f32;
        n.own_util = ctx.utility.of(wl as f64, score as f64, root_view) as f32;
        let flip = input.position.to_move() != root_color;
        let own = out.ownership.as_deref().map(|o| (o, flip));
        n.bias_key = bias_key;
        let bias = bias_of(&tree, node, &ctx.utility);
        let visit = Visit::new(wl, score, w).with_bias(bias);
        backup(&mut tree, node, visit, own, &ctx.utility);
    }
    Round::Progress
}

fn round(ctx: &Ctx) -> Round {
    round_with(ctx, false)
}

/// Walks from the root to a leaf, marking the path in flight.
fn descend(tree: &mut Tree, ctx: &Ctx) -> Descent {
    let mut node = 0u32;
    let mut path: Vec<Move> = Vec::new();
    // Whether this descent took an entry of the root plan.
    let mut planned = false;
    loop {
        let n = &tree.nodes[node as usize];
        let (state, in_flight, parent, passes) = (n.state, n.in_flight, n.parent, n.passes);
        // A repeated visit of this node counts its own evaluation again.
        let again = Visit::new(n.own_wl, n.own_score, n.own_weight as f64);
        match state {
            State::Pending => {
                if in_flight > 0 {
                    if parent != NONE {
                        undo_virtual_loss(tree, parent);
                    }
                    if planned {
                        if let Some(p) = &ctx.root_plan {
                            p.give_back();
                        }
                    }
                    return Descent::Collision;
                }
                // The unevaluated root.
                tree.nodes[node as usize].in_flight += 1;
                return Descent::Leaf(Leaf {
                    node,
                    path,
                    terminal: passes >= 2,
                });
            }
            State::Terminal => {
                tree.nodes[node as usize].in_flight += 1;
                backup(tree, node, again, None, &ctx.utility);
                return Descent::Done;
            }
            State::Expanded => {
                tree.nodes[node as usize].in_flight += 1;
                let allow_new = !tree.is_full();
                let choice = match &ctx.root_plan {
                    Some(plan) if node == 0 => {
                        let Some(e) = plan.take() else {
                            // Plan spent (the budget check comes first).
                            undo_virtual_loss(tree, 0);
                            return Descent::Collision;
                        };
                        planned = true;
                        Some(e)
                    }
                    _ => select_edge(tree, node, &ctx.puct, allow_new),
                };
                let Some(e) = choice else {
                    // Full tree and no child yet: visit this node again.
                    backup(tree, node, again, None, &ctx.utility);
                    return Descent::Done;
                };
                let edge = tree.edges[e];
                path.push(edge.mv);
                if edge.child != NONE {
                    node = edge.child;
                    continue;
                }
                let Some(child) = tree.add_child(node, e) else {
                    backup(tree, node, again, None, &ctx.utility);
                    return Descent::Done;
                };
                let c = &mut tree.nodes[child as usize];
                c.in_flight = 1;
                let terminal = c.passes >= 2;
                return Descent::Leaf(Leaf {
                    node: child,
                    path,
                    terminal,
                });
            }
        }
    }
}
