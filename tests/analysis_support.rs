//! Helpers for the analysis-engine tests: an engine on a thread, fed line
//! by line through a channel, whose output lines arrive on another; and a
//! deterministic "material" evaluator (lead = stone difference − komi
//! share, ownership = the stones) so perspectives have a known answer.
#![allow(dead_code)]

use std::io::{self, BufReader, Read, Write};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::Value;
use tengen::analysis::{self, AnalysisConfig};
use tengen::eval::{policy_index, EvalInput, EvalOutput, Evaluator};
use tengen::rules::Color;
use tengen::search::testing::FnEvaluator;

/// Reads what the test sends; ends when the sender is dropped.
struct ChannelReader {
    rx: Receiver<Vec<u8>>,
    pending: Vec<u8>,
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pending.is_empty() {
            match self.rx.recv() {
                Ok(bytes) => self.pending = bytes,
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.pending.len());
        buf[..n].copy_from_slice(&self.pending[..n]);
        self.pending.drain(..n);
        Ok(n)
    }
}

/// Sends each complete output line to the test.
struct LineWriter {
    tx: Sender<String>,
    buf: Vec<u8>,
}

impl Write for LineWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(data);
        while let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buf.drain(..=i).collect();
            let _ = self
                .tx
                .send(String::from_utf8_lossy(&line).trim().to_string());
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A running engine.
pub struct Engine {
    tx: Option<Sender<Vec<u8>>>,
    rx: Receiver<String>,
    handle: Option<JoinHandle<io::Result<()>>>,
}

impl Engine {
    pub fn start(config: AnalysisConfig, eval: Arc<dyn Evaluator>) -> Engine {
        let (in_tx, in_rx) = channel();
        let (out_tx, out_rx) = channel();
        let handle = std::thread::spawn(move || {
            let input = BufReader::new(ChannelReader {
                rx: in_rx,
                pending: Vec::new(),
            });
            let output = LineWriter {
                tx: out_tx,
                buf: Vec::new(),
            };
            analysis::run(config, eval, input, output)
        });
        Engine {
            tx: Some(in_tx),
            rx: out_rx,
            handle: Some(handle),
        }
    }

    /// One worker, one search thread, fixed seed, the material evaluator.
    pub fn deterministic() -> Engine {
        Engine::start(config(1), material())
    }

    pub fn send(&self, line: &str) {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.tx.as_ref().unwrap().send(bytes).unwrap();
    }

    /// The next output line, parsed (fails the test after 60 s).
    pub fn recv(&self) -> Value {
        match self.rx.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("output is not JSON ({e}): {line}")),
            Err(RecvTimeoutError::Timeout) => panic!("no output within 60 s"),
            Err(RecvTimeoutError::Disconnected) => panic!("engine ended"),
        }
    }

    /// Lines until (and including) the final response of (`id`, `turn`).
    pub fn until_final(&self, id: &str, turn: u64) -> Vec<Value> {
        let mut out = Vec::new();
        loop {
            let v = self.recv();
            let done = v["id"] == id
                && v["turnNumber"] == turn
                && v["isDuringSearch"] == false
                && v.get("error").is_none();
            out.push(v);
            if done {
                return out;
            }
        }
    }

    /// Ends the input, waits for the engine and returns the remaining
    /// lines.
    pub fn close(mut self) -> Vec<Value> {
        self.tx = None;
        let result = self.handle.take().unwrap().join().expect("engine panicked");
        result.expect("engine returned an error");
        self.rx
            .try_iter()
            .map(|l| serde_json::from_str(&l).unwrap())
            .collect()
    }
}

/// A deterministic config with `workers` workers.
pub fn config(workers: usize) -> AnalysisConfig {
    let mut c = AnalysisConfig {
        workers,
        ..AnalysisConfig::default()
    };
    c.search.threads = 1;
    c.search.seed = 7;
    c
}

/// Lead for the player to move = own stones − opponent stones − komi (for
/// Black) / + komi (for White); winrate a logistic of the lead; ownership
/// the stones; a policy preferring the centre (deterministic, not
/// uniform, so priors and policy order mean something).
pub fn material() -> Arc<dyn Evaluator> {
    Arc::new(FnEvaluator(|input: &EvalInput| -> EvalOutput {
        let pos = &input.position;
        let size = pos.size();
        let me = pos.to_move();
        let board = pos.board();
        let (mut mine, mut theirs) = (0.0f32, 0.0f32);
        let mut own = vec![0.0f32; size * size];
        for p in board.points() {
            match board.get(p) {
                Some(c) if c == me => {
                    mine += 1.0;
                    own[p.dense(size)] = 1.0;
                }
                Some(_) => {
                    theirs += 1.0;
                    own[p.dense(size)] = -1.0;
                }
                None => {}
            }
        }
        let komi = pos.rules().komi;
        let lead = mine - theirs + if me == Color::White { komi } else { -komi };
        let win = 1.0 / (1.0 + (-lead / 3.0).exp());
        let mut policy = vec![0.0f32; size * size + 1];
        let c = (size as f32 - 1.0) / 2.0;
        for mv in pos.legal_moves() {
            let w = match mv.point() {
                Some(p) => {
                    let d = (p.x() as f32 - c).abs() + (p.y() as f32 - c).abs();
                    1.0 / (1.0 + d)
                }
                None => 0.01,
            };
            policy[policy_index(mv, size)] = w;
        }
        let total: f32 = policy.iter().sum();
        for p in &mut policy {
            *p /= total;
        }
        EvalOutput {
            shortterm_error: None,
            policy,
            value: [win, 1.0 - win, 0.0],
            score_lead: lead,
            ownership: Some(own),
        }
    }))
}
