//! The engine loop: the reader (caller's thread) parses lines and queues
//! turns; workers pop the highest-priority turn, search it and write the
//! responses; `terminate` marks turns and stops running searches.
//!
//! A turn's state goes `QUEUED → RUNNING → DONE`, or to `TERMINATED` from
//! either of the first two. Whoever moves it out of `QUEUED` owns its
//! final line: the worker (results) or the terminator (`noResults`). A
//! running turn that is terminated stops its search and reports what it
//! has, as KataGo does.

use std::cmp::Ordering as CmpOrdering;
use std::collections::{BinaryHeap, HashMap};
use std::io::{self, BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{json, Value};

use super::batching::BatchingEvaluator;
use super::filter::{barred, MaskedEvaluator};
use super::query::{self, field_error, Action, Request, TurnJob};
use super::response::{self, Extras};
use super::AnalysisConfig;
use crate::eval::{evaluate_all, EvalInput, Evaluator};
use crate::search::{AnalysisSnapshot, Limits, Search};

const QUEUED: u8 = 0;
const RUNNING: u8 = 1;
const DONE: u8 = 2;
const TERMINATED: u8 = 3;

struct Job {
    spec: TurnJob,
    seq: u64,
    state: AtomicU8,
    stop: AtomicBool,
}

/// Heap order: higher priority first, then the earlier query.
struct Entry(Arc<Job>);

impl PartialEq for Entry {
    fn eq(&self, other: &Entry) -> bool {
        self.cmp(other) == CmpOrdering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Entry) -> Option<CmpOrdering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Entry) -> CmpOrdering {
        (self.0.spec.priority, std::cmp::Reverse(self.0.seq))
            .cmp(&(other.0.spec.priority, std::cmp::Reverse(other.0.seq)))
    }
}

#[derive(Default)]
struct Queue {
    heap: BinaryHeap<Entry>,
    /// Turns not yet answered, by sequence number.
    open: HashMap<u64, Arc<Job>>,
    next_seq: u64,
    closed: bool,
}

struct Shared<W> {
    config: AnalysisConfig,
    eval: Arc<BatchingEvaluator>,
    queue: Mutex<Queue>,
    cv: Condvar,
    out: Mutex<W>,
    write_error: Mutex<Option<io::Error>>,
}

impl<W: Write> Shared<W> {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes one response line (and flushes: clients wait on it).
    fn emit(&self, v: &Value) {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        let res = writeln!(out, "{v}").and_then(|_| out.flush());
        if let Err(e) = res {
            let mut slot = self.write_error.lock().unwrap_or_else(|e| e.into_inner());
            slot.get_or_insert(e);
        }
    }

    fn finish(&self, job: &Job) {
        self.queue().open.remove(&job.seq);
    }
}

pub(super) fn serve(
    config: AnalysisConfig,
    evaluator: Arc<dyn Evaluator>,
    mut input: impl BufRead,
    output: impl Write + Send,
) -> io::Result<()> {
    let workers = config.workers.max(1);
    let shared = Shared {
        eval: Arc::new(BatchingEvaluator::new(evaluator, config.batch_timeout)),
        config,
        queue: Mutex::new(Queue::default()),
        cv: Condvar::new(),
        out: Mutex::new(output),
        write_error: Mutex::new(None),
    };
    let read_result = std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| worker(&shared));
        }
        let r = read_loop(&shared, &mut input);
        shared.queue().closed = true;
        shared.cv.notify_all();
        r
    });
    read_result?;
    match shared
        .write_error
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
    {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn read_loop<W: Write>(shared: &Shared<W>, input: &mut impl BufRead) -> io::Result<()> {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if input.read_until(b'\n', &mut buf)? == 0 {
            return Ok(());
        }
        let line = String::from_utf8_lossy(&buf);
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        handle_line(shared, line);
    }
}

/// Parses and dispatches one query line.
fn handle_line<W: Write>(shared: &Shared<W>, line: &str) {
    let parsed = query::parse_line(line, &shared.config);
    for m in &parsed.messages {
        shared.emit(m);
    }
    match parsed.request {
        None => {}
        Some(Request::Action(action, mut echo)) => match action {
            Action::Version => {
                echo["version"] = json!(shared.config.version);
                echo["git_hash"] = json!("<omitted>");
                shared.emit(&echo);
            }
            Action::Models => {
                echo["models"] = json!([{
                    "name": shared.eval.name(),
                    "internalName": shared.eval.name(),
                    "maxBatchSize": shared.eval.max_batch(),
                    "usesHumanSLProfile": false,
                    "version": 0,
                    "usingFP16": "false",
                }]);
                shared.emit(&echo);
            }
            // No evaluation cache to clear.
            Action::ClearCache => shared.emit(&echo),
            Action::Terminate { id, turns } => {
                terminate(shared, id.as_deref(), turns.as_deref());
                shared.emit(&echo);
            }
        },
        Some(Request::Analyze(jobs)) => {
            let mut q = shared.queue();
            for spec in jobs {
                let seq = q.next_seq;
                q.next_seq += 1;
                let job = Arc::new(Job {
                    spec,
                    seq,
                    state: AtomicU8::new(QUEUED),
                    stop: AtomicBool::new(false),
                });
                q.open.insert(seq, Arc::clone(&job));
                q.heap.push(Entry(job));
            }
            drop(q);
            shared.cv.notify_all();
        }
    }
}

