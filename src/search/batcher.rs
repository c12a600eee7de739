//! The batcher: search threads hand it their leaves, it calls
//! [`Evaluator::evaluate`] with batches as full as possible.
//!
//! There is no dedicated thread. A caller queues its request and waits; the
//! first waiter that sees a reason to flush becomes the leader for one
//! batch: it takes queued requests (oldest first, whole requests, up to
//! `batch_size` inputs unless one request alone is larger), evaluates them
//! outside the lock and hands every request its outputs. Reasons to flush:
//! - `batch_size` inputs are queued;
//! - every active search thread is waiting here (nobody else will add
//!   more; with one thread this is always the case, so a lone thread never
//!   waits);
//! - the caller's request has waited `timeout` (a short safety net so a
//!   slow thread never stalls the others).
//!
//! Thread-safety: `&Batcher` is shared by all search threads. `evaluate`
//! blocks until the caller's own outputs are ready. Each search thread must
//! call [`Batcher::leave`] once when it stops submitting, so the others no
//! longer wait for it.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::eval::{evaluate_all, EvalInput, EvalOutput, Evaluator};

type Request = (u64, Vec<EvalInput>);
type Reply = (Vec<EvalInput>, Vec<EvalOutput>);

struct State {
    queue: Vec<Request>,
    queued: usize,
    done: HashMap<u64, Reply>,
    next_ticket: u64,
    /// Search threads that have not left.
    active: usize,
    /// Threads blocked in `evaluate` and not evaluating a batch themselves.
    idle: usize,
    batches: u64,
    evaluated: u64,
}

/// See the module docs.
pub(crate) struct Batcher<'a> {
    eval: &'a dyn Evaluator,
    batch_size: usize,
    timeout: Duration,
    state: Mutex<State>,
    cv: Condvar,
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
            batch_size: batch_size.max(1),
            timeout,
            state: Mutex::new(State {
                queue: Vec::new(),
                queued: 0,
                done: HashMap::new(),
                next_ticket: 0,
                active: threads.max(1),
                idle: 0,
                batches: 0,
                evaluated: 0,
            }),
            cv: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Evaluates `inputs`, batched with other threads' requests. Returns the
    /// inputs (moved back) and one output per input. Blocks.
    pub fn evaluate(&self, inputs: Vec<EvalInput>) -> Reply {
        if inputs.is_empty() {
            return (inputs, Vec::new());
        }
        let mut st = self.lock();
        let ticket = st.next_ticket;
        st.next_ticket += 1;
        st.queued += inputs.len();
        st.queue.push((ticket, inputs));
        st.idle += 1;
        self.cv.notify_all();
        let start = Instant::now();
        loop {
            if let Some(reply) = st.done.remove(&ticket) {
                st.idle -= 1;
                return reply;
            }
            let mine_queued = st.queue.iter().any(|(t, _)| *t == ticket);
            let waited = start.elapsed();
            if mine_queued
                && (st.queued >= self.batch_size || st.idle >= st.active || waited >= self.timeout)
            {
                st = self.flush(st);
                continue;
            }
            let wait = if mine_queued {
                self.timeout
                    .saturating_sub(waited)
                    .max(Duration::from_micros(50))
            } else {
                Duration::from_millis(50)
            };
            st = self
                .cv
                .wait_timeout(st, wait)
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
        }
    }

    /// Takes one batch off the queue, evaluates it without the lock, and
    /// files the replies.
    fn flush<'g>(&'g self, mut st: MutexGuard<'g, State>) -> MutexGuard<'g, State> {
        let mut taken: Vec<Request> = Vec::new();
        let mut n = 0;
        while !st.queue.is_empty() {
            let len = st.queue[0].1.len();
            if n > 0 && n + len > self.batch_size {
                break;
            }
            n += len;
            taken.push(st.queue.remove(0));
        }
        st.queued -= n;
        st.idle -= 1;
        drop(st);

        let mut sizes = Vec::with_capacity(taken.len());
        let mut all: Vec<EvalInput> = Vec::with_capacity(n);
        for (t, inputs) in taken {
            sizes.push((t, inputs.len()));
            all.extend(inputs);
        }
        let mut outputs = evaluate_all(self.eval, &all);
        outputs.truncate(all.len());
        while outputs.len() < all.len() {
            // A misbehaving evaluator: fill in "no knowledge".
            let size = all[outputs.len()].position.size();
            outputs.push(neutral(size));
        }

        let mut st = self.lock();
        st.idle += 1;
        st.batches += 1;
        st.evaluated += n as u64;
        let mut inputs = all.into_iter();
        let mut outs = outputs.into_iter();
        for (t, len) in sizes {
            let i: Vec<EvalInput> = inputs.by_ref().take(len).collect();
            let o: Vec<EvalOutput> = outs.by_ref().take(len).collect();
            st.done.insert(t, (i, o));
        }
        self.cv.notify_all();
        st
    }

    /// Sets how many search threads submit (before they start).
    pub fn set_active(&self, threads: usize) {
        self.lock().active = threads.max(1);
    }

    /// The calling search thread submits nothing more.
    pub fn leave(&self) {
        let mut st = self.lock();
        st.active = st.active.saturating_sub(1).max(1);
        self.cv.notify_all();
    }

    /// (batches evaluated, positions evaluated).
    pub fn stats(&self) -> (u64, u64) {
        let st = self.lock();
        (st.batches, st.evaluated)
    }
}

/// Uniform policy, even value: what an evaluator that failed to answer
/// is taken to have said.
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
