//! A GTP engine run as a child process (`sh -c "exec COMMAND"`), with a
//! timeout on every reply. Errors are strings naming the command.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

/// See the module docs.
pub struct GtpEngine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    pub timeout: Duration,
    pub name: String,
}

impl GtpEngine {
    /// Starts `command` (a shell command line).
    pub fn start(command: &str, timeout: Duration) -> Result<GtpEngine, String> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("exec {command}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("starting {command:?}: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut e = GtpEngine {
            child,
            stdin,
            lines: rx,
            timeout,
            name: command.to_string(),
        };
        if let Ok(n) = e.send("name") {
            e.name = n;
        }
        Ok(e)
    }

    /// Sends one command; the reply text after `=`, or an error for `?`,
    /// a timeout or a dead engine.
    pub fn send(&mut self, cmd: &str) -> Result<String, String> {
        writeln!(self.stdin, "{cmd}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| format!("{cmd}: engine gone ({e})"))?;
        let mut reply: Vec<String> = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(self.timeout)
                .map_err(|_| format!("{cmd}: no reply (timeout or engine exited)"))?;
            let line = line.trim_end_matches('\r').to_string();
            if line.is_empty() {
                if reply.is_empty() {
                    continue;
                }
                break;
            }
            reply.push(line);
        }
        let text = reply.join("\n");
        let body = text.get(1..).unwrap_or("");
        // Skip an optional numeric id.
        let body = body.trim_start_matches(|c: char| c.is_ascii_digit()).trim();
        match text.chars().next() {
            Some('=') => Ok(body.to_string()),
            Some('?') => Err(format!("{cmd}: {body}")),
            _ => Err(format!("{cmd}: malformed reply {text:?}")),
        }
    }
}

impl Drop for GtpEngine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        std::thread::sleep(Duration::from_millis(50));
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
