//! The batcher: one search's threads hand it their leaves, and it calls the
//! search's evaluator with batches as full as possible. The queueing is
//! [`BatchQueue`]'s (its docs say when a batch goes); this only binds the
//! queue to the search's evaluator.
//!
//! An evaluator whose calls run side by side on the callers' own cores
//! ([`Evaluator::parallel_calls`], the fast CPU path) is not queued: each
//! thread evaluates its own leaves at once. Gathering them into one call
//! would run the net on one core while the other threads wait.
//!
//! Each search thread must call [`Batcher::leave`] once when it stops
//! submitting, so the others no longer wait for it.
//!
//! Every evaluator call is timed into a [`CostMeter`], which outlives the
//! search run: the search's deadline check uses it to start no batch that
//! cannot finish in time (`gather.rs`), and the engine to tell whether a
//! move's time pays for even one evaluation.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::eval::batch_queue::{BatchQueue, Reply};
use crate::eval::{EvalInput, EvalOutput, Evaluator};

/// What evaluator calls cost, as two upper bounds that fade slowly: the
/// most a call took per position, and the most a whole call took (with
/// the largest batch seen). A call of `n` positions is predicted to cost
/// `n ×` the first, but no more than the second once a batch of `n` or
/// more was seen (a GPU's batch costs about the same whatever its size).
/// Upper bounds rather than means: a batch served from a cache is fast and
/// must not make the next one look cheap.
#[derive(Debug, Default)]
pub struct CostMeter {
    per_position_ns: AtomicU64,
    per_call_ns: AtomicU64,
    largest_batch: AtomicUsize,
}

impl CostMeter {
    /// Records a call of `n` positions that took `took`.
    pub fn record(&self, n: usize, took: Duration) {
        if n == 0 {
            return;
        }
        let ns = took.as_nanos().min(u64::MAX as u128) as u64;
        self.per_position_ns
            .fetch_max(ns / n as u64, Ordering::Relaxed);
        self.per_call_ns.fetch_max(ns, Ordering::Relaxed);
        self.largest_batch.fetch_max(n, Ordering::Relaxed);
    }

    /// Lets old measurements fade (by 10%), so a machine that got faster
    /// is believed after a few searches. Called once per search run.
    pub fn fade(&self) {
        for a in [&self.per_position_ns, &self.per_call_ns] {
            let v = a.load(Ordering::Relaxed);
            a.store(v - v / 10, Ordering::Relaxed);
        }
    }

    /// The predicted cost of one call of `n` positions; `None` before any
    /// call was measured.
    pub fn predict(&self, n: usize) -> Option<Duration> {
        let per = self.per_position_ns.load(Ordering::Relaxed);
        if per == 0 && self.largest_batch.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let linear = per.saturating_mul(n as u64);
        let ns = if n <= self.largest_batch.load(Ordering::Relaxed) {
            linear.min(self.per_call_ns.load(Ordering::Relaxed))
        } else {
            linear
        };
        Some(Duration::from_nanos(ns))
    }
}

/// An evaluator whose calls are timed into a [`CostMeter`].
struct Timed<'a> {
    inner: &'a dyn Evaluator,
    meter: &'a CostMeter,
}

impl Evaluator for Timed<'_> {
    fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
        let start = Instant::now();
        let out = self.inner.evaluate(batch);
        self.meter.record(batch.len(), start.elapsed());
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

/// See the module docs.
pub(crate) struct Batcher<'a> {
    eval: Timed<'a>,
    queue: BatchQueue,
    /// Each thread calls the evaluator itself (see the module docs).
    direct: bool,
}

