//! One queue that gathers evaluation requests from many threads into
//! batches: the search's batcher (`search/batcher.rs`, one search's
//! threads) and the analysis engine's shared evaluator
//! (`analysis/batching.rs`, many searches) are both this queue.
//!
//! There is no dedicated thread. A caller queues its request and waits; the
//! first waiter that sees a reason to flush becomes the leader for one
//! batch: it takes queued requests (oldest first, whole requests, up to
//! `batch_size` inputs unless one request alone is larger), evaluates them
//! outside the lock and hands every request its outputs. Reasons to flush:
//! - `batch_size` inputs are queued;
//! - every *member* (a thread that will submit again: see
//!   [`BatchQueue::join`] and [`BatchQueue::leave`]) is waiting here, so
//!   nobody else will add more; a lone caller therefore never waits;
//! - the caller's request has waited `timeout` (a short safety net so a
//!   slow member never stalls the others).
//!
//! Thread-safety: `&BatchQueue` is shared by all callers, and every caller
//! passes the same evaluator. [`BatchQueue::evaluate`] blocks until the
//! caller's own outputs are ready.

use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::{evaluate_all, EvalInput, EvalOutput, Evaluator};

type Request = (u64, Vec<EvalInput>);
/// A request's inputs (moved back) and one output per input.
pub type Reply = (Vec<EvalInput>, Vec<EvalOutput>);

struct State {
    queue: VecDeque<Request>,
    queued: usize,
    done: HashMap<u64, Reply>,
    next_ticket: u64,
    /// Threads that will submit again.
    members: usize,
    /// Callers blocked in `evaluate` and not evaluating a batch themselves.
    waiting: usize,
    batches: u64,
    evaluated: u64,
}

/// See the module docs.
pub struct BatchQueue {
    batch_size: usize,
    timeout: Duration,
    state: Mutex<State>,
    cv: Condvar,
}

