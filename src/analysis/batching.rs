//! A shared batching decorator: many analysis workers, each running its own
//! one-thread [`Search`](crate::search::Search), hand their leaf batches to
//! one [`BatchingEvaluator`], which calls the inner evaluator with batches
//! gathered across all of them. Only worth it when the inner evaluator is
//! expensive per call (the net); with a fake evaluator it costs nothing
//! because a lone caller never waits.
//!
//! Contract: [`Evaluator::evaluate`] may be called from any thread and
//! blocks until the caller's own outputs are ready. There is no dedicated
//! thread: the first caller that sees a reason to flush evaluates one
//! batch (whole requests, oldest first, up to the inner `max_batch`) for
//! everyone. Reasons to flush: the batch is full; every *client* (a worker
//! between [`BatchingEvaluator::join`] and the drop of its [`Client`]
//! guard) is waiting here, so nobody else will add more; or the caller has
//! waited `timeout`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::eval::{EvalInput, EvalOutput, Evaluator};

struct State {
    queue: VecDeque<(u64, Vec<EvalInput>)>,
    queued: usize,
    done: HashMap<u64, Vec<EvalOutput>>,
    next_ticket: u64,
    /// Workers currently searching (see [`Client`]).
    clients: usize,
    /// Callers blocked in `evaluate` and not evaluating themselves.
    waiting: usize,
    batches: u64,
    evaluated: u64,
}

/// See the module docs.
pub struct BatchingEvaluator {
    inner: Arc<dyn Evaluator>,
    timeout: Duration,
    state: Mutex<State>,
    cv: Condvar,
}

/// A worker's membership: while it lives, flushing waits for this worker
/// too (up to the timeout). Dropping it lets the others go on.
pub struct Client<'a>(&'a BatchingEvaluator);

impl Drop for Client<'_> {
    fn drop(&mut self) {
        let mut st = self.0.lock();
        st.clients = st.clients.saturating_sub(1);
        self.0.cv.notify_all();
    }
}

impl BatchingEvaluator {
    /// Wraps `inner`; a request waits at most `timeout` for others.
    pub fn new(inner: Arc<dyn Evaluator>, timeout: Duration) -> BatchingEvaluator {
        BatchingEvaluator {
            inner,
            timeout,
            state: Mutex::new(State {
                queue: VecDeque::new(),
                queued: 0,
                done: HashMap::new(),
                next_ticket: 0,
                clients: 0,
                waiting: 0,
                batches: 0,
                evaluated: 0,
            }),
            cv: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers the calling worker as a client until the guard drops.
    pub fn join(&self) -> Client<'_> {
        self.lock().clients += 1;
        Client(self)
    }

    /// (inner calls made, positions evaluated) so far.
    pub fn stats(&self) -> (u64, u64) {
        let st = self.lock();
        (st.batches, st.evaluated)
    }

    /// Takes one batch off the queue, evaluates it without the lock and
    /// files the outputs.
    fn flush<'g>(&'g self, mut st: MutexGuard<'g, State>) -> MutexGuard<'g, State> {
        let max = self.inner.max_batch().max(1);
        let mut taken = Vec::new();
        let mut n = 0;
        while let Some((_, inputs)) = st.queue.front() {
            if n > 0 && n + inputs.len() > max {
                break;
            }
            n += inputs.len();
            taken.extend(st.queue.pop_front());
        }
        st.queued -= n;
        drop(st);

        let mut all = Vec::with_capacity(n);
        let mut tickets = Vec::with_capacity(taken.len());
        for (t, inputs) in taken {
            tickets.push((t, inputs.len()));
            all.extend(inputs);
        }
        let mut outputs = crate::eval::evaluate_all(&*self.inner, &all);
        outputs.truncate(all.len());
        while outputs.len() < all.len() {
            // A misbehaving evaluator: "no knowledge" for the rest.
            let size = all[outputs.len()].position.size();
            outputs.push(neutral(size));
        }
        let mut outputs = outputs.into_iter();

        let mut st = self.lock();
        st.batches += 1;
        st.evaluated += n as u64;
        for (t, len) in tickets {
            let outs: Vec<EvalOutput> = outputs.by_ref().take(len).collect();
            st.done.insert(t, outs);
        }
        self.cv.notify_all();
        st
    }
}

impl Evaluator for BatchingEvaluator {
    fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
        if batch.is_empty() {
            return Vec::new();
        }
        let max = self.inner.max_batch().max(1);
        let mut st = self.lock();
        let ticket = st.next_ticket;
        st.next_ticket += 1;
        st.queued += batch.len();
        st.queue.push_back((ticket, batch.to_vec()));
        st.waiting += 1;
        self.cv.notify_all();
        let start = Instant::now();
        loop {
            if let Some(out) = st.done.remove(&ticket) {
                st.waiting -= 1;
                return out;
            }
            let mine_queued = st.queue.iter().any(|(t, _)| *t == ticket);
            let waited = start.elapsed();
            if mine_queued
                && (st.queued >= max || st.waiting >= st.clients || waited >= self.timeout)
            {
                st.waiting -= 1;
                st = self.flush(st);
                st.waiting += 1;
                continue;
            }
            let wait = if mine_queued {
                self.timeout
                    .saturating_sub(waited)
                    .max(Duration::from_micros(50))
            } else {
                Duration::from_millis(20)
            };
            st = self
                .cv
                .wait_timeout(st, wait)
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
        }
    }

    fn max_batch(&self) -> usize {
        self.inner.max_batch()
    }

    fn name(&self) -> String {
        self.inner.name()
    }
}

/// Uniform policy, even value.
fn neutral(size: usize) -> EvalOutput {
    let n = size * size + 1;
    EvalOutput {
        policy: vec![1.0 / n as f32; n],
        value: [0.5, 0.5, 0.0],
        score_lead: 0.0,
        ownership: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::fake::UniformEvaluator;
    use crate::rules::{Position, Ruleset};

    #[test]
    fn two_clients_share_one_batch() {
        let b = BatchingEvaluator::new(Arc::new(UniformEvaluator), Duration::from_secs(5));
        let pos = Position::new(5, Ruleset::chinese()).unwrap();
        let inputs = vec![EvalInput::new(pos.clone()), EvalInput::new(pos)];
        let (c1, c2) = (b.join(), b.join());
        std::thread::scope(|s| {
            let h = s.spawn(|| b.evaluate(&inputs).len());
            assert_eq!(b.evaluate(&inputs).len(), 2);
            assert_eq!(h.join().unwrap(), 2);
        });
        drop((c1, c2));
        assert_eq!(b.stats(), (1, 4));
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
