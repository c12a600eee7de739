//! The GTP engine: `tengen gtp`.
//!
//! - [`protocol`]: line cleaning, ids, reply framing.
//! - [`commands`]: the one command table (name, handler, help) that also
//!   answers `list_commands`, `known_command` and `help`.
//! - [`analyze`]: streaming commands (`lz-analyze`, `kata-analyze`,
//!   `analyze`, the `genmove_analyze` family) in the formats GUIs read.
//! - [`endgame`]: `final_score`, `final_status_list`, `tengen-judge`.
//! - `args` (argument parsing, the reply type) and `genmove` (a move on
//!   the clock): what the handlers share, so no handler file imports
//!   another.
//! - [`Session`]: the game, the engine and autosave; `dispatch` executes
//!   one line at a time on it through the table and never panics on
//!   input. Dependencies run one way: dispatch → commands → analyze,
//!   endgame → genmove, args → session.
//! - [`serve`]: the I/O loop. Standard input is read on its own thread, so
//!   any new line that arrives while a long command runs (genmove,
//!   analysis) sets the stop flag that command watches. With pondering on,
//!   the engine searches on the opponent's time after each genmove until
//!   the next line arrives.

pub mod analyze;
mod args;
pub mod commands;
mod config;
mod dispatch;
pub mod endgame;
mod genmove;
mod kata_rules;
pub mod protocol;
mod session;

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

pub use config::{
    auto_threads, build_evaluator, build_evaluators, default_autosave_path, Autosave,
    SessionConfig, DEFAULT_EVALUATOR,
};
pub use session::{Call, RawNn, Session};

/// One line from the reader thread.
struct Input {
    bytes: Vec<u8>,
    too_long: bool,
    received: Instant,
}

/// Reads one line of at most `max` bytes (newline excluded). Longer lines
/// are cut and flagged; the rest is consumed without being stored.
/// `Ok(None)` at end of input.
fn read_line_capped(r: &mut impl BufRead, max: usize) -> io::Result<Option<(Vec<u8>, bool)>> {
    let mut line = Vec::new();
    let mut too_long = false;
    let mut any = false;
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(any.then_some((line, too_long)));
        }
        any = true;
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        let room = max.saturating_sub(line.len());
        if chunk.len() > room {
            too_long = true;
        }
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = done.unwrap_or(buf.len());
        r.consume(used);
        if done.is_some() {
            return Ok(Some((line, too_long)));
        }
    }
}

/// Lines read but not yet executed, shared by the reader thread and the
/// GTP loop. The stop flag is only ever changed under this lock, so "a
/// newer line is waiting" and the flag can never disagree: a line never
/// interrupts its own command, and a line that arrives while a command
/// runs always interrupts it.
///
/// The interrupt flag is raised only while a GoGui interrupt line
/// (`# interrupt`) is waiting; genmove obeys only that one, so pipelined
/// commands wait for the move instead of cutting its search short.
struct Inbox {
    lines: Mutex<VecDeque<Option<Input>>>,
    ready: Condvar,
    stop: Arc<AtomicBool>,
    interrupt: Arc<AtomicBool>,
    /// Whether the loop is pondering (changed under the `lines` lock).
    pondering: AtomicBool,
    /// The running command ends only when stopped (an analysis stream).
    open_ended: AtomicBool,
}

/// Commands that run until new input stops them: the end of the input
/// must stop them too.
const OPEN_ENDED: [&str; 3] = ["lz-analyze", "kata-analyze", "analyze"];

fn is_open_ended(input: &Input) -> bool {
    matches!(protocol::parse(&input.bytes),
        protocol::Parsed::Command(c) if OPEN_ENDED.contains(&c.name.as_str()))
}

impl Inbox {
    /// Queues a line (or end of input) and raises the stop flag.
    fn push(&self, line: Option<Input>) {
        let mut q = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        if line.as_ref().is_some_and(is_interrupt) {
            self.interrupt.store(true, Ordering::SeqCst);
        }
        q.push_back(line);
        self.stop.store(true, Ordering::SeqCst);
        self.ready.notify_one();
    }

