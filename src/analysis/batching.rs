//! A shared batching decorator: many analysis workers, each running its own
//! one-thread [`Search`](crate::search::Search), hand their leaf batches to
//! one [`BatchingEvaluator`], which calls the inner evaluator with batches
//! gathered across all of them. Only worth it when the inner evaluator is
//! expensive per call (the net); with a fake evaluator it costs nothing
//! because a lone caller never waits.
//!
//! Contract: [`Evaluator::evaluate`] may be called from any thread and
//! blocks until the caller's own outputs are ready. The queueing is
//! [`BatchQueue`]'s, with batches up to the inner `max_batch`; its members
//! are the *clients*: workers between [`BatchingEvaluator::join`] and the
//! drop of their [`Client`] guard.
//!
//! An inner evaluator whose calls run side by side on the callers' cores
//! ([`Evaluator::parallel_calls`], the fast CPU path) is called directly:
//! gathering the workers' leaves into one call would run it on one core.

use std::sync::Arc;
use std::time::Duration;

use crate::eval::batch_queue::BatchQueue;
use crate::eval::{EvalInput, EvalOutput, Evaluator};

/// See the module docs.
pub struct BatchingEvaluator {
    inner: Arc<dyn Evaluator>,
    queue: BatchQueue,
    /// The inner evaluator's calls run side by side (module docs).
    direct: bool,
}

/// A worker's membership: while it lives, flushing waits for this worker
/// too (up to the timeout). Dropping it lets the others go on.
pub struct Client<'a>(&'a BatchingEvaluator);

impl Drop for Client<'_> {
    fn drop(&mut self) {
        self.0.queue.leave();
    }
}

impl BatchingEvaluator {
    /// Wraps `inner`; a request waits at most `timeout` for others.
    pub fn new(inner: Arc<dyn Evaluator>, timeout: Duration) -> BatchingEvaluator {
        let batch = inner.max_batch();
        BatchingEvaluator {
            direct: inner.parallel_calls(),
            inner,
            queue: BatchQueue::new(batch, timeout, 0),
        }
    }

    /// Registers the calling worker as a client until the guard drops.
    pub fn join(&self) -> Client<'_> {
        self.queue.join();
        Client(self)
    }

    /// (inner calls made, positions evaluated) so far.
    pub fn stats(&self) -> (u64, u64) {
        self.queue.stats()
    }
}

impl Evaluator for BatchingEvaluator {
    fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
        if self.direct {
            return self.queue.evaluate_alone(&*self.inner, batch);
        }
        self.queue.evaluate(&*self.inner, batch.to_vec()).1
    }

    fn parallel_calls(&self) -> bool {
        self.direct
    }

    fn max_batch(&self) -> usize {
        self.inner.max_batch()
    }

    fn name(&self) -> String {
        self.inner.name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::fake::UniformEvaluator;
    use crate::rules::{Position, Ruleset};
    use std::sync::atomic::Ordering;
    use std::time::Instant;

    /// Two joined clients (this thread and another) each evaluate two
    /// positions through `b` and get two outputs.
    fn two_clients_submit_two_each(b: &BatchingEvaluator) {
        let pos = Position::new(5, Ruleset::chinese()).unwrap();
        let inputs = vec![EvalInput::new(pos.clone()), EvalInput::new(pos)];
        let (c1, c2) = (b.join(), b.join());
        std::thread::scope(|s| {
            let h = s.spawn(|| b.evaluate(&inputs).len());
            assert_eq!(b.evaluate(&inputs).len(), 2);
            assert_eq!(h.join().unwrap(), 2);
        });
        drop((c1, c2));
    }

    #[test]
    fn two_clients_share_one_batch() {
        let b = BatchingEvaluator::new(Arc::new(UniformEvaluator), Duration::from_secs(5));
        two_clients_submit_two_each(&b);
        assert_eq!(b.stats(), (1, 4));
    }

    /// Uniform answers, calls counted, calls side by side.
    struct Parallel(std::sync::atomic::AtomicUsize);

    impl Evaluator for Parallel {
        fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
            self.0.fetch_add(1, Ordering::SeqCst);
            UniformEvaluator.evaluate(batch)
        }
        fn max_batch(&self) -> usize {
            8
        }
        fn name(&self) -> String {
            "parallel".into()
        }
        fn parallel_calls(&self) -> bool {
            true
        }
    }

    #[test]
    fn parallel_evaluators_are_called_by_each_client() {
        let inner = Arc::new(Parallel(Default::default()));
        let b = BatchingEvaluator::new(inner.clone(), Duration::from_secs(5));
        assert!(b.parallel_calls());
        two_clients_submit_two_each(&b);
        assert_eq!(b.stats(), (2, 4));
        assert_eq!(inner.0.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_lone_caller_never_waits() {
        let b = BatchingEvaluator::new(Arc::new(UniformEvaluator), Duration::from_secs(60));
        let pos = Position::new(5, Ruleset::chinese()).unwrap();
        let t = Instant::now();
        assert_eq!(b.evaluate(&[EvalInput::new(pos)]).len(), 1);
        assert!(t.elapsed() < Duration::from_secs(10));
    }
}
