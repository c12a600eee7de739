//! The batcher: one search's threads hand it their leaves, and it calls the
//! search's evaluator with batches as full as possible. The queueing is
//! [`BatchQueue`]'s (its docs say when a batch goes); this only binds the
//! queue to the search's evaluator.
//!
//! Each search thread must call [`Batcher::leave`] once when it stops
//! submitting, so the others no longer wait for it.

use std::time::Duration;

use crate::eval::batch_queue::{BatchQueue, Reply};
use crate::eval::{EvalInput, Evaluator};

/// See the module docs.
pub(crate) struct Batcher<'a> {
    eval: &'a dyn Evaluator,
    queue: BatchQueue,
}

impl<'a> Batcher<'a> {
    /// A batcher for `threads` search threads.
    pub fn new(
        eval: &'a dyn Evaluator,
        batch_size: usize,
        timeout: Duration,
        threads: usize,
    ) -> Batcher<'a> {
        Batcher {
            eval,
            queue: BatchQueue::new(batch_size, timeout, threads.max(1)),
        }
    }

    /// Evaluates `inputs`, batched with other threads' requests. Returns the
    /// inputs (moved back) and one output per input. Blocks.
    pub fn evaluate(&self, inputs: Vec<EvalInput>) -> Reply {
        self.queue.evaluate(self.eval, inputs)
    }

    /// Sets how many search threads submit (before they start).
    pub fn set_active(&self, threads: usize) {
        self.queue.set_members(threads.max(1));
    }

    /// The calling search thread submits nothing more.
    pub fn leave(&self) {
        self.queue.leave();
    }

    /// (batches evaluated, positions evaluated).
    pub fn stats(&self) -> (u64, u64) {
        self.queue.stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::fake::UniformEvaluator;
    use crate::rules::{Position, Ruleset};

    #[test]
    fn two_threads_fill_one_batch() {
        let eval = UniformEvaluator;
        let b = Batcher::new(&eval, 4, Duration::from_secs(5), 2);
        let pos = Position::new(5, Ruleset::chinese()).unwrap();
        let input = || vec![EvalInput::new(pos.clone()), EvalInput::new(pos.clone())];
        std::thread::scope(|s| {
            let h = s.spawn(|| b.evaluate(input()).1.len());
            let mine = b.evaluate(input()).1.len();
            assert_eq!(mine, 2);
            assert_eq!(h.join().unwrap(), 2);
        });
        assert_eq!(b.stats(), (1, 4));
    }
}
