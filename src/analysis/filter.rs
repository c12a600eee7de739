//! `avoidMoves` / `allowMoves`: a per-query evaluator decorator that marks
//! barred moves with a negative prior, which the search reads as "no such
//! edge": a barred move is never searched.
//!
//! A move is barred for a player while the position is fewer than
//! `untilDepth` plies below the query's root (depth 0 is the root). The
//! depth is read from the position's history length, which the search
//! extends by one per ply. Passing stays possible (a barred pass only
//! gets a zero prior), so a node always has a move.

use std::sync::Arc;

use crate::eval::{EvalInput, EvalOutput, Evaluator};
use crate::rules::Position;

/// Per colour (`Color::index`): for each policy index, the depth before
/// which the move is barred (0: never).
pub type Masks = [Option<Vec<u32>>; 2];

/// See the module docs.
pub struct MaskedEvaluator {
    inner: Arc<dyn Evaluator>,
    root_len: usize,
    masks: Masks,
}

impl MaskedEvaluator {
    /// Masks `inner`'s policy for searches rooted at `root`.
    pub fn new(inner: Arc<dyn Evaluator>, root: &Position, masks: Masks) -> MaskedEvaluator {
        MaskedEvaluator {
            inner,
            root_len: root.history().len(),
            masks,
        }
    }
}

/// Whether `index` is barred at `depth` for the mask's player.
#[inline]
pub fn barred(mask: &[u32], index: usize, depth: usize) -> bool {
    mask.get(index).is_some_and(|&d| depth < d as usize)
}

impl Evaluator for MaskedEvaluator {
    fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
        let mut out = self.inner.evaluate(batch);
        for (input, o) in batch.iter().zip(out.iter_mut()) {
            let pos = &input.position;
            let Some(mask) = &self.masks[pos.to_move().index()] else {
                continue;
            };
            let depth = pos.history().len().saturating_sub(self.root_len);
            let pass = pos.size() * pos.size();
            for (i, p) in o.policy.iter_mut().enumerate() {
                if barred(mask, i, depth) {
                    *p = if i == pass { 0.0 } else { -1.0 };
                }
            }
        }
        out
    }

    fn max_batch(&self) -> usize {
        self.inner.max_batch()
    }

    fn parallel_calls(&self) -> bool {
        self.inner.parallel_calls()
    }

    fn name(&self) -> String {
        self.inner.name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::fake::UniformEvaluator;
    use crate::rules::{Color, Move, Point, Ruleset};

    #[test]
    fn masks_only_the_barred_player_above_the_depth() {
        let root = Position::new(5, Ruleset::chinese()).unwrap();
        let mut mask = vec![0; 26];
        mask[0] = 1;
        let m = MaskedEvaluator::new(Arc::new(UniformEvaluator), &root, [Some(mask), None]);
        let out = m.evaluate(&[EvalInput::new(root.clone())]);
        assert_eq!(out[0].policy[0], -1.0, "barred: no edge");
        assert!(out[0].policy[1] > 0.0);
        // Two plies down, Black again: depth 2 is past untilDepth 1.
        let mut deeper = root.clone();
        deeper
            .play(Color::Black, Move::Place(Point::new(2, 2)))
            .unwrap();
        deeper
            .play(Color::White, Move::Place(Point::new(3, 3)))
            .unwrap();
        let out = m.evaluate(&[EvalInput::new(deeper)]);
        assert!(out[0].policy[0] > 0.0);
    }
}