/// Terminates the open turns of query `id` (all queries for `None`),
/// optionally only `turns`.
fn terminate<W: Write>(shared: &Shared<W>, id: Option<&str>, turns: Option<&[i64]>) {
    let matching: Vec<Arc<Job>> = shared
        .queue()
        .open
        .values()
        .filter(|j| id.is_none_or(|id| j.spec.id == id))
        .filter(|j| turns.is_none_or(|t| t.contains(&(j.spec.turn_number as i64))))
        .cloned()
        .collect();
    for job in matching {
        match job.state.swap(TERMINATED, Ordering::AcqRel) {
            QUEUED => {
                shared.emit(&response::no_results(&job.spec.id, job.spec.turn_number));
                shared.finish(&job);
            }
            RUNNING => job.stop.store(true, Ordering::Relaxed),
            // DONE: already answered (put the state back); TERMINATED: nothing.
            prev => job.state.store(prev, Ordering::Release),
        }
    }
}

fn worker<W: Write>(shared: &Shared<W>) {
    loop {
        let job = {
            let mut q = shared.queue();
            loop {
                if let Some(Entry(job)) = q.heap.pop() {
                    break job;
                }
                if q.closed {
                    return;
                }
                q = shared.cv.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        if job
            .state
            .compare_exchange(QUEUED, RUNNING, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            continue; // terminated while queued: already answered
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| analyse(shared, &job)));
        if outcome.is_err() {
            let msg = format!(
                "internal error while analysing turn {}",
                job.spec.turn_number
            );
            shared.emit(&field_error(&job.spec.id, "moves", &msg));
        }
        // A terminate racing with the end keeps its TERMINATED mark.
        let _ = job
            .state
            .compare_exchange(RUNNING, DONE, Ordering::AcqRel, Ordering::Acquire);
        shared.finish(&job);
    }
}

/// Searches one turn and writes its responses.
fn analyse<W: Write>(shared: &Shared<W>, job: &Job) {
    let spec = &job.spec;
    let s = &spec.settings;
    let pos = &spec.position;
    let _client = shared.eval.join();
    let base: Arc<dyn Evaluator> = shared.eval.clone();
    let masked = s.masks.iter().any(Option::is_some);
    let eval: Arc<dyn Evaluator> = if masked {
        Arc::new(MaskedEvaluator::new(base.clone(), pos, s.masks.clone()))
    } else {
        base.clone()
    };
    let input = |p: crate::rules::Position| {
        EvalInput::new(p)
            .with_recent(spec.recent.clone())
            .with_prev_boards(spec.prev_boards.clone())
            .with_handicap_bonus(spec.handicap_bonus)
    };
    let mut extras = Extras::default();
    if s.include_policy {
        extras.root_eval = evaluate_all(&*base, &[input(pos.clone())]).pop();
    }

    let mut search = Search::new(eval, s.search.clone());
    search.set_position(pos.clone(), spec.recent.clone());
    search.set_eval_context(spec.prev_boards.clone(), spec.handicap_bonus);
    let limits = Limits {
        visits: Some(s.max_visits),
        playouts: s.max_playouts,
        time: s.max_time,
    };
    let root_mask = s.masks[pos.to_move().index()].as_deref();
    let size = pos.size();
    let visible = |snap: &AnalysisSnapshot| -> AnalysisSnapshot {
        let mut snap = snap.clone();
        if let Some(mask) = root_mask {
            snap.moves
                .retain(|m| !barred(mask, crate::eval::policy_index(m.mv, size), 0));
            for (i, m) in snap.moves.iter_mut().enumerate() {
                m.order = i;
            }
        }
        snap
    };

    let result = match s.report_every {
        Some(every) => {
            let first = s.first_report_after.unwrap_or(every);
            let tick = every.min(first).max(Duration::from_millis(1));
            let mut due = first;
            let mut progress = |snap: &AnalysisSnapshot| {
                if snap.elapsed >= due {
                    due = snap.elapsed + every;
                    let r = response::analysis(spec, &visible(snap), true, &extras);
                    shared.emit(&r);
                }
            };
            search.run(&limits, &job.stop, Some(&mut progress), tick)
        }
        None => match s.first_report_after {
            Some(first) => {
                let mut sent = false;
                let mut progress = |snap: &AnalysisSnapshot| {
                    if !sent && snap.elapsed >= first {
                        sent = true;
                        let r = response::analysis(spec, &visible(snap), true, &extras);
                        shared.emit(&r);
                    }
                };
                search.run(&limits, &job.stop, Some(&mut progress), first)
            }
            None => search.run(&limits, &job.stop, None, Duration::from_secs(3600)),
        },
    };
    let snap = visible(&AnalysisSnapshot {
        visits: result.visits,
        winrate: result.winrate,
        score_lead: result.score_lead,
        score_stdev: result.score_stdev,
        moves: result.moves,
        ownership: result.ownership,
        ownership_stdev: result.ownership_stdev,
        elapsed: result.elapsed,
    });

    if s.include_moves_ownership && !snap.moves.is_empty() {
        let me = pos.to_move();
        let children: Vec<EvalInput> = snap
            .moves
            .iter()
            .map(|m| {
                let mut child = pos.clone();
                let _ = child.play_disputed(me, m.mv);
                EvalInput::new(child)
            })
            .collect();
        let outs = evaluate_all(&*base, &children);
        // The child's ownership is its mover's opponent's view: negate.
        let owns = snap
            .moves
            .iter()
            .enumerate()
            .map(
                |(i, _)| match outs.get(i).and_then(|o| o.ownership.as_ref()) {
                    Some(o) => o.iter().map(|x| -x).collect(),
                    None => vec![0.0; size * size],
                },
            )
            .collect();
        extras.moves_ownership = Some(owns);
    }
    shared.emit(&response::analysis(spec, &snap, false, &extras));
}
