//! The command streams real clients sent (`../shared/testdata/clients/`),
//! replayed against the `tengen gtp` binary: every reply well formed, an
//! error only where the client sent something wrong, streaming analysis
//! stopped by the next command as the client does, and the checks those
//! clients make on the replies.

mod common;

use std::io::{BufRead, Write};

use common::Gtp;

/// Commands that stream until the next input.
fn streams(cmd: &str) -> bool {
    let name = cmd
        .split_whitespace()
        .find(|w| !w.bytes().all(|b| b.is_ascii_digit()))
        .unwrap_or("");
    ["lz-analyze", "kata-analyze", "analyze"].contains(&name)
}

/// One reply: its first line and the rest.
struct Reply {
    head: String,
    body: Vec<String>,
}

/// Sends `cmd`; for a streaming command, reads its `=` line and one
/// `info` line first, then sends `stop_with` (the client's next command)
/// and reads the end of the stream. Returns this command's reply.
fn send(e: &mut Gtp, cmd: &str) -> Reply {
    writeln!(e.stdin, "{cmd}").unwrap();
    e.stdin.flush().unwrap();
    let mut lines = Vec::new();
    let streaming = streams(cmd);
    loop {
        let mut line = String::new();
        let n = e.stdout.read_line(&mut line).unwrap();
        assert!(n > 0, "engine closed its output after {cmd:?}");
        let line = line.trim_end_matches(['\r', '\n']).to_string();
        if streaming && lines.len() == 2 {
            // Stop it the way clients do: any new line.
            writeln!(e.stdin).unwrap();
            e.stdin.flush().unwrap();
        }
        if line.is_empty() && !lines.is_empty() {
            break;
        }
        lines.push(line);
    }
    let head = lines.remove(0);
    Reply { head, body: lines }
}

fn replay(file: &str, args: &[&str], expect_error: &[&str]) -> Vec<(String, Reply)> {
    let Some(path) = common::testdata(&format!("clients/{file}")) else {
        return Vec::new();
    };
    let text = std::fs::read_to_string(path).unwrap();
    let mut e = Gtp::tengen(args);
    let mut out = Vec::new();
    for cmd in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let r = send(&mut e, cmd);
        let bare = cmd.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ');
        let id = cmd
            .split_whitespace()
            .next()
            .filter(|w| w.bytes().all(|b| b.is_ascii_digit()));
        let want_error = expect_error.iter().any(|x| bare.starts_with(x));
        let mark = if want_error { '?' } else { '=' };
        assert!(
            r.head.starts_with(mark),
            "{file}: {cmd:?} answered {:?}",
            r.head
        );
        if let Some(id) = id {
            assert!(
                r.head[1..].starts_with(id),
                "{file}: id of {cmd:?}: {:?}",
                r.head
            );
        }
        if streams(cmd) {
            let info = r.body.first().map(String::as_str).unwrap_or("");
            assert!(info.starts_with("info move "), "{file}: {cmd:?}: {info:?}");
        }
        if bare == "quit" {
            break;
        }
        out.push((cmd.to_string(), r));
    }
    out
}

/// What Lizzie 0.7.4 does with `version` for an engine whose `name` does
/// not start with "KataGo": reads the second dot-separated number and
/// shows a blocking dialog below 15.
fn lizzie_accepts(version: &str) -> bool {
    let token = version.split(' ').next().unwrap_or("");
    let parts: Vec<&str> = token.split('.').collect();
    parts.len() > 1 && parts[1].parse::<i32>().is_ok_and(|minor| minor >= 15)
}

fn result(r: &Reply) -> &str {
    r.head
        .trim_start_matches(['=', '?'])
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim()
}

#[test]
fn lizzie_leela_zero_mode() {
    let out = replay(
        "lizzie-0.7.4-gtp-commands.txt",
        &["--size", "19", "--visits", "32", "--no-autosave"],
        &[],
    );
    if let Some((_, name)) = out.iter().find(|(c, _)| c.ends_with(" name")) {
        assert_eq!(result(name), "tengen");
    }
    if let Some((_, v)) = out.iter().find(|(c, _)| c.ends_with(" version")) {
        assert!(
            lizzie_accepts(result(v)),
            "Lizzie would stop at version {:?}",
            result(v)
        );
    }
}

#[test]
fn lizzie_katago_mode() {
    let out = replay(
        "lizzie-0.7.4-katago-mode-gtp-commands.txt",
        &["--size", "9", "--visits", "32", "--no-autosave"],
        &[],
    );
    for (cmd, r) in &out {
        if cmd.contains("kata-analyze") && cmd.contains("ownership true") {
            let info = &r.body[0];
            assert!(info.contains(" ownership "), "{cmd}: {info}");
        }
    }
}

#[test]
fn sabaki_gtp_controller() {
    let out = replay(
        "sabaki-gtp-3.0.0-commands.txt",
        &["--size", "9", "--visits", "32", "--no-autosave"],
        &["rectangular_boardsize", "boardsize 25", "play B Z99"],
    );
    if let Some((_, r)) = out.iter().find(|(c, _)| c == "list_commands") {
        for needed in ["analyze", "genmove_analyze", "lz-analyze", "kata-analyze"] {
            assert!(
                r.body
                    .iter()
                    .chain([&r.head])
                    .any(|l| result_line(l) == needed),
                "{needed}"
            );
        }
    }
}

fn result_line(l: &str) -> &str {
    l.trim_start_matches('=').trim()
}

/// KaTrain 1.20.0's queries (its own `KataGoEngine` class, headless),
/// replayed against `tengen analysis` with visits capped: every query is
/// answered under its id, and the only errors are for the illegal move
/// KaTrain sent on purpose.
#[test]
fn katrain_analysis_queries() {
    use std::process::{Command, Stdio};
    let Some(path) = common::testdata("clients/katrain-1.20.0-analysis-queries.jsonl") else {
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    let mut input = String::new();
    let mut ids = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut q: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(v) = q.get("maxVisits").and_then(|v| v.as_u64()) {
            q["maxVisits"] = serde_json::json!(v.min(16));
        }
        if q.get("action").is_none() {
            ids.push(q["id"].as_str().unwrap().to_string());
        }
        input.push_str(&q.to_string());
        input.push('\n');
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["analysis", "--evaluator", "heuristic", "--rollouts", "4"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    assert!(out.status.success());
    let mut answered = std::collections::BTreeSet::new();
    let mut errors = Vec::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(e) = r.get("error") {
            errors.push(e.as_str().unwrap_or_default().to_string());
        }
        if let Some(id) = r.get("id").and_then(|v| v.as_str()) {
            if r.get("warning").is_none() {
                answered.insert(id.to_string());
            }
        }
    }
    for id in &ids {
        assert!(answered.contains(id), "no answer for {id}");
    }
    assert!(
        errors.iter().all(|e| e.starts_with("Illegal move")),
        "{errors:?}"
    );
    assert!(errors.len() <= 2, "{errors:?}");
}