impl BatchQueue {
    /// A queue for `members` submitting threads; batches of at most
    /// `batch_size` inputs; a request waits at most `timeout` for others.
    pub fn new(batch_size: usize, timeout: Duration, members: usize) -> BatchQueue {
        BatchQueue {
            batch_size: batch_size.max(1),
            timeout,
            state: Mutex::new(State {
                queue: VecDeque::new(),
                queued: 0,
                done: HashMap::new(),
                next_ticket: 0,
                members,
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

    /// Sets how many threads submit (before they start).
    pub fn set_members(&self, n: usize) {
        self.lock().members = n;
        self.cv.notify_all();
    }

    /// One more thread submits.
    pub fn join(&self) {
        self.lock().members += 1;
    }

    /// The calling thread submits nothing more: the others stop waiting
    /// for it.
    pub fn leave(&self) {
        let mut st = self.lock();
        st.members = st.members.saturating_sub(1);
        self.cv.notify_all();
    }

    /// (batches evaluated, positions evaluated) so far.
    pub fn stats(&self) -> (u64, u64) {
        let st = self.lock();
        (st.batches, st.evaluated)
    }

    /// Evaluates `inputs` with `eval`, batched with other callers'
    /// requests. Blocks.
    pub fn evaluate(&self, eval: &dyn Evaluator, inputs: Vec<EvalInput>) -> Reply {
        if inputs.is_empty() {
            return (inputs, Vec::new());
        }
        let mut st = self.lock();
        let ticket = st.next_ticket;
        st.next_ticket += 1;
        st.queued += inputs.len();
        st.queue.push_back((ticket, inputs));
        st.waiting += 1;
        self.cv.notify_all();
        let start = Instant::now();
        loop {
            if let Some(reply) = st.done.remove(&ticket) {
                st.waiting -= 1;
                return reply;
            }
            let mine_queued = st.queue.iter().any(|(t, _)| *t == ticket);
            let waited = start.elapsed();
            if mine_queued
                && (st.queued >= self.batch_size
                    || st.waiting >= st.members
                    || waited >= self.timeout)
            {
                st = self.flush(eval, st);
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

    /// Evaluates `inputs` with `eval` on this thread at once, queueing
    /// nothing (for an evaluator whose calls run side by side on their
    /// callers' cores); counted in [`BatchQueue::stats`]. One output per
    /// input.
    pub fn evaluate_alone(&self, eval: &dyn Evaluator, inputs: &[EvalInput]) -> Vec<EvalOutput> {
        if inputs.is_empty() {
            return Vec::new();
        }
        let outputs = answer(eval, inputs);
        let mut st = self.lock();
        st.batches += 1;
        st.evaluated += inputs.len() as u64;
        outputs
    }

    /// Takes one batch off the queue, evaluates it without the lock, and
    /// files the replies.
    fn flush<'g>(
        &'g self,
        eval: &dyn Evaluator,
        mut st: MutexGuard<'g, State>,
    ) -> MutexGuard<'g, State> {
        let mut taken: Vec<Request> = Vec::new();
        let mut n = 0;
        while let Some((_, inputs)) = st.queue.front() {
            if n > 0 && n + inputs.len() > self.batch_size {
                break;
            }
            n += inputs.len();
            taken.extend(st.queue.pop_front());
        }
        st.queued -= n;
        st.waiting -= 1;
        drop(st);

        let mut sizes = Vec::with_capacity(taken.len());
        let mut all: Vec<EvalInput> = Vec::with_capacity(n);
        for (t, inputs) in taken {
            sizes.push((t, inputs.len()));
            all.extend(inputs);
        }
        let outputs = answer(eval, &all);

        let mut st = self.lock();
        st.waiting += 1;
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
}

/// `eval`'s outputs for `inputs`, exactly one per input: a misbehaving
/// evaluator's missing ones are filled in with "no knowledge".
fn answer(eval: &dyn Evaluator, inputs: &[EvalInput]) -> Vec<EvalOutput> {
    let mut outputs = evaluate_all(eval, inputs);
    outputs.truncate(inputs.len());
    while outputs.len() < inputs.len() {
        outputs.push(neutral(inputs[outputs.len()].position.size()));
    }
    outputs
}

/// Uniform policy, even value: what an evaluator that failed to answer
/// is taken to have said.
fn neutral(size: usize) -> EvalOutput {
    let n = size * size + 1;
    EvalOutput {
        shortterm_error: None,
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

    fn inputs(n: usize) -> Vec<EvalInput> {
        let pos = Position::new(5, Ruleset::chinese()).unwrap();
        vec![EvalInput::new(pos); n]
    }

    #[test]
    fn two_members_fill_one_batch() {
        let q = BatchQueue::new(4, Duration::from_secs(5), 2);
        std::thread::scope(|s| {
            let h = s.spawn(|| q.evaluate(&UniformEvaluator, inputs(2)).1.len());
            assert_eq!(q.evaluate(&UniformEvaluator, inputs(2)).1.len(), 2);
            assert_eq!(h.join().unwrap(), 2);
        });
        assert_eq!(q.stats(), (1, 4));
    }

    #[test]
    fn a_lone_caller_never_waits() {
        for members in [0, 1] {
            let q = BatchQueue::new(64, Duration::from_secs(60), members);
            let t = Instant::now();
            let (back, out) = q.evaluate(&UniformEvaluator, inputs(3));
            assert_eq!((back.len(), out.len()), (3, 3));
            assert!(t.elapsed() < Duration::from_secs(10));
        }
    }

    #[test]
    fn a_member_that_left_is_not_waited_for() {
        let q = BatchQueue::new(64, Duration::from_secs(60), 2);
        q.leave();
        let t = Instant::now();
        assert_eq!(q.evaluate(&UniformEvaluator, inputs(1)).1.len(), 1);
        assert!(t.elapsed() < Duration::from_secs(10));
    }

    /// Answers nothing at all.
    struct Mute;
    impl Evaluator for Mute {
        fn evaluate(&self, _: &[EvalInput]) -> Vec<EvalOutput> {
            Vec::new()
        }
        fn max_batch(&self) -> usize {
            8
        }
        fn name(&self) -> String {
            "mute".into()
        }
    }

    #[test]
    fn a_silent_evaluator_reads_as_no_knowledge() {
        let q = BatchQueue::new(8, Duration::from_secs(1), 1);
        let (_, out) = q.evaluate(&Mute, inputs(2));
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].value, [0.5, 0.5, 0.0]);
        assert_eq!(out[0].policy.len(), 26);
    }
}