    /// Takes the next line, waiting for one; the stop flag is then raised
    /// exactly when more lines are already waiting.
    fn pop(&self) -> Option<Input> {
        let mut q = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(line) = q.pop_front() {
                self.stop.store(!q.is_empty(), Ordering::SeqCst);
                let waiting = q.iter().flatten().any(is_interrupt);
                self.interrupt.store(waiting, Ordering::SeqCst);
                return line;
            }
            q = self.ready.wait(q).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Marks end of input. It interrupts pondering but not a command: a
    /// script that ends with `genmove` still gets a full search.
    fn end(&self) {
        let mut q = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        q.push_back(None);
        // Pondering and analysis streams end with the input; a genmove
        // still running finishes its move first.
        if self.pondering.load(Ordering::SeqCst) || self.open_ended.load(Ordering::SeqCst) {
            self.stop.store(true, Ordering::SeqCst);
        }
        self.ready.notify_one();
    }

    /// Starts pondering if no line is waiting: clears the stop flag and
    /// returns true.
    /// Marks whether the command about to run is open-ended (under the
    /// queue's lock, so an end of input cannot slip between).
    fn set_open_ended(&self, open: bool) {
        let q = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        self.open_ended.store(open, Ordering::SeqCst);
        if open && q.iter().any(Option::is_none) {
            self.stop.store(true, Ordering::SeqCst);
        }
    }

    fn start_pondering(&self) -> bool {
        let q = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        if !q.is_empty() {
            return false;
        }
        self.stop.store(false, Ordering::SeqCst);
        self.pondering.store(true, Ordering::SeqCst);
        true
    }

    fn stop_pondering(&self) {
        let _guard = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        self.pondering.store(false, Ordering::SeqCst);
    }
}

/// GoGui's interrupt: a comment line it sends to stop a running command.
fn is_interrupt(input: &Input) -> bool {
    input.bytes.trim_ascii() == b"# interrupt"
}

/// Runs the GTP loop on `input` and `output` until `quit` or end of input.
pub fn serve<R, W>(mut session: Session, input: R, mut output: W) -> io::Result<()>
where
    R: Read + Send + 'static,
    W: Write,
{
    let stop = Arc::new(AtomicBool::new(false));
    let interrupt = Arc::new(AtomicBool::new(false));
    let inbox = Arc::new(Inbox {
        lines: Mutex::new(VecDeque::new()),
        ready: Condvar::new(),
        stop: Arc::clone(&stop),
        interrupt: Arc::clone(&interrupt),
        pondering: AtomicBool::new(false),
        open_ended: AtomicBool::new(false),
    });
    let reader_inbox = Arc::clone(&inbox);
    std::thread::spawn(move || {
        let mut r = BufReader::new(input);
        loop {
            let line = match read_line_capped(&mut r, protocol::MAX_LINE) {
                Ok(Some((bytes, too_long))) => Some(Input {
                    bytes,
                    too_long,
                    received: Instant::now(),
                }),
                _ => None,
            };
            if line.is_none() {
                reader_inbox.end();
                break;
            }
            reader_inbox.push(line);
        }
    });
    while let Some(input) = inbox.pop() {
        inbox.set_open_ended(is_open_ended(&input));
        session.execute_with(
            &input.bytes,
            input.too_long,
            input.received,
            &mut output,
            &stop,
            &interrupt,
        )?;
        inbox.set_open_ended(false);
        output.flush()?;
        if session.quit_requested() {
            break;
        }
        // Search on the opponent's time until the next line arrives.
        if session.wants_ponder() && inbox.start_pondering() {
            session.ponder(&stop);
            inbox.stop_pondering();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serve_answers_until_quit() {
        let session = SessionConfig {
            size: 9,
            autosave: Autosave::Off,
            ..SessionConfig::default()
        }
        .build()
        .unwrap();
        let input = io::Cursor::new(b"1 name\r\n\n# c\nfoo\nquit\nname\n".to_vec());
        let mut out = Vec::new();
        serve(session, input, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "=1 tengen\n\n? unknown command\n\n= \n\n"
        );
    }

    /// Counts the positions it evaluates (uniform answers).
    struct Counting(std::sync::atomic::AtomicUsize);
    impl crate::eval::Evaluator for Counting {
        fn evaluate(&self, batch: &[crate::eval::EvalInput]) -> Vec<crate::eval::EvalOutput> {
            self.0.fetch_add(batch.len(), Ordering::SeqCst);
            crate::eval::fake::UniformEvaluator.evaluate(batch)
        }
        fn max_batch(&self) -> usize {
            8
        }
        fn name(&self) -> String {
            "counting".into()
        }
    }

    fn counting_session(visits: u64, max_time: f64) -> (Session, Arc<Counting>) {
        let eval = Arc::new(Counting(Default::default()));
        let cfg = SessionConfig {
            size: 9,
            visits: Some(visits),
            max_time: Some(std::time::Duration::from_secs_f64(max_time)),
            autosave: Autosave::Off,
            ..SessionConfig::default()
        };
        let engine = crate::engine::Engine::new(eval.clone(), cfg.engine_settings(&*eval).unwrap());
        let game = crate::game::Game::new(9, crate::rules::Ruleset::chinese()).unwrap();
        (Session::new(game, engine), eval)
    }

    #[test]
    fn pipelined_commands_do_not_cut_genmove_short() {
        let (session, eval) = counting_session(200, 60.0);
        // Everything arrives at once, as from a controller that pipelines.
        let input = io::Cursor::new(b"genmove b\nname\nquit\n".to_vec());
        let mut out = Vec::new();
        serve(session, input, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with("= ") && text.contains("= tengen"),
            "{text}"
        );
        let evals = eval.0.load(Ordering::SeqCst);
        assert!(
            evals >= 150,
            "the search stopped early: {evals} evaluations"
        );
    }

    /// Gives `bytes`, then waits `delay` before the end of input.
    struct SlowEnd {
        bytes: io::Cursor<Vec<u8>>,
        delay: std::time::Duration,
    }

    impl Read for SlowEnd {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.bytes.read(buf)?;
            if n == 0 {
                std::thread::sleep(self.delay);
            }
            Ok(n)
        }
    }

    #[test]
    fn the_end_of_input_stops_analysis() {
        for cmd in ["lz-analyze b 10", "kata-analyze b 10", "analyze b 10"] {
            let (session, _) = counting_session(u64::MAX / 2, 3600.0);
            let input = SlowEnd {
                bytes: io::Cursor::new(format!("{cmd}\n").into_bytes()),
                delay: std::time::Duration::from_millis(300),
            };
            let mut out = Vec::new();
            let t = Instant::now();
            serve(session, input, &mut out).unwrap();
            assert!(t.elapsed().as_secs_f64() < 10.0, "{cmd}: {:?}", t.elapsed());
            let text = String::from_utf8(out).unwrap();
            assert!(text.starts_with('='), "{cmd}: {text}");
            assert!(text.contains("info move"), "{cmd}: {text}");
        }
    }

    #[test]
    fn the_end_of_input_lets_genmove_finish() {
        let (session, eval) = counting_session(200, 60.0);
        let input = SlowEnd {
            bytes: io::Cursor::new(b"genmove b\n".to_vec()),
            delay: std::time::Duration::from_millis(10),
        };
        let mut out = Vec::new();
        serve(session, input, &mut out).unwrap();
        assert!(String::from_utf8(out).unwrap().starts_with("= "));
        assert!(eval.0.load(Ordering::SeqCst) >= 150);
    }

    #[test]
    fn gogui_interrupt_stops_genmove() {
        let (session, _) = counting_session(u64::MAX / 2, 30.0);
        let input = io::Cursor::new(b"genmove b\n# interrupt\nquit\n".to_vec());
        let mut out = Vec::new();
        let t = Instant::now();
        serve(session, input, &mut out).unwrap();
        assert!(t.elapsed().as_secs_f64() < 10.0, "{:?}", t.elapsed());
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("= "), "{text}");
    }

    #[test]
    fn capped_lines() {
        let data = b"abc\r\nxxxxxxxxxx\nlast".to_vec();
        let mut r = BufReader::with_capacity(4, &data[..]);
        assert_eq!(
            read_line_capped(&mut r, 5).unwrap(),
            Some((b"abc\r".to_vec(), false))
        );
        assert_eq!(
            read_line_capped(&mut r, 5).unwrap(),
            Some((b"xxxxx".to_vec(), true))
        );
        assert_eq!(
            read_line_capped(&mut r, 5).unwrap(),
            Some((b"last".to_vec(), false))
        );
        assert_eq!(read_line_capped(&mut r, 5).unwrap(), None);
    }
}
