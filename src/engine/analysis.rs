//! What the engine reports while it thinks: per-move statistics and the
//! root's value, in the shape `lz-analyze` and `kata-analyze` print.

use crate::rules::Move;

/// Statistics of one candidate move.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveInfo {
    pub mv: Move,
    pub visits: u32,
    /// Win probability for the player to move after choosing this move.
    pub winrate: f32,
    /// Expected lead in points for the player to move.
    pub score_lead: f32,
    /// The evaluator's prior.
    pub prior: f32,
    /// Lower confidence bound of the winrate.
    pub lcb: f32,
    /// Rank, 0 = best.
    pub order: usize,
    /// Principal variation, starting with `mv`.
    pub pv: Vec<Move>,
}

impl MoveInfo {
    /// A move with a prior and no visits yet.
    pub fn unvisited(mv: Move, prior: f32) -> MoveInfo {
        MoveInfo {
            mv,
            visits: 0,
            winrate: 0.5,
            score_lead: 0.0,
            prior,
            lcb: 0.0,
            order: 0,
            pv: vec![mv],
        }
    }
}

/// One analysis snapshot, moves best first.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalysisInfo {
    pub moves: Vec<MoveInfo>,
    /// Total visits (evaluations below the root) so far.
    pub visits: u32,
    /// Win probability of the player the analysis is for.
    pub root_winrate: f32,
    /// Expected lead in points of that player.
    pub root_score_lead: f32,
    /// `size * size` entries, +1 = Black owns (dense index), if known.
    pub ownership: Option<Vec<f32>>,
}
