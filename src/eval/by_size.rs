//! Routing by board size: each evaluator plays the boards up to its size
//! bound (the shipped 9×9, 13×13 and 19×19 nets). A batch that mixes
//! sizes is split by route and the outputs are put back in input order.

use std::sync::Arc;

use super::{EvalInput, EvalOutput, Evaluator};

/// See the module docs.
pub struct BySizeEvaluator {
    /// `(largest board, evaluator)` by increasing bound; the last route
    /// also takes every board larger than its bound.
    routes: Vec<(usize, Arc<dyn Evaluator>)>,
}

impl BySizeEvaluator {
    /// Routes boards up to each bound to its evaluator (sorted here by
    /// bound). Panics when `routes` is empty: that is a caller's bug, not
    /// an input.
    pub fn new(mut routes: Vec<(usize, Arc<dyn Evaluator>)>) -> BySizeEvaluator {
        assert!(!routes.is_empty(), "BySizeEvaluator needs a route");
        routes.sort_by_key(|r| r.0);
        BySizeEvaluator { routes }
    }

    /// The route that plays boards of `size`.
    pub fn route(&self, size: usize) -> usize {
        route_for(self.routes.iter().map(|r| r.0), size)
    }
}

/// Which of the routes with these bounds (increasing) plays boards of
/// `size`: the first whose bound is at least `size`, else the last.
pub fn route_for(bounds: impl ExactSizeIterator<Item = usize>, size: usize) -> usize {
    let n = bounds.len();
    bounds
        .enumerate()
        .find(|&(_, max)| size <= max)
        .map_or(n.saturating_sub(1), |(i, _)| i)
}

impl Evaluator for BySizeEvaluator {
    fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
        let route: Vec<usize> = batch
            .iter()
            .map(|i| self.route(i.position.size()))
            .collect();
        if let Some(&first) = route.first() {
            if route.iter().all(|&r| r == first) {
                return self.routes[first].1.evaluate(batch);
            }
        }
        let mut outputs: Vec<Option<EvalOutput>> = vec![None; batch.len()];
        for (r, (_, eval)) in self.routes.iter().enumerate() {
            let slots: Vec<usize> = (0..batch.len()).filter(|&i| route[i] == r).collect();
            if slots.is_empty() {
                continue;
            }
            let inputs: Vec<EvalInput> = slots.iter().map(|&i| batch[i].clone()).collect();
            for (slot, out) in slots.into_iter().zip(super::evaluate_all(&**eval, &inputs)) {
                outputs[slot] = Some(out);
            }
        }
        outputs.into_iter().flatten().collect()
    }

    fn max_batch(&self) -> usize {
        self.routes
            .iter()
            .map(|r| r.1.max_batch())
            .min()
            .unwrap_or(1)
            .max(1)
    }

    fn parallel_calls(&self) -> bool {
        self.routes.iter().all(|r| r.1.parallel_calls())
    }

    fn name(&self) -> String {
        let last = self.routes.len() - 1;
        self.routes
            .iter()
            .enumerate()
            .map(|(i, (max, e))| {
                if i == last && i > 0 {
                    format!("{} (larger)", e.name())
                } else {
                    format!("{} (boards up to {max}x{max})", e.name())
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
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
        let e = BySizeEvaluator::new(vec![
            (13, Arc::new(Tagged(0.1)) as Arc<dyn Evaluator>),
            (17, Arc::new(Tagged(0.5))),
        ]);
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

    #[test]
    fn three_routes_take_their_sizes_and_the_last_takes_the_rest() {
        // Given out of order: the constructor sorts by bound.
        let e = BySizeEvaluator::new(vec![
            (16, Arc::new(Tagged(2.0)) as Arc<dyn Evaluator>),
            (11, Arc::new(Tagged(1.0))),
            (19, Arc::new(Tagged(3.0))),
        ]);
        let sizes = [19, 2, 11, 12, 16, 17, 13, 9];
        let batch: Vec<_> = sizes.iter().map(|&s| input(s)).collect();
        let out = e.evaluate(&batch);
        let tags: Vec<u32> = out.iter().map(|o| o.score_lead as u32).collect();
        assert_eq!(tags, [3, 1, 1, 2, 2, 3, 2, 1]);
        assert_eq!(route_for([11, 16, 19].into_iter(), 25), 2);
        assert_eq!(route_for([11, 16, 19].into_iter(), 12), 1);
        assert!(
            e.name().contains("tagged 1 (boards up to 11x11)"),
            "{}",
            e.name()
        );
        assert!(e.name().ends_with("tagged 3 (larger)"), "{}", e.name());
    }
}
