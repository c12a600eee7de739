//! Deterministic evaluators for search tests and benchmarks.
//!
//! - [`ZeroEvaluator`]: no work at all (uniform policy over every index,
//!   even value, no ownership). Measures pure search overhead.
//! - [`FnEvaluator`]: any per-position closure, for tests that need a
//!   specific prior or value.
//! - [`AreaEvaluator`]: scores the board as it stands (area, stones in
//!   pass-alive enemy territory dead): value from the margin, exact-ish
//!   ownership, uniform policy. Good enough for end-of-game tests.

use super::backup::terminal_result;
use crate::eval::{EvalInput, EvalOutput, Evaluator};

/// Uniform policy over all `size² + 1` indices, value 0.5/0.5, lead 0.
#[derive(Clone, Copy, Debug, Default)]
pub struct ZeroEvaluator;

impl Evaluator for ZeroEvaluator {
    fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
        batch
            .iter()
            .map(|i| {
                let n = i.position.size() * i.position.size() + 1;
                EvalOutput {
                    shortterm_error: None,
                    policy: vec![1.0 / n as f32; n],
                    value: [0.5, 0.5, 0.0],
                    score_lead: 0.0,
                    ownership: None,
                }
            })
            .collect()
    }

    fn max_batch(&self) -> usize {
        1024
    }

    fn name(&self) -> String {
        "zero".to_string()
    }
}

/// An evaluator from a closure over one input.
pub struct FnEvaluator<F>(pub F);

impl<F> Evaluator for FnEvaluator<F>
where
    F: Fn(&EvalInput) -> EvalOutput + Send + Sync,
{
    fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
        batch.iter().map(&self.0).collect()
    }

    fn max_batch(&self) -> usize {
        256
    }

    fn name(&self) -> String {
        "fn".to_string()
    }
}

/// Value, lead and ownership from scoring the board as it stands; uniform
/// policy. The value is `tanh(margin / 2)` for the player to move.
#[derive(Clone, Copy, Debug, Default)]
pub struct AreaEvaluator;

impl Evaluator for AreaEvaluator {
    fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
        batch
            .iter()
            .map(|i| {
                let n = i.position.size() * i.position.size() + 1;
                let (_, margin, own) = terminal_result(&i.position);
                let wl = (margin / 2.0).tanh();
                EvalOutput {
                    shortterm_error: None,
                    policy: vec![1.0 / n as f32; n],
                    value: [(1.0 + wl) / 2.0, (1.0 - wl) / 2.0, 0.0],
                    score_lead: margin,
                    ownership: Some(own),
                }
            })
            .collect()
    }

    fn max_batch(&self) -> usize {
        256
    }

    fn name(&self) -> String {
        "area".to_string()
    }
}
