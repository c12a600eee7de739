//! The GTP engine: `tengen gtp`.
//!
//! - [`protocol`]: line cleaning, ids, reply framing.
//! - [`commands`]: the one command table (name, handler, help) that also
//!   answers `list_commands`, `known_command` and `help`.
//! - [`analyze`]: streaming commands (`lz-analyze`, `kata-analyze`,
//!   `analyze`, the `genmove_analyze` family) in the formats GUIs read.
//! - [`endgame`]: `final_score`, `final_status_list`, `tengen-judge`.
//! - [`Session`]: the game, the engine and autosave; executes one line at
//!   a time and never panics on input.
//! - [`serve`]: the I/O loop. Standard input is read on its own thread, so
//!   any new line that arrives while a long command runs (genmove,
//!   analysis) sets the stop flag that command watches. With pondering on,
//!   the engine searches on the opponent's time after each genmove until
//!   the next line arrives.

pub mod analyze;
pub mod commands;
mod config;
pub mod endgame;
mod kata_rules;
pub mod protocol;
mod session;

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Instant;

pub use config::{build_evaluator, default_autosave_path, Autosave, SessionConfig};
pub use session::{Call, Session};

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

/// Runs the GTP loop on `input` and `output` until `quit` or end of input.
pub fn serve<R, W>(mut session: Session, input: R, mut output: W) -> io::Result<()>
where
    R: Read + Send + 'static,
    W: Write,
{
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<Option<Input>>();
    let reader_stop = Arc::clone(&stop);
    std::thread::spawn(move || {
        let mut r = BufReader::new(input);
        loop {
            let next = read_line_capped(&mut r, protocol::MAX_LINE);
            let line = match next {
                Ok(Some((bytes, too_long))) => Some(Input {
                    bytes,
                    too_long,
                    received: Instant::now(),
                }),
                _ => None,
            };
            let eof = line.is_none();
            // Send first, then raise the flag: the main loop clears the flag
            // before it drains the channel, so no line is missed.
            if tx.send(line).is_err() {
                break;
            }
            reader_stop.store(true, Ordering::SeqCst);
            if eof {
                break;
            }
        }
    });
    let mut queue: VecDeque<Option<Input>> = VecDeque::new();
    loop {
        let next = match queue.pop_front() {
            Some(x) => x,
            None => rx.recv().unwrap_or(None),
        };
        let Some(input) = next else { break };
        stop.store(false, Ordering::SeqCst);
        while let Ok(x) = rx.try_recv() {
            queue.push_back(x);
        }
        if !queue.is_empty() {
            stop.store(true, Ordering::SeqCst);
        }
        session.execute(
            &input.bytes,
            input.too_long,
            input.received,
            &mut output,
            &stop,
        )?;
        output.flush()?;
        if session.quit_requested() {
            break;
        }
        if session.wants_ponder() {
            // Clear the flag before looking for input: a line that arrives
            // later raises it again after it is queued, so pondering never
            // sleeps on a waiting command.
            stop.store(false, Ordering::SeqCst);
            while let Ok(x) = rx.try_recv() {
                queue.push_back(x);
            }
            if queue.is_empty() {
                session.ponder(&stop);
            }
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