impl<'a> Batcher<'a> {
    /// A batcher for `threads` search threads, timing calls into `meter`.
    pub fn new(
        eval: &'a dyn Evaluator,
        meter: &'a CostMeter,
        batch_size: usize,
        timeout: Duration,
        threads: usize,
    ) -> Batcher<'a> {
        Batcher {
            eval: Timed { inner: eval, meter },
            queue: BatchQueue::new(batch_size, timeout, threads.max(1)),
            direct: eval.parallel_calls(),
        }
    }

    /// Evaluates `inputs`, batched with other threads' requests (or alone,
    /// on this thread, for an evaluator with parallel calls). Returns the
    /// inputs (moved back) and one output per input. Blocks.
    pub fn evaluate(&self, inputs: Vec<EvalInput>) -> Reply {
        if self.direct {
            let outputs = self.queue.evaluate_alone(&self.eval, &inputs);
            return (inputs, outputs);
        }
        self.queue.evaluate(&self.eval, inputs)
    }

    /// The meter this batcher times calls into.
    pub fn meter(&self) -> &CostMeter {
        self.eval.meter
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

    /// Two threads (this one and another) each evaluate two positions
    /// through `b` and get two outputs.
    fn two_threads_submit_two_each(b: &Batcher) {
        let pos = Position::new(5, Ruleset::chinese()).unwrap();
        let input = || vec![EvalInput::new(pos.clone()), EvalInput::new(pos.clone())];
        std::thread::scope(|s| {
            let h = s.spawn(|| b.evaluate(input()).1.len());
            assert_eq!(b.evaluate(input()).1.len(), 2);
            assert_eq!(h.join().unwrap(), 2);
        });
    }

    #[test]
    fn two_threads_fill_one_batch() {
        let eval = UniformEvaluator;
        let meter = CostMeter::default();
        let b = Batcher::new(&eval, &meter, 4, Duration::from_secs(5), 2);
        two_threads_submit_two_each(&b);
        assert_eq!(b.stats(), (1, 4));
        assert!(meter.predict(1).is_some());
    }

    /// Parallel calls: every call waits (up to 5 s) until another is
    /// inside `evaluate` with it, and counts whether that happened.
    struct Meeting {
        inside: AtomicUsize,
        met: AtomicUsize,
    }

    impl Evaluator for Meeting {
        fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
            self.inside.fetch_add(1, Ordering::SeqCst);
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(5) {
                if self.inside.load(Ordering::SeqCst) >= 2 {
                    self.met.fetch_add(1, Ordering::SeqCst);
                    break;
                }
                std::thread::yield_now();
            }
            std::thread::sleep(Duration::from_millis(20));
            self.inside.fetch_sub(1, Ordering::SeqCst);
            UniformEvaluator.evaluate(batch)
        }
        fn max_batch(&self) -> usize {
            8
        }
        fn name(&self) -> String {
            "meeting".into()
        }
        fn parallel_calls(&self) -> bool {
            true
        }
    }

    #[test]
    fn parallel_evaluators_get_one_call_per_thread_at_the_same_time() {
        let eval = Meeting {
            inside: AtomicUsize::new(0),
            met: AtomicUsize::new(0),
        };
        let meter = CostMeter::default();
        let b = Batcher::new(&eval, &meter, 4, Duration::from_secs(5), 2);
        two_threads_submit_two_each(&b);
        // Two calls of two, not one of four, and they overlapped.
        assert_eq!(b.stats(), (2, 4));
        assert_eq!(eval.met.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn the_meter_predicts_from_its_upper_bounds() {
        let m = CostMeter::default();
        assert_eq!(m.predict(1), None);
        let ms = Duration::from_millis;
        // A CPU-like evaluator: 100 ms alone, 80 ms a position in 8.
        m.record(1, ms(100));
        m.record(8, ms(640));
        assert_eq!(m.predict(1), Some(ms(100)));
        assert_eq!(m.predict(4), Some(ms(400)));
        assert_eq!(m.predict(8), Some(ms(640)));
        // Beyond the largest batch seen: linear.
        assert_eq!(m.predict(16), Some(ms(1600)));
        // A cached, instant batch does not lower the bounds.
        m.record(8, Duration::ZERO);
        assert_eq!(m.predict(4), Some(ms(400)));
        m.fade();
        assert_eq!(m.predict(1), Some(ms(90)));
    }

    #[test]
    fn a_gpu_like_meter_caps_at_the_call_cost() {
        let m = CostMeter::default();
        let ms = Duration::from_millis;
        m.record(1, ms(50));
        m.record(64, ms(55));
        assert_eq!(m.predict(32), Some(ms(55)));
    }
}
