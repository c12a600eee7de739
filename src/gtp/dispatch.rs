//! Executing one input line on a [`Session`]: parse it, look the command
//! up in the table (`commands`), run its handler with a [`Call`], write the
//! reply, autosave. The one place that knows both the session and the
//! table, so neither imports the other.

use std::io::{self, Write};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::commands::find;
use super::protocol::{self, Parsed, MAX_LINE};
use super::session::{Call, Session};

impl Session {
    /// Executes one raw input line and writes its reply (none for a blank
    /// line). `too_long` marks a line cut at [`MAX_LINE`]. Never panics on
    /// input; I/O errors on `out` are returned. `stop` interrupts every
    /// long command, genmove included (see [`Session::execute_with`]).
    pub fn execute(
        &mut self,
        raw: &[u8],
        too_long: bool,
        received: Instant,
        out: &mut dyn Write,
        stop: &AtomicBool,
    ) -> io::Result<()> {
        self.execute_with(raw, too_long, received, out, stop, stop)
    }

    /// [`Session::execute`] with a separate `interrupt` flag, the only one
    /// genmove and its variants obey (see [`Call::interrupt`]).
    pub fn execute_with(
        &mut self,
        raw: &[u8],
        too_long: bool,
        received: Instant,
        out: &mut dyn Write,
        stop: &AtomicBool,
        interrupt: &AtomicBool,
    ) -> io::Result<()> {
        if too_long || raw.len() > MAX_LINE {
            let id = protocol::id_of(&raw[..raw.len().min(MAX_LINE)]);
            let msg = format!("syntax error: line longer than {MAX_LINE} bytes");
            return out.write_all(protocol::failure(id.as_deref(), &msg).as_bytes());
        }
        let cmd = match protocol::parse(raw) {
            Parsed::Empty => return Ok(()),
            Parsed::Error { id, message } => {
                return out.write_all(protocol::failure(id.as_deref(), &message).as_bytes())
            }
            Parsed::Command(c) => c,
        };
        let id = cmd.id.as_deref();
        let Some(spec) = find(&cmd.name) else {
            return out.write_all(protocol::failure(id, "unknown command").as_bytes());
        };
        self.ponder_pending = false;
        let mut call = Call {
            args: &cmd.args,
            stop,
            interrupt,
            received,
            id,
            out: &mut *out,
            streaming: false,
        };
        // A handler bug must not take the engine down (B1): turn a panic
        // into an error reply. The game may then be in the state the handler
        // left it, which is always a consistent one (games change by
        // whole-entry pushes).
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            (spec.handler)(self, &mut call)
        }));
        let streaming = call.streaming;
        let reply = match result {
            Ok(r) => r,
            Err(_) => Err("internal error".to_string()),
        };
        if streaming {
            if let Err(e) = &reply {
                writeln!(out, "error {}", protocol::sanitize(e).replace('\n', " "))?;
            }
            out.write_all(b"\n")?;
        } else {
            let text = match &reply {
                Ok(r) => protocol::success(id, r),
                Err(e) => protocol::failure(id, e),
            };
            out.write_all(text.as_bytes())?;
        }
        self.autosave_now();
        Ok(())
    }

    /// Runs one line with no interruption and returns the reply as text
    /// (for tests and the terminal mode).
    pub fn run_line(&mut self, line: &str) -> String {
        self.run_bytes(line.as_bytes())
    }

    /// [`Session::run_line`] for raw bytes.
    pub fn run_bytes(&mut self, raw: &[u8]) -> String {
        let mut out = Vec::new();
        let stop = AtomicBool::new(false);
        let _ = self.execute(raw, false, Instant::now(), &mut out, &stop);
        String::from_utf8_lossy(&out).into_owned()
    }
}
