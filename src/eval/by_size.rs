//! Routing by board size: one evaluator for small boards, another for
//! large ones (the shipped 9×9 and 19×19 nets). A batch that mixes sizes
//! is split and the outputs are put back in input order.

use std::sync::Arc;

use super::{EvalInput, EvalOutput, Evaluator};

/// See the module docs.
pub struct BySizeEvaluator {
    small: Arc<dyn Evaluator>,
    large: Arc<dyn Evaluator>,
    /// Boards up to this size go to `small`.
    max_small: usize,
}

impl BySizeEvaluator {
    pub fn new(
        small: Arc<dyn Evaluator>,
        large: Arc<dyn Evaluator>,
        max_small: usize,
    ) -> BySizeEvaluator {
        BySizeEvaluator {
            small,
            large,
            max_small,
        }
    }

    fn is_small(&self, input: &EvalInput) -> bool {
        input.position.size() <= self.max_small
    }
}

impl Evaluator for BySizeEvaluator {
    fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
        let small: Vec<bool> = batch.iter().map(|i| self.is_small(i)).collect();
        if small.iter().all(|&s| s) {
            return self.small.evaluate(batch);
        }
        if small.iter().all(|&s| !s) {
            return self.large.evaluate(batch);
        }
        let pick = |want: bool| -> Vec<EvalInput> {
            batch
                .iter()
                .zip(&small)
                .filter(|&(_, &s)| s == want)
                .map(|(i, _)| i.clone())
                .collect()
        };
        let mut from_small = super::evaluate_all(&*self.small, &pick(true)).into_iter();
        let mut from_large = super::evaluate_all(&*self.large, &pick(false)).into_iter();
        small
            .iter()
            .filter_map(|&s| {
                if s {
                    from_small.next()
                } else {
                    from_large.next()
                }
            })
            .collect()
    }

    fn max_batch(&self) -> usize {
        self.small.max_batch().min(self.large.max_batch()).max(1)
    }

    fn parallel_calls(&self) -> bool {
        self.small.parallel_calls() && self.large.parallel_calls()
    }

    fn name(&self) -> String {
        format!(
            "{} (boards up to {}x{}), {} (larger)",
            self.small.name(),
            self.max_small,
            self.max_small,
            self.large.name()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Position, Ruleset};

    /// Answers with a score lead that names it and the board size.
    struct Tagged(f32);
    impl Evaluator for Tagged {
        fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
            batch
                .iter()
                .map(|i| {
                    let mut o =
                        crate::eval::fake::UniformEvaluator.evaluate(std::slice::from_ref(i));
                    let mut o = o.remove(0);
                    o.score_lead = self.0 + i.position.size() as f32 / 100.0;
                    o
                })
                .collect()
        }
        fn max_batch(&self) -> usize {
            4
        }
        fn name(&self) -> String {
            format!("tagged {}", self.0)
        }
    }

    fn input(size: usize) -> EvalInput {
        EvalInput::new(Position::new(size, Ruleset::default()).unwrap())
    }

    #[test]
    fn mixed_batches_are_routed_and_kept_in_order() {
        let e = BySizeEvaluator::new(Arc::new(Tagged(0.1)), Arc::new(Tagged(0.5)), 13);
        let sizes = [9, 19, 13, 19, 7, 9];
        let batch: Vec<_> = sizes.iter().map(|&s| input(s)).collect();
        let out = e.evaluate(&batch);
        let values: Vec<f32> = out.iter().map(|o| o.score_lead).collect();
        let want: Vec<f32> = sizes
            .iter()
            .map(|&s| if s <= 13 { 0.1 } else { 0.5 } + s as f32 / 100.0)
            .collect();
        assert_eq!(values, want);
        assert_eq!(e.max_batch(), 4);
        assert_eq!(e.evaluate(&[input(19)])[0].score_lead, 0.5 + 0.19);
    }
}
