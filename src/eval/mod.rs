//! The evaluator interface: a batch of positions in, a batch of policy,
//! value, score and ownership estimates out.
//!
//! The neural net, the batcher and the cache all implement [`Evaluator`];
//! the engine and the search know only this trait. [`fake`] holds
//! deterministic evaluators for tests and for play before a net exists;
//! [`cache`] remembers outputs in front of any evaluator; [`komi_curve`]
//! checks how a net's answers move with komi and rules (issue 15's floor).
//!
//! Conventions: every estimate is from the view of the player to move in
//! [`EvalInput::position`]; the policy is dense (`p.dense(size)` for a
//! point, `size * size` for the pass).

pub mod batch_queue;
pub mod by_size;
pub mod cache;
pub mod fake;
pub mod komi_curve;

use crate::rules::{Board, Color, Move, Position};

/// How many recent moves an [`EvalInput`] carries at most.
pub const RECENT_MOVES: usize = 8;

/// How many earlier boards an [`EvalInput`] carries at most.
pub const PREV_BOARDS: usize = 2;

/// One position to evaluate, with the context a net's inputs need beyond
/// the position itself. Build it with [`EvalInput::new`] and the `with_`
/// methods; evaluators that do not need the context ignore it.
#[derive(Clone, Debug)]
pub struct EvalInput {
    pub position: Position,
    /// The moves that led here, newest last, at most [`RECENT_MOVES`], and
    /// only those since the last setup edit (handicap stones, `play` out of
    /// turn is fine; stones placed by editing the board end the history).
    pub recent: Vec<(Color, Move)>,
    /// The boards before the last move and before the last two moves,
    /// newest first, at most [`PREV_BOARDS`]; fewer (or none) when not
    /// known. They match the tail of `recent`.
    pub prev_boards: Vec<Board>,
    /// Points White receives for Black's handicap stones (on top of komi).
    pub handicap_bonus: f32,
    /// KataGo's `friendlyPassOk`: a single pass does not invite the
    /// opponent to end the game. On by default (the rules this engine
    /// plays); it only changes what a net sees after one pass.
    pub friendly_pass_ok: bool,
    /// How far a net's policy moves from its main head towards its
    /// optimistic head (KataGo's `policyOptimism`): 0 the main policy, 1
    /// the optimistic one. Nets without that head ignore it.
    pub policy_optimism: f32,
    /// Run the net under a random one of the board's eight symmetries
    /// instead of the evaluator's own choice (KataGo's `nnRandomize`):
    /// the search then averages over the net's orientation-dependent
    /// errors instead of repeating one. Evaluators without symmetries
    /// ignore it.
    pub random_symmetry: bool,
}

impl EvalInput {
    /// An input without move history, earlier boards or handicap bonus.
    pub fn new(position: Position) -> EvalInput {
        EvalInput {
            position,
            recent: Vec::new(),
            prev_boards: Vec::new(),
            handicap_bonus: 0.0,
            friendly_pass_ok: true,
            policy_optimism: 0.0,
            random_symmetry: false,
        }
    }

    /// With the moves that led here (newest last).
    pub fn with_recent(mut self, recent: Vec<(Color, Move)>) -> EvalInput {
        self.recent = recent;
        self
    }

    /// With the earlier boards (newest first); extra ones are dropped.
    pub fn with_prev_boards(mut self, mut boards: Vec<Board>) -> EvalInput {
        boards.truncate(PREV_BOARDS);
        self.prev_boards = boards;
        self
    }

    /// With White's handicap bonus in points.
    pub fn with_handicap_bonus(mut self, bonus: f32) -> EvalInput {
        self.handicap_bonus = bonus;
        self
    }

    /// With the policy's optimism (see [`EvalInput::policy_optimism`]).
    pub fn with_policy_optimism(mut self, optimism: f32) -> EvalInput {
        self.policy_optimism = optimism;
        self
    }

    /// With a random symmetry per evaluation (see
    /// [`EvalInput::random_symmetry`]).
    pub fn with_random_symmetry(mut self, random: bool) -> EvalInput {
        self.random_symmetry = random;
        self
    }
}

/// The evaluation of one position.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalOutput {
    /// `size * size + 1` probabilities, pass last, indexed by
    /// [`policy_index`]; sums to 1 over the legal moves.
    pub policy: Vec<f32>,
    /// Win, loss and no-result probabilities for the player to move.
    pub value: [f32; 3],
    /// Expected score lead in points for the player to move.
    pub score_lead: f32,
    /// `size * size` entries in [-1, 1]: +1 means the player to move owns
    /// the point. `None` when the evaluator does not estimate ownership.
    pub ownership: Option<Vec<f32>>,
    /// The net's estimate of how far its value (win − loss) and score lead
    /// are from what a short search would find (KataGo's short-term error
    /// heads), when it was trained to give one; the search can weigh
    /// uncertain evaluations less.
    pub shortterm_error: Option<[f32; 2]>,
}

/// A batch evaluator. Implementations are thread-safe; `evaluate` blocks
/// until the whole batch is done.
pub trait Evaluator: Send + Sync {
    /// Evaluates `batch` (at most [`Evaluator::max_batch`] inputs) and
    /// returns one output per input, in order.
    fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput>;
    /// The largest batch `evaluate` accepts.
    fn max_batch(&self) -> usize;
    /// A short name for logs and `version` output.
    fn name(&self) -> String;
    /// True when calls from different threads run side by side, each on
    /// the calling thread's own core (the fast CPU path). A search then
    /// lets every thread make its own calls instead of gathering all
    /// threads' leaves into one call, which would run on one core while
    /// the other threads wait. False (the default) for evaluators that
    /// spread one call over the machine (burn, a GPU) or are too cheap to
    /// matter.
    fn parallel_calls(&self) -> bool {
        false
    }
}

/// Index of `mv` in a dense policy vector for a board of `size`.
#[inline]
pub fn policy_index(mv: Move, size: usize) -> usize {
    match mv {
        Move::Place(p) => p.dense(size),
        Move::Pass => size * size,
    }
}

/// Evaluates any number of inputs by splitting them into batches of at
/// most `eval.max_batch()`.
pub fn evaluate_all(eval: &dyn Evaluator, inputs: &[EvalInput]) -> Vec<EvalOutput> {
    let n = eval.max_batch().max(1);
    inputs.chunks(n).flat_map(|c| eval.evaluate(c)).collect()
}
